"""Network latency: a bare MQTT request/reply round trip through each broker.

Two aiomqtt clients in one process: A publishes a request, B (subscribed to
requests) publishes it back as a reply, A times from its publish to the
reply's arrival. Both clients set TCP_NODELAY (aiomqtt 2.5's public
``socket_options``, applied to paho's socket right after connecting). Each
figure is over at least 1,000 round trips, taken in interleaved chunks so
every broker sees the same machine noise:

- the embedded broker (``net.lan.broker``: amqtt in its own process);
- a Mosquitto this benchmark starts on a free port with ``set_tcp_nodelay
  true`` (``tests.net.brokers.start_mosquitto``; the machine's own Mosquitto
  does not set it).

This is the floor for a networked move (peer -> authority -> peer); the move
benchmark reuses :class:`RoundTripper` / :func:`bare_round_trips` and
:func:`brokers` to run beside it in the same process.

Run alone: ``python -m bench net [--quick]``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import shutil
import socket
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

from bench.common import fmt_ms, percentile, table

if TYPE_CHECKING:
    import aiomqtt

    from net.authority.authority import Authority

NODELAY = (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
WARMUP = 20
_run_ids = itertools.count()


class RoundTripper:
    """Two connected clients timing request/reply round trips (``async with``)."""

    def __init__(self, host: str, port: int, *, qos: int = 1, nodelay: bool = True) -> None:
        self.host, self.port, self.qos, self.nodelay = host, port, qos, nodelay
        run = f"{time.monotonic_ns()}-{next(_run_ids)}"
        self.request_topic = f"bench/{run}/request"
        self.reply_topic = f"bench/{run}/reply"
        self._stack = contextlib.AsyncExitStack()
        self._asker: aiomqtt.Client | None = None
        self._replies: AsyncIterator[aiomqtt.Message] | None = None

    async def __aenter__(self) -> Self:
        import aiomqtt  # here: the other benchmark families must not pay for it

        options = [NODELAY] if self.nodelay else []
        asker = aiomqtt.Client(self.host, self.port, socket_options=options)
        answerer = aiomqtt.Client(self.host, self.port, socket_options=options)
        async with contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(asker)
            await stack.enter_async_context(answerer)
            await asker.subscribe(self.reply_topic, qos=self.qos)
            await answerer.subscribe(self.request_topic, qos=self.qos)
            echo = asyncio.create_task(self._echo(answerer))
            stack.push_async_callback(_cancel, echo)
            self._stack = stack.pop_all()
        self._asker = asker
        self._replies = aiter(asker.messages)
        await self.measure(WARMUP)
        return self

    async def _echo(self, answerer: aiomqtt.Client) -> None:
        async for message in answerer.messages:
            payload = message.payload
            assert isinstance(payload, bytes)
            await answerer.publish(self.reply_topic, payload, qos=self.qos)

    async def measure(self, count: int) -> list[float]:
        """``count`` round trips, one after the other; seconds each."""
        assert self._asker is not None and self._replies is not None
        times: list[float] = []
        for index in range(count):
            request = index.to_bytes(4, "big")
            start = time.perf_counter()
            await self._asker.publish(self.request_topic, request, qos=self.qos)
            reply = await anext(self._replies)
            times.append(time.perf_counter() - start)
            if reply.payload != request:
                raise RuntimeError(f"reply {reply.payload!r} to request {request!r}")
        return times

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._stack.aclose()


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


async def bare_round_trips(
    host: str, port: int, count: int, *, qos: int = 1, nodelay: bool = True
) -> list[float]:
    """Seconds for each of ``count`` request/reply round trips through the
    broker at host:port (after a warm-up)."""
    async with RoundTripper(host, port, qos=qos, nodelay=nodelay) as tripper:
        return await tripper.measure(count)


@contextlib.asynccontextmanager
async def brokers() -> AsyncIterator[dict[str, tuple[str, int]]]:
    """The brokers to compare, running: name -> (host, port)."""
    from net.lan.broker import start_embedded_broker
    from tests.net.brokers import start_mosquitto

    embedded = await start_embedded_broker("127.0.0.1", 0)
    try:
        with start_mosquitto() as mosquitto:
            yield {
                "embedded (amqtt)": (embedded.host, embedded.port),
                "mosquitto (nodelay)": (mosquitto.host, mosquitto.port),
            }
    finally:
        await embedded.stop()


async def _measure(count: int, chunks: int) -> str:
    rows: list[list[str]] = []
    async with brokers() as running, contextlib.AsyncExitStack() as stack:
        trippers = {
            (name, qos): await stack.enter_async_context(RoundTripper(host, port, qos=qos))
            for name, (host, port) in running.items()
            for qos in (0, 1)
        }
        times: dict[tuple[str, int], list[float]] = {key: [] for key in trippers}
        for _ in range(chunks):
            for key, tripper in trippers.items():
                times[key] += await tripper.measure(count // chunks)
        for (name, qos), values in times.items():
            rows.append(_row(name, qos, "on", values))
        # Why TCP_NODELAY: the same through the embedded broker, clients without it.
        host, port = running["embedded (amqtt)"]
        for qos in (0, 1):
            few = max(count // 10, 50)  # ~100 ms each without nodelay
            values = await bare_round_trips(host, port, few, qos=qos, nodelay=False)
            rows.append(_row("embedded (amqtt)", qos, "off", values))
    headers = ["broker", "QoS", "client nodelay", "round trips", "p50 ms", "p99 ms", "mean ms"]
    return table("bare aiomqtt request/reply round trip (loopback)", headers, rows)


async def _bench_room(
    game_id: str,
    players: int,
    host: str,
    port: int,
    room_number: int,
    rooms_dir: Path,
    *,
    failover: bool,
) -> Authority:
    """Room ``room_number`` of a bench, started: kept on disk as `passe host`
    keeps it (net/authority/rooms.py), since the save before each update is part of a
    move's cost."""
    from core.registry import get_game
    from net.authority.authority import Authority
    from net.authority.rooms import BrokerChoice, RoomStore
    from net.identity import Identity
    from net.protocol.codes import new_code

    authority = Authority(
        Identity.generate(),
        new_code(),
        game_id,
        get_game(game_id).make_config(players=players),
        "bench",
        host,
        port,
        seed=room_number,
        bot_delay=0,
        store=RoomStore(
            rooms_dir / f"{room_number}.room",
            BrokerChoice(embedded=False, host=host, port=port),
        ),
    )
    authority.failover = failover
    authority.voter_dir = rooms_dir
    await authority.start()
    return authority


