"""The Passe dominoes table: a whole game through key presses only at 80x24
against heuristic bots, snapshots mid-game in the default and colour-blind
themes, no hidden information reaching the screen, and keys pressed at the
wrong moment explained (DO-4, DO-6, DO-7)."""

from __future__ import annotations

import dataclasses
import io
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console, Group
from rich.text import Text
from textual.app import App
from textual.pilot import Pilot

from core.dominoes import DominoesView, Place
from core.dominoes.model import TILES, Drew, Placed, RoundEnded, RoundStarted
from core.engine import View, plain
from net.authority.table import Listener, SeatSpec, Table, TableUpdate
from net.peer.client import LocalClient, TableClient
from tests.dominoes.rig import REST, rig
from tests.tui.conftest import (
    SIZE,
    RecordingClient,
    SpyApp,
    continue_game,
    make_app,
    on_top,
    resize,
    save_when,
    spy_until,
)
from tui.app import PasseApp
from tui.games.dominoes.hand import DIGITS, DominoHand
from tui.games.dominoes.players import DominoPlayers
from tui.games.dominoes.scores import DominoScores
from tui.games.dominoes.table import END_CHOICE, DominoesTableScreen
from tui.games.dominoes.train import DominoTrain
from tui.messages import RoomChanged
from tui.screens.choice import ChoiceScreen
from tui.screens.game_over import GameOverScreen
from tui.screens.help import HelpScreen
from tui.screens.home import HomeScreen
from tui.screens.round_end import RoundEndScreen
from tui.session import seat_names
from tui.widgets.status_line import StatusLine

THEMES = ["passe", "passe-okabe-ito"]


def text_of(renderable: Any, width: int = 76) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def notices(app: App[Any]) -> list[str]:
    return [str(notification.message) for notification in app._notifications]


async def choose_dominoes(pilot: Pilot[Any], *, players: int, teams: bool) -> None:
    """On the home screen, by keys only: the game, players, teams; start."""
    app = pilot.app
    assert isinstance(app.screen, HomeScreen)
    await pilot.press("right")  # Pass Pass -> Passe dominoes
    await pilot.pause()
    home = app.screen
    assert home.collect().game == "dominoes"
    await pilot.press("down")  # the players chooser: 4 by default
    for _ in range(4):
        if home.collect().players["dominoes"] == players:
            break
        await pilot.press("right")
    await pilot.press("down")  # the teams chooser
    if teams:
        await pilot.press("right")
    assert home.collect().teams["dominoes"] is teams
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(app.screen, DominoesTableScreen)


def my_turn(screen: DominoesTableScreen) -> DominoesView | None:
    view = screen.do_view
    if view is None or not screen.mine(view) or screen.choice_open:
        return None
    return view


