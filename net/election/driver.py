"""The MQTT shell around one voter's :class:`~net.election.node.Node`.

The core decides; this module only carries its effects out, in order, and
feeds it what the broker brings (docs/election.md, "Roles and terms"):

- **Storage** (:class:`FileStorage`): the term, the vote and the log in one
  file, replaced atomically and synced (net/files.py) before the next effect
  runs, so a vote is on disk before it is sent and an entry before anyone
  counts it. The whole file is rewritten per change: a game's log is a few
  hundred short entries (a journal is the next step if that shows in the
  move benchmark).
- **Messages** travel in protocol v1's envelopes (net/protocol/wire.py), signed by
  their sender and sealed to their one recipient, on the recipient's topic
  ``passe/v1/CODE/e/PEER``; a voter subscribes to its own. What arrives is
  bounded before any signature check (a rate per topic, as the authority's
  own topics are), then verified, opened and decoded by the core's bounded
  schemas; anything else is dropped and counted, never raised.
- **Time**: the core's ``tick`` every :data:`TICK` seconds of
  ``time.monotonic()``; ``suspect`` when the driver's owner sees the
  authority's will.

Nothing here drives a game yet (issue 20: the authority and peer processes
will, with protocol version 2); ``tests/net/election_voter.py`` runs voters
as real processes over a real broker with it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import struct
import time
import zlib
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Final, cast

import msgspec
from nacl.exceptions import CryptoError
from nacl.secret import SecretBox

from net.election.messages import (
    MAX_BATCH,
    MAX_ENTRY_DATA,
    Append,
    Config,
    Entry,
    Held,
    Message,
    Notify,
    PreVote,
    Request,
    RequestVote,
    Vote,
    Voter,
)
from net.election.messages import encode as encode_message
from net.election.node import (
    Apply,
    AuthorityKnown,
    Effect,
    Node,
    Persisted,
    PersistEntries,
    Send,
    SteppedDown,
    Timing,
    majority,
    persist,
)
from net.election.survey import choose, survey
from net.election.topics import (
    Announce,
    announce_decoder,
    authority_topic,
    broker_text,
    election_topic,
    parse_broker,
    voter_presence_topic,
)
from net.files import write_atomic
from net.identity import Identity, peer_id
from net.lan.transport import BACKOFF_MAX, BrokerUnreachable, LastWill, MqttLink, stop_task
from net.protocol.bounds import FloodLog, Rate, SenderLimits
from net.protocol.wire import (
    WireError,
    open_body,
    open_envelope,
    presence_decoder,
    seal,
    sealed_presence,
)

log = logging.getLogger("passe.election")

TICK = 0.05  # seconds between the core's ticks (its heartbeat is 0.25 s)
# Seconds over which voters that heard the authority's will stand (random),
# after WILL_SETTLE: a broker that stops sends every client's will as it
# goes (Mosquitto), and our own link must have seen it go by then.
WILL_SETTLE = 0.1
WILL_SPREAD = 0.3
# Seconds a voter hears no authority on its broker before it surveys the
# room's brokers (net/election/survey.py): several election timeouts, so
# that voters who meet there elect first; doubled after each survey that
# finds nowhere better, up to LONELY_MAX.
LONELY_FIRST = 6.0
LONELY_MAX = 48.0
# A voter's message goes to its socket as it is made when nothing of its own
# waits before it (MqttLink.publish_now); False: by its send loop, a loop
# turn later (bench/net.py's A/B).
SEND_AT_ONCE = os.environ.get("PASSE_SEND_AT_ONCE", "1") != "0"
# Seconds after each connection before this voter counts the room's
# machines where it is (``counting``): the others' retained records come
# just after its subscription, and before them every other voter read as
# away: a seat's bar said "The game waits for the room's machines: 1 of its
# 3 is here" for a moment as each game began (CI, a loaded machine).
PRESENCE_SETTLE = 2.0
# At the authority, when the seat that acted and the authority are a
# majority on their own (docs/election.md section 12): the other voters'
# Appends of that entry leave by the send loop, after the authority's own
# write and the seat's early update, instead of before them (bench/net_ab.py
# measures it; False: as soon as they are made).
OTHERS_AFTER_UPDATE = True
# A voter's file: the config entry, and a game's actions of at most
# MAX_ENTRY_DATA each; far more than a game needs, far less than memory.
MAX_STORAGE_BYTES = 64 * 1024 * 1024
# What may arrive on a voter's topic (before any signature check): every
# other voter's heartbeat replies and votes, and the seats' requests.
TOPIC_RATE = Rate(messages=400, message_burst=800, bytes=4 << 20, byte_burst=8 << 20)

# The core's messages, and what the drivers tell each other beside them.
_message_decoder = msgspec.msgpack.Decoder(Message | Held)

# (index, entry, its plaintext: an action's, read with the room secret by
# the authority; None elsewhere, where the log is ciphertext)
ApplyHook = Callable[[int, Entry, bytes | None], None]
AuthorityHook = Callable[[int, bytes], None]
SteppedDownHook = Callable[[int], None]


class StorageError(Exception):
    """A voter's file cannot be read: refused in words, never half-loaded."""


class _Stored(msgspec.Struct, forbid_unknown_fields=True):
    """A voter's whole state: the file format before the journal (read
    still: a file of an earlier Passe), and the journal's snapshot body."""

    term: int
    voted_for: bytes | None
    log: list[Entry]


class _Snapshot(_Stored, tag="snapshot"):
    """The journal's first record: the whole state."""


class _State(msgspec.Struct, tag="state", forbid_unknown_fields=True):
    term: int
    voted_for: bytes | None


class _Entries(msgspec.Struct, tag="entries", forbid_unknown_fields=True):
    first: int  # the log index of entries[0]: what was there from it on goes
    entries: list[Entry]


