"""Where the voters go when the room's broker dies with its host (issue 20;
docs/election.md section 10): each voter's standby broker is in its
presence on the room's broker, and the room's state repeats them, so that
a seat whose voter never reached that broker before it died still goes
where the others go. The chaos soak's seed 27 (fashion, the host killed
after the first bid, 5 December) left a seat's voter alone on its own
standby broker, and the other two one vote short of a majority for good.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import msgspec
import pytest

from net.authority.authority import Authority
from net.authority.replication import decode_room_config
from net.election import driver as driver_module
from net.election.driver import VoterDriver, voter_presence_topic
from net.identity import Identity
from net.lan.transport import BACKOFF_MAX, LastWill
from net.peer.failover import SeatVoter
from net.peer.remote import RemoteTable
from net.protocol.wire import (
    Presence,
    RoomState,
    VoterBroker,
    presence_topic,
    room_state_decoder,
    room_topic,
    seal,
    to_peer_topic,
)
from tests.net.procs import need_mosquitto
from tests.net.rooms_in_process import (
    CODE,
    MemoryLink,
    linked,
    listen,
    room,
    seated,
    sent,
    within_turns,
)
from tests.net.voter_drivers import voter_drivers

BROKER = ("127.0.0.1", 1883)


def _standby_game(voter_dir: Path) -> tuple[Authority, list[Identity]]:
    """A game of three people's seats and the room's process (four voters),
    their standby brokers on; its voter's link goes to no broker."""
    authority = room(players=3, failover=True, voter_dir=voter_dir)
    authority.standby = True
    people = [Identity.generate() for _ in range(3)]
    for number, person in enumerate(people):
        seated(authority, person, name=f"P{number}", seat=number)
    listen(authority)
    authority.start_game()
    return authority, people


async def test_the_room_state_names_the_standby_brokers_known_in_succession_order(
    tmp_path: Path,
) -> None:
    """A voter's broker heard (its presence): the room's state is published
    again, naming every one known, in the config's order. Mutation: no
    republication, or the brokers left out of the state."""
    authority, people = _standby_game(tmp_path)
    assert authority.replica is not None and authority.table is not None
    await authority.table.stop()
    driver = authority.replica.driver
    driver.broker = ("127.0.0.1", 7000)  # the room's process's own standby
    sent(authority)
    driver._presences.brokers[people[2].public_key] = ("10.0.0.3", 7003)
    driver._presences.brokers[people[0].public_key] = ("::1", 7001)
    driver._follow_succession()  # as a voter presence read does
    states = [message for who, message in sent(authority) if who == "room"]
    assert states, "the room's state was not published again"
    assert [(entry.key, entry.broker) for entry in states[-1].brokers] == [
        (authority.identity.public_key, "127.0.0.1:7000"),
        (people[0].public_key, "[::1]:7001"),
        (people[2].public_key, "10.0.0.3:7003"),
    ]
    authority.standby = False
    assert authority.room_state().brokers == []  # a broker that outlives hosts
    await authority.close(keep=True)


async def test_a_seat_s_voter_goes_where_the_room_state_says_the_others_went(
    tmp_path: Path,
) -> None:
    """A seat's voter that read no other voter's presence learns their
    standby brokers from the room's state, and its seat's link follows the
    same succession. Keys that do not vote are ignored, and what a voter's
    own presence said is kept. Mutation: ``learn_brokers`` not called, or
    taking a non-voter's broker."""
    authority, people = _standby_game(tmp_path)
    assert authority.replica is not None and authority.table is not None
    await authority.table.stop()
    maker = authority.identity.public_key
    authority.replica.driver.broker = ("127.0.0.1", 7000)
    authority.replica.driver._presences.brokers[people[1].public_key] = ("127.0.0.1", 7002)
    stranger = Identity.generate().public_key
    state = authority.room_state()
    table = RemoteTable(people[2], CODE, "127.0.0.1", 1, "P2")
    config = decode_room_config(state.election)
    assert config is not None
    voter = SeatVoter(
        people[2],
        CODE,
        config,
        state.election,
        "127.0.0.1",
        1,
        seat_name=lambda: "P2",
        room_key=lambda: None,
        directory=tmp_path / "seat",
        on_brokers=table._follow_brokers,
    )
    voter.replica.driver.broker = ("127.0.0.1", 7003)
    voter.replica.driver._presences.brokers[people[1].public_key] = ("127.0.0.1", 9999)
    table.voter = voter
    table._election = state.election  # followed already: no new voter
    table._voters = frozenset(v.key for v in config.voters)
    with_stranger = msgspec.structs.replace(
        state, brokers=[*state.brokers, VoterBroker(stranger, "10.9.9.9:1")]
    )
    table._follow_election(with_stranger)
    assert voter.replica.driver.succession() == [
        ("127.0.0.1", 7000),  # the room's process, first in the config
        ("127.0.0.1", 9999),  # its own reading of that voter's presence kept
        ("127.0.0.1", 7003),  # its own
    ]
    assert stranger not in voter.replica.driver.brokers()
    assert table.broker_alternates == (
        ("127.0.0.1", 7000),
        ("127.0.0.1", 9999),
        ("127.0.0.1", 7003),
    )
    assert maker in voter.replica.driver.brokers()
    await table.close()
    await authority.close(keep=True)


