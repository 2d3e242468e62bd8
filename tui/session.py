"""Starting a local table: people and bots around an in-process authority.

The TUI only ever talks to the :class:`~net.peer.client.TableClient` this returns.
"""

from __future__ import annotations

from collections.abc import Mapping

from core.registry import get_game
from net.authority.table import BOT_NAMES, HUMAN, SeatSpec, Table
from net.peer.client import LocalClient, TableClient
from net.protocol.text import name_key

__all__ = ["BOT_NAMES", "HUMAN_SEAT", "seat_names", "start_local"]

HUMAN_SEAT = 0


def seat_names(name: str, players: int) -> tuple[str, ...]:
    """The person's name, then the bots': none named like the person (issue
    18: "ada" and a bot "Ada" read as one player), compared as read."""
    bots = [bot for bot in BOT_NAMES if name_key(bot) != name_key(name)]
    bots += [f"Bot {seat + 1}" for seat in range(len(bots) + 1, players)]
    return (name, *bots[: players - 1])


def start_local(
    game_id: str,
    *,
    players: int,
    teams: bool,
    name: str,
    bots: list[str],
    seed: int,
    bot_delay: float,
    options: Mapping[str, object] | None = None,
) -> TableClient:
    """A client for seat 0 (the person) at a new local table with bots elsewhere;
    ``options`` are the game's variants (its config's other fields).
    Raises :class:`~core.engine.ConfigError` for settings the game refuses."""
    game = get_game(game_id)
    config = game.make_config(**{**(options or {}), "players": players, "teams": teams})
    names = seat_names(name, players)
    seats = [SeatSpec(names[0], HUMAN)] + [
        SeatSpec(names[seat], bots[seat - 1]) for seat in range(1, players)
    ]
    table = Table.new(game_id, config, seed, seats, bot_delay=bot_delay)
    return LocalClient(table, HUMAN_SEAT)
