"""Rooms one dealer holds (issue 20): one ``passe dealer`` process serving
rooms of headless bot peers through Mosquitto, each peer acting like a
person (an action every 1-2 s).

Set-up: a Mosquitto of the benchmark's own (``tests.net.brokers``: loopback,
``set_tcp_nodelay true``); ONE ``passe dealer --broker ... --no-advertise``
process on it (``python -m tui.cli dealer``, its data and config in a
temporary directory on disk); ``WORKERS`` worker processes (``python -m
bench.dealer worker``), each one asyncio loop running its share of the
rooms. For each room a worker asks the dealer with a fresh asker key
(``net.dealer.client.ask_dealer``; asks paced at ``ASK_RATE`` a second in
all, under the dealer's 5 a second), seats four in-process
:class:`net.peer.remote.RemoteTable` peers, each with its own key, and plays
dominoes for 4: on its turn a peer waits a random 1-2 s (seeded), then
submits a random legal action. When a game ends its slot asks for a new
room, so the count holds. A single dealer's room does not replicate (there
is no other dealer to fail over to): this measures the dealer serving
rooms, not failover.

The rooms ramp in steps; once a step's rooms have all started a game and
settled, a window measures:

- every move's latency: from ``submit`` to that peer holding its own
  acknowledged update (the authority validated the action, saved the room,
  sealed one update per seat; the peer opened and decoded its own), taken in
  the peer's callback, as ``bench.net.move_round_trips`` times it;
- the dealer's CPU (``/proc/PID/stat`` utime+stime over the window, as % of
  one core: it is one Python process, one loop, so 100 % is its ceiling), its
  RSS (``VmRSS``) and the RSS per room over its 0-room baseline;
- the workers' CPU, Mosquitto's, and the rest of the machine's (``/proc/stat``
  less ours): all share the same cores;
- where a move's time goes: each move's request through the dealer (read,
  its room's handler, the room's outbox, its update's publish written), the
  dealer's loop lag and its garbage collections, and which slow moves were
  in flight during one (the dealer runs under a small bootstrap,
  ``DEALER_BOOT``, that logs these: a few methods wrapped for timing, a
  ``gc.callbacks`` hook, a ticking task beside its own); a bare
  request/reply round trip every 100 ms through the same broker from each
  worker's loop (``bench.net.RoundTripper``: everything a move pays but the
  dealer), and the workers' own loop lag.

The ramp stops at the first step whose move p99 exceeds 50 ms or where
something failed (an ask refused or timed out, a join failed, a move
unanswered in ``MOVE_TIMEOUT``, a room silent for ``STALL``, a step's rooms
not started in time); the report says where, and the measured reasons.

What limits the figures: the peers run on the same 2 cores as the dealer
and Mosquitto (800 peers cost more CPU than the dealer does), so the
machine, not the dealer alone, bounds the count, and other work on this
shared machine shows in the "other work" column and the load average (a
window in which it used more than a quarter of a core is taken again, up
to three in all, and the quietest kept: chosen by the load, never by the
figures). The
peers of one worker share a process, which no person's peer would: one loop
of 400 peers lagged 58 ms at p99 at 100 rooms, hence several workers, and
their collections (60-140 ms at 400 peers) are switched off during a window
(collected before it), since a person's process of one peer has no such
pauses. The dealer's collections are left as they are: they are its own.

Run alone: ``python -m bench dealer [--quick]``; ``BENCH_DEALER_WORKERS``,
``BENCH_DEALER_PROFILE`` (a cProfile of the dealer over the windows),
``BENCH_DEALER_CENSUS`` (a file where SIGUSR2 to the dealer appends the
objects its garbage collector walks, by type), ``BENCH_DEALER_STEPS``
(the ramp's steps, e.g. ``50,200``) and ``BENCH_DEALER_KEEP`` (a
directory for the logs) are for studies.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import random
import resource
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.common import fmt_ms, percentile, table

if TYPE_CHECKING:
    from core.engine import Bot
    from net.authority.table import TableUpdate
    from net.peer.remote import RemoteTable

GAME = "dominoes"
PLAYERS = 4
STEPS = (10, 25, 50, 100, 150, 200)
QUICK_STEPS = (5, 10)
WINDOW = 30.0  # seconds measured per step
QUICK_WINDOW = 10.0
SETTLE = 5.0  # seconds after a step's rooms all started, before its window
QUICK_SETTLE = 3.0
BASELINE = 5.0  # seconds of the idle dealer (0 rooms) measured first
THINK = (1.0, 2.0)  # a person's time to act, seconds (uniform)
P99_LIMIT = 0.050
# Workers: separate asyncio loops (processes) for the peers. One loop of 400
# peers (100 rooms) lagged 58 ms at p99, more than the dealer's own loop did.
WORKERS = int(os.environ.get("BENCH_DEALER_WORKERS", "4"))
ASK_RATE = 4.0  # asks a second, all workers together (the dealer deals <= 5/s)
MOVE_TIMEOUT = 10.0  # a move unanswered this long is a failure
# A peer that hears nothing this long (four seats act in at most ~8 s) is in
# a room that stalled: a failure, and its slot asks for a new room.
STALL = 60.0
RETRY_PAUSE = 1.0  # after a failed ask or join, before the slot tries again
LAG_TICK = 0.05
GC_STALL = 0.010  # a dealer collection this long or longer stalls the moves in flight
PROBE_GAP = 0.1  # seconds between a worker's bare round trips
STOP_WAIT = 60.0  # seconds for the dealer to end after SIGTERM
# A window in which other work used more than this % of a core is taken
# again, up to WINDOWS windows a step (see _quietest_window).
OTHERS_LIMIT = 25.0
WINDOWS = 3
# For a study: a cProfile of the dealer over each window, written to this
# file (the last window's stays).
PROFILE = os.environ.get("BENCH_DEALER_PROFILE")
# For a study: SIGUSR2 to the dealer appends a census of the objects its
# collector walks (generation sizes, the commonest types) to this file.
CENSUS = os.environ.get("BENCH_DEALER_CENSUS")
# For a study: the steps of the ramp (rooms, comma-separated) instead of STEPS.
STUDY_STEPS = tuple(int(n) for n in os.environ.get("BENCH_DEALER_STEPS", "").split(",") if n)
SEED = 20
# Seconds for a step's new rooms to start: per room, on top of a fixed part.
START_WAIT_FIXED = 60.0
START_WAIT_PER_ROOM = 1.0
CLK_TCK = os.sysconf("SC_CLK_TCK")
# ``passe dealer`` as ``python -m tui.cli`` runs it, with a gc.callbacks hook
# that writes each collection of 0.5 ms or more (its end on the monotonic
# clock, its length, its CPU time, its generation) to the file named first:
# a pause of the dealer's one loop delays every room's moves. The second
# argument, if not empty, is where SIGUSR1 ... SIGUSR1 writes a cProfile.
# The third is where its loop's lag goes: a LAG_TICK sleep's overshoot,
# each tick (its end, the overshoot), from a task beside the dealer's own
# (asyncio.run wrapped): how late the dealer's loop serves what arrives.
# The fourth is where each move's request (Act) is traced through the dealer
# (a few of its methods wrapped, timing only): when aiomqtt read it, when
# the room's handler began and ended, when the first message to that peer
# after it (its update) began to be published and when that publish ended
# (aiomqtt's publish waits for paho's write, on a later turn of the loop).
DEALER_BOOT = """\
import gc, runpy, sys, time
log = open(sys.argv.pop(1), "a", buffering=1, encoding="ascii")
began = [0.0, 0.0]
def pauses(phase, info):
    if phase == "start":
        began[:] = time.monotonic(), time.thread_time()
        return
    now, cpu = time.monotonic(), time.thread_time()
    if now - began[0] >= 0.0005:
        log.write(f"{now:.6f} {now - began[0]:.6f} {cpu - began[1]:.6f} {info['generation']}\\n")
