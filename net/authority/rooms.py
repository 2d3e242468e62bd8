"""A hosted room on disk, so that a host that dies can come back with it.

The authority writes its room after every accepted change (lobby changes,
the start, every accepted action, leaves, and every request's nonce).
Changes of the room's shape write a *snapshot*, ``<data dir>/rooms/<CODE>.room``,
atomically: a temporary file in the same directory, flushed and synced, then
renamed over the old one. A move (or a request's nonce) appends one small
*entry* to ``<CODE>.journal`` instead, one ``write()`` on a file kept open:
about 2 µs, where a snapshot's rename costs about 1 ms here and would land
on every move's latency (docs/benchmarks.md). ``passe host --resume`` reads
the snapshot and applies the entries written after it. The snapshot is
msgpack (a :class:`SavedRoom` with a format version) and holds the
authority's signing key, which the peers pinned when they joined: it is
readable by its owner only, like the identity key.

A file is hostile input: :func:`load_room` checks every field and replays the
record before anything starts; a file that is truncated, corrupt, of another
format version or inconsistent is refused in one sentence and set aside
(renamed ``.bad``), never half-restored. A finished or closed room's file is
removed (:meth:`RoomStore.discard`). While a process hosts a room it holds
a lock on ``<CODE>.lock`` (released by the kernel when the process dies):
a room that is still hosted is neither resumed a second time nor offered as
interrupted.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from core.engine import ConfigError, GameRecord, RecordError
from core.registry import get_game
from net.files import LockHeld, hold_lock, let_go, write_atomic
from net.identity import PUBLIC_KEY_SIZE
from net.paths import ROOM_SUFFIX as SUFFIX
from net.paths import rooms_dir
from net.protocol.codes import CodeError, normalize_code

FORMAT_VERSION = 1
SET_ASIDE = ".bad"
LOCK_SUFFIX = ".lock"
MAX_FILE_SIZE = 4 * 1024 * 1024  # far above any game's record
SEAT_KINDS = ("open", "human", "bot")
RESUMABLE_PHASES = ("lobby", "playing")
SALT_SIZE = 16
MAX_NAME = 40  # characters, as the wire bounds a seat's name
KEY_SEED_SIZE = 32

log = logging.getLogger("passe.host")


class RoomFileError(ValueError):
    """A room file that cannot be resumed; the message is one sentence."""


class SavedSeat(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    name: str
    kind: str  # open, human or bot
    level: str  # the bot's level ("" for a person or an open seat)
    key: bytes | None  # the public key bound to a person's seat
    # Not who is present: that is known again as each person reconnects (or
    # their retained presence arrives), the broker may have died with the host.
    # Where in the person's log a bot played for them while they were away:
    # (start, end) event indices, end None while it plays (Update.stood_in).
    # Left out when there is none: a voter of an earlier Passe reads the
    # room's log entries as before.
    stood_in: list[tuple[int, int | None]] = []
    # A bot playing on for a person who left (SeatSlot.replaced): its name
    # is still theirs, and the next game does not keep it.
    replaced: bool = False


class NonceMark(msgspec.Struct, forbid_unknown_fields=True):
    """The newest request (epoch, n) accepted from one key: anything at or
    below it is refused as replayed, across a restart too."""

    key: bytes
    epoch: int
    n: int


class BrokerChoice(msgspec.Struct, forbid_unknown_fields=True):
    """Where the room was hosted: the embedded broker on ``port`` (peers
    reconnect there), or the given broker ``host:port``."""

    embedded: bool
    host: str
    port: int


# A dealer's record of how it was asked for a room (its KeptRoom: a few
# hundred bytes, about 1.6 KiB with the longest list of who may sit, 64
# peer ids): bounded so that the room's first entry in its replicated log
# still fits an entry (net/election/messages.py, MAX_ENTRY_DATA).
MAX_DEALT_AS = 4 * 1024


class SavedRoom(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Everything the authority needs to carry on exactly where it stopped.

    Fields with a default are left out when they hold it (``omit_defaults``),
    so that a room with none of them set is written as before they existed."""

    version: int
    code: str
    game: str
    config: dict[str, Any]
    host_name: str
    authority_key: bytes  # the seed of the authority's signing key (private)
    seed: int
    salt: bytes  # of the deal's commitment, sha256(salt + seed)
    phase: str
    seats: list[SavedSeat]
    actions: list[tuple[int, str]]  # the accepted actions, in order (the record)
    seq: int  # of the latest update: peers drop an update older than theirs
    stamp: int  # of the latest room state: peers drop a state not newer
    epoch: int  # of the authority's latest presence
    nonces: list[NonceMark]
    bot_delay: float
    broker: BrokerChoice
    # Which journal extends this snapshot: entries of another (older) one
    # are ignored, e.g. after a crash between a snapshot and the journal's reset.
    journal: bytes = b""
    # A dealer's room: how it was asked for (net/dealer/kept.py, opaque
    # here), in the room so that it is in the replicated log too: the dealer
    # that takes the table over knows its owner, who opens its next game,
    # and how that game's lobby fills (empty: a host's room).
    dealt_as: Annotated[bytes, Meta(max_length=MAX_DEALT_AS)] = b""

    def record(self) -> GameRecord:
        return GameRecord(self.game, dict(self.config), self.seed, tuple(self.actions))


