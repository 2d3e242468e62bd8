"""A seat's process as a voter of its room, and the room's next authority
when it wins an election (issue 20; docs/election.md, section 10).

The seat's process keeps playing through its :class:`~net.peer.remote.RemoteTable`
whatever happens here: when this voter wins, it rebuilds the room from the
replicated log (net/authority/replication.py), signs it with a fresh room key that its
announcement names, and runs it as the authority in this process; the
table, like every other seat's, re-pins to the announced key and takes its
seat again there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import msgspec

from core.engine import IllegalAction
from net.authority.authority import Authority
from net.authority.host import (
    advert_phase,
    advertise_taken_over,
    broker_binds,
    shown_address,
)
from net.authority.replication import ReplicaError, RoomReplica, close_quietly, spawn
from net.election.driver import FileStorage, StorageError
from net.election.messages import Config
from net.files import LockHeld, hold_lock, let_go, write_atomic
from net.identity import Identity
from net.paths import data_dir

if TYPE_CHECKING:
    from net.lan.broker import EmbeddedBroker
    from net.lan.discovery import Advertiser

log = logging.getLogger("passe.failover")

# Seconds a person may be away from a table that moved before a bot plays
# for them (the old host's person, above all): as a headless host's default.
STAND_IN_AFTER = 30.0
# Seconds a seated key may go unheard and still count as present.
PRESENCE_TIMEOUT = 60.0
# Seconds a closing voter waits for its standby broker's start to end (the
# broker is then stopped, not left running).
STANDBY_START_WAIT = 10.0
# A table taken over whose advert was refused (the room's code answered for
# on the LAN: a table that stepped down on a machine cut off from the others
# may not know it yet) asks again after this, doubling up to the most.
ADVERT_AGAIN_FIRST = 5.0
ADVERT_AGAIN_MOST = 60.0


def votes_dir() -> Path:
    """Where a seat's process keeps its voter files (one per room)."""
    return data_dir() / "votes"


async def start_standby_broker(port: int = 0) -> tuple[EmbeddedBroker, str]:
    """An embedded broker on a free port (or on ``port`` exactly: a machine
    back from the dead brings its broker back where everyone's lists have
    it), on the addresses the room's own would listen on (this machine's
    LAN addresses and loopback), and the address others reach it at (the
    first that is not loopback)."""
    from net.lan.broker import start_embedded_broker

    binds = broker_binds(None)
    broker = await start_embedded_broker(bind=binds, port=port, tries=1)
    shown = shown_address(binds, binds[0])
    return broker, shown


# A standby broker's start, under way or done: its broker and the address
# others reach it at.
StandbyStart: TypeAlias = "asyncio.Task[tuple[EmbeddedBroker, str]]"


def start_standby(code: str, port: int = 0) -> StandbyStart:
    """A standby broker's start, under way (stop it with stop_standby);
    ``port``: that one exactly (see :func:`start_standby_broker`)."""
    return asyncio.get_running_loop().create_task(
        start_standby_broker(port), name=f"room {code}: a standby broker"
    )


async def stop_standby(start: StandbyStart) -> None:
    """The standby broker of ``start`` stopped, once started: not cancelled
    mid-start (its process would be left behind)."""
    with contextlib.suppress(Exception):
        broker, _ = await asyncio.wait_for(asyncio.shield(start), STANDBY_START_WAIT)
        await broker.stop()


def voter_file(code: str, identity: Identity, directory: Path | None = None) -> Path:
    """The voter file of seat key ``identity`` in room ``code``."""
    return (directory or votes_dir()) / f"{code}-{identity.peer_id}.vote"


def standby_file(code: str, identity: Identity, directory: Path | None = None) -> Path:
    """Where the voter of seat key ``identity`` in room ``code`` notes the
    port of its standby broker (beside its voter file)."""
    return voter_file(code, identity, directory).with_suffix(".standby")