gc.callbacks.append(pauses)
profile_to = sys.argv.pop(1)
if profile_to:  # SIGUSR1 starts a cProfile, the next one writes it there
    import cProfile, signal
    profiler, on = cProfile.Profile(), [False]
    def toggle(signum, frame):
        if on[0]:
            profiler.disable()
            profiler.dump_stats(profile_to)
        else:
            profiler.enable()
        on[0] = not on[0]
    signal.signal(signal.SIGUSR1, toggle)
lags = open(sys.argv.pop(1), "a", buffering=1, encoding="ascii")
import asyncio
run = asyncio.run
async def ticking(main):
    async def tick():
        while True:
            before = time.monotonic()
            await asyncio.sleep(TICK)
            now = time.monotonic()
            lags.write(f"{now:.6f} {now - before - TICK:.6f}\\n")
    ticker = asyncio.get_running_loop().create_task(tick())
    try:
        return await main
    finally:
        ticker.cancel()
asyncio.run = lambda main, **options: run(ticking(main), **options)
acts = open(sys.argv.pop(1), "a", buffering=1, encoding="ascii")
census_to = sys.argv.pop(1)
if census_to:  # SIGUSR2 appends what the collector walks, by type, there
    import collections, signal
    def census(signum, frame):
        counts = collections.Counter(type(o).__qualname__ for o in gc.get_objects())
        with open(census_to, "a", encoding="utf-8") as out:
            sizes = [len(gc.get_objects(g)) for g in range(3)]
            took = []
            for _ in range(2):  # the second finds no garbage: the walk alone
                began = time.thread_time()
                took.append((gc.collect(), (time.thread_time() - began) * 1e3))
            out.write(f"generations {sizes} frozen {gc.get_freeze_count()}: full"
                      f" collections then (found, CPU ms): {took}\\n")
            for name, count in counts.most_common(40):
                out.write(f"{count:9d} {name}\\n")
            owners = {}  # who holds the commonest containers
            for holder in gc.get_objects():
                for held in gc.get_referents(holder):
                    owners.setdefault(id(held), type(holder).__qualname__)
            pairs = collections.Counter(
                (type(o).__qualname__, owners.get(id(o), "?")) for o in gc.get_objects()
            )
            out.write("held by:\\n")
            for (name, owner), count in pairs.most_common(40):
                out.write(f"{count:9d} {name} in {owner}\\n")
    signal.signal(signal.SIGUSR2, census)
try:  # each Act's way through the dealer, for the moves' requests ("/a/")
    import aiomqtt.client, net.authority.authority, net.lan.transport
    arrived, handled = {}, {}
    received = aiomqtt.client.Client._on_message
    def on_message(self, client, userdata, message):
        if "/a/" in message.topic:
            arrived[message.topic] = time.monotonic()
        return received(self, client, userdata, message)
    handle = net.authority.authority.Authority._on_message
    async def on_request(self, topic, payload):
        times = None
        read = arrived.pop(topic, None)
        if read is not None and self.phase == "playing":  # a move's, not a join's
            times = handled[topic] = [read, time.monotonic(), 0.0]
        result = await handle(self, topic, payload)
        if times is not None:
            times[2] = time.monotonic()
        return result
    publish = net.lan.transport.MqttLink.publish
    async def publishing(self, topic, payload, *, retain=False):
        times = handled.pop(topic.replace("/p/", "/a/"), None) if "/p/" in topic else None
        start = time.monotonic()
        result = await publish(self, topic, payload, retain=retain)
        if times is not None:
            acts.write(" ".join(f"{t:.6f}" for t in (*times, start, time.monotonic())) + "\\n")
        return result
    aiomqtt.client.Client._on_message = on_message
    net.authority.authority.Authority._on_message = on_request
    net.lan.transport.MqttLink.publish = publishing
except (ImportError, AttributeError) as error:
    print(f"bench: no trace of the Acts ({error!r})", file=sys.stderr)
sys.argv[0] = "passe"
runpy.run_module("tui.cli", run_name="__main__", alter_sys=True)
""".replace("TICK", repr(LAG_TICK))


# -- /proc ---------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_mb(pid: int) -> float:
    """Resident set size of ``pid`` in MiB (``VmRSS``)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return math.nan


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far (/proc/stat)."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    total = sum(fields[:8])  # user nice system idle iowait irq softirq steal
    return (total - idle) / CLK_TCK, total / CLK_TCK


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def loadavg() -> str:
    with open("/proc/loadavg", encoding="ascii") as load:
        return " ".join(load.read().split()[:3])


