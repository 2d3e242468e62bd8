"""Illegal actions raise IllegalAction with a reason and leave the state unchanged."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import IllegalAction, NotationError
from core.fashion import GAME, FashionConfig
from core.fashion.model import (
    COLOUR,
    SYMBOL,
    Bid,
    Change,
    Choose,
    Collect,
    End,
    FashionAction,
    Take,
)
from core.fashion.state import PAYMENTS, FashionState
from tests.fashion.helpers import (
    assert_unchanged_after_illegal,
    build,
    c,
    choosing,
    cs,
    in_turn,
    random_action,
)

HANDS = ["RDS RJS RTS UJW", "KJS KTS KCS", "WJS WTS WCS"]


def _auction() -> FashionState:
    return build(3, HANDS, offer="UJS UTS UCS")


def test_out_of_turn() -> None:
    state = choosing(_auction(), 0)
    reason = assert_unchanged_after_illegal(state, 1, Choose(1, True))
    assert "not seat 2's turn" in reason


def test_bid_twice_is_out_of_turn() -> None:
    state = _auction()
    state.apply(0, Bid(c("RDS")))
    assert "turn" in assert_unchanged_after_illegal(state, 0, Bid(c("RJS")))


@pytest.mark.parametrize(
    "action",
    [
        Take((c("UJS"), c("UTS"))),
        Collect(tuple(sorted(cs("RDS RJS RTS")))),
        Change(c("RDS"), c("RJS"), COLOUR),
        End(),
        Choose(0, True),
    ],
)
def test_out_of_phase_in_the_auction(action: FashionAction) -> None:
    reason = assert_unchanged_after_illegal(_auction(), 0, action)
    assert reason


def test_bid_during_a_turn_and_action_before_taking() -> None:
    state = choosing(_auction(), 0)
    state.apply(0, Choose(0, True))
    assert "auction" in assert_unchanged_after_illegal(state, 0, Bid(c("RDS")))
    assert "take two cards" in assert_unchanged_after_illegal(state, 0, End())
    assert "not in the offer" in assert_unchanged_after_illegal(
        state, 0, Take((c("RDS"), c("UJS")))
    )


def test_card_not_in_hand() -> None:
    state = _auction()
    assert "from your hand" in assert_unchanged_after_illegal(state, 0, Bid(c("KJS")))
    state = in_turn(_auction(), 0)
    assert "not in your hand" in assert_unchanged_after_illegal(
        state, 0, Change(c("RDS"), c("KJS"), COLOUR)
    )
    assert "not in your hand" in assert_unchanged_after_illegal(
        state, 0, Collect(tuple(sorted(cs("RDS RJS KJS"))))
    )


def test_invalid_collection() -> None:
    state = in_turn(_auction(), 0)
    # STAR red, MUST dress, BANNED leather: RJS RTS UJW share nothing.
    assert "share" in assert_unchanged_after_illegal(
        state, 0, Collect(tuple(sorted(cs("RJS RTS UJW"))))
    )


def test_change_with_a_symbol_that_does_not_name_the_slot() -> None:
    state = in_turn(_auction(), 0)
    # RDS carries the STAR symbol: it cannot change MONEY.
    reason = assert_unchanged_after_illegal(state, 0, GAME.parse_action("change RDS RJS cut money"))
    assert "cannot change the MONEY slot" in reason


def test_choosing_a_player_who_already_played() -> None:
    state = choosing(_auction(), 0)
    state.apply(0, Choose(2, True))
    state.apply(2, Take((c("UJS"), c("UTS"))))
    state.apply(2, End())
    assert "already played" in assert_unchanged_after_illegal(state, 0, Choose(2, False))
    assert "write next" in assert_unchanged_after_illegal(state, 0, Choose(1, True))
    assert "no seat" in assert_unchanged_after_illegal(state, 0, Choose(7, False))


def test_after_the_game_is_over() -> None:
    state = build(2, ["RDS", "KJS"], deck="", exhaustions=2, payment="nobody")
    while not state.is_over:
        seat = state.to_act[0]
        state.apply(seat, state.legal_actions(seat)[0])
    assert "over" in assert_unchanged_after_illegal(state, 0, End())


@pytest.mark.parametrize(
    "text",
    [
        "",
        "bid",
        "bid XYZ",
        "bid RDS KJW",
        "take RDS",
        "take RDS RDS",
        "first 0",
        "next x",
        "collect RDS RDS RJS",
        "change RDS RDS colour",
        "change RDS KJW size",
        "fly",
        "change RDS KJW cut moon",
        "end now",
    ],
)
def test_bad_notation(text: str) -> None:
    with pytest.raises(NotationError) as info:
        GAME.parse_action(text)
    assert info.value.reason


def _action_pool(rng: random.Random, players: int) -> FashionAction:
    kind = rng.randrange(6)
    cards = rng.sample(range(64), 4)
    if kind == 0:
        return Bid(cards[0])
    if kind == 1:
        return Choose(rng.randrange(players), rng.random() < 0.5)
    if kind == 2:
        return Take((min(cards[:2]), max(cards[:2])))
    if kind == 3:
        return Collect(tuple(sorted(cards[: rng.randrange(2, 5)])))
    if kind == 4:
        return Change(cards[0], cards[1], rng.randrange(3), rng.choice([None, 0, 1, 2, 3]))
    return End()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 8), payment=st.sampled_from(PAYMENTS))
def test_random_illegal_actions_change_nothing(seed: int, players: int, payment: str) -> None:
    """Anything outside legal_actions (by any seat) is refused without a trace;
    a Change naming its slot correctly is the one legal action not listed."""
    state = GAME.new_game(FashionConfig(players=players, payment=payment), seed)
    rng = random.Random(seed)
    while not state.is_over:
        for _ in range(3):
            seat = rng.randrange(players)
            action = _action_pool(rng, players)
            legal = state.legal_actions(seat)
            if action in legal:
                continue
            if (
                isinstance(action, Change)
                and action.slot is not None
                and Change(action.a, action.b, action.attribute) in legal
            ) and SYMBOL[action.a] == action.slot:
                continue
            before = state.snapshot()
            with pytest.raises(IllegalAction):
                state.apply(seat, action)
            assert state.snapshot() == before
        seat, action = random_action(state, rng)
        state.apply(seat, action)
