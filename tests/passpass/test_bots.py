"""Pass Pass bots see only views, return legal actions, and the heuristic
beats random clearly."""

from __future__ import annotations

import random
from collections import Counter

from core.passpass import GAME
from core.passpass.bots import (
    _FIRST,
    _NEITHER,
    _SECOND,
    ROLLOUT_MISTAKES,
    HardBot,
    HeuristicBot,
    _TrickSoFar,
)
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


def test_the_heuristic_places_a_card_in_a_trick_as_the_rules_resolve_it() -> None:
    """Where the heuristic thinks its card would stand after the cards on the
    table (first winner, second, neither) is what PP-9..PP-12 resolve (the
    engine's own resolution of the same cards), for partial and full tricks."""
    rng = random.Random(12)
    places: Counter[int] = Counter()
    states = {n: GAME.new_game(GAME.make_config(players=n, teams=n == 6), 0) for n in range(3, 7)}
    for _ in range(examples(15_000)):
        players = rng.randint(3, 6)
        state = states[players]
        size = rng.randint(2, players)
        seats = rng.sample(range(players), size)
        state.trick = list(zip(seats, rng.sample(range(48), size), strict=True))
        *before, (seat, card) = state.trick
        place = _TrickSoFar(before).place(card)
        state._resolve()
        assert state.resolution is not None
        resolved = {state.resolution.first_winner: _FIRST, state.resolution.second_winner: _SECOND}
        assert place == resolved.get(seat, _NEITHER), state.trick
        places[place] += 1
    assert min(places[place] for place in (_FIRST, _SECOND, _NEITHER)) > 100, places