class Driver:
    """Plays your seat by keys only: on each turn the tile ``places[turn %
    len(places)]`` (so the bots' seeds give known games), by digit, by
    arrows and Enter (answering the end dialog), or by arrows and [ / ] in
    turn; else draw if allowed, else pass. Round summaries are closed with
    Enter."""

    def __init__(self, pilot: Pilot[Any]) -> None:
        self.pilot = pilot
        self.turn = 0
        self.end: str | None = None  # the end wanted when a dialog asks
        self.counts = {"place": 0, "draw": 0, "pass": 0, "round_ends": 0, "end_choices": 0}

    async def play_turn(self, screen: DominoesTableScreen) -> None:
        pilot = self.pilot
        view = screen.do_view
        assert view is not None
        places = [a for a in view.legal if isinstance(a, Place)]
        turn = self.turn
        self.turn += 1
        if not places:
            kind = "draw" if view.can_draw else "pass"
            self.counts[kind] += 1
            await pilot.press(kind[0])
            return
        self.counts["place"] += 1
        action = places[turn % len(places)]
        self.end = action.end
        index = view.hand.index(action.tile)
        way = turn % 3
        if way == 0 and index < len(DIGITS):
            await pilot.press(DIGITS[index])
            return
        cursor = screen.query_one(DominoHand).cursor
        await pilot.press(*(["right"] * ((index - cursor) % len(view.hand))))
        if way == 1 or action.end is None:
            await pilot.press("enter")
        else:
            bracket = "left" if action.end == "L" else "right"
            await pilot.press(f"{bracket}_square_bracket")

    async def step(self) -> DominoesTableScreen | GameOverScreen | None:
        """One step; returns the table when it is your turn (not played),
        the end-of-game screen at the end, else None."""
        pilot = self.pilot
        await pilot.pause()
        screen = pilot.app.screen
        if isinstance(screen, GameOverScreen):
            return screen
        if isinstance(screen, RoundEndScreen):
            self.counts["round_ends"] += 1
            await pilot.press("enter")
            while pilot.app.screen is screen:
                await pilot.pause()
            return None
        if isinstance(screen, ChoiceScreen):
            assert screen.kind == END_CHOICE and len(screen.options) == 2
            self.counts["end_choices"] += 1
            await pilot.press("1" if self.end == "L" else "2")
            return None
        assert isinstance(screen, DominoesTableScreen), screen
        if my_turn(screen) is None:
            await pilot.pause(0.002)
            return None
        return screen

    async def play(self, max_steps: int = 4000, *, rounds: int | None = None) -> dict[str, int]:
        """Until the end-of-game screen, or ``rounds`` round summaries read."""
        for _ in range(max_steps):
            screen = await self.step()
            if isinstance(screen, GameOverScreen) or self.counts["round_ends"] == rounds:
                return self.counts
            if isinstance(screen, DominoesTableScreen):
                await self.play_turn(screen)
        raise AssertionError(f"the game did not end in {max_steps} steps")


def a_round_ends_near_the_target(view: View) -> bool:
    """A team within 25 of the target of 61 (DO-13, DO-14) and someone down
    to two tiles: this round ends within a few moves, and the game soon."""
    assert isinstance(view, DominoesView) and view.team_scores is not None
    return max(view.team_scores) >= 36 and min(view.hand_sizes) <= 2


async def test_partnership_game_to_the_end_by_keys(private_config: Path) -> None:
    # The early rounds are played in core (fast) and saved; the app continues
    # the save, and the end of that round and the rest of the game are by keys.
    save_when(private_config, "dominoes", a_round_ends_near_the_target, options={"teams": True})
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        table = await continue_game(pilot)
        assert isinstance(table, DominoesTableScreen)
        first = table.do_view
        assert first is not None and first.teams and first.target == 61  # DO-13, DO-14
        counts = await Driver(pilot).play()
        over = app.screen
        assert isinstance(over, GameOverScreen)
        view = table.do_view
        assert view is not None and view.is_over and view.result is not None
        assert counts["place"] >= 5 and counts["round_ends"] >= 1, counts
        assert str(over.query_one("#verdict").render()).count("Why:") == 1
        final = text_of(over.scores)
        assert "Pips" in final and "Totals:" in final and "target 61" in final
        lines = table.game_log.lines_written
        assert any(" wins the game " in line or " win the game " in line for line in lines)
        # The score sheet lists every finished round (DO-12).
        assert len(table.history) == view.rounds_played
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


# -- snapshots ---------------------------------------------------------------


async def mid_game(pilot: Pilot[Any]) -> None:
    """Three players, by keys, until your turn in round 2 with at least 8
    tiles in the train (the round 1 summary is read on the way)."""
    await choose_dominoes(pilot, players=3, teams=False)
    driver = Driver(pilot)
    for _ in range(2000):
        screen = await driver.step()
        assert not isinstance(screen, GameOverScreen)
        if screen is None:
            continue
        view = screen.do_view
        assert view is not None
        if view.round >= 2 and len(view.train) >= 8:
            await pilot.press("right", "right")  # show the cursor moving
            return
        await driver.play_turn(screen)
    raise AssertionError("never reached a long train in round 2")