async def move_round_trips(
    host: str,
    port: int,
    count: int,
    *,
    game_id: str = "passpass",
    players: int = 3,
    failover: bool = False,
) -> list[float]:
    """Seconds from a peer submitting an action to that peer holding its own
    update (the authority validated it, re-encoded every seat's view, sealed
    and sent one update per seat; the peer opened and decoded its own), for
    ``count`` moves of bench-driven peers, one room after another.
    ``failover``: the room replicates every save to its voters (the
    authority and the three peers, all in this process, each voter's file
    synced on each change) before anything follows from it (issue 20)."""
    from core.registry import get_game
    from net.identity import Identity
    from net.peer.remote import RemoteTable

    game = get_game(game_id)
    times: list[float] = []
    room_number = 0
    rooms_dir = tempfile.mkdtemp(prefix="passe-bench-rooms-")
    while len(times) < count:
        room_number += 1
        authority = await _bench_room(
            game_id, players, host, port, room_number, Path(rooms_dir), failover=failover
        )
        peers = [
            RemoteTable(Identity.generate(), authority.code, host, port, f"P{n}")
            for n in range(players)
        ]
        changed = asyncio.Event()
        try:
            for peer in peers:
                await peer.join()
                await peer.connect(functools.partial(_wake, changed))
            authority.start_game()
            by_seat = {peer.seat: peer for peer in peers}
            bot = game.make_bot("random", room_number)
            seq = 0
            while len(times) < count:
                # Not timed: wait until the seat to act holds the latest view.
                while True:
                    views = [p.view for p in peers]
                    if all(v is not None for v in views) and all(p.seq >= seq for p in peers):
                        break
                    changed.clear()
                    await changed.wait()
                view = peers[0].view
                assert view is not None
                if view.is_over:
                    break
                mover = by_seat[view.to_act[0]]
                assert mover.view is not None
                action = bot.choose(mover.view)
                start = time.perf_counter()
                await mover.submit(action)
                while mover.action_pending or mover.seq <= seq:
                    changed.clear()
                    await changed.wait()
                times.append(time.perf_counter() - start)
                seq = mover.seq
        finally:
            for peer in peers:
                await peer.close()
            await authority.close()
    shutil.rmtree(rooms_dir, ignore_errors=True)
    return times


