"""A game's failover (issue 20): from the host's process SIGKILLed mid-game
to the game's next action acknowledged by the successor, through real
``passe`` processes.

``bench/election.py`` times the election core alone (three voter processes
and a seat submitting requests). This times what a player waits for: a
headless Pass Pass host with ``--failover`` and two ``passe join --bot``
processes (heuristic bots, no delay between moves), each a voter of the
room, as ``tests/net/test_failover.py`` starts them; the host is SIGKILLed
after a seeded number of its peers' moves, and the clock runs until the
room has acknowledged an action submitted after the kill. With the embedded
broker (``--port 0``) the host's broker dies with it, so this includes the
peers going down the list of standby brokers (docs/election.md section 10);
on Mosquitto only the table moves.

What "acknowledged" is read from: a bot process prints ``acted`` after it
submits, and submits again only once its last action was answered
(net/peer/headless.py). So a peer's second ``acted`` after the kill means
the first one, submitted after the kill, was acknowledged, by the successor
since the host was dead. That second line comes after the two other seats'
moves too (bots without delay: a few milliseconds each on this machine), so
the figure slightly overstates the wait. ``moved`` (the peer learnt the new
term and authority) is timed too: the election and the rebuild alone.

One room per kill: a room of three voters has no majority after a second
loss. Timestamps are taken as each line arrives (a reader task per process).

Run alone: ``python -m bench failover [--quick]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import random
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from bench.common import fmt_ms, percentile, table

KILLS = 50
QUICK_KILLS = 6
DEADLINE = 60.0  # seconds any one step may take before the run is called stuck


class TimedLines:
    """Every JSON line a ``passe`` process prints, with its arrival time."""

    def __init__(self) -> None:
        self.lines: list[tuple[float, dict[str, Any]]] = []
        self.news = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def follow(self, process: asyncio.subprocess.Process, who: int) -> None:
        self._tasks.append(asyncio.create_task(self._read(process, who)))

    async def _read(self, process: asyncio.subprocess.Process, who: int) -> None:
        assert process.stdout is not None
        while raw := await process.stdout.readline():
            with contextlib.suppress(ValueError):
                self.lines.append((time.perf_counter(), {"who": who, **json.loads(raw)}))
                self.news.set()

    async def until(self, found: Any, what: str) -> Any:
        """The first non-None ``found(lines)``, waiting for more lines."""
        async with asyncio.timeout(DEADLINE):
            while (value := found(self.lines)) is None:
                self.news.clear()
                await self.news.wait()
        return value

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _event(
    lines: Sequence[tuple[float, dict[str, Any]]], event: str, who: int | None = None
) -> Any:
    for at, line in lines:
        if line.get("event") == event and (who is None or line["who"] == who):
            return at, line
    return None


def _moves_seen(lines: Sequence[tuple[float, dict[str, Any]]], count: int) -> bool | None:
    """True once the peers made ``count`` moves in all."""
    acted = sum(1 for _, line in lines if line.get("event") == "acted")
    return True if acted >= count else None


def _acknowledged_after(lines: Sequence[tuple[float, dict[str, Any]]], killed: float) -> Any:
    """The time of the first peer's second ``acted`` after ``killed``."""
    count: dict[int, int] = {}
    for at, line in lines:
        if at > killed and line.get("event") == "acted":
            count[line["who"]] = count.get(line["who"], 0) + 1
            if count[line["who"]] == 2:
                return at
    return None


@contextlib.asynccontextmanager
async def _room(
    home: Path, seed: int, broker: Sequence[str]
) -> AsyncIterator[tuple[Any, list[Any], TimedLines]]:
    """A started failover game: (host, peers, their timed lines)."""
    from tests.net.procs import PasseProcess, host_args

    host = PasseProcess("host", home)
    peers = [PasseProcess(f"peer{n}", home) for n in range(2)]
    lines = TimedLines()
    try:
        setup = host_args("passpass", 3, wait_for=2, bot_delay=0, seed=seed)
        await host.start(*setup, *broker, "--failover")
        room = await host.expect("room")
        for n, peer in enumerate(peers):
            await peer.start(
                "join",
                f"{room['code']}@{room['broker']}",
                *("--bot", "heuristic", "--name", f"Peer {n}", "--seed", str(seed * 10 + n)),
            )
            assert peer.process is not None
            lines.follow(peer.process, n)
        await host.expect("started")
        yield host, peers, lines
    finally:
        await lines.close()
        for process in (host, *peers):
            await process.stop()


async def _kills(kills: int, broker: str, seed: int) -> tuple[list[float], list[float]]:
    """``kills`` rooms on ``broker`` ("embedded" or a Mosquitto's
    host:port), each host killed once: (kill to the next acknowledged
    action, kill to the first peer's ``moved``), in seconds."""
    where = ("--port", "0") if broker == "embedded" else ("--broker", broker)
    rng = random.Random(seed)
    acknowledged: list[float] = []
    moved: list[float] = []
    with tempfile.TemporaryDirectory(prefix="passe-bench-failover-") as directory:
        for number in range(kills):
            moves_before = rng.randint(2, 12)
            async with _room(Path(directory) / str(number), seed + number, where) as (
                host,
                _,
                lines,
            ):
                await lines.until(functools.partial(_moves_seen, count=moves_before), "moves")
                killed = time.perf_counter()
                host.kill()
                after = functools.partial(_acknowledged_after, killed=killed)
                acknowledged.append(await lines.until(after, "an ack") - killed)
                first_move, _ = await lines.until(functools.partial(_event, event="moved"), "moved")
                moved.append(first_move - killed)
    return acknowledged, moved


async def _measure(kills: int) -> list[list[str]]:
    from tests.net.brokers import start_mosquitto

    rows: list[list[str]] = []
    with start_mosquitto() as mosquitto:
        # The two brokers alternate, a few rooms at a time, so that the
        # machine's load falls on both alike.
        chunk = max(1, kills // 5)
        results: dict[str, tuple[list[float], list[float]]] = {
            "embedded (amqtt)": ([], []),
            "mosquitto": ([], []),
        }
        done = 0
        while done < kills:
            count = min(chunk, kills - done)
            for name, broker in (
                ("embedded (amqtt)", "embedded"),
                ("mosquitto", f"127.0.0.1:{mosquitto.port}"),
            ):
                acknowledged, moved = await _kills(count, broker, seed=1000 + done)
                results[name][0].extend(acknowledged)
                results[name][1].extend(moved)
            done += count
    for name, (acknowledged, moved) in results.items():
        for what, values, target in (
            ("kill -> next acknowledged action", acknowledged, "p99 < 5 s"),
            ("kill -> the table moved (first peer)", moved, ""),
        ):
            rows.append(
                [
                    name,
                    what,
                    f"{len(values)}",
                    fmt_ms(percentile(values, 0.5)),
                    fmt_ms(percentile(values, 0.99)),
                    fmt_ms(max(values)),
                    target,
                ]
            )
    return rows


def run(*, quick: bool) -> str:
    rows = asyncio.run(_measure(QUICK_KILLS if quick else KILLS))
    return table(
        "a game's failover: host SIGKILLed mid-game (Pass Pass, 3 voters, real processes)",
        ["broker", "what", "kills", "p50 ms", "p99 ms", "max ms", "target"],
        rows,
    )
