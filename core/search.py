"""Search bots: determinized Monte Carlo search from a seat's view alone.

A search bot never sees the state. For each iteration it asks the game's
:class:`Sampler` for a full state consistent with its view (every public fact
respected, the hidden cards drawn at random, weighted by what the play so far
suggests), plays one of its legal actions in that state, lets a fast policy
play on to a horizon (the end of the round, or of the game) and scores the
outcome for its seat.

Aggregation is sound: the statistics of an action are pooled over *all*
determinizations (one UCB1 bandit at the root of the information set, as the
root of OpenSpiel's ``ismcts.py`` does), so the bot picks the action that is
best on average over the hidden cards it cannot see, never the action that
wins most often with perfect knowledge of one deal (no majority vote of
per-deal best moves, which rewards "strategy fusion").

Decisions have a budget of wall time *and* a cap of iterations: with the
same seed and an iteration cap reached before the time runs out, a decision
reproduces exactly (the tests use the cap alone, never time).
"""

from __future__ import annotations

import math
import random
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from core.engine import Action, AnyState, Bot, View

V_contra = TypeVar("V_contra", bound=View, contravariant=True)
S_co = TypeVar("S_co", bound=AnyState, covariant=True)


class Sampler(ABC, Generic[V_contra, S_co]):
    """Draws a full state consistent with a seat's view (a "determinization").

    ``sample(view, rng)`` returns a state whose ``view(view.seat)`` equals
    ``view``; the hidden parts (other hands, the deck's order, future deals)
    come from ``rng`` alone, so a seed reproduces the sample.
    """

    @abstractmethod
    def sample(self, view: V_contra, rng: random.Random) -> S_co: ...


@dataclass(frozen=True)
class Budget:
    """How long one decision may think: ``seconds`` of wall time (``None``:
    no limit, for reproducible tests) and at most ``iterations`` playouts."""

    seconds: float | None
    iterations: int


_NEVER = threading.Event()  # never set: choose() thinks its whole budget

# UCB1's exploration constant for rewards in [0, 1].
EXPLORATION = 0.7


class SearchBot(Bot, ABC):
    """Determinized search at the root of the seat's information set.

    Subclasses give the game's sampler, rollout policy, horizon and
    evaluation; levels differ only by their :class:`Budget`.
    """

    level_budget: ClassVar[Budget]

    def __init__(self, seed: int | None = None, *, budget: Budget | None = None) -> None:
        super().__init__(seed)
        self.budget = budget if budget is not None else self.level_budget
        self.iterations_done = 0  # of the last decision (for benchmarks)

    # -- game-specific parts ------------------------------------------------

    @abstractmethod
    def sample(self, view: View, rng: random.Random) -> AnyState:
        """A state consistent with ``view`` (the game's :class:`Sampler`)."""

    @abstractmethod
    def rollout_policy(self, rng: random.Random) -> Callable[[AnyState, int], Action]:
        """The fast policy that plays every seat after the searched action."""

    @abstractmethod
    def progress(self, state: AnyState) -> int:
        """A counter that never decreases along a game (e.g. tricks or rounds
        played); a playout stops once it has grown by ``depth``, or when the
        game is over, and :meth:`evaluate` scores what it reached."""

    depth: ClassVar[int] = 1

    @abstractmethod
    def evaluate(self, state: AnyState, seat: int) -> float:
        """How good ``state`` is for ``seat``, in [0, 1] (1: a sure win)."""

    # -- the search -----------------------------------------------------------

    slow = True

    def choose(self, view: View) -> Action:
        return self.choose_until(view, _NEVER)

    def choose_until(self, view: View, stop: threading.Event) -> Action:
        legal = view.legal
        if len(legal) == 1:
            self.iterations_done = 0
            return legal[0]
        seat = view.seat
        assert seat is not None
        budget = self.budget
        deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
        rng = self.rng
        policy = self.rollout_policy(rng)
        arms = len(legal)
        visits = [0] * arms
        totals = [0.0] * arms
        done = 0
        while done < budget.iterations:
            if done >= arms and (
                stop.is_set() or (deadline is not None and time.perf_counter() >= deadline)
            ):
                break
            if done < arms:
                arm = done  # every action once first
            else:
                log_n = math.log(done)
                arm = max(
                    range(arms),
                    key=lambda a: (
                        totals[a] / visits[a] + EXPLORATION * math.sqrt(log_n / visits[a])
                    ),
                )
            state = self.sample(view, rng)
            totals[arm] += self._playout(state, seat, legal[arm], policy)
            visits[arm] += 1
            done += 1
        self.iterations_done = done
        # The most visited action is UCB1's robust choice; means break ties.
        best = max(
            range(arms), key=lambda a: (visits[a], totals[a] / visits[a] if visits[a] else 0.0)
        )
        return legal[best]

    def _playout(
        self,
        state: AnyState,
        seat: int,
        action: Action,
        policy: Callable[[AnyState, int], Action],
    ) -> float:
        stop = self.progress(state) + self.depth
        state.apply(seat, action)
        steps = 0
        while not state.is_over and self.progress(state) < stop:
            actor = state.to_act[0]
            state.apply(actor, policy(state, actor))
            steps += 1
            if steps > 100_000:  # a guard: every round ends far sooner
                raise RuntimeError("a playout did not reach its horizon")
        return self.evaluate(state, seat)


def result_value(state: AnyState, seat: int) -> float:
    """1 for a win (alone or as a team), 0.5 for a victory shared with rivals, 0 for a loss."""
    result = state.result()
    assert result is not None
    if seat not in result.winners:
        return 0.0
    return 0.5 if result.shared else 1.0


def margin_value(mine: float, best_other: float, scale: float) -> float:
    """A score lead squashed into (0, 1): 0.5 level, near 1 far ahead."""
    return 1.0 / (1.0 + math.exp(-(mine - best_other) / scale))


def heuristic_policy(
    bot: Bot, rng: random.Random, mistakes: float = 0.0
) -> Callable[[AnyState, int], Action]:
    """Play ``bot`` on each seat's view; with probability ``mistakes`` a
    random legal action instead (cheaper and keeps playouts varied)."""
    bot.rng = rng

    def policy(state: AnyState, actor: int) -> Action:
        if mistakes and rng.random() < mistakes:
            return rng.choice(state.legal_actions(actor))  # type: ignore[no-any-return]
        legal = state.legal_actions(actor)
        if len(legal) == 1:
            return legal[0]  # type: ignore[no-any-return]
        return bot.choose(state.view(actor))

    return policy


class EasyBot(Bot):
    """A heuristic that makes mistakes: a random legal action a quarter of
    the time, else the heuristic's choice."""

    heuristic: ClassVar[type[Bot]]
    MISTAKES: ClassVar[float] = 0.25

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._heuristic = self.heuristic(seed)
        self._heuristic.rng = self.rng

    def choose(self, view: View) -> Action:
        if self.rng.random() < self.MISTAKES:
            return self.rng.choice(view.legal)
        return self._heuristic.choose(view)


# Budgets of the levels (issue 12): about 0.3 s and 1.5 s per decision.
HARD = Budget(seconds=0.3, iterations=2_000)
EXPERT = Budget(seconds=1.5, iterations=10_000)
