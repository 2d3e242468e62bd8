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

from core.passpass.model import DECK_SIZE, TRICKS_PER_ROUND, Take, make_take
from core.passpass.state import (
    PassPassConfig,
    PassPassState,
    PassPassView,
    Phase,
    _lowest_pairs,
    _Resolution,
)
from core.search import Sampler


class _Known:
    """What a view shows, as card ids: read once per view, since a search
    samples the same view for every playout of a decision."""

    __slots__ = ("discarded", "own", "resolution", "take_options", "trick", "unseen", "won")

    def __init__(self, view: PassPassView) -> None:
        self.own = tuple(card.index for card in view.hand)
        self.trick = tuple((s, card.index) for s, card in view.trick)
        self.won = tuple(tuple(card.index for card in pile) for pile in view.won)
        self.discarded = tuple(card.index for card in view.discarded)
        seen = set(self.own)
        seen.update(card for _, card in self.trick)
        for pile in self.won:
            seen.update(pile)
        seen.update(self.discarded)
        unseen: tuple[list[int], ...] = ([], [], [], [])
        for card in range(DECK_SIZE):
            if card not in seen:
                unseen[card // 12].append(card)
        self.unseen = tuple(tuple(pool) for pool in unseen)  # per colour, in order
        summary = view.resolution
        # Copied into each sample: a trick being resolved records its pick and take.
        self.resolution = None
        if summary is not None:
            self.resolution = _Resolution(
                tuple((s, card.index) for s, card in summary.plays),
                summary.majority,
                summary.strengths,
                summary.first_winner,
                summary.second_winner,
            )
            self.resolution.picked = None if summary.picked is None else summary.picked.index
            self.resolution.taken = tuple(card.index for card in summary.taken)
            self.resolution.discarded = tuple(card.index for card in summary.discarded)
        self.take_options: tuple[Take, ...] = ()
        if view.phase == Phase.TAKE.value:  # PP-14: the choices among tied lowest cards
            remaining = sorted(card for _, card in self.trick)
            self.take_options = tuple(make_take(*pair) for pair in _lowest_pairs(remaining))


class PassPassSampler(Sampler[PassPassView, PassPassState]):
    def __init__(self) -> None:
        self._configs: dict[tuple[int, bool, tuple[int, ...]], PassPassConfig] = {}
        # The last view sampled and what it shows.
        self._view: PassPassView | None = None
        self._known: _Known | None = None

    def _config(self, view: PassPassView) -> PassPassConfig:
        key = (view.players, view.teams, view.diamonds)
        config = self._configs.get(key)
        if config is None:
            config = self._configs[key] = PassPassConfig(
                players=view.players, teams=view.teams, diamonds=view.diamonds
            )
        return config

    def _read(self, view: PassPassView) -> _Known:
        known = self._known
        if view is not self._view or known is None:
            known = self._known = _Known(view)
            self._view = view
        return known

    def sample(self, view: PassPassView, rng: random.Random) -> PassPassState:
        seat = view.seat
        if seat is None:
            raise ValueError("a spectator's view has no seat to sample for")
        known = self._read(view)
        n = view.players
        hands: list[list[int]] = [[] for _ in range(n)]
        hands[seat] = list(known.own)
        set_aside: list[int] = []
        for colour, unseen in enumerate(known.unseen):
            pool = list(unseen)
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
        return self._state(view, known, hands, set_aside, rng)

    def _state(
        self,
        view: PassPassView,
        known: _Known,
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
        state.trick = list(known.trick)
        state.won = [list(pile) for pile in known.won]
        state.discarded = list(known.discarded)
        state.pass_pass_round = list(view.pass_pass_round)
        state.sheet = list(view.sheet)
        state.team_totals = list(view.totals)
        state.team_pass_pass = list(view.pass_pass_totals)
        state.representatives = list(view.representatives)
        state.resolution = None if known.resolution is None else known.resolution.copy()
        state.take_options = known.take_options
        state.outcome = view.result
        state.leader = view.leader
        state.current = view.to_act[0] if phase is Phase.PLAY else view.leader
        return state
