"""Passe fashion: configuration, the game state machine and the views.

The round (FA-7..FA-10) is a small state machine:

* ``AUCTION`` -- simultaneous secret bids; every seat holding a card bids.
* ``CHOOSE``  -- the auction winner names the next player (FA-9).
* ``TAKE``    -- that player takes two of the three offer cards (FA-10).
* ``ACTION``  -- then at most one action: collect, change a rule, or end.

Decisions with exactly one possibility are made by the engine itself (a bid
with a single card, the last player to choose, taking an offer of fewer than
three cards, ending a turn with fewer than two cards in hand); they are not in
the history, so a replay re-derives them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from core.engine import Config, ConfigError, Event, GameState, IllegalAction, Result, View
from core.fashion.model import (
    ATTRIBUTES,
    BANNED,
    CARD_ATTRS,
    CODE,
    DECK_SIZE,
    FEATURE_CARDS,
    MONEY,
    MUST,
    NUMBER,
    SLOT_NAMES,
    STAR,
    SYMBOL,
    VALUE_NAMES,
    AuctionOpened,
    Bid,
    BidPlaced,
    BidsRevealed,
    Card,
    CardsTaken,
    Change,
    Choose,
    Collect,
    CollectionAnnounced,
    DeckExhausted,
    End,
    FashionAction,
    Feature,
    GameEnded,
    OfferRefilled,
    PlayerChosen,
    RuleChanged,
    Take,
    TurnEnded,
    card_name,
    card_set,
    feature_name,
    has_feature,
    shared_features,
)

PAYMENTS = ("winner", "everyone", "nobody")
# FA-15: how the season collection is judged. ``table`` (the default, an
# interpretation): the hand meets the table's conditions, at least one MUST card
# and no BANNED card. ``strict``: the whole hand must be a valid FA-11 collection.
SEASONS = ("table", "strict")
HAND_SIZE = 5  # FA-4
OFFER_SIZE = 3  # FA-5

AUCTION, CHOOSE, TAKE, ACTION, OVER = range(5)
PHASE_NAMES = ("auction", "choose", "take", "action", "over")


@dataclass(frozen=True, kw_only=True)
class FashionConfig(Config):
    """2 to 8 players, no teams. ``payment`` (FA-8): ``winner`` (the default:
    only the winning bid is paid), ``everyone`` (every bid is paid) or
    ``nobody`` (every bid returns to its owner). ``season`` (FA-15): ``table``
    (the default: the hand left needs a MUST card and no BANNED card) or
    ``strict`` (it must also be a valid collection, FA-11)."""

    payment: str = "winner"
    season: str = "table"

    MIN_PLAYERS: ClassVar[int] = 2
    MAX_PLAYERS: ClassVar[int] = 8

    def validate(self) -> None:
        if self.teams:
            raise ConfigError("Passe fashion is played every designer for themself: no teams")
        if self.payment not in PAYMENTS:
            raise ConfigError(f"payment must be one of {', '.join(PAYMENTS)}, not {self.payment!r}")
        if self.season not in SEASONS:
            raise ConfigError(
                f"season must be table (the default: the hand left needs a MUST card and "
                f"no BANNED card) or strict (it must also be a valid collection), "
                f"not {self.season!r}"
            )


@dataclass(frozen=True, kw_only=True)
class SlotInfo:
    """One rule slot (FA-2): its name, the feature it holds and the card on it."""

    slot: str
    attribute: str
    value: str
    card: str


@dataclass(frozen=True, kw_only=True)
class FashionView(View):
    """What one seat may know. Cards are three-letter codes (see model.py)."""

    phase: str
    round: int
    payment: str
    season: str
    hand: tuple[str, ...]
    my_bid: str | None
    hand_sizes: tuple[int, ...]
    has_bid: tuple[bool, ...]
    bids: tuple[str | None, ...]
    auction_winner: int | None
    piles: tuple[tuple[str, ...], ...]
    points: tuple[int, ...]
    season_points: tuple[int, ...] | None
    season_hands: tuple[tuple[str, ...], ...] | None
    offer: tuple[str, ...]
    slots: tuple[SlotInfo, ...]
    deck_size: int
    discard_size: int
    exhaustions: int
    last_round: bool
    previous_order: tuple[int, ...]
    order: tuple[int, ...]
    current: int | None
    waiting: tuple[int, ...]
    # Facts every player at the table has seen (they are shown in public),
    # for a search bot's sampler (core/fashion/sampler.py): per seat, the
    # cards known to be in that hand (taken from the offer, FA-10, or a
    # revealed bid that stayed, FA-8); the discard pile's cards, every one
    # shown as it went there (FA-3, FA-8, FA-12, FA-13); and once the deck
    # was remade from the discards (FA-14), its cards (in no known order).
    known_hands: tuple[tuple[str, ...], ...] = ()
    discard: tuple[str, ...] = ()
    deck_cards: tuple[str, ...] = ()


def collection_problem(
    cards: tuple[Card, ...] | list[Card], slot_features: list[Feature]
) -> str | None:
    """Why ``cards`` is not a valid collection under FA-11, or None if it is.

    The checks run in the order a player building a collection card by card
    meets them, so the same words explain a partial selection in the UI and a
    refused announcement in the engine.
    """
    must, banned = slot_features[MUST], slot_features[BANNED]
    if must == banned:  # FA-13
        return (
            f"MUST and BANNED both name {feature_name(must)}: no collection is valid "
            "until one of them changes (FA-13)"
        )
    for card in cards:
        if has_feature(card, banned):
            return f"{CODE[card]} has the BANNED feature {feature_name(banned)}: it is passé"
    if len(cards) >= 2 and not shared_features(cards):
        return "the cards must share a colour, a cut or a material (FA-11)"
    if cards and not any(has_feature(card, must) for card in cards):
        return f"needs a card with the MUST feature: {feature_name(must)}"
    if len(cards) < 3:
        return "a collection needs at least three cards (FA-11)"
    return None


def season_problem(
    hand: tuple[Card, ...] | list[Card], slot_features: list[Feature], season: str
) -> str | None:
    """Why ``hand`` does not score as a season collection (FA-15), or None.

    ``season`` is the config's reading: ``table`` asks only the table's
    conditions (a MUST card, no BANNED card) of a hand of any size;
    ``strict`` asks for a valid FA-11 collection.
    """
    if season == "strict":
        return collection_problem(hand, slot_features)
    must, banned = slot_features[MUST], slot_features[BANNED]
    if must == banned:  # FA-13: no hand can hold the feature and lack it
        return f"MUST and BANNED both name {feature_name(must)}: no hand can meet both"
    for card in hand:
        if has_feature(card, banned):
            return f"{CODE[card]} has the BANNED feature {feature_name(banned)}: it is passé"
    if not any(has_feature(card, must) for card in hand):
        return f"needs a card with the MUST feature: {feature_name(must)}"
    return None


def season_points(
    hand: tuple[Card, ...] | list[Card], slot_features: list[Feature], season: str
) -> int:
    """FA-15: 3 points per STAR card of a hand that meets the conditions."""
    if season_problem(hand, slot_features, season) is not None:
        return 0
    star = slot_features[STAR]
    return 3 * sum(1 for card in hand if has_feature(card, star))


def valid_collections(hand: list[Card], slot_features: list[Feature]) -> list[tuple[Card, ...]]:
    """Every valid collection (FA-11) in ``hand``, each sorted, in a fixed order.

    Built per shared feature over the non-banned cards, as bitmasks so that a
    set sharing two features is listed once.
    """
    must_a, must_v = slot_features[MUST]
    ban_a, ban_v = slot_features[BANNED]
    if (must_a, must_v) == (ban_a, ban_v):
        return []  # FA-13: nothing can have the feature and lack it
    usable = sorted(c for c in hand if CARD_ATTRS[c][ban_a] != ban_v)
    usable_cards = card_set(usable)
    must_cards = FEATURE_CARDS[4 * must_a + must_v]
    seen: set[int] = set()
    out: list[tuple[Card, ...]] = []
    for feature_cards in FEATURE_CARDS:  # colour, cut, material; each value
        in_group = usable_cards & feature_cards
        if in_group.bit_count() < 3 or not in_group & must_cards:
            continue
        group = [c for c in usable if in_group >> c & 1]
        must_mask = 0
        for i, c in enumerate(group):
            if must_cards >> c & 1:
                must_mask |= 1 << i
        # Each subset's cards (ascending) and card bits, from the subset
        # without its lowest member: one step per subset.
        members: list[tuple[Card, ...]] = [()]
        keys = [0]
        for subset in range(1, 1 << len(group)):
            lowest = subset & -subset
            card = group[lowest.bit_length() - 1]
            members.append((card, *members[subset ^ lowest]))
            keys.append(keys[subset ^ lowest] | 1 << card)
            if not subset & must_mask or subset.bit_count() < 3:
                continue
            key = keys[subset]
            if key in seen:
                continue
            seen.add(key)
            out.append(members[subset])
    return out


class FashionState(GameState[FashionConfig, FashionAction, FashionView]):
    """A game of Passe fashion in progress."""

    game_id: ClassVar[str] = "fashion"

    def __init__(self, config: FashionConfig, seed: int) -> None:
        super().__init__(config, seed)
        n = config.players
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        self.bids: list[Card | None] = [None] * n  # pending, secret (FA-7)
        self.revealed: tuple[Card | None, ...] = (None,) * n  # last revealed bids
        self.winner: int | None = None
        self.deck: list[Card] = []
        self.discard: list[Card] = []
        self.offer: list[Card] = []
        self.slot_cards: list[Card] = [0, 0, 0, 0]
        self.slot_attrs: list[int] = [0, 0, 0, 0]
        self.piles: list[list[Card]] = [[] for _ in range(n)]
        # Cards publicly known to be in each hand (see FashionView.known_hands).
        self.known: list[set[Card]] = [set() for _ in range(n)]
        self.season: list[int] | None = None
        self.prev_order: list[int] = []
        self.order: list[int] = []
        self.current: int | None = None
        self.phase = AUCTION
        self.exhaustions = 0
        self.last_round = False
        self.round = 1
        self._result: Result | None = None
        self.collections = 0  # counters for statistics()
        self.changes = 0
        self._setup()
        self.opening_events = (self._auction_opened(),)

    # -- setup (FA-3..FA-6) ---------------------------------------------------

    def _setup(self) -> None:
        rng = self.rng
        deck = list(range(DECK_SIZE))
        rng.shuffle(deck)
        self.deck = deck
        # FA-3: each slot from a turned card and a random attribute of it;
        # MUST and BANNED may not start on the same feature.
        for slot in (STAR, MUST, BANNED, MONEY):
            while True:
                card = deck.pop()
                attribute = rng.randrange(3)
                feature = (attribute, CARD_ATTRS[card][attribute])
                if slot == BANNED and feature == self.slot_feature(MUST):
                    self.discard.append(card)
                    continue
                self.slot_cards[slot] = card
                self.slot_attrs[slot] = attribute
                break
        for _ in range(HAND_SIZE):  # FA-4
            for hand in self.hands:
                hand.append(deck.pop())
        for _ in range(OFFER_SIZE):  # FA-5
            self.offer.append(deck.pop())
        start = rng.randrange(self.players)  # FA-6
        self.prev_order = [(start + i) % self.players for i in range(self.players)]
        self._settle([])

    @classmethod
    def from_position(
        cls,
        config: FashionConfig,
        *,
        hands: list[list[Card]],
        offer: list[Card],
        deck: list[Card],
        discard: list[Card],
        slots: list[tuple[Card, int]],
        piles: list[list[Card]] | None = None,
        prev_order: list[int] | None = None,
        exhaustions: int = 0,
        seed: int = 0,
    ) -> FashionState:
        """A hand-built position at the start of an auction, for tests and puzzles.

        ``slots`` gives (card, attribute) for STAR, MUST, BANNED, MONEY; the deck
        is drawn from its end. The 64 cards must each appear exactly once.
        """
        state = cls(config, seed)
        n = config.players
        state.hands = [list(h) for h in hands]
        state.offer = list(offer)
        state.deck = list(deck)
        state.discard = list(discard)
        state.slot_cards = [c for c, _ in slots]
        state.slot_attrs = [a for _, a in slots]
        state.piles = [list(p) for p in piles] if piles else [[] for _ in range(n)]
        state.known = [set() for _ in range(n)]
        state.prev_order = list(prev_order) if prev_order else list(range(n))
        state.exhaustions = exhaustions
        state.last_round = exhaustions >= 2
        state.bids = [None] * n
        state.revealed = (None,) * n
        state.winner = None
        state.order = []
        state.current = None
        state.phase = AUCTION
        if len(hands) != n or len(slots) != 4:
            raise ValueError("one hand per seat and four slots")
        everything = sorted(state._all_cards())
        if everything != list(range(DECK_SIZE)):
            raise ValueError("a position must hold each of the 64 cards exactly once")
        state._settle([])
        return state

    def _all_cards(self) -> list[Card]:
        cards = list(self.deck) + self.discard + self.offer + self.slot_cards
        for hand in self.hands:
            cards += hand
        for pile in self.piles:
            cards += pile
        return cards

    # -- queries ------------------------------------------------------------

    def slot_feature(self, slot: int) -> Feature:
        attribute = self.slot_attrs[slot]
        return (attribute, CARD_ATTRS[self.slot_cards[slot]][attribute])

    def slot_features(self) -> list[Feature]:
        return [self.slot_feature(s) for s in range(4)]

    @property
    def to_act(self) -> tuple[int, ...]:
        phase = self.phase
        if phase == AUCTION:
            return tuple(s for s in range(self.players) if self.hands[s] and self.bids[s] is None)
        if phase == CHOOSE:
            assert self.winner is not None
            return (self.winner,)
        if phase in (TAKE, ACTION):
            assert self.current is not None
            return (self.current,)
        return ()

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def result(self) -> Result | None:
        return self._result

    def waiting(self) -> tuple[int, ...]:
        """Seats that have not yet played this round (FA-9)."""
        played = set(self.order)
        return tuple(s for s in range(self.players) if s not in played)

    def legal_actions(self, seat: int) -> tuple[FashionAction, ...]:
        if seat not in self.to_act:
            return ()
        phase = self.phase
        if phase == AUCTION:
            return tuple(Bid(c) for c in sorted(self.hands[seat]))
        if phase == CHOOSE:
            first = not self.order
            return tuple(Choose(s, first) for s in self.waiting())
        if phase == TAKE:
            a, b, c = sorted(self.offer)
            return (Take((a, b)), Take((a, c)), Take((b, c)))
        hand = sorted(self.hands[seat])
        actions: list[FashionAction] = [End()]
        actions += [Collect(cards) for cards in valid_collections(hand, self.slot_features())]
        for a in hand:
            for b in hand:
                if a != b:
                    actions += _changes(a, b)
        return tuple(actions)

    # -- applying actions -----------------------------------------------------

    def _apply(self, seat: int, action: FashionAction) -> tuple[Event, ...]:
        phase = self.phase
        events: list[Event] = []
        if isinstance(action, Bid):
            if phase != AUCTION:
                raise IllegalAction("bids are made only in the auction at the start of a round")
            if action.card not in self.hands[seat]:
                raise IllegalAction(
                    f"you can only bid a card from your hand, not {CODE[action.card]}"
                )
            self.bids[seat] = action.card
            events.append(BidPlaced(seat, action.card))
        elif isinstance(action, Choose):
            if phase != CHOOSE:
                raise IllegalAction(
                    "the next player is chosen only by the auction winner, between turns"
                )
            if not isinstance(action.seat, int) or not 0 <= action.seat < self.players:
                raise IllegalAction(f"there is no seat {action.seat + 1} at this table")
            if action.seat in self.order:
                raise IllegalAction(f"seat {action.seat + 1} has already played this round")
            if action.first != (not self.order):
                word = "first" if not self.order else "next"
                raise IllegalAction(
                    f"write {word} {action.seat + 1}: this is the {word} player of the round"
                )
            self._start_turn(action.seat, seat, False, events)
        elif isinstance(action, Take):
            if phase != TAKE:
                raise IllegalAction("cards are taken from the offer only at the start of your turn")
            if len(set(action.cards)) != 2:
                raise IllegalAction("take two different cards")
            for card in action.cards:
                if card not in self.offer:
                    raise IllegalAction(f"{CODE[card]} is not in the offer")
            self._take(seat, list(action.cards), events)
        elif isinstance(action, Collect):
            self._check_action_phase(phase)
            hand = self.hands[seat]
            if len(set(action.cards)) != len(action.cards):
                raise IllegalAction("a collection names each card once")
            for card in action.cards:
                if card not in hand:
                    raise IllegalAction(f"{CODE[card]} is not in your hand")
            problem = collection_problem(action.cards, self.slot_features())
            if problem is not None:
                raise IllegalAction(problem)
            self._collect(seat, action.cards, events)
        elif isinstance(action, Change):
            self._check_action_phase(phase)
            hand = self.hands[seat]
            if action.a == action.b:
                raise IllegalAction("a rule change needs two different cards, A and B")
            for card in (action.a, action.b):
                if card not in hand:
                    raise IllegalAction(f"{CODE[card]} is not in your hand")
            if action.attribute not in (0, 1, 2):
                raise IllegalAction("the slot takes B's colour, cut or material")
            if action.slot is not None and SYMBOL[action.a] != action.slot:
                raise IllegalAction(
                    f"{card_name(action.a)} has the {SLOT_NAMES[SYMBOL[action.a]].upper()} "
                    f"symbol: it cannot change the {SLOT_NAMES[action.slot].upper()} slot"
                )
            self._change(seat, action, events)
        elif isinstance(action, End):
            self._check_action_phase(phase)
            events.append(TurnEnded(seat, False))
            self._end_turn()
        else:
            raise IllegalAction(f"{action!r} is not a Passe fashion action")
        self._settle(events)
        return tuple(events)

    def _check_action_phase(self, phase: int) -> None:
        if phase == TAKE:
            raise IllegalAction("take two cards from the offer first")
        if phase != ACTION:
            raise IllegalAction("collections and rule changes happen only in your turn")

    # -- the steps of a round ---------------------------------------------------

    def _resolve_auction(self, events: list[Event]) -> None:
        """FA-7 and FA-8: reveal, find the winner, pay."""
        money_a, money_v = self.slot_feature(MONEY)
        rank = {s: i for i, s in enumerate(self.prev_order)}
        best: tuple[int, int, int] | None = None
        winner = self.prev_order[0]  # FA-7: nobody could bid
        currency = False
        for s, card in enumerate(self.bids):
            if card is None:
                continue
            is_money = CARD_ATTRS[card][money_a] == money_v
            key = (1 if is_money else 0, NUMBER[card], -rank[s])
            if best is None or key > best:
                best, winner, currency = key, s, is_money
        payment = self.config.payment
        paid: list[Card] = []
        for s, card in enumerate(self.bids):
            if card is None:
                continue
            if payment == "everyone" or (payment == "winner" and s == winner):
                self.hands[s].remove(card)
                self.discard.append(card)
                paid.append(card)
                self.known[s].discard(card)
            else:
                self.known[s].add(card)  # revealed, and back in the hand
        self.revealed = tuple(self.bids)
        events.append(BidsRevealed(self.revealed, winner, currency, tuple(paid)))
        self.bids = [None] * self.players
        self.winner = winner
        self.order = []
        self.phase = CHOOSE

    def _start_turn(self, seat: int, chooser: int, forced: bool, events: list[Event]) -> None:
        events.append(PlayerChosen(chooser, seat, forced))
        self.order.append(seat)
        self.current = seat
        self.phase = TAKE

    def _take(self, seat: int, cards: list[Card], events: list[Event]) -> None:
        """FA-10: take, then refill the offer to three from the deck (FA-14)."""
        for card in cards:
            self.offer.remove(card)
            self.hands[seat].append(card)
            self.known[seat].add(card)
        events.append(CardsTaken(seat, tuple(cards)))
        drawn: list[Card] = []
        while len(self.offer) < OFFER_SIZE and self.exhaustions < 2:
            if not self.deck:
                # Only a hand-built position starts with an empty deck still in
                # play: a deck with no card to draw has run out too.
                self._run_out(drawn, events)
                continue
            card = self.deck.pop()
            self.offer.append(card)
            drawn.append(card)
            if not self.deck:
                # FA-14 [interpretation]: the deck runs out when its last card
                # is drawn, not when a later draw finds it empty.
                self._run_out(drawn, events)
        if drawn:
            events.append(OfferRefilled(tuple(drawn)))
        self.phase = ACTION

    def _run_out(self, drawn: list[Card], events: list[Event]) -> None:
        """FA-14: the first time the discard pile becomes the new deck; the
        second time the game ends with the current round. The cards drawn so
        far are reported first, so the events keep the order of the table."""
        if drawn:
            events.append(OfferRefilled(tuple(drawn)))
            drawn.clear()
        self.exhaustions += 1
        if self.exhaustions == 1:
            self.deck = self.discard
            self.discard = []
            self.rng.shuffle(self.deck)
        else:
            self.last_round = True
        events.append(DeckExhausted(self.exhaustions, len(self.deck)))
        if not self.deck and self.exhaustions == 1:
            # An empty discard pile makes an empty new deck: nothing of it can
            # be drawn, so it has run out as it was made, the second time.
            self._run_out(drawn, events)

    def _collect(self, seat: int, cards: tuple[Card, ...], events: list[Event]) -> None:
        """FA-12: STAR cards to the point pile, the rest to the discards."""
        star_a, star_v = self.slot_feature(STAR)
        hand = self.hands[seat]
        scored: list[Card] = []
        for card in cards:
            hand.remove(card)
            self.known[seat].discard(card)
            if CARD_ATTRS[card][star_a] == star_v:
                self.piles[seat].append(card)
                scored.append(card)
            else:
                self.discard.append(card)
        events.append(CollectionAnnounced(seat, cards, tuple(scored)))
        self.collections += 1
        self._end_turn()

    def _change(self, seat: int, action: Change, events: list[Event]) -> None:
        """FA-13: A's symbol names the slot; B lies on it with the named feature."""
        slot = SYMBOL[action.a]
        hand = self.hands[seat]
        hand.remove(action.a)
        hand.remove(action.b)
        self.known[seat].difference_update((action.a, action.b))
        replaced = self.slot_cards[slot]
        self.discard.append(replaced)
        self.discard.append(action.a)
        self.slot_cards[slot] = action.b
        self.slot_attrs[slot] = action.attribute
        feature = (action.attribute, CARD_ATTRS[action.b][action.attribute])
        events.append(RuleChanged(seat, action.a, action.b, slot, feature, replaced))
        self.changes += 1
        self._end_turn()

    def _end_turn(self) -> None:
        self.current = None
        self.phase = CHOOSE

    def _settle(self, events: list[Event]) -> None:
        """Play every forced step until a real decision (or the end) is due."""
        while True:
            phase = self.phase
            if phase == AUCTION:
                for s in range(self.players):
                    if len(self.hands[s]) == 1 and self.bids[s] is None:
                        self.bids[s] = self.hands[s][0]
                        events.append(BidPlaced(s, self.hands[s][0], True))
                if any(self.hands[s] and self.bids[s] is None for s in range(self.players)):
                    return
                self._resolve_auction(events)
            elif phase == CHOOSE:
                waiting = self.waiting()
                if not waiting:
                    self._end_round(events)
                elif len(waiting) == 1:
                    assert self.winner is not None
                    self._start_turn(waiting[0], self.winner, True, events)
                else:
                    return
            elif phase == TAKE:
                if len(self.offer) >= OFFER_SIZE:
                    return
                assert self.current is not None
                self._take(self.current, list(self.offer), events)
            elif phase == ACTION:
                assert self.current is not None
                if len(self.hands[self.current]) >= 2:
                    return
                events.append(TurnEnded(self.current, True))
                self._end_turn()
            else:
                return

    def _end_round(self, events: list[Event]) -> None:
        self.prev_order = self.order
        self.order = []
        if self.last_round:  # FA-14
            self._finish(events)
            return
        self.round += 1
        self.winner = None
        self.phase = AUCTION
        events.append(self._auction_opened())

    def _auction_opened(self) -> AuctionOpened:
        return AuctionOpened(self.round, sum(1 for hand in self.hands if hand))

    def _finish(self, events: list[Event]) -> None:
        """FA-15 season collections and FA-16 ranking."""
        features = self.slot_features()
        season = [season_points(hand, features, self.config.season) for hand in self.hands]
        self.season = season
        scores = tuple(len(self.piles[s]) + season[s] for s in range(self.players))
        top = max(scores)
        leaders = [s for s in range(self.players) if scores[s] == top]
        reason = "most points"
        if len(leaders) > 1:
            best_season = max(season[s] for s in leaders)
            leaders = [s for s in leaders if season[s] == best_season]
            reason = "most points, tie broken by season points"
            if len(leaders) > 1:
                reason = "shared: equal points and equal season points"
        self._result = Result(
            winners=tuple(leaders), shared=len(leaders) > 1, scores=scores, reason=reason
        )
        self.phase = OVER
        self.current = None
        events.append(
            GameEnded(tuple(tuple(h) for h in self.hands), tuple(season), scores, tuple(leaders))
        )

    # -- views ----------------------------------------------------------------

    def view(self, seat: int | None) -> FashionView:
        own = seat is not None and 0 <= seat < self.players
        bid = self.bids[seat] if own and seat is not None else None
        slots = tuple(
            SlotInfo(
                slot=SLOT_NAMES[s],
                attribute=ATTRIBUTES[self.slot_attrs[s]],
                value=VALUE_NAMES[self.slot_attrs[s]][
                    CARD_ATTRS[self.slot_cards[s]][self.slot_attrs[s]]
                ],
                card=CODE[self.slot_cards[s]],
            )
            for s in range(4)
        )
        over = self.phase == OVER
        return FashionView(
            game=self.game_id,
            seat=seat,
            players=self.players,
            to_act=self.to_act,
            legal=self.legal_actions(seat) if own and seat is not None else (),
            is_over=over,
            result=self._result,
            phase=PHASE_NAMES[self.phase],
            round=self.round,
            payment=self.config.payment,
            season=self.config.season,
            hand=tuple(CODE[c] for c in sorted(self.hands[seat]))
            if own and seat is not None
            else (),
            my_bid=CODE[bid] if bid is not None else None,
            hand_sizes=tuple(len(h) for h in self.hands),
            has_bid=tuple(b is not None for b in self.bids),
            bids=tuple(CODE[c] if c is not None else None for c in self.revealed),
            auction_winner=self.winner,
            piles=tuple(tuple(CODE[c] for c in p) for p in self.piles),
            points=tuple(len(p) for p in self.piles),
            season_points=tuple(self.season) if self.season is not None else None,
            season_hands=tuple(tuple(CODE[c] for c in sorted(h)) for h in self.hands)
            if over
            else None,
            offer=tuple(CODE[c] for c in self.offer),
            slots=slots,
            deck_size=len(self.deck),
            discard_size=len(self.discard),
            exhaustions=self.exhaustions,
            last_round=self.last_round,
            previous_order=tuple(self.prev_order),
            order=tuple(self.order),
            current=self.current,
            waiting=self.waiting() if self.phase in (CHOOSE, TAKE, ACTION) else (),
            known_hands=tuple(tuple(CODE[c] for c in sorted(known)) for known in self.known),
            discard=tuple(CODE[c] for c in self.discard),
            # FA-14: the remade deck holds the discards, every one public.
            deck_cards=tuple(CODE[c] for c in sorted(self.deck)) if self.exhaustions else (),
        )

    def statistics(self) -> dict[str, int]:
        """Counters for ``passe simulate``: means per game in its summary.

        ``season_points`` is the season points of all seats together (FA-15),
        ``season_hands`` how many final hands scored any, and
        ``season_tiebreaks`` whether season points narrowed a tie on points
        (FA-16): the figures that tell how much the season reading matters.
        """
        season = self.season or []
        result = self._result
        tiebreak = result is not None and result.scores.count(max(result.scores)) > len(
            result.winners
        )
        return {
            "rounds_per_game": self.round,
            "collections": self.collections,
            "rule_changes": self.changes,
            "season_points": sum(season),
            "season_hands": sum(1 for points in season if points),
            "season_tiebreaks": int(tiebreak),
        }

    def snapshot(self) -> dict[str, Any]:
        """Every internal field, as plain values: equal snapshots = equal states."""
        return {
            "hands": [list(h) for h in self.hands],
            "bids": list(self.bids),
            "revealed": self.revealed,
            "winner": self.winner,
            "deck": list(self.deck),
            "discard": list(self.discard),
            "offer": list(self.offer),
            "slots": (list(self.slot_cards), list(self.slot_attrs)),
            "piles": [list(p) for p in self.piles],
            "known": [sorted(k) for k in self.known],
            "season": self.season,
            "prev_order": list(self.prev_order),
            "order": list(self.order),
            "current": self.current,
            "phase": self.phase,
            "exhaustions": self.exhaustions,
            "last_round": self.last_round,
            "round": self.round,
            "counters": (self.collections, self.changes),
            "result": self._result,
            "history": list(self.history),
            "rng": self.rng.getstate(),
        }


@cache
def _changes(a: Card, b: Card) -> tuple[Change, Change, Change]:
    """The three rule changes with cards A and B (FA-13), built once: the
    action step lists them for every pair of cards in hand (the hot path)."""
    return (Change(a, b, 0), Change(a, b, 1), Change(a, b, 2))
