"""Shared helpers for the fashion tests: hand-built positions and playouts."""

from __future__ import annotations

import random
from typing import Any

from core.engine import Event, IllegalAction
from core.fashion import GAME, FashionConfig, FashionState
from core.fashion.model import (
    COLOUR,
    CUT,
    MATERIAL,
    Card,
    End,
    FashionAction,
    parse_card,
)
from core.fashion.state import ACTION, CHOOSE


def c(code: str) -> Card:
    return parse_card(code)


def cs(text: str) -> list[Card]:
    return [parse_card(word) for word in text.split()]


# Default rules: STAR red, MUST dress, BANNED leather, MONEY blue. The slot
# cards are leather coats/dresses kept out of every test hand.
DEFAULT_SLOTS = [(c("RCL"), COLOUR), (c("KDL"), CUT), (c("WTL"), MATERIAL), (c("UCL"), COLOUR)]


def build(
    players: int,
    hands: list[str],
    *,
    offer: str = "",
    deck: str | None = None,
    slots: list[tuple[Card, int]] | None = None,
    piles: list[str] | None = None,
    prev_order: list[int] | None = None,
    exhaustions: int = 0,
    payment: str = "winner",
    season: str = "table",
) -> FashionState:
    """A position at the start of an auction. Cards not named go to the deck
    (when ``deck`` is None) or else to the discard pile."""
    hand_cards = [cs(h) for h in hands]
    offer_cards = cs(offer)
    pile_cards = [cs(p) for p in piles] if piles else [[] for _ in range(players)]
    slot_list = slots or DEFAULT_SLOTS
    used = {x for h in hand_cards for x in h} | set(offer_cards)
    used |= {x for p in pile_cards for x in p} | {card for card, _ in slot_list}
    named_deck = cs(deck) if deck is not None else []
    used |= set(named_deck)
    rest = [x for x in range(64) if x not in used]
    deck_cards, discard = (rest, []) if deck is None else (named_deck, rest)
    return FashionState.from_position(
        FashionConfig(players=players, payment=payment, season=season),
        hands=hand_cards,
        offer=offer_cards,
        deck=deck_cards,
        discard=discard,
        slots=slot_list,
        piles=pile_cards,
        prev_order=prev_order,
        exhaustions=exhaustions,
    )


def in_turn(state: FashionState, seat: int) -> FashionState:
    """Put ``seat`` in the action step of its turn (FA-10 step 3), as winner."""
    state.phase = ACTION
    state.bids = [None] * state.players
    state.winner = seat
    state.current = seat
    state.order = [seat]
    return state


def choosing(state: FashionState, winner: int) -> FashionState:
    """Put the state at the start of the order choice (FA-9) by ``winner``."""
    state.phase = CHOOSE
    state.winner = winner
    state.current = None
    state.order = []
    state.bids = [None] * state.players
    return state


def play_passively(state: FashionState) -> list[Event]:
    """Finish the game: always end turns, otherwise the first legal action."""
    events: list[Event] = []
    guard = 0
    while not state.is_over:
        guard += 1
        assert guard < 10_000
        seat = state.to_act[0]
        legal = state.legal_actions(seat)
        action = End() if End() in legal else legal[0]
        events += state.apply(seat, action)
    return events


def random_action(state: FashionState, rng: random.Random) -> tuple[int, FashionAction]:
    seat = rng.choice(state.to_act)
    return seat, rng.choice(state.legal_actions(seat))


def play_random(config: FashionConfig, seed: int) -> FashionState:
    state = GAME.new_game(config, seed)
    rng = random.Random(seed)
    while not state.is_over:
        seat, action = random_action(state, rng)
        state.apply(seat, action)
    return state


def all_cards(state: FashionState) -> list[Card]:
    return sorted(state._all_cards())


def assert_unchanged_after_illegal(state: FashionState, seat: int, action: Any) -> str:
    """Apply an action that must be refused; return the reason."""
    before = state.clone().snapshot()
    try:
        state.apply(seat, action)
    except IllegalAction as error:
        assert state.snapshot() == before
        assert error.reason
        return error.reason
    raise AssertionError(f"{action} was accepted")
