"""A row of cards with a keyboard cursor: the base of the hand and the trick.

Each card is drawn in its theme colour with its letter, value and diamonds, a
label above (a key number or a player's name) and one below (the cursor mark
or a tag). A card's slot is as wide as its labels need where the row has the
room ("3 Bruno", "→Bruno" whole over a five-column card); where it has not,
the longest labels are shortened with "…" first; a slot is never narrower
than the card. Left/right (or h/l) move the cursor, Enter/space choose the
card under it, digits choose the Nth card. The row is ``active`` only when its
choice is yours; otherwise its keys are hidden and fall through to the screen,
which explains why nothing can be chosen now.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
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


def slot_widths(needs: Sequence[int], room: int, *, gap: int = len(GAP)) -> list[int]:
    """The width of each card's slot in a row ``room`` columns wide, where
    slot ``i``'s labels need ``needs[i]`` columns; slots are ``gap`` apart.

    Every slot is at least a card wide (``CARD_WIDTH``). Where the widest
    label fits in every slot, all slots take its width (the cards stay evenly
    spaced; with short labels the row is as before, a card wide each). Else
    the longest labels give up columns first: the slots share the room as
    evenly as the needs allow, so that every label that can be whole is.
    ``room`` 0 (not laid out yet) gives every label its whole width."""
    if not needs:
        return []
    wants = [max(CARD_WIDTH, need) for need in needs]
    free = room - gap * (len(wants) - 1)
    widest = max(wants)
    if room <= 0 or widest * len(wants) <= free:
        return [widest] * len(wants)
    # The largest cap under which the slots fit; narrower than a card, they
    # cannot fit: each slot a card wide, and the row is cropped as before.
    cap = next(
        (c for c in range(widest, CARD_WIDTH - 1, -1) if sum(min(w, c) for w in wants) <= free),
        CARD_WIDTH,
    )
    widths = [min(want, cap) for want in wants]
    spare = free - sum(widths)
    for index, want in enumerate(wants):  # what the cap leaves, to the cut ones
        if spare <= 0:
            break
        if want > widths[index]:
            widths[index] += 1
            spare -= 1
    return widths


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

    def slot_widths(self) -> list[int]:
        """Each card's slot width (:func:`slot_widths`) in this row's width.
        While the row is active the cursor mark may stand before any tag
        below: its column is counted for every card, so that the cards do
        not move as the cursor does."""
        mark = cell_len(CURSOR_MARK) if self.active else 0
        needs = [max(cell_len(item.above), cell_len(item.below) + mark) for item in self.items]
        return slot_widths(needs, self.content_size.width)

    def render_cards(self) -> list[Text]:
        above, top, bottom, below = (Text(no_wrap=True, overflow="crop") for _ in range(4))
        label = self.get_component_rich_style("card--label")
        mark = self.get_component_rich_style("card--mark")
        cursor_style = self.get_component_rich_style("card--cursor")
        for index, (item, width) in enumerate(zip(self.items, self.slot_widths(), strict=True)):
            if index:
                for line in (above, top, bottom, below):
                    line.append(GAP)
            cursor = self.active and index == self.cursor
            style: Style = self.get_component_rich_style(colour_component(item.card))
            if cursor:
                style = style + cursor_style
            # The face centred in its slot, the margins unstyled (not card).
            left = (width - CARD_WIDTH) // 2
            right = width - CARD_WIDTH - left
            face_top, face_bottom = card_face(item.card, item.diamonds)
            above.append(pad(item.above, width, "^"), label)
            for line, face in ((top, face_top), (bottom, face_bottom)):
                line.append(" " * left)
                line.append(face, style)
                line.append(" " * right)
            tag = f"{CURSOR_MARK}{item.below}" if cursor else item.below
            below.append(pad(tag, width, "^"), mark if cursor else label)
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
