"""Hand-built positions pinning down the rules DO-1..DO-14."""

from __future__ import annotations

import pytest

from core.dominoes import DRAW, GAME, PASS, DominoesConfig, Place, TrainTile, tile
from core.dominoes.model import Drew, GameEnded, Passed, Placed, RoundEnded, RoundStarted
from core.engine import ConfigError, IllegalAction
from tests.dominoes.rig import REST, play, rig, tiles

# A train whose two ends become 6 and 6 once 5-6 is laid on the left, with all
# seven 6-tiles then on the table: 4-5 4-6 6-6 0-6 0-1 1-6 2-6 2-3 3-6.
SIXES_TRAIN = "6-6 0-6R 0-1R 1-6R 2-6R 2-3R 3-6R 4-6L 4-5L"


def test_blocked_round_ends_at_once_and_lowest_count_scores() -> None:
    # DO-10: nobody holds a 6 and the boneyard holds its last two tiles.
    state = rig(["5-6 0-0", REST], train=SIXES_TRAIN, boneyard="1-1 2-2", turn=0)
    assert state.view(0).ends == (5, 6)
    events = play(state, "5-6L")
    ended = [e for e in events if isinstance(e, RoundEnded)]
    assert len(ended) == 1
    summary = ended[0].summary
    assert summary.reason == "blocked"
    assert summary.domino is None
    assert summary.counts == (0, 84)  # seat 1 holds the other fifteen tiles
    assert summary.winners == (0,)
    assert summary.points == 84  # DO-12: 84 - 0
    assert state.scores == (84, 0)
    assert state.blocked_rounds == 1
    assert state.rounds_played == 1
    # DO-5: the winner leads the freshly dealt round 2 (DO-3: 7 tiles each).
    assert state.round_number == 2
    assert state.leader == 0 and state.to_act == (0,)
    assert state.view(None).hand_sizes == (7, 7)
    assert state.view(None).boneyard == 14
    assert isinstance(events[-1], RoundStarted)


def test_not_blocked_while_someone_can_still_place() -> None:
    # DO-10 needs that NO player holds a fitting tile: seat 1 holds 3-6.
    state = rig(
        ["5-6 0-0", REST],
        train="6-6 0-6R 0-1R 1-6R 2-6R 2-3R 4-6L 4-5L",
        boneyard="1-1 2-2",
        turn=0,
    )
    play(state, "5-6L")
    assert state.rounds_played == 0
    assert state.to_act == (1,)
    assert Place(tile(3, 6), "L") in state.legal_actions(1)


def test_full_circle_of_voluntary_passes_ends_the_round() -> None:
    # DO-11 with 3 players; every player could place but passes.
    state = rig(["0-1 1-4 3-4", "4-4 5-6", "5-5 4-6"], train="3-5", leader=0, turn=0)
    play(state, "3-4L")  # seat 0: ends 4 and 5
    assert state.to_act == (1,)
    for seat in (1, 2):
        assert any(isinstance(a, Place) for a in state.legal_actions(seat))
        play(state, "pass")
    assert state.passes == 2 and state.rounds_played == 0
    assert Place(tile(1, 4), "L") in state.legal_actions(0)
    events = play(state, "pass")  # seat 0 completes the circle
    summary = next(e for e in events if isinstance(e, RoundEnded)).summary
    assert summary.reason == "passes"
    assert summary.counts == (6, 19, 20)
    # DO-12 at 3 players: (19 + 20) - 6.
    assert summary.winners == (0,) and summary.points == 33
    assert state.scores == (33, 0, 0)
    assert state.blocked_rounds == 1  # DO-11 ends the round "as blocked"


def test_a_draw_breaks_the_circle_of_passes() -> None:
    state = rig(["0-1", "3-3", "5-5"], train="2-4", leader=0, turn=1)
    play(state, "pass", "draw", "pass", "pass")  # 1 passes, 2 draws, 0, 1 pass
    assert state.rounds_played == 0
    assert state.passes == 2
    play(state, "pass")  # seat 2: three passes in a row
    assert state.rounds_played == 1


