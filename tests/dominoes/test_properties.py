"""Property tests over random games (DO-1..DO-14): conservation of the 28
tiles, a well-formed train, terminating rounds and games, DO-12/DO-14
scoring, no leaks in views or events, replays, refused actions."""

from __future__ import annotations

import dataclasses
import random
from itertools import chain, pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.dominoes import DRAW, GAME, TILES, DominoesState, Place, Tile
from core.dominoes.model import Drew, RoundEnded, RoundSummary
from core.engine import Event, IllegalAction
from tests.engine_checks import examples

MODES = [(2, False), (3, False), (4, False), (4, True)]
MODE_IDS = ["2p", "3p", "4p", "4p-teams"]


def tiles_in(value: Any, skip: type | None = RoundSummary) -> set[Tile]:
    """Every tile reachable in a view/event, skipping round summaries (hands
    are shown at the end of a round, DO-12)."""
    found: set[Tile] = set()

    def walk(item: Any) -> None:
        if isinstance(item, Tile):
            found.add(item)
        elif skip is not None and isinstance(item, skip):
            return
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            for f in dataclasses.fields(item):
                walk(getattr(item, f.name))
        elif isinstance(item, (tuple, list)):
            for sub in item:
                walk(sub)

    walk(value)
    return found


def check_state(state: DominoesState) -> None:
    # DO-1: the 28 tiles, each exactly once, in hands, boneyard or train.
    train_ids = [p[0] for p in chain(state.left_arm, state.right_arm)]
    assert sorted(chain(*state.hands, state.boneyard, train_ids)) == list(range(28))
    train = state.train()
    for tile in train:
        assert {tile.left, tile.right} == {tile.tile.low, tile.tile.high}
        assert tile.flipped == (tile.left != tile.tile.low)
    # Every placed tile matches its neighbour; DO-8: exactly two open ends.
    for a, b in pairwise(train):
        assert a.right == b.left
    if train:
        assert (train[0].left, train[-1].right) == (state.left_end, state.right_end)
        assert sorted(t.order for t in train) == list(range(len(train)))
    else:
        assert state.left_end == state.right_end == -1


def check_views(state: DominoesState) -> None:
    public = {t.tile for t in state.train()}
    for seat in [None, *range(state.n)]:
        view = state.view(seat)
        own = set() if seat is None else {TILES[t] for t in state.hands[seat]}
        assert set(view.hand) == own
        # No tile of another hand or of the boneyard appears anywhere.
        assert tiles_in(view) <= own | public
        assert view.hand_sizes == tuple(len(h) for h in state.hands)
        assert view.boneyard == len(state.boneyard)
        if seat is None or seat not in state.to_act:
            assert view.legal == ()
        else:
            assert view.legal == state.legal_actions(seat)


def check_events(state: DominoesState, events: tuple[Event, ...], actor: int) -> None:
    for event in events:
        for seat in [None, *range(state.n)]:
            seen = event.for_seat(seat)
            assert seen is not None
            if isinstance(event, Drew):
                assert isinstance(seen, Drew)
                assert (seen.tile is not None) == (seat == actor)


def check_round(summary: RoundSummary, before: tuple[int, ...], after: tuple[int, ...]) -> None:
    teams = summary.team_counts is not None
    n = len(summary.counts)
    # DO-12: the count is the pips left in hand.
    assert summary.counts == tuple(sum(t.pips for t in hand) for hand in summary.hands)
    if summary.reason == "domino":
        assert summary.domino is not None and summary.hands[summary.domino] == ()
    sides = (
        [summary.counts[0] + summary.counts[2], summary.counts[1] + summary.counts[3]]
        if teams
        else list(summary.counts)
    )
    side_of = [s % 2 for s in range(n)] if teams else list(range(n))
    lowest = min(sides)
    if sides.count(lowest) > 1:
        assert summary.winners == () and summary.points == 0
        assert after == before
        return
    side = sides.index(lowest)
    assert summary.points == sum(sides) - lowest - lowest
    assert summary.points > 0
    assert summary.winners == tuple(s for s in range(n) if side_of[s] == side)
    for s in range(n):
        assert after[s] - before[s] == (summary.points if side_of[s] == side else 0)


def try_illegal(state: DominoesState, rng: random.Random) -> None:
    """Some action that must be refused, leaving the state exactly as it was."""
    (seat,) = state.to_act
    legal = state.legal_actions(seat)
    candidates: list[tuple[int, Any]] = [((seat + 1) % state.n, legal[0])]
    outside = [t for t in TILES if t.id not in state.hands[seat]]
    candidates.append((seat, Place(rng.choice(outside), rng.choice(["L", "R", None]))))
    for t in state.hands[seat]:
        for end in ("L", "R", None):
            action = Place(TILES[t], end)
            if action not in legal:
                candidates.append((seat, action))
    if DRAW not in legal:
        candidates.append((seat, DRAW))
    who, action = rng.choice(candidates)
    before = state.fingerprint()
    with pytest.raises(IllegalAction):
        state.apply(who, action)
    assert state.fingerprint() == before


def playout(players: int, teams: bool, seed: int, *, target: int | None, deep: bool) -> None:
    """A random game, checking invariants at every step; ``deep`` adds views,
    events, refused actions and the replay."""
    config = GAME.make_config(players=players, teams=teams, target=target)
    state = GAME.new_game(config, seed)
    rng = random.Random(seed)
    # Bound per round: each step draws (<= 14), places (<= 28) or passes, and
    # at most players - 1 passes come in a row without ending it (DO-11).
    per_round = (14 + 28 + 1) * players
    steps_this_round = 0
    round_number = state.round_number
    while not state.is_over:
        (seat,) = state.to_act
        if deep and rng.random() < 0.2:
            try_illegal(state, rng)
        before = state.scores
        action = rng.choice(state.legal_actions(seat))
        events = state.apply(seat, action)
        steps_this_round += 1
        assert steps_this_round <= per_round
        check_state(state)
        for event in events:
            if isinstance(event, RoundEnded):
                check_round(event.summary, before, event.summary.scores)
        if deep:
            check_views(state)
            check_events(state, events, seat)
        if state.round_number != round_number:
            round_number = state.round_number
            steps_this_round = 0
        assert state.rounds_played < 300  # every game ends
    result = state.result()
    assert result is not None
    assert result.scores == state.scores
    assert max(result.scores) >= config.goal
    assert all(result.scores[w] >= config.goal for w in result.winners)
    assert state.rounds_played >= 1 and state.blocked_rounds <= state.rounds_played
    if deep:
        replayed = GAME.replay(state.record())
        assert replayed.fingerprint() == state.fingerprint()
        for seat in [None, *range(players)]:
            assert replayed.view(seat) == state.view(seat)


@pytest.mark.long
@pytest.mark.parametrize(("players", "teams"), MODES, ids=MODE_IDS)
@settings(max_examples=examples(150), deadline=None)
@given(seed=st.integers(0, 2**32))
def test_deep_random_games(players: int, teams: bool, seed: int) -> None:
    playout(players, teams, seed, target=None, deep=True)


@pytest.mark.parametrize(("players", "teams"), MODES, ids=MODE_IDS)
@settings(max_examples=examples(1000), deadline=None)
@given(seed=st.integers(0, 2**32), target=st.sampled_from([None, 1, 30]))
def test_many_random_games(players: int, teams: bool, seed: int, target: int | None) -> None:
    playout(players, teams, seed, target=target, deep=False)
