"""A headless seat (`passe join --bot`, net/peer/headless.py) says what
happens to its table from before the game's first view: scripts and the
dealer tests read its lines. Its bot plays its seat to the end, acting only
on its latest view; a headless lobby (a headless host, a dealer's room)
starts once enough people are present, with bots in the open seats."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from core.engine import Action, IllegalAction, View
from core.registry import get_game
from net.authority.table import SeatSpec, Table, TableUpdate
from net.peer import headless
from net.peer.headless import fill_and_start, over_or_stepped_down, play_with_bot


class SlowSeat:
    """As much of a RemoteTable as play_with_bot uses before the first
    view: a seat whose first view has not come yet."""

    game_id = "dominoes"
    runs_the_table = False

    def __init__(self) -> None:
        self.moved: list[Callable[[int], None]] = []
        self.hosts: list[Callable[[bool], None]] = []
        self.started = asyncio.Event()

    def on_moved(self, listener: Callable[[int], None]) -> None:
        self.moved.append(listener)

    def on_host(self, listener: Callable[[bool], None]) -> None:
        self.hosts.append(listener)

    async def wait_started(self) -> None:
        await self.started.wait()


async def test_a_seat_says_its_table_moved_and_came_back_before_its_first_view(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A seat slow to get the game's first view, whose table moved to
    another dealer meanwhile, said that it moved but never that the new
    table was there; the test reading it waited 60 s (CI, 6 December:
    test_the_last_dealer_stopped_after_a_takeover_says_its_table_is_away)."""
    seat = SlowSeat()
    playing = asyncio.create_task(play_with_bot(seat, "random", seed=1))  # type: ignore[arg-type]
    try:
        await asyncio.sleep(0)  # it waits for the first view now
        assert not playing.done()
        for listener in seat.moved:
            listener(2)
        for presence in seat.hosts:
            presence(False)  # the first dealer's will
            presence(True)  # the new dealer's presence
        lines: list[dict[str, Any]] = [
            json.loads(line) for line in capsys.readouterr().out.splitlines()
        ]
        assert lines == [
            {"event": "moved", "term": 2, "here": False},
            {"event": "table", "present": False},
            {"event": "table", "present": True},
        ]
    finally:
        playing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await playing


