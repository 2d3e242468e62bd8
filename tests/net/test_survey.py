"""The survey of a room's brokers (net/election/survey.py), the link's move
and farewell it relies on, and where the brokers are remembered (pins):
the rule by itself, then what a real broker's retained records say, hostile
ones among them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from net.election import survey as survey_module
from net.election.survey import MAX_MESSAGES, BrokerRecords, BrokerSeen, choose, look_at, survey
from net.election.topics import Announce, authority_topic, voter_presence_topic
from net.identity import Identity
from net.lan.transport import MqttLink
from net.peer.pins import RoomPins
from net.peer.rejoin import locate_room
from net.protocol.codes import new_code
from net.protocol.wire import open_body, open_envelope, presence_decoder, seal, sealed_presence
from tests.net.brokers import require_mosquitto, start_mosquitto
from tests.net.peers import RawClient, forged, until
from tests.net.procs import need_mosquitto

A, B, C = b"a" * 32, b"b" * 32, b"c" * 32
ONE, TWO, THREE = ("10.0.0.1", 1883), ("10.0.0.2", 1883), ("10.0.0.3", 1883)
MOSQUITTO = ("127.0.0.1", 1883)


# -- the rule ----------------------------------------------------------------


def test_nothing_seen_chooses_nothing() -> None:
    assert choose([]) is None


def test_a_table_beats_any_number_of_voters_and_the_highest_term_beats_a_lower() -> None:
    crowd = BrokerSeen(ONE, frozenset({A, B}))
    table = BrokerSeen(TWO, frozenset({C}), term=3, announced_by=C)
    newer = BrokerSeen(THREE, frozenset({B}), term=4, announced_by=B)
    assert choose([crowd, table]) == TWO
    assert choose([crowd, table, newer]) == THREE


def test_a_table_whose_authority_is_not_online_there_is_none() -> None:
    gone = BrokerSeen(ONE, frozenset({A}), term=5, announced_by=B)
    assert gone.table_term == 0
    assert BrokerSeen(ONE, frozenset({B}), term=5, announced_by=B).table_term == 5
    assert choose([gone, BrokerSeen(TWO, frozenset({A, C}))]) == TWO


def test_most_voters_online_then_the_lowest_broker() -> None:
    assert choose([BrokerSeen(TWO, frozenset({A, B})), BrokerSeen(ONE, frozenset({C}))]) == TWO
    assert choose([BrokerSeen(TWO, frozenset({A})), BrokerSeen(ONE, frozenset({C}))]) == ONE
    assert choose([BrokerSeen(ONE, frozenset({A})), BrokerSeen(TWO, frozenset({C}))]) == ONE
    same_host = [BrokerSeen(("10.0.0.1", 2000)), BrokerSeen(("10.0.0.1", 1999))]
    assert choose(same_host) == ("10.0.0.1", 1999)


def test_two_voters_each_alone_agree_on_one_broker() -> None:
    """A on ONE, C on TWO, each alone: both choose the same broker (each
    counts itself where it is, the other where its record says)."""
    seen = [BrokerSeen(ONE, frozenset({A})), BrokerSeen(TWO, frozenset({C}))]
    assert choose(seen, me=A, here=ONE) == ONE
    assert choose(seen, me=C, here=TWO) == ONE
    # A voter's own record elsewhere (a connection that moved) never counts.
    stale = [BrokerSeen(ONE, frozenset({C})), BrokerSeen(TWO, frozenset({C}))]
    assert choose(stale, me=C, here=TWO) == TWO  # counted on ONE too, it would go there
    assert choose([BrokerSeen(ONE), BrokerSeen(TWO, frozenset({C}))], me=C, here=ONE) == ONE


# -- a broker's records ------------------------------------------------------


def _presence(
    identity: Identity, code: str, epoch: int, *, online: bool, broker: str = ""
) -> bytes:
    topic = voter_presence_topic(code, identity.peer_id)
    return sealed_presence(identity, topic, code, epoch, online=online, broker=broker)


class Voters:
    """Three voters of a room and a stranger, and what one broker's
    records of them say (sans-I/O: fed by hand)."""

    def __init__(self) -> None:
        self.code = new_code()
        self.hana, self.joe, self.kim, self.stranger = (Identity.generate() for _ in range(4))
        self.keys = [v.public_key for v in (self.hana, self.joe, self.kim)]
        self.records = BrokerRecords(self.code, self.keys)

    def topic(self, voter: Identity) -> str:
        return voter_presence_topic(self.code, voter.peer_id)

    def presence(
        self,
        voter: Identity,
        epoch: int,
        *,
        online: bool,
        broker: str = "",
        signer: Identity | None = None,
        code: str | None = None,
    ) -> None:
        topic = self.topic(voter)
        record = sealed_presence(
            signer or voter, topic, code or self.code, epoch, online=online, broker=broker
        )
        self.records.read(topic, record)

    def announce(self, signer: Identity, term: int) -> None:
        topic = authority_topic(self.code)
        self.records.read(topic, seal(signer, topic, Announce(term)))

    def seen(self) -> BrokerSeen:
        return self.records.seen(MOSQUITTO)


def test_each_voter_s_newest_record_counts() -> None:
    room = Voters()
    room.presence(room.hana, 5, online=True, broker="10.0.0.9:1884")
    room.presence(room.joe, 9, online=False, broker="10.0.0.8:1884")  # its will
    room.presence(room.joe, 8, online=True, broker="10.0.0.8:1884")  # older: late
    room.presence(room.kim, 3, online=True)
    room.presence(room.kim, 3, online=False)  # the same connection's will
    seen = room.seen()
    assert seen.online == {room.hana.public_key}
    assert seen.standby == {room.hana.public_key: ("10.0.0.9", 1884)}  # only online ones name one
    assert seen.messages == 5 and seen.broker == MOSQUITTO
    room.presence(room.kim, 4, online=True, broker="10.0.0.7:1884")
    assert room.seen().online == {room.hana.public_key, room.kim.public_key}
    assert room.seen().standby[room.kim.public_key] == ("10.0.0.7", 1884)


def test_a_record_not_signed_by_its_voter_or_of_another_room_says_nothing() -> None:
    room = Voters()
    # Signed by the stranger's own key, on Kim's topic.
    room.presence(room.kim, 3, online=True, signer=room.stranger)
    # Claiming Kim's key, signed by another (a forged signature).
    topic = room.topic(room.kim)
    genuine = sealed_presence(room.kim, topic, room.code, 4, online=True)
    room.records.read(
        topic,
        forged(
            room.kim.public_key, topic, open_body(open_envelope(topic, genuine), presence_decoder)
        ),
    )
    room.presence(room.joe, 7, online=True, code="ZZZ999")  # another room's
    room.records.read(topic, b"not a record")
    room.records.read("passe/v1/ZZZ999/e/p/x", genuine)  # not a topic of this room's
    seen = room.seen()
    assert seen.online == frozenset() and seen.standby == {}
    assert seen.messages == 5
    # Only a record read counts as the topic's answer (another room's is
    # one: its topic has nothing more to say).
    assert room.records.answered == {room.topic(room.joe)}


def test_the_highest_term_a_voter_announced_counts_and_a_stranger_s_does_not() -> None:
    room = Voters()
    room.announce(room.stranger, 99)
    assert room.seen().term == 0 and room.seen().announced_by is None
    room.announce(room.joe, 4)
    room.announce(room.hana, 3)  # lower: an older announcement
    seen = room.seen()
    assert seen.term == 4 and seen.announced_by == room.joe.public_key
    assert seen.table_term == 0  # Joe is not online here
    room.presence(room.joe, 1, online=True)
    assert room.seen().table_term == 4
    room.announce(room.hana, 4)  # the same term again: the first one's
    assert room.seen().announced_by == room.joe.public_key


def test_the_records_are_full_once_every_topic_answered_or_at_the_bound() -> None:
    room = Voters()
    for n, voter in enumerate((room.hana, room.joe)):
        room.presence(voter, n + 1, online=True)
    room.announce(room.hana, 2)
    assert not room.records.full  # Kim's topic has not answered
    room.presence(room.kim, 1, online=False)
    assert room.records.full
    flooded = Voters()
    for _ in range(MAX_MESSAGES - 1):
        flooded.records.read(flooded.topic(flooded.hana), b"junk")
    assert not flooded.records.full
    flooded.records.read(flooded.topic(flooded.hana), b"junk")
    assert flooded.records.full


async def test_a_look_reads_a_real_broker_s_retained_records() -> None:
    need_mosquitto()
    room = Voters()
    async with RawClient(*MOSQUITTO, []) as raw:
        topics = [room.topic(v) for v in (room.hana, room.joe, room.kim)]
        try:
            hana = sealed_presence(room.hana, topics[0], room.code, 5, online=True)
            await raw.publish(topics[0], hana, retain=True)
            announce = authority_topic(room.code)
            await raw.publish(announce, seal(room.hana, announce, Announce(4)), retain=True)
            seen = await look_at(room.code, MOSQUITTO, room.keys)
            assert seen is not None and seen.broker == MOSQUITTO
            assert seen.online == {room.hana.public_key} and seen.table_term == 4
            assert seen.messages == 2
            (surveyed,) = await survey(room.code, [MOSQUITTO], room.keys)
            assert surveyed == seen
        finally:
            for topic in [*topics, authority_topic(room.code)]:
                await raw.publish(topic, b"", retain=True)


async def test_a_look_at_a_flooded_broker_ends_at_its_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whoever floods a voter's topic while a look is under way ends the
    look after MAX_MESSAGES, not at its (here very long) deadline."""
    need_mosquitto()
    monkeypatch.setattr(survey_module, "MAX_MESSAGES", 20)
    code = new_code()
    voter = Identity.generate()
    topic = voter_presence_topic(code, voter.peer_id)
    stop = asyncio.Event()

    async def flood(raw: RawClient) -> None:
        while not stop.is_set():
            await raw.publish(topic, b"x" * 100)

    async with RawClient(*MOSQUITTO, []) as raw:
        task = asyncio.get_running_loop().create_task(flood(raw))
        try:
            async with asyncio.timeout(20):
                seen = await look_at(code, MOSQUITTO, [voter.public_key], answer_wait=600)
            assert seen is not None and seen.online == frozenset() and seen.messages == 20
        finally:
            stop.set()
            await task


