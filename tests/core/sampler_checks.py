"""Shared checks of the search samplers (core/<game>/sampler.py).

Random positions come from random play (a mix of random and heuristic
actions, so positions of every phase appear); at each one the seat to act
is the observer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from core.engine import AnyState
from core.registry import get_game
from core.search import Sampler


def random_positions(
    game_id: str, configs: list[dict[str, object]], count: int, seed: int
) -> Iterator[AnyState]:
    """``count`` positions: each the state after a random number of random
    actions of a new game (config and seed drawn from ``seed``)."""
    game = get_game(game_id)
    rng = random.Random(seed)
    made = 0
    while made < count:
        config = game.make_config(**rng.choice(configs))
        state = game.new_game(config, rng.randrange(2**32))
        stops = sorted(rng.sample(range(400), 4))
        step = 0
        for stop in stops:
            while step < stop and not state.is_over:
                actor = state.to_act[0]
                state.apply(actor, rng.choice(state.legal_actions(actor)))
                step += 1
            if state.is_over or made >= count:
                break
            made += 1
            yield state


def check_views_agree(
    game_id: str,
    configs: list[dict[str, object]],
    sampler: Sampler[Any, AnyState],
    count: int,
    seed: int,
    hidden: Callable[[AnyState, int], object],
) -> None:
    """The sampled state's view for the observer equals the view it was
    sampled from, and it plays on to the end; ``hidden(state, seat)`` (what
    the observer cannot see) differs from the truth in some samples, so the
    sampler does not merely copy the state (it never sees it)."""
    rng = random.Random(seed)
    differs = 0
    playable = 0
    for state in random_positions(game_id, configs, count, seed):
        seat = state.to_act[0]
        view = state.view(seat)
        sampled = sampler.sample(view, rng)
        assert sampled.view(seat) == view, f"seed {seed}: views differ at {state.record()}"
        differs += hidden(sampled, seat) != hidden(state, seat)
        if playable < count // 10:  # some samples are played to their end
            playable += 1
            steps = 0
            while not sampled.is_over and steps < 5_000:
                actor = sampled.to_act[0]
                sampled.apply(actor, rng.choice(sampled.legal_actions(actor)))
                steps += 1
            assert sampled.is_over
    assert differs > count // 4, f"only {differs} of {count} samples hid anything"


def skip_unless_soak(request: pytest.FixtureRequest) -> None:
    """Long runs happen only with ``-m soak`` (``make soak``), as in tests/ssh."""
    if "soak" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("soak test: run with `make soak`")
