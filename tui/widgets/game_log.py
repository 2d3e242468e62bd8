"""What happened, in words: each event's ``describe(names)``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from rich.text import Text
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
        self._batch: list[str] | None = None  # lines added in a batch, to write at its end

    def start_over(self) -> None:
        """Empty, as new: a replay shows another moment's log."""
        self.lines_written = []
        self.clear()

    def add(self, line: str) -> None:
        self.lines_written.append(line)
        if self._batch is not None:
            self._batch.append(line)
        else:
            self._write_wrapped(line)

    def _write_wrapped(self, content: str | Text) -> None:
        # Written while hidden (no width: wrapped at min_width), the lines
        # are written again once the log has a width (on_resize): a
        # watcher's log, hidden under the lobby's note, kept its first lines
        # wrapped at 20 columns when the table appeared.
        self.write(content)
        self._wrapped_at = self.region.width  # as a Resize's size: 0 while hidden

    @contextlib.contextmanager
    def in_one_write(self) -> Iterator[None]:
        """Lines added meanwhile are written in one go at the end: one
        render instead of one per line (a replay writes a whole game's log
        at each step: 150 lines took 110 ms one by one)."""
        self._batch = []
        try:
            yield
        finally:
            lines, self._batch = self._batch, None
            if lines:
                self._write_wrapped(Text("\n".join(lines)))

    def on_resize(self, event: events.Resize) -> None:
        """Lines are wrapped when written: after a change of width they are
        written again at the new width (issue 18: they did not re-wrap), and
        the newest line stays in sight when the log loses a row (the ⚠ bar
        over a networked table takes one)."""
        width = event.size.width
        if width != self._wrapped_at and self.lines_written:
            self._wrapped_at = width
            self.clear()
            self.write(Text("\n".join(self.lines_written)))
        self._wrapped_at = width
        if self.auto_scroll:
            self.call_after_refresh(self.scroll_end, animate=False)
