"""What happened, in words: each event's ``describe(names)``."""

from __future__ import annotations

from textual.widgets import RichLog


class GameLog(RichLog):
    DEFAULT_CSS = """
    GameLog {
        border: round $primary 50%;
        border-title-color: $text;
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            id=id, wrap=True, markup=False, highlight=False, auto_scroll=True, min_width=20
        )
        self.can_focus = False
        self.border_title = "Log"
        self.lines_written: list[str] = []

    def add(self, line: str) -> None:
        self.lines_written.append(line)
        self.write(line)
