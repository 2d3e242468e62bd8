"""The wire format of protocol v2: topics, envelopes and message bodies.

Every MQTT payload is a msgpack :class:`Envelope` from its sender's key,
bound to its topic, so that a message cannot be forged, nor moved to another
room or topic. A public body is signed (Ed25519, over the topic and the
body). A private body is sealed (NaCl ``Box``, Curve25519 +
XSalsa20-Poly1305) from the sender's key to the one recipient's, its topic
inside: the seal's authentication says who sent it, to its one reader, for
a fifth of a signature's cost to make and check. A seat's requests, which
carry its actions, are signed as well (the design card: "actions are
signed"); nothing else sealed is (docs/protocol.md section 4).
Bodies are tagged msgspec structs: msgspec decodes and checks every field's
type and bound in one pass, so nothing unchecked reaches the authority or the
table. ``docs/protocol.md`` is the reference; this module is its code.

Nothing here trusts the network: :func:`open_envelope` and
:func:`open_body` raise :class:`WireError` (with a reason fit to send back)
for anything oversized, malformed, of another version, badly signed, not
decryptable or sealed for another topic.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Annotated, Any, Final, Literal, TypeVar

import msgspec
from msgspec import Meta, Struct
from nacl.exceptions import CryptoError

from net.identity import (
    PUBLIC_KEY_SIZE,
    SIGNATURE_SIZE,
    Identity,
    is_peer_id,
    peer_id,
    verify,
)

T = TypeVar("T")

# 2: a sealed body is authenticated by its seal, and signed only when it is
# a seat's request (7 December).
PROTOCOL_VERSION: Final = 2
# A fashion view may list several hundred legal actions; 256 KiB leaves room
# and still bounds what one message can make a peer allocate.
MAX_PAYLOAD: Final = 256 * 1024
# Every version meets on the first version's topics, so that a peer of
# another version is refused by name (the envelope's ``v``), never unseen.
TOPIC_ROOT: Final = "passe/v1"

Name = Annotated[str, Meta(min_length=1, max_length=40)]
SHORT_TEXT: Final = 400
ShortText = Annotated[str, Meta(max_length=SHORT_TEXT)]
Count = Annotated[int, Meta(ge=0, le=2**53)]
SeatIndex = Annotated[int, Meta(ge=0, le=15)]
Code = Annotated[str, Meta(min_length=6, max_length=6)]
PeerId = Annotated[str, Meta(min_length=16, max_length=16)]


def short_text(text: str) -> str:
    """``text`` within a :data:`ShortText`'s bound, cut with an ellipsis: a
    reason made here may quote what a peer sent (an action of 400
    characters, the engine's words around it), and a body with a longer
    text is refused whole by its reader (found by a client written from
    docs/protocol.md alone: a 492-character ``rejected``)."""
    return text if len(text) <= SHORT_TEXT else text[: SHORT_TEXT - 1] + "…"


class WireError(ValueError):
    """A payload that is refused; ``reason`` is fit to send back."""

    def __init__(self, reason: str, code: str = "bad", sender: bytes | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        # The claimed (unverified) sender of a message refused as another's
        # (code ``sender``): enough to say "another key", never trusted.
        self.sender = sender


# --------------------------------------------------------------------------
# Topics: a room is only a topic prefix.


def room_prefix(code: str) -> str:
    return f"{TOPIC_ROOT}/{code}"


def room_topic(code: str) -> str:
    """Retained, public, signed by the authority: the room's state."""
    return f"{room_prefix(code)}/room"


def next_topic(code: str) -> str:
    """Retained, public, signed by the authority, once the game is over and
    its host has opened the next game for the same table."""
    return f"{room_prefix(code)}/next"


def presence_topic(code: str, peer: str) -> str:
    """Retained, public, signed by the peer: online or gone, with an epoch."""
    return f"{room_prefix(code)}/presence/{peer}"


def to_authority_topic(code: str, peer: str) -> str:
    """A peer's requests, sealed to the authority."""
    return f"{room_prefix(code)}/a/{peer}"


def to_peer_topic(code: str, peer: str) -> str:
    """The authority's messages to one peer, sealed to that peer."""
    return f"{room_prefix(code)}/p/{peer}"


def watchers_topic(code: str) -> str:
    """Retained, public, signed by the authority: how many watch the room
    (issue 21). A topic of its own, so that the room state (which refuses
    unknown fields) is unchanged for earlier peers, who never subscribe here."""
    return f"{room_prefix(code)}/watchers"


def topic_peer(topic: str, prefix: str) -> str | None:
    """The peer id ending ``topic`` when it is ``prefix/<peer id>``."""
    if not topic.startswith(prefix + "/"):
        return None
    rest = topic[len(prefix) + 1 :]
    return rest if is_peer_id(rest) else None


# --------------------------------------------------------------------------
# The envelope


class Envelope(Struct, array_like=True, forbid_unknown_fields=True):
    """``[version, sender public key, sealed, body, signature]``: the
    signature of a public body and of a seat's sealed request; empty beside
    any other sealed body, whose seal authenticates it. :func:`open_envelope`
    gives a sealed one back opened (its ``body`` the plaintext)."""

    v: int
    sender: Annotated[bytes, Meta(min_length=PUBLIC_KEY_SIZE, max_length=PUBLIC_KEY_SIZE)]
    sealed: bool
    body: bytes
    sig: Annotated[bytes, Meta(max_length=SIGNATURE_SIZE)]


_envelope_decoder = msgspec.msgpack.Decoder(Envelope)
_encoder = msgspec.msgpack.Encoder()


def _signed_bytes(topic: str, sealed: bool, body: bytes) -> bytes:
    return b"passe/1\0" + topic.encode() + (b"\1" if sealed else b"\0") + body


def _signs_sealed(topic: str) -> bool:
    """Whether a sealed body on ``topic`` is signed too: a seat's requests
    to the authority (``a/<peer id>``), which carry its actions."""
    parts = topic.split("/")
    return len(parts) == 5 and topic_peer(topic, f"{room_prefix(parts[2])}/a") is not None


def _sealed_head(topic: str) -> bytes:
    """What a sealed body's plaintext starts with: its topic. A topic never
    holds U+0000 (MQTT forbids it), so the end is unambiguous."""
    return b"passe/2 sealed\0" + topic.encode() + b"\0"


def seal(identity: Identity, topic: str, message: Struct, recipient: bytes | None = None) -> bytes:
    """The payload carrying ``message`` on ``topic``: sealed to ``recipient``
    (a public key) when given, else signed."""
    body = _encoder.encode(message)
    if recipient is None:
        signature = identity.sign(_signed_bytes(topic, False, body))
        return _encoder.encode(
            Envelope(PROTOCOL_VERSION, identity.public_key, False, body, signature)
        )
    # The seal's authenticator, under the key only the two share, already
    # says who sent it, and its topic inside says which way (a message
    # turned back at its sender, or moved to another topic of the two, does
    # not open there). Signing and checking cost five times sealing and
    # opening (section 4), on both processes of each hop of a move: only a
    # seat's actions are signed as well.
    sealed = bytes(identity.box_with(recipient).encrypt(_sealed_head(topic) + body))
    signature = identity.sign(_signed_bytes(topic, True, sealed)) if _signs_sealed(topic) else b""
    return _encoder.encode(Envelope(PROTOCOL_VERSION, identity.public_key, True, sealed, signature))


def open_envelope(
    topic: str,
    payload: bytes,
    *,
    identity: Identity | None = None,
    expect_id: str | None = None,
    expect_key: bytes | None = None,
) -> Envelope:
    """Check size, version and the sender: a public body's signature, a
    sealed body's seal (opened with ``identity``, the one recipient: without
    it a sealed message is refused) and, on a seat's request topic, its
    signature too. The body is not decoded yet; a sealed envelope comes back
    opened, its ``body`` the plaintext.

    Bounded in time and memory (issue 19 item 4): the only decoder that runs
    is the envelope's own schema, which stops at the first field out of
    place; a payload that fails it is never decoded without a schema (a
    256 KiB array of empty arrays cost 150-250 ms that way), only its first
    bytes are read for a version number (:func:`_version_of`). ``expect_id``
    (the peer id a topic names) or ``expect_key`` (the one key that may send
    there) refuse another sender before its signature is checked (code
    ``sender``): a flood signed by other keys costs no verification."""
    if len(payload) > MAX_PAYLOAD:
        raise WireError(f"message of {len(payload)} bytes: the limit is {MAX_PAYLOAD}", "size")
    try:
        envelope = _envelope_decoder.decode(payload)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        version = _version_of(payload)
        if version is not None and version != PROTOCOL_VERSION:
            raise WireError(
                f"protocol version {version}; this Passe speaks version {PROTOCOL_VERSION}",
                "version",
            ) from None
        raise WireError("not a Passe message (malformed envelope)") from None
    if envelope.v != PROTOCOL_VERSION:
        raise WireError(
            f"protocol version {envelope.v}; this Passe speaks version {PROTOCOL_VERSION}",
            "version",
        )
    if expect_id is not None and peer_id(envelope.sender) != expect_id:
        raise WireError("signed by another peer", "sender", envelope.sender)
    if expect_key is not None and envelope.sender != expect_key:
        raise WireError("not from this room's host", "sender", envelope.sender)
    if envelope.sealed and identity is None:
        raise WireError("a sealed message where a public one was expected")
    signed = not envelope.sealed or _signs_sealed(topic)
    if len(envelope.sig) != (SIGNATURE_SIZE if signed else 0):
        raise WireError("not a Passe message (malformed envelope)")
    if signed and not verify(
        envelope.sender, _signed_bytes(topic, envelope.sealed, envelope.body), envelope.sig
    ):
        raise WireError("bad signature", "signature")
    if not envelope.sealed:
        return envelope
    assert identity is not None  # refused above without
    return _opened(topic, envelope, identity)


def _opened(topic: str, envelope: Envelope, identity: Identity) -> Envelope:
    """A sealed envelope authenticated and opened: sealed by its sender's
    key to ``identity``'s, for ``topic``."""
    try:
        plain = identity.box_with(envelope.sender).decrypt(envelope.body)
    except (CryptoError, ValueError):
        # The sender goes with the refusal. On a seat's request topic its
        # signature proved it: a table that moved is sent requests sealed
        # to its former key, and tells that seat so (net/authority/
        # authority.py). Elsewhere it is only claimed, and nobody answers.
        raise WireError(
            "cannot decrypt: not sealed to this peer", "sealed", envelope.sender
        ) from None
    head = _sealed_head(topic)
    if not plain.startswith(head):
        raise WireError("sealed for another topic", "signature")
    return msgspec.structs.replace(envelope, body=plain[len(head) :])


def _version_of(payload: bytes) -> int | None:
    """The version an envelope of any protocol version would start with: a
    msgpack array header, then an integer. Only those first bytes are read
    (constant time), never the rest of the payload."""
    if not payload:
        return None
    first, at = payload[0], 1
    if 0x91 <= first <= 0x9F:  # fixarray, not empty
        pass
    elif first == 0xDC and len(payload) >= 3 and payload[1:3] != b"\0\0":  # array 16
        at = 3
    elif first == 0xDD and len(payload) >= 5 and payload[1:5] != b"\0\0\0\0":  # array 32
        at = 5
    else:
        return None
    if at >= len(payload):
        return None
    tag = payload[at]
    if tag <= 0x7F:  # positive fixint
        return tag
    widths = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: -1, 0xD1: -2, 0xD2: -4, 0xD3: -8}
    width = widths.get(tag)
    if width is not None:
        raw = payload[at + 1 : at + 1 + abs(width)]
        if len(raw) == abs(width):
            return int.from_bytes(raw, "big", signed=width < 0)
        return None
    if tag >= 0xE0:  # negative fixint
        return tag - 0x100
    return None


