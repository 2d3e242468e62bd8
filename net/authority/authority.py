"""The authority: the one process that holds a room's table and deck.

It publishes the room's public state (retained, signed), seats peers by the
key that asked, validates every request (signature, seal, room, nonce, seat,
then the core engine) and sends each seated peer its own view and log, sealed
to that peer's key. Every refusal goes back to its sender only, with a reason;
nothing refused changes the state. See ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import os
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from nacl.signing import SigningKey

from core.engine import Config, Event, IllegalAction
from core.registry import get_game
from net.authority.replication import (
    MIN_STANDING,
    MIN_VOTERS,
    RoomReplica,
    can_fail_over,
    close_quietly,
    dealers_can_fail_over,
    encode_room_config,
    loop_running,
    make_room_config,
    maker_vote_path,
    spawn,
)
from net.authority.rooms import (
    FORMAT_VERSION,
    BrokerChoice,
    NonceMark,
    RoomStore,
    SavedRoom,
    SavedSeat,
)
from net.authority.table import BOT_NAMES, HUMAN, SeatSpec, Table
from net.election.driver import (
    authority_topic,
    broker_text,
    parse_broker,
    voter_presence_topic,
)
from net.identity import Identity, fingerprint, peer_id
from net.lan.transport import LastWill, MqttLink, first_of, stop_task
from net.protocol.bounds import FloodLog, Gate, Outbox, Rate, SenderLimits
from net.protocol.codec import GameCodec, codec_for
from net.protocol.codes import format_code, normalize_code
from net.protocol.text import NAME_CELLS, clean_name, clean_text, name_key
from net.protocol.wire import (
    MAX_PAYLOAD,
    STOOD_IN_SPANS,
    Act,
    Admit,
    Again,
    EntryAt,
    Envelope,
    FailoverOutlook,
    Hello,
    Knocking,
    Knocks,
    Leave,
    NextRoom,
    PeerMessage,
    Refused,
    RoomState,
    SeatState,
    Span,
    StartNow,
    Sync,
    Update,
    VoterBroker,
    Watch,
    Watched,
    Watchers,
    Welcome,
    WireError,
    dealt_proof,
    next_presence_epoch,
    next_topic,
    open_body,
    open_envelope,
    peer_message_decoder,
    presence_decoder,
    presence_topic,
    room_prefix,
    room_topic,
    seal,
    sealed_presence,
    short_text,
    to_peer_topic,
    topic_peer,
    watchers_topic,
)

log = logging.getLogger("passe.authority")


class RoomLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """The authority's log lines, each starting with its room's code."""

    def process(self, msg: Any, kwargs: Any) -> tuple[Any, Any]:
        assert self.extra is not None
        return f"room {self.extra['code']}: {msg}", kwargs


LOBBY, PLAYING, OVER, CLOSED = "lobby", "playing", "over", "closed"
OPEN, BOT = "open", "bot"
# A player who quits mid-game is replaced by this bot, so the others can finish.
REPLACEMENT_BOT = "heuristic"
# Seconds a finished room waits for its broker link, when it is down, to
# publish the result before it closes (at most: the wait ends as soon as the
# link is up, or closed for good, as by an earlier close of the same room).
FINAL_WAIT = 15.0
# Seconds a game's start waits for the seated people's standby brokers (an
# embedded broker's process each: 0.1-0.5 s; an earlier Passe names none).
STANDBY_WAIT = 5.0

# What a sender can make the authority spend (issue 19 items 3, 4, 8;
# docs/protocol.md, "Bounds"). Before any decoding or signature check, by
# the peer id in the topic: a key that holds no seat (a stranger, a joiner)
# gets little, and all strangers together a bounded share; a seated key,
# whose messages may also be replays of its captured ones (refused as
# stale), gets more, so that a replay flood does not silence its owner.
STRANGER_RATE = Rate(messages=4, message_burst=8, bytes=16 * 1024, byte_burst=32 * 1024)
STRANGERS_RATE = Rate(messages=40, message_burst=80, bytes=256 * 1024, byte_burst=512 * 1024)
SEATED_RATE = Rate(400, 400, 2 * MAX_PAYLOAD, 2 * MAX_PAYLOAD)
# No request or presence a peer sends comes near this (a Hello, the
# largest, is under 300 bytes sealed): anything bigger on a request or
# presence topic is junk, dropped before any budget is charged, so that
# 256 KiB bombs on a seated key's topic never spend its owner's budget of
# bytes (the mixed flood of issue 19 silenced the peer's requests so, each
# asked again 2 s later: the move p99's outliers).
MAX_REQUEST_PAYLOAD = 4 * 1024
# Exact copies of a seated key's own signed requests (a passive replay
# flood, issue 19 item 4) are known by their digest, the latest this many
# per key: answered as stale (once per interval) without a signature check
# and without charging the key's budget, which stays for its owner.
KNOWN_REQUESTS = 256
SEATED_TOTAL_RATE = Rate(1600, 1600, 8 * MAX_PAYLOAD, 8 * MAX_PAYLOAD)
# Requests acted on (signed, fresh nonce) per key: a person sends one or two
# a second, a bot peer without delay a few dozen; Hellos (each a room-state
# broadcast and a flushed save; an honest peer sends one per reconnection,
# again after 2 s) fewer: a seated peer's Hello flood is cut to this.
REQUEST_RATE = Rate(messages=40, message_burst=80, bytes=64 * 1024, byte_burst=128 * 1024)
HELLO_RATE = Rate(messages=2, message_burst=6, bytes=16 * 1024, byte_burst=32 * 1024)
# An answer carrying more than this many events of a seat's log (a full log)
# goes to one key at most once per LOG_ANSWER_INTERVAL seconds; an honest
# peer asks again only after 2 s (docs/protocol.md, section 6).
LOG_ANSWER_EVENTS = 64
LOG_ANSWER_INTERVAL = 1.0
# Peer records (nonce marks, presence epochs) of keys that hold no seat.
MAX_STRANGERS = 256
# Keys that held a seat and gave it up (a Leave) whose nonce marks are still
# saved, the latest ones: a replay of their requests after a restart is
# refused as stale, not taken as a new join.
MAX_FORMER = 16
# An update whose body is larger than this is sent in pages (same seq and
# view, consecutive bases), each within the 256 KiB payload limit.
PAGE_BYTES = 160 * 1024
# The seat that acted gets its update before the change commits, and counts
# the voters that hold it itself (docs/election.md section 12); "0": only
# once committed, a broker hop later (bench/net.py's A/B).
EARLY_UPDATES = os.environ.get("PASSE_EARLY_UPDATES", "1") != "0"

# Who sits is the host's decision (issue 19 item 2; docs/protocol.md, "Who
# sits"): "ask" (a new key knocks, the host lets it in or not: a host with a
# screen), "keys" (only listed keys: allowed_keys), "any" (every new key
# while seats are free: a headless host's default, made safe by seats that
# count only with a live presence).
ADMIT_ANY, ADMIT_KEYS, ADMIT_ASK = "any", "keys", "ask"
ADMISSIONS = (ADMIT_ANY, ADMIT_KEYS, ADMIT_ASK)
MAX_KNOCKS = 8  # knocks waiting for the host at once; more are refused
# Keys the host expects, typed as their owner reads them aloud (the first
# EXPECT_DIGITS hex digits of the fingerprint or more): a knock queue filled
# by strangers' fresh keys cannot keep them out (found by hand, issue 19).
# 32 bits: a stranger who overheard them must still grind ~2^31 keys.
MAX_EXPECTED = 8
EXPECT_DIGITS = 8
KNOCK_TTL = 300.0  # seconds a knock waits for the host's answer
# Seconds a new key's seat may go without a live presence before anyone
# else who asks may have it (an honest peer publishes its presence before
# its Hello, so it shows within milliseconds).
PROVISIONAL_GRACE = 3.0
MAX_WARNED = 16  # foreign keys warned about, per room
OWN_RETAINED_KEPT = 16  # our latest retained messages, known by their echo
# A new key's Hello waits for its live presence before it takes a seat or
# knocks (issue 19 seats items 1, 2): its presence is followed meanwhile,
# for at most this many keys at once (the oldest forgotten first) and this
# many seconds. An honest peer's presence is retained before its Hello, so
# it arrives one subscription later (milliseconds); a flood of fresh keys
# with none never sits, so it cannot fill the seats an honest joiner needs.
MAX_CANDIDATES = 32
CANDIDATE_WAIT = 10.0
# Keys heard once (a flood's fresh keys are) become candidates at most this
# often, a subscription and an unsubscription each; a key that asked again
# (an honest joiner does, net/peer/remote.py) is not held to it. Measured: with
# one subscription per fresh key, 40 a second, the host's subscriptions
# waited behind hundreds of others for seconds (issue 19 seats item 1).
NEW_CANDIDATES = Rate(messages=10, message_burst=20, bytes=2**40, byte_burst=2**40)
# Strangers' messages past their total budget (a flood of fresh keys, each
# sending once) still pass within a second budget when their peer id was
# heard before, in the last MAX_HEARD stranger ids (issue 19 seats item 1): an
# honest joiner, which sends its Hello again when unanswered, gets in; the
# one-shot keys of the flood never draw on it.
RETURNING_RATE = Rate(messages=1, message_burst=4, bytes=16 * 1024, byte_burst=32 * 1024)
RETURNING_TOTAL_RATE = Rate(messages=20, message_burst=40, bytes=128 * 1024, byte_burst=256 * 1024)
MAX_HEARD = 8192
# Presence messages of keys followed while they wait (candidates, knocks).
FOLLOWED_RATE = Rate(messages=4, message_burst=8, bytes=16 * 1024, byte_burst=32 * 1024)
FOLLOWED_TOTAL_RATE = Rate(messages=200, message_burst=200, bytes=1 << 20, byte_burst=1 << 20)
REPUBLISH_GAP = 1.0  # seconds between two republications after a foreign state
# Seconds a table that starts watching who is away (a table taken over)
# waits for the presences before it says whose bots are coming.
AWAY_SETTLE = 5.0
# Spectators (issue 21; docs/protocol.md, "Watching"). Each watcher costs
# the authority one sealed update per accepted action (a seal and a
# publish, about 0.1 ms here) and one followed presence: 8 of them cost
# about what two more seats do, so watchers never slow the players. The
# 9th is refused in words.
MAX_WATCHERS = 8
# A watcher keeps its place while its presence is online and it was heard
# (its presence beats every 15 s, net/peer/remote.py, or a request) within this
# many seconds; a will, a "gone" or silence frees the place.
WATCH_LEASE = 45.0
# Watchers are keys without a seat: each gets a stranger's budget, and all
# of them together a bounded one, apart from the strangers' total (a flood
# of fresh keys does not silence the watchers, nor they the joiners).
WATCHERS_RATE = Rate(
    messages=MAX_WATCHERS * 4,
    message_burst=MAX_WATCHERS * 8,
    bytes=MAX_WATCHERS * 16 * 1024,
    byte_burst=MAX_WATCHERS * 32 * 1024,
)


def key_prefix(typed: str) -> str:
    """The hex digits of a key's fingerprint as a person reads it aloud
    ("8ef4-36c2", "8EF4 36C2 F69D"): ValueError, in words, for what cannot
    be the start of one (Authority.expect)."""
    prefix = "".join(typed.split()).replace("-", "").lower()
    if not EXPECT_DIGITS <= len(prefix) <= 16 or not all(c in "0123456789abcdef" for c in prefix):
        raise ValueError(
            f"type at least the first {EXPECT_DIGITS} characters of their key "
            "(0-9 and a-f, e.g. 8ef4-36c2)"
        )
    return prefix


@functools.cache
def passe_version() -> str:
    """The installed Passe's version, as ``passe --version`` prints it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("passe")
    except PackageNotFoundError:
        return "0+unknown"


@dataclass
class SeatSlot:
    name: str
    kind: str = OPEN  # open, human or bot
    # A bot's level; for a person's seat, the level of the bot playing for
    # them while they are away (the host's choice), "" when they play.
    level: str = ""
    key: bytes | None = None  # the public key of the person holding it
    # Only from a live presence of the key (never from a Hello alone: two
    # Hellos from fresh keys froze a room, issue 19 item 2).
    present: bool = False
    replaced: bool = False  # a bot playing on for a person who left
    # A seat held by a bot process elsewhere (`passe join --bot`): its level.
    # Bound to its key like a person's; listed as a bot (issue 18 item 9).
    plays: str = ""
    since: float = 0.0  # when it was taken (monotonic)
    # A person's seat: the spans of their log (start, end; end None while it
    # plays) in which a bot played for them (stand_in), the latest
    # STOOD_IN_SPANS: their log then says "Your bot plays", not "You play".
    stood_in: list[tuple[int, int | None]] = field(default_factory=list)

    def public(self) -> SeatState:
        remote_bot = self.kind == HUMAN and bool(self.plays)
        return SeatState(
            self.name,
            BOT if remote_bot else self.kind,
            self.plays if remote_bot else self.level,
            peer_id(self.key) if self.key is not None else "",
            self.present if self.kind == HUMAN else self.kind == BOT,
            self.replaced,
        )


@dataclass
class _PeerRecord:
    last_nonce: tuple[int, int] = (-1, -1)
    presence_epoch: int = -1
    online: bool = False
    name: str = ""
    ever_online: bool = False  # a live presence was seen once
    heard: float = float("-inf")  # when a presence or request of it last came (monotonic)
    # The standby broker its presence names (a seat in a lobby whose room
    # says ``standby``): in the game's first state, so that everyone knows
    # where to go if the host's machine dies in the game's first second.
    broker: tuple[str, int] | None = None


@dataclass
class Knock:
    """A new key asking for a seat, waiting for the host's answer."""

    key: bytes
    name: str
    seat: int | None
    n: int
    bot: bool
    at: float  # monotonic

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


