"""Every seat's public information at the dominoes table: whose turn it is,
partnerships (DO-2, DO-14), how many tiles each hand holds and each player's
last move this round; then the boneyard and whether drawing is allowed
(DO-4) and the run of passes that ends a round (DO-11). Tiles in other
hands are never shown: the view does not carry them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from core.dominoes import DominoesView
from tui.plain import cells

TEAM_LETTERS = "AB"


def team_of(seat: int) -> int:
    """DO-2: partners sit opposite, seats 0+2 (team A) and 1+3 (team B)."""
    return seat % 2


class DominoPlayers(Static):
    DEFAULT_CSS = """
    DominoPlayers {
        border: round $primary 50%;
        border-title-color: $text;
        height: auto;
        padding: 0 1;
    }
    """

    _shown: object = None

    def on_mount(self) -> None:
        self.border_title = "Players (public)"

    def show(self, view: DominoesView, names: Sequence[str], last: Mapping[int, str]) -> None:
        key = (
            tuple(names),
            view.seat,  # whose view: a replay changes it (v)
            view.turn,
            view.hand_sizes,
            view.boneyard,
            view.passes,
            tuple(sorted(last.items())),
        )
        if key == self._shown:
            return
        self._shown = key
        table = Table(box=None, padding=(0, 1, 0, 0), pad_edge=False, expand=True)
        table.add_column("", width=1, no_wrap=True)
        if view.teams:
            table.add_column("T", width=1, no_wrap=True)
        table.add_column("Name", ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column("Tiles", width=5, justify="right", no_wrap=True)
        table.add_column("Last", width=5, justify="right", no_wrap=True)
        for seat in range(view.players):
            marker = "▶" if seat == view.turn else ""
            row: list[str | Text] = [marker]
            if view.teams:
                row.append(TEAM_LETTERS[team_of(seat)])
            you = " (you)" if seat == view.seat else ""
            row.append(Text(names[seat] + you, style="bold" if you else ""))
            row.append(str(view.hand_sizes[seat]))
            row.append(last.get(seat, ""))
            table.add_row(*cells(*row))
        if view.can_draw:
            yard = f"Boneyard {view.boneyard}: draw allowed"
        else:
            yard = f"Boneyard {view.boneyard}: no drawing (DO-4)"
        passes = f"Passes in a row: {view.passes}/{view.players} (DO-11)"
        self.update(Group(table, Text(yard, overflow="ellipsis"), Text(passes, style="dim")))
