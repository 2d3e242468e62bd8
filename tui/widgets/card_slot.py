"""A card with a label above (a key number or a player's name) and one below
(the cursor mark or a tag such as ``1st``)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label

from core.passpass.model import Card
from tui.widgets.card import CardFace

CURSOR_MARK = "▲"


class CardSlot(Vertical):
    DEFAULT_CSS = """
    CardSlot {
        width: 5;
        height: 4;
        margin-right: 1;
    }
    CardSlot > Label {
        width: 5;
        height: 1;
        text-align: center;
        color: $text-muted;
    }
    CardSlot > Label.below { color: $text; text-style: bold; }
    CardSlot.-cursor > Label.below { color: $accent; }
    """

    def compose(self) -> ComposeResult:
        yield Label("", classes="above")
        yield CardFace()
        yield Label("", classes="below")

    def show(self, card: Card | None, diamonds: int, above: str, below: str, cursor: bool) -> None:
        self.query_one(".above", Label).update(above[:5])
        self.query_one(".below", Label).update(below[:5])
        face = self.query_one(CardFace)
        face.show(card, diamonds)
        face.set_class(cursor, "-cursor")
        self.set_class(cursor, "-cursor")
