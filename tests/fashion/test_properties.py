"""Property tests over random Passe fashion games, 2 to 8 players, every
payment and both season readings."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import plain
from core.fashion import GAME, FashionConfig, FashionState
from core.fashion.model import (
    BANNED,
    CARD_ATTRS,
    CODE,
    MUST,
    STAR,
    BidPlaced,
    DeckExhausted,
    GameEnded,
    has_feature,
)
from core.fashion.state import PAYMENTS, SEASONS, collection_problem
from tests.engine_checks import examples
from tests.fashion.helpers import all_cards, play_random, random_action

SEEDS = st.integers(0, 2**32)
PLAYERS = st.integers(2, 8)
PAYMENT = st.sampled_from(PAYMENTS)
SEASON = st.sampled_from(SEASONS)
# A loose bound: the deck is drawn at least two cards per turn and only
# reshuffled once, so a game has at most a few hundred decisions.
MAX_STEPS = 3000


def _strings(value: object) -> set[str]:
    """Every word appearing in plain data."""
    out: set[str] = set()
    data = plain(value)
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.update(item.split())
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def _check_views(state: FashionState) -> None:
    """No view shows another seat's hand or an unrevealed bid (revealed bids
    that went back to a hand, and cards taken from the offer, are public
    knowledge: ``state.known``)."""
    revealed = {CODE[x] for x in state.revealed if x is not None}
    secret = [
        {CODE[x] for x in hand if x not in known} - revealed
        for hand, known in zip(state.hands, state.known, strict=True)
    ]
    for seat in [None, *range(state.players)]:
        view = state.view(seat)
        words = _strings(view)
        for other in range(state.players):
            if other != seat:
                assert not (secret[other] & words), (seat, other)
        if seat is not None:
            assert view.hand == tuple(CODE[x] for x in sorted(state.hands[seat]))
            assert view.legal == state.legal_actions(seat)
            pending = state.bids[seat]
            assert view.my_bid == (CODE[pending] if pending is not None else None)
        assert view.hand_sizes == tuple(len(h) for h in state.hands)
        assert view.deck_size == len(state.deck) and view.discard_size == len(state.discard)


def _meets_conditions(hand: list[int], state: FashionState) -> bool:
    """FA-15, written out again: ``table`` asks for a MUST card and no BANNED
    card; ``strict`` for a valid FA-11 collection."""
    features = state.slot_features()
    if state.config.season == "strict":
        return collection_problem(hand, features) is None
    must, banned = features[MUST], features[BANNED]
    return any(has_feature(x, must) for x in hand) and not any(has_feature(x, banned) for x in hand)


def _check_scores(state: FashionState) -> None:
    result = state.result()
    assert result is not None and state.season is not None
    star_a, star_v = state.slot_feature(STAR)
    for seat, hand in enumerate(state.hands):
        stars = sum(1 for x in hand if CARD_ATTRS[x][star_a] == star_v)
        assert state.season[seat] == (3 * stars if _meets_conditions(hand, state) else 0)
        assert result.scores[seat] == len(state.piles[seat]) + state.season[seat]
    top = max(result.scores)
    tied = [s for s in range(state.players) if result.scores[s] == top]
    best = max(state.season[s] for s in tied)
    assert result.winners == tuple(s for s in tied if state.season[s] == best)
    assert result.shared == (len(result.winners) > 1)


@settings(max_examples=examples(1500), deadline=None)
@given(seed=SEEDS, players=PLAYERS, payment=PAYMENT, season=SEASON)
def test_random_games_conserve_cards_end_and_score(
    seed: int, players: int, payment: str, season: str
) -> None:
    """64 cards at every step; the game ends; scores follow the piles and the
    season reading (FA-15/16); the deck is never left empty before its second
    run-out, and the game ends with the round of that run-out (FA-14)."""
    config = FashionConfig(players=players, payment=payment, season=season)
    state = GAME.new_game(config, seed)
    rng = random.Random(seed)
    steps = 0
    piles = [0] * players
    final_round = None
    while not state.is_over:
        seat, action = random_action(state, rng)
        events = state.apply(seat, action)
        steps += 1
        assert steps < MAX_STEPS
        assert all_cards(state) == list(range(64))
        assert all(len(p) >= q for p, q in zip(state.piles, piles, strict=True))
        piles = [len(p) for p in state.piles]
        assert state.exhaustions <= 2
        # FA-14: drawing the last card is the run-out, so an empty deck is
        # always the second one.
        assert state.deck or state.exhaustions == 2
        if any(isinstance(e, DeckExhausted) and e.times == 2 for e in events):
            final_round = state.round
    assert state.exhaustions == 2 and state.to_act == ()
    assert state.round == final_round
    _check_scores(state)
    assert all(state.legal_actions(s) == () for s in range(players))


# Every view and every event seen from every seat, at every step (~20 s for
# 60 games on a busy 2-core machine): `make test` plays 25, `make soak` 60
# (tests/engine_checks.py).
@pytest.mark.long
@settings(max_examples=examples(60), deadline=None)
@given(seed=SEEDS, players=PLAYERS, payment=PAYMENT)
def test_views_and_events_never_leak(seed: int, players: int, payment: str) -> None:
    state = GAME.new_game(FashionConfig(players=players, payment=payment), seed)
    rng = random.Random(seed)
    while not state.is_over:
        _check_views(state)
        seat, action = random_action(state, rng)
        events = state.apply(seat, action)
        for event in events:
            for viewer in [None, *range(players)]:
                seen = event.for_seat(viewer)
                if isinstance(event, BidPlaced) and viewer != event.seat:
                    assert isinstance(seen, BidPlaced) and seen.card is None
                else:
                    assert seen == event
                assert seen is not None and seen.describe([f"P{i}" for i in range(8)])
            if isinstance(event, GameEnded):
                assert event.scores == state.result().scores  # type: ignore[union-attr]
    final = state.view(None)
    assert final.is_over and final.season_hands is not None


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, players=PLAYERS, payment=PAYMENT, season=SEASON)
def test_replay_reproduces_the_final_state(
    seed: int, players: int, payment: str, season: str
) -> None:
    state = play_random(FashionConfig(players=players, payment=payment, season=season), seed)
    again = GAME.replay(state.record())
    assert again.config.season == season
    assert again.snapshot() == state.snapshot()
    for seat in [None, *range(players)]:
        assert again.view(seat) == state.view(seat)
    for _, action in state.history:
        assert GAME.parse_action(str(action)) == action


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, players=PLAYERS, payment=PAYMENT)
def test_strict_season_scores_a_subset_of_the_table_season(
    seed: int, players: int, payment: str
) -> None:
    """FA-15: the season reading only scores the end, so a random game plays out
    the same under both; a hand that scores strictly (a valid collection) meets
    the table's conditions too, with the same points."""
    table = play_random(FashionConfig(players=players, payment=payment), seed)
    strict = play_random(FashionConfig(players=players, payment=payment, season="strict"), seed)
    assert strict.hands == table.hands and strict.piles == table.piles
    assert table.season is not None and strict.season is not None
    for seat in range(players):
        assert strict.season[seat] in (0, table.season[seat])
