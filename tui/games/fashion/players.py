"""Every designer's public information: hand size, points (the running
totals: one per STAR card collected, FA-12), the bid of the round (hidden
while the auction runs: only that a bid was placed, FA-7), and the round's
order: who played in which place, who plays now and who still has to play
(FA-9). Nobody's cards are shown but your own pending bid."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.content import Content
from textual.widgets import Static

from core.fashion.state import FashionView
from tui.widgets.fit import fit, pad

NAME_WIDTH = 8


def ordinal(n: int) -> str:
    return f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


class FashionPlayers(Static):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"players--head", "players--you", "players--now"}
    DEFAULT_CSS = """
    FashionPlayers {
        border: round $primary 50%;
        border-title-color: $text;
        height: auto;
        padding: 0 0;
    }
    FashionPlayers > .players--head { color: $text-muted; }
    FashionPlayers > .players--you { text-style: bold; }
    FashionPlayers > .players--now { color: $accent; text-style: bold; }
    """

    _shown: object = None

    def on_mount(self) -> None:
        self.border_title = "Designers"

    def show(self, view: FashionView, names: Sequence[str]) -> None:
        key = (
            tuple(names),
            view.seat,  # whose view: a replay changes it (v)
            view.to_act,
            view.phase,
            view.hand_sizes,
            view.points,
            view.has_bid,
            view.bids,
            view.my_bid,
            view.auction_winner,
            view.order,
            view.current,
        )
        if key == self._shown:
            return
        self._shown = key
        head = self.get_component_rich_style("players--head")
        you = self.get_component_rich_style("players--you")
        now = self.get_component_rich_style("players--now")
        lines = [Text(f" {'Name':<{NAME_WIDTH}}  # Pt Bid  Turn", style=head, no_wrap=True)]
        auction = view.phase == "auction"
        for seat in range(view.players):
            acting = seat in view.to_act and not view.is_over
            line = Text(no_wrap=True, overflow="crop")
            line.append("▶" if acting else " ", now)
            name = pad(names[seat], NAME_WIDTH)  # in cells: CJK names too
            line.append(name, you if seat == view.seat else "")
            line.append(f" {view.hand_sizes[seat]:>2} {view.points[seat]:>2} ")
            bid = f"{self._bid(view, seat, auction):<4}"
            line.append(bid, now if seat == view.auction_winner else "")
            line.append(f" {self._turn(view, seat, auction)}")
            lines.append(line)
        if auction:
            self.border_subtitle = "auction: ✓ = bid placed"
        elif view.auction_winner is not None:
            who = fit(names[view.auction_winner], NAME_WIDTH)
            who = "you" if view.auction_winner == view.seat else who
            self.border_subtitle = Content(f"* {who} won the auction")  # a name: as text
        else:
            self.border_subtitle = ""
        self.update(Group(*lines))

    @staticmethod
    def _bid(view: FashionView, seat: int, auction: bool) -> str:
        if auction:
            if seat == view.seat and view.my_bid:
                return view.my_bid  # your own pending bid: only you see it
            if view.has_bid[seat]:
                return "✓"  # FA-7: placed, hidden until all are revealed
            return "…" if view.hand_sizes[seat] else "-"
        bid = view.bids[seat] if seat < len(view.bids) else None
        if bid is None:
            return "-"
        return bid + ("*" if seat == view.auction_winner else "")

    @staticmethod
    def _turn(view: FashionView, seat: int, auction: bool) -> str:
        if auction or view.is_over:
            return ""
        if seat == view.current:
            return "now"
        if seat in view.order:
            return ordinal(view.order.index(seat) + 1)
        return "wait" if seat in view.waiting else ""