async def move_round_trips_in_processes(
    host: str,
    port: int,
    count: int,
    *,
    game_id: str = "passpass",
    players: int = 3,
    failover: bool = True,
    bots: int = 0,
) -> list[float]:
    """As :func:`move_round_trips`, but each seat in a process of its own
    (bench/net_peer.py, its voter with it), as on players' machines: the
    authority here, every voter's work (open, persist, reply) on its own
    loop. In one process, the voters' work on a replicated move was done
    one voter after the other on the authority's loop, which no real table
    does. The peers time their own moves (submission to their update).
    ``bots``: the last seats are the authority's bots (no voters): with one
    of three, the room has three voters, as a hosted room of three people
    has (the host's person does not vote; the authority does)."""
    import os
    import sys

    times: list[float] = []
    room_number = 0
    rooms_dir = tempfile.mkdtemp(prefix="passe-bench-rooms-")
    while len(times) < count:
        room_number += 1
        authority = await _bench_room(
            game_id, players, host, port, room_number, Path(rooms_dir), failover=failover
        )
        for seat in range(players - bots, players):
            authority.set_bot(seat, "random")
        peers: list[asyncio.subprocess.Process] = []
        try:
            for number in range(players - bots):
                home = Path(rooms_dir) / f"{room_number}-peer{number}"
                env = {
                    **os.environ,
                    "PASSE_DATA_DIR": str(home / "data"),
                    "PASSE_CONFIG_DIR": str(home / "config"),
                }
                command = [
                    *(sys.executable, "-m", "bench.net_peer", "--host", host),
                    *("--port", str(port), "--code", authority.code),
                    *("--seed", str(room_number * 10 + number)),
                ]
                peers.append(
                    await asyncio.create_subprocess_exec(
                        *command,
                        stdin=asyncio.subprocess.PIPE,
                        stdout=asyncio.subprocess.PIPE,
                        env=env,
                    )
                )
            for peer in peers:
                assert peer.stdout is not None
                line = await asyncio.wait_for(peer.stdout.readline(), 30)
                if line.strip() != b"joined":
                    raise RuntimeError(f"a peer process did not join: {line!r}")
            authority.start_game()
            lines: asyncio.Queue[bytes] = asyncio.Queue()

            readers = [asyncio.create_task(_read_lines(peer, lines)) for peer in peers]
            ended = 0
            while len(times) < count and ended < players - bots:
                line = await asyncio.wait_for(lines.get(), 60)
                if not line:
                    ended += 1
                elif line.startswith(b"move "):
                    times.append(float(line.split()[1]))
            for reader in readers:
                reader.cancel()
        finally:
            for peer in peers:
                if peer.stdin is not None:
                    peer.stdin.close()
            for peer in peers:
                try:
                    await asyncio.wait_for(peer.wait(), 10)
                except TimeoutError:
                    peer.kill()
                    await peer.wait()
            await authority.close()
    shutil.rmtree(rooms_dir, ignore_errors=True)
    return times[:count]


async def _read_lines(peer: asyncio.subprocess.Process, into: asyncio.Queue[bytes]) -> None:
    assert peer.stdout is not None
    while line := await peer.stdout.readline():
        await into.put(line)
    await into.put(b"")  # this peer's game is over


def _wake(event: asyncio.Event, update: object) -> None:
    event.set()