def test_a_room_state_with_too_many_brokers_is_refused() -> None:
    """At most MAX_VOTERS (24) standby brokers: a room state naming more
    does not decode (every network byte is bounded)."""
    state = RoomState(
        room=CODE,
        game="passpass",
        config={},
        host="H",
        phase="playing",
        seats=[],
        seq=0,
        stamp=1,
        app="t",
        seed_hash=bytes(32),
        brokers=[VoterBroker(bytes(32), "h:1")] * 25,
    )
    try:
        room_state_decoder.decode(msgspec.msgpack.encode(state))
    except msgspec.ValidationError as error:
        assert "brokers" in str(error)
    else:
        raise AssertionError("25 brokers decoded")


async def test_a_seat_s_voter_connects_before_its_standby_broker_is_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The room's broker first: a seat's voter is on it (its vote counts)
    while its standby broker still starts, and announces that broker once
    it is up. Mutation: the standby broker awaited first (the voter is not
    up while it starts: a host killed then left it out of the room for
    good, the chaos soak's seed 27)."""
    need_mosquitto()
    authority, people = _standby_game(tmp_path)
    assert authority.table is not None
    await authority.table.stop()
    state = authority.room_state()
    config = decode_room_config(state.election)
    assert config is not None
    release = asyncio.Event()

    async def slow_standby(port: int = 0) -> tuple[object, str]:
        await release.wait()
        return _Stopped(), "127.0.0.1"

    monkeypatch.setattr("net.peer.failover.start_standby_broker", slow_standby)
    voter = SeatVoter(
        people[0],
        CODE,
        config,
        state.election,
        *BROKER,
        seat_name=lambda: "P0",
        room_key=lambda: None,
        directory=tmp_path / "seat",
        standby=True,
    )
    try:
        async with asyncio.timeout(10):
            await voter.start()
        driver = voter.replica.driver
        assert driver._link is not None and driver._link.connected
        assert driver.broker is None
        release.set()
        async with asyncio.timeout(10):
            while driver.broker is None:
                await asyncio.sleep(0.01)
        assert driver.broker == ("127.0.0.1", _Stopped.port)
        assert driver.succession() == [("127.0.0.1", _Stopped.port)]
    finally:
        release.set()
        await voter.close()
        await authority.close(keep=True)


class _Stopped:
    """A standby broker's stand-in: a port, and a stop that does nothing."""

    port = 1

    async def stop(self) -> None:
        return None


class _Standby:
    """A standby broker's stand-in of its own port, counting its stops."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.stops = 0

    async def stop(self) -> None:
        self.stops += 1


def _fake_standby_brokers(monkeypatch: pytest.MonkeyPatch) -> list[_Standby]:
    """Every standby broker started from now on is a stand-in, in order
    (ports 7001, 7002, ...)."""
    started: list[_Standby] = []

    async def start(port: int = 0) -> tuple[_Standby, str]:
        started.append(_Standby(7001 + len(started)))
        return started[-1], "127.0.0.1"

    monkeypatch.setattr("net.peer.failover.start_standby_broker", start)
    return started


async def _deliver(authority: Authority, tables: list[RemoteTable]) -> None:
    """Until nothing moves: what each table published to ``authority``,
    and what the authority sent to every table (the room's state to all)."""
    while True:
        moved = False
        for table in tables:
            link = table._link
            assert link is not None
            published, link.published = link.published, []  # type: ignore[attr-defined]
            for topic, payload, _ in published:
                moved = True
                await authority._on_message(topic, payload)
        outbox = authority._outbox
        assert outbox is not None
        while (message := outbox.pop()) is not None:
            moved = True
            for table in tables:
                if message[0] in (room_topic(CODE), to_peer_topic(CODE, table.identity.peer_id)):
                    await table._on_message(message[0], message[1])
        for _ in range(5):  # the tasks a message started (a standby broker's start)
            await asyncio.sleep(0)
        if not moved:
            return


async def test_seats_start_standby_brokers_in_the_lobby_and_the_game_s_first_state_names_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lobby whose broker dies with its host says ``standby``; each seat's
    process starts its standby broker there and names it in its presence;
    the game's first state names them all, in the config's order, and each
    seat's voter takes its own over (none started twice). Before, they
    started with the game, and a host killed in its first second left each
    voter knowing no other's (CI, a clean clone, 5 December). Mutation:
    the lobby's state without ``standby``, the presence without its broker,
    the first state without the brokers, a voter starting a second one."""
    started = _fake_standby_brokers(monkeypatch)
    authority = room(players=3, failover=True, voter_dir=tmp_path)
    authority.standby = True
    listen(authority)
    assert authority.room_state().standby
    people = [Identity.generate() for _ in range(3)]
    tables = [RemoteTable(person, CODE, "127.0.0.1", 1, f"P{n}") for n, person in enumerate(people)]
    for table in tables:
        link = linked(table, authority)
        await authority._on_message(
            presence_topic(CODE, table.identity.peer_id), table._presence_payload(online=True)
        )
        table._send(table._hello(None, have=0))

        def published(link: MemoryLink = link) -> bool:
            return bool(link.published)

        await within_turns(published)
    await _deliver(authority, tables)
    assert [table.seat for table in tables] == [0, 1, 2]
    assert len(started) == 3
    assert authority.standby_missing() == []
    await asyncio.wait_for(authority.wait_standby(), 1)  # nobody to wait for
    authority.start_game()
    assert authority.table is not None
    await authority.table.stop()
    (first, *_) = [message for who, message in sent(authority) if who == "room"]
    by_key = {table.identity.public_key: table._standby_address for table in tables}
    assert first.phase == "playing" and first.election
    assert [(entry.key, entry.broker) for entry in first.brokers] == [
        (person.public_key, by_key[person.public_key]) for person in people
    ]
    assert sorted(by_key.values()) == ["127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"]
    for table in tables:
        await table._on_message(room_topic(CODE), authority._room_payload())
        voter = table.voter
        assert voter is not None and table._standby is None

        def broker_up(voter: SeatVoter = voter) -> bool:
            return voter.broker is not None

        await within_turns(broker_up)
        # Its link knows where everyone goes: the others' brokers and its own.
        assert sorted(table._link.alternates) == [  # type: ignore[union-attr]
            ("127.0.0.1", 7001),
            ("127.0.0.1", 7002),
            ("127.0.0.1", 7003),
        ]
    assert len(started) == 3  # the voters took the lobby's over
    for table in tables:
        await table.close()
    assert [broker.stops for broker in started] == [1, 1, 1]
    await authority.close(keep=True)


async def test_a_game_waits_for_a_seat_s_standby_broker_a_little(
    tmp_path: Path,
) -> None:
    """Authority.wait_standby: until each seated person's standby broker is
    named (woken by the presence that names it), or its timeout (an earlier
    Passe names none). Mutation: no wait, or not woken."""
    authority = room(players=3, failover=True, voter_dir=tmp_path)
    authority.standby = True
    people = [Identity.generate() for _ in range(3)]
    for number, person in enumerate(people):
        seated(authority, person, name=f"P{number}", seat=number)
    assert authority.standby_missing() == ["P0", "P1", "P2"]
    await asyncio.wait_for(authority.wait_standby(timeout=0.01), 5)  # gives up
    waiting = asyncio.create_task(authority.wait_standby(timeout=600))
    for number, person in enumerate(people):
        for _ in range(10):  # a few turns of the loop: it waits, for someone
            await asyncio.sleep(0)
        assert not waiting.done()
        topic = presence_topic(CODE, person.peer_id)
        named = Presence(room=CODE, epoch=5, online=True, name="x", broker=f"10.0.0.{number}:1")
        authority._on_presence(topic, person.peer_id, seal(person, topic, named))
    await within_turns(waiting.done)
    assert authority.standby_missing() == []
    authority.failover = False  # a room that does not fail over waits for nobody
    assert authority.room_state().standby is False


async def test_a_seat_s_standby_broker_is_stopped_when_it_has_no_vote(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A seat that does not vote once the game started (its room did not
    fail over after all: too few people) stops the standby broker it
    started in the lobby; the host's own seat never starts one (its
    machine is the room's). Mutation: left running for the whole game."""
    started = _fake_standby_brokers(monkeypatch)
    authority = room(players=3, failover=True)
    authority.standby = True
    person = Identity.generate()
    seated(authority, person, seat=0)
    lobby = authority.room_state()
    hosts = RemoteTable(Identity.generate(), CODE, "127.0.0.1", 1, "Host")
    hosts.runs_the_room, hosts.seat = True, 1
    hosts._prepare_standby(lobby)
    table = RemoteTable(person, CODE, "127.0.0.1", 1, "Ana")
    table.seat = 0
    table._prepare_standby(lobby)
    await within_turns(lambda: table._standby_address != "")
    assert len(started) == 1 and table._standby_address == "127.0.0.1:7001"
    table._prepare_standby(msgspec.structs.replace(lobby, phase="playing", standby=False))
    await within_turns(lambda: started[0].stops == 1)
    await table.close()
    await hosts.close()
    assert started[0].stops == 1


class _Link:
    """What a driver reads of its link: where it is, and whether it is up."""

    def __init__(self, where: tuple[str, int]) -> None:
        self.host, self.port = where
        self.connected = True
        self.sent: list[str] = []  # the topics of what the driver wrote to it

    def publish_now(self, topic: str, payload: bytes) -> bool:
        self.sent.append(topic)
        return True

    def set_alternates(self, alternates: list[tuple[str, int]], *, rejoin_earlier: bool) -> None:
        self.alternates = alternates


async def _turns(count: int = 5) -> None:
    """A few turns of the event loop: callbacks due now run (no wall clock)."""
    for _ in range(count):
        await asyncio.sleep(0)


ROOM_BROKER, STANDBY, CLUSTER_NODE = ("127.0.0.1", 1), ("127.0.0.9", 1999), ("127.0.0.7", 1883)


class WillHeard:
    """Bob, a follower on the room's broker, with the authority and Carol
    (whose standby broker is next in succession) online; ``hear_will``
    gives him the authority's current will while his link is up, then takes
    his link down (the broker went with its host before his stand was due).
    No stand waits on the wall clock (WILL_SETTLE, WILL_SPREAD: 0)."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(driver_module, "WILL_SETTLE", 0.0)
        monkeypatch.setattr(driver_module, "WILL_SPREAD", 0.0)
        self.authority, self.bob, self.carol = voter_drivers(tmp_path, 3, cluster=[CLUSTER_NODE])
        self.carol.broker = STANDBY
        self.wills: dict[VoterDriver, LastWill] = {}
        self.link = _Link(ROOM_BROKER)

    async def online(self) -> None:
        bob = self.bob
        for voter in (self.authority, self.carol):
            self.wills[voter] = voter._will()  # its connection (epoch 1): "online", and its will
            topic = voter_presence_topic(bob.code, voter.identity.peer_id)
            await bob._on_message(topic, voter._presence(online=True))
        assert bob.succession() == [STANDBY]
        authority = self.authority
        while not authority._outbox.empty():  # term 1's first entry: Bob follows the authority
            topic, payload, _ = authority._outbox.get_nowait()
            if topic == bob.topic:
                assert isinstance(payload, bytes)  # sealed at once (no seat waits)
                await bob._on_message(topic, payload)
        assert bob.node.authority == authority.identity.public_key
        while not bob._outbox.empty():  # his reply: not what this test looks at
            bob._outbox.get_nowait()
        bob._link, bob._connected_to = self.link, ROOM_BROKER  # type: ignore[assignment]

    async def hear_will(self) -> None:
        will = self.wills[self.authority]
        await self.bob._on_message(will.topic, will.payload)
        self.link.connected = False
        await _turns()
        assert self.bob._outbox.empty() and self.link.sent == []

    async def back_on(self, where: tuple[str, int]) -> bool:
        """Bob's link up again at ``where``: whether he stood (asked the
        others for their votes)."""
        self.link.host, self.link.port = where
        self.link.connected = True
        self.bob._came_back(self.link)  # type: ignore[arg-type]
        await _turns()
        asked = set(self.link.sent)
        while not self.bob._outbox.empty():
            asked.add(self.bob._outbox.get_nowait()[0])
        if asked:
            assert asked == {self.authority.topic, self.carol.topic}
        return bool(asked)


@pytest.mark.parametrize(
    ("back_on", "stands"),
    [
        (STANDBY, True),
        (ROOM_BROKER, False),
        (CLUSTER_NODE, False),
        (("127.0.0.5", 1), False),  # a broker neither in succession nor the cluster
    ],
)
async def test_a_voter_that_heard_the_authority_s_will_stands_at_once_on_a_standby_broker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, back_on: tuple[str, int], stands: bool
) -> None:
    """Bob, a follower on the room's embedded broker, hears the authority's
    current will (its broker saw its connection die: the host was killed),
    then that broker goes with its host's machine, before Bob's stand was
    due. His link comes back on Carol's standby broker, next in succession:
    the authority is gone, and he stands at once and grants pre-votes,
    instead of a whole election timeout's wait for it there (1.7 s at p50,
    bench/failover.py). Back on the same broker (restarted), or on another
    node of the broker's cluster (a node that stops may send every client's
    will while the authority lives), or on one he knows nothing of, he
    gives the authority its time (docs/election.md section 10). Mutation:
    no stand on a standby broker, or one on the same broker or a cluster
    node."""
    room = WillHeard(tmp_path, monkeypatch)
    await room.online()
    await room.hear_will()
    assert await room.back_on(back_on) is stands
    bob = room.bob
    assert bob.node._in_lease(bob.clock()) is not stands
    assert bob._connected_to == back_on and bob._will_seen is None


async def test_back_on_the_standby_broker_it_was_on_a_voter_gives_the_authority_its_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob was on Carol's standby broker already (an earlier failover) when
    the will came: back on that same broker (it restarted), the authority's
    link may come back too; he waits. Mutation: "the same broker" lost."""
    room = WillHeard(tmp_path, monkeypatch)
    await room.online()
    room.bob._connected_to = STANDBY
    room.link.host, room.link.port = STANDBY
    await room.hear_will()
    assert not await room.back_on(STANDBY)


