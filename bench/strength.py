"""The search bots' strength (issue 12): every pairing through `passe simulate`.

``python -m bench.strength run`` plays the pairings in *chunks* of a few games
(one `passe simulate --no-clock --timings` process each) and appends each
chunk's result as one JSON line to ``bench/strength_results.jsonl``, which is
committed. So a run can stop at any moment and go on later, on this machine
or another, and results add up over sessions until every pairing has its
games.

Why this is sound:
- Search bots think to their playout cap with no wall-time budget
  (``--no-clock``), and every chunk has its own seed: a chunk reproduces
  exactly on any machine, however busy (two workers on two cores do not
  weaken each other's bots), and a doubtful result can be replayed.
- Each line carries the *behaviour key* of its game: a hash of decisions the
  bots make on fixed positions (normal bots' games, ``hard`` decisions with
  a fixed seed) and of the levels' playout caps. A change to a sampler, the
  search, a heuristic or a cap changes the key, and the report then ignores
  the lines of older behaviour instead of mixing two different bots.
  Speed-ups that keep every decision keep the key.
- Duplicate deals, as in duplicate bridge: the focus bot sits in each seat
  in turn (chunk ``k`` in seat ``k mod players``) and the ``players``
  chunks of a group play the *same* seeds, so every deal is played once
  with the focus bot in each seat. The luck of the deal then cancels out of
  the comparison; the report gives the Wilson interval over games (which
  ignores this and is wider) and the interval over deal groups.
- Wins count as in `passe simulate`'s ``win_shares``: a victory shared by k
  rivals counts 1/k, so the fair share is exactly 1 / players.

``python -m bench.strength report`` prints the table of docs/bots.md: games,
win share with its 95 % Wilson interval beside the fair share, and each
level's decision times (median, p99, max) and playouts per decision.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import table
from core.engine import Action, View
from core.registry import get_game
from core.search import Budget, SearchBot

RESULTS = Path(__file__).with_name("strength_results.jsonl")
CHUNK_GAMES = 5  # games per `passe simulate` process
Z95 = 1.959964


@dataclass(frozen=True)
class Pairing:
    """One ``focus`` bot among ``players - 1`` bots of the ``other`` level."""

    game: str
    players: int
    focus: str
    other: str

    @property
    def name(self) -> str:
        return f"{self.game}/{self.players}/{self.focus}-v-{self.other}"

    def bots(self, chunk: int) -> list[str]:
        seated = [self.other] * self.players
        seated[self.focus_seat(chunk)] = self.focus
        return seated

    def focus_seat(self, chunk: int) -> int:
        return chunk % self.players

    def seed(self, chunk: int) -> int:
        """The seed of chunk ``chunk``: shared by the ``players`` chunks of
        its group (duplicate deals, the focus bot in another seat each)."""
        group = chunk // self.players
        digest = hashlib.sha256(f"{self.name}#deals{group}".encode()).digest()
        return int.from_bytes(digest[:4], "big")


# The pairings, in the order a run gives them games: hard against
# normal first (the level people meet most), then expert against hard, then
# easy against normal.
PAIRINGS: tuple[Pairing, ...] = (
    Pairing("passpass", 4, "hard", "normal"),
    Pairing("dominoes", 2, "hard", "normal"),
    Pairing("fashion", 4, "hard", "normal"),
    Pairing("passpass", 4, "expert", "hard"),
    Pairing("dominoes", 2, "expert", "hard"),
    Pairing("fashion", 4, "expert", "hard"),
    Pairing("passpass", 4, "easy", "normal"),
    Pairing("dominoes", 2, "easy", "normal"),
    Pairing("fashion", 4, "easy", "normal"),
)

KEY_POSITIONS = 12  # positions behind a behaviour key (a few seconds per game)
KEY_PLAYOUTS = 100


def key_facts(game_id: str) -> tuple[list[str], list[tuple[View, int]]]:
    """What the ``easy``, ``normal`` and ``hard`` bots decide on fixed
    positions (and ``hard``'s budget), and those positions with a seed."""
    game = get_game(game_id)
    players = next(p.players for p in PAIRINGS if p.game == game_id)
    config = game.make_config(players=players)
    hard = game.make_bot("hard", 0)
    assert isinstance(hard, SearchBot)
    facts = [f"hard {hard.budget}"]
    positions: list[tuple[View, int]] = []
    seed = 0
    while len(positions) < KEY_POSITIONS:
        seed += 1
        state = game.new_game(config, seed)
        seated = [game.make_bot("normal", seed * 10 + s) for s in range(players)]
        easy = game.make_bot("easy", seed)
        decisions = 0
        while not state.is_over:
            actor = state.to_act[0]
            view = state.view(actor)
            action = seated[actor].choose(view)
            facts.append(str(action))
            if actor == 0 and len(view.legal) > 1:
                decisions += 1
                facts.append(str(easy.choose(view)))
                if decisions % 3 == 0 and len(positions) < KEY_POSITIONS:
                    positions.append((view, seed * 1000 + decisions))
                    facts.append(f"hard {_decide(game_id, 'hard', view, positions[-1][1])}")
            state.apply(actor, action)
    return facts, positions


def _decide(game_id: str, level: str, view: View, seed: int) -> Action:
    bot = get_game(game_id).make_bot(level, seed)
    assert isinstance(bot, SearchBot)
    bot.budget = Budget(seconds=None, iterations=KEY_PLAYOUTS)
    return bot.choose(view)


def _digest(facts: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(facts).encode()).hexdigest()[:16]


def pairing_keys(pairings: Sequence[Pairing]) -> dict[str, str]:
    """The behaviour key of each pairing: a hash of what its bots decide on
    fixed positions and of their budgets. Equal keys, equal bots (see the
    module's docstring). A pairing without ``expert`` has its game's key
    for ``easy``, ``normal`` and ``hard``; one with it adds ``expert``'s
    budget and decisions, so changing ``expert`` alone leaves the other
    pairings' results standing."""
    keys: dict[str, str] = {}
    for game_id in sorted({p.game for p in pairings}):
        facts, positions = key_facts(game_id)
        base = _digest(facts)
        mine = [p for p in pairings if p.game == game_id]
        with_expert = [p for p in mine if "expert" in (p.focus, p.other)]
        if with_expert:
            expert = get_game(game_id).make_bot("expert", 0)
            assert isinstance(expert, SearchBot)
            decisions = [f"expert {_decide(game_id, 'expert', v, s)}" for v, s in positions]
            expert_key = _digest([base, f"expert {expert.budget}", *decisions])
        for p in mine:
            keys[p.name] = expert_key if p in with_expert else base
    return keys


# -- running ------------------------------------------------------------------


def simulate_chunk(pairing: Pairing, chunk: int) -> dict[str, Any]:
    """One chunk: a `passe simulate` process, its JSON summary."""
    command = [
        sys.executable,
        "-m",
        "tui.cli",
        "simulate",
        pairing.game,
        "--players",
        str(pairing.players),
        "--games",
        str(CHUNK_GAMES),
        "--seed",
        str(pairing.seed(chunk)),
        "--bots",
        ",".join(pairing.bots(chunk)),
        "--no-clock",
        "--timings",
    ]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def read_results(path: Path = RESULTS) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    lines = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError:
            print(f"{path}:{number}: not JSON, ignored", file=sys.stderr)
    return lines


def current(line: dict[str, Any], keys: dict[str, str]) -> bool:
    """Whether a result line was played by today's bots on today's seeds."""
    pairing = next((p for p in PAIRINGS if p.name == line.get("pairing")), None)
    return (
        pairing is not None
        and line.get("key") == keys.get(pairing.name)
        and line.get("seed") == pairing.seed(line.get("chunk", -1))
    )


def chunks_done(results: Sequence[dict[str, Any]], keys: dict[str, str]) -> set[tuple[str, int]]:
    return {(line["pairing"], line["chunk"]) for line in results if current(line, keys)}


def work_order(
    pairings: Sequence[Pairing], games: int, done: set[tuple[str, int]]
) -> Iterator[tuple[Pairing, int]]:
    """Chunks still to play, round-robin over the pairings so that all grow
    together and a run stopped early has a bit of everything."""
    chunks = math.ceil(games / CHUNK_GAMES)
    for chunk in range(chunks):
        for pairing in pairings:
            if (pairing.name, chunk) not in done:
                yield pairing, chunk


def run(pairings: Sequence[Pairing], games: int, jobs: int, path: Path = RESULTS) -> None:
    keys = pairing_keys(pairings)
    for name, key in keys.items():
        print(f"{name}: behaviour key {key}", file=sys.stderr, flush=True)
    todo = work_order(pairings, games, chunks_done(read_results(path), keys))
    lock = threading.Lock()

    def play(pairing: Pairing, chunk: int) -> None:
        start = time.perf_counter()
        data = simulate_chunk(pairing, chunk)
        seat = pairing.focus_seat(chunk)
        line = {
            "pairing": pairing.name,
            "game": pairing.game,
            "chunk": chunk,
            "key": keys[pairing.name],
            "seed": pairing.seed(chunk),
            "bots": data["bots"],
            "focus_seat": seat,
            "games": data["games"],
            "focus_wins": data["wins"][seat],
            "focus_share": data["win_shares"][seat],
            "decision_ms": data["decision_ms"],
            "playouts": data["playouts"],
            "seconds": round(time.perf_counter() - start, 1),
        }
        # One write() on an O_APPEND file: runs in parallel processes (say
        # one per pairing) never interleave their lines.
        data_line = (json.dumps(line) + "\n").encode()
        with lock:
            descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                written = os.write(descriptor, data_line)
            finally:
                os.close(descriptor)
        if written != len(data_line):
            raise OSError(f"{path}: short write ({written} of {len(data_line)} bytes)")
        print(
            f"{pairing.name} chunk {chunk}: focus {data['win_shares'][seat]:g}/{data['games']}"
            f" ({line['seconds']} s)",
            file=sys.stderr,
            flush=True,
        )

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        running: set[Future[None]] = set()
        for pairing, chunk in todo:
            running.add(pool.submit(play, pairing, chunk))
            if len(running) >= jobs:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    future.result()
        for future in running:
            future.result()


# -- reporting ----------------------------------------------------------------


def wilson(wins: float, games: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate."""
    if games == 0:
        return (0.0, 1.0)
    rate = wins / games
    denominator = 1 + Z95**2 / games
    centre = (rate + Z95**2 / (2 * games)) / denominator
    half = Z95 * math.sqrt(rate * (1 - rate) / games + Z95**2 / (4 * games**2)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def deal_interval(pairing: Pairing, lines: Sequence[dict[str, Any]]) -> str:
    """The 95 % interval of the win share over complete deal groups (each
    deal played with the focus bot in every seat): a normal interval over
    the groups' shares, narrower than Wilson's when deals are lucky or not."""
    groups: dict[int, list[dict[str, Any]]] = {}
    for line in lines:
        groups.setdefault(line["chunk"] // pairing.players, []).append(line)
    shares = [
        sum(line["focus_share"] for line in group) / sum(line["games"] for line in group)
        for group in groups.values()
        if len(group) == pairing.players
    ]
    if len(shares) < 2:
        return ""
    mean = statistics.fmean(shares)
    half = Z95 * statistics.stdev(shares) / math.sqrt(len(shares))
    return f"{mean - half:.1%} - {mean + half:.1%} ({len(shares)} x {CHUNK_GAMES} deals)"


def verdict(low: float, high: float, fair: float) -> str:
    if low > fair:
        return "stronger"
    if high < fair:
        return "weaker"
    return "not yet clear"


def report(path: Path = RESULTS) -> str:
    results = read_results(path)
    keys = pairing_keys(PAIRINGS)
    rows = []
    time_rows = []
    for pairing in PAIRINGS:
        mine = [line for line in results if line["pairing"] == pairing.name]
        # One line per chunk: two runs that played the same chunk (same
        # seed, same bots: the same games) count it once.
        once = {line["chunk"]: line for line in reversed(mine) if current(line, keys)}
        lines = sorted(once.values(), key=lambda line: int(line["chunk"]))
        stale = len(mine) - len(lines)
        games = sum(line["games"] for line in lines)
        if not games:
            continue
        share = sum(line["focus_share"] for line in lines)
        low, high = wilson(share, games)
        by_deal = deal_interval(pairing, lines)
        fair = 1 / pairing.players
        per_seat = [0] * pairing.players
        for line in lines:
            per_seat[line["focus_seat"]] += line["games"]
        rows.append(
            [
                pairing.game,
                str(pairing.players),
                f"1 {pairing.focus} v {pairing.players - 1} {pairing.other}",
                str(games),
                f"{share / games:.1%}",
                f"{low:.1%} - {high:.1%}",
                by_deal,
                f"{fair:.0%}",
                verdict(low, high, fair),
                "/".join(map(str, per_seat)) + (f" ({stale} stale)" if stale else ""),
            ]
        )
        for level in dict.fromkeys((pairing.focus, pairing.other)):
            times = [
                ms
                for line in lines
                for seat, bot in enumerate(line["bots"])
                if bot == level
                for ms in line["decision_ms"][seat]
            ]
            playouts = sum(
                line["playouts"][seat]
                for line in lines
                for seat, bot in enumerate(line["bots"])
                if bot == level
            )
            if not times:
                continue
            time_rows.append(
                [
                    pairing.name,
                    level,
                    str(len(times)),
                    f"{statistics.median(times):.1f}",
                    f"{percentile(times, 0.99):.1f}",
                    f"{max(times):.1f}",
                    f"{playouts / len(times):.0f}" if playouts else "",
                ]
            )
    return "\n".join(
        [
            table(
                "Strength: the first-named bot's win share (a shared victory counts 1/k), "
                "seats rotated, search bots at their playout caps (--no-clock)",
                [
                    "game",
                    "players",
                    "pairing",
                    "games",
                    "win share",
                    "95 % interval",
                    "95 % by deal",
                    "fair share",
                    "verdict",
                    "games per seat",
                ],
                rows,
            ),
            table(
                "Decision times in those games (decisions with a real choice, "
                "capped playouts; measured while other work shared the machine, and "
                "with runs paused at times, so the tails are inflated: the quiet "
                "figures are `make bench` search's)",
                ["pairing", "level", "decisions", "median ms", "p99 ms", "max ms", "playouts"],
                time_rows,
            ),
        ]
    )


def select(only: str | None) -> tuple[Pairing, ...]:
    """Pairings whose game or levels are all named in ``only`` (e.g.
    ``dominoes,hard``); all of them when ``only`` is None."""
    if only is None:
        return PAIRINGS
    wanted = set(only.split(","))
    return tuple(
        p
        for p in PAIRINGS
        if wanted <= {p.game, p.focus, p.other, f"{p.focus}-v-{p.other}", p.name}
        or p.name in wanted
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.strength", description=__doc__)
    parser.add_argument("what", choices=("run", "report"), help="play chunks, or print the table")
    parser.add_argument("--games", type=int, default=500, help="games per pairing (run)")
    parser.add_argument("--jobs", type=int, default=2, help="simulations at once (run)")
    parser.add_argument(
        "--only", help="pairings by game, level or name: dominoes,hard or passpass/4/hard-v-normal"
    )
    args = parser.parse_args(argv)
    if args.what == "run":
        pairings = select(args.only)
        if not pairings:
            parser.error(f"no pairing matches {args.only!r}")
        run(pairings, args.games, args.jobs)
    print(report())


if __name__ == "__main__":
    main()
