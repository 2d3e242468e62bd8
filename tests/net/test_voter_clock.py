"""The voter driver's clock and start in this process (net/election/driver.py,
``VoterDriver.tick`` and ``start``), with links of the test's own: what
each beat does while the link is up, down and back, and what ``start``
makes its link with. Before these, both ran only under a live MQTT link,
in the real-process tests, where ``make mutation`` cannot see them (27
mutants of the tick loop and ``start`` survived: docs/testing.md)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from net.election.driver import VoterDriver
from net.election.topics import voter_presence_topic
from net.lan.transport import BACKOFF_MAX, BrokerUnreachable, LastWill
from tests.net.peers import until
from tests.net.voter_drivers import voter_drivers

HOST, PORT = "127.0.0.1", 1


class Clock:
    """The drivers' time, moved by the test."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def __call__(self) -> float:
        return self.now


class Link:
    """A link that is up or down as the test says; what it publishes kept."""

    def __init__(self, brokers: Sequence[tuple[str, int]] = ((HOST, PORT),)) -> None:
        self.connected = True
        self.host, self.port = brokers[0]
        self.brokers = list(brokers)
        self.published: list[tuple[str, bytes, bool]] = []

    async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> bool:
        self.published.append((topic, payload, retain))
        return True

    def publish_now(self, topic: str, payload: bytes) -> bool:
        """Written at once (the driver sends so when nothing of its own waits)."""
        self.published.append((topic, payload, False))
        return True


def link_of(driver: VoterDriver) -> Link:
    link = driver._link
    assert isinstance(link, Link)
    return link


def sent_to_others(driver: VoterDriver, others: Sequence[VoterDriver]) -> int:
    """How many messages ``driver`` sent or queued for the other voters
    since the last call."""
    topics = {other.topic for other in others}
    sent: list[str] = []
    while not driver._outbox.empty():
        sent.append(driver._outbox.get_nowait()[0])
    link = driver._link
    if isinstance(link, Link):
        sent += [topic for topic, _, _ in link.published]
        link.published.clear()
    return sum(topic in topics for topic in sent)


def room(tmp_path: Path) -> tuple[VoterDriver, VoterDriver, VoterDriver, Clock]:
    """Three voters on one clock: the authority of term 1, two followers,
    each with an up link; their first messages (the announcement) gone."""
    clock = Clock()
    authority, follower, other = voter_drivers(tmp_path, 3)
    for driver in (authority, follower, other):
        driver.clock = clock
        driver._link = Link()  # type: ignore[assignment]
        sent_to_others(driver, [])
    return authority, follower, other, clock


def past_the_election_timeout(clock: Clock, driver: VoterDriver) -> None:
    clock.now = driver.node._election_due + 0.001


def test_a_follower_whose_election_is_due_stands_on_its_beat(tmp_path: Path) -> None:
    authority, follower, other, clock = room(tmp_path)
    assert follower.tick(False) is False
    assert sent_to_others(follower, [authority, other]) == 0  # not due yet
    past_the_election_timeout(clock, follower)
    assert follower.tick(False) is False
    assert sent_to_others(follower, [authority, other]) == 2  # a pre-vote to each


def test_a_follower_cut_off_from_its_broker_does_not_stand(tmp_path: Path) -> None:
    """Standing reaches nobody then and only raises the term (the broker
    restart test: back on it, that term unseated a live authority)."""
    authority, follower, other, clock = room(tmp_path)
    link_of(follower).connected = False
    past_the_election_timeout(clock, follower)
    term = follower.node.term
    assert follower.tick(False) is True
    assert follower.tick(True) is True
    assert sent_to_others(follower, [authority, other]) == 0
    assert follower.node.term == term


def test_back_on_the_same_broker_a_follower_gives_the_authority_its_timeout_and_a_backoff(
    tmp_path: Path,
) -> None:
    authority, follower, other, clock = room(tmp_path)
    follower._connected_to = (HOST, PORT)
    link_of(follower).connected = False
    past_the_election_timeout(clock, follower)
    down = follower.tick(False)
    link_of(follower).connected = True
    assert follower.tick(down) is False  # came back: the timer starts again
    assert sent_to_others(follower, [authority, other]) == 0
    shortest = follower.node.timing.election[0]
    assert follower.node._election_due >= clock.now + shortest + BACKOFF_MAX
    # The next beat, at the same time, is an ordinary one: no second grace.
    due = follower.node._election_due
    assert follower.tick(False) is False
    assert follower.node._election_due == due
    clock.now = due + 0.001
    assert follower.tick(False) is False
    assert sent_to_others(follower, [authority, other]) == 2


