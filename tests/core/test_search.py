"""The search bots' shared machinery (core/search.py) and the levels."""

from __future__ import annotations

import threading

import pytest

from core.engine import RandomBot
from core.registry import game_ids, get_game
from core.search import Budget, SearchBot, without_clock
from tests.core.sampler_checks import random_positions

CONFIGS: dict[str, list[dict[str, object]]] = {
    "passpass": [{"players": 4}],
    "dominoes": [{"players": 2}],
    "fashion": [{"players": 4}],
}


@pytest.mark.parametrize("game_id", game_ids())
def test_every_game_has_the_levels(game_id: str) -> None:
    bots = get_game(game_id).bots
    assert {"random", "easy", "normal", "hard", "expert", "heuristic"} <= set(bots)
    assert bots["random"] is RandomBot
    # "heuristic" (saved games, scripts) plays exactly as "normal".
    assert issubclass(bots["normal"], bots["heuristic"])
    assert issubclass(bots["hard"], SearchBot) and issubclass(bots["expert"], SearchBot)
    hard, expert = bots["hard"](0), bots["expert"](0)
    assert isinstance(hard, SearchBot) and isinstance(expert, SearchBot)
    assert hard.budget.seconds is not None and expert.budget.seconds is not None
    assert hard.budget.seconds < expert.budget.seconds
    assert hard.budget.iterations < expert.budget.iterations


@pytest.mark.parametrize("game_id", game_ids())
def test_without_the_clock_a_level_keeps_its_playout_cap(game_id: str) -> None:
    game = get_game(game_id)
    for level in ("hard", "expert"):
        bot = game.make_bot(level, 0)
        assert isinstance(bot, SearchBot)
        cap = bot.budget.iterations
        assert without_clock(bot) is bot
        assert bot.budget == Budget(seconds=None, iterations=cap)
    normal = game.make_bot("normal", 0)
    assert without_clock(normal) is normal


@pytest.mark.parametrize("game_id", game_ids())
def test_the_iteration_cap_bounds_and_reproduces_a_decision(game_id: str) -> None:
    game = get_game(game_id)
    cap = Budget(seconds=None, iterations=40)
    checked = 0
    for state in random_positions(game_id, CONFIGS[game_id], 40, 9):
        view = state.view(state.to_act[0])
        if len(view.legal) < 2:
            continue
        choices = []
        for _ in range(2):
            bot = game.make_bot("hard", 3)
            assert isinstance(bot, SearchBot)
            bot.budget = cap
            choices.append(bot.choose(view))
            # One determinization is always complete, even past the cap.
            assert bot.iterations_done <= max(cap.iterations, len(view.legal), 16)
        assert choices[0] == choices[1] and choices[0] in view.legal
        checked += 1
        if checked == 6:
            break
    assert checked == 6


@pytest.mark.parametrize("game_id", game_ids())
def test_a_stopped_search_ends_after_one_determinization(game_id: str) -> None:
    game = get_game(game_id)
    stop = threading.Event()
    stop.set()
    for state in random_positions(game_id, CONFIGS[game_id], 40, 10):
        view = state.view(state.to_act[0])
        if len(view.legal) < 3:
            continue
        bot = game.make_bot("expert", 1)
        assert isinstance(bot, SearchBot)
        assert bot.choose_until(view, stop) in view.legal
        assert bot.iterations_done <= len(view.legal)
        return
    pytest.fail("no position with three legal actions")


@pytest.mark.parametrize("game_id", game_ids())
def test_easy_makes_mistakes_and_normal_does_not(game_id: str) -> None:
    game = get_game(game_id)
    differ = same = 0
    for seed, state in enumerate(random_positions(game_id, CONFIGS[game_id], 200, 11)):
        view = state.view(state.to_act[0])
        if len(view.legal) < 3:
            continue
        easy, normal = game.make_bot("easy", seed), game.make_bot("normal", seed)
        heuristic = game.make_bot("heuristic", seed)
        assert normal.choose(view) == heuristic.choose(view)
        if easy.choose(view) == game.make_bot("normal", seed).choose(view):
            same += 1
        else:
            differ += 1
    assert differ > 0 and same > differ
