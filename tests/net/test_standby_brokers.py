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
from pathlib import Path

import msgspec
import pytest

from net.authority import Authority
from net.failover import SeatVoter
from net.identity import Identity
from net.remote import RemoteTable
from net.replication import decode_room_config
from net.wire import RoomState, VoterBroker, room_state_decoder
from tests.net.procs import need_mosquitto
from tests.net.rooms_in_process import CODE, listen, room, seated, sent

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

    async def slow_standby() -> tuple[object, str]:
        await release.wait()
        return _Stopped(), "127.0.0.1"

    monkeypatch.setattr("net.failover.start_standby_broker", slow_standby)
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
