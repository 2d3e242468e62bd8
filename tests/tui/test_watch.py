"""The watch screen (issue 21) at 80x24, for each game: the game's own
table in a read-only mode, fed a spectator's view as a watcher receives it
(its updates are given here, as the network would; tests/net/test_watch.py
runs the real processes). The line above the table says you watch with no
seat and how many watch; the game's keys do nothing (nothing is sent, no
dialog opens); help shows; q leaves at once. Names from the network are
shown as text. Snapshots in the default and colour-blind themes."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from textual.pilot import Pilot

from core.engine import Action
from core.registry import get_game
from net.authority.table import TableUpdate
from net.peer.watch import Watcher
from net.protocol.codec import codec_for
from net.protocol.codes import format_code
from net.protocol.wire import RoomState, SeatState
from tests.tui.conftest import SIZE, footer_keys, help_fits, make_app, shown_keys
from tests.tui.test_network import wait_until
from tui.app import PasseApp
from tui.messages import RoomChanged
from tui.screens.help import HelpScreen
from tui.screens.home import HomeScreen
from tui.screens.info import InfoScreen
from tui.screens.watch import WATCH_GUIDE, WatchTableScreen, watch_screen
from tui.widgets.game_log import GameLog
from tui.widgets.net_status import NetStatus
from tui.widgets.status_line import StatusLine

PLAYERS = {"passpass": 4, "dominoes": 3, "fashion": 4}
# Network names: markup and brackets are names like any other.
NAMES = ("Ana [b]x[/b]", "Bo", "[red]Cy", "Di")
# Every key a game's table acts on, and some more: none may play or open a
# choice while watching (t, the last trick, only looks).
KEYS = [
    "enter", "space", "left", "right", "up", "down", "home", "end", "tab",
    "1", "2", "3", "4", "5", "6", "7", "8", "9", "0",
    "c", "x", "e", "p", "d", "b", "s", "h", "l", "v",
    "left_square_bracket", "right_square_bracket",
]  # fmt: skip


class SpyWatcher(Watcher):
    """A watcher with no link: what it would have received is given to it;
    anything it would send is counted."""

    def __init__(self) -> None:
        super().__init__("ABC123", "127.0.0.1", 1)
        self.sent: list[Any] = []

    @property
    def connected(self) -> bool:
        return True  # as if its link were up (it has none)

    def _send(self, message: Any) -> bool:
        self.sent.append(message)
        return False

    async def submit(self, action: Action) -> None:
        self.sent.append(action)
        await super().submit(action)


def watched(
    game_id: str, moves: int, seed: int = 3, watching: int = 2, players: int = 0
) -> SpyWatcher:
    """A watcher of a ``game_id`` game after ``moves`` moves (random legal
    moves, seeded), holding the spectator's view and the public log, as if
    they had arrived; ``players``: PLAYERS's by default."""
    game = get_game(game_id)
    players = players or PLAYERS[game_id]
    names = (*NAMES, *(f"P{n}" for n in range(len(NAMES) + 1, 17)))
    state = game.new_game(game.make_config(players=players), seed)
    chooser = random.Random(seed)
    events = [e for e in state.opening_events if e.for_seat(None) is not None]
    for _ in range(moves):
        if state.is_over:
            break
        seat = state.to_act[0]
        made = state.apply(seat, chooser.choice(state.legal_actions(seat)))
        events += [seen for e in made if (seen := e.for_seat(None)) is not None]
    watcher = SpyWatcher()
    watcher.game_id = game_id
    watcher.codec = codec_for(game)
    watcher.names = names[:players]
    watcher.room = RoomState(
        room="ABC123",
        game=game_id,
        config={"players": players},
        host="Hostess",
        phase="playing",
        seats=[SeatState(name, "human", "", "", True) for name in names[:players]],
        seq=moves,
        stamp=1,
    )
    watcher.watching = watching
    watcher.watching_room = True
    watcher.view = state.view(None)
    watcher.log = events
    watcher.seq = moves
    return watcher