_Record = _Snapshot | _State | _Entries
_stored_encoder = msgspec.msgpack.Encoder()
_stored_decoder = msgspec.msgpack.Decoder(_Stored)
_record_decoder = msgspec.msgpack.Decoder(_Record)
JOURNAL_MAGIC: Final = b"PASSE-VOTER-JOURNAL-1\n"
_RECORD_HEAD = struct.Struct("<II")  # the body's length and CRC-32
# The journal is written again as one snapshot once it holds this many
# bytes more than its last snapshot (terms, votes, replaced suffixes).
COMPACT_AFTER = 256 * 1024


def _record(record: _Record) -> bytes:
    body = _stored_encoder.encode(record)
    return _RECORD_HEAD.pack(len(body), zlib.crc32(body)) + body


class FileStorage:
    """The core's :class:`~net.election.node.Storage` in one file: a journal.
    A snapshot record first, then one record per change, each appended and
    synced (one fsync, no rename: a replicated move waits for a majority's
    write, docs/benchmarks.md). A record a crash cut short, the last one,
    was never synced and so never acknowledged: it is dropped on load; a
    damaged record before the end refuses the file in words."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stored: _Stored | None = None
        self._valid = 0  # bytes of whole records (a torn tail goes on the next write)
        self._since_snapshot = 0

    @classmethod
    def create(cls, path: Path, persisted: Persisted) -> FileStorage:
        """A new voter's file: term, vote and log (its config entry first)."""
        storage = cls(path)
        storage._stored = _Stored(persisted.term, persisted.voted_for, list(persisted.log))
        storage._snapshot()
        return storage

    def load(self) -> Persisted:
        try:
            size = self.path.stat().st_size
            if size > MAX_STORAGE_BYTES:
                raise StorageError(f"{self.path}: {size} bytes, over {MAX_STORAGE_BYTES}")
            data = self.path.read_bytes()
        except OSError as error:
            raise StorageError(f"{self.path}: {error.strerror or error}") from None
        try:
            if data.startswith(JOURNAL_MAGIC):
                stored = self._replay(data)
            else:  # one msgpack map: a file of an earlier Passe
                stored = _stored_decoder.decode(data)
                self._valid = -1  # written again as a journal on the next change
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise StorageError(f"{self.path}: not a voter's file ({error})") from None
        if not stored.log or stored.log[0].kind != "config":
            raise StorageError(f"{self.path}: the log does not start with the room's config")
        self._stored = stored
        return Persisted(stored.term, stored.voted_for, tuple(stored.log))

    def _replay(self, data: bytes) -> _Stored:
        position = len(JOURNAL_MAGIC)
        stored: _Stored | None = None
        snapshot_end = 0
        while position < len(data):
            end = position + _RECORD_HEAD.size
            length, crc = _RECORD_HEAD.unpack_from(data, position) if end <= len(data) else (0, 0)
            body = data[end : end + length]
            if not length or len(body) < length or zlib.crc32(body) != crc:
                # The last record, cut short by a crash, was never synced
                # (each append is synced before the next starts), so never
                # acknowledged: it goes. Its bytes run past the end, or a
                # file system left zeros where it was being written.
                if end + length > len(data) or not data[position:].strip(b"\0"):
                    log.warning("%s: the last record was cut short (a crash): dropped", self.path)
                    break
                raise StorageError(f"{self.path}: a damaged record at byte {position}")
            record = _record_decoder.decode(body)
            if stored is None:
                if not isinstance(record, _Snapshot):
                    raise StorageError(f"{self.path}: the journal does not start with a snapshot")
                stored = _Stored(record.term, record.voted_for, list(record.log))
                snapshot_end = end + length
            elif isinstance(record, _Snapshot):
                raise StorageError(f"{self.path}: a second snapshot at byte {position}")
            elif isinstance(record, _State):
                stored.term, stored.voted_for = record.term, record.voted_for
            else:
                if not 1 <= record.first <= len(stored.log) + 1:
                    raise StorageError(f"{self.path}: entries from {record.first} leave a gap")
                stored.log = stored.log[: record.first - 1] + record.entries
            position = end + length
        if stored is None:
            raise StorageError(f"{self.path}: an empty journal")
        self._valid = position
        self._since_snapshot = position - snapshot_end
        return stored

    def save_state(self, term: int, voted_for: bytes | None) -> None:
        stored = self._loaded()
        stored.term, stored.voted_for = term, voted_for
        self._append(_State(term, voted_for))

    def save_entries(self, first: int, entries: Sequence[Entry]) -> None:
        stored = self._loaded()
        stored.log = stored.log[: first - 1] + list(entries)
        self._append(_Entries(first, list(entries)))

    def _loaded(self) -> _Stored:
        if self._stored is None:
            self.load()
        assert self._stored is not None
        return self._stored

    def _append(self, record: _Record) -> None:
        data = _record(record)
        if self._valid < 0 or self._since_snapshot + len(data) > COMPACT_AFTER:
            self._snapshot()  # an old file's format, or a journal grown long
            return
        try:
            descriptor = os.open(self.path, os.O_WRONLY)
        except FileNotFoundError:
            # Gone (the room's end removed it while a last message was
            # handled): written whole again, as before the journal.
            self._snapshot()
            return
        try:
            # After a torn record (a crash mid-write): write over it.
            os.ftruncate(descriptor, self._valid)
            os.lseek(descriptor, self._valid, os.SEEK_SET)
            os.write(descriptor, data)
            os.fsync(descriptor)  # durable before the core sends anything
        finally:
            os.close(descriptor)
        self._valid += len(data)
        self._since_snapshot += len(data)

    def _snapshot(self) -> None:
        stored = self._loaded()
        data = JOURNAL_MAGIC + _record(_Snapshot(stored.term, stored.voted_for, stored.log))
        write_atomic(self.path, data)  # synced, the directory too
        self._valid, self._since_snapshot = len(data), 0


