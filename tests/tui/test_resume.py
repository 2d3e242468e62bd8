"""Every phase is playable right after `c` continues a saved game, with the
same keys as before the crash; and a resumed game's first update (the whole
story so far) does not leak earlier rounds into the current round's summary."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from core.engine import View
from core.registry import get_game
from net.authority.table import SavedTable
from tests.tui.conftest import NAMES, SIZE, continue_game, make_app, save_when
from tui.games.dominoes.table import DominoesTableScreen
from tui.games.fashion.hand import FashionHand
from tui.games.fashion.offer import FashionOffer
from tui.games.fashion.table import FashionTableScreen
from tui.games.passpass.table import PassPassTableScreen
from tui.screens.choice import ChoiceScreen
from tui.screens.round_end import RoundEndScreen
from tui.screens.table import TableScreen


def my_moves(table: TableScreen) -> int:
    record = table.client.record()
    assert record is not None
    return sum(seat == 0 for seat, _ in record.actions)


def fashion_phase(phase: str) -> Callable[[View], bool]:
    # From round 2 on: a resumed game then carries earlier rounds' events.
    return lambda view: view.phase == phase and view.round >= 2  # type: ignore[attr-defined]


# The keys a person presses in each fashion phase (FA-7, FA-9, FA-10, FA-11).
FASHION_KEYS = {
    "auction": ("enter",),  # bid the card under the cursor
    "choose": ("1",),  # the "who plays?" list is open: the first seat
    "take": ("space", "down", "space", "enter"),  # two offer cards, take them
    "action": ("e",),  # end the turn
}


@pytest.mark.parametrize("phase", sorted(FASHION_KEYS))
async def test_every_fashion_phase_plays_right_after_continue(
    private_config: Path, phase: str
) -> None:
    save_when(private_config, "fashion", fashion_phase(phase))
    app = make_app(private_config, bot_delay=60.0)  # bots wait: only our move counts
    async with app.run_test(size=SIZE) as pilot:
        table = await continue_game(pilot)
        assert isinstance(table, FashionTableScreen)
        before = my_moves(table)
        if phase == "choose":
            assert isinstance(app.screen, ChoiceScreen)
        else:
            wanted = FashionOffer if phase == "take" else FashionHand
            assert isinstance(app.focused, wanted), app.focused
        await pilot.press(*FASHION_KEYS[phase])
        await pilot.pause()
        assert my_moves(table) == before + 1, [n.message for n in app._notifications]


async def test_pass_pass_plays_right_after_continue(private_config: Path) -> None:
    save_when(private_config, "passpass", lambda view: view.phase == "play")  # type: ignore[attr-defined]
    app = make_app(private_config, bot_delay=60.0)
    async with app.run_test(size=SIZE) as pilot:
        table = await continue_game(pilot)
        assert isinstance(table, PassPassTableScreen)
        before = my_moves(table)
        view = table.pp_view
        assert view is not None
        for number in range(1, len(view.hand) + 1):  # PP-8: not every card may follow
            await pilot.press(str(number))
            await pilot.pause()
            if my_moves(table) > before:
                break
        assert my_moves(table) == before + 1


async def test_dominoes_plays_right_after_continue(private_config: Path) -> None:
    save_when(private_config, "dominoes", lambda view: len(view.legal) > 1)
    app = make_app(private_config, bot_delay=60.0)
    async with app.run_test(size=SIZE) as pilot:
        table = await continue_game(pilot)
        assert isinstance(table, DominoesTableScreen)
        before = my_moves(table)
        await pilot.press("p")  # DO-8: passing is always allowed
        await pilot.pause()
        assert my_moves(table) == before + 1


def plain(renderable: object) -> str:
    stream = io.StringIO()
    Console(file=stream, width=80, color_system=None).print(renderable)
    return stream.getvalue()


async def test_a_resumed_round_summary_lists_each_designer_once(private_config: Path) -> None:
    # Saved in round 3 after some of its moves: the summary of round 3 must
    # list each designer once, with the points gained in the whole round.
    saved = save_when(
        private_config,
        "fashion",
        lambda view: view.phase == "action" and view.round == 3,  # type: ignore[attr-defined]
    )
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        table = await continue_game(pilot)
        assert isinstance(table, FashionTableScreen)
        assert table.round_points == points_when_round_opened(saved, 3)
        await pilot.press("e")
        for _ in range(500):
            await pilot.pause()
            if isinstance(app.screen, RoundEndScreen):
                break
        screen = app.screen
        assert isinstance(screen, RoundEndScreen), screen
        assert screen.info_title == "End of round 3"
        rows = plain(screen.body).splitlines()
        for name in NAMES:
            assert sum(row.startswith((name + " ", name + "*")) for row in rows) == 1, rows


def points_when_round_opened(saved: SavedTable, round_number: int) -> tuple[int, ...]:
    """Each designer's points as round ``round_number`` opened, replayed by
    the engine action by action (independently of the screen)."""
    game = get_game("fashion")
    state = game.new_game(game.config_from_data(saved.record.config), saved.record.seed)
    for seat, text in saved.record.actions:
        if state.view(None).round == round_number:
            break
        state.apply(seat, game.parse_action(text))
    view = state.view(None)
    assert view.round == round_number
    return view.points  # type: ignore[no-any-return]


@pytest.mark.parametrize("game_id", ["passpass", "dominoes"])
async def test_a_resumed_game_does_not_show_an_earlier_rounds_summary(
    private_config: Path, game_id: str
) -> None:
    """The first update carries the story so far (a continued game, or a
    networked seat taken back): the log gets it, but the end of round 1 is
    not news in round 2, and its summary must not open again."""
    save_when(
        private_config,
        game_id,
        lambda view: view.round >= 2 and bool(view.legal),  # type: ignore[attr-defined]
    )
    app = make_app(private_config, bot_delay=60.0)
    async with app.run_test(size=SIZE) as pilot:
        table = await continue_game(pilot)
        await pilot.pause()
        assert not isinstance(app.screen, RoundEndScreen), "an old round's summary opened"
        assert app.screen is table and not table.round_end_title
        assert any(line.startswith("Round 1") for line in table.game_log.lines_written)
