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
import logging
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

log = logging.getLogger("passe.survey")

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
    and by whom, and the standby brokers the online presences name."""

    broker: Broker
    online: frozenset[bytes] = frozenset()
    term: int = 0
    announced_by: bytes | None = None
    standby: dict[bytes, Broker] = field(default_factory=dict)

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
        online = set(view.online)
        if me is not None:
            online.discard(me)
            if view.broker == here:
                online.add(me)
        # Ties go to the lowest address and port: every voter orders the
        # same brokers alike, whatever else it knows of the room's list
        # (by each one's succession order, two voters each alone on its
        # own broker each chose its own, and never met).
        return (-view.table_term, -len(online), view.broker)

    return min(seen, key=rank).broker


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
    presences = {voter_presence_topic(code, peer_id(voter)): voter for voter in voters}
    announce_topic = authority_topic(code)
    newest: dict[bytes, tuple[int, bool, Broker | None]] = {}  # epoch, online, standby
    announced: list[tuple[int, bytes]] = []
    answered: set[str] = set()
    count = [0]
    loop = asyncio.get_running_loop()
    last = [loop.time()]
    done = asyncio.Event()

    def read(topic: str, payload: bytes) -> None:
        if topic == announce_topic:
            envelope = open_envelope(topic, payload)
            if envelope.sender not in voters:
                return
            announce = open_body(envelope, announce_decoder)
            announced.append((announce.term, envelope.sender))
            return
        voter = presences[topic]
        presence = open_body(open_envelope(topic, payload, expect_key=voter), presence_decoder)
        if presence.room != code:
            return
        known = newest.get(voter)
        if known is None or presence.epoch >= known[0]:
            standby = parse_broker(presence.broker) if presence.online else None
            newest[voter] = (presence.epoch, presence.online, standby)

    async def on_message(topic: str, payload: bytes) -> None:
        count[0] += 1
        last[0] = loop.time()
        if count[0] >= MAX_MESSAGES:
            done.set()
            return
        try:
            read(topic, payload)
        except WireError:
            return  # not the voter's, or not a record: nothing said here
        answered.add(topic)
        if len(answered) == len(presences) + 1:
            done.set()

    link = MqttLink(
        *broker,
        subscriptions=[announce_topic, *presences],
        on_message=on_message,
    )
    try:
        await link.start(timeout=connect_wait)
    except BrokerUnreachable:
        return None
    try:
        deadline = loop.time() + answer_wait
        last[0] = loop.time()
        while not done.is_set():
            now = loop.time()
            wait = min(deadline, last[0] + QUIET) - now
            if wait <= 0:
                break
            try:
                await asyncio.wait_for(done.wait(), wait)
            except TimeoutError:
                continue  # a message may have come meanwhile: its quiet is counted anew
    finally:
        await link.close(graceful=False)
    term, by = max(announced, default=(0, None))
    return BrokerSeen(
        broker,
        frozenset(voter for voter, (_, online, _) in newest.items() if online),
        term,
        by,
        {voter: standby for voter, (_, online, standby) in newest.items() if standby},
    )


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
    wanted = list(dict.fromkeys(brokers))[:MAX_BROKERS]
    looks = await asyncio.gather(
        *(
            look_at(code, broker, voters, connect_wait=connect_wait, answer_wait=answer_wait)
            for broker in wanted
        ),
        return_exceptions=True,
    )
    seen: list[BrokerSeen] = []
    for broker, look in zip(wanted, looks, strict=True):
        if isinstance(look, BrokerSeen):
            seen.append(look)
        elif isinstance(look, BaseException) and not isinstance(look, asyncio.CancelledError):
            log.info("could not look at %s:%s: %s", *broker, look)
    return seen


__all__ = ["BrokerSeen", "choose", "look_at", "survey"]