@dataclass
class Authority:
    """A room's authority, for one game. Lobby controls (:meth:`set_bot`,
    :meth:`start_game`) are called in-process by the host."""

    identity: Identity
    code: str
    game_id: str
    config: Config
    host_name: str
    broker_host: str
    broker_port: int
    # The other nodes of the broker's cluster, tried in order when it cannot
    # be reached (issue 20; net/lan/transport.py).
    broker_alternates: tuple[tuple[str, int], ...] = ()
    # The other nodes of the broker's cluster (given: docs/scale.md), kept
    # in ``broker_alternates`` before the room's standby brokers.
    cluster: tuple[tuple[str, int], ...] = ()
    seed: int = field(default_factory=lambda: secrets.randbits(62))
    bot_delay: float = 0.6
    app_version: str = ""
    seats: list[SeatSlot] = field(default_factory=list)
    phase: str = LOBBY
    table: Table | None = None
    seq: int = 0
    on_change: list[Callable[[], None]] = field(default_factory=list)
    _peers: dict[bytes, _PeerRecord] = field(default_factory=dict)
    # Per seat, each event as msgpack (GameCodec.encode_event_raw).
    _logs: dict[int, list[msgspec.Raw]] = field(default_factory=dict)
    _link: MqttLink | None = None
    _outbox: Outbox | None = None
    _outbox_ready: asyncio.Event = field(default_factory=asyncio.Event)
    _outbox_idle: asyncio.Event = field(default_factory=asyncio.Event)
    _sender: asyncio.Task[None] | None = None
    _stamp: int = 0
    _salt: bytes = field(default_factory=lambda: os.urandom(16))
    _epoch: int = field(default_factory=lambda: time.time_ns() // 1_000_000)
    _notice: str = ""
    _over: asyncio.Event = field(default_factory=asyncio.Event)
    # Where the room is kept after every accepted change (None: in memory only).
    store: RoomStore | None = None
    _unsaved: bool = False  # a request's nonce mark not yet on disk
    _live: bool = False  # connected once: closing it then ends the room for good
    # Seconds a person may be away mid-game before a bot plays for them
    # (None: only when the host says so, with stand_in); see watch_away.
    stand_in_after: float | None = None
    _away_timers: dict[int, asyncio.TimerHandle] = field(default_factory=dict)
    # The seats whose going was said ("Kim is away: a bot plays for them in
    # 30 s"): their coming back before the bot is said too.
    _said_away: set[int] = field(default_factory=set)
    _away_settle: asyncio.TimerHandle | None = None  # watch_away's notice, due
    # The broker its link tries first (then its list from the top): a table
    # taken over starts where its voters elected it (net/peer/failover.py).
    start_at: tuple[str, int] | None = None
    # Seats whose person had not had the room's last state (over, or closed)
    # when it went out, nor came back while the host was there: its retained
    # messages stay on the broker for them (docs/protocol.md, "What stays on
    # the broker"; issue 18.10). None before the end.
    _missed: set[int] | None = None
    # Keys told by other means (the person at the host's own machine).
    told_keys: set[bytes] = field(default_factory=set)
    # Whether closing for good clears this room's retained messages when
    # nobody needs them; the next game's room does it instead (net/authority/host.py).
    clear_on_close: bool = True
    # Retained topics of earlier rooms at this table, cleared when this one
    # closes for good (their ends were had by everyone).
    also_clear: list[str] = field(default_factory=list)
    # Bounds (docs/protocol.md, "Bounds"); their clock is time.monotonic.
    clock: Callable[[], float] = time.monotonic
    _strangers: SenderLimits = field(
        default_factory=lambda: SenderLimits(STRANGER_RATE, STRANGERS_RATE, max_senders=1024)
    )
    _seated_limits: SenderLimits = field(
        default_factory=lambda: SenderLimits(SEATED_RATE, SEATED_TOTAL_RATE, max_senders=64)
    )
    _requests: SenderLimits = field(
        default_factory=lambda: SenderLimits(
            REQUEST_RATE, Rate(10_000, 10_000, 2**40, 2**40), max_senders=1024
        )
    )
    _hellos: SenderLimits = field(
        default_factory=lambda: SenderLimits(
            HELLO_RATE, Rate(10_000, 10_000, 2**40, 2**40), max_senders=1024
        )
    )
    _log_answers: Gate = field(default_factory=lambda: Gate(LOG_ANSWER_INTERVAL))
    # Per seated peer id: the digests of its latest signed requests, with
    # what they opened to (KNOWN_REQUESTS).
    _known_requests: dict[str, OrderedDict[bytes, tuple[Envelope, PeerMessage]]] = field(
        default_factory=dict
    )
    _former: dict[bytes, None] = field(default_factory=dict)  # oldest first
    _floods: FloodLog = field(init=False)
    # Admission (see ADMIT_*): the rule, the keys a "keys" rule lets in (peer
    # ids), the keys let in (never asked again in this room), the keys the
    # host took out, and the knocks waiting for the host, oldest first.
    admission: str = ADMIT_ANY
    allowed_keys: frozenset[str] = frozenset()
    admitted: set[bytes] = field(default_factory=set)
    barred: set[bytes] = field(default_factory=set)
    knocks: dict[bytes, Knock] = field(default_factory=dict)
    expected: list[str] = field(default_factory=list)  # fingerprint prefixes, hex
    # The person who decides who sits, from their seat (a dealer's room: its
    # asker, docs/protocol.md section 14): told of the knocks (``Knocks``),
    # heard on them (``Admit``). None: the host, in this process, decides.
    owner: bytes | None = None
    _owner_told: list[Knocking] | None = None  # the knocks last sent to the owner
    # The owner left the lobby (q): nobody is left to let anyone in, and the
    # room they asked for closes, as a host's does when the host leaves (a
    # play-test's knocks waited for the lobby's timeout, fifteen minutes).
    owner_left: asyncio.Event = field(default_factory=asyncio.Event)
    # Who opens the next game when the owner asks for it (``Again``): a
    # dealer's room (net/dealer/service.py); None: nobody (a host opens its
    # own from its screen). Called once, the game over.
    on_again: Callable[[], None] | None = None
    # Who starts the game when the owner says so (``StartNow``) before
    # enough people sat: a dealer's room; None: nobody (a host starts its own).
    on_start_asked: Callable[[], None] | None = None
    # A dealer's room: how it was asked for, kept in its saves and its
    # replicated log (SavedRoom.dealt_as): opaque to the authority.
    dealt_as: bytes = b""
    _again_asked: bool = False
    _closing_notice: str = ""  # the final state's notice, if not "… closed the room"
    # Seconds a lobby seat may be held with no live presence before it is
    # freed (None: the host frees it, on screen); a bot process's seat is
    # freed as soon as its presence goes (issue 18 item 9).
    free_away_after: float | None = None
    _lobby_timers: dict[int, asyncio.TimerHandle] = field(default_factory=dict)
    # New keys' Hellos waiting for their live presence (MAX_CANDIDATES,
    # oldest first), and when each came (issue 19 seats item 1).
    # A Watch waits so too (issue 21): a flood of fresh keys watching costs
    # what a flood of Hellos does, and never takes a watcher's place.
    _candidates: dict[bytes, tuple[Hello | Watch, float]] = field(default_factory=dict)
    _returning: SenderLimits = field(
        default_factory=lambda: SenderLimits(RETURNING_RATE, RETURNING_TOTAL_RATE, max_senders=1024)
    )
    _followed_limits: SenderLimits = field(
        default_factory=lambda: SenderLimits(FOLLOWED_RATE, FOLLOWED_TOTAL_RATE, max_senders=64)
    )
    # Stranger peer ids heard lately (MAX_HEARD), with how many messages.
    _heard: OrderedDict[str, int] = field(default_factory=OrderedDict)
    _new_candidates: SenderLimits = field(
        default_factory=lambda: SenderLimits(NEW_CANDIDATES, NEW_CANDIDATES, max_senders=1)
    )
    # Seconds a seated key may go unheard (no presence record, no request)
    # and still be present (None: its presence record alone says): a
    # retained "online" with no will, from a process gone, would look
    # present for ever (issue 19 seats item 5; docs/protocol.md section 12). Peers
    # re-publish their presence every PRESENCE_BEAT seconds (net/peer/remote.py);
    # a headless host that admits any key sets it (watch_presence).
    presence_timeout: float | None = None
    _presence_watch: asyncio.TimerHandle | None = None
    # What the host should know about others publishing on this code.
    warnings: list[str] = field(default_factory=list)
    on_warning: list[Callable[[str], None]] = field(default_factory=list)
    _warned: set[bytes] = field(default_factory=set)
    # Digests of the retained messages we sent lately: their echo on our own
    # topics is known at once, without a budget or a signature check (a
    # lobby filling up published faster than a stranger's budget allows, and
    # each echo was logged as a flood and published again).
    _own_retained: deque[bytes] = field(default_factory=lambda: deque(maxlen=OWN_RETAINED_KEPT))
    _republish: asyncio.TimerHandle | None = None
    _last_republish: float = -1e9
    _closing: bool = False
    # The term of the authority this one stepped down for (issue 20).
    stepped_down: int | None = None
    _stepped_down_event: asyncio.Event = field(default_factory=asyncio.Event)
    _next_code: str | None = None
    _announced: asyncio.Event = field(default_factory=asyncio.Event)
    # Failover (issue 20; net/authority/replication.py): when on and the game starts
    # with MIN_VOTERS processes or more (this one and each seated person's),
    # every save is replicated to them, and nothing that follows from it
    # leaves before a majority holds it. ``voter_dir`` keeps this process's
    # voter file. On by default (issue 20: "on by default for 3+ people");
    # a room of fewer people's processes has no majority left after a loss
    # and does not replicate (it waits for its host, as before).
    failover: bool = True
    # Seated people who declined to stand (their Hello's ``stand``): they
    # vote and hold no share (docs/election.md, "Declining to stand").
    declined: set[bytes] = field(default_factory=set)
    voter_dir: Path | None = None
    # A dealer's room (``passe dealer``, net/dealer/): this process votes
    # with the dealer's own key (``voter_identity``; the room key signs the
    # room as always), and ``dealers`` are the other dealers that vote and
    # hold the shares with it; no player's process holds one or stands.
    # ``dealers`` None: a host's room, whose people's processes stand.
    voter_identity: Identity | None = None
    dealers: tuple[bytes, ...] | None = None
    dealer_name: str = ""  # said in the room state (RoomState.dealer)
    # The dealer's long-term key and its signature of this room as its own
    # under ``dealer_name`` (RoomState.dealer_proof): ``name_dealer``'s.
    _dealer_key: bytes = b""
    _dealer_proof: bytes = b""
    replica: RoomReplica | None = None
    _replicating: bool = False
    _barrier: int = 0  # the log index the next message waits for
    _election: bytes = b""  # the encoded config, in the room state
    # The voters run standby brokers (this room's broker dies with its
    # host: the embedded one); said in the room state.
    standby: bool = False
    _standby_news: asyncio.Event = field(default_factory=asyncio.Event)
    # Room keys of the authorities this one took over from: their retained
    # state is replaced without a warning (it is no squatter's).
    predecessors: set[bytes] = field(default_factory=set)
    # Spectators (issue 21): the keys watching (at most MAX_WATCHERS), when
    # each came (monotonic); the public log (every event as a spectator
    # may see it, encoded), and the public view of the latest seq.
    watchers: dict[bytes, float] = field(default_factory=dict)
    _public_log: list[msgspec.Raw] = field(default_factory=list)
    _public_view: tuple[int, dict[str, Any]] | None = None
    _watchers_published: bool = False  # a count went out (retained): cleared at the end
    _watch_timer: asyncio.TimerHandle | None = None
    _watcher_limits: SenderLimits = field(
        default_factory=lambda: SenderLimits(
            STRANGER_RATE, WATCHERS_RATE, max_senders=2 * MAX_WATCHERS
        )
    )

    def __post_init__(self) -> None:
        # The room state's `app` is the host's Passe version (issue 18.10).
        self.app_version = self.app_version or passe_version()
        if normalize_code(self.code) != self.code:
            raise ValueError(f"{self.code!r} is not a room code as normalize_code writes it")
        self.game = get_game(self.game_id)
        self.codec: GameCodec = codec_for(self.game)
        if not self.seats:
            self.seats = [SeatSlot(f"Seat {n + 1}") for n in range(self.config.players)]
        self.prefix = room_prefix(self.code)
        self.cluster = self.cluster or self.broker_alternates
        # Every line names the room: a dealer serves many (net/dealer/).
        self._log = RoomLog(log, {"code": self.code})
        self._floods = FloodLog(self._log)  # type: ignore[arg-type]

    @property
    def shown_code(self) -> str:
        """The room's code as people read and type it (``ABC-123``), in
        every refusal and notice they see."""
        return format_code(self.code)

    # -- life cycle ----------------------------------------------------------

    async def start(self, timeout: float | None = 5.0) -> None:
        self._outbox = Outbox()
        self._sender = asyncio.get_running_loop().create_task(self._send_loop())
        self._link = MqttLink(
            self.broker_host,
            self.broker_port,
            # The presences of seated keys only (_follow_presences), never
            # presence/+: anyone may retain thousands of records there, each
            # of which would reach this link on every (re)connection. Its own
            # room and next topics too: a state there from any other key (or
            # an empty one, which clears it) is warned about and answered by
            # publishing the room again (issue 19 item 5).
            subscriptions=[
                f"{self.prefix}/a/+",
                *self._presence_topics(),
                room_topic(self.code),
                next_topic(self.code),
            ],
            on_message=self._on_message,
            on_connect=self._on_connect,
            will=self._will,
            empty_topics=[room_topic(self.code)],
            alternates=self.broker_alternates,
        )
        # Leaving a broker of its own accord (going back down its list), the
        # table says "gone" there, as its will would: a seat left on that
        # broker read its last "online" for ever, and showed a table that
        # had gone (a test under load, CI).
        self._link.farewell = lambda: (
            presence_topic(self.code, self.identity.peer_id),
            self._presence_payload(online=False),
        )
        if self.start_at is not None:
            self._link.start_at(self.start_at)
        await self._link.start(timeout)
        # Until its state and presence are out: a room closed at once must
        # not have its "online" presence land after its "gone" one.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._announced.wait(), 30.0 if timeout is None else timeout)
        self._live = True
        if self.table is not None:  # a resumed game: its bots play on
            self.table.start()
            self._check_over()
        self._save()
        # Seats restored without a presence (a resumed room) start their
        # lobby clocks: a holder who never comes back frees the seat.
        for seat in range(len(self.seats)):
            self._lobby_presence_changed(seat)
        self.watch_presence(self.presence_timeout)  # a next game's room keeps the bound

    def _stop_timers(self) -> None:
        """Nothing more happens here by itself (closing, or stepped down)."""
        self._closing = True
        for timer in [*self._away_timers.values(), *self._lobby_timers.values()]:
            timer.cancel()
        self._away_timers.clear()
        self._lobby_timers.clear()
        if self._republish is not None:
            self._republish.cancel()
        if self._presence_watch is not None:
            self._presence_watch.cancel()
        if self._watch_timer is not None:
            self._watch_timer.cancel()
        if self._away_settle is not None:
            self._away_settle.cancel()

    async def close(self, *, keep: bool = False) -> None:
        """Close the room: the retained state says so; peers are told.
        ``keep``: only go away, as a host that died does (peers see it away),
        leaving the room on disk to be resumed."""
        self._stop_timers()
        if self.phase == OVER and not keep and self._link is not None and self._live:
            # The result (the record each peer checks the deal against) goes
            # out before the room does: a link that is down (a broker
            # restarting) gets a while to come back, and on reconnecting the
            # final room state is published (_on_connect). A link already
            # closed (the room closed before: open_next_room closes it, and
            # its owner may close it again) never comes back: no wait.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._link.wait_connected_or_closed(), FINAL_WAIT)
        if self.table is not None:
            await self.table.stop()
        if not keep:
            if self.phase != OVER or self._missed is None:
                # Closed now: told are those here to receive it.
                self._missed = self.absent_seats()
            self.phase = CLOSED if self.phase != OVER else OVER
            if self.phase == CLOSED:
                # The final state's notice says what happened last (issue 18
                # item 4: it kept an older one, such as "... left the game").
                self._notice = self._closing_notice or f"{self.host_name[:64]} closed the room"
        if self._sender is not None:
            await self._drain()
            await stop_task(self._sender)
        # The last words are made once nothing else can go out: made before
        # the drain, the final room state carried an older stamp than one
        # that a presence arriving meanwhile published (the player's "gone"
        # at the end: found by a client written from docs/protocol.md
        # alone), and it was the one retained.
        final: list[tuple[str, bytes]] = []
        # A table that moved away says nothing more (its successor's room
        # state and presences are on those topics now).
        silent = self.stepped_down is not None
        clears = self.clears() if not keep and not silent else []
        if self._link is not None and not silent:
            # "Gone" first, even when cleared next: peers connected now
            # read that the host has left the table.
            own = presence_topic(self.code, self.identity.peer_id)
            final.append((own, self._presence_payload(online=False)))
            if not keep:
                final.insert(0, (room_topic(self.code), self._room_payload()))
            # After the last state, which everyone connected receives first.
            final += [(topic, b"") for topic in clears]
        if self._link is not None:
            await self._link.close(final=final)
        await close_quietly(self.replica)
        if self.replica is not None and not keep:
            self.replica.discard()
        if self.store is not None and self._live and not keep:
            self.store.discard()  # closed or over: nothing to resume

    async def wait_over(self) -> None:
        """The game's end, once it counts: with failover on, once a majority
        of the voters holds it (an authority cut off from them may play on
        alone, its bots standing in, and reach an end nobody else ever
        sees: the chaos soak's seed 30 printed such a result)."""
        await self._over.wait()
        if self.replica is not None:
            await self.replica.wait_committed(self._barrier)

    # -- the end, and what stays on the broker (issue 18.3, 18.10) -----------

    def absent_seats(self) -> set[int]:
        """Seats of persons not here now (no live presence), but for keys
        told by other means."""
        return {
            seat
            for seat, slot in enumerate(self.seats)
            if slot.kind == HUMAN and not slot.present and slot.key not in self.told_keys
        }

    @property
    def unreached(self) -> list[str]:
        """Names of the persons who had not had the room's last state."""
        missed = self._missed if self._missed is not None else self.absent_seats()
        return [self.seats[seat].name for seat in sorted(missed)]

    @property
    def reached(self) -> list[str]:
        """Names of the persons (others than ``told_keys``) who had it."""
        missed = self._missed if self._missed is not None else self.absent_seats()
        return [
            slot.name
            for seat, slot in enumerate(self.seats)
            if slot.kind == HUMAN and seat not in missed and slot.key not in self.told_keys
        ]

    def retained_topics(self) -> list[str]:
        """Every retained topic of this room: its state, the next-game
        notice, the presences of the host, of each seated person and of the
        other keys heard (a bounded number)."""
        keys = [slot.key for slot in self.seats if slot.key is not None]
        heard = [key for key, record in self._peers.items() if record.presence_epoch >= 0]
        ids = dict.fromkeys([self.identity.peer_id, *map(peer_id, keys), *map(peer_id, heard)])
        presences = [presence_topic(self.code, each) for each in list(ids)[: 1 + 16 + 64]]
        watching = [watchers_topic(self.code)] if self._watchers_published else []
        return [
            room_topic(self.code),
            next_topic(self.code),
            *watching,
            *presences,
            *self._election_topics(),
        ]

    def _election_topics(self) -> list[str]:
        """A room that failed over (or could): its authority's announcement
        and its voters' presences, retained too. Left behind, a host back
        after its table moved and the game ended there found an
        announcement and no room, and waited MOVE_WAIT (20 s) for a state
        that never came (net/peer/remote.py, _between_authorities)."""
        if self.replica is None:
            return []
        voters = self.replica.driver.node.voters
        return [
            authority_topic(self.code),
            *(voter_presence_topic(self.code, peer_id(voter)) for voter in voters),
        ]

    def clears(self) -> list[str]:
        """What closing for good clears now: this room's retained messages
        when everyone had its last state, and earlier rooms' at the table."""
        own = self.retained_topics() if self.clear_on_close and not self._missed else []
        return list(dict.fromkeys([*own, *self.also_clear]))

    # -- on disk (net/authority/rooms.py) ---------------------------------------------

    def _save(self, *, durable: bool = True, notify: bytes | None = None) -> None:
        """Keep the room's file current (synchronously: before anything
        that follows from the change is sent); remove it once it is over.
        ``durable=False`` (each move, each request's nonce): kept through a
        crash of this process, not flushed to the disk (net/authority/rooms.py).
        ``notify``: the voter key of the seat whose action this save holds
        (RoomReplica.record)."""
        self._unsaved = False
        # One snapshot for both (it copies the whole record: two made a
        # tenth of a replicated move's work at the authority, profiled).
        replicate = self.replica is not None and self._replicating
        keep = self.store is not None and self._live and self.phase not in (OVER, CLOSED)
        snapshot = self.snapshot(self._broker_choice()) if replicate or keep else None
        if self.replica is not None and snapshot is not None and replicate:
            index = self.replica.record(snapshot, notify=notify)
            self._barrier = max(self._barrier, index)
        if self.store is None or not self._live:
            return
        if snapshot is not None and keep:
            self.store.save(snapshot, durable=durable)
        else:
            self.store.discard()

    def _broker_choice(self) -> BrokerChoice:
        if self.store is not None:
            return self.store.broker
        return BrokerChoice(False, self.broker_host, self.broker_port)

    def snapshot(self, broker: BrokerChoice) -> SavedRoom:
        """The room as :meth:`restore` takes it back."""
        return SavedRoom(
            version=FORMAT_VERSION,
            code=self.code,
            game=self.game_id,
            config=self.config.to_data(),
            host_name=self.host_name,
            authority_key=bytes(self.identity.signing_key),
            seed=self.seed,
            salt=self._salt,
            phase=self.phase,
            seats=[
                SavedSeat(
                    seat.name,
                    seat.kind,
                    seat.level,
                    seat.key,
                    list(seat.stood_in),
                    replaced=seat.replaced,
                )
                for seat in self.seats
            ],
            actions=list(self.table.record().actions) if self.table is not None else [],
            seq=self.seq,
            stamp=self._stamp,
            epoch=self._epoch,
            # Only seated keys' marks (issue 19 item 3): a key with no seat
            # can do nothing a replay of its requests would repeat, and a
            # flood of fresh keys once made every journal entry longer.
            nonces=[
                NonceMark(key, *record.last_nonce)
                for key, record in self._peers.items()
                if record.last_nonce >= (0, 0)
                and (key in self._former or self._seat_of(key) is not None)
            ],
            bot_delay=self.bot_delay,
            broker=broker,
            dealt_as=self.dealt_as,
        )

    @classmethod
    def restore(
        cls,
        saved: SavedRoom,
        broker_host: str,
        broker_port: int,
        *,
        store: RoomStore | None = None,
        bot_delay: float | None = None,
        app_version: str = "",
    ) -> Authority:
        """The room ``saved`` (checked by :func:`net.authority.rooms.load_room`), as it
        was: same key, seed, commitment, seats, record, counters and nonce
        marks, so that peers see it carry on with nothing new to learn."""
        game = get_game(saved.game)
        delay = saved.bot_delay if bot_delay is None else bot_delay
        authority = cls(
            Identity(SigningKey(saved.authority_key)),
            saved.code,
            saved.game,
            game.config_from_data(saved.config),
            saved.host_name,
            broker_host,
            broker_port,
            seed=saved.seed,
            bot_delay=delay,
            app_version=app_version,
            # Who is here is known again as each person reconnects (or their
            # retained presence arrives): the broker may have died with the host.
            seats=[
                SeatSlot(
                    seat.name,
                    seat.kind,
                    seat.level,
                    seat.key,
                    stood_in=_spans(seat.stood_in),
                    replaced=seat.replaced,
                )
                for seat in saved.seats
            ],
            phase=saved.phase,
            seq=saved.seq,
            store=store,
        )
        authority._salt = saved.salt
        authority._stamp = saved.stamp
        authority.dealt_as = saved.dealt_as
        authority._epoch = max(authority._epoch, saved.epoch)
        for mark in saved.nonces:
            authority._peers[mark.key] = _PeerRecord(last_nonce=(mark.epoch, mark.n))
            if authority._seat_of(mark.key) is None:
                authority._former[mark.key] = None
        if saved.phase == PLAYING:
            table = Table.from_record(saved.record(), authority._seat_specs(), bot_delay=delay)
            authority.table = table
            table.observers.append(authority._on_table_change)
            # Each person's log is what that seat may see of every event: the
            # replay gives back the same events, so the same log and bases.
            authority._logs = {
                seat: authority._seat_events(seat, table.events)
                for seat, slot in enumerate(authority.seats)
                if slot.kind == HUMAN
            }
            authority._public_log = authority._seat_events(None, table.events)
        return authority

    # -- lobby controls (host only, in-process) ------------------------------

    @property
    def free_seats(self) -> int:
        return sum(1 for seat in self.seats if seat.kind == OPEN)

    def set_bot(self, seat: int, level: str | None) -> None:
        """Put a bot of ``level`` in any seat, or empty it (``None``). Who
        sits is the host's decision (issue 19 item 2): a person there, away
        or not, is taken out (told so), and must be let in again to sit."""
        if self.phase != LOBBY:
            raise IllegalAction("the game has started")
        if not 0 <= seat < len(self.seats):
            raise IllegalAction(f"there is no seat {seat + 1}")
        if level is not None:
            self.game.make_bot(level)  # ConfigError for an unknown level
        slot = self.seats[seat]
        if slot.kind == HUMAN and slot.key is not None:
            self._take_out(
                slot.key, f"the host gave seat {seat + 1} of room {self.shown_code} away"
            )
            self._notice = f"the host took {slot.name} out of seat {seat + 1}"
        if level is None:
            self.seats[seat] = SeatSlot(f"Seat {seat + 1}")
        else:
            self.seats[seat] = SeatSlot(_bot_name(seat, self.seats), BOT, level)
        self._lobby_presence_changed(seat)
        self._publish_room()

    def remove(self, seat: int) -> None:
        """Take the person of ``seat`` out (present or not), in the lobby:
        the seat is free, they are told in one line and must be let in
        again to sit (issue 19 seats item 3; the host's own seat is the screen's
        to keep)."""
        if self.phase != LOBBY:
            raise IllegalAction("the game has started")
        slot = self.seats[seat] if 0 <= seat < len(self.seats) else None
        if slot is None or slot.kind != HUMAN or slot.key is None:
            raise IllegalAction(f"nobody sits in seat {seat + 1}")
        self._take_out(
            slot.key, f"the host of room {self.shown_code} took you out of seat {seat + 1}"
        )
        self._notice = f"the host took {slot.name} out of seat {seat + 1}"
        self._log.info(self._notice)
        self.seats[seat] = SeatSlot(f"Seat {seat + 1}")
        self._lobby_presence_changed(seat)
        self._publish_room()

    def _take_out(self, key: bytes, reason: str) -> None:
        """``key`` loses its seat: it must be let in again (knock, or a rule
        that lets it in: not "any", where the host's choice would be undone
        by its next Hello)."""
        self.admitted.discard(key)
        if self.admission != ADMIT_ASK:
            self.barred.add(key)
        self._refuse(key, reason, "removed")

    # -- admission (issue 19 item 2) -----------------------------------------

    def admit(self, key: bytes) -> None:
        """The host lets the knocking ``key`` in: it takes the seat it asked
        for if free, else any free one (refused as full if none is)."""
        knock = self.knocks.pop(key, None)
        if knock is None:
            raise IllegalAction("nobody with that key is waiting")
        self.admitted.add(key)
        self.barred.discard(key)
        if self.phase != LOBBY:
            self._refuse(key, f"the game in room {self.shown_code} has started", "started", knock.n)
        else:
            hello = Hello(
                room=self.code, epoch=0, n=knock.n, name=knock.name, seat=knock.seat, bot=knock.bot
            )
            self._seat_new(key, hello, fallback=True)
        self._changed()

    def expect(self, typed: str) -> Knock | None:
        """The host lets in the key whose fingerprint starts with ``typed``
        (as its owner reads it, see key_prefix). A knock of that key already
        waiting is let in now and returned; otherwise its next Hello is let
        in, whatever the knock queue holds."""
        prefix = key_prefix(typed)
        # A key turned away (n) is let in again by its start: a host who
        # turned away a friend by mistake had no way back but a new room.
        self.barred = {key for key in self.barred if not peer_id(key).startswith(prefix)}
        waiting = next(
            (knock for key, knock in self.knocks.items() if peer_id(key).startswith(prefix)), None
        )
        if waiting is not None:
            self.admit(waiting.key)
            return waiting
        if prefix not in self.expected:
            self.expected.append(prefix)
            del self.expected[:-MAX_EXPECTED]
        self._changed()
        return None

    def _expected_key(self, key: bytes) -> bool:
        """Whether the host said to let ``key`` in (Authority.expect); once."""
        digest = peer_id(key)
        for prefix in self.expected:
            if digest.startswith(prefix):
                self.expected.remove(prefix)
                self.admitted.add(key)
                return True
        return False

    def seat_to_give(self) -> bool:
        """Whether a key let in now would get a seat: a free one, or one a
        key that never showed up holds (:meth:`_seat_new`)."""
        return any(slot.kind == OPEN for slot in self.seats) or bool(self._provisional())

    def refuse(self, key: bytes) -> None:
        """The host does not let the knocking ``key`` in (this room, for good)."""
        knock = self.knocks.pop(key, None)
        if knock is None:
            raise IllegalAction("nobody with that key is waiting")
        self.barred.add(key)
        self._refuse(key, self._turned_away(key), "denied", knock.n)
        self._notice = "the host turned someone away"
        self._publish_room()

    def _full(self) -> str:
        """What a key that finds no seat reads: what it can do instead
        (found in a play-test: "room X is full" and nothing else)."""
        return f"room {self.shown_code} is full: you can still watch it."

    def _turned_away(self, key: bytes) -> str:
        """What a key the host turned away reads, now and at each try: what
        it can do (found in a play-test: no hint at all). A mistake is
        undone by the key's start (Authority.expect)."""
        return (
            f"the host of room {self.shown_code} did not let you in. If it was a mistake, "
            f"read your key, {fingerprint(key)}, to the host: i on their lobby lets it in; "
            "then join again. You can still watch it."
        )

    def _changed(self) -> None:
        self._follow_presences()  # the knocks changed: their presences with them
        for callback in list(self.on_change):
            callback()
        self._tell_owner()

    def _tell_owner(self) -> None:
        """The owner's view of the knocks, when it changed (a few keys at
        most: MAX_KNOCKS), sealed to the owner alone."""
        owner = self.owner
        if owner is None or self._seat_of(owner) is None:
            return
        knocks = [Knocking(k.key, k.name, k.seat) for k in self.knocks.values()]
        if knocks == self._owner_told:
            return
        self._owner_told = knocks
        self._to_peer(owner, Knocks(room=self.code, knocks=knocks))

    def _on_admit(self, key: bytes, admit: Admit) -> None:
        """The owner lets a knocking key in, or turns it away; anyone else
        is refused (and nothing changes)."""
        if self.owner is None or key != self.owner:
            self._refuse(
                key,
                f"only the person who asked for room {self.shown_code} lets people in",
                "denied",
            )
            return
        if admit.key not in self.knocks:
            self._owner_told = None  # gone meanwhile: the owner sees the list as it is
            self._tell_owner()
            return
        if admit.yes:
            self.admit(admit.key)
        else:
            self.refuse(admit.key)

    def _on_again(self, key: bytes) -> None:
        """The owner asks for the next game at this table (a dealer's room):
        the runner's ``on_again`` opens it, once; its notice (retained on
        the room's ``next`` topic) is the answer. Anyone else, a game not
        over or a runner that opens none, is refused in words."""
        if self.owner is None or self.on_again is None:
            # A host's room (its host opens it on screen), or a table taken
            # over from a dealer whose log names no owner (an earlier Passe's).
            self._refuse(
                key, f"nobody opens a next game for room {self.shown_code} from a seat", "bad"
            )
        elif key != self.owner:
            self._refuse(
                key,
                f"only the person who asked for room {self.shown_code} opens its next game",
                "denied",
            )
        elif self.phase != OVER:
            self._refuse(key, "the game is not over", "bad")
        elif self._next_code is not None or self._again_asked:
            return  # opened, or being opened: its notice comes (retained)
        else:
            self._again_asked = True
            self.on_again()

    def _on_start_now(self, key: bytes) -> None:
        """The owner starts the game without waiting for more people (a
        dealer's room): its runner's ``on_start_asked`` seats bots in the
        open seats and starts it. Anyone else, or a runner that waits for
        nobody's word, is refused in words; once started, it changes nothing."""
        if self.owner is None or self.on_start_asked is None:
            self._refuse(key, f"nobody starts room {self.shown_code} from a seat", "bad")
        elif key != self.owner:
            self._refuse(
                key, f"only the person who asked for room {self.shown_code} starts it", "denied"
            )
        elif self.phase != LOBBY:
            return  # started already (a request sent again)
        else:
            self.on_start_asked()

    def next_game_refused(self, reason: str) -> None:
        """``on_again`` could not open the next game: the owner is told why,
        and may ask again."""
        self._again_asked = False
        if self.owner is not None:
            self._refuse(self.owner, reason, "busy")

    def _admission(self, key: bytes, hello: Hello) -> bool:
        """Whether a new key's Hello may take a seat now; if not, it has been
        answered (knocking, or refused)."""
        if key in self.barred:
            self._refuse(key, self._turned_away(key), "denied", hello.n)
            return False
        listed = peer_id(key) in self.allowed_keys
        if key not in self.admitted and self.admission == ADMIT_KEYS and not listed:
            self._refuse(
                key,
                f"room {self.shown_code} lets in only the keys its host listed; yours is "
                f"{fingerprint(key)}: ask the host to add it",
                "denied",
                hello.n,
            )
            return False
        if not self._live_presence(key):
            # Nobody sits, nor knocks, without a live presence (issue 19 seats items
            # 1, 2): wait for it, following it; it answers the Hello.
            self._await_presence(key, hello)
            return False
        if (
            key in self.admitted
            or self.admission in (ADMIT_ANY, ADMIT_KEYS)
            or self._expected_key(key)  # the host typed its start (i, Authority.expect)
        ):
            return True  # (a key a "keys" rule does not list was refused above)
        now = time.monotonic()
        for old in [k for k, knock in self.knocks.items() if now - knock.at > KNOCK_TTL]:
            del self.knocks[old]
        if key not in self.knocks and len(self.knocks) >= MAX_KNOCKS:
            # Perhaps a flood of strangers' keys: the host can still let this
            # one in by the key its owner reads out (Authority.expect).
            self._refuse(
                key,
                f"too many people are knocking at room {self.shown_code} (someone may be "
                f"flooding it): read your key, {fingerprint(key)}, to the host: i on "
                "their lobby lets it in; then join again",
                "full",
                hello.n,
            )
            return False
        earlier = self.knocks.get(key)
        # A knock that came while a seat was free stays when the table fills
        # (the host may free one): its Hello sent again is still a knock.
        if earlier is None and not self.seat_to_give():
            self._refuse(key, self._full(), "full", hello.n)
            return False
        self.knocks[key] = Knock(
            key,
            clean_name(hello.name),
            hello.seat,
            hello.n,
            hello.bot,
            earlier.at if earlier is not None else now,
        )
        self._log.info("%s (key %s) knocks", self.knocks[key].name, fingerprint(key))
        self._refuse(
            key, f"the host of room {self.shown_code} is asked to let you in", "knock", hello.n
        )
        self._changed()
        return False

    def _await_presence(self, key: bytes, hello: Hello | Watch) -> None:
        """Keep ``hello`` until ``key``'s live presence comes (then it is
        handled again), following that presence meanwhile: at most
        MAX_CANDIDATES keys, each for CANDIDATE_WAIT seconds."""
        now = time.monotonic()
        for old in [k for k, (_, at) in self._candidates.items() if now - at > CANDIDATE_WAIT]:
            del self._candidates[old]
        again = key in self._candidates or self._heard.get(peer_id(key), 0) >= 2
        if not again and not self._new_candidates.allow("new", 0, self.clock()):
            self._floods.note(
                "candidates",
                "did not follow the presence of more new keys so soon (too many asked at once)",
                self.clock(),
            )
            return  # unanswered: an honest joiner asks again
        earlier = self._candidates.pop(key, None)
        self._candidates[key] = (hello, earlier[1] if earlier is not None else now)
        if len(self._candidates) > MAX_CANDIDATES:
            # The oldest first, of the keys heard only once (a flood's fresh
            # keys) before those heard again (a joiner asking again, issue
            # 19 seats item 1): a flood does not push out someone who keeps asking.
            once = [k for k in self._candidates if self._heard.get(peer_id(k), 0) < 2]
            del self._candidates[(once or list(self._candidates))[0]]
        self._follow_presences()

    def _candidate_present(self, key: bytes) -> None:
        """A waiting key's live presence came: its Hello is handled now."""
        waiting = self._candidates.pop(key, None)
        if waiting is None:
            return
        hello, at = waiting
        if time.monotonic() - at <= CANDIDATE_WAIT and self._seat_of(key) is None:
            if isinstance(hello, Watch):
                self._on_watch(key, hello)
            else:
                self._on_hello(key, hello)
        # After the Hello: a key it seated stays followed without an
        # unsubscription and a subscription in a row (which brokers may
        # reorder; net/lan/transport.py).
        self._follow_presences()

    def can_start(self) -> str | None:
        """Why the game cannot start yet, or ``None``."""
        if self.phase != LOBBY:
            return "the game has already started"
        open_seats = [str(n + 1) for n, seat in enumerate(self.seats) if seat.kind == OPEN]
        if len(open_seats) == 1:
            return f"seat {open_seats[0]} is still empty: wait for players or add bots"
        if open_seats:
            # "seats 2, 3 and 4 are", not "seat 2, 3, 4" (issue 18).
            listed = f"{', '.join(open_seats[:-1])} and {open_seats[-1]}"
            return f"seats {listed} are still empty: wait for players or add bots"
        return None

    def start_game(self) -> None:
        reason = self.can_start()
        if reason is not None:
            raise IllegalAction(reason)
        self.table = Table.new(
            self.game_id, self.config, self.seed, self._seat_specs(), bot_delay=self.bot_delay
        )
        self.table.observers.append(self._on_table_change)
        self.phase = PLAYING
        # A lobby notice ("the host turned someone away") is not news at the
        # table: carried into the first room state of the game, it reached
        # the host's game log as if it had just happened (found by hand).
        self._notice = ""
        self._logs = {}
        for seat, slot in enumerate(self.seats):
            if slot.kind == HUMAN:
                self._logs[seat] = self._seat_events(seat, self.table.events)
        self._public_log = self._seat_events(None, self.table.events)
        self._make_replica()
        # The first state of the game carries the election config: it goes
        # out before the game's first entry, which the voters it names must
        # hold before anything else does (net/authority/replication.py).
        self._publish_room()
        if self.replica is not None:
            self._replicating = True
            self._save()
        for seat in self._logs:
            self._send_update(seat, base=0)
        for key in self.watchers:
            self._send_watch_update(key, base=0)
        self.watch_away(self.stand_in_after)  # someone away from the start
        self.table.start()
        self._check_over()

    def failover_voters(self) -> tuple[list[bytes], int]:
        """The room's voters if the game started now (this process first,
        then each seated person's) and how many of those people stand."""
        people = [
            slot.key
            for slot in self.seats
            if slot.kind == HUMAN and slot.key is not None and slot.key not in self.told_keys
        ]
        standing = sum(1 for key in people if key not in self.declined)
        if self.dealers is not None:
            dealers = [self._voter.public_key, *self.dealers]
            return [*dealers, *(key for key in people if key not in dealers)], len(dealers) - 1
        return [self._voter.public_key, *people], standing

    def failover_outlook(self) -> tuple[FailoverOutlook, int]:
        """What the failover setting comes to if the game started now (the
        lobby's one line, the host's and, through the room state, each
        joiner's): off, short of how many more people's machines that stand,
        never (its free seats could not bring them: a full room of two said
        it needed one more, a play-test), or on."""
        if not self.failover:
            return "off", 0
        voters, standing = self.failover_voters()
        missing = max(MIN_VOTERS - len(voters), MIN_STANDING - standing)
        if missing <= 0:
            return "on", 0
        # What it could come to: each free seat a person's machine that
        # stands, each seated person who declined standing after all.
        free = sum(1 for slot in self.seats if slot.kind == OPEN)
        people = len(voters) - 1
        could = len(voters) + free >= MIN_VOTERS and people + free >= MIN_STANDING
        return ("short", missing) if could else ("never", missing)

    def set_failover(self, on: bool) -> None:
        """The host's lobby setting (f): said to the joiners at once."""
        self.failover = on
        if self.phase == LOBBY:
            self._publish_room()

    @property
    def _voter(self) -> Identity:
        """This process's key in the room's election (the dealer's own, in
        a dealer's room; the room's key otherwise)."""
        return self.voter_identity or self.identity

    @property
    def election(self) -> bytes:
        """The room's election config (encoded; empty: it does not fail over)."""
        return self._election

    def _make_replica(self) -> None:
        """With failover on, the room's voters (this process and each seated
        person's) and its secret, this process leading term 1. Not when no
        successor could be elected (too few machines, or too few standing):
        the room then waits for its host, as without failover."""
        voters, standing = self.failover_voters()
        if self.dealers is not None:
            dealers = voters[: standing + 1]
            if not self.failover or not dealers_can_fail_over(len(voters), len(dealers)):
                return
            config, secret = make_room_config(self._voter, voters, dealers=dealers)
        else:
            if not self.failover or not can_fail_over(len(voters), standing):
                return
            config, secret = make_room_config(self._voter, voters, self.declined)
        replica = RoomReplica(
            self._voter,
            self.code,
            config,
            maker_vote_path(self.code, self._voter, self.voter_dir),
            self.broker_host,
            self.broker_port,
            maker=self._voter.public_key,
            on_stepped_down=self.step_down,
            on_brokers=lambda _: self.voter_brokers_changed(),
            cluster=self.cluster,
        )
        replica.lead(secret, self.identity.public_key)
        # Not replicating yet: the first state of the game, which names the
        # voters, goes out first (start_game).
        self.replica, self._election = replica, encode_room_config(config)
        if self.standby:
            # The standby brokers the seats announced in the lobby: in the
            # game's first state (a host killed before the voters' own
            # presences went round left each voter alone on its own: CI,
            # a clean clone, 5 December).
            replica.driver.learn_brokers(self._seat_brokers())
        if loop_running():
            spawn(replica.start(), "the room's voter")

    def adopt_replica(self, replica: RoomReplica, election: bytes) -> None:
        """A room taken over: replicate through ``replica`` (this process's
        voter, the authority of its term); nothing is sent before its term's
        first entry commits (which commits every entry before it)."""
        self.replica = replica
        self._election = election
        self._barrier = max(self._barrier, replica.driver.node.last_index)
        self._replicating = self.phase in (PLAYING, OVER)

    @property
    def link_address(self) -> tuple[str, int]:
        """The broker this authority's link is on now (or will try first)."""
        if self._link is not None:
            return self._link.host, self._link.port
        return self.broker_host, self.broker_port

    def follow_brokers(self, succession: Sequence[tuple[str, int]]) -> None:
        """The room's standby brokers, after its own, in order: where this
        authority's link goes when the room's broker is gone."""
        self.broker_alternates = tuple(dict.fromkeys([*self.cluster, *succession]))
        if self._link is not None:
            self._link.set_alternates(list(self.broker_alternates))

    def say(self, notice: str) -> None:
        """The notice the next room state carries (our own words)."""
        self._notice = notice

    def name_dealer(self, name: str, dealer: Identity) -> None:
        """This room is the dealer ``name``'s (RoomState.dealer), signed as
        its own by ``dealer``, its long-term key: said at once where the
        room runs already. A dealer that resumed its room set the name
        after the room's first state, and a state that named no dealer
        stayed retained: at its next stop every screen read "the host
        (Lea) is away" (a play-test)."""
        if name == self.dealer_name and self._dealer_key == dealer.public_key:
            return
        self.dealer_name = name
        self._dealer_key = dealer.public_key
        # Signed once, over the name as the state says it and this room's
        # key: a peer checks it against the key that signed the state.
        shown = self._shown_dealer()
        self._dealer_proof = dealt_proof(dealer, self.code, self.identity.public_key, shown)
        if self._outbox is not None and loop_running():
            self._schedule_republish()

    def _shown_dealer(self) -> str:
        """The dealer's name as the room state says it (and its proof signs)."""
        return clean_name(self.dealer_name, "")[:40] if self.dealer_name else ""

    def step_down(self, term: int) -> None:
        """A higher term's authority exists (this process was cut off): it
        holds the table now; this one stops at once, its room kept."""
        self._log.warning("term %d has another authority: this one steps down", term)
        self._fall_silent(term)
        for callback in list(self.on_warning):
            callback("The table moved to another machine: this one no longer runs it.")

    def hand_over(self) -> None:
        """Stop running the table of this process's own will (a dealer that
        stops: net/dealer/): silent at once, as on a step-down, while its
        voter, still the authority, brings the next dealer's log up to date
        and then lets the others elect it."""
        self._log.info("this table stops here: handed over")
        self._fall_silent(self.replica.term if self.replica is not None else 0)

    def _fall_silent(self, term: int) -> None:
        self._replicating = False
        self.stepped_down = term
        # Nothing more leaves from here, by any path: an old authority that
        # republished its room state over its successor's, or answered a
        # Hello, kept seats pinned to a table nobody runs (CI, stop 28).
        self._stop_timers()
        if self._outbox is not None:
            self._outbox = Outbox()
        if loop_running():
            spawn(self._stand_aside(), "a stepped-down table's end")

    async def _stand_aside(self) -> None:
        """Its bots and its link stop, with no last word (a "gone" presence
        or a final state would be a stale authority's); its voter, owned by
        whoever made it, runs on and votes."""
        if self.table is not None:
            await self.table.stop()
        if self._sender is not None:
            await stop_task(self._sender)
            self._sender = None
        if self._link is not None:
            await self._link.close(graceful=False)
        self._stepped_down_event.set()

    async def wait_stepped_down(self) -> int:
        """The term that made this authority step down, once it has."""
        await self._stepped_down_event.wait()
        assert self.stepped_down is not None
        return self.stepped_down

    def _seat_specs(self) -> list[SeatSpec]:
        # A person's seat with a level is played by that bot while they are away.
        return [
            SeatSpec(seat.name, seat.level or HUMAN if seat.kind == HUMAN else seat.level)
            for seat in self.seats
        ]

    # -- a bot for a person who is away (the host's choice) ------------------

    def stand_in(self, seat: int, level: str = REPLACEMENT_BOT) -> None:
        """A bot plays ``seat`` while its person is away, so the others need
        not wait; the seat stays bound to their key and is theirs again as
        soon as they come back (their Hello)."""
        slot = self.seats[seat] if 0 <= seat < len(self.seats) else None
        if self.phase != PLAYING or self.table is None:
            raise IllegalAction("only during a game")
        if slot is None or slot.kind != HUMAN:
            raise IllegalAction(f"no person sits in seat {seat + 1}")
        if slot.present:
            raise IllegalAction(f"{slot.name} is here")
        if slot.level:
            return  # a bot already plays for them
        self.game.make_bot(level)  # ConfigError for an unknown level
        slot.level = level
        since = len(self._logs.get(seat, []))
        slot.stood_in = [*slot.stood_in, (since, None)][-STOOD_IN_SPANS:]
        self.table.hand_to_bot(seat, level)
        self._notice = f"{slot.name} is away: a bot plays for them until they are back"
        self._log.info(self._notice)
        self._publish_room()

    def watch_away(self, seconds: float | None) -> None:
        """From now on a bot plays for a person once they have been away
        ``seconds`` mid-game (a host with no screen, where nobody can decide
        it); ``None`` stops that. Seats already away are counted from now."""
        self.stand_in_after = seconds
        for timer in self._away_timers.values():
            timer.cancel()
        self._away_timers.clear()
        away = [
            seat for seat, slot in enumerate(self.seats) if slot.kind == HUMAN and not slot.present
        ]
        for seat in away:
            self._away_changed(seat, announce=False)
        if self._away_settle is not None:
            self._away_settle.cancel()
            self._away_settle = None
        if self._away_timers:
            # Said once the presences had time to come: a table taken over
            # counts everyone away until each presence reaches it, and said
            # at once "Kim is away: a bot plays for them in 30 s" of the
            # person at its own screen (found in a play-test, 5 December).
            self._away_settle = asyncio.get_running_loop().call_later(
                AWAY_SETTLE, self._say_who_is_away
            )

    def _say_who_is_away(self) -> None:
        """The notice of those still away whose bots are coming, and when."""
        self._away_settle = None
        loop = asyncio.get_running_loop()
        waiting = sorted(self._away_timers.items(), key=lambda item: item[1].when())
        if not waiting or self.phase != PLAYING:
            return
        _, timer = waiting[0]
        names = " and ".join(self.seats[s].name for s, _ in waiting)
        self._said_away.update(s for s, _ in waiting)
        them = "them" if len(waiting) == 1 else "each"
        self._notice = (
            f"{names} {'is' if len(waiting) == 1 else 'are'} away: a bot plays for {them} in "
            f"{_duration(timer.when() - loop.time())} unless they are back"
        )
        self._publish_room()

    def _away_changed(self, seat: int, *, announce: bool = True) -> None:
        """Start or stop the seat's clock (watch_away) as its person goes and comes."""
        slot = self.seats[seat]
        timer = self._away_timers.pop(seat, None)
        if timer is not None:
            timer.cancel()
        if seat in self._said_away and slot.present and not slot.level and self.phase == PLAYING:
            # Back before the bot came: said as the going was (a play-test's
            # last line said "Hana is away: a bot plays for them in 25 s" for
            # the rest of the game, she being back).
            self._said_away.discard(seat)
            self._notice = f"{slot.name} is back"
        if self.stand_in_after is None or self.phase != PLAYING or slot.kind != HUMAN:
            return  # the clocks start with the game (start_game)
        if not slot.present and not slot.level:
            loop = asyncio.get_running_loop()
            self._away_timers[seat] = loop.call_later(
                self.stand_in_after, self._stand_in_if_away, seat
            )
            # Said before it happens: at a table that moved, a bot came 30 s
            # after the old host's machine went, nobody having asked or been
            # told (found in a play-test, 5 December).
            if announce:
                self._said_away.add(seat)
                self._notice = (
                    f"{slot.name} is away: a bot plays for them in "
                    f"{_duration(self.stand_in_after)} unless they are back"
                )

    def _stand_in_if_away(self, seat: int) -> None:
        self._away_timers.pop(seat, None)
        slot = self.seats[seat]
        if self.phase == PLAYING and slot.kind == HUMAN and not slot.present and not slot.level:
            with contextlib.suppress(IllegalAction):
                self.stand_in(seat)

    def _back_from_stand_in(self, seat: int) -> None:
        slot = self.seats[seat]
        if not slot.level or self.table is None:
            return
        slot.level = ""
        if slot.stood_in and slot.stood_in[-1][1] is None:
            slot.stood_in[-1] = (slot.stood_in[-1][0], len(self._logs.get(seat, [])))
        self.table.hand_to_person(seat)
        self._said_away.discard(seat)
        self._notice = f"{slot.name} is back and plays again"
        self._log.info(self._notice)

    # -- the next game at the same table ------------------------------------

    def next_seats(self) -> list[SeatSlot]:
        """The seats of the next game at this table: each person's seat bound
        to their key again (away until they come), the same bots; a seat whose
        person left during the game is empty again, not their stand-in bot."""
        seats: list[SeatSlot] = []
        for seat, slot in enumerate(self.seats):
            if slot.kind == HUMAN:
                seats.append(SeatSlot(slot.name, HUMAN, key=slot.key, plays=slot.plays))
            elif slot.kind == BOT and not slot.replaced:
                seats.append(SeatSlot(slot.name, BOT, slot.level))
            else:
                seats.append(SeatSlot(f"Seat {seat + 1}"))
        return seats

    def announce_next(self, code: str, broker: str = "") -> None:
        """Tell everyone (retained, signed) that the table plays on in room
        ``code`` (on ``broker``, "ADDRESS:PORT", if not on this room's):
        only once this game is over."""
        if self.phase != OVER:
            raise IllegalAction("the game is not over")
        self._next_code = code
        topic = next_topic(self.code)
        notice = NextRoom(self.code, code, broker)
        self._enqueue(topic, seal(self.identity, topic, notice), retain=True)

    # -- what goes out -------------------------------------------------------

    def seed_hash(self) -> bytes:
        return hashlib.sha256(self._salt + self.seed.to_bytes(8, "big")).digest()

    def room_state(self) -> RoomState:
        over = self.phase == OVER and self.table is not None
        return RoomState(
            room=self.code,
            game=self.game_id,
            config=self.config.to_data(),
            host=clean_text(self.host_name, 64),
            phase=self.phase,
            seats=[seat.public() for seat in self.seats],
            seq=self.seq,
            stamp=self._next_stamp(),
            app=self.app_version[:40],
            seed_hash=self.seed_hash(),
            # The record reveals every hand: only once the game is over.
            record=self.table.record().to_data() if over and self.table else None,
            salt=self._salt if over else b"",
            notice=self._notice,
            election=self._election,
            # In the lobby too: each seated person's process starts its
            # standby broker then, so the game's first state names them all.
            standby=self.standby and (bool(self._election) or self._standby_lobby()),
            brokers=self._voter_brokers(),
            dealer=self._shown_dealer(),
            dealer_key=self._dealer_key if self.dealer_name else b"",
            dealer_proof=self._dealer_proof if self.dealer_name else b"",
            bot_due=sorted(self._away_timers),
            failover=(
                self.failover_outlook()[0]
                if self.phase == LOBBY and self.dealers is None and not self.dealer_name
                else ""
            ),
        )

    def _voter_brokers(self) -> list[VoterBroker]:
        """The voters' standby brokers known here, in the config's order."""
        if not self.standby or self.replica is None:
            return []
        known = self.replica.driver.brokers()
        return [
            VoterBroker(voter, broker_text(known[voter]))
            for voter in self.replica.driver.node.voters
            if voter in known
        ]

    def _seat_brokers(self) -> dict[bytes, tuple[str, int]]:
        """The standby brokers seated people's presences named, by key."""
        seated = [slot.key for slot in self.seats if slot.key is not None]
        records = {key: self._peers.get(key) for key in seated}
        return {
            key: record.broker
            for key, record in records.items()
            if record is not None and record.broker is not None
        }

    def _standby_lobby(self) -> bool:
        """A lobby whose game could fail over (were its open seats taken by
        people who stand): its seats start standby brokers. Not a dealer's
        room (its dealers' brokers instead), nor one that never could: two
        people's, or mostly bots' (no process started for nothing)."""
        if self.phase != LOBBY or not self.failover or self.dealers is not None:
            return False
        people = sum(
            1
            for slot in self.seats
            if slot.kind != BOT and (slot.key is None or slot.key not in self.told_keys)
        )
        return can_fail_over(1 + people, people)

    def standby_missing(self) -> list[str]:
        """The names of seated people whose standby broker is not known yet
        (their process starts it when seated in a room that says
        ``standby``): the game waits a little for them (wait_standby)."""
        if not (self.standby and self._standby_lobby()):
            return []
        voters, standing = self.failover_voters()
        if not can_fail_over(len(voters), standing):
            return []  # the game would wait for its host: no standby needed
        known = self._seat_brokers()
        return [
            slot.name
            for slot in self.seats
            if slot.key is not None and slot.key in voters[1:] and slot.key not in known
        ]

    async def wait_standby(self, timeout: float | None = None) -> None:
        """Until every seated person's standby broker is known, or
        ``timeout`` seconds (STANDBY_WAIT: an earlier Passe never names one): started
        before, a game whose host died in its first second found no voter
        knowing where the others went, and waited for ever."""
        wait = STANDBY_WAIT if timeout is None else timeout
        deadline = asyncio.get_running_loop().time() + wait
        while missing := self.standby_missing():
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                self._log.info("no standby broker known for %s: the game starts", missing)
                return
            self._standby_news.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._standby_news.wait(), left)

    def voter_brokers_changed(self) -> None:
        """A voter's standby broker became known: the room's state says so
        (retained: a seat whose voter has not reached this broker yet
        learns where everyone goes if it dies)."""
        if (
            self.phase == PLAYING
            and self.standby
            and self._replicating  # not before the game's first state
            and self.stepped_down is None
        ):
            self._publish_room()

    def _next_stamp(self) -> int:
        self._stamp = max(self._stamp + 1, time.time_ns() // 1_000_000)
        return self._stamp

    def _room_payload(self) -> bytes:
        return seal(self.identity, room_topic(self.code), self.room_state())

    def _will(self) -> LastWill:
        """Each connection is a new presence epoch (Sparkplug's STATE rule):
        its will says "gone" for that connection only."""
        self._epoch = next_presence_epoch(self._epoch)
        topic = presence_topic(self.code, self.identity.peer_id)
        return LastWill(topic, self._presence_payload(online=False))

    def _presence_payload(self, *, online: bool) -> bytes:
        topic = presence_topic(self.code, self.identity.peer_id)
        return sealed_presence(
            self.identity, topic, self.code, self._epoch, online=online, name="host"
        )

    def _presence_topics(self) -> list[str]:
        """The presences followed: each seated key's, and those of the keys
        waiting to sit (candidates, knocks: bounded, issue 19 seats items 1, 2)."""
        seated = [slot.key for slot in self.seats if slot.kind == HUMAN and slot.key is not None]
        keys = dict.fromkeys([*seated, *self.knocks, *self._candidates, *self.watchers])
        return [presence_topic(self.code, peer_id(key)) for key in keys]

    def _followed_ids(self) -> set[str]:
        """Peer ids of the keys waiting to sit whose presence is followed."""
        return {peer_id(key) for key in [*self.knocks, *self._candidates]}

    def _follow_presences(self) -> None:
        """Subscribe to the presence of each seated or waiting key, and to no
        other (issue 19 item 6); called on every change of the seats."""
        if self._link is None:
            return
        wanted = self._presence_topics()
        prefix = f"{self.prefix}/presence/"
        for topic in [t for t in self._link.subscriptions if t.startswith(prefix)]:
            if topic not in wanted:
                self._link.unsubscribe(topic)
        for topic in wanted:
            self._link.subscribe(topic)

    def _publish_room(self) -> None:
        self._follow_presences()
        payload = self._room_payload()
        self._save()  # with the stamp just given: a resumed room's are higher
        # A room state in play shows seats and names, no action: it is not
        # held for the log (the game's first carries the voters, who must
        # have it before anything can commit). The final one, with the
        # record, waits for every action in it to be committed.
        barrier = self._barrier if self.phase == OVER else 0
        self._enqueue(room_topic(self.code), payload, retain=True, barrier=barrier)
        for callback in list(self.on_change):
            callback()
        self._tell_owner()  # a knock let in or turned away changes the room too

    def _enqueue(
        self, topic: str, payload: bytes, *, retain: bool = False, barrier: int | None = None
    ) -> None:
        if self._outbox is None or self.stepped_down is not None:
            return
        if self.replica is None:
            barrier = 0
        elif barrier is None:
            barrier = self._barrier
        if not self._outbox.push(topic, payload, retain, barrier):
            self._floods.note(
                "outbox",
                f"dropped a message to {topic}: {len(self._outbox)} messages are waiting "
                "for the broker already",
                self.clock(),
            )
            return
        self._outbox_idle.clear()
        self._outbox_ready.set()

    async def _send_loop(self) -> None:
        assert self._outbox is not None
        while True:
            replica = self.replica
            # Durable on a majority of the voters first (issue 20); what
            # the log need not hold may go ahead (Outbox.pop).
            message = self._outbox.pop(None if replica is None else replica.committed)
            if message is None:
                self._outbox_ready.clear()
                if not len(self._outbox):
                    self._outbox_idle.set()
                    await self._outbox_ready.wait()
                elif replica is not None:
                    # Held: until the log commits, or a message comes that
                    # may go ahead of it.
                    await first_of(
                        replica.wait_committed(self._outbox.barrier()), self._outbox_ready.wait()
                    )
                continue
            topic, payload, retain = message
            if retain:
                self._own_retained.append(_digest(payload))
            try:
                if self._link is not None:
                    await self._link.publish(topic, payload, retain=retain)
            except asyncio.CancelledError:
                raise
            except Exception:  # one failed message must not stop all the others
                self._log.exception("sending on %s failed", topic)

    async def _drain(self) -> None:
        if self._outbox is not None and self._link is not None and self._link.connected:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._outbox_idle.wait(), 3)

    def _to_peer(self, key: bytes, message: Welcome | Refused | Update | Watched | Knocks) -> None:
        topic = to_peer_topic(self.code, peer_id(key))
        self._enqueue(topic, seal(self.identity, topic, message, key))

    def _refuse(self, key: bytes, reason: str, code: str, n: int = 0) -> None:
        self._floods.note(
            f"refused-{code}", f"refused {peer_id(key)}: {reason}", self.clock(), logging.INFO
        )
        self._to_peer(key, Refused(room=self.code, reason=short_text(reason), code=code, n=n))

    def _seat_events(self, seat: int | None, events: Sequence[Event]) -> list[msgspec.Raw]:
        return [
            self.codec.encode_event_raw(shown)
            for event in events
            if (shown := event.for_seat(seat)) is not None
        ]

    def _send_update(
        self,
        seat: int,
        *,
        base: int,
        rejected: str | None = None,
        answer: bool = False,
        uncommitted: EntryAt | None = None,
    ) -> None:
        """Send ``seat`` its view and its log from ``base``. ``answer``: in
        answer to a request (a Sync, a Hello, a stale or wrong request): one
        carrying much of the log goes to a key at most once per
        LOG_ANSWER_INTERVAL (issue 19 items 4, 8); its peer asks again.
        ``uncommitted``: the change's entry, on this process's disk and not
        yet committed: the update goes at once too, so marked, in one page
        or not at all, before its committed copy (docs/election.md
        section 12)."""
        slot = self.seats[seat]
        if self.table is None or slot.key is None or slot.kind != HUMAN:
            return
        seat_log = self._logs.get(seat, [])
        base = min(base, len(seat_log))
        if (
            answer
            and len(seat_log) - base > LOG_ANSWER_EVENTS
            and not self._log_answers.allow(slot.key, self.clock())
        ):
            self._floods.note(
                "log-answer",
                f"did not send seat {seat + 1} its log again so soon (asked too often)",
                self.clock(),
            )
            return
        update = Update(
            room=self.code,
            seq=self.seq,
            view=self.codec.encode_view(self.table.state.view(seat)),
            base=base,
            events=seat_log[base:],
            rejected=None if rejected is None else short_text(rejected),
            ack=self._peers[slot.key].last_nonce[1] if slot.key in self._peers else 0,
            stood_in=[
                Span(start, len(seat_log) if end is None else end) for start, end in slot.stood_in
            ]
            or None,
        )
        self._log.debug(
            "to seat %d: seq %d, base %d, %d events, ack %d",
            seat,
            self.seq,
            base,
            len(update.events),
            update.ack,
        )
        if uncommitted is not None:
            self._send_at_once(slot.key, msgspec.structs.replace(update, uncommitted=uncommitted))
        for page in paged(update, PAGE_BYTES):
            self._to_peer(slot.key, page)

    def _send_at_once(self, key: bytes, update: Update) -> None:
        """``update`` written to the broker now, ahead of what waits in the
        outbox for the log; not at all if it needs more than one page or
        the link cannot take it now (its committed copy follows anyway)."""
        link = self._link
        if link is None or self.stepped_down is not None or len(paged(update, PAGE_BYTES)) > 1:
            return
        topic = to_peer_topic(self.code, peer_id(key))
        link.publish_now(topic, seal(self.identity, topic, update, key))

    def _early_seat(self) -> tuple[int, bytes | None] | None:
        """The seat that just acted, when it may be sent its update before
        the change commits (docs/election.md section 12), and the voter key
        the other voters tell they hold it (``Held``): a person whose
        process votes in this replicated room; or this process's own person
        (the host's, told here; a successor's own seat), who learns of the
        commit here and is told nothing."""
        if self.replica is None or not self._replicating or not EARLY_UPDATES:
            return None
        assert self.table is not None
        history = self.table.state.history
        if not history:
            return None
        seat = history[-1][0]
        if not 0 <= seat < len(self.seats):
            return None
        slot = self.seats[seat]
        if slot.kind != HUMAN or slot.key is None:
            return None
        if slot.key == self.replica.identity.public_key or slot.key in self.told_keys:
            return seat, None
        return (seat, slot.key) if slot.key in self.replica.driver.node.voters else None

    def _on_table_change(self, events: Sequence[Event]) -> None:
        """Once per accepted action (a person's or a bot's): every seated
        person gets the change, as that seat may see it."""
        self.seq += 1
        assert self.table is not None
        early = self._early_seat()
        barrier = self._barrier
        # On disk before any peer hears of it: what a peer saw is never lost.
        self._save(durable=False, notify=None if early is None else early[1])
        uncommitted = None
        if early is not None and self._barrier > barrier and self.replica is not None:
            # The entry is on this disk now (the voter's write is done when
            # the save returns); the seat that acted counts the rest.
            uncommitted = EntryAt(self.replica.term, self._barrier)
        for seat in self._update_order():
            slot = self.seats[seat]
            if slot.kind != HUMAN:
                continue
            seat_log = self._logs.setdefault(seat, [])
            base = len(seat_log)
            seat_log.extend(self._seat_events(seat, events))
            mover = early is not None and seat == early[0]
            self._send_update(seat, base=base, uncommitted=uncommitted if mover else None)
        # Watchers after the players (issue 21): the public view, sealed to each.
        base = len(self._public_log)
        self._public_log.extend(self._seat_events(None, events))
        for key in list(self.watchers):
            self._send_watch_update(key, base=base)
        self._check_over()

    def _update_order(self) -> list[int]:
        """The seats in the order their updates go out: the one that just
        acted first (it waits for its answer; the others learn of it a
        seal later), then the others in seat order."""
        assert self.table is not None
        history = self.table.state.history
        actor = history[-1][0] if history else -1
        return sorted(range(len(self.seats)), key=lambda seat: seat != actor)

    def _check_over(self) -> None:
        if self.table is not None and self.table.state.is_over and self.phase == PLAYING:
            self.phase = OVER
            self._missed = self.absent_seats()  # those here receive the end now
            self._publish_room()
            self._over.set()

    # -- what comes in -------------------------------------------------------

    async def _on_connect(self) -> None:
        """After every (re)connection: state, presence, and everyone's view
        (they may have missed updates while the link was down)."""
        assert self._link is not None
        if self.replica is not None:
            # A table taken over shows nothing before its term's first entry
            # (and with it every entry it rebuilt from) is committed.
            await self.replica.wait_committed(self._barrier)
        room, presence = self._room_payload(), self._presence_payload(online=True)
        # Their stamp and epoch on disk first: a resumed room goes on above them.
        self._save()
        self._own_retained.append(_digest(room))
        announcement = self._announcement()
        if announcement is not None:
            # Before the state: an old authority back from a freeze sends
            # both before it learns of the higher term, and its successor
            # answers the state with its own two (_schedule_republish), which
            # then come after this announcement too, whatever the timing.
            await self._link.publish(authority_topic(self.code), announcement, retain=True)
        await self._link.publish(room_topic(self.code), room, retain=True)
        await self._link.publish(
            presence_topic(self.code, self.identity.peer_id), presence, retain=True
        )
        self._announced.set()
        if self.table is not None:
            for seat in self._logs:
                self._send_update(seat, base=0)
            for key in list(self.watchers):
                self._send_watch_update(key, base=0)
        if self._watchers_published:
            self._publish_watchers()

    async def _on_message(self, topic: str, payload: bytes) -> None:
        if topic in (room_topic(self.code), next_topic(self.code)):
            if payload and _digest(payload) in self._own_retained:
                return  # our own message, back from the broker
            if self._within_bounds("room", "own-topics", payload):
                self._on_own_topic(topic, payload)
            elif topic == room_topic(self.code) and not self._closing:
                # Past the budget, unverified: the room goes out again anyway
                # (at most once per REPUBLISH_GAP), so a flood cannot hide it.
                self._schedule_republish()
            return
        presence_peer = topic_peer(topic, f"{self.prefix}/presence")
        if presence_peer is not None and len(payload) > MAX_REQUEST_PAYLOAD:
            self._floods.note("oversize", f"dropped oversized messages on {topic}", self.clock())
            return
        if presence_peer is not None:
            if not self._within_bounds("presence", presence_peer, payload):
                return
            self._on_presence(topic, presence_peer, payload)
            return
        sender = topic_peer(topic, f"{self.prefix}/a")
        if sender is None:
            return
        if len(payload) > MAX_REQUEST_PAYLOAD:
            self._floods.note("oversize", f"dropped oversized messages on {topic}", self.clock())
            return
        known = self._known_requests.get(sender)
        digest = _digest(payload)
        if known is not None and digest in known:
            # An exact copy of a request this seated key signed: a replay
            # (or its own process sending it again), answered as stale.
            self.handle(*known[digest])
            return
        if not self._within_bounds("request", sender, payload):
            return
        try:
            envelope = open_envelope(topic, payload, identity=self.identity, expect_id=sender)
        except WireError as error:
            if error.code == "sealed" and error.sender is not None:
                # Signed by the topic's peer but sealed to another key: most
                # likely this table's former holder's, by a seat that has
                # not yet heard it moved; told so, it seals again to this
                # key (net/peer/remote.py).
                self._refuse(error.sender, error.reason, error.code)
                return
            # Unsigned or forged: there is no one to answer safely.
            self._floods.note(
                f"dropped-{error.code}",
                f"dropped a message on {topic}: {error.reason}",
                self.clock(),
            )
            return
        try:
            message = open_body(envelope, peer_message_decoder, self.identity)
        except WireError as error:
            self._refuse(envelope.sender, error.reason, error.code)
            return
        self._remember_request(sender, digest, envelope, message)
        self.handle(envelope, message)

    def _remember_request(
        self, sender: str, digest: bytes, envelope: Envelope, message: PeerMessage
    ) -> None:
        """Keep a seated key's signed request by its digest (KNOWN_REQUESTS
        per key; keys no longer seated are forgotten)."""
        seated = self._seated_ids()
        if sender not in seated:
            return
        for gone in [each for each in self._known_requests if each not in seated]:
            del self._known_requests[gone]
        known = self._known_requests.setdefault(sender, OrderedDict())
        known[digest] = (envelope, message)
        while len(known) > KNOWN_REQUESTS:
            known.popitem(last=False)

    def _seated_ids(self) -> set[str]:
        return {peer_id(slot.key) for slot in self.seats if slot.kind == HUMAN and slot.key}

    def _within_bounds(self, kind: str, sender: str, payload: bytes) -> bool:
        """Whether a message on ``sender``'s topic is within its budget
        (before any decoding or signature check: the topic's peer id is
        all that is known; the budgets are in docs/protocol.md, "Bounds")."""
        now = self.clock()
        seated = sender in self._seated_ids()
        if seated:
            if self._seated_limits.allow((kind, sender), len(payload), now):
                return True
        elif self.watchers and sender in self._watcher_ids():
            # A watcher: a stranger's budget each, a bounded one in all (issue 21).
            if self._watcher_limits.allow((kind, sender), len(payload), now):
                return True
        elif kind == "presence" and sender in self._followed_ids():
            # A key waiting to sit, whose presence we asked for (bounded).
            if self._followed_limits.allow(sender, len(payload), now):
                return True
        else:
            if self._strangers.allow((kind, sender), len(payload), now):
                self._remember_heard(sender, kind)
                return True
            # Past the strangers' budget: a key heard before (an honest
            # joiner asking again) has a budget of its own, which a flood of
            # one-shot fresh keys never reaches (issue 19 seats item 1).
            heard = sender in self._heard
            self._remember_heard(sender, kind)
            if heard and self._returning.allow(sender, len(payload), now):
                return True
        who = "a seated key's topic" if seated else "keys without a seat"
        self._floods.note(
            f"flood-{kind}-{'seated' if seated else 'strangers'}",
            f"dropped messages past the rate limit ({kind} from {who}; latest on {sender})",
            now,
        )
        return False

    def _remember_heard(self, sender: str, kind: str) -> None:
        """``sender`` (a topic's peer id, unverified) sent something: kept
        among the MAX_HEARD latest stranger ids (16 characters each)."""
        if kind not in ("request", "presence"):
            return
        self._heard[sender] = self._heard.get(sender, 0) + 1
        self._heard.move_to_end(sender)
        while len(self._heard) > MAX_HEARD:
            self._heard.popitem(last=False)

    def _peer_record(self, key: bytes) -> _PeerRecord:
        """``key``'s record, made if new; records of keys holding no seat are
        at most MAX_STRANGERS (the oldest forgotten first)."""
        record = self._peers.get(key)
        if record is not None:
            return record
        record = self._peers[key] = _PeerRecord()
        if len(self._peers) > MAX_STRANGERS + len(self.seats):
            seated = {slot.key for slot in self.seats if slot.key is not None}
            for old in list(self._peers):
                if len(self._peers) <= MAX_STRANGERS + len(self.seats):
                    break
                # A watcher's record is its place (issue 21): a flood of
                # fresh keys must not make it look gone.
                if (
                    old not in seated
                    and old not in self._former
                    and old not in self.watchers
                    and old != key
                ):
                    del self._peers[old]
        return record

    def _on_own_topic(self, topic: str, payload: bytes) -> None:
        """A message on this room's retained topics: ours (an echo), or
        someone else's (a squatter's state, an empty message that clears
        ours): the host is warned and the room published again at once, so
        that joiners read the authority's state (issue 19 item 5)."""
        signer: bytes | None = None
        if payload:
            try:
                signer = open_envelope(topic, payload).sender
            except WireError:
                signer = None
            if signer == self.identity.public_key:
                return
        if self._closing:
            return
        what = "a room state" if topic == room_topic(self.code) else "a next-game notice"
        if signer is None:
            text = (
                f"someone cleared or garbled {what} of room {self.shown_code} on the broker: "
                "the room was published again"
            )
            marker = b""
        else:
            text = (
                f"another key ({fingerprint(signer)}) published {what} on room code "
                f"{self.shown_code}: someone may pose as this room. It was published again; "
                "players should check that their lobby shows this host's key "
                f"{fingerprint(self.identity.public_key)}"
            )
            marker = signer
        if signer in self.predecessors:
            pass  # the state of the authority this one took over from: replaced
        elif marker not in self._warned and len(self._warned) < MAX_WARNED:
            self._warned.add(marker)
            self.warnings.append(text)
            self._log.warning(text)
            for callback in list(self.on_warning):
                callback(text)
        if topic == room_topic(self.code):
            self._schedule_republish()
        elif self.phase == OVER and self._next_code is not None:
            self.announce_next(self._next_code)

    def _announcement(self) -> bytes | None:
        """Its voter's announcement of the term it leads, when this table
        was taken over (or could be: a room that fails over), published
        wherever this table's state is: the voter's own link may be on
        another broker of the succession, and a peer pinned to the former
        key, finding this state without it, refused it as "signed by
        another key" (found by hand in a play-test with a watcher, 5
        December). Again with the state whenever another's replaced it: an
        old authority back from a freeze sends both once before it learns
        of the higher term."""
        return self.replica.driver.announcement() if self.replica is not None else None

    def _schedule_republish(self) -> None:
        """Publish the room state again now, or (two squatters' worth of
        fighting bounded) at most once per REPUBLISH_GAP."""
        if self._republish is not None:
            return
        wait = self._last_republish + REPUBLISH_GAP - time.monotonic()

        def again() -> None:
            self._republish = None
            self._last_republish = time.monotonic()
            if not self._closing:
                self._enqueue(room_topic(self.code), self._room_payload(), retain=True)
                announcement = self._announcement()
                if announcement is not None:
                    self._enqueue(authority_topic(self.code), announcement, retain=True)

        if wait <= 0:
            again()
        else:
            self._republish = asyncio.get_running_loop().call_later(wait, again)

    def handle(self, envelope: Envelope, message: PeerMessage) -> None:
        key = envelope.sender
        self._log.debug("from %s: %r", peer_id(key), message)
        now = self.clock()
        if message.room != self.code:
            self._refuse(
                key, f"this is room {self.shown_code}, not {message.room}", "bad", message.n
            )
            return
        record = self._peer_record(key)
        nonce = (message.epoch, message.n)
        if nonce <= record.last_nonce:
            # A replayed or reordered request: refuse it, and re-synchronise
            # the sender so that it does not act on an outdated picture; a
            # replay flood is answered once per interval (issue 19 item 4).
            self._floods.note("stale", f"refused old or repeated requests of {peer_id(key)}", now)
            seat = self._seat_of(key)
            # The seat's latest request again (its action re-sent after the
            # table moved, docs/election.md "Clients"): the answer it had,
            # the seat's view acknowledging it, and no refusal: it was
            # handled once, and is not handled again (issue 20). Each kind
            # of answer is bounded on its own, once per interval.
            latest = nonce == record.last_nonce and seat is not None and self.table is not None
            if not self._log_answers.allow(("latest" if latest else "stale", key), now):
                return
            if not latest:
                self._refuse(key, "an old or repeated request was ignored", "stale", message.n)
            if seat is not None:
                self._send_update(seat, base=0, answer=True)
            return
        # A Watch costs what a Hello does (a presence followed, an answer):
        # it is held to the same budget (issue 21).
        hello = isinstance(message, (Hello, Watch))
        if not self._requests.allow(key, 1, now) or (hello and not self._hellos.allow(key, 1, now)):
            self._floods.note(
                "requests", f"dropped requests of {peer_id(key)} past the rate limit", now
            )
            return
        record.last_nonce = nonce
        self._heard_from(key)  # a fresh request: its process is alive
        # A replay after a restart must still be refused: the nonce goes to
        # disk, for a seated key (only their marks are kept, issue 19 item 3).
        self._unsaved = True
        seated = self._seat_of(key) is not None
        if isinstance(message, Hello):
            self._on_hello(key, message)
        elif isinstance(message, Act):
            self._on_act(key, message)
        elif isinstance(message, Sync):
            self._on_sync(key, message)
        elif isinstance(message, Leave):
            self._on_leave(key, message)
        elif isinstance(message, Watch):
            self._on_watch(key, message)
        elif isinstance(message, Admit):
            self._on_admit(key, message)
        elif isinstance(message, Again):
            self._on_again(key)
        elif isinstance(message, StartNow):
            self._on_start_now(key)
        if seated and self._seat_of(key) is None:  # gave up their seat
            self._former.pop(key, None)
            self._former[key] = None
            while len(self._former) > MAX_FORMER:
                del self._former[next(iter(self._former))]
        if self._unsaved and (seated or self._seat_of(key) is not None):
            self._save(durable=False)
        self._unsaved = False

    def _seat_of(self, key: bytes) -> int | None:
        for seat, slot in enumerate(self.seats):
            if slot.kind == HUMAN and slot.key == key:
                return seat
        return None

    def _on_hello(self, key: bytes, hello: Hello) -> None:
        self._seat_hello(key, hello)
        if key == self.owner:
            self._owner_told = None  # (re)seated: it is told the knocks again
            self._tell_owner()
        # Whether this person stands for the table (issue 20), as their
        # latest Hello says; kept for seated keys only (bounded).
        seated = {slot.key for slot in self.seats if slot.key is not None}
        outlook = self.failover_outlook()
        self.declined &= seated
        if key in seated and not hello.stand:
            self.declined.add(key)
        else:
            self.declined.discard(key)
        if self.phase == LOBBY and self.failover_outlook() != outlook:
            self._publish_room()  # the lobby's failover line, everyone's

    def _seat_hello(self, key: bytes, hello: Hello) -> None:
        seat = self._seat_of(key)
        if (
            seat is not None
            and self.phase == LOBBY
            and hello.seat is not None
            and hello.seat != seat
        ):
            self._move_seat(key, seat, hello)
            return
        if seat is not None:  # the same key again: a reconnection
            # Present only with a live presence (its Presence comes first).
            self.seats[seat].present = self._live_presence(key)
            if hello.bot and self.phase == LOBBY:  # a resumed room forgets it
                self.seats[seat].plays = self.seats[seat].plays or REPLACEMENT_BOT
            # Its clock, unsaid: a Hello is a person coming, whose presence
            # may come just after it (at a table taken over, each seat's
            # Hello did: "Joe is away: a bot plays for them in 30 s" was said
            # of Joe at 12 of 14 moves in a play-test).
            self._away_changed(seat, announce=False)
            self._lobby_presence_changed(seat)
            if self.phase == PLAYING:
                self._back_from_stand_in(seat)  # their seat is theirs again
            self._to_peer(key, Welcome(room=self.code, seat=seat))
            self._send_update(seat, base=hello.have, answer=True)
            self._publish_room()
            return
        if self.phase != LOBBY:
            said = {
                OVER: f"the game in room {self.shown_code} is over",
                CLOSED: f"room {self.shown_code} is closed",
            }.get(self.phase, f"the game in room {self.shown_code} has already started")
            if self.phase == PLAYING and key in self._former:
                # Their own leaving (a play-test's player, back from a call,
                # read only "has already started").
                said = (
                    f"you left the game in room {self.shown_code}, and a bot plays on in "
                    "your place: a seat left is not taken back"
                )
            self._refuse(key, said, "started", hello.n)
            return
        if hello.seat is not None and hello.seat >= len(self.seats):
            self._refuse(key, f"there is no seat {hello.seat + 1}", "bad", hello.n)
            return
        if not self._admission(key, hello):
            return
        self._seat_new(key, hello)

    def _seat_new(self, key: bytes, hello: Hello, *, fallback: bool = False) -> None:
        """Seat a key let in: the seat asked for (or, ``fallback``, any
        free one if it is taken), any free one, else one held by a key that
        never showed a live presence (a squatter's, issue 19 item 2)."""
        free = [n for n, slot in enumerate(self.seats) if slot.kind == OPEN]
        if hello.seat is not None and (hello.seat in free or not fallback):
            if hello.seat not in free:
                self._refuse(key, f"seat {hello.seat + 1} is taken", "taken", hello.n)
                return
            seat = hello.seat
        elif free:
            seat = free[0]
        else:
            squatted = self._provisional()
            if not squatted:
                self._refuse(key, self._full(), "full", hello.n)
                return
            seat = squatted[0]
            held = self.seats[seat]
            assert held.key is not None
            self._refuse(held.key, f"seat {seat + 1} went to someone present", "removed")
            self._notice = (
                f"someone (key {fingerprint(held.key)}) took seat {seat + 1} without "
                "showing up: it went to the next person who asked"
            )
            self._log.warning(self._notice)
        name = self._unique_name(clean_name(hello.name), seat)
        self.admitted.add(key)
        self.knocks.pop(key, None)
        # A seat is bound to the key that took it (and only that key); it
        # is present only once that key's live presence is seen.
        self.seats[seat] = SeatSlot(
            name,
            HUMAN,
            key=key,
            present=self._live_presence(key),
            plays=REPLACEMENT_BOT if hello.bot else "",
            since=time.monotonic(),
        )
        # A bot makes way for a person of its name (issue 18: "ada" beside a
        # bot "Ada" reads as one player): in the lobby, it takes another.
        for number, slot in enumerate(self.seats):
            if slot.kind == BOT and name_key(slot.name) == name_key(name):
                slot.name = _bot_name(number, self.seats)
        self._log.info("%r took seat %d", name, seat + 1)
        self._to_peer(key, Welcome(room=self.code, seat=seat))
        self._lobby_presence_changed(seat)
        self._publish_room()

    def _live_presence(self, key: bytes) -> bool:
        """Online by its newest presence record and, where a bound is set,
        heard within it (issue 19 seats item 5)."""
        record = self._peers.get(key)
        if record is None or not record.online:
            return False
        return self.presence_timeout is None or self.clock() - record.heard <= self.presence_timeout

    def watch_presence(self, seconds: float | None) -> None:
        """From now on a seated key not heard for ``seconds`` (no presence
        record, which peers re-publish every PRESENCE_BEAT seconds, and no
        request) is not present, as if its will had come; ``None``: its
        presence record alone says (issue 19 seats item 5)."""
        self.presence_timeout = seconds
        if self._presence_watch is not None:
            self._presence_watch.cancel()
            self._presence_watch = None
        if seconds is not None and loop_running():
            self._check_presences()

    def _check_presences(self) -> None:
        """Every quarter of the bound: seats whose key went unheard too long
        are away (a bot may stand in; in the lobby, the seat may be freed)."""
        self._presence_watch = None
        if self.presence_timeout is None or self._closing:
            return
        stale = [
            seat
            for seat, slot in enumerate(self.seats)
            if slot.kind == HUMAN
            and slot.key is not None
            and slot.present
            and not self._live_presence(slot.key)
        ]
        for seat in stale:
            slot = self.seats[seat]
            slot.present = False
            self._log.info("%s was not heard for %g s: away", slot.name, self.presence_timeout)
            self._away_changed(seat)
        if stale:
            self._publish_room()
            for seat in stale:
                self._lobby_presence_changed(seat)
        self._presence_watch = asyncio.get_running_loop().call_later(
            max(self.presence_timeout / 4, 0.05), self._check_presences
        )

    def _heard_from(self, key: bytes) -> None:
        """A presence or a request of ``key`` came: it is alive. A seat it
        holds that the bound had marked away is present again."""
        record = self._peers.get(key)
        if record is None:
            return
        record.heard = self.clock()
        seat = self._seat_of(key)
        if seat is None or self.seats[seat].present or not self._live_presence(key):
            return
        self.seats[seat].present = True
        self._away_changed(seat)
        if self.phase == PLAYING:
            self._back_from_stand_in(seat)  # as its Hello would
        self._publish_room()
        self._lobby_presence_changed(seat)

    def _provisional(self) -> list[int]:
        """Lobby seats held for a while by keys that never showed a live
        presence: nobody is there to play them."""
        now = time.monotonic()
        held: list[int] = []
        for n, slot in enumerate(self.seats):
            if slot.kind != HUMAN or slot.key is None or now - slot.since < PROVISIONAL_GRACE:
                continue
            record = self._peers.get(slot.key, _PeerRecord())
            if not record.ever_online and not record.online:
                held.append(n)
        return held

    def free_absent(self) -> list[int]:
        """Free every lobby seat whose holder shows no live presence (a
        headless host before it starts); the seats freed."""
        if self.phase != LOBBY:
            return []
        freed = [n for n, slot in enumerate(self.seats) if slot.kind == HUMAN and not slot.present]
        for seat in freed:
            self._free_seat(seat, "no live presence")
        return freed

    def _free_seat(self, seat: int, why: str) -> None:
        slot = self.seats[seat]
        if slot.key is not None:
            self._refuse(
                slot.key, f"your seat in room {self.shown_code} was freed: {why}", "removed"
            )
        self.seats[seat] = SeatSlot(f"Seat {seat + 1}")
        timer = self._lobby_timers.pop(seat, None)
        if timer is not None:
            timer.cancel()
        if slot.plays:
            self._notice = f"the bot {slot.name} went away: seat {seat + 1} is free"
        elif slot.key is not None and not self._peers.get(slot.key, _PeerRecord()).ever_online:
            self._notice = (
                f"someone (key {fingerprint(slot.key)}) took seat {seat + 1} without "
                "showing up: it is free again"
            )
        else:
            self._notice = f"{slot.name} was away too long: seat {seat + 1} is free"
        self._log.info(self._notice)
        self._publish_room()

    def _lobby_presence_changed(self, seat: int) -> None:
        """In the lobby, a seat with no live presence is freed: a bot
        process's at once (it does not come back), a person's after
        ``free_away_after`` seconds (None: the host decides)."""
        timer = self._lobby_timers.pop(seat, None)
        if timer is not None:
            timer.cancel()
        slot = self.seats[seat]
        if self.phase != LOBBY or slot.kind != HUMAN or slot.present or not loop_running():
            return
        record = self._peers.get(slot.key) if slot.key is not None else None
        if slot.plays and record is not None and record.ever_online:
            self._free_seat(seat, "its bot went away")
            return
        if self.free_away_after is None:
            return
        loop = asyncio.get_running_loop()
        self._lobby_timers[seat] = loop.call_later(
            self.free_away_after, self._free_if_absent, seat, slot.key
        )

    def _free_if_absent(self, seat: int, key: bytes | None) -> None:
        self._lobby_timers.pop(seat, None)
        slot = self.seats[seat]
        if self.phase == LOBBY and slot.kind == HUMAN and slot.key == key and not slot.present:
            self._free_seat(seat, f"no live presence for {self.free_away_after:g} s")

    def _move_seat(self, key: bytes, seat: int, hello: Hello) -> None:
        """In the lobby, a seated person moves to another free seat (e.g. to
        sit with a partner, where the game has teams)."""
        wanted = hello.seat
        assert wanted is not None
        if wanted >= len(self.seats):
            self._refuse(key, f"there is no seat {wanted + 1}", "bad", hello.n)
            return
        if self.seats[wanted].kind != OPEN:
            self._refuse(key, f"seat {wanted + 1} is taken", "taken", hello.n)
            return
        moving = self.seats[seat]
        self.seats[wanted] = SeatSlot(
            moving.name,
            HUMAN,
            key=key,
            present=self._live_presence(key),
            plays=moving.plays,
            since=moving.since,
        )
        self.seats[seat] = SeatSlot(f"Seat {seat + 1}")
        self._lobby_presence_changed(seat)
        self._lobby_presence_changed(wanted)
        self._to_peer(key, Welcome(room=self.code, seat=wanted))
        self._publish_room()

    def _unique_name(self, name: str, seat: int) -> str:
        # Compared as read (name_key): "bruno" beside "Bruno" reads as one
        # person in a verdict. Only people count: a bot makes way (_on_hello).
        taken = {
            name_key(slot.name)
            for n, slot in enumerate(self.seats)
            if n != seat and slot.kind == HUMAN
        }
        if name_key(name) not in taken:
            return name
        for number in range(2, 20):
            candidate = f"{clean_text(name, NAME_CELLS - 3)} {number}"
            if name_key(candidate) not in taken:
                return candidate
        return name

    def _on_act(self, key: bytes, act: Act) -> None:
        seat = self._seat_of(key)
        if seat is None:
            self._refuse(key, "you have no seat at this table", "unseated", act.n)
            return
        if act.seat != seat:
            self._refuse(
                key,
                f"you sit in seat {seat + 1}: you cannot act for seat {act.seat + 1}",
                "seat",
                act.n,
            )
            self._send_update(seat, base=0, answer=True)
            return
        if self.phase != PLAYING or self.table is None:
            reason = "the game is over" if self.phase == OVER else "the game has not started"
            self._refuse(key, reason, "illegal", act.n)
            return
        if act.at > self.seq:
            self._refuse(key, "an action for a state that does not exist yet", "bad", act.n)
            self._send_update(seat, base=0, answer=True)
            return
        try:
            self.table.submit(seat, act.action)
        except IllegalAction as error:
            # The refusal travels with the seat's current view: a peer that
            # acted on an outdated picture is re-synchronised at once.
            self._send_update(seat, base=len(self._logs.get(seat, [])), rejected=error.reason)

    def _on_sync(self, key: bytes, sync: Sync) -> None:
        seat = self._seat_of(key)
        if seat is None and key in self.watchers:
            self._send_watch_update(key, base=sync.have, answer=True)
            return
        if seat is None:
            self._refuse(key, "you have no seat at this table", "unseated", sync.n)
            return
        if self.table is None:
            self._to_peer(key, Welcome(room=self.code, seat=seat))
            return
        self._send_update(seat, base=sync.have, answer=True)

    def _on_leave(self, key: bytes, leave: Leave) -> None:
        seat = self._seat_of(key)
        if seat is None:
            if self.watchers.pop(key, None) is not None:
                self._watchers_changed()
            return
        name = self.seats[seat].name
        if self.phase == LOBBY:
            # The key is unbound with the seat: it gives no hold on the next taker.
            self.seats[seat] = SeatSlot(f"Seat {seat + 1}")
            self._notice = f"{name} left"
            if key == self.owner:
                self._closing_notice = f"{name[:64]}, who asked for this room, left: it is closed"
                self.owner_left.set()
        elif self.phase == PLAYING and self.table is not None:
            self.seats[seat] = SeatSlot(name, BOT, REPLACEMENT_BOT, present=True, replaced=True)
            self._logs.pop(seat, None)
            self.table.hand_to_bot(seat, REPLACEMENT_BOT)
            self._notice = f"{name} left the game; a bot plays for them"
        else:
            self.seats[seat].present = False
            self._notice = f"{name} left"
        self._log.info(self._notice)
        self._publish_room()

    # -- spectators (issue 21; docs/protocol.md, "Watching") --------------------

    def _watcher_ids(self) -> set[str]:
        return {peer_id(key) for key in self.watchers}

    def _watching_live(self, key: bytes) -> bool:
        """A watcher's place holds while its presence is online and it was
        heard (a beat, a request) within WATCH_LEASE."""
        record = self._peers.get(key)
        return record is not None and record.online and self.clock() - record.heard <= WATCH_LEASE

    def _on_watch(self, key: bytes, watch: Watch) -> None:
        """A key asks to watch: a place among MAX_WATCHERS once its live
        presence is seen (as a new key's Hello waits for it), then the
        public view and log from ``watch.have``, sealed to it."""
        if self._seat_of(key) is not None:
            self._refuse(key, "you sit at this table: your seat shows it to you", "seated", watch.n)
            return
        if self.phase == CLOSED:
            self._refuse(key, f"room {self.shown_code} is closed", "closed", watch.n)
            return
        if key not in self.watchers:
            if not self._watching_live(key):
                self._await_presence(key, watch)  # handled again when it comes
                return
            self._drop_stale_watchers()
            if len(self.watchers) >= MAX_WATCHERS:
                self._refuse(
                    key, f"This table already has {MAX_WATCHERS} watchers", "watchers", watch.n
                )
                return
            self.watchers[key] = self.clock()
            self._log.info("key %s watches (%d watching)", fingerprint(key), len(self.watchers))
            self._watchers_changed()
        self._to_peer(key, Watched(room=self.code, watchers=len(self.watchers)))
        self._send_watch_update(key, base=watch.have, answer=True)

    def _public_view_data(self) -> dict[str, Any]:
        """The spectator's view now, encoded (once per change, whatever the
        number of watchers)."""
        assert self.table is not None
        if self._public_view is None or self._public_view[0] != self.seq:
            self._public_view = (self.seq, self.codec.encode_view(self.table.state.view(None)))
        return self._public_view[1]

    def _send_watch_update(self, key: bytes, *, base: int, answer: bool = False) -> None:
        """A watcher's update: the public view and the public log from
        ``base``; a long log answered at most once per LOG_ANSWER_INTERVAL,
        as a seat's is."""
        if self.table is None or key not in self.watchers:
            return
        base = min(base, len(self._public_log))
        if (
            answer
            and len(self._public_log) - base > LOG_ANSWER_EVENTS
            and not self._log_answers.allow(key, self.clock())
        ):
            self._floods.note(
                "log-answer", "did not send a watcher the log again so soon", self.clock()
            )
            return
        record = self._peers.get(key)
        update = Update(
            room=self.code,
            seq=self.seq,
            view=self._public_view_data(),
            base=base,
            events=self._public_log[base:],
            ack=record.last_nonce[1] if record is not None else 0,
        )
        for page in paged(update, PAGE_BYTES):
            self._to_peer(key, page)

    def _drop_stale_watchers(self) -> bool:
        """Forget watchers whose presence went quiet; whether any was."""
        stale = [key for key in self.watchers if not self._watching_live(key)]
        for key in stale:
            del self.watchers[key]
            self._log.info("key %s stopped watching (not heard)", fingerprint(key))
        return bool(stale)

    def _check_watchers(self) -> None:
        """Every quarter of the lease while anyone watches."""
        self._watch_timer = None
        if self._closing:
            return
        if self._drop_stale_watchers():
            self._watchers_changed()
        elif self.watchers:
            self._arm_watch_timer()

    def _arm_watch_timer(self) -> None:
        if self._watch_timer is None and self.watchers and loop_running():
            self._watch_timer = asyncio.get_running_loop().call_later(
                WATCH_LEASE / 4, self._check_watchers
            )

    def _watchers_changed(self) -> None:
        """The number watching changed: presences followed, the count
        published (retained), the host's screen told."""
        self._follow_presences()
        self._arm_watch_timer()
        self._publish_watchers()
        for callback in list(self.on_change):
            callback()

    def _publish_watchers(self) -> None:
        self._watchers_published = True
        topic = watchers_topic(self.code)
        count = Watchers(room=self.code, count=len(self.watchers), stamp=self._next_stamp())
        self._enqueue(topic, seal(self.identity, topic, count), retain=True, barrier=0)

    def _on_presence(self, topic: str, sender: str, payload: bytes) -> None:
        try:
            envelope = open_envelope(topic, payload)
            presence = open_body(envelope, presence_decoder)
        except WireError:
            return
        if peer_id(envelope.sender) != sender or presence.room != self.code:
            return
        self._log.debug(
            "presence of %s: epoch %d, %s",
            sender,
            presence.epoch,
            "online" if presence.online else "gone",
        )
        record = self._peer_record(envelope.sender)
        # Sparkplug's STATE rule: a will or record older than the newest
        # epoch seen is ignored, so a late will cannot mark a live peer gone.
        if presence.epoch < record.presence_epoch:
            return
        if presence.epoch == record.presence_epoch and presence.online and not record.online:
            return  # a stale "online" after this epoch's will
        beat = presence.epoch == record.presence_epoch and presence.online and record.online
        record.presence_epoch = presence.epoch
        record.online = presence.online
        record.ever_online = record.ever_online or presence.online
        if presence.online:
            record.heard = self.clock()  # alive now (issue 19 seats item 5)
            broker = parse_broker(presence.broker)
            if broker is not None and broker != record.broker:
                record.broker = broker
                self._standby_news.set()
        key = envelope.sender
        if not presence.online:
            if self.watchers.pop(key, None) is not None:
                self._watchers_changed()  # a watcher gone frees its place (issue 21)
            # Gone: nobody to let in; the host's lobby updates (issue 19 seats item 2).
            gone = self.knocks.pop(key, None)
            if self._candidates.pop(key, None) is not None:
                self._follow_presences()  # nobody waits on it any more
            if gone is not None:
                self._log.info("%s (key %s) stopped knocking: gone", gone.name, fingerprint(key))
                self._changed()
        elif key in self._candidates:
            self._candidate_present(key)
            return
        seat = self._seat_of(key)
        if seat is not None and presence.online and self._missed:
            # Back after the end (subscribed before it says so): the
            # retained final state has reached them.
            self._missed.discard(seat)
        if beat:
            # The same connection's record again (issue 19 seats item 5): a seat
            # the bound marked away is theirs again at once.
            self._heard_from(key)
            return
        live = self._live_presence(key)
        if seat is not None and self.seats[seat].present != live:
            self.seats[seat].present = live
            self._away_changed(seat)
            self._publish_room()
            self._lobby_presence_changed(seat)


