"""Property tests over thousands of random Pass Pass games per mode."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from core.passpass import GAME, PassPassState
from core.passpass.model import (
    CARDS,
    DECK_SIZE,
    ROUNDS,
    TRICKS_PER_ROUND,
    CardPicked,
    CardsTaken,
    RepresentativeChosen,
    RoundScored,
    RoundStarted,
)
from tests.engine_checks import examples

MODES = [(3, False), (4, False), (5, False), (4, True), (6, True)]
CARD_TOKEN = re.compile(r"\b[VBGY](?:1[0-2]|[1-9])\b")
seeds = st.integers(0, 2**32)
# Every game checks its views for leaks every this many steps; the dedicated
# leak test checks every step of its games.
VIEW_SAMPLE_EVERY = 25


def _random_game(players: int, teams: bool, seed: int, *, check_views: bool) -> PassPassState:
    state = GAME.new_game(GAME.make_config(players=players, teams=teams), seed)
    rng = random.Random(seed)
    diamonds = state.config.diamonds
    # An independent ledger of won cards, rebuilt from events only.
    ledger: list[list[int]] = [[] for _ in range(players)]
    reps: dict[int, int] = {}
    tricks_this_round = 0
    rounds_started = 1
    steps = 0
    while not state.is_over:
        steps += 1
        assert steps < 1000, "a game must end"
        seat = rng.choice(state.to_act)
        if check_views or steps % VIEW_SAMPLE_EVERY == 0:
            _assert_views_leak_nothing(state)
        events = state.apply(seat, rng.choice(state.legal_actions(seat)))
        locations = state.card_locations()
        assert sorted(locations) == list(range(DECK_SIZE)), "all 48 cards accounted for"
        for event in events:
            if isinstance(event, CardPicked):
                ledger[event.seat].append(event.card.index)
            elif isinstance(event, CardsTaken):
                ledger[event.seat].extend(card.index for card in event.cards)
                tricks_this_round += 1
            elif isinstance(event, RepresentativeChosen):
                reps[event.team] = event.seat
            elif isinstance(event, RoundScored):
                assert tricks_this_round == TRICKS_PER_ROUND
                for s in range(players):
                    scorer = reps[state.config.team_of(s)] if teams else s
                    won = ledger[scorer]
                    # PP-20: round score = cards + diamonds.
                    assert event.points[s] == len(won) + sum(diamonds[c % 12] for c in won)
                    colours = [sum(1 for c in won if c // 12 == k) for k in range(4)]
                    assert event.pass_pass[s] == min(colours)  # PP-18
            elif isinstance(event, RoundStarted):
                rounds_started += 1
                ledger = [[] for _ in range(players)]
                reps = {}
                tricks_this_round = 0
    result = state.result()
    assert result is not None
    assert rounds_started <= ROUNDS
    if not result.immediate:
        assert len(state.sheet) == ROUNDS and tricks_this_round == TRICKS_PER_ROUND
    else:
        assert tricks_this_round < TRICKS_PER_ROUND or len(state.sheet) < ROUNDS
    # Totals are the sum of the sheet (per seat, or per team).
    for team in range(state.config.team_count):
        assert state.team_totals[team] == sum(row.points[team] for row in state.sheet)
    return state


def _assert_views_leak_nothing(state: PassPassState) -> None:
    hidden = {seat: {str(CARDS[c]) for c in hand} for seat, hand in enumerate(state.hands)}
    set_aside = {str(CARDS[c]) for c in state.set_aside}
    for seat in [None, *range(state.players)]:
        text = repr(state.view(seat))  # dataclass repr reaches every field
        shown = set(CARD_TOKEN.findall(text))
        for other, cards in hidden.items():
            if other != seat:
                assert not shown & cards, f"seat {seat} sees seat {other}'s hand"
        assert not shown & set_aside, "set-aside cards are hidden from everyone"
        if seat is not None:
            assert hidden[seat] <= shown


def _assert_same_game(a: PassPassState, b: PassPassState) -> None:
    for seat in [None, *range(a.players)]:
        assert a.view(seat) == b.view(seat)
    assert a.hands == b.hands and a.won == b.won and a.discarded == b.discarded
    assert a.set_aside == b.set_aside and a.result() == b.result()


def _check_mode(players: int, teams: bool, seed: int, check_views: bool) -> None:
    state = _random_game(players, teams, seed, check_views=check_views)
    replayed = GAME.replay(state.record())
    _assert_same_game(state, replayed)


@settings(max_examples=examples(1000), deadline=None)
@given(seed=seeds)
def test_three_players_random_games(seed: int) -> None:
    _check_mode(3, False, seed, check_views=False)


@settings(max_examples=examples(1000), deadline=None)
@given(seed=seeds)
def test_four_players_random_games(seed: int) -> None:
    _check_mode(4, False, seed, check_views=False)


@settings(max_examples=examples(1000), deadline=None)
@given(seed=seeds)
def test_five_players_random_games(seed: int) -> None:
    _check_mode(5, False, seed, check_views=False)


@settings(max_examples=examples(1000), deadline=None)
@given(seed=seeds)
def test_four_players_team_random_games(seed: int) -> None:
    _check_mode(4, True, seed, check_views=False)


@settings(max_examples=examples(1000), deadline=None)
@given(seed=seeds)
def test_six_players_team_random_games(seed: int) -> None:
    _check_mode(6, True, seed, check_views=False)


# Every view at every step is the costliest check here (~35 s for 100 games
# on a busy 2-core machine): `make test` plays a quarter of them, `make soak`
# all (tests/engine_checks.py).
@settings(max_examples=examples(100), deadline=None)
@given(seed=seeds)
def test_views_leak_nothing_at_every_step(seed: int) -> None:
    players, teams = MODES[seed % len(MODES)]
    _random_game(players, teams, seed, check_views=True)


def test_record_round_trips_through_plain_data() -> None:
    state = _random_game(4, False, 7, check_views=False)
    record = state.record()
    assert type(record).from_data(record.to_data()) == record
    assert all(GAME.parse_action(text) is not None for _, text in record.actions)
