"""The fashion bots: legal, deterministic, fast, and the heuristic beats random."""

from __future__ import annotations

import statistics
import time

import pytest

from core.engine import RandomBot
from core.fashion import GAME, FashionConfig
from core.fashion.bots import HeuristicBot, keep_value, potential, rounds_left
from core.fashion.model import BANNED, MATERIAL, Change, Choose, Collect, End, FashionAction
from core.fashion.state import season_points
from core.simulate import simulate
from tests.fashion.helpers import build, c, choosing, cs, in_turn


def test_registered_bots() -> None:
    assert GAME.bots["random"] is RandomBot
    assert GAME.bots["heuristic"] is HeuristicBot
    assert isinstance(GAME.make_bot("heuristic", 1), HeuristicBot)


def _decisions(seed: int, players: int) -> list[str]:
    state = GAME.new_game(FashionConfig(players=players), seed)
    bots = [HeuristicBot(seed + i) for i in range(players)]
    out: list[str] = []
    while not state.is_over:
        seat = state.to_act[0]
        view = state.view(seat)
        action = bots[seat].choose(view)
        assert action in view.legal
        assert isinstance(action, FashionAction)
        out.append(str(action))
        state.apply(seat, action)
    return out


def test_heuristic_is_legal_and_deterministic() -> None:
    for players in (2, 5, 8):
        assert _decisions(3, players) == _decisions(3, players)


def test_heuristic_collects_a_star_collection() -> None:
    """STAR red, MUST dress, BANNED leather: RDS RJS RTS scores three at once."""
    state = in_turn(build(2, ["RDS RJS RTS KCW", "WJS WTS"], offer="UJS UTS UCS"), 0)
    action = HeuristicBot(0).choose(state.view(0))
    assert action == Collect(tuple(sorted(cs("RDS RJS RTS"))))


def test_heuristic_ends_rather_than_waste_cards() -> None:
    """No collection and no change worth two cards: it simply ends the turn."""
    state = in_turn(build(2, ["KJS UCW", "WJS WTS"], offer="UJS UTS UCS"), 0)
    assert HeuristicBot(0).choose(state.view(0)) == End()


def test_heuristic_changes_a_rule_that_opens_its_season() -> None:
    """In the last round only the season counts (FA-15): with red cards that
    lack a dress, it changes MUST (A = RJS, its only MUST symbol) so that the
    three red cards left are a valid season collection worth 9."""
    state = in_turn(build(2, ["RJS RTS RCS RJO RCW", "WJS WTS"], deck="", exhaustions=2), 0)
    assert season_points(state.hands[0], state.slot_features(), "table") == 0
    action = HeuristicBot(0).choose(state.view(0))
    assert isinstance(action, Change) and action.a == c("RJS")
    state.apply(0, action)
    assert season_points(state.hands[0], state.slot_features(), "table") == 9


def test_potential_prefers_star_groups_with_must() -> None:
    state = build(2, ["", ""])
    feats = state.slot_features()
    assert feats == [(0, 0), (1, 0), (2, 3), (0, 1)]  # red, dress, leather, blue
    assert potential(cs("RDS RJS RTS"), feats) == 3.0
    assert potential(cs("RJS RTS"), feats) < potential(cs("RDS RJS"), feats)
    assert potential(cs("RDL RJL RTL"), feats) == 0.0  # all banned leather


def test_heuristic_decisions_are_fast() -> None:
    state = GAME.new_game(FashionConfig(players=4), 11)
    bots = [HeuristicBot(i) for i in range(4)]
    times: list[float] = []
    while not state.is_over:
        seat = state.to_act[0]
        view = state.view(seat)
        start = time.perf_counter()
        action = bots[seat].choose(view)
        times.append(time.perf_counter() - start)
        assert isinstance(action, FashionAction)
        state.apply(seat, action)
    assert statistics.median(times) < 0.002


def test_heuristic_beats_random_four_players() -> None:
    """200 games by seed: the heuristic seat wins far more than a quarter and
    far more often than any random seat."""
    summary = simulate(
        "fashion",
        players=4,
        teams=False,
        games=200,
        seed=1,
        bots=["heuristic", "random", "random", "random"],
    )
    wins = summary.wins
    assert wins[0] >= 180  # measured: 187 of 200 (the old bot: 186; table season, FA-15)
    assert wins[0] > 10 * max(wins[1:])


def test_heuristic_beats_random_two_players() -> None:
    summary = simulate(
        "fashion", players=2, teams=False, games=60, seed=2, bots=["random", "heuristic"]
    )
    assert summary.wins[1] >= 55 and summary.wins[0] <= 5  # measured: 60 to 0


# -- the season collection near the end (FA-14, FA-15) --------------------------------
# STAR red, MUST dress, BANNED leather (tests/fashion/helpers.py).


