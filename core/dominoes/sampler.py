"""Dominoes determinizations: a full state consistent with one seat's view.

Respected exactly: the seat's own hand, the train, every hand's size and the
boneyard's (DO-3, DO-4), the scores. Weighted, never excluded: passing is
always allowed (DO-7), so a player who passed while a tile of theirs fitted an
open end broke no rule; but players rarely do, so each pass makes the tiles
that fitted the ends of that moment less likely in the passer's hand, by
:data:`PASS_FIT_WEIGHT` per pass. Only passes since the player's last draw
count: a drawn tile was not in the hand when it passed.

Hands are drawn one seat at a time (in random order) by weighted sampling
without replacement; the boneyard is the rest, in random order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from core.dominoes.model import MASK, TILE_COUNT
from core.dominoes.state import _FIRST, _LEFT, _RIGHT, DominoesConfig, DominoesState, DominoesView
from core.search import Sampler

PASS_FIT_WEIGHT = 0.3  # how much one pass over a fitting tile lowers its odds


def pass_weights(view: DominoesView) -> list[list[float]]:
    """Per seat, per tile: the weight of that tile being in that hand."""
    weights = [[1.0] * TILE_COUNT for _ in range(view.players)]
    passes: list[list[tuple[int, int]]] = [[] for _ in range(view.players)]
    for seat, kind, left, right in view.round_log:
        if kind == "draw":
            passes[seat].clear()  # the hand at those passes is not the hand now
        else:
            passes[seat].append((left, right))
    for seat, ends in enumerate(passes):
        row = weights[seat]
        for left, right in ends:
            fits = (1 << left) | (1 << right)
            for tile in range(TILE_COUNT):
                if MASK[tile] & fits:
                    row[tile] *= PASS_FIT_WEIGHT
    return weights


@dataclass(frozen=True)
class _Known:
    """What every sample of one view shares, read from the view once: a
    search samples the same view hundreds of times (lists are copied into
    each sample, which its playout changes)."""

    config: DominoesConfig
    own: tuple[int, ...]
    pool: tuple[int, ...]  # the tiles nobody sees, in id order
    weights: list[list[float]] | None  # read only
    left_arm: tuple[tuple[int, int, int, int, int], ...]
    right_arm: tuple[tuple[int, int, int, int, int], ...]


class DominoesSampler(Sampler[DominoesView, DominoesState]):
    def __init__(self) -> None:
        self._view: DominoesView | None = None
        self._known: _Known | None = None

    def sample(self, view: DominoesView, rng: random.Random) -> DominoesState:
        seat = view.seat
        if seat is None:
            raise ValueError("a spectator's view has no seat to sample for")
        known = self._known
        if view is not self._view or known is None:
            known = self._known = _read(view)
            self._view = view
        n = view.players
        pool = list(known.pool)
        weights = known.weights
        hands: list[list[int]] = [[] for _ in range(n)]
        hands[seat] = list(known.own)
        others = [other for other in range(n) if other != seat]
        rng.shuffle(others)
        for other in others:
            size = view.hand_sizes[other]
            if weights is None:
                rng.shuffle(pool)
                chosen, pool = pool[:size], pool[size:]
            else:
                # Efraimidis-Spirakis: the `size` largest u ** (1 / w).
                row = weights[other]
                keyed = sorted(pool, key=lambda t: rng.random() ** (1.0 / row[t]), reverse=True)
                chosen, pool = keyed[:size], keyed[size:]
            hands[other] = sorted(chosen)
        rng.shuffle(pool)
        return self._state(view, known, hands, pool, rng)

    def _state(
        self,
        view: DominoesView,
        known: _Known,
        hands: list[list[int]],
        boneyard: list[int],
        rng: random.Random,
    ) -> DominoesState:
        """The state the view describes, built field by field (no deal)."""
        n = view.players
        state = DominoesState.__new__(DominoesState)
        state.config = known.config
        state.seed = 0
        state.rng = random.Random(rng.getrandbits(64))  # the unknown future deals
        state.history = []
        state.opening_events = ()
        state.n = n
        state.teams = view.teams
        state.target = view.target
        state.hand_size = known.config.hand_size
        state.side_of = tuple(s % 2 for s in range(n)) if view.teams else tuple(range(n))
        state.side_scores = list(view.team_scores if view.team_scores is not None else view.scores)
        state.hands = hands
        state.boneyard = boneyard
        state.left_arm = list(known.left_arm)
        state.right_arm = list(known.right_arm)
        state.left_end = view.ends[0] if view.ends is not None else -1
        state.right_end = view.ends[1] if view.ends is not None else -1
        state.turn = view.turn if view.turn is not None else 0
        state.passes = view.passes
        state.round_number = view.round
        state.over = view.is_over
        state._result = view.result
        state._rounds_played = view.rounds_played
        state._blocked_rounds = view.blocked_rounds
        state.last_round = view.last_round
        state.round_log = list(view.round_log)
        state._legal = None
        state.leader = view.leader
        return state


def _read(view: DominoesView) -> _Known:
    own = tuple(tile.id for tile in view.hand)
    seen = set(own)
    seen.update(placed.tile.id for placed in view.train)
    codes = {"L": _LEFT, "R": _RIGHT, None: _FIRST}
    placed = [(t.tile.id, t.left, t.right, codes[t.end], t.order) for t in view.train]
    first = next((i for i, t in enumerate(view.train) if t.end is None), len(placed))
    return _Known(
        config=DominoesConfig(players=view.players, teams=view.teams, target=view.target),
        own=own,
        pool=tuple(tile for tile in range(TILE_COUNT) if tile not in seen),
        weights=pass_weights(view) if view.round_log else None,
        left_arm=tuple(placed[:first][::-1]),
        right_arm=tuple(placed[first:]),
    )
