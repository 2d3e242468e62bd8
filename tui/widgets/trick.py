"""The trick on the table: the cards played in order, each under its player's
name, with the resolution in words (majority colour, first and second winner,
what was picked and taken). The last resolved trick stays shown until the next
card is played. When you are the first winner, you pick a card here."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Static

from tui.widgets.card_row import CardRow
from tui.widgets.card_slot import CardSlot


class TrickView(CardRow):
    DEFAULT_CSS = """
    TrickView {
        border: round $primary 50%;
        border-title-color: $text;
        padding: 0 1;
        height: 8;
    }
    TrickView:focus { border: round $accent; }
    TrickView > #summary { height: 2; color: $text; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "move(-1)", "Left", key_display="←"),
        Binding("right,l", "move(1)", "Right", key_display="→"),
        Binding("enter,space", "choose", "Pick card", key_display="⏎"),
        *[
            Binding(str(n), f"choose_nth({n})", "Pick card by number", show=False)
            for n in range(1, 7)
        ],
    ]

    SOURCE = "trick"
    SLOTS = 6

    def compose(self) -> ComposeResult:
        with Horizontal():
            for _ in range(self.SLOTS):
                yield CardSlot()
        yield Static("", id="summary")

    def set_summary(self, text: str) -> None:
        self.query_one("#summary", Static).update(text)
