"""Pass Pass games to their end through key presses only, at 80x24, against
bots; rounds 1 and 2 of a whole game are played in core (fast) and the last
is continued from its save."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from core.engine import View
from core.passpass.state import PassPassView
from net.authority.table import SeatSpec, Table
from net.peer.client import LocalClient, TableClient
from tests.passpass.rig import rig
from tests.tui.conftest import (
    SIZE,
    continue_game,
    make_app,
    on_top,
    play_to_end,
    save_when,
    write_settings,
)
from tui.app import PasseApp
from tui.games.passpass.table import PassPassTableScreen
from tui.games.passpass.trick import TrickView
from tui.screens.choice import ChoiceScreen
from tui.screens.game_over import GameOverScreen
from tui.screens.help import HelpScreen
from tui.screens.home import HomeScreen
from tui.screens.round_end import RoundEndScreen
from tui.session import seat_names
from tui.widgets.status_line import StatusLine


def your_turn_at(round_: int, trick: int, most_pass_pass: int) -> Callable[[View], bool]:
    """Your first turn at that trick of that round (PP-6: 3 rounds of 8
    tricks), at most ``most_pass_pass`` Pass Pass checked per side, so that
    an immediate victory (PP-19, PP-24) is no likelier than from the deal."""

    def wanted(view: View) -> bool:
        assert isinstance(view, PassPassView)
        at = (view.round, view.trick_number) == (round_, trick)
        return at and max(view.pass_pass_totals) <= most_pass_pass

    return wanted


@pytest.mark.long
async def test_individual_game_to_the_end(private_config: Path) -> None:
    # Rounds 1 and 2 are played in core (fast) and saved; round 3 by keys.
    save_when(private_config, "passpass", your_turn_at(3, 1, most_pass_pass=1))
    app = make_app(private_config, seed=11)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, HomeScreen)
        table = await continue_game(pilot)
        assert isinstance(table, PassPassTableScreen)
        over, log = await play_to_end(pilot)
        assert isinstance(over, GameOverScreen)
        view = table.pp_view
        assert isinstance(view, PassPassView) and view.is_over and view.result is not None
        assert log.plays >= 8 and log.picks >= 1
        verdict = str(over.query_one("#verdict").render())
        assert "Why:" in verdict
        # The log tells the story in words.
        assert any(line.startswith("Game over:") for line in table.game_log.lines_written)
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


@pytest.mark.long
async def test_team_game_with_representative_choices(private_config: Path) -> None:
    write_settings(
        private_config, game="passpass", players={"passpass": 4}, teams={"passpass": True}
    )
    # Rounds 1 and 2 and round 3 up to its last trick are played in core
    # (fast) and saved: by keys, the game's last trick, the team's choice of
    # its representative and the end (round 2's end by keys too cost the
    # suite 5-10 s more).
    save_when(
        private_config, "passpass", your_turn_at(3, 8, most_pass_pass=1), options={"teams": True}
    )
    app = make_app(private_config, seed=5)
    async with app.run_test(size=SIZE) as pilot:
        table = await continue_game(pilot)
        assert isinstance(table, PassPassTableScreen)
        first = table.pp_view
        assert first is not None and first.teams
        rounds_before = len(first.sheet)

        asked: list[str] = []

        def choose(screen: ChoiceScreen) -> str:
            asked.append(screen.kind)
            return "2" if len(asked) % 2 else "1"  # alternate: partner, yourself

        _, log = await play_to_end(pilot, choose=choose)
        view = table.pp_view
        assert view is not None and view.is_over
        if not view.result or not view.result.immediate:
            # Every round completed by keys asked this team for its representative.
            assert log.choices.count("represent") == len(view.sheet) - rounds_before
        assert "represent" in log.choices
        assert any("to score for the team" in line for line in table.game_log.lines_written)
        await pilot.press("a")  # play again: a fresh table with the same settings
        await pilot.pause()
        assert isinstance(app.screen, PassPassTableScreen) and app.screen is not table


class RiggedApp(PasseApp):
    """Starts a hand-built position instead of a dealt game."""

    def make_client(self, game_id: str, **options: Any) -> TableClient:
        # PP-14: you (V1) are second winner behind Ada (V12); whichever card
        # Ada picks, the lowest remaining cards tie on value (the 5s).
        state = rig(["V1", "V12", "B5", "G5", "Y5"], leader=1)
        names = seat_names(options["name"], 5)
        seats = [SeatSpec(names[0])] + [SeatSpec(names[s], "heuristic") for s in range(1, 5)]
        return LocalClient(Table.around(state, seats, bot_delay=0), 0)


async def choice_opens(pilot: Pilot[Any]) -> None:
    """Until a choice dialog is open (the bots answer at once), or 200 turns."""
    for _ in range(200):
        await pilot.pause()
        if isinstance(pilot.app.screen, ChoiceScreen):
            return


async def a_tie_to_choose(pilot: Pilot[Any]) -> PassPassTableScreen:
    """A rigged game for five started, V1 played: the person is the second
    winner among tied lowest cards, and the choice's dialog opens."""
    await pilot.press("enter")
    await pilot.pause()
    table = pilot.app.screen
    assert isinstance(table, PassPassTableScreen)
    await pilot.press("1")  # play V1
    await choice_opens(pilot)
    return table


