"""The rulebook's worked examples, verbatim (rules/pass-pass.md), and the
other rules that hand-built positions pin down."""

from __future__ import annotations

import pytest

from core.passpass import GAME, Colour, PassPassState, Phase
from core.passpass.model import DEFAULT_DIAMONDS, parse_card
from tests.passpass.rig import ALEX, DAVID, FABIENNE, STEPHANIE, cards, play, rig

# Players in play order David, Stéphanie, Alex, Fabienne (4 players, individual).
EXTRA = ["Y1 Y2", "Y3 Y4", "Y5 Y6", "Y7 Y8"]  # so the round does not end


def example(plays: str) -> PassPassState:
    """A 4-player trick where David leads and each plays the given card."""
    hands = [f"{card} {extra}" for card, extra in zip(plays.split(), EXTRA, strict=True)]
    state = rig(hands, leader=DAVID)
    play(state, *plays.split())
    return state


def test_example_1_same_colour_highest_first_second_takes_two_lowest() -> None:
    # V10, V11, V12, V6 -> first Alex (V12, picks any card, e.g. V12);
    # second Stéphanie (V11) takes V6 and V10.
    state = example("V10 V11 V12 V6")
    assert state.resolution is not None
    assert state.resolution.majority is Colour.VIOLET
    assert state.to_act == (ALEX,)
    assert state.resolution.second_winner == STEPHANIE
    play(state, "pick V12")
    assert state.won[ALEX] == cards("V12")
    assert sorted(state.won[STEPHANIE]) == cards("V6 V10")
    assert state.discarded == cards("V11")  # PP-15
    assert state.leader == STEPHANIE  # PP-16


def test_example_2_majority_by_strength() -> None:
    # V10, B11, G4, V6 -> violet 16 beats blue 11, green 4. First David (V10,
    # picks e.g. G4); second Fabienne (V6) takes the two lowest remaining.
    state = example("V10 B11 G4 V6")
    assert state.resolution is not None
    assert state.resolution.strengths == (
        (Colour.VIOLET, 16),
        (Colour.BLUE, 11),
        (Colour.GREEN, 4),
    )
    assert state.resolution.first_winner == DAVID
    assert state.resolution.second_winner == FABIENNE
    play(state, "pick G4")
    assert state.won[DAVID] == cards("G4")
    assert sorted(state.won[FABIENNE]) == cards("V6 V10")
    assert state.discarded == cards("B11")


def test_example_3_single_card_majority_second_ranked_colour_by_highest_card() -> None:
    # V10, B11, G4, G6 -> blue 11 is majority (single card); violet 10 vs
    # green 10 tie, highest card V10 > G6, so violet. First Stéphanie, second David.
    state = example("V10 B11 G4 G6")
    assert state.resolution is not None
    assert state.resolution.majority is Colour.BLUE
    assert [colour for colour, _ in state.resolution.strengths] == [
        Colour.BLUE,
        Colour.VIOLET,
        Colour.GREEN,
    ]
    assert state.resolution.first_winner == STEPHANIE
    assert state.resolution.second_winner == DAVID


def test_example_3_variant_g7_tie_on_strength_broken_by_highest_card() -> None:
    # Variant with Fabienne playing G7: blue 11 vs green 11 tie, B11 > G7 so
    # blue is majority; second-ranked is green; second winner Fabienne (G7).
    state = example("V10 B11 G4 G7")
    assert state.resolution is not None
    assert state.resolution.majority is Colour.BLUE
    assert state.resolution.strengths[1] == (Colour.GREEN, 11)
    assert state.resolution.first_winner == STEPHANIE
    assert state.resolution.second_winner == FABIENNE


def test_example_4_full_tie_broken_by_play_order() -> None:
    # V10, G10, V6, G6 -> violet 16 vs green 16, highest cards 10 vs 10,
    # David's V10 was played first, so violet is majority. First David, second Alex (V6).
    state = example("V10 G10 V6 G6")
    assert state.resolution is not None
    assert state.resolution.majority is Colour.VIOLET
    assert state.resolution.first_winner == DAVID
    assert state.resolution.second_winner == ALEX


def test_scoring_example_6_cards_3_diamonds_9_points_1_pass_pass() -> None:
    # PP-20: "6 cards with 3 diamonds = 9 points, and 1 Pass Pass": green 10
    # has 1 diamond, yellow 3 has 2, violet 11 / violet 6 / green 4 / blue 11 none.
    state = rig(["V1", "V2", "V3"], won=["G10 Y3 V11 V6 G4 B11", "", ""])
    assert state.round_points(0) == 9
    assert state.pass_pass_count(0) == 1
    assert DEFAULT_DIAMONDS[10 - 1] == 1 and DEFAULT_DIAMONDS[3 - 1] == 2


