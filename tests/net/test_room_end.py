"""How a room ends on the broker (issue 18 items 3 and 10): closing an
interrupted room for good reaches the people in it, also on the embedded
broker that died with its host (or the host says truthfully who could not
be told); a finished or closed room leaves no retained message behind once
everyone had its end (checked by a real subscriber on Mosquitto); the room
state's ``app`` is the host's version."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from net.authority.authority import passe_version
from net.authority.host import close_interrupted_room
from net.authority.rooms import load_room, room_path
from net.protocol.wire import room_topic
from tests.net.brokers import Mosquitto, require_mosquitto, start_mosquitto
from tests.net.peers import RawClient, WatchedTable, room_state_of, until
from tests.net.procs import PasseProcess, host_args
from tui.netplay import closed_notice


@pytest.fixture
def mosquitto() -> Iterator[Mosquitto]:
    require_mosquitto()
    with start_mosquitto() as running:
        yield running


async def retained_on(broker: tuple[str, int], code: str) -> list[str]:
    """The topics of the room's retained messages, as a new subscriber to
    the room's ``#`` receives them (before its own marker comes back)."""
    marker = f"passe/v1/{code}/zz-marker"
    async with RawClient(*broker, [f"passe/v1/{code}/#"]) as probe:
        await probe.publish(marker, b"m")
        await probe.until(lambda topic, _: topic == marker)
        return [topic for topic, payload in probe.messages if topic != marker and payload]


async def kill_mid_game(host: PasseProcess, ana: WatchedTable) -> None:
    """Ana's turn comes (she never plays: the game waits), then the host is
    killed, as by a power cut."""
    await ana.until(lambda update: 0 in update.view.to_act)
    host.kill()
    await host.finish()


async def opened_on_a_port_of_its_own(host: PasseProcess) -> tuple[str, int]:
    """The room's code and its embedded broker's port, from the host's
    "room" line: started with ``--port 0``, the broker child binds a free
    port itself (issue 23: a port probed here could be taken by another
    test's process before the child binds it, under -n 3). Closing the
    room for good opens it again on that same port, where its people keep
    reconnecting (net/authority/host.py waits PORT_WAIT for the dead broker to let it
    go); nothing else is told the port in between."""
    room = await host.expect("room")
    return room["code"], int(room["broker"].rsplit(":", 1)[1])


def host_data(monkeypatch: pytest.MonkeyPatch, host: PasseProcess) -> None:
    """This process reads the rooms the host process kept."""
    monkeypatch.setenv("PASSE_DATA_DIR", str(host.home / "data"))


async def test_closing_for_good_on_the_embedded_broker_reaches_the_people_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """x on the home screen of a host whose process died: the embedded
    broker died with it; the room's people keep reconnecting to its port.
    The room must stay open until they are back and have the closed state
    (it closed at once and they stayed on "reconnecting...")."""
    host = PasseProcess("host", tmp_path)
    ana: WatchedTable | None = None
    try:
        await host.start(*host_args("passpass", 3, wait_for=1, port=0, bot_delay=0, seed=3))
        code, port = await opened_on_a_port_of_its_own(host)
        ana = await WatchedTable.join(code, "127.0.0.1", port, "Ana")
        await kill_mid_game(host, ana)
        table = ana.table
        await until(lambda: not table.connected)
        host_data(monkeypatch, host)
        closed = await close_interrupted_room(load_room(room_path(code)))
        assert closed.reached_broker and closed.told == ("Ana",) and closed.untold == ()
        await until(lambda: table.room is not None and table.room.phase == "closed", timeout=10)
        assert closed_notice("WCW-QPA", closed) == "Room WCW-QPA is closed: Ana was told."
    except BaseException:
        print(await host.report())
        raise
    finally:
        if ana is not None:
            await ana.table.close()
        await host.stop()


async def test_closing_for_good_says_who_could_not_be_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = PasseProcess("host", tmp_path)
    try:
        await host.start(*host_args("passpass", 3, wait_for=1, port=0, bot_delay=0, seed=3))
        code, port = await opened_on_a_port_of_its_own(host)
        ana = await WatchedTable.join(code, "127.0.0.1", port, "Ana")
        await kill_mid_game(host, ana)
        await ana.table.close()  # she went home: nobody comes back
        host_data(monkeypatch, host)
        closed = await close_interrupted_room(load_room(room_path(code)), wait=1.0)
        assert closed.reached_broker and closed.told == () and closed.untold == ("Ana",)
        assert not closed.kept_for_them  # the embedded broker goes with the room
        assert closed_notice("WCW-QPA", closed) == (
            "Room WCW-QPA is closed: Ana could not be told (not connected)."
        )
        assert not room_path(code).exists()
    finally:
        await host.stop()


