"""The trick on the table: the cards played in order, each under its player's
name, with the resolution in words (majority colour, first and second winner,
what was picked and taken). The last resolved trick stays shown until the next
card is played. When you are the first winner, you pick a card here."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType

from tui.games.passpass.card_row import CardRow


class TrickView(CardRow):
    DEFAULT_CSS = """
    TrickView {
        border: round $primary 50%;
        border-title-color: $text;
        padding: 0 0;
        height: 8;
    }
    TrickView:focus { border: round $accent; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # One footer entry for both arrows: room for the table's own keys.
        Binding("left,h", "move(-1)", "Move", key_display="←→"),
        Binding("right,l", "move(1)", "Move", show=False),
        Binding("enter,space", "choose", "Pick card", key_display="⏎"),
        *[
            Binding(
                str(n), f"choose_nth({n})", "Pick card by number", key_display="1-6", show=False
            )
            for n in range(1, 7)
        ],
    ]

    SOURCE = "trick"
    SLOTS = 6
    summary = ""

    def set_summary(self, text: str) -> None:
        if text != self.summary:
            self.summary = text
            self.refresh()

    def render(self) -> RenderableType:
        return Group(*self.render_cards(), Text(self.summary))
