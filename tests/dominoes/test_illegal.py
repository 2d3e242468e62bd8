"""Refused actions (DO-4, DO-6, DO-7, DO-9): each raises IllegalAction with a
reason and leaves the state exactly as it was."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from core.dominoes import DRAW, GAME, PASS, DominoesState, Place, tile
from core.dominoes.model import Tile
from core.engine import IllegalAction, NotationError
from tests.dominoes.rig import REST, play, rig


def snapshot(state: DominoesState) -> dict[str, Any]:
    """A deep copy of every attribute except the random generator (compared
    through its state) and the legal-action cache."""
    data = {k: copy.deepcopy(v) for k, v in vars(state).items() if k not in ("rng", "_legal")}
    data["rng"] = state.rng.getstate()
    return data


def refused(state: DominoesState, seat: int, action: Any, reason: str) -> None:
    before, fingerprint = snapshot(state), state.fingerprint()
    with pytest.raises(IllegalAction, match=reason):
        state.apply(seat, action)
    assert snapshot(state) == before
    assert state.fingerprint() == fingerprint


@pytest.fixture
def midgame() -> DominoesState:
    # Ends 3 and 6; seat 0 to play, boneyard of 14 (all the rest).
    return rig(["1-3 2-2 6-6", "0-0 0-1 4-5"], train="3-5 5-6R", turn=0)


def test_tile_not_in_hand(midgame: DominoesState) -> None:
    refused(midgame, 0, Place(tile(3, 4), "L"), "you do not hold 3-4")


def test_tile_on_the_wrong_end(midgame: DominoesState) -> None:
    refused(midgame, 0, Place(tile(1, 3), "R"), r"1-3 does not fit the right end \(6\)")
    refused(midgame, 0, Place(tile(6, 6), "L"), r"6-6 does not fit the left end \(3\)")
    refused(midgame, 0, Place(tile(2, 2), "L"), "does not fit")


def test_placement_without_an_end_after_the_lead(midgame: DominoesState) -> None:
    refused(midgame, 0, Place(tile(1, 3)), "say which end: 1-3L or 1-3R")


def test_lead_with_an_end() -> None:
    state = GAME.new_game(GAME.make_config(players=2), seed=3)
    leader = state.leader
    held = state.view(leader).hand[0]
    refused(state, leader, Place(held, "L"), "the train is empty")
    refused(state, leader, DRAW, "DO-6")
    refused(state, leader, PASS, "DO-6")


def test_draw_with_two_tiles_left() -> None:
    state = rig(["0-1", REST], train="5-5", boneyard="3-3 4-4", turn=0)
    refused(state, 0, DRAW, r"last two tiles of the boneyard can never be drawn \(DO-4\)")


def test_out_of_turn(midgame: DominoesState) -> None:
    refused(midgame, 1, PASS, "not seat 2's turn")
    refused(midgame, 1, Place(tile(0, 0), "L"), "not seat 2's turn")
    refused(midgame, 5, PASS, "no seat 5")


def test_not_a_dominoes_action(midgame: DominoesState) -> None:
    refused(midgame, 0, "1-3L", "not a dominoes action")
    refused(midgame, 0, Place("1-3", "L"), "not a tile")  # type: ignore[arg-type]
    refused(midgame, 0, Place(tile(1, 3), "X"), "not an end")  # type: ignore[arg-type]


def test_after_the_game_is_over() -> None:
    state = rig(["2-5", "6-6 1-2"], train="5-6", turn=0, target=10)
    play(state, "2-5L")
    assert state.is_over
    refused(state, 1, PASS, "the game is over")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "not a dominoes action"),
        ("3-", "not a dominoes action"),
        ("3-5X", "not a dominoes action"),
        ("7-1L", "from 0 to 6"),
        ("drw", "not a dominoes action"),
        ("3-5LR", "not a dominoes action"),
        ("12-3", "not a dominoes action"),
    ],
)
def test_bad_notation(text: str, reason: str) -> None:
    with pytest.raises(NotationError, match=reason):
        GAME.parse_action(text)


def test_bad_tiles() -> None:
    with pytest.raises(ValueError, match="low half first"):
        Tile(5, 3)
    with pytest.raises(ValueError):
        Tile(0, 7)
    with pytest.raises(ValueError):
        tile(-1, 2)
