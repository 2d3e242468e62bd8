"""Fashion search bots decide from their view alone."""

from __future__ import annotations

import random

from core.engine import AnyState
from core.fashion.state import FashionState
from tests.core.search_checks import check_decides_from_view_only
from tests.fashion.test_sampler import CONFIGS


def reshuffle(state: AnyState, seat: int, rng: random.Random) -> bool:
    """Swap the cards of other hands that no one has seen (not publicly
    known, not a pending bid) with each other and, before the deck was
    remade, with the deck; True if the hidden cards changed."""
    assert isinstance(state, FashionState)
    slots: list[tuple[list[int], int]] = []
    for other, hand in enumerate(state.hands):
        if other == seat:
            continue
        for index, card in enumerate(hand):
            if card not in state.known[other] and card != state.bids[other]:
                slots.append((hand, index))
    if not state.exhaustions:
        slots.extend((state.deck, index) for index in range(len(state.deck)))
    before = [place[index] for place, index in slots]
    cards = list(before)
    rng.shuffle(cards)
    for (place, index), card in zip(slots, cards, strict=True):
        place[index] = card
    return cards != before


def test_search_bot_reads_only_its_view() -> None:
    check_decides_from_view_only("fashion", CONFIGS, reshuffle, 12, 5)
