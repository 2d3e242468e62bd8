"""Issue 18, "Confusing", the Pass Pass table: your won cards by colour and
what your next Pass Pass needs (PP-18); the sheet's total during a round;
how a tied trick was decided (PP-10); the Pass Pass checked, in words; the
scoring example's wording. Each at 80x24, through the screen."""

from __future__ import annotations

import contextlib
import io
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual._compositor import LayoutUpdate
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Markdown

from core.engine import View
from core.passpass.model import COLOURS, Card, Colour, PassPassChecked
from core.passpass.state import PassPassView, TrickSummary
from tests.tui import conftest
from tests.tui.conftest import SIZE, continue_game, make_app, save_when
from tui.games.passpass.score_sheet import ScoreSheet
from tui.games.passpass.table import (
    PassPassTableScreen,
    majority_text,
    second_place_text,
)
from tui.games.passpass.trick import TrickView
from tui.games.passpass.won_cards import WonCards, WonCardsPanel
from tui.screens.info import InfoScreen
from tui.screens.rules import RulesScreen
from tui.widgets.game_log import GameLog

SIX_NAMES = ("You", "Ada", "Bruno", "Cleo", "Dmitri", "Eve")
SHORT_NAMES = ("You", "Ada", "Bruno", "Cleo")
LONG_NAMES = ("You", "Bartholomew", "Wilhelmina", "Maximilian")


def screen_lines(pilot: Pilot[Any]) -> list[str]:
    """The terminal's lines as the person sees them."""
    update = pilot.app.screen._compositor.render_update(full=True)
    assert isinstance(update, LayoutUpdate)  # a full update
    return ["".join(segment.text for segment in strip) for strip in update.strips]


def seen_in(pilot: Pilot[Any], widget: Widget) -> list[str]:
    """The lines of the screen inside ``widget``'s border, as seen."""
    region = widget.content_region
    lines = screen_lines(pilot)[region.y : region.bottom]
    return [line[region.x : region.right] for line in lines]


def text_of(renderable: object, width: int = 80) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


async def continued(pilot: Pilot[Any]) -> PassPassTableScreen:
    table = await continue_game(pilot)
    assert isinstance(table, PassPassTableScreen)
    await pilot.pause()
    return table


