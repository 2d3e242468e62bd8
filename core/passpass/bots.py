"""Pass Pass bots. They see only a :class:`PassPassView` (the search's
playouts read the states the search sampled, as the heuristic would read
their views).

The heuristic values a card it could win by what it adds to the seat's score:
one point, its diamonds (PP-20), and progress towards the next complete set of
the four colours (PP-18), which is worth most because three sets win at once
(PP-19/PP-24). It plays the card whose likely trick outcome is worth most,
discounted by how many players still have to play after it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from core import search
from core.engine import Action, AnyState, Bot, View
from core.passpass.model import (
    DECK_SIZE,
    PASS_PASS_TO_WIN,
    TRICKS_PER_ROUND,
    Card,
    Pick,
    Play,
    Represent,
    Take,
)
from core.passpass.sampler import PassPassSampler
from core.passpass.state import PassPassState, PassPassView, Phase

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
        return self.decide(_Outlook.of_view(view))

    def choose_in_sample(self, state: AnyState, seat: int) -> Action:
        """What :meth:`choose` returns on ``state.view(seat)``, with the same
        random draws, read off a search's sampled state without building the
        view (core/search.py heuristic_policy; tests/passpass/test_bots.py
        checks that both agree)."""
        assert isinstance(state, PassPassState)
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        return self.decide(_Outlook.of_state(state, seat, legal))

    def decide(self, outlook: _Outlook) -> Action:
        """The choice among ``outlook.legal``; the one scoring of the levels."""
        legal = outlook.legal
        first = legal[0]
        if isinstance(first, Play):
            return legal[self._best_play(outlook)]
        if isinstance(first, Pick):
            worth, cards = outlook.worth, outlook.cards
            return legal[max(range(len(legal)), key=lambda i: worth(cards[i]) + self._jitter())]
        if isinstance(first, Take):
            worth = outlook.worth
            return max(
                legal,
                key=lambda a: sum(worth(c.index) for c in _cards(a)) + self._jitter(),
            )
        if isinstance(first, Represent):
            points, pass_pass = outlook.round_points, outlook.pass_pass_round
            return max(
                legal,
                key=lambda a: (
                    points(_seat(a)) + REPRESENTATIVE_PASS_PASS_WEIGHT * pass_pass[_seat(a)]
                ),
            )
        return self.rng.choice(legal)

    def _jitter(self) -> float:
        return self.rng.random() * 1e-3

    # -- playing a card ------------------------------------------------------

    def _best_play(self, outlook: _Outlook) -> int:
        """The index of the card whose likely trick outcome is worth most."""
        trick, worth = outlook.trick, outlook.worth
        still_to_play = outlook.players - len(trick) - 1
        table = _TrickSoFar(trick)
        trick_gain = max((worth(card) for _, card in trick), default=0.0)
        # PP-14: the second winner takes the two lowest cards (the earlier
        # played first among equal values); with the new card, of these three.
        lowest = sorted((card for _, card in trick), key=_VALUE.__getitem__)[:2]
        hold = HOLD_DECAY**still_to_play
        best = 0
        best_score = float("-inf")
        for index, card in enumerate(outlook.cards):
            value = card % 12 + 1
            place = table.place(card)
            score = 0.0
            if place == _FIRST:
                gain = max(trick_gain, worth(card))
                # A high card of a strong colour is hard to overtake.
                score = gain * (value / 12.0) ** still_to_play
            elif place == _SECOND:
                low, next_low = sorted((*lowest, card), key=_VALUE.__getitem__)[:2]
                score = (worth(low) + worth(next_low)) * hold
            score -= SPEND_COST * value + self._jitter()
            if score > best_score:
                best, best_score = index, score
        return best


class _Outlook:
    """What the heuristic reads, with cards as ids (``colour * 12 + value - 1``).

    A view gives it (:meth:`of_view`, for real decisions) and so does a state
    (:meth:`of_state`, for the search's playouts: no view built per move);
    the heuristic's choice is the same from either (tests/passpass/test_bots.py).
    """

    __slots__ = (
        "bonus",
        "cards",
        "diamonds",
        "legal",
        "pass_pass_round",
        "players",
        "round_points",
        "trick",
    )

    def __init__(
        self,
        *,
        players: int,
        legal: Sequence[Action],
        cards: Sequence[int],
        trick: Sequence[tuple[int, int]],
        won: Sequence[int],
        recorded_pass_pass: int,
        diamonds: Sequence[int],
        round_points: Callable[[int], int],
        pass_pass_round: Sequence[int],
    ) -> None:
        self.players = players
        self.legal = legal
        self.cards = cards  # the card of each Play or Pick in ``legal``
        self.trick = trick
        self.bonus = _set_bonuses(won, recorded_pass_pass)
        self.diamonds = diamonds
        self.round_points = round_points
        self.pass_pass_round = pass_pass_round

    @classmethod
    def of_view(cls, view: PassPassView) -> _Outlook:
        seat = view.seat
        assert seat is not None
        legal = view.legal
        first = legal[0]
        cards = (
            tuple(_card(action).index for action in legal)
            if isinstance(first, (Play, Pick))
            else ()
        )
        return cls(
            players=view.players,
            legal=legal,
            cards=cards,
            trick=tuple((s, card.index) for s, card in view.trick),
            won=[card.index for card in view.won[seat]],
            recorded_pass_pass=view.pass_pass_totals[view.team_of[seat]],
            diamonds=view.diamonds,
            round_points=view.round_points.__getitem__,
            pass_pass_round=view.pass_pass_round,
        )

    @classmethod
    def of_state(cls, state: PassPassState, seat: int, legal: Sequence[Action]) -> _Outlook:
        """``legal``: ``state.legal_actions(seat)``, not empty."""
        phase = state.phase
        cards: Sequence[int] = ()
        if phase is Phase.PLAY:
            cards = state.hands[seat]  # PP-7: any card of the hand, in order
        elif phase is Phase.PICK:
            cards = [card for _, card in state.trick]  # PP-13
        config = state.config
        return cls(
            players=config.players,
            legal=legal,
            cards=cards,
            trick=state.trick,
            won=state.won[seat],
            recorded_pass_pass=state.team_pass_pass[config.team_of(seat)],
            diamonds=config.diamonds,
            round_points=state.round_points,
            pass_pass_round=state.pass_pass_round,
        )

    def worth(self, card: int) -> float:
        """What winning ``card`` adds for this seat: a point and its diamonds
        (PP-20), and the bonus of its colour towards a set (PP-18)."""
        return 1.0 + self.diamonds[card % 12] + self.bonus[card // 12]


def _set_bonuses(won: Sequence[int], recorded_pass_pass: int) -> tuple[float, ...]:
    """Per colour, what a won card of it adds towards the next set of the four
    colours (PP-18): most for the one colour the seat lacks most, victory if
    that set is the third Pass Pass (PP-19/PP-24)."""
    counts = [0, 0, 0, 0]
    for card in won:
        counts[card // 12] += 1
    lowest = min(counts)
    tied = counts.count(lowest)
    if tied > 1:
        bonus = SET_PROGRESS_BONUS / tied
    elif recorded_pass_pass + lowest + 1 >= PASS_PASS_TO_WIN:
        bonus = WINNING_SET_BONUS
    else:
        bonus = SET_COMPLETION_BONUS
    return tuple(bonus if count == lowest else 0.0 for count in counts)


def _card(action: Action) -> Card:
    assert isinstance(action, (Play, Pick))
    return action.card


def _cards(action: Action) -> tuple[Card, Card]:
    assert isinstance(action, Take)
    return action.cards


def _seat(action: Action) -> int:
    assert isinstance(action, Represent)
    return action.seat


_VALUE = tuple(card % 12 + 1 for card in range(DECK_SIZE))

# Where a card stands in a trick (PP-11, PP-12).
_NEITHER, _FIRST, _SECOND = 0, 1, 2


def _colour_rank(strength: int, highest: int, position: int) -> int:
    """PP-10: colours rank by strength, then by their highest card, then by
    how early that card was played; one number orders them (a trick has at
    most six cards and values up to 12, so each part outweighs the next)."""
    return strength * 256 + highest * 16 + 15 - position


class _TrickSoFar:
    """The cards on the table per colour (PP-9, PP-10), to tell where one more
    card, played next, would stand: first winner, second winner or neither."""

    __slots__ = ("count", "highest", "position", "ranks", "runner_up", "size", "strength")

    def __init__(self, trick: Sequence[tuple[int, int]]) -> None:
        strength = [0, 0, 0, 0]
        highest = [0, 0, 0, 0]  # the value of each colour's highest card
        runner_up = [0, 0, 0, 0]  # and of its second highest
        position = [0, 0, 0, 0]  # where its highest card lies in the trick
        count = [0, 0, 0, 0]
        for index, (_, card) in enumerate(trick):
            colour, value = card // 12, card % 12 + 1
            strength[colour] += value
            count[colour] += 1
            if value > highest[colour]:
                runner_up[colour] = highest[colour]
                highest[colour] = value
                position[colour] = index
            elif value > runner_up[colour]:
                runner_up[colour] = value
        self.strength = strength
        self.highest = highest
        self.runner_up = runner_up
        self.position = position
        self.count = count
        self.size = len(trick)
        self.ranks = [
            _colour_rank(strength[c], highest[c], position[c]) if strength[c] else -1
            for c in range(4)
        ]

    def place(self, card: int) -> int:
        colour, value = card // 12, card % 12 + 1
        on_top = value > self.highest[colour]
        strength = self.strength[colour] + value
        if on_top:
            rank = _colour_rank(strength, value, self.size)
        else:
            rank = _colour_rank(strength, self.highest[colour], self.position[colour])
        majority, best = colour, rank
        runner, runner_rank = -1, -1
        ranks = self.ranks
        for other in range(4):
            if other != colour:
                other_rank = ranks[other]
                if other_rank > best:
                    runner, runner_rank = majority, best
                    majority, best = other, other_rank
                elif other_rank > runner_rank:
                    runner, runner_rank = other, other_rank
        if majority == colour:  # PP-11, PP-12: the two highest of the majority
            if on_top:
                return _FIRST
            return _SECOND if value > self.runner_up[colour] else _NEITHER
        # PP-12: with a single card of the majority colour, the highest card
        # of the next colour comes second.
        if on_top and runner == colour and self.count[majority] == 1:
            return _SECOND
        return _NEITHER


# -- levels (issue 12) -------------------------------------------------------


class EasyBot(search.EasyBot):
    name = "easy"
    description = "the heuristic, with a random card a quarter of the time"
    heuristic = HeuristicBot


class NormalBot(HeuristicBot):
    name = "normal"


# Playouts per `hard` decision: about 0.3 s on a 2-core machine (docs/bots.md).
HARD_PLAYOUTS = 250
# Playouts per `expert` decision: to the end of the round, about 1.5 s.
EXPERT_PLAYOUTS = 750
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

    def rollout_policy(self, rng: random.Random) -> Callable[[AnyState, int], Action]:
        """search.heuristic_policy, the heuristic reading the sampled state."""
        bot = self._rollout_bot
        assert isinstance(bot, HeuristicBot)
        return search.heuristic_policy(bot, rng, self.rollout_mistakes, bot.choose_in_sample)

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
    """Looks to the end of the round, where the round is scored (PP-20) and
    every Pass Pass checked in it counts (PP-18), not three tricks ahead:
    longer playouts, so fewer of them fit its time (EXPERT_PLAYOUTS)."""

    name = "expert"
    description = "searches sampled deals to the end of the round, about 1.5 s per card"
    level_budget = search.Budget(seconds=search.EXPERT_SECONDS, iterations=EXPERT_PLAYOUTS)
    margin_scale = 8.0  # points gained on the best rival in what is left of a round

    def horizon(self, state: AnyState) -> int:
        assert isinstance(state, PassPassState)
        return (state.round + 1) * (TRICKS_PER_ROUND + 1)  # the round scored (PP-20, PP-23)
