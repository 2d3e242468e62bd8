"""Passe dominoes: tiles, actions, events and the small public records.

Tiles are small immutable values written low half first (``3-5``). Inside the
engine a tile is an int id (0..27, see :data:`TILES`) so that random playouts
stay fast; :class:`Tile` objects only appear at the boundary (actions, views,
events).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from core.engine import Action, Event, Names, NotationError, Piece, acts, joined, plural

End = Literal["L", "R"]

MAX_PIP = 6  # DO-1: a double-six set


@dataclass(frozen=True, slots=True, order=True)
class Tile(Piece):
    """One domino, ``low <= high`` (DO-1). Its pip value is ``low + high``."""

    low: int
    high: int

    def __post_init__(self) -> None:
        if not (
            isinstance(self.low, int)
            and isinstance(self.high, int)
            and 0 <= self.low <= self.high <= MAX_PIP
        ):
            raise ValueError(
                f"a tile is two numbers 0..{MAX_PIP}, low half first, "
                f"not {self.low!r}-{self.high!r}"
            )

    @property
    def pips(self) -> int:
        return self.low + self.high

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    @property
    def id(self) -> int:
        """The tile's index in :data:`TILES`."""
        return _ID[self.low * 7 + self.high]

    def has(self, number: int) -> bool:
        return number in (self.low, self.high)

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"


# DO-1: every unordered pair (a, b) with 0 <= a <= b <= 6, in a fixed order.
TILES: tuple[Tile, ...] = tuple(Tile(a, b) for a in range(7) for b in range(a, 7))
TILE_COUNT = len(TILES)  # 28
_ID: list[int] = [-1] * 49
for _index, _tile in enumerate(TILES):
    _ID[_tile.low * 7 + _tile.high] = _index
# Per tile id: low half, high half, pip value, and a bit mask of its numbers.
LOW: tuple[int, ...] = tuple(t.low for t in TILES)
HIGH: tuple[int, ...] = tuple(t.high for t in TILES)
PIPS: tuple[int, ...] = tuple(t.pips for t in TILES)
MASK: tuple[int, ...] = tuple((1 << t.low) | (1 << t.high) for t in TILES)
# Per number 0..6: the bit set of the tile ids bearing it (7 tiles each), so
# that "how many of these tiles bear n" is one ``(bits & BEARING[n]).bit_count()``.
BEARING: tuple[int, ...] = tuple(
    sum(1 << i for i, t in enumerate(TILES) if t.has(n)) for n in range(MAX_PIP + 1)
)


def tile(a: int, b: int) -> Tile:
    """The tile with halves ``a`` and ``b`` in either order."""
    if not (isinstance(a, int) and isinstance(b, int) and 0 <= a <= MAX_PIP and 0 <= b <= MAX_PIP):
        raise ValueError(f"a tile is two numbers 0..{MAX_PIP}, not {a!r}-{b!r}")
    return TILES[_ID[min(a, b) * 7 + max(a, b)]]


# --------------------------------------------------------------------------
# Actions (DO-6, DO-7)


