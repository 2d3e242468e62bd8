"""The home screen: ↑/↓ stay inside a panel and a ▸ marks the focused row;
each game's options (read from its config) and the bot speed are offered and
remembered; every option value the screen offers is one that the game's
config and ``passe simulate --option`` accept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Footer, Input, Label, Static

from core.registry import game_ids, game_info, get_game
from net.peer.client import LocalClient
from tests.tui.conftest import SIZE, make_app, write_settings
from tui.app import PasseApp
from tui.cli import main
from tui.options import game_options, option_text
from tui.screens.home import HomeScreen
from tui.screens.table import TableScreen
from tui.widgets.chooser import FOCUS_MARK, Chooser


async def home_ready(pilot: Any) -> HomeScreen:
    """The home screen once its options are mounted (after the first paint)."""
    for _ in range(100):
        await pilot.pause()
        screen = pilot.app.screen
        if isinstance(screen, HomeScreen) and screen.options_loaded:
            return screen
    raise AssertionError("the home screen's options never loaded")


def marked(app: PasseApp) -> list[str]:
    """The rows of the home screen that carry the focus marker."""
    rows = [str(c.render()) for c in app.screen.query(Chooser) if c.display]
    rows.append(str(app.screen.query_one("#name-label", Label).render()))
    return [row for row in rows if row.startswith(FOCUS_MARK)]


async def test_up_and_down_stay_in_their_panel_with_a_marker(private_config: Path) -> None:
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await home_ready(pilot)
        screen = app.screen
        assert isinstance(screen, HomeScreen)
        bots = [c.value for c in screen.query(Chooser) if (c.id or "").startswith("bot-")]
        assert app.focused is screen.query_one("#game") and marked(app)[0].startswith("▸ Game")
        await pilot.press("up")  # the first row: it stays there
        assert app.focused is screen.query_one("#game")
        seen = []
        markers = []
        for _ in range(12):  # down to the last row of "New game", never beyond
            await pilot.press("down")
            seen.append(app.focused)
            assert len(marked(app)) == 1, marked(app)
            markers.append(marked(app)[0])
        panel = screen.query_one("#home-game")
        assert all(widget is not None and panel in widget.ancestors for widget in seen)
        assert seen[-1] is screen.query_one("#confirm-plays")
        assert isinstance(seen[2], Input) and markers[2].startswith("▸ Your name")
        await pilot.press("tab")  # the other panel
        assert app.focused is screen.query_one("#bot-1")
        for _ in range(8):
            await pilot.press("up")
        assert app.focused is screen.query_one("#bot-1")  # no wrap into New game
        assert [c.value for c in screen.query(Chooser) if (c.id or "").startswith("bot-")] == bots
        await pilot.press("tab")
        assert app.focused is screen.query_one("#confirm-plays")  # where we left it


async def test_one_row_of_key_hints(private_config: Path) -> None:
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await home_ready(pilot)
        assert len(app.screen.query(Footer)) == 1
        texts = [str(s.render()) for s in app.screen.query(Static)]
        assert not any("Enter: start" in text for text in texts)


async def choose(pilot: Any, chooser_id: str, value: object) -> None:
    """Focus a chooser by ↓ presses and change it with → until ``value``."""
    screen = pilot.app.screen
    chooser = screen.query_one(f"#{chooser_id}", Chooser)
    for _ in range(15):
        if pilot.app.focused is chooser:
            break
        await pilot.press("down")
    assert pilot.app.focused is chooser
    for _ in range(len(chooser.options)):
        if chooser.value == value:
            return
        await pilot.press("right")
    assert chooser.value == value


async def test_options_and_bot_speed_start_the_game_and_are_remembered(
    private_config: Path,
) -> None:
    app = PasseApp(config_path=private_config, seed=3)  # no --bot-delay: the setting
    async with app.run_test(size=SIZE) as pilot:
        await home_ready(pilot)
        await choose(pilot, "game", "fashion")
        await pilot.pause()
        await choose(pilot, "opt-fashion-payment", "everyone")
        await choose(pilot, "bot-speed", 0.3)
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, TableScreen)
        assert isinstance(table.client, LocalClient)
        assert table.client.table.state.config.payment == "everyone"
        assert table.client.table.bot_delay == 0.3
    data = json.loads(private_config.read_text())
    assert data["options"]["fashion"] == {"payment": "everyone"}
    assert data["bot_delay"] == 0.3

    again = PasseApp(config_path=private_config, seed=3)
    async with again.run_test(size=SIZE) as pilot:
        await home_ready(pilot)
        screen = again.screen
        assert screen.query_one("#opt-fashion-payment", Chooser).value == "everyone"
        assert screen.query_one("#opt-fashion-payment", Chooser).display
        assert not screen.query_one("#opt-dominoes-target", Chooser).display
        assert screen.query_one("#bot-speed", Chooser).value == 0.3


async def test_the_home_screen_offers_every_option_of_the_config(private_config: Path) -> None:
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await home_ready(pilot)
        shown = {c.id for c in app.screen.query(Chooser) if (c.id or "").startswith("opt-")}
    offered = {f"opt-{game}-{o.name}" for game in game_ids() for o in game_options(game)}
    assert shown == offered
    # The variants the rules name: FA-8's payment, DO-13's target, PP-2's diamonds.
    assert {"opt-fashion-payment", "opt-dominoes-target", "opt-passpass-diamonds"} <= offered


CASES = [
    (game, option.name, value)
    for game in game_ids()
    for option in game_options(game)
    for _, value in option.choices
]


@pytest.mark.parametrize(("game_id", "name", "value"), CASES)
def test_every_offered_value_is_accepted_by_the_game_and_simulate(
    game_id: str, name: str, value: object, capsys: pytest.CaptureFixture[str]
) -> None:
    info = game_info(game_id)
    game = get_game(game_id)
    for players in range(info.min_players, info.max_players + 1):
        for teams in (False, True):
            if info.allows(players, teams):
                config = game.make_config(players=players, teams=teams, **{name: value})
                assert json.dumps(getattr(config, name)) == json.dumps(value)
    players = info.solo_player_counts[0]
    argv = ["simulate", game_id, "--players", str(players), "--games", "1", "--seed", "1"]
    assert main([*argv, "--option", option_text(name, value)]) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["games"] == 1


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"bot_delay": "fast"}, "bot_delay"),
        ({"bot_delay": -1}, "bot_delay"),
        ({"options": {"fashion": ["everyone"]}}, "options"),
    ],
)
def test_bad_options_or_bot_speed_in_settings_are_reported(
    private_config: Path, data: dict[str, Any], problem: str
) -> None:
    from tui.settings import Settings, load_settings

    private_config.parent.mkdir(parents=True, exist_ok=True)
    private_config.write_text(json.dumps(data), encoding="utf-8")
    settings, notice = load_settings(private_config)
    assert settings == Settings() and notice is not None and problem in notice


async def test_a_remembered_value_no_longer_offered_falls_back_to_the_default(
    private_config: Path,
) -> None:
    write_settings(private_config, options={"dominoes": {"target": 77, "gone": 1}})
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await home_ready(pilot)
        target = app.screen.query_one("#opt-dominoes-target", Chooser)
        assert target.value is None  # the rules' target
        screen = app.screen
        assert isinstance(screen, HomeScreen)
        await choose(pilot, "game", "dominoes")
        assert screen.collect().options["dominoes"] == {}  # only what differs


class HostWatchApp(PasseApp):
    """Records the names rooms would be hosted under, opening none."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.hosted_as: list[str] = []

    def _host(self, settings: Any) -> None:
        self.hosted_as.append(settings.name)


