"""The train (DO-6, DO-8): every placed tile left to right, wrapped over as
many lines as the width needs, with both open ends labelled on their own line
so they stay visible however long the train grows. The newest tile is
highlighted and named in the bottom border, so a bot's move stays readable
until the next one."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widget import Widget

from core.dominoes import TrainTile
from tui.games.dominoes.tile import TILE_WIDTH, face

ELLIPSIS = "⋯"


class DominoTrain(Widget):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "train--tile",
        "train--double",
        "train--newest",
        "train--end",
        "train--muted",
    }
    DEFAULT_CSS = """
    DominoTrain {
        border: round $primary 50%;
        border-title-color: $text;
        border-subtitle-color: $text;
        height: 5;
        padding: 0 1;
    }
    DominoTrain > .train--tile { color: $text; }
    DominoTrain > .train--double { color: $text; text-style: bold; }
    DominoTrain > .train--newest { background: $accent 40%; text-style: bold underline; }
    DominoTrain > .train--end { color: $accent; text-style: bold; }
    DominoTrain > .train--muted { color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.train: tuple[TrainTile, ...] = ()
        self.ends: tuple[int, int] | None = None
        self.empty_text = ""

    def show(
        self, train: tuple[TrainTile, ...], ends: tuple[int, int] | None, empty_text: str
    ) -> None:
        if (train, ends, empty_text) == (self.train, self.ends, self.empty_text):
            return
        self.train, self.ends, self.empty_text = train, ends, empty_text
        self.refresh()

    @property
    def newest(self) -> int:
        """The highest placement order: the tile placed last."""
        return max((t.order for t in self.train), default=-1)

    def rows(self, width: int) -> list[list[TrainTile]]:
        """The train cut into rows of whole tiles, left to right."""
        per_row = max(1, width // TILE_WIDTH)
        tiles = list(self.train)
        return [tiles[i : i + per_row] for i in range(0, len(tiles), per_row)]

    def render(self) -> RenderableType:
        width = max(TILE_WIDTH, self.content_size.width)
        lines = max(1, self.content_size.height)
        end_style = self.get_component_rich_style("train--end")
        muted = self.get_component_rich_style("train--muted")
        if self.ends is None:
            return Text(self.empty_text, style=muted)
        left, right = self.ends
        rows = self.rows(width)
        room = max(1, lines - 1)
        hidden = 0
        if len(rows) > room:
            # Too long for the room: keep the first row and the last ones, so
            # both open ends stay visible, and say how many tiles are hidden.
            kept = [rows[0], *rows[len(rows) - room + 1 :]] if room > 1 else [rows[-1]]
            hidden = len(self.train) - sum(len(row) for row in kept)
            rows = kept
        count = len(self.train)
        middle = f"{count} tile{'s' if count != 1 else ''}"
        if hidden:
            middle += f", {hidden} {ELLIPSIS} hidden"
        head = Text(no_wrap=True, overflow="crop")
        left_label = f"◀ left end {left}"
        right_label = f"right end {right} ▶"
        gap = width - len(left_label) - len(right_label)
        head.append(left_label, end_style)
        if gap >= len(middle) + 2:
            pad = gap - len(middle)
            head.append(" " * (pad // 2))
            head.append(middle, muted)
            head.append(" " * (pad - pad // 2))
        else:
            head.append(" " * max(1, gap))
        head.append(right_label, end_style)
        newest = self.newest
        plain = self.get_component_rich_style("train--tile")
        double = self.get_component_rich_style("train--double")
        highlight = self.get_component_rich_style("train--newest")
        texts: list[Text] = [head]
        for row in rows:
            line = Text(no_wrap=True, overflow="crop")
            for placed in row:
                style = double if placed.left == placed.right else plain
                if placed.order == newest:
                    style = style + highlight
                line.append(face(placed.left, placed.right), style)
            texts.append(line)
        return Group(*texts)
