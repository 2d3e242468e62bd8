"""Where a replicated move's time goes, process by process (issue 20).

    python -m bench.move_trace [--moves 300]

Runs bench/net.py's replicated moves with each seat in its own process (a
hosted Pass Pass room of three voters: the authority here, two seats and
their voters, a bot in the third seat) through a Mosquitto with
TCP_NODELAY, every process traced (bench/tracing/sitecustomize.py: each
step's entry and exit on the machine's one monotonic clock). Prints, for
the median move, when each step began and ended, in microseconds after
the seat's submission, and in which process: the mover, the authority, or
the other seat. The tracing itself costs a few microseconds a step: the
traced move is slower than an untraced one, so read the order and the
shares, not the total."""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


async def _moves(count: int) -> None:
    from bench.net import move_round_trips_in_processes
    from tests.net.brokers import start_mosquitto

    with start_mosquitto() as mosquitto:
        await move_round_trips_in_processes(mosquitto.host, mosquitto.port, count, bots=1)


def _load(directory: Path) -> tuple[dict[str, list[tuple[int, str]]], list[str]]:
    notes: dict[str, list[tuple[int, str]]] = {}
    seats: list[str] = []
    for path in directory.glob("ev-*.json"):
        data: dict[str, Any] = json.loads(path.read_text())
        notes[path.name] = [(int(at), str(step)) for at, step in data["notes"]]
        if any("net_peer" in argument for argument in data["argv"]):
            seats.append(path.name)
    return notes, seats


def timeline(directory: Path) -> str:
    """The median offset of each step's first few occurrences within a move,
    per process; steps seen in fewer than half the moves are left out."""
    notes, seats = _load(directory)
    offsets: dict[tuple[str, str, int], list[float]] = collections.defaultdict(list)
    totals: list[float] = []
    for mover in seats:
        ends = [at for at, step in notes[mover] if step == "shown"]
        for start in (at for at, step in notes[mover] if step == "RemoteTable.submit>"):
            end = next((at for at in ends if at > start), None)
            if end is None:
                continue
            totals.append((end - start) / 1000)
            for name, steps in notes.items():
                role = "mover" if name == mover else "seat" if name in seats else "authority"
                seen: collections.Counter[str] = collections.Counter()
                for at, step in steps:
                    if start <= at <= end:
                        seen[step] += 1
                        if seen[step] <= 3:
                            offsets[(role, step, seen[step])].append((at - start) / 1000)
    if not totals:
        return "no move traced"
    lines = [f"{len(totals)} moves traced; median {statistics.median(totals):.0f} µs"]
    rows = [
        (statistics.median(values), role, step, occurrence)
        for (role, step, occurrence), values in offsets.items()
        if len(values) >= len(totals) / 2
    ]
    for offset, role, step, occurrence in sorted(rows):
        which = f" #{occurrence}" if occurrence > 1 else ""
        lines.append(f"{offset:8.0f} µs  {role:9s} {step}{which}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench.move_trace")
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--traced-run", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.traced_run:
        asyncio.run(_moves(args.moves))
        return
    with tempfile.TemporaryDirectory(prefix="passe-trace-") as directory:
        env = {
            **os.environ,
            "PASSE_TRACE": "1",
            "PASSE_TRACE_DIR": directory,
            "PYTHONPATH": os.pathsep.join([str(ROOT / "bench" / "tracing"), str(ROOT)]),
        }
        command = [sys.executable, "-m", "bench.move_trace", "--moves", str(args.moves)]
        subprocess.run([*command, "--traced-run", directory], env=env, cwd=ROOT, check=True)
        print(timeline(Path(directory)))


if __name__ == "__main__":
    main()
