"""Which table screen plays which game: adding a game to the TUI is one
screen module (and its widgets) plus one line here. Screens are imported
lazily, so a game whose engine or screen is missing never breaks the app."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from core.engine import GameInfo
from core.registry import game_ids, get_game
from tui.screens.table import TableScreen

# game id -> "module:class" of its table screen
TABLE_SCREENS: dict[str, str] = {
    "passpass": "tui.screens.passpass_table:PassPassTableScreen",
    "dominoes": "tui.screens.dominoes_table:DominoesTableScreen",
    "fashion": "tui.screens.fashion_table:FashionTableScreen",
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


def game_entries() -> list[GameEntry]:
    """Every game of the registry, playable or marked as coming."""
    entries: list[GameEntry] = []
    for game_id in game_ids():
        try:
            info: GameInfo | None = get_game(game_id).info
        except Exception:  # a broken or missing engine must not break the menu
            entries.append(GameEntry(game_id, None, False, "coming"))
            continue
        try:
            load_table_screen(game_id)
        except (LookupError, ImportError):
            entries.append(GameEntry(game_id, info, False, "coming"))
            continue
        entries.append(GameEntry(game_id, info, True, ""))
    return entries
