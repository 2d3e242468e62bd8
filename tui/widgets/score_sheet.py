"""The Pass Pass score sheet: points and Pass Pass per round, and totals.
In team mode one line per team, and who represented it each round (PP-23).
The round in progress shows its running figures, dim (PP-18)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from core.passpass.state import PassPassView
from tui.widgets.opponents import TEAM_LETTERS

ROUNDS = 3


def team_label(view: PassPassView, names: Sequence[str], team: int) -> str:
    if not view.teams:
        return names[team]
    return f"Team {TEAM_LETTERS[team]}"


class ScoreSheet(Static):
    DEFAULT_CSS = """
    ScoreSheet {
        border: round $primary 50%;
        border-title-color: $text;
        height: auto;
    }
    """

    def on_mount(self) -> None:
        self.border_title = "Score sheet (pts/PP)"

    _shown: object = None

    def show(self, view: PassPassView, names: Sequence[str]) -> None:
        key = (
            tuple(names),
            view.round,
            view.sheet,
            view.totals,
            view.pass_pass_totals,
            view.round_points,
            view.pass_pass_round,
            view.is_over,
        )
        if key != self._shown:
            self._shown = key
            self.update(render_sheet(view, names))


def best_seat(view: PassPassView, team: int) -> int:
    """The seat whose running figures stand for ``team`` this round: the seat
    itself, or in team mode the better of its players (most Pass Pass, then
    most points), as the representative is only chosen at the end (PP-23)."""
    seats = [seat for seat in range(view.players) if view.team_of[seat] == team]
    return max(seats, key=lambda seat: (view.pass_pass_round[seat], view.round_points[seat]))


def render_sheet(view: PassPassView, names: Sequence[str]) -> Group:
    """The sheet as a Rich renderable (also used by the end-of-game screen)."""
    table = Table(box=None, padding=(0, 0), pad_edge=False, expand=True, show_edge=False)
    table.add_column("", ratio=1, no_wrap=True, overflow="ellipsis")
    for number in range(1, ROUNDS + 1):
        table.add_column(f"R{number}", width=5, justify="right", no_wrap=True)
    table.add_column("Tot", width=6, justify="right", no_wrap=True)
    # PP-19/PP-24: a game won at once leaves its last round unscored; show
    # that round's Pass Pass (points are not counted) so the win is visible.
    result = view.result
    decisive = view.round if result is not None and result.immediate else None
    # PP-18: a Pass Pass is checked at once, mid-round; the round not yet
    # scored shows its running figures, dim.
    running = view.round if not view.is_over else None
    for team in range(len(view.totals)):
        cells: list[str | Text] = [team_label(view, names, team)]
        for number in range(1, ROUNDS + 1):
            row = next((r for r in view.sheet if r.round == number), None)
            if row is not None:
                cells.append(f"{row.points[team]}/{row.pass_pass[team]}")
            elif number == decisive:
                checked = max(
                    view.pass_pass_round[seat]
                    for seat in range(view.players)
                    if view.team_of[seat] == team
                )
                cells.append(f"–/{checked}")
            elif number == running:
                seat = best_seat(view, team)
                figures = f"{view.round_points[seat]}/{view.pass_pass_round[seat]}"
                cells.append(Text(figures, style="dim"))
            else:
                cells.append("")
        cells.append(Text(f"{view.totals[team]}/{view.pass_pass_totals[team]}", style="bold"))
        table.add_row(*cells)
    parts: list[Table | Text] = [table]
    if decisive is not None:
        parts.append(
            Text(
                f"R{decisive}: won at once by a third Pass Pass; points not counted.",
                style="dim",
                overflow="ellipsis",
            )
        )
    if view.teams and view.sheet:
        reps = "; ".join(
            f"R{row.round} " + ", ".join(names[seat][:5] for seat in row.representatives)
            for row in view.sheet
        )
        parts.append(Text(f"Scored by: {reps}", style="dim", overflow="ellipsis"))
    return Group(*parts)
