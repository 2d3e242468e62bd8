"""Names and other text from the network are shown as text on every screen
(issue 19, item 1): a seat named ``[/]`` crashed a peer's score sheet and a
host's status line (MarkupError); ``[bold red]x`` and ``[$accent]y`` would be
styles; escape sequences and bidi overrides reach the terminal. Also widths
in cells (issue 23) and the names of bots (issue 18)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.errors import MarkupError
from rich.text import Text
from textual.content import Content
from textual.widgets import Static

from core.engine import Result, View
from core.passpass import PassPassView
from net.peer.remote import shown_room
from net.protocol.text import clean_text
from net.protocol.wire import RoomState, SeatState
from tests.tui import conftest
from tests.tui.conftest import SIZE, continue_game, make_app, play_to_end, save_when
from tests.tui.test_dominoes_table import Driver
from tests.tui.test_game_over import near_the_end
from tui.games.passpass.opponents import OpponentsPanel
from tui.games.passpass.score_sheet import ScoreSheet, render_sheet
from tui.games.passpass.table import PassPassTableScreen
from tui.messages import RoomChanged
from tui.plain import literal
from tui.plain import plain as plain_content
from tui.screens.game_over import GameOverScreen
from tui.session import seat_names
from tui.widgets.fit import fit, pad
from tui.widgets.net_status import NetStatus

# Names as they reach the screens: cleaned by net/protocol/text.py, markup left as text.
MARKUP_NAMES = ("Me", "[/]", "[bold red]x", "[$accent]y")
# And as a hostile room state carries them (cleaned on the way in).
RAW_NAMES = ("Me", "\x1b]0;PWNED\x07[/]", "\x1b[2J[bold red]x", "\u202e[$accent]y")


def plain(widget_or_renderable: Any, width: int = 200) -> str:
    """What a person reads of a widget or renderable (no styles)."""
    rendered = widget_or_renderable
    if isinstance(rendered, Static):
        rendered = rendered.content
    if isinstance(rendered, Content):
        return rendered.plain
    stream = io.StringIO()
    Console(file=stream, width=width, color_system=None).print(rendered)
    return stream.getvalue()


def hostile_room(names: tuple[str, ...], phase: str = "playing") -> RoomState:
    """A room state as a squatter or an old host might send it: raw names,
    an escape in the host's name and the notice; seat 2 away."""
    seats = [
        SeatState(name, "human", "", f"{n:016x}", present=n != 1) for n, name in enumerate(names)
    ]
    return RoomState(
        room="ABC123",
        game="passpass",
        config={"players": len(names), "teams": False},
        host="\x1b]0;PWNED\x07[/]host",
        phase=phase,
        seats=seats,
        seq=1,
        stamp=1,
        notice="\x1b[2J[/] left the game: a bot plays for them",
    )


@pytest.fixture
def markup_names(monkeypatch: pytest.MonkeyPatch) -> tuple[str, ...]:
    monkeypatch.setattr(conftest, "NAMES", MARKUP_NAMES)
    return MARKUP_NAMES


def test_a_hostile_room_state_is_cleaned_on_the_way_in() -> None:
    room = shown_room(hostile_room(RAW_NAMES))
    assert [seat.name for seat in room.seats] == list(MARKUP_NAMES)
    assert room.host == "[/]host"
    assert room.notice == "[/] left the game: a bot plays for them"


async def test_a_hostile_room_state_shows_as_text_in_the_lobby(private_config: Path) -> None:
    """A squatter's room state with a host named ``\\x1b]0;PWNED\\x07`` set
    the joiner's terminal title, and a seat ``\\x1b[2J`` blanked the lobby:
    as a joiner's lobby gets it (through RemoteTable, which cleans it)."""
    from net.identity import Identity
    from net.peer.remote import RemoteTable
    from tui.screens.lobby import LobbyScreen
    from tui.widgets.seat_list import SeatList

    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        table = RemoteTable(Identity.generate(), "ABC123", "127.0.0.1", 9, "Me")
        lobby = LobbyScreen(table=table)
        app.push_screen(lobby)
        await pilot.pause()
        # A notice is news once the lobby knows the room (the first state
        # tells what happened before: not said).
        calm = msgspec.structs.replace(hostile_room(RAW_NAMES, phase="lobby"), notice="")
        lobby.post_message(RoomChanged(shown_room(calm)))
        lobby.post_message(RoomChanged(shown_room(hostile_room(RAW_NAMES, phase="lobby"))))
        await pilot.pause()
        title = plain(lobby.query_one("#lobby-title", Static))
        assert title.endswith("hosted by [/]host") and "\x1b" not in title
        seats = plain(lobby.query_one(SeatList), width=78)
        for name in MARKUP_NAMES[1:]:
            assert name in seats, seats
        assert "\x1b" not in seats and "\u202e" not in seats
        notices = [str(n.message) for n in app._notifications]
        assert "[/] left the game: a bot plays for them" in notices
        assert app.is_running


