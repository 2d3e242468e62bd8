"""What a table screen does when nothing on it plays (issues 21): a replay
and a watch. Put before a game's table screen; each adds its own keys."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from rich.console import RenderableType
from textual.screen import Screen

from tui.games import load_table_screen
from tui.screens.info import InfoScreen
from tui.screens.table import TableScreen


class ReadOnlyTableScreen(TableScreen):
    """A table nobody plays at from here: no widget takes the keys, no
    choice or end-of-round dialog opens (the log and the score sheet say
    it), and leaving loses nothing."""

    AUTO_FOCUS = None  # the screen keeps the keys: no widget takes them
    PLAYS = False  # no cursor in a hand, no choice offered

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


ReadOnly = TypeVar("ReadOnly", bound=ReadOnlyTableScreen)


def over_game_table(
    base: type[ReadOnly], game_id: str, prefix: str, title: str, made: dict[str, type[ReadOnly]]
) -> type[ReadOnly]:
    """``base`` put before ``game_id``'s own table screen (made once per
    game, kept in ``made``); raises ``LookupError`` or ``ImportError`` if
    the game has no table screen here."""
    screen_type = made.get(game_id)
    if screen_type is None:
        table_type = load_table_screen(game_id)
        name = f"{prefix}{table_type.__name__}"
        attributes = {"TITLE_IN_HELP": title, "DEFAULT_CSS": _game_css(table_type, base, name)}
        screen_type = type(name, (base, table_type), attributes)
        made[game_id] = screen_type
    return screen_type


def _game_css(table_type: type[TableScreen], base: type[TableScreen], name: str) -> str:
    """The CSS of the game's table screen, for the class ``name`` put
    before it: Textual takes a class's CSS from its first base's line only
    (DOMNode._css_bases), here ``base``'s, so a replay or a watch of
    fashion or dominoes lost its game's layout (a play-test: five blank
    rows, a hand cut to half width). Its type selectors name ``name``."""
    inherited = set(base._css_bases(base))
    rules = [
        re.sub(rf"\b{re.escape(cls.__name__)}\b", name, css)
        for cls in table_type._css_bases(table_type)
        if cls not in inherited and (css := cls.__dict__.get("DEFAULT_CSS", ""))
    ]
    return "\n".join(reversed(rules))  # the game's own last: it wins a tie


__all__ = ["ReadOnlyTableScreen", "over_game_table"]
