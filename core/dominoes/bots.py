"""Passe dominoes bots. ``random`` is :class:`core.engine.RandomBot`."""

from __future__ import annotations

from core.engine import Action, Bot, View

from .model import MASK, PIPS, TILE_COUNT, Draw, Place
from .state import DominoesView


class HeuristicBot(Bot):
    """Sheds heavy tiles and doubles, keeps ends it can follow and that the
    others are short of; when it cannot place, passes while its count looks
    lowest and draws otherwise. No search: one pass over the legal actions."""

    name = "heuristic"
    description = "sheds heavy tiles, keeps ends it holds, draws only when behind"

    # Weights, tuned by simulation against the random bot.
    HEAVY = 1.0  # per pip shed
    DOUBLE = 2.0  # doubles fit one number only: shed them early
    FOLLOW = 1.5  # per own tile that will fit a resulting end
    SCARCE = 0.6  # per unseen tile that fits a resulting end (others can follow)

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
        if best is not None:
            return best
        # Nothing to place: pass while our count looks lowest (a full circle
        # of passes then ends the round in our favour, DO-11), else draw.
        draw = next((a for a in legal if isinstance(a, Draw)), None)
        if draw is None:
            return next(a for a in legal if not isinstance(a, Place))
        mine = sum(PIPS[t] for t in hand)
        average = sum(PIPS[t] for t in unseen) / len(unseen) if unseen else 0.0
        others = [size * average for seat, size in enumerate(view.hand_sizes) if seat != view.seat]
        if others and mine < min(others):
            return next(a for a in legal if not isinstance(a, (Place, Draw)))
        return draw
