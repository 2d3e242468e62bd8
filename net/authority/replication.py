"""A game's room on the elected authority (issue 20; docs/election.md,
section 10): the room's saves, replicated through the election layer.

The authority keeps its room as it always has (net/authority/rooms.py: a snapshot,
then one journal entry per change); with failover on, each save is also an
entry of the replicated log, under the room secret: the room as it started
(:class:`BaseEntry`, without the authority's private key), then what changed
since the entry before (:class:`DeltaEntry`, a journal entry). Nothing that
follows from a change leaves the authority before that change's entry is
committed, that is durable on a majority of the room's voters (the
authority's outbox waits for it: ``Outbox.barrier``), so whatever anyone was
shown is in every later authority's log.

A voter that wins an election rebuilds the room from its log
(:meth:`RoomReplica.rebuild`), with a key of its own (the room's key changes
with the authority: its announcement, signed by a voter of the room's
config, names it), and carries on from the last acknowledged change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection, Coroutine, Sequence
from pathlib import Path
from typing import Any, Final

import msgspec

from net.authority.rooms import JournalEntry, SavedRoom, extended, journal_entry, room_problem
from net.election import shares
from net.election.driver import FileStorage, StorageError, VoterDriver, first_persisted
from net.election.messages import MAX_ENTRY_DATA, Config, Entry, Voter, decode_config, encode
from net.files import LockHeld, hold_lock, let_go
from net.identity import Identity

log = logging.getLogger("passe.replication")

# The fewest voters with which a room fails over: a majority must outlive
# the loss of one (two voters are both needed: docs/election.md, section 1).
MIN_VOTERS = 3
# People's processes that stand (issue 20, "a person may decline to be a
# candidate") a room needs besides its maker's: can_fail_over.
MIN_STANDING = 2
# Actions per delta entry when a save carries many (a resumed room's first
# entries): each entry fits MAX_ENTRY_DATA under the secret.
ACTIONS_PER_ENTRY = 64
# The room's saves as entries leave room for the secret box's overhead.
PLAINTEXT_LIMIT = MAX_ENTRY_DATA - 40
# Every seat's 32-byte key is replaced by this in the replicated base: the
# private key of an authority never leaves its machine.
NO_KEY: Final = bytes(32)


class BaseEntry(msgspec.Struct, tag="base", forbid_unknown_fields=True):
    """The room as the game started (or as a new authority took it over),
    its actions left to the entries that follow."""

    room: SavedRoom


class DeltaEntry(msgspec.Struct, tag="delta", forbid_unknown_fields=True):
    """What changed since the entry before (net/authority/rooms.py's journal entry)."""

    change: JournalEntry


_entry_encoder = msgspec.msgpack.Encoder()
_entry_decoder = msgspec.msgpack.Decoder(BaseEntry | DeltaEntry)


class ReplicaError(Exception):
    """The replicated log does not hold a room that can go on."""


class VoterBusy(Exception):
    """This key's voter of the room runs already (this Passe or another):
    no second one starts from its file."""


def make_room_config(
    maker: Identity,
    voters: Sequence[bytes],
    declined: Collection[bytes] = (),
    *,
    dealers: Collection[bytes] = (),
) -> tuple[Config, bytes]:
    """The voter set of a room (the maker first) and its secret, split among
    those who stand: a person who declined to stand votes and holds no
    share (``declined``; never the maker). With ``dealers`` (the maker
    among them: ``passe dealer``), only they hold shares and stand; the
    people's processes vote (docs/election.md, section 1)."""
    return shares.make_config(
        maker,
        [Voter(key, dealer=key in dealers) for key in voters],
        declined=[key for key in declined if key != maker.public_key],
    )


def can_fail_over(voters: int, standing: int) -> bool:
    """Whether a room of ``voters`` processes (the maker's among them), of
    which ``standing`` people's stand besides the maker's, can elect a
    successor once the maker's machine is gone: a majority of the voters
    left, and a majority of the share holders (the maker and those who
    stand) among the survivors, which takes MIN_STANDING of them (with one,
    the holders are two and the survivor holds half)."""
    return (
        voters >= MIN_VOTERS
        and standing >= shares.threshold_for(standing + 1)
        and (standing >= MIN_STANDING)
    )


def dealers_can_fail_over(voters: int, dealers: int) -> bool:
    """Whether a dealer's room (``dealers`` of its ``voters``, the maker
    among them) can elect a successor once the authority's dealer is gone:
    a majority of the voters left and another dealer, who holds enough
    shares alone or with half of the others (shares.threshold_for)."""
    return voters >= MIN_VOTERS and dealers >= 2


def decode_room_config(data: bytes) -> Config | None:
    """A room state's election config, or None when it is not one."""
    try:
        return decode_config(data)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError):
        return None


