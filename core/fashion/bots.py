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
from collections.abc import Callable
from typing import ClassVar

from core import search
from core.engine import Action, AnyState, Bot, View
from core.fashion.model import (
    ATTRIBUTES,
    BANNED,
    CARD_ATTRS,
    CARD_FEATURES,
    FEATURE_CARDS,
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
    card_set,
    parse_cards,
)
from core.fashion.sampler import FashionSampler
from core.fashion.state import (
    ACTION,
    AUCTION,
    CHOOSE,
    PHASE_NAMES,
    TAKE,
    FashionState,
    FashionView,
    season_points,
    valid_collections,
)

Features = list[Feature]
# The four slots' features as indices into FEATURE_CARDS (4 * attribute + value),
# in slot order STAR, MUST, BANNED, MONEY: the form the scoring below reads.
Slots = list[int]

# The potential a rule change must add: it costs two cards, and rivals may
# change the rules again before our next turn (FA-13).
CHANGE_COST = 1.0
FUTURE = 0.5


def _slot_indices(feats: Features) -> Slots:
    return [4 * attribute + value for attribute, value in feats]


def _state_slots(state: FashionState) -> Slots:
    return [
        4 * attribute + CARD_ATTRS[card][attribute]
        for card, attribute in zip(state.slot_cards, state.slot_attrs, strict=True)
    ]


def _features(slots: Slots) -> Features:
    return [divmod(feature, 4) for feature in slots]


def _cards_in(cards: int) -> list[Card]:
    """The cards of a bit set, ascending."""
    out = []
    while cards:
        lowest = cards & -cards
        out.append(lowest.bit_length() - 1)
        cards ^= lowest
    return out


def potential(hand: list[Card], feats: Features) -> float:
    """How many points the best collection this hand is growing may bring."""
    return _potential(card_set(hand), _slot_indices(feats))


def _potential(cards: int, slots: Slots) -> float:
    must, banned = slots[MUST], slots[BANNED]
    if must == banned:
        return 0.0
    usable = cards & ~FEATURE_CARDS[banned]
    stars = usable & FEATURE_CARDS[slots[STAR]]
    if not stars:
        return 0.0
    musts = usable & FEATURE_CARDS[must]
    best = 0.0
    for feature_cards in FEATURE_CARDS:
        group_stars = (stars & feature_cards).bit_count()
        if group_stars:
            group = usable & feature_cards
            value = (
                group_stars
                * (1.0 if group & musts else 0.6)
                * (1.0 if group.bit_count() >= 3 else 0.75)
            )
            if value > best:
                best = value
    return best


def rounds_left(view: FashionView) -> int | None:
    """How many rounds will follow this one, judged from the deck (FA-14), or
    None while the deck has not yet run out once (the end is far)."""
    phase = view.phase
    if phase == PHASE_NAMES[AUCTION]:
        turns = view.players
    else:
        turns = len(view.waiting) + (1 if phase == PHASE_NAMES[TAKE] else 0)
    return _rounds_left(view.last_round, view.exhaustions, turns, view.deck_size, view.players)


