"""How a domino is written: its two halves as numbers between brackets,
``[3|5]``; a double has a double bar, ``[5║5]``, because it lies crosswise in
the train (DO-8). The numbers are always printed: colour is never the only
signal. Functions only (no widget): used by the train, the hand and the
summaries."""

from __future__ import annotations

from core.dominoes import Tile

TILE_WIDTH = 5  # "[3|5]"
DOUBLE_BAR = "║"
BAR = "|"


def face(left: int, right: int) -> str:
    """A tile showing ``left`` then ``right`` (as laid in the train)."""
    return f"[{left}{DOUBLE_BAR if left == right else BAR}{right}]"


def tile_text(tile: Tile) -> str:
    """A tile in a hand: low half first."""
    return face(tile.low, tile.high)


def tiles_text(tiles: tuple[Tile, ...] | list[Tile], gap: str = "") -> str:
    """Several tiles side by side, or a dash for none."""
    return gap.join(tile_text(t) for t in tiles) if tiles else "—"


def end_words(end: str | None) -> str:
    return {"L": "left", "R": "right"}.get(end or "", "first")