def screen_text(app: PasseApp) -> str:
    """The screenshot's text, spaces as spaces (it writes &#160;)."""
    import html

    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


def log_lines(app: PasseApp) -> list[str]:
    """The log's lines as drawn (each wrapped line one item)."""
    log = app.screen.query_one(GameLog)
    return [strip.text for strip in log.lines]


def status(app: PasseApp) -> str:
    return str(app.screen.query_one(StatusLine).render())


@pytest.mark.parametrize("game_id", ["passpass", "dominoes", "fashion"])
async def test_the_watch_screen_is_read_only_says_so_and_has_help(
    private_config: Path, game_id: str
) -> None:
    watcher = watched(game_id, moves=6)
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = watch_screen(watcher)
        app.push_screen(screen)
        await pilot.pause()
        assert isinstance(app.screen, WatchTableScreen)
        # Read once painted (a loaded machine lays out later than one pause).
        await wait_until(pilot, lambda: status(app).startswith("Watching ABC-123"), "the line")
        line = status(app)
        assert line.startswith("Watching ABC-123 (no seat)"), line
        assert "2 watching" in line
        await wait_until(pilot, lambda: help_fits(app), "F1 Help in the footer, within 80 columns")
        # Only reading and leaving are offered: none of the game's keys.
        offered = {description for _, description in shown_keys(app)}
        assert offered <= {"Rules", "Leave", "Help", "Last trick"}, offered
        # Names from the network, as text (the players panel is #players).
        assert "Ana [b]" in screen_text(app)
        # No "your hand" for a spectator, in any game (found by hand: Pass
        # Pass said "Your hand (spectator)", dominoes "0 tiles, 0 pips").
        assert "Spectator: no hand" in screen_text(app)
        assert "Every hand is face down" in screen_text(app)
        assert "Your hand" not in screen_text(app)
        for key in KEYS:
            await pilot.press(key)  # each key handled before the next (Pilot)
            if isinstance(app.screen, InfoScreen):  # t: the last trick, a look
                await pilot.press("escape")
                await pilot.pause()
            assert app.screen is screen, f"{key} opened {type(app.screen).__name__}"
        assert watcher.sent == [], "a key sent something while watching"
        assert screen.focused is None  # no widget took the keys
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_text = screen_text(app)
        assert "no seat" in help_text and "Stop watching" in help_text
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        # q leaves at once (nothing is lost): home, no dialog.
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


async def test_the_count_follows_the_room_and_the_lobby_is_said(private_config: Path) -> None:
    """Watched from the lobby: no view yet, the line says how many sit; the
    count changes as watchers come and go, on the line and beside the players."""
    watcher = in_the_lobby("dominoes", watching=1)
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = watch_screen(watcher)
        app.push_screen(screen)
        await pilot.pause()
        assert "lobby: 3/3 seated" in status(app)
        assert "1 watching" in status(app)
        # In place of the table's empty panels (found by hand: "No cards in
        # your hand", "nothing left to take"), a note that says why.
        note = screen.query_one("#watch-lobby")
        assert note.display and "Players" not in screen_text(app)
        assert "The game has not started yet" in screen_text(app)
        assert "3 of 3 seats are taken" in screen_text(app)
        assert "No tiles left" not in screen_text(app)
        # Too small a terminal says so, note or not (the note once kept
        # itself shown over the too-small message).
        await pilot.resize_terminal(60, 20)
        await wait_until(pilot, lambda: "Terminal too small" in screen_text(app), "too small")
        assert not note.display and "has not started" not in screen_text(app)
        await pilot.resize_terminal(*SIZE)
        await wait_until(pilot, lambda: "has not started" in screen_text(app), "the note again")
        watcher.watching = 3
        screen.post_message(RoomChanged(watcher.room))
        await pilot.pause()
        assert "3 watching" in status(app)
        game = get_game("dominoes")
        state = game.new_game(game.make_config(players=3), 3)
        screen._receive(TableUpdate(state.view(None), ()))
        await pilot.pause()
        assert "lobby" not in status(app)
        assert "3 watching" in str(screen.query_one("#players").border_title)
        assert not note.display and "Players" in screen_text(app)
        # What the table keeps hidden stays so (found by hand: the link's
        # state, shown by the note's going, blanked the top-left corner).
        assert not screen.query_one(NetStatus).display
        await pilot.resize_terminal(60, 20)  # and too small still hides the table
        await wait_until(pilot, lambda: "Terminal too small" in screen_text(app), "too small")
        assert "Players" not in screen_text(app)
        assert "The game has not started yet" not in screen_text(app)


