"""Hand-built Pass Pass positions for the rulebook's worked examples."""

from __future__ import annotations

from collections.abc import Sequence

from core.passpass import GAME, PassPassState
from core.passpass.model import parse_card

DAVID, STEPHANIE, ALEX, FABIENNE = range(4)


def cards(text: str) -> list[int]:
    return [parse_card(word).index for word in text.split()]


def rig(
    hands: Sequence[str],
    *,
    leader: int = 0,
    teams: bool = False,
    won: Sequence[str] | None = None,
) -> PassPassState:
    """A state in round 1, trick 1, with the given hands (``"V10 B11"`` per
    seat) and won piles; other cards are set aside so every card is accounted for."""
    state = GAME.new_game(GAME.make_config(players=len(hands), teams=teams), seed=0)
    state.hands = [sorted(cards(hand)) for hand in hands]
    state.won = [cards(pile) for pile in (won or [""] * len(hands))]
    used = {c for pile in (*state.hands, *state.won) for c in pile}
    state.set_aside = [c for c in range(48) if c not in used]
    state.discarded = []
    state.leader = state.current = leader
    for seat in range(len(hands)):
        state.pass_pass_round[seat] = state.pass_pass_count(seat)
    return state


def play(state: PassPassState, *notations: str) -> list[str]:
    """Apply actions for whoever must act; returns the event descriptions."""
    names = [f"seat{seat}" for seat in range(state.players)]
    log: list[str] = []
    for text in notations:
        seat = state.to_act[0]
        for event in state.apply(seat, GAME.parse_action(text)):
            log.append(event.describe(names))
    return log