def stored_standby_port(code: str, identity: Identity, directory: Path | None = None) -> int:
    """The port this key's voter's standby broker had in room ``code``, as
    :meth:`SeatVoter._announce_standby` noted it; 0 when none is noted or
    the note does not read as a port (a local file: still checked)."""
    try:
        text = standby_file(code, identity, directory).read_text("ascii")[:16].strip()
    except (OSError, UnicodeDecodeError):
        return 0
    return int(text) if text.isdecimal() and 0 < int(text) < 65536 else 0


def forget_voter(code: str, identity: Identity, directory: Path | None = None) -> bool:
    """Remove this key's voter file for room ``code`` and its standby note,
    the room being over (as :meth:`SeatVoter.close` does at a game's end
    this process saw); False, and nothing removed, while a process holds
    the file (its lock: the game may still be running here)."""
    path = voter_file(code, identity, directory)
    lock = path.with_suffix(".lock")
    if not path.exists():
        return True
    try:
        held = hold_lock(lock)
    except (LockHeld, OSError):
        return False
    try:
        path.unlink(missing_ok=True)
        standby_file(code, identity, directory).unlink(missing_ok=True)
    except OSError as error:
        log.warning("room %s: could not remove this seat's voter file: %s", code, error)
        return False
    finally:
        let_go(lock, held)
    return True


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


@dataclass(frozen=True)
class HandedTable:
    """A table a voter ran, handed over with what it ran on (see
    :meth:`SeatVoter.hand_over_table`): its new owner closes all three."""

    authority: Authority
    broker: EmbeddedBroker | None
    advertiser: Advertiser | None


def table_moved_notice(name: str, *, dealer: bool = False) -> str:
    """What everyone's screen says when the table moved to ``name``'s
    machine (or dealer ``name``): issue 20's words. The person whose
    machine it is reads ``TABLE_MOVED_HERE`` instead (tui/screens/table.py)."""
    holder = f"dealer {name}" if dealer else f"{name}'s machine"
    return f"The table moved to {holder} (it holds the deck now)"