async def test_a_finished_game_leaves_nothing_retained_and_its_app_is_the_version(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    broker = (mosquitto.host, mosquitto.port)
    where = f"{mosquitto.host}:{mosquitto.port}"
    host = PasseProcess("host", tmp_path)
    ana = PasseProcess("ana", tmp_path)
    try:
        await host.start(*host_args("passpass", 3, wait_for=1, broker=where, bot_delay=0))
        code = (await host.expect("room"))["code"]
        async with RawClient(*broker, [room_topic(code)]) as watcher:
            _, payload = await watcher.until(lambda t, p: room_state_of(t, p) is not None)
            state = room_state_of(room_topic(code), payload)
            assert state is not None and state.app == passe_version() != ""
            await ana.start("join", f"{code}@{where}", "--bot", "heuristic", "--name", "Ana")
            await host.expect("over")
            assert await host.finish() == 0
            assert (await ana.expect("over"))["deal_verified"] is True
            assert await ana.finish() == 0
            # It had the end while it was there, then saw it cleared.
            assert any(
                (s := room_state_of(t, p)) is not None and s.phase == "over"
                for t, p in watcher.messages
            )
        assert await retained_on(broker, code) == []
    except BaseException:
        print(await host.report(), await ana.report())
        raise
    finally:
        for process in (host, ana):
            await process.stop()


async def test_a_closed_room_leaves_nothing_retained_once_its_people_were_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mosquitto: Mosquitto
) -> None:
    broker = (mosquitto.host, mosquitto.port)
    where = f"{mosquitto.host}:{mosquitto.port}"
    host = PasseProcess("host", tmp_path)
    ana: WatchedTable | None = None
    try:
        await host.start(*host_args("passpass", 3, wait_for=1, broker=where, bot_delay=0))
        code = (await host.expect("room"))["code"]
        ana = await WatchedTable.join(code, *broker, "Ana")
        await kill_mid_game(host, ana)  # its will says it is away; Ana stays
        host_data(monkeypatch, host)
        closed = await close_interrupted_room(load_room(room_path(code)))
        assert closed.told == ("Ana",)
        table = ana.table
        await until(lambda: table.room is not None and table.room.phase == "closed")
        await table.close()
        assert await retained_on(broker, code) == []
    finally:
        if ana is not None:
            await ana.table.close()
        await host.stop()


async def test_a_finished_room_keeps_its_end_for_someone_away_at_the_end(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    """Someone away when the game ended (a bot played for them) reads the
    end from the retained room state when they are back (docs/protocol.md,
    "When a game ends without you"): it stays for them."""
    broker = (mosquitto.host, mosquitto.port)
    where = f"{mosquitto.host}:{mosquitto.port}"
    host = PasseProcess("host", tmp_path)
    ana = PasseProcess("ana", tmp_path)
    try:
        await host.start(
            *host_args("passpass", 3, wait_for=1, broker=where, bot_delay=0),
            "--stand-in-after",
            "0.01",
        )
        code = (await host.expect("room"))["code"]
        await ana.start("join", f"{code}@{where}", "--bot", "heuristic", "--name", "Ana")
        await ana.expect("seated")
        ana.kill()  # her will says she is away: a bot plays for her
        await host.expect("over")
        assert await host.finish() == 0
        assert room_topic(code) in await retained_on(broker, code)
    except BaseException:
        print(await host.report(), await ana.report())
        raise
    finally:
        for process in (host, ana):
            await process.stop()


async def test_a_table_that_played_on_clears_each_of_its_rooms_at_the_end(
    mosquitto: Mosquitto,
) -> None:
    """A finished room followed by a next game keeps its notice and final
    state while the next room is open (they are how people follow), and
    both rooms' retained messages go when the table's last room closes."""
    from net.authority.host import open_next_room
    from net.identity import Identity
    from net.peer.headless import play_with_bot
    from net.peer.remote import RemoteTable
    from tests.net.peers import open_test_room

    broker = (mosquitto.host, mosquitto.port)
    room = await open_test_room("passpass", 3, broker, seed=8)
    ana = RemoteTable(Identity.generate(), room.code, *broker, "Ana")
    await ana.join()
    for seat in (1, 2):
        room.authority.set_bot(seat, "heuristic")
    room.authority.start_game()
    await asyncio.wait_for(play_with_bot(ana, "random", seed=3), 60)
    following = await open_next_room(room)
    try:
        assert following.code != room.code
        kept = await retained_on(broker, room.code)
        assert room_topic(room.code) in kept and f"passe/v1/{room.code}/next" in kept
        again = ana.next_table()
        await again.join()
        await ana.close()
    finally:
        await following.close()  # in the lobby: closed, Ana there to be told
    await until(lambda: again.room is not None and again.room.phase == "closed")
    await again.close()
    assert await retained_on(broker, room.code) == []
    assert await retained_on(broker, following.code) == []


async def test_closing_a_finished_room_again_ends_at_once(
    mosquitto: Mosquitto, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished room closed twice (open_next_room closes the old room, and
    its owner closes it again): the second close found the link closed and
    waited out FINAL_WAIT (15 s) for a connection that never comes. Made
    an hour here: only the closed link may end the wait."""
    import net.authority.authority
    from tests.net.peers import open_test_room

    monkeypatch.setattr(net.authority.authority, "FINAL_WAIT", 3600.0)
    room = await open_test_room("passpass", 3, (mosquitto.host, mosquitto.port), seed=8)
    closed = False
    try:
        for seat in range(3):
            room.authority.set_bot(seat, "random")
        room.authority.start_game()
        await asyncio.wait_for(room.authority.wait_over(), 60)
        await asyncio.wait_for(room.close(), 60)  # its link is up: no wait
        closed = True
        await asyncio.wait_for(room.close(), 10)  # its link is closed: nothing to wait for
    finally:
        if not closed:
            await room.close()
