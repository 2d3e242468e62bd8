"""Passe fashion determinizations: a full state consistent with one seat's view.

Respected exactly: the seat's own hand and bid; every hand's size; the
cards publicly known to be in a hand (taken from the offer, FA-10, or a
revealed bid that stayed, FA-8); the offer, the slots, the point piles and
the discard pile (every card shown as it went there); the deck's size and,
once it was remade from the discards (FA-14), its cards.

A hand's other cards come from its first deal (FA-4), never shown: they are
drawn uniformly from the cards no one has seen, and before the first run-out
the rest of those cards is the deck, in random order. A pending secret bid
(FA-7) is what a given policy bids in the bidder's seat of the sample, seeing
what that seat sees (a search bot's heuristic), or a random card of the
bidder's sampled hand.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from core.engine import Action
from core.fashion.model import ATTRIBUTES, DECK_SIZE, Bid, parse_card, parse_cards
from core.fashion.state import PHASE_NAMES, FashionConfig, FashionState, FashionView
from core.search import Sampler


@dataclass(frozen=True)
class _Public:
    """What a view shows of the cards, as card ids (parsed once per view: a
    search samples the same view many times)."""

    own: list[int]
    known: list[list[int]]
    offer: list[int]
    discard: list[int]
    deck_cards: list[int]
    piles: list[list[int]]
    slot_cards: list[int]
    slot_attrs: list[int]
    revealed: tuple[int | None, ...]
    unseen: list[int]  # ascending: the cards nobody has seen

    @classmethod
    def of(cls, view: FashionView, seat: int) -> _Public:
        own = parse_cards(view.hand)
        known = [parse_cards(cards) for cards in view.known_hands]
        offer = parse_cards(view.offer)
        discard = parse_cards(view.discard)
        deck_cards = parse_cards(view.deck_cards)
        piles = [parse_cards(pile) for pile in view.piles]
        slot_cards = [parse_card(slot.card) for slot in view.slots]
        seen = set(own)
        for other in range(view.players):
            if other != seat:
                seen.update(known[other])
            seen.update(piles[other])
        seen.update(offer)
        seen.update(discard)
        seen.update(deck_cards)
        seen.update(slot_cards)
        return cls(
            own=own,
            known=known,
            offer=offer,
            discard=discard,
            deck_cards=deck_cards,
            piles=piles,
            slot_cards=slot_cards,
            slot_attrs=[ATTRIBUTES.index(slot.attribute) for slot in view.slots],
            revealed=tuple(None if code is None else parse_card(code) for code in view.bids),
            unseen=[card for card in range(DECK_SIZE) if card not in seen],
        )


class FashionSampler(Sampler[FashionView, FashionState]):
    """``bid_policy(state, seat)``, if given, makes each pending secret bid
    (FA-7) in the sampled state, reading only what ``state.view(seat)``
    shows (a search bot passes its heuristic's ``choose_in_sample``: bids
    follow a player's plan, not chance); without it a pending bid is a
    random card of the bidder's sampled hand."""

    def __init__(self, bid_policy: Callable[[FashionState, int], Action] | None = None) -> None:
        self._configs: dict[tuple[int, str, str], FashionConfig] = {}
        self._bid_policy = bid_policy
        self._last: tuple[FashionView, _Public] | None = None

    def _public(self, view: FashionView, seat: int) -> _Public:
        last = self._last
        if last is not None and last[0] is view:
            return last[1]
        public = _Public.of(view, seat)
        self._last = (view, public)
        return public

    def sample(self, view: FashionView, rng: random.Random) -> FashionState:
        seat = view.seat
        if seat is None:
            raise ValueError("a spectator's view has no seat to sample for")
        n = view.players
        public = self._public(view, seat)
        known = public.known
        pool = list(public.unseen)
        rng.shuffle(pool)
        hands: list[list[int]] = []
        taken = 0
        for other in range(n):
            if other == seat:
                hands.append(list(public.own))
                continue
            missing = view.hand_sizes[other] - len(known[other])
            hands.append(known[other] + pool[taken : taken + missing])
            taken += missing
        if view.exhaustions:
            deck = list(public.deck_cards)
            rng.shuffle(deck)
        else:
            deck = pool[taken:]
        bids: list[int | None] = [None] * n
        bids[seat] = None if view.my_bid is None else parse_card(view.my_bid)
        state = self._state(view, public, hands, deck, bids, rng)
        policy = self._bid_policy
        for other in range(n):
            if other == seat or not view.has_bid[other]:
                continue
            if policy is None:
                bids[other] = rng.choice(hands[other])
            else:
                bid = policy(state, other)  # its bid is still None here
                assert isinstance(bid, Bid)
                bids[other] = bid.card
        return state

    def _state(
        self,
        view: FashionView,
        public: _Public,
        hands: list[list[int]],
        deck: list[int],
        bids: list[int | None],
        rng: random.Random,
    ) -> FashionState:
        """The state the view describes, built field by field (no deal)."""
        key = (view.players, view.payment, view.season)
        config = self._configs.get(key)
        if config is None:
            config = self._configs[key] = FashionConfig(
                players=view.players, payment=view.payment, season=view.season
            )
        state = FashionState.__new__(FashionState)
        state.config = config
        state.seed = 0
        state.rng = random.Random(rng.getrandbits(64))  # the remade deck's unknown order
        state.history = []
        state.opening_events = ()
        state.hands = hands
        state.bids = bids
        state.revealed = public.revealed
        state.winner = view.auction_winner
        state.deck = deck
        state.discard = list(public.discard)
        state.offer = list(public.offer)
        state.slot_cards = list(public.slot_cards)
        state.slot_attrs = list(public.slot_attrs)
        state.piles = [list(pile) for pile in public.piles]
        state.known = [set(cards) for cards in public.known]
        state.season = None if view.season_points is None else list(view.season_points)
        state.prev_order = list(view.previous_order)
        state.order = list(view.order)
        state.current = view.current
        state.phase = PHASE_NAMES.index(view.phase)
        state.exhaustions = view.exhaustions
        state.last_round = view.last_round
        state.round = view.round
        state._result = view.result
        state.collections = 0
        state.changes = 0
        return state