def test_tie_for_lowest_scores_nothing_two_players() -> None:
    state = rig(["1-2", "0-3"], train="5-5", leader=0, turn=1, scores=[10, 20])
    events = play(state, "pass", "pass")
    summary = next(e for e in events if isinstance(e, RoundEnded)).summary
    assert summary.counts == (3, 3)
    assert summary.winners == () and summary.points == 0
    assert state.scores == (10, 20)  # DO-12: nobody scores
    assert state.leader == 1  # DO-5 [interpretation]: the next player leads


def test_tie_for_lowest_scores_nothing_three_players() -> None:
    state = rig(["1-2", "0-3", "6-6"], train="5-5", leader=0, turn=1)
    events = play(state, "pass", "pass", "pass")
    summary = next(e for e in events if isinstance(e, RoundEnded)).summary
    assert summary.counts == (3, 3, 12)
    assert summary.winners == ()
    assert state.scores == (0, 0, 0)
    # DO-5 [interpretation]: the player after the previous leader (0) leads,
    # not the one before (found by make mutation: at 2 players both are 1).
    assert state.leader == 1


def test_scoring_two_players_domino() -> None:
    state = rig(["2-5", "6-6 1-2"], train="5-6", leader=1, turn=0, scores=[3, 4])
    events = play(state, "2-5L")
    assert isinstance(events[0], Placed) and events[0].tiles_left == 0
    summary = next(e for e in events if isinstance(e, RoundEnded)).summary
    assert summary.reason == "domino" and summary.domino == 0
    assert summary.counts == (0, 15)
    assert summary.points == 15  # DO-12: 15 - 0
    assert state.scores == (18, 4)
    assert state.blocked_rounds == 0 and state.rounds_played == 1
    assert state.leader == 0


def test_scoring_three_players_lowest_scores_others_minus_own() -> None:
    # DO-12 at 3 players: counts 3, 9, 12 -> seat 0 scores (9 + 12) - 3 = 18.
    state = rig(["1-2", "4-5", "6-6"], train="0-0", leader=0, turn=1, scores=[1, 2, 3])
    events = play(state, "pass", "pass", "pass")
    summary = next(e for e in events if isinstance(e, RoundEnded)).summary
    assert summary.counts == (3, 9, 12)
    assert summary.winners == (0,)
    assert summary.points == 18
    assert state.scores == (19, 2, 3)


def test_scoring_four_players_individual() -> None:
    state = rig(["4-6", "1-3", "6-6", "3-4"], train="5-5", leader=0, turn=1)
    events = play(state, "pass", "pass", "pass", "pass")
    summary = next(e for e in events if isinstance(e, RoundEnded)).summary
    assert summary.counts == (10, 4, 12, 7)
    assert summary.team_counts is None
    assert summary.points == (10 + 12 + 7) - 4
    assert state.scores == (0, 25, 0, 0)
    assert state.leader == 1


def test_partnership_scoring() -> None:
    # DO-14: teams 0+2 (10 + 12 = 22) and 1+3 (4 + 7 = 11).
    state = rig(["4-6", "1-3", "6-6", "3-4"], train="5-5", teams=True, leader=0, turn=1)
    events = play(state, "pass", "pass", "pass", "pass")
    summary = next(e for e in events if isinstance(e, RoundEnded)).summary
    assert summary.team_counts == (22, 11)
    assert summary.winners == (1, 3)
    assert summary.points == 22 - 11
    assert state.scores == (0, 11, 0, 11)
    assert state.view(2).team_scores == (0, 11)
    # DO-5 [interpretation]: the winning partner with the lower count leads.
    assert state.leader == 1


def test_partnership_equal_counts_score_nothing() -> None:
    state = rig(["1-2", "0-1", "0-2", "1-3"], train="5-5", teams=True, leader=0, turn=1)
    play(state, "pass", "pass", "pass", "pass")
    assert state.last_round is not None
    assert state.last_round.team_counts == (5, 5)
    assert state.last_round.winners == ()
    assert state.scores == (0, 0, 0, 0)


