"""The fashion bots: legal, deterministic, fast, and the heuristic beats random."""

from __future__ import annotations

import statistics
import time

from core.engine import RandomBot
from core.fashion import GAME, FashionConfig
from core.fashion.bots import HeuristicBot, potential, season_value
from core.fashion.model import Change, Collect, End
from core.simulate import simulate
from tests.fashion.helpers import build, c, cs, in_turn


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
    assert season_value(state.hands[0], state.slot_features()) == 0
    action = HeuristicBot(0).choose(state.view(0))
    assert isinstance(action, Change) and action.a == c("RJS")
    state.apply(0, action)
    assert season_value(state.hands[0], state.slot_features()) == 9


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
    assert wins[0] >= 180  # measured: 198 of 200
    assert wins[0] > 10 * max(wins[1:])


def test_heuristic_beats_random_two_players() -> None:
    summary = simulate(
        "fashion", players=2, teams=False, games=60, seed=2, bots=["random", "heuristic"]
    )
    assert summary.wins[1] >= 55 and summary.wins[0] <= 5  # measured: 60 to 0
