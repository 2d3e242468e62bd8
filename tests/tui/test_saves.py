"""Nothing is lost on a crash: a local game is saved after every change and
resumed from the home screen; a corrupt save is reported and kept aside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.engine import View
from core.passpass.state import PassPassView
from tests.tui.conftest import SIZE, footer_keys, help_fits, make_app, save_when
from tui.games.passpass.table import PassPassTableScreen
from tui.saves import save_path
from tui.screens.confirm_discard import ConfirmDiscardScreen
from tui.screens.home import HomeScreen


async def _start_and_play_two_cards(config: Path) -> tuple[object, int]:
    """Start Pass Pass, play two cards, then drop the app as a crash would."""
    app = make_app(config, seed=21)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        for _ in range(2):
            for _ in range(50):  # until it is our turn to play
                view = table.pp_view
                if view is not None and view.phase == "play" and view.seat in view.to_act:
                    break
                await pilot.pause()
            await pilot.press("1")
            await pilot.pause()
        view = table.pp_view
        assert view is not None
        return view.hand, len(table.client.record().actions)  # type: ignore[union-attr]


async def test_a_crashed_game_resumes_where_it_stopped(private_config: Path) -> None:
    hand, moves = await _start_and_play_two_cards(private_config)
    saved = json.loads(save_path(private_config).read_text())
    assert saved["record"]["game"] == "passpass"
    assert len(saved["record"]["actions"]) == moves >= 2

    app = make_app(private_config, seed=99)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert "Saved game: Pass Pass" in str(app.screen.query_one("#games").render())
        assert "Continue" in [description for description, _ in footer_keys(app)]
        assert help_fits(app), footer_keys(app)
        await pilot.press("c")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        view = table.pp_view
        assert view is not None and view.hand == hand


def third_trick_to_play(view: View) -> bool:
    """Your turn to play in trick 3 of round 1: you have played two cards."""
    assert isinstance(view, PassPassView)
    return view.round == 1 and view.trick_number == 3 and view.phase == "play"


async def test_new_game_asks_before_replacing_the_save(private_config: Path) -> None:
    save_when(private_config, "passpass", third_trick_to_play)
    before = save_path(private_config).read_text()
    app = make_app(private_config, seed=5)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDiscardScreen)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert save_path(private_config).read_text() == before
        await pilot.press("enter", "y")
        await pilot.pause()
        assert isinstance(app.screen, PassPassTableScreen)
    assert save_path(private_config).read_text() != before


@pytest.mark.parametrize(
    "content",
    [
        '{"record": {"game": "passpass", "seed": "x"}}',
        # Nested past the parser's depth: a RecursionError crashed the app.
        "[" * 100_000 + "]" * 100_000,
    ],
)
async def test_corrupt_save_is_reported_and_kept_aside(private_config: Path, content: str) -> None:
    path = save_path(private_config)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        messages = [n.message for n in app._notifications]
        assert any("saved game could not be read" in m for m in messages), messages
        await pilot.press("enter")  # no save any more: straight into a new game
        await pilot.pause()
        assert isinstance(app.screen, PassPassTableScreen)
    assert path.with_suffix(".corrupt").exists()


async def test_a_save_that_no_longer_replays_is_refused_clearly(private_config: Path) -> None:
    path = save_path(private_config)
    path.parent.mkdir(parents=True, exist_ok=True)
    seats = [{"name": n, "kind": k} for n, k in [("Me", "human")] + [("B", "random")] * 3]
    record = {"game": "passpass", "config": {"players": 4}, "seed": 1, "actions": [[0, "V1"]]}
    path.write_text(json.dumps({"record": record, "seats": seats, "seat": 0}), encoding="utf-8")
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        messages = [n.message for n in app._notifications]
        assert any("cannot be resumed" in m for m in messages), messages
        assert "Saved game" not in str(app.screen.query_one("#games").render())
    assert not path.exists() and path.with_suffix(".corrupt").exists()  # never offered again


async def test_a_resumed_game_shows_its_log_so_far(private_config: Path) -> None:
    save_when(private_config, "passpass", third_trick_to_play)
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        lines = table.game_log.lines_written
        assert lines[0].startswith("Round 1 is dealt")
        assert sum(line.startswith("You play ") for line in lines) == 2


async def test_a_game_left_before_any_move_is_replaced_without_asking(
    private_config: Path,
) -> None:
    path = save_path(private_config)
    path.parent.mkdir(parents=True, exist_ok=True)
    seats = [{"name": "Me", "kind": "human"}] + [{"name": "B", "kind": "random"}] * 3
    record = {"game": "passpass", "config": {"players": 4}, "seed": 1, "actions": []}
    path.write_text(json.dumps({"record": record, "seats": seats, "seat": 0}), encoding="utf-8")
    app = make_app(private_config, seed=4)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PassPassTableScreen)  # no "discard?" question
