"""Passe fashion bots. The random bot is core.engine.RandomBot.

The heuristic bot sees only its view. It rates a hand by its *potential*: for
each feature the non-BANNED cards sharing it form a possible collection
(FA-11), worth its STAR cards (FA-12), less if it lacks a MUST card or three
cards. From that it bids cheaply, takes the offer pair that raises its
potential most, announces collections when they pay, changes rules when that
raises its potential (or bans what the leaders collect), and as auction
winner plays first and sends the leaders last, which starves them once the
deck is dying (FA-14).

Near the end it also plays for its season collection (FA-15): from the deck's
size it counts the rounds left (FA-14: the game ends with the round that draws
the last card of the second deck) and weighs the hand it will be left with.
Under the table's reading (the default) that means keeping STAR cards in hand
(3 points there against 1 in a collection), keeping a MUST card and shedding
BANNED ones (as bids or rule-change cards) or changing the rules around them.
Under ``season=strict`` it keeps the older plan: the season counts only in the
last round.
"""

from __future__ import annotations

import random
from typing import ClassVar

from core import search
from core.engine import Action, AnyState, Bot, View
from core.fashion.model import (
    ATTRIBUTES,
    BANNED,
    CARD_ATTRS,
    MONEY,
    MUST,
    NUMBER,
    STAR,
    SYMBOL,
    VALUE_NAMES,
    Bid,
    Card,
    Change,
    Choose,
    Collect,
    End,
    Feature,
    Take,
    parse_card,
)
from core.fashion.sampler import FashionSampler
from core.fashion.state import (
    AUCTION,
    PHASE_NAMES,
    TAKE,
    FashionState,
    FashionView,
    season_points,
)

Features = list[Feature]

# The potential a rule change must add: it costs two cards, and rivals may
# change the rules again before our next turn (FA-13).
CHANGE_COST = 1.0
FUTURE = 0.5


def _slot_features(view: FashionView) -> Features:
    out: Features = []
    for info in view.slots:
        attribute = ATTRIBUTES.index(info.attribute)
        out.append((attribute, VALUE_NAMES[attribute].index(info.value)))
    return out


def potential(hand: list[Card], feats: Features) -> float:
    """How many points the best collection this hand is growing may bring."""
    must_a, must_v = feats[MUST]
    ban_a, ban_v = feats[BANNED]
    if (must_a, must_v) == (ban_a, ban_v):
        return 0.0
    star_a, star_v = feats[STAR]
    size = [0] * 12
    stars = [0] * 12
    musts = [False] * 12
    for card in hand:
        at = CARD_ATTRS[card]
        if at[ban_a] == ban_v:
            continue
        star = at[star_a] == star_v
        must = at[must_a] == must_v
        for a in range(3):
            f = a * 4 + at[a]
            size[f] += 1
            if star:
                stars[f] += 1
            if must:
                musts[f] = True
    best = 0.0
    for f in range(12):
        if stars[f]:
            value = stars[f] * (1.0 if musts[f] else 0.6) * (1.0 if size[f] >= 3 else 0.75)
            best = max(best, value)
    return best


