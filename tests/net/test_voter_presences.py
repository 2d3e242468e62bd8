"""The voters' presence records as a voter reads them (net/election/driver.py,
``VoterPresences``): only a voter's own signed record counts, only its
newest connection's will starts anything (Sparkplug's rule: a late will
says nothing), and a standby broker is taken from the newest "online".

A will only starts an election, never decides one (issue 20); these are
the rules that keep a forged, stale or foreign will from even starting one.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from net.election.driver import VoterPresences, voter_presence_topic
from net.identity import Identity
from net.protocol.bounds import FloodLog
from net.protocol.wire import sealed_presence

CODE = "VPR123"
OTHER_ROOM = "VPR456"


class Room:
    """Two voters, Ana and Bo, as a third reads their presences."""

    def __init__(self) -> None:
        self.ana, self.bo = Identity.generate(), Identity.generate()
        self.floods = FloodLog(logging.getLogger("passe.election"))
        self.presences = VoterPresences(
            CODE, [self.ana.public_key, self.bo.public_key], self.floods
        )

    def topic(self, voter: Identity) -> str:
        return voter_presence_topic(CODE, voter.peer_id)

    def record(
        self,
        voter: Identity,
        epoch: int,
        *,
        online: bool,
        broker: str = "",
        signer: Identity | None = None,
        code: str = CODE,
    ) -> bytes | None:
        """What reading ``voter``'s record (signed by ``signer``) says."""
        topic = self.topic(voter)
        payload = sealed_presence(signer or voter, topic, code, epoch, online=online, broker=broker)
        return self.presences.gone(topic, payload, now=0.0)


def test_each_voter_s_record_is_read_on_its_own_topic() -> None:
    room = Room()
    assert set(room.presences.topics) == {room.topic(room.ana), room.topic(room.bo)}
    assert room.presences.topics[room.topic(room.ana)] == room.ana.public_key


def test_the_will_of_a_voter_s_newest_connection_says_it_is_gone() -> None:
    room = Room()
    assert room.record(room.ana, 5, online=True) is None  # alive
    assert room.presences.newest(room.ana.public_key) == 5
    assert room.record(room.ana, 5, online=False) == room.ana.public_key
    assert room.presences.newest(room.bo.public_key) == 0  # none known
    # No connection of Bo's known yet: his will is of his newest, whatever
    # its epoch (0 included: the smallest the wire allows).
    assert room.record(room.bo, 0, online=False) == room.bo.public_key


def test_a_late_will_of_an_older_connection_says_nothing() -> None:
    """Ana reconnected (epoch 7): the broker's will of her connection 6,
    arriving late, must not start an election."""
    room = Room()
    room.record(room.ana, 7, online=True)
    assert room.record(room.ana, 6, online=False) is None
    room.record(room.ana, 6, online=True)  # a late "online" lowers nothing
    assert room.presences.newest(room.ana.public_key) == 7
    assert room.record(room.ana, 8, online=False) == room.ana.public_key


