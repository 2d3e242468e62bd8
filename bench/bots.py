"""Heuristic bot decision time, on views from real games.

Every seat is a heuristic bot; games are played to the end. Each decision is
timed around ``bot.choose(view)`` only; building the view (the authority's
work, done once per decision whoever decides) is timed apart.

Run alone: ``python -m bench bots [--quick]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.common import fmt_ms, machine, percentile, table, verdict
from bench.engines import supported_configs
from core.registry import get_game

TARGET_MEDIAN = 0.002  # seconds
TARGET_P99 = 0.020


@dataclass
class Timings:
    game_id: str
    players: str
    decisions: list[float] = field(default_factory=list)  # seconds per choose()
    views: list[float] = field(default_factory=list)  # seconds per view()
    games: int = 0


def measure(game_id: str, players: int, teams: bool, seconds: float, seed: int) -> Timings:
    """Play heuristic-only games for about ``seconds`` (at least one game)."""
    game = get_game(game_id)
    config = game.make_config(players=players, teams=teams)
    seeds = random.Random(seed)
    timings = Timings(game_id, f"{players}{' teams' if teams else ''}")
    clock = time.perf_counter
    deadline = clock() + seconds
    while timings.games == 0 or clock() < deadline:
        game_seed = seeds.getrandbits(32)
        state = game.new_game(config, game_seed)
        bots = [game.make_bot("heuristic", game_seed * 31 + seat) for seat in range(players)]
        while not state.is_over:
            seat = state.to_act[0]
            t0 = clock()
            view = state.view(seat)
            t1 = clock()
            action = bots[seat].choose(view)
            t2 = clock()
            state.apply(seat, action)
            timings.views.append(t1 - t0)
            timings.decisions.append(t2 - t1)
        timings.games += 1
    return timings


def run(*, quick: bool = False, seed: int = 7) -> str:
    seconds = 0.3 if quick else 1.0
    results = [
        measure(game_id, players, teams, seconds, seed)
        for game_id, players, teams in supported_configs()
    ]
    rows = []
    worst_median = worst_p99 = 0.0
    for t in results:
        median = statistics.median(t.decisions)
        p99 = percentile(t.decisions, 0.99)
        worst_median = max(worst_median, median)
        worst_p99 = max(worst_p99, p99)
        rows.append(
            [
                t.game_id,
                t.players,
                str(t.games),
                str(len(t.decisions)),
                fmt_ms(median),
                fmt_ms(p99),
                fmt_ms(max(t.decisions)),
                fmt_ms(statistics.median(t.views)),
            ]
        )
    headers = ["game", "players", "games", "decisions", "median ms", "p99 ms", "max ms", "view ms"]
    out = [
        f"about {seconds:g} s of heuristic-only games per configuration; machine: {machine()}\n",
        table("Heuristic bot: time per decision (choose() only)", headers, rows),
        table(
            "Bot targets (worst configuration)",
            ["figure", "value", "target", ""],
            [
                [
                    "median decision",
                    f"{fmt_ms(worst_median)} ms",
                    "< 2 ms",
                    verdict(worst_median, TARGET_MEDIAN, at_least=False),
                ],
                [
                    "p99 decision",
                    f"{fmt_ms(worst_p99)} ms",
                    "< 20 ms",
                    verdict(worst_p99, TARGET_P99, at_least=False),
                ],
            ],
        ),
    ]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench bots", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="shorter runs")
    args: Any = parser.parse_args(argv)
    print(run(quick=args.quick))


if __name__ == "__main__":
    main()
