"""Find games by id, so that ``net`` and ``tui`` never import a game by name.

Each game's :class:`GameInfo` lives here, so menus can list every game
without importing its engine; the engine is imported on first use.
Adding a game = one package in ``core/`` exposing ``GAME`` + one entry here.
"""

from __future__ import annotations

import importlib

from core.engine import AnyGame, ConfigError, GameInfo

# game id -> (module that defines ``GAME``, its facts for menus), in menu order.
_GAMES: dict[str, tuple[str, GameInfo]] = {
    "passpass": (
        "core.passpass",
        GameInfo(
            id="passpass",
            title="Pass Pass",
            min_players=3,
            max_players=6,
            solo_player_counts=(3, 4, 5),  # PP-3
            team_player_counts=(4, 6),
            summary="Tricks with no need to follow colour: win the majority colour, "
            "collect sets of the four colours and diamonds.",
        ),
    ),
    "dominoes": (
        "core.dominoes",
        GameInfo(
            id="dominoes",
            title="Passe dominoes",
            min_players=2,
            max_players=4,
            solo_player_counts=(2, 3, 4),  # DO-2
            team_player_counts=(4,),
            summary="Double-six dominoes where you may always pass: empty your hand or "
            "hold the lowest count when the train blocks.",
        ),
    ),
    "fashion": (
        "core.fashion",
        GameInfo(
            id="fashion",
            title="Passe fashion",
            min_players=2,
            max_players=8,
            solo_player_counts=tuple(range(2, 9)),
            team_player_counts=(),
            summary="Fashion designers bid for the order of play, announce collections "
            "and change in public what is in fashion and what is passé.",
        ),
    ),
}

_loaded: dict[str, AnyGame] = {}


def game_ids() -> tuple[str, ...]:
    """Ids of every game, in menu order (nothing is imported)."""
    return tuple(_GAMES)


def game_info(game_id: str) -> GameInfo:
    """A game's facts for menus, without importing its engine."""
    try:
        return _GAMES[game_id][1]
    except KeyError:
        raise _unknown(game_id) from None


def _unknown(game_id: str) -> ConfigError:
    return ConfigError(f"unknown game {game_id!r}; the games are: {', '.join(_GAMES)}")


def get_game(game_id: str) -> AnyGame:
    """The game with this id; :class:`ConfigError` naming the known ids if none."""
    if game_id in _loaded:
        return _loaded[game_id]
    if game_id not in _GAMES:
        raise _unknown(game_id)
    module_name = _GAMES[game_id][0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        raise ConfigError(f"the {game_id!r} engine is not installed") from None
    game: AnyGame = module.GAME
    _loaded[game_id] = game
    return game