async def test_second_winner_chooses_among_tied_lowest_cards(private_config: Path) -> None:
    write_settings(private_config, players={"passpass": 5})
    app = RiggedApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        table = await a_tie_to_choose(pilot)
        choice = app.screen
        assert isinstance(choice, ChoiceScreen) and choice.kind == "take"
        assert len(choice.options) >= 2
        wanted = choice.options[1]
        await pilot.press("2")
        await pilot.pause()
        assert app.screen is table
        view = table.pp_view
        assert view is not None and view.resolution is not None
        taken = " + ".join(f"{card} ◆" for card in view.resolution.taken)
        assert [str(card) for card in view.resolution.taken] == [
            part.split()[0] for part in wanted.split(" + ")
        ], (taken, wanted)
        assert any(line.startswith("You take ") for line in table.game_log.lines_written)


async def test_a_choice_opens_by_itself_once_per_moment(private_config: Path) -> None:
    """The second winner's dialog opens by itself when the choice comes; the
    same moment drawn again (a seat's ⚠, a notice), after the choice was put
    off or made and on its way, opens no second one: a browser tab showed a
    choice it had made already over the round's summary, stuck (CI, 6
    December). Its key, c, opens it again."""
    write_settings(private_config, players={"passpass": 5})
    app = RiggedApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        table = await a_tie_to_choose(pilot)
        assert isinstance(app.screen, ChoiceScreen)
        await pilot.press("escape")  # later
        await pilot.pause()
        assert on_top(app) is table and table.view is not None
        table.show_view(table.view, ())  # the same moment, drawn again
        await pilot.pause()
        assert on_top(app) is table
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and app.screen.kind == "take"


def last_trick_of_round_1(view: View) -> bool:
    assert isinstance(view, PassPassView)
    return view.round == 1 and view.trick_number == 8 and view.phase == "play"  # PP-6