class VoterPresences:
    """The voters' presence records, each signed by its voter: which
    connection of each is the newest (its epoch), and whose current
    connection just died (its will). A will of an older connection is a
    late one (Sparkplug's rule) and says nothing."""

    def __init__(self, code: str, voters: Sequence[bytes], floods: FloodLog) -> None:
        self.code = code
        self.topics = {voter_presence_topic(code, peer_id(voter)): voter for voter in voters}
        self._newest: dict[bytes, int] = {}
        self._floods = floods
        # Each voter's standby broker, from its newest "online" record.
        self.brokers: dict[bytes, tuple[str, int]] = {}
        # Whether each voter's newest record here says online.
        self.online: dict[bytes, bool] = {}

    def gone(self, topic: str, payload: bytes, now: float) -> bytes | None:
        """The voter whose current connection this record says died, if it
        does; its newest connection noted if it says "online"."""
        voter = self.topics[topic]
        try:
            envelope = open_envelope(topic, payload, expect_key=voter)
            presence = open_body(envelope, presence_decoder)
        except WireError as error:
            self._floods.note("election-bad", f"dropped a voter's presence: {error}", now)
            return None
        if presence.room != self.code:
            return None
        newest = self._newest.get(voter, 0)
        if presence.epoch >= newest:
            self.online[voter] = presence.online
        if presence.online:
            self._newest[voter] = max(newest, presence.epoch)
            broker = parse_broker(presence.broker)
            if broker is not None and presence.epoch >= newest:
                self.brokers[voter] = broker
            return None
        return voter if presence.epoch >= newest else None

    def newest(self, voter: bytes) -> int:
        """The epoch of ``voter``'s newest connection known (0: none)."""
        return self._newest.get(voter, 0)


