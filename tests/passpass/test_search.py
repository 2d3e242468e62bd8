"""Pass Pass search bots decide from their view alone."""

from __future__ import annotations

import random

from core.engine import AnyState
from core.passpass import GAME as PASS_PASS
from core.passpass.bots import ExpertBot, HardBot
from core.passpass.state import PassPassState
from tests.core.sampler_checks import random_positions
from tests.core.search_checks import check_decides_from_view_only
from tests.engine_checks import examples
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


def test_expert_looks_to_the_end_of_the_round() -> None:
    """``hard`` plays out three tricks; ``expert`` plays out the round, to
    its scoring (PP-20; after the representatives, PP-23, in teams): its
    playouts stop exactly when the round is scored, or the game ends."""
    hard, expert = PASS_PASS.make_bot("hard", 0), PASS_PASS.make_bot("expert", 0)
    assert isinstance(hard, HardBot) and isinstance(expert, ExpertBot)
    rng = random.Random(3)
    for state in random_positions("passpass", CONFIGS, examples(300), 3):
        assert isinstance(state, PassPassState)
        assert hard.horizon(state) == hard.progress(state) + 3
        stop, round_now = expert.horizon(state), state.round
        while not state.is_over and expert.progress(state) < stop:
            assert state.round == round_now and not state.sheet[round_now:]  # not scored yet
            actor = state.to_act[0]
            state.apply(actor, rng.choice(state.legal_actions(actor)))
        assert state.is_over or (len(state.sheet) == round_now + 1 and state.trick_number == 0)