def open_body(
    envelope: Envelope, decoder: msgspec.msgpack.Decoder[T], identity: Identity | None = None
) -> T:
    """Decode the body of an envelope :func:`open_envelope` gave back: a
    sealed one (opened there) when ``identity`` is given, else a public one."""
    if envelope.sealed and identity is None:
        raise WireError("a sealed message where a public one was expected")
    if not envelope.sealed and identity is not None:
        raise WireError("a public message where a sealed one was expected")
    try:
        return decoder.decode(envelope.body)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise WireError(f"malformed message: {str(error)[:200]}") from None
    except RecursionError:
        # Nesting deeper than the interpreter's stack in a field typed Any
        # (a view, a record): refused like any other bad body, without the
        # traceback that used to reach the log of every receiver.
        raise WireError("malformed message: nested too deeply") from None


def sender_id(envelope: Envelope) -> str:
    return peer_id(envelope.sender)


# --------------------------------------------------------------------------
# Bodies. Every request carries the room code and a nonce (epoch, n) that
# only grows per sender key: the authority refuses a replayed or reordered one.


class Request(Struct, tag_field="t", forbid_unknown_fields=True):
    room: Code
    epoch: Count  # the sender's process start, in ms: grows across restarts
    n: Count  # grows by one per request within an epoch


