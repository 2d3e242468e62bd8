"""Shown instead of a screen's content when the terminal is below 80x24."""

from __future__ import annotations

from textual.widgets import Static

MIN_WIDTH = 80
MIN_HEIGHT = 24


class TooSmall(Static):
    DEFAULT_CSS = """
    TooSmall {
        display: none;
        width: 1fr;
        height: 1fr;
        content-align: center middle;
        text-align: center;
        text-style: bold;
        background: $background;
        color: $text;
    }
    """

    def show_size(self, width: int, height: int) -> None:
        self.update(
            f"Terminal too small (need {MIN_WIDTH}x{MIN_HEIGHT}, have {width}x{height}).\n"
            "Enlarge the window to continue; ctrl+q quits."
        )
