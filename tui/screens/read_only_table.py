"""What a table screen does when nothing on it plays (issues 21): a replay
and a watch. Put before a game's table screen; each adds its own keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import RenderableType
from textual.screen import Screen

from tui.screens.info import InfoScreen
from tui.screens.table import TableScreen


class ReadOnlyTableScreen(TableScreen):
    """A table nobody plays at from here: no widget takes the keys, no
    choice or end-of-round dialog opens (the log and the score sheet say
    it), and leaving loses nothing."""

    AUTO_FOCUS = None  # the screen keeps the keys: no widget takes them

    @property
    def in_progress(self) -> bool:
        return False  # nothing is lost by leaving: no confirmation

    def refocus(self) -> None:
        if self.focused is not None:
            self.set_focus(None)

    def push_dialog(
        self, dialog: Screen[Any], callback: Callable[[Any], None] | None = None
    ) -> None:
        # Only a look asked for by a key (the last trick): never a choice or
        # an end-of-round summary.
        if type(dialog) is InfoScreen:
            super().push_dialog(dialog, callback)

    def show_round_end(self, title: str, body: RenderableType) -> None:
        """Nothing opens: the log and the score sheet say how the round ended."""


__all__ = ["ReadOnlyTableScreen"]
