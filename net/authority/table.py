"""The table: one game session (engine state + seats + bots) in the authority.

A :class:`Table` validates every action against the core engine and fans out
per-seat :class:`TableUpdate`\\ s (a view and the events that seat may see).
Bots act from their own view, at a pace people can follow. The same table runs
under the in-process client (:mod:`net.peer.client`) and, later, the MQTT authority.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from core.engine import (
    Action,
    AnyGame,
    AnyState,
    Bot,
    Config,
    ConfigError,
    Event,
    GameRecord,
    IllegalAction,
    RecordError,
    View,
)
from core.registry import get_game
from net.files import validation_message

HUMAN = "human"
# Names of bots around a table, by seat (a person sits in seat 0 locally).
BOT_NAMES: tuple[str, ...] = ("Ada", "Bruno", "Cleo", "Dmitri", "Ema", "Farid", "Gaia")


@dataclass(frozen=True)
class SeatSpec:
    """Who sits where: a person (``kind="human"``) or a bot by name."""

    name: str
    kind: str = HUMAN  # "human" or a bot name of the game ("random", "heuristic")

    @property
    def is_bot(self) -> bool:
        return self.kind != HUMAN


@dataclass(frozen=True)
class TableUpdate:
    """What one seat receives after every change: its view, the events it may
    see (in order), and the reason when its own action was refused."""

    view: View
    events: tuple[Event, ...] = ()
    rejected: str | None = None
    # Which of ``events`` (their indices) a bot played for the seat's person
    # while they were away (a networked table's stand-in): "Your bot plays".
    by_stand_in: frozenset[int] = frozenset()


Listener = Callable[[TableUpdate], None]


@dataclass(frozen=True)
class SavedTable:
    """Enough to resume a local game after a crash: the record (seed and
    accepted actions), who sits where, and which seat is the person's."""

    record: GameRecord
    seats: tuple[SeatSpec, ...]
    seat: int

    def to_data(self) -> dict[str, Any]:
        return {
            "record": self.record.to_data(),
            "seats": [{"name": spec.name, "kind": spec.kind} for spec in self.seats],
            "seat": self.seat,
        }

    @classmethod
    def from_data(cls, data: Any) -> SavedTable:
        """Validate plain data; :class:`RecordError` says what is wrong, and
        where ("seats[0].kind: expected `str`, got `int`")."""
        try:
            saved = msgspec.convert(data, _SavedTableFile)
        except msgspec.ValidationError as error:
            raise RecordError(validation_message(error)) from None
        record = GameRecord.from_data(saved.record)
        if not 0 <= saved.seat < len(saved.seats):
            raise RecordError("a saved game's seat must be one of its seats")
        seats = tuple(SeatSpec(entry.name, entry.kind) for entry in saved.seats)
        return cls(record, seats, saved.seat)


class _SavedSeat(msgspec.Struct):
    name: str
    kind: str


class _SavedTableFile(msgspec.Struct):
    """The shape of a saved game (SavedTable.to_data); the record's own
    fields are GameRecord.from_data's to check."""

    record: dict[str, Any]
    seats: list[_SavedSeat]
    seat: int


@dataclass
class _Subscriber:
    seat: int | None
    listener: Listener