def test_diamonds_never_affect_the_trick() -> None:
    # PP-17: V1 carries 3 diamonds but V12 still wins.
    state = rig(["V1 Y1", "V12 Y2", "B2 Y3"], leader=0)
    play(state, "V1", "V12", "B2")
    assert state.resolution is not None
    assert state.resolution.first_winner == 1


def test_second_winner_chooses_among_tied_lowest_cards() -> None:
    # PP-14: after the pick, V4, G4, B4 remain: the second winner takes two
    # of the three 4s, and chooses which.
    state = rig(["V12 Y1", "V4 Y2", "G4 Y3", "B4 Y4"], leader=0)
    play(state, "V12", "V4", "G4", "B4", "pick V12")
    assert state.phase is Phase.TAKE
    assert state.to_act == (1,)
    options = {str(action) for action in state.legal_actions(1)}
    assert options == {"take V4 B4", "take V4 G4", "take B4 G4"}
    play(state, "take V4 G4")
    assert sorted(state.won[1]) == sorted(cards("V4 G4"))
    assert state.discarded == cards("B4")


def test_three_players_second_winner_takes_both_remaining() -> None:
    state = rig(["V12 Y1", "V4 Y2", "G4 Y3"], leader=0)
    play(state, "V12", "V4", "G4", "pick V4")
    assert sorted(state.won[1]) == sorted(cards("V12 G4"))
    assert state.phase is Phase.PLAY


def test_first_winner_may_take_their_own_card_or_any_other() -> None:
    state = example("V10 V11 V12 V6")
    assert {str(a) for a in state.legal_actions(ALEX)} == {
        "pick V10",
        "pick V11",
        "pick V12",
        "pick V6",
    }


def test_pass_pass_checked_at_once_mid_round() -> None:
    # PP-18: the count rises when the fourth colour arrives; cards stay.
    state = rig(["Y12 Y1", "V2 Y2", "B2 Y3"], won=["V5 B5 G5", "", ""], leader=0)
    log = play(state, "Y12", "V2", "B2", "pick Y12")
    assert "Pass Pass! seat0 checks one (1 in all)." in log
    assert state.pass_pass_round[0] == 1
    assert len(state.won[0]) == 4  # cards are not removed by the check


def test_a_trick_that_adds_no_set_checks_no_pass_pass() -> None:
    """PP-18: a seat whose count of sets stays at 1 after winning a card
    checks nothing again (make mutation: _check_pass_pass__mutmut_3, `<` for
    `<=`, announced the same Pass Pass a second time)."""
    state = rig(["Y12 Y1", "V2 Y2", "B2 Y3"], won=["V5 B5 G5 Y5", "", ""], leader=0)
    assert state.pass_pass_round[0] == 1
    log = play(state, "Y12", "V2", "B2", "pick Y12")
    assert not [line for line in log if line.startswith("Pass Pass!")]
    assert state.pass_pass_round[0] == 1 and len(state.won[0]) == 5


@pytest.mark.parametrize("missing", ["V", "B", "G", "Y"])
def test_a_pile_without_one_colour_counts_no_pass_pass(missing: str) -> None:
    """PP-18: two of each other colour and none of this one: no set (make
    mutation: pass_pass_count__mutmut_2 and _3 started a colour's count at 1)."""
    pile = " ".join(
        f"{colour}{value}" for colour in "VBGY" if colour != missing for value in (5, 6)
    )
    state = rig(["V1", "V2", "V3"], won=[pile, "", ""])
    assert state.pass_pass_count(0) == 0
    assert state.pass_pass_count(1) == 0  # an empty pile


def test_immediate_victory_on_third_pass_pass() -> None:
    # PP-19: two checked in earlier rounds, the third wins at once.
    state = rig(["Y12 Y1", "V2 Y2", "B2 Y3"], won=["V5 B5 G5", "", ""], leader=0)
    state.team_pass_pass[0] = 2
    log = play(state, "Y12", "V2", "B2", "pick Y12")
    result = state.result()
    assert state.is_over and result is not None
    assert result.winners == (0,) and result.immediate and not result.shared
    # make mutation: _check_pass_pass__mutmut_30..32 (the result's reason) and
    # _39..41 (the event's) changed the words.
    assert result.reason == "third Pass Pass: immediate victory"
    assert log[-1] == "Game over: seat0 wins (third Pass Pass: immediate victory)."