def test_back_on_another_broker_a_follower_gives_the_authority_its_timeout_only(
    tmp_path: Path,
) -> None:
    authority, follower, other, clock = room(tmp_path)
    follower._connected_to = ("127.0.0.2", PORT)  # the room's broker, gone
    past_the_election_timeout(clock, follower)
    follower.tick(True)  # the link (a standby broker's) is up: back
    assert follower._connected_to == (HOST, PORT)
    longest = follower.node.timing.election[1]
    assert clock.now < follower.node._election_due <= clock.now + longest
    assert sent_to_others(follower, [authority, other]) == 0


def test_an_up_link_that_was_never_down_is_no_coming_back(tmp_path: Path) -> None:
    authority, follower, other, clock = room(tmp_path)
    follower._connected_to = (HOST, PORT)
    past_the_election_timeout(clock, follower)
    assert follower.tick(False) is False
    assert sent_to_others(follower, [authority, other]) == 2  # stood: no timer reset


def test_the_authority_beats_on_while_its_link_is_down(tmp_path: Path) -> None:
    """It stands for nothing: its heartbeats fall due (and go once the
    link is back), and it says the link was down."""
    authority, follower, other, clock = room(tmp_path)
    link_of(authority).connected = False
    clock.now += 1.0  # past a heartbeat (0.25 s)
    assert authority.tick(False) is True
    assert sent_to_others(authority, [follower, other]) == 2  # a heartbeat to each
    link_of(authority).connected = True
    authority._connected_to = (HOST, PORT)
    clock.now += 1.0
    assert authority.tick(True) is False
    assert sent_to_others(authority, [follower, other]) == 2


def test_a_voter_with_no_link_yet_keeps_time(tmp_path: Path) -> None:
    authority, follower, other, clock = room(tmp_path)
    follower._link = None
    past_the_election_timeout(clock, follower)
    assert follower.tick(True) is True  # nothing to come back on
    assert sent_to_others(follower, [authority, other]) == 2


def test_each_beat_asks_whether_a_lonely_voter_should_survey(tmp_path: Path) -> None:
    """Up, with no authority heard and two of the room's brokers known:
    lonely from this beat on; down, not (it cannot survey)."""
    _, follower, _, clock = room(tmp_path)
    follower._link = Link([(HOST, PORT), ("127.0.0.2", PORT)])  # type: ignore[assignment]
    past_the_election_timeout(clock, follower)
    clock.now += 30.0  # heard from nobody for long
    link_of(follower).connected = False
    follower.tick(False)
    assert follower._lonely_since is None
    link_of(follower).connected = True
    follower.tick(False)
    assert follower._lonely_since == clock.now


