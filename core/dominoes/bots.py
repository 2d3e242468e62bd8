"""Passe dominoes bots. ``random`` is :class:`core.engine.RandomBot`."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from core import search
from core.engine import Action, AnyState, Bot, View

from .model import BEARING, HIGH, LOW, PIPS, TILE_COUNT, Pass, Place
from .sampler import DominoesSampler
from .state import DominoesState, DominoesView

_ALL_TILES = (1 << TILE_COUNT) - 1  # every tile id as a bit


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
        train = 0
        for placed in view.train:
            train |= 1 << placed.tile.id
        return self._decide(
            legal,
            [t.id for t in view.hand],
            train,
            view.ends,
            view.hand_sizes,
            view.seat if view.seat is not None else 0,
            view.teams,
            view.passes == view.players - 1,
        )

    def choose_in_sample(self, state: AnyState, seat: int) -> Action:
        """What :meth:`choose` returns on ``state.view(seat)``, with the same
        random draws, read off a search's sampled state without building the
        view: the playouts call it on every move (tests/dominoes/test_bots.py
        checks that both agree)."""
        assert isinstance(state, DominoesState)
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        train = 0
        for placed in state.left_arm:
            train |= 1 << placed[0]
        for placed in state.right_arm:
            train |= 1 << placed[0]
        return self._decide(
            legal,
            state.hands[seat],
            train,
            None if state.left_end < 0 else (state.left_end, state.right_end),
            [len(hand) for hand in state.hands],
            seat,
            state.teams,
            state.passes == state.n - 1,
        )

    def _decide(
        self,
        legal: Sequence[Action],
        hand: Sequence[int],
        train: int,
        ends: tuple[int, int] | None,
        hand_sizes: Sequence[int],
        me: int,
        teams: bool,
        others_passed: bool,
    ) -> Action:
        """The heuristic on the facts it reads: ``hand`` as tile ids, ``train``
        the placed tiles as a bit set of ids (bit ``t`` for tile ``t``),
        ``ends`` the open numbers (``None`` before the lead), ``others_passed``
        when everyone else has just passed (DO-11)."""
        hand_bits = 0
        for t in hand:
            hand_bits |= 1 << t
        # Tiles whose place we know: ours and the train's. The rest are unseen
        # (in other hands or the boneyard).
        unseen = _ALL_TILES & ~(hand_bits | train)
        best: Action | None = None
        best_score = float("-inf")
        passing: Action | None = None
        jitter = self.rng.random
        for action in legal:
            if type(action) is not Place:
                if passing is None and type(action) is Pass:
                    passing = action
                continue
            tid = action.tile.id
            rest = hand_bits & ~(1 << tid)
            if not rest:
                return action  # domino: the round ends at once (DO-10)
            low, high = LOW[tid], HIGH[tid]
            if ends is None:
                # DO-6 lead: both halves become the open ends.
                left, right = low, high
            else:
                left, right = ends
                other = high if low == (left if action.end == "L" else right) else low
                if action.end == "L":
                    left = other
                else:
                    right = other
            follow = (rest & (BEARING[left] | BEARING[right])).bit_count()
            scarce = (unseen & BEARING[left]).bit_count() + (
                (unseen & BEARING[right]).bit_count() if right != left else 0
            )
            score = (
                self.HEAVY * PIPS[tid]
                + self.DOUBLE * (low == high)
                + self.FOLLOW * follow
                - self.SCARCE * scarce
                + 0.01 * jitter()
            )
            if score > best_score:
                best, best_score = action, score
        if passing is not None and (
            best is None
            or (others_passed and self._looks_lowest(hand, unseen, hand_sizes, me, teams))
        ):
            # Everyone else has just passed: our pass ends the round now
            # (DO-11), which we take while our count looks lowest. With
            # nothing to place we pass rather than draw: a drawn tile adds
            # pips to our count (DO-12); in simulations every drawing policy
            # we tried (e.g. draw when behind) lost to never drawing.
            return passing
        assert best is not None
        return best

    def _looks_lowest(
        self,
        hand: Sequence[int],
        unseen: int,
        hand_sizes: Sequence[int],
        me: int,
        teams: bool,
    ) -> bool:
        """Whether our side's count looks lowest by :data:`MARGIN`. Counts:
        ours exactly, the others' estimated from their tile counts and the
        average ``unseen`` tile (a bit set of ids); by side with partnerships
        (DO-14)."""
        mine = sum(PIPS[t] for t in hand)
        unseen_pips = sum(PIPS[t] for t in range(TILE_COUNT) if unseen >> t & 1)
        average = unseen_pips / unseen.bit_count() if unseen else 0.0
        sides: dict[int, float] = {}
        for seat, size in enumerate(hand_sizes):
            side = seat % 2 if teams else seat
            sides[side] = sides.get(side, 0.0) + (mine if seat == me else size * average)
        my_side = sides.pop(me % 2 if teams else me)
        return bool(sides) and my_side < min(sides.values()) - self.MARGIN


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

    def rollout_policy(self, rng: random.Random) -> Callable[[AnyState, int], Action]:
        """search.heuristic_policy, the heuristic reading the sampled state."""
        bot = self._rollout_bot
        assert isinstance(bot, HeuristicBot)
        return search.heuristic_policy(bot, rng, self.rollout_mistakes, bot.choose_in_sample)

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