def themed(theme: str) -> Any:
    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.theme = theme
        await mid_game(pilot)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.long
def test_dominoes_table_mid_game(snap_compare: Any, private_config: Path, theme: str) -> None:
    app = make_app(private_config, seed=64)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme))


# -- hidden information --------------------------------------------------------

TILE_RE = re.compile(r"\b(\d)-(\d)")


def tile_names(data: Any) -> set[str]:
    """Every tile notation (``3-5``, also inside ``3-5L``) in plain data."""
    found: set[str] = set()
    if isinstance(data, str):
        found.update(f"{a}-{b}" for a, b in TILE_RE.findall(data))
    elif isinstance(data, dict):
        for value in data.values():
            found |= tile_names(value)
    elif isinstance(data, (list, tuple)):
        for value in data:
            found |= tile_names(value)
    return found


class SpyingClient(RecordingClient):
    """Other hands and the boneyard are hidden (DO-4, DO-7)."""

    def hidden_now(self) -> set[str]:
        state: Any = self.table.state
        return {
            str(TILES[tid])
            for seat, hand in enumerate(state.hands)
            if seat != self.seat
            for tid in hand
        } | {str(TILES[tid]) for tid in state.boneyard}


def public_part(view: DominoesView) -> Iterable[Any]:
    """The view without ``last_round``: the previous round's hands are shown
    at its end (DO-12), and those tiles may now be dealt to anyone."""
    data = plain(view)
    data.pop("last_round")
    return data  # type: ignore[no-any-return]


def draw_late_in_round_3(view: View) -> bool:
    """Round 3 with a long train, nothing to place but the boneyard open
    (DO-7), and Ada down to three tiles: you draw at once, and the round
    ends within a few moves."""
    assert isinstance(view, DominoesView)
    placeable = any(isinstance(action, Place) for action in view.legal)
    late = view.round == 3 and len(view.train) >= 10 and view.hand_sizes[1] <= 3
    return late and view.can_draw and not placeable


