"""Rooms this peer may sit in again after its process ended (issue 18).

A person whose process ended without leaving (an SSH server restarted, a
terminal closed) still holds their seat: their key is bound to it, a bot
plays for them meanwhile. The home screen offers such a room, as ``u`` does
a host's interrupted one, but only while it is really there. For each of the
latest rooms sat in (net/peer/pins.py: the code, the room's key, where its broker
was), :func:`held_seat` asks that broker for two retained messages, and sends
nothing (no presence, no Hello: the room sees nobody come and go):

- the room's state, signed by the key pinned for the code (any other
  signer's is ignored, as a joiner ignores it), in the lobby or playing,
  with a person's seat bound to our key;
- the presence of that authority: online (a host that died leaves its
  state on a broker that outlived it, but nobody can sit there until it is
  resumed).

Everything read is network text: names are cleaned (net/protocol/text.py) before
they reach a screen, and every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from net.election.survey import CONNECT_WAIT as SURVEY_CONNECT_WAIT
from net.election.survey import choose, survey
from net.election.topics import announce_decoder, authority_topic
from net.identity import Identity, peer_id
from net.lan.transport import BrokerUnreachable, MqttLink
from net.peer.pins import RoomPins, SatIn
from net.protocol.text import clean_name, clean_text
from net.protocol.wire import (
    RoomState,
    WireError,
    open_body,
    open_envelope,
    presence_decoder,
    presence_topic,
    room_state_decoder,
    room_topic,
    seat_held_by,
)

log = logging.getLogger("passe.rejoin")

# The latest rooms looked at, and how far back: a game lasts hours at most.
LOOK_AT = 3
MAX_AGE = 2 * 24 * 3600  # seconds
CONNECT_WAIT = 2.0  # seconds to reach one room's broker
ANSWER_WAIT = 2.0  # seconds for its retained messages once subscribed
OPEN_PHASES = ("lobby", "playing")
MAX_FOREIGN = 4  # other keys' room states kept while an announcement may come


@dataclass(frozen=True)
class EndedAway:
    """A game whose seat our key held that ended while this process was
    away (its machine off, say): the final room state, signed by its
    table, revealed the record. Names are cleaned; the record is network
    data, for the engine to replay before anything is believed of it."""

    code: str
    game: str  # the game's id, cleaned
    host_name: str  # cleaned: shown as text
    seat: int
    names: tuple[str, ...]  # cleaned
    record: dict[str, Any] = dataclasses.field(compare=False, repr=False)


@dataclass(frozen=True)
class RoomEnded:
    """The room's broker has its state, signed by its table, and the room is
    over or closed: nothing to rejoin, nor to wait for (its voters may still
    be online at the game's end). ``ended``: the game our seat was in, if
    the state says how it ended."""

    code: str
    ended: EndedAway | None = None


@dataclass(frozen=True)
class HeldSeat:
    """A room whose seat our key still holds, its host present: enough to
    say it ("You were in room CODE (game, host name)") and to join it."""

    code: str
    broker_host: str
    broker_port: int
    game: str  # the game's id, cleaned
    host_name: str  # cleaned: shown as text
    seat: int
    phase: str
    seat_name: str = ""  # cleaned: the name the seat has at that table
    # No table runs the room now, and its voters wait for this machine's
    # vote (docs/election.md section 13): game, host and seat are unknown
    # here until a table runs again (its broker: where the voters are).
    waiting: bool = False

    @property
    def target(self) -> str:
        """``CODE@HOST:PORT``, as the join screen takes it."""
        host = f"[{self.broker_host}]" if ":" in self.broker_host else self.broker_host
        return f"{self.code}@{host}:{self.broker_port}"


class SeatLook:
    """What one broker's retained messages say of a room we sat in, read
    one message at a time (sans I/O: :func:`held_seat`'s link feeds it, a
    test feeds it what it likes). Anyone may write on a room's topics:
    only the room's state signed by the key pinned for the code counts (or
    the key a room's voter announced since, ``voters`` given), and only the
    presence of that same key."""

    def __init__(
        self, identity: Identity, room: SatIn, voters: frozenset[bytes] = frozenset()
    ) -> None:
        self.identity = identity
        self.room = room
        self.voters = voters
        self.state_topic = room_topic(room.code)
        self.announce_topic = authority_topic(room.code)
        # The key the room's state is signed by: the pinned one, or the one
        # a voter announced since; other keys' latest states, kept
        # meanwhile (MAX_FOREIGN at most).
        self.signer = room.key
        self.foreign: dict[bytes, bytes] = {}
        self.states: list[RoomState] = []
        self.online: list[bool] = []

    @property
    def topics(self) -> list[str]:
        """What to subscribe to first."""
        host_topic = presence_topic(self.room.code, peer_id(self.signer))
        return [self.state_topic, host_topic, *([self.announce_topic] if self.voters else [])]

    @property
    def complete(self) -> bool:
        """A state and a presence of the signer: nothing more to wait for."""
        return bool(self.states and self.online)

    def read(self, topic: str, payload: bytes) -> str | None:
        """One message; the topic to subscribe to as well when it names
        the room's new signer (its presence), else None."""
        if topic == self.state_topic:
            self._read_state(payload)
        elif topic == self.announce_topic and self.voters:
            return self._read_announce(payload)
        else:
            try:
                # Only the presence of the key the state is signed by counts.
                envelope = open_envelope(topic, payload, expect_key=self.signer)
                presence = open_body(envelope, presence_decoder)
            except WireError:
                return None
            if presence.room == self.room.code:
                self.online.append(presence.online)
        return None

    def _read_state(self, payload: bytes) -> None:
        try:
            envelope = open_envelope(self.state_topic, payload)
        except WireError:
            return
        if envelope.sender != self.signer:
            if self.voters and len(self.foreign) < MAX_FOREIGN:
                self.foreign[envelope.sender] = payload  # an announcement may name it
            return
        try:
            state = open_body(envelope, room_state_decoder)
        except WireError:
            return
        if state.room == self.room.code:
            self.states.append(state)

    def _read_announce(self, payload: bytes) -> str | None:
        try:
            envelope = open_envelope(self.announce_topic, payload)
            if envelope.sender not in self.voters:
                return None
            key = open_body(envelope, announce_decoder).room_key
        except WireError:
            return None
        if len(key) != len(self.room.key) or key == self.signer:
            return None
        self.signer = key
        self.states.clear()  # the former key's, and its presence: not the room's now
        self.online.clear()
        kept = self.foreign.pop(key, None)
        if kept is not None:
            self._read_state(kept)
        return presence_topic(self.room.code, peer_id(key))

    def answer(self) -> HeldSeat | RoomEnded | None:
        """What was read says: the seat still ours, its table present; the
        room ended; or nothing to offer (yet)."""
        code = self.room.code
        if self.states and self.states[-1].phase not in OPEN_PHASES:
            # Whoever is online: the game is done.
            return RoomEnded(code, _ended_away(code, self.states[-1], self.identity))
        if not self.states or self.online[-1:] != [True]:
            return None
        state = self.states[-1]  # retained: one each, unless the room changed meanwhile
        me = self.identity.peer_id
        seat = next(
            (n for n, slot in enumerate(state.seats) if slot.kind == "human" and slot.peer == me),
            None,
        )
        if seat is None:
            return None
        return HeldSeat(
            code,
            self.room.broker[0],
            self.room.broker[1],
            clean_text(state.game, 20),
            clean_name(state.host, "the host"),
            seat,
            state.phase,
            clean_name(state.seats[seat].name, ""),
        )


async def held_seat(
    identity: Identity, room: SatIn, voters: frozenset[bytes] = frozenset()
) -> HeldSeat | RoomEnded | None:
    """``room`` if its broker still has it open with a seat bound to our
    key and its host present; :class:`RoomEnded` if its state there says
    it is over or closed; None otherwise (or unreachable), within
    CONNECT_WAIT + ANSWER_WAIT seconds. ``voters``: the room's, if it fails
    over (net/peer/pins.py): its state signed by the key one of them
    announces counts too, as the table itself would follow it (found in a
    play-test: a person whose machine had run the table, back after it
    moved on, was offered nothing)."""
    look = SeatLook(identity, room, voters)
    both = asyncio.Event()
    link: MqttLink | None = None

    async def on_message(topic: str, payload: bytes) -> None:
        subscribe = look.read(topic, payload)
        if subscribe is not None and link is not None:
            link.subscribe(subscribe)
        if look.complete:
            both.set()

    link = MqttLink(
        room.broker[0], room.broker[1], subscriptions=look.topics, on_message=on_message
    )
    try:
        await link.start(timeout=CONNECT_WAIT)
    except BrokerUnreachable:
        return None
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(both.wait(), ANSWER_WAIT)
    finally:
        await link.close()
    return look.answer()


def _ended_away(code: str, state: RoomState, identity: Identity) -> EndedAway | None:
    """The game of ``state``, over with its record revealed, if our key held
    a seat in it (as a person, or a bot playing on for us)."""
    if state.phase != "over" or state.record is None:
        return None
    seat = seat_held_by(state.seats, identity.peer_id)
    if seat is None:
        return None
    return EndedAway(
        code,
        clean_text(state.game, 20),
        clean_name(state.host, "the host"),
        seat,
        tuple(clean_name(slot.name, f"Seat {n + 1}") for n, slot in enumerate(state.seats)),
        state.record,
    )


async def room_is_at(
    code: str, key: bytes, broker: tuple[str, int], *, after_epoch: int = -1
) -> bool:
    """Whether room ``code``'s table runs at ``broker``, within CONNECT_WAIT +
    ANSWER_WAIT seconds: its state there, signed by ``key`` (its table's)
    and open, and the table's presence online, of a connection newer than
    ``after_epoch`` (the last one the asking peer saw). Where a peer whose
    broker lost the room may go (RemoteTable._look_for_the_room), never to
    a broker that only advertises it, nor to one where someone replays the
    table's old signed records: they name no newer connection."""
    state_topic = room_topic(code)
    table_topic = presence_topic(code, peer_id(key))
    state_seen, table_seen = asyncio.Event(), asyncio.Event()

    async def on_message(topic: str, payload: bytes) -> None:
        try:
            envelope = open_envelope(topic, payload, expect_key=key)
            if topic == state_topic:
                state = open_body(envelope, room_state_decoder)
                if state.room == code and state.phase in OPEN_PHASES:
                    state_seen.set()
            elif topic == table_topic:
                presence = open_body(envelope, presence_decoder)
                if presence.room == code and presence.online and presence.epoch > after_epoch:
                    table_seen.set()
        except WireError:
            return

    async def both() -> None:
        await state_seen.wait()
        await table_seen.wait()

    subscriptions = [state_topic, table_topic]
    link = MqttLink(*broker, subscriptions=subscriptions, on_message=on_message)
    try:
        await link.start(timeout=CONNECT_WAIT)
    except BrokerUnreachable:
        return False
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(both(), ANSWER_WAIT)
    finally:
        await link.close()
    return state_seen.is_set() and table_seen.is_set()


async def _held_anywhere(
    identity: Identity, room: SatIn, pins: RoomPins
) -> HeldSeat | EndedAway | None:
    """:func:`held_seat` at the broker pinned, else at the first of the
    room's standby brokers (remembered) that has it: its table may have
    moved to one while this process was away (docs/election.md section 13)."""
    voters = pins.voters(room.code)
    others = [b for b in pins.brokers(room.code) if b != room.broker] if voters else []
    answers = await asyncio.gather(
        *(
            held_seat(identity, dataclasses.replace(room, broker=broker), voters)
            for broker in [room.broker, *others]
        ),
        return_exceptions=True,
    )
    for answer in answers:
        if isinstance(answer, HeldSeat):
            return answer
    ended = [answer for answer in answers if isinstance(answer, RoomEnded)]
    if ended:
        # Over: its voters, still online at the game's end, wait for
        # nothing (a play-test: "Room … waits for your machine" of a game
        # that had ended, and j showed its end). How it ended, if it says.
        return next((answer.ended for answer in ended if answer.ended is not None), None)
    for answer in answers:
        if isinstance(answer, BaseException):
            raise answer
    return await _waiting_for_us(identity, room, pins, [room.broker, *others])


async def _waiting_for_us(
    identity: Identity, room: SatIn, pins: RoomPins, brokers: list[tuple[str, int]]
) -> HeldSeat | None:
    """The room of ``room``, whose game this machine votes in (its voter
    file is here) and where no table runs: where its other voters wait,
    if any does (a game whose two machines died one after the other, the
    second of them this one: its person was offered nothing, and had to
    type the code, found in a play-test, 5 December)."""
    from net.peer.failover import stored_election

    voters = pins.voters(room.code)
    if not voters or stored_election(room.code, identity) is None:
        return None
    seen = await survey(room.code, brokers, voters)
    waiting = [view for view in seen if view.online - {identity.public_key}]
    where = choose(waiting)
    if where is None:
        return None
    return HeldSeat(
        room.code, *where, game="", host_name="", seat=-1, phase="playing", waiting=True
    )


async def seat_to_rejoin(
    identity: Identity, pins: RoomPins, *, skip: Collection[str] = ()
) -> HeldSeat | EndedAway | None:
    """The latest room of the last few sat in (none of ``skip``: rooms this
    machine hosts, which ``u`` resumes) where our key still holds a seat,
    or whose game ended with our seat while we were away (its end then, to
    be kept and the room forgotten: :func:`forget_ended`), looked at all at
    once; None when there is none."""
    since = int(time.time()) - MAX_AGE
    rooms = [
        room for room in pins.recent(LOOK_AT + len(skip), since=since) if room.code not in skip
    ]
    rooms = rooms[:LOOK_AT]
    if not rooms:
        return None
    answers = await asyncio.gather(
        *(_held_anywhere(identity, room, pins) for room in rooms),
        return_exceptions=True,
    )
    for room, answer in zip(rooms, answers, strict=True):
        if isinstance(answer, HeldSeat | EndedAway):
            return answer  # newest first
        if isinstance(answer, BaseException) and not isinstance(answer, asyncio.CancelledError):
            log.info("could not look at room %s: %s", room.code, answer)
    return None


async def locate_room(
    code: str,
    pins: RoomPins,
    *,
    own_ports: Collection[int] = (),
    local: Collection[str] = ("127.0.0.1",),
    connect_wait: float = SURVEY_CONNECT_WAIT,
) -> tuple[str, int] | None:
    """Where to look for room ``code``, which this peer sat in, when nothing
    on the LAN advertises it (its table between machines: docs/election.md
    section 13): the broker of the room's list (the one pinned and its
    standby brokers, remembered) that a survey chooses, its voters being
    there; else, none answering, the one this machine brings back (a port
    of ``own_ports`` at an address of ``local``), where the others' lists
    have it; else None (not a room that fails over, or nothing known)."""
    voters = pins.voters(code)
    order = list(pins.brokers(code))
    pinned = pins.broker(code)
    candidates = list(dict.fromkeys([*order, *([pinned] if pinned is not None else [])]))
    if not voters or not candidates:
        return None
    seen = await survey(code, candidates, voters, connect_wait=connect_wait)
    best = choose(seen)
    if best is not None:
        log.info("room %s: not advertised; its voters' brokers chose %s:%s", code, *best)
        return best
    return next((b for b in order if b[1] in own_ports and b[0] in local), None)


async def room_between_machines(
    code: str, identity: Identity, pins: RoomPins | None = None
) -> tuple[str, int] | None:
    """:func:`locate_room` for this person (``identity``, this machine's
    data directory): the brokers this machine brings back for the room are
    its seat's voter's standby broker and, for a room it made whose table
    moved, the room's own embedded broker."""
    from net.authority.host import table_moved
    from net.authority.rooms import RoomFileError, load_room, room_path
    from net.lan.discovery import local_addresses, mdns_interfaces
    from net.peer.failover import stored_standby_port

    own = {stored_standby_port(code, identity)}
    with contextlib.suppress(RoomFileError, OSError):
        saved = load_room(room_path(code))
        if saved.broker.embedded and table_moved(saved):
            own.add(saved.broker.port)
    local = {*local_addresses(mdns_interfaces()), "127.0.0.1"}
    pins = pins if pins is not None else RoomPins()
    return await locate_room(code, pins, own_ports=own - {0}, local=local)


def forget_ended(ended: EndedAway, identity: Identity, pins: RoomPins) -> None:
    """The game of ``ended`` is kept: its room is no room to look at again,
    and this key's voter files for it go (nobody elects in it again), unless
    a process of this machine still holds them."""
    from net.peer.failover import forget_voter

    pins.forget_broker(ended.code)
    forget_voter(ended.code, identity)


__all__ = [
    "EndedAway",
    "HeldSeat",
    "RoomEnded",
    "SeatLook",
    "forget_ended",
    "held_seat",
    "locate_room",
    "room_between_machines",
    "room_is_at",
    "seat_to_rejoin",
]
