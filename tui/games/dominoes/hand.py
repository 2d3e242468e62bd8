"""Your dominoes, numbered for the digit keys (1-9, 0 for the tenth; in a
hand of more than ten tiles they read 1 to 19 and tiles 10 and up take two
digits: 1 then 2 for tile 12, 1 then Enter for tile 1), with under each
tile the open ends it fits (L, R, or L R) so the playable tiles read
without colour. ←/→ (or h/l) move the cursor, Enter/space place the
tile under it (the screen asks which end when it fits two different ends), ``[`` and ``]``
place it at the left or right end, a digit chooses a tile directly. The
hand is ``active`` only on your turn; otherwise its keys fall through to the
screen, which explains why nothing can be placed now."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from core.dominoes import Tile
from tui.games.dominoes.tile import TILE_WIDTH, tile_text
from tui.messages import TileChosen

SLOT = TILE_WIDTH + 1  # a tile and a gap
CURSOR_MARK = "▼"
DIGITS = "1234567890"
ONE_KEY_TILES = len(DIGITS)  # beyond this many tiles, numbers take two digits


def tile_number(index: int, count: int) -> str:
    """The key(s) of the tile at ``index`` in a hand of ``count`` tiles."""
    if count > ONE_KEY_TILES:
        return str(index + 1)
    return DIGITS[index] if index < len(DIGITS) else ""


def tile_keys(count: int) -> str:
    """The number keys of a hand, for the status line and hints."""
    if count > ONE_KEY_TILES:
        return f"1-{count} (two digits from 10)"
    count = max(1, count)
    return DIGITS[0] if count == 1 else f"{DIGITS[0]}-{DIGITS[count - 1]}"


@dataclass(frozen=True)
class HandTile:
    tile: Tile
    fits: str  # "L", "R", "L R", "any" (to lead) or "" (fits no end)


class DominoHand(Widget, can_focus=True):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "hand--tile",
        "hand--dead",
        "hand--cursor",
        "hand--label",
        "hand--fits",
    }
    DEFAULT_CSS = """
    DominoHand {
        border: round $primary 50%;
        border-title-color: $text;
        height: auto;
        min-height: 5;
        padding: 0 1;
    }
    DominoHand:focus { border: round $accent; }
    DominoHand > .hand--tile { color: $text; text-style: bold; }
    DominoHand > .hand--dead { color: $text-muted; }
    DominoHand > .hand--cursor { background: $accent; color: $background; text-style: bold; }
    DominoHand > .hand--label { color: $text-muted; }
    DominoHand > .hand--fits { color: $accent; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "move(-1)", "Tile", key_display="←→"),
        Binding("right,l", "move(1)", "Tile", show=False),
        Binding("enter,space", "choose", "Place", key_display="⏎"),
        Binding(
            "left_square_bracket",
            "choose_end('L')",
            "End",
            key_display="[ ]",
            tooltip="[ left end, ] right end",
        ),
        # The same tooltip: the help lists [ and ] as one key, not "] End".
        Binding(
            "right_square_bracket",
            "choose_end('R')",
            "End",
            show=False,
            tooltip="[ left end, ] right end",
        ),
        # Drawing and passing are the screen's decisions (DO-4, DO-7), listed
        # here so the footer shows them beside the tile keys.
        Binding("d", "screen.draw", "Draw"),
        Binding("p", "screen.pass", "Pass"),
        *[
            Binding(
                key,
                f"choose_nth({n})",
                "Place tile by number (over ten tiles: two digits, 1 2 for tile 12)",
                key_display="1-0",
                show=False,
            )
            for n, key in enumerate(DIGITS, start=1)
        ],
    ]

    EMPTY: ClassVar[str] = "No tiles left."
    active: reactive[bool] = reactive(False)
    cursor: reactive[int] = reactive(0)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: tuple[HandTile, ...] = ()
        self.empty = self.EMPTY  # what the hand says with no tile (a spectator's: its own)
        self.leading = False
        self.pending: int | None = None  # the first digit of a two-digit number

    def set_items(self, items: tuple[HandTile, ...], *, leading: bool = False) -> None:
        if leading != self.leading:
            self.leading = leading
            self.refresh_bindings()
        if items == self.items:
            return
        self._set_pending(None)
        chosen = self.items[self.cursor].tile if self.cursor < len(self.items) else None
        self.items = items
        # Keep the cursor on the same tile when the hand changes around it.
        tiles = [item.tile for item in items]
        if chosen in tiles:
            self.cursor = tiles.index(chosen)
        elif self.cursor >= len(items):
            self.cursor = max(0, len(items) - 1)
        self.refresh(layout=True)

    def watch_active(self) -> None:
        if not self.active:
            self._set_pending(None)
        self.refresh_bindings()

    def _set_pending(self, digit: int | None) -> None:
        """Remember (or forget) a first digit, and say what comes next."""
        self.pending = digit
        if digit is None:
            self.border_subtitle = ""
        else:
            last = min(len(self.items), digit * 10 + 9)
            self.border_subtitle = (
                f"{digit}…: a second digit for {digit * 10}-{last}, Enter for tile {digit}"
            )
        self.refresh()

    # -- drawing -----------------------------------------------------------

    def per_row(self) -> int:
        return max(1, (self.content_size.width + 1) // SLOT)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        per_row = max(1, (width + 1) // SLOT)
        rows = max(1, -(-len(self.items) // per_row))
        return rows * 3

    def render(self) -> RenderableType:
        label = self.get_component_rich_style("hand--label")
        fits_style = self.get_component_rich_style("hand--fits")
        live = self.get_component_rich_style("hand--tile")
        dead = self.get_component_rich_style("hand--dead")
        cursor_style = self.get_component_rich_style("hand--cursor")
        if not self.items:
            return Text(self.empty, style=label)
        per_row = self.per_row()
        lines: list[Text] = []
        for start in range(0, len(self.items), per_row):
            above, faces, below = (Text(no_wrap=True, overflow="crop") for _ in range(3))
            for index in range(start, min(start + per_row, len(self.items))):
                item = self.items[index]
                if index > start:
                    for line in (above, faces, below):
                        line.append(" ")
                cursor = self.active and index == self.cursor
                key = tile_number(index, len(self.items))
                mark = f"{CURSOR_MARK}{key}" if cursor else key
                above.append(f"{mark:^{TILE_WIDTH}}", fits_style if cursor else label)
                style = live if item.fits else dead
                faces.append(tile_text(item.tile), cursor_style if cursor else style)
                fits = "" if item.fits == "any" else item.fits
                below.append(f"{fits:^{TILE_WIDTH}}", fits_style)
            lines.extend((above, faces, below))
        return Group(*lines)

    # -- keys --------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("move", "choose", "choose_nth", "choose_end"):
            if not self.active or not self.items:
                return False
            if action == "choose_end" and self.leading:
                return False  # DO-6: the first tile has no end to choose
            if action == "choose_nth":
                nth = parameters[0]
                return isinstance(nth, int) and (
                    self.pending is not None or 1 <= nth <= len(self.items)
                )
        return True

    def action_move(self, step: int) -> None:
        self._set_pending(None)
        if self.items:
            self.cursor = (self.cursor + step) % len(self.items)

    def action_choose(self) -> None:
        self._set_pending(None)
        self.post_message(TileChosen(self.cursor))

    def action_choose_end(self, end: str) -> None:
        self._set_pending(None)
        self.post_message(TileChosen(self.cursor, end))

    def action_choose_nth(self, nth: int) -> None:
        """``nth`` is the key's number (0 is 10). In a hand of more than ten
        tiles a digit that starts a two-digit tile number waits for the
        second digit (the cursor shows the one-digit tile meanwhile: Enter
        places it)."""
        digit = nth % 10
        count = len(self.items)
        if self.pending is not None:
            number = self.pending * 10 + digit
            self._set_pending(None)
            if 1 <= number <= count:
                self._choose(number)
                return
            # No such tile: the digit starts a new number instead.
        if count > ONE_KEY_TILES and digit and digit * 10 <= count:
            self.cursor = digit - 1
            self._set_pending(digit)
            return
        if 1 <= nth <= count:
            self._choose(nth)

    def _choose(self, number: int) -> None:
        self.cursor = number - 1
        self.post_message(TileChosen(number - 1))
