"""Every moment of a recorded game, from any seat: what ``passe replay``
steps through.

A :class:`Replay` checks the whole record once, when made: the game exists,
its config is one the game plays, every move is legal in turn, and the
result the file gives is the one the moves lead to. Anything else is a
:class:`~core.notation.GameFileError` naming the line. Then
:meth:`Replay.moment` gives the view of any seat (``None``: a spectator)
after any number of moves, with the events that seat was shown so far,
exactly what a table sends (``TableUpdate``): a screen renders a moment as
it renders a resumed game.

Step 0 is the deal (no move yet); step ``len(moves)`` is the end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.engine import (
    Action,
    AnyGame,
    AnyState,
    ConfigError,
    Event,
    IllegalAction,
    Names,
    Result,
    View,
)
from core.notation import GameFile, GameFileError, Outcome, names_or_seats
from core.registry import game_info, get_game

# The fields of every view, said apart from the game's own by moment_text.
_COMMON_FIELDS = ("game", "seat", "players", "to_act", "legal", "is_over", "result")


@dataclass(frozen=True)
class Moment:
    """What ``seat`` knew after ``step`` moves: its view, every event it was
    shown so far (``events``) and those of the last move (``latest``; the
    deal's at step 0)."""

    step: int
    seat: int | None
    view: View
    events: tuple[Event, ...]
    latest: tuple[Event, ...]


class Replay:
    """A recorded game, checked, to be looked at move by move."""

    def __init__(self, game_file: GameFile) -> None:
        self.file = game_file
        record = game_file.record
        self.game: AnyGame = self._game()
        self.names: tuple[str, ...] = names_or_seats(game_file)
        try:
            self.config = self.game.config_from_data(record.config)
            state = self.game.new_game(self.config, record.seed)
        except ConfigError as error:
            raise GameFileError(f"tag Config: {error}", game_file.line_of_tag("Config")) from None
        except Exception as error:  # a hostile record never crashes a reader
            raise GameFileError(
                f"tag Config: the game cannot be set up with it ({type(error).__name__})",
                game_file.line_of_tag("Config"),
            ) from None
        self.players = state.players
        self._actions: list[tuple[int, Action]] = []
        self._events: list[tuple[Event, ...]] = [tuple(state.opening_events)]
        self._rounds: list[int | None] = [_round_of(state)]
        for index, (seat, text) in enumerate(record.actions):
            self._apply(state, index, seat, text)
        self.result: Result | None = state.result()
        self._check_outcome(state)
        self._state: AnyState = state  # the state of the moment asked last, kept to step on
        self._at = len(self._actions)

    # -- checking, once --------------------------------------------------------

    def _game(self) -> AnyGame:
        try:
            return get_game(self.file.record.game)
        except ConfigError as error:
            raise GameFileError(str(error), self.file.line_of_tag("Game")) from None

    def _apply(self, state: AnyState, index: int, seat: int, text: str) -> None:
        where = self.file.line_of_move(index)
        move = f"move {index + 1} (seat {seat + 1}: {text!r})"
        if state.is_over:
            raise GameFileError(f"{move}: the game was already over", where)
        try:
            action = self.game.parse_action(text)
            events = state.apply(seat, action)
        except IllegalAction as error:
            raise GameFileError(f"{move} does not replay: {error.reason}", where) from None
        except Exception as error:  # a hostile record never crashes a reader
            raise GameFileError(f"{move} does not replay ({type(error).__name__})", where) from None
        self._actions.append((seat, action))
        self._events.append(tuple(events))
        self._rounds.append(_round_of(state))

    def _check_outcome(self, state: AnyState) -> None:
        given = self.file.outcome
        if given is None:
            return
        where = self.file.line_of_tag("Winners")
        if self.result is None:
            raise GameFileError(
                f"the game is not over after its {len(self._actions)} moves, "
                "yet the file gives its result",
                where,
            )
        found = Outcome.of(self.result)
        if given.winners != found.winners:
            raise GameFileError(
                f"tag Winners says {_seats(given.winners)}, the moves give {_seats(found.winners)}",
                where,
            )
        if given.scores != found.scores:
            raise GameFileError(
                f"tag Scores says {list(given.scores)}, the moves give {list(found.scores)}",
                self.file.line_of_tag("Scores"),
            )
        if given.ending != found.ending:
            raise GameFileError(
                f"tag Ending says {given.ending!r}, the moves give {found.ending!r}",
                self.file.line_of_tag("Ending"),
            )

    # -- looking -----------------------------------------------------------------

    @property
    def steps(self) -> int:
        """The number of moves: the last step."""
        return len(self._actions)

    @property
    def title(self) -> str:
        return game_info(self.game.id).title

    def seats(self) -> tuple[int | None, ...]:
        """Every view there is: each seat's, then the spectator's (``None``)."""
        return (*range(self.players), None)

    def move(self, step: int) -> tuple[int, str] | None:
        """The move that led to ``step`` (seat, notation); ``None`` at the deal."""
        if not 1 <= step <= self.steps:
            return None
        seat, action = self._actions[step - 1]
        return seat, action.notation()

    def moment(self, step: int, seat: int | None) -> Moment:
        """``seat``'s view after ``step`` moves (clamped to 0..steps)."""
        step = max(0, min(step, self.steps))
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat + 1} among {self.players}")
        state = self._state_at(step)
        shown = tuple(
            seen
            for events in self._events[: step + 1]
            for event in events
            if (seen := event.for_seat(seat)) is not None
        )
        latest = tuple(
            seen for event in self._events[step] if (seen := event.for_seat(seat)) is not None
        )
        return Moment(step, seat, state.view(seat), shown, latest)

    def _state_at(self, step: int) -> AnyState:
        if step < self._at:
            self._state = self.game.new_game(self.config, self.file.record.seed)
            self._at = 0
        for seat, action in self._actions[self._at : step]:
            self._state.apply(seat, action)
        self._at = step
        return self._state

    # -- rounds ------------------------------------------------------------------

    def round_at(self, step: int) -> int | None:
        """The round being played at ``step`` (``None``: the game has none)."""
        return self._rounds[max(0, min(step, self.steps))]

    def round_starts(self) -> tuple[int, ...]:
        """The steps where a round begins (its deal shown, no move of it yet)."""
        return tuple(
            step
            for step in range(self.steps + 1)
            if step == 0 or self._rounds[step] != self._rounds[step - 1]
        )

    def next_round(self, step: int) -> int:
        """The start of the next round after ``step``, or the end."""
        return next((start for start in self.round_starts() if start > step), self.steps)

    def previous_round(self, step: int) -> int:
        """The start of the round of ``step``, or of the one before when
        ``step`` is a round's start already."""
        return max((start for start in self.round_starts() if start < step), default=0)