async def test_keys_typed_right_after_a_move_reach_the_name_field(private_config: Path) -> None:
    # Issue 18 item 7: typed at 150 ms a key in a terminal, "Abc" came out
    # as "bc" and an "o" hosted a room under the old name: the key after
    # ↓ went to the row ↓ had just left. Here the keys arrive together, as
    # they do in one read from a terminal (Pilot's press waits for each).
    from textual import events

    app = HostWatchApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await home_ready(pilot)
        await pilot.press("down", "down")  # to Teams, the row above the name
        for key in ("down", "A", "b", "o"):
            app.post_message(events.Key(key, None if key == "down" else key))
        await pilot.pause(0.2)
        await pilot.pause()
        assert app.screen.query_one("#name", Input).value == "Abo"
        assert app.hosted_as == []  # the o was typed, not the host key
        assert isinstance(app.screen, HomeScreen)  # (nor was a name asked for it)
        for key in ("up", "up", "down", "down", "c"):  # away, and back
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await pilot.pause(0.2)
        await pilot.pause()
        assert app.screen.query_one("#name", Input).value == "c"  # it replaced the name


async def test_a_name_is_asked_once_before_hosting_where_none_is_known(
    private_config: Path,
) -> None:
    # Issue 18 item 6: with the default name "You", a networked seat took
    # the OS login (for an SSH guest, the server's account: "Root").
    from tui.screens.ask_name import AskNameScreen

    app = HostWatchApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await home_ready(pilot)
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, AskNameScreen)
        await pilot.press("ctrl+u", "enter")  # no name: refused in words
        await pilot.pause()
        assert isinstance(app.screen, AskNameScreen) and app.hosted_as == []
        # A room code typed here (found by hand: someone going to join typed
        # it at once, and was named "ZZZ-999@127.0.0."): refused in words.
        for code in ("ZZZ-999@127.0.0.1:1884", "K3F-9QX"):
            await pilot.press(*code, "enter")
            await pilot.pause()
            assert isinstance(app.screen, AskNameScreen) and app.hosted_as == []
            assert "That is a room code" in str(app.screen.query_one("#dialog-problem").render())
            await pilot.press("ctrl+u")
        await pilot.press(*"Dana", "enter")
        await pilot.pause()
        assert app.hosted_as == ["Dana"]
        assert isinstance(app.screen, HomeScreen)
        assert app.screen.query_one("#name", Input).value == "Dana"
        await pilot.press("o")  # asked once: now it is known
        await pilot.pause()
        assert app.hosted_as == ["Dana", "Dana"]
    assert json.loads(private_config.read_text())["name"] == "Dana"


