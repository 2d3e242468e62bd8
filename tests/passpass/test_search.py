"""Pass Pass search bots decide from their view alone."""

from __future__ import annotations

import random

from core.engine import AnyState
from core.passpass.state import PassPassState
from tests.core.search_checks import check_decides_from_view_only
from tests.passpass.test_sampler import CONFIGS


def reshuffle(state: AnyState, seat: int, rng: random.Random) -> bool:
    """Swap same-coloured cards between other hands and the set-aside pile
    (PP-8 keeps colour counts public); True if the hidden cards changed."""
    assert isinstance(state, PassPassState)
    places = [hand for other, hand in enumerate(state.hands) if other != seat]
    places.append(state.set_aside)
    before = [sorted(place) for place in places]
    for colour in range(4):
        slots = [
            (p, i)
            for p, place in enumerate(places)
            for i, c in enumerate(place)
            if c // 12 == colour
        ]
        cards = [places[p][i] for p, i in slots]
        rng.shuffle(cards)
        for (p, i), card in zip(slots, cards, strict=True):
            places[p][i] = card
    for hand in state.hands:
        hand.sort()
    return [sorted(place) for place in places] != before


def test_search_bot_reads_only_its_view() -> None:
    check_decides_from_view_only("passpass", CONFIGS, reshuffle, 12, 5)
