"""A bot for a person who is away: the host's choice, so the others need not
wait for someone whose laptop died; the seat stays bound to that person's key
and is theirs again the moment they come back, with their log whole. A real
broker (Mosquitto), the authority in this process."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.engine import IllegalAction, Names
from core.registry import get_game
from net.authority.authority import Authority
from net.authority.host import HostedRoom
from net.authority.rooms import BrokerChoice
from net.authority.table import TableUpdate
from net.identity import Identity
from net.peer.headless import play_with_bot
from net.peer.remote import RemoteTable
from tests.net.peers import DEADLINE, open_test_room, started_with_two_voters, until
from tests.net.procs import PasseProcess, host_args, need_mosquitto

BROKER = ("127.0.0.1", 1883)


@pytest.fixture
async def room() -> AsyncIterator[HostedRoom]:
    need_mosquitto()
    hosted = await open_test_room("dominoes", 3, BROKER, seed=5)
    try:
        yield hosted
    finally:
        await hosted.close()


@pytest.mark.long
async def test_a_bot_plays_for_someone_away_until_they_come_back(room: HostedRoom) -> None:
    authority = room.authority
    ana_key, ben_key = Identity.generate(), Identity.generate()
    ana = RemoteTable(ana_key, room.code, *BROKER, "Ana")
    ben = RemoteTable(ben_key, room.code, *BROKER, "Ben")
    seat = await ana.join()
    ben_seat = await ben.join()
    bot_seat = ({0, 1, 2} - {seat, ben_seat}).pop()
    authority.set_bot(bot_seat, "heuristic")
    with pytest.raises(IllegalAction, match="only during a game"):
        authority.stand_in(seat)
    authority.start_game()
    with pytest.raises(IllegalAction, match="Ana is here"):
        authority.stand_in(seat)
    with pytest.raises(IllegalAction, match="no person sits"):
        authority.stand_in(bot_seat)
    ben_plays = asyncio.create_task(play_with_bot(ben, "heuristic", seed=2))
    await until(lambda: bool(ana.log))
    moves_seen = len(ana.log)
    await ana.close()  # Ana's laptop dies: the game waits for her
    await until(lambda: not authority.seats[seat].present)
    moves = len(authority.table.state.history) if authority.table else 0

    since = len(authority._logs[seat])  # her log when the bot begins
    authority.stand_in(seat)
    state = authority.room_state().seats[seat]
    assert (state.kind, state.level, state.present) == ("human", "heuristic", False)
    assert "a bot plays for them until they are back" in authority.room_state().notice
    assert authority.seats[seat].key == ana_key.public_key  # still hers
    # The game goes on without her.
    await until(lambda: authority.table is not None and len(authority.table.state.history) > moves)

    # Ana is back (the same key): her seat, and her log with every move the
    # bot made for her, and she plays on to the end.
    back = RemoteTable(ana_key, room.code, *BROKER, "Ana")
    assert await back.join() == seat
    await until(lambda: not authority.seats[seat].level)
    assert "Ana is back and plays again" in authority.room_state().notice
    # Her log marks where the bot played for her: "Your bot plays", not
    # "You play" (found in a play-test, 5 December).
    delivered: list[TableUpdate] = []
    await back.connect(delivered.append)
    await until(lambda: bool(back.stood_in) and bool(delivered))
    ((start, end),) = back.stood_in
    assert moves_seen <= since == start <= end <= len(back.log)
    played_for_her = [e for e in back.log[start:end] if getattr(e, "seat", None) == seat]
    assert played_for_her, "the bot made no move for her: nothing tested"
    assert delivered[0].by_stand_in == frozenset(range(start, end))
    line = played_for_her[0].describe(Names(back.names, stand_in=seat))
    assert line.startswith("Your bot ") and "You" not in line.removeprefix("Your bot")
    await asyncio.wait_for(play_with_bot(back, "heuristic", seed=3), DEADLINE)
    await asyncio.wait_for(ben_plays, DEADLINE)
    assert authority.phase == "over"
    assert back.log and len(back.log) == len(authority._logs[seat])
    await back.close()
    await ben.close()


async def test_a_resumed_room_keeps_its_stand_in() -> None:
    """The host dies while a bot plays for Ana: resumed, the bot plays on."""
    from tests.net.test_room_files import a_room_in_play

    authority = await a_room_in_play("STND23")
    authority.seats[0].present = False  # Ana, away
    authority.stand_in(0)
    where = BrokerChoice(embedded=False, host="127.0.0.1", port=1883)
    resumed = Authority.restore(authority.snapshot(where), "127.0.0.1", 1883)
    assert resumed.seats[0].level == "heuristic" and resumed.seats[0].kind == "human"
    # Where its bot began to play for her, for her log when she is back.
    assert resumed.seats[0].stood_in == [(len(authority._logs[0]), None)]
    # A damaged save's spans: the well-formed ones, the latest 32 (more
    # made every update to her seat one her peer refuses).
    saved = authority.snapshot(where)
    bad = [(5, 2), (-1, 3), *[(n, n + 1) for n in range(40)], (50, None)]
    saved.seats[0].stood_in = bad
    spans = Authority.restore(saved, "127.0.0.1", 1883).seats[0].stood_in
    assert spans == [*[(n, n + 1) for n in range(9, 40)], (50, None)]
    assert resumed.table is not None and resumed.table.seats[0].kind == "heuristic"


async def test_a_headless_host_lets_a_bot_play_for_someone_gone(tmp_path: Path) -> None:
    """Nobody sits at a headless host to press b: a person away longer than
    --stand-in-after gets a bot, and the others finish the game."""
    need_mosquitto()
    host = PasseProcess("host", tmp_path)
    ana, ben = PasseProcess("ana", tmp_path), PasseProcess("ben", tmp_path)
    try:
        await host.start(
            *host_args("passpass", 3, wait_for=2, bot_delay=0, seed=4, broker="127.0.0.1:1883"),
            *("--stand-in-after", "0.2"),
        )
        code = (await host.expect("room"))["code"]
        for peer in (ana, ben):
            await peer.start("join", f"{code}@127.0.0.1:1883", "--bot", "heuristic")
            await peer.expect("seated")
        await ana.expect("acted")
        ana.kill()  # for good: she never comes back
        over = await host.expect("over")
        assert (await ben.expect("over"))["winners"] == over["result"]["winners"]
        assert await host.finish() == 0
    except BaseException:
        print(await host.report(), await ana.report(), await ben.report())
        raise
    finally:
        for process in (host, ana, ben):
            await process.stop()


async def test_someone_away_at_the_end_gets_it_from_the_record(room: HostedRoom) -> None:
    """The game ended while Ana was away (a bot played for her) and its host
    has gone: her Passe, back, shows her the end from the revealed record,
    checked against the commitment, with every event she missed."""
    authority = room.authority
    ana_key = Identity.generate()
    ana = RemoteTable(ana_key, room.code, *BROKER, "Ana")
    seat = await ana.join()
    for other in (n for n, slot in enumerate(authority.seats) if slot.kind == "open"):
        authority.set_bot(other, "heuristic")
    authority.start_game()
    await until(lambda: ana.view is not None)
    await ana.close()
    await until(lambda: not authority.seats[seat].present)
    authority.stand_in(seat)
    await asyncio.wait_for(authority.wait_over(), DEADLINE)
    final_log = len(authority._logs[seat])
    result = authority.table.state.result() if authority.table else None
    await room.close()  # the host goes, as a headless one does at the end

    back = RemoteTable(ana_key, room.code, *BROKER, "Ana")
    try:
        assert await back.join() == seat
        assert back.verified is True
        assert back.view is not None and back.view.is_over
        assert result is not None and back.view.result == result
        assert len(back.log) == final_log
    finally:
        await back.close()


@pytest.mark.long
async def test_where_the_table_moved_a_bot_can_play_for_the_hosts_person_gone_with_it() -> None:
    """Found by hand (issue 20): the host's machine died mid-game, and the
    host's person with it; the table moved to a player's machine, but only
    the host's lobby could put a bot in for someone away, so the game
    waited at the host's person's turn until a bot came by itself
    (``failover.STAND_IN_AFTER``, 30 s). The process that runs the
    table now can (``RemoteTable.stand_in``, the table screen's b there);
    another player's process cannot. Three voters: the authority, Bob's
    process and Cy's; the host's person's seat is told there and does not
    vote."""
    need_mosquitto()
    room = await open_test_room("passpass", 3, BROKER, seed=9)
    changed = asyncio.Event()
    tables: tuple[RemoteTable, ...] = ()
    try:
        tables = hostess, bob, cy = await started_with_two_voters(
            room, BROKER, lambda update: changed.set()
        )
        seat = hostess.seat
        assert seat is not None
        # The host's machine dies: its table and its person's seat with it.
        await room.close(keep=True)
        await hostess.close()
        await until(lambda: bob.runs_the_table or cy.runs_the_table, timeout=DEADLINE)
        runner, other = (bob, cy) if bob.runs_the_table else (cy, bob)
        voter = runner.voter
        assert voter is not None and voter.authority is not None
        successor = voter.authority
        await until(lambda: not successor.seats[seat].present)
        with pytest.raises(IllegalAction, match="runs on another machine"):
            other.stand_in(seat)
        assert not successor.seats[seat].level  # not yet the bot that comes by itself
        runner.stand_in(seat)
        assert successor.seats[seat].level
        # The others play on to the end: the host's person's turns are the bot's.
        bot = get_game("passpass").make_bot("random", 1)
        async with asyncio.timeout(DEADLINE):
            while not all(t.view is not None and t.view.is_over for t in (bob, cy)):
                changed.clear()
                for table in (bob, cy):
                    view = table.view
                    if view is not None and view.legal and not table.action_pending:
                        await table.submit(bot.choose(view))
                await changed.wait()
    finally:
        for table in tables:
            await table.close()
        await room.close()
