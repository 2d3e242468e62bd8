"""The Pass Pass trick panel at 80x24, found by a play-tester:

- a game won at the first winner's pick (a third Pass Pass, PP-19; a
  team's, PP-24) ends before the second winner takes (PP-14): its last
  trick showed only the cards left on the table, the kept one gone, with
  no "→" and no word of why the second winner "took nothing" (in replay,
  and under the game-over screen);
- names over and under the trick's cards were cut to the card's five
  columns ("→Bru…", "3 Br… 4 Cl…") with some thirty columns free: they are
  whole where the row has the room, and shortened with "…" only where it
  has not (the card row's :func:`slot_widths`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from core.engine import View
from core.passpass.model import COLOURS, Card
from core.passpass.state import PassPassView
from tests.core.notation_checks import played
from tests.tui import conftest
from tests.tui.conftest import SIZE, make_app, save_when
from tests.tui.test_passpass_progress import (
    SHORT_NAMES,
    at_the_saved_table,
    continued,
    seen_in,
    text_of,
)
from tui.app import PasseApp
from tui.games.passpass.card import CARD_WIDTH
from tui.games.passpass.card_row import CURSOR_MARK, slot_widths
from tui.games.passpass.table import NOBODY, PassPassTableScreen
from tui.games.passpass.trick import TrickView
from tui.records import game_file, load_replay, save_record, shown_names
from tui.screens.game_over import GameOverScreen
from tui.screens.info import InfoScreen
from tui.screens.replay import ReplayTableScreen, replay_screen
from tui.widgets.fit import fit

# Sixteen cells: the longest name a screen shows (net/protocol/text.py).
LONGEST_NAMES = ("You", "Bartholomew-Jean", "Wilhelmina-Grace", "Maximilian-Ulric")


# -- the room for the names (the card row) -----------------------------------


def test_the_slots_are_a_card_wide_where_the_labels_fit_in_one() -> None:
    # The hand's 8 cards at 80 columns, and a trick of short names: as ever.
    assert slot_widths([1] * 8, 47) == [CARD_WIDTH] * 8
    assert slot_widths([3, 5, 4, 3], 47) == [CARD_WIDTH] * 4
    assert slot_widths([], 47) == []


def test_the_slots_widen_evenly_for_labels_that_fit_the_row() -> None:
    # "3 Bruno", "→Bruno": the cards stay evenly spaced, a little apart.
    assert slot_widths([5, 5, 7, 6], 47) == [7] * 4
    assert slot_widths([5, 5, 7, 6], 0) == [7] * 4  # not laid out yet: whole
    # Not evenly, but whole: the long one has the room, the short one a card.
    assert slot_widths([3, 40], 47) == [CARD_WIDTH, 40]


def test_where_the_labels_do_not_fit_the_longest_give_way_first() -> None:
    # Forty-character names: the short labels stay whole, the long ones
    # share what is left, and the row never exceeds the room.
    widths = slot_widths([5, 40, 40, 40], 47)
    assert widths[0] == CARD_WIDTH and sum(widths) + 3 == 47
    assert max(widths[1:]) - min(widths[1:]) <= 1
    widths = slot_widths([6, 40, 7, 40, 4], 47)
    assert widths[0] == 6 and widths[2] == 7 and widths[4] == CARD_WIDTH
    assert sum(widths) + 4 == 47
    # No room even for the cards: a card wide each (the row is cropped).
    assert slot_widths([40] * 6, 20) == [CARD_WIDTH] * 6


def you_pick_from_the_trick(view: View) -> bool:
    """Your pick as first winner (PP-13): the cards show the digit that
    picks them and their player's name."""
    assert isinstance(view, PassPassView)
    return view.phase == "pick" and view.resolution is not None and len(view.trick) == 4


def after_brunos_trick(view: View) -> bool:
    """A trick resolved, Bruno (seat 2) one of its winners, its cards shown
    until the next is played."""
    assert isinstance(view, PassPassView)
    res = view.resolution
    return (
        view.phase == "play"
        and not view.trick
        and res is not None
        and 2 in (res.first_winner, res.second_winner)
    )


def trick_lines(pilot: Pilot[Any], table: PassPassTableScreen) -> list[str]:
    """The trick panel's lines as seen: names, two lines of cards, tags,
    then the two lines of words."""
    return seen_in(pilot, table.query_one(TrickView))


