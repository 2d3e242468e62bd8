"""Random playouts per second on one core: our three engines and the peers.

Every workload plays whole games with the same loop: ask for the legal
actions of the seat to act, pick one uniformly with ``random.Random``, apply
it. OpenSpiel's chance nodes (the deal, hearts' pass direction) are sampled
from ``chance_outcomes()`` with their probabilities and applied in the same
loop; they are counted apart ("chance/s"), and the "actions/s" of a peer
counts player actions only, as ours do (our engines deal inside
``new_game`` and between rounds: no chance actions). The `dominoes`
package skips passes itself (``make_move`` moves the turn on to the next
player who can play), so its actions are its placements.

Run alone: ``python -m bench engines [--quick]``.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bench.common import (
    Workload,
    fmt_pct,
    fmt_rate,
    interleave,
    machine,
    paired_ratio,
    table,
    verdict,
)
from core.engine import ConfigError
from core.registry import game_ids, get_game

TARGET_HEARTS = 0.25  # Pass Pass actions/s over OpenSpiel hearts actions/s
TARGET_BLOCK = 2.0  # our dominoes rounds/s (2 players) over python_block_dominoes games/s
TARGET_PACKAGE = 1.0  # ... over the `dominoes` package's games/s


def supported_configs() -> list[tuple[str, int, bool]]:
    """Every (game, players, teams) the game's own config accepts."""
    out: list[tuple[str, int, bool]] = []
    for game_id in game_ids():
        game = get_game(game_id)
        for teams in (False, True):
            for players in range(game.info.min_players, game.info.max_players + 1):
                try:
                    game.make_config(players=players, teams=teams)
                except ConfigError:
                    continue
                out.append((game_id, players, teams))
    return out