def _in_round_3(view: View) -> bool:
    assert isinstance(view, PassPassView)
    return view.round == 3


async def test_markup_names_show_literally_through_a_whole_passpass_game(
    private_config: Path, markup_names: tuple[str, ...]
) -> None:
    """The table's bars, the score sheet, the network bar and its
    notification, round summaries and the game-over screen, with seats named
    like markup: nothing crashes, each name reads as typed."""
    save_when(private_config, "passpass", _in_round_3)
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        table = await continue_game(pilot)
        assert isinstance(table, PassPassTableScreen)
        await pilot.pause()
        sheet = plain(table.query_one(ScoreSheet))
        players = plain(table.query_one(OpponentsPanel))
        for name in markup_names[1:]:
            assert name in sheet and name in players, (name, sheet, players)
        # A room state as a networked table gets it: the bar, the away list
        # in the players' title and the notice (a notification).
        await table.mount(NetStatus(id="net-status"))
        # The first state is the room as the table opened: its notice is
        # not news (tui/screens/table.py); the next one's is.
        calm = msgspec.structs.replace(hostile_room(RAW_NAMES), notice="")
        table.post_message(RoomChanged(shown_room(calm)))
        table.post_message(RoomChanged(shown_room(hostile_room(RAW_NAMES))))
        await pilot.pause()
        bar = table.query_one(NetStatus).text
        assert "[/] is away" in bar and "\x1b" not in bar
        title = table.query_one("#players").border_title
        assert title is not None and Content.from_markup(title).plain.endswith("away: [/]")
        notices = [str(n.message) for n in app._notifications]
        assert "[/] left the game: a bot plays for them" in notices
        over, _ = await play_to_end(pilot)
        assert isinstance(over, GameOverScreen)
        verdict = plain(over.query_one("#verdict", Static))
        winners = [markup_names[seat] for seat in over.result.winners]
        assert all(name in verdict for name in winners if name != "Me"), verdict
        final = plain(over.scores)
        for name in markup_names[1:]:
            assert name in final, final
        assert app.is_running


async def test_markup_names_show_literally_at_the_dominoes_table(
    private_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conftest, "NAMES", MARKUP_NAMES[:3])
    save_when(private_config, "dominoes", near_the_end, players=3, options={"target": 101})
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await continue_game(pilot)
        await Driver(pilot).play()
        over = app.screen
        assert isinstance(over, GameOverScreen)
        final = plain(over.scores)
        assert "[/]" in final and "[bold red]x" in final
        assert app.is_running


@pytest.mark.long
async def test_markup_names_show_literally_at_the_fashion_table(
    private_config: Path, markup_names: tuple[str, ...]
) -> None:
    from tests.tui.test_fashion_table import last_rounds_open, play_fashion
    from tui.games.fashion.players import FashionPlayers

    # The last rounds only (FA-14): the names are checked on the table and on
    # the game's end, and every round before played by keys cost the suite
    # 9 s more (the whole game by keys: tests/tui/test_fashion_table.py).
    save_when(private_config, "fashion", last_rounds_open)
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        table = await continue_game(pilot)
        await pilot.pause()
        designers = plain(table.query_one(FashionPlayers))
        assert "[/]" in designers and "[bold r" in designers  # 8 cells: "[bold r…"
        await play_fashion(pilot)
        over = app.screen
        assert isinstance(over, GameOverScreen)
        final = plain(over.scores)
        assert "[/]" in final and "[$accent]y" in final
        assert app.is_running


async def test_the_game_over_screen_and_dialogs_show_markup_as_text(
    private_config: Path,
) -> None:
    """A result whose reason and winners read like markup (from the table:
    an old host's text)."""
    names = ("[/]", "[bold red]x", "[$accent]y")
    result = Result(winners=(0, 2), shared=True, scores=(3, 1, 3), reason="[Bold]tie[/]")
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        over = GameOverScreen(result, names, 1, Text("[/] 3  [bold red]x 1"))
        app.push_screen(over)
        await pilot.pause()
        verdict = plain(over.query_one("#verdict", Static))
        assert "Shared victory: [/] and [$accent]y!" in verdict
        assert "Why: [Bold]tie[/]." in verdict
        app.notify("[/] opened the next game", title="[b]x")
        await pilot.pause()
        assert app.is_running


