"""Pass Pass bots. They see only a :class:`PassPassView`.

The heuristic values a card it could win by what it adds to the seat's score:
one point, its diamonds (PP-20), and progress towards the next complete set of
the four colours (PP-18), which is worth most because three sets win at once
(PP-19/PP-24). It plays the card whose likely trick outcome is worth most,
discounted by how many players still have to play after it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from core import search
from core.engine import Action, AnyState, Bot, View
from core.passpass.model import TRICKS_PER_ROUND, Card, Pick, Play, Represent, Take
from core.passpass.sampler import PassPassSampler
from core.passpass.state import PassPassState, PassPassView

# Weights of the heuristic, named so that tuning is a one-line change.
SET_COMPLETION_BONUS = 4.0  # the card completes a set of four colours
SET_PROGRESS_BONUS = 1.5  # the card is of a colour the seat lacks most
WINNING_SET_BONUS = 50.0  # the card would be the third Pass Pass: victory
HOLD_DECAY = 0.55  # chance a provisional second place survives one more player
SPEND_COST = 0.04  # per value point: keep strong cards for later tricks
REPRESENTATIVE_PASS_PASS_WEIGHT = 3.0  # PP-23: a Pass Pass is worth ~3 points


class HeuristicBot(Bot):
    name = "heuristic"
    description = "plays for colour sets and diamonds, weighing who plays after it"

    def choose(self, view: View) -> Action:
        assert isinstance(view, PassPassView) and view.seat is not None
        legal = view.legal
        first = legal[0]
        if isinstance(first, Play):
            return self._play(view, legal)
        if isinstance(first, Pick):
            return max(legal, key=lambda a: self._card_worth(view, _card(a)) + self._jitter())
        if isinstance(first, Take):
            return max(
                legal,
                key=lambda a: sum(self._card_worth(view, c) for c in _cards(a)) + self._jitter(),
            )
        if isinstance(first, Represent):
            return max(legal, key=lambda a: self._representative_worth(view, a))
        return self.rng.choice(legal)

    # -- valuation -----------------------------------------------------------

    def _card_worth(self, view: PassPassView, card: Card, extra: Sequence[Card] = ()) -> float:
        """What winning ``card`` adds for this seat (after ``extra`` cards)."""
        assert view.seat is not None
        counts = [0, 0, 0, 0]
        for won in (*view.won[view.seat], *extra):
            counts[won.colour] += 1
        worth = 1.0 + view.diamonds[card.value - 1]
        lowest = min(counts)
        if counts[card.colour] == lowest:
            if counts.count(lowest) == 1:
                team = view.team_of[view.seat]
                recorded = view.pass_pass_totals[team]
                if recorded + lowest + 1 >= 3:
                    worth += WINNING_SET_BONUS
                else:
                    worth += SET_COMPLETION_BONUS
            else:
                worth += SET_PROGRESS_BONUS / counts.count(lowest)
        return worth

    def _representative_worth(self, view: PassPassView, action: Action) -> float:
        assert isinstance(action, Represent)
        return (
            view.round_points[action.seat]
            + REPRESENTATIVE_PASS_PASS_WEIGHT * (view.pass_pass_round[action.seat])
        )

    def _jitter(self) -> float:
        return self.rng.random() * 1e-3

    # -- playing a card ------------------------------------------------------

    def _play(self, view: PassPassView, legal: tuple[Action, ...]) -> Action:
        assert view.seat is not None
        still_to_play = view.players - len(view.trick) - 1
        best: Action = legal[0]
        best_score = float("-inf")
        for action in legal:
            card = _card(action)
            plays = (*view.trick, (view.seat, card))
            first, second = _winners(plays)
            score = 0.0
            if first == view.seat:
                gain = max(self._card_worth(view, c) for _, c in plays)
                # A high card of a strong colour is hard to overtake.
                score = gain * (card.value / 12.0) ** still_to_play
            elif second == view.seat:
                others = sorted((c for _, c in plays), key=lambda c: c.value)
                gain = sum(self._card_worth(view, c) for c in others[:2])
                score = gain * HOLD_DECAY**still_to_play
            score -= SPEND_COST * card.value + self._jitter()
            if score > best_score:
                best, best_score = action, score
        return best


def _card(action: Action) -> Card:
    assert isinstance(action, (Play, Pick))
    return action.card


def _cards(action: Action) -> tuple[Card, Card]:
    assert isinstance(action, Take)
    return action.cards


def _winners(plays: Sequence[tuple[int, Card]]) -> tuple[int, int | None]:
    """PP-9..PP-12 on a possibly incomplete trick: (first, second) winners."""
    strength = [0, 0, 0, 0]
    highest = [0, 0, 0, 0]
    position = [0, 0, 0, 0]
    for index, (_, card) in enumerate(plays):
        strength[card.colour] += card.value
        if card.value > highest[card.colour]:
            highest[card.colour] = card.value
            position[card.colour] = index
    ranked = sorted(
        (c for c in range(4) if strength[c]),
        key=lambda c: (-strength[c], -highest[c], position[c]),
    )
    majority = sorted(
        ((card.value, seat) for seat, card in plays if card.colour == ranked[0]), reverse=True
    )
    if len(majority) > 1:
        return majority[0][1], majority[1][1]
    if len(ranked) > 1:
        runner = max((card.value, seat) for seat, card in plays if card.colour == ranked[1])
        return majority[0][1], runner[1]
    return majority[0][1], None


# -- levels (issue 12) -------------------------------------------------------


class EasyBot(search.EasyBot):
    name = "easy"
    description = "the heuristic, with a random card a quarter of the time"
    heuristic = HeuristicBot


class NormalBot(HeuristicBot):
    name = "normal"


# Playouts per `hard` decision: about 0.3 s on a 2-core machine (docs/bots.md).
HARD_PLAYOUTS = 250
ROLLOUT_MISTAKES = 0.1  # random cards in playouts: cheaper, and covers surprises
PASS_PASS_WORTH = 10.0  # points a recorded Pass Pass is worth at the horizon


class _PassPassSearch(search.SearchBot):
    """Determinized search (core/search.py) over PassPassSampler's deals;
    playouts run the heuristic to the end of the round (PP-20 scores it)."""

    heuristic = HeuristicBot
    rollout_mistakes = ROLLOUT_MISTAKES

    def __init__(self, seed: int | None = None, *, budget: search.Budget | None = None) -> None:
        super().__init__(seed, budget=budget)
        self._sampler = PassPassSampler()

    def sample(self, view: View, rng: random.Random) -> AnyState:
        assert isinstance(view, PassPassView)
        return self._sampler.sample(view, rng)

    # Playouts stop after the searched trick and two more (or the round's end).
    depth = 3
    margin_scale = 4.0  # points gained on the best rival in three tricks

    def progress(self, state: AnyState) -> int:
        assert isinstance(state, PassPassState)
        # Tricks resolved so far; the REPRESENT phase counts as the 9th (PP-23).
        return state.round * (TRICKS_PER_ROUND + 1) + state.trick_number

    def margin(self, state: AnyState, seat: int) -> float:
        assert isinstance(state, PassPassState)
        config = state.config
        worth: list[float] = []
        for team in range(config.team_count):
            # Recorded points and Pass Pass, plus this round's so far (PP-20,
            # PP-18), the better partner's in teams (PP-23 picks one).
            now = max(
                state.round_points(member) + PASS_PASS_WORTH * state.pass_pass_round[member]
                for member in config.members(team)
            )
            worth.append(
                state.team_totals[team] + PASS_PASS_WORTH * state.team_pass_pass[team] + now
            )
        mine = config.team_of(seat)
        return worth[mine] - max(w for t, w in enumerate(worth) if t != mine)


class HardBot(_PassPassSearch):
    name = "hard"
    description = "searches sampled deals for about 0.3 s per card"
    level_budget = search.hard_budget(HARD_PLAYOUTS)


class ExpertBot(_PassPassSearch):
    name = "expert"
    description = "searches sampled deals for about 1.5 s per card"
    level_budget = search.expert_budget(HARD_PLAYOUTS)