def ours(game_id: str, players: int, teams: bool, seed: int) -> Callable[[], Mapping[str, int]]:
    """One random game of ours per call."""
    game = get_game(game_id)
    config = game.make_config(players=players, teams=teams)
    rng = random.Random(seed)
    seeds = random.Random(seed + 1)

    def work() -> Mapping[str, int]:
        state = game.new_game(config, seeds.getrandbits(32))
        actions = 0
        while not state.is_over:
            seat = state.to_act[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            actions += 1
        rounds = getattr(state, "rounds_played", 1)
        return {"games": 1, "actions": actions, "rounds": rounds}

    return work


def openspiel(name: str, seed: int) -> Callable[[], Mapping[str, int]]:
    """One random game of an OpenSpiel game per call (C++ or Python)."""
    import pyspiel
    from open_spiel.python import games  # noqa: F401  (registers python_* games)

    game = pyspiel.load_game(name)
    rng = random.Random(seed)

    def work() -> Mapping[str, int]:
        state = game.new_initial_state()
        actions = chance = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                moves = [a for a, _ in outcomes]
                weights = [p for _, p in outcomes]
                state.apply_action(rng.choices(moves, weights)[0])
                chance += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                actions += 1
        return {"games": 1, "actions": actions, "chance": chance, "rounds": 1}

    return work


def dominoes_package(seed: int) -> Callable[[], Mapping[str, int]]:
    """One random game of the `dominoes` package (4 players, no boneyard)."""
    import dominoes

    rng = random.Random(seed)
    # Game.new() shuffles with the module-level random: seed it for repeatability.
    random.seed(seed)

    def work() -> Mapping[str, int]:
        game = dominoes.Game.new()
        actions = 0
        while game.result is None:
            game.make_move(*rng.choice(game.valid_moves))
            actions += 1
        return {"games": 1, "actions": actions, "rounds": 1}

    return work


def peer_workloads(seed: int) -> list[Workload]:
    """The peers that are installed (the `bench` extra)."""
    out: list[Workload] = []
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("open-spiel is not installed (pip install -e '.[bench]'): OpenSpiel skipped")
    else:
        out += [
            Workload("openspiel hearts (C++)", openspiel("hearts", seed), "peer", "4"),
            Workload(
                "openspiel python_block_dominoes",
                openspiel("python_block_dominoes", seed),
                "peer",
                "2",
            ),
            Workload(
                "openspiel python_team_dominoes",
                openspiel("python_team_dominoes", seed),
                "peer",
                "4 teams",
            ),
        ]
    try:
        import dominoes  # noqa: F401
    except ImportError:
        print("the dominoes package is not installed (pip install -e '.[bench]'): skipped")
    else:
        out.append(Workload("dominoes package", dominoes_package(seed), "peer", "4 teams"))
    return out


def our_workloads(seed: int) -> list[Workload]:
    return [
        Workload(
            f"{game_id}",
            ours(game_id, players, teams, seed),
            "ours",
            f"{players}{' teams' if teams else ''}",
        )
        for game_id, players, teams in supported_configs()
    ]


def find(workloads: Sequence[Workload], name: str, players: str) -> Workload | None:
    return next((w for w in workloads if w.name == name and w.players == players), None)


def report(workloads: Sequence[Workload]) -> str:
    rows = []
    for w in workloads:
        games = w.median("games")
        actions = w.median("actions")
        chance = w.median("chance") if w.group == "peer" and "openspiel" in w.name else None
        rows.append(
            [
                w.name,
                w.players,
                fmt_rate(games),
                fmt_rate(w.median("rounds")) if w.name == "dominoes" else "",
                fmt_rate(actions),
                fmt_pct(w.spread("actions")),
                "" if chance is None else fmt_rate(chance),
                fmt_rate(actions / games) if games else "-",
            ]
        )
    headers = [
        "engine",
        "players",
        "games/s",
        "rounds/s",
        "actions/s",
        "spread",
        "chance/s",
        "actions/game",
    ]
    out = [table("Random playouts, one core (median of interleaved slices)", headers, rows)]
    out.append(ratios(workloads))
    return "\n".join(out)


def ratios(workloads: Sequence[Workload]) -> str:
    rows: list[list[str]] = []

    def add(
        label: str, a: Workload | None, ak: str, b: Workload | None, bk: str, target: float
    ) -> None:
        if a is None or b is None:
            rows.append([label, "-", f">= {target:g}x", "peer not installed"])
            return
        value = paired_ratio(a, ak, b, bk)
        rows.append([label, f"{value:.2f}x", f">= {target:g}x", verdict(value, target)])

    pp4 = find(workloads, "passpass", "4")
    do2 = find(workloads, "dominoes", "2")
    do4t = find(workloads, "dominoes", "4 teams")
    hearts = find(workloads, "openspiel hearts (C++)", "4")
    block = find(workloads, "openspiel python_block_dominoes", "2")
    team = find(workloads, "openspiel python_team_dominoes", "4 teams")
    package = find(workloads, "dominoes package", "4 teams")
    add("Pass Pass 4p actions/s / hearts actions/s", pp4, "actions", hearts, "actions", 0.25)
    add("dominoes 2p rounds/s / python_block_dominoes games/s", do2, "rounds", block, "games", 2)
    add("dominoes 2p rounds/s / dominoes package games/s", do2, "rounds", package, "games", 1)
    # For information: the same-size comparisons (4 players in partnerships).
    if do4t and team:
        value = paired_ratio(do4t, "rounds", team, "games")
        rows.append(["dominoes 4p teams rounds/s / python_team_dominoes games/s", f"{value:.2f}x"])
        rows[-1] += ["(info)", ""]
    if do4t and package:
        value = paired_ratio(do4t, "rounds", package, "games")
        rows.append(["dominoes 4p teams rounds/s / dominoes package games/s", f"{value:.2f}x"])
        rows[-1] += ["(info)", ""]
    return table(
        "Engine ratios (median of per-round ratios)", ["ratio", "value", "target", ""], rows
    )


def run(*, quick: bool = False, seed: int = 2024, rounds: int | None = None) -> str:
    workloads = our_workloads(seed) + peer_workloads(seed)
    n = rounds if rounds is not None else (3 if quick else 7)
    seconds = 0.1 if quick else 0.25
    interleave(workloads, rounds=n, seconds=seconds)
    note = (
        f"{n} rounds x {seconds:g} s slices per workload; machine: {machine()}\n"
        "actions/s: player actions (OpenSpiel chance nodes counted apart in chance/s)\n"
    )
    return note + "\n" + report(workloads)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench engines", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter slices")
    args: Any = parser.parse_args(argv)
    print(run(quick=args.quick))


if __name__ == "__main__":
    main()
