"""Pass Pass pieces, actions and events (PP-1, PP-2, PP-7..PP-23).

Cards are ints 0..47 inside the engine (``colour * 12 + value - 1``) for
speed, and :class:`Card` values everywhere else; every card and action is a
pre-built singleton so the hot path allocates nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from core.engine import Action, Event, NotationError, Piece, acts, joined, possessive


class Colour(IntEnum):
    """PP-1: the four colours. Letters are the notation and what the UI prints,
    so colour is never the only signal."""

    VIOLET = 0
    BLUE = 1
    GREEN = 2
    YELLOW = 3

    @property
    def letter(self) -> str:
        return COLOUR_LETTERS[self]

    @property
    def label(self) -> str:
        return self.name.lower()


COLOUR_LETTERS = "VBGY"
COLOURS = tuple(Colour)
VALUES = range(1, 13)
DECK_SIZE = 48
HAND_SIZE = 8  # PP-4
TRICKS_PER_ROUND = 8  # PP-6
ROUNDS = 3  # PP-6
PASS_PASS_TO_WIN = 3  # PP-19, PP-24

# PP-2 [interpretation]: the published diamond distribution is unknown. This
# default is the same for every colour and matches the rulebook's scoring
# example (G10 has 1 diamond, Y3 has 2, V11, V6, G4, B11 none). 44 in all.
DEFAULT_DIAMONDS: tuple[int, ...] = (3, 2, 2, 0, 1, 0, 1, 0, 1, 1, 0, 0)


@dataclass(frozen=True, slots=True)
class Card(Piece):
    """One of the 48 cards; notation ``V10`` (colour letter + value)."""

    colour: Colour
    value: int

    @property
    def index(self) -> int:
        return int(self.colour) * 12 + self.value - 1

    def __str__(self) -> str:
        return f"{COLOUR_LETTERS[self.colour]}{self.value}"

    def __repr__(self) -> str:
        return f"Card({self})"


CARDS: tuple[Card, ...] = tuple(Card(colour, value) for colour in COLOURS for value in VALUES)


def card_colour(card: int) -> int:
    return card // 12


def card_value(card: int) -> int:
    return card % 12 + 1


_CARD_RE = re.compile(r"^\s*([VBGY])\s*(1[0-2]|[1-9])\s*$", re.IGNORECASE)


def parse_card(text: str) -> Card:
    """``"v10"`` -> ``Card(V10)``; :class:`NotationError` with a reason otherwise."""
    match = _CARD_RE.match(text)
    if not match:
        raise NotationError(
            f"{text.strip()!r} is not a card: write a colour letter "
            "(V violet, B blue, G green, Y yellow) and a value 1-12, e.g. V10"
        )
    colour = COLOUR_LETTERS.index(match.group(1).upper())
    return CARDS[colour * 12 + int(match.group(2)) - 1]


# --------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class Play(Action):
    """PP-7: play a card from hand into the trick. Notation: ``V10``."""

    card: Card

    def notation(self) -> str:
        return str(self.card)


@dataclass(frozen=True, slots=True)
class Pick(Action):
    """PP-13: the first winner takes any one card of the trick. ``pick V10``."""

    card: Card

    def notation(self) -> str:
        return f"pick {self.card}"


@dataclass(frozen=True, slots=True)
class Take(Action):
    """PP-14: the second winner's choice among tied lowest cards. ``take G4 B4``
    (the two cards, in the engine's canonical order)."""

    cards: tuple[Card, Card]

    def notation(self) -> str:
        return f"take {self.cards[0]} {self.cards[1]}"


@dataclass(frozen=True, slots=True)
class Represent(Action):
    """PP-23: choose which partner represents the team for the round. ``rep 3``
    (seat number, 1-based like everything shown to people)."""

    seat: int

    def notation(self) -> str:
        return f"rep {self.seat + 1}"


PLAYS: tuple[Play, ...] = tuple(Play(card) for card in CARDS)
PICKS: tuple[Pick, ...] = tuple(Pick(card) for card in CARDS)


def make_take(first: int, second: int) -> Take:
    low, high = sorted((first, second))
    return Take((CARDS[low], CARDS[high]))


def parse_action(text: str) -> Action:
    words = text.strip().split()
    if not words:
        raise NotationError("empty action: write a card (V10), pick V10, take G4 B4 or rep 2")
    head = words[0].lower()
    if head == "pick" and len(words) == 2:
        return PICKS[parse_card(words[1]).index]
    if head == "take" and len(words) == 3:
        return make_take(parse_card(words[1]).index, parse_card(words[2]).index)
    if head == "rep" and len(words) == 2:
        if not words[1].isdigit() or int(words[1]) < 1:
            raise NotationError(f"rep takes a seat number from 1, not {words[1]!r}")
        return Represent(int(words[1]) - 1)
    if len(words) == 1:
        return PLAYS[parse_card(words[0]).index]
    raise NotationError(
        f"{text.strip()!r} is not a Pass Pass action: write a card (V10), "
        "pick V10, take G4 B4 or rep 2"
    )


# --------------------------------------------------------------------------
# Events (all public: played and won cards lie face up)


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(map(str, cards)) if cards else "nothing"


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    round: int
    leader: int

    def describe(self, names: Sequence[str]) -> str:
        return f"Round {self.round} is dealt; {acts(names, self.leader, 'leads', start=False)}."


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    seat: int
    card: Card

    def describe(self, names: Sequence[str]) -> str:
        return f"{acts(names, self.seat, 'plays')} {self.card}."


@dataclass(frozen=True, slots=True)
class TrickResolved(Event):
    """PP-9..PP-12: the colour ranking and the two winners."""

    majority: Colour
    strengths: tuple[tuple[Colour, int], ...]
    first_winner: int
    second_winner: int

    def describe(self, names: Sequence[str]) -> str:
        ranking = ", ".join(f"{colour.label} {strength}" for colour, strength in self.strengths)
        return (
            f"Majority {self.majority.label} ({ranking}): first {names[self.first_winner]}, "
            f"second {names[self.second_winner]}."
        )


@dataclass(frozen=True, slots=True)
class CardPicked(Event):
    seat: int
    card: Card

    def describe(self, names: Sequence[str]) -> str:
        return f"{acts(names, self.seat, 'picks')} {self.card}."


@dataclass(frozen=True, slots=True)
class CardsTaken(Event):
    seat: int
    cards: tuple[Card, ...]
    discarded: tuple[Card, ...]

    def describe(self, names: Sequence[str]) -> str:
        taken, discarded = _cards(self.cards), _cards(self.discarded)
        return f"{acts(names, self.seat, 'takes')} {taken}; discarded: {discarded}."


@dataclass(frozen=True, slots=True)
class PassPassChecked(Event):
    """PP-18: a player's count of complete colour sets rose."""

    seat: int
    round_count: int
    total: int

    def describe(self, names: Sequence[str]) -> str:
        checker = acts(names, self.seat, "checks")  # a sentence of its own
        return f"Pass Pass! {checker} one ({self.total} in all)."


@dataclass(frozen=True, slots=True)
class RepresentativeChosen(Event):
    """PP-23: a team's representative for the round."""

    team: int
    seat: int
    chosen_by: int

    def describe(self, names: Sequence[str]) -> str:
        if self.seat == self.chosen_by:
            return f"{acts(names, self.seat, 'scores')} for the team this round."
        return f"{acts(names, self.chosen_by, 'picks')} {names[self.seat]} to score for the team."


@dataclass(frozen=True, slots=True)
class RoundScored(Event):
    """PP-20; in team mode (PP-23) every seat carries its team's figures and
    ``representatives`` names, per team, the player who scored for it."""

    round: int
    points: tuple[int, ...]
    pass_pass: tuple[int, ...]
    representatives: tuple[int, ...] = ()

    def describe(self, names: Sequence[str]) -> str:
        if self.representatives:
            parts = ", ".join(
                f"{possessive(names, rep)} team {self.points[rep]}" for rep in self.representatives
            )
        else:
            parts = ", ".join(f"{names[seat]} {points}" for seat, points in enumerate(self.points))
        return f"Round {self.round} scored: {parts}."


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    winners: tuple[int, ...]
    reason: str

    def describe(self, names: Sequence[str]) -> str:
        if len(self.winners) == 1:  # "you win", "Ada wins"
            who = acts(names, self.winners[0], "wins", start=False)
            return f"Game over: {who} ({self.reason})."
        return f"Game over: {joined(names, self.winners)} win ({self.reason})."