def said(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


class LocalSeat:
    """What play_with_bot uses of a RemoteTable, over a real table in this
    process: seat 0, its bot opponents run by the table. Its first view
    comes with the connection; each later update a loop turn after the
    change, as from a network. ``spoil``: the first action sent goes as
    this text instead (the authority refuses it)."""

    runs_the_table = False

    def __init__(self, table: Table, game_id: str, *, spoil: str | None = None) -> None:
        self.table = table
        self.game_id = game_id
        self.spoil = spoil
        self.view: View | None = None
        self.log: list[Any] = []
        self.seq = 0
        self.action_pending = False
        self.connected = False
        self.first_events = 0
        self.sent: list[Action | str] = []
        self.room_listeners: list[Callable[[Any], None]] = []

    def on_moved(self, listener: Callable[[int], None]) -> None:
        pass

    def on_host(self, listener: Callable[[bool], None]) -> None:
        pass

    def on_room(self, listener: Callable[[Any], None]) -> None:
        self.room_listeners.append(listener)

    async def wait_started(self) -> None:
        pass

    async def connect(self, listener: Callable[[TableUpdate], None]) -> None:
        def deliver(update: TableUpdate) -> None:
            self.seq += 1
            self.view = update.view
            self.log.extend(update.events)
            self.action_pending = False  # answered: applied, or refused
            listener(update)

        def arrive(update: TableUpdate) -> None:
            if self.connected:
                asyncio.get_running_loop().call_soon(deliver, update)
            else:
                deliver(update)

        self.table.subscribe(0, arrive)
        self.first_events = len(self.log)
        self.connected = True
        self.table.start()

    async def submit(self, action: Action) -> None:
        sent: Action | str = action
        if self.spoil is not None:
            sent, self.spoil = self.spoil, None
        self.sent.append(sent)
        self.action_pending = True
        with contextlib.suppress(IllegalAction):  # its seat hears why
            self.table.submit(0, sent)


def a_table(game_id: str = "dominoes", seed: int = 5) -> Table:
    game = get_game(game_id)
    seats = [SeatSpec("Me"), SeatSpec("Ada", "random")]
    return Table.new(game_id, game.make_config(players=2), seed, seats, bot_delay=0)


async def played(seat: LocalSeat, *, seed: int = 3, delay: float = 0.0) -> None:
    """Seat 0 of ``seat``'s table played by a random bot to the game's end
    (30 s at most); the table's own bots stopped after."""
    try:
        async with asyncio.timeout(30):
            await play_with_bot(seat, "random", seed=seed, delay=delay)  # type: ignore[arg-type]
    finally:
        await seat.table.stop()


async def test_a_headless_bot_plays_its_seat_to_the_end_saying_each_move(
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = a_table()
    seat = LocalSeat(table, "dominoes")
    await played(seat)
    assert table.state.is_over
    lines = said(capsys)
    # Synced from its first view (one update, the deal's events so far).
    assert lines[0] == {"event": "synced", "seq": 1, "events": seat.first_events}
    assert seat.first_events >= 1
    acted = [line for line in lines if line["event"] == "acted"]
    # Each of its moves said once, with the action as the record writes it;
    # the table accepted every one (nothing refused), and only its own.
    assert [line["action"] for line in acted] == [str(action) for action in seat.sent]
    assert [line["event"] for line in lines[1:]] == ["acted"] * len(acted)
    mine = [action for seat_number, action in table.state.record().actions if seat_number == 0]
    assert [str(action) for action in mine] == [line["action"] for line in acted]
    assert all(later["seq"] > earlier["seq"] for earlier, later in itertools.pairwise(acted))


async def test_a_refused_action_is_said_and_the_bot_acts_again_on_its_view(
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = a_table()
    seat = LocalSeat(table, "dominoes", spoil="not-an-action")
    await played(seat)
    lines = said(capsys)
    refused = [line for line in lines if line["event"] == "refused"]
    assert len(refused) == 1 and refused[0]["reason"]
    assert lines.index(refused[0]) == 2  # after its first action, before its next
    assert seat.sent[0] == "not-an-action" and table.state.is_over


async def test_a_bot_that_waits_acts_on_what_came_meanwhile(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--bot-delay`: the bot waits before each move, as a person would, and
    then acts on the view it has then: here its seat's first move is made
    meanwhile (by another process of the same person, say): the bot's stale
    choice would be refused, and it is not its turn any more; it plays on
    once its turn comes again, to the game's end."""
    table = a_table()
    seat = LocalSeat(table, "dominoes")
    real_sleep = asyncio.sleep
    waits: list[float] = []
    made: list[Action] = []

    async def sleep(delay: float, result: Any = None) -> Any:
        if delay == 0.25:
            waits.append(delay)
            if len(waits) == 1:
                assert seat.view is not None
                # A move that ends the turn (a tile placed), the opponent
                # held back until the bot has looked again: not its turn.
                made.append(next(a for a in seat.view.legal if str(a) not in ("draw", "pass")))
                table.pause()
                table.submit(0, made[0])
                for _ in range(3):
                    await real_sleep(0)  # its update arrives
                asyncio.get_running_loop().call_soon(table.resume)
            return await real_sleep(0, result)
        return await real_sleep(delay, result)

    monkeypatch.setattr(asyncio, "sleep", sleep)  # the module headless waits with
    await played(seat, delay=0.25)
    assert table.state.is_over  # it played on after passing its look
    lines = said(capsys)
    assert not [line for line in lines if line["event"] == "refused"]
    acted = [line for line in lines if line["event"] == "acted"]
    # It waited before each of its own moves, and once for the move made
    # meanwhile.
    assert len(waits) == len(acted) + 1
    mine = [action for seat_number, action in table.state.record().actions if seat_number == 0]
    assert mine[0] == str(made[0])
    assert [str(action) for action in mine[1:]] == [line["action"] for line in acted]


class Recording:
    """A bot of the game, noting the thread each choice ran on; ``slow`` as
    a search bot says it is (net/peer/headless.py runs those in a thread)."""

    def __init__(self, bot: Any, slow: bool) -> None:
        self.bot = bot
        self.slow = slow
        self.threads: list[int] = []

    def choose(self, view: View) -> Action:
        self.threads.append(threading.get_ident())
        return self.bot.choose(view)  # type: ignore[no-any-return]


@pytest.mark.parametrize("slow", [False, True])
async def test_a_search_bot_thinks_in_a_thread_and_a_quick_one_on_the_loop(
    monkeypatch: pytest.MonkeyPatch, slow: bool
) -> None:
    """A search bot's seconds of thought would stop the seat's link (its
    presence, its updates): it thinks in a thread; a quick bot does not pay
    a thread's hand-over for each move."""
    made: list[Recording] = []
    game = get_game("dominoes")

    class Game:
        def make_bot(self, level: str, seed: int | None) -> Recording:
            made.append(Recording(game.make_bot(level, seed), slow))
            return made[-1]

    monkeypatch.setattr(headless, "get_game", lambda game_id: Game())
    table = a_table()
    await played(LocalSeat(table, "dominoes"))
    assert table.state.is_over
    (bot,) = made
    loop_thread = threading.get_ident()
    assert bot.threads and all((thread != loop_thread) is slow for thread in bot.threads)


async def test_a_bot_s_seed_makes_its_game_again(capsys: pytest.CaptureFixture[str]) -> None:
    """`passe join --bot LEVEL --seed N`: the same seed and the same deal,
    the same moves (a run that fails can be made again)."""
    games = []
    for _ in range(2):
        await played(LocalSeat(a_table(), "dominoes"), seed=11)
        games.append([line["action"] for line in said(capsys) if line["event"] == "acted"])
    assert games[0] == games[1] and len(games[0]) > 5


async def test_each_new_room_notice_is_said_once(capsys: pytest.CaptureFixture[str]) -> None:
    """What the table screen shows of a room notice ("The table moved to
    Bob's machine..."), each change once: the room state comes again with
    every presence and term, its notice unchanged."""
    table = a_table()
    seat = LocalSeat(table, "dominoes")
    playing = asyncio.create_task(play_with_bot(seat, "random", seed=3))  # type: ignore[arg-type]
    try:
        async with asyncio.timeout(10):
            while not seat.room_listeners:
                await asyncio.sleep(0)
        (room_listener,) = seat.room_listeners
        for notice in ("", "moved to Bo", "moved to Bo", "", "back to Ann", "moved to Bo"):
            room_listener(SimpleNamespace(notice=notice))
        async with asyncio.timeout(30):
            await playing
    finally:
        playing.cancel()
        await table.stop()
    notices = [line["text"] for line in said(capsys) if line["event"] == "notice"]
    assert notices == ["moved to Bo", "back to Ann", "moved to Bo"]


# -- a lobby with nobody to decide: fill_and_start ---------------------------


@dataclass
class Slot:
    kind: str = "open"
    present: bool = False
    name: str = ""


class Lobby:
    """As much of a HostedRoom and its Authority as fill_and_start uses."""

    def __init__(self, *slots: Slot) -> None:
        self.seats = list(slots)
        self.on_change: list[Callable[[], None]] = []
        self.standby = asyncio.Event()
        self.standby.set()
        self.calls: list[Any] = []
        self.adverts = 0
        self.authority = self

    def change(self, seat: int, slot: Slot) -> None:
        self.seats[seat] = slot
        for listener in self.on_change:
            listener()

    async def update_advert(self) -> None:
        self.adverts += 1

    async def wait_standby(self) -> None:
        self.calls.append("standby")
        await self.standby.wait()

    def free_absent(self) -> None:
        self.calls.append("free absent")
        for seat, slot in enumerate(self.seats):
            if slot.kind == "human" and not slot.present:
                self.seats[seat] = Slot()

    def set_bot(self, seat: int, level: str | None) -> None:
        self.calls.append(("bot", seat, level))
        self.seats[seat] = Slot("bot", True, "Ada")

    def start_game(self) -> None:
        self.calls.append("start")

    def seed_hash(self) -> bytes:
        return b"\x0a\x0b"


class Heard:
    def __init__(self) -> None:
        self.lines: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, event: str, **fields: Any) -> None:
        self.lines.append((event, fields))


async def turns() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_headless_lobby_starts_once_enough_people_are_present_with_bots_beside() -> None:
    lobby = Lobby(Slot("human", True, "Ann"), Slot(), Slot("human", False, "Ghost"), Slot())
    heard = Heard()
    before: list[str] = []
    filling = asyncio.create_task(
        fill_and_start(
            lobby,  # type: ignore[arg-type]
            2,
            "easy",
            heard,
            before_start=lambda: before.append(str(lobby.calls)),
        )
    )
    await turns()
    assert heard.lines == [("seated", {"seat": 0, "name": "Ann"})]
    assert not filling.done() and "start" not in lobby.calls
    # A seat held by a key with no live presence counts for nothing.
    lobby.change(3, Slot("human", False, "Hello only"))
    await turns()
    assert not filling.done()
    lobby.change(1, Slot("human", True, "Bob"))
    async with asyncio.timeout(5):
        await filling
    assert heard.lines == [
        ("seated", {"seat": 0, "name": "Ann"}),
        ("seated", {"seat": 1, "name": "Bob"}),
        ("started", {"seed_hash": "0a0b"}),
    ]
    # Seats held by nobody present are freed, then every open seat gets a
    # bot of the level asked for, and only then does the game start.
    assert lobby.calls == [
        "standby",
        "free absent",
        ("bot", 2, "easy"),
        ("bot", 3, "easy"),
        "start",
    ]
    assert before == [str(lobby.calls[:-1])]
    assert lobby.adverts == 3  # the LAN's list follows each change


async def test_someone_leaving_while_standbys_are_awaited_holds_the_start() -> None:
    """The start waits for everyone's standby broker (Authority.wait_standby);
    who leaves meanwhile is said, and the room waits for enough people again."""
    lobby = Lobby(Slot("human", True, "Ann"), Slot())
    lobby.standby.clear()
    heard = Heard()
    filling = asyncio.create_task(fill_and_start(lobby, 2, None, heard))  # type: ignore[arg-type]
    lobby.change(1, Slot("human", True, "Bob"))
    await turns()
    assert lobby.calls == ["standby"]
    lobby.change(1, Slot("human", False, "Bob"))  # Bob's Passe stopped
    lobby.standby.set()
    await turns()
    assert not filling.done() and "start" not in lobby.calls
    assert heard.lines[-1] == ("unseated", {"seat": 1})
    lobby.change(1, Slot("human", True, "Bob"))
    async with asyncio.timeout(5):
        await filling
    assert heard.lines[-2:] == [
        ("seated", {"seat": 1, "name": "Bob"}),
        ("started", {"seed_hash": "0a0b"}),
    ]
    assert lobby.calls[-1] == "start" and ("bot", 1, None) not in lobby.calls


async def test_a_lobby_told_to_start_starts_with_whoever_is_there() -> None:
    """A dealer's room whose owner starts it before everyone came."""
    lobby = Lobby(Slot("human", True, "Ann"), Slot(), Slot())
    told = asyncio.Event()
    heard = Heard()
    filling = asyncio.create_task(
        fill_and_start(lobby, 3, "normal", heard, start_now=told)  # type: ignore[arg-type]
    )
    await turns()
    assert not filling.done()
    told.set()
    async with asyncio.timeout(5):
        await filling
    assert lobby.calls == [
        "standby",
        "free absent",
        ("bot", 1, "normal"),
        ("bot", 2, "normal"),
        "start",
    ]
    assert heard.lines[-1] == ("started", {"seed_hash": "0a0b"})


class Ending:
    def __init__(self) -> None:
        self.over = asyncio.Event()
        self.stepped = asyncio.Event()

    async def wait_over(self) -> None:
        await self.over.wait()

    async def wait_stepped_down(self) -> None:
        await self.stepped.wait()


@pytest.mark.parametrize("stepped_down", [False, True])
async def test_a_headless_host_learns_whether_its_game_ended_or_moved_away(
    stepped_down: bool,
) -> None:
    ending = Ending()
    waiting = asyncio.create_task(over_or_stepped_down(ending))  # type: ignore[arg-type]
    await turns()
    assert not waiting.done()
    (ending.stepped if stepped_down else ending.over).set()
    async with asyncio.timeout(5):
        assert await waiting is stepped_down
