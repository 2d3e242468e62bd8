"""The dominoes sampler: views agree, hidden tiles vary, passes weigh hands."""

from __future__ import annotations

import random

import pytest

from core.dominoes import GAME
from core.dominoes.model import MASK
from core.dominoes.sampler import DominoesSampler
from core.dominoes.state import DominoesState
from core.engine import AnyState
from tests.core.sampler_checks import check_views_agree, skip_unless_soak

CONFIGS: list[dict[str, object]] = [
    {"players": 2},
    {"players": 3},
    {"players": 4},
    {"players": 4, "teams": True},
]


def _hidden(state: AnyState, seat: int) -> object:
    assert isinstance(state, DominoesState)
    return ([hand for other, hand in enumerate(state.hands) if other != seat], state.boneyard)


def test_sampled_views_equal_the_view() -> None:
    check_views_agree("dominoes", CONFIGS, DominoesSampler(), 300, 1, _hidden)


@pytest.mark.soak
def test_sampled_views_equal_the_view_many(request: pytest.FixtureRequest) -> None:
    skip_unless_soak(request)
    check_views_agree("dominoes", CONFIGS, DominoesSampler(), 3000, 2, _hidden)


def test_a_pass_makes_fitting_tiles_rarer_but_possible() -> None:
    """Seat 1 passes over ends 6 and 6 holding 6-6: DO-7 allows it, so the
    sampler must still give seat 1 that tile sometimes, but less often than
    a tile with no six."""
    state = DominoesState.from_position(
        GAME.make_config(players=2),
        hands=[["0-1", "0-2", "1-2", "0-3", "1-3", "2-3"], ["6-6", "0-0", "5-5", "4-4"]],
        train=["5-6", "6-6R"][:1],
        leader=0,
    )
    state.apply(1, GAME.parse_action("pass"))  # seat 1 passes over ends 5 and 6
    view = state.view(0)
    sampler = DominoesSampler()
    rng = random.Random(4)
    fitting = other = 0
    for _ in range(3000):
        hand = sampler.sample(view, rng).hands[1]
        fitting += 27 in hand  # 6-6 fits an end of 6
        other += 0 in hand  # 0-0 fits neither 5 nor 6
    assert MASK[27] & (1 << 6) and not MASK[0] & ((1 << 5) | (1 << 6))
    assert 0 < fitting < other / 2