class Hello(Request, tag="hello", omit_defaults=True):
    """Take a seat (``seat``: the one wanted, or any free one), or take back
    the seat this key holds. ``bot``: a bot process plays this seat
    (``passe join --bot``), listed as a bot (issue 18 item 9). ``stand``:
    below. Fields at
    their defaults are left out, so a Hello without ``bot`` is exactly what
    an earlier Passe sends and decodes."""

    name: Name
    seat: SeatIndex | None = None
    have: Count = 0  # events of the log this peer already holds
    bot: bool = False
    # False: this person declines to stand for the table if the host's
    # machine stops (issue 20): their process votes, holds no share of the
    # room secret and is never elected. Left out when True (as before).
    stand: bool = True


class Act(Request, tag="act"):
    seat: SeatIndex
    action: ShortText
    at: Count  # the update sequence this peer had seen


class Sync(Request, tag="sync"):
    """Send me my current view and the log from event ``have`` on."""

    have: Count = 0


class Leave(Request, tag="leave"):
    """This player quits (asked and confirmed): free or hand over the seat."""


class Watch(Request, tag="watch"):
    """Show me the table as a spectator: the public view (``view(None)``)
    and the public log from event ``have`` (issue 21). Needs no seat and
    binds nothing: a watcher uses a fresh key per watch. An earlier
    authority refuses it as malformed (code ``bad``)."""

    have: Count = 0