async def test_a_survey_leaves_out_what_does_not_answer() -> None:
    need_mosquitto()
    nowhere = ("127.0.0.1", 1)
    seen = await survey(new_code(), [nowhere, MOSQUITTO, MOSQUITTO], [A], connect_wait=0.3)
    assert [view.broker for view in seen] == [MOSQUITTO]
    assert await look_at(new_code(), nowhere, [A], connect_wait=0.3) is None


async def test_a_broker_that_takes_the_connection_and_never_answers_is_left_out() -> None:
    """Something listens but says nothing (not a broker, or a hung one):
    the look gives up after its wait, the survey too, rather than wait for
    ever."""

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # until the other side closes
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with asyncio.timeout(20):
            assert await look_at(new_code(), ("127.0.0.1", port), [A], connect_wait=0.5) is None
            assert await survey(new_code(), [("127.0.0.1", port)], [A], connect_wait=0.5) == []
    finally:
        server.close()


# -- the link's move ---------------------------------------------------------


async def test_a_link_moves_to_another_broker_saying_its_farewell_where_it_was() -> None:
    """move_to ends the session cleanly (no will) after the farewell, which
    stays retained where the link was, and the link is up on the other
    broker; a move to where it already is does nothing."""
    need_mosquitto()
    require_mosquitto()
    code = new_code()
    voter = Identity.generate()
    topic = voter_presence_topic(code, voter.peer_id)
    with start_mosquitto() as other:
        elsewhere = ("127.0.0.1", other.port)

        async def ignore(topic: str, payload: bytes) -> None:
            return None

        link = MqttLink(*MOSQUITTO, subscriptions=[f"{topic}/x"], on_message=ignore)
        link.farewell = lambda: (topic, _presence(voter, code, 7, online=False))
        try:
            await link.start()
            await link.publish(topic, _presence(voter, code, 7, online=True), retain=True)
            link.move_to(MOSQUITTO)  # here already: stays
            assert link.connected and (link.host, link.port) == MOSQUITTO
            link.move_to(elsewhere)
            await until(lambda: link.connected and (link.host, link.port) == elsewhere)
            assert elsewhere in link.brokers
            async with RawClient(*MOSQUITTO, [topic]) as probe:
                _, payload = await probe.until(lambda t, p: bool(p))
                record = open_body(
                    open_envelope(topic, payload, expect_key=voter.public_key), presence_decoder
                )
                assert not record.online and record.epoch == 7
        finally:
            await link.close()
            async with RawClient(*MOSQUITTO, []) as raw:
                await raw.publish(topic, b"", retain=True)