@contextlib.asynccontextmanager
async def at_the_saved_table(
    config: Path, wanted: Callable[[View], bool], **save: Any
) -> AsyncIterator[tuple[Pilot[Any], PassPassTableScreen]]:
    """A Pass Pass game saved at the first moment ``wanted`` holds
    (save_when), continued on screen at 80x24, its bots slow enough that
    nothing moves while the test looks."""
    save_when(config, "passpass", wanted, **save)
    app = make_app(config, bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        yield pilot, await continued(pilot)


def mid_round_with_cards(view: View) -> bool:
    """Your turn mid-round, some of your won cards in two colours at least."""
    assert isinstance(view, PassPassView)
    colours = {card.colour for card in view.won[0]}
    return view.phase == "play" and len(view.won[0]) >= 3 and len(colours) >= 2


# -- your won cards (PP-18) -------------------------------------------------


@pytest.mark.parametrize(
    ("players", "teams"), [(3, False), (4, False), (5, False), (4, True), (6, True)]
)
async def test_your_won_cards_show_by_colour_with_what_the_next_pass_pass_needs(
    private_config: Path, monkeypatch: pytest.MonkeyPatch, players: int, teams: bool
) -> None:
    monkeypatch.setattr(conftest, "NAMES", SIX_NAMES)
    options = {"teams": True} if teams else None
    async with at_the_saved_table(
        private_config, mid_round_with_cards, players=players, options=options
    ) as (pilot, table):
        view = table.pp_view
        assert view is not None
        won = view.won[0]
        counts = {colour: sum(1 for card in won if card.colour == colour) for colour in COLOURS}
        missing = [colour for colour in COLOURS if counts[colour] == min(counts.values())]
        panel = table.query_one(WonCardsPanel)
        # The whole panel is on the screen, above the footer, and all it
        # chose to say fits in it (nothing cut at 80x24).
        assert panel.region.bottom <= SIZE[1] - 1
        assert 1 <= len(panel.lines) <= panel.content_size.height
        shown = "\n".join(screen_lines(pilot))
        lines = [line.plain for line in panel.lines]
        if len(lines) >= len(COLOURS):  # the cards of each colour, one line each
            for colour, line in zip(COLOURS, lines, strict=False):
                cards = sorted((c for c in won if c.colour == colour), key=lambda c: c.value)
                expected = f"{colour.label:<6} {counts[colour]:>2}"
                if cards:
                    expected += "  " + " ".join(map(str, cards))
                assert line == expected
                assert line in shown
            assert panel.border_subtitle is not None
            need = " ".join(lines[len(COLOURS) :]) + panel.border_subtitle
            assert all(c.label in need or f" {c.letter}" in need for c in missing), need
            assert not any(c.label in need for c in COLOURS if c not in missing), need
        else:  # six players in teams: the counts, then the need
            counts_text = " ".join(f"{c.letter}{counts[c]}" for c in COLOURS)
            assert lines[0].startswith(counts_text) and counts_text in shown
            assert "needs " + " ".join(c.letter for c in missing) in " ".join(lines)


async def test_the_won_cards_panel_chooses_the_fullest_layout_that_fits(
    private_config: Path,
) -> None:
    won = WonCards(
        cards=(Card(Colour.VIOLET, 3), Card(Colour.GREEN, 10), Card(Colour.GREEN, 4)),
        pass_pass=0,
        recorded=0,
    )
    assert won.need_text() == "Next Pass Pass needs blue, yellow"
    assert won.need_text(letters=True) == "Next Pass Pass needs B Y"
    # The third Pass Pass wins at once (PP-19): said before it comes.
    near = WonCards(cards=won.cards, pass_pass=0, recorded=2)
    assert near.need_text() == "Next Pass Pass wins the game; needs blue, yellow"
    empty = WonCards(cards=(), pass_pass=0, recorded=0)
    assert empty.need_text() == "Next Pass Pass: one of each colour"
    app = make_app(private_config, bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        panel = app.screen.query_one(WonCardsPanel)
        layouts = [
            [line.plain for line in panel.layout_lines(won, 29, height)[0]]
            for height in (6, 5, 4, 2, 1)
        ]
        assert layouts[0] == [
            "violet  1  V3",
            "blue    0",
            "green   2  G4 G10",
            "yellow  0",
            "Next Pass Pass needs blue,",
            "yellow",
        ]
        assert layouts[1][4:] == ["Next Pass Pass needs B Y"]
        assert layouts[2] == layouts[0][:4]
        assert panel.layout_lines(won, 29, 4)[1] == "Next PP needs B Y"  # in the border
        assert layouts[3] == ["V1 B0 G2 Y0", "Next Pass Pass needs B Y"]
        assert layouts[4] == ["V1 B0 G2 Y0 · needs B Y"]
        # Once the game is over there is no next Pass Pass to speak of.
        over = WonCards(cards=won.cards, pass_pass=0, recorded=0, over=True)
        assert [line.plain for line in panel.layout_lines(over, 29, 6)[0]] == layouts[0][:4]


# -- the sheet during a round -------------------------------------------------


def points_in_round_1(view: View) -> bool:
    assert isinstance(view, PassPassView)
    return view.phase == "play" and view.round == 1 and view.round_points[0] > 0


async def test_the_sheet_counts_the_round_in_progress_so_far(private_config: Path) -> None:
    # Issue 18: "Tot" stayed 0/0 all through round 1. PP-18: Pass Pass are
    # checked at once; the points are what the won cards are worth now.
    async with at_the_saved_table(private_config, points_in_round_1) as (pilot, table):
        view = table.pp_view
        assert view is not None and not view.sheet
        sheet = seen_in(pilot, table.query_one(ScoreSheet))
        assert sheet[0].split()[-2:] == ["So", "far"]
        for seat, name in enumerate(table.names):
            row = next(line for line in sheet if line.startswith(name))
            running = f"{view.round_points[seat]}/{view.pass_pass_round[seat]}"
            assert row.split()[-1] == running, row


def team_round_2(view: View) -> bool:
    assert isinstance(view, PassPassView)
    return view.phase == "play" and view.round == 2 and any(view.totals)


async def test_a_teams_total_so_far_waits_for_who_scores(private_config: Path) -> None:
    # PP-23: the round's figures are the team's once it chooses who scores.
    async with at_the_saved_table(private_config, team_round_2, options={"teams": True}) as (
        pilot,
        table,
    ):
        view = table.pp_view
        assert view is not None
        sheet = seen_in(pilot, table.query_one(ScoreSheet))
        for team in (0, 1):
            row = next(line for line in sheet if line.startswith(f"Team {'AB'[team]}"))
            points, pass_pass = view.totals[team], view.pass_pass_totals[team]
            # Nothing counted yet reads "?", not "0+?" (a play-test).
            total = f"{f'{points}+?' if points else '?'}/{f'{pass_pass}+?' if pass_pass else '?'}"
            assert row.split()[-1] == total, row


# -- a tied trick (PP-10) --------------------------------------------------------


def after_a_tied_trick(view: View) -> bool:
    assert isinstance(view, PassPassView)
    res = view.resolution
    return (
        view.phase == "play"
        and not view.trick
        and res is not None
        and len(res.strengths) > 1
        and res.strengths[0][1] == res.strengths[1][1]
    )


async def test_a_tied_trick_says_how_the_tie_was_broken(private_config: Path) -> None:
    # Issue 18: "Yellow wins (sums: yellow 11, violet 11). Yellow won." said
    # nothing of why yellow, and who won twice.
    save_when(private_config, "passpass", after_a_tied_trick)
    app = make_app(private_config, bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        table = await continued(pilot)
        res = table.last_trick
        assert res is not None
        await pilot.press("t")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, InfoScreen)
        words = " ".join(text_of(dialog.body).split())
        majority = res.majority.label.capitalize()
        assert f"{majority} wins (sums: " in words and "the sums tie, and " in words
        assert "(PP-10)" in words and f"{majority} won." not in words
        assert "played first" in words or "the higher card breaks it" in words
        # The log says it too, from the cards played (the story so far).
        log = " ".join(table.query_one(GameLog).lines_written)
        assert "The sums tie, and " in log


def picking_after_a_tie(view: View) -> bool:
    assert isinstance(view, PassPassView)
    res = view.resolution
    return (
        view.phase == "pick"
        and res is not None
        and len(res.strengths) > 1
        and res.strengths[0][1] == res.strengths[1][1]
    )


@pytest.mark.parametrize("names", [SHORT_NAMES, LONG_NAMES])
async def test_the_trick_panel_says_the_tie_break_when_it_fits_and_is_never_cut(
    private_config: Path, monkeypatch: pytest.MonkeyPatch, names: tuple[str, ...]
) -> None:
    # The panel has two lines under the cards: the brief tie-break where
    # it fits; with long names only who won (t tells the rest).
    monkeypatch.setattr(conftest, "NAMES", names)
    async with at_the_saved_table(private_config, picking_after_a_tie) as (pilot, table):
        trick = table.query_one(TrickView)
        seen = seen_in(pilot, trick)[-2:]  # the two lines under the cards
        words = " ".join(" ".join(seen).split())
        assert words == " ".join(trick.summary.split())  # all of it is on the screen
        assert trick.summary.endswith("takes two.")
        if names == SHORT_NAMES:
            assert "tie at " in trick.summary and "PP-10" in trick.summary


def test_the_rulebooks_tied_examples_read_with_their_tie_break() -> None:
    # The rulebook's worked examples (shared rules, "worked examples" 3 and 4).
    v10, v6, b11 = Card(Colour.VIOLET, 10), Card(Colour.VIOLET, 6), Card(Colour.BLUE, 11)
    g10, g6, g4 = Card(Colour.GREEN, 10), Card(Colour.GREEN, 6), Card(Colour.GREEN, 4)
    # 4: V10, G10, V6, G6: violet 16 and green 16, V10 and G10; V10 first.
    plays = tuple(enumerate((v10, g10, v6, g6)))
    strengths = ((Colour.VIOLET, 16), (Colour.GREEN, 16))
    assert majority_text(strengths, plays) == (
        "Violet wins (sums: violet 16, green 16): the sums tie, and so do the "
        "highest cards V10 and G10: V10 was played first (PP-10)"
    )
    assert majority_text(strengths, plays, brief=True) == (
        "Violet wins (tie at 16; V10 played first, PP-10)"
    )
    # 3: V10, B11, G4, G6: blue 11 alone; violet 10 and green 10 tie for
    # second place, V10 > G6, so violet's V10 is the second winner's.
    res = TrickSummary(
        plays=tuple(enumerate((v10, b11, g4, g6))),
        majority=Colour.BLUE,
        strengths=((Colour.BLUE, 11), (Colour.VIOLET, 10), (Colour.GREEN, 10)),
        first_winner=1,
        second_winner=0,
        picked=None,
        taken=(),
        discarded=(),
    )
    assert (
        majority_text(res.strengths, res.plays) == "Blue wins (sums: blue 11, violet 10, green 10)"
    )
    assert second_place_text(res) == (
        "Violet ranks second, so its highest card is the second winner's (PP-12): "
        "the sums tie, and the higher card breaks it: V10 over G6 (PP-10)."
    )


# -- a Pass Pass checked (PP-18) --------------------------------------------


def you_checked_a_pass_pass(view: View) -> bool:
    assert isinstance(view, PassPassView)
    return view.phase == "play" and view.pass_pass_round[0] >= 1


async def test_a_pass_pass_checked_is_said_in_a_sentence(private_config: Path) -> None:
    # Issue 18: "Pass Pass! you check one" read as an order to check
    # something. The table checks it (PP-18); say so, and how near the win.
    async with at_the_saved_table(private_config, you_checked_a_pass_pass) as (_, table):
        lines = table.query_one(GameLog).lines_written
        assert not any("check one" in line for line in lines)
        assert (
            "Pass Pass! You have won a card of each colour, so one is checked for you "
            "on the sheet (1 of 3; the third wins the game)."
        ) in lines


async def test_another_players_pass_pass_and_the_winning_one_read_right(
    private_config: Path,
) -> None:
    app = make_app(private_config, bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        ada = table.names[1]
        assert table.describe(PassPassChecked(1, 2, 2)) == (
            f"Pass Pass! {ada} has won two cards of each colour, so one is checked for "
            f"{ada} on the sheet (2 of 3; the third wins the game)."
        )
        assert table.describe(PassPassChecked(0, 1, 3)).endswith(
            "checked for you on the sheet: the third, which wins the game at once."
        )


# -- the scoring example (PP-20) ---------------------------------------------


async def test_the_scoring_example_does_not_read_as_diamonds_per_card(
    private_config: Path,
) -> None:
    # Issue 18: "6 cards with 3 diamonds: 9 points" read as 3 diamonds each.
    app = make_app(private_config, bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        rules = app.screen
        assert isinstance(rules, RulesScreen)
        source = " ".join(rules.query_one(Markdown).source.split())
        assert "6 cards, 3 diamonds among them: 9 points" in source
        assert "cards with 3 diamonds" not in source