class Admit(Request, tag="admit"):
    """The room's owner lets the knocking ``key`` in (``yes``) or turns it
    away: in a dealer's room (docs/protocol.md section 14), the person who
    asked for it decides who sits, as a host does at their screen. Heeded
    from the owner's key only; an earlier authority refuses it as
    malformed (code ``bad``)."""

    key: Annotated[bytes, Meta(min_length=32, max_length=32)]
    yes: bool


class Again(Request, tag="again"):
    """The room's owner asks for the next game at this table once its game
    is over: in a dealer's room (docs/protocol.md section 14) the dealer
    opens it, with the same seats, and announces it on the room's ``next``
    topic as a host does. Heeded from the owner's key only; an earlier
    authority refuses it as malformed (code ``bad``)."""


class StartNow(Request, tag="start"):
    """The room's owner starts the game without waiting for more people: in
    a dealer's room (docs/protocol.md section 14) the open seats get the
    room's bots, as a host's s does. Heeded from the owner's key only, in
    the lobby; an earlier authority refuses it as malformed (code ``bad``)."""


PeerMessage = Hello | Act | Sync | Leave | Watch | Admit | Again | StartNow
peer_message_decoder: Final = msgspec.msgpack.Decoder(PeerMessage)


class Reply(Struct, tag_field="t", forbid_unknown_fields=True):
    room: Code


class Welcome(Reply, tag="welcome"):
    seat: SeatIndex


