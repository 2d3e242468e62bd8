"""Where a room's voters are, when no table tells them (issue 20;
docs/election.md section 13).

With the embedded broker each voter's machine runs a standby broker, and a
room whose machines die one after another can end with its voters on
different brokers: the host's machine dies, the table moves to Joe's, Joe's
dies too; the last player waits on its own standby broker, and Hana and Joe,
back, each bring their broker back where everyone's lists have it. Each
voter alone is no majority, and without a table nothing advertises the room
on the LAN: the game was lost although two machines of three lived (found in
a play-test, 5 December).

A **survey** looks at each broker of the room's list with a short
connection of its own, which publishes nothing: it reads the retained
presence of each voter (signed by that voter, its newest connection's
record) and the retained announcement of the room's authority (signed by a
voter). :func:`choose` then names the broker to be on, the same for every
voter that sees the same brokers:

1. where the table is: an authority announced for the highest term there,
   its voter online there;
2. else where most voters are online (a voter counts itself where it is);
3. else the one of lowest address and port: an order that needs nothing
   but the brokers seen, so that voters that know different parts of the
   room's list still agree.

Nothing here decides who holds the table: the election does, wherever the
voters meet (a survey only brings them together). What a survey reads is
network input like any other: only the voters' topics are subscribed (never
a wildcard, where anyone may retain thousands of records), each record is
checked against its voter's key, and a surveyed broker is left after at
most :data:`MAX_MESSAGES` messages or :data:`ANSWER_WAIT` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from net.election.topics import (
    announce_decoder,
    authority_topic,
    parse_broker,
    voter_presence_topic,
)
from net.identity import peer_id
from net.lan.transport import BrokerUnreachable, MqttLink
from net.protocol.wire import WireError, open_body, open_envelope, presence_decoder

Broker = tuple[str, int]

CONNECT_WAIT = 2.0  # seconds to reach one broker of the list
# Seconds for a broker's retained records once subscribed: it ends sooner
# when every voter's presence and the announcement came, or QUIET seconds
# passed without a message (a voter never on that broker has none there).
ANSWER_WAIT = 2.0
QUIET = 0.3
MAX_MESSAGES = 200  # read from one broker: a flood ends the look, not the reader
MAX_BROKERS = 32  # looked at in one survey (a room has at most 24 voters)


@dataclass(frozen=True)
class BrokerSeen:
    """What one broker of the list holds for the room: the voters whose
    newest presence there says online, the highest term announced there
    and by whom, the standby brokers the online presences name, and how
    many messages were read (at most MAX_MESSAGES)."""

    broker: Broker
    online: frozenset[bytes] = frozenset()
    term: int = 0
    announced_by: bytes | None = None
    standby: dict[bytes, Broker] = field(default_factory=dict)
    messages: int = 0

    @property
    def table_term(self) -> int:
        """The term of the table that runs here (its authority's voter
        online here), else 0."""
        return self.term if self.announced_by in self.online else 0


def choose(
    seen: Sequence[BrokerSeen], *, me: bytes | None = None, here: Broker | None = None
) -> Broker | None:
    """The broker to be on, of those ``seen`` (reachable): see the module's
    rule. ``me``: the voter choosing, counted online only ``here``, where
    its link is (its own record on another broker may be an old one)."""
    if not seen:
        return None

    def rank(view: BrokerSeen) -> tuple[int, int, Broker]:
        online = len(view.online - {me}) + (me is not None and view.broker == here)
        # Ties go to the lowest address and port: every voter orders the
        # same brokers alike, whatever else it knows of the room's list
        # (by each one's succession order, two voters each alone on its
        # own broker each chose its own, and never met).
        return (-view.table_term, -online, view.broker)

    return min(seen, key=rank).broker


class BrokerRecords:
    """The room's records as one broker delivers them (sans-I/O: what
    :func:`look_at` reads is given here, one message at a time): each
    voter's newest presence, the highest term a voter announced."""

    def __init__(self, code: str, voters: Collection[bytes]) -> None:
        self.code = code
        self.voters = frozenset(voters)
        self.topics = {voter_presence_topic(code, peer_id(v)): v for v in self.voters}
        self.announce_topic = authority_topic(code)
        self.messages = 0
        self.answered: set[str] = set()  # the topics a record was read on
        self._newest: dict[bytes, tuple[int, bool, Broker | None]] = {}  # epoch, online, standby
        self._announced: tuple[int, bytes] | None = None

    @property
    def full(self) -> bool:
        """Whether nothing more is to be read: every topic answered, or
        MAX_MESSAGES read (a flood ends the look, not the reader)."""
        return self.messages >= MAX_MESSAGES or len(self.answered) > len(self.topics)

    def read(self, topic: str, payload: bytes) -> None:
        """One message on ``topic``: a record if it is one, checked
        against its signer; anything else says nothing."""
        self.messages += 1
        try:
            if topic == self.announce_topic:
                self._read_announce(payload)
            elif topic in self.topics:
                self._read_presence(topic, payload)
            else:
                return
        except WireError:
            return
        self.answered.add(topic)

    def _read_announce(self, payload: bytes) -> None:
        envelope = open_envelope(self.announce_topic, payload)
        if envelope.sender not in self.voters:
            return
        term = open_body(envelope, announce_decoder).term
        if self._announced is None or term > self._announced[0]:
            self._announced = (term, envelope.sender)

    def _read_presence(self, topic: str, payload: bytes) -> None:
        voter = self.topics[topic]
        envelope = open_envelope(topic, payload, expect_key=voter)
        presence = open_body(envelope, presence_decoder)
        if presence.room != self.code:
            return
        known = self._newest.get(voter)
        if known is None or presence.epoch >= known[0]:  # a will has its connection's epoch
            standby = parse_broker(presence.broker) if presence.online else None
            self._newest[voter] = (presence.epoch, presence.online, standby)

    def seen(self, broker: Broker) -> BrokerSeen:
        term, by = self._announced or (0, None)
        return BrokerSeen(
            broker,
            frozenset(voter for voter, (_, online, _) in self._newest.items() if online),
            term,
            by,
            {voter: standby for voter, (_, _, standby) in self._newest.items() if standby},
            self.messages,
        )


