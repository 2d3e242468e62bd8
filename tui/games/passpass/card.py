"""How a Pass Pass card is drawn: letter + value over its diamonds, on its
colour from the theme (``$pp-violet`` ...).

The colour is never the only signal: the letter (V, B, G, Y) and the value are
always printed, so the four colours are told apart in monochrome too.
"""

from __future__ import annotations

from core.passpass.model import Card

CARD_WIDTH = 5
DIAMOND = "◆"
COLOUR_COMPONENTS: tuple[str, ...] = (
    "card--violet",
    "card--blue",
    "card--green",
    "card--yellow",
)


def diamond_marks(count: int) -> str:
    return DIAMOND * count if count else "·"


def card_face(card: Card, diamonds: int) -> tuple[str, str]:
    """The two lines of a card face, centred in ``CARD_WIDTH`` columns."""
    return (f"{card!s:^{CARD_WIDTH}}", f"{diamond_marks(diamonds):^{CARD_WIDTH}}")


def colour_component(card: Card) -> str:
    """The component class giving this card's theme colour."""
    return COLOUR_COMPONENTS[card.colour]
