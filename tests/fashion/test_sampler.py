"""The fashion sampler: views agree, hidden cards vary, public cards stay."""

from __future__ import annotations

import random

import pytest

from core.engine import AnyState
from core.fashion.bots import HeuristicBot
from core.fashion.sampler import FashionSampler
from core.fashion.state import FashionState
from tests.core.sampler_checks import check_views_agree, random_positions, skip_unless_soak

CONFIGS: list[dict[str, object]] = [
    {"players": 2},
    {"players": 3},
    {"players": 4},
    {"players": 6},
    {"players": 8},
    {"players": 3, "payment": "everyone"},
    {"players": 4, "payment": "nobody", "season": "strict"},
]


def _hidden(state: AnyState, seat: int) -> object:
    assert isinstance(state, FashionState)
    return ([sorted(h) for other, h in enumerate(state.hands) if other != seat], state.deck)


def test_sampled_views_equal_the_view() -> None:
    check_views_agree("fashion", CONFIGS, FashionSampler(), 300, 1, _hidden)


def test_sampled_views_equal_the_view_with_planned_bids() -> None:
    """Pending bids made by the heuristic in each bidder's seat of the sample."""
    sampler = FashionSampler(bid_policy=HeuristicBot(0).choose_in_sample)
    check_views_agree("fashion", CONFIGS, sampler, 150, 4, _hidden)


@pytest.mark.soak
def test_sampled_views_equal_the_view_many(request: pytest.FixtureRequest) -> None:
    skip_unless_soak(request)
    check_views_agree("fashion", CONFIGS, FashionSampler(), 3000, 2, _hidden)


def test_every_card_once_and_known_cards_kept() -> None:
    rng = random.Random(3)
    sampler = FashionSampler(bid_policy=HeuristicBot(0).choose_in_sample)
    for state in random_positions("fashion", CONFIGS, 150, 3):
        assert isinstance(state, FashionState)
        seat = state.to_act[0]
        sampled = sampler.sample(state.view(seat), rng)
        assert sorted(sampled._all_cards()) == list(range(64))
        for other in range(state.players):
            assert state.known[other] <= set(state.hands[other])  # the ledger is true
            assert state.known[other] <= set(sampled.hands[other])
            if state.bids[other] is not None:
                assert sampled.bids[other] in sampled.hands[other]