def raise_fd_limit() -> tuple[int, int]:
    """Raise the soft limit of open files to the hard one (children inherit
    it: Mosquitto and the dealer are started after); the limits now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        wanted = 65536 if hard == resource.RLIM_INFINITY else hard
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


# -- a worker: rooms of peers in one loop --------------------------------------


class Person:
    """One peer playing like a person: on its turn it waits 1-2 s, then
    submits a random legal action; each move is timed from the submit to the
    callback that brings its own acknowledged update."""

    def __init__(self, fleet: Fleet, table: RemoteTable, bot: Bot, rng: random.Random) -> None:
        self.fleet, self.table, self.bot, self.rng = fleet, table, bot, rng
        self.changed = asyncio.Event()
        self.over = False
        self.pending: tuple[float, int] | None = None  # (submit time, seq before)
        self.answered: float | None = None  # when the pending move was answered

    def on_update(self, update: TableUpdate) -> None:
        table = self.table
        if self.pending is not None and not table.action_pending and table.seq > self.pending[1]:
            self.answered = time.perf_counter()
        if update.rejected is not None:
            self.fleet.fail(f"action refused: {update.rejected[:80]}")
        if update.view.is_over:
            self.over = True
        self.changed.set()

    def my_turn(self) -> bool:
        view = self.table.view
        return (
            view is not None
            and not view.is_over
            and bool(view.legal)
            and self.table.seat in view.to_act
            and not self.table.action_pending
        )

    async def play(self) -> None:
        """Until the game is over."""
        table = self.table
        while not self.over:
            if not self.my_turn():
                self.changed.clear()
                try:
                    await asyncio.wait_for(self.changed.wait(), STALL)
                except TimeoutError:
                    raise RuntimeError(f"a peer heard nothing in {STALL:g} s") from None
                continue
            await asyncio.sleep(self.rng.uniform(*THINK))
            if self.over or not self.my_turn():
                continue
            view = table.view
            assert view is not None
            action = self.bot.choose(view)
            self.answered = None
            start = time.perf_counter()
            self.pending = (start, table.seq)
            await table.submit(action)
            while self.answered is None and not self.over:
                left = start + MOVE_TIMEOUT - time.perf_counter()
                self.changed.clear()
                try:
                    await asyncio.wait_for(self.changed.wait(), max(left, 0.0))
                except TimeoutError:
                    self.fleet.fail(f"a move unanswered in {MOVE_TIMEOUT:g} s")
                    break
            if self.answered is not None:
                self.fleet.moved(start, self.answered - start)
            self.pending = None


@dataclass
class Fleet:
    """A worker's rooms: ``want(n)`` keeps ``n`` rooms playing."""

    host: str
    port: int
    dealer: str
    index: int
    workers: int
    seed: int
    slots: list[asyncio.Task[None]] = field(default_factory=list)
    started: set[int] = field(default_factory=set)  # slots that started a game
    playing: int = 0  # rooms in play now
    games: int = 0  # games played to their end
    moves: int = 0
    recording: bool = False
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (start, seconds)
    lags: list[float] = field(default_factory=list)
    bare: list[float] = field(default_factory=list)  # bare round trips, seconds
    in_play: list[int] = field(default_factory=list)  # sampled each second
    errors: Counter[str] = field(default_factory=Counter)  # in the window
    all_errors: Counter[str] = field(default_factory=Counter)
    rate_refusals: int = 0
    _next_ask: float = 0.0

    def want(self, rooms: int) -> None:
        while len(self.slots) < rooms:
            number = len(self.slots)
            task = asyncio.get_running_loop().create_task(self._slot(number))
            self.slots.append(task)

    def fail(self, what: str) -> None:
        self.all_errors[what] += 1
        if self.recording:
            self.errors[what] += 1

    def moved(self, start: float, seconds: float) -> None:
        """A move submitted at ``start`` (perf_counter: CLOCK_MONOTONIC on
        Linux, the clock the dealer's logs use) took ``seconds``."""
        self.moves += 1
        if self.recording:
            self.latencies.append((start, seconds))

    async def _ask(self) -> str:
        from net.dealer.client import DealerError, ask_dealer, new_deal_nonce
        from net.dealer.messages import Deal
        from net.identity import Identity

        while True:
            # Paced: this worker's share of ASK_RATE.
            now = time.monotonic()
            wait = self._next_ask - now
            self._next_ask = max(now, self._next_ask) + self.workers / ASK_RATE
            if wait > 0:
                await asyncio.sleep(wait)
            deal = Deal(
                nonce=new_deal_nonce(),
                game=GAME,
                players=PLAYERS,
                name="bench",
                wait_for=PLAYERS,
            )
            try:
                dealt = await ask_dealer(
                    Identity.generate(), self.host, self.port, deal, dealer=self.dealer
                )
            except DealerError as error:
                # The deal rate, or rooms still waiting for their people
                # (the dealer's MAX_EMPTY_LOBBIES): asked again.
                if "many rooms at once" in str(error) or "nobody sits in yet" in str(error):
                    self.rate_refusals += 1
                    continue
                raise
            return dealt.code

    async def _slot(self, number: int) -> None:
        from core.registry import get_game
        from net.identity import Identity
        from net.peer.remote import RemoteTable

        game = get_game(GAME)
        rng = random.Random(f"{self.seed}-{self.index}-{number}")
        while True:
            tables: list[RemoteTable] = []
            counted = False
            try:
                code = await self._ask()
                tables = [
                    RemoteTable(
                        Identity.generate(),
                        code,
                        self.host,
                        self.port,
                        f"W{self.index}S{number}P{n}",
                    )
                    for n in range(PLAYERS)
                ]
                await asyncio.gather(*(table.join() for table in tables))
                people = [
                    Person(self, table, game.make_bot("random", rng.randrange(2**32)), rng)
                    for table in tables
                ]
                for person in people:
                    await person.table.connect(person.on_update)
                await asyncio.wait_for(
                    asyncio.gather(*(table.wait_started() for table in tables)), MOVE_TIMEOUT
                )
                self.started.add(number)
                self.playing += 1
                counted = True
                await asyncio.gather(*(person.play() for person in people))
                self.games += 1
            except asyncio.CancelledError:
                raise
            except Exception as error:  # every failure is counted, then retried
                self.fail(f"{type(error).__name__}: {str(error)[:100]}")
                await asyncio.sleep(RETRY_PAUSE)
            finally:
                if counted:
                    self.playing -= 1
                for table in tables:
                    with contextlib.suppress(Exception):
                        await table.close()

    async def tick(self) -> None:
        """The loop's lag (each 50 ms sleep's overshoot), and the rooms in
        play each second, while recording."""
        loop = asyncio.get_running_loop()
        last_sample = loop.time()
        while True:
            before = loop.time()
            await asyncio.sleep(LAG_TICK)
            after = loop.time()
            if self.recording:
                self.lags.append(after - before - LAG_TICK)
                if after - last_sample >= 1.0:
                    self.in_play.append(self.playing)
                    last_sample = after

    async def probe(self) -> None:
        """A bare request/reply round trip through the same broker in this
        loop (``bench.net.RoundTripper``, QoS 0 as the game's messages) every
        PROBE_GAP: what a move costs without the dealer, under the same load."""
        from bench.net import RoundTripper

        async with RoundTripper(self.host, self.port, qos=0) as tripper:
            while True:
                took = await tripper.measure(1)
                if self.recording:
                    self.bare.extend(took)
                await asyncio.sleep(PROBE_GAP)

    def begin(self) -> None:
        # A person's process holds one peer; this one holds hundreds, whose
        # full collections (60-140 ms at 400 peers) no person's would have:
        # collected now, and not during the window (a window's cyclic
        # garbage waits for its end).
        gc.collect()
        gc.disable()
        self.latencies, self.lags, self.in_play, self.bare = [], [], [], []
        self.errors = Counter()
        self.recording = True

    def end(self) -> dict[str, Any]:
        self.recording = False
        gc.enable()
        return {
            "latencies": self.latencies,
            "bare": self.bare,
            "lag_p99": percentile(self.lags, 0.99),
            "lag_max": max(self.lags, default=math.nan),
            "in_play": statistics.fmean(self.in_play) if self.in_play else math.nan,
            "errors": dict(self.errors),
        }

    def status(self) -> dict[str, Any]:
        return {
            "slots": len(self.slots),
            "started": len(self.started),
            "playing": self.playing,
            "games": self.games,
            "moves": self.moves,
            "errors": dict(self.all_errors),
            "rate_refusals": self.rate_refusals,
        }

    async def stop(self) -> None:
        for task in self.slots:
            task.cancel()
        await asyncio.gather(*self.slots, return_exceptions=True)


