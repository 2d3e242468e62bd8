"""Voters and seats of the election as real processes, for its tests
(tests/net/test_election_processes.py, test_election_partition.py): the
room's set-up on disk, and their JSON lines watched together."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from nacl.signing import SigningKey

from net.election import messages, shares
from net.election.driver import FileStorage
from net.election.messages import Entry, Voter
from net.election.node import Persisted
from net.identity import Identity
from tests.net.procs import PasseProcess

CODE = "ELECT1"
DEADLINE = 30.0
VOTER = "tests.net.election_voter"
SEAT = "tests.net.election_seat"
T = TypeVar("T")


def make_voters(
    home: Path,
    count: int,
    rng: random.Random,
    broker: str,
    wraps: list[tuple[str, ...]] | None = None,
) -> tuple[list[Identity], list[PasseProcess], list[tuple[str, ...]]]:
    """``count`` voters of one room (every one a share holder): their keys,
    their processes (not started; ``wraps[i]`` runs voter i elsewhere, e.g.
    in a network namespace) and their arguments, their files made."""
    identities = [Identity(SigningKey(rng.randbytes(32))) for _ in range(count)]
    config, _secret = shares.make_config(
        identities[0], [Voter(identity.public_key, dealer=False) for identity in identities]
    )
    first = Entry(0, "config", identities[0].public_key, 0, messages.encode(config))
    voters: list[PasseProcess] = []
    arguments: list[tuple[str, ...]] = []
    for number, identity in enumerate(identities):
        wrap = wraps[number] if wraps is not None else ()
        voter = PasseProcess(f"voter{number}", home, wrap=wrap)
        key_file = write_key(voter.home, identity)
        storage = voter.home / "election.bin"
        FileStorage.create(storage, Persisted(0, None, (first,)))
        arguments.append(
            (
                *("--code", CODE, "--broker", broker),
                *("--key", str(key_file), "--storage", str(storage)),
            )
        )
        voters.append(voter)
    return identities, voters, arguments


def write_key(directory: Path, identity: Identity) -> Path:
    key_file = directory / "key"
    key_file.write_text(bytes(identity.signing_key).hex())
    return key_file


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


def authority_of(voters: list[PasseProcess], above: int) -> tuple[int, str] | None:
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


def applied(voter: PasseProcess) -> list[tuple[int, int]]:
    """(index, nonce) of the actions a voter applied, in order."""
    return [
        (line["index"], line["nonce"])
        for line in voter.lines
        if line.get("event") == "applied" and line["kind"] == "action"
    ]
