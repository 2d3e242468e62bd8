"""Pass Pass bots see only views, return legal actions, and the heuristic
beats random clearly."""

from __future__ import annotations

import random
from collections import Counter

from core.passpass import GAME
from core.passpass.bots import ROLLOUT_MISTAKES, HardBot, HeuristicBot
from core.passpass.state import Phase
from core.search import heuristic_policy
from core.simulate import simulate
from tests.engine_checks import examples
from tests.passpass.test_sampler import CONFIGS


def test_heuristic_beats_three_random_bots() -> None:
    summary = simulate(
        "passpass",
        players=4,
        teams=False,
        games=200,
        seed=5,
        bots=["heuristic", "random", "random", "random"],
    )
    # A fair share would be 50 of 200; the heuristic measures ~78% at 1000 games.
    assert summary.wins[0] > 100, summary.wins


def test_heuristic_team_beats_random_team() -> None:
    summary = simulate(
        "passpass",
        players=4,
        teams=True,
        games=100,
        seed=9,
        bots=["heuristic", "random", "heuristic", "random"],
    )
    assert summary.wins[0] > summary.wins[1] * 1.5, summary.wins


def test_simulation_is_reproducible_from_its_seed() -> None:
    bots = ["heuristic", "random", "random"]
    first = simulate("passpass", players=3, teams=False, games=20, seed=3, bots=bots)
    again = simulate("passpass", players=3, teams=False, games=20, seed=3, bots=bots)
    assert first.to_data() == again.to_data()


def test_rollout_policy_reads_the_state_as_the_heuristic_reads_the_view() -> None:
    """The search's playout policy (HardBot.rollout_policy, on the state) makes
    the same choice as core.search.heuristic_policy (the heuristic on a view
    built per move) and draws the same random numbers, in every phase."""
    phases: Counter[Phase] = Counter()
    checked = 0
    for game_index in range(examples(180)):
        config = GAME.make_config(**CONFIGS[game_index % len(CONFIGS)])
        state = GAME.new_game(config, 7_000 + game_index)
        fast_rng, view_rng = random.Random(game_index), random.Random(game_index)
        fast = HardBot(0).rollout_policy(fast_rng)
        on_views = heuristic_policy(HeuristicBot(), view_rng, ROLLOUT_MISTAKES)
        while not state.is_over:
            actor = state.to_act[0]
            action = fast(state, actor)
            assert action == on_views(state, actor), state.record()
            assert fast_rng.getstate() == view_rng.getstate(), state.record()
            if len(state.legal_actions(actor)) > 1:
                phases[state.phase] += 1
            state.apply(actor, action)
            checked += 1
    assert checked > 1_000
    assert min(phases[phase] for phase in (Phase.PLAY, Phase.PICK, Phase.TAKE)) > 0, phases
    assert phases[Phase.REPRESENT] > 0, phases  # team games (PP-23)