# -- where the brokers are remembered -----------------------------------------


def test_a_room_s_brokers_are_remembered_in_order_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "pins.json"
    pins = RoomPins(path)
    pins.remember_brokers("ABC123", [ONE, TWO])  # not pinned: nothing kept
    assert pins.brokers("ABC123") == ()
    pins.remember("ABC123", A, THREE)
    pins.remember_brokers("ABC123", [TWO, ONE, ("x" * 300, 1), ("10.0.0.4", 0)])
    assert pins.brokers("ABC123") == (TWO, ONE)  # what would not read back is left out
    again = RoomPins(path)
    assert again.brokers("ABC123") == (TWO, ONE) and again.broker("ABC123") == THREE
    assert again.notice is None
    data = json.loads(path.read_text())
    assert data["rooms"]["ABC123"]["brokers"] == [list(TWO), list(ONE)]


@pytest.mark.parametrize(
    "brokers",
    [
        "10.0.0.1:1883",
        [["10.0.0.1", 1883]] * 25,
        [["10.0.0.1", "1883"]],
        [["10.0.0.1", 70000]],
        [["", 1883]],
        [["10.0.0.1"]],
    ],
)
def test_a_damaged_list_of_brokers_sets_the_file_aside(tmp_path: Path, brokers: object) -> None:
    path = tmp_path / "pins.json"
    entry = {"key": A.hex(), "at": 1, "broker": ["10.0.0.1", 1883], "brokers": brokers}
    path.write_text(json.dumps({"version": 1, "rooms": {"ABC123": entry}}))
    pins = RoomPins(path)
    assert pins.brokers("ABC123") == () and pins.get("ABC123") is None
    assert pins.notice is not None and "damaged" in pins.notice


async def test_locating_a_room_needs_its_voters_and_falls_back_to_this_machine_s_broker(
    tmp_path: Path,
) -> None:
    """Nothing known of the room's voters or brokers: nothing located;
    nothing answering: the broker of the list this machine brings back."""
    pins = RoomPins(tmp_path / "pins.json")
    wait = 0.3  # nothing listens at these: refused at once, then tried again
    assert await locate_room("ABC123", pins, connect_wait=wait) is None
    pins.remember("ABC123", A, ("127.0.0.1", 1))
    pins.remember_voters("ABC123", frozenset({A, B}))
    assert await locate_room("ABC123", pins, connect_wait=wait) is None  # no list of brokers
    # Another machine's (127.0.0.2: loopback too, but not among "local").
    mine, theirs = ("127.0.0.1", 2), ("127.0.0.2", 2)
    pins.remember_brokers("ABC123", [theirs, mine])
    local = {"127.0.0.1"}
    assert await locate_room("ABC123", pins, own_ports={2}, local=local, connect_wait=wait) == mine
    assert await locate_room("ABC123", pins, own_ports={3}, local=local, connect_wait=wait) is None