class VoterDriver:
    """One voter of room ``code`` on the broker at ``host:port``: its node,
    its storage, its link. ``on_apply`` gets each committed entry in index
    order, ``on_authority`` each newly known authority, ``on_stepped_down``
    the term that made this process step down."""

    def __init__(
        self,
        identity: Identity,
        code: str,
        storage: FileStorage,
        host: str,
        port: int,
        *,
        on_apply: ApplyHook | None = None,
        on_authority: AuthorityHook | None = None,
        on_stepped_down: SteppedDownHook | None = None,
        broker: tuple[str, int] | None = None,
        on_brokers: Callable[[list[tuple[str, int]]], None] | None = None,
        cluster: Sequence[tuple[str, int]] = (),
        timing: Timing | None = None,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
        make_link: Callable[..., MqttLink] = MqttLink,
    ) -> None:
        self.identity = identity
        self.code = code
        # What carries its messages: an MQTT link (tests: one of their own,
        # to run ``start`` and the loops in process).
        self._make_link = make_link
        self.storage = storage
        self.host, self.port = host, port
        self.on_apply = on_apply
        self.on_authority = on_authority
        self.on_stepped_down = on_stepped_down
        # This voter's standby broker (announced in its presence), and who
        # wants the room's standby brokers in succession order (the config's
        # order of voters) each time that list changes.
        self.broker = broker
        self.on_brokers = on_brokers
        self._succession: list[tuple[str, int]] = []
        # The other nodes of the room's broker's cluster (docs/scale.md):
        # tried first when the broker is gone, then the standby brokers.
        self.cluster = tuple(cluster)
        self.clock = clock
        self.node = Node(
            identity,
            storage.load(),
            now=clock(),
            rng=rng or random.Random(),
            timing=timing,
        )
        self.topic = election_topic(code, identity.peer_id)
        # The other voters' presence: a will ("gone", sent by the broker
        # when a connection dies) from the authority starts an election at
        # once instead of after the election timeout (the core ignores a
        # will while the authority was heard from lately: a late or forged
        # one changes nothing).
        self._floods = FloodLog(log)
        others = [voter for voter in self.node.voters if voter != identity.public_key]
        self._presences = VoterPresences(code, others, self._floods)
        self._epoch = time.time_ns() // 1_000_000  # of presence: grows across restarts
        self._connected_to: tuple[str, int] | None = None  # the broker of the last connection
        # The authority's will seen while our link was up: (term, authority,
        # its connection's epoch). Its broker was alive then and saw the
        # authority's connection die (``_came_back``).
        self._will_seen: tuple[int, bytes, int] | None = None
        self._rng = rng or random.Random()
        self._limits = SenderLimits(per_sender=TOPIC_RATE, total=TOPIC_RATE, max_senders=64)
        # (topic, payload or what seals it, retain), in order.
        self._outbox: asyncio.Queue[tuple[str, bytes | Callable[[], bytes], bool]] = asyncio.Queue()
        self._sending = False  # the send loop holds a message it took
        self._link: MqttLink | None = None
        self._tasks: list[asyncio.Task[None]] = []
        # Set once this voter held its authority's whole log (_note_in_step).
        self.in_step = asyncio.Event()
        # The room key this voter's game signs with once it is the authority
        # (announced with its term: net/authority/replication.py); empty: no game.
        self.room_key = b""
        # This voter's latest announcement as authority (its term's), sent
        # again by its table's own link beside the room state
        # (announcement()): a peer that finds the room signed by a key it was
        # never told of waits for it (found by hand: a rejoin refused "signed
        # by another key" on a broker that held the new table's state and not
        # its announcement).
        self._announcement: tuple[int, bytes] | None = None
        # How much of the log is on disk (synced): the in-memory log may be
        # ahead of it only while a persist effect is being carried out.
        self._durable = self.node.last_index
        # At the authority: who waits for which new entry (Append.notify),
        # and whether the others' Appends of it wait behind that seat's
        # update (OTHERS_AFTER_UPDATE, set while append() carries it out).
        self._notify: Notify | None = None
        self._others_later = False
        # Other voters' latest Held (term, index) to this voter, and who
        # wants to hear of each Held and each write (the seat's peer:
        # docs/election.md section 12).
        self.held_by: dict[bytes, tuple[int, int]] = {}
        self.on_held: Callable[[], None] | None = None
        # Alone on a broker with no authority heard (net/election/survey.py):
        # since when, how long before the next survey, the one under way;
        # who wants to know when a survey moved this voter's link (its
        # seat's link goes too); False once its game is over (nothing to
        # meet for).
        self._lonely_since: float | None = None
        self._lonely_wait = LONELY_FIRST
        self._surveying: asyncio.Task[None] | None = None
        self.on_moved: Callable[[tuple[str, int]], None] | None = None
        # Who wants to know when another voter's record says it came or went
        # (a seat's screen says how many machines the table waits for).
        self.on_presence: Callable[[], None] | None = None
        # When this voter's current connection came up (``counting``), and
        # the call that says so once the others' records have come.
        self._connected_at: float | None = None
        self._settling: asyncio.TimerHandle | None = None
        self.surveys = True
        # The room's standby brokers as this machine last saw them (its
        # pins): surveyed too, beside those this voter has heard of since
        # (a process back from the dead knows only its own at first).
        self.remembered_brokers: tuple[tuple[str, int], ...] = ()
        # Its own entries' nonces: above any of its own in the log already.
        self._own_nonce = max(
            (entry.nonce for entry in self.node.log if entry.sender == identity.public_key),
            default=0,
        )

    async def start(self) -> None:
        self._link = self._make_link(
            self.host,
            self.port,
            subscriptions=[self.topic, *self._presences.topics],
            on_message=self._on_message,
            on_connect=self._on_connect,
            will=self._will,
            alternates=self._alternates(),
        )
        # Leaving a broker of its own accord (no will is sent then), "gone"
        # there: a later survey would count this voter where it is not.
        self._link.farewell = lambda: (
            voter_presence_topic(self.code, self.identity.peer_id),
            self._presence(online=False),
        )
        try:
            # However long its brokers take: a voter only counts once it is
            # up, and one that gave up at its first connection (a broker
            # restarting as the game began: CI, 4 December) left its room
            # one vote short for good, and a two-of-three room unelectable.
            await self._link.start(timeout=None)
        except BrokerUnreachable:
            if self._link.closed:
                return  # closed before it was ever up: nothing to run
            raise
        self._connected_to = (self._link.host, self._link.port)
        self.node.came_up(self.clock())
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._send_loop()), loop.create_task(self._tick_loop())]

    async def close(self) -> None:
        if self._settling is not None:
            self._settling.cancel()
        if self._surveying is not None:
            await stop_task(self._surveying)
        for task in self._tasks:
            await stop_task(task)
        self._tasks = []
        link = self._link
        if link is not None:
            # A voter that leaves says so (its link's end sends no will): a
            # later survey would count it there (net/election/survey.py).
            # Not an authority: its going is its room's failover, and the
            # table it runs says when it closes.
            farewell = link.farewell if self.node.role != "authority" else None
            final = [farewell()] if farewell is not None else []
            await link.close(graceful=bool(final), final=final)

    def lead_first_term(self, secret: bytes) -> None:
        """The room's maker, which made ``secret``, takes term 1 (its
        storage made with :func:`first_persisted`)."""
        self._carry_out(self.node.lead_first_term(secret, self.clock()))

    def append(self, plaintext: bytes, *, notify: bytes | None = None) -> int:
        """At the authority, one entry of its own, under the room secret: its
        index in the log (committed once a majority holds it: ``on_apply``
        says when); 0 when this voter is not the authority, or the entry
        would not fit. ``notify``: the voter of the seat whose action this
        entry holds, told by each other voter that writes it (``Held``)."""
        secret = self.node.secret
        limit = MAX_ENTRY_DATA - SecretBox.NONCE_SIZE - SecretBox.MACBYTES
        if self.node.role != "authority" or secret is None or len(plaintext) > limit:
            return 0
        self._notify = None if notify is None else Notify(notify, self.node.last_index + 1)
        self._own_nonce += 1
        data = bytes(SecretBox(secret).encrypt(plaintext))
        index, effects = self.node.append_own(self._own_nonce, data)
        self._others_later = notify is not None and self._waiting_voter_suffices(notify)
        try:
            self._carry_out(_waiting_voter_first(effects, notify))
        finally:
            self._others_later = False
        return index

    def _waiting_voter_suffices(self, waiting: bytes) -> bool:
        """Whether this authority and the voter ``waiting`` (the seat that
        acted) are a majority with a share holder besides this one, when
        there is one: what that seat's process counts before it shows its
        early update (``majority_holds``). The other voters' copies are then
        off its path: their Appends may go after its update (on its path
        they cost a seal and a write each, about 0.15 ms, and their disks'
        writes at the same moment as the two on the path)."""
        own = self.identity.public_key
        if not OTHERS_AFTER_UPDATE or waiting == own or waiting not in self.node.voters:
            return False
        return self._enough_hold({own, waiting}, own)

    def read_log(self) -> list[bytes]:
        """Every action entry of the log, opened with the room secret, in
        order: what a new authority rebuilds its game from (empty if this
        process holds no secret)."""
        opened = [self.read(entry) for entry in self.node.log]
        return [plain for plain in opened if plain is not None]

    def abdicate(self) -> None:
        """This voter won but its owner cannot run the table: it steps aside
        for good (``Node.abdicate``)."""
        log.warning("room %s: this voter cannot run the table: it stands aside", self.code)
        self.node.abdicate(self.clock())

    def suspect(self) -> None:
        """The authority's will was seen: the core may start an election."""
        self._carry_out(self.node.suspect(self.clock()))

    def send(self, to: bytes, message: Message | Held) -> None:
        """Send ``message`` to the voter or seat of key ``to`` (a seat's
        process sends its ``Request`` so)."""
        topic = election_topic(self.code, peer_id(to))
        notify = self._notify
        if (
            isinstance(message, Append)
            and notify is not None
            and notify.key != to
            and message.prev_index < notify.index <= message.prev_index + len(message.entries)
        ):
            message = msgspec.structs.replace(message, notify=notify)
        if (
            self._others_later
            and isinstance(message, Append)
            and notify is not None
            and notify.key != to
        ):
            # Another voter's Append while the seat that acted waits: sealed
            # and written by the send loop, once the seat's update is written
            # (OTHERS_AFTER_UPDATE); what follows it to its voter queues
            # behind it, in the core's order.
            sealing = partial(seal, self.identity, topic, message, to)
            self._outbox.put_nowait((topic, sealing, False))
            return
        payload = seal(self.identity, topic, message, to)
        if SEND_AT_ONCE and self._outbox.empty() and not self._sending:
            # Nothing of ours is waiting or being written: this one may go
            # at once (an Append before the authority seals its updates, a
            # reply before the voter's loop turns), in the core's order.
            link = self._link
            if link is not None and link.publish_now(topic, payload):
                return
        self._outbox.put_nowait((topic, payload, False))

    # -- the loop ------------------------------------------------------------

    def _carry_out(self, effects: list[Effect]) -> None:
        """In order: a persist effect is durable (synced) before the next
        starts, so nothing is sent or acknowledged before it is on disk."""
        wrote = False
        for effect in effects:
            if isinstance(effect, PersistEntries):
                # From ``first`` on, the disk's log is being replaced.
                self._durable = min(self._durable, effect.first - 1)
                persist(self.storage, effect)
                self._durable = effect.first - 1 + len(effect.entries)
                wrote = True
                continue
            if persist(self.storage, effect):
                continue
            if isinstance(effect, Send):
                _log_election(effect)
                self.send(effect.to, effect.message)
            elif isinstance(effect, Apply):
                if self.on_apply is not None:
                    self.on_apply(effect.index, effect.entry, self.read(effect.entry))
            elif isinstance(effect, AuthorityKnown):
                log.info(
                    "room %s: the authority of term %d is %s",
                    self.code,
                    effect.term,
                    peer_id(effect.authority),
                )
                # The owner first: a game's new authority makes its room key,
                # which the announcement names.
                if self.on_authority is not None:
                    self.on_authority(effect.term, effect.authority)
                if effect.authority == self.identity.public_key and self.node.role == "authority":
                    self._announce(effect.term)  # unless its owner stood aside (abdicate)
            elif isinstance(effect, SteppedDown):
                log.info("stepped down: term %d is another's", effect.term)
                if self.on_stepped_down is not None:
                    self.on_stepped_down(effect.term)
        if wrote and self.on_held is not None:
            self.on_held()

    # -- the seat that acted counts its own majority (section 12) -----------

    def holds(self, term: int, index: int) -> bool:
        """Whether this voter's log holds entry ``index`` of ``term`` on disk."""
        return 0 < index <= self._durable and self.node.log[index - 1].term == term

    def majority_holds(self, term: int, index: int) -> bool:
        """Whether entry ``index`` of ``term`` is on the disks of a majority
        of the voters, given that the authority of ``term`` holds it (its
        ``uncommitted`` update says so: it writes before it sends one):
        the authority, this voter and those whose ``Held`` say so. That is
        Raft's condition for committed; the rule that a commit waits for
        another share holder (``Node._successor_holds``) is kept too, more
        strictly (a silent holder holds it up: the authority's own commit
        then shows it, a hop later)."""
        node = self.node
        if node.term != term or node.role != "follower" or node.authority is None:
            return False
        if not self.holds(term, index):
            return False
        holding = {node.authority, self.identity.public_key}
        holding.update(
            voter
            for voter, (held_term, held_index) in self.held_by.items()
            if held_term == term and held_index >= index
        )
        return self._enough_hold(holding, node.authority)

    def _enough_hold(self, holding: set[bytes], authority: bytes) -> bool:
        """Whether the voters ``holding`` an entry (``authority`` among
        them) are a majority with a share holder other than the authority
        among them, when there is one: the seat's count (``majority_holds``)."""
        node = self.node
        if len(holding) < majority(len(node.voters)):
            return False
        others = {share.holder for share in node.config.shares} - {authority}
        return not others or not others.isdisjoint(holding)

    def _tell_held(self, sender: bytes, append: Append) -> None:
        """After an Append is written: tell the voter it names (the seat
        that acted) that this one holds its entry."""
        notify, node = append.notify, self.node
        if notify is None or notify.key in (self.identity.public_key, sender):
            return
        if sender != node.authority or append.term != node.term or notify.key not in node.voters:
            return
        if self.holds(append.term, notify.index):
            self.send(notify.key, Held(append.term, notify.index))

    def _on_held(self, sender: bytes, held: Held) -> None:
        if sender not in self.node.voters or sender == self.identity.public_key:
            return
        if (held.term, held.index) > self.held_by.get(sender, (0, 0)):
            self.held_by[sender] = (held.term, held.index)
            if self.on_held is not None:
                self.on_held()

    def read(self, entry: Entry) -> bytes | None:
        """An action entry's plaintext, when this process holds the room
        secret (the authority: docs/election.md section 5); None elsewhere."""
        secret = self.node.secret
        if entry.kind != "action" or secret is None:
            return None
        try:
            return bytes(SecretBox(secret).decrypt(entry.data))
        except (CryptoError, ValueError):
            return None

    def _announce(self, term: int) -> None:
        topic = authority_topic(self.code)
        payload = seal(self.identity, topic, Announce(term, self.room_key))
        self._announcement = (term, payload)
        self._outbox.put_nowait((topic, payload, True))

    @property
    def link(self) -> MqttLink | None:
        """This voter's link (where it is: ``host``, ``port``, ``connected``)."""
        return self._link

    def announcement(self) -> bytes | None:
        """This voter's announcement of the term it leads now (retained on
        :func:`authority_topic`), or None when it leads none."""
        if self._announcement is None or self.node.role != "authority":
            return None
        term, payload = self._announcement
        return payload if term == self.node.term else None

    def _sealed_request(self, sender: bytes, request: Request) -> Request | None:
        """At the authority, a new request's action under the room secret:
        the log every voter keeps is ciphertext (issue 20, "Nobody peeks").
        A re-sent request goes on as it is (the core answers it from the
        log); ``None`` when the action would not fit an entry."""
        secret = self.node.secret
        if self.node.role != "authority" or secret is None:
            return request
        if self.node.known_request(sender, request.nonce) is not None:
            return request
        if len(request.data) > MAX_ENTRY_DATA - SecretBox.NONCE_SIZE - SecretBox.MACBYTES:
            return None
        return Request(request.nonce, bytes(SecretBox(secret).encrypt(request.data)))

    def succession(self) -> list[tuple[str, int]]:
        """The voters' standby brokers known, in the config's order."""
        brokers = self.brokers()
        return [brokers[voter] for voter in self.node.voters if voter in brokers]

    def brokers(self) -> dict[bytes, tuple[str, int]]:
        """Each voter's standby broker known here (its own included)."""
        brokers = dict(self._presences.brokers)
        if self.broker is not None:
            brokers[self.identity.public_key] = self.broker
        return brokers

    def set_standby(self, broker: tuple[str, int]) -> None:
        """This voter's standby broker is up (started beside its first
        connection, not before it): in its presence from now on, published
        again at once if it is connected."""
        self.broker = broker
        self._follow_succession()
        link = self._link
        if link is not None and link.connected:
            topic = voter_presence_topic(self.code, self.identity.peer_id)
            self._outbox.put_nowait((topic, self._presence(online=True), True))

    def learn_brokers(self, brokers: dict[bytes, tuple[str, int]]) -> None:
        """Standby brokers told by the room's state (signed by its
        authority, who heard the voters' presences): for voters whose own
        presence this voter has not read. A voter whose link never reached
        the room's broker before it died (its host killed in the game's
        first second: the chaos soak, 5 December) otherwise knew only its
        own, went there alone, and the others lacked its vote for good."""
        known = self._presences.brokers
        for voter, broker in brokers.items():
            if voter in self.node.voters and voter != self.identity.public_key:
                known.setdefault(voter, broker)
        # On a standby broker that comes after one just learnt: there first
        # (not the authority: its link stays where its voters are; nor a
        # voter that hears it: the table is here, and a broker started late,
        # a returned voter's, first in the config's order, split the room's
        # links between two brokers).
        self._follow_succession(
            rejoin_earlier=self.node.role != "authority"
            and not self.node.hears_authority(self.clock())
        )

    def _follow_succession(self, *, rejoin_earlier: bool = False) -> None:
        succession = self.succession()
        if succession != self._succession:
            self._succession = succession
            if self._link is not None:
                self._link.set_alternates(self._alternates(), rejoin_earlier=rejoin_earlier)
            if self.on_brokers is not None:
                self.on_brokers(succession)

    def _alternates(self) -> list[tuple[str, int]]:
        return list(dict.fromkeys([*self.cluster, *self.succession()]))

    def _presence(self, *, online: bool) -> bytes:
        topic = voter_presence_topic(self.code, self.identity.peer_id)
        where = "" if self.broker is None else broker_text(self.broker)
        return sealed_presence(
            self.identity, topic, self.code, self._epoch, online=online, broker=where
        )

    def _will(self) -> LastWill:
        """This connection's "gone", signed now, sent by the broker if the
        connection dies (each connection a new epoch)."""
        self._epoch += 1
        topic = voter_presence_topic(self.code, self.identity.peer_id)
        return LastWill(topic, self._presence(online=False), retain=True)

    async def _on_connect(self) -> None:
        """This connection's epoch, "online": the others tell its will from
        a late one of an earlier connection."""
        assert self._link is not None
        # Who is online is this broker's to say from now on (its retained
        # records come next): those read on another broker are not here.
        self._presences.online.clear()
        self._connected_at = self.clock()
        # Then who wants to know hears that the count says something again.
        if self._settling is not None:
            self._settling.cancel()
        loop = asyncio.get_running_loop()
        self._settling = loop.call_later(PRESENCE_SETTLE, self._presence_changed)
        topic = voter_presence_topic(self.code, self.identity.peer_id)
        await self._link.publish(topic, self._presence(online=True), retain=True)
        # Not its announcement again: a voter cannot know here that it still
        # leads (an old authority back from a freeze sent its term's over its
        # successor's, retained, and nobody could follow the table any more:
        # tests/net/test_recovery.py). Its table's link sends it beside the
        # room state, and again whenever another's state replaces it there.

    def counting(self) -> bool:
        """Whether :meth:`voters_online` and :meth:`voters_away` say who is
        here: this voter's link is up, and has been PRESENCE_SETTLE since it
        came up (the others' retained records have come by then)."""
        link, since = self._link, self._connected_at
        if link is None or not link.connected or since is None:
            return False
        return self.clock() - since >= PRESENCE_SETTLE

    def _presence_changed(self) -> None:
        if self.on_presence is not None:
            self.on_presence()

    def voters_online(self) -> int:
        """How many of the room's voters are where this one is: itself if
        its link is up, and each other whose newest record here says
        online (a clean disconnection that said nothing counts as online
        until its "gone" or a will comes)."""
        link = self._link
        here = 1 if link is not None and link.connected else 0
        return here + sum(self._presences.online.values())

    def voters_away(self) -> list[Voter]:
        """The room's other voters not counted by :meth:`voters_online`:
        those whose newest record here does not say online, in the
        config's order (the bar names whose machine the game waits for)."""
        online = self._presences.online
        own = self.identity.public_key
        return [
            voter
            for voter in self.node.config.voters
            if voter.key != own and not online.get(voter.key, False)
        ]

    def _on_presence(self, topic: str, payload: bytes, now: float) -> None:
        voter = self._presences.gone(topic, payload, now)
        self._follow_succession()
        self._presence_changed()
        if voter is None or voter != self.node.authority:
            return  # alive, a late will, or not the authority's
        # The authority's connection died. Every voter hears this will at
        # once: each stands after a short random delay, so that the first
        # usually wins before the others stand (a split vote costs an
        # election timeout), and not at all if an election began meanwhile.
        term = self.node.term
        epoch = self._presences.newest(voter)
        log.info("the authority's will: %s is gone", peer_id(voter))
        if self._link is not None and self._link.connected:
            # From now on this voter says yes to whoever asks first
            # (pre-vote); a broker that stops sends this will too, but then
            # our link goes down and ``came_up`` gives the authority its
            # time again once we are back (on that broker: ``_came_back``).
            self.node.authority_gone(now)
            self._will_seen = (term, voter, epoch)
        self._stand_soon(term, voter, epoch)

    def _stand_soon(self, term: int, voter: bytes, epoch: int) -> None:
        """Stand after a short random delay, so that the first voter usually
        wins before the others stand (a split vote costs an election
        timeout), unless an election began meanwhile."""

        def stand() -> None:
            # Not if it came back meanwhile (a newer connection said
            # "online"), nor while our own link is down: a broker that stops
            # sends every client's will as it goes (Mosquitto), and a term
            # raised then unseated the live authority once all were back.
            back = self._presences.newest(voter) > epoch
            up = self._link is not None and self._link.connected
            if self.node.term == term and self.node.authority == voter and up and not back:
                self._carry_out(self.node.suspect(self.clock(), current=True))

        delay = WILL_SETTLE + self._rng.uniform(0, WILL_SPREAD)
        asyncio.get_running_loop().call_later(delay, stand)

    async def _on_message(self, topic: str, payload: bytes) -> None:
        now = self.clock()
        if topic != self.topic and topic not in self._presences.topics:
            return
        if not self._limits.allow(topic, len(payload), now):
            self._floods.note("election-flood", "dropped election messages past the rate", now)
            return
        if topic in self._presences.topics:
            self._on_presence(topic, payload, now)
            return
        try:
            envelope = open_envelope(topic, payload, identity=self.identity)
            message = open_body(envelope, _message_decoder, self.identity)
        except WireError as error:
            self._floods.note("election-bad", f"dropped an election message: {error}", now)
            return
        if isinstance(message, Held):
            self._on_held(envelope.sender, message)
            return
        if isinstance(message, Request):
            sealed = self._sealed_request(envelope.sender, message)
            if sealed is None:
                self._floods.note("election-bad", "dropped an action too large for an entry", now)
                return
            message = sealed
        self._carry_out(self.node.receive(envelope.sender, message, now))
        if isinstance(message, Append):
            self._tell_held(envelope.sender, message)
            if not self.in_step.is_set():
                self._note_in_step(envelope.sender, message)

    def _note_in_step(self, sender: bytes, append: Append) -> None:
        """``in_step`` once an Append of the authority that reached the end
        of its log (fewer entries than a batch holds) matches this voter's
        log here: it held the authority's whole log then (a dealer started
        again says so: net/dealer/)."""
        node = self.node
        end = append.prev_index + len(append.entries)
        end_term = append.entries[-1].term if append.entries else append.prev_term
        if (
            sender == node.authority
            and append.term == node.term
            and len(append.entries) < MAX_BATCH
            and (end == 0 or (end <= node.last_index and node.log[end - 1].term == end_term))
        ):
            self.in_step.set()

    async def _tick_loop(self) -> None:
        down = False
        while True:
            await asyncio.sleep(TICK)
            down = self.tick(down)

    def tick(self, down: bool) -> bool:
        """One beat of the election's clock (every :data:`TICK` seconds
        while the voter runs): the core's timers, and what the link's state
        changes. ``down``: whether the last beat found the link down; the
        result says whether this one did. Apart from the loop so that a
        test beats it by hand, with no sleeping (sans-I/O, as the core)."""
        link = self._link
        if link is not None and not link.connected:
            # Cut off from the broker, standing reaches nobody and only
            # raises the term (persisted each time); back on a broker
            # that merely restarted, that higher term unseated a live
            # authority, and the table moved for a blip (the broker
            # restart test). The timer starts again on reconnection.
            # Only the authority, which stands for nothing, goes on
            # beating (its commits and heartbeats, sent once back).
            if self.node.role != "authority":
                return True
            down = True
        elif down and link is not None:
            down = False
            self._came_back(link)
        self._carry_out(self.node.tick(self.clock()))
        self._check_lonely()
        return down

    def _check_lonely(self) -> None:
        """Survey the room's brokers once this voter has heard no authority
        for a while on one: its voters may be on another (docs/election.md
        section 13). Only where the room's brokers fail over (standby
        brokers) and are not one cluster's nodes (alike: every node holds
        the same), and again less often each time it finds nowhere better."""
        now = self.clock()
        link = self._link
        alone = (
            self.surveys
            and not self.cluster
            and link is not None
            and link.connected
            and self.node.role != "authority"
            and not self.node.hears_authority(now)
            and len(self._to_survey()) > 1
        )
        if not alone:
            self._lonely_since = None
            self._lonely_wait = LONELY_FIRST
            return
        if self._lonely_since is None:
            self._lonely_since = now
        surveying = self._surveying is not None and not self._surveying.done()
        if not surveying and now - self._lonely_since >= self._lonely_wait:
            self._surveying = asyncio.get_running_loop().create_task(
                self._survey(), name=f"room {self.code}: a survey of its brokers"
            )

    def _to_survey(self) -> list[tuple[str, int]]:
        """The room's brokers known here: its link's (the room's own broker
        first: a machine back from the dead brings it back, and it is in no
        list of standby brokers), those heard of, those remembered."""
        link = self._link
        known = link.brokers if link is not None else []
        return list(dict.fromkeys([*known, *self.succession(), *self.remembered_brokers]))

    async def _survey(self) -> None:
        link = self._link
        assert link is not None
        here = (link.host, link.port)
        try:
            seen = await survey(self.code, [here, *self._to_survey()], self.node.voters)
        except Exception as error:  # a look that fails is a broker not seen
            log.info("room %s: a survey of its brokers failed: %r", self.code, error)
            seen = []
        for view in seen:
            for voter, broker in view.standby.items():
                if voter in self.node.voters and voter != self.identity.public_key:
                    self._presences.brokers.setdefault(voter, broker)
        best = choose(seen, me=self.identity.public_key, here=here)
        now = self.clock()
        still = link.connected and (link.host, link.port) == here
        if best is None or best == here or not still or self.node.hears_authority(now):
            # Nowhere better: looked at again later, less often.
            self._lonely_since = now
            self._lonely_wait = min(self._lonely_wait * 2, LONELY_MAX)
            self._follow_succession()
            return
        log.info(
            "room %s: no authority heard here (%s) for %.0f s; the room's voters are on %s: "
            "going there",
            self.code,
            broker_text(here),
            self._lonely_wait,
            broker_text(best),
        )
        self._lonely_since = None
        self._lonely_wait = LONELY_FIRST
        self._follow_succession()
        link.move_to(best)
        if self.on_moved is not None:
            self.on_moved(best)

    def _came_back(self, link: MqttLink) -> None:
        """The link is up again: a whole election timeout for the authority
        to reach us from here, and on the broker we were on before, the
        longest reconnection backoff too: its link comes back on its own
        schedule. On another broker (ours went down the succession list:
        the room's died with its host), none.

        And none at all on a standby broker when the authority's will came
        first, while our link was up: the room's broker was alive then and
        saw the authority's connection die, and an embedded broker lives and
        dies with its host's machine (the host killed: its broker sends the
        will, then goes as its stdin closes). The authority is gone; waiting
        a whole election timeout there for it only delayed the table's move
        by a second (bench/failover.py: 1.7 s at p50). A cluster's other
        node (NATS) is not this case: a node that stops may send every
        client's will while the authority lives on. Safety never rests on
        this (docs/election.md section 4): a needless election costs a term."""
        where = (link.host, link.port)
        same = where == self._connected_to
        self._connected_to = where
        now = self.clock()
        self.node.came_up(now, grace=BACKOFF_MAX if same else 0.0)
        seen, self._will_seen = self._will_seen, None
        if same or seen is None or where not in self.succession() or where in self.cluster:
            return
        term, voter, epoch = seen
        back = self._presences.newest(voter) > epoch  # a newer connection said "online"
        if self.node.term == term and self.node.authority == voter and not back:
            self.node.authority_gone(now)
            self._stand_soon(term, voter, epoch)

    async def _send_loop(self) -> None:
        while True:
            topic, sealed, retain = await self._outbox.get()
            link = self._link
            if link is not None:
                payload = sealed if isinstance(sealed, bytes) else sealed()
                # Lost while the link is down: the core sends again (its
                # heartbeats, a new election, a client's resend).
                self._sending = True
                try:
                    await link.publish(topic, payload, retain=retain)
                finally:
                    self._sending = False