async def _listening(broker: Broker, wait: float) -> bool:
    """Whether something accepts a connection at ``broker`` within ``wait``
    seconds: a refusal is an answer at once, where the link would try again
    until its wait is over (a survey of a list with dead brokers took 2 s
    more, every time a person came back)."""
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(*broker), wait)
    except (OSError, TimeoutError):
        return False
    writer.close()
    return True


async def look_at(
    code: str,
    broker: Broker,
    voters: Collection[bytes],
    *,
    connect_wait: float = CONNECT_WAIT,
    answer_wait: float = ANSWER_WAIT,
) -> BrokerSeen | None:
    """What ``broker`` holds for room ``code`` (see :class:`BrokerSeen`);
    None when it cannot be reached within ``connect_wait``."""
    records = BrokerRecords(code, voters)
    loop = asyncio.get_running_loop()
    last: float  # when the latest message came: QUIET after it, the look ends
    done = asyncio.Event()

    async def on_message(topic: str, payload: bytes) -> None:
        nonlocal last
        last = loop.time()
        records.read(topic, payload)
        if records.full:
            done.set()

    if not await _listening(broker, connect_wait):
        return None
    link = MqttLink(
        *broker,
        subscriptions=[records.announce_topic, *records.topics],
        on_message=on_message,
    )
    try:
        await link.start(timeout=connect_wait)
    except BrokerUnreachable:
        return None
    try:
        deadline = last = loop.time()
        deadline += answer_wait
        while not done.is_set() and (wait := min(deadline, last + QUIET) - loop.time()) > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), wait)
    finally:
        await link.close(graceful=False)
    return records.seen(broker)


async def survey(
    code: str,
    brokers: Sequence[Broker],
    voters: Collection[bytes],
    *,
    connect_wait: float = CONNECT_WAIT,
    answer_wait: float = ANSWER_WAIT,
) -> list[BrokerSeen]:
    """Every broker of ``brokers`` looked at, all at once: what each that
    could be reached holds for room ``code``, in the order given."""
    looks = await asyncio.gather(
        *(
            look_at(code, broker, voters, connect_wait=connect_wait, answer_wait=answer_wait)
            for broker in list(dict.fromkeys(brokers))[:MAX_BROKERS]
        )
    )
    return [look for look in looks if look is not None]


__all__ = ["BrokerRecords", "BrokerSeen", "choose", "look_at", "survey"]
