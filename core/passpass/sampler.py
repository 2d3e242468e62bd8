"""Pass Pass determinizations: a full state consistent with one seat's view.

What is public (and so respected exactly): the cards on the table, every
won pile, every discarded card (PP-15), the number of cards of each colour in
every hand (PP-8) and the scores. Nothing else constrains a hand: a player
may play any card (PP-7, no need to follow colour), so a play never shows what
a player lacks. The unseen cards of one colour are therefore dealt uniformly
at random to the other hands, each receiving exactly its public count of that
colour, and the rest of the colour is the set-aside pile (PP-4): this is the
exact posterior, colour by colour.
"""

from __future__ import annotations

import random

from core.passpass.model import DECK_SIZE, TRICKS_PER_ROUND, make_take
from core.passpass.state import (
    PassPassConfig,
    PassPassState,
    PassPassView,
    Phase,
    _lowest_pairs,
    _Resolution,
)
from core.search import Sampler


class PassPassSampler(Sampler[PassPassView, PassPassState]):
    def __init__(self) -> None:
        self._configs: dict[tuple[int, bool, tuple[int, ...]], PassPassConfig] = {}

    def _config(self, view: PassPassView) -> PassPassConfig:
        key = (view.players, view.teams, view.diamonds)
        config = self._configs.get(key)
        if config is None:
            config = self._configs[key] = PassPassConfig(
                players=view.players, teams=view.teams, diamonds=view.diamonds
            )
        return config

    def sample(self, view: PassPassView, rng: random.Random) -> PassPassState:
        seat = view.seat
        if seat is None:
            raise ValueError("a spectator's view has no seat to sample for")
        n = view.players
        own = [card.index for card in view.hand]
        seen = set(own)
        seen.update(card.index for _, card in view.trick)
        for pile in view.won:
            seen.update(card.index for card in pile)
        seen.update(card.index for card in view.discarded)
        unseen_by_colour: list[list[int]] = [[], [], [], []]
        for card in range(DECK_SIZE):
            if card not in seen:
                unseen_by_colour[card // 12].append(card)
        hands: list[list[int]] = [[] for _ in range(n)]
        hands[seat] = own
        set_aside: list[int] = []
        for colour, pool in enumerate(unseen_by_colour):
            rng.shuffle(pool)
            start = 0
            for other in range(n):
                if other == seat:
                    continue
                count = view.colour_counts[other][colour]
                hands[other].extend(pool[start : start + count])
                start += count
            set_aside.extend(pool[start:])
        for hand in hands:
            hand.sort()
        rng.shuffle(set_aside)
        return self._state(view, hands, set_aside, rng)

    def _state(
        self,
        view: PassPassView,
        hands: list[list[int]],
        set_aside: list[int],
        rng: random.Random,
    ) -> PassPassState:
        """The state the view describes, built field by field (no deal)."""
        config = self._config(view)
        state = PassPassState.__new__(PassPassState)
        state.config = config
        state.seed = 0
        # Later rounds are dealt from this generator: unknown future deals.
        state.rng = random.Random(rng.getrandbits(64))
        state.history = []
        state.opening_events = ()
        phase = Phase(view.phase)
        state.phase = phase
        state.round = view.round - 1
        state.trick_number = TRICKS_PER_ROUND if phase is Phase.REPRESENT else view.trick_number - 1
        state.hands = hands
        state.set_aside = set_aside
        state.trick = [(s, card.index) for s, card in view.trick]
        state.won = [[card.index for card in pile] for pile in view.won]
        state.discarded = [card.index for card in view.discarded]
        state.pass_pass_round = list(view.pass_pass_round)
        state.sheet = list(view.sheet)
        state.team_totals = list(view.totals)
        state.team_pass_pass = list(view.pass_pass_totals)
        state.representatives = list(view.representatives)
        summary = view.resolution
        if summary is None:
            state.resolution = None
        else:
            resolution = _Resolution(
                tuple((s, card.index) for s, card in summary.plays),
                summary.majority,
                summary.strengths,
                summary.first_winner,
                summary.second_winner,
            )
            resolution.picked = None if summary.picked is None else summary.picked.index
            resolution.taken = tuple(card.index for card in summary.taken)
            resolution.discarded = tuple(card.index for card in summary.discarded)
            state.resolution = resolution
        state.take_options = ()
        if phase is Phase.TAKE:  # PP-14: the choices among tied lowest cards
            remaining = sorted(card for _, card in state.trick)
            state.take_options = tuple(make_take(*pair) for pair in _lowest_pairs(remaining))
        state.outcome = view.result
        state.leader = view.leader
        state.current = view.to_act[0] if phase is Phase.PLAY else view.leader
        return state