class JournalEntry(msgspec.Struct, forbid_unknown_fields=True):
    """One save after a move or a request: what the room is now, with only
    the actions accepted since the save before (from index ``first``)."""

    journal: bytes  # the snapshot's ``journal``: the one this entry extends
    first: int
    actions: list[tuple[int, str]]
    phase: str
    seats: list[SavedSeat]
    seq: int
    stamp: int
    epoch: int
    nonces: list[NonceMark]


class _Version(msgspec.Struct):
    version: int


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(SavedRoom)
_entry_decoder = msgspec.msgpack.Decoder(JournalEntry)
# What an entry carries whole (the actions come as the new ones only).
_JOURNALED = ("phase", "seats", "seq", "stamp", "epoch", "nonces")
JOURNAL_SUFFIX = ".journal"
MAX_JOURNAL_SIZE = 16 * 1024 * 1024  # a game's entries are a few tens of KiB
JOURNAL_ID_SIZE = 8
_version_decoder = msgspec.msgpack.Decoder(_Version)


def room_path(code: str, directory: Path | None = None) -> Path:
    return (directory or rooms_dir()) / f"{code}{SUFFIX}"


class RoomBusy(Exception):
    """The room is hosted by a running process already."""


@dataclass
class RoomStore:
    """Where one room is kept, and how it was hosted."""

    path: Path
    broker: BrokerChoice
    _failed: bool = False
    _lock: int | None = None
    _journal: bytes = b""  # the id of the snapshot the open journal extends
    _journal_fd: int | None = None
    _saved_actions: int = 0  # actions on disk (snapshot and entries)

    @property
    def journal_path(self) -> Path:
        return self.path.with_suffix(JOURNAL_SUFFIX)

    def claim(self) -> None:
        """Hold the room's lock for as long as this process hosts it;
        raises :class:`RoomBusy` if another process holds it."""
        try:
            lock = hold_lock(_lock_path(self.path))
        except LockHeld:
            code = self.path.name.removesuffix(SUFFIX)
            raise RoomBusy(f"room {code} is hosted by another running Passe") from None
        # Our pid in the lock, for "already hosted here, by process N" (issue
        # 18): only a word for people. The lock itself says whether the room
        # is hosted (the kernel lets go of it when we die), so a pid left by a
        # crash is never read (see hosting_pid).
        with contextlib.suppress(OSError):
            os.ftruncate(lock, 0)
            os.pwrite(lock, str(os.getpid()).encode(), 0)
        self._lock = lock

    def save(self, room: SavedRoom, *, durable: bool = True) -> None:
        """Keep ``room`` on disk: a snapshot when ``durable`` (flushed to the
        disk) or when there is no journal yet, else one journal entry (kept
        through a crash of this process, see :func:`write_room`). A failure
        is logged once, never raised (the game goes on in memory)."""
        try:
            if durable or self._journal_fd is None or len(room.actions) < self._saved_actions:
                self._snapshot(room, durable=durable)
            else:
                self._append(room)
        except OSError as error:
            if not self._failed:
                self._failed = True
                log.warning(
                    "could not save the room to %s (%s): it cannot be resumed after a crash",
                    self.path,
                    error.strerror or error,
                )
        else:
            self._failed = False

    def _snapshot(self, room: SavedRoom, *, durable: bool) -> None:
        self._close_journal()
        journal = os.urandom(JOURNAL_ID_SIZE)
        write_room(self.path, msgspec.structs.replace(room, journal=journal), durable=durable)
        # A new journal for the new snapshot (the old one's entries, if this
        # process dies before the truncation, carry the old id: ignored).
        self._journal_fd = os.open(
            self.journal_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600
        )
        self._journal = journal
        self._saved_actions = len(room.actions)

    def _append(self, room: SavedRoom) -> None:
        assert self._journal_fd is not None
        entry = journal_entry(room, self._saved_actions, self._journal)
        body = _encoder.encode(entry)
        # One write() of the whole frame: a killed process leaves it whole
        # or absent; a power cut may tear the last one, which loading ignores.
        frame = len(body).to_bytes(4, "big") + body
        if os.write(self._journal_fd, frame) != len(frame):
            raise OSError(f"short write to {self.journal_path.name}")
        self._saved_actions = len(room.actions)

    def _close_journal(self) -> None:
        if self._journal_fd is not None:
            os.close(self._journal_fd)
            self._journal_fd = None

    def discard(self) -> None:
        """Remove the room's files: it is over or closed."""
        self._close_journal()
        for path in (self.path, self.journal_path):
            with contextlib.suppress(OSError):
                path.unlink()

    def release(self) -> None:
        self._close_journal()
        if self._lock is not None:
            let_go(_lock_path(self.path), self._lock)
            self._lock = None