def _log_election(send: Send) -> None:
    """Elections, step by step, for ``PASSE_LOG=debug`` (why a room found
    no authority: who stood for which term, who voted how)."""
    message = send.message
    if not log.isEnabledFor(logging.DEBUG):
        return
    if isinstance(message, PreVote):
        log.debug(
            "asking %s whether it would vote for us in term %d", peer_id(send.to), message.term
        )
    elif isinstance(message, RequestVote):
        log.debug(
            "standing for term %d (log %d of term %d): asking %s",
            message.term,
            message.last_index,
            message.last_term,
            peer_id(send.to),
        )
    elif isinstance(message, Vote):
        answer = "granted" if message.granted else "refused"
        log.debug("term %d: vote %s to %s", message.term, answer, peer_id(send.to))


def _waiting_voter_first(effects: list[Effect], waiting: bytes | None) -> list[Effect]:
    """The Append to ``waiting`` (the voter of the seat whose action the
    entry holds: it waits for its own copy) moved to the front of the sends
    that open the list; no send moves past anything else."""
    leading = next(
        (n for n, effect in enumerate(effects) if not isinstance(effect, Send)), len(effects)
    )
    first = [n for n, effect in enumerate(effects[:leading]) if cast(Send, effect).to == waiting]
    if waiting is None or not first:
        return effects
    return [effects[first[0]], *effects[: first[0]], *effects[first[0] + 1 :]]


def first_persisted(config: Config, maker: bytes) -> Persisted:
    """A new room's voter storage: its config, and term 1 with the vote in
    it given to the room's maker, which leads that term without a campaign
    (``Node.lead_first_term``): no other authority of term 1 can exist."""
    return Persisted(1, maker, (Entry(0, "config", maker, 0, encode_message(config)),))


__all__ = [
    "Announce",
    "FileStorage",
    "StorageError",
    "VoterDriver",
    "announce_decoder",
    "authority_topic",
    "broker_text",
    "election_topic",
    "first_persisted",
    "parse_broker",
    "voter_presence_topic",
]
