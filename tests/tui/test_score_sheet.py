"""The Pass Pass score sheet, including a game won at once (PP-19)."""

from __future__ import annotations

from rich.console import Console

from core.passpass.model import Represent
from tests.passpass.rig import play, rig
from tui.games.passpass.score_sheet import render_sheet


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
    assert me.split()[-1] == "0/3"  # the total counts the decisive Pass Pass
    assert "won at once by a third Pass Pass" in text


def test_sheet_in_progress_has_no_decisive_round() -> None:
    state = rig(["Y12 Y1", "V2 Y2", "B2 Y3"], leader=0)
    text = text_of(render_sheet(state.view(0), ["Me", "Ada", "Bruno"]))
    assert "–/" not in text and "won at once" not in text


def test_the_round_in_progress_shows_its_running_figures() -> None:
    # PP-18: a Pass Pass is checked at once, mid-round.
    state = rig(["Y12 Y1", "V2 Y2", "B2 Y3"], won=["V5 B5 G5 Y5", "", ""], leader=0)
    view = state.view(0)
    assert not view.sheet and view.pass_pass_round[0] >= 1
    text = text_of(render_sheet(view, ["Me", "Ada", "Bruno"]))
    me = next(line for line in text.splitlines() if line.startswith("Me"))
    assert f"{view.round_points[0]}/{view.pass_pass_round[0]}" in me
    ada = next(line for line in text.splitlines() if line.startswith("Ada"))
    assert "0/0" in ada


def test_in_team_mode_both_partners_figures_show_until_the_team_chooses() -> None:
    # PP-23: the team scores the chosen partner's figures; until the choice
    # the sheet shows both partners', not one of them as if chosen.
    state = rig(["Y12", "V2", "B2", "G2"], teams=True, won=["", "V5 B5 G5 Y5", "", ""], leader=0)
    names = ["Me", "Ada", "Bruno", "Cleo"]
    view = state.view(0)
    team = view.team_of[1]
    partner = next(s for s in range(4) if s != 1 and view.team_of[s] == team)
    assert view.pass_pass_round[1] == 1
    text = text_of(render_sheet(view, names))
    line = next(line for line in text.splitlines() if line.startswith(f"Team {'AB'[team]}"))
    assert f"{view.round_points[1]}/1" not in line and "?" in line
    # Nothing counted yet in a first round: "?", not a sum to be done
    # ("0+?/0+?", a play-test); the "+?" follows a total there is.
    assert line.split()[-1] == "?/?", line
    state.team_totals[team], state.team_pass_pass[team] = 12, 0
    line = next(
        line
        for line in text_of(render_sheet(state.view(0), names)).splitlines()
        if line.startswith(f"Team {'AB'[team]}")
    )
    assert line.split()[-1] == "12+?/?", line
    both = next(line for line in text.splitlines() if line.startswith(f"R1 {'AB'[team]}"))
    assert f"Ada {view.round_points[1]}/1" in both and names[partner] in both


def test_a_team_choosing_its_representative_is_shown_as_choosing() -> None:
    state = rig(["Y12", "V2", "B2", "G2"], teams=True, leader=0)
    names = ["Me", "Ada", "Bruno", "Cleo"]
    state.trick_number = 7  # the last trick: the round ends after it
    play(state, "Y12", "V2", "B2", "G2", "pick Y12")
    while state.view(None).phase == "take":
        play(state, str(state.legal_actions(state.to_act[0])[0]))
    view = state.view(0)
    assert view.phase == "represent"
    text = text_of(render_sheet(view, names))
    assert "R1 A choosing: " in text and "R1 B choosing: " in text
    # Team A (Me and Bruno) chooses Bruno: his figures count, marked ✓.
    state.apply(0, Represent(2))
    view = state.view(0)
    text = text_of(render_sheet(view, names))
    team_a = next(line for line in text.splitlines() if line.startswith("Team A"))
    assert f"{view.round_points[2]}/{view.pass_pass_round[2]}" in team_a
    assert "R1 A: " in text and "✓Bruno" in text and "R1 B choosing: " in text