class Refused(Reply, tag="refused"):
    """A request refused; the state is unchanged. ``code``: full, started,
    unseated, illegal, stale, bad, version, closed; for a Hello also knock
    (the host is asked: a Welcome or a refusal follows), denied (the host
    or its rule said no) and removed (the host gave the seat away)."""

    reason: ShortText
    code: Annotated[str, Meta(max_length=20)]
    n: Count = 0  # the refused request's n


class EntryAt(Struct, array_like=True, forbid_unknown_fields=True):
    """Entry ``index`` of ``term`` in a room's replicated log (protocol
    version 2, docs/election.md)."""

    term: Count
    index: Count


# Spans of a seat's log played by a bot while its person was away
# (Update.stood_in): the latest ones only.
STOOD_IN_SPANS: Final = 32


class Span(Struct, array_like=True, forbid_unknown_fields=True):
    """Events ``start`` (included) to ``end`` (excluded) of a seat's log."""

    start: Count
    end: Count


class Update(Reply, tag="update", omit_defaults=True):
    """The seat's view at ``seq`` and its log's events from index ``base``.

    ``uncommitted``: sent to the seat that acted before the change is
    committed, once the authority holds log entry ``uncommitted`` on its
    own disk; the seat shows it only when it knows a majority of the
    room's voters holds that entry (docs/election.md section 12). The
    committed copy follows, as for every other seat.

    ``stood_in``: where in the seat's log a bot played for its person while
    they were away (each span of the game so far, the latest
    STOOD_IN_SPANS; absent when there is none): their log says "Your bot
    plays" there, not "You play"."""

    seq: Count
    view: dict[str, Any]
    base: Count
    events: Annotated[list[Any], Meta(max_length=100_000)]
    rejected: ShortText | None = None
    ack: Count = 0  # the n of this peer's latest request handled before it
    uncommitted: EntryAt | None = None
    stood_in: Annotated[list[Span], Meta(max_length=STOOD_IN_SPANS)] | None = None


class Watched(Reply, tag="watched"):
    """You watch this room (the answer to a ``watch``); ``watchers``: how
    many do, you included. Sent only to a key that sent ``watch``: an
    earlier peer never receives it."""

    watchers: Annotated[int, Meta(ge=0, le=64)]


class Knocking(Struct, array_like=True, forbid_unknown_fields=True):
    """One key waiting to be let in: its name and the seat it asked for."""

    key: Annotated[bytes, Meta(min_length=32, max_length=32)]
    name: Name
    seat: SeatIndex | None = None


class Knocks(Reply, tag="knocks"):
    """Who knocks at the room now, oldest first, sent to the room's owner
    (``Admit``) whenever that changes, and when the owner's seat is taken
    or taken again. Only an owner receives it."""

    knocks: Annotated[list[Knocking], Meta(max_length=16)]


AuthorityMessage = Welcome | Refused | Update | Watched | Knocks
authority_message_decoder: Final = msgspec.msgpack.Decoder(AuthorityMessage)


class SeatState(Struct, array_like=True, forbid_unknown_fields=True, omit_defaults=True):
    """``kind``: "open", "human" or "bot"; ``level`` the bot's level (for a
    person's seat, the bot playing for them while they are away);
    ``replaced``: a bot that plays on for a person who left the game (its
    name is still theirs). Written whole: msgspec writes an array-like
    struct's every field, ``omit_defaults`` notwithstanding (msgspec issue
    #720); read, trailing fields left out take their defaults."""

    name: Annotated[str, Meta(max_length=40)]
    kind: Annotated[str, Meta(max_length=10)]
    level: Annotated[str, Meta(max_length=20)] = ""
    peer: Annotated[str, Meta(max_length=16)] = ""
    present: bool = False
    # A player who came back, or came late, read "Kim plays" for the bot
    # that took the seat Kim left: only those who saw Kim sit knew.
    replaced: bool = False


def seat_held_by(seats: Sequence[SeatState], peer: str) -> int | None:
    """The seat bound to the key of peer id ``peer``: a person's, or a bot
    process's (listed as a bot, bound to its key alike); None if none."""
    return next(
        (n for n, seat in enumerate(seats) if seat.kind in ("human", "bot") and seat.peer == peer),
        None,
    )