def test_partnership_leader_tie_goes_to_first_after_previous_leader() -> None:
    # Team 1+3 wins with 2 + 2; previous leader 2, so seat 3 comes first.
    state = rig(["6-6", "0-2", "5-6", "1-1"], train="3-3", teams=True, leader=2, turn=3)
    play(state, "pass", "pass", "pass", "pass")
    assert state.last_round is not None and state.last_round.winners == (1, 3)
    assert state.leader == 3


def test_partnership_leader_tie_when_the_previous_leader_won() -> None:
    """DO-5 [interpretation]: partners on equal counts, the previous leader
    (1) one of them: the first of the two *after* the previous leader leads,
    seat 3 (found by make mutation: an order that starts at the previous
    leader itself passed)."""
    state = rig(["6-6", "0-2", "5-6", "1-1"], train="3-3", teams=True, leader=1, turn=2)
    play(state, "pass", "pass", "pass", "pass")
    assert state.last_round is not None and state.last_round.winners == (1, 3)
    assert state.last_round.counts[1] == state.last_round.counts[3] == 2
    assert state.leader == 3


def test_rounds_played_and_blocked_are_counted_over_a_whole_game() -> None:
    """The public counts of rounds played and blocked (the view's, the bots'
    endgame reads them) add up every round of a game (found by make
    mutation: set to 1 at each round's end, they passed)."""
    state = GAME.new_game(GAME.make_config(players=2), 1)
    reasons = []
    while not state.is_over:
        (seat,) = state.to_act
        events = state.apply(seat, state.legal_actions(seat)[0])
        reasons += [e.summary.reason for e in events if isinstance(e, RoundEnded)]
    blocked = [reason for reason in reasons if reason != "domino"]
    assert len(reasons) == 9 and len(blocked) == 3  # seed 1: enough of each
    assert state.rounds_played == len(reasons)
    assert state.blocked_rounds == len(blocked)
    assert state.view(0).rounds_played == 9 and state.view(0).blocked_rounds == 3


def test_target_101_at_two_players() -> None:
    assert DominoesConfig(players=2).goal == 101
    assert DominoesConfig(players=3).goal == 101
    state = rig(["2-5", "6-6 1-2"], train="5-6", turn=0, scores=[86, 100])
    events = play(state, "2-5L")  # +15 -> exactly 101
    assert state.is_over
    result = state.result()
    assert result is not None
    assert result.winners == (0,) and result.scores == (101, 100)
    assert not result.shared
    # The reason shown at the end (found by make mutation: its words were unread).
    assert result.reason == "reached 101 points"
    assert isinstance(events[-1], GameEnded)
    assert state.to_act == () and state.legal_actions(0) == ()


def test_below_target_the_game_goes_on() -> None:
    state = rig(["2-5", "6-6 1-2"], train="5-6", turn=0, scores=[85, 100])
    play(state, "2-5L")  # +15 -> 100
    assert not state.is_over
    assert state.scores == (100, 100)
    assert state.round_number == 2


def test_target_61_at_four_players_and_in_partnerships() -> None:
    assert DominoesConfig(players=4).goal == 61
    assert DominoesConfig(players=4, teams=True).goal == 61
    state = rig(["4-6", "1-3", "6-6", "3-4"], train="5-5", turn=1, scores=[0, 36, 0, 0])
    play(state, "pass", "pass", "pass", "pass")  # seat 1 +25 -> 61
    assert state.is_over
    assert state.result() is not None and state.result().winners == (1,)  # type: ignore[union-attr]
    teams = rig(["4-6", "1-3", "6-6", "3-4"], train="5-5", teams=True, turn=1, scores=[0, 49])
    play(teams, "pass", "pass", "pass", "pass")  # team 1+3 +11 -> 60
    assert not teams.is_over and teams.scores == (0, 60, 0, 60)
    teams = rig(["4-6", "1-3", "6-6", "3-4"], train="5-5", teams=True, turn=1, scores=[0, 50])
    play(teams, "pass", "pass", "pass", "pass")  # -> 61
    assert teams.is_over
    assert teams.result() is not None and teams.result().winners == (1, 3)  # type: ignore[union-attr]
    assert teams.result().scores == (0, 61, 0, 61)  # type: ignore[union-attr]


