"""Your hand: the cards you hold, numbered for the digit keys."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from tui.games.passpass.card_row import CardRow


class HandView(CardRow):
    DEFAULT_CSS = """
    HandView {
        border: round $primary 50%;
        border-title-color: $text;
        padding: 0 0;
        height: 6;
    }
    HandView:focus { border: round $accent; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # One footer entry for both arrows: room for the table's own keys.
        Binding("left,h", "move(-1)", "Move", key_display="←→"),
        Binding("right,l", "move(1)", "Move", show=False),
        Binding("enter,space", "choose", "Play card", key_display="⏎"),
        *[
            Binding(
                str(n), f"choose_nth({n})", "Play card by number", key_display="1-8", show=False
            )
            for n in range(1, 9)
        ],
    ]

    SOURCE = "hand"
    SLOTS = 8