def test_only_the_first_winner_wins_when_both_reach_their_third() -> None:
    # PP-19: both winners would reach a third Pass Pass on this trick; the
    # first winner takes their card first and wins alone.
    state = rig(
        ["Y12 V1", "G11 V2", "B3 V3"],
        won=["V5 B5 G5 V6 B6 G6 V7 B7 G7 Y5 Y6", "V8 B8 Y8 V9 B9 Y9 V10 B10 Y10 G8 G9", ""],
        leader=0,
    )
    assert state.pass_pass_round[:2] == [2, 2]
    play(state, "Y12", "G11", "B3")
    assert state.resolution is not None
    assert (state.resolution.first_winner, state.resolution.second_winner) == (0, 1)
    play(state, "pick Y12")
    result = state.result()
    assert result is not None and result.winners == (0,)
    assert state.pass_pass_round[1] == 2  # never got to take G11


def test_team_immediate_victory_counts_the_teams_earlier_rounds() -> None:
    # PP-24: seat 0's first Pass Pass this round + the team's 2 recorded earlier.
    state = rig(["Y12 Y1", "V2 Y2", "B2 Y3", "G2 Y4"], won=["V5 B5 G5", "", "", ""], teams=True)
    state.team_pass_pass[0] = 2
    play(state, "Y12", "V2", "B2", "G2", "pick Y12")
    result = state.result()
    assert result is not None and result.winners == (0, 2) and result.immediate


def _last_trick_of_round(players: int, teams: bool = False) -> PassPassState:
    hands = ["V12", "V11", "B12", "B1", "G1", "Y1"][:players]
    state = rig(hands, teams=teams, leader=0)
    state.trick_number = 7
    return state


def test_round_scoring_then_next_round_dealt() -> None:
    state = _last_trick_of_round(3)
    play(state, "V12", "V11", "B12", "pick V12")
    assert state.sheet[0].points == (1, 2, 0)  # PP-20: V12, then V11 + B12
    assert state.sheet[0].round == 1  # make mutation: _score_round__mutmut_22, _23
    assert state.round == 1 and state.trick_number == 0
    assert all(len(hand) == 8 for hand in state.hands)  # PP-21
    assert sorted(state.card_locations()) == list(range(48))
    assert state.leader == 1  # PP-16: the second winner leads the next round


def test_a_round_s_pass_pass_adds_to_the_record_and_the_next_round_follows() -> None:
    """PP-20/PP-21: the second round scored: its Pass Pass adds to each seat's
    record and the third round is dealt (make mutation: _score_round__mutmut_12
    took the round's Pass Pass away from the record, _48 set the round to 1
    instead of adding one)."""
    state = rig(["V12", "V11", "B12"], won=["B5 G5 Y5", "", ""], leader=0)
    state.trick_number = 7
    state.round = 1
    state.team_pass_pass = [1, 0, 2]
    play(state, "V12", "V11", "B12", "pick V12")  # seat 0 completes a set
    assert state.sheet[0].pass_pass == (1, 0, 0) and state.sheet[0].round == 2
    assert state.team_pass_pass == [2, 0, 2]
    assert state.round == 2 and not state.is_over


def test_game_ends_after_three_rounds_most_points_wins() -> None:
    state = _last_trick_of_round(3)
    state.round = 2
    state.team_totals = [10, 10, 12]
    play(state, "V12", "V11", "B12", "pick V12")
    result = state.result()
    assert result is not None
    assert result.scores == (11, 12, 12)
    assert result.winners == (1, 2) and result.shared  # PP-22: equal points and Pass Pass
    # make mutation: _final_ranking__mutmut_16 (the condition), _18.._20 (the
    # words), _23 (`not shared or`); _finish__mutmut_1 (immediate by default).
    assert result.reason == "shared victory: equal points and Pass Pass"
    assert not result.immediate


def test_most_points_wins_alone_with_every_score_different() -> None:
    """PP-22: one seat has the most points, the others differ from it and from
    each other (make mutation: _final_ranking__mutmut_17 called it shared,
    _21 and _22 changed the words; _26 (`sum(2 ...)`), _28 (`!=`) and _30
    (`>= 1`) called it a tie broken by Pass Pass)."""
    state = _last_trick_of_round(3)
    state.round = 2
    state.team_totals = [10, 20, 30]
    play(state, "V12", "V11", "B12", "pick V12")
    result = state.result()
    assert result is not None and result.winners == (2,) and not result.shared
    assert result.scores == (11, 22, 30)
    assert result.reason == "most points" and not result.immediate