async def test_the_log_written_under_the_lobby_s_note_is_wrapped_at_its_width(
    private_config: Path,
) -> None:
    """Found by hand: a watcher's log, hidden under the lobby's note when
    the first update came, kept that update's lines wrapped at 20 columns
    ("Round 1 is dealt;" then "Ana leads.") once the table appeared."""
    watcher = in_the_lobby("dominoes", watching=1)
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = watch_screen(watcher)
        app.push_screen(screen)
        await pilot.pause()
        game = get_game("dominoes")
        state = game.new_game(game.make_config(players=3), 3)
        opening = tuple(seen for e in state.opening_events if (seen := e.for_seat(None)))
        screen._receive(TableUpdate(state.view(None), opening))
        await wait_until(
            pilot,
            lambda: any("is dealt; Ana" in line for line in log_lines(app)),
            "the first log line whole",
        )


async def test_a_room_closed_before_its_game_started_is_said(private_config: Path) -> None:
    watcher = in_the_lobby("passpass")
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = watch_screen(watcher)
        app.push_screen(screen)
        await pilot.pause()
        await wait_until(pilot, lambda: "has not started" in screen_text(app), "the lobby note")
        assert watcher.room is not None
        watcher.room = RoomState(**{**_fields(watcher.room), "phase": "closed"})
        screen.post_message(RoomChanged(watcher.room))
        await wait_until(pilot, lambda: "closed the room before" in screen_text(app), "closed")
        assert screen.query_one("#watch-lobby").display
        # No log to scroll here, and q goes home (a play-test read "↑↓
        # scroll the log" over this note).
        assert status(app).endswith("q: home"), status(app)
        exiting = watch_screen(in_the_lobby("passpass"), exits=True)
        assert exiting.closed_status().endswith("q: leave Passe")


@pytest.mark.parametrize("game_id", ["passpass", "dominoes", "fashion"])
async def test_the_line_keeps_the_winner_once_the_game_is_over(
    private_config: Path, game_id: str
) -> None:
    """The game-over note goes after a while; the line above the table
    keeps who won (found by hand: it said only "game over")."""
    watcher = watched(game_id, moves=100_000)
    assert watcher.view is not None and watcher.view.result is not None
    winners = [watcher.names[seat] for seat in watcher.view.result.winners]
    app = make_app(private_config)
    async with app.run_test(size=(200, 24)) as pilot:  # the whole line, uncut
        app.push_screen(watch_screen(watcher))
        await pilot.pause()
        await wait_until(pilot, lambda: "game over: " in status(app), "the line")
        line = status(app)
        assert all(name in line for name in winners), line
        assert "win" in line, line
        # And the note says who won, in words (a play-tester read Pass
        # Pass's "<rich.console.Group object at 0x…>"), under the room's
        # code as written everywhere else.
        [note] = [n for n in app._notifications if str(n.message).startswith("Game over")]
        assert "object at" not in str(note.message), note.message
        assert all(name in str(note.message) for name in winners), note.message
        assert str(note.message).endswith(" q leaves."), note.message
        assert note.title == f"Room {format_code(watcher.code)}"


