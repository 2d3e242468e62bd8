"""A row of cards with a keyboard cursor: the base of the hand and the trick.

Each card is drawn in its theme colour with its letter, value and diamonds, a
label above (a key number or a player's name) and one below (the cursor mark
or a tag). Left/right (or h/l) move the cursor, Enter/space choose the card
under it, digits choose the Nth card. The row is ``active`` only when its
choice is yours; otherwise its keys are hidden and fall through to the screen,
which explains why nothing can be chosen now.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from core.passpass.model import Card
from tui.games.passpass.card import CARD_WIDTH, COLOUR_COMPONENTS, card_face, colour_component
from tui.messages import CardChosen
from tui.widgets.fit import pad

CURSOR_MARK = "▲"
GAP = " "


@dataclass(frozen=True)
class SlotData:
    card: Card
    diamonds: int
    above: str = ""
    below: str = ""


class CardRow(Widget, can_focus=True):
    """Subclasses set ``SOURCE``, ``SLOTS``, their own BINDINGS and CSS."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *COLOUR_COMPONENTS,
        "card--cursor",
        "card--label",
        "card--mark",
    }
    DEFAULT_CSS = """
    CardRow { height: auto; }
    CardRow > .card--violet { background: $pp-violet; color: $pp-violet-text; text-style: bold; }
    CardRow > .card--blue { background: $pp-blue; color: $pp-blue-text; text-style: bold; }
    CardRow > .card--green { background: $pp-green; color: $pp-green-text; text-style: bold; }
    CardRow > .card--yellow { background: $pp-yellow; color: $pp-yellow-text; text-style: bold; }
    CardRow > .card--cursor { text-style: bold reverse; }
    CardRow > .card--label { color: $text-muted; }
    CardRow > .card--mark { color: $accent; text-style: bold; }
    """

    SOURCE: ClassVar[str] = "row"
    SLOTS: ClassVar[int] = 8
    active: reactive[bool] = reactive(False)
    cursor: reactive[int] = reactive(0)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: tuple[SlotData, ...] = ()
        self.empty = ""  # what the row says with no card (a spectator's hand: its own)

    def set_items(self, items: tuple[SlotData, ...]) -> None:
        items = items[: self.SLOTS]
        if items == self.items:
            return
        self.items = items
        if self.cursor >= len(self.items):
            self.cursor = max(0, len(self.items) - 1)
        self.refresh(layout=True)

    def watch_active(self) -> None:
        self.refresh_bindings()

    # -- drawing -----------------------------------------------------------

    def render_cards(self) -> list[Text]:
        above, top, bottom, below = (Text(no_wrap=True, overflow="crop") for _ in range(4))
        label = self.get_component_rich_style("card--label")
        mark = self.get_component_rich_style("card--mark")
        cursor_style = self.get_component_rich_style("card--cursor")
        for index, item in enumerate(self.items):
            if index:
                for line in (above, top, bottom, below):
                    line.append(GAP)
            cursor = self.active and index == self.cursor
            style: Style = self.get_component_rich_style(colour_component(item.card))
            if cursor:
                style = style + cursor_style
            face_top, face_bottom = card_face(item.card, item.diamonds)
            above.append(pad(item.above, CARD_WIDTH, "^"), label)
            top.append(face_top, style)
            bottom.append(face_bottom, style)
            tag = f"{CURSOR_MARK}{item.below}" if cursor else item.below
            below.append(pad(tag, CARD_WIDTH, "^"), mark if cursor else label)
        return [above, top, bottom, below]

    def render(self) -> RenderableType:
        if not self.items and self.empty:
            return Text(self.empty, style=self.get_component_rich_style("card--label"))
        return Group(*self.render_cards())

    # -- keys --------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("move", "choose", "choose_nth"):
            if not self.active or not self.items:
                return False
            if action == "choose_nth":
                nth = parameters[0]
                return isinstance(nth, int) and 1 <= nth <= len(self.items)
        return True

    def action_move(self, step: int) -> None:
        if self.items:
            self.cursor = (self.cursor + step) % len(self.items)

    def action_choose(self) -> None:
        self.post_message(CardChosen(self.SOURCE, self.cursor))

    def action_choose_nth(self, nth: int) -> None:
        self.cursor = nth - 1
        self.post_message(CardChosen(self.SOURCE, nth - 1))
