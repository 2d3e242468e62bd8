"""The Pass Pass engine: configuration, state and views (PP-1..PP-25)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from itertools import combinations
from typing import ClassVar

from core.engine import (
    Action,
    Config,
    ConfigError,
    Event,
    GameState,
    IllegalAction,
    Result,
    View,
)
from core.passpass.model import (
    CARDS,
    COLOURS,
    DECK_SIZE,
    DEFAULT_DIAMONDS,
    HAND_SIZE,
    PASS_PASS_TO_WIN,
    PICKS,
    PLAYS,
    ROUNDS,
    TRICKS_PER_ROUND,
    Card,
    CardPicked,
    CardPlayed,
    CardsTaken,
    Colour,
    GameEnded,
    PassPassChecked,
    Pick,
    Play,
    Represent,
    RepresentativeChosen,
    RoundScored,
    RoundStarted,
    Take,
    TrickResolved,
    make_take,
)


@dataclass(frozen=True, kw_only=True)
class PassPassConfig(Config):
    """PP-3: 3-5 players individually, 4 or 6 in teams of two seated alternately.

    ``diamonds``: diamonds on values 1..12 (PP-2 [interpretation], replaceable).
    ``first_leader``: seat of "the sneakiest player" (PP-5); ``None`` draws it
    from the seed.
    """

    MIN_PLAYERS: ClassVar[int] = 3
    MAX_PLAYERS: ClassVar[int] = 6

    diamonds: tuple[int, ...] = DEFAULT_DIAMONDS
    first_leader: int | None = None

    def validate(self) -> None:
        if self.teams and self.players not in (4, 6):
            raise ConfigError(f"teams of two need 4 or 6 players, not {self.players} (PP-3)")
        if not self.teams and self.players == 6:
            raise ConfigError("6 players play in teams only (PP-3): add --teams")
        if len(self.diamonds) != 12 or any(
            isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 3 for d in self.diamonds
        ):
            raise ConfigError(
                "the diamond table needs 12 whole numbers from 0 to 3, one per value 1-12 (PP-2)"
            )
        if self.first_leader is not None and not 0 <= self.first_leader < self.players:
            raise ConfigError(
                f"first leader must be a seat from 1 to {self.players}, not {self.first_leader + 1}"
            )

    @property
    def default_diamonds(self) -> bool:
        return tuple(self.diamonds) == DEFAULT_DIAMONDS

    @property
    def team_count(self) -> int:
        return self.players // 2 if self.teams else self.players

    def team_of(self, seat: int) -> int:
        """PP-3: partners sit alternately (4: A B A B; 6: A B C A B C)."""
        return seat % self.team_count

    def members(self, team: int) -> tuple[int, ...]:
        if not self.teams:
            return (team,)
        return (team, team + self.team_count)


class Phase(Enum):
    PLAY = "play"  # PP-7
    PICK = "pick"  # PP-13: the first winner takes one card
    TAKE = "take"  # PP-14: the second winner chooses among tied lowest cards
    REPRESENT = "represent"  # PP-23: teams choose their representative
    OVER = "over"


@dataclass(frozen=True, kw_only=True)
class TrickSummary:
    """The trick being resolved, or the last one resolved (public)."""

    plays: tuple[tuple[int, Card], ...]
    majority: Colour
    strengths: tuple[tuple[Colour, int], ...]
    first_winner: int
    second_winner: int
    picked: Card | None
    taken: tuple[Card, ...]
    discarded: tuple[Card, ...]


@dataclass(frozen=True, kw_only=True)
class SheetRow:
    """One round on the score sheet. Individual mode: per seat. Team mode:
    per team, with the representative each team chose (PP-23)."""

    round: int
    points: tuple[int, ...]
    pass_pass: tuple[int, ...]
    representatives: tuple[int, ...] = ()


@dataclass(frozen=True, kw_only=True)
class PassPassView(View):
    phase: str
    round: int  # 1-based
    trick_number: int  # 1-based
    leader: int
    hand: tuple[Card, ...]  # own hand only; empty for a spectator
    hand_sizes: tuple[int, ...]
    colour_counts: tuple[tuple[int, int, int, int], ...]  # PP-8: public per seat
    trick: tuple[tuple[int, Card], ...]  # cards on the table, in play order
    resolution: TrickSummary | None
    won: tuple[tuple[Card, ...], ...]  # per seat, this round (face up)
    round_points: tuple[int, ...]  # per seat, this round so far (PP-20)
    pass_pass_round: tuple[int, ...]  # per seat, checked this round (PP-18)
    teams: bool
    team_of: tuple[int, ...]  # team index per seat (= seat in individual mode)
    sheet: tuple[SheetRow, ...]
    totals: tuple[int, ...]  # per seat (individual) or per team
    pass_pass_totals: tuple[int, ...]  # per seat (individual) or per team, recorded
    representatives: tuple[int | None, ...]  # per team, in the REPRESENT phase
    diamonds: tuple[int, ...]
    default_diamonds: bool
    set_aside: int
    # Every card discarded this round (PP-15), in order: public, as every
    # trick is played face up; a search bot needs it to know which cards
    # are still unseen (core/passpass/sampler.py).
    discarded: tuple[Card, ...] = ()


class _Resolution:
    """The trick being resolved, kept as plain ints on the hot path; the view
    turns it into a :class:`TrickSummary`."""

    __slots__ = (
        "discarded",
        "first_winner",
        "majority",
        "picked",
        "plays",
        "second_winner",
        "strengths",
        "taken",
    )

    def __init__(
        self,
        plays: tuple[tuple[int, int], ...],
        majority: Colour,
        strengths: tuple[tuple[Colour, int], ...],
        first_winner: int,
        second_winner: int,
    ) -> None:
        self.plays = plays
        self.majority = majority
        self.strengths = strengths
        self.first_winner = first_winner
        self.second_winner = second_winner
        self.picked: int | None = None
        self.taken: tuple[int, ...] = ()
        self.discarded: tuple[int, ...] = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Resolution):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> _Resolution:
        made = _Resolution(
            self.plays, self.majority, self.strengths, self.first_winner, self.second_winner
        )
        made.picked, made.taken, made.discarded = self.picked, self.taken, self.discarded
        return made

    def summary(self) -> TrickSummary:
        return TrickSummary(
            plays=tuple((seat, CARDS[card]) for seat, card in self.plays),
            majority=self.majority,
            strengths=self.strengths,
            first_winner=self.first_winner,
            second_winner=self.second_winner,
            picked=None if self.picked is None else CARDS[self.picked],
            taken=tuple(CARDS[card] for card in self.taken),
            discarded=tuple(CARDS[card] for card in self.discarded),
        )


def _strength_key(item: tuple[int, int, int, int]) -> tuple[int, int, int]:
    _, strength, highest, position = item
    return (-strength, -highest, position)


class PassPassState(GameState[PassPassConfig, Action, PassPassView]):
    game_id = "passpass"

    def __init__(self, config: PassPassConfig, seed: int) -> None:
        super().__init__(config, seed)
        n = config.players
        self.phase = Phase.PLAY
        self.round = 0  # 0-based
        self.trick_number = 0  # 0-based
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.set_aside: list[int] = []
        self.trick: list[tuple[int, int]] = []
        self.won: list[list[int]] = [[] for _ in range(n)]
        self.discarded: list[int] = []
        self.pass_pass_round = [0] * n
        self.sheet: list[SheetRow] = []
        self.team_totals = [0] * config.team_count
        self.team_pass_pass = [0] * config.team_count
        self.representatives: list[int | None] = [None] * config.team_count
        self.resolution: _Resolution | None = None
        self.take_options: tuple[Take, ...] = ()
        self.outcome: Result | None = None
        # PP-5 [interpretation]: the sneakiest player is drawn from the seed
        # unless the host names one.
        first = config.first_leader
        self.leader = self.rng.randrange(n) if first is None else first
        self.current = self.leader
        self.opening_events = self._deal()

    # -- setup ------------------------------------------------------------

    def _deal(self) -> tuple[Event, ...]:
        """PP-4, PP-21: shuffle all 48 cards, deal 8 each one at a time."""
        deck = list(range(DECK_SIZE))
        self.rng.shuffle(deck)
        n = self.config.players
        for hand in self.hands:
            hand.clear()
        for i in range(HAND_SIZE * n):
            self.hands[(self.leader + i) % n].append(deck[i])
        self.set_aside = deck[HAND_SIZE * n :]
        for hand in self.hands:
            hand.sort()
        for pile in self.won:
            pile.clear()
        self.discarded = []
        self.pass_pass_round = [0] * n
        self.trick_number = 0
        self.trick = []
        self.resolution = None
        self.current = self.leader
        self.phase = Phase.PLAY
        return (RoundStarted(self.round + 1, self.leader),)

    # -- queries ----------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        phase = self.phase
        if phase is Phase.PLAY:
            return (self.current,)
        if phase is Phase.PICK:
            assert self.resolution is not None
            return (self.resolution.first_winner,)
        if phase is Phase.TAKE:
            assert self.resolution is not None
            return (self.resolution.second_winner,)
        if phase is Phase.REPRESENT:
            # PP-23 [interpretation]: either partner may choose.
            return tuple(
                seat
                for seat in range(self.config.players)
                if self.representatives[self.config.team_of(seat)] is None
            )
        return ()

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        phase = self.phase
        if phase is Phase.PLAY:
            if seat != self.current:
                return ()
            return tuple(PLAYS[card] for card in self.hands[seat])
        if phase is Phase.PICK:
            assert self.resolution is not None
            if seat != self.resolution.first_winner:
                return ()
            return tuple(PICKS[card] for _, card in self.trick)
        if phase is Phase.TAKE:
            assert self.resolution is not None
            return self.take_options if seat == self.resolution.second_winner else ()
        if phase is Phase.REPRESENT:
            team = self.config.team_of(seat)
            if self.representatives[team] is not None:
                return ()
            return tuple(Represent(member) for member in self.config.members(team))
        return ()

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def result(self) -> Result | None:
        return self.outcome

    def round_points(self, seat: int) -> int:
        """PP-20: one point per won card plus one per diamond on them."""
        diamonds = self.config.diamonds
        return sum(1 + diamonds[card % 12] for card in self.won[seat])

    def pass_pass_count(self, seat: int) -> int:
        """PP-18: complete sets of the four colours among the won cards."""
        counts = [0, 0, 0, 0]
        for card in self.won[seat]:
            counts[card // 12] += 1
        return min(counts)

    # -- actions ----------------------------------------------------------

    def _apply(self, seat: int, action: Action) -> tuple[Event, ...]:
        phase = self.phase
        if isinstance(action, Play):
            if phase is not Phase.PLAY:
                raise IllegalAction(self._phase_reason())
            card = action.card.index
            if card not in self.hands[seat]:
                raise IllegalAction(f"{action.card} is not in your hand")
            return self._play(seat, card)
        if isinstance(action, Pick):
            if phase is not Phase.PICK:
                raise IllegalAction(self._phase_reason())
            card = action.card.index
            if all(played != card for _, played in self.trick):
                raise IllegalAction(f"{action.card} is not in this trick")
            return self._pick(seat, card)
        if isinstance(action, Take):
            if phase is not Phase.TAKE:
                raise IllegalAction(self._phase_reason())
            if action not in self.take_options:
                options = " or ".join(
                    f"{option.cards[0]} {option.cards[1]}" for option in self.take_options
                )
                raise IllegalAction(
                    f"the second winner takes the two lowest cards: {options} (PP-14)"
                )
            return self._take(seat, tuple(card.index for card in action.cards))
        if isinstance(action, Represent):
            if phase is not Phase.REPRESENT:
                raise IllegalAction(self._phase_reason())
            team = self.config.team_of(seat)
            if action.seat not in self.config.members(team):
                raise IllegalAction(
                    f"seat {action.seat + 1} is not in your team: choose yourself or your partner"
                )
            return self._represent(seat, team, action.seat)
        raise IllegalAction(f"{action!s} is not a Pass Pass action")

    def _phase_reason(self) -> str:
        return {
            Phase.PLAY: "now is the time to play a card",
            Phase.PICK: "the first winner must pick a card from the trick now (PP-13)",
            Phase.TAKE: "the second winner must choose among the tied lowest cards now (PP-14)",
            Phase.REPRESENT: "each team must choose its representative now (PP-23)",
            Phase.OVER: "the game is over",
        }[self.phase]

    def _play(self, seat: int, card: int) -> tuple[Event, ...]:
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        played = CardPlayed(seat, CARDS[card])
        if len(self.trick) < self.config.players:
            self.current = (seat + 1) % self.config.players  # PP-7: clockwise
            return (played,)
        return (played, self._resolve())

    def _resolve(self) -> TrickResolved:
        """PP-9..PP-12: rank the colours played; find the two winners."""
        strength = [0, 0, 0, 0]
        highest = [0, 0, 0, 0]
        position = [0, 0, 0, 0]
        for index, (_, card) in enumerate(self.trick):
            colour, value = card // 12, card % 12 + 1
            strength[colour] += value
            if value > highest[colour]:
                highest[colour] = value
                position[colour] = index
        ranked = sorted(
            ((c, strength[c], highest[c], position[c]) for c in range(4) if strength[c]),
            key=_strength_key,
        )
        majority = ranked[0][0]
        majority_plays = sorted(
            ((card, seat) for seat, card in self.trick if card // 12 == majority), reverse=True
        )
        first = majority_plays[0][1]  # PP-11
        if len(majority_plays) > 1:  # PP-12
            second = majority_plays[1][1]
        else:
            runner_up = ranked[1][0]
            second = max((card, seat) for seat, card in self.trick if card // 12 == runner_up)[1]
        strengths = tuple((COLOURS[c], s) for c, s, _, _ in ranked)
        self.resolution = _Resolution(
            tuple(self.trick), COLOURS[majority], strengths, first, second
        )
        self.phase = Phase.PICK
        return TrickResolved(COLOURS[majority], strengths, first, second)

    def _pick(self, seat: int, card: int) -> tuple[Event, ...]:
        """PP-13, then PP-19/PP-24 (the first winner checks first), then PP-14."""
        assert self.resolution is not None
        self.trick = [(s, c) for s, c in self.trick if c != card]
        self.won[seat].append(card)
        self.resolution.picked = card
        events: list[Event] = [CardPicked(seat, CARDS[card])]
        if self._check_pass_pass(seat, events):
            return tuple(events)
        remaining = sorted(c for _, c in self.trick)
        options = _lowest_pairs(remaining)
        if len(options) == 1:
            events.extend(self._take(self.resolution.second_winner, options[0]))
        else:
            self.take_options = tuple(make_take(*pair) for pair in options)
            self.phase = Phase.TAKE
        return tuple(events)

    def _take(self, seat: int, cards: tuple[int, ...]) -> tuple[Event, ...]:
        """PP-14, PP-15, PP-16; then the next trick or the end of the round."""
        assert self.resolution is not None
        self.won[seat].extend(cards)
        discarded = [c for _, c in self.trick if c not in cards]
        self.discarded.extend(discarded)
        self.trick = []
        self.take_options = ()
        self.resolution.taken = cards
        self.resolution.discarded = tuple(discarded)
        events: list[Event] = [
            CardsTaken(seat, tuple(CARDS[c] for c in cards), tuple(CARDS[c] for c in discarded))
        ]
        if self._check_pass_pass(seat, events):
            return tuple(events)
        self.leader = seat  # PP-16: the second winner leads the next trick and round
        self.current = seat
        self.trick_number += 1
        self.phase = Phase.PLAY
        if self.trick_number == TRICKS_PER_ROUND:
            events.extend(self._end_round())
        return tuple(events)

    def _check_pass_pass(self, seat: int, events: list[Event]) -> bool:
        """PP-18 check; PP-19/PP-24 immediate victory. True if the game ended."""
        count = self.pass_pass_count(seat)
        if count <= self.pass_pass_round[seat]:
            return False
        self.pass_pass_round[seat] = count
        team = self.config.team_of(seat)
        # Individual: checked over all rounds (PP-19). Teams: this player's
        # count this round plus the team's record from earlier rounds (PP-24).
        total = self.team_pass_pass[team] + count
        events.append(PassPassChecked(seat, count, total))
        if total < PASS_PASS_TO_WIN:
            return False
        winners = self.config.members(team)
        self._finish(
            winners, shared=False, reason="third Pass Pass: immediate victory", immediate=True
        )
        events.append(GameEnded(winners, "third Pass Pass: immediate victory"))
        return True

    def _end_round(self) -> tuple[Event, ...]:
        if self.config.teams:
            self.phase = Phase.REPRESENT  # PP-23
            self.representatives = [None] * self.config.team_count
            return ()
        n = self.config.players
        points = tuple(self.round_points(seat) for seat in range(n))
        return self._score_round(points, tuple(self.pass_pass_round), ())

    def _represent(self, chooser: int, team: int, seat: int) -> tuple[Event, ...]:
        self.representatives[team] = seat  # PP-23: the first choice is final
        events: list[Event] = [RepresentativeChosen(team, seat, chooser)]
        if any(rep is None for rep in self.representatives):
            return tuple(events)
        reps = tuple(rep for rep in self.representatives if rep is not None)
        points = tuple(self.round_points(rep) for rep in reps)
        pass_pass = tuple(self.pass_pass_round[rep] for rep in reps)
        events.extend(self._score_round(points, pass_pass, reps))
        return tuple(events)

    def _score_round(
        self, points: tuple[int, ...], pass_pass: tuple[int, ...], reps: tuple[int, ...]
    ) -> tuple[Event, ...]:
        """PP-20 (per seat or per team, PP-23), then PP-21/PP-22."""
        for team, (p, pp) in enumerate(zip(points, pass_pass, strict=True)):
            self.team_totals[team] += p
            self.team_pass_pass[team] += pp
        self.sheet.append(
            SheetRow(round=self.round + 1, points=points, pass_pass=pass_pass, representatives=reps)
        )
        per_seat = tuple(points[self.config.team_of(s)] for s in range(self.config.players))
        pp_seat = tuple(pass_pass[self.config.team_of(s)] for s in range(self.config.players))
        events: list[Event] = [RoundScored(self.round + 1, per_seat, pp_seat, reps)]
        if self.round + 1 == ROUNDS:
            events.append(self._final_ranking())
            return tuple(events)
        self.round += 1
        self.representatives = [None] * self.config.team_count
        events.extend(self._deal())
        return tuple(events)

    def _final_ranking(self) -> GameEnded:
        """PP-22/PP-25: most points, then most Pass Pass, else shared."""
        keys = [
            (self.team_totals[t], self.team_pass_pass[t]) for t in range(self.config.team_count)
        ]
        best = max(keys)
        teams = [t for t, key in enumerate(keys) if key == best]
        winners = tuple(sorted(s for t in teams for s in self.config.members(t)))
        shared = len(teams) > 1
        reason = "shared victory: equal points and Pass Pass" if shared else "most points"
        if not shared and sum(1 for key in keys if key[0] == best[0]) > 1:
            reason = "equal points, more Pass Pass"
        self._finish(winners, shared=shared, reason=reason)
        return GameEnded(winners, reason)

    def _finish(
        self, winners: tuple[int, ...], *, shared: bool, reason: str, immediate: bool = False
    ) -> None:
        self.phase = Phase.OVER
        scores = tuple(self.team_totals[self.config.team_of(s)] for s in range(self.config.players))
        self.outcome = Result(
            winners=winners, shared=shared, scores=scores, reason=reason, immediate=immediate
        )

    # -- views ------------------------------------------------------------

    def view(self, seat: int | None) -> PassPassView:
        n = self.config.players
        counts: list[tuple[int, int, int, int]] = []
        for hand in self.hands:
            c = [0, 0, 0, 0]
            for card in hand:
                c[card // 12] += 1
            counts.append((c[0], c[1], c[2], c[3]))
        own = () if seat is None else tuple(CARDS[c] for c in self.hands[seat])
        return PassPassView(
            game=self.game_id,
            seat=seat,
            players=n,
            to_act=self.to_act,
            legal=() if seat is None else self.legal_actions(seat),
            is_over=self.is_over,
            result=self.outcome,
            phase=self.phase.value,
            round=self.round + 1,
            trick_number=min(self.trick_number + 1, TRICKS_PER_ROUND),
            leader=self.leader,
            hand=own,
            hand_sizes=tuple(len(hand) for hand in self.hands),
            colour_counts=tuple(counts),
            trick=tuple((s, CARDS[c]) for s, c in self.trick),
            resolution=None if self.resolution is None else self.resolution.summary(),
            won=tuple(tuple(CARDS[c] for c in pile) for pile in self.won),
            round_points=tuple(self.round_points(s) for s in range(n)),
            pass_pass_round=tuple(self.pass_pass_round),
            teams=self.config.teams,
            team_of=tuple(self.config.team_of(s) for s in range(n)),
            sheet=tuple(self.sheet),
            totals=tuple(self.team_totals),
            pass_pass_totals=tuple(self.team_pass_pass),
            representatives=tuple(self.representatives),
            diamonds=tuple(self.config.diamonds),
            default_diamonds=self.config.default_diamonds,
            set_aside=len(self.set_aside),
            discarded=tuple(CARDS[c] for c in self.discarded),
        )

    def statistics(self) -> dict[str, int]:
        return {"rounds_per_game": len(self.sheet) + (0 if len(self.sheet) == ROUNDS else 1)}

    # -- bookkeeping for tests --------------------------------------------

    def card_locations(self) -> list[int]:
        """Every card id once per place it is: hands, trick, won, discarded,
        set aside. Conservation means this is a permutation of 0..47."""
        cards = [c for hand in self.hands for c in hand]
        cards.extend(c for _, c in self.trick)
        cards.extend(c for pile in self.won for c in pile)
        cards.extend(self.discarded)
        cards.extend(self.set_aside)
        return cards


def _lowest_pairs(remaining: list[int]) -> list[tuple[int, ...]]:
    """PP-14: the ways to take the two lowest-valued cards of ``remaining``
    (ids sorted), choosing among cards tied on value."""
    if len(remaining) <= 2:
        return [tuple(remaining)]
    by_value = sorted(remaining, key=lambda c: c % 12)
    threshold = by_value[1] % 12
    below = [c for c in by_value if c % 12 < threshold]
    tied = [c for c in by_value if c % 12 == threshold]
    need = 2 - len(below)
    return [tuple(sorted(below + list(combo))) for combo in combinations(tied, need)]
