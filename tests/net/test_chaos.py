"""Seeded chaos: whole networked games while processes die and brokers restart.

Each scenario is drawn from its seed alone: the game, the number of seats, how
many of them are played by peers in their own processes (headless bots), and
a schedule of faults, each set off by a peer's own moves (never by a clock):

- ``kill_peer``: a peer is killed (SIGKILL) and started again on the same key;
- ``kill_host``: the host is killed and resumed with ``passe host --resume``
  (with the embedded broker, its broker child goes with it);
- ``restart_broker``: the Mosquitto the room uses is stopped and started again
  on the same port, with nothing retained (Mosquitto scenarios only);
- ``kill_authority`` (issue 20), in place of ``kill_host`` in a room of three
  or more people's machines, which fails over by default: the process that
  runs the table is killed, the host first and later the peer that won the
  table; the others elect a successor, everyone sees the table move, and a
  killed peer comes back on its key as a player (the host does not: its
  seat is a bot's, played by the successor). With the embedded broker the
  host's broker goes with it: the room moves to the winner's standby
  broker, and later faults are not drawn (a restarted peer would need the
  LAN listing to find it).

In two Mosquitto scenarios of three a bot plays for a peer as soon as it is
away (``--stand-in-after``) and hands the seat back when the peer returns;
the game may then end while a peer is away, and the peer, back, must learn
the end from the revealed record.

Every game must end, and end the same for everyone: each peer's winners and
scores are the host's, and each peer checked the revealed deal against the
commitment it saw at the start and, replayed, against every view and event
it received (issue 20: no false alarm across kills, resumes and Syncs).
``make test`` runs three seeds (one per broker, and one that fails over);
``make soak`` runs forty
(``PASSE_CHAOS_SEEDS=500 make soak``: more). A failure names its seed: run
that one alone (``PASSE_SOAK=1 pytest -m soak tests/net/test_chaos.py -k
seed-17-``) with ``PASSE_LOG=debug`` to see every message.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from core.registry import get_game
from net.authority.rooms import room_path
from tests.core.sampler_checks import skip_unless_soak
from tests.net.brokers import Mosquitto, require_mosquitto, start_mosquitto
from tests.net.procs import PasseProcess, host_args

GAMES = ("passpass", "dominoes", "fashion")
FAULTS = ("kill_peer", "kill_host", "restart_broker")
# A room that fails over (three or more people's machines): its host is not
# resumed, the table moves (the same draws, so seeds keep their shape).
FAILOVER_FAULTS = ("kill_peer", "kill_authority", "restart_broker")
# `make soak` runs this many seeds; PASSE_CHAOS_SEEDS=500 runs more.
SOAK_SEEDS = int(os.environ.get("PASSE_CHAOS_SEEDS", "40"))
# The ones `make test` runs: 16 is a room that fails over (its authority
# killed, then two peers).
QUICK_SEEDS = {0: "mosquitto", 1: "embedded", 16: "mosquitto"}


@dataclass
class Scenario:
    seed: int
    broker: str  # "mosquitto" (our own, on a free port) or "embedded"
    game: str = ""
    players: int = 0
    peers: int = 0
    faults: list[tuple[str, int, int]] = field(default_factory=list)  # (fault, peer, after)
    failover: bool = False
    # Seconds before a bot plays for a peer that is away (0: never): short,
    # so that a killed peer's seat is often played by a bot, then handed back.
    stand_in_after: float = 0.0

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        self.game = rng.choice(GAMES)
        self.players = rng.choice(get_game(self.game).info.solo_player_counts[:3])
        self.peers = rng.randint(1, min(self.players, 3))
        # The host's process and two peers' or more: failover, on by default.
        self.failover = self.peers >= 2
        faults = FAILOVER_FAULTS if self.failover else FAULTS
        kinds = faults if self.broker == "mosquitto" else faults[:2]
        # Early in the game (a peer acts at least a dozen times in any of them),
        # so that the faults fall while there is a game to disturb.
        self.faults = [
            (rng.choice(kinds), rng.randrange(self.peers), rng.randint(1, 4))
            for _ in range(rng.randint(2, 3))
        ]
        stand_in_after = rng.choice([0.0, 0.05, 0.3])
        # With the embedded broker, a game that ends while a peer is away
        # ends its host and broker with it: that peer could never hear of it.
        self.stand_in_after = stand_in_after if self.broker == "mosquitto" else 0.0


def scenarios() -> Iterator[Any]:
    for seed in range(SOAK_SEEDS):
        broker = QUICK_SEEDS.get(seed, "mosquitto" if seed % 2 == 0 else "embedded")
        marks = [] if seed in QUICK_SEEDS else [pytest.mark.soak]
        yield pytest.param(Scenario(seed, broker), id=f"seed-{seed}-{broker}", marks=marks)


class Table:
    """The processes of one scenario."""

    def __init__(self, scenario: Scenario, home: Path, broker: Mosquitto | None) -> None:
        self.scenario = scenario
        self.broker = broker
        # The embedded broker binds a free port itself (--port 0) and the
        # host reports it: ``where`` is known once the room is open.
        self.where = f"127.0.0.1:{broker.port}" if broker is not None else ""
        self.host = PasseProcess("host", home)
        self.peers = [PasseProcess(f"peer{n}", home) for n in range(scenario.peers)]
        self.code = ""
        self.runner: int | None = None  # the peer that runs the table (None: the host)
        self.host_gone = False  # killed in a room that failed over: not resumed
        self.term = 1
        self.host_over: dict[str, Any] | None = None
        self.peer_over: dict[int, dict[str, Any]] = {}
        self.log: list[str] = []

    def join_args(self, n: int) -> tuple[str, ...]:
        name, seed = f"Peer{n}", str(self.scenario.seed * 10 + n)
        return ("join", f"{self.code}@{self.where}", "--bot", "heuristic", "--name", name,
                "--seed", seed)  # fmt: skip

    async def open(self) -> None:
        s = self.scenario
        broker = {"broker": self.where} if self.broker is not None else {"port": 0}
        await self.host.start(
            *host_args(s.game, s.players, wait_for=s.peers, bot_delay=0, seed=s.seed, **broker),
            *("--stand-in-after", str(s.stand_in_after)),
        )
        room = await self.host.expect("room")
        self.code, self.where = room["code"], room["broker"]
        for n, peer in enumerate(self.peers):
            await peer.start(*self.join_args(n))
            await peer.expect("seated")
        await self.host.expect("started")

    async def moves_of(self, n: int, count: int) -> bool:
        """Until peer ``n`` has acted ``count`` more times; False if its game ended."""
        for _ in range(count):
            line = await self.peers[n].expect_any(("acted", "over"))
            if line["event"] == "over":
                self.peer_over[n] = line
                return False
        return True

    async def kill_peer(self, n: int) -> None:
        if n == self.runner:
            await self.kill_authority()
            return
        peer = self.peers[n]
        peer.kill()
        await peer.finish()
        await self.restart_peer(n)

    async def restart_peer(self, n: int) -> None:
        peer = self.peers[n]
        await peer.start(*self.join_args(n))  # the same key, on its disk
        line = await peer.expect_any(("seated", "over"))
        if line["event"] == "over":
            self.peer_over[n] = line

    async def _killed_host_had_finished(self) -> bool:
        """Kill the host; whether it had finished the game as it was killed
        (its result kept then)."""
        self.host.kill()
        await self.host.finish()
        over = next((line for line in self.host.lines if line.get("event") == "over"), None)
        if over is not None:
            self.host_over = over
            return True
        if not room_path(self.code, self.host.home / "data" / "rooms").exists():
            # Killed between the game's end (its room file removed) and its
            # "over" line (CI under load, seed 0): nothing to resume; the
            # peers' results must agree instead (a host that lost its file
            # mid-game would leave them waiting: the test fails then).
            self.host_gone = True
            return True
        return False

    async def kill_host(self) -> None:
        if await self._killed_host_had_finished():
            return
        where = ["--broker", self.where] if self.broker is not None else []
        stand_in = ["--stand-in-after", str(self.scenario.stand_in_after)]
        await self.host.start("host", "--resume", "--headless", "--no-advertise", *where, *stand_in)
        resumed = await self.host.expect("room")
        assert (resumed["code"], resumed["broker"]) == (self.code, self.where)

    async def kill_authority(self) -> None:
        """Kill whoever runs the table; the others elect a successor and see
        the table move; a killed peer comes back on its key, as a player."""
        killed = self.runner
        if killed is None:
            if await self._killed_host_had_finished():
                return
            self.host_gone = True
        else:
            # Its person starts it again at once, from its files: its vote
            # may be the majority's (the host's is gone for good).
            self.peers[killed].kill()
            await self.peers[killed].finish()
            await self.restart_peer(killed)
        # The others see the table move (the restarted one may learn it
        # while it joins, without a "moved" line).
        others = [n for n in range(len(self.peers)) if n != killed]
        terms = []
        for n in others:
            line = await self.peers[n].expect_any(("moved", "over"))
            if line["event"] == "over":
                self.peer_over[n] = line
                return
            terms.append(line["term"])
        assert len(set(terms)) == 1 and terms[0] > self.term, terms
        self.term = terms[0]
        ran_here = f"term {self.term}: the table runs here now".encode()
        (self.runner,) = [n for n, peer in enumerate(self.peers) if ran_here in peer.stderr]
        self.log.append(f"the table moved to peer {self.runner} (term {self.term})")

    async def restart_broker(self) -> None:
        assert self.broker is not None
        await asyncio.to_thread(self.broker.restart)

    async def play(self) -> None:
        for fault, n, after in self.scenario.faults:
            if not await self.moves_of(n, after):
                break  # that peer's game is over: no more faults
            self.log.append(f"{fault} (peer {n}, after {after} moves)")
            if fault == "kill_peer":
                await self.kill_peer(n)
            elif fault == "kill_host":
                await self.kill_host()
                if self.host_over is not None:
                    break
            elif fault == "kill_authority":
                await self.kill_authority()
                if self.host_over is not None or self.peer_over:
                    break
                if self.broker is None:
                    break  # the room is on the winner's standby broker now
            else:
                await self.restart_broker()
        if self.host_over is None and not self.host_gone:
            self.host_over = await self.host.expect("over")
        for n, peer in enumerate(self.peers):
            if n not in self.peer_over:
                self.peer_over[n] = await peer.expect("over")

    async def report(self) -> str:
        parts = [f"{self.scenario}", "faults done: " + "; ".join(self.log)]
        for process in (self.host, *self.peers):
            parts.append(await process.report())
        return "\n".join(parts)

    async def stop(self) -> None:
        for process in (self.host, *self.peers):
            await process.stop()


@pytest.mark.parametrize("scenario", scenarios())
@pytest.mark.long
async def test_a_game_survives_its_faults(
    scenario: Scenario,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if scenario.seed not in QUICK_SEEDS:
        skip_unless_soak(request)
    if os.environ.get("PASSE_LOG", "").lower() != "debug":
        # "term N: the table runs here now" names the runner (kill_authority).
        monkeypatch.setenv("PASSE_LOG", "info")
    with contextlib.ExitStack() as stack:
        broker = None
        if scenario.broker == "mosquitto":
            require_mosquitto()
            broker = stack.enter_context(start_mosquitto())
        table = Table(scenario, tmp_path, broker)
        try:
            await table.open()
            await table.play()
            over = table.host_over
            if table.host_gone:  # the table moved for good: the peers agree
                first = table.peer_over[0]
                over = {"result": {"winners": first["winners"], "scores": first["scores"]}}
            assert over is not None and over["result"] is not None
            for n, line in sorted(table.peer_over.items()):
                assert line["winners"] == over["result"]["winners"], f"peer {n}"
                assert line["scores"] == over["result"]["scores"], f"peer {n}"
                # Issue 20: the record replayed gives all it was shown (in
                # part after a restart); a false alarm names its mismatch.
                assert line["deal_verified"] is True, f"peer {n}: {line.get('deal_report')}"
            if not table.host_gone:
                assert await table.host.finish() == 0
            print(f"seed {scenario.seed}: faults done: " + "; ".join(table.log))  # pytest -s
        except BaseException:
            print(await table.report())
            raise
        finally:
            await table.stop()
