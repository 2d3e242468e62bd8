"""A peer's side of a networked room: join by code, wait in the lobby, play.

:class:`RemoteTable` is the MQTT implementation of
:class:`~net.peer.client.TableClient`: the table screens use it exactly as they use
the in-process client. It trusts nothing it receives: the room's state must be
signed by the authority key it first saw, private messages must be sealed to
this peer by that key, views and events are decoded field by field
(:mod:`net.protocol.codec`), and a gap in the log makes it ask for the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec
from nacl.signing import SigningKey

from core.engine import (
    Action,
    Event,
    GameRecord,
    IllegalAction,
    PasseError,
    RecordError,
    View,
)
from core.registry import get_game
from net.authority.host import claim_moved_room
from net.authority.replication import RoomReplica, VoterBusy, decode_room_config, spawn
from net.authority.rooms import RoomStore
from net.authority.table import Listener, TableUpdate
from net.election.driver import announce_decoder, authority_topic, broker_text, parse_broker
from net.election.messages import Config as ElectionConfig
from net.identity import Identity, fingerprint, peer_fingerprint, peer_id
from net.lan.transport import BrokerUnreachable, LastWill, MqttLink, stop_task
from net.peer.client import TableClient
from net.peer.dealcheck import ShownLog, check_shown
from net.peer.failover import (
    HandedTable,
    SeatVoter,
    StandbyStart,
    start_standby,
    stop_standby,
    stored_election,
    stored_standby_port,
)
from net.peer.pins import RoomPins
from net.protocol.bounds import FloodLog
from net.protocol.codec import CodecError, GameCodec, codec_for
from net.protocol.codes import CodeError, format_code, normalize_code
from net.protocol.text import clean_name, clean_text, clean_tree
from net.protocol.wire import (
    PROTOCOL_VERSION,
    TOPIC_ROOT,
    Act,
    Admit,
    Again,
    Hello,
    Knocking,
    Knocks,
    Leave,
    Refused,
    RoomState,
    StartNow,
    Sync,
    Update,
    Watch,
    Watched,
    Welcome,
    WireError,
    authority_message_decoder,
    next_presence_epoch,
    next_room_decoder,
    next_topic,
    open_body,
    open_envelope,
    presence_decoder,
    presence_topic,
    proven_dealer,
    room_prefix,
    room_state_decoder,
    seal,
    sealed_presence,
    seat_held_by,
    to_authority_topic,
    to_peer_topic,
    watchers_decoder,
    watchers_topic,
)

log = logging.getLogger("passe.peer")

ROOM_WAIT = 3.0  # seconds to find the room's retained state on the broker
# Seconds a seat that votes in its room (restarted from its voter file), or
# that sees a trace of a next authority, waits for a state it can trust: the
# table may be between authorities, the next one elected (with this seat's
# vote) and showing nothing before its term's first entry commits
# (docs/election.md, section 10). See RemoteTable._between_authorities.
MOVE_WAIT = 20.0
REPLY_WAIT = 5.0  # seconds for the authority to answer a join
CONNECT_WAIT = 5.0  # seconds to reach the broker, retrying with backoff
# Seconds before taking the seat again when the last Hello got no answer: a
# Hello sent while the authority was not yet subscribed (a host resuming on
# a new broker) is lost, as any QoS 0 message with no subscriber is.
RESEAT_WAIT = 2.0
# Seconds before asking the authority where the table stands when our last
# action got no answer (lost on a link that dropped unnoticed): its answer
# acknowledges it, so neither a bot nor a person waits for it forever.
ACT_WAIT = 3.0
# Seconds before asking again for the same missing part of the log.
RESYNC_WAIT = 2.0
# Seconds a knocking joiner waits for the host to let it in (or not).
KNOCK_WAIT = 300.0
# A joining Hello unanswered is sent again (the same key, a new n) after
# these many seconds, doubling, each with jitter (a half to the whole of
# it), within REPLY_WAIT: under a flood of fresh keys the authority drops
# strangers' messages past a budget, and keeps one of its own for keys heard
# before (issue 19 seats item 1; docs/protocol.md section 11).
HELLO_RESEND_FIRST = 0.25
HELLO_RESEND_MOST = 2.0
HELLO_RESENDS = 6
# Seconds between two publications of our (unchanged) presence record while
# connected: a host that bounds presence (issue 19 seats item 5) takes a seat
# whose record stops coming for a while as away.
PRESENCE_BEAT = 15.0
# The longest a process votes on in a game its person left (``leave``): a
# game whose end it never learns (its table gone for good) does not keep a
# link and a voter running for the rest of the process's life.
KEEP_VOTE_AT_MOST = 4 * 3600.0


# Other keys' room states kept for an announcement that may name one.
MAX_FOREIGN_ROOMS = 4
# Seconds after a (re)connection for the room's state to come: a broker
# that has none is not the room's (another program's on the port where the
# room's was, its host's machine back with that port taken: a play-test),
# and the room is looked for on the LAN (mDNS), then every ROOM_SEARCH_GAP.
ROOM_HERE_WAIT = 5.0
ROOM_SEARCH_GAP = 10.0
ROOM_SEARCH_WAIT = 3.0  # seconds for the room's advert to answer


class JoinError(Exception):
    """Joining failed; the message is one line for a person. ``code``:
    unreachable, no-room, version, full, started, taken, closed, timeout, bad."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


RoomListener = Callable[[RoomState], None]
LinkListener = Callable[[bool], None]