@pytest.mark.parametrize("game_id", ["passpass", "dominoes", "fashion"])
async def test_a_watcher_s_log_reads_you_for_nobody(private_config: Path, game_id: str) -> None:
    """A watcher has no seat: its log names every player and never says
    "you" (the log's names make "you" of the client's seat only, and a
    watcher's is None: TableScreen.log_names). A whole game, to the scores:
    a replay's spectator view once read "Game over. Scores: you 5"."""
    watcher = watched(game_id, moves=100_000)
    assert watcher.view is not None and watcher.view.is_over
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = watch_screen(watcher)
        app.push_screen(screen)
        await wait_until(pilot, lambda: screen.view is not None, "the watched table")
        log = "\n".join(screen.game_log.lines_written)
        assert re.search(r"\b(you|your)\b", log, re.IGNORECASE) is None, log
        assert all(name in log for name in watcher.names), log


def in_the_lobby(game_id: str, watching: int = 2) -> SpyWatcher:
    """A watcher of a ``game_id`` room whose game has not started."""
    watcher = watched(game_id, moves=0, watching=watching)
    watcher.view = None
    assert watcher.room is not None
    watcher.room = RoomState(**{**_fields(watcher.room), "phase": "lobby"})
    return watcher


def _fields(room: RoomState) -> dict[str, Any]:
    return {name: getattr(room, name) for name in room.__struct_fields__}


def themed(theme: str, game_id: str) -> Any:
    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.theme = theme
        await pilot.pause()
        pilot.app.push_screen(watch_screen(watched(game_id, moves=9, seed=5)))
        await pilot.pause()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("theme", ["passe", "passe-okabe-ito"])
def test_watch_screen_snapshot(snap_compare: Any, private_config: Path, theme: str) -> None:
    """A Pass Pass table watched nine moves in."""
    app = make_app(private_config)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, "passpass"))


async def test_watch_on_the_join_screen_asks_for_a_code_first(private_config: Path) -> None:
    """F3 (Watch) with nothing typed and no room picked says what to do."""
    from tui.screens.join import JoinScreen

    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(JoinScreen("Ana"))
        await pilot.pause()
        await pilot.press("f3")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, JoinScreen)
        assert screen.message_text == "Type the room code first (or pick a room in the list)."
        assert ("F3", "Watch") in shown_keys(app)
        assert help_fits(app)  # F1 Help still within 80 columns


def test_the_guide_says_nothing_is_played() -> None:
    assert "no seat" in WATCH_GUIDE and "nothing you press" in WATCH_GUIDE


# -- on a real room (Mosquitto, the room hosted in the test's process) --------


@pytest.fixture
def mosquitto(
    private_config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, int]:
    """The machine's Mosquitto; this test's own key and a name in settings
    (without one, joining from home first asks for it)."""
    from tests.net.procs import need_mosquitto
    from tests.tui.test_network import MOSQUITTO, write_settings

    need_mosquitto(*MOSQUITTO)
    monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("PASSE_BROKER", raising=False)
    write_settings(private_config)
    return MOSQUITTO


@pytest.mark.mosquitto
async def test_f3_watches_the_typed_room_and_players_see_the_count(
    private_config: Path, mosquitto: tuple[str, int]
) -> None:
    """Join by code, F3: the room's table, read-only, says you watch with no
    seat; the host counts one watcher and a player's lobby says "1 watching";
    q leaves, the watcher's place is freed and the count goes back to none."""
    from net.identity import Identity
    from net.peer.remote import RemoteTable
    from tests.net.peers import open_test_room, until
    from tests.tui.test_network import network_app
    from tui.screens.join import JoinScreen

    hosted = await open_test_room("passpass", 3, mosquitto, seed=2)
    ada = RemoteTable(Identity.generate(), hosted.code, *mosquitto, "Ada")
    try:
        await ada.join()
        app = network_app(private_config, mosquitto)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("j")
            assert isinstance(app.screen, JoinScreen)
            await pilot.press(*hosted.code.lower(), "f3")
            await wait_until(pilot, lambda: isinstance(app.screen, WatchTableScreen), "watching")
            line = f"Watching {format_code(hosted.code)} (no seat)"
            await wait_until(pilot, lambda: status(app).startswith(line), line)
            watching = app.screen
            assert isinstance(watching, WatchTableScreen)
            await wait_until(pilot, lambda: len(hosted.authority.watchers) == 1, "one watcher")
            # A fresh key, never this person's, and never seated.
            key = watching.watcher.identity.public_key
            assert list(hosted.authority.watchers) == [key]
            assert hosted.authority._seat_of(key) is None
            from net.identity import load_identity

            assert key != load_identity().identity.public_key  # the person's own key
            await until(lambda: ada.watching == 1)
            await wait_until(pilot, lambda: "1 watching" in status(app), "the count")
            await pilot.press("q")
            await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen), "home")
            await until(lambda: ada.watching == 0)
            assert hosted.authority.watchers == {}
    finally:
        await ada.close()
        await hosted.close()