@dataclass
class Table:
    """One game session. ``bot_delay`` is seconds between bot moves (0 in tests)."""

    game: AnyGame
    state: AnyState
    seats: tuple[SeatSpec, ...]
    bot_delay: float = 0.6
    _bots: dict[int, Bot] = field(default_factory=dict)
    _subscribers: list[_Subscriber] = field(default_factory=list)
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _runner: asyncio.Task[None] | None = None
    _paused: bool = False
    # Every event since the set-up, so that a seat that (re)connects gets the
    # story so far, filtered for what it may know.
    events: list[Event] = field(default_factory=list)
    # Called once per change with its events (unfiltered): the networked
    # authority fans each change out to the seats itself.
    observers: list[Callable[[Sequence[Event]], None]] = field(default_factory=list)

    @classmethod
    def new(
        cls,
        game_id: str,
        config: Config,
        seed: int,
        seats: Sequence[SeatSpec],
        *,
        bot_delay: float,
    ) -> Table:
        game = get_game(game_id)
        return cls.around(game.new_game(config, seed), seats, bot_delay=bot_delay)

    @classmethod
    def from_record(
        cls, record: GameRecord, seats: Sequence[SeatSpec], *, bot_delay: float
    ) -> Table:
        """Resume a saved game: replay its record, then seat people and bots."""
        game = get_game(record.game)
        events: list[Event] = []
        state = game.replay(record, events)
        for spec in seats:
            if spec.is_bot and spec.kind not in game.bots:
                raise RecordError(f"unknown bot {spec.kind!r} in the saved seats")
        table = cls.around(state, seats, bot_delay=bot_delay)
        table.events = events
        return table

    @classmethod
    def around(cls, state: AnyState, seats: Sequence[SeatSpec], *, bot_delay: float) -> Table:
        """A table for a state in any position (new, resumed or hand-built);
        each bot's seed derives from the game's seed and its seat."""
        game = get_game(state.game_id)
        if len(seats) != state.players:
            raise ConfigError(f"{len(seats)} seats for {state.players} players")
        table = cls(game, state, tuple(seats), bot_delay)
        if not state.history:
            table.events = list(state.opening_events)
        for seat, spec in enumerate(seats):
            if spec.is_bot:
                table._bots[seat] = game.make_bot(spec.kind, state.seed * 7919 + seat)
        return table

    # -- who sees what -----------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.seats)

    def subscribe(self, seat: int | None, listener: Listener) -> Callable[[], None]:
        """Receive updates for ``seat`` (``None``: spectator); returns an
        unsubscribe function. The current view is sent at once."""
        subscriber = _Subscriber(seat, listener)
        self._subscribers.append(subscriber)
        seen = tuple(shown for event in self.events if (shown := event.for_seat(seat)) is not None)
        listener(TableUpdate(self.state.view(seat), seen))

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._subscribers.remove(subscriber)

        return unsubscribe

    def _broadcast(self, events: Sequence[Event]) -> None:
        self.events.extend(events)
        for observer in list(self.observers):
            observer(events)
        for subscriber in list(self._subscribers):
            seen = tuple(
                shown for event in events if (shown := event.for_seat(subscriber.seat)) is not None
            )
            subscriber.listener(TableUpdate(self.state.view(subscriber.seat), seen))

    # -- actions -----------------------------------------------------------

    def submit(self, seat: int, action: Action | str) -> tuple[Event, ...]:
        """Apply a person's action; :class:`IllegalAction` (state unchanged)
        is raised to the caller and also reported to that seat's listeners."""
        try:
            if self.seats[seat].is_bot:
                raise IllegalAction(f"seat {seat + 1} is played by a bot")
            parsed = self.game.parse_action(action) if isinstance(action, str) else action
            events = self.state.apply(seat, parsed)
        except IllegalAction as error:
            for subscriber in self._subscribers:
                if subscriber.seat == seat:
                    subscriber.listener(TableUpdate(self.state.view(seat), rejected=error.reason))
            raise
        self._broadcast(events)
        self._wake.set()
        return events

    def hand_to_bot(self, seat: int, kind: str, name: str | None = None) -> None:
        """A bot of ``kind`` plays ``seat`` from now on (its player left)."""
        bot = self.game.make_bot(kind, self.state.seed * 7919 + seat)
        spec = SeatSpec(name or self.seats[seat].name, kind)
        self.seats = (*self.seats[:seat], spec, *self.seats[seat + 1 :])
        self._bots[seat] = bot
        self._wake.set()

    def hand_to_person(self, seat: int) -> None:
        """The person of ``seat`` plays it again (a bot stood in for them)."""
        self._bots.pop(seat, None)
        spec = SeatSpec(self.seats[seat].name)
        self.seats = (*self.seats[:seat], spec, *self.seats[seat + 1 :])
        self._wake.set()

    def bot_to_act(self) -> int | None:
        """A bot seat that must act now, if any.

        Where several seats act at once and a person is among them (a team
        choosing its representative, PP-23, where either partner may choose),
        bots wait for the people: otherwise a bot would always answer before
        the person beside it could read the question.
        """
        to_act = self.state.to_act
        if len(to_act) > 1 and any(seat not in self._bots for seat in to_act):
            return None
        for seat in to_act:
            if seat in self._bots:
                return seat
        return None

    @property
    def paused(self) -> bool:
        return self._paused

    def pause(self) -> None:
        """Bots stop moving (e.g. while people read an end-of-round summary)."""
        self._paused = True

    def resume(self) -> None:
        self._paused = False
        self._wake.set()

    def step_bot(self) -> tuple[Event, ...]:
        """Let one bot that must act play (from its own view)."""
        seat = self.bot_to_act()
        if seat is None:
            return ()
        action = self._bots[seat].choose(self.state.view(seat))
        events = self.state.apply(seat, action)
        self._broadcast(events)
        return events

    async def run_bots(self) -> None:
        """Play bots whenever they must act, ``bot_delay`` apart; runs until
        cancelled or the game ends.

        A slow bot (a search bot) thinks in a worker thread, on a view made
        here, so the event loop stays free; when this task is cancelled (the
        table stops) its thinking is told to stop at once. A decision made
        while the game moved on (a person acted, the seat changed hands) is
        dropped and the bot thinks again.
        """
        while not self.state.is_over:
            if self._paused or self.bot_to_act() is None:
                self._wake.clear()
                await self._wake.wait()
                continue
            if self.bot_delay > 0:
                await asyncio.sleep(self.bot_delay)
            else:
                await asyncio.sleep(0)  # let the UI breathe between instant moves
            seat = self.bot_to_act()
            if self._paused or seat is None:  # a pause may have come during the delay
                continue
            bot = self._bots[seat]
            if not bot.slow:
                self.step_bot()
                continue
            view = self.state.view(seat)
            moves = len(self.state.history)
            stop = threading.Event()
            try:
                action = await asyncio.to_thread(bot.choose_until, view, stop)
            except asyncio.CancelledError:
                stop.set()
                raise
            while self._paused:  # keep the decision for after the pause
                self._wake.clear()
                await self._wake.wait()
            if (
                len(self.state.history) == moves
                and self._bots.get(seat) is bot
                and self.bot_to_act() == seat
            ):
                events = self.state.apply(seat, action)
                self._broadcast(events)

    def start(self) -> None:
        if self._runner is None or self._runner.done():
            self._runner = asyncio.get_running_loop().create_task(self.run_bots())

    async def stop(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner
            self._runner = None

    def record(self) -> GameRecord:
        return self.state.record()
