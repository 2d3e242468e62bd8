"""Passe dominoes bots. ``random`` is :class:`core.engine.RandomBot`."""

from __future__ import annotations

import random

from core import search
from core.engine import Action, AnyState, Bot, View

from .model import MASK, PIPS, TILE_COUNT, Pass, Place
from .sampler import DominoesSampler
from .state import DominoesState, DominoesView


class HeuristicBot(Bot):
    """Sheds heavy tiles and doubles, keeps ends it can follow and that the
    others are short of; passes to close a round (DO-11) when its count looks
    lowest, and passes rather than draws when it cannot place. No search: one
    pass over the legal actions."""

    name = "heuristic"
    description = "sheds heavy tiles, keeps ends it holds, passes to close a round it leads"

    # Weights, tuned by simulation against the random bot.
    HEAVY = 1.0  # per pip shed
    DOUBLE = 2.0  # doubles fit one number only: shed them early
    FOLLOW = 1.5  # per own tile that will fit a resulting end
    SCARCE = 0.6  # per unseen tile that fits a resulting end (others can follow)
    MARGIN = 5.0  # how much lower our count must look before we pass to end a round

    def choose(self, view: View) -> Action:
        assert isinstance(view, DominoesView)
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        hand = [t.id for t in view.hand]
        # Tiles whose place we know: ours and the train's. The rest are unseen
        # (in other hands or the boneyard).
        seen = set(hand)
        seen.update(t.tile.id for t in view.train)
        unseen = [t for t in range(TILE_COUNT) if t not in seen]
        unseen_with = [0] * 7
        for t in unseen:
            for n in range(7):
                if MASK[t] >> n & 1:
                    unseen_with[n] += 1
        best: Action | None = None
        best_score = float("-inf")
        jitter = self.rng.random
        for action in legal:
            if not isinstance(action, Place):
                continue
            tid = action.tile.id
            rest = [t for t in hand if t != tid]
            if not rest:
                return action  # domino: the round ends at once (DO-10)
            if view.ends is None:
                # DO-6 lead: both halves become the open ends.
                left, right = action.tile.low, action.tile.high
            else:
                left, right = view.ends
                other = (
                    action.tile.high
                    if action.tile.low == (left if action.end == "L" else right)
                    else action.tile.low
                )
                if action.end == "L":
                    left = other
                else:
                    right = other
            ends = (1 << left) | (1 << right)
            follow = sum(1 for t in rest if MASK[t] & ends)
            scarce = unseen_with[left] + (unseen_with[right] if right != left else 0)
            score = (
                self.HEAVY * PIPS[tid]
                + self.DOUBLE * action.tile.is_double
                + self.FOLLOW * follow
                - self.SCARCE * scarce
                + 0.01 * jitter()
            )
            if score > best_score:
                best, best_score = action, score
        # Counts: ours exactly, the others' estimated from their tile counts
        # and the average unseen tile; by side with partnerships (DO-14).
        mine = sum(PIPS[t] for t in hand)
        average = sum(PIPS[t] for t in unseen) / len(unseen) if unseen else 0.0
        me = view.seat if view.seat is not None else 0
        sides: dict[int, float] = {}
        for seat, size in enumerate(view.hand_sizes):
            side = seat % 2 if view.teams else seat
            sides[side] = sides.get(side, 0.0) + (mine if seat == me else size * average)
        my_side = sides.pop(me % 2 if view.teams else me)
        lowest = bool(sides) and my_side < min(sides.values()) - self.MARGIN
        passing = next((a for a in legal if isinstance(a, Pass)), None)
        if passing is not None and (best is None or (lowest and view.passes == view.players - 1)):
            # Everyone else has just passed: our pass ends the round now
            # (DO-11), which we take while our count looks lowest. With
            # nothing to place we pass rather than draw: a drawn tile adds
            # pips to our count (DO-12); in simulations every drawing policy
            # we tried (e.g. draw when behind) lost to never drawing.
            return passing
        assert best is not None
        return best


# -- levels (issue 12) -------------------------------------------------------


class EasyBot(search.EasyBot):
    name = "easy"
    description = "the heuristic, with a random move a quarter of the time"
    heuristic = HeuristicBot


class NormalBot(HeuristicBot):
    name = "normal"


# Playouts per `hard` decision: about 0.3 s on a 2-core machine (docs/bots.md).
HARD_PLAYOUTS = 250
ROLLOUT_MISTAKES = 0.1  # random moves in playouts: cheaper, and covers surprises


class _DominoesSearch(search.SearchBot):
    """Determinized search (core/search.py) over DominoesSampler's deals;
    playouts run the heuristic to the end of the round (DO-12 scores it)."""

    heuristic = HeuristicBot
    rollout_mistakes = ROLLOUT_MISTAKES

    def __init__(self, seed: int | None = None, *, budget: search.Budget | None = None) -> None:
        super().__init__(seed, budget=budget)
        self._sampler = DominoesSampler()

    def sample(self, view: View, rng: random.Random) -> AnyState:
        assert isinstance(view, DominoesView)
        return self._sampler.sample(view, rng)

    def progress(self, state: AnyState) -> int:
        assert isinstance(state, DominoesState)
        return state.rounds_played

    margin_scale = 10.0  # points gained on the best rival in a round (DO-12)

    def margin(self, state: AnyState, seat: int) -> float:
        assert isinstance(state, DominoesState)
        scores = state.side_scores
        mine = state.side_of[seat]
        return scores[mine] - max(score for side, score in enumerate(scores) if side != mine)


class HardBot(_DominoesSearch):
    name = "hard"
    description = "searches sampled hands for about 0.3 s per move"
    level_budget = search.hard_budget(HARD_PLAYOUTS)


class ExpertBot(_DominoesSearch):
    name = "expert"
    description = "searches sampled hands for about 1.5 s per move"
    level_budget = search.expert_budget(HARD_PLAYOUTS)