@pytest.mark.mosquitto
async def test_a_players_lobby_says_how_many_watch(
    private_config: Path, mosquitto: tuple[str, int]
) -> None:
    from tests.net.peers import open_test_room
    from tests.tui.test_network import network_app
    from tui.screens.lobby import LobbyScreen

    hosted = await open_test_room("passpass", 3, mosquitto, seed=2)
    watchers = [Watcher(hosted.code, *mosquitto) for _ in range(2)]
    try:
        app = network_app(private_config, mosquitto)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("j", *hosted.code.lower(), "enter")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            lobby = app.screen
            box = lobby.query_one("#lobby-seats-box")
            assert not box.border_subtitle
            for watcher in watchers:
                await watcher.watch()
            await wait_until(pilot, lambda: box.border_subtitle == "2 watching", "2 watching")
            await watchers[0].close()
            await wait_until(pilot, lambda: box.border_subtitle == "1 watching", "1 watching")
    finally:
        for watcher in watchers:
            await watcher.close()
        await hosted.close()


@pytest.mark.mosquitto
@pytest.mark.parametrize("keys", [("down", "w"), ("backspace", "f3")], ids=["w", "f3"])
async def test_w_in_the_lan_list_watches_that_room(
    private_config: Path,
    mosquitto: tuple[str, int],
    monkeypatch: pytest.MonkeyPatch,
    keys: tuple[str, ...],
) -> None:
    """The LAN list (mDNS replaced by a stand-in that lists the room hosted
    here, as in tests/tui/test_network.py): w on a room watches it; a w
    typed in the code is a letter of the code. F3 with no code typed
    watches the room the list marks (it said "type the room code first",
    with the room marked ▸ below: found by hand)."""
    import sys
    import types
    from dataclasses import dataclass

    from textual.widgets import Input, OptionList

    import tui.netplay
    import tui.screens.join
    from tests.net.peers import open_test_room
    from tests.tui.test_network import wait_until
    from tui.netplay import NetworkOptions
    from tui.screens.join import JoinScreen

    hosted = await open_test_room("fashion", 3, mosquitto, seed=2)

    @dataclass(frozen=True)
    class Advert:
        code: str
        game: str
        host_name: str
        free_seats: int
        version: int
        port: int
        addresses: tuple[str, ...]
        phase: str = "lobby"

    advert = Advert(hosted.code, "fashion", "Hostess", 3, 1, mosquitto[1], (mosquitto[0],))

    async def browse_rooms(timeout: float) -> list[Advert]:
        return [advert]

    lan = types.ModuleType("net.lan.discovery")
    lan.browse_rooms = browse_rooms  # type: ignore[attr-defined]
    lan.Advertiser = type("Advertiser", (), {})  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "net.lan.discovery", lan)
    for module in (tui.netplay, tui.screens.join):
        monkeypatch.setattr(module, "discovery_available", lambda: True)
    try:
        app = PasseApp(config_path=private_config, network=NetworkOptions(advertise=False))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("j")
            screen = app.screen
            assert isinstance(screen, JoinScreen)
            rooms = screen.query_one("#join-rooms", OptionList)
            await wait_until(pilot, lambda: rooms.option_count == 1, "the LAN's rooms")
            await pilot.press("w")
            assert screen.query_one("#join-code", Input).value == "w"
            assert app.screen is screen and not getattr(screen, "joining", True)
            await pilot.press(*keys)
            await wait_until(pilot, lambda: isinstance(app.screen, WatchTableScreen), "watching")
            line = f"Watching {format_code(hosted.code)} (no seat)"
            await wait_until(pilot, lambda: status(app).startswith(line), line)
            await wait_until(pilot, lambda: len(hosted.authority.watchers) == 1, "a watcher")
            assert all(seat.kind == "open" for seat in hosted.authority.seats)
    finally:
        await hosted.close()


