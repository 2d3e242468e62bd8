"""Find games by id, so that ``net`` and ``tui`` never import a game by name.

Adding a game = one package in ``core/`` exposing ``GAME`` + one line here.
"""

from __future__ import annotations

import importlib

from core.engine import AnyGame, ConfigError

# game id -> module that defines ``GAME``; imported lazily on first use.
_MODULES: dict[str, str] = {
    "passpass": "core.passpass",
    "dominoes": "core.dominoes",
    "fashion": "core.fashion",
}

_loaded: dict[str, AnyGame] = {}


def game_ids() -> tuple[str, ...]:
    """Ids of every game, in menu order (nothing is imported)."""
    return tuple(_MODULES)


def get_game(game_id: str) -> AnyGame:
    """The game with this id; :class:`ConfigError` naming the known ids if none."""
    if game_id in _loaded:
        return _loaded[game_id]
    module_name = _MODULES.get(game_id)
    if module_name is None:
        known = ", ".join(_MODULES)
        raise ConfigError(f"unknown game {game_id!r}; the games are: {known}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        raise ConfigError(f"the {game_id!r} engine is not installed") from None
    game: AnyGame = module.GAME
    _loaded[game_id] = game
    return game