def _round_of(state: AnyState) -> int | None:
    round_number = getattr(state.view(None), "round", None)
    return round_number if isinstance(round_number, int) else None


def _seats(seats: tuple[int, ...]) -> str:
    return ", ".join(str(seat + 1) for seat in seats) or "none"


# --------------------------------------------------------------------------
# A moment as text (``passe replay FILE --seat N --step K``)


def moment_text(replay: Replay, step: int, seat: int | None) -> str:
    """One moment for scripts and bug reports: where in the game, the last
    move, who acts, the log as that seat read it, then every field of its
    view (plain data, one per line)."""
    moment = replay.moment(step, seat)
    view = moment.view
    # "you" is the seat whose view this is (nobody for the spectator), as
    # on every screen (core.engine.Names): not the record's keeper.
    names = Names(replay.names, you=moment.seat)
    who = "the spectator" if seat is None else f"seat {seat + 1} ({replay.names[seat]})"
    round_number = replay.round_at(moment.step)
    where = f" · round {round_number}" if round_number is not None else ""
    lines = [
        f"{replay.title}, {replay.players} players · step {moment.step} of {replay.steps}"
        f"{where} · seen by {who}",
    ]
    last = replay.move(moment.step)
    if last is None:
        lines.append("Last move: none (the deal)")
    else:
        mover, text = last
        lines.append(f"Last move: {moment.step}. {mover + 1}: {text} ({replay.names[mover]})")
    if view.is_over and view.result is not None:
        winners = " and ".join(replay.names[s] for s in view.result.winners)
        lines.append(f"Game over: {winners} ({view.result.reason})")
        lines.append(f"Scores: {_by_seat(replay, view.result.scores)}")
    else:
        acting = ", ".join(f"seat {s + 1} ({replay.names[s]})" for s in view.to_act)
        lines.append(f"To act: {acting or 'nobody'}")
    lines.append("")
    lines.append("Log:")
    lines.extend(f"  {event.describe(names)}" for event in moment.events)
    lines.append("")
    lines.append("View:")
    # The view's own data: its seats count from 0, where the lines above
    # count from 1 as the file does (a play-test read "To act: seat 2"
    # beside "leader: 1").
    lines.append("  (the view's data, as the engine keeps it: seats count from 0 here)")
    data: dict[str, Any] = view.to_data()
    for name, value in data.items():
        if name not in _COMMON_FIELDS:
            lines.append(f"  {name}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines) + "\n"


def _by_seat(replay: Replay, values: tuple[int, ...]) -> str:
    return ", ".join(f"{replay.names[s]} {value}" for s, value in enumerate(values))


def parse_seat(text: str, players: int) -> int | None:
    """``--seat``: 1 to ``players`` (a seat), or "spectator"; raises
    ``ValueError`` with a sentence otherwise."""
    if text.strip().lower() in ("spectator", "none", "s"):
        return None
    try:
        seat = int(text)
    except ValueError:
        raise ValueError(
            f"--seat {text!r}: a seat number from 1 to {players}, or spectator"
        ) from None
    if not 1 <= seat <= players:
        raise ValueError(f"--seat {seat}: this game has seats 1 to {players} (or spectator)")
    return seat - 1


__all__ = ["Moment", "Replay", "moment_text", "parse_seat"]