async def test_the_away_bar_follows_whose_turn_it_is(private_config: Path) -> None:
    """Someone away: the bar says the game waits for them only once it is
    their turn (found by hand: it said so while the others played on), and
    goes back when the turn moves on; updated by the views, not only by
    the room's changes."""
    watcher = watched("dominoes", moves=0)
    assert watcher.room is not None
    seats = list(watcher.room.seats)
    seats[1] = msgspec.structs.replace(seats[1], present=False)  # Bo is away
    watcher.room = RoomState(**{**_fields(watcher.room), "seats": seats})
    game = get_game("dominoes")
    state = game.new_game(game.make_config(players=3), 3)
    chooser = random.Random(3)
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = watch_screen(watcher)
        app.push_screen(screen)
        await pilot.pause()
        seen = set()
        for _ in range(8):
            screen._receive(TableUpdate(state.view(None), ()))
            bo_to_act = 1 in state.to_act
            words = "waits for them to come back" if bo_to_act else "will wait at their turn"
            bar = screen.query_one(NetStatus)

            def said(w: str = words, b: NetStatus = bar) -> bool:
                return w in str(b.render())

            await wait_until(pilot, said, words)
            seen.add(bo_to_act)
            seat = state.to_act[0]
            state.apply(seat, chooser.choice(state.legal_actions(seat)))
        assert seen == {True, False}


async def test_a_watcher_is_told_the_next_game_s_code_to_watch_not_a_player_s_key(
    private_config: Path,
) -> None:
    """A watcher has no seat at the next game and no game-over screen: a
    play-tester read "a (on the game-over screen) joins it" on a watcher's
    screen. It reads the next room's code, to watch it by."""
    from tui.messages import NextGameOpened

    watcher = watched("passpass", moves=100_000)
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = watch_screen(watcher)
        app.push_screen(screen)
        await wait_until(pilot, lambda: screen.view is not None, "the watched table")
        screen.post_message(NextGameOpened("XYZ789"))
        await wait_until(
            pilot, lambda: any("XYZ-789" in str(n.message) for n in app._notifications), "told"
        )
        [told] = [str(n.message) for n in app._notifications if "XYZ-789" in str(n.message)]
        assert told.endswith("room XYZ-789: n watches it.") and "game-over" not in told