TABLE_MOVED_HERE = "The table moved to your machine (it holds the deck now)"


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
        over: Callable[[], bool] = lambda: False,
        standby: bool = False,
        advertise: bool = True,
        on_brokers: Callable[[list[tuple[str, int]]], None] | None = None,
        on_table: Callable[[Authority], None] | None = None,
        cluster: Sequence[tuple[str, int]] = (),
        directory: Path | None = None,
        dealer: bool = False,
        standby_start: StandbyStart | None = None,
        on_moved: Callable[[tuple[str, int]], None] | None = None,
    ) -> None:
        self.code = code
        self.election = election
        self.host, self.port = host, port
        self.seat_name = seat_name
        # A dealer's voter (net/dealer/): it has no seat, and its table's
        # notice names the dealer rather than a person's machine.
        self.dealer = dealer
        self.room_key = room_key  # the one the seat follows now
        # Whether its files go when it closes: the room is over or closed, or
        # its person left the seat for good (RemoteTable._nothing_to_vote_on).
        self.over = over
        self.authority: Authority | None = None
        self.former_host = ""  # the room's host before this voter took its table
        # A standby broker of our own when the room's dies with its host
        # (the embedded one): started with the voter, stopped with it.
        self.standby = standby
        self.broker: EmbeddedBroker | None = None
        self._standby: StandbyStart | None = None  # its start
        self._standby_start = standby_start  # begun by the seat's process
        self.on_brokers = on_brokers
        # Told of the table this voter runs once it won a term (a dealer
        # serves it to its end: net/dealer/).
        self.on_table = on_table
        self.cluster = tuple(cluster)  # the broker's other nodes (docs/scale.md)
        # The room is advertised on the LAN from here once taken over.
        self.advertise = advertise
        self.advertiser: Advertiser | None = None
        # The table taken over as it starts and is advertised (_run):
        # cancelled when this voter closes, so that an advert that was still
        # probing is not registered after the close, for a dead table (it
        # then answered for the room's code, and the next table's advert
        # was refused: CI, 6 December).
        self._running: asyncio.Task[object] | None = None
        self._advert_update: asyncio.Task[object] | None = None  # the last one (held)
        self.failed: str | None = None  # why this process could not take the table
        self._handed = False  # its table handed over (hand_over_table)
        self._standby_note = standby_file(code, identity, directory)
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
            on_brokers=self._brokers_changed,
            cluster=cluster,
        )
        # A survey found the room's voters on another broker and moved this
        # voter there (net/election/survey.py): its seat's link goes too.
        self.replica.driver.on_moved = on_moved

    async def start(self) -> None:
        # The room's broker first, the standby broker beside it: a voter
        # that waited for its standby broker (a process to start, 0.1-0.5 s)
        # before it connected missed a host killed in the game's first
        # second, knew no other voter's standby broker, and went to its own
        # alone; the others lacked its vote for good (the chaos soak's seed
        # 27, 5 December). Its broker is announced once it is up; a seat's
        # process usually started it in the lobby already (standby_start).
        if self.standby:
            self._standby = self._standby_start or start_standby(self.code)
            spawn(self._announce_standby(self._standby), "this voter's standby broker")
        await self.replica.start()

    async def _announce_standby(self, start: StandbyStart) -> None:
        broker, address = await start
        self.broker = broker
        self.replica.driver.set_standby((address, broker.port))
        # Noted beside the voter file: started again from its files, this
        # process brings it back on the same port, where the others' lists
        # have it (RemoteTable._resume_voter).
        with contextlib.suppress(OSError):
            write_atomic(self._standby_note, str(broker.port).encode("ascii"))

    async def close(self) -> None:
        if self._handed:
            return  # its table, replica, broker and advert are another's now
        running, self._running = self._running, None
        if running is not None and not running.done():
            running.cancel()
            with contextlib.suppress(BaseException):
                await running
        authority = self.authority
        if authority is not None:
            # Mid-game, this process only goes away (the others elect the
            # next authority); at the end it closes the room as any host does.
            await authority.close(keep=authority.phase != "over")  # the replica too
        await close_quietly(self.replica)
        if self.over():
            self.replica.discard()
            self._standby_note.unlink(missing_ok=True)
        if self.advertiser is not None:
            with contextlib.suppress(Exception):
                await self.advertiser.close()
        standby = self._standby or self._standby_start
        if standby is not None:
            await stop_standby(standby)

    def hand_over_table(self) -> HandedTable:
        """The table this voter runs, its game over, for its person to host
        the next game there (its standby broker and LAN advert with it):
        closing this voter then leaves all three to their new owner.
        ``IllegalAction`` unless it runs a table whose game is over."""
        authority = self.authority
        if authority is None or authority.phase != "over" or authority.stepped_down is not None:
            raise IllegalAction("this machine runs no table whose game is over")
        handed = HandedTable(authority, self.broker, self.advertiser)
        # The replica too: the table's voter goes on (its commits are what
        # the table's next messages wait for), closed with the table.
        self._handed = True
        self.authority = None
        self.broker, self.advertiser = None, None
        self._standby = self._standby_start = None
        return handed

    def _brokers_changed(self, succession: list[tuple[str, int]]) -> None:
        authority = self.authority
        if authority is not None:
            authority.follow_brokers(succession)
            authority.voter_brokers_changed()
        if self.on_brokers is not None:
            self.on_brokers(succession)

    def _take_over(self, term: int) -> None:
        """This voter won ``term``: the room goes on here, from the log."""
        try:
            saved = self.replica.rebuild()
        except ReplicaError as error:
            # The voters elected this one, but no game goes on from its log:
            # it says why and steps aside for good (silent, it lets the
            # others' deadlines pass), so that another voter takes the table
            # rather than the whole room waiting on one that runs nothing.
            self.failed = str(error)
            log.error("room %s: won term %d but cannot run the table: %s", self.code, term, error)
            self.replica.driver.abdicate()
            return
        name = self.seat_name()
        # Who hosted it until now: a dealer taking a dealer's table keeps
        # the person who asked for the room as its host (net/dealer/).
        self.former_host = saved.host_name
        room_key = Identity.generate()
        # Announced with the term (the driver publishes it after this call).
        self.replica.driver.room_key = room_key.public_key
        saved = msgspec.structs.replace(saved, authority_key=bytes(room_key.signing_key))
        authority = Authority.restore(saved, self.host, self.port)
        # Where its voters elected it, first: the top of the list may be a
        # broker back from the dead that nobody is on (the room's own, its
        # host's machine back: the table and its players met on two brokers).
        link = self.replica.driver.link
        if link is not None and link.connected:
            authority.start_at = (link.host, link.port)
        authority.cluster = self.cluster
        authority.follow_brokers(self.replica.driver.succession())
        authority.standby = self.standby
        authority.host_name = name
        former = self.room_key()
        if former is not None:
            authority.predecessors.add(former)
        authority.say(table_moved_notice(name, dealer=self.dealer))
        authority.presence_timeout = PRESENCE_TIMEOUT
        authority.adopt_replica(self.replica, self.election)
        self.authority = authority
        log.info("room %s: term %d: the table runs here now", self.code, term)
        self._running = spawn(self._run(authority), "the table taken over")
        if self.on_table is not None:
            self.on_table(authority)

    async def _run(self, authority: Authority) -> None:
        # However long the broker takes: this table is the room's now (a
        # cluster that lost a node refuses subscriptions for a while:
        # docs/scale.md). Closing the voter ends the wait.
        await authority.start(timeout=None)
        # Whoever is away (the old host's person above all) gets a bot after
        # a while, as at a headless host: nobody here decides it.
        authority.watch_away(STAND_IN_AFTER)
        if not self.advertise:
            return
        wait, asked = ADVERT_AGAIN_FIRST, False
        while True:
            advertiser = await advertise_taken_over(authority, self.broker, again=asked)
            asked = True
            if authority.stepped_down is not None:
                # Another table was elected as this one was advertised: its
                # advert is the room's, not this one's.
                if advertiser is not None:
                    await advertiser.close()
                return
            if advertiser is not None:
                self.advertiser = advertiser
                self._advert_follows(authority, advertiser)
                return
            if self.authority is not authority:
                return  # closed or handed on: nobody advertises from here
            await asyncio.sleep(wait)
            wait = min(wait * 2, ADVERT_AGAIN_MOST)

    def _advert_follows(self, authority: Authority, advertiser: Advertiser) -> None:
        """The table's LAN advert says its phase and free seats as they
        change, as a host's does (net/authority/host.py ``update_advert``):
        a game over here read "in play" on the LAN list for good (found by
        hand, 6 December). One update at a time, each with the table as it
        is when its turn comes; none once the advert is not this voter's
        (handed on, withdrawn, stepped down)."""
        lock = asyncio.Lock()
        shown = advertiser.advert
        said = (shown.free_seats, shown.phase) if shown is not None else None

        async def update() -> None:
            async with lock:
                if self.advertiser is not advertiser:
                    return
                with contextlib.suppress(Exception):  # the LAN list is a convenience
                    await advertiser.update(
                        free_seats=authority.free_seats, phase=advert_phase(authority.phase)
                    )

        def changed() -> None:
            nonlocal said
            if self.advertiser is not advertiser or self.authority is not authority:
                authority.on_change.remove(changed)
                return
            now = (authority.free_seats, advert_phase(authority.phase))
            if now != said:
                said = now
                self._advert_update = spawn(update(), "the LAN advert's update")

        authority.on_change.append(changed)
        changed()  # what changed while the advert was being made

    def _stepped_down(self, term: int) -> None:
        authority = self.authority
        if authority is not None:
            authority.step_down(term)
        # The room is advertised by the table of ``term`` now: this one's
        # advert, left, answered for the room's code and pointed a person
        # who came back at a table that runs nothing.
        advertiser, self.advertiser = self.advertiser, None
        if advertiser is not None:
            spawn(advertiser.close(), "a stepped-down table's advert's withdrawal")


__all__ = [
    "STAND_IN_AFTER",
    "TABLE_MOVED_HERE",
    "HandedTable",
    "SeatVoter",
    "standby_file",
    "stored_election",
    "stored_standby_port",
    "table_moved_notice",
    "voter_file",
    "votes_dir",
]
