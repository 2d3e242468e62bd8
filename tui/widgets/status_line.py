"""One line saying what happens now and what is expected of you."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


class StatusLine(Static):
    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        width: 1fr;
        padding: 0 1;
        background: $panel;
        color: $text;
    }
    StatusLine.-your-turn { background: $accent 40%; text-style: bold; }
    """

    _said: tuple[str, bool] | None = None

    def say(self, text: str, *, your_turn: bool) -> None:
        if self._said == (text, your_turn):
            return
        self._said = (text, your_turn)
        self.update(Content(text))  # names from the network: shown as text
        self.set_class(your_turn, "-your-turn")