async def test_n_watches_the_next_game_at_the_table(
    private_config: Path, mosquitto: tuple[str, int], tmp_path: Path
) -> None:
    """The host opens the next game at the table: a watcher's n watches it
    there (a fresh key again, the room found where a seat's next table
    goes, its key the one that ran this game), where it had to go home and
    type the next room's code. n is not offered before."""
    from net.authority.host import open_next_room
    from net.peer.pins import RoomPins
    from net.peer.watch import Watcher
    from tests.net.peers import open_test_room, until

    hosted = await open_test_room("passpass", 3, mosquitto, seed=2)
    rooms = [hosted]
    watcher = Watcher(hosted.code, *mosquitto, pins=RoomPins(tmp_path / "pins"))
    try:
        for seat in range(3):
            hosted.authority.set_bot(seat, "random")
        # Watched from its end (the whole game, live, took 10 s of the suite).
        hosted.authority.start_game()
        await until(lambda: hosted.authority.phase == "over")
        await watcher.watch()
        app = make_app(private_config)
        async with app.run_test(size=SIZE) as pilot:
            screen = watch_screen(watcher)
            app.push_screen(screen)
            await wait_until(
                pilot, lambda: screen.view is not None and screen.view.is_over, "game over"
            )
            keys = [description for description, _ in footer_keys(app)]
            assert "Watch next" not in keys
            await pilot.press("n")  # nothing to watch yet: nothing happens
            assert app.screen is screen
            following = await open_next_room(hosted)
            rooms.append(following)
            await wait_until(
                pilot,
                lambda: "Watch next" in [d for d, _ in footer_keys(app)],
                "n offered",
            )
            await pilot.press("n")
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, WatchTableScreen) and app.screen is not screen,
                "the next game's watch",
            )
            nxt = app.screen
            assert isinstance(nxt, WatchTableScreen) and nxt.watcher.code == following.code
            line = f"Watching {format_code(following.code)} (no seat)"
            await wait_until(pilot, lambda: status(app).startswith(line), line)
            assert nxt.watcher.authority_key == hosted.authority.identity.public_key
            assert nxt.watcher.identity.public_key != watcher.identity.public_key
            await until(
                lambda: list(following.authority.watchers) == [nxt.watcher.identity.public_key]
            )
            await pilot.press("q")
            await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen), "home")
    finally:
        await watcher.close()
        for room in reversed(rooms):
            await room.close()


@pytest.mark.parametrize("closed", [False, True])
async def test_pgup_and_pgdn_page_a_watcher_s_log(private_config: Path, closed: bool) -> None:
    """A play-test (6 December): a watcher who came mid-game saw the log
    from the middle of a sentence, and PgUp (or ↑, the room closed, as its
    line said) did nothing."""
    watcher = watched("passpass", moves=40)
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = watch_screen(watcher)
        app.push_screen(screen)
        await wait_until(pilot, lambda: screen.game_log.max_scroll_y > 0, "a long log")
        log = screen.game_log
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y
        if closed:
            assert watcher.room is not None
            watcher.room = RoomState(**{**_fields(watcher.room), "phase": "closed"})
            screen.post_message(RoomChanged(watcher.room))
            await wait_until(pilot, lambda: screen.room_closed, "closed")
            # Each key's scroll is animated: waited for, not a pause (it
            # had not moved yet after one pause on a loaded machine).
            await pilot.press("up", "up")
            await wait_until(pilot, lambda: log.scroll_y < log.max_scroll_y, "up")
            await pilot.press("end")
            await wait_until(pilot, lambda: log.scroll_y == log.max_scroll_y, "end")
        await pilot.press("pageup")
        await wait_until(pilot, lambda: log.scroll_y < log.max_scroll_y, "page up")
        await pilot.press("pagedown", "pagedown")
        await wait_until(pilot, lambda: log.scroll_y == log.max_scroll_y, "page down")


@pytest.mark.parametrize(
    ("game_id", "panel", "width"),
    [("fashion", "#fa-right", 30), ("dominoes", "#dominoes-right", 34)],
)
async def test_a_watched_table_has_its_game_s_layout(
    private_config: Path, game_id: str, panel: str, width: int
) -> None:
    """A play-test (6 December): a watched fashion table had five blank rows
    and its hand cut to half width, dominoes' hand narrower: the game's own
    CSS was lost (Textual takes it from a class's first base only)."""
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(watch_screen(watched(game_id, moves=6)))
        await pilot.pause()
        await pilot.pause()
        assert app.screen.query_one(panel).region.width == width


