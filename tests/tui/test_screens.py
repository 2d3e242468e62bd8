"""The frame around the games: settings, quitting, small terminals, help,
rules, themes, and keys pressed at the wrong moment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from core.passpass.model import Play
from core.passpass.state import PassPassView
from core.registry import get_game
from tests.tui.conftest import SIZE, make_app, on_top, passpass_seed, resize
from tui.app import PasseApp
from tui.games.passpass.hand import HandView
from tui.games.passpass.table import PassPassTableScreen
from tui.games.passpass.trick import TrickView
from tui.saves import save_path
from tui.screens.confirm_quit import ConfirmQuitScreen
from tui.screens.help import HelpScreen
from tui.screens.home import HomeScreen
from tui.screens.rules import RulesScreen
from tui.settings import Settings, load_settings, save_settings
from tui.widgets.too_small import TooSmall


def notices(app: App[None]) -> list[str]:
    return [str(notification.message) for notification in app._notifications]


# -- settings ----------------------------------------------------------------


async def test_corrupt_settings_file_is_ignored_with_a_notice(private_config: Path) -> None:
    private_config.parent.mkdir(parents=True)
    private_config.write_text("{not json at all", encoding="utf-8")
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert any("Ignored corrupt settings file" in text for text in notices(app))
        assert any("it was kept as settings.corrupt" in text for text in notices(app))
        aside = private_config.with_suffix(".corrupt")
        assert aside.read_text(encoding="utf-8") == "{not json at all"  # kept for a look
        await pilot.press("enter")  # and a game still starts
        await pilot.pause()
        assert isinstance(app.screen, PassPassTableScreen)


def test_settings_with_wrong_types_or_unreadable_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"players": {"passpass": "four"}}), encoding="utf-8")
    settings, notice = load_settings(path)
    assert settings == Settings() and notice and "players" in notice
    assert not path.exists() and path.with_suffix(".corrupt").exists()  # set aside
    path.write_bytes(b"\xff\xfe\x00garbage")
    settings, notice = load_settings(path)
    assert settings == Settings() and notice and "kept as settings.corrupt" in notice
    assert path.with_suffix(".corrupt").read_bytes() == b"\xff\xfe\x00garbage"
    directory = tmp_path / "a-directory"
    directory.mkdir()
    settings, notice = load_settings(directory)
    assert settings == Settings() and notice and "Could not read" in notice
    assert load_settings(tmp_path / "missing.json") == (Settings(), None)


def test_settings_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "settings.json"
    settings = Settings(name="Zoé", theme="passe-mono", players={"passpass": 5})
    assert save_settings(path, settings) is None
    loaded, notice = load_settings(path)
    assert notice is None and loaded == settings


async def test_recent_settings_and_theme_are_remembered(private_config: Path) -> None:
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down")  # players
        await pilot.press("right")  # 4 -> 5
        await pilot.pause()
        app.theme = "passe-okabe-ito"
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PassPassTableScreen)
    saved = json.loads(private_config.read_text(encoding="utf-8"))
    assert saved["players"]["passpass"] == 5 and saved["theme"] == "passe-okabe-ito"
    again = make_app(private_config)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.theme == "passe-okabe-ito"
        assert again.screen.query_one("#players").value == 5  # type: ignore[attr-defined]


async def test_themes_are_offered_in_the_command_palette(private_config: Path) -> None:
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Theme: Colour-blind safe (Okabe-Ito palette)" in titles
        assert "Theme: High-contrast monochrome" in titles
        # Of Textual's own, Quit only: no Maximize (a hatched screen nothing
        # said how to leave: a play-test), Keys or Screenshot (a file written
        # where Passe runs: an SSH guest's on the host's disk).
        assert [title for title in titles if not title.startswith("Theme: ")] == ["Quit"]
        for name in ("passe", "passe-okabe-ito", "passe-mono"):
            assert name in app.available_themes


# -- quitting ----------------------------------------------------------------


async def test_escape_on_the_home_screen_does_not_quit(private_config: Path) -> None:
    """Escape is "back" on every other screen: pressed once too many after
    leaving a lobby, it closed Passe, and over SSH the session (found by hand,
    issue 18). On the home screen it does nothing; q quits."""
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        home = app.screen
        assert isinstance(home, HomeScreen)
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.is_running and app.screen is home
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_quitting_a_game_asks_first(private_config: Path) -> None:
    app = make_app(private_config, bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmQuitScreen)
        await pilot.press("enter")  # a stray Enter (it plays at the table) leaves nothing
        await pilot.pause()
        assert isinstance(app.screen, ConfirmQuitScreen)
        await pilot.press("n")  # keep playing
        assert on_top(app) is table
        await pilot.press("escape")
        assert isinstance(app.screen, ConfirmQuitScreen)
        await pilot.press("escape")
        assert on_top(app) is table
        await pilot.press("ctrl+q")  # the app's quit key asks too
        assert isinstance(app.screen, ConfirmQuitScreen)
        await pilot.press("y")  # leave to the home screen
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("ctrl+q")
        await pilot.press("q")  # quit Passe altogether
        await pilot.pause()
    assert app.return_code == 0


# -- terminals ---------------------------------------------------------------


async def test_too_small_terminal_says_so(private_config: Path) -> None:
    app = make_app(private_config)
    async with app.run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.has_class("-too-small")
        message = str(screen.query_one(TooSmall).render())
        assert "Terminal too small (need 80x24, have 70x20)" in message
        await resize(pilot, *SIZE)
        await pilot.pause()
        assert not screen.has_class("-too-small")
        await pilot.press("enter")
        await pilot.pause()
        await resize(pilot, 79, 24)
        await pilot.pause()
        assert isinstance(app.screen, PassPassTableScreen)
        assert app.screen.has_class("-too-small")
        await resize(pilot, *SIZE)
        await pilot.pause()
        await pilot.pause()
        assert not app.screen.has_class("-too-small")
        assert isinstance(app.focused, HandView)  # the keys work again


async def test_no_color_is_respected(private_config: Path, monkeypatch: object) -> None:
    import os

    os.environ["NO_COLOR"] = "1"
    try:
        app = make_app(private_config)
    finally:
        del os.environ["NO_COLOR"]
    assert app.no_color
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


# -- keys at the wrong moment, help and rules ---------------------------------


async def test_a_key_at_the_wrong_moment_explains_itself(private_config: Path) -> None:
    app = make_app(private_config, seed=passpass_seed(you_lead=False), bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        view = table.pp_view
        assert isinstance(view, PassPassView) and 0 not in view.to_act
        assert not table.query_one(HandView).active
        await pilot.press("enter")
        await pilot.press("3")
        await pilot.pause()
        waiting = table.names[view.to_act[0]]
        assert f"It is not your turn: {waiting} plays now." in notices(app)
        # Nothing was played.
        assert table.pp_view is not None and len(table.pp_view.hand) == 8


async def test_help_lists_the_keys_of_the_current_screen(private_config: Path) -> None:
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        described = {description for _, description in help_screen.keys}
        assert {"Start", "Rules", "Change"} <= described
        await pilot.press("escape")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        described = {description for _, description in help_screen.keys}
        assert {"Rules", "Quit", "Help"} <= described
        assert "pick one of its cards" in help_screen.notes


async def test_rules_screen_shows_the_game_rules(private_config: Path) -> None:
    app = make_app(private_config, bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        rules = app.screen
        assert isinstance(rules, RulesScreen)
        markdown = rules.query_one(Markdown)
        assert "Pass Pass" in markdown.source
        # Every key the guide names moves the text (mutation, issue 23: the
        # "pagedown,space" binding removed left this test passing).
        scroll = rules.query_one("#rules-scroll", VerticalScroll)
        page = scroll.size.height - 1
        assert scroll.max_scroll_y > 3 * page  # long enough to page through
        for key, lines in [
            ("space", page),
            ("pagedown", page),
            ("pageup", -page),
            ("b", -page),
            ("down", 1),
            ("j", 1),
            ("k", -1),
            ("up", -1),
        ]:
            before = scroll.scroll_y
            await pilot.press(key)
            await pilot.pause()
            # A page is the view's height less one line (give or take the one).
            assert abs(scroll.scroll_y - before - lines) <= abs(lines) // 10, key
        await pilot.press("escape")
        assert isinstance(app.screen, PassPassTableScreen)


def test_play_command_options(monkeypatch: pytest.MonkeyPatch) -> None:
    """``passe play --bot-delay 0 --seed 4`` starts the app with exactly
    those, and they win over the remembered speed."""
    import tui.app
    from tui.cli import main

    started: list[dict[str, object]] = []

    def run(**options: object) -> int:
        started.append(options)
        return 0

    monkeypatch.setattr(tui.app, "run", run)
    assert main(["play", "--bot-delay", "0", "--seed", "4"]) == 0
    assert started == [{"bot_delay": 0, "seed": 4, "name": None}]
    # Before any command, they are play's, the default one's (a play-test:
    # `passe --name Hana` was refused).
    assert main(["--name", "Hana", "--seed", "5"]) == 0
    assert started[-1] == {"bot_delay": None, "seed": 5, "name": "Hana"}
    app = PasseApp(bot_delay=0, seed=4)
    assert app.bot_delay == 0 and app.seed == 4
    assert PasseApp().bot_delay == Settings().bot_delay > 0  # none given: the remembered one


async def test_the_palette_offers_only_passes_themes(private_config: Path) -> None:
    app = make_app(private_config)
    async with app.run_test(size=SIZE):
        titles = [command.title for command in app.get_system_commands(app.screen)]
        themes = [title for title in titles if "theme" in title.lower()]
        assert themes and all(title.startswith("Theme: ") for title in themes), titles
        assert len(themes) == 3


async def test_a_stale_notice_is_cleared_once_your_action_is_accepted(
    private_config: Path,
) -> None:
    game = get_game("passpass")
    config = game.make_config(players=4)
    seed = next(s for s in range(100) if game.new_game(config, s).view(None).leader == 0)
    app = make_app(private_config, seed=seed, bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        await pilot.press("9")  # eight cards: explained, nothing played
        await pilot.pause()
        assert any("Play one of your 8 cards" in text for text in notices(app))
        await pilot.press("1")
        await pilot.pause()
        view = table.pp_view
        assert view is not None and len(view.hand) == 7
        assert notices(app) == []


async def test_keys_do_nothing_behind_the_too_small_message(private_config: Path) -> None:
    app = make_app(private_config)
    async with app.run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        await pilot.press("enter", "r")  # no game starts, no rules open
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await resize(pilot, *SIZE)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        await resize(pilot, 79, 24)
        await pilot.pause()
        await pilot.press("1", "right", "enter", "r", "q", "y")
        await pilot.pause()
        view = table.pp_view
        assert app.screen is table and view is not None and len(view.hand) == 8
        await pilot.press("f1")  # help still opens
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is table
        await pilot.press("ctrl+q")  # quits at once: no dialog to answer unseen
        await pilot.pause()
    assert app.return_code == 0
    assert save_path(private_config).exists()


async def test_tab_never_takes_the_keys_away_from_the_hand(private_config: Path) -> None:
    # From the play-test: one Tab moved focus to the trick, then every digit
    # was refused ("Not now") while help still listed Tab.
    app = make_app(private_config, seed=passpass_seed(you_lead=True), bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        hand = table.query_one(HandView)
        await pilot.press("tab", "shift+tab", "tab")
        await pilot.pause()
        assert app.focused is hand
        assert any("Play one of your 8 cards" in text for text in notices(app))
        await pilot.click(TrickView)  # a click does not move the keys either
        await pilot.pause()
        assert app.focused is hand
        await pilot.press("2")
        await pilot.pause()
        view = table.pp_view
        assert view is not None and len(view.hand) == 7
        await pilot.press("f1")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert all("tab" not in key.lower() for key, _ in help_screen.keys)


async def test_a_refusal_reads_in_words_not_seat_numbers(private_config: Path) -> None:
    # From the play-test: a key landing as a bot's move ended showed the
    # engine's "it is not seat 1's turn to act".
    app = make_app(private_config, seed=passpass_seed(you_lead=False), bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        view = table.pp_view
        assert view is not None and 0 not in view.to_act
        await table.submit(Play(view.hand[0]))  # as if the view had said "your turn"
        await pilot.pause()
        waiting = table.names[view.to_act[0]]
        assert notices(app) == [f"It is not your turn: {waiting} plays now."]


async def test_a_dialog_waits_for_the_command_palette_to_close(private_config: Path) -> None:
    # From the play-test: an end-of-round dialog was drawn over the open palette.
    from textual.command import CommandPalette

    from core.passpass.model import RoundScored
    from tui.screens.round_end import RoundEndScreen

    app = make_app(private_config, bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen) and table.pp_view is not None
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        table._show_round_end(table.pp_view, RoundScored(1, (0,) * 4, (0,) * 4))
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RoundEndScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert on_top(app) is table


async def test_help_at_80x24_opens_on_the_keys_and_says_there_is_no_undo(
    private_config: Path,
) -> None:
    from textual.containers import VerticalScroll
    from textual.widgets import Static

    app = make_app(private_config, bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        title = help_screen.query_one(".dialog-title", Static)
        keys_title = help_screen.query_one("#keys-title", Static)
        assert keys_title.region.y == title.region.y + 1  # no blank lines first
        assert "There is no undo" in help_screen.notes
        # The notes wrap to the dialog, not at the guide's own line ends.
        assert '"Confirm" to yes on the home screen' in " ".join(help_screen.notes.split())
        scroll = help_screen.query_one(VerticalScroll)
        assert scroll.region.bottom <= SIZE[1] - 1  # above the footer


async def test_confirm_plays_asks_before_a_card_is_played(private_config: Path) -> None:
    from tests.tui.conftest import write_settings
    from tui.screens.choice import ChoiceScreen
    from tui.screens.table import CONFIRM_CHOICE

    write_settings(private_config, confirm_plays=True)
    app = make_app(private_config, seed=passpass_seed(you_lead=True), bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen) and table.confirm_plays
        view = table.pp_view
        assert view is not None
        await pilot.press("3")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen) and dialog.kind == CONFIRM_CHOICE
        assert str(view.hand[2]) in dialog.choice_title
        await pilot.press("escape")  # changed my mind: nothing is played
        await pilot.pause()
        assert on_top(app) is table
        current = table.pp_view
        assert current is not None and len(current.hand) == 8
        assert table.query_one(HandView).active
        await pilot.press("3", "enter")  # asked again; Enter says yes
        await pilot.pause()
        await pilot.pause()
        current = table.pp_view
        assert current is not None and view.hand[2] not in current.hand


async def test_confirm_plays_is_set_on_the_home_screen(private_config: Path) -> None:
    # Issue 18 item 8: every table's help pointed at a home setting that
    # did not exist (it was only in settings.json).
    import json

    from tui.widgets.chooser import Chooser

    app = make_app(private_config, seed=passpass_seed(you_lead=True), bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        home = app.screen
        assert isinstance(home, HomeScreen)
        confirm = home.query_one("#confirm-plays", Chooser)
        assert confirm.label == "Confirm" and confirm.value is False
        for _ in range(12):
            if app.focused is confirm:
                break
            await pilot.press("down")
        assert app.focused is confirm
        await pilot.press("right")
        assert confirm.value is True
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen) and table.confirm_plays
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        keys = {description: key for key, description in help_screen.keys}
        assert keys["Play card by number"] == "1-8", help_screen.keys
    assert json.loads(private_config.read_text())["confirm_plays"] is True


async def test_number_keys_shown_are_those_that_act_now(private_config: Path) -> None:
    # Issue 18 item 8: help said "1-8" and "1-6 Pick card" where 1-3 acted.
    from tests.tui.conftest import footer_keys
    from tui.screens.choice import ChoiceScreen

    app = make_app(private_config, seed=passpass_seed(you_lead=True), bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        hand = table.query_one(HandView)
        hand.set_items(hand.items[:3])  # three cards left
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        keys = {description: key for key, description in help_screen.keys}
        assert keys["Play card by number"] == "1-3", help_screen.keys
        await pilot.press("escape")
        await pilot.pause()
        dialog = ChoiceScreen("Which?", "", ["one", "two"], kind="test")
        app.push_screen(dialog)
        await pilot.pause()
        shown = {
            active.binding.description: app.get_key_display(active.binding)
            for active in dialog.active_bindings.values()
        }
        assert shown["Choose by number"] == "1-2", shown
        # The footer is recomposed after the screen change (a later message
        # on 3.13 than on 3.11): wait for it, up to a bound.
        for _ in range(100):
            if any(description == "Choose by number" for description, _ in footer_keys(app)):
                break
            await pilot.pause(0.02)
        assert any(description == "Choose by number" for description, _ in footer_keys(app))


async def test_a_choice_marks_the_option_the_keys_go_to_not_by_colour_alone(
    private_config: Path,
) -> None:
    """The highlighted option carries a ▸, as a Chooser's row does (the LAN's
    rooms were told apart by a shade alone: nothing without colour), and the
    marker follows ↑/↓; Enter chooses the marked one."""
    from textual.widgets import OptionList

    from tui.screens.choice import ChoiceScreen

    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        chosen: list[int | None] = []
        dialog = ChoiceScreen("Which?", "", ["one", "[b]two[/b]"], kind="test")
        app.push_screen(dialog, chosen.append)
        await pilot.pause()
        options = dialog.query_one(OptionList)

        def shown() -> list[str]:
            return [str(options.get_option_at_index(n).prompt) for n in range(2)]

        assert shown() == ["▸ 1) one", "  2) [b]two[/b]"]
        await pilot.press("down")
        assert shown() == ["  1) one", "▸ 2) [b]two[/b]"]  # text, never markup
        await pilot.press("enter")
        await pilot.pause()
        assert chosen == [1]


async def test_a_round_summary_closed_twice_leaves_the_table_open(private_config: Path) -> None:
    """Found by hand (4 December, two players over the network): Enter
    pressed twice at a round's summary reached the summary twice, and
    Textual's dismiss pops whatever is on top: the second closed the table
    itself. A dialog no longer on top now does nothing."""
    from tui.screens.round_end import RoundEndScreen

    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")  # a game
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        table.show_round_end("End of round 1", "scores")
        await pilot.pause()
        summary = app.screen
        assert isinstance(summary, RoundEndScreen)
        summary.action_close()
        summary.action_close()  # the second key, queued before it went
        await pilot.pause()
        assert on_top(app) is table
        assert table.round_end_title == ""  # its callback ran, once


async def test_the_same_notice_again_replaces_the_one_shown(private_config: Path) -> None:
    """A key pressed again at the wrong moment says the same thing again:
    one note, not a stack of copies over the table (found by hand: four
    "Take two cards" covered half the screen). Another note, or the same
    words as a warning, is its own."""
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(4):
            app.notify("Select two offer cards first.", title="Take two cards")
            await pilot.pause()
        app.notify("Select two offer cards first.", title="Take two cards", severity="warning")
        app.notify("Another note.", title="Take two cards")
        await pilot.pause()
        shown = [(n.message, n.severity) for n in app._notifications]
        assert shown == [
            ("Select two offer cards first.", "information"),
            ("Select two offer cards first.", "warning"),
            ("Another note.", "information"),
        ], shown


async def test_settings_chosen_on_the_home_screen_are_remembered_when_quitting(
    private_config: Path,
) -> None:
    """The game, its players and the name chosen, then q (or ctrl+q): the
    next start shows them (found by a play-test: only a game's start
    saved them)."""
    for quit_key in ("q", "ctrl+q"):
        app = make_app(private_config)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("right")  # Pass Pass -> dominoes
            await pilot.pause()
            await pilot.press("down", "right")  # its players
            await pilot.pause()
            players = app.screen.query_one("#players").value  # type: ignore[attr-defined]
            await pilot.press(quit_key)
            await pilot.pause()
        saved = json.loads(private_config.read_text(encoding="utf-8"))
        assert saved["game"] == "dominoes" and saved["players"]["dominoes"] == players, quit_key
        private_config.unlink()


async def test_ctrl_c_says_which_key_quits_in_plain_words(private_config: Path) -> None:
    """ctrl+c does not quit (it copies in a text field): the note says
    which key does, without markup shown as text (found by a play-test:
    "Press [b]ctrl+q[/b] to quit the app")."""
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert notices(app) == ["Press q to quit Passe"]  # home: q quits


async def test_the_bot_delay_given_for_a_run_is_the_speed_shown_until_another_is_chosen(
    private_config: Path,
) -> None:
    """``passe play --bot-delay 3``: home shows "3 s (this run)" (found by a
    play-test: it said "normal (0.8 s)" while the bots waited 3 s), and
    does not remember it for later runs; a speed chosen there replaces it,
    for this run and the next."""
    from tui.widgets.chooser import Chooser

    app = make_app(private_config, bot_delay=3.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        speed = app.screen.query_one("#bot-speed", Chooser)
        assert speed.options[speed.index] == ("3 s (this run)", 3.0) and app.bot_delay == 3.0
        await pilot.press("q")
    assert json.loads(private_config.read_text(encoding="utf-8"))["bot_delay"] == 0.8
    app = make_app(private_config, bot_delay=3.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        speed = app.screen.query_one("#bot-speed", Chooser)
        speed.focus()
        await pilot.press("right")  # the next speed: normal (0.8 s)
        await pilot.pause()
        assert speed.value == 0.8 and app.bot_delay == 0.8
        await pilot.press("right")  # slow (1.5 s)
        await pilot.pause()
        assert app.bot_delay == 1.5
        await pilot.press("q")
    assert json.loads(private_config.read_text(encoding="utf-8"))["bot_delay"] == 1.5


@pytest.mark.parametrize("opening", ["rules", "join"])
async def test_help_lists_passe_s_keys_not_textual_s_own(
    private_config: Path, opening: str
) -> None:
    """A play-test (6 December): F1 on the rules listed "↑ Scroll Up", "←
    Scroll Left", "^pgup Page Left", "tab Focus Next" (the scroll
    container's and the screen's own keys) beside Passe's "↑↓ Scroll"."""
    from tests.tui.conftest import write_settings

    write_settings(private_config, name="Zed")  # j asks for none first
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r" if opening == "rules" else "j")
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        words = [description for _, description in app.screen.keys]
        for textual_s in ("Scroll Up", "Scroll Left", "Page Left", "Focus Next", "Focus Previous"):
            assert textual_s not in words, words
        assert ("↑↓", "Scroll") in app.screen.keys or opening == "join"
