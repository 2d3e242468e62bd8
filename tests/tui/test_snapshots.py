"""Snapshots (pytest-textual-snapshot) of the home screen, the Pass Pass table
mid-game, the help and the rules screens, in the default and the colour-blind
theme. Deterministic: fixed seed, instant bots, no clocks or random names.
Regenerate with ``pytest tests/tui --snapshot-update`` and look at the SVGs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.tui.conftest import SIZE, make_app, my_turn
from tui.games.passpass.table import PassPassTableScreen
from tui.screens.choice import ChoiceScreen
from tui.screens.round_end import RoundEndScreen

THEMES = ["passe", "passe-okabe-ito"]
SEED = 2


async def mid_game(pilot: Pilot[Any]) -> None:
    """Start the default game and play by keys until your turn in trick 3."""
    app = pilot.app
    await pilot.press("enter")
    for _ in range(500):
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, RoundEndScreen):
            await pilot.press("enter")
            continue
        if isinstance(screen, ChoiceScreen):
            await pilot.press("1")
            continue
        assert isinstance(screen, PassPassTableScreen)
        view = my_turn(screen)
        if view is None:
            await pilot.pause(0.005)
            continue
        if view.phase == "play":
            if view.trick_number >= 3:
                await pilot.press("right", "right")  # show the cursor moving
                return
            await pilot.press("1")
        elif view.phase == "pick":
            await pilot.press("enter")
    raise AssertionError("never reached trick 3")


def themed(theme: str, *then: Callable[[Pilot[Any]], Awaitable[None]]) -> Any:
    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.theme = theme
        for step in then:
            await step(pilot)
        await pilot.pause()

    return run_before


async def press_help(pilot: Pilot[Any]) -> None:
    await pilot.press("f1")


async def press_rules(pilot: Pilot[Any]) -> None:
    await pilot.press("r")
    await pilot.pause()


@pytest.mark.parametrize("theme", THEMES)
def test_home(snap_compare: Any, private_config: Path, theme: str) -> None:
    # No --bot-delay for this run: the home screen as a person opens it.
    app = make_app(private_config, seed=SEED, bot_delay=None)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme))


@pytest.mark.parametrize("theme", THEMES)
def test_passpass_table_mid_game(snap_compare: Any, private_config: Path, theme: str) -> None:
    app = make_app(private_config, seed=SEED)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, mid_game))


@pytest.mark.parametrize("theme", THEMES)
def test_help(snap_compare: Any, private_config: Path, theme: str) -> None:
    app = make_app(private_config, seed=SEED)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, mid_game, press_help))


@pytest.mark.parametrize("theme", THEMES)
def test_rules(snap_compare: Any, private_config: Path, theme: str) -> None:
    app = make_app(private_config, seed=SEED)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, mid_game, press_rules))
