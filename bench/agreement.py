"""How often two search levels choose differently, and each from itself.

``python -m bench.agreement GAME [--positions N]``: positions from games of
``normal`` bots (every ~20th decision with a real choice, any seat); on each,
``hard`` and ``expert`` decide twice, with two seeds, at their playout caps
and no clock. It prints how often ``hard`` and ``expert`` differ (same
seed), and how often each level differs from itself (other seed): a level
that disagrees with itself often hesitates between moves its search cannot
tell apart. docs/bots.md ("Expert, first version") used it. About a minute
per game.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from core.engine import Action, View
from core.registry import get_game
from core.search import without_clock

PLAYERS = {"passpass": 4, "dominoes": 2, "fashion": 4}
OTHER_SEED = 10**6


def positions(game_id: str, count: int, seed: int) -> list[View]:
    game = get_game(game_id)
    players = PLAYERS[game_id]
    config = game.make_config(players=players)
    rng = random.Random(seed)
    views: list[View] = []
    while len(views) < count:
        deal = rng.getrandbits(32)
        state = game.new_game(config, deal)
        bots = [game.make_bot("normal", deal + s) for s in range(players)]
        while not state.is_over:
            seat = state.to_act[0]
            view = state.view(seat)
            if len(view.legal) > 1 and rng.random() < 0.05 and len(views) < count:
                views.append(view)
            state.apply(seat, bots[seat].choose(view))
    return views


def decide(game_id: str, level: str, view: View, seed: int) -> Action:
    return without_clock(get_game(game_id).make_bot(level, seed)).choose(view)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.agreement", description=__doc__)
    parser.add_argument("game", choices=sorted(PLAYERS))
    parser.add_argument("--positions", type=int, default=120)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    views = positions(args.game, args.positions, args.seed)
    differ = {"hard/expert": 0, "hard/hard": 0, "expert/expert": 0}
    for i, view in enumerate(views):
        hard = [decide(args.game, "hard", view, i + k * OTHER_SEED) for k in (0, 1)]
        expert = [decide(args.game, "expert", view, i + k * OTHER_SEED) for k in (0, 1)]
        differ["hard/expert"] += (hard[0] != expert[0]) + (hard[1] != expert[1])
        differ["hard/hard"] += hard[0] != hard[1]
        differ["expert/expert"] += expert[0] != expert[1]
    n = len(views)
    print(
        f"{args.game}: {n} positions; choices differ: "
        f"hard v expert {differ['hard/expert'] / (2 * n):.0%}, "
        f"hard v hard {differ['hard/hard'] / n:.0%}, "
        f"expert v expert {differ['expert/expert'] / n:.0%}"
    )


if __name__ == "__main__":
    main()
