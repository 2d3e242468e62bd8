"""Your hand in Passe fashion: bid a card (FA-7), select cards for a
collection (FA-11), pick cards A and B of a rule change (FA-13)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from tui.games.fashion.card_row import FashionCardRow


class FashionHand(FashionCardRow):
    DEFAULT_CSS = """
    FashionHand {
        border: round $primary 50%;
        border-title-color: $text;
        height: 1fr;
        width: 1fr;
        padding: 0 0;
    }
    FashionHand:focus { border: round $accent; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Move", key_display="↑↓", show=False),
        Binding("down,j", "move(1)", "Move", show=False),
        Binding("left,h", "move(-1)", "Move", show=False),
        Binding("right,l", "move(1)", "Move", show=False),
        Binding("enter,space", "choose('bid')", "Bid this card", key_display="⏎"),
        Binding("enter,space", "choose('pick')", "Pick card", key_display="⏎"),
        Binding("space", "select_card", "Select", key_display="space"),
        Binding("enter", "confirm", "Announce", show=False),
        Binding("escape", "cancel", "Cancel", key_display="esc"),
        # Help lists one line per description, with its first key: "1-9".
        *[
            Binding(str(n), f"choose_nth({n})", "Choose by number", key_display="1-9", show=False)
            for n in range(1, 10)
        ],
        *[
            Binding(str(n), f"select_nth({n})", "Select by number", key_display="1-9", show=False)
            for n in range(1, 10)
        ],
    ]

    SOURCE = "hand"
    EMPTY = "No cards in your hand."
    HINT_LINES = 2