class RemoteTable(TableClient):
    """One seat at a networked table (see :func:`join_room`)."""

    def __init__(
        self,
        identity: Identity,
        code: str,
        broker_host: str,
        broker_port: int,
        name: str,
        *,
        authority_key: bytes | None = None,
        pins: RoomPins | None = None,
        bot: bool = False,
        alternates: Sequence[tuple[str, int]] = (),
        stand: bool = True,
        maker_rooms: Path | None = None,
        dealer: str | None = None,
    ) -> None:
        self.identity = identity
        self.code = code
        # The peer id of the dealer this person asked to deal the room
        # (`passe host --dealer`): its first state is trusted only if that
        # dealer signed it (RoomState.dealer_proof), not on first use.
        self.dealt_by = dealer
        # The last key that signed a state of this code without that dealer.
        self._not_dealt_by: bytes | None = None
        self.broker_host = broker_host
        self.broker_port = broker_port
        # The other nodes of the broker's cluster, tried in order when it
        # cannot be reached (issue 20; net/lan/transport.py).
        self.broker_alternates = tuple(alternates)
        self.cluster = tuple(alternates)  # kept when standby brokers are added
        self.name = name
        self.seat: int | None = None
        self.game_id = ""
        self.names: tuple[str, ...] = ()
        self.room: RoomState | None = None
        # Pinned when following a table to its next game (the same host's
        # key); else trusted on first use (docs/protocol.md, section 5).
        self.authority_key: bytes | None = authority_key
        # The keys of rooms sat in (net/peer/pins.py): one remembered for this
        # code is the only one accepted (issue 19 item 5).
        self.pins = pins
        if authority_key is None and pins is not None:
            self.authority_key = pins.get(code)
        self.pinned = self.authority_key is not None
        # Where this machine keeps the rooms it hosted (None: not looked at):
        # one whose table moved while it was away has its first voter there.
        self.maker_rooms = maker_rooms
        self._maker: tuple[RoomStore, SeatVoter] | None = None
        # The table this process ran (it moved here), its game over, kept for
        # its person to host the next game: closing this seat leaves it be
        # (keep_table; tui/netplay.py open_next_moved_room takes it).
        self.kept_table: HandedTable | None = None
        # The request waiting for its answer: how to send it again, and the
        # key it was last sealed to.
        self._pending_again: Callable[[], Hello | Sync | Watch] | None = None
        self._pending_sealed_to: bytes | None = None
        self._sealed_refusal: Refused | None = None  # one it could not read, kept
        self._foreign_keys: set[bytes] = set()  # room states ignored: other signers
        # The dealer the room's state names without that dealer's signature
        # (RoomState.dealer_proof), as cleaned: "" for a dealer's own room
        # or a host's that names none. The room is read as a host's.
        self.unproven_dealer = ""
        self.bot = bot  # a bot process plays this seat (listed as a bot)
        self._asked_for_table = False  # a Hello sent for a first view never had
        # Whether this person stands for the table if the host's machine
        # stops (issue 20; each Hello says it): False, their process still
        # votes, holds no share of the room secret and is never elected.
        self.stand = stand
        self.knocking = False  # waiting for the host to let us in
        self._knock_listeners: list[Callable[[str], None]] = []
        # Who knocks at the room, if this seat decides who sits (its owner:
        # a dealer's room asked for by this person, wire.Knocks), names
        # cleaned; and who wants to know.
        self.waiting: list[Knocking] = []
        # Told the knocks (an empty list at sitting down): this seat owns the
        # room; its leaving the lobby closes it (Authority.owner_left).
        self.owns_room = False
        self._waiting_listeners: list[Callable[[list[Knocking]], None]] = []
        self.removed: str | None = None  # why the host took our seat, if it did
        self.next_code: str | None = None  # where the table plays its next game
        # A next-game notice that came before the room state said "over".
        self._next_payload: tuple[str, bytes] | None = None
        self._next_listeners: list[Callable[[str], None]] = []
        self.codec: GameCodec | None = None
        self.view: View | None = None
        self.log: list[Event] = []
        # Why the room's signed state could not be read, if it could not (a
        # host of another Passe version): said if the join finds nothing.
        self._unreadable_state = ""
        # The peer id of the voter that announced the current term (it runs
        # the table), once one has: table_seat.
        self.table_voter = ""
        # Spans of the log (start, end) in which a bot played for this seat's
        # person while they were away (Update.stood_in).
        self.stood_in: list[tuple[int, int]] = []
        self.seq = -1
        self._listener: Listener | None = None
        self._room_listeners: list[RoomListener] = []
        self._link_listeners: list[LinkListener] = []
        self._host_listeners: list[LinkListener] = []
        self._machines_listeners: list[Callable[[], None]] = []
        self.host_present = True  # until its will says otherwise
        # On another broker now: the table's newest record read there again
        # (see _host_unknown_here).
        self._host_reread = False
        # Dropped messages are logged once per interval (issue 19 item 8).
        self._floods = FloodLog(log)
        self._host_epoch = -1
        self._room_seen = asyncio.Event()
        # Whether the room's state came over the link's current connection,
        # and the search for it elsewhere while it does not (_watch_room_here).
        self._room_here = False
        self._room_search: asyncio.Task[object] | None = None
        self._foreign_version: int | None = None
        self._pending: asyncio.Future[Welcome | Refused | Watched] | None = None
        self._beat: asyncio.Task[None] | None = None  # see _beat_presence
        self._epoch = time.time_ns() // 1_000_000  # of requests: grows across restarts
        self._presence_epoch = self._epoch  # of presence: grows with each connection
        self._n = 0
        self._link: MqttLink | None = None
        self._prefix = room_prefix(code)
        self._started = asyncio.Event()
        self._closed = False
        # Left the game, this process's voters still voting until it ends
        # (``leave(keep_vote=True)``): no seat, no screen, no Hello again.
        self.keeps_vote = False
        self._voter_busy = False  # this key's voter of the room runs elsewhere
        self._left = False  # its person's leave reached the table (_on_room_message)
        self._former_voter: asyncio.Task[object] | None = None  # see _follow_config
        self._keep_vote_until: asyncio.TimerHandle | None = None
        # The deal checked at the end (issue 20): against its commitment, and
        # the record replayed against all this seat was shown (net/peer/dealcheck.py).
        self.verified: bool | None = None
        self.deal_report = ""  # that check in one line for a person
        self._shown = ShownLog()  # the views and events received, to check
        self._commitment_held = False  # the revealed seed matched its hash
        # What the last check was of (see _check_deal).
        self._checked_for: tuple[bytes, bytes, int, int, int | None] | None = None
        # The deal's commitment as first published: the record at the end is
        # checked against *this*, so a host cannot swap both seed and hash.
        self._first_seed_hash: bytes | None = None
        self._deal_checked = asyncio.Event()
        # The log length a Sync asked from, and when (see _on_update).
        self._asked_from: tuple[int, float] | None = None
        self.acked = 0  # the n of our latest request the authority has handled
        self.last_action_n = 0  # the n of our latest action
        self._last_act: Act | None = None  # and the action itself, to send again
        # The elected authority (issue 20; net/peer/failover.py): the room's
        # voters (its config, from the room state), the highest term
        # announced by one of them, this process's voter if it is one, and
        # the latest room state of each other key (a new authority's may
        # come before its announcement; at most MAX_FOREIGN_ROOMS kept).
        self.term = 0
        self.voter: SeatVoter | None = None
        # Our latest action's update, sent before its change committed,
        # until this seat knows a majority of the voters holds it; and the
        # last one shown so, until its committed copy comes (docs/election.md
        # section 12).
        self._uncommitted: Update | None = None
        self._shown_uncommitted: Update | None = None
        # The replica of the table this process runs, when it runs this
        # room's (set by whoever hosts it here: the host's person's seat);
        # a successor's is its voter's. The seat's own early update shows
        # once the change commits here, a broker hop before its committed
        # copy could come (waited for by ``_commit_wait``).
        self.hosted_replica: Callable[[], RoomReplica | None] = lambda: None
        # The host's own seat (its machine runs the room): no voter, so no
        # standby broker of its own either.
        self.runs_the_room = False
        # This seat's standby broker, started in the lobby of a room whose
        # broker dies with its host (its state says ``standby``) and named
        # in its presence, so that the game's first state names everyone's;
        # this seat's voter takes it over when the game starts.
        self._standby: StandbyStart | None = None
        self._standby_address = ""
        self._commit_wait: asyncio.Task[object] | None = None
        self._election = b""  # the config followed (encoded, as the room state has it)
        # Known from an earlier process that sat here (net/peer/pins.py): a
        # table that moved meanwhile is followed by its announcement.
        self._voters: frozenset[bytes] = pins.voters(code) if pins is not None else frozenset()
        self._announcement: bytes | None = None  # the latest (read again if the voters change)
        self._foreign_rooms: dict[bytes, tuple[str, bytes]] = {}
        self._moved_listeners: list[Callable[[int], None]] = []
        self._moves = 0  # how many times the table moved (see _request)
        # When it last moved (time.monotonic()): for a few seconds then every
        # seat is away at the new table until its Hello reaches it.
        self.moved_at: float | None = None
        self._last_broker: tuple[str, int] | None = None  # its link was last up on
        # Where the next game's room is, when its notice names a broker.
        self.next_broker: tuple[str, int] | None = None
        # How many watch the room (issue 21), from its retained count.
        self.watching = 0
        self._watching_stamp = -1

    # -- joining -------------------------------------------------------------

    async def join(self, seat: int | None = None, *, timeout: float | None = None) -> int:
        """Connect, find the room (within ``timeout``, ROOM_WAIT unless
        given), take a seat; raises :class:`JoinError`, closed then:
        refused, this process keeps nothing of the room running."""
        try:
            return await self._join(seat, ROOM_WAIT if timeout is None else timeout)
        except JoinError:
            # Its voter too, started again from its file before the room
            # answered: left running after a refusal ("the game has already
            # started": its person had left it), it won the table's next
            # election in a process that showed nothing of it (found in a
            # play-test: "The table moved to Joe's machine", Joe at home).
            await self.close()
            raise

    async def _join(self, seat: int | None, timeout: float) -> int:
        await self._find_room(timeout)
        ended = self._end_from_room()
        if ended is not None:
            return ended
        room = self.room
        if room is not None and room.phase == "over" and self._seat_held(room) is None:
            # No seat of ours in a finished game: said as its host says it.
            # Its host may have gone on to the next game's room, or exited
            # (a headless host does): a Hello went unanswered and was told
            # "the host is away… --resume" (found by hand: a stranger who
            # knew the finished room's code).
            await self._abandon()
            raise JoinError(f"the game in room {self.shown_code} is over", "started")
        try:
            reply = await self._request(
                self._hello(seat, have=0), resend=lambda: self._hello(seat, have=0)
            )
        except JoinError:
            # The game ended while we asked, and its host went with it (a
            # headless host exits at the end): its final state says how.
            ended = self._end_from_room()
            if ended is not None:
                return ended
            raise
        if isinstance(reply, Refused) and reply.code == "knock":
            reply = await self._knock()
        if not isinstance(reply, Welcome):
            await self._abandon()
            raise _refusal(reply)
        self.seat = reply.seat
        self._pin()
        return reply.seat

    async def _find_room(self, timeout: float) -> None:
        """Connect and find the room's state (a joiner's and a watcher's
        first steps); raises :class:`JoinError`."""
        me = self.identity.peer_id
        subscriptions = [
            # Any protocol version's room state, to tell a mismatch from a
            # wrong code; our own private topic.
            f"passe/+/{self.code}/room",
            to_peer_topic(self.code, me),
            next_topic(self.code),
            authority_topic(self.code),
            watchers_topic(self.code),  # how many watch (issue 21)
        ]
        if self.authority_key is not None:
            subscriptions.append(presence_topic(self.code, peer_id(self.authority_key)))
        self._resume_voter()
        self._resume_maker_voter()
        self._link = MqttLink(
            self.broker_host,
            self.broker_port,
            # The authority's presence only, once its key is known (the room
            # state names it): never presence/+, where anyone may retain
            # thousands of records that would flood the link (issue 19 item 6).
            subscriptions=subscriptions,
            on_message=self._on_message,
            on_connect=self._on_connect,
            on_state=self._on_link_state,
            will=self._will,
            alternates=self.broker_alternates,
        )
        try:
            # A loaded machine or a busy embedded broker can take a few
            # seconds; each node of a cluster as many (a NATS node makes a
            # JetStream consumer per subscription: docs/scale.md).
            await self._link.start(timeout=CONNECT_WAIT * (1 + len(self.broker_alternates)))
        except BrokerUnreachable as error:
            raise JoinError(str(error), "unreachable") from None
        try:
            try:
                await asyncio.wait_for(self._room_seen.wait(), timeout)
            except TimeoutError:
                if not self._between_authorities():
                    raise
                await asyncio.wait_for(self._room_seen.wait(), max(0.0, MOVE_WAIT - timeout))
        except TimeoutError:
            await self._abandon()
            if self._foreign_version is not None:
                raise JoinError(
                    f"room {self.shown_code} speaks protocol version {self._foreign_version}; "
                    f"this Passe speaks version {PROTOCOL_VERSION}: use the same Passe version",
                    "version",
                ) from None
            if self._unreadable_state:
                raise JoinError(
                    f"room {self.shown_code} was found, but this Passe cannot read its "
                    f"state ({self._unreadable_state}): its host may run another version "
                    "of Passe; use the same version",
                    "version",
                ) from None
            if self._not_dealt_by is not None and self.dealt_by is not None:
                raise JoinError(
                    f"room {self.shown_code} at {self.broker_host}:{self.broker_port} was not "
                    f"dealt by the dealer you asked (key {peer_fingerprint(self.dealt_by)}): "
                    f"its state is signed by another key ({fingerprint(self._not_dealt_by)}), "
                    "so it was ignored. Ask the dealer again",
                    "foreign",
                ) from None
            if self._foreign_keys and self.pinned:
                raise JoinError(
                    f"room {self.shown_code} is now signed by another key "
                    f"({fingerprint(next(iter(self._foreign_keys)))}) than the one of its host "
                    "when you sat there: ignored. If that host opened a new room under this "
                    "code, ask them for a new one",
                    "foreign",
                ) from None
            raise JoinError(
                f"no room {self.shown_code} at {self.broker_host}:{self.broker_port}: "
                "check the code",
                "no-room",
            ) from None
        assert self.room is not None
        if self.room.phase == "closed":
            await self._abandon()
            raise JoinError(f"room {self.shown_code} was closed by its host", "closed")

    async def _knock(self) -> Welcome | Refused | Watched:
        """The host is asked to let us in: wait for its answer (a Welcome
        or a refusal) up to KNOCK_WAIT, saying so meanwhile."""
        self.knocking = True
        for listener in list(self._knock_listeners):
            # Our own words (the host's reason is network text).
            # The key too: the host may be asked to let it in by its start
            # when strangers fill the knock queue (Authority.expect).
            listener(
                f"The host of room {self.shown_code} is asked to let you in: waiting for them… "
                f"Your key is {fingerprint(self.identity.public_key)}: read it to the "
                "host if they ask."
            )
        loop = asyncio.get_running_loop()
        self._pending = loop.create_future()
        try:
            return await asyncio.wait_for(self._pending, KNOCK_WAIT)
        except TimeoutError:
            await self._abandon()
            raise JoinError(
                f"the host of room {self.shown_code} did not let you in within "
                f"{KNOCK_WAIT / 60:g} minutes",
                "timeout",
            ) from None
        finally:
            self._pending = None
            self._pending_again = None
            self.knocking = False

    def on_waiting(self, listener: Callable[[list[Knocking]], None]) -> Callable[[], None]:
        """Call ``listener(knocks)`` whenever the room tells this seat, its
        owner, who knocks (oldest first)."""
        self._waiting_listeners.append(listener)
        return lambda: self._waiting_listeners.remove(listener)

    def admit(self, key: bytes, *, yes: bool) -> bool:
        """As the room's owner, let the knocking ``key`` in (``yes``) or
        turn it away; whether it could be sent now."""
        return self._send(
            Admit(room=self.code, epoch=self._epoch, n=self._next_n(), key=key, yes=yes)
        )

    def ask_next_game(self) -> bool:
        """As the owner of a dealer's room whose game is over, ask for the
        next game at this table; its notice (:meth:`on_next`) answers, a
        refusal comes in words. Whether it could be sent now."""
        return self._send(Again(room=self.code, epoch=self._epoch, n=self._next_n()))

    def ask_start(self) -> bool:
        """As the owner of a dealer's room in its lobby, start the game now:
        bots take the open seats. Whether it could be sent now."""
        return self._send(StartNow(room=self.code, epoch=self._epoch, n=self._next_n()))

    def _on_knocks(self, message: Knocks) -> None:
        self.owns_room = True
        self.waiting = [
            Knocking(knock.key, clean_name(knock.name, "someone"), knock.seat)
            for knock in message.knocks
        ]
        for listener in list(self._waiting_listeners):
            listener(self.waiting)

    def on_knock(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call ``listener(text)`` when our join waits for the host's answer."""
        self._knock_listeners.append(listener)
        return lambda: self._knock_listeners.remove(listener)

    def _pin(self) -> None:
        """We sit in this room: remember its key (net/peer/pins.py)."""
        if self.pins is not None and self.authority_key is not None:
            # With the broker: the room can be offered again after this
            # process ends, while our key holds its seat (net/peer/rejoin.py).
            self.pins.remember(self.code, self.authority_key, (self.broker_host, self.broker_port))

    async def change_seat(self, seat: int) -> int:
        """In the lobby, move to another free seat; raises :class:`JoinError`
        with the host's reason (taken, no such seat, started)."""
        reply = await self._request(self._hello(seat, have=len(self.log)), abandon=False)
        if not isinstance(reply, Welcome):
            raise _refusal(reply)
        self.seat = reply.seat
        return reply.seat

    def set_stand(self, stand: bool) -> None:
        """Stand for the table if the host's machine stops, or decline
        (issue 20): the authority hears it in a Hello for the seat held
        (it counts when the game starts, in the lobby)."""
        self.stand = stand
        if self.seat is not None and not self._closed:
            self._take_seat_again()

    async def _stop_beat(self) -> None:
        """No more "online" records (see _beat_presence): before our "gone"."""
        if self._beat is not None:
            with contextlib.suppress(Exception):
                await stop_task(self._beat)
            self._beat = None

    async def _abandon(self) -> None:
        await self._stop_beat()
        if self._link is not None:
            # "Gone" for whoever is connected now; then, in a room that is
            # over or closed, which needs our presence no more, cleared rather
            # than left on the broker for ever (issue 18.10; a clean
            # disconnect sends no will).
            topic = presence_topic(self.code, self.identity.peer_id)
            final = [(topic, self._presence_payload(online=False))]
            if not self._presence_needed():
                final.append((topic, b""))
            log.debug("leaving the link: presence gone (epoch %d)", self._epoch)
            await self._link.close(final=final)

    def _presence_needed(self) -> bool:
        """Whether our presence record is still of use once we leave: not
        in a room that is over or closed (a watcher's never: net/peer/watch.py)."""
        return self.room is None or self.room.phase not in ("over", "closed")

    async def _request(
        self,
        message: Hello | Sync | Watch,
        *,
        abandon: bool = True,
        resend: Callable[[], Hello | Watch] | None = None,
    ) -> Welcome | Refused | Watched:
        """Send ``message`` and wait REPLY_WAIT for its answer; ``resend``
        makes the request sent again while unanswered (HELLO_RESEND_*).

        A seat that votes in its room (restarted from its voter file) waits
        MOVE_WAIT: the authority it asks may have died, and the next one
        needs this seat's vote; whenever the table moves, the next authority
        is asked at once, with a whole wait and its own resends."""
        loop = asyncio.get_running_loop()
        pending = self._pending = loop.create_future()
        self._pending_again = resend or (lambda: message)
        self._pending_sealed_to = self.authority_key
        self._send(message)
        patience = REPLY_WAIT if self.voter is None else max(REPLY_WAIT, MOVE_WAIT)
        deadline = loop.time() + patience
        delay, resends = HELLO_RESEND_FIRST, 0
        moves = self._moves
        try:
            while True:
                if self._moves != moves and resend is not None:
                    moves = self._moves
                    deadline = loop.time() + patience
                    delay, resends = HELLO_RESEND_FIRST, 0
                    self._pending_sealed_to = self.authority_key
                    self._send(resend())
                left = deadline - loop.time()
                if left <= 0:
                    raise TimeoutError
                wait = left
                if resend is not None:
                    # Past its resends too, it looks again a while later:
                    # the table may have moved meanwhile.
                    wait = min(left, delay * random.uniform(0.5, 1.0))
                try:
                    return await asyncio.wait_for(asyncio.shield(pending), wait)
                except TimeoutError:
                    if resend is None or resends >= HELLO_RESENDS or loop.time() >= deadline:
                        continue
                    resends += 1
                    delay = min(delay * 2, HELLO_RESEND_MOST)
                    self._pending_sealed_to = self.authority_key
                    self._send(resend())
        except TimeoutError:
            if self._sealed_refusal is not None:
                return self._sealed_refusal  # nothing else came: that was the answer
            if abandon:
                await self._abandon()
            if not self.host_present:  # its presence says so: not a wrong guess
                raise JoinError(
                    f"the host of room {self.shown_code} is away (its Passe stopped or lost "
                    "its link): the game waits for it; try again once it is back "
                    "(`u` on its home screen, or `passe host --resume`)",
                    "host-away",
                ) from None
            raise JoinError(
                f"the host of room {self.shown_code} did not answer: it may have left", "timeout"
            ) from None
        finally:
            self._pending = None
            self._pending_again = None
            self._sealed_refusal = None

    def _next_n(self) -> int:
        self._n += 1
        return self._n

    def _send(self, message: Hello | Act | Sync | Leave | Watch | Admit | Again | StartNow) -> bool:
        if self._link is None or self.authority_key is None:
            return False
        log.debug("to the host: %r (link %s)", message, "up" if self._link.connected else "down")
        topic = to_authority_topic(self.code, self.identity.peer_id)
        payload = seal(self.identity, topic, message, self.authority_key)
        task = asyncio.get_running_loop().create_task(self._link.publish(topic, payload))
        task.add_done_callback(_log_failure)
        return self._link.connected

    def _will(self) -> LastWill:
        """Each connection is a new presence epoch: its will says "gone" for
        that connection only, so a late will never hides a newer one."""
        self._presence_epoch = next_presence_epoch(self._presence_epoch)
        topic = presence_topic(self.code, self.identity.peer_id)
        return LastWill(topic, self._presence_payload(online=False))

    def _presence_payload(self, *, online: bool) -> bytes:
        topic = presence_topic(self.code, self.identity.peer_id)
        return sealed_presence(
            self.identity,
            topic,
            self.code,
            self._presence_epoch,
            online=online,
            name=self.name,
            broker=self._standby_address,
        )

    # -- room and link state, for the lobby and the table screens ------------

    def on_room(self, listener: RoomListener) -> Callable[[], None]:
        """Call ``listener`` with every new room state (and now, if known)."""
        self._room_listeners.append(listener)
        if self.room is not None:
            listener(self.room)
        return lambda: self._room_listeners.remove(listener)

    def on_link(self, listener: LinkListener) -> Callable[[], None]:
        """Call ``listener(True/False)`` when the broker link comes and goes."""
        self._link_listeners.append(listener)
        return lambda: self._link_listeners.remove(listener)

    @property
    def shown_code(self) -> str:
        """The room's code as people read and type it (``ABC-123``)."""
        return format_code(self.code)

    @property
    def connected(self) -> bool:
        return self._link is not None and self._link.connected

    @property
    def closed(self) -> bool:
        return self._closed

    async def wait_started(self) -> None:
        """Until the first view of the game has arrived."""
        await self._started.wait()

    def _on_link_state(self, up: bool) -> None:
        if up and self._link is not None:
            self._last_broker = (self._link.host, self._link.port)
        if not up and not (self.room is not None and self.room.standby):
            # Down: where the room's broker was, nothing may answer now, or
            # something that is not a broker (the room went elsewhere). Not
            # a room whose voters' standby brokers are its succession: its
            # election and survey find its table (docs/election.md 10).
            self._watch_room_here()
        for listener in list(self._link_listeners):
            listener(up)

    async def _on_connect(self) -> None:
        assert self._link is not None
        self._host_unknown_here((self._link.host, self._link.port))
        self._watch_room_here()
        if self.keeps_vote:
            return  # left the game: no presence, no seat (its voter has its own link)
        await self._link.publish(
            presence_topic(self.code, self.identity.peer_id),
            self._presence_payload(online=True),
            retain=True,
        )
        if (self._beat is None or self._beat.done()) and not self._closed:
            self._beat = asyncio.get_running_loop().create_task(self._beat_presence())
        # Back after a drop: take the seat again and fetch what was missed.
        self._rejoin()

    def _host_unknown_here(self, here: tuple[str, int]) -> None:
        """On another broker than before (the one we were on is gone, often
        with the machine that ran the table, whose will then reached
        nobody): the table counts as present only once its record here says
        so. The screen said nothing while the table's machine was gone and
        took a move without a word (a play-test, 5 December). Not among a
        cluster's nodes, which share their retained records."""
        moved = self._last_broker is not None and here != self._last_broker
        if not moved or self.cluster or not self.host_present or self.authority_key is None:
            return
        log.info("room %s: on another broker now: the table's presence is read again", self.code)
        # Its record here counts if it is of the newest connection seen (an
        # older one's "online" may be left over from a connection that moved
        # away cleanly, without a will: the table was once here).
        self._host_reread = True
        self.host_present = False
        for listener in list(self._host_listeners):
            listener(False)

    def _watch_room_here(self) -> None:
        """(Re)connected, or down: the room's retained state comes with the
        subscription wherever the room is. If it does not come, this broker
        is not the room's (its host's machine came back and its broker took
        another port, where ours was taken by another program: a
        play-test's peers waited on the wrong broker for good, their link
        "up"), or there is none where it was, and the room is looked for on
        the LAN."""
        self._room_here = False
        if self.room is None or self.cluster or self._closed or self.keeps_vote:
            return  # not found yet (a join says so), or a cluster's nodes share it
        if self.room.phase not in ("lobby", "playing"):
            return  # over or closed: nothing to find
        if self._room_search is None or self._room_search.done():
            self._room_search = spawn(self._look_for_the_room(), "a look for the room")

    async def _look_for_the_room(self) -> None:
        await asyncio.sleep(ROOM_HERE_WAIT)
        said = False
        while not self._closed and not self._room_here:
            link, room = self._link, self.room
            if link is None or link.closed or room is None or room.phase in ("over", "closed"):
                return
            here = (link.host, link.port)  # where it is, or tries to be
            where = self._where_this_machine_s_voters_are(here)
            how = "this machine's voter hears its table at"
            if where is None:
                # Once a connection at warning, then quietly (a long wait
                # for a table gone makes no log of its own).
                log.log(
                    logging.DEBUG if said else logging.WARNING,
                    "room %s: %s at %s:%s: looking for it on the LAN",
                    self.code,
                    "no state of it on the broker" if link.connected else "no broker",
                    *here,
                )
                said = True
                where = await self._room_on_the_lan(here)
                how = "found at"
            if where is not None and not self._room_here and not self._closed:
                log.warning("room %s: %s %s:%s: going there", self.code, how, *where)
                self.broker_host, self.broker_port = where
                self._pin()
                link.move_to(where)
                return
            await asyncio.sleep(ROOM_SEARCH_GAP)

    def _where_this_machine_s_voters_are(self, here: tuple[str, int]) -> tuple[str, int] | None:
        """Another broker where a voter of this process (its seat's, or the
        room's first voter, run again by the machine that made it) is up
        and knows the authority of a term at least the one this seat
        follows: the table is there, whether or not the LAN says so (a
        seat that sat on a standby broker the table had left, its room's
        advert refused, waited there for good: CI, 6 December)."""
        maker = self._maker[1] if self._maker is not None else None
        for voter in (voter for voter in (self.voter, maker) if voter is not None):
            driver = voter.replica.driver
            link = driver.link
            if link is None or not link.connected or driver.node.authority is None:
                continue
            where = (link.host, link.port)
            if where != here and driver.node.term >= self.term:
                return where
        return None

    async def _room_on_the_lan(self, here: tuple[str, int]) -> tuple[str, int] | None:
        """Where the LAN advertises the room (other than ``here``), its state
        signed by its table there; None if nowhere."""
        from net.lan.discovery import DiscoveryError, find_room
        from net.peer.rejoin import room_is_at

        key = self.authority_key
        try:
            advert = await find_room(self.code, timeout=ROOM_SEARCH_WAIT)
        except (DiscoveryError, CodeError, OSError) as error:
            log.info("room %s: cannot look on the LAN: %s", self.code, error)
            return None
        if advert is None or key is None:
            return None
        for address in advert.addresses or ("127.0.0.1",):
            where = (address, advert.port)
            if where != here and await room_is_at(
                self.code, key, where, after_epoch=self._host_epoch
            ):
                return where
        return None

    def _rejoin(self) -> None:
        """Back (our link, or the host's): take our seat again, if we hold
        one (a watcher watches again: net/peer/watch.py)."""
        if self.seat is not None and not self.keeps_vote:
            self._take_seat_again()

    async def _beat_presence(self) -> None:
        """Publish our presence record again every PRESENCE_BEAT seconds
        while connected (the same record: same epoch), so that a host which
        bounds presence sees us alive (issue 19 seats item 5); stopped by _abandon."""
        topic = presence_topic(self.code, self.identity.peer_id)
        while not self._closed:
            await asyncio.sleep(PRESENCE_BEAT)
            link = self._link
            if link is not None and link.connected and not self._closed:
                with contextlib.suppress(Exception):  # the link's own retries follow
                    await link.publish(topic, self._presence_payload(online=True), retain=True)

    def _hello(self, seat: int | None, *, have: int) -> Hello:
        """A request for ``seat`` (None: any free one), holding ``have``
        events of its log already."""
        return Hello(
            room=self.code,
            epoch=self._epoch,
            n=self._next_n(),
            name=self.name,
            seat=seat,
            have=have,
            bot=self.bot,
            stand=self.stand,
        )

    def _take_seat_again(self) -> None:
        """Hello for the seat we hold, with the length of our log: the
        authority answers with our view and the events we missed (its
        answer acknowledges the Hello's ``n``). Unanswered, it is sent again
        after RESEAT_WAIT while the link is up."""
        hello = self._hello(self.seat, have=len(self.log))
        self._send(hello)
        asyncio.get_running_loop().call_later(RESEAT_WAIT, self._reseat_if_unanswered, hello.n)

    def _reseat_if_unanswered(self, n: int) -> None:
        link = self._link
        if self._closed or self.seat is None or self.keeps_vote or self.acked >= n:
            return
        if self.room is not None and self.room.phase in ("over", "closed"):
            return  # nobody left to answer
        if link is not None and link.connected:
            self._take_seat_again()
        # A link that is down sends a Hello of its own when it is back.

    # -- what comes in -------------------------------------------------------

    async def _on_message(self, topic: str, payload: bytes) -> None:
        if topic.endswith("/room"):
            self._on_room_message(topic, payload)
            return
        if topic.startswith(f"{self._prefix}/presence/"):
            self._on_presence(topic, payload)
            return
        if topic == next_topic(self.code):
            self._on_next(topic, payload)
            return
        if topic == authority_topic(self.code):
            self._on_announce(payload)
            return
        if topic == watchers_topic(self.code):
            self._on_watchers(topic, payload)
            return
        if self.authority_key is None:
            return  # nothing private before the room's host is known
        now = time.monotonic()
        try:
            envelope = open_envelope(
                topic, payload, identity=self.identity, expect_key=self.authority_key
            )
        except WireError as error:
            self._floods.note(
                f"dropped-{error.code}", f"dropped a message on {topic}: {error.reason}", now
            )
            return
        try:
            message = open_body(envelope, authority_message_decoder, self.identity)
        except WireError as error:
            self._floods.note("dropped-body", f"dropped a message on {topic}: {error.reason}", now)
            return
        if message.room != self.code:
            return
        log.debug("from the host: %s", _summary(message))
        if isinstance(message, Refused) and message.code == "knock" and self.knocking:
            return  # the answer to a Hello sent again while unanswered: still asked
        if isinstance(message, Watched):
            self._on_watched(message)
        if (
            isinstance(message, Refused)
            and message.code == "sealed"
            and self._pending is not None
            and not self._pending.done()
            and self._pending_again is not None
        ):
            # The table's holder could not read one of our requests (nor
            # which one: n 0). One sealed to the table's former key reaches
            # its new holder so, and may be answered after our next request,
            # sealed to the key it holds: asked again with it if not yet, and
            # this refusal is the answer only if none comes (found: the old
            # host, rejoining just after its table moved, was refused
            # "cannot decrypt").
            self._sealed_refusal = message
            if self._pending_sealed_to != self.authority_key:
                self._pending_sealed_to = self.authority_key
                self._send(self._pending_again())
            return
        if isinstance(message, (Welcome, Refused, Watched)) and self._pending is not None:
            if isinstance(message, Welcome):
                # At once: when the game has started, the seat's view follows
                # in the next message, before join() resumes.
                self.seat = message.seat
            if not self._pending.done():
                self._pending.set_result(message)
            return
        if isinstance(message, Welcome):
            self.seat = message.seat
        elif isinstance(message, Knocks):
            self._on_knocks(message)
        elif isinstance(message, Update):
            self._on_update(message)
        elif isinstance(message, Refused) and message.code == "removed":
            # The host gave our seat away (issue 19 item 2): we hold none.
            self.removed = message.reason
            if self.room is None or self.room.phase == "lobby":
                self.seat = None
            for listener in list(self._room_listeners):
                if self.room is not None:
                    listener(self.room)
        elif isinstance(message, Refused):
            self.acked = max(self.acked, message.n)  # answered, if refused
            self._deliver(rejected=clean_text(message.reason))

    def _on_presence(self, topic: str, payload: bytes) -> None:
        """Whether the authority is connected, by the newest epoch seen
        (a late will from an earlier connection is ignored)."""
        if not payload or self.authority_key is None:
            return
        # Only the authority's topic, checked before anything is decoded.
        if topic != presence_topic(self.code, peer_id(self.authority_key)):
            return
        try:
            envelope = open_envelope(topic, payload, expect_key=self.authority_key)
            presence = open_body(envelope, presence_decoder)
        except WireError:
            return
        if presence.room != self.code:
            return
        if presence.epoch < self._host_epoch or (
            presence.epoch == self._host_epoch
            and presence.online
            and not self.host_present
            and not self._host_reread
        ):
            return
        self._host_reread = False
        newer = presence.epoch > self._host_epoch
        log.debug("host presence: epoch %d, online %s", presence.epoch, presence.online)
        self._host_epoch = presence.epoch
        if presence.online and newer:
            # The host has (re)connected: whatever we sent while it was away
            # was lost, so take the seat again and fetch what was missed.
            self._rejoin()
        if presence.online != self.host_present:
            self.host_present = presence.online
            for listener in list(self._host_listeners):
                listener(presence.online)

    def _on_watchers(self, topic: str, payload: bytes) -> None:
        """How many watch the room (issue 21): signed by its authority,
        the newest stamp kept."""
        if not payload or self.authority_key is None:
            return
        try:
            envelope = open_envelope(topic, payload, expect_key=self.authority_key)
            count = open_body(envelope, watchers_decoder)
        except WireError as error:
            self._floods.note("watchers", f"ignored a count: {error.reason}", time.monotonic())
            return
        if count.room != self.code or count.stamp <= self._watching_stamp:
            return
        self._watching_stamp = count.stamp
        self._set_watching(count.count)

    def _on_watched(self, message: Watched) -> None:
        """The answer to a watch (net/peer/watch.py): how many watch."""
        self._set_watching(message.watchers)

    def _set_watching(self, count: int) -> None:
        if count == self.watching:
            return
        self.watching = count
        for listener in list(self._room_listeners):
            if self.room is not None:
                listener(self.room)

    def _on_next(self, topic: str, payload: bytes) -> None:
        """The host opened the next game at this table: only once this one
        is over, as its room state says, and only as said by this room's
        authority (issue 19 seats item 4: a notice before the end was
        followed). The retained notice may arrive before the room state
        (two subscriptions, no order between them): the latest one is kept
        (one payload, bounded by the link's size limit) and read again when
        a room state comes."""
        if not payload:
            return
        if self.authority_key is None or self.room is None:
            self._next_payload = (topic, payload)
            return
        self._next_payload = None
        if self.room.phase != "over":
            self._floods.note(
                "next-early", "ignored a next-game notice: the game is not over", time.monotonic()
            )
            return
        try:
            envelope = open_envelope(topic, payload, expect_key=self.authority_key)
            announced = open_body(envelope, next_room_decoder)
        except WireError as error:
            self._floods.note(
                "next", f"ignored a next-game notice: {error.reason}", time.monotonic()
            )
            return
        if envelope.sender != self.authority_key or announced.room != self.code:
            log.warning("ignored a next-game notice not from this room's host")
            return
        try:
            code = normalize_code(announced.next)
        except CodeError:
            log.warning("ignored a next-game notice with a bad code")
            return
        if code == self.code or self.next_code == code:
            return
        # Where it is, if not on this room's broker (a table that moved: its
        # holder's own); an address that does not read as one is ignored.
        self.next_broker = parse_broker(announced.broker) if announced.broker else None
        self.next_code = code
        for listener in list(self._next_listeners):
            listener(code)

    def on_next(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call ``listener(code)`` when the host opens the next game at this
        table (and now, if it has)."""
        self._next_listeners.append(listener)
        if self.next_code is not None:
            listener(self.next_code)
        return lambda: self._next_listeners.remove(listener)

    def next_table(self) -> RemoteTable:
        """A seat, not yet taken, at the next game of this table: the same
        key, name and broker, with this room's authority key pinned."""
        if self.next_code is None:
            raise JoinError("the host has not opened a next game", "no-room")
        # The broker this table's link is on now first: after a failover the
        # room's first broker may have died with its host's machine (a dead
        # machine on a LAN costs a whole connection timeout to find so).
        # (Closed by now, as the screens close the seat before the lobby
        # joins the next game: the broker its link was last up on. A
        # play-tester's join went to dead brokers 4 times in 5.)
        broker = self._last_broker or (self.broker_host, self.broker_port)
        link = self._link
        if link is not None and link.connected:
            broker = (link.host, link.port)
        here = broker
        if self.next_broker is not None:
            broker = self.next_broker  # where its notice says, first
        # Then the room's first broker, and its cluster's other nodes (the
        # standby brokers of this room are not the next room's: its state
        # names its own).
        first = (self.broker_host, self.broker_port)
        alternates = tuple(w for w in dict.fromkeys([here, first, *self.cluster]) if w != broker)
        return RemoteTable(
            self.identity,
            self.next_code,
            *broker,
            self.name,
            authority_key=self.authority_key,
            pins=self.pins,
            bot=self.bot,
            alternates=alternates,
            stand=self.stand,
        )

    def on_host(self, listener: LinkListener) -> Callable[[], None]:
        """Call ``listener(True/False)`` when the host's process comes and goes."""
        self._host_listeners.append(listener)
        return lambda: self._host_listeners.remove(listener)

    def _on_room_message(self, topic: str, payload: bytes) -> None:
        version = topic.split("/")[1]
        if topic != f"{TOPIC_ROOT}/{self.code}/room":
            if version.startswith("v") and version[1:].isdigit():
                self._foreign_version = int(version[1:])
            return
        envelope = None
        try:
            # Another key's state is refused before it is verified or decoded.
            envelope = open_envelope(topic, payload, expect_key=self.authority_key)
            room = open_body(envelope, room_state_decoder)
        except WireError as error:
            if (envelope is not None or error.code == "version") and self.room is None:
                # Signed, but not a state this Passe reads, or a state in
                # another protocol version's envelope (an earlier Passe's
                # host, on the same topics): a join that finds nothing else
                # says so (a play-tester's, by a Passe of another version,
                # said "no room … check the code").
                self._unreadable_state = error.reason
            if error.sender is not None:
                self._keep_foreign_room(error.sender, topic, payload)
            if error.sender is not None and len(self._foreign_keys) < 16:
                # Another key on the pinned room's topic: said at a failed join.
                self._foreign_keys.add(error.sender)
            self._floods.note(
                f"room-{error.code}", f"ignored a room state: {error.reason}", time.monotonic()
            )
            return
        if room.room != self.code:
            return
        self._room_here = True  # this broker is the room's (_watch_room_here)
        # Checked as sent, before its texts are cleaned: the name is signed.
        proven = proven_dealer(room, envelope.sender)
        if (
            self.authority_key is None
            and self.dealt_by is not None
            and not (proven and peer_id(room.dealer_key) == self.dealt_by)
        ):
            # The room code is public: anyone may write a state under the
            # code the asked dealer answered with before its own comes. Only
            # that dealer's room is this person's.
            if self._not_dealt_by is None:
                log.warning("ignored a room state that the dealer asked did not deal")
            self._not_dealt_by = envelope.sender
            return
        room = shown_room(room)
        if self.authority_key is None:
            # Trust on first use: the room's authority is whoever signs its
            # retained state when we arrive (docs/protocol.md, trust model).
            self.authority_key = envelope.sender
            if self._link is not None:
                # Its presence (retained) comes once subscribed.
                self._link.subscribe(presence_topic(self.code, peer_id(envelope.sender)))
        elif envelope.sender != self.authority_key:
            if len(self._foreign_keys) < 16:
                self._foreign_keys.add(envelope.sender)
            log.warning("ignored a room state signed by another key")
            return
        if self.room is not None and room.stamp <= self.room.stamp:
            return
        if room.dealer and not proven:
            # A dealer's name that its key did not sign for this room: any
            # host can write one, and hold the deck while its players read
            # "no player's machine holds the deck". Read as a host's room
            # (which it is), and said (the lobby's warning).
            if room.dealer != self.unproven_dealer:
                log.warning("room state names dealer %r without its signature", room.dealer)
            self.unproven_dealer = room.dealer
            room = msgspec.structs.replace(room, dealer="", dealer_key=b"", dealer_proof=b"")
        else:
            self.unproven_dealer = ""
        if self.codec is None:
            try:
                self.codec = codec_for(get_game(room.game))
            except Exception:
                log.warning("ignored a room of an unknown game %r", room.game[:20])
                return
            self.game_id = room.game
        elif room.game != self.game_id:
            return
        self.room = room
        self.names = tuple(seat.name for seat in room.seats)
        if room.seed_hash and self._first_seed_hash is None:
            self._first_seed_hash = room.seed_hash
        if room.record is not None and room.salt:
            self._check_deal(room)
            self._finish_from_record(room)
            self._retire_voters()
            if self.pins is not None:
                # Over: no room to offer again, nor brokers to look at when
                # a room of this code is not found (a rejoin tried the dead
                # brokers of finished games, a play-test, 5 December).
                self.pins.forget_broker(self.code)
        self._room_seen.set()
        pending = self._pending
        if self.knocking and room.phase == "closed" and pending is not None and not pending.done():
            # Nobody is left to let us in (a host who quit, a dealer's room
            # whose asker left): said now, not at KNOCK_WAIT's end.
            why = f": {room.notice}" if room.notice else ""
            pending.set_result(
                Refused(self.code, f"room {self.shown_code} was closed{why}", "closed")
            )
        if self.keeps_vote and all(seat.peer != self.identity.peer_id for seat in room.seats):
            # The table has our Leave: the seat is not ours any more, never
            # to be taken back, so our voter's files go when it closes. Not
            # before it says so: a Leave lost on its way (the table between
            # machines) leaves the seat ours, and a voter started again
            # without its file could vote twice in a term.
            self._left = True
        if self.keeps_vote and room.phase in ("over", "closed"):
            # The game this process kept voting for has ended: nothing left
            # to vote on.
            spawn(self.close(), "a vote kept until the game's end")
            return
        self._follow_election(room)
        self._prepare_standby(room)
        self._ask_for_the_table(room)
        for listener in list(self._room_listeners):
            listener(room)
        if self._next_payload is not None:
            self._on_next(*self._next_payload)  # it came first: refused unless over

    def _between_authorities(self) -> bool:
        """Whether the room may be between authorities, its next one's state
        still to come (wait MOVE_WAIT for it): this process votes in it (its
        vote may be the one the election lacks; a seat's voter or the first
        voter of the room this machine made), or a voter's announcement or
        another key's room state is there. With neither, nothing says the
        room goes on: a host back after its table moved and the game ended
        there (the room cleared) waited 20 s to learn so (a test's 34 s)."""
        if not self._voters:
            return False
        votes = self.voter is not None or self._maker is not None
        return votes or self._announcement is not None or bool(self._foreign_rooms)

    def _ask_for_the_table(self, room: RoomState) -> None:
        """The game started and our seat's first update never came (the
        authority drops a private message past its bounded outbox, and its
        peer is to ask again: found by hand, a joiner's table stayed empty
        after a flood of fresh keys' Hellos filled the host's outbox while
        the game started): take the seat again, which brings the view and
        the log, and again while unanswered. Asked RESEAT_WAIT after the
        state said "playing" (the update usually follows it at once)."""
        if room.phase != "playing" or self.seat is None or self.view is not None:
            return
        if self._asked_for_table or self._closed or self.keeps_vote:
            return
        self._asked_for_table = True

        def ask() -> None:
            if self.view is None and self.seat is not None and not self._closed:
                link = self._link
                if link is not None and link.connected:
                    self._take_seat_again()
                # A link that is down sends a Hello of its own when it is back.

        asyncio.get_running_loop().call_later(RESEAT_WAIT, ask)

    # -- the elected authority (issue 20) -------------------------------------

    def _retire_voters(self) -> None:
        """The game is over and this process has its record (signed by the
        table's key): its voters vote on, but never stand again. When the
        table that ran it closed, a voter that stood took the finished room
        over, and its person's screen said "the table moved" under "Game
        over" while the others went to the next game (found in a play-test,
        5 December). A voter that did not see the end still stands: a table
        that died before everyone had its last state is taken over, its
        record published again (docs/election.md section 10)."""
        for voter in self._voters_here():
            voter.replica.driver.node.retire()
            voter.replica.driver.surveys = False  # no game left to meet for

    def _keep_foreign_room(self, sender: bytes, topic: str, payload: bytes) -> None:
        """Another key's room state, kept (the latest of a few keys) in case
        an announcement names that key next."""
        self._foreign_rooms.pop(sender, None)
        self._foreign_rooms[sender] = (topic, payload)
        while len(self._foreign_rooms) > MAX_FOREIGN_ROOMS:
            del self._foreign_rooms[next(iter(self._foreign_rooms))]

    def _follow_election(self, room: RoomState) -> None:
        """The room fails over (its state carries the election config): know
        its voters, and vote if this seat's key is one of them; and where
        their standby brokers are, as the authority heard them."""
        if room.election:
            self._follow_config(room.election, vote=room.phase == "playing", standby=room.standby)
        brokers = {
            entry.key: where
            for entry in room.brokers
            if (where := parse_broker(entry.broker)) is not None
        }
        if brokers and self.voter is not None:
            self.voter.replica.driver.learn_brokers(brokers)
        if brokers and self.pins is not None and not self.cluster:
            # Where this machine, back from the dead, looks for the room
            # when nothing advertises it (net/peer/rejoin.py, locate_room).
            self.pins.remember_brokers(self.code, list(brokers.values()))

    def _prepare_standby(self, room: RoomState) -> None:
        """In a lobby whose room's broker dies with its host: this seat's
        standby broker, started now and named in its presence once up (the
        host waits a little for everyone's before it deals). Once the game
        started without this seat's voter taking it, stopped."""
        wanted = room.standby and self.seat is not None and not self.runs_the_room
        if room.phase == "lobby":
            if wanted and self._standby is None and not self._closed:
                self._standby = start_standby(self.code)
                spawn(self._name_standby(self._standby), "this seat's standby broker")
        elif self._standby is not None and self.voter is None:
            start, self._standby = self._standby, None
            spawn(stop_standby(start), "an unused standby broker's stop")

    async def _name_standby(self, start: StandbyStart) -> None:
        broker, address = await start
        if self._closed or (start is not self._standby and self.voter is None):
            return  # stopped already (closed, or the game started without a vote here)
        self._standby_address = broker_text((address, broker.port))
        link = self._link
        if link is not None and link.connected and not self._closed:
            topic = presence_topic(self.code, self.identity.peer_id)
            await link.publish(topic, self._presence_payload(online=True), retain=True)

    def _hand_over_standby(self) -> StandbyStart | None:
        """This seat's standby broker, for its voter to keep (and stop)."""
        start, self._standby = self._standby, None
        return start

    def _resume_voter(self) -> None:
        """A process restarted from its files (its key, its pins, its voter
        file) knows the room's voters, and votes, before any room state
        comes: the one the broker keeps may be signed by a key this seat was
        never told of (a successor's: its announcement, signed by a voter,
        names it) or by an older term's (a successor killed before it showed
        anything), and without this vote the voters left may be too few to
        elect the next authority (the repeated-kill soak test)."""
        if not self.pinned or self._closed:
            return  # never sat in this room: its voters come with its state
        election = stored_election(self.code, self.identity)
        if election is not None:
            log.info("room %s: this seat votes again from its voter file", self.code)
            # Its standby broker comes back on the port it had, where the
            # others' lists have it: a voter back without one left the two
            # machines that lived after a later loss no broker to meet on,
            # and the game was lost (found in a play-test, 5 December). Not
            # on a new port: learnt late, it split the room's links.
            port = stored_standby_port(self.code, self.identity)
            if port and self._standby is None:
                self._standby = start_standby(self.code, port)
            self._follow_config(election, vote=True, standby=bool(port))

    def _resume_maker_voter(self) -> None:
        """The room this machine made, whose table moved to a player's while
        it was away (its person rejoins it as a player): its first voter
        votes and stands again from its file, as a restarted Raft node
        does, so that the room keeps this machine's vote. Forgotten, the
        room lost a voter for good at its first failover, and a second loss
        stopped the game although most of its machines lived (found by
        hand, 5 December; docs/election.md section 10)."""
        if self._closed or self._maker is not None or self.maker_rooms is None:
            return
        claimed = claim_moved_room(self.code, self.maker_rooms)
        if claimed is None:
            return
        store, saved = claimed
        maker = Identity(SigningKey(saved.authority_key))
        election = stored_election(self.code, maker, self.maker_rooms)
        config = decode_room_config(election) if election is not None else None
        if election is None or config is None:
            store.release()
            return
        log.info("room %s: this machine's first voter votes again from its file", self.code)
        # The room's own broker comes back too, on its port (the first of
        # everyone's lists), if it was this machine's embedded one: without
        # it, once the machine the table had moved to died as well, the two
        # machines left had no broker to meet on (found in a play-test, 5
        # December). Not on a new port: learnt late, it split the links.
        revived = saved.broker.embedded and 0 < saved.broker.port < 65536
        standby_start = start_standby(self.code, saved.broker.port) if revived else None
        try:
            voter = self._room_voter(
                maker,
                config,
                election,
                standby=revived,
                standby_start=standby_start,
                directory=self.maker_rooms,
            )
        except VoterBusy as busy:
            log.warning("%s: not started again here", busy)
            if standby_start is not None:
                spawn(stop_standby(standby_start), "an unused standby broker's stop")
            store.release()
            return
        self._maker = (store, voter)
        spawn(voter.start(), "this machine's first voter")

    def _follow_config(self, election: bytes, *, vote: bool, standby: bool = False) -> None:
        """Follow the voters of ``election`` (an encoded config: the room
        state's, which replaces any other, or this seat's voter file's);
        ``vote``: this seat's voter runs, if its key is one of them."""
        if election != self._election:
            config = decode_room_config(election)
            if config is None:
                log.warning("ignored a room's election config that does not decode")
                return
            if self.voter is not None:
                # A voter file of another room that had this code: the
                # state signed by the room's key says who votes. The room's
                # voter starts once that one has closed (and let go of the
                # file they share: one voter per file, RoomReplica).
                former, self.voter = self.voter, None
                self._former_voter = spawn(
                    self._after_former_voter(former, vote=vote, standby=standby),
                    "a former voter's close",
                )
            self._election = election
            self._voters = frozenset(voter.key for voter in config.voters)
            if self.pins is not None:
                self.pins.remember_voters(self.code, self._voters)
            if self._announcement is not None:
                self._on_announce(self._announcement)
        mine = self.identity.public_key in self._voters
        closing = self._former_voter is not None and not self._former_voter.done()
        if vote and mine and self.voter is None and not self._closed and not self._voter_busy:
            if closing:
                return  # started once the former voter has closed

            config = decode_room_config(election)
            assert config is not None  # decoded when first followed
            standby_start = self._hand_over_standby() if standby else None
            try:
                self.voter = self._room_voter(
                    self.identity, config, election, standby=standby, standby_start=standby_start
                )
            except VoterBusy as busy:
                # This key votes already, from another seat of this Passe
                # (a game left whose vote it kept) or another Passe: one
                # vote per key, so this seat plays without one.
                self._voter_busy = True
                log.warning("%s: this seat does not vote here", busy)
                if standby_start is not None:
                    spawn(stop_standby(standby_start), "an unused standby broker's stop")
                return
            self.voter.replica.driver.on_held = self._show_uncommitted
            spawn(self.voter.start(), "this seat's voter")

    def _nothing_to_vote_on(self) -> bool:
        """Whether this process's voter files of the room go when they
        close: the room is over or closed, or its person left the game (a
        seat left is never taken back, so its voter is never started again
        from them; left behind, a later Passe looked for the room's dead
        brokers, a play-test)."""
        over = self.room is not None and self.room.phase in ("over", "closed")
        return over or self._left

    async def _after_former_voter(self, former: SeatVoter, *, vote: bool, standby: bool) -> None:
        """``former`` closed, the room's voter starts (see _follow_config)."""
        await former.close()
        self._former_voter = None
        if not self._closed:
            self._follow_config(self._election, vote=vote, standby=standby)

    def _room_voter(
        self,
        identity: Identity,
        config: ElectionConfig,
        election: bytes,
        *,
        standby: bool,
        standby_start: StandbyStart | None = None,
        directory: Path | None = None,
    ) -> SeatVoter:
        """A voter of this room with key ``identity``, on this seat's broker,
        following the table this seat follows."""
        voter = SeatVoter(
            identity,
            self.code,
            config,
            election,
            self.broker_host,
            self.broker_port,
            seat_name=self._own_name,
            room_key=lambda: self.authority_key,
            over=self._nothing_to_vote_on,
            standby=standby,
            on_brokers=self._follow_brokers,
            cluster=self.cluster,
            standby_start=standby_start,
            directory=directory,
            on_moved=self._voter_moved,
        )
        if self.pins is not None:  # surveyed with those it hears of (survey.py)
            voter.replica.driver.remembered_brokers = self.pins.brokers(self.code)
        voter.replica.driver.on_presence = self._machines_changed
        return voter

    def _voter_moved(self, broker: tuple[str, int]) -> None:
        """This process's voter found the room's voters on ``broker`` (a
        survey: net/election/survey.py): the seat's link goes there too,
        where the table they elect will be."""
        if self._link is not None and not self._closed:
            log.info("room %s: following its voters to %s", self.code, broker_text(broker))
            self._link.move_to(broker)

    def _follow_brokers(self, succession: list[tuple[str, int]]) -> None:
        """The voters' standby brokers: where this seat's link goes, in this
        order, when the room's broker is gone."""
        self.broker_alternates = tuple(dict.fromkeys([*self.cluster, *succession]))
        if self._link is not None:
            # Down the list again at once only while the table's authority
            # is not where this link is: a broker started late (a returned
            # voter's, first in the config's order) took the seats' links
            # away from the table's (2 runs in 4 of tests/net/test_maker_returns.py).
            self._link.set_alternates(
                list(self.broker_alternates), rejoin_earlier=not self.host_present
            )

    @property
    def own_name(self) -> str:
        """This seat's name as the room shows it (else the one it asked for)."""
        return self._own_name()

    def _own_name(self) -> str:
        if self.room is not None and self.seat is not None and self.seat < len(self.room.seats):
            return self.room.seats[self.seat].name
        return self.name

    def _on_announce(self, payload: bytes) -> None:
        """A voter announces it holds the table for a term: followed when it
        is a voter of this room's config and the term is the highest seen;
        its room key is then the one accepted (docs/election.md section 10)."""
        if not payload:
            return
        self._announcement = payload  # read (again) once the voters are known
        if not self._voters:
            return
        topic = authority_topic(self.code)
        try:
            envelope = open_envelope(topic, payload)
            if envelope.sender not in self._voters:
                return
            announce = open_body(envelope, announce_decoder)
        except WireError as error:
            self._floods.note(
                "announce-bad", f"ignored an announcement: {error.reason}", time.monotonic()
            )
            return
        if announce.term <= self.term:
            return
        self.term = announce.term
        self.table_voter = peer_id(envelope.sender)
        key = announce.room_key
        if len(key) == len(self.identity.public_key) and key != self.authority_key:
            self._repin(key)

    def table_seat(self) -> int | None:
        """The seat whose person's machine runs the table, if one does: the
        voter that announced the current term (a seat's voter signs with its
        seat's key), or before any move the host's own seat (seat names are
        unique in a room). None in a dealer's room."""
        room = self.room
        if room is None or room.dealer:
            return None
        for seat, state in enumerate(room.seats):
            if state.kind != "human":
                continue
            if (state.peer == self.table_voter) if self.table_voter else (state.name == room.host):
                return seat
        return None

    @property
    def moved(self) -> bool:
        """Whether the table moved from its maker's machine to another (a
        failover, issue 20): seen here, or announced with a term above the
        first (a seat that joined after it, the old host's person above all)."""
        return self._moves > 0 or self.term > 1

    def _repin(self, key: bytes) -> None:
        """The table moved to the authority signing with ``key``: accept
        only it from now on, and take our seat again there."""
        log.info("the table moved: room %s is signed by %s now", self.code, fingerprint(key))
        self.authority_key = key
        self._moves += 1
        if self.seat is not None:
            # A seat at the table sees it move; one still joining finds it
            # where it is now (its screen said "the table just moved:
            # everyone is reconnecting" for seconds after a plain rejoin).
            self.moved_at = time.monotonic()
        # Its updates are its own: none of them is a copy of one shown early.
        self._uncommitted = self._shown_uncommitted = None
        self.pinned = True
        self._pin()
        self._foreign_keys.discard(key)
        self._host_epoch = -1
        if self._link is not None:
            self._link.subscribe(presence_topic(self.code, peer_id(key)))
        if self.room is not None:
            # Its stamps are its own: the next state it signs is the newest.
            self.room = msgspec.structs.replace(self.room, stamp=0)
        kept = self._foreign_rooms.pop(key, None)
        if kept is not None:
            self._on_room_message(*kept)
        self._watching_stamp = -1  # its count's stamps are its own too
        if not self._closed:
            self._send_action_again()
            self._rejoin()  # our seat there (a watcher watches there)
        for listener in list(self._moved_listeners):
            listener(self.term)

    def _send_action_again(self) -> None:
        """Our latest action, unanswered when the table moved, goes to the
        new authority as it was (same epoch and n), before the Hello that
        takes our seat there (its n is higher: the action after it would be
        stale). The successor holds every acknowledged change (docs/
        election.md, "Clients"): if the old authority had handled it, the
        successor has its nonce and answers with our view, acknowledging
        it, and does not handle it again; if not, it handles it now, once.
        Either way the person's move is neither lost nor made twice."""
        act = self._last_act
        if act is None or not self.action_pending or act.n != self.last_action_n:
            return
        log.info("action %d was unanswered when the table moved: sent again", act.n)
        self._send(act)

    @property
    def runs_the_table(self) -> bool:
        """Whether this process is the room's authority now (it won a term)."""
        return self._table_voter() is not None

    def _table_voter(self) -> SeatVoter | None:
        """The voter of this process that won the table and runs it: the
        seat's, or the room's first one when this is its host's machine back
        (it may win a term too: a play-tester's old host then held the table
        at the end, and nobody could open the next game)."""
        for voter in self._voters_here():
            if voter.authority is not None and voter.replica.is_authority:
                return voter
        return None

    def machines_reachable(self) -> tuple[int, int] | None:
        """How many of the room's voters (its machines) this process's voter
        finds where it is, of how many: None when this process does not
        vote in the room, or its voter has not counted yet (just connected:
        ``VoterDriver.counting``). The host's seat counts with the table's
        own voter."""
        replica = self._counting_replica()
        if replica is None:
            return None
        driver = replica.driver
        return driver.voters_online(), len(driver.node.voters)

    def machines_away(self) -> list[str]:
        """Whose machines :meth:`machines_reachable` does not find, in the
        room's order, as the bar names them: a seat's person by name ("Bob's"),
        the room's own first machine ("the host's", "the first host's" once
        the table moved), a dealer ("a dealer's").
        A person was told "1 of its 3 is here" without whom to call."""
        replica = self._counting_replica()
        if replica is None:
            return []
        seats = self.room.seats if self.room is not None else []
        whose: list[str] = []
        for voter in replica.driver.voters_away():
            seat = seat_held_by(seats, peer_id(voter.key))
            if voter.dealer:
                whose.append("a dealer's")
            elif seat is not None:  # a person's, or a bot process's (passe join --bot)
                whose.append(f"{seats[seat].name}'s")
            else:  # the table's first voter, in its maker's process
                # Once the table moved, "the host" is another machine's.
                whose.append("the first host's" if self.moved else "the host's")
        return whose

    def _counting_replica(self) -> RoomReplica | None:
        """The voter that counts the room's machines for this process: its
        seat's, or, for the host's own seat (which has no voter), the
        table's, in this process."""
        voters = self._voters_here()
        replica = voters[0].replica if voters else self.hosted_replica()
        # Not until it has counted (just connected: VoterDriver.counting).
        return replica if replica is not None and replica.driver.counting() else None

    def on_machines(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` whenever a voter of the room comes or goes
        where this process's voter is (see :meth:`machines_reachable`)."""
        self._machines_listeners.append(listener)
        return lambda: self._machines_listeners.remove(listener)

    def _machines_changed(self) -> None:
        for listener in list(self._machines_listeners):
            listener()

    def _voters_here(self) -> list[SeatVoter]:
        """This process's voters in the room: its seat's, and the room's
        first one when this is its host's machine back."""
        maker = self._maker[1] if self._maker is not None else None
        return [voter for voter in (self.voter, maker) if voter is not None]

    def keep_table(self) -> None:
        """The table this process runs (it moved here, issue 20), its game
        over, kept running when this seat closes, for its person to host the
        next game at it: the screens close the seat before the lobby opens
        it. ``IllegalAction`` when this process runs no such table."""
        voter = self._table_voter() or self.voter
        if self.kept_table is not None:
            return
        if voter is None:
            raise IllegalAction("this machine runs no table")
        self.kept_table = voter.hand_over_table()

    def stand_in(self, seat: int) -> None:
        """A bot plays for the person of ``seat``, who is away, until they
        come back: the host's ``b`` at the table, here where this process
        runs the table since it moved (issue 20: there a bot came only by
        itself, ``failover.STAND_IN_AFTER`` seconds after the host's person
        went with their machine, and nobody could choose it sooner).
        :class:`IllegalAction` where the table runs elsewhere."""
        voter = self._table_voter()
        if voter is None or voter.authority is None:
            raise IllegalAction("the table runs on another machine")
        voter.authority.stand_in(seat)

    def on_moved(self, listener: Callable[[int], None]) -> Callable[[], None]:
        """Call ``listener(term)`` when the table moves to another machine
        (an election's winner, announced for ``term``)."""
        self._moved_listeners.append(listener)
        return lambda: self._moved_listeners.remove(listener)

    def _check_deal(self, room: RoomState) -> None:
        """The game is over and its record revealed: the seed must match the
        commitment first published, and the record, replayed move by move,
        must give every view and event this seat received (issue 20;
        docs/protocol.md section 5). Run again if an update comes later."""
        # A room state republished, or an update that brought nothing new,
        # is not replayed again.
        assert room.record is not None
        checked = (
            hashlib.sha256(msgspec.msgpack.encode(room.record) + room.salt).digest(),
            room.seed_hash,
            len(self._shown.views),
            self._shown.events,
            self.seat,
        )
        if checked == self._checked_for:
            return
        self._checked_for = checked
        record = room.record
        seed = record.get("seed")
        if isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**63:
            digest = hashlib.sha256(room.salt + seed.to_bytes(8, "big")).digest()
            self._commitment_held = digest == room.seed_hash == self._first_seed_hash
        else:
            self._commitment_held = False
        if not self._commitment_held:
            self.verified = False
            self.deal_report = (
                "Deal check FAILED: the revealed deal does not match the commitment "
                "the host published at the start."
            )
        else:
            self.verified, report = self._replay_check(room)
            # It quotes the record and what was received: network text.
            self.deal_report = clean_text(report)
        if self.verified is False:
            log.warning("%s", self.deal_report)
        self._deal_checked.set()

    def _replay_check(self, room: RoomState) -> tuple[bool, str]:
        """Whether the revealed record gives what this seat was shown."""
        assert room.record is not None
        try:
            record = GameRecord.from_data(room.record)
        except RecordError as error:
            return False, f"Deal check FAILED: the revealed record is not readable ({error})."
        seat = self.seat if self.seat is not None else self._seat_held(room)
        if seat is None or self.codec is None:
            return True, "Deal matched the host's commitment (you held no seat to check it from)."
        try:
            verdict = check_shown(
                self.codec.game, self.codec, record, seat, self._shown, self.log, self.names
            )
        except (PasseError, ValueError) as error:
            # A hostile record the engine refuses in a way not foreseen: a
            # failed check, never an error in the message loop.
            return False, f"Deal check FAILED: the revealed record does not replay ({error})."
        return verdict.ok, verdict.text

    def _end_from_room(self) -> int | None:
        """Our seat, its final view shown, when the room is over and our key
        holds a seat in it: over while we were away, its host maybe gone, the
        end comes from the record it revealed (nothing is left to ask)."""
        room = self.room
        held = self._seat_held(room) if room is not None and room.phase == "over" else None
        if room is None or held is None:
            return None
        self.seat = held
        self._finish_from_record(room)
        return held if self.view is not None and self.view.is_over else None

    def _seat_held(self, room: RoomState) -> int | None:
        """The seat bound to our key in ``room``, if any."""
        return seat_held_by(room.seats, self.identity.peer_id)

    def _finish_from_record(self, room: RoomState) -> None:
        """The game ended while we were away, and its host may be gone (a
        headless host exits at the end): the revealed record, once it matches
        the deal's commitment, gives our seat's final view and the events we
        missed, as the host's last update would have."""
        # The commitment held: the record is the deal's (a replay that does
        # not match what we were shown is said, and the end still shown).
        if self.seat is None or room.record is None or not self._commitment_held:
            return
        if self.view is not None and self.view.is_over:
            return
        events: list[Event] = []
        try:
            state = get_game(self.game_id).replay(GameRecord.from_data(room.record), events)
        except (RecordError, IllegalAction) as error:
            log.warning("ignored a final record that does not replay: %s", error)
            return
        if not state.is_over or self.seat >= state.players:
            return
        seen = [shown for event in events if (shown := event.for_seat(self.seat)) is not None]
        fresh = seen[len(self.log) :]
        self.log.extend(fresh)
        self.view = state.view(self.seat)
        self.seq = max(self.seq, room.seq)
        self._started.set()
        self._deliver(tuple(fresh))

    async def deal_check(self, timeout: float) -> bool | None:
        """Whether the game's record matched the deal's commitment and
        everything this seat was shown (True or False once the final room
        state came, None if it did not within ``timeout`` seconds; the
        words are in :attr:`deal_report`)."""
        try:
            await asyncio.wait_for(self._deal_checked.wait(), timeout)
        except TimeoutError:
            return None
        return self.verified

    def _on_update(self, update: Update) -> None:
        if self.codec is None:
            # Before a room state this Passe could read (one of a later
            # version: a play-test's log held an AssertionError's traceback
            # here): nothing to decode it by; a later update's gap asks again.
            self._floods.note(
                "update-early",
                "dropped an update: the room's state is not known yet",
                time.monotonic(),
            )
            return
        if update.seq < self.seq:
            return  # an older picture than the one shown
        if update.uncommitted is not None:
            # Before its change committed: shown once this seat knows a
            # majority of the voters holds it, else its committed copy is.
            if self._uncommitted is None or update.seq > self._uncommitted.seq:
                self._uncommitted = update
            self._show_uncommitted()
            return
        shown = self._shown_uncommitted
        if shown is not None and update.seq >= shown.seq:
            self._shown_uncommitted = None
            if msgspec.structs.replace(update, uncommitted=shown.uncommitted) == shown:
                return  # its committed copy: shown already
        self._apply_update(update)
        self._show_uncommitted()

    def _show_uncommitted(self) -> None:
        """Show the update held back (``_uncommitted``) once it is known
        committed: its entry is on the authority's disk (it wrote before it
        sent it), on this seat's voter's and on those of the voters that
        told us (Held), a majority with a share holder other than the
        authority (VoterDriver.majority_holds). Dropped once something as
        new was shown. It never asks for the log (its committed copy may)."""
        update = self._uncommitted
        if update is None:
            return
        if update.seq <= self.seq:
            self._uncommitted = None  # shown already, or older than what is
            return
        voter, entry = self.voter, update.uncommitted
        if entry is None or entry.term != self.term or update.base > len(self.log):
            return
        local = self._local_replica()
        if local is not None:
            # This process runs the table: committed is known here.
            if local.term != entry.term:
                return
            if local.committed < entry.index:
                self._show_once_committed(local, entry.index)
                return
        elif voter is None or not voter.replica.driver.majority_holds(entry.term, entry.index):
            return
        self._uncommitted = None
        self._shown_uncommitted = update
        self._apply_update(update)

    def _local_replica(self) -> RoomReplica | None:
        """The replica of this room's table when this process runs it."""
        voter = self.voter
        replica = voter.replica if voter is not None else self.hosted_replica()
        return replica if replica is not None and replica.is_authority else None

    def _show_once_committed(self, replica: RoomReplica, index: int) -> None:
        if self._commit_wait is not None:
            self._commit_wait.cancel()

        async def wait() -> None:
            await replica.wait_committed(index)
            self._commit_wait = None
            self._show_uncommitted()

        self._commit_wait = spawn(wait(), "an early update's commit")

    def _apply_update(self, update: Update) -> None:
        assert self.codec is not None
        if update.base > len(self.log):
            # Something was missed: ask for the log from where ours ends,
            # once (a burst of updates sent before our Hello was answered
            # would each ask for the whole log), again after RESYNC_WAIT.
            now = time.monotonic()
            asked = self._asked_from
            if asked is None or asked[0] != len(self.log) or now - asked[1] > RESYNC_WAIT:
                self._asked_from = (len(self.log), now)
                self._send(
                    Sync(room=self.code, epoch=self._epoch, n=self._next_n(), have=len(self.log))
                )
            return
        try:
            # Text in views and events (a result's reason, card codes) is
            # shown: whoever signs it, it arrives as text (issue 19, item 1).
            view_data = clean_tree(update.view)
            view = self.codec.decode_view(view_data)
            events = [self.codec.decode_event(clean_tree(raw)) for raw in update.events]
        except CodecError as error:
            log.warning("ignored an update that does not decode: %s", error)
            return
        if view.seat != self.seat:
            log.warning("ignored an update for seat %s", view.seat)
            return
        fresh = events[len(self.log) - update.base :]
        self.log.extend(fresh)
        if update.stood_in is not None:
            self.stood_in = [(span.start, span.end) for span in update.stood_in]
        # Kept to be checked at the end (issue 20): what this seat was shown.
        self._shown.saw_view(update.seq, view_data)
        self._shown.saw_events(update.base + len(events))
        self.view = view
        self.seq = update.seq
        self.acked = max(self.acked, update.ack)
        self._started.set()
        room = self.room
        if room is not None and room.record is not None and room.salt:
            # It came after the end: checked too, before it is shown, so
            # that the screen reading this update reads the check it completes.
            self._check_deal(room)
        self._deliver(
            tuple(fresh), None if update.rejected is None else clean_text(update.rejected)
        )

    def _deliver(self, events: tuple[Event, ...] = (), rejected: str | None = None) -> None:
        if self._listener is not None and self.view is not None:
            by_stand_in = self._by_stand_in(len(self.log) - len(events), len(events))
            self._listener(TableUpdate(self.view, events, rejected, by_stand_in))

    def _by_stand_in(self, first: int, count: int) -> frozenset[int]:
        """Which of the ``count`` events from log index ``first`` (0 being
        the first of them) a bot played for this seat's person."""
        return frozenset(
            index - first
            for start, end in self.stood_in
            for index in range(max(start, first), min(end, first + count))
        )

    # -- TableClient ---------------------------------------------------------

    async def connect(self, listener: Listener) -> None:
        """Start delivering updates; the first carries the view and the log."""
        self._listener = listener
        if self.view is not None:
            listener(
                TableUpdate(
                    self.view, tuple(self.log), by_stand_in=self._by_stand_in(0, len(self.log))
                )
            )

    async def submit(self, action: Action) -> None:
        if self.seat is None:
            raise IllegalAction("you have no seat at this table")
        act = Act(
            room=self.code,
            epoch=self._epoch,
            n=self._next_n(),
            seat=self.seat,
            action=str(action),
            at=max(self.seq, 0),
        )
        self.last_action_n = act.n
        self._last_act = act
        sent = self._send(act)
        if not sent:
            self._deliver(rejected="not connected to the table: reconnecting…")
            return
        asyncio.get_running_loop().call_later(ACT_WAIT, self._sync_if_unanswered, act.n)

    def _sync_if_unanswered(self, n: int) -> None:
        link = self._link
        if self._closed or self.acked >= n or link is None or not link.connected:
            return  # answered, or a reconnection will take the seat again
        if self.room is not None and self.room.phase in ("over", "closed"):
            return
        log.debug("action %d unanswered after %g s: asking for the table", n, ACT_WAIT)
        sync = Sync(room=self.code, epoch=self._epoch, n=self._next_n(), have=len(self.log))
        self._send(sync)
        asyncio.get_running_loop().call_later(ACT_WAIT, self._sync_if_unanswered, sync.n)

    @property
    def action_pending(self) -> bool:
        """Whether our latest action has not been handled yet."""
        return self.last_action_n > self.acked

    async def leave(self, *, keep_vote: bool = False) -> bool:
        """Quit the room for good: the host frees the seat or hands it to a bot.

        ``keep_vote``: in a game whose room fails over, this process's
        voters vote on until the game ends (or ``KEEP_VOTE_AT_MOST``), and
        the table closes itself then; True when they do. A leaver's vote
        is one of the room's majority (membership does not change when a
        person leaves: docs/election.md section 7), and a move waited
        for it when another machine was down (a play-test, 6 December:
        the game stood still for minutes). They never stand again: a
        table run in a process whose person left showed nothing there."""
        if self.seat is not None and self._link is not None and self._link.connected:
            topic = to_authority_topic(self.code, self.identity.peer_id)
            payload = seal(
                self.identity,
                topic,
                Leave(room=self.code, epoch=self._epoch, n=self._next_n()),
                self.authority_key,
            )
            await self._link.publish(topic, payload)
        if self.pins is not None:
            # Given up: never offered to rejoin, even before the host's next
            # room state says so (net/peer/rejoin.py).
            self.pins.forget_broker(self.code)
        playing = self.room is not None and self.room.phase == "playing"
        if keep_vote and playing and self._voters_here() and not self._closed:
            await self._keep_voting()
            return True
        await self.close()
        return False

    async def _keep_voting(self) -> None:
        """Left, this process votes on (``leave``): nothing of the game is
        shown or asked for any more, and the seat's presence says gone."""
        self.keeps_vote = True
        self._listener = None
        for listeners in (
            self._room_listeners,
            self._link_listeners,
            self._host_listeners,
            self._machines_listeners,
            self._moved_listeners,
            self._knock_listeners,
            self._waiting_listeners,
            self._next_listeners,
        ):
            listeners.clear()
        for voter in self._voters_here():
            voter.replica.driver.node.retire()
        await self._stop_beat()
        link = self._link
        if link is not None and link.connected:
            topic = presence_topic(self.code, self.identity.peer_id)
            with contextlib.suppress(Exception):  # its link's retries follow
                await link.publish(topic, self._presence_payload(online=False), retain=True)
        self._keep_vote_until = asyncio.get_running_loop().call_later(
            KEEP_VOTE_AT_MOST, lambda: spawn(self.close(), "a vote kept for its longest")
        )
        log.info("room %s: left the game; this machine votes on until it ends", self.code)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._listener = None
        if self._room_search is not None:
            self._room_search.cancel()
        if self._keep_vote_until is not None:
            self._keep_vote_until.cancel()
        if self._commit_wait is not None:
            self._commit_wait.cancel()
        if self.voter is not None:
            await self.voter.close()
        if self._maker is not None:
            store, maker = self._maker
            self._maker = None
            await maker.close()
            if self._nothing_to_vote_on():
                store.discard()  # nothing left to vote on: its files go with it
            store.release()
        standby = self._hand_over_standby()
        if standby is not None:
            await stop_standby(standby)
        await self._abandon()

    def record(self) -> GameRecord | None:
        """The game record, once the game is over (never before: it holds the seed)."""
        if self.room is None or self.room.record is None:
            return None
        with contextlib.suppress(RecordError):
            return GameRecord.from_data(self.room.record)
        return None


def shown_room(room: RoomState) -> RoomState:
    """``room`` with every text in it made safe to show (net/protocol/text.py): a
    squatter's or an old host's room state may carry escapes or bidi
    overrides in its names, host or notice (issue 19, item 1)."""
    seats = [
        msgspec.structs.replace(
            seat,
            name=clean_name(seat.name),
            kind=clean_text(seat.kind, 10),
            level=clean_text(seat.level, 20),
            peer=clean_text(seat.peer, 16),
        )
        for seat in room.seats
    ]
    config: Any = clean_tree(room.config)
    return msgspec.structs.replace(
        room,
        game=clean_text(room.game, 20),
        config=config,
        host=clean_text(room.host, 64),
        phase=clean_text(room.phase, 10),
        seats=seats,
        app=clean_text(room.app, 40),
        notice=clean_text(room.notice),
        dealer=clean_text(room.dealer, 40),
    )


def _refusal(reply: Refused | Watched) -> JoinError:
    """A join's refusal in words (a ``watched`` answer to a Hello is a host's
    mistake: refused as such)."""
    if isinstance(reply, Watched):
        return JoinError("the host answered a join as a watch", "bad")
    return JoinError(clean_text(reply.reason), clean_text(reply.code))


def _summary(message: Welcome | Refused | Update | Watched | Knocks) -> str:
    if isinstance(message, Update):
        # A seat's own move comes twice: early, before its change commits,
        # then committed (docs/election.md section 12): said, not a repeat.
        early = ", uncommitted" if message.uncommitted is not None else ""
        return (
            f"Update(seq={message.seq}, base={message.base}, events={len(message.events)}, "
            f"ack={message.ack}, rejected={message.rejected!r}{early})"
        )
    return repr(message)


def _log_failure(task: asyncio.Task[bool]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("sending failed: %s", task.exception())


__all__ = ["KNOCK_WAIT", "JoinError", "RemoteTable", "shown_room"]