def encode_room_config(config: Config) -> bytes:
    return encode(config)


def maker_vote_path(code: str, maker: Identity, directory: Path | None = None) -> Path:
    """Where the room's maker (its first authority) keeps its voter file."""
    from net.paths import rooms_dir

    return (directory or rooms_dir()) / f"{code}-{maker.peer_id}.vote"


def rebuild(saves: Sequence[bytes]) -> SavedRoom:
    """The room the log's saves describe (the last base, then every delta
    after it, in order); raises :class:`ReplicaError` in words."""
    room: SavedRoom | None = None
    for number, plaintext in enumerate(saves, 1):
        try:
            entry = _entry_decoder.decode(plaintext)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise ReplicaError(f"save {number} of the log is not readable ({error})") from None
        if isinstance(entry, BaseEntry):
            room = entry.room
        elif room is None:
            raise ReplicaError(f"save {number} changes a room the log never started")
        elif entry.change.first > len(room.actions):
            raise ReplicaError(f"save {number} skips actions")
        else:
            room = extended(room, entry.change)
    if room is None:
        raise ReplicaError("the log holds no game")
    if room.phase == "over":
        # The end is in the log (a majority held it), but the authority may
        # have died before everyone had it: the successor replays the record
        # to the same end and publishes it (the record and the salt), so that
        # no seat's game is lost (the restored table finds the end at start).
        room = msgspec.structs.replace(room, phase="playing")
    problem = room_problem(msgspec.structs.replace(room, authority_key=bytes(32)))
    if problem is not None:
        raise ReplicaError(f"the log's room cannot go on: {problem}")
    return room