async def test_watching_eight_designers_the_log_takes_the_empty_hand_s_room(
    private_config: Path,
) -> None:
    """By hand (6 December): watching Passe fashion for 8 at 80x24, the log
    beside the eight designers had two rows, the empty hand panel eleven.
    A spectator's log takes the hand's room; the hand panel keeps its note
    and its two lines of the phase's hint."""
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = watch_screen(watched("fashion", moves=3, players=8))
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.pause()
        log = screen.query_one(GameLog)
        assert log.content_region.height >= 6, log.content_region  # it was 2
        assert log.content_region.width >= 44  # the hand's width, not the right column's
        text = screen_text(app)
        assert "Every hand is face down" in text and "(FA-7)" in text, text


@pytest.mark.parametrize("game_id", ["passpass", "dominoes", "fashion"])
async def test_the_watcher_s_line_fits_at_80_columns(private_config: Path, game_id: str) -> None:
    """A play-test (6 December) read "Watching V51-MNA (you have no seat) ·
    1 watching · R1 T1 · Waiting for Ada to", cut at 80 columns."""
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        for moves in (0, 3, 8, 21, 40):  # auctions, plays, picks, a round's end
            screen = watch_screen(watched(game_id, moves=moves, watching=12))
            await app.push_screen(screen)
            await pilot.pause()
            line = screen.query_one(StatusLine)
            text = str(line.render()).rstrip()
            rows = line.region.height
            assert rows <= 2 and len(text) <= (line.region.width - 2) * rows, (moves, text)
            app.pop_screen()


async def test_a_notice_from_before_the_screen_opened_is_not_logged_as_news(
    private_config: Path,
) -> None:
    """A play-test (7 December): a watcher's log, and a rejoined player's,
    read "Lee left the game; a bot plays for them" after the moves that had
    followed Lee's leaving: the room state the screen is told first is the
    room as it was, its notice old. A notice that comes later is news."""
    watcher = watched("passpass", moves=6)
    assert watcher.room is not None
    watcher.room = msgspec.structs.replace(
        watcher.room, notice="Bo left the game; a bot plays for them"
    )
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = watch_screen(watcher)
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.pause()
        assert not any("Bo left" in line for line in screen.game_log.lines_written)
        later = msgspec.structs.replace(
            watcher.room, notice="Di left the game; a bot plays for them", stamp=2
        )
        watcher.room = later
        for listener in list(watcher._room_listeners):
            listener(later)
        await pilot.pause()
        await pilot.pause()
        lines = screen.game_log.lines_written
        assert lines[-1] == "Di left the game; a bot plays for them.", lines[-3:]
        assert not any("Bo left" in line for line in lines)


def test_the_players_title_names_who_is_away_or_counts_them_when_they_do_not_fit() -> None:
    """At 80 columns the players panel's title was cut mid-word with two
    people away and watchers (a play-test, 6 December): the names go in
    when they fit, their count when they do not (each away seat has its ⚠,
    and the bar names them), and the watchers are always said."""
    from tui.widgets.net_status import players_title

    title = "[b]Players[/b] (public)"
    assert players_title(title, [], 0, 30).plain == "Players (public)"
    assert players_title(title, ["Ada"], 0, 30).plain == "Players · away: Ada"
    assert players_title(title, [], 2, 30).plain == "Players · 2 watching"
    both = players_title(title, ["Ada"], 2, 40)
    assert both.plain == "Players · away: Ada · 2 watching"
    crowded = players_title(title, ["Bartholomew", "Cunegonde"], 12, 40)
    assert crowded.plain == "Players · 2 away · 12 watching"
    assert crowded.cell_length <= 40 - 4
    # Pass Pass's panel at 80 columns is 31 cells wide.
    assert players_title(title, ["Bartholomew", "Cunegonde"], 2, 31).plain == "2 away · 2 watching"
    assert players_title(title, [], 2, 31).plain == "Players · 2 watching"
    # Not laid out yet (width 0): everything; the screen fits it after layout.
    assert players_title(title, ["Bartholomew", "Cunegonde"], 12, 0).plain.startswith(
        "Players · away: Bartholomew, Cunegonde"
    )
    # The names are text, never markup (issue 19).
    assert players_title(title, ["[b]x[/b]"], 0, 40).plain == "Players · away: [b]x[/b]"