async def test_a_will_that_no_longer_holds_makes_no_stand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a standby broker, no stand when the will seen is no longer the
    current authority's: it came back (a newer connection said "online"),
    or the term moved on, or another voter leads now. Mutations: each
    condition of the stand dropped."""
    for change in ("back", "term", "other"):
        room = WillHeard(tmp_path / change, monkeypatch)
        await room.online()
        await room.hear_will()
        bob, seen = room.bob, room.bob._will_seen
        assert seen is not None
        term, voter, epoch = seen
        if change == "back":  # the authority's next connection: "online"
            room.authority._will()
            topic = voter_presence_topic(bob.code, room.authority.identity.peer_id)
            await bob._on_message(topic, room.authority._presence(online=True))
        elif change == "term":
            bob._will_seen = (term - 1, voter, epoch)
        else:
            bob._will_seen = (term, room.carol.identity.public_key, epoch)
        assert not await room.back_on(STANDBY), change
        assert bob.node._in_lease(bob.clock()), change  # and no pre-vote for anyone


async def test_back_on_the_same_broker_the_authority_gets_a_reconnection_backoff_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no will heard: back on the broker it was on, the authority's
    own link may come back a whole reconnection backoff later than Bob's,
    so he waits that much more; on another broker, an election timeout
    only. And no stand on a standby broker without a will (nothing says the
    authority is gone). Mutations: the grace's condition and value."""
    for where, grace in ((ROOM_BROKER, BACKOFF_MAX), (STANDBY, 0.0)):
        room = WillHeard(tmp_path / str(grace), monkeypatch)
        await room.online()
        bob = room.bob
        later = time.monotonic() + 3600.0  # far past any lease of the set-up
        bob.clock = lambda later=later: later  # type: ignore[misc]
        assert not await room.back_on(where)
        assert bob.node._lease_until == later + bob.node.timing.election[0] + grace