def _spans(saved: Sequence[tuple[int, int | None]]) -> list[tuple[int, int | None]]:
    """A saved seat's stand-in spans as its updates may carry them: well
    formed, the latest STOOD_IN_SPANS (a damaged file or log entry with
    more made every update to that seat one its peer refuses)."""
    kept = [(start, end) for start, end in saved if start >= 0 and (end is None or end >= start)]
    return kept[-STOOD_IN_SPANS:]


def _duration(seconds: float) -> str:
    """``seconds`` in words: "30 s", "2 min", "1 min 30 s"."""
    whole = max(0, round(seconds))
    minutes, rest = divmod(whole, 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min" if not rest else f"{minutes} min {rest} s"


def _digest(payload: bytes) -> bytes:
    return hashlib.blake2b(payload, digest_size=16).digest()


_body_size = msgspec.msgpack.Encoder()


def paged(update: Update, budget: int) -> list[Update]:
    """``update`` as one or more updates, each with a body of at most about
    ``budget`` bytes (issue 19 item 8): a long log (a long dominoes game to a
    high target) would otherwise pass the 256 KiB payload limit and every
    peer would drop it. The pages carry the same ``seq``, view and ``ack``
    and consecutive ``base``s, in order on one topic: a peer of protocol 1
    appends each page's events as it appends any update's (an update of the
    same ``seq`` is not older), so nothing new is needed on its side. Only
    the last page carries ``rejected``. A single event larger than a page
    goes alone (it is never split)."""
    whole = len(_body_size.encode(update))
    if whole <= budget or len(update.events) <= 1:
        return [update]
    fixed = len(_body_size.encode(msgspec.structs.replace(update, events=[], rejected=None)))
    room = max(budget - fixed, 1)
    pages: list[Update] = []
    start, size = 0, 0
    sizes = [len(_body_size.encode(event)) for event in update.events]
    for index, event_size in enumerate(sizes):
        if index > start and size + event_size > room:
            pages.append(
                msgspec.structs.replace(
                    update,
                    base=update.base + start,
                    events=update.events[start:index],
                    rejected=None,
                )
            )
            start, size = index, 0
        size += event_size
    pages.append(
        msgspec.structs.replace(update, base=update.base + start, events=update.events[start:])
    )
    return pages


def _bot_name(seat: int, seats: Sequence[SeatSlot]) -> str:
    """A bot's name for ``seat``: one of the table's bot names not yet used."""
    # Compared as people's names are (name_key): no bot "Bruno" beside a
    # person "bruno" (issue 18).
    taken = {name_key(slot.name) for n, slot in enumerate(seats) if n != seat}
    for name in BOT_NAMES[seat - 1 :] + BOT_NAMES:
        if name_key(name) not in taken:
            return name
    return f"Bot {seat + 1}"


__all__ = ["ADMISSIONS", "Authority", "Knock", "SeatSlot", "clean_name", "paged"]