def _rounds_left(
    last_round: bool, exhaustions: int, turns: int, deck_size: int, players: int
) -> int | None:
    """The game ends with the round that draws the second deck's last card;
    each of the ``turns`` left in this round draws about two cards (FA-10)."""
    if last_round:
        return 0
    if exhaustions == 0:
        return None
    left = deck_size - 2 * turns
    if left <= 0:
        return 0
    return -(-left // (2 * players))


# How much the season collection weighs against collections still to come,
# by the rounds left after this one (FA-15); the further off, the more the
# rules and the hand may still change.
SEASON_WEIGHT = {0: 1.0, 1: 0.5, 2: 0.25}
# In the last round, the chance that one player still to play leaves a rule
# that our season collection needs unchanged (FA-13).
RULE_RISK = 0.85


def _season_weight(left: int | None, season: str) -> float:
    if season == "strict":
        # An FA-11 collection of the whole hand is rare: plan for it only when
        # the hand is final (the last round).
        return 1.0 if left == 0 else 0.0
    return 0.0 if left is None else SEASON_WEIGHT.get(left, 0.0)


def _season_prospect(cards: int, slots: Slots, season: str) -> float:
    """FA-15: what this hand may score as the season collection while it can
    still change. Under the table's reading a missing MUST card may still come
    and a BANNED card may still be shed, so such a hand keeps part of its
    worth; under ``strict``, its score now."""
    if season == "strict":
        return float(season_points(_cards_in(cards), _features(slots), season))
    must, banned = slots[MUST], slots[BANNED]
    if must == banned:
        return 0.0
    stars = (cards & FEATURE_CARDS[slots[STAR]]).bit_count()
    if not stars:
        return 0.0
    has_must = cards & FEATURE_CARDS[must]
    banned_cards = (cards & FEATURE_CARDS[banned]).bit_count()
    return 3.0 * stars * (1.0 if has_must else 0.5) * 0.5**banned_cards


def keep_value(card: Card, hand: list[Card], feats: Features, season: float = 0.0) -> float:
    """How much a card is worth keeping (low: a good bid or rule-change card).

    ``season`` (0..1) is how much the season collection already counts
    (FA-15, table reading): then the hand's only MUST card is worth what its
    STAR cards will score, and a BANNED card costs them.
    """
    return _keep_value(card, card_set(hand), _slot_indices(feats), season)


def _keep_value(card: Card, cards: int, slots: Slots, season: float = 0.0) -> float:
    star_cards = FEATURE_CARDS[slots[STAR]]
    must_cards = FEATURE_CARDS[slots[MUST]]
    value = 0.0
    if star_cards >> card & 1:
        value += 3.0
    must = must_cards >> card & 1
    if must:
        value += 1.0
    banned = FEATURE_CARDS[slots[BANNED]] >> card & 1
    if banned:
        value -= 3.0
    if season and (must or banned):
        others = cards & ~(1 << card)
        stars = (others & star_cards).bit_count()
        if banned:
            value -= season * 3.0 * stars
        elif not others & must_cards:
            value += season * 3.0 * stars
    colour, cut, material = CARD_FEATURES[card]
    group = max(
        (cards & FEATURE_CARDS[colour]).bit_count(),
        (cards & FEATURE_CARDS[cut]).bit_count(),
        (cards & FEATURE_CARDS[material]).bit_count(),
    )
    return value + 0.3 * group


class _Position:
    """What the heuristic reads of a position: the same few facts whether they
    come from a seat's view (at the table) or straight from a state (in search
    playouts, where building a view per move would cost most of the playout)."""

    __slots__ = (
        "cards",
        "hand",
        "hand_sizes",
        "keep_season",
        "later",
        "left",
        "payment",
        "piles",
        "players",
        "points",
        "season",
        "seat",
        "slots",
        "weight",
    )

    def __init__(
        self,
        *,
        seat: int,
        players: int,
        hand: list[Card],
        slots: Slots,
        payment: str,
        season: str,
        points: list[int],
        hand_sizes: list[int],
        piles: list[list[Card]],
        later: int,
        left: int | None,
    ) -> None:
        self.seat = seat
        self.players = players
        self.hand = hand  # ascending
        self.cards = card_set(hand)
        self.slots = slots
        self.payment = payment
        self.season = season
        self.points = points
        self.hand_sizes = hand_sizes
        self.piles = piles
        self.later = later  # players still to play this round after this one
        self.left = left  # rounds_left()
        self.weight = _season_weight(left, season)
        # The season weight for valuing single cards: only under the table's
        # reading, where one MUST or BANNED card decides the whole hand (FA-15).
        self.keep_season = self.weight if season == "table" else 0.0

    @classmethod
    def of_view(cls, view: FashionView) -> _Position:
        seat = view.seat
        assert seat is not None
        return cls(
            seat=seat,
            players=view.players,
            hand=parse_cards(view.hand),
            slots=[
                4 * (attribute := ATTRIBUTES.index(info.attribute))
                + VALUE_NAMES[attribute].index(info.value)
                for info in view.slots
            ],
            payment=view.payment,
            season=view.season,
            points=list(view.points),
            hand_sizes=list(view.hand_sizes),
            piles=[parse_cards(pile) for pile in view.piles],
            later=len(view.waiting),
            left=rounds_left(view),
        )

    @classmethod
    def of_state(cls, state: FashionState, seat: int, hand: list[Card]) -> _Position:
        """``hand`` is the seat's hand, sorted. Only what ``state.view(seat)``
        shows is read."""
        phase = state.phase
        players = state.players
        waiting = 0 if phase == AUCTION else len(state.waiting())
        turns = players if phase == AUCTION else waiting + (1 if phase == TAKE else 0)
        config = state.config
        return cls(
            seat=seat,
            players=players,
            hand=hand,
            slots=_state_slots(state),
            payment=config.payment,
            season=config.season,
            points=[len(pile) for pile in state.piles],
            hand_sizes=[len(other) for other in state.hands],
            piles=state.piles,
            later=waiting,
            left=_rounds_left(state.last_round, state.exhaustions, turns, len(state.deck), players),
        )


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
        position = _Position.of_view(view)
        first = legal[0]
        if isinstance(first, Bid):
            return self._bid(position)
        if isinstance(first, Choose):
            return self._order(position, legal)
        if isinstance(first, Take):
            return self._take(position, legal)
        return self._act(position, [a.cards for a in legal if isinstance(a, Collect)])

    def choose_in_sample(self, state: AnyState, seat: int) -> Action:
        """``choose(state.view(seat))``, read straight from a search's sampled
        state (playouts, and the sampler's pending bids): the same action and
        random draws, and no view built."""
        assert isinstance(state, FashionState)
        hand = sorted(state.hands[seat])
        if state.phase == ACTION:
            if len(hand) < 2:
                return End()  # FA-10: the only legal action then
            position = _Position.of_state(state, seat, hand)
            # The legal actions are End, these collections (in this order),
            # then every rule change, which _act weighs from the hand itself.
            return self._act(position, valid_collections(hand, state.slot_features()))
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        position = _Position.of_state(state, seat, hand)
        if state.phase == AUCTION:
            return self._bid(position)
        if state.phase == CHOOSE:
            return self._order(position, legal)
        return self._take(position, legal)

    # FA-7/FA-8: strength to win the auction against the cost of the card paid.
    def _bid(self, position: _Position) -> Action:
        money = FEATURE_CARDS[position.slots[MONEY]]
        cost = {"winner": 1.2, "everyone": 3.0, "nobody": 0.0}.get(position.payment, 1.2)
        hand, cards, slots, season = (
            position.hand,
            position.cards,
            position.slots,
            position.keep_season,
        )
        best: tuple[float, int] | None = None
        choice = hand[0]
        for card in hand:
            strength = NUMBER[card] + (8 if money >> card & 1 else 0)
            score = strength - cost * _keep_value(card, cards, slots, season)
            key = (score, -card)
            if best is None or key > best:
                best, choice = key, card
        return Bid(choice)

    # FA-9: play first (the offer is known), leaders last: near the end of the
    # game they then find the offer empty (FA-14). But in the last round, under
    # the table's season reading, play last: nobody can then change a rule
    # against our season collection (FA-13, FA-15).
    def _order(self, position: _Position, legal: tuple[Action, ...]) -> Action:
        me = position.seat
        seats = [a.seat for a in legal if isinstance(a, Choose)]
        last_word = position.season == "table" and position.left == 0 and len(seats) > 1
        if me in seats and not last_word:
            pick = me
        else:
            rivals = [s for s in seats if s != me]
            points, sizes = position.points, position.hand_sizes
            pick = min(rivals, key=lambda s: (points[s], sizes[s], s))
        for action in legal:
            if isinstance(action, Choose) and action.seat == pick:
                return action
        return legal[0]

    def _evaluate(self, cards: int, slots: Slots, position: _Position) -> float:
        """What the hand ``cards`` is worth after this turn's action."""
        weight = position.weight
        if weight >= 1.0:  # no turn left: the hand is the season collection
            # Every player still to play may change a rule against it (FA-13).
            points = season_points(_cards_in(cards), _features(slots), position.season)
            return points * RULE_RISK**position.later
        # Potential is discounted against banked points: rivals may change
        # the rules before our next turn (FA-13).
        value = FUTURE * _potential(cards, slots) + 0.02 * cards.bit_count()
        if weight:
            prospect = _season_prospect(cards, slots, position.season)
            value = (1.0 - weight) * value + weight * prospect
        return value

    def _take(self, position: _Position, legal: tuple[Action, ...]) -> Action:
        weight, slots = position.weight, position.slots
        best: tuple[float, int] | None = None
        choice = legal[0]
        for i, action in enumerate(legal):
            assert isinstance(action, Take)
            after = position.cards | card_set(action.cards)
            score = _potential(after, slots) + 0.01 * sum(
                _keep_value(c, after, slots) for c in action.cards
            )
            if weight:
                # The action after taking may still shed a BANNED card or
                # change a rule, so the hand is not final yet.
                score += weight * _season_prospect(after, slots, position.season)
            key = (score, -i)
            if best is None or key > best:
                best, choice = key, action
        return choice

    def _act(self, position: _Position, collections: list[tuple[Card, ...]]) -> Action:
        """``collections``: the legal ones (FA-11), in the order of the legal actions."""
        hand, cards, slots = position.hand, position.cards, position.slots
        # The hand left after an action, valued under rules that differ at
        # most in MONEY (which no valuation reads), repeats: value it once.
        evaluated: dict[int, float] = {}

        def evaluate(rest: int) -> float:
            value = evaluated.get(rest)
            if value is None:
                value = evaluated[rest] = self._evaluate(rest, slots, position)
            return value

        base = evaluate(cards)
        star_cards = FEATURE_CARDS[slots[STAR]]
        best_action: Action = End()
        best_gain = 0.0
        # Collections (FA-11/FA-12): points now, plus what the rest is still worth.
        for collection in collections:
            chosen = card_set(collection)
            stars = (chosen & star_cards).bit_count()
            if stars == 0:
                continue
            gain = stars + evaluate(cards & ~chosen) - base
            # Bank points at once: the rules may change before the next turn.
            if gain > best_gain:
                best_gain, best_action = gain, Collect(collection)
        # Rule changes (FA-13): for each slot and feature, the cheapest A and B.
        me = position.seat
        points = position.points
        rivals = [s for s in range(position.players) if s != me and points[s] >= points[me]]
        # Hurt the leaders: ban what fills their point piles.
        piles = card_set(card for s in rivals for card in position.piles[s]) if rivals else 0
        keep: dict[Card, float] | None = None  # made for the first change worth a look
        star, banned = slots[STAR], slots[BANNED]
        # Most changes cannot beat the best action even at a bound of the
        # gain: they are skipped before finding their cards and valuing the
        # rest. Changing MUST or MONEY leaves the bound as it is.
        unchanged = self._evaluate_bound(cards, star, banned, position) - base - CHANGE_COST
        for slot in range(4):
            if slot in (MUST, MONEY) and unchanged <= best_gain:
                continue
            a_cards = [c for c in hand if SYMBOL[c] == slot]
            if not a_cards:
                continue
            for feature in range(12):
                if feature == slots[slot] or not cards & FEATURE_CARDS[feature]:
                    continue
                if slot == STAR:
                    bound = self._evaluate_bound(cards, feature, banned, position)
                    gain = bound - base - CHANGE_COST
                elif slot == BANNED:
                    bound = self._evaluate_bound(cards, star, feature, position)
                    gain = bound - base - CHANGE_COST
                    if rivals:
                        gain += 0.05 * (piles & FEATURE_CARDS[feature]).bit_count()
                else:
                    gain = unchanged
                if gain <= best_gain:
                    continue
                if keep is None:
                    season = position.keep_season
                    keep = {card: _keep_value(card, cards, slots, season) for card in hand}
                b_cards = [c for c in hand if FEATURE_CARDS[feature] >> c & 1]
                pair = self._cheapest_pair(a_cards, b_cards, keep)
                if pair is None:
                    continue
                a, b = pair
                rest = cards & ~(1 << a | 1 << b)
                if slot == MONEY:
                    value = evaluate(rest)
                else:
                    new = slots.copy()
                    new[slot] = feature
                    value = self._evaluate(rest, new, position)
                gain = value - base - CHANGE_COST
                if slot == BANNED and rivals:
                    gain += 0.05 * (piles & FEATURE_CARDS[feature]).bit_count()
                if gain > best_gain:
                    best_gain, best_action = gain, Change(a, b, feature // 4)
        return best_action

    def ranked_actions(self, view: View) -> list[Action]:
        """The turn's sensible actions, best first by this heuristic's own
        gain (as :meth:`_act` weighs them, every one valued in full): End,
        every collection (FA-11), and for each rule slot and new feature the
        change that discards the two cards least worth keeping (FA-13). The
        hundreds of other changes differ from these only by dearer discards.
        Outside the action phase: the legal actions as they are."""
        assert isinstance(view, FashionView)
        legal = view.legal
        if view.phase != PHASE_NAMES[ACTION] or len(legal) < 2:
            return list(legal)
        position = _Position.of_view(view)
        hand, cards, slots = position.hand, position.cards, position.slots
        base = self._evaluate(cards, slots, position)
        star_cards = FEATURE_CARDS[slots[STAR]]
        options: list[tuple[float, Action]] = [(0.0, End())]
        for action in legal:
            if isinstance(action, Collect):
                chosen = card_set(action.cards)
                stars = (chosen & star_cards).bit_count()
                options.append(
                    (stars + self._evaluate(cards & ~chosen, slots, position) - base, action)
                )
        me, points = position.seat, position.points
        rivals = [s for s in range(position.players) if s != me and points[s] >= points[me]]
        piles = card_set(card for s in rivals for card in position.piles[s]) if rivals else 0
        season = position.keep_season
        keep = {card: _keep_value(card, cards, slots, season) for card in hand}
        for slot in range(4):
            a_cards = [c for c in hand if SYMBOL[c] == slot]
            for feature in range(12):
                if feature == slots[slot] or not cards & FEATURE_CARDS[feature]:
                    continue
                b_cards = [c for c in hand if FEATURE_CARDS[feature] >> c & 1]
                pair = self._cheapest_pair(a_cards, b_cards, keep)
                if pair is None:
                    continue
                a, b = pair
                new = slots.copy()
                new[slot] = feature
                gain = self._evaluate(cards & ~(1 << a | 1 << b), new, position) - base
                gain -= CHANGE_COST
                if slot == BANNED and rivals:
                    gain += 0.05 * (piles & FEATURE_CARDS[feature]).bit_count()
                options.append((gain, Change(a, b, feature // 4)))
        options.sort(key=lambda option: -option[0])  # stable: ties keep their order
        return [action for _, action in options]

    @staticmethod
    def _evaluate_bound(cards: int, star: int, banned: int, position: _Position) -> float:
        """At least ``_evaluate`` of any hand of ``cards`` less two of them (a
        rule change's A and B) under rules with these STAR and BANNED features
        and any MUST and MONEY: the same float operations on counts at least
        as large (rounding is monotonic: it never reverses an order)."""
        star_cards = cards & FEATURE_CARDS[star]
        weight = position.weight
        if weight >= 1.0:
            # season_points: three per STAR card at most.
            return 3 * star_cards.bit_count() * RULE_RISK**position.later
        # _potential: no group has more usable STAR cards than the hand.
        stars = (star_cards & ~FEATURE_CARDS[banned]).bit_count()
        value = FUTURE * stars + 0.02 * (cards.bit_count() - 2)
        if weight:
            # _season_prospect: three per STAR card at most.
            value = (1.0 - weight) * value + weight * (3.0 * star_cards.bit_count())
        return value

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
# Playouts per `expert` decision: two rounds ahead, about 1.5 s.
EXPERT_PLAYOUTS = 320
ROLLOUT_MISTAKES = 0.1  # random moves in playouts: cheaper, and covers surprises


class _FashionSearch(search.SearchBot):
    """Determinized search (core/search.py) over FashionSampler's deals;
    playouts run the heuristic to the end of the round (or of the game, FA-16)."""

    depth = 1

    heuristic = HeuristicBot
    rollout_mistakes = ROLLOUT_MISTAKES

    def __init__(self, seed: int | None = None, *, budget: search.Budget | None = None) -> None:
        super().__init__(seed, budget=budget)
        assert isinstance(self._rollout_bot, HeuristicBot)
        self._sampler = FashionSampler(bid_policy=self._rollout_bot.choose_in_sample)

    def sample(self, view: View, rng: random.Random) -> AnyState:
        assert isinstance(view, FashionView)
        return self._sampler.sample(view, rng)

    def rollout_policy(self, rng: random.Random) -> Callable[[AnyState, int], Action]:
        """search.heuristic_policy, the heuristic reading the sampled state."""
        bot = self._rollout_bot
        assert isinstance(bot, HeuristicBot)
        return search.heuristic_policy(bot, rng, self.rollout_mistakes, bot.choose_in_sample)

    def progress(self, state: AnyState) -> int:
        assert isinstance(state, FashionState)
        return state.round

    margin_scale = 2.0  # points gained on the best rival in a round

    def margin(self, state: AnyState, seat: int) -> float:
        assert isinstance(state, FashionState)
        # Points won (FA-12), plus what each hand promises, as the heuristic
        # weighs it: the collection it is growing, and the season collection
        # (FA-15) only as the end nears (the rules will change before).
        slots = _state_slots(state)
        season = state.config.season
        if state.last_round:
            weight = 1.0
        elif state.exhaustions and season != "strict":
            weight = SEASON_WEIGHT[2]
        else:
            weight = 0.0
        worth = []
        for s in range(state.players):
            cards = card_set(state.hands[s])
            worth.append(
                len(state.piles[s])
                + FUTURE * _potential(cards, slots)
                + weight * _season_prospect(cards, slots, season)
            )
        return worth[seat] - max(w for s, w in enumerate(worth) if s != seat)


class HardBot(_FashionSearch):
    name = "hard"
    description = "searches sampled hands for about 0.3 s per move"
    level_budget = search.hard_budget(HARD_PLAYOUTS)


class ExpertBot(_FashionSearch):
    """Looks two rounds ahead (to the end of the next round: what this
    round's collections and rule changes leave for the next, FA-12, FA-13),
    not one; longer playouts, so fewer fit its time (EXPERT_PLAYOUTS). And
    where a turn has more actions than it can search (the hundreds of rule
    changes) it searches the heuristic's best-ranked ones, not a random share."""

    name = "expert"
    description = (
        "searches sampled hands two rounds ahead and the best-ranked moves, about 1.5 s per move"
    )
    level_budget = search.Budget(seconds=search.EXPERT_SECONDS, iterations=EXPERT_PLAYOUTS)
    depth = 2  # to the end of the next round
    margin_scale = 3.0  # points gained on the best rival in two rounds

    def candidates(self, view: View, rng: random.Random) -> list[Action]:
        legal = view.legal
        if len(legal) <= search.MAX_ARMS:
            return list(legal)
        favourite = self.favourite(view)
        bot = self._favourite_bot
        assert isinstance(bot, HeuristicBot)
        others = [action for action in bot.ranked_actions(view) if action != favourite]
        return [favourite, *others[: search.MAX_ARMS - 1]]
