"""Passe fashion: cards, features, slots, actions and events.

Cards are small ints 0..63 (``colour * 16 + cut * 4 + material``) so that the
state stays cheap to copy and to play out; every fact about a card comes from
precomputed tables. A card's text notation is three letters, one per
attribute, always in the order colour, cut, material:

* colour:   R red, U blue, K black, W white
* cut:      D dress, J jacket, T trousers, C coat
* material: S silk, W wool, O cotton, L leather

The position makes ``W`` unambiguous (white as the first letter, wool as the
third): ``KJW`` is a black wool jacket, ``WCS`` a white silk coat.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.engine import Action, Event, NotationError, acts, plural, seat_name

Card = int
"""A card id, 0..63."""

# -- attributes and features -------------------------------------------------

COLOUR, CUT, MATERIAL = 0, 1, 2
ATTRIBUTES = ("colour", "cut", "material")
VALUE_NAMES = (
    ("red", "blue", "black", "white"),
    ("dress", "jacket", "trousers", "coat"),
    ("silk", "wool", "cotton", "leather"),
)
LETTERS = ("RUKW", "DJTC", "SWOL")

# Accepted spellings of an attribute in the `change` notation.
_ATTRIBUTE_WORDS = {"colour": COLOUR, "color": COLOUR, "cut": CUT, "material": MATERIAL}

Feature = tuple[int, int]
"""A feature: (attribute, value), e.g. (COLOUR, 0) is "red"."""

# -- slots (FA-2) and bottom symbols (FA-1): the same four names ------------

STAR, MUST, BANNED, MONEY = 0, 1, 2, 3
SLOT_NAMES = ("star", "must", "banned", "money")

DECK_SIZE = 64


def _attrs(card: Card) -> tuple[int, int, int]:
    return (card >> 4) & 3, (card >> 2) & 3, card & 3


# Precomputed tables, indexed by card id.
CARD_ATTRS: tuple[tuple[int, int, int], ...] = tuple(_attrs(c) for c in range(DECK_SIZE))
# FA-1: number = 1 + ((k + m) mod 4) + 4 * ((c + m) mod 2)
NUMBER: tuple[int, ...] = tuple(1 + ((k + m) % 4) + 4 * ((c + m) % 2) for c, k, m in CARD_ATTRS)
# FA-1: bottom symbol = [star, must, banned, money][(c + k + m) mod 4]
SYMBOL: tuple[int, ...] = tuple((c + k + m) % 4 for c, k, m in CARD_ATTRS)
CODE: tuple[str, ...] = tuple(
    LETTERS[0][c] + LETTERS[1][k] + LETTERS[2][m] for c, k, m in CARD_ATTRS
)
_BY_CODE = {code: card for card, code in enumerate(CODE)}
# A set of cards as an int, bit ``c`` for card ``c``: the bots count a hand's
# cards by feature many times per decision, one ``&`` and ``bit_count`` each.
# FEATURE_CARDS[4 * attribute + value]: the cards with that feature;
# CARD_FEATURES[card]: the indices of its three features.
FEATURE_CARDS: tuple[int, ...] = tuple(
    sum(1 << c for c in range(DECK_SIZE) if CARD_ATTRS[c][a] == v)
    for a in range(3)
    for v in range(4)
)
CARD_FEATURES: tuple[tuple[int, int, int], ...] = tuple((c, 4 + k, 8 + m) for c, k, m in CARD_ATTRS)


def card_code(card: Card) -> str:
    """The three-letter notation of a card, e.g. ``RDS``."""
    return CODE[card]


def parse_card(text: str) -> Card:
    """The card named by a three-letter code (any case); NotationError if none."""
    card = _BY_CODE.get(text)  # the usual case, a view's own code: no copy made
    if card is None:
        card = _BY_CODE.get(text.strip().upper())
    if card is None:
        raise NotationError(
            f"{text!r} is not a card: write colour (R red, U blue, K black, W white), "
            "cut (D dress, J jacket, T trousers, C coat) and material "
            "(S silk, W wool, O cotton, L leather), e.g. RDS"
        )
    return card


def parse_cards(texts: Iterable[str]) -> list[Card]:
    """The cards named by three-letter codes (see :func:`parse_card`)."""
    return [parse_card(text) for text in texts]


def card_set(cards: Iterable[Card]) -> int:
    """``cards`` as a set of bits (see FEATURE_CARDS)."""
    bits = 0
    for card in cards:
        bits |= 1 << card
    return bits


def has_feature(card: Card, feature: Feature) -> bool:
    return CARD_ATTRS[card][feature[0]] == feature[1]


def card_feature(card: Card, attribute: int) -> Feature:
    return (attribute, CARD_ATTRS[card][attribute])


def feature_name(feature: Feature) -> str:
    return VALUE_NAMES[feature[0]][feature[1]]


def card_name(card: Card) -> str:
    """Words for a card, e.g. ``red silk dress (RDS)``."""
    c, k, m = CARD_ATTRS[card]
    return f"{VALUE_NAMES[0][c]} {VALUE_NAMES[2][m]} {VALUE_NAMES[1][k]} ({CODE[card]})"


def codes(cards: Sequence[Card]) -> str:
    return " ".join(CODE[c] for c in cards)


def card_names(cards: Sequence[Card]) -> str:
    """Cards as the log names them (issue 18: by code alone, "UTL KJS",
    they said nothing to a person): ``blue leather trousers (UTL) and
    black silk jacket (KJS)``, each in words with the code the hand shows."""
    named = [card_name(card) for card in cards]
    if len(named) <= 1:
        return "".join(named)
    return ", ".join(named[:-1]) + " and " + named[-1]


def shared_features(cards: Sequence[Card]) -> tuple[Feature, ...]:
    """The features every one of ``cards`` has (FA-11 condition 1)."""
    if not cards:
        return ()
    first = CARD_ATTRS[cards[0]]
    return tuple(
        (a, first[a]) for a in range(3) if all(CARD_ATTRS[c][a] == first[a] for c in cards)
    )


# -- actions ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bid(Action):
    """FA-7: secretly bid one card from hand in the auction."""

    card: Card

    def notation(self) -> str:
        return f"bid {CODE[self.card]}"


@dataclass(frozen=True, slots=True)
class Choose(Action):
    """FA-9: the auction winner names who plays (``first`` for the round's
    first player, ``next`` afterwards). The notation counts seats from 1."""

    seat: int
    first: bool

    def notation(self) -> str:
        return f"{'first' if self.first else 'next'} {self.seat + 1}"


@dataclass(frozen=True, slots=True)
class Take(Action):
    """FA-10: take two of the three offer cards (ids in ascending order)."""

    cards: tuple[Card, Card]

    def notation(self) -> str:
        return f"take {codes(self.cards)}"


@dataclass(frozen=True, slots=True)
class Collect(Action):
    """FA-11: announce a collection (ids in ascending order)."""

    cards: tuple[Card, ...]

    def notation(self) -> str:
        return f"collect {codes(self.cards)}"


@dataclass(frozen=True, slots=True)
class Change(Action):
    """FA-13: discard A (its symbol names the slot) and lay B on that slot,
    which now holds B's feature of ``attribute``.

    ``slot`` is optional: a player may also name the slot they mean to change
    (``change RDS KJW colour star``) and the engine then checks that A's symbol
    names it. The legal actions leave it out (None): A already decides.
    """

    a: Card
    b: Card
    attribute: int
    slot: int | None = None

    def notation(self) -> str:
        text = f"change {CODE[self.a]} {CODE[self.b]} {ATTRIBUTES[self.attribute]}"
        return text if self.slot is None else f"{text} {SLOT_NAMES[self.slot]}"


@dataclass(frozen=True, slots=True)
class End(Action):
    """FA-10: finish the turn without the optional action."""

    def notation(self) -> str:
        return "end"


FashionAction = Bid | Choose | Take | Collect | Change | End

_USAGE = (
    "actions are: bid RDS, first 2, next 2, take RDS KJW, "
    "collect RDS RJS RTS, change RDS KJW colour, end"
)


def parse_action(text: str) -> FashionAction:
    """The action written as ``text`` (case and surrounding spaces ignored)."""
    if not isinstance(text, str):
        raise NotationError(f"an action must be text, not {text!r}")
    words = text.strip().lower().split()
    if not words:
        raise NotationError(f"empty action; {_USAGE}")
    verb, args = words[0], words[1:]
    if verb == "end":
        if args:
            raise NotationError("end takes nothing after it")
        return End()
    if verb == "bid":
        if len(args) != 1:
            raise NotationError("bid names exactly one card, e.g. bid RDS")
        return Bid(parse_card(args[0]))
    if verb in ("first", "next"):
        if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= 99:
            raise NotationError(f"{verb} names one seat number counted from 1, e.g. {verb} 2")
        return Choose(int(args[0]) - 1, verb == "first")
    if verb == "take":
        if len(args) != 2:
            raise NotationError("take names exactly two offer cards, e.g. take RDS KJW")
        one, two = parse_card(args[0]), parse_card(args[1])
        if one == two:
            raise NotationError("take names two different cards")
        return Take((min(one, two), max(one, two)))
    if verb == "collect":
        if not args:
            raise NotationError("collect names the cards, e.g. collect RDS RJS RTS")
        cards = [parse_card(word) for word in args]
        if len(set(cards)) != len(cards):
            raise NotationError("a collection names each card once")
        return Collect(tuple(sorted(cards)))
    if verb == "change":
        if len(args) not in (3, 4):
            raise NotationError(
                "change names card A, card B and B's attribute, e.g. change RDS KJW colour "
                "(optionally followed by the slot: star, must, banned or money)"
            )
        slot: int | None = None
        if len(args) == 4:
            if args[3] not in SLOT_NAMES:
                raise NotationError(f"{args[3]!r} is not a slot: star, must, banned or money")
            slot = SLOT_NAMES.index(args[3])
        a, b = parse_card(args[0]), parse_card(args[1])
        attribute = _ATTRIBUTE_WORDS.get(args[2])
        if attribute is None:
            raise NotationError(f"{args[2]!r} is not an attribute: colour, cut or material")
        if a == b:
            raise NotationError("a rule change needs two different cards, A and B")
        return Change(a, b, attribute, slot)
    raise NotationError(f"unknown action {words[0]!r}; {_USAGE}")


# -- events -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuctionOpened(Event):
    """A round begins with its secret auction (FA-7)."""

    round: int
    bidders: int

    def describe(self, names: Sequence[str]) -> str:
        if not self.bidders:
            return f"Round {self.round}: nobody has a card to bid."
        return f"Round {self.round}: the auction opens; every designer with cards bids one."


@dataclass(frozen=True, slots=True)
class BidPlaced(Event):
    """A seat put a card face down (FA-7); the card is its own secret."""

    seat: int
    card: Card | None
    forced: bool = False

    def for_seat(self, seat: int | None) -> Event | None:
        if seat == self.seat or self.card is None:
            return self
        return BidPlaced(self.seat, None, self.forced)

    def describe(self, names: Sequence[str]) -> str:
        how = " (their only card)" if self.forced else ""
        if self.card is None:
            return f"{acts(names, self.seat, 'placed')} a bid{how}."
        return f"{acts(names, self.seat, 'bid')} {card_name(self.card)}{how}."


@dataclass(frozen=True, slots=True)
class BidsRevealed(Event):
    """All bids turned up together (FA-7) and the payment made (FA-8)."""

    bids: tuple[Card | None, ...]
    winner: int
    currency: bool
    paid: tuple[Card, ...]

    def describe(self, names: Sequence[str]) -> str:
        shown = ", ".join(
            f"{seat_name(names, s)} {card_name(card)}"
            for s, card in enumerate(self.bids)
            if card is not None
        )
        why = "best currency card" if self.currency else "highest number"
        if not shown:
            return (
                f"Nobody could bid; {acts(names, self.winner, 'wins', start=False)} the auction "
                "as first of the last order."
            )
        paid = f"; paid: {card_names(self.paid)}" if self.paid else ""
        return f"Bids: {shown}. {acts(names, self.winner, 'wins')} ({why}){paid}."


@dataclass(frozen=True, slots=True)
class PlayerChosen(Event):
    chooser: int
    seat: int
    forced: bool

    def describe(self, names: Sequence[str]) -> str:
        if self.forced:
            return f"{acts(names, self.seat, 'plays')} next (the only one left)."
        if self.chooser == self.seat:  # FA-9: the winner may choose themselves
            return f"{acts(names, self.chooser, 'chooses')} to play next."
        return f"{acts(names, self.chooser, 'chooses')} {seat_name(names, self.seat)} to play."


@dataclass(frozen=True, slots=True)
class CardsTaken(Event):
    seat: int
    cards: tuple[Card, ...]

    def describe(self, names: Sequence[str]) -> str:
        if not self.cards:
            return f"{acts(names, self.seat, 'finds')} the offer empty: nothing to take."
        return f"{acts(names, self.seat, 'takes')} {card_names(self.cards)} from the offer."


@dataclass(frozen=True, slots=True)
class OfferRefilled(Event):
    cards: tuple[Card, ...]

    def describe(self, names: Sequence[str]) -> str:
        return f"The offer is refilled with {card_names(self.cards)}."


@dataclass(frozen=True, slots=True)
class DeckExhausted(Event):
    """FA-14: the first time the discards become the deck; the second time the
    game ends with this round."""

    times: int
    new_deck: int

    def describe(self, names: Sequence[str]) -> str:
        if self.times == 1:
            return (
                f"The deck has run out: the discard pile is shuffled into a new deck "
                f"of {plural(self.new_deck, 'card')}."
            )
        return "The deck has run out a second time: the game ends after this round."


@dataclass(frozen=True, slots=True)
class CollectionAnnounced(Event):
    seat: int
    cards: tuple[Card, ...]
    scored: tuple[Card, ...]

    def describe(self, names: Sequence[str]) -> str:
        return (
            f"{acts(names, self.seat, 'announces')} a collection: {card_names(self.cards)}, "
            f"scoring {plural(len(self.scored), 'point')}."
        )


@dataclass(frozen=True, slots=True)
class RuleChanged(Event):
    seat: int
    a: Card
    b: Card
    slot: int
    feature: Feature
    replaced: Card

    def describe(self, names: Sequence[str]) -> str:
        return (
            f"{acts(names, self.seat, 'changes')} {SLOT_NAMES[self.slot].upper()} to "
            f"{feature_name(self.feature)}, laying {card_name(self.b)} on it and discarding "
            f"{card_name(self.a)}."
        )


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    seat: int
    forced: bool

    def describe(self, names: Sequence[str]) -> str:
        return f"{acts(names, self.seat, 'ends')} the turn."


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """FA-15/FA-16: the season collections are laid down; hands become public."""

    hands: tuple[tuple[Card, ...], ...]
    season: tuple[int, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]

    def describe(self, names: Sequence[str]) -> str:
        parts = ", ".join(
            f"{seat_name(names, s)} {score} ({self.season[s]} season)"
            for s, score in enumerate(self.scores)
        )
        who = " and ".join(seat_name(names, s) for s in self.winners)
        return f"Game over. Scores: {parts}. Winner: {who}."