async def test_a_voter_s_standby_broker_once_up_is_in_its_presence_at_once(
    tmp_path: Path,
) -> None:
    """set_standby: the voter's standby broker is up (started beside its
    first connection): its succession has it, and its retained presence
    says so again at once when its link is up (the others learn where to
    go before any failover); with its link down, on its next connection.
    Mutations: the presence not sent, or on another topic, or "gone"."""
    from net.protocol.wire import open_body, open_envelope, presence_decoder

    bob = voter_drivers(tmp_path, 3)[1]
    bob.set_standby(STANDBY)  # no link yet: nothing to send now
    assert bob._outbox.empty() and bob.succession() == [STANDBY]
    link = _Link(ROOM_BROKER)
    link.connected = False
    bob._link = link  # type: ignore[assignment]
    bob.set_standby(STANDBY)
    assert bob._outbox.empty()
    link.connected = True
    bob.set_standby(("127.0.0.9", 2000))
    topic, payload, retain = bob._outbox.get_nowait()
    assert bob._outbox.empty() and retain
    assert isinstance(payload, bytes)
    assert topic == voter_presence_topic(bob.code, bob.identity.peer_id)
    envelope = open_envelope(topic, payload, expect_key=bob.identity.public_key)
    presence = open_body(envelope, presence_decoder)
    assert presence.online and presence.broker == "127.0.0.9:2000" and presence.room == bob.code
    assert link.alternates == [("127.0.0.9", 2000)]


