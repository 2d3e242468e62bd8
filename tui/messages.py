"""Custom messages between the table's widgets, its screen and the client."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from net.table import TableUpdate


class TableUpdated(Message):
    """A view (and the events and refusal that came with it) from the client."""

    def __init__(self, update: TableUpdate) -> None:
        super().__init__()
        self.update = update


@dataclass
class CardChosen(Message):
    """A card was chosen in a hand or trick widget (index in that widget)."""

    source: str  # "hand" or "trick"
    index: int


@dataclass
class TileChosen(Message):
    """A domino was chosen in the hand (index in the hand); ``end`` is the
    open end asked for ("L" or "R"), or None to let the screen decide."""

    index: int
    end: str | None = None
