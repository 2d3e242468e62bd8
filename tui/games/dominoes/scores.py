"""The dominoes score sheet: each player's (or team's, DO-14) running total
against the target (DO-13), then what each finished round scored, newest
first. Also the round summary (every hand's pip count and who scored what,
DO-12) for the end-of-round and end-of-game screens."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from core.dominoes import DominoesView
from core.dominoes.model import RoundSummary
from tui.games.dominoes.players import TEAM_LETTERS, team_of
from tui.games.dominoes.tile import tiles_text
from tui.plain import cells

REASONS = {
    "domino": "domino",
    "blocked": "blocked",
    "passes": "all passed",
}


def side_label(names: Sequence[str], side: int, teams: bool, short: bool = False) -> str:
    """A scoring side: a player, or with partnerships a team and its players."""
    if not teams:
        return names[side]
    members = [names[s] for s in range(len(names)) if team_of(s) == side]
    if short:
        return f"Team {TEAM_LETTERS[side]}"
    return f"Team {TEAM_LETTERS[side]} ({' + '.join(members)})"


def sides(view: DominoesView) -> range:
    return range(2 if view.teams else view.players)


def side_score(view: DominoesView, side: int) -> int:
    if view.team_scores is not None:
        return view.team_scores[side]
    return view.scores[side]


def round_result(summary: RoundSummary, names: Sequence[str], teams: bool) -> str:
    """Who scored in a round, in words (DO-12, DO-14)."""
    if not summary.winners:
        return "tie, nobody scores"
    if teams:
        who = side_label(names, team_of(summary.winners[0]), teams, short=True)
    else:
        who = names[summary.winners[0]]
    return f"{who} +{summary.points}"


class DominoScores(Static):
    DEFAULT_CSS = """
    DominoScores {
        border: round $primary 50%;
        border-title-color: $text;
        height: 1fr;
        padding: 0 1;
    }
    """

    _shown: object = None

    def show(
        self, view: DominoesView, names: Sequence[str], history: Sequence[RoundSummary]
    ) -> None:
        key = (tuple(names), view.scores, view.target, tuple(history))
        if key == self._shown:
            return
        self._shown = key
        self.border_title = f"Scores · target {view.target}"
        table = Table(
            box=None, padding=(0, 1, 0, 0), pad_edge=False, expand=True, show_header=False
        )
        table.add_column("", ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column("Pts", width=7, justify="right", no_wrap=True)
        for side in sides(view):
            label = side_label(names, side, view.teams)
            table.add_row(
                *cells(label, Text(f"{side_score(view, side)}/{view.target}", style="bold"))
            )
        lines: list[Text] = []
        for summary in reversed(history):
            reason = REASONS.get(summary.reason, summary.reason)
            result = round_result(summary, names, view.teams)
            lines.append(
                Text(f"R{summary.number} {reason}: {result}", style="dim", overflow="ellipsis")
            )
        if not history:
            lines.append(Text("No round finished yet.", style="dim"))
        self.update(Group(table, *lines))


def render_round(
    summary: RoundSummary,
    names: Sequence[str],
    *,
    teams: bool,
    target: int,
    you: int | None = None,
) -> RenderableType:
    """A finished round: why it ended, every hand and its pip count, who
    scored what and how (DO-10..DO-12, DO-14), and the totals after it."""
    head = f"Round {summary.number} ended"
    if summary.reason == "domino" and summary.domino is not None:
        if summary.domino == you:
            placed = "you placed your last tile"
        else:
            placed = f"{names[summary.domino]} placed their last tile"
        why = f"{head}: {placed}. Domino! (DO-10)"
    elif summary.reason == "blocked":
        why = f"{head} blocked: no tile fits and nobody may draw (DO-10)."
    else:
        why = f"{head}: everyone passed in a row, once around the table (DO-11)."
    table = Table(box=None, padding=(0, 2, 0, 0), pad_edge=False)
    table.add_column("Player", no_wrap=True, overflow="ellipsis", max_width=14)
    if teams:
        table.add_column("T", no_wrap=True)
    table.add_column("Tiles left in hand", overflow="fold", max_width=35)
    table.add_column("Pips", justify="right", no_wrap=True)
    table.add_column("Scored", justify="right", no_wrap=True)
    for seat, hand in enumerate(summary.hands):
        row: list[str | Text] = [names[seat]]
        if teams:
            row.append(TEAM_LETTERS[team_of(seat)])
        row.append(tiles_text(hand, " "))
        row.append(str(summary.counts[seat]))
        won = seat in summary.winners
        if won and teams:
            row.append(Text(f"team +{summary.points}", style="bold"))
        else:
            row.append(Text(f"+{summary.points}", style="bold") if won else Text("0"))
        table.add_row(*cells(*row))
    counts = summary.team_counts if teams and summary.team_counts else summary.counts
    if summary.winners:
        side = team_of(summary.winners[0]) if teams else summary.winners[0]
        own = counts[side]
        others = sum(counts) - own
        who = side_label(names, side, teams, short=True)
        if teams:
            rule = "the other team's pips minus its own, DO-14"
        else:
            rule = "everyone else's pips minus the lowest, DO-12"
        points = f"{summary.points} point{'s' if summary.points != 1 else ''}"
        how = f"Lowest count: {who}. Scored: {others} - {own} = {points} ({rule})."
    else:
        rule = "DO-14" if teams else "DO-12"
        how = f"Tie for the lowest count ({min(counts)}): nobody scores ({rule})."
    parts: list[RenderableType] = [Text(why), table]
    if teams and summary.team_counts:
        parts.append(
            Text(
                "Team pips: "
                + ", ".join(
                    f"{side_label(names, side, True, short=True)} {count}"
                    for side, count in enumerate(summary.team_counts)
                )
            )
        )
    parts.append(Text(how))
    # ``scores`` is per seat, a team's total repeated: seats 0 and 1 stand
    # for teams A and B.
    shown = range(2) if teams else range(len(names))
    totals = " · ".join(
        f"{side_label(names, side, teams, short=True)} {summary.scores[side]}" for side in shown
    )
    parts.append(Text(f"Totals: {totals} (target {target})", style="bold"))
    return Group(*parts)


def render_rounds(
    history: Sequence[RoundSummary], names: Sequence[str], *, teams: bool, target: int
) -> RenderableType:
    """Every finished round, in order: how it ended, who scored what, and
    each side's total after it (DO-12..DO-14); the last line is the final."""
    shown = range(2) if teams else range(len(names))
    table = Table(box=None, padding=(0, 1, 0, 0), pad_edge=False)
    table.add_column("Rnd", justify="right", no_wrap=True)
    table.add_column("Ended", no_wrap=True)
    table.add_column("Scored", no_wrap=True, overflow="ellipsis", max_width=22)
    for side in shown:
        label = side_label(names, side, teams, short=True)
        table.add_column(
            Text(label), justify="right", no_wrap=True, overflow="ellipsis", max_width=10
        )
    rounds = sorted({summary.number: summary for summary in history}.values(), key=_number)
    for index, summary in enumerate(rounds):
        last = index == len(rounds) - 1
        table.add_row(
            *cells(
                str(summary.number),
                REASONS.get(summary.reason, summary.reason),
                round_result(summary, names, teams),
                # ``scores`` per seat, a team's total repeated: seats 0 and 1
                # stand for teams A and B.
                *(Text(str(summary.scores[side]), style="bold" if last else "") for side in shown),
            )
        )
    return Group(Text(f"Round by round (totals after each round; target {target}):"), table)


def _number(summary: RoundSummary) -> int:
    return summary.number


def render_game(
    history: Sequence[RoundSummary],
    names: Sequence[str],
    *,
    teams: bool,
    target: int,
    you: int | None = None,
) -> RenderableType:
    """The end of a game: the whole round-by-round table, then the last
    round in full (every hand and how it scored)."""
    if not history:
        return Text("No round was finished.")
    last = max(history, key=_number)
    return Group(
        render_rounds(history, names, teams=teams, target=target),
        Text(""),
        render_round(last, names, teams=teams, target=target, you=you),
    )