class StartedLink(Link):
    """What ``start`` makes: the arguments kept; ``start`` fails as told."""

    made: ClassVar[list[StartedLink]] = []

    def __init__(self, host: str, port: int, **arguments: Any) -> None:
        super().__init__([(host, port)])
        self.arguments = arguments
        self.farewell: Callable[[], tuple[str, bytes]] | None = None
        self.started_with: list[float | None] = []
        self.fails: BaseException | None = None
        self.closes = False  # closed (by its owner) while starting
        self.closed = False
        self.closed_with: list[tuple[bool, list[tuple[str, bytes]]]] = []
        StartedLink.made.append(self)

    async def start(self, timeout: float | None = 5.0) -> None:
        self.started_with.append(timeout)
        self.closed = self.closes
        if self.fails is not None:
            raise self.fails

    async def close(
        self, *, graceful: bool = True, final: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        self.closed = True
        self.closed_with.append((graceful, list(final)))


def started_drivers(
    tmp_path: Path, fails: BaseException | None = None, *, closes: bool = False
) -> list[VoterDriver]:
    StartedLink.made = []

    def make(host: str, port: int, **arguments: Any) -> StartedLink:
        link = StartedLink(host, port, **arguments)
        link.fails, link.closes = fails, closes
        return link

    drivers = voter_drivers(tmp_path, 3)
    for driver in drivers:
        driver._make_link = make  # type: ignore[assignment]  # a link of the test's own
    return drivers


async def test_start_makes_its_link_for_its_topics_and_runs_its_loops(tmp_path: Path) -> None:
    authority, follower, other = started_drivers(tmp_path)
    follower.cluster = (("127.0.0.3", 1883),)
    clock = Clock()
    follower.clock = clock
    past_the_election_timeout(clock, follower)  # as if it took long to start
    await follower.start()
    try:
        [link] = StartedLink.made
        assert (link.host, link.port) == (HOST, PORT)
        assert link.started_with == [None]  # however long its brokers take
        arguments = link.arguments
        assert arguments["subscriptions"] == [follower.topic, *follower._presences.topics]
        assert len(follower._presences.topics) == 2
        assert arguments["on_message"] == follower._on_message
        assert arguments["on_connect"] == follower._on_connect
        assert arguments["alternates"] == [("127.0.0.3", 1883)]
        will = arguments["will"]()
        assert isinstance(will, LastWill)
        assert will.retain
        topic = voter_presence_topic(follower.code, follower.identity.peer_id)
        assert will.topic == topic
        assert authority._presences.gone(topic, will.payload, 0.0) == follower.identity.public_key
        # Leaving of its own accord, it says "gone" as its will would.
        assert link.farewell is not None
        farewell_topic, farewell = link.farewell()
        assert farewell_topic == topic
        assert other._presences.gone(topic, farewell, 0.0) == follower.identity.public_key
        assert follower._connected_to == (HOST, PORT)
        # Up now: the authority has a whole election timeout from here.
        assert follower.node._election_due > clock.now
        # Its loops run: what waits in its outbox goes out on the link...
        follower._outbox.put_nowait(("a/topic", b"queued", True))
        await until(lambda: len(link.published) == 1)
        assert link.published == [("a/topic", b"queued", True)]
        # ...and its clock beats: a follower stands once its timeout passes.
        past_the_election_timeout(clock, follower)
        await until(lambda: len(link.published) == 3)
        assert {published[0] for published in link.published[1:]} == {
            authority.topic,
            other.topic,
        }
    finally:
        await follower.close()
    assert link.closed_with == [(True, [link.farewell()])]
    assert not follower._tasks


async def test_the_clock_carries_the_link_s_fall_from_beat_to_beat(tmp_path: Path) -> None:
    """Down on one beat, up on a later one: that later beat is the coming
    back (the timer starts again), not a stand on a timeout that passed
    while the link was down."""
    authority, follower, other = started_drivers(tmp_path)
    clock = Clock()
    follower.clock = clock
    beats: list[tuple[bool, bool]] = []
    beat = follower.tick

    def counted(down: bool) -> bool:
        beats.append((down, result := beat(down)))
        return result

    follower.tick = counted  # type: ignore[method-assign]
    await follower.start()
    try:
        [link] = StartedLink.made
        link.connected = False
        past_the_election_timeout(clock, follower)
        await until(lambda: (True, True) in beats)  # down, and told so
        link.connected = True
        await until(lambda: (True, False) in beats)  # back
        assert sent_to_others(follower, [authority, other]) == 0
        assert follower.node._election_due > clock.now
    finally:
        await follower.close()


async def test_a_link_closed_before_it_was_ever_up_ends_start_quietly(tmp_path: Path) -> None:
    """Closed while it still looked for a broker (the voter's game ended
    first): nothing to run, and no error."""
    _, follower, _ = started_drivers(tmp_path, fails=BrokerUnreachable("no broker"), closes=True)
    await follower.start()
    assert follower._tasks == []
    assert follower._connected_to is None


async def test_a_link_that_cannot_start_and_was_not_closed_is_an_error(tmp_path: Path) -> None:
    _, follower, _ = started_drivers(tmp_path, fails=BrokerUnreachable("no broker"))
    with pytest.raises(BrokerUnreachable):
        await follower.start()
    assert follower._tasks == []