async def _measure_moves(count: int, slices: int) -> str:
    """Moves beside bare round trips, interleaved per broker (bare, moves,
    bare, moves, ...: issue 20), ``count`` of each in ``slices`` slices. The
    ratios are the medians of the per-slice ratios: two figures taken one
    after the other on this shared machine follow its noise, not the code."""
    rows: list[list[str]] = []
    per_slice = max(count // slices, 20)
    async with brokers() as running:
        for name, (host, port) in running.items():
            bare: list[float] = []
            moves: list[float] = []
            replicated: list[float] = []
            p50_ratios: list[float] = []
            p99_ratios: list[float] = []
            p50_replicated: list[float] = []
            p99_replicated: list[float] = []
            apart: list[float] = []
            p50_apart: list[float] = []
            p99_apart: list[float] = []
            for _ in range(slices):
                bare_slice = await bare_round_trips(host, port, per_slice, qos=0)
                move_slice = await move_round_trips(host, port, per_slice)
                replicated_slice = await move_round_trips(host, port, per_slice, failover=True)
                apart_slice = await move_round_trips_in_processes(host, port, per_slice)
                bare += bare_slice
                moves += move_slice
                replicated += replicated_slice
                apart += apart_slice
                p50, p99 = percentile(bare_slice, 0.5), percentile(bare_slice, 0.99)
                p50_ratios.append(percentile(move_slice, 0.5) / p50)
                p99_ratios.append(percentile(move_slice, 0.99) / p99)
                p50_replicated.append(percentile(replicated_slice, 0.5) / p50)
                p99_replicated.append(percentile(replicated_slice, 0.99) / p99)
                p50_apart.append(percentile(apart_slice, 0.5) / p50)
                p99_apart.append(percentile(apart_slice, 0.99) / p99)
            for what, values, p50s, p99s in (
                ("", moves, p50_ratios, p99_ratios),
                (", failover (replicated)", replicated, p50_replicated, p99_replicated),
                (", failover, seats in own processes", apart, p50_apart, p99_apart),
            ):
                rows.append(
                    [
                        name + what,
                        f"{len(values):,} in {slices}",
                        *against_bare(values, bare, p50s, p99s),
                    ]
                )
    headers = [
        "broker",
        "moves, slices",
        "move p50 ms",
        "move p99 ms",
        "bare p50 ms",
        "bare p99 ms",
        "p50 ratio (median of slices)",
        "p99 ratio (median of slices)",
    ]
    return table(
        "networked move (Pass Pass, 3 peers) vs bare request/reply, QoS 0, interleaved slices",
        headers,
        rows,
    )


def against_bare(
    moves: Sequence[float],
    bare: Sequence[float],
    p50_ratios: Sequence[float],
    p99_ratios: Sequence[float],
) -> list[str]:
    """Table cells: the moves' p50 and p99, the bare round trips', and the
    medians of the per-slice ratios (p50, p99)."""
    return [
        fmt_ms(percentile(moves, 0.5)),
        fmt_ms(percentile(moves, 0.99)),
        fmt_ms(percentile(bare, 0.5)),
        fmt_ms(percentile(bare, 0.99)),
        f"{statistics.median(p50_ratios):.2f}x",
        f"{statistics.median(p99_ratios):.2f}x",
    ]


def _row(name: str, qos: int, nodelay: str, values: Sequence[float]) -> list[str]:
    return [
        name,
        str(qos),
        nodelay,
        f"{len(values):,}",
        fmt_ms(percentile(values, 0.5)),
        fmt_ms(percentile(values, 0.99)),
        fmt_ms(statistics.fmean(values)),
    ]


def run(*, quick: bool) -> str:
    count, chunks = (200, 4) if quick else (1000, 10)
    bare = asyncio.run(_measure(count, chunks))
    moves = asyncio.run(_measure_moves(count, chunks))
    from bench import (
        floods,  # an honest game beside each flood of issue 19
        net_ab,  # the seat's early update, and the others' Appends after it: off and on
        net_lan,  # the same on links with a LAN's latency (issue 20)
    )

    return "\n\n".join(
        (bare, moves, net_ab.run(quick=quick), net_lan.run(quick=quick), floods.run(quick=quick))
    )


if __name__ == "__main__":
    print(run(quick=False))
