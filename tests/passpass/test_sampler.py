"""The Pass Pass sampler: views agree, hidden cards vary, PP-8 is respected."""

from __future__ import annotations

import random

import pytest

from core.engine import AnyState
from core.passpass.sampler import PassPassSampler
from core.passpass.state import PassPassState
from tests.core.sampler_checks import check_views_agree, random_positions, skip_unless_soak
from tests.engine_checks import snapshot

CONFIGS: list[dict[str, object]] = [
    {"players": 3},
    {"players": 4},
    {"players": 5},
    {"players": 4, "teams": True},
    {"players": 6, "teams": True},
]


def _hidden(state: AnyState, seat: int) -> object:
    assert isinstance(state, PassPassState)
    return (
        [hand for other, hand in enumerate(state.hands) if other != seat],
        sorted(state.set_aside),
    )


def test_sampled_views_equal_the_view() -> None:
    check_views_agree("passpass", CONFIGS, PassPassSampler(), 300, 1, _hidden)


@pytest.mark.soak
def test_sampled_views_equal_the_view_many(request: pytest.FixtureRequest) -> None:
    skip_unless_soak(request)
    check_views_agree("passpass", CONFIGS, PassPassSampler(), 3000, 2, _hidden)


def test_every_card_once_and_colour_counts_kept() -> None:
    rng = random.Random(3)
    sampler = PassPassSampler()
    for state in random_positions("passpass", CONFIGS, 100, 3):
        assert isinstance(state, PassPassState)
        seat = state.to_act[0]
        sampled = sampler.sample(state.view(seat), rng)
        assert sorted(sampled.card_locations()) == list(range(48))
        for other in range(state.players):  # PP-8: colour counts per hand
            assert [c // 12 for c in sorted(sampled.hands[other], key=lambda c: c // 12)] == [
                c // 12 for c in sorted(state.hands[other], key=lambda c: c // 12)
            ]


def test_sampling_a_view_again_is_sampling_it_afresh() -> None:
    """The sampler reads a view once for all its samples: a sample played to
    the end leaves the next sample of the same view as a new sampler makes it."""
    rng = random.Random(4)
    sampler = PassPassSampler()
    for state in random_positions("passpass", CONFIGS, 100, 4):
        seat = state.to_act[0]
        view = state.view(seat)
        played = sampler.sample(view, random.Random(1))
        while not played.is_over:
            actor = played.to_act[0]
            played.apply(actor, rng.choice(played.legal_actions(actor)))
        again = sampler.sample(view, random.Random(2))
        assert snapshot(again) == snapshot(PassPassSampler().sample(view, random.Random(2)))
