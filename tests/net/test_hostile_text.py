"""Text from the network, over a real broker (Mosquitto), authority and peers
in this process (issue 19, item 1): hostile names are cleaned by the
authority on Hello, and a peer cleans whatever a room state, refusal or
update carries (a squatter's or an old host's raw text). Also: no bot named
like a person (issue 18)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from net.authority.host import HostedRoom
from net.identity import Identity
from net.peer.remote import RemoteTable
from net.protocol.codes import new_code
from net.protocol.text import name_key
from net.protocol.wire import RoomState, SeatState, room_topic, seal
from tests.net.peers import RawClient, open_test_room, until
from tests.net.procs import need_mosquitto

BROKER = ("127.0.0.1", 1883)


@pytest.fixture
async def room() -> AsyncIterator[HostedRoom]:
    need_mosquitto()
    hosted = await open_test_room("passpass", 4, BROKER, seed=5, host_name="\x1b]0;PWNED\x07Hô")
    try:
        yield hosted
    finally:
        await hosted.close()


async def test_the_authority_cleans_names_on_hello_and_keeps_markup_as_text(
    room: HostedRoom, caplog: pytest.LogCaptureFixture
) -> None:
    names = ["\x1b]0;PWNED\x07[/]", "\x1b[2J", "\u202eEve\u202c [bold red]x"]
    tables = [RemoteTable(Identity.generate(), room.code, *BROKER, name) for name in names]
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        seats = [await table.join() for table in tables]
    try:
        held = [room.authority.seats[seat].name for seat in seats]
        assert held == ["[/]", "Player", "Eve [bold red]x"]
        # Every peer reads the room with those names, and the host's cleaned.
        for table in tables:
            await until(lambda t=table: t.names[seats[-1]] == "Eve [bold red]x")  # type: ignore[misc]
            assert table.room is not None and table.room.host == "Hô"
        # The log line quotes the name, escapes and all, as text.
        assert all("\x1b" not in record.getMessage() for record in caplog.records)
    finally:
        for table in tables:
            await table.close()


async def test_a_bot_makes_way_for_a_person_of_its_name(room: HostedRoom) -> None:
    """Issue 18: "ada" beside a bot "Ada" read as one player; the bot takes
    another name, the person keeps theirs."""
    room.authority.set_bot(1, "heuristic")
    assert room.authority.seats[1].name == "Ada"
    ada = RemoteTable(Identity.generate(), room.code, *BROKER, "ada")
    seat = await ada.join()
    try:
        names = [slot.name for slot in room.authority.seats]
        assert names[seat] == "ada"
        keys = [name_key(slot.name) for slot in room.authority.seats if slot.kind != "open"]
        assert len(keys) == len(set(keys)), names
        # A full-width "ＡＤＡ" is the same name to a reader: numbered.
        other = RemoteTable(Identity.generate(), room.code, *BROKER, "ＡＤＡ")
        second = await other.join()
        assert room.authority.seats[second].name == "ＡＤＡ 2"
        await other.close()
        # A bot put in later does not take a person's name either.
        free = next(n for n, slot in enumerate(room.authority.seats) if slot.kind == "open")
        room.authority.set_bot(free, "heuristic")
        assert name_key(room.authority.seats[free].name) != name_key("ada")
    finally:
        await ada.close()


async def test_a_squatters_raw_room_state_reaches_a_joiner_cleaned() -> None:
    """Issue 19: a squatter's retained room state with host name
    ``\\x1b]0;PWNED\\x07`` set the joiner's terminal title, and a seat name
    ``\\x1b[2J`` blanked its lobby: the joiner reads them as text."""
    need_mosquitto()
    code = new_code()
    squatter = Identity.generate()
    state = RoomState(
        room=code,
        game="passpass",
        config={"players": 3, "teams": False},
        host="\x1b]0;PWNED\x07",
        phase="lobby",
        seats=[
            SeatState("\x1b[2J", "human", "", "", True),
            SeatState("[/]\u202e", "open"),
            SeatState("Seat 3", "open"),
        ],
        seq=0,
        stamp=int(time.time() * 1000),
        notice="\x1b[31mred\x1b[0m",
    )
    topic = room_topic(code)
    async with RawClient(*BROKER, []) as raw:
        await raw.publish(topic, seal(squatter, topic, state), retain=True)
        joiner = RemoteTable(Identity.generate(), code, *BROKER, "Ana")
        join = asyncio.get_running_loop().create_task(joiner.join())
        try:
            await until(lambda: joiner.room is not None)
            shown = joiner.room
            assert shown is not None
            assert shown.host == ""
            assert [seat.name for seat in shown.seats] == ["Player", "[/]", "Seat 3"]
            assert joiner.names == ("Player", "[/]", "Seat 3")
            assert shown.notice == "red"
        finally:
            join.cancel()
            with contextlib.suppress(BaseException):
                await join
            await joiner.close()
            await raw.publish(topic, b"", retain=True)  # leave nothing behind


def test_the_lan_advert_carries_the_host_name_cleaned() -> None:
    """A headless host's ``--name`` with an escape: advertised raw, every
    receiver would drop the advert (the room would not be found on the LAN)."""
    from types import SimpleNamespace

    from net.authority.host import room_advert
    from net.lan.discovery import check_advert

    room: Any = SimpleNamespace(
        code="ABC123",
        authority=SimpleNamespace(free_seats=2, phase="lobby"),
        broker_port=1883,
        addresses=("192.0.2.7",),
    )
    advert = room_advert(room, "passpass", "\x1b]0;PWNED\x07[/]Eve\u202e")
    checked = check_advert(advert)
    assert checked is not None and checked.host_name == "[/]Eve"