class VoterBroker(Struct, array_like=True, forbid_unknown_fields=True):
    """A voter's standby broker ("host:port"), as its presence announced it."""

    key: Annotated[bytes, Meta(min_length=32, max_length=32)]
    broker: Annotated[str, Meta(max_length=64)]


# What a lobby's failover setting comes to if its game started now (issue
# 20; RoomState.failover): "off" (the host turned it off), "short" (it needs
# more people's machines that stand), "never" (more than its free seats
# could bring), "on"; "" outside a lobby, in a dealer's room, or from a
# Passe that does not say.
FailoverOutlook = Literal["", "off", "short", "never", "on"]


class RoomState(Struct, tag_field="t", tag="room", forbid_unknown_fields=True, omit_defaults=True):
    """The room in public, retained. ``phase``: lobby, playing, over, closed.
    ``stamp`` grows with every publication (ms), so an older copy is ignored.
    A field at its default is left out (an earlier Passe, which refuses
    fields it does not know, reads a state that uses none of its later ones)."""

    room: Code
    game: Annotated[str, Meta(max_length=20)]
    config: dict[str, Any]
    host: Annotated[str, Meta(max_length=64)]
    phase: Annotated[str, Meta(max_length=10)]
    seats: Annotated[list[SeatState], Meta(max_length=16)]
    seq: Count
    stamp: Count
    app: Annotated[str, Meta(max_length=40)] = ""
    seed_hash: bytes = b""  # sha256 of the deal's commitment, public from the start
    record: dict[str, Any] | None = None  # the whole game, once it is over
    salt: bytes = b""  # with the record: check sha256(salt + seed) == seed_hash
    notice: ShortText = ""
    # The room's election config (net/election/messages.py, encoded) when it
    # fails over to another voter's machine (docs/election.md section 10):
    # its voters, and the secret's shares sealed to each. Public.
    election: Annotated[bytes, Meta(max_length=8192)] = b""
    # The room's broker dies with its host's machine (the embedded one):
    # each voter runs a standby broker, announced in its voter presence, and
    # everyone's links go down the list (docs/election.md section 10).
    standby: bool = False
    # The voters' standby brokers the authority knows, in the config's order
    # (the succession): a voter whose link never reached the room's broker
    # before it died knows where the others went (docs/election.md
    # section 10).
    brokers: Annotated[list[VoterBroker], Meta(max_length=24)] = []
    # A dealer's room (`passe dealer`, docs/protocol.md section 14): the
    # dealer's name. No player's machine holds its deck, nor stands.
    dealer: Annotated[str, Meta(max_length=40)] = ""
    # The dealer's long-term key and its signature of the room's code, the
    # key that signs this state and the name above (`dealt_proof`): without
    # them any host could write a dealer's name here and hold the deck
    # while its players read "no player's machine holds the deck". A peer
    # reads the name only when the signature holds (`proven_dealer`).
    dealer_key: Annotated[bytes, Meta(max_length=PUBLIC_KEY_SIZE)] = b""
    dealer_proof: Annotated[bytes, Meta(max_length=SIGNATURE_SIZE)] = b""
    # The seats of people away whom a bot will play for unless they are back
    # first (a table that stands bots in by itself; its notice says when).
    bot_due: Annotated[list[Annotated[int, Meta(ge=0, le=15)]], Meta(max_length=16)] = []
    # In a lobby: whether its game would fail over, as its host's lobby says
    # (a joiner's read "yours may hold the deck" where the host's said the
    # room needed more machines: a play-test).
    failover: FailoverOutlook = ""


room_state_decoder: Final = msgspec.msgpack.Decoder(RoomState)


def _dealt_bytes(code: str, room_key: bytes, name: str) -> bytes:
    # Its own domain, apart from every envelope's (`_signed_bytes`): a
    # dealer's signature of one can never stand for the other.
    return b"passe/dealt/1\0" + code.encode() + b"\0" + room_key + name.encode("utf-8")