def test_target_override() -> None:
    assert DominoesConfig(players=2, target=20).goal == 20
    state = rig(["2-5", "6-6 1-2"], train="5-6", turn=0, target=15)
    play(state, "2-5L")
    assert state.is_over


def test_drawing_refused_when_the_boneyard_holds_two_tiles() -> None:
    # DO-4.
    state = rig(["0-1 0-2", REST], train="5-5", boneyard="3-3 4-4", turn=0)
    assert DRAW not in state.legal_actions(0)
    assert state.legal_actions(0) == (PASS,)
    assert not state.view(0).can_draw
    before = state.fingerprint()
    with pytest.raises(IllegalAction, match="last two tiles"):
        state.apply(0, DRAW)
    assert state.fingerprint() == before


def test_drawing_allowed_with_three_tiles_down_to_two() -> None:
    state = rig(["0-1 0-2", REST], train="5-5", boneyard="3-3 4-4 1-1", turn=0)
    assert DRAW in state.legal_actions(0)
    events = play(state, "draw")
    assert events[0] == Drew(0, tile(1, 1), 2)
    assert state.view(0).hand == tuple(tiles("0-1 0-2 1-1"))
    assert state.view(None).boneyard == 2
    assert state.to_act == (1,)  # DO-7 [interpretation]: drawing ends the turn
    assert DRAW not in state.legal_actions(1)


def test_drawn_tile_is_visible_only_to_its_drawer() -> None:
    state = rig(["0-1 0-2", REST], train="5-5", boneyard="3-3 4-4 1-1", turn=0)
    (drew,) = play(state, "draw")
    assert isinstance(drew, Drew)
    assert drew.for_seat(0) == Drew(0, tile(1, 1), 2)
    assert drew.for_seat(1) == Drew(0, None, 2)
    assert drew.for_seat(None) == Drew(0, None, 2)
    assert "1-1" not in drew.for_seat(1).describe(["A", "B"])  # type: ignore[union-attr]
    assert "1-1" in drew.describe(["A", "B"])


def test_double_placed_inline() -> None:
    # DO-8: doubles go in the line, the train keeps exactly two ends.
    state = rig(["5-5 3-3 5-6", REST], train="3-5", turn=0)
    play(state, "5-5R")
    assert state.view(0).ends == (3, 5)
    assert [(t.left, t.right) for t in state.view(0).train] == [(3, 5), (5, 5)]
    state.turn = 0  # let seat 0 go on (a test shortcut)
    state._legal = None
    play(state, "3-3L")
    state.turn = 0
    state._legal = None
    play(state, "5-6R")
    view = state.view(1)
    assert view.ends == (3, 6)
    assert [(t.left, t.right) for t in view.train] == [(3, 3), (3, 5), (5, 5), (5, 6)]
    assert [t.end for t in view.train] == ["L", None, "R", "R"]
    assert [t.order for t in view.train] == [2, 0, 1, 3]


def test_a_tile_that_fits_both_ends() -> None:
    state = rig(["2-4 0-0", REST], train="2-6 4-6R", turn=0)
    assert state.view(0).ends == (2, 4)
    legal = state.legal_actions(0)
    assert Place(tile(2, 4), "L") in legal and Place(tile(2, 4), "R") in legal
    left = state.clone()
    play(left, "2-4L")
    assert left.view(0).ends == (4, 4)
    assert left.view(0).train[0] == TrainTile(tile(2, 4), 4, 2, "L", True, 2)
    right = state.clone()
    play(right, "4-2R")  # either order of halves is accepted
    assert right.view(0).ends == (2, 2)
    assert right.view(0).train[-1] == TrainTile(tile(2, 4), 4, 2, "R", True, 2)