def test_equal_points_broken_by_most_pass_pass() -> None:
    state = _last_trick_of_round(3)
    state.round = 2
    state.team_totals = [10, 10, 12]
    state.team_pass_pass = [0, 0, 1]
    play(state, "V12", "V11", "B12", "pick V12")
    result = state.result()
    assert result is not None and result.winners == (2,) and not result.shared
    # make mutation: _final_ranking__mutmut_24 (`shared and`), _27 (key[1]),
    # _29 (best[1]), _31 (`> 2`), _33.._35 (the words).
    assert result.reason == "equal points, more Pass Pass"


def test_shared_victory_of_three() -> None:
    state = _last_trick_of_round(3)
    state.round = 2
    state.team_totals = [11, 10, 12]
    play(state, "V12", "V11", "B12", "pick V12")
    result = state.result()
    assert result is not None and result.winners == (0, 1, 2) and result.shared


def test_team_representative_choice_scores_one_partner() -> None:
    # PP-23: each team picks ONE player; either partner may choose, first choice final.
    state = _last_trick_of_round(4, teams=True)
    state.won[2] = cards("V1 V2")  # seat 2 (team 0) has 2 cards + 5 diamonds = 7
    play(state, "V12", "V11", "B12", "B1", "pick V12")
    assert state.phase is Phase.REPRESENT
    assert set(state.to_act) == {0, 1, 2, 3}
    assert {str(a) for a in state.legal_actions(0)} == {"rep 1", "rep 3"}
    play(state, "rep 3")  # seat 0 chooses its partner, seat 2
    assert set(state.to_act) == {1, 3}  # team 0 has chosen: final
    state.apply(3, GAME.parse_action("rep 2"))
    row = state.sheet[0]
    assert row.representatives == (2, 1)
    assert row.points == (7, 5)  # team 0: seat 2 (V1 V2 = 7); team 1: seat 1 (V11 + B1 = 5)
    assert state.team_totals == [7, 5]


def test_representative_must_be_in_the_team() -> None:
    state = _last_trick_of_round(4, teams=True)
    play(state, "V12", "V11", "B12", "B1", "pick V12")
    before = state.clone()
    with pytest.raises(Exception, match="not in your team"):
        state.apply(0, GAME.parse_action("rep 2"))
    assert state.representatives == before.representatives


@pytest.mark.parametrize(
    ("players", "teams", "set_aside"), [(3, False, 24), (4, False, 16), (5, False, 8), (6, True, 0)]
)
def test_deal_eight_each_rest_set_aside(players: int, teams: bool, set_aside: int) -> None:
    state = GAME.new_game(GAME.make_config(players=players, teams=teams), seed=3)
    assert [len(hand) for hand in state.hands] == [8] * players
    assert len(state.set_aside) == set_aside  # PP-4


def test_first_leader_from_seed_or_host() -> None:
    leaders = {GAME.new_game(GAME.make_config(players=4), seed).leader for seed in range(40)}
    assert leaders == {0, 1, 2, 3}  # PP-5: drawn from the seed
    chosen = GAME.new_game(GAME.make_config(players=4, first_leader=2), seed=1)
    assert chosen.leader == 2


def test_replaceable_diamond_table() -> None:
    table = (1,) * 12
    state = rig(["V1"] * 1 + ["V2", "V3"], won=["G10 Y3", "", ""])
    custom = GAME.new_game(GAME.make_config(players=3, diamonds=list(table)), seed=0)
    custom.won[0] = cards("G10 Y3")
    assert state.round_points(0) == 2 + 3
    assert custom.round_points(0) == 2 + 2
    assert not custom.config.default_diamonds and state.config.default_diamonds
    assert parse_card("g10").value == 10


def test_team_round_is_described_per_team_with_its_scorer() -> None:
    from core.engine import Names

    state = _last_trick_of_round(4, teams=True)
    state.won[2] = cards("V1 V2")
    play(state, "V12", "V11", "B12", "B1", "pick V12")
    names = Names(["Me", "Ada", "Bruno", "Cleo"], you=0)
    chosen = state.apply(0, GAME.parse_action("rep 1"))
    assert chosen[0].describe(names) == "You score for the team this round."
    scored = state.apply(1, GAME.parse_action("rep 2"))
    lines = [event.describe(names) for event in scored]
    assert lines[0] == "Ada scores for the team this round."
    assert lines[1] == "Round 1 scored: your team 1, Ada's team 5."
