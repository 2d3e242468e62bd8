"""A/B of two commits on a replicated move's path, in one run.

    python -m bench.commits_ab OLD NEW [--slices 8] [--moves 100]

For a change that both sides of the wire must make at once (a protocol
version), where ``bench.net_ab``'s flag in one process cannot say it: each
commit is checked out in a worktree of its own (``git worktree add``, under
a temporary directory, removed at the end), and slices alternate between
them, each in alternate order. A slice is one process run in its commit's
tree (this venv, that tree first on ``sys.path``): 100 bare round trips,
then ``--moves`` replicated moves in a hosted room of three voters (two
people in their own processes and a bot), on both brokers
(``bench.net.brokers``). The ratio is the median of the per-slice ratios of
the move's p50 to the bare p50, as in ``bench.net_ab``. Both commits must
have ``bench.net.move_round_trips_in_processes`` (since 4 December).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bench.common import fmt_ms, percentile, table

ROOT = Path(__file__).resolve().parent.parent


# One slice, run by ``python -c`` in a commit's tree (its directory first on
# sys.path, whether or not that commit has this file): JSON on stdout.
SLICE = """
import asyncio, json, sys
import net
from bench.net import bare_round_trips, brokers, move_round_trips_in_processes

async def main(moves):
    measured = {}
    async with brokers() as running:
        for broker, (host, port) in running.items():
            bare = await bare_round_trips(host, port, 100, qos=0)
            got = await move_round_trips_in_processes(host, port, moves, bots=1)
            measured[broker] = {"bare": bare, "moves": got}
    print(json.dumps({"net": net.__path__[0], "measured": measured}))

asyncio.run(main(int(sys.argv[1])))
"""


@contextlib.contextmanager
def _worktrees(commits: list[str]) -> Iterator[list[Path]]:
    with tempfile.TemporaryDirectory(prefix="passe-ab-") as parent:
        trees = [Path(parent) / f"tree{number}" for number in range(len(commits))]
        try:
            for tree, commit in zip(trees, commits, strict=True):
                subprocess.run(
                    [
                        "git",
                        "-C",
                        str(ROOT),
                        "worktree",
                        "add",
                        "-q",
                        "--detach",
                        str(tree),
                        commit,
                    ],
                    check=True,
                )
            yield trees
        finally:
            for tree in trees:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                    check=False,
                    capture_output=True,
                )


def _run_slice(tree: Path, moves: int) -> dict[str, dict[str, list[float]]]:
    done = subprocess.run(
        [sys.executable, "-c", SLICE, str(moves)],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"a slice in {tree} failed:\n{done.stderr[-2000:]}")
    output = json.loads(done.stdout.splitlines()[-1])
    if not Path(output["net"]).is_relative_to(tree):  # the tree's code, not this one's
        raise RuntimeError(f"a slice in {tree} imported net/ from {output['net']}")
    measured: dict[str, dict[str, list[float]]] = output["measured"]
    return measured


def measure(commits: list[str], slices: int, moves: int) -> str:
    # commit -> broker -> what
    moves_of: dict[str, dict[str, list[float]]] = {commit: {} for commit in commits}
    bares: dict[str, dict[str, list[float]]] = {commit: {} for commit in commits}
    ratios: dict[str, dict[str, list[float]]] = {commit: {} for commit in commits}
    with _worktrees(commits) as trees:
        where = dict(zip(commits, trees, strict=True))
        for number in range(slices):
            order = commits if number % 2 == 0 else commits[::-1]
            for commit in order:
                for broker, got in _run_slice(where[commit], moves).items():
                    moves_of[commit].setdefault(broker, []).extend(got["moves"])
                    bares[commit].setdefault(broker, []).extend(got["bare"])
                    ratio = percentile(got["moves"], 0.5) / percentile(got["bare"], 0.5)
                    ratios[commit].setdefault(broker, []).append(ratio)
            print(f"  slice {number + 1}/{slices}", file=sys.stderr, flush=True)
    rows = [
        [
            broker,
            commit,
            f"{len(moves_of[commit][broker]):,}",
            fmt_ms(percentile(moves_of[commit][broker], 0.5)),
            fmt_ms(percentile(moves_of[commit][broker], 0.99)),
            fmt_ms(percentile(bares[commit][broker], 0.5)),
            f"{statistics.median(ratios[commit][broker]):.2f}x",
        ]
        for broker in moves_of[commits[0]]
        for commit in commits
    ]
    heading = f"replicated move, 3 voters, two commits in alternate slices ({slices} each)"
    columns = ["broker", "commit", "moves", "p50 ms", "p99 ms", "bare p50 ms", "p50 / bare p50"]
    return table(heading, columns, rows)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.commits_ab", description=__doc__)
    parser.add_argument("commits", nargs="*", metavar="COMMIT", help="two commits (old, new)")
    parser.add_argument("--slices", type=int, default=8)
    parser.add_argument("--moves", type=int, default=100)
    args = parser.parse_args()
    if len(args.commits) != 2 or args.slices < 1 or args.moves < 1:
        parser.error("two commits, and at least one slice of one move")
    print(measure(args.commits, args.slices, args.moves))


if __name__ == "__main__":
    main()