def test_train_orientation_left_to_right() -> None:
    state = rig(["1-3 0-0", REST], train="3-5 5-6R", turn=0)
    (placed,) = play(state, "1-3L")
    assert placed == Placed(0, tile(1, 3), "L", 1, 3, False, 1)
    view = state.view(None)
    assert [(t.left, t.right, t.flipped) for t in view.train] == [
        (1, 3, False),
        (3, 5, False),
        (5, 6, False),
    ]
    assert view.ends == (1, 6)
    assert [str(t.tile) for t in view.train] == ["1-3", "3-5", "5-6"]


def test_leader_must_start_the_train_with_a_tile() -> None:
    # DO-6: no pass or draw before the first tile.
    state = GAME.new_game(GAME.make_config(players=2), seed=7)
    leader = state.leader
    legal = state.legal_actions(leader)
    assert len(legal) == 7
    assert all(isinstance(a, Place) and a.end is None for a in legal)
    with pytest.raises(IllegalAction, match="DO-6"):
        state.apply(leader, PASS)


def test_deal_sizes() -> None:
    # DO-3, DO-4.
    for players, hand, boneyard in ((2, 7, 14), (3, 7, 7), (4, 6, 4)):
        view = GAME.new_game(GAME.make_config(players=players), seed=1).view(None)
        assert view.hand_sizes == (hand,) * players
        assert view.boneyard == boneyard
        assert view.train == () and view.ends is None and view.round == 1


def test_first_leader_drawn_from_the_seed() -> None:
    # DO-5.
    config = GAME.make_config(players=3)
    leaders = {GAME.new_game(config, seed).leader for seed in range(60)}
    assert leaders == {0, 1, 2}
    assert GAME.new_game(config, 5).leader == GAME.new_game(config, 5).leader


def test_events_describe_the_round() -> None:
    state = rig(["1-2", "0-3"], train="5-5", leader=0, turn=1, scores=[10, 20])
    events = play(state, "pass", "pass")
    names = ["Ann", "Bob"]
    assert isinstance(events[0], Passed)
    assert events[0].describe(names) == "Bob passes."
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert "nobody scores" in ended.describe(names)


def test_config_errors() -> None:
    with pytest.raises(ConfigError, match="exactly 4 players"):
        DominoesConfig(players=3, teams=True)
    with pytest.raises(ConfigError, match="exactly 4 players"):
        GAME.make_config(players=2, teams=True)
    with pytest.raises(ConfigError, match="2 to 4"):
        GAME.make_config(players=5)
    with pytest.raises(ConfigError, match="target"):
        GAME.make_config(players=2, target=0)
    with pytest.raises(ConfigError):
        GAME.make_config(players=2, target="lots")


def test_notation_round_trip_and_leniency() -> None:
    assert GAME.parse_action(" 3-5l ") == Place(tile(3, 5), "L")
    assert GAME.parse_action("5-3R") == Place(tile(3, 5), "R")
    assert GAME.parse_action("6-6") == Place(tile(6, 6))
    assert GAME.parse_action("DRAW") == DRAW
    assert GAME.parse_action("Pass") == PASS
    assert str(Place(tile(3, 5), "R")) == "3-5R"
    assert str(Place(tile(0, 4))) == "0-4"


def test_rules_text_marks_house_rules() -> None:
    text = GAME.rules_text()
    assert text.count("House rule") >= 4
    for rule in ("DO-4", "DO-5", "DO-7", "DO-11", "DO-12", "DO-13", "DO-14"):
        assert rule in text


def test_rules_text_words_the_partnership_leader_as_the_specification() -> None:
    """DO-5 [interpretation]: who leads after a (partnership) win, as a house
    rule in the specification's words."""
    text = " ".join(GAME.rules_text().split())
    assert (
        "**House rule (DO-5):** later rounds are led by the previous round's winner "
        "(in partnerships, the winning partner with the lower count, then the earlier "
        "in turn order"
    ) in text
    assert "after a round with no winner (tie), by the player after the previous leader" in text