async def test_the_names_over_a_trick_to_pick_from_are_whole_at_80_columns(
    private_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found at 80x24: "3 Br… 4 Cl…" with about thirty columns free.
    monkeypatch.setattr(conftest, "NAMES", SHORT_NAMES)
    async with at_the_saved_table(private_config, you_pick_from_the_trick) as (pilot, table):
        view = table.pp_view
        trick = table.query_one(TrickView)
        assert view is not None and trick.active
        names, tops = trick_lines(pilot, table)[:2]
        for number, (item, (seat, _)) in enumerate(zip(trick.items, view.trick, strict=True), 1):
            assert item.above == f"{number} {table.names[seat]}"
            assert item.above in names, names
        assert "…" not in names
        # The cards are still one row in the panel, each face whole.
        assert tops.split() == [str(item.card) for item in trick.items]
        widths = trick.slot_widths()
        assert sum(widths) + len(widths) - 1 <= trick.content_size.width


async def test_who_got_each_card_is_said_with_the_whole_name_at_80_columns(
    private_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found at 80x24: "→Bru…".
    monkeypatch.setattr(conftest, "NAMES", SHORT_NAMES)
    async with at_the_saved_table(private_config, after_brunos_trick) as (pilot, table):
        res = table.last_trick
        assert res is not None and len(table.query_one(TrickView).items) == 4
        tags = trick_lines(pilot, table)[3]
        assert "→Bruno" in tags and "…" not in tags, tags
        for item in table.query_one(TrickView).items:
            assert item.below in tags


async def test_names_that_do_not_fit_are_shortened_with_an_ellipsis(
    private_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Four names of sixteen cells over a trick to pick from: "2 Bartholomew-
    # Jean" and the others cannot all be whole in 47 columns. They share the
    # row, shortened visibly; "1 You" stays whole; every card shows whole.
    monkeypatch.setattr(conftest, "NAMES", LONGEST_NAMES)
    async with at_the_saved_table(private_config, you_pick_from_the_trick) as (pilot, table):
        trick = table.query_one(TrickView)
        names, tops, _, tags = trick_lines(pilot, table)[:4]
        widths = trick.slot_widths()
        assert sum(widths) + len(widths) - 1 <= trick.content_size.width
        for index, (item, width) in enumerate(zip(trick.items, widths, strict=True)):
            shown = fit(item.above, width)  # as much as the slot holds, and "…"
            assert shown in names, names
            assert shown == item.above or shown.endswith("…")
            tag = CURSOR_MARK + item.below if index == trick.cursor else item.below
            assert tag in tags, tags  # "▲1st", "2nd": whole
        assert tops.split() == [str(item.card) for item in trick.items]
        assert names.count("…") == 3
        assert any(item.above.endswith(" You") and item.above in names for item in trick.items)


# -- a game won at the first winner's pick (PP-19) ----------------------------


def won_at_a_pick(players: int, teams: bool) -> tuple[Any, int]:
    """A game between random bots that ended at a first winner's pick."""
    for seed in range(300):
        state = played("passpass", players, teams, seed)
        view = state.view(None)
        if view.is_over and view.trick:
            return state, seed
    raise AssertionError("no game ended at a pick")


def keep_game(directory: Path, players: int, teams: bool) -> Path:
    state, _ = won_at_a_pick(players, teams)
    names = ("Tess", "Ada", "Bruno", "Cleo", "Dmitri", "Eve")[:players]
    kept = game_file(state.record(), names, viewer=0, result=state.result())
    path, notice = save_record(directory, kept)
    assert path is not None and notice is None
    return path


async def replay_at_the_end(pilot: Pilot[Any], path: Path, seat: int | None) -> ReplayTableScreen:
    """The replay of ``path`` at its last move (the pick that won), at
    ``seat``'s view (None: the spectator's)."""
    replay = load_replay(path)
    screen = replay_screen(replay, shown_names(replay.file), seat=seat, step=replay.steps)
    app = pilot.app
    assert isinstance(app, PasseApp)
    await app.push_screen(screen)
    await pilot.pause()
    assert app.screen is screen and screen.view is not None and screen.view.is_over
    return screen


@pytest.mark.parametrize(
    ("players", "teams", "seat"),
    [(4, False, None), (4, False, 0), (3, False, None), (5, False, 1), (4, True, None)],
)
async def test_the_last_trick_of_a_game_won_at_a_pick_shows_every_card(
    private_config: Path, tmp_path: Path, players: int, teams: bool, seat: int | None
) -> None:
    # The play-tester's repro: replay at the last move; the row showed
    # "Ada V9 · Cleo G3 · You B7" (Bruno's V1, which Ada kept, gone) and
    # "Last trick: Violet won. Ada kept V1; Bruno took nothing."
    path = keep_game(tmp_path / "records", players, teams)
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await replay_at_the_end(pilot, path, seat)
        assert isinstance(screen, PassPassTableScreen)
        view = screen.pp_view
        assert view is not None
        res = view.resolution
        assert res is not None and res.picked is not None and not res.taken
        trick = screen.query_one(TrickView)
        names, tops, _, tags = trick_lines(pilot, screen)[:4]
        # Every card of the trick, in play order, under its player's name.
        assert [item.card for item in trick.items] == [card for _, card in res.plays]
        assert tops.split() == [str(card) for _, card in res.plays]
        assert names.split() == [screen.names[s] for s, _ in res.plays]
        # Who got what: the first winner's pick; nobody the others (not "out":
        # the game ended before the second winner took, PP-15 never came).
        kept = "→" + screen.log_names[res.first_winner]
        expected = [kept if card == res.picked else NOBODY for _, card in res.plays]
        assert [item.below for item in trick.items] == expected
        assert tags.split() == expected and "out" not in tags

        # Why the second winner took nothing, all of it on the screen.
        def words() -> str:
            return " ".join(" ".join(trick_lines(pilot, screen)[4:]).split())

        def settled() -> bool:
            # The summary as the end has it, and drawn once the panel has its
            # size (CI, Python 3.13 under load, 6 December: read a refresh
            # early, its last line not drawn yet; then the summary read
            # before the end's own had replaced it).
            return "won the game at once" in trick.summary and words() == " ".join(
                trick.summary.split()
            )

        for _ in range(100):
            if settled():
                break
            await pilot.pause(0.02)
        assert settled(), (words(), trick.summary)
        summary = trick.summary
        rule = "PP-24" if teams else "PP-19"
        second = screen.acts(res.second_winner, "took", start=False)
        assert f"; {second} nothing: a third Pass Pass won the game at once ({rule})." in summary
        assert f"kept {res.picked};" in summary
        # t tells it whole: who played what, who got it, and why.
        await pilot.press("t")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, InfoScreen)
        told = text_of(dialog.body)
        assert told.count(f"nobody: the game ended first ({rule})") == players - 1
        assert "out for the round" not in told
        why = f"which wins the game at once ({rule}): the game ended before {second} any card."
        assert why in " ".join(told.split())


def your_winning_pick(view: View) -> bool:
    """Your pick as first winner, one of whose cards makes your third
    Pass Pass (PP-18, PP-19)."""
    return winning_card(view) is not None


def winning_card(view: View) -> int | None:
    """The number (from 1) of the trick's card that wins you the game."""
    assert isinstance(view, PassPassView)
    res = view.resolution
    if view.phase != "pick" or res is None or res.first_winner != 0:
        return None
    for number, (_, card) in enumerate(view.trick, start=1):
        won: list[Card] = [*view.won[0], card]
        count = min(sum(1 for c in won if c.colour == colour) for colour in COLOURS)
        if count > view.pass_pass_round[0] and view.pass_pass_totals[0] + count >= 3:
            return number
    return None


async def test_under_the_game_over_screen_the_winning_trick_shows_every_card(
    private_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same at your own table: you keep the card of your third Pass Pass
    # (3 players: the second winner would have taken both others, PP-14).
    monkeypatch.setattr(conftest, "NAMES", SHORT_NAMES)
    save_when(private_config, "passpass", your_winning_pick, players=3)
    app = make_app(private_config, bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        table = await continued(pilot)
        view = table.pp_view
        assert view is not None and view.resolution is not None
        number = winning_card(view)
        assert number is not None
        plays = view.resolution.plays
        picked = view.trick[number - 1][1]
        await pilot.press(str(number))
        for _ in range(100):  # the end is shown at once: no bot moves
            if isinstance(app.screen, GameOverScreen):
                break
            await pilot.pause()
        assert isinstance(app.screen, GameOverScreen)
        trick = table.query_one(TrickView)
        assert [item.card for item in trick.items] == [card for _, card in plays]
        assert [item.below for item in trick.items] == [
            "→you" if card == picked else NOBODY for _, card in plays
        ]
        second = table.acts(view.resolution.second_winner, "took", start=False)
        assert (
            f"You kept {picked}; {second} nothing: a third Pass Pass won the game at once (PP-19)."
        ) in trick.summary
        assert table._fits_under_trick(trick.summary)
