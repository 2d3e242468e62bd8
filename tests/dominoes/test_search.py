"""Dominoes search bots decide from their view alone."""

from __future__ import annotations

import random

from core.dominoes.state import DominoesState
from core.engine import AnyState
from tests.core.search_checks import check_decides_from_view_only
from tests.dominoes.test_sampler import CONFIGS


def reshuffle(state: AnyState, seat: int, rng: random.Random) -> bool:
    """Deal the tiles of the other hands and the boneyard anew (sizes kept);
    True if the hidden tiles changed."""
    assert isinstance(state, DominoesState)
    others = [other for other in range(state.n) if other != seat]
    before = ([sorted(state.hands[o]) for o in others], list(state.boneyard))
    pool = [t for o in others for t in state.hands[o]] + state.boneyard
    rng.shuffle(pool)
    for other in others:
        size = len(state.hands[other])
        state.hands[other], pool = sorted(pool[:size]), pool[size:]
    state.boneyard = pool
    state._legal = None
    return ([sorted(state.hands[o]) for o in others], list(state.boneyard)) != before


def test_search_bot_reads_only_its_view() -> None:
    check_decides_from_view_only("dominoes", CONFIGS, reshuffle, 12, 5)