@dataclass(frozen=True, slots=True)
class Place(Action):
    """Place ``tile`` at the left or right open end; ``end=None`` only for the
    round's first tile (DO-6). The engine chooses the orientation (DO-8)."""

    tile: Tile
    end: End | None = None

    def notation(self) -> str:
        return f"{self.tile}{self.end or ''}"


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """Draw one tile from the boneyard; it ends the turn (DO-7, DO-4)."""

    def notation(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Pass, always allowed after the train is started (DO-7)."""

    def notation(self) -> str:
        return "pass"


DominoAction = Place | Draw | Pass

DRAW = Draw()
PASS = Pass()
# Shared action values per tile id, so legal_actions allocates nothing (speed).
PLACE_FIRST: tuple[Place, ...] = tuple(Place(t) for t in TILES)
PLACE_LEFT: tuple[Place, ...] = tuple(Place(t, "L") for t in TILES)
PLACE_RIGHT: tuple[Place, ...] = tuple(Place(t, "R") for t in TILES)

_PLACE_RE = re.compile(r"(\d)\s*[-:|/]?\s*(\d)\s*([lr])?")


def parse_action(text: str) -> DominoAction:
    """``3-5L`` / ``3-5R`` (place at the left/right end), ``3-5`` (the round's
    first tile), ``draw``, ``pass``; case and surrounding spaces are ignored,
    and the halves may be given in either order (``5-3r`` is ``3-5R``)."""
    if not isinstance(text, str):
        raise NotationError(f"an action is text, not {text!r}")
    cleaned = text.strip().lower()
    if cleaned == "draw":
        return DRAW
    if cleaned == "pass":
        return PASS
    match = _PLACE_RE.fullmatch(cleaned)
    if match is None:
        raise NotationError(
            f"{text.strip()!r} is not a dominoes action: write a tile and an end "
            "such as 3-5L or 3-5R (just 3-5 to lead), or draw, or pass"
        )
    a, b = int(match[1]), int(match[2])
    if a > MAX_PIP or b > MAX_PIP:
        raise NotationError(f"{text.strip()!r}: the halves of a tile run from 0 to {MAX_PIP}")
    side = match[3]
    end: End | None = None if side is None else ("L" if side == "l" else "R")
    return Place(tile(a, b), end)


# --------------------------------------------------------------------------
# Public records


@dataclass(frozen=True, slots=True)
class TrainTile:
    """One placed tile as drawn left to right: ``left``/``right`` are the pips
    shown on each side. ``end`` is where it was placed (``None`` for the round's
    first tile), ``flipped`` is true when it shows its high half on the left,
    ``order`` counts placements in the round from 0."""

    tile: Tile
    left: int
    right: int
    end: End | None
    flipped: bool
    order: int


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """How a round ended. Hands are shown at the end of a round, so every
    field is public (DO-12).

    ``reason``: ``"domino"`` (a hand emptied, DO-10), ``"blocked"`` (nobody
    can play and nobody may draw, DO-10) or ``"passes"`` (a full circle of
    passes, DO-11). ``counts`` are per seat; ``team_counts`` per team (seats
    0+2, 1+3) with partnerships. ``winners`` are the scoring seats (empty on a
    tie for lowest), ``points`` what they scored, ``scores`` the totals after
    it (per seat; a team's total repeated for both partners).
    """

    number: int
    reason: str
    domino: int | None
    hands: tuple[tuple[Tile, ...], ...]
    counts: tuple[int, ...]
    team_counts: tuple[int, ...] | None
    winners: tuple[int, ...]
    points: int
    scores: tuple[int, ...]


# --------------------------------------------------------------------------
# Events


def _end_words(end: End | None) -> str:
    return "on the left" if end == "L" else "on the right"


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """A new round was dealt (DO-3); ``leader`` starts the train (DO-5, DO-6)."""

    number: int
    leader: int
    hand_sizes: tuple[int, ...]
    boneyard: int

    def describe(self, names: Sequence[str]) -> str:
        return f"Round {self.number} is dealt; {acts(names, self.leader, 'leads', start=False)}."


@dataclass(frozen=True, slots=True)
class Placed(Event):
    """``seat`` placed a tile; ``left``/``right`` are the pips it shows."""

    seat: int
    tile: Tile
    end: End | None
    left: int
    right: int
    flipped: bool
    tiles_left: int

    def describe(self, names: Sequence[str]) -> str:
        if self.end is None:
            text = f"{acts(names, self.seat, 'leads')} with {self.tile}"
        else:
            text = f"{acts(names, self.seat, 'plays')} {self.tile} {_end_words(self.end)}"
        if self.tiles_left == 0:
            out = "are out" if isinstance(names, Names) and names.you == self.seat else "is out"
            return text + f" and {out}: domino!"
        return text + "."


@dataclass(frozen=True, slots=True)
class Drew(Event):
    """``seat`` drew a tile; ``tile`` is known only to the drawer (DO-7)."""

    seat: int
    tile: Tile | None
    boneyard: int

    def for_seat(self, seat: int | None) -> Event | None:
        if seat == self.seat or self.tile is None:
            return self
        return replace(self, tile=None)

    def describe(self, names: Sequence[str]) -> str:
        what = str(self.tile) if self.tile is not None else "a tile"
        drew = acts(names, self.seat, "draws")
        return f"{drew} {what} ({self.boneyard} left in the boneyard)."


@dataclass(frozen=True, slots=True)
class Passed(Event):
    """``seat`` passed; ``passes`` is the run of consecutive passes (DO-11)."""

    seat: int
    passes: int

    def describe(self, names: Sequence[str]) -> str:
        return f"{acts(names, self.seat, 'passes')}."


_REASONS = {
    "domino": "domino",
    "blocked": "blocked",
    "passes": "everyone passed",
}


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    """The round ended and was scored (DO-10..DO-12, DO-14); all hands shown."""

    summary: RoundSummary

    def describe(self, names: Sequence[str]) -> str:
        s = self.summary
        head = f"Round {s.number} ends ({_REASONS.get(s.reason, s.reason)})"
        counts = ", ".join(f"{names[i]} {c}" for i, c in enumerate(s.counts))
        if not s.winners:
            return f"{head}: tie for the lowest count, nobody scores ({counts})."
        if len(s.winners) == 1:
            scorer = acts(names, s.winners[0], "scores", start=False)
            return f"{head}: {scorer} {s.points} ({counts})."
        return f"{head}: {joined(names, s.winners)} score {s.points} ({counts})."


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """Someone reached the target (DO-13, DO-14)."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    target: int

    def describe(self, names: Sequence[str]) -> str:
        points = plural(self.scores[self.winners[0]], "point")
        if len(self.winners) == 1:
            return f"{acts(names, self.winners[0], 'wins')} the game with {points}."
        who = joined(names, self.winners)
        return f"{who[0].upper()}{who[1:]} win the game with {points}."


__all__ = [
    "DRAW",
    "PASS",
    "TILES",
    "DominoAction",
    "Draw",
    "Drew",
    "End",
    "GameEnded",
    "Pass",
    "Passed",
    "Place",
    "Placed",
    "RoundEnded",
    "RoundStarted",
    "RoundSummary",
    "Tile",
    "TrainTile",
    "parse_action",
    "tile",
]
