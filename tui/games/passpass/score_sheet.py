"""The Pass Pass score sheet: points and Pass Pass per round, and totals.
In team mode one line per team, and who represented it each round (PP-23).
The round in progress shows its running figures, dim (PP-18); in team mode
both partners' figures until the team chooses who scores (PP-23). The last
column is the total so far, the round in progress included (issue 18: a
"Tot" of 0/0 all through round 1 read as if nothing counted yet)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from core.passpass.state import PassPassView
from tui.games.passpass.opponents import TEAM_LETTERS
from tui.plain import cells
from tui.widgets.fit import fit

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
            view.representatives,
            view.phase,
        )
        if key != self._shown:
            self._shown = key
            self.update(render_sheet(view, names))


def members(view: PassPassView, team: int) -> list[int]:
    return [seat for seat in range(view.players) if view.team_of[seat] == team]


def decisive_pass_pass(view: PassPassView, team: int) -> int:
    """The Pass Pass checked in the round that ended the game at once
    (PP-19), per team the better partner's (PP-24: one player's count)."""
    return max(view.pass_pass_round[seat] for seat in members(view, team))


def figures(view: PassPassView, seat: int) -> str:
    return f"{view.round_points[seat]}/{view.pass_pass_round[seat]}"


def render_sheet(view: PassPassView, names: Sequence[str]) -> Group:
    """The sheet as a Rich renderable (also used by the end-of-game screen)."""
    table = Table(box=None, padding=(0, 0), pad_edge=False, expand=True, show_edge=False)
    table.add_column("", ratio=1, no_wrap=True, overflow="ellipsis")
    for number in range(1, ROUNDS + 1):
        table.add_column(f"R{number}", width=5, justify="right", no_wrap=True)
    # During the game the last column says "So far": it counts the round
    # in progress (below); "Tot" once the game is over. Team rows may read
    # "12+?/1+?" until the team chooses who scores: a cell more (team
    # labels are short).
    table.add_column(
        "Tot" if view.is_over else "So far",
        width=6 if view.is_over else 8 if view.teams else 7,
        justify="right",
        no_wrap=True,
    )
    # PP-19/PP-24: a game won at once leaves its last round unscored; show
    # that round's Pass Pass (points are not counted) so the win is visible,
    # and count it in the total: it is checked on the sheet at once (PP-18).
    result = view.result
    decisive = view.round if result is not None and result.immediate else None
    # PP-18: a Pass Pass is checked at once, mid-round; the round not yet
    # scored shows its running figures, dim. In team mode they belong to
    # nobody until the team chooses who scores (PP-23): the partners'
    # figures are listed side by side below the table instead.
    running = view.round if not view.is_over else None
    for team in range(len(view.totals)):
        # A name is a Text, never a markup string: "[/]" is a name (issue 19).
        line: list[str | Text] = [Text(team_label(view, names, team))]
        points_total, pass_pass_total = view.totals[team], view.pass_pass_totals[team]
        pending = False  # the round's figures are not the team's yet (PP-23)
        for number in range(1, ROUNDS + 1):
            row = next((r for r in view.sheet if r.round == number), None)
            if row is not None:
                line.append(f"{row.points[team]}/{row.pass_pass[team]}")
            elif number == decisive:
                checked = decisive_pass_pass(view, team)
                pass_pass_total += checked
                line.append(f"–/{checked}")
            elif number == running:
                chosen = chosen_seat(view, team)
                if chosen is None:
                    pending = True
                    line.append(Text("?", style="dim"))
                else:
                    # PP-18: Pass Pass are checked at once, so they count
                    # in the total at once; the points are those the won
                    # cards are worth now (PP-20: scored at the round's end).
                    points_total += view.round_points[chosen]
                    pass_pass_total += view.pass_pass_round[chosen]
                    line.append(Text(figures(view, chosen), style="dim"))
            else:
                line.append("")
        total = f"{so_far(points_total, pending)}/{so_far(pass_pass_total, pending)}"
        line.append(Text(total, style="bold"))
        table.add_row(*cells(*line))
    parts: list[Table | Text] = [table]
    if decisive is not None:
        parts.append(
            Text(
                f"R{decisive}: won at once by a third Pass Pass; points not counted.",
                style="dim",
                overflow="ellipsis",
            )
        )
    if view.teams and running is not None:
        parts.extend(candidates_lines(view, names, running))
    if view.teams and view.sheet:
        reps = "; ".join(
            f"R{row.round} " + ", ".join(fit(names[seat], 6) for seat in row.representatives)
            for row in view.sheet
        )
        parts.append(Text(f"Scored by: {reps}", style="dim", overflow="ellipsis", no_wrap=True))
    return Group(*parts)


def so_far(total: int, pending: bool) -> str:
    """A team's total while the round's figures are not yet its own (PP-23):
    "12+?", or "?" alone where nothing is counted yet (a first round's
    "0+?" read as a sum to be done, a play-test)."""
    if not pending:
        return str(total)
    return f"{total}+?" if total else "?"


def chosen_seat(view: PassPassView, team: int) -> int | None:
    """The partner whose figures the team scores this round, once chosen
    (PP-23); in individual mode the seat itself."""
    if not view.teams:
        return team
    if team < len(view.representatives):
        return view.representatives[team]
    return None


def candidates_lines(view: PassPassView, names: Sequence[str], number: int) -> list[Text]:
    """Per team, both partners' figures this round (pts/PP): "R2 A: Ada 5/1,
    Cleo 3/0"; at the end of the round "R2 A choosing: ..." until the team
    chooses who scores (PP-23), then a ✓ marks that partner. The sheet's
    cell for the round reads "?" until then."""
    lines: list[Text] = []
    choosing = view.phase == "represent"
    for team in range(len(view.totals)):
        chosen = chosen_seat(view, team)
        partners = ", ".join(
            ("✓" if seat == chosen else "") + f"{fit(names[seat], 6)} {figures(view, seat)}"
            for seat in members(view, team)
        )
        state = " choosing" if choosing and chosen is None else ""
        text = f"R{number} {TEAM_LETTERS[team]}{state}: {partners}"
        lines.append(Text(text, style="dim", overflow="ellipsis", no_wrap=True))
    return lines
