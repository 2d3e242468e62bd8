"""The offer (FA-5): three cards face up; on your turn select two and take
them (FA-10). Below the cards, the deck, the discard pile and how often the
deck has run out (FA-14)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from tui.games.fashion.card_row import FashionCardRow


class FashionOffer(FashionCardRow):
    DEFAULT_CSS = """
    FashionOffer {
        border: round $primary 50%;
        border-title-color: $text;
        height: 6;
        width: 1fr;
        padding: 0 0;
    }
    FashionOffer:focus { border: round $accent; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # Shown: the footer has every key that works now (issue 18).
        Binding("up,k,left,h", "move(-1)", "Move", key_display="↑↓"),
        Binding("down,j,right,l", "move(1)", "Move", show=False),
        Binding("space", "select_card", "Select", key_display="space"),
        Binding("enter", "confirm", "Take the two", key_display="⏎"),
        *[
            Binding(str(n), f"select_nth({n})", "Select by number", key_display="1-3", show=False)
            for n in (1, 2, 3)
        ],
    ]

    SOURCE = "offer"
    EMPTY = "Empty: nothing left to take (FA-14)."
    HINT_LINES = 1
