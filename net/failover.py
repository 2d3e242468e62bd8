"""A seat's process as a voter of its room, and the room's next authority
when it wins an election (issue 20; docs/election.md, section 10).

The seat's process keeps playing through its :class:`~net.remote.RemoteTable`
whatever happens here: when this voter wins, it rebuilds the room from the
replicated log (net/replication.py), signs it with a fresh room key that its
announcement names, and runs it as the authority in this process; the
table, like every other seat's, re-pins to the announced key and takes its
seat again there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import msgspec

from net.authority import Authority
from net.election.driver import FileStorage, StorageError
from net.election.messages import Config
from net.identity import Identity
from net.paths import data_dir
from net.replication import ReplicaError, RoomReplica, close_quietly, spawn

log = logging.getLogger("passe.failover")

# Seconds a person may be away from a table that moved before a bot plays
# for them (the old host's person, above all): as a headless host's default.
STAND_IN_AFTER = 30.0
# Seconds a seated key may go unheard and still count as present.
PRESENCE_TIMEOUT = 60.0


def votes_dir() -> Path:
    """Where a seat's process keeps its voter files (one per room)."""
    return data_dir() / "votes"


def voter_file(code: str, identity: Identity, directory: Path | None = None) -> Path:
    """The voter file of seat key ``identity`` in room ``code``."""
    return (directory or votes_dir()) / f"{code}-{identity.peer_id}.vote"


def stored_election(code: str, identity: Identity, directory: Path | None = None) -> bytes | None:
    """The room's election config (encoded, as a room state carries it) that
    this key's voter file for room ``code`` holds, if there is one: a
    process restarted from its files votes again from it at once, whatever
    the broker shows (a successor's room state, signed by a key it does not
    know yet, or an older term's)."""
    path = voter_file(code, identity, directory)
    if not path.exists():
        return None
    try:
        persisted = FileStorage(path).load()
    except StorageError as error:
        log.warning("room %s: this seat's voter file is not read: %s", code, error)
        return None
    return persisted.log[0].data


class SeatVoter:
    """The voter of seat key ``identity`` in room ``code``, and the
    authority it runs after winning a term (``authority``)."""

    def __init__(
        self,
        identity: Identity,
        code: str,
        config: Config,
        election: bytes,
        host: str,
        port: int,
        *,
        seat_name: Callable[[], str],
        room_key: Callable[[], bytes | None],
        directory: Path | None = None,
    ) -> None:
        self.code = code
        self.election = election
        self.host, self.port = host, port
        self.seat_name = seat_name
        self.room_key = room_key  # the one the seat follows now
        self.authority: Authority | None = None
        self.failed: str | None = None  # why this process could not take the table
        self.replica = RoomReplica(
            identity,
            code,
            config,
            voter_file(code, identity, directory),
            host,
            port,
            maker=config.sealer,
            on_won=self._take_over,
            on_stepped_down=self._stepped_down,
        )

    async def start(self) -> None:
        await self.replica.start()

    async def close(self) -> None:
        if self.authority is not None:
            await self.authority.close()  # closes the replica too
        await close_quietly(self.replica)

    def _take_over(self, term: int) -> None:
        """This voter won ``term``: the room goes on here, from the log."""
        try:
            saved = self.replica.rebuild()
        except ReplicaError as error:
            # The voters elect, but no game can go on from this log: it says
            # why, and the room waits for its host's resume, as without one.
            self.failed = str(error)
            log.error("room %s: won term %d but cannot run the table: %s", self.code, term, error)
            return
        name = self.seat_name()
        room_key = Identity.generate()
        # Announced with the term (the driver publishes it after this call).
        self.replica.driver.room_key = room_key.public_key
        saved = msgspec.structs.replace(saved, authority_key=bytes(room_key.signing_key))
        authority = Authority.restore(saved, self.host, self.port)
        authority.host_name = name
        former = self.room_key()
        if former is not None:
            authority.predecessors.add(former)
        authority.say(f"The table moved to {name}'s machine (it holds the deck now)")
        authority.presence_timeout = PRESENCE_TIMEOUT
        authority.adopt_replica(self.replica, self.election)
        self.authority = authority
        log.info("room %s: term %d: the table runs here now", self.code, term)
        spawn(self._run(authority), "the table taken over")

    @staticmethod
    async def _run(authority: Authority) -> None:
        await authority.start()
        # Whoever is away (the old host's person above all) gets a bot after
        # a while, as at a headless host: nobody here decides it.
        authority.watch_away(STAND_IN_AFTER)

    def _stepped_down(self, term: int) -> None:
        authority = self.authority
        if authority is not None:
            authority.step_down(term)


__all__ = ["STAND_IN_AFTER", "SeatVoter", "stored_election", "voter_file", "votes_dir"]
