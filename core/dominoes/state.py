"""Passe dominoes: configuration, game state and views (DO-1..DO-14).

The state is mutable and kept in plain lists of small ints (tile ids, see
:mod:`core.dominoes.model`) so random playouts are fast; views and events
carry :class:`~core.dominoes.model.Tile` values.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from core.engine import (
    Config,
    ConfigError,
    Event,
    GameState,
    IllegalAction,
    Result,
    View,
    plural,
)

from .model import (
    DRAW,
    HIGH,
    LOW,
    MASK,
    PASS,
    PIPS,
    PLACE_FIRST,
    PLACE_LEFT,
    PLACE_RIGHT,
    TILE_COUNT,
    TILES,
    DominoAction,
    Draw,
    Drew,
    End,
    GameEnded,
    Pass,
    Passed,
    Place,
    Placed,
    RoundEnded,
    RoundStarted,
    RoundSummary,
    Tile,
    TrainTile,
    parse_action,
)

_NO_ACTIONS: tuple[DominoAction, ...] = ()
_NO_SEATS: tuple[int, ...] = ()
_SEATS: tuple[tuple[int, ...], ...] = tuple((s,) for s in range(8))
# Internal end codes of a placement.
_LEFT, _RIGHT, _FIRST = 0, 1, 2
_END_NAME: tuple[End | None, ...] = ("L", "R", None)


# [interpretation] The largest target a table may set (DO-13 gives 101 and
# 61): a hundred times the rules' own, whose games end well within the
# engine's bound on actions (about 32,000 of its 100,000 for two heuristic
# bots; a target of 100,000 never ended) and the wire's integers.
MAX_TARGET = 10_000


@dataclass(frozen=True, kw_only=True)
class DominoesConfig(Config):
    """2 to 4 players (DO-2); ``teams`` (partnerships 0+2 v 1+3) only at 4.

    ``target``: points that win the game; ``None`` means the rules' default,
    101 at 2 or 3 players and 61 at 4 (DO-13, DO-14).
    """

    target: int | None = None

    MIN_PLAYERS: ClassVar[int] = 2
    MAX_PLAYERS: ClassVar[int] = 4

    def validate(self) -> None:
        if self.teams and self.players != 4:
            raise ConfigError(
                "partnerships need exactly 4 players (DO-2): "
                "seats 1 and 3 play against seats 2 and 4"
            )
        if self.target is not None and (
            isinstance(self.target, bool)
            or not isinstance(self.target, int)
            or not 1 <= self.target <= MAX_TARGET
        ):
            raise ConfigError(
                f"the target must be a whole number of points from 1 to {MAX_TARGET}, "
                f"not {self.target!r}"
            )

    @property
    def goal(self) -> int:
        """The target in effect (DO-13, DO-14)."""
        if self.target is not None:
            return self.target
        return 61 if self.players == 4 else 101

    @property
    def hand_size(self) -> int:
        """DO-3: 7 tiles at 2 or 3 players, 6 at 4."""
        return 6 if self.players == 4 else 7


@dataclass(frozen=True, kw_only=True)
class DominoesView(View):
    """What one seat (or a spectator, ``seat=None``) may know.

    ``hand`` is the seat's own hand (empty for a spectator); every other
    hand is known only by its size. ``train`` lists the placed tiles left to
    right; ``ends`` the open numbers (left, right), ``None`` before the lead.
    ``scores`` is per seat (a team's total repeated for both partners).
    ``passes`` is the current run of consecutive passes (DO-11).
    ``last_round`` summarises the previous round, hands shown (DO-12).
    """

    hand: tuple[Tile, ...]
    hand_sizes: tuple[int, ...]
    boneyard: int
    can_draw: bool
    train: tuple[TrainTile, ...]
    ends: tuple[int, int] | None
    scores: tuple[int, ...]
    team_scores: tuple[int, ...] | None
    teams: bool
    target: int
    round: int
    leader: int
    turn: int | None
    passes: int
    rounds_played: int
    blocked_rounds: int
    last_round: RoundSummary | None
    # Every pass and draw of this round, in order, with the open ends
    # (left, right) when it happened: public (DO-7), and what a search bot
    # weighs a hand by (a pass with a fitting tile is allowed, so it makes
    # fitting tiles less likely, never impossible; core/dominoes/sampler.py).
    round_log: tuple[tuple[int, str, int, int], ...] = ()


class DominoesState(GameState[DominoesConfig, DominoAction, DominoesView]):
    """One game of Passe dominoes: rounds until someone reaches the target."""

    game_id = "dominoes"

    def __init__(self, config: DominoesConfig, seed: int) -> None:
        super().__init__(config, seed)
        n = config.players
        self.n = n
        self.teams = config.teams
        self.target = config.goal
        self.hand_size = config.hand_size
        # Who scores for a seat: its team (DO-14) or itself.
        self.side_of: tuple[int, ...] = (
            tuple(s % 2 for s in range(n)) if self.teams else tuple(range(n))
        )
        self.side_scores: list[int] = [0] * (2 if self.teams else n)
        self.hands: list[list[int]] = [[] for _ in range(n)]  # sorted tile ids
        self.boneyard: list[int] = []  # drawn from the end
        # The train: placements as (tile id, left pip, right pip, end code,
        # order). ``left_arm`` grows leftwards (outermost last); ``right_arm``
        # starts with the first tile and grows rightwards. DO-8: two ends only.
        self.left_arm: list[tuple[int, int, int, int, int]] = []
        self.right_arm: list[tuple[int, int, int, int, int]] = []
        self.left_end = -1  # -1: the train is empty
        self.right_end = -1
        self.turn = 0
        self.passes = 0  # consecutive passes (DO-11)
        self.round_number = 0
        self.over = False
        self._result: Result | None = None
        self._rounds_played = 0
        self._blocked_rounds = 0
        self.last_round: RoundSummary | None = None
        self.round_log: list[tuple[int, str, int, int]] = []  # see DominoesView
        self._legal: tuple[DominoAction, ...] | None = None
        # DO-5: the first leader is drawn from the game seed.
        self.leader = self.rng.randrange(n)
        self._deal()
        self.opening_events = (
            RoundStarted(
                self.round_number,
                self.leader,
                tuple(len(h) for h in self.hands),
                len(self.boneyard),
            ),
        )

    # -- documented constructor for hand-built positions ------------------

    @classmethod
    def from_position(
        cls,
        config: DominoesConfig,
        *,
        hands: Sequence[Sequence[Tile | str]],
        train: Sequence[str] = (),
        boneyard: Sequence[Tile | str] | None = None,
        leader: int = 0,
        turn: int | None = None,
        passes: int = 0,
        scores: Sequence[int] | None = None,
        round_number: int = 1,
        seed: int = 0,
    ) -> DominoesState:
        """A state in a hand-built position (for tests, tutorials and demos).

        ``hands`` per seat; ``train`` as placement notations applied in order
        (``"3-5"`` first, then ``"5-6R"``, ``"1-3L"``...); ``boneyard`` in
        drawing order (the last is drawn first), by default every tile not in
        a hand or the train. The 28 tiles must each appear exactly once.
        ``scores`` are per team with partnerships, else per seat. ``turn``
        defaults to the leader when the train is empty, else to the seat
        after the ``len(train)`` placements from the leader. Such a state has
        no history, so its record does not replay.
        """
        state = cls(config, seed)
        n = state.n

        def to_id(value: Tile | str) -> int:
            if isinstance(value, Tile):
                return value.id
            action = parse_action(value)
            if not isinstance(action, Place):
                raise ValueError(f"{value!r} is not a tile")
            return action.tile.id

        if len(hands) != n:
            raise ValueError(f"give {n} hands, not {len(hands)}")
        state.hands = [sorted(to_id(t) for t in hand) for hand in hands]
        placements = [parse_action(text) for text in train]
        used = [t for hand in state.hands for t in hand]
        used += [p.tile.id for p in placements if isinstance(p, Place)]
        if boneyard is None:
            rest = sorted(set(range(TILE_COUNT)) - set(used))
            state.boneyard = rest
        else:
            state.boneyard = [to_id(t) for t in boneyard]
        every = used + state.boneyard
        if sorted(every) != list(range(TILE_COUNT)):
            raise ValueError(
                "the hands, the train and the boneyard must hold the 28 tiles once each"
            )
        state.left_arm, state.right_arm = [], []
        state.left_end = state.right_end = -1
        for index, placement in enumerate(placements):
            if not isinstance(placement, Place):
                raise ValueError(f"{train[index]!r} is not a placement")
            if not state._fits(placement):
                raise ValueError(f"{train[index]!r} does not fit the train")
            state._put(placement.tile.id, placement.end)
        state.leader = leader
        state.turn = (
            (leader if not placements else (leader + len(placements)) % n)
            if (turn is None)
            else turn
        )
        state.passes = passes
        state.round_number = round_number
        if scores is not None:
            if len(scores) != len(state.side_scores):
                raise ValueError(f"give {len(state.side_scores)} scores")
            state.side_scores = list(scores)
        state._legal = None
        state.opening_events = ()  # the random deal's announcement no longer holds
        return state

    # -- read-only facts ----------------------------------------------------

    @property
    def rounds_played(self) -> int:
        """Rounds finished so far (for the simulator's rounds_per_game)."""
        return self._rounds_played

    @property
    def blocked_rounds(self) -> int:
        """Rounds that ended without a domino: blocked (DO-10) or passed out
        (DO-11, which ends a round "as blocked")."""
        return self._blocked_rounds

    def statistics(self) -> dict[str, int]:
        return {"rounds_per_game": self._rounds_played, "blocked_rounds": self._blocked_rounds}

    @property
    def scores(self) -> tuple[int, ...]:
        """Per seat; a team's total repeated for both partners (DO-14)."""
        side = self.side_scores
        return tuple(side[s] for s in self.side_of)

    @property
    def to_act(self) -> tuple[int, ...]:
        return _NO_SEATS if self.over else _SEATS[self.turn]

    @property
    def is_over(self) -> bool:
        return self.over

    def result(self) -> Result | None:
        return self._result

    def legal_actions(self, seat: int) -> tuple[DominoAction, ...]:
        if self.over or seat != self.turn:
            return _NO_ACTIONS
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> tuple[DominoAction, ...]:
        hand = self.hands[self.turn]
        if self.left_end < 0:
            # DO-6: the leader starts the train with any tile; nothing else.
            return tuple([PLACE_FIRST[t] for t in hand])
        acts: list[DominoAction] = []
        lbit = 1 << self.left_end
        rbit = 1 << self.right_end
        for t in hand:
            m = MASK[t]
            if m & lbit:
                acts.append(PLACE_LEFT[t])
            if m & rbit:
                acts.append(PLACE_RIGHT[t])
        if len(self.boneyard) > 2:  # DO-4
            acts.append(DRAW)
        acts.append(PASS)  # DO-7 (c): always allowed
        return tuple(acts)

    # -- applying actions ---------------------------------------------------

    def _fits(self, action: Place) -> bool:
        tid = action.tile.id
        if self.left_end < 0:
            return action.end is None
        if action.end == "L":
            return bool(MASK[tid] & (1 << self.left_end))
        if action.end == "R":
            return bool(MASK[tid] & (1 << self.right_end))
        return False

    def _apply(self, seat: int, action: DominoAction) -> tuple[Event, ...]:
        kind = type(action)
        if kind is Place:
            return self._place(seat, action)  # type: ignore[arg-type]
        empty = self.left_end < 0
        if kind is Pass:
            if empty:
                raise IllegalAction("the leader must start the train with a tile (DO-6)")
            return self._pass(seat)
        if kind is Draw:
            if empty:
                raise IllegalAction("the leader must start the train with a tile (DO-6)")
            if len(self.boneyard) <= 2:
                raise IllegalAction("the last two tiles of the boneyard can never be drawn (DO-4)")
            return self._draw(seat)
        raise IllegalAction(f"{action!r} is not a dominoes action")

    def _place(self, seat: int, action: Place) -> tuple[Event, ...]:
        tile = action.tile
        if type(tile) is not Tile:
            raise IllegalAction(f"{tile!r} is not a tile")
        tid = tile.id
        hand = self.hands[seat]
        if tid not in hand:
            raise IllegalAction(f"you do not hold {tile}")
        end = action.end
        if self.left_end < 0:
            if end is not None:
                raise IllegalAction(f"the train is empty: lead with {tile} (no end)")
        elif end == "L":
            if not MASK[tid] & (1 << self.left_end):
                raise IllegalAction(f"{tile} does not fit the left end ({self.left_end})")
        elif end == "R":
            if not MASK[tid] & (1 << self.right_end):
                raise IllegalAction(f"{tile} does not fit the right end ({self.right_end})")
        elif end is None:
            raise IllegalAction(f"say which end: {tile}L or {tile}R")
        else:
            raise IllegalAction(f"{end!r} is not an end: use L or R")
        # -- validated: mutate from here on.
        hand.remove(tid)
        a, b = self._put(tid, end)
        self.passes = 0
        self._legal = None
        left = len(hand)
        placed = Placed(seat, tile, end, a, b, a != LOW[tid], left)
        if left == 0:
            return self._end_round("domino", seat, placed)  # DO-10
        if len(self.boneyard) <= 2 and self._blocked():
            return self._end_round("blocked", None, placed)  # DO-10
        self.turn = (seat + 1) % self.n  # DO-9
        return (placed,)

    def _put(self, tid: int, end: End | None) -> tuple[int, int]:
        """Lay tile ``tid`` (already known to fit) and return the pips it shows
        left and right. DO-8: a double is laid
        inline like any tile, so the train keeps exactly two ends."""
        lo, hi = LOW[tid], HIGH[tid]
        order = len(self.left_arm) + len(self.right_arm)
        if end is None:
            a, b, code = lo, hi, _FIRST
            self.left_end, self.right_end = lo, hi
            self.right_arm.append((tid, a, b, code, order))
        elif end == "L":
            b = self.left_end
            a = hi if lo == b else lo
            code = _LEFT
            self.left_end = a
            self.left_arm.append((tid, a, b, code, order))
        else:
            a = self.right_end
            b = hi if lo == a else lo
            code = _RIGHT
            self.right_end = b
            self.right_arm.append((tid, a, b, code, order))
        return a, b

    def _blocked(self) -> bool:
        """DO-10: no hand holds a tile that fits either end."""
        ends = (1 << self.left_end) | (1 << self.right_end)
        return not any(MASK[t] & ends for hand in self.hands for t in hand)

    def _draw(self, seat: int) -> tuple[Event, ...]:
        self.round_log.append((seat, "draw", self.left_end, self.right_end))
        tid = self.boneyard.pop()
        bisect.insort(self.hands[seat], tid)
        self.passes = 0  # DO-11: a draw breaks the circle of passes
        self._legal = None
        drew = Drew(seat, TILES[tid], len(self.boneyard))
        if len(self.boneyard) <= 2 and self._blocked():
            return self._end_round("blocked", None, drew)  # DO-10
        self.turn = (seat + 1) % self.n  # DO-7: drawing ends the turn
        return (drew,)

    def _pass(self, seat: int) -> tuple[Event, ...]:
        self.round_log.append((seat, "pass", self.left_end, self.right_end))
        self.passes += 1
        self._legal = None
        passed = Passed(seat, self.passes)
        if self.passes >= self.n:
            return self._end_round("passes", None, passed)  # DO-11
        self.turn = (seat + 1) % self.n
        return (passed,)

    # -- rounds -------------------------------------------------------------

    def _deal(self) -> None:
        """DO-3, DO-4: shuffle, deal the hands, the rest is the boneyard."""
        tiles = list(range(TILE_COUNT))
        self.rng.shuffle(tiles)
        h = self.hand_size
        self.hands = [sorted(tiles[s * h : (s + 1) * h]) for s in range(self.n)]
        self.boneyard = tiles[self.n * h :]
        self.left_arm = []
        self.right_arm = []
        self.left_end = self.right_end = -1
        self.passes = 0
        self.round_log = []
        self.turn = self.leader
        self.round_number += 1
        self._legal = None

    def _end_round(self, reason: str, domino: int | None, last: Event) -> tuple[Event, ...]:
        """Score the round (DO-12, DO-14), then end the game (DO-13) or deal
        the next round with its leader (DO-5)."""
        n = self.n
        counts = [sum([PIPS[t] for t in hand]) for hand in self.hands]
        # DO-14: a team's count is the sum of its partners' counts.
        side_counts = [counts[0] + counts[2], counts[1] + counts[3]] if self.teams else counts
        lowest = min(side_counts)
        lows = [i for i, c in enumerate(side_counts) if c == lowest]
        winners: tuple[int, ...] = ()
        points = 0
        previous_leader = self.leader
        if len(lows) == 1:
            # DO-12 / DO-14: (sum of the other counts) - (own count).
            side = lows[0]
            points = sum(side_counts) - 2 * lowest
            self.side_scores[side] += points
            winners = tuple(s for s in range(n) if self.side_of[s] == side)
            # DO-5 [interpretation]: the winner leads; with partnerships the
            # partner with the lower count, on equal counts the first of the
            # two in turn order after the previous leader.
            order = [(previous_leader + k) % n for k in range(1, n + 1)]
            self.leader = min(
                (s for s in order if self.side_of[s] == side), key=lambda s: counts[s]
            )
        else:
            # DO-5 [interpretation]: no winner, the next player leads.
            self.leader = (previous_leader + 1) % n
        self._rounds_played += 1
        if reason != "domino":
            self._blocked_rounds += 1
        scores = self.scores
        summary = RoundSummary(
            number=self.round_number,
            reason=reason,
            domino=domino,
            hands=tuple(tuple(TILES[t] for t in hand) for hand in self.hands),
            counts=tuple(counts),
            team_counts=tuple(side_counts) if self.teams else None,
            winners=winners,
            points=points,
            scores=scores,
        )
        self.last_round = summary
        events: list[Event] = [last, RoundEnded(summary)]
        if winners and scores[winners[0]] >= self.target:
            # DO-13: only the round's scorer can have just reached the target.
            self.over = True
            self._result = Result(
                winners=winners,
                shared=False,
                scores=scores,
                reason=f"reached {plural(self.target, 'point')}",
            )
            events.append(GameEnded(winners, scores, self.target))
            self._legal = None
            return tuple(events)
        self._deal()
        events.append(
            RoundStarted(
                self.round_number,
                self.leader,
                tuple(len(h) for h in self.hands),
                len(self.boneyard),
            )
        )
        return tuple(events)

    # -- views ----------------------------------------------------------------

    def train(self) -> tuple[TrainTile, ...]:
        """The placed tiles, left to right (DO-8)."""
        return tuple(
            TrainTile(TILES[tid], a, b, _END_NAME[code], a != LOW[tid], order)
            for tid, a, b, code, order in [*reversed(self.left_arm), *self.right_arm]
        )

    def view(self, seat: int | None) -> DominoesView:
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.n
        ):
            raise ValueError(f"there is no seat {seat!r} at this table")
        hand = () if seat is None else tuple(TILES[t] for t in self.hands[seat])
        return DominoesView(
            game=self.game_id,
            seat=seat,
            players=self.n,
            to_act=self.to_act,
            legal=() if seat is None else self.legal_actions(seat),
            is_over=self.over,
            result=self._result,
            hand=hand,
            hand_sizes=tuple(len(h) for h in self.hands),
            boneyard=len(self.boneyard),
            can_draw=len(self.boneyard) > 2,
            train=self.train(),
            ends=None if self.left_end < 0 else (self.left_end, self.right_end),
            scores=self.scores,
            team_scores=tuple(self.side_scores) if self.teams else None,
            teams=self.teams,
            target=self.target,
            round=self.round_number,
            leader=self.leader,
            turn=None if self.over else self.turn,
            passes=self.passes,
            rounds_played=self._rounds_played,
            blocked_rounds=self._blocked_rounds,
            last_round=self.last_round,
            round_log=tuple(self.round_log),
        )

    def fingerprint(self) -> tuple[Any, ...]:
        """Every internal field, as comparable values: two states with equal
        fingerprints are the same position (used to check replays and that a
        refused action changed nothing)."""
        return (
            self.config,
            self.seed,
            self.rng.getstate(),
            tuple((s, str(a)) for s, a in self.history),
            tuple(tuple(h) for h in self.hands),
            tuple(self.boneyard),
            tuple(self.left_arm),
            tuple(self.right_arm),
            self.left_end,
            self.right_end,
            self.turn,
            self.leader,
            self.passes,
            self.round_number,
            tuple(self.side_scores),
            self.over,
            self._result,
            self._rounds_played,
            self._blocked_rounds,
            self.last_round,
            tuple(self.round_log),
        )
