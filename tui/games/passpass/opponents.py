"""Every seat's public information (PP-8): hand size, colour counts V/B/G/Y,
won cards, round points and Pass Pass. Values in hands are never shown."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from core.passpass.state import PassPassView
from tui.plain import cells

TEAM_LETTERS = "ABCDEFGH"


class OpponentsPanel(Static):
    DEFAULT_CSS = """
    OpponentsPanel {
        border: round $primary 50%;
        border-title-color: $text;
        height: auto;
        padding: 0 0;
    }
    """

    def on_mount(self) -> None:
        self.border_title = "Players (public)"

    _shown: object = None

    def show(self, view: PassPassView, names: Sequence[str]) -> None:
        key = (
            tuple(names),
            view.seat,  # whose view: a replay changes it (v)
            view.to_act,
            view.is_over,
            view.hand_sizes,
            view.colour_counts,
            tuple(len(pile) for pile in view.won),
            view.round_points,
            view.pass_pass_round,
        )
        if key == self._shown:
            return
        self._shown = key
        table = Table(box=None, padding=(0, 0), pad_edge=False, expand=True, show_edge=False)
        table.add_column("", width=1, no_wrap=True)
        if view.teams:
            table.add_column("T", width=2, no_wrap=True)
        table.add_column("Name", ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column("#", width=2, justify="right", no_wrap=True)
        for letter in "VBGY":
            table.add_column(letter, width=2, justify="right", no_wrap=True)
        table.add_column("Won", width=4, justify="right", no_wrap=True)
        table.add_column("Pt", width=3, justify="right", no_wrap=True)
        table.add_column("PP", width=3, justify="right", no_wrap=True)
        for seat in range(view.players):
            marker = "▶" if seat in view.to_act and not view.is_over else ""
            name = Text(names[seat], style="bold" if seat == view.seat else "")
            counts = view.colour_counts[seat]
            row: list[str | Text] = [marker]
            if view.teams:
                row.append(TEAM_LETTERS[view.team_of[seat]])
            row.append(name)
            row.append(str(view.hand_sizes[seat]))
            row.extend(str(count) for count in counts)
            row.append(str(len(view.won[seat])))
            row.append(str(view.round_points[seat]))
            row.append(str(view.pass_pass_round[seat]))
            table.add_row(*cells(*row))
        self.update(table)