async def test_the_status_line_waits_for_the_end_of_round_summary(private_config: Path) -> None:
    # From the play-test: behind the end-of-round dialog the status line said
    # "Waiting for Cleo to play…" while the bots were held for the summary.
    # Round 1 is played in core up to its last trick (fast) and continued.
    save_when(private_config, "passpass", last_trick_of_round_1)
    app = make_app(private_config, bot_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await continue_game(pilot)
        for _ in range(2000):
            await pilot.pause()
            screen = app.screen
            if isinstance(screen, RoundEndScreen):
                break
            if isinstance(screen, ChoiceScreen):
                await pilot.press("1")
            elif isinstance(screen, PassPassTableScreen) and screen.pp_view is not None:
                view = screen.pp_view
                if view.seat in view.to_act:
                    await pilot.press("1" if view.phase in ("play", "pick") else "c")
        else:
            raise AssertionError("no round ended")
        table = app.screen_stack[-2]
        assert isinstance(table, PassPassTableScreen)
        status = str(table.query_one(StatusLine).render())
        assert status == "End of round 1: read the summary, Enter goes on."
        await pilot.press("enter")
        await pilot.pause()
        status = str(table.query_one(StatusLine).render())
        assert "summary" not in status and status.startswith("R2 T1")


class StoodInPassPassApp(PasseApp):
    """Every event of your seat comes marked as played by a bot while you
    were away (a networked table's stand-in, Update.stood_in); the bots
    take their time, so that the trick stays open."""

    def make_client(self, game_id: str, **options: Any) -> TableClient:
        from tests.tui.test_dominoes_table import StoodInClient

        client = super().make_client(game_id, **options)
        assert isinstance(client, LocalClient)
        return StoodInClient(client.table, client.seat)


async def test_a_trick_your_bot_led_says_so(private_config: Path) -> None:
    """Back at a networked table where a bot played for you, the trick
    said "You led this trick." of the bot's lead (a play-test, 6 December):
    it says "Your bot led this trick.", as the log says "Your bot plays"."""
    app = StoodInPassPassApp(config_path=private_config, bot_delay=60.0, seed=2)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")  # the home screen's Start: Pass Pass, you lead
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        view = table.pp_view
        assert view is not None and view.to_act == (0,) and not view.trick
        await pilot.press("1")
        await pilot.pause()
        trick = table.query_one(TrickView)
        assert trick.summary == "Your bot led this trick.", trick.summary
        assert table.game_log.lines_written[-1].startswith("Your bot plays ")


async def test_page_up_reads_the_log_s_earlier_lines_and_end_follows_it_again(
    private_config: Path,
) -> None:
    """No key scrolled the game log (a play-test): PgUp and PgDn page it,
    and it stays where the person reads while new lines come; End (or
    paging back down to its end) follows the newest line again. Help
    lists the keys (the footer has no room for them at 80 columns)."""
    app = make_app(private_config, seed=1, bot_delay=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        log = table.game_log
        while log.max_scroll_y < 2 * log.scrollable_content_region.height:
            view = table.pp_view
            assert view is not None and not view.is_over
            if view.phase == "play" and 0 in view.to_act:
                await pilot.press("1")
            elif isinstance(app.screen, (ChoiceScreen, RoundEndScreen)):
                await pilot.press("1" if isinstance(app.screen, ChoiceScreen) else "enter")
            elif view.phase == "pick" and 0 in view.to_act:
                await pilot.press("left", "space")
            await pilot.pause()
        assert log.scroll_y == log.max_scroll_y  # following the newest line
        await pilot.press("pageup")
        assert log.scroll_y < log.max_scroll_y and not log.auto_scroll
        reading = log.scroll_y
        log.write("a new line")  # as the table's next event would be
        await pilot.pause()
        assert log.scroll_y == reading  # the page read stays in place
        await pilot.press("end")
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y and log.auto_scroll
        await pilot.press("pageup", "pagedown")
        assert log.auto_scroll  # paged back to the end: following again
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert ("PgUp/PgDn", "Log: earlier/later") in help_screen.keys


async def test_the_trick_panel_names_a_stand_in_as_the_log_does(private_config: Path) -> None:
    """At a networked table a bot plays for Ada while she is away: the trick
    panel's sentences name "Ada's bot", as the log does (a play-test read
    "2nd: Kim takes two." beside "second Kim's bot" in the log)."""
    from net.protocol.wire import RoomState, SeatState

    write_settings(private_config, players={"passpass": 5})
    app = RiggedApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        seats = [SeatState(name, "bot", "heuristic", "", True) for name in table.names]
        seats[0] = SeatState(table.names[0], "human", "", "", True)
        seats[1] = SeatState(table.names[1], "human", "heuristic", "", False)  # away, covered
        table._room = RoomState(
            room="ABC123", game="passpass", config={}, host="You", phase="playing",
            seats=seats, seq=1, stamp=1,
        )  # fmt: skip
        await pilot.press("1")  # play V1: Ada's V12 wins, her bot picks, you choose
        await choice_opens(pilot)
        assert isinstance(app.screen, ChoiceScreen)
        summary = table.query_one(TrickView).summary
        assert f"{table.names[1]}'s bot picked " in summary, summary