def test_score_sheet_cells_are_text_not_markup() -> None:
    """The crash of issue 19: a str cell of a Rich table is markup."""
    from core.registry import get_game

    game = get_game("passpass")
    view = game.new_game(game.make_config(players=3), 1).view(0)
    names = ["Me", "[/]", "[bold red]x"]
    text = plain(render_sheet(view, names))
    assert "[/]" in text and "[bold red]x" in text
    with pytest.raises(MarkupError):  # what a str cell did
        plain(Text.from_markup("[/]"))


@given(st.text() | st.text(alphabet="[]/\\$@#=abB ", max_size=30))
@settings(max_examples=400)
def test_text_in_textual_widgets_shows_as_written(text: str) -> None:
    """Over any text as it reaches a screen: a Static, a title, an option
    given tui.plain's Content (never a markup string; textual.markup.escape
    leaves "[$accent]" and "[Bold]" as styles, and a final backslash eats
    the tag after it)."""
    cleaned = clean_text(text)
    assert plain_content(cleaned).plain == cleaned
    visual = Static(literal(cleaned)).visual
    assert isinstance(visual, Content) and visual.plain == cleaned
    title = Content.from_markup("[b]Players[/b]") + plain_content(f" · away: {cleaned}")
    assert title.plain == f"Players · away: {cleaned}"


def test_widths_are_counted_in_cells() -> None:
    """CJK and emoji take two cells (issue 23): fitted and padded in cells."""
    from rich.cells import cell_len

    assert fit("漢字漢字漢字", 6) == "漢字…"
    assert cell_len(fit("漢字漢字漢字", 6)) <= 6
    assert fit("Dmitri", 5) == "Dmit…"
    assert cell_len(pad("漢字", 8)) == 8 and pad("漢字", 8) == "漢字    "
    assert cell_len(pad("🎉x", 5, "^")) == 5
    assert pad("Ada", 6, ">") == "   Ada"


@given(st.text(), st.integers(min_value=0, max_value=30))
def test_fit_and_pad_respect_the_cells(text: str, width: int) -> None:
    from rich.cells import cell_len

    shown = clean_text(text)
    assert cell_len(fit(shown, width)) <= width
    assert cell_len(pad(shown, width)) == width


def test_no_bot_is_named_like_the_person() -> None:
    """Issue 18: "ada" beside a bot "Ada" read as one player."""
    names = seat_names("ada", 4)
    assert names == ("ada", "Bruno", "Cleo", "Dmitri")
    assert len(seat_names("ＡＤＡ", 8)) == 8 and "Ada" not in seat_names("ＡＤＡ", 8)
    assert seat_names("Zed", 3) == ("Zed", "Ada", "Bruno")


# -- real processes: a TUI host, a TUI peer, a joiner named "[/]" ------------