def _lock_path(path: Path) -> Path:
    return path.with_suffix(LOCK_SUFFIX)


def is_hosted(path: Path) -> bool:
    """Whether a running process holds the lock of the room saved at ``path``."""
    try:
        lock = os.open(_lock_path(path), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(lock)
    return False


# The longest pid a lock may say (Linux's pid_max is at most 2**22).
MAX_PID_DIGITS = 10


def hosting_pid(path: Path) -> int | None:
    """The process that hosts the room saved at ``path`` right now, or None
    when none does. The lock decides (a pid left in the file by a host that
    crashed is ignored); 0 when it is held but says no usable pid (a file
    written by an older Passe, or not a number: the file is not trusted)."""
    if not is_hosted(path):
        return None
    try:
        with open(_lock_path(path), "rb") as lock:
            text = lock.read(MAX_PID_DIGITS + 1)
    except OSError:
        return 0
    if not (0 < len(text) <= MAX_PID_DIGITS and text.isdigit()):
        return 0
    return int(text)


def write_room(path: Path, room: SavedRoom, *, durable: bool = True) -> None:
    """Write ``room`` to ``path`` atomically (raises OSError).

    The new file replaces the old by a rename, so a reader (a resuming host)
    sees the old room or the new one, never half of one. Once written, it
    survives the *process* (a crash, SIGKILL: the kernel keeps the data);
    ``durable`` also flushes it and its directory to the disk (fsync, ~6 ms
    here each), so it survives the *machine* (power cut). The authority asks
    for that when the room's shape changes and skips it for each move, which
    would otherwise add two syncs to every move's latency (docs/protocol.md):
    a move lost to a power cut is replayed from the journal or played again."""
    # Readable by its owner only (write_atomic's mode 0600): it holds a private key.
    write_atomic(path, _encoder.encode(room), durable=durable)


def load_room(path: Path) -> SavedRoom:
    """The room saved at ``path``, checked through and through; raises
    :class:`RoomFileError` with one sentence (the file is left in place)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise RoomFileError(f"cannot read {path.name}: {error.strerror or error}") from None
    if len(data) > MAX_FILE_SIZE:
        raise RoomFileError(f"{path.name} is too large to be a saved room")
    try:
        version = _version_decoder.decode(data).version
    except msgspec.MsgspecError:
        raise RoomFileError(f"{path.name} is damaged (truncated or not a saved room)") from None
    if version != FORMAT_VERSION:
        raise RoomFileError(
            f"{path.name} is in format version {version}; this Passe reads version {FORMAT_VERSION}"
        )
    try:
        room = _decoder.decode(data)
    except msgspec.MsgspecError as error:
        raise RoomFileError(f"{path.name} is damaged ({error})") from None
    room = _with_journal(room, path.with_suffix(JOURNAL_SUFFIX))
    problem = _inconsistency(room, path)
    if problem is not None:
        raise RoomFileError(f"{path.name} does not hold a room that can go on: {problem}")
    return room


def _with_journal(room: SavedRoom, journal: Path) -> SavedRoom:
    """``room`` with the entries of its journal applied, in order: those of
    this snapshot's journal that follow on from what is there; a torn or
    damaged tail (a power cut during a write) ends the reading. The result
    is checked as a whole afterwards, like a snapshot alone."""
    if not room.journal:
        return room
    try:
        with journal.open("rb") as stream:
            data = stream.read(MAX_JOURNAL_SIZE + 1)
    except OSError:
        return room  # none yet: the snapshot is all there is
    if len(data) > MAX_JOURNAL_SIZE:
        raise RoomFileError(f"{journal.name} is too large to be a room's journal")
    at = 0
    while at + 4 <= len(data):
        size = int.from_bytes(data[at : at + 4], "big")
        body = data[at + 4 : at + 4 + size]
        if len(body) < size:
            break
        try:
            entry = _entry_decoder.decode(body)
        except msgspec.MsgspecError:
            break
        at += 4 + size
        if entry.journal != room.journal or entry.first != len(room.actions):
            break  # another snapshot's entries, or not the next one
        room = extended(room, entry)
    return room


def journal_entry(room: SavedRoom, first: int, journal: bytes = b"") -> JournalEntry:
    """What changed in ``room`` since a save that held ``first`` actions."""
    return JournalEntry(
        journal=journal,
        first=first,
        actions=room.actions[first:],
        **{name: getattr(room, name) for name in _JOURNALED},
    )


def extended(room: SavedRoom, entry: JournalEntry) -> SavedRoom:
    """``room`` with ``entry`` applied (its actions follow on from the
    room's first ``entry.first``: the caller checks that they do)."""
    return msgspec.structs.replace(
        room,
        actions=[*room.actions[: entry.first], *entry.actions],
        **{name: getattr(entry, name) for name in _JOURNALED},
    )


def _inconsistency(room: SavedRoom, path: Path) -> str | None:
    """What makes ``room`` impossible to resume exactly, or ``None``."""
    try:
        code = normalize_code(room.code)
    except CodeError:
        return f"{room.code[:20]!r} is not a room code"
    if code != room.code or path.name != f"{code}{SUFFIX}":
        return f"the code {room.code[:20]!r} does not match the file's name"
    return room_problem(room)


def room_problem(room: SavedRoom) -> str | None:
    """What makes ``room`` (its code checked by the caller) impossible to
    go on with exactly, or ``None``: a saved room, or one rebuilt from the
    replicated log by a successor (net/authority/replication.py)."""
    try:
        game = get_game(room.game)
    except Exception:  # an unknown game id, whatever the registry raises
        return f"there is no game {room.game[:20]!r}"
    try:
        config = game.config_from_data(room.config)
    except ConfigError as error:
        return f"bad options ({error})"
    if room.phase not in RESUMABLE_PHASES:
        return f"a room in phase {room.phase[:20]!r} does not go on"
    if len(room.authority_key) != KEY_SEED_SIZE or len(room.salt) != SALT_SIZE:
        return "the room's key or commitment is damaged"
    if not 0 <= room.seed < 2**62 or room.seq < 0 or room.stamp < 0 or room.epoch < 0:
        return "a seed or counter is out of range"
    if not 0 <= room.bot_delay <= 3600:
        return "the bots' delay is out of range"
    if not 1 <= room.broker.port <= 65535:
        return "the broker's port is out of range"
    if len(room.seats) != config.players:
        return f"{len(room.seats)} seats for {config.players} players"
    seat_problem = _seat_problem(room.seats, game.bots, playing=room.phase == "playing")
    if seat_problem is not None:
        return seat_problem
    if any(len(mark.key) != PUBLIC_KEY_SIZE for mark in room.nonces):
        return "a request mark names no key"
    if room.phase == "lobby" and (room.actions or room.seq):
        return "actions were recorded before the game started"
    if room.seq < len(room.actions):
        return "fewer updates than accepted actions"
    try:
        game.replay(room.record())
    except RecordError as error:
        return f"the record does not replay ({error})"
    return None


def _seat_problem(seats: Sequence[SavedSeat], bots: Any, *, playing: bool) -> str | None:
    keys = [seat.key for seat in seats if seat.kind == "human"]
    for number, seat in enumerate(seats, 1):
        if seat.kind not in SEAT_KINDS:
            return f"seat {number} is of an unknown kind"
        # Names as any version's clean_name wrote them (this one bounds them
        # in cells, an older one in characters: a room saved by it still
        # resumes); nothing a terminal would act on (net/protocol/text.py).
        if not 0 < len(seat.name) <= MAX_NAME or not seat.name.isprintable():
            return f"seat {number}'s name is not a name"
        if seat.kind == "human" and (seat.key is None or len(seat.key) != PUBLIC_KEY_SIZE):
            return f"seat {number} is bound to no key"
        if seat.kind == "bot" and seat.level not in bots:
            return f"seat {number} has an unknown bot {seat.level[:20]!r}"
        if seat.kind == "open" and playing:
            return f"seat {number} is empty in a game that has started"
    if len(set(keys)) != len(keys):
        return "one key holds two seats"
    return None


def set_aside(path: Path) -> Path:
    """Move a room file that cannot be resumed out of the way (``.bad``),
    kept for a look. Returns where it is."""
    aside = path.with_name(path.name + SET_ASIDE)
    try:
        os.replace(path, aside)
    except OSError:
        return path
    journal = path.with_suffix(JOURNAL_SUFFIX)
    with contextlib.suppress(OSError):
        os.replace(journal, journal.with_name(journal.name + SET_ASIDE))
    return aside


@dataclass(frozen=True)
class Interrupted:
    """A saved room that can be resumed, and how long ago it was saved."""

    room: SavedRoom
    path: Path
    saved_at: float

    def describe(self, now: float | None = None) -> str:
        """``WB1VJ7  Pass Pass  Ana, Ben, Cleo (bot)  playing  12 min ago``."""
        title = get_game(self.room.game).info.title
        people = ", ".join(
            seat.name + (" (bot)" if seat.kind == "bot" else "")
            for seat in self.room.seats
            if seat.kind != "open"
        )
        return (
            f"{self.room.code}  {title}  {people or 'no one seated'}  "
            f"{self.room.phase}  {_age((now or time.time()) - self.saved_at)}"
        )


def _age(seconds: float) -> str:
    if seconds < 90:
        return "just now"
    minutes = seconds / 60
    if minutes < 90:
        return f"{minutes:.0f} min ago"
    hours = minutes / 60
    if hours < 36:
        return f"{hours:.0f} h ago"
    return f"{hours / 24:.0f} days ago"


def interrupted_rooms(directory: Path | None = None) -> tuple[list[Interrupted], list[str]]:
    """Every room that can be resumed, oldest first, and one sentence for
    each file found unusable (which is set aside)."""
    directory = directory or rooms_dir()
    try:
        paths = sorted(directory.glob(f"*{SUFFIX}"))
    except OSError:
        return [], []
    rooms: list[Interrupted] = []
    notices: list[str] = []
    for path in paths:
        if is_hosted(path):
            continue
        try:
            room = load_room(path)
            saved_at = path.stat().st_mtime
            with contextlib.suppress(OSError):
                saved_at = max(saved_at, path.with_suffix(JOURNAL_SUFFIX).stat().st_mtime)
        except RoomFileError as error:
            aside = set_aside(path)
            notices.append(f"{error}; it was kept as {aside.name}")
            continue
        except OSError:
            continue  # gone meanwhile (finished or resumed by another process)
        rooms.append(Interrupted(room, path, saved_at))
    rooms.sort(key=lambda entry: entry.saved_at)
    _remove_stale_locks(directory)
    return rooms, notices


def _remove_stale_locks(directory: Path) -> None:
    """Lock files of rooms that are over and whose host was killed before it
    let go of them: nobody holds them and no room goes with them."""
    with contextlib.suppress(OSError):
        for lock in directory.glob(f"*{LOCK_SUFFIX}"):
            room = lock.with_suffix(SUFFIX)
            if not room.exists() and not is_hosted(room):
                with contextlib.suppress(OSError):
                    lock.unlink()


__all__ = [
    "FORMAT_VERSION",
    "BrokerChoice",
    "Interrupted",
    "NonceMark",
    "RoomBusy",
    "RoomFileError",
    "RoomStore",
    "SavedRoom",
    "SavedSeat",
    "hosting_pid",
    "interrupted_rooms",
    "is_hosted",
    "load_room",
    "room_path",
    "rooms_dir",
    "set_aside",
    "write_room",
]