async def _worker(args: argparse.Namespace) -> None:
    """Serve the main process's commands, one JSON line each on stdin,
    each answered by one JSON line on stdout."""
    raise_fd_limit()
    fleet = Fleet(args.host, args.port, args.dealer, args.index, args.workers, args.seed)
    loop = asyncio.get_running_loop()
    commands: asyncio.Queue[str] = asyncio.Queue()

    def read_stdin() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(commands.put_nowait, line)
        loop.call_soon_threadsafe(commands.put_nowait, '{"do": "stop"}')

    threading.Thread(target=read_stdin, daemon=True).start()
    ticker = loop.create_task(fleet.tick())
    prober = loop.create_task(fleet.probe())
    try:
        while True:
            command = json.loads(await commands.get())
            do = command["do"]
            reply: dict[str, Any] = {}
            if do == "rooms":
                fleet.want(int(command["rooms"]))
            elif do == "status":
                reply = fleet.status()
            elif do == "begin":
                fleet.begin()
            elif do == "end":
                reply = fleet.end()
            elif do == "stop":
                await fleet.stop()
                reply = fleet.status()
            _reply(reply)
            if do == "stop":
                return
    finally:
        ticker.cancel()
        prober.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await prober
        await fleet.stop()


def _reply(reply: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()


# -- the main process: dealer, workers, steps ----------------------------------


class Worker:
    """A worker process, driven by JSON lines."""

    def __init__(self, process: asyncio.subprocess.Process, log: Path) -> None:
        self.process = process
        self.log = log
        self._lock = asyncio.Lock()

    @property
    def pid(self) -> int:
        return self.process.pid

    async def ask(self, do: str, timeout: float = 30.0, **fields: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        async with self._lock:
            self.process.stdin.write((json.dumps({"do": do, **fields}) + "\n").encode())
            await self.process.stdin.drain()
            line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        if not line:
            raise RuntimeError(f"worker {self.pid} ended: {_tail(self.log)}")
        reply: dict[str, Any] = json.loads(line)
        return reply


@dataclass
class Dealer:
    process: asyncio.subprocess.Process
    key: str
    log: Path
    gc_log: Path
    lag_log: Path
    acts_log: Path
    events: Counter[str] = field(default_factory=Counter)
    other: list[str] = field(default_factory=list)  # lines that are no known event

    def gc_pauses(self, start: float, end: float) -> list[tuple[float, float, float]]:
        """The dealer's collections (of 0.5 ms or more) that ended between
        two ``time.monotonic()`` readings: (end, seconds, CPU seconds) each."""
        pauses = []
        with contextlib.suppress(OSError):
            for line in self.gc_log.read_text(encoding="ascii").splitlines():
                parts = line.split()
                if len(parts) == 4 and start <= float(parts[0]) <= end:  # (else: being written)
                    pauses.append((float(parts[0]), float(parts[1]), float(parts[2])))
        return pauses

    def lags(self, start: float, end: float) -> list[float]:
        """Its loop's lags between two ``time.monotonic()`` readings."""
        lags = []
        with contextlib.suppress(OSError):
            for line in self.lag_log.read_text(encoding="ascii").splitlines():
                parts = line.split()
                if len(parts) == 2 and start <= float(parts[0]) <= end:
                    lags.append(float(parts[1]))
        return lags

    def acts(self, start: float, end: float) -> list[tuple[float, ...]]:
        """The moves' requests read between two ``time.monotonic()``
        readings: (read, handler start, handler end, its update's publish
        start, publish end) each."""
        acts = []
        with contextlib.suppress(OSError):
            for line in self.acts_log.read_text(encoding="ascii").splitlines():
                parts = line.split()
                if len(parts) == 5 and start <= float(parts[0]) <= end:
                    acts.append(tuple(float(part) for part in parts))
        return acts

    async def follow(self) -> None:
        """Read its JSON lines to the end (a full pipe would stop it)."""
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            try:
                self.events[json.loads(line)["event"]] += 1
            except (ValueError, KeyError, TypeError):
                self.other.append(line.decode("utf-8", "replace").strip())


@dataclass
class Sample:
    """CPU seconds of each process at one moment."""

    at: float
    cpu: dict[int, float]
    machine: tuple[float, float] = (0.0, 0.0)  # (busy, total) CPU seconds

    @classmethod
    def take(cls, pids: Sequence[int]) -> Sample:
        return cls(time.monotonic(), {pid: cpu_seconds(pid) for pid in pids}, machine_busy())

    def machine_percent(self, later: Sample) -> float:
        """The whole machine's busy CPU in the interval, % of one core."""
        busy = later.machine[0] - self.machine[0]
        return busy / (later.at - self.at) * 100

    def percent(self, later: Sample, pid: int) -> float:
        return (later.cpu[pid] - self.cpu[pid]) / (later.at - self.at) * 100


@dataclass
class Step:
    rooms: int
    moves: int = 0
    p50: float = math.nan
    p99: float = math.nan
    dealer_cpu: float = math.nan  # % of a core
    dealer_cpu_s: float = math.nan  # seconds in the window
    dealer_rss: float = math.nan
    workers_cpu: list[float] = field(default_factory=list)
    mosquitto_cpu: float = math.nan
    lag_p99: float = math.nan
    lag_max: float = math.nan
    dealer_lag_p99: float = math.nan  # the dealer's loop
    # An Act's way through the dealer, p99 of each part (ms), then in all:
    # read -> handler, handler, outbox (behind the room's earlier messages),
    # its update's publish (until written); and the p50 in all.
    in_dealer: dict[str, float] = field(default_factory=dict)
    dealer_lag_max: float = math.nan
    dealer_gc_max: float = math.nan  # the longest collection in the dealer (wall)
    slow: int = 0  # moves over P99_LIMIT
    slow_in_gc: int = 0  # of which in flight during a dealer collection of GC_STALL or more
    in_gc: int = 0  # moves in flight during one
    p99_without_gc: float = math.nan  # the p99 of the others
    dealer_gc_cpu: float = math.nan  # and the CPU time it took
    bare_p50: float = math.nan
    bare_p99: float = math.nan
    others_cpu: float = math.nan  # % of a core used by processes not of this benchmark
    dealer_gc_share: float = math.nan
    in_play: float = math.nan
    errors: Counter[str] = field(default_factory=Counter)
    load: str = ""
    fds: str = ""
    windows: int = 1  # windows taken (see _quietest_window)
    note: str = ""


async def _start_dealer(host: str, port: int, home: Path, max_rooms: int) -> Dealer:
    env = dict(os.environ)
    env["PASSE_DATA_DIR"] = str(home / "data")
    env["PASSE_CONFIG_DIR"] = str(home / "config")
    env.setdefault("PASSE_LOG", "info")
    gc_log, lag_log, acts_log = (home / f"dealer-{name}.log" for name in ("gc", "lag", "acts"))
    command = [sys.executable, "-c", DEALER_BOOT, str(gc_log), PROFILE or "", str(lag_log)]
    command += [str(acts_log), CENSUS or ""]
    command += ["dealer", "--broker", f"{host}:{port}", "--name", "D0"]
    command += ["--no-advertise", "--max-rooms", str(max_rooms)]
    log = home / "dealer.log"
    with open(log, "wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env=env,
            cwd=Path(__file__).resolve().parent.parent,
        )
    assert process.stdout is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), 30)
        first = json.loads(line)
        if first.get("event") != "dealer":
            raise ValueError(line)
    except (TimeoutError, ValueError) as error:
        process.kill()
        await process.wait()
        raise RuntimeError(f"the dealer did not start ({error!r}): {_tail(log)}") from None
    return Dealer(process, str(first["key"]), log, gc_log, lag_log, acts_log)