def dealt_proof(dealer: Identity, code: str, room_key: bytes, name: str) -> bytes:
    """The dealer's signature that room ``code``, whose states ``room_key``
    signs, is its own, dealt under ``name`` (RoomState.dealer_proof)."""
    return dealer.sign(_dealt_bytes(code, room_key, name))


def proven_dealer(room: RoomState, room_key: bytes) -> bool:
    """Whether ``room``, a state signed by ``room_key``, names a dealer whose
    key signed it as its own (RoomState.dealer_proof): a room that names
    none, or names one without its signature, is a host's."""
    return bool(room.dealer) and verify(
        room.dealer_key, _dealt_bytes(room.room, room_key, room.dealer), room.dealer_proof
    )


class Presence(Struct, tag_field="t", tag="presence", forbid_unknown_fields=True):
    """Retained per peer, and its last will (online false, same epoch)."""

    room: Code
    epoch: Count
    online: bool
    name: Annotated[str, Meta(max_length=40)] = ""
    # A voter's standby broker ("host:port"), in a room whose brokers
    # fail over too (docs/election.md section 10, step 4); else empty.
    broker: Annotated[str, Meta(max_length=64)] = ""


presence_decoder: Final = msgspec.msgpack.Decoder(Presence)


def next_presence_epoch(previous: int) -> int:
    """A new connection's presence epoch: above the last, and at least the
    clock's milliseconds, so it also grows across restarts (Sparkplug's
    STATE rule: a late will of an earlier connection never hides a newer
    "online")."""
    return max(previous + 1, time.time_ns() // 1_000_000)


def sealed_presence(
    identity: Identity,
    topic: str,
    code: str,
    epoch: int,
    *,
    online: bool,
    name: str = "",
    broker: str = "",
) -> bytes:
    """The signed :class:`Presence` of ``identity`` on ``topic`` (its own
    presence topic): online, or gone (its will, same epoch)."""
    presence = Presence(room=code, epoch=epoch, online=online, name=name[:40], broker=broker)
    return seal(identity, topic, presence)


class NextRoom(Struct, tag_field="t", tag="next", forbid_unknown_fields=True):
    """The game in ``room`` is over; its table plays on in room ``next``, run
    by the same authority key, where each person's key holds their seat."""

    room: Code
    next: Code
    # Where the next room is ("ADDRESS:PORT"), when not on this room's
    # broker: after a failover its holder opens it on its own broker, the
    # one the table was on being another machine's (issue 20). Empty: here.
    broker: Annotated[str, Meta(max_length=64)] = ""


next_room_decoder: Final = msgspec.msgpack.Decoder(NextRoom)


class Watchers(Struct, tag_field="t", tag="watchers", forbid_unknown_fields=True):
    """How many watch the room (retained on ``watchers``; issue 21).
    ``stamp`` grows with every publication (ms): ignore an older one."""

    room: Code
    count: Annotated[int, Meta(ge=0, le=64)]
    stamp: Count


watchers_decoder: Final = msgspec.msgpack.Decoder(Watchers)

__all__ = [
    "MAX_PAYLOAD",
    "PROTOCOL_VERSION",
    "STOOD_IN_SPANS",
    "Act",
    "Admit",
    "Again",
    "AuthorityMessage",
    "Envelope",
    "Hello",
    "Knocking",
    "Knocks",
    "Leave",
    "NextRoom",
    "PeerMessage",
    "Presence",
    "Refused",
    "RoomState",
    "SeatState",
    "Span",
    "StartNow",
    "Sync",
    "Update",
    "Watch",
    "Watched",
    "Watchers",
    "Welcome",
    "WireError",
    "authority_message_decoder",
    "dealt_proof",
    "next_room_decoder",
    "next_topic",
    "open_body",
    "open_envelope",
    "peer_message_decoder",
    "presence_decoder",
    "presence_topic",
    "proven_dealer",
    "room_state_decoder",
    "room_topic",
    "seal",
    "seat_held_by",
    "sender_id",
    "to_authority_topic",
    "to_peer_topic",
    "watchers_decoder",
    "watchers_topic",
]