def _deck(n: int) -> str:
    """``n`` cards for the deck, none of them in the hands used below."""
    return " ".join(["WJS", "WTS", "WCS", "WDS", "WJW", "WTW", "WCW", "WDW", "WJO", "WTO"][:n])


def test_rounds_left_counts_the_draws_to_the_second_run_out() -> None:
    """FA-14: each turn draws two cards and the game ends with the round that
    draws the last card of the second deck."""
    hands = ["KJS", "KTS", "KCS", "KDS"]
    assert rounds_left(build(4, hands).view(0)) is None  # the deck never ran out
    assert rounds_left(build(4, hands, deck=_deck(8), exhaustions=1).view(0)) == 0
    assert rounds_left(build(4, hands, deck=_deck(9), exhaustions=1).view(0)) == 1
    assert rounds_left(build(4, hands, deck="", exhaustions=2).view(0)) == 0
    # Two of four have played: four cards are still to be drawn this round.
    state = build(4, hands, deck=_deck(6), exhaustions=1)
    state = choosing(state, 0)
    state.order = [0, 1]
    assert rounds_left(state.view(0)) == 1
    state.deck = state.deck[:4]
    state.discard += cs("WJO WTO")
    assert rounds_left(state.view(0)) == 0


@pytest.mark.parametrize(("season", "collects"), [("table", False), ("strict", True)])
def test_heuristic_keeps_star_cards_for_the_season(season: str, collects: bool) -> None:
    """Last round: RDS RJS RTS announced bring 3 points; kept in hand with the
    dress RDS and no leather they are the season collection, 3 each (FA-15).
    Read strictly the hand RDS RJS RTS KCW is no collection, so it announces."""
    state = build(2, ["RDS RJS RTS KCW", "WJS WTS"], deck="", exhaustions=2, season=season)
    action = HeuristicBot(0).choose(in_turn(state, 0).view(0))
    assert isinstance(action, Collect) == collects


def test_heuristic_clears_a_banned_card_in_the_last_round() -> None:
    """Last round, table reading: the leather RTL voids the season of RDS RJS.
    The bot spends two cards on a rule change so that its hand scores: here it
    moves BANNED off leather and keeps RTL, a third red card (3 x 3)."""
    state = in_turn(build(2, ["RDS RJS RTL KCW KJW", "WJS WTS"], deck="", exhaustions=2), 0)
    assert season_points(state.hands[0], state.slot_features(), "table") == 0
    action = HeuristicBot(0).choose(state.view(0))
    assert isinstance(action, Change)
    state.apply(0, action)
    assert sorted(state.hands[0]) == sorted(cs("RDS RJS RTL"))
    assert state.slot_feature(BANNED) != (MATERIAL, 3)
    assert season_points(state.hands[0], state.slot_features(), "table") == 9


def test_heuristic_sheds_a_banned_card_in_the_last_round() -> None:
    """Last round, table reading: no card of RDS UJW RTL KCO KJO can move the
    BANNED slot, so the bot discards the leather RTL in a rule change; the red
    dress RDS then scores 3, though the hand is no collection (FA-15)."""
    state = in_turn(build(2, ["RDS UJW RTL KCO KJO", "WJS WTS"], deck="", exhaustions=2), 0)
    assert season_points(state.hands[0], state.slot_features(), "table") == 0
    action = HeuristicBot(0).choose(state.view(0))
    assert isinstance(action, Change) and c("RTL") in (action.a, action.b)
    state.apply(0, action)
    assert season_points(state.hands[0], state.slot_features(), "table") == 3


def test_keep_value_near_the_end_guards_the_must_card_and_drops_banned_ones() -> None:
    """FA-15, table reading: the only dress (MUST) carries the season of the red
    cards; a leather (BANNED) card voids it."""
    feats = build(2, ["", ""]).slot_features()
    hand = cs("RJS RTS KDS KTL KCW")
    far = {card: keep_value(card, hand, feats) for card in hand}
    near = {card: keep_value(card, hand, feats, 1.0) for card in hand}
    assert near[c("KDS")] > far[c("KDS")] and near[c("KDS")] > near[c("KCW")]
    assert near[c("KTL")] < far[c("KTL")] and near[c("KTL")] < near[c("KCW")]


@pytest.mark.parametrize(("season", "plays_first"), [("table", False), ("strict", True)])
def test_heuristic_plays_last_in_the_last_round(season: str, plays_first: bool) -> None:
    """FA-9 with FA-15: in the round that will draw the deck's last card, the
    auction winner plays last, so nobody can change a rule against its season
    collection; under ``season=strict`` it keeps playing first."""
    state = build(3, ["KJS", "KTS", "KCS"], deck=_deck(6), exhaustions=1, season=season)
    state = choosing(state, 0)
    action = HeuristicBot(0).choose(state.view(0))
    assert isinstance(action, Choose) and (action.seat == 0) == plays_first
