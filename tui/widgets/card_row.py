"""A row of cards with a keyboard cursor: the base of the hand and the trick.

Left/right (or h/l) move the cursor, Enter/space choose the card under it,
digits choose the Nth card. The row is ``active`` only when its choice is
yours to make; otherwise its keys are hidden and fall through to the screen,
which explains why nothing can be chosen now.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widget import Widget

from core.passpass.model import Card
from tui.messages import CardChosen
from tui.widgets.card_slot import CURSOR_MARK, CardSlot


@dataclass(frozen=True)
class SlotData:
    card: Card
    diamonds: int
    above: str = ""
    below: str = ""


class CardRow(Widget, can_focus=True):
    """Subclasses set ``SOURCE``, ``SLOTS`` and their own BINDINGS."""

    DEFAULT_CSS = """
    CardRow { height: auto; }
    CardRow > Horizontal { height: 4; width: 1fr; }
    """

    SOURCE = "row"
    SLOTS = 8
    active: reactive[bool] = reactive(False)
    cursor: reactive[int] = reactive(0)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: tuple[SlotData, ...] = ()

    def compose(self) -> ComposeResult:
        with Horizontal():
            for _ in range(self.SLOTS):
                yield CardSlot()

    def on_mount(self) -> None:
        self._paint()

    def set_items(self, items: tuple[SlotData, ...]) -> None:
        self.items = items[: self.SLOTS]
        if self.cursor >= len(self.items):
            self.cursor = max(0, len(self.items) - 1)
        self._paint()
        self.refresh_bindings()

    def watch_active(self) -> None:
        self._paint()
        self.refresh_bindings()

    def watch_cursor(self) -> None:
        self._paint()

    def _paint(self) -> None:
        if not self.is_mounted:
            return
        for index, slot in enumerate(self.query(CardSlot)):
            if index < len(self.items):
                item = self.items[index]
                cursor = self.active and index == self.cursor
                below = CURSOR_MARK if cursor else item.below
                if cursor and item.below:
                    below = f"{CURSOR_MARK}{item.below}"
                slot.display = True
                slot.show(item.card, item.diamonds, item.above, below, cursor)
            else:
                slot.display = False

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
