"""Games for the notation and replay tests: random games of every game,
played to their end (or cut short) by random bots, as Passe keeps them."""

from __future__ import annotations

import random

from core.engine import AnyState
from core.notation import GameFile, Outcome
from core.registry import get_game
from core.simulate import make_bots, play_out

# (game, players, teams): every game, alone and in teams where it may.
TABLES = [
    ("passpass", 3, False),
    ("passpass", 4, True),
    ("passpass", 5, False),
    ("dominoes", 2, False),
    ("dominoes", 4, True),
    ("fashion", 2, False),
    ("fashion", 5, False),
]
NAMES = ("You", "Ada", "Bruno", "Cleo", "Dmitri", "Ema", "Farid", "Gaia")
# Names with everything JSON and the notation's marks might trip on.
AWKWARD_NAMES = (
    'Zoë "Z"',
    "back\\slash",
    "[tag]",
    "semi;colon",
    "{brace}",
    "日本語",
    " ",
    "a\u2028b",
)


def played(game_id: str, players: int, teams: bool, seed: int) -> AnyState:
    """A whole game between random bots (fast: about 10 ms)."""
    game = get_game(game_id)
    state: AnyState = game.new_game(game.make_config(players=players, teams=teams), seed)
    play_out(state, make_bots(game, ["random"] * players, seed))
    return state


def game_file_of(state: AnyState, *, seed: int, cut: int | None = None) -> GameFile:
    """``state``'s game as Passe keeps it; with ``cut``, only its first
    ``cut`` moves (an unfinished game: no outcome)."""
    rng = random.Random(seed)
    record = state.record()
    pool = list(NAMES) + list(AWKWARD_NAMES)
    names = tuple(rng.sample(pool, state.players)) if rng.random() < 0.8 else ()
    result = state.result()
    if cut is not None:
        record = type(record)(record.game, record.config, record.seed, record.actions[:cut])
        result = None
    extra: tuple[tuple[str, object], ...] = ()
    if rng.random() < 0.3:
        extra = (("Event", "Friday night"), ("Round_robin", {"table": [1, 2], "ok": None}))
    return GameFile(
        record,
        names=names,
        date=f"20{rng.randrange(20, 40)}-0{rng.randrange(1, 10)}-1{rng.randrange(10)}T12:34:56Z"
        if rng.random() < 0.9
        else "",
        viewer=rng.choice([None, *range(state.players)]),
        outcome=None if result is None else Outcome.of(result),
        deal_check=rng.choice(["", "Deal verified: it gives everything you were shown."]),
        extra=extra,
    )
