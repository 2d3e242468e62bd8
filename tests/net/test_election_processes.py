"""The election core through its MQTT driver, voters as real processes on a
real broker (issue 20): an authority is elected, acknowledges requests once
each, is SIGKILLed; the others elect a successor that holds every
acknowledged entry, answers a re-sent request with its first answer, and the
killed voter comes back from its file as a follower that catches up. Only
the authority of a term ever reads an action: the log is ciphertext under
the room secret everywhere else, on disk too. Two voters claiming the same
term at once (the forced race) make exactly one authority. The
core's rules are checked over simulated hostile networks in
test_election_model.py; this is the same core over sockets, files and
processes."""

from __future__ import annotations

import asyncio
import random
import signal
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
import pytest
from nacl.signing import SigningKey

from net.election import messages
from net.election.driver import election_topic
from net.election.messages import Answer, Request
from net.identity import Identity, peer_id
from net.lan.transport import MqttLink
from net.protocol.wire import WireError, open_body, open_envelope, seal
from tests.net.brokers import broker_at
from tests.net.election_procs import (
    CODE,
    DEADLINE,
    VOTER,
    Lines,
    applied,
    authority_of,
    make_voters,
)
from tests.net.procs import PasseProcess

_answers = msgspec.msgpack.Decoder(messages.Message)


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
            envelope = open_envelope(topic, payload, identity=self.identity)
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
    async with broker_at(request.param) as where:
        yield where


async def test_a_killed_authority_is_succeeded_and_nothing_acknowledged_is_lost(
    tmp_path: Path, broker: tuple[str, int]
) -> None:
    host, port = broker
    rng = random.Random(20)
    identities, voters, arguments = make_voters(tmp_path, 3, rng, f"{host}:{port}")
    seat = Seat(Identity(SigningKey(rng.randbytes(32))), host, port)
    await seat.link.start()
    lines = Lines()
    try:
        for voter, args in zip(voters, arguments, strict=True):
            await voter.start(*args, module=VOTER)
            lines.follow(voter)
        term, key = await lines.until(lambda: authority_of(voters, 0), "authority")
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
        term2, key2 = await lines.until(lambda: authority_of(others, term), "successor")
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
        await fallen.start(*arguments[voters.index(fallen)], module=VOTER)
        lines.follow(fallen)
        # Every voter applied every acknowledged action once, at the index
        # its acknowledgement named (the fallen one: again from its restart).
        await lines.until(
            lambda: all(len(applied(voter)) >= 6 for voter in voters) or None, "catch-up"
        )
        for voter in voters:
            assert applied(voter) == index_of, voter.name
        assert authority_of([fallen], term) == (term2, key2)

        # Nobody peeks (issue 20): only the authority of a term reads the
        # actions; every voter's file holds them as ciphertext; the
        # successor, having won a majority's shares, reads the whole log.
        for number, voter in enumerate(voters):
            own = identities[number].public_key.hex()
            holds = False  # the authority of the newest term it knows of
            for line in voter.lines:
                if line.get("event") == "authority":
                    holds = line["key"] == own
                elif line.get("event") == "applied" and line["kind"] == "action":
                    assert (line["plain"] is not None) == holds, (voter.name, line)
                    if holds:
                        assert line["plain"] == f"move {line['nonce']}"
            stored = (voter.home / "election.bin").read_bytes()
            assert b"move " not in stored, f"{voter.name} keeps an action in clear"
        successor_lines = voters[[i.public_key for i in identities].index(successor)].lines
        deck = [line for line in successor_lines if line.get("event") == "holds_deck"]
        assert deck and deck[-1]["readable"] == deck[-1]["actions"] >= 5, deck
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


async def test_two_voters_claiming_the_same_term_at_once_make_one_authority(
    tmp_path: Path, broker: tuple[str, int]
) -> None:
    """Issue 20's forced race, through real processes and a real broker:
    five voters, an authority elected; two followers are signalled together
    and each claims the next term at once (no pre-vote: the test voter's
    SIGUSR1). Each voter grants one vote per term, persisted first, so
    exactly one of them wins that term: every voter names the same
    authority for it, the other claimant follows it, and the old authority
    steps down. Repeated (seeded) until a round had both claim the very
    same term, which is the race; each round checked."""
    host, port = broker
    rng = random.Random(23)
    identities, voters, arguments = make_voters(tmp_path, 5, rng, f"{host}:{port}")
    keys = [identity.public_key.hex() for identity in identities]
    lines = Lines()
    try:
        for voter, args in zip(voters, arguments, strict=True):
            await voter.start(*args, module=VOTER)
            lines.follow(voter)
        await lines.until(lambda: all(_said(v, "ready") for v in voters) or None, "ready")
        term, key = await lines.until(lambda: authority_of(voters, 0), "authority")
        raced = 0
        for _ in range(5):
            followers = [v for v, k in zip(voters, keys, strict=True) if k != key]
            pair = rng.sample(followers, 2)
            before = [len(_said(v, "claimed")) for v in pair]
            for voter in pair:
                assert voter.process is not None
                voter.process.send_signal(signal.SIGUSR1)
            claims = await lines.until(partial(_claims, pair, before), "claims")
            # One authority for each term claimed: everyone names the same
            # one (at most one per term is what the votes guarantee; here
            # the three others' votes always make one).
            new_term, named = await lines.until(partial(_race_outcome, voters, term), "winner")
            assert isinstance(named, str), f"two authorities of term {new_term}: {named}"
            raced += len(set(claims)) == 1
            term, key = new_term, named
            if raced:
                break
        assert raced, "the two claims never fell in the same term"
    except BaseException:
        for voter in voters:
            await lines.forget(voter)
            print(await voter.report())
        raise
    finally:
        for voter in voters:
            await lines.forget(voter)
            await voter.stop()


def _said(voter: PasseProcess, event: str) -> list[dict[str, Any]]:
    return [line for line in voter.lines if line.get("event") == event]


def _race_outcome(
    voters: list[PasseProcess], above: int
) -> tuple[int, str] | tuple[int, set[str]] | None:
    """The authority all voters name for a term above ``above``, once they
    agree; or a term for which two voters were named (the race lost)."""
    named: dict[int, set[str]] = {}
    for voter in voters:
        for line in _said(voter, "authority"):
            named.setdefault(int(line["term"]), set()).add(str(line["key"]))
    for term, keys in named.items():
        if len(keys) > 1:
            return term, keys
    return authority_of(voters, above)


def _claims(pair: list[PasseProcess], before: list[int]) -> list[int] | None:
    """The terms the two claimed, once each has claimed again."""
    if all(len(_said(v, "claimed")) > n for v, n in zip(pair, before, strict=True)):
        return [int(_said(v, "claimed")[-1]["term"]) for v in pair]
    return None