async def test_a_given_name_is_the_name_everywhere(private_config: Path) -> None:
    # An SSH guest's user name (--name) hosts and joins from home under that
    # name, never asked and never the OS login.
    app = HostWatchApp(config_path=private_config, bot_delay=0, seed=1, name="cy")
    async with app.run_test(size=SIZE) as pilot:
        await home_ready(pilot)
        await pilot.press("o")
        await pilot.pause()
        assert app.hosted_as == ["cy"]


def test_host_and_join_on_screen_pass_their_name_to_the_app(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `ssh HOST join CODE` runs `passe join CODE --name USER`: Esc from its
    # lobby, then o, hosted as the server's account ("Root").
    import tui.app

    given: list[object] = []

    def run(**options: object) -> int:
        given.append(options["name"])
        return 0

    monkeypatch.setattr(tui.app, "run", run)
    assert main(["host", "passpass", "--name", "cy"]) == 0
    assert given == ["cy"]


def test_what_is_a_room_code_and_what_is_a_name() -> None:
    from tui.screens.ask_name import looks_like_a_code

    for code in (
        "K3F-9QX",
        "k3f-9qx",
        "ZZZ-999@127.0.0.1:1884",
        "ZZZ-999@127.0.0.",
        "K3F9QX@host",
        " ABC-123 ",
    ):
        assert looks_like_a_code(code), code
    for name in ("Dana", "Max-Leo", "Joanna", "ana@home", "Ana 2", "K3F-9QXY", "a@b@c"):
        assert not looks_like_a_code(name), name


async def test_the_name_deleted_shows_it_is_empty_not_the_default_name(
    private_config: Path,
) -> None:
    """The default name is "You", and so was the field's placeholder:
    deleted, the name looked unchanged (found in a play-test, 6 December).
    The empty field says what to do and what an empty name means."""
    from tui.screens.home import NAME_PLACEHOLDER

    app = HostWatchApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await home_ready(pilot)
        field = app.screen.query_one("#name", Input)
        assert field.value == "You"
        await pilot.press("down", "down", "down")  # to the name: selected
        assert field.has_focus
        await pilot.press("backspace")
        await pilot.pause()
        assert field.value == ""
        shown = field.render_line(0).text  # what the field's row shows
        assert shown.strip() == NAME_PLACEHOLDER, shown


async def test_a_second_session_of_a_served_player_is_told_nothing_is_kept(
    private_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A play-test (6 December): the same player in a second SSH session or
    browser tab got a throw-away directory (docs/ssh.md), and a game played
    there was gone when it closed, without a word on any screen."""
    from tui.netplay import SECOND_SESSION_NOTE

    monkeypatch.setenv("PASSE_SECOND_SESSION", "1")
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        games = app.screen.query_one("#games", Static)
        text = " ".join(str(games.render()).split())
        assert text.startswith(" ".join(SECOND_SESSION_NOTE.split())), text
        assert "records) is not kept." in screen_text(app)  # whole at 80x24
    monkeypatch.delenv("PASSE_SECOND_SESSION")
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "another window" not in str(app.screen.query_one("#games", Static).render())


def screen_text(app: PasseApp) -> str:
    import html

    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


async def test_keys_that_come_together_are_typed_in_order(private_config: Path) -> None:
    """A play-test (6 December): backspace three times and "Zoe", sent
    together (tmux, a paste, a slow SSH link), left the name field empty:
    Textual's Input ran its bound keys (backspace) after the characters
    typed behind them (Textual issue #6605). Every text field of Passe is a
    TextField, which runs them in order."""
    from textual import events

    from tui.widgets.text_field import TextField

    write_settings(private_config, name="Ada")
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        field = app.screen.query_one("#name", Input)
        assert isinstance(field, TextField)
        field.focus()
        await pilot.pause()
        field.cursor_position = len(field.value)
        typed = [("backspace", None)] * 3 + [("z", "z"), ("o", "o"), ("e", "e"), ("left", None)]
        typed += [("backspace", None), ("i", "i")]
        for key, character in typed:  # all at once, none waited for
            app.post_message(events.Key(key, character))
        await pilot.pause()
        await pilot.pause()
        assert field.value == "zie"
        # The room code's field and the dialogs' (a key's first digits) too.
        from tui.screens.expect_key import ExpectKeyScreen
        from tui.screens.join import JoinScreen

        await app.push_screen(JoinScreen("Ana"))
        assert isinstance(app.screen.query_one("#join-code"), TextField)
        await app.push_screen(ExpectKeyScreen())
        assert isinstance(app.screen.query_one("#dialog-input"), TextField)
