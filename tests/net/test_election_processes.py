"""The election core through its MQTT driver, voters as real processes on a
real broker (issue 20): an authority is elected, acknowledges requests once
each, is SIGKILLed; the others elect a successor that holds every
acknowledged entry, answers a re-sent request with its first answer, and the
killed voter comes back from its file as a follower that catches up. The
core's rules are checked over simulated hostile networks in
test_election_model.py; this is the same core over sockets, files and
processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TypeVar

import msgspec
import pytest
from nacl.signing import SigningKey

from net.broker import start_embedded_broker
from net.election import messages, shares
from net.election.driver import FileStorage, election_topic
from net.election.messages import Answer, Entry, Request, Voter
from net.election.node import Persisted
from net.identity import Identity, peer_id
from net.transport import MqttLink
from net.wire import WireError, open_body, open_envelope, seal
from tests.net.brokers import require_mosquitto, start_mosquitto
from tests.net.procs import PasseProcess

CODE = "ELECT1"
DEADLINE = 20.0
_answers = msgspec.msgpack.Decoder(messages.Message)
T = TypeVar("T")


class Seat:
    """A seat's process as the core sees it: it sends requests to whoever is
    authority and waits for their answer (docs/election.md, "Clients")."""

    def __init__(self, identity: Identity, host: str, port: int) -> None:
        self.identity = identity
        self.topic = election_topic(CODE, identity.peer_id)
        self.answers: dict[int, Answer] = {}
        self.arrived = asyncio.Event()
        self.link = MqttLink(host, port, subscriptions=[self.topic], on_message=self._on_message)

    async def _on_message(self, topic: str, payload: bytes) -> None:
        try:
            envelope = open_envelope(topic, payload)
            answer = open_body(envelope, _answers, self.identity)
        except WireError:
            return
        if isinstance(answer, Answer) and answer.status == "acknowledged":
            self.answers.setdefault(answer.nonce, answer)
            self.arrived.set()

    async def ask(self, authority: bytes, nonce: int, timeout: float) -> Answer | None:
        """Send request ``nonce`` to ``authority``; its acknowledgement, or
        None when none came within ``timeout`` seconds."""
        topic = election_topic(CODE, peer_id(authority))
        request = Request(nonce=nonce, data=f"move {nonce}".encode())
        await self.link.publish(topic, seal(self.identity, topic, request, authority))
        try:
            async with asyncio.timeout(timeout):
                while nonce not in self.answers:
                    self.arrived.clear()
                    await self.arrived.wait()
        except TimeoutError:
            return None
        return self.answers[nonce]


@pytest.fixture(params=["embedded", "mosquitto"])
async def broker(request: pytest.FixtureRequest) -> AsyncIterator[tuple[str, int]]:
    """A broker that outlives every voter (the embedded one in a process of
    its own here: with the game, it dies with the host's machine, and the
    room's broker list takes over, docs/election.md)."""
    if request.param == "embedded":
        embedded = await start_embedded_broker("127.0.0.1", 0)
        try:
            yield embedded.host, embedded.port
        finally:
            await embedded.stop()
        return
    require_mosquitto()
    with start_mosquitto() as mosquitto:
        yield "127.0.0.1", mosquitto.port


class Lines:
    """Every voter's JSON lines as they come (into ``PasseProcess.lines``),
    and a wait for a condition on them: several voters are watched at once."""

    def __init__(self) -> None:
        self.changed = asyncio.Event()
        self._readers: dict[str, asyncio.Task[None]] = {}

    def follow(self, voter: PasseProcess) -> None:
        self._readers[voter.name] = asyncio.create_task(self._read(voter))

    async def _read(self, voter: PasseProcess) -> None:
        assert voter.process is not None and voter.process.stdout is not None
        voter.lines = []
        while raw := await voter.process.stdout.readline():
            voter.lines.append(json.loads(raw))
            self.changed.set()

    async def forget(self, voter: PasseProcess) -> None:
        reader = self._readers.pop(voter.name, None)
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader

    async def until(self, condition: Callable[[], T | None], what: str) -> T:
        try:
            async with asyncio.timeout(DEADLINE):
                while (found := condition()) is None:
                    self.changed.clear()
                    await self.changed.wait()
        except TimeoutError:
            raise AssertionError(f"no {what} within {DEADLINE} s") from None
        return found


def _authority_of(voters: list[PasseProcess], above: int) -> tuple[int, str] | None:
    """The authority every voter names last, if they agree on one of a term
    above ``above``."""
    named = set()
    for voter in voters:
        latest = [
            (line["term"], line["key"])
            for line in voter.lines
            if line.get("event") == "authority" and line["term"] > above
        ]
        named.add(latest[-1] if latest else None)
    if len(named) == 1 and None not in named:
        return named.pop()
    return None


def _applied(voter: PasseProcess) -> list[tuple[int, int]]:
    """(index, nonce) of the actions a voter applied, in order."""
    return [
        (line["index"], line["nonce"])
        for line in voter.lines
        if line.get("event") == "applied" and line["kind"] == "action"
    ]


async def test_a_killed_authority_is_succeeded_and_nothing_acknowledged_is_lost(
    tmp_path: Path, broker: tuple[str, int]
) -> None:
    host, port = broker
    rng = random.Random(20)
    identities = [Identity(SigningKey(rng.randbytes(32))) for _ in range(3)]
    config, _secret = shares.make_config(
        identities[0], [Voter(identity.public_key, dealer=False) for identity in identities]
    )
    first = Entry(0, "config", identities[0].public_key, 0, messages.encode(config))
    voters: list[PasseProcess] = []
    arguments: list[tuple[str, ...]] = []
    for number, identity in enumerate(identities):
        voter = PasseProcess(f"voter{number}", tmp_path)
        key_file = voter.home / "key"
        key_file.write_text(bytes(identity.signing_key).hex())
        storage = voter.home / "election.bin"
        FileStorage.create(storage, Persisted(0, None, (first,)))
        arguments.append(
            (
                *("--code", CODE, "--broker", f"{host}:{port}"),
                *("--key", str(key_file), "--storage", str(storage)),
            )
        )
        voters.append(voter)
    seat = Seat(Identity(SigningKey(rng.randbytes(32))), host, port)
    await seat.link.start()
    lines = Lines()
    try:
        for voter, args in zip(voters, arguments, strict=True):
            await voter.start(*args, module="tests.net.election_voter")
            lines.follow(voter)
        term, key = await lines.until(lambda: _authority_of(voters, 0), "authority")
        authority = bytes.fromhex(key)
        acknowledged = {}
        for nonce in range(1, 6):
            answer = await seat.ask(authority, nonce, DEADLINE)
            assert answer is not None, f"request {nonce} was not acknowledged"
            acknowledged[nonce] = answer.index

        # The authority's machine dies.
        fallen = voters[[i.public_key for i in identities].index(authority)]
        await lines.forget(fallen)
        fallen.kill()
        await fallen.finish()
        others = [voter for voter in voters if voter is not fallen]
        # A request sent to it now is never answered; once a successor is
        # elected, the same request (same nonce) goes to it.
        assert await seat.ask(authority, 6, 0.5) is None
        term2, key2 = await lines.until(lambda: _authority_of(others, term), "successor")
        successor = bytes.fromhex(key2)
        assert successor != authority
        answer = await seat.ask(successor, 6, DEADLINE)
        assert answer is not None and answer.term == term2
        acknowledged[6] = answer.index
        # A request acknowledged before the failover, sent again: its first
        # answer, never a second entry.
        seat.answers.pop(5)
        again = await seat.ask(successor, 5, DEADLINE)
        assert again is not None and again.index == acknowledged[5]

        # The fallen voter comes back from its file, a follower that catches up.
        index_of = sorted((index, nonce) for nonce, index in acknowledged.items())
        await fallen.start(*arguments[voters.index(fallen)], module="tests.net.election_voter")
        lines.follow(fallen)
        # Every voter applied every acknowledged action once, at the index
        # its acknowledgement named (the fallen one: again from its restart).
        await lines.until(
            lambda: all(len(_applied(voter)) >= 6 for voter in voters) or None, "catch-up"
        )
        for voter in voters:
            assert _applied(voter) == index_of, voter.name
        assert _authority_of([fallen], term) == (term2, key2)
    except BaseException:
        for voter in voters:
            await lines.forget(voter)
            print(await voter.report())
        raise
    finally:
        await seat.link.close(graceful=False)
        for voter in voters:
            await lines.forget(voter)
            await voter.stop()
