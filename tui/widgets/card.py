"""One Pass Pass card: letter + value, diamonds, and its colour from the theme.

The colour is never the only signal: the letter (V, B, G, Y) and the value are
always printed, so the four colours are told apart in monochrome too.
"""

from __future__ import annotations

from textual.widgets import Static

from core.passpass.model import Card

COLOUR_CLASSES: tuple[str, ...] = ("-violet", "-blue", "-green", "-yellow")
DIAMOND = "◆"


def diamond_marks(count: int) -> str:
    return DIAMOND * count if count else "·"


class CardFace(Static):
    """A card face, two lines: ``V10`` over its diamonds (``◆◆``)."""

    DEFAULT_CSS = """
    CardFace {
        width: 5;
        height: 2;
        content-align: center middle;
        text-align: center;
        text-style: bold;
    }
    CardFace.-violet { background: $pp-violet; color: $pp-violet-text; }
    CardFace.-blue { background: $pp-blue; color: $pp-blue-text; }
    CardFace.-green { background: $pp-green; color: $pp-green-text; }
    CardFace.-yellow { background: $pp-yellow; color: $pp-yellow-text; }
    CardFace.-cursor { text-style: bold reverse; }
    CardFace.-empty { background: $panel; color: $text-muted; text-style: none; }
    """

    def __init__(self, card: Card | None = None, diamonds: int = 0) -> None:
        super().__init__()
        self.card: Card | None = None
        self.show(card, diamonds)

    def show(self, card: Card | None, diamonds: int = 0) -> None:
        self.card = card
        self.remove_class(*COLOUR_CLASSES, "-empty")
        if card is None:
            self.add_class("-empty")
            self.update("\n")
            return
        self.add_class(COLOUR_CLASSES[card.colour])
        self.update(f"{card}\n{diamond_marks(diamonds)}")
