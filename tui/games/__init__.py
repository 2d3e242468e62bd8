"""Which table screen plays which game: adding a game to the TUI is one
screen module (and its widgets) plus one line here. Screens are imported
lazily, so a game whose engine or screen is missing never breaks the app."""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.engine import GameInfo
from core.registry import game_ids, game_info

if TYPE_CHECKING:
    from tui.screens.table import TableScreen

# game id -> "module:class" of its table screen
TABLE_SCREENS: dict[str, str] = {
    "passpass": "tui.games.passpass.table:PassPassTableScreen",
    "dominoes": "tui.games.dominoes.table:DominoesTableScreen",
    "fashion": "tui.games.fashion.table:FashionTableScreen",
}


@dataclass(frozen=True)
class GameEntry:
    id: str
    info: GameInfo | None
    playable: bool
    note: str

    @property
    def title(self) -> str:
        return self.info.title if self.info else self.id


def load_table_screen(game_id: str) -> type[TableScreen]:
    target = TABLE_SCREENS.get(game_id)
    if target is None:
        raise LookupError(f"no table screen for {game_id!r} yet")
    module_name, _, class_name = target.partition(":")
    screen: type[TableScreen] = getattr(importlib.import_module(module_name), class_name)
    return screen


def _installed(module_name: str) -> bool:
    try:
        return importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:
        return False


def game_entries() -> list[GameEntry]:
    """Every game of the registry, playable or marked as coming. Nothing is
    imported: engines and screens load when their game starts (start-up time)."""
    entries: list[GameEntry] = []
    for game_id in game_ids():
        info = game_info(game_id)
        screen = TABLE_SCREENS.get(game_id, "").partition(":")[0]
        playable = bool(screen) and _installed(screen)
        entries.append(GameEntry(game_id, info, playable, "" if playable else "coming"))
    return entries