class RoomReplica:
    """One process's voter in a room's election (its seat's process, or the
    host's), and, at the authority, the room's saves as log entries.

    ``on_won`` is called when this voter becomes the authority of a term
    other than the first (a failover: its owner rebuilds the game);
    ``on_authority(term, key)`` whenever a term's authority becomes known.
    """

    def __init__(
        self,
        identity: Identity,
        code: str,
        config: Config,
        storage_path: Path,
        host: str,
        port: int,
        *,
        maker: bytes,
        on_won: Callable[[int], None] | None = None,
        on_stepped_down: Callable[[int], None] | None = None,
        on_brokers: Callable[[list[tuple[str, int]]], None] | None = None,
        cluster: Sequence[tuple[str, int]] = (),
    ) -> None:
        self.identity = identity
        self.code = code
        self.config = config
        self.on_won = on_won
        self.on_stepped_down = on_stepped_down
        # One voter per file: two with one key would each grant a vote in
        # the same term (a Raft voter votes once per term), and each append
        # to the journal at its own idea of its end. A person who left a
        # game and kept its vote (RemoteTable.leave), then joined it again
        # in the same Passe, or the same person's second Passe, would start
        # a second one from this file.
        self._lock_path = storage_path.with_suffix(".lock")
        try:
            self._lock: int | None = hold_lock(self._lock_path)
        except LockHeld:
            already = "this key's voter runs already (in this Passe or another)"
            raise VoterBusy(f"room {code}: {already}") from None
        try:
            storage = self._storage(storage_path, config, maker)
        except BaseException:
            self._let_go()
            raise
        self.committed = 1
        self._commit_changed = asyncio.Event()
        # Set once any term's authority is known here (heard from, or this
        # voter elected): the room is alive (net/dealer/service.py).
        self.authority_known = asyncio.Event()
        self._replicated_actions: int | None = None  # None: no base written yet
        self.driver = VoterDriver(
            identity,
            code,
            storage,
            host,
            port,
            on_apply=self._on_apply,
            on_authority=self._on_authority,
            on_stepped_down=self._on_stepped_down,
            on_brokers=on_brokers,
            cluster=cluster,
        )

    @staticmethod
    def _storage(path: Path, config: Config, maker: bytes) -> FileStorage:
        """This voter's file for the room: the one there if it is of this
        room's config (a restarted process), else a new one."""
        fresh = first_persisted(config, maker)
        if path.exists():
            storage = FileStorage(path)
            try:
                persisted = storage.load()
            except StorageError as error:
                log.warning("starting a new voter file: %s", error)
            else:
                if persisted.log[0] == fresh.log[0]:
                    return storage
        path.parent.mkdir(parents=True, exist_ok=True)
        return FileStorage.create(path, fresh)

    @property
    def term(self) -> int:
        return self.driver.node.term

    @property
    def is_authority(self) -> bool:
        return self.driver.node.role == "authority"

    async def start(self) -> None:
        await self.driver.start()

    def discard(self) -> None:
        """The room is over or closed: this voter's file goes (nobody will
        elect in it again)."""
        with contextlib.suppress(OSError):
            self.driver.storage.path.unlink()

    async def close(self) -> None:
        try:
            await self.driver.close()
        finally:
            self._let_go()

    def _let_go(self) -> None:
        if self._lock is not None:
            let_go(self._lock_path, self._lock)
            self._lock = None

    def lead(self, secret: bytes, room_key: bytes) -> None:
        """The room's maker takes term 1, its game signed by ``room_key``."""
        self.driver.room_key = room_key
        self.driver.lead_first_term(secret)

    # -- at the authority: the room's saves as entries ----------------------

    def record(self, room: SavedRoom, *, notify: bytes | None = None) -> int:
        """Replicate ``room`` (the authority's save): the index of the entry
        that holds it (0: not the authority, nothing to replicate).
        ``notify``: the voter of the seat whose action the save holds, told
        by the others when they hold it (docs/election.md section 12)."""
        if not self.is_authority:
            return 0
        index = 0
        if self._replicated_actions is None or len(room.actions) < self._replicated_actions:
            base = msgspec.structs.replace(room, authority_key=NO_KEY, actions=[])
            index = self._append(BaseEntry(base))
            if not index:
                return 0  # no base in the log: the next save tries one again
            self._replicated_actions = 0
        first = self._replicated_actions
        while True:
            # One entry at least (the seats or counters may have changed),
            # more when many actions came at once.
            upto = min(len(room.actions), first + ACTIONS_PER_ENTRY)
            part = msgspec.structs.replace(room, actions=room.actions[:upto])
            appended = self._append(DeltaEntry(journal_entry(part, first)), notify)
            if not appended:
                # Counted as replicated only once in an entry: the next save's
                # change starts where the log stops, so the log never skips an
                # action (a successor could not rebuild a log that did).
                break
            index, first = appended, upto
            self._replicated_actions = upto
            if first >= len(room.actions):
                break
        return index

    def _append(self, entry: BaseEntry | DeltaEntry, notify: bytes | None = None) -> int:
        plaintext = _entry_encoder.encode(entry)
        if len(plaintext) > PLAINTEXT_LIMIT:
            log.error(
                "a save of room %s is too large to replicate (%d bytes)", self.code, len(plaintext)
            )
            return 0
        return self.driver.append(plaintext, notify=notify)

    async def wait_committed(self, index: int) -> None:
        while self.committed < index:
            self._commit_changed.clear()
            await self._commit_changed.wait()

    def _on_apply(self, index: int, entry: Entry, plaintext: bytes | None) -> None:
        del entry, plaintext
        self.committed = max(self.committed, index)
        self._commit_changed.set()

    # -- a new authority ----------------------------------------------------

    def rebuild(self) -> SavedRoom:
        """The room as the log has it (this voter won: it holds the secret);
        raises :class:`ReplicaError`."""
        room = rebuild(self.driver.read_log())
        self._replicated_actions = len(room.actions)
        return room

    def _on_stepped_down(self, term: int) -> None:
        if self.on_won is None:
            # Nothing here could take the table again (the room's maker, whose
            # game stepped down): its vote goes on, its candidacy ends.
            self.driver.node.retire()
        if self.on_stepped_down is not None:
            self.on_stepped_down(term)

    def _on_authority(self, term: int, key: bytes) -> None:
        self.authority_known.set()
        if key == self.identity.public_key and term > 1 and self.on_won is not None:
            self.on_won(term)


def spawn(work: Coroutine[Any, Any, object], what: str) -> asyncio.Task[object]:
    """``work`` in the background, its failure logged (never lost silently)."""

    def done(task: asyncio.Task[object]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.warning("%s failed: %s", what, task.exception())

    task = asyncio.get_running_loop().create_task(work)
    task.add_done_callback(done)
    return task


def loop_running() -> bool:
    """Whether an event loop runs here (a unit test may drive an authority
    without one: then nothing is scheduled)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def close_quietly(replica: RoomReplica | None) -> None:
    if replica is not None:
        with contextlib.suppress(Exception):
            await replica.close()


__all__ = [
    "MIN_STANDING",
    "MIN_VOTERS",
    "BaseEntry",
    "DeltaEntry",
    "ReplicaError",
    "RoomReplica",
    "VoterBusy",
    "can_fail_over",
    "close_quietly",
    "dealers_can_fail_over",
    "decode_room_config",
    "encode_room_config",
    "loop_running",
    "make_room_config",
    "maker_vote_path",
    "rebuild",
    "spawn",
]