def rounds_left(view: FashionView) -> int | None:
    """How many rounds will follow this one, judged from the deck (FA-14), or
    None while the deck has not yet run out once (the end is far).

    The game ends with the round that draws the second deck's last card; each
    turn draws about two cards (FA-10).
    """
    if view.last_round:
        return 0
    if view.exhaustions == 0:
        return None
    phase = view.phase
    if phase == PHASE_NAMES[AUCTION]:
        turns = view.players
    else:
        turns = len(view.waiting) + (1 if phase == PHASE_NAMES[TAKE] else 0)
    left = view.deck_size - 2 * turns
    if left <= 0:
        return 0
    return -(-left // (2 * view.players))


# How much the season collection weighs against collections still to come,
# by the rounds left after this one (FA-15); the further off, the more the
# rules and the hand may still change.
SEASON_WEIGHT = {0: 1.0, 1: 0.5, 2: 0.25}
# In the last round, the chance that one player still to play leaves a rule
# that our season collection needs unchanged (FA-13).
RULE_RISK = 0.85


def season_weight(view: FashionView) -> float:
    left = rounds_left(view)
    if view.season == "strict":
        # An FA-11 collection of the whole hand is rare: plan for it only when
        # the hand is final (the last round).
        return 1.0 if left == 0 else 0.0
    return 0.0 if left is None else SEASON_WEIGHT.get(left, 0.0)


def season_prospect(hand: list[Card], feats: Features, season: str) -> float:
    """FA-15: what this hand may score as the season collection while it can
    still change. Under the table's reading a missing MUST card may still come
    and a BANNED card may still be shed, so such a hand keeps part of its
    worth; under ``strict``, its score now."""
    if season == "strict":
        return float(season_points(hand, feats, season))
    must, banned = feats[MUST], feats[BANNED]
    if must == banned:
        return 0.0
    star_a, star_v = feats[STAR]
    stars = sum(1 for c in hand if CARD_ATTRS[c][star_a] == star_v)
    if not stars:
        return 0.0
    has_must = any(CARD_ATTRS[c][must[0]] == must[1] for c in hand)
    banned_cards = sum(1 for c in hand if CARD_ATTRS[c][banned[0]] == banned[1])
    return 3.0 * stars * (1.0 if has_must else 0.5) * 0.5**banned_cards


def keep_value(card: Card, hand: list[Card], feats: Features, season: float = 0.0) -> float:
    """How much a card is worth keeping (low: a good bid or rule-change card).

    ``season`` (0..1) is how much the season collection already counts
    (FA-15, table reading): then the hand's only MUST card is worth what its
    STAR cards will score, and a BANNED card costs them.
    """
    at = CARD_ATTRS[card]
    value = 0.0
    if at[feats[STAR][0]] == feats[STAR][1]:
        value += 3.0
    must = at[feats[MUST][0]] == feats[MUST][1]
    if must:
        value += 1.0
    banned = at[feats[BANNED][0]] == feats[BANNED][1]
    if banned:
        value -= 3.0
    if season and (must or banned):
        star_a, star_v = feats[STAR]
        stars = sum(1 for c in hand if c != card and CARD_ATTRS[c][star_a] == star_v)
        if banned:
            value -= season * 3.0 * stars
        elif not any(c != card and CARD_ATTRS[c][feats[MUST][0]] == feats[MUST][1] for c in hand):
            value += season * 3.0 * stars
    group = max(sum(1 for c in hand if CARD_ATTRS[c][a] == at[a]) for a in range(3))
    return value + 0.3 * group


def _keep_season(view: FashionView) -> float:
    """The season weight for valuing single cards: only under the table's
    reading, where one MUST or BANNED card decides the whole hand (FA-15)."""
    return season_weight(view) if view.season == "table" else 0.0


class HeuristicBot(Bot):
    """Plays for collections around MUST and STAR, avoids BANNED, changes rules
    to help itself or hurt leaders, and orders the round to starve rivals."""

    name: ClassVar[str] = "heuristic"
    description: ClassVar[str] = "bids cheaply, builds STAR collections, bends the rules"

    def choose(self, view: View) -> Action:
        assert isinstance(view, FashionView)
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        hand = [parse_card(code) for code in view.hand]
        feats = _slot_features(view)
        first = legal[0]
        if isinstance(first, Bid):
            return self._bid(view, hand, feats)
        if isinstance(first, Choose):
            return self._order(view, legal)
        if isinstance(first, Take):
            return self._take(view, hand, feats, legal)
        return self._act(view, hand, feats, legal)

    # FA-7/FA-8: strength to win the auction against the cost of the card paid.
    def _bid(self, view: FashionView, hand: list[Card], feats: Features) -> Action:
        money_a, money_v = feats[MONEY]
        cost = {"winner": 1.2, "everyone": 3.0, "nobody": 0.0}.get(view.payment, 1.2)
        season = _keep_season(view)
        best: tuple[float, int] | None = None
        choice = hand[0]
        for card in hand:
            strength = NUMBER[card] + (8 if CARD_ATTRS[card][money_a] == money_v else 0)
            score = strength - cost * keep_value(card, hand, feats, season)
            key = (score, -card)
            if best is None or key > best:
                best, choice = key, card
        return Bid(choice)

    # FA-9: play first (the offer is known), leaders last: near the end of the
    # game they then find the offer empty (FA-14). But in the last round, under
    # the table's season reading, play last: nobody can then change a rule
    # against our season collection (FA-13, FA-15).
    def _order(self, view: FashionView, legal: tuple[Action, ...]) -> Action:
        me = view.seat
        seats = [a.seat for a in legal if isinstance(a, Choose)]
        last_word = view.season == "table" and rounds_left(view) == 0 and len(seats) > 1
        if me in seats and not last_word:
            pick = me
        else:
            rivals = [s for s in seats if s != me]
            pick = min(rivals, key=lambda s: (view.points[s], view.hand_sizes[s], s))
        for action in legal:
            if isinstance(action, Choose) and action.seat == pick:
                return action
        return legal[0]

    def _evaluate(self, hand: list[Card], feats: Features, view: FashionView) -> float:
        """What ``hand`` is worth after this turn's action."""
        weight = season_weight(view)
        if weight >= 1.0:  # no turn left: the hand is the season collection
            # Every player still to play may change a rule against it (FA-13).
            later = len(view.waiting)
            return season_points(hand, feats, view.season) * RULE_RISK**later
        # Potential is discounted against banked points: rivals may change
        # the rules before our next turn (FA-13).
        value = FUTURE * potential(hand, feats) + 0.02 * len(hand)
        if weight:
            prospect = season_prospect(hand, feats, view.season)
            value = (1.0 - weight) * value + weight * prospect
        return value

    def _take(
        self, view: FashionView, hand: list[Card], feats: Features, legal: tuple[Action, ...]
    ) -> Action:
        weight = season_weight(view)
        best: tuple[float, int] | None = None
        choice = legal[0]
        for i, action in enumerate(legal):
            assert isinstance(action, Take)
            after = hand + list(action.cards)
            score = potential(after, feats) + 0.01 * sum(
                keep_value(c, after, feats) for c in action.cards
            )
            if weight:
                # The action after taking may still shed a BANNED card or
                # change a rule, so the hand is not final yet.
                score += weight * season_prospect(after, feats, view.season)
            key = (score, -i)
            if best is None or key > best:
                best, choice = key, action
        return choice

    def _act(
        self, view: FashionView, hand: list[Card], feats: Features, legal: tuple[Action, ...]
    ) -> Action:
        base = self._evaluate(hand, feats, view)
        star_a, star_v = feats[STAR]
        best_action: Action = End()
        best_gain = 0.0
        # Collections (FA-11/FA-12): points now, plus what the rest is still worth.
        for action in legal:
            if not isinstance(action, Collect):
                continue
            stars = sum(1 for c in action.cards if CARD_ATTRS[c][star_a] == star_v)
            if stars == 0:
                continue
            rest = [c for c in hand if c not in action.cards]
            gain = stars + self._evaluate(rest, feats, view) - base
            # Bank points at once: the rules may change before the next turn.
            if gain > best_gain:
                best_gain, best_action = gain, action
        # Rule changes (FA-13): for each slot and feature, the cheapest A and B.
        me = view.seat if view.seat is not None else -1
        rivals = [s for s in range(view.players) if s != me and view.points[s] >= view.points[me]]
        season = _keep_season(view)
        keep = {card: keep_value(card, hand, feats, season) for card in hand}
        for slot in range(4):
            a_cards = [c for c in hand if SYMBOL[c] == slot]
            if not a_cards:
                continue
            for attribute in range(3):
                for value in range(4):
                    feature = (attribute, value)
                    if feature == feats[slot]:
                        continue
                    b_cards = [c for c in hand if CARD_ATTRS[c][attribute] == value]
                    pair = self._cheapest_pair(a_cards, b_cards, keep)
                    if pair is None:
                        continue
                    a, b = pair
                    new = list(feats)
                    new[slot] = feature
                    rest = [c for c in hand if c != a and c != b]
                    gain = self._evaluate(rest, new, view) - base - CHANGE_COST
                    if slot == BANNED and rivals:
                        # Hurt the leaders: ban what fills their point piles.
                        hits = sum(
                            1
                            for s in rivals
                            for code in view.piles[s]
                            if CARD_ATTRS[parse_card(code)][attribute] == value
                        )
                        gain += 0.05 * hits
                    if gain > best_gain:
                        best_gain, best_action = gain, Change(a, b, attribute)
        return best_action

    @staticmethod
    def _cheapest_pair(
        a_cards: list[Card], b_cards: list[Card], keep: dict[Card, float]
    ) -> tuple[Card, Card] | None:
        best: tuple[float, Card, Card] | None = None
        for a in a_cards:
            for b in b_cards:
                if a == b:
                    continue
                cost = keep[a] + keep[b]
                if best is None or cost < best[0]:
                    best = (cost, a, b)
        return None if best is None else (best[1], best[2])


# -- levels (issue 12) -------------------------------------------------------


class EasyBot(search.EasyBot):
    name = "easy"
    description = "the heuristic, with a random move a quarter of the time"
    heuristic = HeuristicBot


class NormalBot(HeuristicBot):
    name = "normal"


# Playouts per `hard` decision: about 0.3 s on a 2-core machine (docs/bots.md).
HARD_PLAYOUTS = 150
ROLLOUT_MISTAKES = 0.1  # random moves in playouts: cheaper, and covers surprises


class _FashionSearch(search.SearchBot):
    """Determinized search (core/search.py) over FashionSampler's deals;
    playouts run the heuristic to the end of the round (or of the game, FA-16)."""

    depth = 1

    heuristic = HeuristicBot
    rollout_mistakes = ROLLOUT_MISTAKES

    def __init__(self, seed: int | None = None, *, budget: search.Budget | None = None) -> None:
        super().__init__(seed, budget=budget)
        self._sampler = FashionSampler(bid_policy=self._rollout_bot.choose)

    def sample(self, view: View, rng: random.Random) -> AnyState:
        assert isinstance(view, FashionView)
        return self._sampler.sample(view, rng)

    def progress(self, state: AnyState) -> int:
        assert isinstance(state, FashionState)
        return state.round

    margin_scale = 2.0  # points gained on the best rival in a round

    def margin(self, state: AnyState, seat: int) -> float:
        assert isinstance(state, FashionState)
        # Points won (FA-12), plus what each hand promises, as the heuristic
        # weighs it: the collection it is growing, and the season collection
        # (FA-15) only as the end nears (the rules will change before).
        features = state.slot_features()
        season = state.config.season
        if state.last_round:
            weight = 1.0
        elif state.exhaustions and season != "strict":
            weight = SEASON_WEIGHT[2]
        else:
            weight = 0.0
        worth = [
            len(state.piles[s])
            + FUTURE * potential(state.hands[s], features)
            + weight * season_prospect(state.hands[s], features, season)
            for s in range(state.players)
        ]
        return worth[seat] - max(w for s, w in enumerate(worth) if s != seat)


class HardBot(_FashionSearch):
    name = "hard"
    description = "searches sampled hands for about 0.3 s per move"
    level_budget = search.hard_budget(HARD_PLAYOUTS)


class ExpertBot(_FashionSearch):
    name = "expert"
    description = "searches sampled hands for about 1.5 s per move"
    level_budget = search.expert_budget(HARD_PLAYOUTS)
