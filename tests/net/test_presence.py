"""Presence and leaving (issue 10): a late will never marks a live peer gone
(Sparkplug's STATE rule), and a player who quits mid-game is replaced by a
bot so that the others can finish. A real host process, a real broker."""

from __future__ import annotations

import asyncio
from pathlib import Path

from net.identity import Identity
from net.protocol.wire import (
    Presence,
    presence_topic,
    room_topic,
    seal,
)
from tests.net.peers import RawClient, WatchedTable, room_state_of
from tests.net.procs import PasseProcess, host_args, need_mosquitto

BROKER = ("127.0.0.1", 1883)


async def test_an_older_will_does_not_mark_a_live_peer_away(tmp_path: Path) -> None:
    need_mosquitto()
    host = PasseProcess("host", tmp_path)
    await host.start(*host_args("dominoes", 2, wait_for=2, broker="127.0.0.1:1883"))
    try:
        code = (await host.expect("room"))["code"]
        async with RawClient(*BROKER, [room_topic(code)]) as spy:
            ana_key = Identity.generate()
            ana = await WatchedTable.join(code, *BROKER, "Ana", ana_key)
            seat = ana.table.seat
            assert seat is not None
            await spy.until(
                lambda t, p: (s := room_state_of(t, p)) is not None and s.seats[seat].present
            )
            topic = presence_topic(code, ana_key.peer_id)
            epoch = ana.table._presence_epoch
            # A will from an earlier connection, delivered late: ignored.
            stale = Presence(room=code, epoch=epoch - 1, online=False, name="Ana")
            await spy.publish(topic, seal(ana_key, topic, stale), retain=True)
            # A forged will for Ana, signed by someone else: ignored too.
            forged = Presence(room=code, epoch=epoch + 1, online=False, name="Ana")
            await spy.publish(topic, seal(Identity.generate(), topic, forged), retain=True)
            # Then her real goodbye (this epoch's will): she is away.
            seen = len(spy.messages)
            gone = Presence(room=code, epoch=epoch, online=False, name="Ana")
            await spy.publish(topic, seal(ana_key, topic, gone), retain=True)
            state = await spy.until(
                lambda t, p: (s := room_state_of(t, p)) is not None and not s.seats[seat].present,
                seen,
            )
            # Nothing in between marked her away: only the last message did.
            between = [room_state_of(t, p) for t, p in spy.messages[seen:]]
            assert all(s is None or s.seats[seat].present for s in between[:-1])
            assert state is not None
            await ana.table.close()
            await spy.publish(topic, b"", retain=True)
    finally:
        await host.stop()


async def test_a_player_who_quits_is_replaced_by_a_bot(tmp_path: Path) -> None:
    need_mosquitto()
    host = PasseProcess("host", tmp_path)
    bot = PasseProcess("bot", tmp_path)
    await host.start(
        *host_args("passpass", 3, wait_for=2, bot_delay=0, seed=9, broker="127.0.0.1:1883")
    )
    try:
        code = (await host.expect("room"))["code"]
        async with RawClient(*BROKER, [room_topic(code)]) as spy:
            ana = await WatchedTable.join(code, *BROKER, "Ana")
            await bot.start("join", f"{code}@127.0.0.1:1883", "--bot", "random")
            await bot.expect("seated")
            await ana.until(lambda u: u.view is not None)
            seat = ana.table.seat
            assert seat is not None
            await ana.table.leave()
            state = await spy.until(
                lambda t, p: (s := room_state_of(t, p)) is not None and s.seats[seat].kind == "bot"
            )
            assert state is not None
            assert "Ana left the game; a bot plays for them" in room_state_of(*state).notice  # type: ignore[union-attr]
            # Ana's key no longer holds the seat: the game goes on without her.
            over = await host.expect("over")
            assert (await bot.expect("over"))["winners"] == over["result"]["winners"]
    finally:
        for process in (host, bot):
            await process.stop()


async def test_peers_see_the_host_go_away(tmp_path: Path) -> None:
    """The host's process dies (its broker, Mosquitto, lives on): its will
    tells every peer at once, so the table can say so instead of waiting."""
    need_mosquitto()
    host = PasseProcess("host", tmp_path)
    await host.start(*host_args("dominoes", 2, wait_for=1, bot_delay=30, broker="127.0.0.1:1883"))
    try:
        code = (await host.expect("room"))["code"]
        ana = await WatchedTable.join(code, *BROKER, "Ana")
        host_changes: asyncio.Queue[bool] = asyncio.Queue()
        ana.table.on_host(host_changes.put_nowait)
        await host.expect("started")
        assert ana.table.host_present
        host.kill()
        async with asyncio.timeout(30):
            assert await host_changes.get() is False
        assert not ana.table.host_present
        await ana.table.close()
    finally:
        await host.stop()


def test_the_table_bar_names_an_absent_host() -> None:
    from tui.widgets.net_status import network_problem

    assert "host is away" in network_problem(None, True, 0, host_up=False)
    assert network_problem(None, True, 0, host_up=True) == ""
    # Our own link down says that first: the host may be fine.
    assert "reconnecting" in network_problem(None, False, 0, host_up=False)


def test_a_dealer_s_room_names_its_dealer_when_it_is_away() -> None:
    """In a dealer's room (issue 20) nobody hosts: the bar names the dealer
    (a name from the network, shown as text)."""
    from net.protocol.wire import RoomState
    from tui.widgets.net_status import network_problem

    def room(phase: str, dealer: str) -> RoomState:
        return RoomState(
            room="ABCDEF", game="dominoes", config={}, host="Ana", phase=phase,
            seats=[], seq=0, stamp=1, dealer=dealer,
        )  # fmt: skip

    said = network_problem(room("playing", "Pi [b]x[/b]"), True, 0, host_up=False)
    assert said.startswith("⚠ The dealer (Pi [b]x[/b]) is away"), said
    assert network_problem(room("closed", "Pi"), True, 0).startswith(
        "⚠ The dealer (Pi) closed the room"
    )
