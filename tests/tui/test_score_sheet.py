"""The Pass Pass score sheet, including a game won at once (PP-19)."""

from __future__ import annotations

from rich.console import Console

from tests.passpass.rig import play, rig
from tui.widgets.score_sheet import render_sheet


def text_of(renderable: object) -> str:
    console = Console(width=60, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_immediate_victory_shows_the_decisive_rounds_pass_pass() -> None:
    state = rig(["Y12 Y1", "V2 Y2", "B2 Y3"], won=["V5 B5 G5", "", ""], leader=0)
    state.team_pass_pass[0] = 2  # two checked in earlier rounds
    play(state, "Y12", "V2", "B2", "pick Y12")
    assert state.is_over
    text = text_of(render_sheet(state.view(0), ["Me", "Ada", "Bruno"]))
    me = next(line for line in text.splitlines() if line.startswith("Me"))
    assert "–/1" in me  # round 1 (unscored): one Pass Pass, the third overall
    assert "won at once by a third Pass Pass" in text


def test_sheet_in_progress_has_no_decisive_round() -> None:
    state = rig(["Y12 Y1", "V2 Y2", "B2 Y3"], leader=0)
    text = text_of(render_sheet(state.view(0), ["Me", "Ada", "Bruno"]))
    assert "–/" not in text and "won at once" not in text