# A whole game of three (one to three minutes on two cores): in `make soak`;
# make test keeps the Pilot tests above and tests/net/test_hostile_text.py
# (real brokers) on the same paths.
@pytest.mark.soak
async def test_a_joiner_named_markup_plays_with_a_tui_host_and_a_tui_peer(
    private_config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 19 item 1's attack, replayed: a joiner named ``[/]`` (a real
    ``passe join --bot`` process) sits in a room hosted by a TUI host, with a
    TUI peer; they play the whole game. The peer's score sheet and the host's
    status line crashed (MarkupError, exit 1) and the room went to closed:
    here both screens show the name, nobody crashes, the room ends "over"."""
    from tests.net.procs import PasseProcess, need_mosquitto
    from tests.tui.conftest import write_settings
    from tests.tui.test_network import (
        host_from_home,
        network_app,
        start_enabled,
        wait_until,
    )

    need_mosquitto()
    mosquitto = ("127.0.0.1", 1883)
    broker = f"{mosquitto[0]}:{mosquitto[1]}"
    monkeypatch.delenv("PASSE_BROKER", raising=False)
    # Two apps in this process, each with its own key: the data directory is
    # read when a room is hosted or joined.
    monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path / "host-data"))
    write_settings(private_config, name="Zed", players={"passpass": 3})
    peer_config = tmp_path / "peer" / "settings.json"
    write_settings(peer_config, name="Pia")
    host_app = network_app(private_config, mosquitto, seed=6)
    peer_app = network_app(peer_config, mosquitto)
    joiner = PasseProcess("joiner", tmp_path)
    async with host_app.run_test(size=SIZE) as host:
        lobby, hosted = await host_from_home(host)
        try:
            await joiner.start(
                *("join", f"{hosted.code}@{broker}", "--bot", "random", "--seed", "2"),
                # Escapes and a bidi override too: the host keeps "[/]".
                *("--name", "\x1b]0;PWNED\x07[/]\u202e"),
            )
            # It knocks (issue 19 item 2): the host lets it in.
            await wait_until(host, lambda: lobby.knock is not None, "the bot's knock")
            await host.press("y")
            await wait_until(
                host, lambda: any(s.name == "[/]" for s in hosted.authority.seats), "[/] seated"
            )
            monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path / "peer-data"))
            async with peer_app.run_test(size=SIZE) as peer:
                await peer.press("j")
                await peer.press(*f"{hosted.code}@{broker}", "enter")
                await wait_until(host, lambda: lobby.knock is not None, "Pia's knock")
                await host.press("y")
                await wait_until(host, lambda: start_enabled(host_app), "every seat taken")
                await host.press("s")
                await wait_until(
                    peer, lambda: isinstance(peer_app.screen, PassPassTableScreen), "the table"
                )
                peer_table = peer_app.screen
                assert isinstance(peer_table, PassPassTableScreen)
                await wait_until(peer, lambda: peer_table.pp_view is not None, "the first view")
                assert "[/]" in plain(peer_table.query_one(ScoreSheet))
                (host_over, _), (peer_over, _) = await asyncio.gather(
                    play_to_end(host), play_to_end(peer)
                )
                for over in (host_over, peer_over):
                    assert "[/]" in plain(over.scores)
                assert "[/]" in plain(peer_table.query_one(ScoreSheet))
                assert peer_app.is_running and host_app.is_running
            assert hosted.authority.phase == "over"  # played to the end, not closed
            assert await joiner.finish() == 0
        finally:
            await joiner.stop()


async def test_the_home_screen_names_no_bot_like_you(private_config: Path) -> None:
    """Issue 18: the seats list shows the bots the table will seat, and none
    has your name ("ada" and a bot "Ada")."""
    from textual.widgets import Input

    from tui.widgets.chooser import Chooser

    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        name = app.screen.query_one("#name", Input)
        from tests.tui.test_network import wait_until

        def labels() -> list[str]:
            return [str(app.screen.query_one(f"#bot-{n}", Chooser).label) for n in (1, 2, 3)]

        name.value = "ada"
        # Read once the change is shown (one pause is not enough under load).
        await wait_until(pilot, lambda: labels()[0] != "2 Ada", "the bots renamed")
        assert labels() == ["2 Bruno", "3 Cleo", "4 Dmitri"]
        assert plain(app.screen.query_one("#seat-you", Static)) == "1 ada (you)"
        name.value = "[/]"  # a name like markup, as typed
        await wait_until(pilot, lambda: labels()[0] == "2 Ada", "the bots named again")
        assert plain(app.screen.query_one("#seat-you", Static)) == "1 [/] (you)"
        assert app.screen.query_one("#bot-1", Chooser).label == "2 Ada"


def test_a_room_s_options_from_the_host_are_listed_in_bounded_words() -> None:
    """The lobby lists the options that differ from the game's defaults, as
    the host's room state says them: any number, of any size (found by
    hand, 5 December: a config of 10,000 numbers was one lobby line)."""
    from tui.screens.lobby import MAX_SETTINGS_SHOWN, SETTING_CELLS, describe_settings

    room = hostile_room(("Ada", "Bo", "Cy"), phase="lobby")
    config = {**room.config, "target": 12, "huge": list(range(10_000))}
    config.update({f"opt{n}": n for n in range(MAX_SETTINGS_SHOWN)})
    text = describe_settings(msgspec.structs.replace(room, config=config))
    first, options = text.split("\n")
    assert first == "3 players · each for themselves"
    huge, *others = options.split(", Opt")
    assert huge.startswith("Huge: [0, 1, 2") and len(huge) <= SETTING_CELLS
    assert others[:-1] == [f"{n}: {n}" for n in range(MAX_SETTINGS_SHOWN - 2)]
    assert others[-1] == f"{MAX_SETTINGS_SHOWN - 2}: {MAX_SETTINGS_SHOWN - 2}, 2 more"
    plain = describe_settings(msgspec.structs.replace(room, config={**room.config, "target": 9}))
    assert plain == "3 players · each for themselves\nTarget: 9"


@pytest.mark.parametrize("name", ["[b red]Kim", "[/]Kim", "[$accent]Kim"])
async def test_the_join_screen_shows_the_typed_name_as_text(
    private_config: Path, name: str
) -> None:
    """A play-test (6 December): "Enter joins as [b red]Kim" showed Kim in
    bold red on the joiner's own join screen (``[/]`` would have ended Passe)."""
    from tui.screens.join import JoinScreen

    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(JoinScreen(name))
        await pilot.pause()
        explain = app.screen.query_one("#join-explain", Static)
        assert str(explain.render()).startswith(f"Enter joins as {name}")
        assert app.is_running
