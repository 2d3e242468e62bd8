"""A column of Passe fashion cards with a keyboard cursor: the base of the
hand and the offer.

One card per line, written in full (symbol, code, number, the three
features in words) with a mark on the left (✓ selected, A/B in a rule change, • your
bid) and tags on the right (what the rules in force make of it; in short,
``short_tags``, where the widest row would not fit). Below the
cards, a hint in words. ↑/↓ (or k/j, ←/→) move the cursor at any time; what Enter,
space and the digits do depends on ``mode``, which the screen sets:

* ``""``      not your decision: the keys fall through to the screen, which
              explains why nothing can be chosen now;
* ``"bid"`` / ``"pick"``  Enter or space chooses the card under the cursor,
              a digit the Nth card (:class:`~tui.messages.CardChosen`);
* ``"select"`` space or a digit toggles a card (:class:`Toggle`), Enter
              confirms the selection (:class:`Confirm`).

The screen owns what is selected: it sends the marks back with the items.
A long hand scrolls with the cursor.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from core.fashion.model import CARD_ATTRS, Card
from tui.games.fashion.card import (
    CARD_TEXT_WIDTH,
    COLOUR_COMPONENTS,
    card_text,
    colour_css,
    short_tags,
)
from tui.messages import CardChosen

CURSOR_MARK = "▸"
MARKS_WIDTH = 3  # the cursor, the selection mark and a space, left of a card
MODES = ("", "bid", "pick", "select")


@dataclass(frozen=True)
class CardItem:
    card: Card
    mark: str = " "  # one character left of the card
    tags: str = ""  # words right of the card


class FashionCardRow(Widget, can_focus=True):
    """Subclasses set ``SOURCE``, ``HINT_LINES``, their BINDINGS and CSS."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *COLOUR_COMPONENTS,
        "fcard--cursor",
        "fcard--marked",
        "fcard--tag",
        "fcard--hint",
    }
    DEFAULT_CSS = """
    FashionCardRow { height: auto; }
    FashionCardRow > .fcard--cursor { text-style: bold reverse; }
    FashionCardRow > .fcard--marked { color: $accent; text-style: bold; }
    FashionCardRow > .fcard--tag { color: $text-muted; }
    FashionCardRow > .fcard--hint { color: $text; }
    """ + colour_css("FashionCardRow")

    SOURCE: ClassVar[str] = "cards"
    HINT_LINES: ClassVar[int] = 2
    EMPTY: ClassVar[str] = "No cards."
    mode: reactive[str] = reactive("")
    cursor: reactive[int] = reactive(0)

    class Toggle(Message):
        """Space or a digit on a card in ``select`` mode."""

        def __init__(self, source: str, index: int) -> None:
            super().__init__()
            self.source = source
            self.index = index

    class Confirm(Message):
        """Enter in ``select`` mode: do it with what is selected."""

        def __init__(self, source: str) -> None:
            super().__init__()
            self.source = source

    class Moved(Message):
        """The cursor moved (hints may depend on the card under it)."""

        def __init__(self, source: str, index: int) -> None:
            super().__init__()
            self.source = source
            self.index = index

    class Cancel(Message):
        """Escape in ``pick`` mode."""

        def __init__(self, source: str) -> None:
            super().__init__()
            self.source = source

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.items: tuple[CardItem, ...] = ()
        self.hint = ""
        self.empty = self.EMPTY  # what the row says with no card (a spectator's hand: its own)
        self.top = 0  # first card shown when the list scrolls

    def set_items(self, items: tuple[CardItem, ...]) -> None:
        if items == self.items:
            return
        self.items = items
        if self.cursor >= len(self.items):
            self.cursor = max(0, len(self.items) - 1)
        self.refresh()

    def set_hint(self, hint: str) -> None:
        if hint != self.hint:
            self.hint = hint
            self.refresh()

    @property
    def card_under_cursor(self) -> Card | None:
        return self.items[self.cursor].card if 0 <= self.cursor < len(self.items) else None

    def watch_mode(self) -> None:
        self.refresh_bindings()
        self.refresh()

    def watch_cursor(self) -> None:
        self.post_message(self.Moved(self.SOURCE, self.cursor))
        self.refresh()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # -- drawing -----------------------------------------------------------

    def _rows(self) -> int:
        """How many card lines fit above the hint."""
        height = self.content_region.height or (len(self.items) + self.HINT_LINES)
        return max(1, height - self.HINT_LINES)

    def card_lines(self) -> list[Text]:
        rows = self._rows()
        count = len(self.items)
        more = count > rows
        shown = rows - 1 if more else rows  # one line tells what is hidden
        if self.cursor < self.top:
            self.top = self.cursor
        elif self.cursor >= self.top + shown:
            self.top = self.cursor - shown + 1
        self.top = max(0, min(self.top, max(0, count - shown)))
        cursor_style = self.get_component_rich_style("fcard--cursor")
        marked = self.get_component_rich_style("fcard--marked")
        tag_style = self.get_component_rich_style("fcard--tag")
        show_cursor = self.has_focus
        # Every code, feature word and tag must show (issue 18): the code
        # always (the keys, the log and the hints name cards by it); where
        # the widest row (marks, card, tags) does not fit, the tags are
        # written in short. The same choice for every row: aligned.
        width = self.content_region.width
        widest = max((len(item.tags) + 1 if item.tags else 0 for item in self.items), default=0)
        short = bool(width) and MARKS_WIDTH + CARD_TEXT_WIDTH + widest > width
        lines: list[Text] = []
        for index in range(self.top, min(count, self.top + shown)):
            item = self.items[index]
            here = show_cursor and index == self.cursor
            line = Text(no_wrap=True, overflow="crop")
            line.append(CURSOR_MARK if here else " ", marked)
            line.append(item.mark[:1] or " ", marked)
            line.append(" ")
            colour: Style = self.get_component_rich_style(
                COLOUR_COMPONENTS[CARD_ATTRS[item.card][0]]
            )
            face = card_text(item.card, colour)
            if here:
                face.stylize(cursor_style)
            line.append_text(face)
            if item.tags:
                line.append(" " + (short_tags(item.tags) if short else item.tags), tag_style)
            lines.append(line)
        if not count:
            # Wrapped here, a line a row: wrapped by the terminal, it took
            # the rows of the hint below it (a spectator's short hand panel).
            for part in textwrap.wrap(self.empty, max(8, width - 2)) if width else [self.empty]:
                lines.append(Text(f"  {part}", style=tag_style))
        if more:
            above, below = self.top, count - self.top - shown
            # Only the way there is more ("↑ 0 more" was noise, a play-test).
            ways = [f"↑ {above} more" if above else "", f"↓ {below} more" if below else ""]
            said = " · ".join(way for way in ways if way)
            lines.append(Text(f"  {said} (of {count})", style=tag_style))
        return lines

    def render(self) -> RenderableType:
        lines: list[Text] = self.card_lines()
        rows = self._rows()
        while len(lines) < rows:
            lines.append(Text(""))
        if self.HINT_LINES:
            lines.append(Text(self.hint, style=self.get_component_rich_style("fcard--hint")))
        return Group(*lines)

    # -- keys --------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "move":
            return bool(self.items)  # a long hand scrolls even when not your turn
        if action in ("choose", "choose_nth"):
            if not self.items or self.mode not in ("bid", "pick"):
                return False
            if action == "choose":
                return parameters[0] == self.mode
            return self._nth_ok(parameters)
        if action in ("select_card", "select_nth", "confirm"):
            if not self.items or self.mode != "select":
                return False
            return self._nth_ok(parameters) if action == "select_nth" else True
        if action == "cancel":
            return self.mode == "pick"
        return True

    def _nth_ok(self, parameters: tuple[object, ...]) -> bool:
        nth = parameters[0]
        return isinstance(nth, int) and 1 <= nth <= len(self.items)

    def action_move(self, step: int) -> None:
        if self.items:
            self.cursor = (self.cursor + step) % len(self.items)

    def action_choose(self, mode: str) -> None:
        self.post_message(CardChosen(self.SOURCE, self.cursor))

    def action_choose_nth(self, nth: int) -> None:
        self.cursor = nth - 1
        self.post_message(CardChosen(self.SOURCE, nth - 1))

    def action_select_card(self) -> None:
        self.post_message(self.Toggle(self.SOURCE, self.cursor))

    def action_select_nth(self, nth: int) -> None:
        self.cursor = nth - 1
        self.post_message(self.Toggle(self.SOURCE, nth - 1))

    def action_confirm(self) -> None:
        self.post_message(self.Confirm(self.SOURCE))

    def action_cancel(self) -> None:
        self.post_message(self.Cancel(self.SOURCE))
