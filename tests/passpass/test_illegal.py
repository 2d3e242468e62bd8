"""Illegal Pass Pass actions raise IllegalAction with a reason; state unchanged."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import IllegalAction, NotationError
from core.passpass import CARDS, GAME, PassPassState, Phase, Pick, Play, Represent, Take
from tests.engine_checks import assert_refused
from tests.passpass.rig import play, rig


def fresh() -> PassPassState:
    return GAME.new_game(GAME.make_config(players=4), seed=11)


def phase(state: PassPassState) -> Phase:
    """``state.phase`` read afresh: mypy keeps a narrowing of ``state.phase``
    across the play that changes it."""
    return state.phase


def test_wrong_seat() -> None:
    state = fresh()
    wrong = (state.to_act[0] + 1) % 4
    card = CARDS[state.hands[wrong][0]]
    assert_refused(state, wrong, Play(card), "not seat .*'s turn")


def test_no_such_seat() -> None:
    state = fresh()
    assert_refused(state, 7, Play(CARDS[0]), "no seat 7")
    assert_refused(state, -1, Play(CARDS[0]), "no seat")


def test_card_not_in_hand() -> None:
    state = fresh()
    seat = state.to_act[0]
    missing = next(c for c in range(48) if c not in state.hands[seat])
    reason = assert_refused(state, seat, Play(CARDS[missing]))
    assert reason == f"{CARDS[missing]} is not in your hand"


def test_wrong_phase_actions() -> None:
    state = rig(["V12 Y1", "V4 Y2", "G4 Y3", "B4 Y4"], leader=0)
    assert_refused(state, 0, Pick(CARDS[0]), "time to play a card")
    assert_refused(state, 0, Represent(0), "time to play a card")
    play(state, "V12", "V4", "G4", "B4")
    assert state.phase is Phase.PICK
    assert_refused(state, 0, Play(CARDS[0]), "first winner must pick")
    assert_refused(state, 0, Pick(CARDS[47]), "Y12 is not in this trick")
    play(state, "pick V12")
    assert phase(state) is Phase.TAKE
    option = state.legal_actions(1)[0]
    assert isinstance(option, Take)
    assert_refused(state, 1, Take((CARDS[0], CARDS[1])), "two lowest cards")
    assert_refused(state, 0, option, "not seat 1's turn")


def test_representative_outside_phase_and_team() -> None:
    state = rig(["V1", "V2", "V3", "V4"], teams=True)
    state.trick_number = 7
    play(state, "V1", "V2", "V3", "V4", "pick V4")
    assert state.phase is Phase.REPRESENT
    assert_refused(state, 0, Represent(1), "not in your team")
    assert_refused(state, 0, Play(CARDS[0]), "representative")


def test_after_the_game_is_over() -> None:
    state = rig(["Y12 Y1", "V2 Y2", "B2 Y3"], won=["V5 B5 G5", "", ""], leader=0)
    state.team_pass_pass[0] = 2
    play(state, "Y12", "V2", "B2", "pick Y12")
    assert state.is_over
    assert_refused(state, 0, Play(CARDS[0]), "the game is over")


@pytest.mark.parametrize(
    "text", ["", "X10", "V13", "V0", "pick", "take V1", "rep", "rep x", "rep 0", "play V1 V2", "🂡"]
)
def test_unparsable_notation(text: str) -> None:
    with pytest.raises(NotationError) as caught:
        GAME.parse_action(text)
    assert caught.value.reason
    assert isinstance(caught.value, IllegalAction)


@pytest.mark.parametrize("text", ["V10", "pick G4", "take B4 V4", "rep 3", " v10 ", "PICK g4"])
def test_notation_round_trip(text: str) -> None:
    action = GAME.parse_action(text)
    assert GAME.parse_action(str(action)) == action


def test_take_notation_is_order_free() -> None:
    assert GAME.parse_action("take B4 V4") == GAME.parse_action("take V4 B4")


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_random_illegal_actions_never_change_the_state(seed: int) -> None:
    """Mid-game, any action that is not legal for a seat is refused cleanly."""
    rng = random.Random(seed)
    players = rng.choice([3, 4, 5])
    state = GAME.new_game(GAME.make_config(players=players), seed)
    for _ in range(rng.randrange(0, 60)):
        if state.is_over:
            return
        seat = state.to_act[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    if state.is_over:
        return
    seat = rng.randrange(players)
    legal = set(state.legal_actions(seat))
    candidates = [Play(c) for c in CARDS] + [Pick(c) for c in CARDS] + [Represent(seat)]
    illegal = [a for a in candidates if a not in legal]
    assert_refused(state, seat, rng.choice(illegal))
