"""``passe dealer``: a non-playing authority that serves rooms (issue 20,
"Dealers"; docs/election.md section 11, docs/protocol.md section 14).

A dealer keeps one link on its broker: its presence (retained, public;
its will says it is gone) and its inbox. Anyone may ask it for a room
(:class:`~net.dealer.messages.Deal`): it opens the room as a headless host
would, with a room key of its own, seats people by the asker's rule, fills
the open seats with bots once enough people sat, and runs the table to its
end. Its own long-term key is its vote: when the game starts, the room's
election config names this dealer and up to two other dealers seen online
as its share holders (no player's process holds a share or stands), and
the others are told to hold the room (:class:`~net.dealer.messages.Hold`).
When this dealer dies, another of them wins the election and the table
moves there; when it is stopped (SIGTERM), it hands each table it runs to
another dealer first.

What a dealer spends is bounded: messages and bytes per sender and in all
on its inbox, deals per second, rooms in all (``max_rooms``), rooms waiting
in their lobby per asker, and a lobby closes when nobody has sat in it after
``FIRST_SEAT_WAIT`` or nobody fills it in ``LOBBY_TIMEOUT``. It writes one
log line per event (a room dealt, a person seated, a game started or over,
a table taken over or handed on, a refusal: repeated ones summed up by
:class:`~net.protocol.bounds.FloodLog`), and its rooms to a status file that ``passe
dealer --status`` reads, at most once every STATUS_INTERVAL.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import msgspec

from core.engine import ConfigError, option_from_text
from core.registry import get_game
from net.authority.authority import ADMIT_ANY, ADMIT_ASK, ADMIT_KEYS, LOBBY, Authority
from net.authority.host import (
    HostedRoom,
    RoomMoved,
    close_interrupted_room,
    open_next_room,
    open_room,
    resume_room,
    taken_over_room,
)
from net.authority.replication import (
    VoterBusy,
    decode_room_config,
    loop_running,
    maker_vote_path,
    spawn,
)
from net.authority.rooms import (
    BrokerChoice,
    RoomBusy,
    RoomFileError,
    RoomStore,
    SavedRoom,
    load_room,
    room_path,
)
from net.authority.table import HUMAN
from net.dealer.kept import (
    KEPT_VERSION,
    KeptRoom,
    KeptRoomError,
    decode_kept,
    encode_kept,
    forget,
    keep,
    kept_rooms,
)
from net.dealer.messages import (
    MAX_DEALER_PAYLOAD,
    PRESENCES,
    Deal,
    DealerPresence,
    Dealt,
    Hold,
    Release,
    inbox_decoder,
    inbox_topic,
    presence_decoder,
    presence_topic,
)
from net.election.driver import announce_decoder, authority_topic, parse_broker
from net.election.messages import Config
from net.files import write_atomic
from net.identity import Identity, fingerprint, peer_id
from net.lan.transport import LastWill, MqttLink, stop_task
from net.peer.failover import SeatVoter, stored_election
from net.peer.headless import fill_and_start, over_or_stepped_down
from net.protocol.bounds import FloodLog, Rate, SenderLimits, TokenBucket
from net.protocol.codes import ALPHABET, CODE_LENGTH
from net.protocol.text import clean_name, clean_text
from net.protocol.wire import WireError, open_body, open_envelope, seal, short_text

log = logging.getLogger("passe.dealer")

# How many other dealers hold a room's shares with the one that deals it:
# three holders survive the loss of any one (threshold 2).
OTHER_DEALERS: Final = 2
DEFAULT_MAX_ROOMS: Final = 200
# Rooms one asker's key may have waiting in their lobby at once.
LOBBIES_PER_ASKER: Final = 4
# Rooms nobody has sat in yet, all askers together. A key is free, so the
# limit per asker bounds nothing against fresh keys; a room's asker or its
# people sit within a minute or two (an owner at once), so a few dozen is
# plenty, and filling the dealer then takes a live seat in each room.
MAX_EMPTY_LOBBIES: Final = 24
# A lobby nobody fills in this long closes (seconds).
LOBBY_TIMEOUT: Final = 15 * 60.0
# A lobby where nobody has sat this long closes sooner (seconds): the code
# was never used (its asker gave up, or never had the answer; a headless
# asker's people have had time to type it). Such a room held its place for
# the whole LOBBY_TIMEOUT before.
FIRST_SEAT_WAIT: Final = 5 * 60.0
# A handing-over dealer waits this long for the next one's log, then for
# its election (seconds).
HANDOVER_WAIT: Final = 10.0
# How long a room whose game is over waits for its owner to ask for the next
# game at its table (a person reading the scores, then pressing a).
NEXT_GAME_WAIT: Final = 10 * 60.0
# A room held again after a restart is let go when no authority of it is
# heard in this long (seconds): its game ended while this dealer was away.
# Elections take a few election timeouts (1-2 s each): this is many.
REHOLD_WAIT: Final = 60.0
# A Hold names its sender's room and asks this dealer to vote in it; anyone
# may send one (a key is free). A room held is let go unless its authority
# is heard within REHOLD_WAIT, and at most this many held rooms may wait
# for theirs at once: a legitimate one is heard within a second or two (the
# game starts as its Holds go out), so fresh keys cannot fill the dealer's
# rooms with rooms nobody plays.
MAX_UNHEARD_HOLDS: Final = 8
INBOX_RATE: Final = Rate(messages=20, message_burst=40, bytes=64 << 10, byte_burst=128 << 10)
INBOX_TOTAL: Final = Rate(messages=400, message_burst=800, bytes=2 << 20, byte_burst=4 << 20)
# Rooms dealt a second (all askers), and saved up.
DEALS_RATE: Final = (5.0, 20.0)
ANSWERS_KEPT: Final = 1024
STATUS_FILE: Final = "status.json"
# At most one status write per this many seconds, however many rooms change:
# a write per seat change of every room made a busy dealer's cost grow with
# the square of its rooms (bench/dealer.py).
STATUS_INTERVAL: Final = 0.5


@dataclass
class DealtRoom:
    """A room this dealer runs: dealt here, or taken over (``taken``)."""

    code: str
    game: str
    asker: str  # the asker's name (a taken-over room: its host's)
    authority: Authority
    hosted: HostedRoom | None = None
    taken: bool = False
    task: asyncio.Task[object] | None = None
    kept: KeptRoom | None = None  # what resumes it after a restart (dealt here)
    # Set once the room waits no more for its owner to ask for the next
    # game at its table (``Again``): that game opened, or the room closed.
    let_go: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class HeldRoom:
    """A room another dealer made, in which this one votes and stands."""

    code: str
    config: Config
    voter: SeatVoter
    # The key that signs the room in the highest term announced (empty:
    # not known yet, a room held again after a restart).
    room_key: bytes
    term: int = 1
    released: bool = False


@dataclass
class OtherDealer:
    name: str
    epoch: int
    online: bool
    free: int


@dataclass
class Dealer:
    """One dealer process on the broker at ``host:port`` (``shown``: the
    address people are told to join at)."""

    identity: Identity
    name: str
    host: str
    port: int
    shown: str = ""
    max_rooms: int = DEFAULT_MAX_ROOMS
    advertise: bool = True
    state_dir: Path | None = None  # where the status file goes (None: none)
    bot_delay: float = 0.8
    # The other nodes of the broker's cluster, tried in order (docs/scale.md).
    alternates: tuple[tuple[str, int], ...] = ()
    # The peer ids of the other dealers this one shares its rooms with
    # (`passe dealer --trust FILE`): the only ones chosen to hold a share
    # of a room's secret, and the only ones whose Holds it takes. Anyone can
    # say "I am a dealer" on the broker; a dealer holding a share can read
    # the deck with two dealers, and a person's own dealer would read the
    # deck of the person's games. None trusted: its rooms do not fail over.
    trusted: frozenset[str] = frozenset()
    # Told of each event as (kind, fields): ``passe dealer`` prints them as
    # JSON lines (scripts and tests follow a dealer so, never by sleeping).
    on_event: Callable[..., None] | None = None
    rooms: dict[str, DealtRoom] = field(default_factory=dict)
    held: dict[str, HeldRoom] = field(default_factory=dict)
    dealers: dict[bytes, OtherDealer] = field(default_factory=dict)
    started_at: float = field(default_factory=time.time)
    _link: MqttLink | None = None
    _epoch: int = field(default_factory=lambda: time.time_ns() // 1_000_000)
    _limits: SenderLimits = field(
        default_factory=lambda: SenderLimits(INBOX_RATE, INBOX_TOTAL, max_senders=1024)
    )
    _deals: TokenBucket = field(default_factory=lambda: TokenBucket(*DEALS_RATE))
    _answers: OrderedDict[tuple[bytes, int], Dealt] = field(default_factory=OrderedDict)
    _floods: FloodLog = field(default_factory=lambda: FloodLog(log))
    _lobbies: dict[bytes, int] = field(default_factory=dict)
    _opening: set[tuple[bytes, int]] = field(default_factory=set)  # deals being opened
    _stopping: bool = False
    _status_pending: bool = False
    _status_written_at: float = -1e9  # monotonic

    # -- life cycle ----------------------------------------------------------

    @property
    def inbox(self) -> str:
        return inbox_topic(self.identity.peer_id)

    @property
    def rooms_dir(self) -> Path | None:
        """Where the rooms this dealer runs are kept, to resume them after a
        crash or a restart (None: the person's rooms directory, nothing
        resumed: in-process dealers of the tests)."""
        return self.state_dir / "rooms" if self.state_dir is not None else None

    @property
    def held_dir(self) -> Path | None:
        """Where this dealer's voter files of the rooms it holds for others
        are kept (None: the person's votes directory, nothing held again
        after a restart: in-process dealers of the tests)."""
        return self.state_dir / "held" if self.state_dir is not None else None

    @property
    def busy(self) -> int:
        """Rooms this dealer spends on: those it runs and those it holds."""
        return len(self.rooms) + len(self.held)

    async def start(self) -> None:
        self._link = MqttLink(
            self.host,
            self.port,
            subscriptions=[self.inbox, PRESENCES],
            on_message=self._on_message,
            on_connect=self._on_connect,
            will=self._will,
            alternates=self.alternates,
        )
        await self._link.start()
        log.info(
            "dealer %s (%s) serves rooms on %s:%d, at most %d",
            self.name,
            fingerprint(self.identity.public_key),
            self.host,
            self.port,
            self.max_rooms,
        )
        if self.trusted:
            log.info(
                "dealer %s shares its rooms with %d other dealers it trusts, when online",
                self.name,
                len(self.trusted),
            )
        else:
            log.info(
                "dealer %s trusts no other dealer (--trust FILE): %s",
                self.name,
                "its rooms wait for it if it stops",
            )
        self._write_status()

    async def stop(self) -> None:
        """Hand every table this dealer runs to another dealer (or close it
        when none holds it), let go of the rooms it holds, go offline."""
        self._stopping = True
        await asyncio.gather(
            *(self._hand_over(room) for room in list(self.rooms.values())),
            return_exceptions=True,
        )
        for held in list(self.held.values()):
            await self._set_aside(held)
        if self._link is not None:
            # Gone, said now (the will is for a death): "offline", then the
            # retained record cleared, so that brokers do not keep one per
            # dealer that ever ran.
            topic = presence_topic(self.identity.peer_id)
            await self._link.publish(topic, self._presence(online=False))
            await self._link.publish(topic, b"", retain=True)
            await self._link.close()
        log.info("dealer %s stopped", self.name)
        self._write_status(running=False)

    def _will(self) -> LastWill:
        return LastWill(presence_topic(self.identity.peer_id), self._presence(online=False))

    def _presence(self, *, online: bool) -> bytes:
        topic = presence_topic(self.identity.peer_id)
        presence = DealerPresence(
            online=online,
            epoch=self._epoch,
            name=self.name,
            rooms=self.busy,
            free=max(0, self.max_rooms - self.busy) if online else 0,
            broker=self.shown,
        )
        return seal(self.identity, topic, presence)

    async def _on_connect(self) -> None:
        await self._publish_presence()

    async def _publish_presence(self) -> None:
        if self._link is not None and not self._stopping:
            topic = presence_topic(self.identity.peer_id)
            await self._link.publish(topic, self._presence(online=True), retain=True)

    def _event(self, kind: str, **fields: Any) -> None:
        if self.on_event is not None:
            self.on_event(kind, **fields)

    def _changed(self) -> None:
        self._status_soon()
        if loop_running():
            spawn(self._publish_presence(), "the dealer's presence")

    # -- what arrives --------------------------------------------------------

    async def _on_message(self, topic: str, payload: bytes) -> None:
        now = time.monotonic()
        if topic == self.inbox:
            self._on_inbox(payload, now)
        elif topic.startswith(PRESENCES[:-1]):
            self._on_presence(topic, payload, now)
        else:
            self._on_announce(topic, payload, now)

    def _on_announce(self, topic: str, payload: bytes, now: float) -> None:
        """A held room's authority announced (retained, signed by a voter of
        its config): its room key is the one a successor here takes over
        from, whose retained state it replaces without a warning."""
        parts = topic.split("/")
        held = self.held.get(parts[2]) if len(parts) == 5 else None
        if held is None or topic != authority_topic(held.code) or not payload:
            return
        try:
            envelope = open_envelope(topic, payload)
            announce = open_body(envelope, announce_decoder)
        except WireError as error:
            self._floods.note("announce-bad", f"ignored an announcement: {error.reason}", now)
            return
        voters = {voter.key for voter in held.config.voters}
        if envelope.sender in voters and announce.term > held.term and announce.room_key:
            held.term, held.room_key = announce.term, announce.room_key

    def _on_presence(self, topic: str, payload: bytes, now: float) -> None:
        peer = topic.rsplit("/", 1)[-1]
        if peer == self.identity.peer_id or not payload:
            return
        try:
            envelope = open_envelope(topic, payload, expect_id=peer)
            presence = open_body(envelope, presence_decoder)
        except WireError as error:
            self._floods.note("presence-bad", f"ignored a dealer's presence: {error.reason}", now)
            return
        known = self.dealers.get(envelope.sender)
        if known is not None and presence.epoch < known.epoch:
            return  # a late will of an older connection
        name = clean_name(presence.name, "a dealer")
        if not presence.online:
            # Gone: forgotten (a will stays retained on the broker for ever;
            # a dealer never seen online is nobody to know).
            if self.dealers.pop(envelope.sender, None) is not None:
                log.info("dealer %s (%s) is gone", name, fingerprint(envelope.sender))
                self._event("other_dealer", name=name, key=peer, online=False)
                self._status_soon()  # its status names the others online
            return
        if len(self.dealers) >= 64 and known is None:
            return  # a flood of fresh dealer keys: the first 64 are plenty
        self.dealers[envelope.sender] = OtherDealer(name, presence.epoch, True, presence.free)
        if known is None:
            log.info("dealer %s (%s) is online", name, fingerprint(envelope.sender))
            self._event("other_dealer", name=name, key=peer, online=True)
            # Named in the status from now on (it said "none" until a room
            # started, and named a dealer gone: a play-test).
            self._status_soon()

    def _on_inbox(self, payload: bytes, now: float) -> None:
        if len(payload) > MAX_DEALER_PAYLOAD:
            self._floods.note("inbox-size", f"dropped a message of {len(payload)} bytes", now)
            return
        try:
            envelope = open_envelope(self.inbox, payload, identity=self.identity)
        except WireError as error:
            self._floods.note("inbox-bad", f"dropped a message: {error.reason}", now)
            return
        if not self._limits.allow(envelope.sender, len(payload), now):
            self._floods.note("inbox-flood", "dropped messages past a sender's budget", now)
            return
        try:
            message = open_body(envelope, inbox_decoder, self.identity)
        except WireError as error:
            self._floods.note("inbox-bad", f"dropped a message: {error.reason}", now)
            # Its sender is known (only it could seal it) and within its
            # budget: told in words, as a seat's malformed request is (code
            # bad), rather than left to take the silence for a dealer gone
            # (a client written from docs/protocol.md alone sent its nonce
            # as bytes and waited). Nonce 0: the request's own was not
            # read. Not kept: a later Deal of nonce 0 gets its own answer.
            why = f"request not understood: {error.reason}"
            self._send_answer(envelope.sender, Dealt(0, refused=short_text(why)))
            return
        sender = envelope.sender
        if isinstance(message, Deal):
            self._on_deal(sender, message, now)
        elif isinstance(message, Hold):
            self._on_hold(sender, message, now)
        elif isinstance(message, Release):
            self._on_release(sender, message)

    # -- dealing -------------------------------------------------------------

    def _answer(self, to: bytes, answer: Dealt) -> None:
        # A refusal may quote the asker's settings (an option's name): held
        # to the bound the asker's decoder keeps, or its answer is refused.
        answer = Dealt(answer.nonce, answer.code, answer.join, short_text(answer.refused))
        if answer.refused:
            refusal = f"refused a deal to {fingerprint(to)}: {answer.refused}"
            self._floods.note("refused", refusal, time.monotonic())
        self._answers[(to, answer.nonce)] = answer
        while len(self._answers) > ANSWERS_KEPT:
            self._answers.popitem(last=False)
        self._send_answer(to, answer)

    def _send_answer(self, to: bytes, answer: Dealt) -> None:
        if self._link is not None:
            topic = inbox_topic(peer_id(to))
            spawn(self._link.publish(topic, seal(self.identity, topic, answer, to)), "an answer")

    def _on_deal(self, sender: bytes, deal: Deal, now: float) -> None:
        kept = self._answers.get((sender, deal.nonce))
        if kept is not None:
            self._answer(sender, kept)  # the same answer again: no second room
            return
        if (sender, deal.nonce) in self._opening:
            return  # being opened: its answer follows
        reason = self._deal_problem(sender, deal, now)
        if reason is not None:
            self._answer(sender, Dealt(deal.nonce, refused=reason))
            return
        self._opening.add((sender, deal.nonce))
        self._lobbies[sender] = self._lobbies.get(sender, 0) + 1
        spawn(self._open(sender, deal), "a room dealt")

    def _deal_problem(self, sender: bytes, deal: Deal, now: float) -> str | None:
        if self._stopping:
            return "this dealer is stopping: ask another"
        if self.busy >= self.max_rooms:
            return f"this dealer serves {self.busy} rooms, its most: ask another"
        if self._lobbies.get(sender, 0) >= LOBBIES_PER_ASKER:
            return f"you have {LOBBIES_PER_ASKER} rooms waiting for players here already"
        empty = len(self._opening) + sum(
            1
            for room in self.rooms.values()
            if room.authority.phase == LOBBY and not _someone_sat(room.authority)
        )
        if empty >= MAX_EMPTY_LOBBIES:
            return f"this dealer has {empty} rooms nobody sits in yet: ask again in a few minutes"
        try:
            game = get_game(deal.game)
            config = game.make_config(players=deal.players, teams=deal.teams, **_options(deal))
        except (ConfigError, KeyError, TypeError, ValueError) as error:
            return clean_text(str(error) or "this game or these settings do not exist", 300)
        if deal.bots not in game.bots:
            return f"bots {deal.bots!r}: this game has {', '.join(sorted(game.bots))}"
        if deal.owner and len(deal.owner) != 32:
            return "the owner named is no player key"
        if deal.owner and deal.admit:
            return "a room either lists who may sit or has an owner who decides, not both"
        if deal.wait_for > config.players:
            return f"wait for {deal.wait_for} people: the room has {config.players} seats"
        if not self._deals.take(now):
            return "this dealer is dealing many rooms at once: ask again in a moment"
        return None

    async def _open(self, asker: bytes, deal: Deal) -> None:
        game = get_game(deal.game)
        config = game.make_config(players=deal.players, teams=deal.teams, **_options(deal))
        name = clean_name(deal.name, "someone")
        try:
            hosted = await open_room(
                game.id,
                config,
                identity=Identity.generate(),  # the room's key; the dealer's votes
                host_name=name,
                broker=(self.host, self.port),
                bot_delay=self.bot_delay,
                advertise=self.advertise,
                admission=admission_rule(deal.admit, deal.owner),
                failover=deal.failover,
                alternates=self.alternates,
                rooms=self.rooms_dir,
            )
        except Exception as error:  # broker errors carry their own one-line reason
            self._lobby_done(asker)
            self._opening.discard((asker, deal.nonce))
            self._answer(asker, Dealt(deal.nonce, refused=f"could not open a room: {error}"))
            return
        self._opening.discard((asker, deal.nonce))
        wanted = config.players if deal.wait_for == 0 else deal.wait_for
        kept = KeptRoom(
            KEPT_VERSION,
            hosted.code,
            name,
            list(deal.admit),
            deal.stand_in_after,
            owner=deal.owner,
            wanted=wanted,
            bots=deal.bots,
        )
        # The asker decides who sits, from their seat; they sit at once,
        # and may ask for the next game at the table once it is over.
        room = self._dealt_room(hosted, game.id, kept)
        hint = hosted.join_hint
        if self.shown:
            hint = f"{hint.split('@', 1)[0]}@{self.shown}"
        self.rooms[room.code] = room
        self._keep(room)
        log.info(
            "room %s: dealt %s for %d to %s (%s)",
            room.code,
            game.id,
            config.players,
            name,
            fingerprint(asker),
        )
        self._answer(asker, Dealt(deal.nonce, code=room.code, join=hint))
        self._event("dealt", code=room.code, game=game.id, players=config.players)
        self._changed()
        room.task = spawn(self._serve(room, asker, wanted, deal.bots), f"room {room.code}")

    def _dealt_room(self, hosted: HostedRoom, game: str, kept: KeptRoom) -> DealtRoom:
        """A room this dealer runs as ``kept`` says (dealt here, the next
        game at a table, or resumed after a restart): set up as the
        dealer's; the person who asked for it on screen (``kept.owner``)
        decides who sits, starts it early and opens its next game."""
        authority = self._deal_with(hosted, kept)
        authority.dealt_as = encode_kept(kept)  # in its saves: for a dealer that takes it over
        room = DealtRoom(
            kept.code,
            game,
            kept.asker,
            authority,
            hosted,
            kept=kept,
        )
        if kept.owner:
            self._owned_by(room, kept.owner)
        return room

    def _owned_by(self, room: DealtRoom, owner: bytes) -> None:
        """``owner`` (the person who asked for ``room`` on screen) sits
        without asking, decides who else does, and opens the next game at
        its table (``Again``)."""
        room.authority.owner = owner
        room.authority.admitted.add(owner)

        def again() -> None:
            spawn(self._open_next(room), "a next game")

        room.authority.on_again = again

    async def _open_next(self, room: DealtRoom) -> None:
        """The next game at ``room``'s table, its game over, as a host opens
        one (net/authority/host.py ``open_next_room``): a new code and deal,
        the same room key, the same seats (each person's bound to their
        key, the same bots), the same owner; ``room`` announces it and
        closes. Its lobby fills as the first room's did."""
        old = room.authority
        owner = old.owner
        if room.kept is None or owner is None:
            return
        if room.hosted is None and room.taken:
            # A table this dealer took over: the next game opens where it is.
            room.hosted = await taken_over_room(old, None)
        if room.hosted is None:
            return
        if self._stopping or self.busy >= self.max_rooms:
            why = "is stopping" if self._stopping else f"serves {self.busy} rooms, its most"
            old.next_game_refused(f"this dealer {why}: ask for a new room")
            return

        def prepare(authority: Authority) -> None:
            # Before anyone can follow its notice: the owner decides again,
            # and its first state names its dealer, signed (else those who
            # follow read a host's room until the next state).
            authority.owner = owner
            authority.admitted.add(owner)
            authority.name_dealer(self.name, self.identity)

        try:
            hosted = await open_next_room(room.hosted, rooms=self.rooms_dir, prepare=prepare)
        except Exception as error:  # broker errors carry their own one-line reason
            log.warning("room %s: could not open its next game: %s", room.code, error)
            old.next_game_refused(f"the dealer could not open it: {error}")
            return
        room.hosted = None  # closed by open_next_room; its broker is the next room's
        kept = msgspec.structs.replace(room.kept, code=hosted.code, replicated=False)
        following = self._dealt_room(hosted, room.game, kept)
        self.rooms[following.code] = following
        self._keep(following)
        log.info("room %s: the next game at the table of %s", following.code, room.code)
        self._event("dealt", code=following.code, game=room.game, after=room.code)
        self._changed()
        room.let_go.set()
        self._lobbies[owner] = self._lobbies.get(owner, 0) + 1  # _serve's end gives it back
        following.task = spawn(
            self._serve(following, owner, kept.wanted, kept.bots),
            f"room {following.code}",
        )

    def _deal_with(self, hosted: HostedRoom, kept: KeptRoom) -> Authority:
        """``hosted``'s authority, set up as this dealer's: its votes and
        files are the dealer's, who sits follows the asker's rule."""
        authority = hosted.authority
        authority.voter_identity = self.identity
        authority.voter_dir = self.rooms_dir
        authority.dealers = ()
        authority.name_dealer(self.name, self.identity)
        authority.allowed_keys = frozenset(kept.admit)
        if kept.admit:
            authority.watch_presence(None)
        else:
            authority.watch_presence(60.0)
        authority.watch_away(kept.stand_in_after or None)
        return authority

    def _keep(self, room: DealtRoom) -> None:
        if self.rooms_dir is not None and room.kept is not None:
            keep(self.rooms_dir, room.kept)

    def _forget(self, code: str) -> None:
        if self.rooms_dir is not None:
            forget(self.rooms_dir, code)

    async def resume_kept(self) -> None:
        """The rooms this dealer ran when its process ended (killed, or
        stopped with no other dealer to take them): each game in play goes
        on where it stopped, as ``passe host --resume`` resumes a host's;
        a room other dealers hold moved to one of them and is left to
        them; a lobby is closed (its people are told)."""
        directory = self.rooms_dir
        if directory is None:
            return
        records, problems = kept_rooms(directory)
        for problem in problems:
            log.warning("a kept room cannot be read: %s", problem)
        for kept in records:
            if kept.code in self.rooms or kept.code in self.held:
                continue
            await self._resume(directory, kept)

    async def _resume(self, directory: Path, kept: KeptRoom) -> None:
        path = room_path(kept.code, directory)
        try:
            saved = load_room(path)
        except (RoomFileError, OSError) as error:
            log.warning("room %s: not resumed: %s", kept.code, error)
            self._event("closed", code=kept.code, why=f"its file cannot be read: {error}")
            self._forget(kept.code)
            return
        vote = maker_vote_path(kept.code, self.identity, directory)
        if kept.replicated or vote.exists():
            # Its voter file says so too: made as the game started, before
            # the record could (a crash in between must not make a second
            # table).
            why = "other dealers hold it: its table moved to one of them"
            log.info("room %s: not resumed (%s)", kept.code, why)
            self._event("closed", code=kept.code, why=why)
            self._discard(path, kept.code)
            self._hold_made(kept.code, vote)
            return
        if saved.phase != "playing":
            # A lobby's asker and its wait are gone with the process: it
            # closes, and those who sat are told, as a host's would be.
            why = f"it was in its {saved.phase} when this dealer stopped"
            log.info("room %s: closed (%s)", kept.code, why)
            self._event("closed", code=kept.code, why=why)
            self._forget(kept.code)
            spawn(self._close_interrupted(saved, directory), f"room {kept.code}'s close")
            return
        try:
            hosted = await resume_room(
                saved,
                broker=(self.host, self.port),
                bot_delay=self.bot_delay,
                advertise=self.advertise,
                admission=admission_rule(kept.admit, kept.owner),
                alternates=self.alternates,
                rooms=directory,
            )
        except (RoomMoved, RoomBusy) as error:
            log.info("room %s: not resumed: %s", kept.code, error)
            self._event("closed", code=kept.code, why=str(error))
            self._forget(kept.code)
            return
        except Exception as error:  # its broker: one line; kept for the next start
            log.warning("room %s: could not be resumed now: %s", kept.code, error)
            return
        room = self._dealt_room(hosted, saved.game, kept)  # its owner's still
        self.rooms[room.code] = room
        log.info("room %s: resumed where it stopped (%d moves)", room.code, len(saved.actions))
        self._event("resumed", code=room.code, moves=len(saved.actions), seq=saved.seq)
        self._changed()
        room.task = spawn(self._run_to_end(room), f"room {room.code}")

    def _hold_made(self, code: str, vote: Path) -> None:
        """The voter file of a room this dealer made, whose table moved to
        another dealer: moved among the rooms it holds, so that it votes and
        stands there again (resume_held): without it, the room lost this
        dealer's vote and share for good, and with three dealers the death
        of the next one running the table left a single share."""
        held_dir = self.held_dir
        if held_dir is None or not vote.exists():
            return
        try:
            held_dir.mkdir(parents=True, exist_ok=True)
            os.replace(vote, held_dir / vote.name)
        except OSError as error:
            log.warning("room %s: its voter file could not be kept: %s", code, error)

    async def _close_interrupted(self, saved: SavedRoom, directory: Path) -> None:
        with contextlib.suppress(Exception):  # nobody to tell: files removed anyway
            await close_interrupted_room(saved, rooms=directory)

    def _discard(self, path: Path, code: str) -> None:
        """Its files gone as a room's store removes them (and its lock)."""
        store = RoomStore(path, BrokerChoice(embedded=False, host=self.host, port=self.port))
        with contextlib.suppress(RoomBusy):
            store.claim()
            store.discard()
            store.release()
        self._forget(code)

    def _lobby_done(self, asker: bytes) -> None:
        left = self._lobbies.get(asker, 0) - 1
        if left > 0:
            self._lobbies[asker] = left
        else:
            self._lobbies.pop(asker, None)

    def _room_event(self, code: str) -> Callable[..., None]:
        def event(kind: str, **fields: Any) -> None:
            del kind, fields  # the room's own log says who sat and who left
            self._status_soon()

        return event

    async def _serve(self, room: DealtRoom, asker: bytes, wanted: int, bots: str) -> None:
        assert room.hosted is not None
        authority = room.authority
        # A next game keeps the first's bots (its owner may have started it
        # before everyone came): it waits for the people of its other seats
        # at most, or it waited for someone who could never sit (by hand).
        people = sum(1 for slot in authority.seats if slot.kind != "bot")
        wanted = min(wanted or people, people)
        # Its owner may start it before everyone came (StartNow): bots
        # take the open seats, as a host's s does.
        start_now = asyncio.Event()
        if authority.owner is not None:
            authority.on_start_asked = start_now.set
        filling = asyncio.ensure_future(
            fill_and_start(
                room.hosted,
                wanted,
                bots,
                self._room_event(room.code),
                before_start=lambda: self._choose_dealers(authority),
                start_now=start_now,
            )
        )
        owner_left = asyncio.ensure_future(authority.owner_left.wait())
        either = [filling, owner_left]
        first = asyncio.FIRST_COMPLETED
        try:
            await asyncio.wait(either, timeout=FIRST_SEAT_WAIT, return_when=first)
            sat = _someone_sat(authority)
            if sat and not (filling.done() or owner_left.done()):
                await asyncio.wait(
                    either, timeout=LOBBY_TIMEOUT - FIRST_SEAT_WAIT, return_when=first
                )
            if owner_left.done():
                why = "its asker left it"
            elif sat:
                why = f"nobody came in {LOBBY_TIMEOUT / 60:g} minutes"
            else:
                why = f"nobody sat in {FIRST_SEAT_WAIT / 60:g} minutes"
            if not filling.done():
                await stop_task(filling)
                log.info("room %s: %s: closed", room.code, why)
                await self._close(room)
                self._event("closed", code=room.code, why=why)
                return
            filling.result()  # its failure, if it failed
        finally:
            self._lobby_done(asker)
            owner_left.cancel()
            if not filling.done():
                filling.cancel()
        self._send_holds(authority)
        if room.kept is not None and authority.election:
            # Other dealers hold it now: never resumed here (a second table).
            room.kept.replicated = True
            self._keep(room)
        log.info("room %s: the game started (%s)", room.code, self._voting_line(authority))
        self._event("started", code=room.code, fails_over=bool(authority.election))
        self._changed()
        await self._run_to_end(room)

    def _choose_dealers(self, authority: Authority) -> None:
        """The other dealers that hold the room with this one: the online
        ones with the most room to spare, at most OTHER_DEALERS."""
        online = [
            (dealer.free, key)
            for key, dealer in self.dealers.items()
            if dealer.online and dealer.free > 0 and peer_id(key) in self.trusted
        ]
        online.sort(reverse=True)
        authority.dealers = tuple(key for _, key in online[:OTHER_DEALERS])

    def _voting_line(self, authority: Authority) -> str:
        config = decode_room_config(authority.election) if authority.election else None
        if config is None:
            return "no other dealer holds it: it waits for this one if it stops"
        others = [
            self.dealers[voter.key].name if voter.key in self.dealers else peer_id(voter.key)
            for voter in config.voters
            if voter.dealer and voter.key != self.identity.public_key
        ]
        return f"{len(config.voters)} voters, held with {', '.join(others)}"

    def _send_holds(self, authority: Authority) -> None:
        config = decode_room_config(authority.election) if authority.election else None
        if config is None or self._link is None:
            return
        broker = f"{authority.broker_host}:{authority.broker_port}"
        hold = Hold(authority.code, authority.election, broker, authority.identity.public_key)
        for voter in config.voters:
            if voter.dealer and voter.key != self.identity.public_key:
                topic = inbox_topic(peer_id(voter.key))
                payload = seal(self.identity, topic, hold, voter.key)
                spawn(self._link.publish(topic, payload), "a hold")

    async def _run_to_end(self, room: DealtRoom) -> None:
        authority = room.authority
        if await over_or_stepped_down(authority):
            if not self._stopping:
                log.info(
                    "room %s: term %d runs elsewhere: this dealer no longer runs the table",
                    room.code,
                    authority.stepped_down or 0,
                )
            self.rooms.pop(room.code, None)
            self._forget(room.code)
            self._event("moved_away", code=room.code, term=authority.stepped_down or 0)
            self._changed()
            return
        log.info("room %s: the game is over", room.code)
        self._event("over", code=room.code)
        self._send_releases(authority)
        if authority.on_again is not None and not self._stopping:
            # Its owner may ask for the next game at this table from their
            # game-over screen (``Again``): the room stays open until then,
            # for NEXT_GAME_WAIT at most.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(room.let_go.wait(), NEXT_GAME_WAIT)
            if self.rooms.get(room.code) is not room:
                return  # closed meanwhile (this dealer stopping)
        await self._close(room)

    def _send_releases(self, authority: Authority) -> None:
        config = decode_room_config(authority.election) if authority.election else None
        if config is None or self._link is None:
            return
        for voter in config.voters:
            if voter.dealer and voter.key != self.identity.public_key:
                topic = inbox_topic(peer_id(voter.key))
                payload = seal(self.identity, topic, Release(authority.code), voter.key)
                spawn(self._link.publish(topic, payload), "a release")

    async def _close(self, room: DealtRoom) -> None:
        room.let_go.set()
        self.rooms.pop(room.code, None)
        self._forget(room.code)
        if room.hosted is not None:
            await room.hosted.close()
        else:
            await room.authority.close()
        held = self.held.pop(room.code, None)
        if held is not None:
            held.released = True
            if self._link is not None:
                self._link.unsubscribe(authority_topic(room.code))
            await held.voter.close()
        self._changed()

    # -- rooms held for other dealers ---------------------------------------

    def _on_hold(self, sender: bytes, hold: Hold, now: float) -> None:
        config = decode_room_config(hold.election)
        me = self.identity.public_key
        if config is None or config.sealer != sender:
            self._floods.note("hold-bad", "ignored a hold not made by its sender", now)
            return
        if not any(voter.key == me and voter.dealer for voter in config.voters):
            self._floods.note("hold-bad", "ignored a hold that does not name this dealer", now)
            return
        if peer_id(sender) not in self.trusted:
            why = f"ignored a hold from {fingerprint(sender)}: not a dealer this one trusts"
            self._floods.note("hold-untrusted", why, now)
            return
        if hold.code in self.held or hold.code in self.rooms:
            return  # a copy
        if self.busy >= self.max_rooms or self._stopping:
            self._floods.note("hold-full", f"could not hold room {hold.code}: full", now)
            return
        unheard = sum(
            1 for held in self.held.values() if not held.voter.replica.authority_known.is_set()
        )
        if unheard >= MAX_UNHEARD_HOLDS:
            why = f"{unheard} rooms held wait for their authority"
            self._floods.note("hold-unheard", f"could not hold room {hold.code}: {why}", now)
            return
        broker = parse_broker(hold.broker)
        if broker is None or broker not in ((self.host, self.port), *self.alternates):
            # A room's dealers meet on its broker (their presences are
            # there): a Hold naming another address is not followed there,
            # or anyone could have this dealer connect wherever they say.
            broker = (self.host, self.port)
        held = self._hold(hold.code, config, hold.election, broker, hold.room_key)
        if held is not None:
            log.info("room %s: holds it for dealer %s", hold.code, self._dealer_name(sender))
            why = f"no authority was heard in {REHOLD_WAIT:g} s: no game is played there"
            spawn(self._until_heard(held, why), f"room {hold.code}'s authority")

    def _hold(
        self,
        code: str,
        config: Config,
        election: bytes,
        broker: tuple[str, int],
        room_key: bytes,
    ) -> HeldRoom | None:
        """Vote and stand in room ``code`` (its voter file in
        ``held_dir``: a restart votes again from it). None when another
        process votes with this dealer's key in it (two dealers started
        with one key and one directory): one vote per key."""
        try:
            voter = self._voter(code, config, election, broker)
        except VoterBusy as busy:
            log.warning("%s: not held here", busy)
            return None
        held = self.held[code] = HeldRoom(code, config, voter, room_key)
        if self._link is not None:
            self._link.subscribe(authority_topic(code))
        spawn(voter.start(), f"the voter of room {code}")
        self._changed()
        return held

    def _voter(
        self, code: str, config: Config, election: bytes, broker: tuple[str, int]
    ) -> SeatVoter:
        return SeatVoter(
            self.identity,
            code,
            config,
            election,
            *broker,
            seat_name=lambda: self.name,
            dealer=True,
            room_key=lambda: self._held_key(code),
            over=lambda: self.held.get(code) is None,
            advertise=self.advertise,
            on_table=lambda authority: self._took_over(code, authority),
            cluster=((self.host, self.port), *self.alternates),
            directory=self.held_dir,
        )

    async def resume_held(self) -> None:
        """The rooms this dealer held for other dealers when its process
        ended, and those it made whose tables moved to another dealer: it
        votes and stands in each again from its voter file (its log and its
        term as they were), so that the room keeps the dealers that can
        take its table. A room in which no authority is
        heard within ``REHOLD_WAIT`` (its game ended meanwhile, and its
        release was sent while this dealer was away) is let go, its file
        with it."""
        directory = self.held_dir
        if directory is None or not directory.is_dir():
            return
        suffix = f"-{self.identity.peer_id}.vote"
        me = self.identity.public_key
        for path in sorted(directory.glob(f"*{suffix}")):
            code = path.name[: -len(suffix)]
            if code in self.rooms or code in self.held:
                continue
            valid = set(code) <= set(ALPHABET) and len(code) == CODE_LENGTH
            election = stored_election(code, self.identity, directory) if valid else None
            config = decode_room_config(election) if election is not None else None
            if (
                election is None
                or config is None
                or not any(voter.key == me and voter.dealer for voter in config.voters)
            ):
                log.warning("room %s: its voter file here is not one of a held room: removed", code)
                with contextlib.suppress(OSError):
                    path.unlink()
                continue
            if self.busy >= self.max_rooms:
                log.warning("room %s: not held again: this dealer is full", code)
                continue
            held = self._hold(code, config, election, (self.host, self.port), b"")
            if held is None:
                continue
            log.info(
                "room %s: holds it again (term %d in its voter file)", code, held.voter.replica.term
            )
            self._event("holds_again", code=code, term=held.voter.replica.term)
            why = f"no authority was heard in {REHOLD_WAIT:g} s: its game is over"
            spawn(self._until_heard(held, why), f"room {code}'s authority")

    async def _until_heard(self, held: HeldRoom, why: str) -> None:
        """``held`` let go (for ``why``) unless its room's authority
        (another dealer, or this one elected) is heard from within
        REHOLD_WAIT; once its log holds the authority's whole log, said so."""
        replica = held.voter.replica
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(REHOLD_WAIT):
                await replica.authority_known.wait()
        if self.held.get(held.code) is not held:
            return
        if not replica.authority_known.is_set():
            await self._let_go(held, why)
            self._event("let_go", code=held.code, why=why)
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(REHOLD_WAIT):
                await replica.driver.in_step.wait()
                log.info("room %s: this dealer's log is in step again", held.code)
                self._event("in_step", code=held.code, term=replica.term)

    def _held_key(self, code: str) -> bytes | None:
        held = self.held.get(code)
        return held.room_key if held is not None and held.room_key else None

    def _dealer_name(self, key: bytes) -> str:
        known = self.dealers.get(key)
        return known.name if known is not None else peer_id(key)

    def _took_over(self, code: str, authority: Authority) -> None:
        authority.name_dealer(self.name, self.identity)
        held = self.held.get(code)
        # The person who asked for the room stays its host (they were
        # "for DY" in the status, and the room "hosted by" its dealer).
        if held is not None and held.voter.former_host:
            authority.host_name = held.voter.former_host
        room = DealtRoom(code, authority.game_id, authority.host_name, authority, taken=True)
        kept = self._dealt_as(code, authority)
        if kept is not None:
            # Asked for on screen: its owner still decides who sits and
            # opens its next game here, whose lobby fills as the first's.
            room.kept = msgspec.structs.replace(kept, replicated=True)
            authority.allowed_keys = frozenset(kept.admit)
            authority.admission = admission_rule(kept.admit, kept.owner)
            if kept.owner:
                self._owned_by(room, kept.owner)
        self.rooms[code] = room
        self._event("took_over", code=code, term=held.voter.replica.term if held else 0)
        self._changed()
        room.task = spawn(self._run_to_end(room), f"room {code}")

    @staticmethod
    def _dealt_as(code: str, authority: Authority) -> KeptRoom | None:
        """How room ``code``, taken over, was asked for, from its log (None:
        a log of an earlier Passe, or one that does not say it readably)."""
        if not authority.dealt_as:
            return None
        try:
            return decode_kept(authority.dealt_as, code, where=f"room {code}'s log")
        except KeptRoomError as error:
            log.warning("%s: its owner is not known here", error)
            return None

    def _on_release(self, sender: bytes, release: Release) -> None:
        held = self.held.get(release.code)
        if held is None:
            return
        if not any(v.key == sender and v.dealer for v in held.config.voters):
            return
        spawn(self._let_go(held, "its game is over"), f"room {release.code}'s release")

    async def _set_aside(self, held: HeldRoom) -> None:
        """This dealer stops: ``held``'s voter closes and its file stays, so
        that the dealer holds the room again when it starts again
        (resume_held). Let go for good, its share would be lost to the room
        until its end: with three dealers (threshold two), the death of the
        one running the table would then leave a single share, and nobody
        could take the table. Without a directory of its own (an in-process
        dealer), let go."""
        if self.held_dir is None:
            await self._let_go(held, "this dealer stops")
            return
        if self.held.get(held.code) is not held:
            return
        if held.code not in self.rooms:
            await held.voter.close()  # still in self.held: its file is kept
        self.held.pop(held.code, None)
        held.released = True
        if self._link is not None:
            self._link.unsubscribe(authority_topic(held.code))
        log.info("room %s: held again when this dealer starts again", held.code)

    async def _let_go(self, held: HeldRoom, why: str) -> None:
        if self.held.pop(held.code, None) is None:
            return
        held.released = True
        if self._link is not None:
            self._link.unsubscribe(authority_topic(held.code))
        if held.code not in self.rooms:
            await held.voter.close()
            log.info("room %s: no longer held here (%s)", held.code, why)
        self._changed()

    # -- handing over --------------------------------------------------------

    async def _hand_over(self, room: DealtRoom) -> None:
        """Stop running ``room``'s table: another dealer that holds it takes
        it (its log brought up to date first, then an election this
        dealer's voter lets happen); a room nobody holds closes."""
        authority = room.authority
        replica = authority.replica
        config = decode_room_config(authority.election) if authority.election else None
        # The other dealers that hold it and are online now: only they can
        # take it. One gone already could not, and the table fell silent for
        # a hand-over nobody took, its people never told (a play-test: the
        # table had moved here from a dealer stopped before).
        others = (
            [
                v.key
                for v in config.voters
                if v.dealer and v.key != self.identity.public_key and v.key in self.dealers
            ]
            if config is not None
            else []
        )
        # Taken over here, no other dealer online: it waits for this
        # dealer, whose voter's file holds it (set aside as the dealer
        # stops, held again when it starts: resume_held).
        waits = replica is not None and not others and room.taken
        # Made here, nobody else able to run it: kept as a host keeps its
        # room on SIGTERM, to be resumed.
        kept = (
            (replica is None or not others)
            and room.kept is not None
            and room.hosted is not None
            and self.rooms_dir is not None
        )
        if authority.phase == "playing" and (waits or kept):
            log.info(
                "room %s: %s as this dealer stops (no other dealer %s): it goes on when "
                "this dealer starts again with the same data directory",
                room.code,
                "waits for it" if waits else "kept",
                "online to take it" if waits else "holds it",
            )
            self._event("kept", code=room.code)
            if room.task is not None:
                room.task.cancel()
            self.rooms.pop(room.code, None)
            # Its table goes saying so: its people see the dealer away.
            if room.hosted is not None:
                await room.hosted.close(keep=True)
            else:
                await authority.close(keep=True)
            return
        if replica is None or not others or authority.phase != "playing":
            why = "in its lobby" if authority.phase == "lobby" else "no other dealer holds it"
            log.info("room %s: closed as this dealer stops (%s)", room.code, why)
            self._event("closed", code=room.code, why=why)
            await self._close(room)
            return
        if room.task is not None:
            room.task.cancel()
        authority.hand_over()
        node = replica.driver.node
        deadline = time.monotonic() + HANDOVER_WAIT
        while not any(node.caught_up(key) for key in others) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # each heartbeat brings the others' logs closer
        term = replica.term
        replica.driver.abdicate()
        while replica.term == term and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # the election happens with this voter's vote
        if replica.term > term:
            log.info("room %s: handed to term %d's dealer", room.code, replica.term)
            self._event("handed", code=room.code, term=replica.term)
        else:
            log.warning("room %s: no dealer took it within %g s", room.code, HANDOVER_WAIT)
        self.rooms.pop(room.code, None)
        await replica.close()
        if room.hosted is not None:
            await room.hosted.close(keep=True)

    # -- status --------------------------------------------------------------

    def status(self, *, running: bool = True) -> dict[str, Any]:
        rooms = []
        for room in self.rooms.values():
            authority = room.authority
            rooms.append(
                {
                    "code": room.code,
                    "game": room.game,
                    "for": room.asker,
                    "phase": authority.phase,
                    "role": "runs (taken over)" if room.taken else "runs",
                    "seats": [slot.name if slot.kind != "open" else "" for slot in authority.seats],
                    "term": authority.replica.term if authority.replica is not None else 0,
                }
            )
        for held in self.held.values():
            if held.code not in self.rooms:
                sealer = held.config.sealer
                maker = self.dealers.get(sealer)
                name = self.name if sealer == self.identity.public_key else None
                name = name or (maker.name if maker else fingerprint(sealer))
                rooms.append(
                    {
                        "code": held.code,
                        "role": "holds",
                        "term": held.voter.replica.term,
                        "phase": "playing",
                        # Whose table it stands ready to take: the dealer that made it.
                        "for": f"dealer {name}",
                    }
                )
        return {
            "pid": os.getpid(),
            "running": running,
            "name": self.name,
            "key": fingerprint(self.identity.public_key),
            "broker": f"{self.host}:{self.port}",
            "shown": self.shown,
            "since": self.started_at,
            "max_rooms": self.max_rooms,
            # Each by its key too (anyone may take a dealer's name), and
            # whether this one shares rooms with it (--trust).
            "dealers": sorted(
                f"{d.name} ({fingerprint(key)}"
                + (", trusted)" if peer_id(key) in self.trusted else ")")
                for key, d in self.dealers.items()
                if d.online
            ),
            "trusts": len(self.trusted),
            "rooms": rooms,
            "refused": dict(self._floods.counts),
        }

    def _status_soon(self) -> None:
        """The status file, written at once after a quiet while, else once
        STATUS_INTERVAL has passed since the last write (changes meanwhile
        are all in that one write)."""
        if self.state_dir is None or self._status_pending:
            return
        if not loop_running():
            self._write_status()
            return
        self._status_pending = True
        wait = self._status_written_at + STATUS_INTERVAL - time.monotonic()
        loop = asyncio.get_running_loop()
        if wait > 0:
            loop.call_later(wait, self._pending_status)
        else:
            loop.call_soon(self._pending_status)

    def _pending_status(self) -> None:
        self._status_pending = False
        if not self._stopping:  # stop() writes the last one
            self._write_status()

    def _write_status(self, *, running: bool = True) -> None:
        if self.state_dir is None:
            return
        self._status_written_at = time.monotonic()
        with contextlib.suppress(OSError):
            self.state_dir.mkdir(parents=True, exist_ok=True)
            # msgspec's encoder in C: json.dumps with an indent is the pure
            # Python one, 1.7 ms a write at 100 rooms (0.08 ms here), on
            # the loop every room's moves wait for (bench/dealer.py).
            encoded = msgspec.json.encode(self.status(running=running))
            text = msgspec.json.format(encoded, indent=1).decode()
            write_atomic(self.state_dir / STATUS_FILE, text, durable=False)


def admission_rule(admit: Sequence[str], owner: bytes) -> str:
    """Who sits in a dealer's room (net/authority/authority.py's ADMIT_*):
    the keys listed, else whom its owner lets in, else anyone."""
    return ADMIT_KEYS if admit else (ADMIT_ASK if owner else ADMIT_ANY)


def _options(deal: Deal) -> dict[str, object]:
    """The game options a Deal carries as text, typed (the asker wrote them
    with ``core.engine.option_to_text``, or by hand)."""
    return {name: option_from_text(text) for name, text in deal.options.items()}


def _someone_sat(authority: Authority) -> bool:
    return any(slot.kind == HUMAN for slot in authority.seats)


__all__ = ["DEFAULT_MAX_ROOMS", "STATUS_FILE", "Dealer", "DealtRoom", "HeldRoom"]