def test_a_record_signed_by_another_key_is_dropped_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A forged will (Bo's key signing Ana's record, or a stranger's) starts
    nothing and changes nothing; the drop is logged (bounded: FloodLog)."""
    room = Room()
    room.record(room.ana, 3, online=True)
    with caplog.at_level(logging.WARNING, logger="passe.election"):
        assert room.record(room.ana, 9, online=False, signer=room.bo) is None
        assert room.record(room.ana, 9, online=True, signer=Identity.generate()) is None
    assert room.presences.newest(room.ana.public_key) == 3
    assert room.floods.counts == {"election-bad": 2}
    assert caplog.messages and caplog.messages[0].startswith("dropped a voter's presence: ")


def test_a_record_of_another_room_says_nothing() -> None:
    """Ana's key, her topic here, but signed for another room's presence:
    replayed from there, it neither kills nor revives her here."""
    room = Room()
    room.record(room.ana, 3, online=True)
    assert room.record(room.ana, 9, online=False, code=OTHER_ROOM) is None
    assert room.record(room.ana, 9, online=True, code=OTHER_ROOM, broker="10.0.0.5:1884") is None
    assert room.presences.newest(room.ana.public_key) == 3
    assert room.presences.brokers == {}


def test_a_standby_broker_is_taken_from_the_newest_online_record_only() -> None:
    room = Room()
    room.record(room.ana, 4, online=True, broker="10.0.0.4:1884")
    assert room.presences.brokers == {room.ana.public_key: ("10.0.0.4", 1884)}
    room.record(room.ana, 3, online=True, broker="10.0.0.3:1884")  # older: not taken
    assert room.presences.brokers[room.ana.public_key] == ("10.0.0.4", 1884)
    room.record(room.ana, 4, online=True, broker="[fe80::1]:1885")  # the same connection
    assert room.presences.brokers[room.ana.public_key] == ("fe80::1", 1885)
    room.record(room.ana, 5, online=True, broker="not an address")  # none: the last kept
    assert room.presences.brokers[room.ana.public_key] == ("fe80::1", 1885)
    room.record(room.bo, 1, online=False, broker="10.0.0.9:1884")  # a will names none
    assert room.bo.public_key not in room.presences.brokers


@pytest.mark.parametrize(
    "text",
    ["broker.lan:1884", "10.0.0.1", "10.0.0.1:0", "10.0.0.1:65536", "10.0.0.1:18x4", ":1884", ""],
)
def test_a_standby_broker_is_an_ip_address_and_a_port_or_nothing(text: str) -> None:
    """A presence names its broker by address (no name to resolve: a
    voter's machine goes there when the room's broker dies), 1-65535."""
    from net.election.driver import parse_broker

    assert parse_broker(text) is None


@pytest.mark.parametrize(
    ("broker", "text"),
    [
        (("10.0.0.1", 1), "10.0.0.1:1"),
        (("10.0.0.1", 65535), "10.0.0.1:65535"),
        (("fe80::1", 1884), "[fe80::1]:1884"),
    ],
)
def test_a_broker_is_written_as_it_is_read_back(broker: tuple[str, int], text: str) -> None:
    from net.election.driver import broker_text, parse_broker

    assert broker_text(broker) == text and parse_broker(text) == broker


def test_who_is_online_is_each_voter_s_newest_record() -> None:
    """What the bar counts (how many of the room's machines are here):
    the newest record of each voter, a late will of an older connection
    changing nothing, a forged or foreign record nothing at all."""
    room = Room()
    room.record(room.ana, 10, online=True)
    assert room.presences.online == {room.ana.public_key: True}
    room.record(room.ana, 9, online=False)  # an older connection's late will
    room.record(room.bo, 5, online=True, signer=room.ana)  # forged
    room.record(room.bo, 5, online=True, code=OTHER_ROOM)  # another room's
    assert room.presences.online == {room.ana.public_key: True}
    room.record(room.ana, 10, online=False)  # its connection's will
    room.record(room.bo, 3, online=True)
    assert room.presences.online == {room.ana.public_key: False, room.bo.public_key: True}
    room.record(room.ana, 11, online=True)
    assert sum(room.presences.online.values()) == 2


async def test_a_voter_counts_the_machines_where_it_is(tmp_path: Path) -> None:
    """Itself while its link is up, the others whose newest record says
    online; a new connection forgets what another broker said, and every
    record read is told to who wants to know (the bar)."""
    from net.election.driver import VoterDriver
    from net.protocol.wire import sealed_presence as sealed
    from tests.net.voter_drivers import voter_drivers

    class Link:
        connected = True

        async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
            return None

    voters: list[VoterDriver] = voter_drivers(tmp_path, 3)
    me, other = voters[1], voters[2]
    told: list[int] = []
    me.on_presence = lambda: told.append(me.voters_online())
    assert me.voters_online() == 0  # no link
    me._link = Link()  # type: ignore[assignment]
    assert me.voters_online() == 1
    topic = voter_presence_topic(me.code, other.identity.peer_id)
    online = sealed(other.identity, topic, me.code, 7, online=True)
    await me._on_message(topic, online)
    assert me.voters_online() == 2 and told == [2]
    await me._on_connect()  # a new connection, maybe on another broker
    assert me.voters_online() == 1
    Link.connected = False
    assert me.voters_online() == 0


async def test_a_voter_counts_the_machines_only_once_their_records_can_have_come(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The others' retained records come just after each connection's
    subscription; before them, every other voter read as away, and a
    seat's bar said "The game waits for the room's machines: 1 of its 3 is
    here" as each game began (CI, a loaded machine). ``counting`` says
    whether the count means anything: a link up for PRESENCE_SETTLE since
    it came up; and who wants to know is told when it does. Mutations: no
    wait; counting from the first connection only; nobody told."""
    from net.election import driver as driver_module
    from net.election.driver import VoterDriver
    from tests.net.voter_drivers import voter_drivers

    class Link:
        connected = True

        async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
            return None

    voters: list[VoterDriver] = voter_drivers(tmp_path, 3)
    me = voters[1]
    now = [100.0]
    me.clock = lambda: now[0]
    assert not me.counting()  # no link
    me._link = Link()  # type: ignore[assignment]
    assert not me.counting()  # up, but never connected
    told = asyncio.Event()
    me.on_presence = told.set
    monkeypatch.setattr(driver_module, "PRESENCE_SETTLE", 0.25)  # the loop's wait too
    await me._on_connect()
    assert not me.counting()
    now[0] += 0.125
    assert not me.counting()
    now[0] += 0.125  # exactly the wait (binary fractions: no rounding)
    assert me.counting()
    await asyncio.wait_for(told.wait(), 5)  # told once it counts (the bar is drawn again)
    now[0] += 60
    await me._on_connect()  # a new connection: its broker's records to come
    assert not me.counting()
    now[0] += 1
    assert me.counting()
    Link.connected = False
    assert not me.counting()


async def test_a_voter_names_the_machines_it_does_not_find(tmp_path: Path) -> None:
    """The others whose newest record here does not say online, in the
    room's order (the bar names whose machine the game waits for): all of
    them before any record, then those not back; never itself."""
    from net.election.driver import VoterDriver
    from net.protocol.wire import sealed_presence as sealed
    from tests.net.voter_drivers import voter_drivers

    voters: list[VoterDriver] = voter_drivers(tmp_path, 4)
    me = voters[1]
    keys = [voter.identity.public_key for voter in voters]
    assert [voter.key for voter in me.voters_away()] == [keys[0], keys[2], keys[3]]
    for number, online in ((2, True), (3, True), (3, False)):
        other = voters[number]
        topic = voter_presence_topic(me.code, other.identity.peer_id)
        epoch = 7 if online else 8
        await me._on_message(topic, sealed(other.identity, topic, me.code, epoch, online=online))
    assert [voter.key for voter in me.voters_away()] == [keys[0], keys[3]]