async def _start_worker(
    index: int, workers: int, host: str, port: int, dealer: str, home: Path
) -> Worker:
    log = home / f"worker-{index}.log"
    command = [sys.executable]
    profile = os.environ.get("BENCH_WORKER_PROFILE")  # worker 0 under cProfile, for a study
    if profile and index == 0:
        command += ["-m", "cProfile", "-o", profile]
    command += ["-m", "bench.dealer", "worker", "--index", str(index), "--workers", str(workers)]
    command += ["--host", host, "--port", str(port), "--dealer", dealer, "--seed", str(SEED)]
    with open(log, "wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            cwd=Path(__file__).resolve().parent.parent,
        )
    return Worker(process, log)


def _tail(path: Path, lines: int = 5) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])


def _shares(rooms: int, workers: int) -> list[int]:
    return [rooms // workers + (1 if i < rooms % workers else 0) for i in range(workers)]


async def _wait_started(workers: list[Worker], rooms: int, deadline: float) -> dict[str, int]:
    """Until every slot has started a game; the workers' statuses summed."""
    while True:
        statuses = [await worker.ask("status") for worker in workers]
        started = sum(status["started"] for status in statuses)
        if started >= rooms:
            return {"started": started}
        if time.monotonic() > deadline:
            errors = Counter[str]()
            for status in statuses:
                errors.update(status["errors"])
            detail = "; ".join(f"{n}x {what}" for what, n in errors.most_common(3))
            raise TimeoutError(
                f"{started} of {rooms} rooms started in time ({detail or 'no errors'})"
            )
        await asyncio.sleep(0.5)


async def _measure_step(
    rooms: int,
    workers: list[Worker],
    dealer: Dealer,
    mosquitto_pid: int,
    window: float,
) -> Step:
    step = Step(rooms)
    pids = [dealer.process.pid, mosquitto_pid, os.getpid(), *(w.pid for w in workers)]
    for worker in workers:
        await worker.ask("begin")
    if PROFILE:
        dealer.process.send_signal(signal.SIGUSR1)
    before = Sample.take(pids)
    await asyncio.sleep(window)
    after = Sample.take(pids)
    if PROFILE:
        dealer.process.send_signal(signal.SIGUSR1)
    dealer_lags = dealer.lags(before.at, after.at)
    step.dealer_lag_p99 = percentile(dealer_lags, 0.99)
    step.dealer_lag_max = max(dealer_lags, default=math.nan)
    step.in_dealer = _in_dealer(dealer.acts(before.at, after.at))
    step.dealer_rss = rss_mb(dealer.process.pid)
    step.load = loadavg()
    step.fds = f"{open_fds(dealer.process.pid)}/{open_fds(mosquitto_pid)}"
    moves: list[tuple[float, float]] = []
    bare: list[float] = []
    worker_lags: list[float] = []
    lag_maxes: list[float] = []
    in_play = 0.0
    for worker in workers:
        result = await worker.ask("end")
        moves += [(start, took) for start, took in result["latencies"]]
        bare += result["bare"]
        worker_lags.append(result["lag_p99"])
        lag_maxes.append(result["lag_max"])
        in_play += result["in_play"]
        step.errors.update(result["errors"])
    # (read now: the moves answered after the window's end are in too)
    pauses = dealer.gc_pauses(before.at - MOVE_TIMEOUT, time.monotonic())
    in_window = [(took, cpu) for end, took, cpu in pauses if before.at <= end <= after.at]
    step.dealer_gc_max, step.dealer_gc_cpu = max(in_window, default=(0.0, 0.0))  # 0: < 0.5 ms
    step.dealer_gc_share = sum(cpu for _, cpu in in_window) / window * 100
    latencies = [took for _, took in moves]
    step.moves = len(latencies)
    step.p50 = percentile(latencies, 0.5)
    step.p99 = percentile(latencies, 0.99)
    # The moves in flight while the dealer's loop stood in a collection of
    # GC_STALL or more (from its log: each one's end and length).
    stalls = [(end - took, end) for end, took, _ in pauses if took >= GC_STALL]
    stalled = [_overlaps(start, took, stalls) for start, took in moves]
    step.in_gc = sum(stalled)
    step.slow = sum(took > P99_LIMIT for took in latencies)
    step.slow_in_gc = sum(
        took > P99_LIMIT and hit for took, hit in zip(latencies, stalled, strict=True)
    )
    step.p99_without_gc = percentile(
        [took for took, hit in zip(latencies, stalled, strict=True) if not hit], 0.99
    )
    step.dealer_cpu = before.percent(after, dealer.process.pid)
    step.dealer_cpu_s = after.cpu[dealer.process.pid] - before.cpu[dealer.process.pid]
    step.mosquitto_cpu = before.percent(after, mosquitto_pid)
    step.workers_cpu = [before.percent(after, w.pid) for w in workers]
    step.bare_p50, step.bare_p99 = percentile(bare, 0.5), percentile(bare, 0.99)
    ours = sum(before.percent(after, pid) for pid in pids)
    step.others_cpu = max(0.0, before.machine_percent(after) - ours)
    step.lag_p99 = max(worker_lags)
    step.lag_max = max(lag_maxes)
    step.in_play = in_play
    return step


def _in_dealer(acts: Sequence[tuple[float, ...]]) -> dict[str, float]:
    """The p99 of each part of the Acts' way through the dealer, in all, and
    the p50 in all (seconds); empty without a trace."""
    if not acts:
        return {}
    parts = {
        "to handler": [a[1] - a[0] for a in acts],
        "handler": [a[2] - a[1] for a in acts],
        "outbox": [a[3] - a[2] for a in acts],
        "write": [a[4] - a[3] for a in acts],
        "all": [a[4] - a[0] for a in acts],
    }
    p99 = {name: percentile(values, 0.99) for name, values in parts.items()}
    p99["p50"] = percentile(parts["all"], 0.5)
    p99["count"] = len(acts)
    return p99


def _overlaps(start: float, took: float, spans: Sequence[tuple[float, float]]) -> bool:
    """Whether [start, start + took] overlaps one of ``spans``."""
    return any(start < end and start + took > begin for begin, end in spans)


async def _quietest_window(
    rooms: int, workers: list[Worker], dealer: Dealer, mosquitto_pid: int, window: float
) -> Step:
    """A step's window; measured again (WINDOWS in all at most) while other
    work on this shared machine used more than OTHERS_LIMIT % of a core in
    it: the one with the least other work. Chosen by the machine's load
    alone, never by the figures measured."""
    taken: list[Step] = []
    while len(taken) < WINDOWS:
        print(f"  {rooms} rooms: measuring {window:g} s", file=sys.stderr, flush=True)
        step = await _measure_step(rooms, workers, dealer, mosquitto_pid, window)
        taken.append(step)
        print(
            f"  {rooms} rooms: {step.moves} moves, p99 {fmt_ms(step.p99)} ms, dealer "
            f"{step.dealer_cpu:.0f} %, workers {'+'.join(f'{c:.0f}' for c in step.workers_cpu)}"
            f" %, other work {step.others_cpu:.0f} %",
            file=sys.stderr,
            flush=True,
        )
        if step.others_cpu <= OTHERS_LIMIT or step.errors:
            break
    quietest = min(taken, key=lambda step: step.others_cpu)
    quietest.windows = len(taken)
    return quietest


def _fmt_in_dealer(parts: dict[str, float]) -> str:
    if not parts:
        return "-"
    return f"{fmt_ms(parts['p50'])} / {fmt_ms(parts['all'])}"


def _fmt_parts(parts: dict[str, float]) -> str:
    if not parts:
        return "-"
    return " / ".join(fmt_ms(parts[name]) for name in ("to handler", "handler", "outbox", "write"))


def _why(step: Step) -> str:
    """The measured reasons a step missed: whose loop was late, what was
    saturated (each said when past half the budget or 85 % of a core)."""
    half = P99_LIMIT / 2
    reasons = []
    if step.errors:
        reasons.append(
            "failures: " + "; ".join(f"{n}x {what}" for what, n in step.errors.most_common(3))
        )
    if step.dealer_lag_p99 >= half:
        reasons.append(
            f"the dealer's loop ran {fmt_ms(step.dealer_lag_p99)} ms late at p99 (at most "
            f"{fmt_ms(step.dealer_lag_max)} ms; its longest collection took "
            f"{fmt_ms(step.dealer_gc_cpu)} ms of CPU)"
        )
    parts = step.in_dealer
    if parts and parts["all"] >= half:
        reasons.append(
            f"a move's request spent {fmt_ms(parts['all'])} ms at p99 in the dealer from its "
            f"read to its update written (p99 of the parts: {fmt_ms(parts['to handler'])} ms "
            f"to its room's handler, {fmt_ms(parts['handler'])} ms handled, "
            f"{fmt_ms(parts['outbox'])} ms in the room's outbox behind the messages before "
            f"it, {fmt_ms(parts['write'])} ms for its publish to be written)"
        )
    if step.slow and step.slow_in_gc * 2 >= step.slow:
        reasons.append(
            f"{step.slow_in_gc} of the {step.slow} moves over {P99_LIMIT * 1000:.0f} ms were "
            f"in flight while the dealer's loop stood in a garbage collection of "
            f"{GC_STALL * 1000:.0f} ms or more (its longest: {fmt_ms(step.dealer_gc_max)} ms; "
            f"without the {step.in_gc} moves in flight then, p99 {fmt_ms(step.p99_without_gc)} ms)"
        )
    if step.dealer_cpu >= 85:
        reasons.append(f"the dealer used {step.dealer_cpu:.0f} % of its one core")
    if step.bare_p99 >= half:
        reasons.append(
            f"a bare round trip through the same broker and worker loops (no dealer) "
            f"took {fmt_ms(step.bare_p99)} ms at p99"
        )
    if step.lag_p99 >= half:
        reasons.append(f"the workers' loops ran {fmt_ms(step.lag_p99)} ms late at p99")
    busiest = max(step.workers_cpu, default=0.0)
    if busiest >= 85:
        reasons.append(f"a worker loop used {busiest:.0f} % of a core")
    total = step.dealer_cpu + step.mosquitto_cpu + sum(step.workers_cpu)
    cores = (os.cpu_count() or 1) * 100
    if total + step.others_cpu >= 0.8 * cores:
        reasons.append(
            f"dealer + Mosquitto + workers used {total:.0f} % and other work "
            f"{step.others_cpu:.0f} % of the machine's {cores} %"
        )
    elif step.others_cpu >= 25:
        reasons.append(f"other work used {step.others_cpu:.0f} % of a core")
    return "; ".join(reasons) or "nothing measured was past half the budget"


async def _bench(quick: bool) -> tuple[list[Step], dict[str, str]]:
    from tests.net.brokers import start_mosquitto

    steps = STUDY_STEPS or (QUICK_STEPS if quick else STEPS)
    window = QUICK_WINDOW if quick else WINDOW
    settle = QUICK_SETTLE if quick else SETTLE
    facts: dict[str, str] = {}
    soft, hard = raise_fd_limit()
    facts["fds"] = f"open files limit {soft} (hard {hard})"
    facts["load_before"] = loadavg()
    results: list[Step] = []
    with (
        tempfile.TemporaryDirectory(prefix="passe-bench-dealer-") as directory,
        start_mosquitto() as mosquitto,
    ):
        home = Path(directory)
        assert mosquitto.process is not None
        mosquitto_pid = mosquitto.process.pid
        host, port = mosquitto.host, mosquitto.port
        dealer = await _start_dealer(host, port, home, max(steps) + 20)
        follower = asyncio.get_running_loop().create_task(dealer.follow())
        workers: list[Worker] = []
        try:
            # The idle dealer: its 0-room baseline.
            await asyncio.sleep(1.0)
            pids = [dealer.process.pid, mosquitto_pid, os.getpid()]
            before = Sample.take(pids)
            await asyncio.sleep(BASELINE if not quick else 2.0)
            after = Sample.take(pids)
            base = Step(0, dealer_rss=rss_mb(dealer.process.pid), load=loadavg())
            base.dealer_cpu = before.percent(after, dealer.process.pid)
            base.mosquitto_cpu = before.percent(after, mosquitto_pid)
            ours = sum(before.percent(after, pid) for pid in pids)
            base.others_cpu = max(0.0, before.machine_percent(after) - ours)
            base.fds = f"{open_fds(dealer.process.pid)}/{open_fds(mosquitto_pid)}"
            results.append(base)
            for index in range(WORKERS):
                workers.append(await _start_worker(index, WORKERS, host, port, dealer.key, home))
            facts["stopped"] = ""
            for rooms in steps:
                print(f"  {rooms} rooms: starting", file=sys.stderr, flush=True)
                added = rooms - (results[-1].rooms if results else 0)
                deadline = time.monotonic() + START_WAIT_FIXED + START_WAIT_PER_ROOM * added
                for worker, share in zip(workers, _shares(rooms, WORKERS), strict=True):
                    await worker.ask("rooms", rooms=share)
                try:
                    await _wait_started(workers, rooms, deadline)
                except TimeoutError as error:
                    facts["stopped"] = f"at {rooms} rooms: {error}"
                    break
                await asyncio.sleep(settle)
                step = await _quietest_window(rooms, workers, dealer, mosquitto_pid, window)
                results.append(step)
                if step.p99 > P99_LIMIT or step.errors or dealer.process.returncode is not None:
                    missed = f"p99 {fmt_ms(step.p99)} ms" if step.p99 > P99_LIMIT else "failures"
                    facts["stopped"] = f"at {rooms} rooms ({missed}): {_why(step)}"
                    break
            statuses = [await worker.ask("status") for worker in workers]
            facts["games"] = str(sum(s["games"] for s in statuses))
            facts["rate_refusals"] = str(sum(s["rate_refusals"] for s in statuses))
            errors = Counter[str]()
            for status in statuses:
                errors.update(status["errors"])
            facts["all_errors"] = "; ".join(f"{n}x {what}" for what, n in errors.most_common(5))
        finally:
            await _stop_workers(workers)
            facts["dealer_stop"] = await _stop_dealer(dealer)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(follower, 10)  # to the end of its output
            facts["dealer_events"] = ", ".join(f"{k} {v}" for k, v in sorted(dealer.events.items()))
            facts["dealer_warnings"] = _warnings(dealer.log)
            for trace in (dealer.gc_log, dealer.lag_log, dealer.acts_log):
                _keep(trace)
            facts["worker_warnings"] = _worker_warnings([worker.log for worker in workers])
    facts["load_after"] = loadavg()
    return results, facts


# The dealer's log has no level names: its lines of trouble say so in words.
TROUBLE = ("could not", "failed", "dropped", "refused", "no dealer took", "error")


def _warnings(log: Path) -> str:
    """The dealer log's lines of trouble and tracebacks (each by its last
    line, the exception), counted."""
    counts = Counter[str]()
    with contextlib.suppress(OSError):
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
        in_traceback = False
        for index, line in enumerate(lines):
            if line.startswith("Traceback"):
                in_traceback = True
            elif in_traceback and not line.startswith(" "):
                in_traceback = False
                counts[f"{line[:120]} (after {lines[index - 2].strip()[:80]})"] += 1
            elif any(word in line for word in TROUBLE):
                counts[line.split("passe dealer: ", 1)[-1][:100]] += 1
    _keep(log)
    return "; ".join(f"{n}x {what}" for what, n in counts.most_common(4))


def _keep(log: Path) -> None:
    """A copy of ``log`` in $BENCH_DEALER_KEEP, if set (for a study)."""
    keep = os.environ.get("BENCH_DEALER_KEEP")
    if keep:
        with contextlib.suppress(OSError):
            Path(keep).mkdir(parents=True, exist_ok=True)
            (Path(keep) / log.name).write_bytes(log.read_bytes())


def _worker_warnings(logs: Sequence[Path]) -> str:
    """The workers' logged warnings and errors (``logging``'s default
    format: LEVEL:logger:message), counted."""
    counts = Counter[str]()
    for log in logs:
        _keep(log)
        with contextlib.suppress(OSError):
            for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.startswith(("WARNING:", "ERROR:", "CRITICAL:")):
                    counts[line[:100]] += 1
                elif line.startswith("Traceback"):
                    counts["Traceback"] += 1
    return "; ".join(f"{n}x {what}" for what, n in counts.most_common(4))


async def _stop_workers(workers: list[Worker]) -> None:
    for worker in workers:
        with contextlib.suppress(Exception):
            await worker.ask("stop", timeout=60.0)
    for worker in workers:
        process = worker.process
        if process.returncode is None:
            if process.stdin is not None:
                process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()


async def _stop_dealer(dealer: Dealer) -> str:
    """SIGTERM, then its end (SIGKILL after STOP_WAIT); how it went."""
    process = dealer.process
    if process.returncode is not None:
        return f"it had ended by itself ({process.returncode})"
    start = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), STOP_WAIT)
    except TimeoutError:
        process.kill()
        await process.wait()
        return f"SIGTERM did not end it in {STOP_WAIT:g} s: killed"
    return f"SIGTERM ended it in {time.monotonic() - start:.1f} s ({process.returncode})"


