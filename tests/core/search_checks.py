"""Shared checks of the search bots (core/search.py and each game's levels)."""

from __future__ import annotations

import random
from collections.abc import Callable

from core.engine import AnyState
from core.registry import get_game
from core.search import Budget, SearchBot
from tests.core.sampler_checks import random_positions

# Tests cap iterations only, never time: decisions then reproduce exactly.
SMALL = Budget(seconds=None, iterations=24)


def check_decides_from_view_only(
    game_id: str,
    configs: list[dict[str, object]],
    reshuffle: Callable[[AnyState, int, random.Random], bool],
    count: int,
    seed: int,
) -> None:
    """At ``count`` random positions with a real choice, the hard and the
    expert bot each decide the same on the true state's view as on the view
    of a copy whose hidden cards ``reshuffle`` moved (same public history,
    other hidden cards); same seed, same iteration cap."""
    game = get_game(game_id)
    rng = random.Random(seed)
    checked = 0
    for state in random_positions(game_id, configs, count * 4, seed):
        seat = state.to_act[0]
        view = state.view(seat)
        if len(view.legal) < 2:
            continue
        other = state.clone()
        if not reshuffle(other, seat, rng):
            continue  # nothing hidden to move here
        assert other.view(seat) == view  # the copy differs only where seat cannot see
        bot_seed = rng.randrange(2**32)
        for level in ("hard", "expert"):
            first = game.make_bot(level, bot_seed)
            second = game.make_bot(level, bot_seed)
            assert isinstance(first, SearchBot) and isinstance(second, SearchBot)
            first.budget = second.budget = SMALL
            chosen = first.choose(view)
            assert chosen in view.legal
            assert second.choose(other.view(seat)) == chosen, level
        checked += 1
        if checked == count:
            return
    raise AssertionError(f"only {checked} positions had hidden cards to move")
