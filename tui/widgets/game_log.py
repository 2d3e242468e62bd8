"""What happened, in words: each event's ``describe(names)``."""

from __future__ import annotations

from textual import events
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
        self._wrapped_at = 0  # the width the lines were last wrapped for

    def add(self, line: str) -> None:
        self.lines_written.append(line)
        self.write(line)

    def on_resize(self, event: events.Resize) -> None:
        """Lines are wrapped when written: after a change of width they are
        written again at the new width (issue 18: they did not re-wrap), and
        the newest line stays in sight when the log loses a row (the ⚠ bar
        over a networked table takes one)."""
        width = event.size.width
        if width != self._wrapped_at and self.lines_written:
            self._wrapped_at = width
            self.clear()
            for line in self.lines_written:
                self.write(line)
        self._wrapped_at = width
        if self.auto_scroll:
            self.call_after_refresh(self.scroll_end, animate=False)