async def test_the_screen_never_receives_another_seats_tiles(private_config: Path) -> None:
    # Rounds 1, 2 and most of 3 are played in core (fast), every update to
    # your seat recorded and checked below as the screen's are; the screen
    # then gets the whole log so far, and by keys your draws, the end of
    # round 3 and the deal of round 4.
    spy = spy_until(SpyingClient, "dominoes", draw_late_in_round_3, players=2)
    app = SpyApp(SpyingClient, continued=spy, config_path=private_config, bot_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await choose_dominoes(pilot, players=2, teams=False)
        counts = await Driver(pilot).play(rounds=1)
        assert counts["draw"] >= 1  # drawn tiles are private (DO-7)
        table = app.screen
        assert isinstance(table, DominoesTableScreen)
        players = text_of(table.query_one(DominoPlayers).content)
        assert "Boneyard" in players
    assert app.spies == [spy]
    # The log so far, then a round's end, a deal, draws, placed tiles on the screen.
    spy.check_screen_saw((RoundEnded, RoundStarted, Drew, Placed), at_least=30)
    own_seen = 0
    for update, hidden in spy.seen:
        view = update.view
        assert isinstance(view, DominoesView) and view.seat == 0
        shown = tile_names(public_part(view))
        dealt = [i for i, event in enumerate(update.events) if isinstance(event, RoundStarted)]
        for event in update.events[dealt[-1] if dealt else 0 :]:
            shown |= tile_names(plain(event))
        leaked = shown & hidden
        assert not leaked, f"another seat's tiles reached the UI: {sorted(leaked)}"
        own_seen += len(view.hand)
    assert own_seen > 0


# -- keys at the wrong moment, illegal choices explained ------------------------


class RiggedApp(PasseApp):
    """Two players in a hand-built position: by default the train is [3║3],
    you hold 0-5 (fits no end), 2-3 (fits both) and 1-1; the boneyard holds
    two tiles, which can never be drawn (DO-4). Ada's bot waits a minute."""

    hand = "0-5 2-3 1-1"
    train = "3-3"
    boneyard = "6-6 5-6"

    def make_client(self, game_id: str, **options: Any) -> TableClient:
        state = rig([self.hand, REST], train=self.train, boneyard=self.boneyard, turn=0)
        names = seat_names(options["name"], 2)
        seats = [SeatSpec(names[0]), SeatSpec(names[1], "heuristic")]
        return LocalClient(Table.around(state, seats, bot_delay=60), 0)


async def test_wrong_moment_keys_and_illegal_choices_explain_themselves(
    private_config: Path,
) -> None:
    app = RiggedApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_dominoes(pilot, players=2, teams=False)
        table = app.screen
        assert isinstance(table, DominoesTableScreen)
        view = table.do_view
        assert view is not None and view.ends == (3, 3) and not view.can_draw
        # The footer offers pass but not draw (DO-4, DO-7).
        footer_keys = {
            key for key, b in table.active_bindings.items() if b.enabled and b.binding.show
        }
        assert "p" in footer_keys and "d" not in footer_keys
        await pilot.press("d")
        await pilot.pause()
        assert any("never be drawn (DO-4)" in text for text in notices(app))
        await pilot.press("0")  # no tenth tile: what can be done now
        await pilot.pause()
        assert any("with Enter, [ or ], or pass (p)." in text for text in notices(app))
        await pilot.press("1")  # 0-5 fits neither end
        await pilot.pause()
        assert any("[0|5] fits neither end (left 3, right 3)" in text for text in notices(app))
        assert [str(t) for t in view.hand] == ["0-5", "1-1", "2-3"]
        # 2-3 fits both ends, and both show 3: either gives the same train
        # (mirrored), so it is placed without asking which end.
        await pilot.press("right", "right", "enter")
        await pilot.pause()
        assert on_top(app) is table
        view = table.do_view
        assert view is not None and any(placed.tile.low == 2 for placed in view.train)
        assert sorted(view.ends or ()) == [2, 3]
        # Ada's turn now: every key says whose turn it is.
        for key in ("1", "enter", "p", "d", "left_square_bracket"):
            app._notifications.clear()  # each key's own: the same words replace each other
            await pilot.press(key)
            await pilot.pause()
            said = notices(app)
            assert all(n.markup is False for n in app._notifications)  # tiles: not markup
            assert len(said) == 1 and "not your turn: Ada plays now" in said[0], (key, said)
        sheet = text_of(table.query_one(DominoScores).content)
        assert "0/101" in sheet  # DO-13: 101 at two players


class TwoEndsApp(RiggedApp):
    """The train's ends show 1 and 3; 1-3 fits both, differently."""

    hand = "1-3 0-5 6-6"
    train = "1-2 2-3R"
    boneyard = "4-6 5-6"


async def test_a_tile_fitting_two_different_ends_asks_which(private_config: Path) -> None:
    app = TwoEndsApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_dominoes(pilot, players=2, teams=False)
        table = app.screen
        assert isinstance(table, DominoesTableScreen)
        view = table.do_view
        assert view is not None and view.ends == (1, 3)
        await pilot.press(str(1 + [str(t) for t in view.hand].index("1-3")))
        await pilot.pause()
        choice = app.screen
        assert isinstance(choice, ChoiceScreen) and choice.kind == END_CHOICE
        await pilot.press("2")  # the right end
        await pilot.pause()
        assert on_top(app) is table
        view = table.do_view
        assert view is not None and view.ends == (1, 1)
        assert view.train[-1].end == "R"


class LastPassApp(RiggedApp):
    """Ada has just passed (DO-11): your pass would end the round."""

    passes = 1

    def make_client(self, game_id: str, **options: Any) -> TableClient:
        client = super().make_client(game_id, **options)
        assert isinstance(client, LocalClient)
        client.table.state.passes = self.passes  # type: ignore[attr-defined]
        return client


async def test_a_pass_that_would_end_the_round_warns_first(private_config: Path) -> None:
    app = LastPassApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_dominoes(pilot, players=2, teams=False)
        table = app.screen
        assert isinstance(table, DominoesTableScreen)
        view = table.do_view
        assert view is not None and view.passes == 1 and table.mine(view)
        status = str(table.query_one(StatusLine).render())
        assert "a pass ends the round (DO-11)" in status
        await pilot.press("p")
        await pilot.pause()
        assert any("your pass ends the round" in text for text in notices(app))
        assert table.do_view is view  # nothing was submitted
        await pilot.press("p")  # a second p passes: the round ends, blocked (DO-11)
        for _ in range(100):
            await pilot.pause()
            if table.history:
                break
        assert table.history[-1].number == 1 and table.history[-1].reason == "passes"


class BigHandApp(RiggedApp):
    """Twelve tiles in your hand (after many draws): tiles 10-12 take two digits."""

    hand = "0-0 0-1 0-2 0-3 0-4 0-5 0-6 1-1 1-2 1-4 1-5 3-6"
    train = "3-3"
    boneyard = "6-6 5-6"


async def test_more_than_ten_tiles_are_chosen_with_two_digits(private_config: Path) -> None:
    app = BigHandApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_dominoes(pilot, players=2, teams=False)
        table = app.screen
        assert isinstance(table, DominoesTableScreen)
        view = table.do_view
        assert view is not None and len(view.hand) == 12
        assert [str(t) for t in view.hand].index("3-6") == 11  # tile 12
        hand = table.query_one(DominoHand)
        labels = text_of(hand.render(), width=hand.content_size.width).splitlines()
        assert labels[3].split() == ["8", "9", "10", "11", "12"]
        await pilot.press("f1")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert any("two digits" in description for _, description in help_screen.keys)
        assert "1 then 2 for tile 12" in help_screen.notes
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("1")  # waits for a second digit; the cursor is on tile 1
        await pilot.pause()
        assert hand.pending == 1 and hand.cursor == 0
        assert "Enter for tile 1" in str(hand.border_subtitle)
        assert table.do_view is view  # nothing placed yet
        await pilot.press("2")  # tile 12: 3-6 fits the 3s
        await pilot.pause()
        view = table.do_view
        assert view is not None and len(view.hand) == 11
        assert "3-6" not in [str(t) for t in view.hand] and hand.pending is None


LONG_TRAIN = (
    "0-0 0-1R 1-1R 1-2R 2-2R 2-3R 3-3R 3-4R 4-4R 4-5R 5-5R 5-6R 0-2L 6-6R 0-6R "
    "0-4R 2-4L 4-6L 1-6L 1-3L 3-5L 0-5L"
)


class LongTrainApp(RiggedApp):
    """22 tiles in the train: more than one line at 80 columns."""

    hand = "2-6 1-4 3-6"
    train = LONG_TRAIN
    boneyard = "2-5 1-5"


async def test_a_long_train_wraps_and_keeps_both_ends_labelled(private_config: Path) -> None:
    app = LongTrainApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_dominoes(pilot, players=2, teams=False)
        table = app.screen
        assert isinstance(table, DominoesTableScreen)
        view = table.do_view
        assert view is not None and len(view.train) == 22
        left, right = view.ends or (-1, -1)
        train = table.query_one(DominoTrain)
        lines = text_of(train.render(), width=train.content_size.width).splitlines()
        assert lines[0].startswith(f"◀ left end {left}")
        assert lines[0].rstrip().endswith(f"right end {right} ▶")
        assert "22 tiles" in lines[0]
        rows = [line.strip() for line in lines[1:] if line.strip()]
        assert len(rows) == 2  # wrapped, nothing hidden
        assert rows[0].startswith(f"[{left}") and rows[-1].endswith(f"{right}]")
        assert "".join(rows).count("[") == 22 and "║" in rows[0]  # doubles marked
        # At 120 columns the same train fits on one line.
        await resize(pilot, 120, 30)
        await pilot.pause()
        lines = text_of(train.render(), width=train.content_size.width).splitlines()
        assert len([line for line in lines[1:] if line.strip()]) == 1


async def test_confirm_plays_asks_before_a_tile_is_placed(private_config: Path) -> None:
    from tests.tui.conftest import write_settings
    from tui.screens.table import CONFIRM_CHOICE

    write_settings(private_config, confirm_plays=True)
    app = TwoEndsApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_dominoes(pilot, players=2, teams=False)
        table = app.screen
        assert isinstance(table, DominoesTableScreen)
        view = table.do_view
        assert view is not None
        index = [str(t) for t in view.hand].index("1-3")
        assert table.query_one(DominoHand).cursor == 0
        await pilot.press(*["right"] * index, "left_square_bracket")  # 1-3 at the left end
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen) and dialog.kind == CONFIRM_CHOICE
        assert dialog.choice_title == "Place [1|3] at the left end?"
        await pilot.press("1")  # yes
        await pilot.pause()
        current = table.do_view
        assert current is not None and current.ends == (3, 3)


