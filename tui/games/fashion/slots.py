"""The four rule slots in the middle of the table (FA-2): what scores
(★ STAR), what every collection needs (! MUST), what is passé (⊘ BANNED)
and the currency of the auction ($ MONEY)."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from core.fashion.model import BANNED, MUST
from core.fashion.state import SlotInfo
from tui.games.fashion.card import COLOUR_COMPONENTS, SLOT_WORDS, SYMBOLS, colour_css

MEANINGS = ("scores", "needed", "passé", "currency")


class FashionSlots(Static):
    COMPONENT_CLASSES: ClassVar[set[str]] = {*COLOUR_COMPONENTS, "slot--name", "slot--muted"}
    DEFAULT_CSS = """
    FashionSlots {
        border: round $accent;
        border-title-color: $text;
        border-title-style: bold;
        height: 6;
        width: 28;
        padding: 0 0;
    }
    FashionSlots > .slot--name { text-style: bold; }
    FashionSlots > .slot--muted { color: $text-muted; }
    """ + colour_css("FashionSlots")

    _shown: object = None

    def on_mount(self) -> None:
        self.border_title = "Rules in force"

    def show(self, slots: tuple[SlotInfo, ...]) -> None:
        if slots == self._shown:
            return
        self._shown = slots
        name_style = self.get_component_rich_style("slot--name")
        muted = self.get_component_rich_style("slot--muted")
        lines = []
        for index, info in enumerate(slots):
            line = Text(no_wrap=True, overflow="crop")
            line.append(f"{SYMBOLS[index]} {SLOT_WORDS[index]:<6} ", name_style)
            value_style = name_style
            if info.attribute == "colour":
                colours = ("red", "blue", "black", "white")
                value_style = self.get_component_rich_style(
                    COLOUR_COMPONENTS[colours.index(info.value)]
                )
            # The feature's word alone: the twelve words name their attribute.
            line.append(f"{info.value:<9}", value_style)
            line.append(MEANINGS[index], muted)
            lines.append(line)
        must, banned = slots[MUST], slots[BANNED]
        self.border_subtitle = (
            "MUST = BANNED: no collection!"  # FA-13
            if (must.attribute, must.value) == (banned.attribute, banned.value)
            else ""
        )
        self.update(Group(*lines))