def _report(results: list[Step], facts: dict[str, str], quick: bool) -> str:
    base = results[0]
    rows = []
    for step in results:
        per_room = (step.dealer_rss - base.dealer_rss) / step.rooms if step.rooms else math.nan
        rows.append(
            [
                str(step.rooms),
                str(step.rooms * PLAYERS),
                f"{step.moves:,}" if step.rooms else "-",
                fmt_ms(step.p50),
                fmt_ms(step.p99),
                f"{step.dealer_cpu:.1f}",
                f"{step.dealer_rss:.1f}",
                "-" if math.isnan(per_room) else f"{per_room:.2f}",
                f"{step.dealer_cpu_s * 1000 / step.moves:.2f}" if step.moves else "-",
                "+".join(f"{c:.0f}" for c in step.workers_cpu) or "-",
                f"{step.mosquitto_cpu:.1f}",
            ]
        )
    headers = [
        "rooms",
        "peers",
        "moves",
        "move p50 ms",
        "move p99 ms",
        "dealer CPU % of a core",
        "dealer RSS MB",
        "RSS MB per room",
        "dealer CPU ms per move",
        "bench workers CPU %",
        "Mosquitto CPU %",
    ]
    window = QUICK_WINDOW if quick else WINDOW
    main = table(
        f"one dealer, rooms of {PLAYERS} peers playing {GAME} like people "
        f"(an action each {THINK[0]:g}-{THINK[1]:g} s), {window:g} s per step, "
        f"{WORKERS} worker loops; no replication (one dealer: nothing to fail over to)",
        headers,
        rows,
    )
    detail_rows = [
        [
            str(step.rooms),
            fmt_ms(step.bare_p50),
            fmt_ms(step.bare_p99),
            _fmt_in_dealer(step.in_dealer),
            _fmt_parts(step.in_dealer),
            f"{fmt_ms(step.dealer_lag_p99)} / {fmt_ms(step.dealer_lag_max)}",
            f"{fmt_ms(step.dealer_gc_max)} ({fmt_ms(step.dealer_gc_cpu)})"
            if step.dealer_gc_max
            else "< 0.5",
            "-" if math.isnan(step.dealer_gc_share) else f"{step.dealer_gc_share:.1f}",
            f"{fmt_ms(step.lag_p99)} / {fmt_ms(step.lag_max)}",
            f"{step.slow} ({step.slow_in_gc})" if step.rooms else "-",
            f"{step.in_gc}" if step.rooms else "-",
            fmt_ms(step.p99_without_gc),
            "-" if math.isnan(step.others_cpu) else f"{step.others_cpu:.0f}",
            step.load,
        ]
        for step in results
    ]
    detail = table(
        "where a move's time goes: the same windows",
        [
            "rooms",
            "bare round trip p50 ms",
            "bare p99 ms",
            "an Act in the dealer, read to update written: p50 / p99 ms",
            "p99 of its parts: to handler / handler / outbox / write ms",
            "dealer loop lag p99 / max ms",
            "dealer's longest GC ms (CPU ms)",
            "dealer GC % of a core",
            "workers' loop lag p99 / max ms",
            f"moves > {P99_LIMIT * 1000:.0f} ms (of them in a dealer GC)",
            f"moves in flight during a dealer GC >= {GC_STALL * 1000:.0f} ms",
            "move p99 without those ms",
            "other work CPU %",
            "load avg",
        ],
        detail_rows,
    )
    health_rows = [
        [
            str(step.rooms),
            "-" if math.isnan(step.in_play) else f"{step.in_play:.1f}",
            step.fds,
            str(step.windows) if step.rooms else "-",
            "; ".join(f"{n}x {what}" for what, n in step.errors.most_common(2)) or "none",
        ]
        for step in results
    ]
    health = table(
        "the same windows: rooms, descriptors, failures",
        [
            "rooms",
            "rooms in play (mean)",
            "open fds dealer / Mosquitto",
            f"windows taken (other work > {OTHERS_LIMIT:g} %: again)",
            "failures",
        ],
        health_rows,
    )
    held = [s for s in results[1:] if s.p99 <= P99_LIMIT and not s.errors]
    lines = [
        f"- held at move p99 < {P99_LIMIT * 1000:.0f} ms: "
        + (f"{held[-1].rooms} rooms ({held[-1].rooms * PLAYERS} peers)" if held else "none"),
        f"- stopped: {facts.get('stopped') or 'no: every step held'}",
        f"- {facts['fds']}; load average before {facts['load_before']}, "
        f"after {facts['load_after']}",
        f"- games played to their end: {facts.get('games', '?')}; asks refused for the deal "
        f"rate (asked again): {facts.get('rate_refusals', '?')}",
        f"- all failures: {facts.get('all_errors') or 'none'}",
        f"- the dealer's events: {facts.get('dealer_events') or 'none'}; its log's warnings: "
        f"{facts.get('dealer_warnings') or 'none'}",
        f"- the dealer's stop: {facts.get('dealer_stop', '?')}",
        f"- the workers' logged warnings: {facts.get('worker_warnings') or 'none'}",
    ]
    return "\n".join([main, detail, health, "\n".join(lines)]) + "\n"


def run(*, quick: bool) -> str:
    results, facts = asyncio.run(_bench(quick))
    return _report(results, facts, quick)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.dealer")
    commands = parser.add_subparsers(dest="command")
    worker = commands.add_parser("worker", help="(internal) one loop of peers")
    worker.add_argument("--index", type=int, required=True)
    worker.add_argument("--workers", type=int, required=True)
    worker.add_argument("--host", required=True)
    worker.add_argument("--port", type=int, required=True)
    worker.add_argument("--dealer", required=True)
    worker.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "worker":
        import logging

        logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
        asyncio.run(_worker(args))
        return 0
    print(run(quick=args.quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