async def test_the_last_move_is_highlighted_in_the_train(private_config: Path) -> None:
    app = TwoEndsApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_dominoes(pilot, players=2, teams=False)
        table = app.screen
        assert isinstance(table, DominoesTableScreen)
        view = table.do_view
        assert view is not None
        index = [str(t) for t in view.hand].index("1-3")
        await pilot.press(*["right"] * index, "right_square_bracket")  # 1-3 at the right end
        await pilot.pause()
        train = table.query_one(DominoTrain)
        newest = max(train.train, key=lambda placed: placed.order)
        assert {newest.left, newest.right} == {1, 3}
        assert str(train.border_subtitle) == "Last: You play 1-3 on the right."
        rendered = train.render()
        assert isinstance(rendered, Group)
        row = rendered.renderables[1]
        assert isinstance(row, Text)
        marked = [
            row.plain[span.start : span.end] for span in row.spans if "underline" in str(span.style)
        ]
        assert marked == ["[3|1]"]  # only the newest tile, not by colour alone


class DrawingApp(TwoEndsApp):
    """As :class:`TwoEndsApp`, and the boneyard holds three tiles: drawing
    is allowed (DO-4), so the footer has d Draw too."""

    boneyard = "4-6 5-6 5-5"


async def test_the_fullest_footer_keeps_every_key_and_f1_after_the_end_dialog(
    private_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 18: after Esc on the end dialog, with drawing allowed and (as a
    # host) b for someone away, F1 Help fell off the row, under the palette.
    from tests.tui.conftest import footer_fits, footer_keys

    monkeypatch.setattr(DominoesTableScreen, "waiting_for", lambda self: [1])  # someone away
    app = DrawingApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_dominoes(pilot, players=2, teams=False)
        table = app.screen
        assert isinstance(table, DominoesTableScreen)
        view = table.do_view
        assert view is not None and view.can_draw
        await pilot.press(str(1 + [str(t) for t in view.hand].index("1-3")))
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and app.screen.kind == END_CHOICE
        await pilot.press("escape")
        await pilot.pause()
        await pilot.pause()
        assert on_top(app) is table
        shown = [description for description, _ in footer_keys(app)]
        for wanted in ("Tile", "Place", "End", "Draw", "Pass", "Rules", "Quit", "Stand-in"):
            assert wanted in shown, shown
        assert footer_fits(app), footer_keys(app)


class StoodInClient(LocalClient):
    """A table whose every event of your seat comes marked as played by a
    bot while you were away (a networked table's stand-in, Update.stood_in)."""

    async def connect(self, listener: Listener) -> None:
        def marked(update: TableUpdate) -> None:
            ours = [i for i, e in enumerate(update.events) if getattr(e, "seat", None) == 0]
            listener(dataclasses.replace(update, by_stand_in=frozenset(ours)))

        await super().connect(marked)


class StoodInApp(RiggedApp):
    def make_client(self, game_id: str, **options: Any) -> TableClient:
        client = super().make_client(game_id, **options)
        assert isinstance(client, LocalClient)
        return StoodInClient(client.table, client.seat)


async def test_moves_a_bot_made_for_you_read_your_bot_in_your_log(private_config: Path) -> None:
    """Back at a networked table where a bot played for you, your log said
    "You play" of the bot's moves (found in a play-test, 5 December): they
    read "Your bot plays" now, and yours "You play" as before."""
    app = StoodInApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_dominoes(pilot, players=2, teams=False)
        table = app.screen
        assert isinstance(table, DominoesTableScreen)
        await pilot.press("right", "right", "enter")  # 2-3, "played" by the bot
        await pilot.pause()
        lines = table.game_log.lines_written
        assert any(line.startswith("Your bot plays 2-3") for line in lines), lines
        assert not any(line.startswith("You play") for line in lines), lines
        assert table.log_names.you == 0  # everything else still reads "you"
        # The board's last move too, as the log says it (it read "Last: You
        # play 2-3", the play-test's other finding).
        assert table.last_text.startswith("Last: Your bot plays 2-3"), table.last_text


class QuickAdaApp(RiggedApp):
    """The rigged position, Ada's bot at once."""

    def make_client(self, game_id: str, **options: Any) -> TableClient:
        client = super().make_client(game_id, **options)
        assert isinstance(client, LocalClient)
        quick = Table.around(client.table.state, client.table.seats, bot_delay=0)
        return LocalClient(quick, client.seat)


async def test_a_stand_in_s_moves_read_as_the_bot_s_for_the_others(private_config: Path) -> None:
    """At a networked table, a bot plays for Ada while she is away: the
    others read "Ada's bot plays…", not "Ada plays…" (found in a play-test,
    6 December)."""
    from net.protocol.wire import RoomState, SeatState

    app = QuickAdaApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_dominoes(pilot, players=2, teams=False)
        table = app.screen
        assert isinstance(table, DominoesTableScreen)
        seats = [SeatState("You", "human", "", "", True), SeatState("Ada", "human", "heuristic")]
        table._room = RoomState(
            room="ABC123", game="dominoes", config={}, host="You", phase="playing",
            seats=seats, seq=1, stamp=1,
        )  # fmt: skip
        await pilot.press("right", "right", "enter")  # 2-3; Ada's bot answers
        await pilot.pause(0.3)
        lines = table.game_log.lines_written
        assert lines[-2].startswith("You play 2-3"), lines
        assert lines[-1].startswith("Ada's bot "), lines
        assert table.last_text.startswith("Last: Ada's bot plays "), table.last_text
        assert not any(line.startswith("Ada plays") for line in lines)


async def test_the_moves_of_a_bot_that_took_a_left_seat_read_as_the_bot_s(
    private_config: Path,
) -> None:
    """Ada left the game and a bot took her seat: her seat's moves read
    "Ada's bot plays…", as a stand-in's do (a play-test read "Kim plays
    V10" after Kim had left), also for a player who never saw her sit (a
    returning one, whose first room state has the bot: the room says
    ``replaced``)."""
    from net.protocol.wire import RoomState, SeatState

    app = QuickAdaApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_dominoes(pilot, players=2, teams=False)
        table = app.screen
        assert isinstance(table, DominoesTableScreen)

        def room(ada: SeatState) -> RoomState:
            you = SeatState("You", "human", "", "", True)
            return RoomState(
                room="ABC123", game="dominoes", config={}, host="You", phase="playing",
                seats=[you, ada], seq=1, stamp=1,
            )  # fmt: skip

        left = SeatState("Ada", "bot", "heuristic", "", True, replaced=True)
        table.post_message(RoomChanged(room(left)))
        await pilot.pause()
        await pilot.press("right", "right", "enter")  # 2-3; Ada's bot answers
        await pilot.pause(0.3)
        lines = table.game_log.lines_written
        assert lines[-1].startswith("Ada's bot "), lines
        assert table.last_text.startswith("Last: Ada's bot plays "), table.last_text