async def test_the_authority_s_will_makes_a_voter_stand_after_a_moment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The will of the authority's current connection, heard with Bob's
    link up: he says so in the log, grants pre-votes from then on, and
    stands once the short delay has passed. Heard with no link at all (a
    message handled as the driver closes), it makes no stand and no error.
    Mutations: the stand's term, voter or epoch, the log line, the link
    check."""
    import logging

    room = WillHeard(tmp_path, monkeypatch)
    await room.online()
    bob, will = room.bob, room.wills[room.authority]
    with caplog.at_level(logging.INFO, logger="passe.election"):
        await bob._on_message(will.topic, will.payload)
    assert f"the authority's will: {room.authority.identity.peer_id} is gone" in caplog.messages
    assert not bob.node._in_lease(bob.clock())  # pre-votes granted from now on
    await _turns()
    asked = set(room.link.sent)
    while not bob._outbox.empty():
        asked.add(bob._outbox.get_nowait()[0])
    assert asked == {room.authority.topic, room.carol.topic}
    quiet = WillHeard(tmp_path / "quiet", monkeypatch)
    await quiet.online()
    quiet.bob._link = None
    will = quiet.wills[quiet.authority]
    await quiet.bob._on_message(will.topic, will.payload)
    await _turns()
    assert quiet.bob.node._in_lease(quiet.bob.clock()) and quiet.bob._outbox.empty()


async def test_a_link_with_the_table_stays_when_a_broker_before_its_own_is_learnt(
    tmp_path: Path,
) -> None:
    """A broker that comes before the one a link is on (a machine back from
    the dead brings its broker back at its old place in the list) moves
    only links that are not with the table: a voter that hears the
    authority, or a seat whose table's presence is online, stays where the
    table is; one alone goes down its list again (the chaos soak's seed
    27). Mutations: the conditions dropped or inverted."""
    import time as clock

    class Link(_Link):
        def set_alternates(
            self, alternates: list[tuple[str, int]], *, rejoin_earlier: bool = False
        ) -> None:
            self.alternates = alternates
            self.rejoined = rejoin_earlier

    bob = voter_drivers(tmp_path, 3)[1]
    link = Link(ROOM_BROKER)
    bob._link = link  # type: ignore[assignment]
    maker = bob.node.voters[0]
    now = clock.monotonic()
    bob.clock = lambda: now
    bob.node.authority, bob.node._heard_at = maker, now  # it hears the authority
    bob.learn_brokers({maker: ("127.0.0.1", 7000)})
    assert link.alternates == [("127.0.0.1", 7000)] and link.rejoined is False
    bob.node._heard_at = now - bob.node.timing.election[0]  # silent as long as a timeout
    bob.learn_brokers({bob.node.voters[2]: ("127.0.0.1", 7002)})
    assert link.rejoined is True
    table = RemoteTable(Identity.generate(), CODE, "127.0.0.1", 1, "P")
    seat_link = Link(ROOM_BROKER)
    table._link = seat_link
    table.host_present = True
    table._follow_brokers([("127.0.0.1", 7000)])
    assert seat_link.rejoined is False
    table.host_present = False
    table._follow_brokers([("127.0.0.1", 7000), ("127.0.0.1", 7002)])
    assert seat_link.rejoined is True
