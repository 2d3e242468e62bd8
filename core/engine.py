"""The engine interface shared by every game.

Modelled on OpenSpiel's Game/State and python-chess's Board/Move: one small
uniform surface, so that ``net`` and ``tui`` never import a game by name.

* :class:`Game` -- a game's description: id, title, ``make_config``,
  ``new_game(config, seed)``, ``parse_action``, its bots and rules text.
* :class:`GameState` -- one game in progress: ``to_act``, ``legal_actions``,
  ``apply`` (raising :class:`IllegalAction`, never corrupting state), ``view``,
  ``is_over``, ``result``, ``record``.
* :class:`Action` -- immutable, with a short text notation (``str(action)``)
  that :meth:`Game.parse_action` turns back into an equal action.
* :class:`Event` -- what happened, for logs and animation; ``for_seat`` hides
  what a seat may not know.
* :class:`View` -- exactly what one seat (or a spectator, ``seat=None``) may
  know, including the legal actions of that seat: the only thing that ever
  leaves the authority, and all that a bot or a human ever sees.

All randomness comes from the seed, so ``seed + actions`` (a
:class:`GameRecord`) reproduces a whole game.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import threading
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Self, TypeVar


class PasseError(Exception):
    """Base of every error the engines raise on purpose."""


class ConfigError(PasseError, ValueError):
    """A configuration that cannot be played; the message says why, in words."""


class IllegalAction(PasseError):
    """An action refused by the rules; ``reason`` says why, in words.

    Raising it never changes the state.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NotationError(IllegalAction):
    """Text that is not the notation of any action of the game."""


class RecordError(PasseError, ValueError):
    """A game record that is malformed or does not replay."""


# --------------------------------------------------------------------------
# Values


class Action:
    """An immutable action value; subclasses are frozen dataclasses.

    ``str(action)`` is its notation; ``Game.parse_action`` is the inverse.
    """

    __slots__ = ()

    def notation(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.notation()


class Piece:
    """A game piece (card, tile) whose ``str`` is its short notation; plain
    data renders it as that text. Subclasses are frozen dataclasses."""

    __slots__ = ()


class Names(tuple[str, ...]):
    """Seat names for :meth:`Event.describe`, knowing which seat reads the
    log: that seat is "you", and its verbs agree ("You play", "Ada plays").
    Indexing gives "you" for that seat; iterating gives the names as seated.

    The reader (``you``) is always the seat whose view the log belongs to
    (the events it was shown, ``Event.for_seat``): the player at their own
    table, the seat a replay shows, and nobody (``None``) for a spectator
    or a watcher. Never whoever happens to be looking at the screen or
    kept the record: a replay of Ada's view read "You play" for Zed's moves.
    """

    you: int | None
    # The reader's seat while a bot played it for them (the reader away at a
    # networked table): "your bot", in the third person ("Your bot plays").
    stand_in: int | None

    def __new__(
        cls, names: Sequence[str], you: int | None = None, stand_in: int | None = None
    ) -> Names:
        made = super().__new__(cls, names)
        made.you = you
        made.stand_in = stand_in
        return made

    def __getitem__(self, seat: int) -> str:  # type: ignore[override]
        if seat == self.you:
            return "you"
        if seat == self.stand_in:
            return YOUR_BOT
        return tuple.__getitem__(self, seat)


YOUR_BOT = "your bot"


def seat_name(names: Sequence[str], seat: int) -> str:
    """``names[seat]``, or "seat N" when no name was given for it."""
    return names[seat] if 0 <= seat < len(names) else f"seat {seat + 1}"


def acts(names: Sequence[str], seat: int, verb: str, *, start: bool = True) -> str:
    """``"Ada plays"``, or ``"You play"`` when ``seat`` reads the log.

    ``verb`` is the third-person form ("plays", "passes", "has").
    """
    if isinstance(names, Names) and seat == names.you:
        subject = "You" if start else "you"
        return f"{subject} {_plain_verb(verb)}"
    if isinstance(names, Names) and seat == names.stand_in and start:
        return f"{YOUR_BOT.capitalize()} {verb}"
    return f"{seat_name(names, seat)} {verb}"


def _plain_verb(verb: str) -> str:
    irregular = {"has": "have", "is": "are", "does": "do"}
    head, _, rest = verb.partition(" ")
    if head in irregular:
        plain_head = irregular[head]
    elif head.endswith(("sses", "shes", "ches", "xes")):
        plain_head = head[:-2]
    elif head.endswith("s"):
        plain_head = head[:-1]
    else:
        plain_head = head
    return f"{plain_head} {rest}" if rest else plain_head


def plural(count: int, noun: str) -> str:
    """``"1 point"``, ``"3 points"``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def possessive(names: Sequence[str], seat: int) -> str:
    """``"Ada's"``, or ``"your"`` when ``seat`` reads the log."""
    if isinstance(names, Names) and seat == names.you:
        return "your"
    return f"{seat_name(names, seat)}'s"


def joined(names: Sequence[str], seats: Sequence[int]) -> str:
    """``"Ada and Bruno"``; the reader's seat reads "you"."""
    return " and ".join(seat_name(names, seat) for seat in seats)


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, for the log and for animation.

    Events are public unless a subclass overrides :meth:`for_seat`, which
    returns the version of the event that ``seat`` (``None``: a spectator) may
    see, or ``None`` when that seat must not learn of it at all.
    """

    def for_seat(self, seat: int | None) -> Event | None:
        return self

    def describe(self, names: Sequence[str]) -> str:
        """One line in words, with seats named by ``names``."""
        return type(self).__name__


@dataclass(frozen=True, kw_only=True)
class View:
    """What one seat may know. Subclasses add the game's fields."""

    game: str
    seat: int | None
    players: int
    to_act: tuple[int, ...]
    legal: tuple[Action, ...]
    is_over: bool
    result: Result | None

    def to_data(self) -> dict[str, Any]:
        """Plain data (dicts, lists, str, int, bool, None) of every field."""
        return plain(self)  # type: ignore[no-any-return]


@dataclass(frozen=True, kw_only=True)
class Result:
    """How a game ended.

    ``winners`` are seats (every member of a winning team). ``shared`` is true
    when the victory is shared between rivals (not merely within a team).
    ``scores`` is per seat: a team's total is repeated for each member.
    """

    winners: tuple[int, ...]
    shared: bool
    scores: tuple[int, ...]
    reason: str
    immediate: bool = False  # ended by an instant-win rule, not by counting


def plain(value: Any) -> Any:
    """Convert dataclasses, tuples and actions to plain data, recursively."""
    if isinstance(value, (Action, Piece)):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    return value


# --------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True, kw_only=True)
class Config:
    """A validated game configuration. Subclasses add variants and must call
    ``super().__post_init__()`` if they override it."""

    players: int
    teams: bool = False

    MIN_PLAYERS: ClassVar[int] = 2
    MAX_PLAYERS: ClassVar[int] = 8

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise ConfigError(f"players must be a whole number, not {self.players!r}")
        if not self.MIN_PLAYERS <= self.players <= self.MAX_PLAYERS:
            raise ConfigError(f"{self.players} players: {self.player_counts()}")
        if not isinstance(self.teams, bool):
            raise ConfigError(f"teams must be true or false, not {self.teams!r}")
        self.validate()

    def validate(self) -> None:
        """Raise :class:`ConfigError` for combinations the game cannot play."""

    @classmethod
    def player_counts(cls) -> str:
        """Which numbers of players work, alone and in teams, in words:
        "this game is for 3 to 5 players, or 4 or 6 in teams". Found by
        trying each count, so it always agrees with :meth:`validate`."""
        playable: dict[bool, list[int]] = {False: [], True: []}
        for players in range(cls.MIN_PLAYERS, cls.MAX_PLAYERS + 1):
            for in_teams in (False, True):
                try:
                    cls(players=players, teams=in_teams)
                except ConfigError:
                    continue
                playable[in_teams].append(players)
        alone, teams = playable[False], playable[True]
        if not teams:
            return f"this game is for {_counts(alone)} players"
        if not alone:
            return f"this game is for {_counts(teams)} players, in teams"
        return f"this game is for {_counts(alone)} players, or {_counts(teams)} in teams"

    def to_data(self) -> dict[str, Any]:
        return plain(self)  # type: ignore[no-any-return]

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Self:
        """Build from plain data, checking every field's type; unknown keys
        and wrong types raise :class:`ConfigError`."""
        if not isinstance(data, Mapping):
            raise ConfigError("a configuration must be a mapping of options")
        fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
        unknown = sorted(set(map(str, data)) - set(fields))
        if unknown:
            known = ", ".join(name for name in fields if name not in ("players", "teams"))
            raise ConfigError(
                f"unknown option{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}; "
                + (f"the options are: {known}" if known else "this game has no options")
            )
        hints = typing.get_type_hints(cls)
        values: dict[str, Any] = {}
        for name, raw in data.items():
            values[name] = _coerce(name, raw, hints[name])
        try:
            return cls(**values)
        except TypeError as error:
            raise ConfigError(str(error)) from None


def _counts(counts: Sequence[int]) -> str:
    """[3, 4, 5] -> "3 to 5"; [4, 6] -> "4 or 6"; [4] -> "4"."""
    if len(counts) > 2 and list(counts) == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]} to {counts[-1]}"
    if len(counts) == 1:
        return str(counts[0])
    return ", ".join(map(str, counts[:-1])) + f" or {counts[-1]}"


def option_from_text(raw: str) -> object:
    """An option's value written as text (``passe host --option KEY=VALUE``,
    a dealer's ``Deal``): JSON when it parses (numbers, true/false, lists),
    else the text itself; values separated by commas are a list
    (``diamonds=0,0,1,...``)."""
    value = _json_or_text(raw)
    if isinstance(value, str) and "," in value:
        return [_json_or_text(item.strip()) for item in value.split(",")]
    return value


def option_to_text(value: object) -> str:
    """The text :func:`option_from_text` reads back as ``value``: text as
    it is, anything else as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def _json_or_text(raw: str) -> object:
    try:
        value: object = json.loads(raw)
    except (ValueError, RecursionError):  # "[[[[…" nested past the parser's depth: text
        return raw
    return value


def _coerce(name: str, raw: Any, hint: Any) -> Any:
    """Check a plain value against a simple type hint (int, bool, str, None,
    unions of those, tuple[X, ...])."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        for option in typing.get_args(hint):
            try:
                return _coerce(name, raw, option)
            except ConfigError:
                continue
        raise ConfigError(f"option {name}: {raw!r} is not a valid value")
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(raw, (list, tuple)):
            raise ConfigError(
                f"option {name}: expected a list of values separated by commas "
                f"(e.g. {name}=1,2,3), got {raw!r}"
            )
        item_hint = args[0] if args else Any
        return tuple(_coerce(name, item, item_hint) for item in raw)
    if hint is type(None):
        if raw is None:
            return None
        raise ConfigError(f"option {name}: expected nothing, got {raw!r}")
    if hint is bool:
        if isinstance(raw, bool):
            return raw
        raise ConfigError(f"option {name}: expected true or false, got {raw!r}")
    if hint is int:
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        raise ConfigError(f"option {name}: expected a whole number, got {raw!r}")
    if hint is str:
        if isinstance(raw, str):
            return raw
        raise ConfigError(f"option {name}: expected text, got {raw!r}")
    return raw


# --------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class GameRecord:
    """Everything needed to reproduce a game: game id, config, seed and the
    accepted actions in order, as ``(seat, notation)`` pairs."""

    game: str
    config: dict[str, Any]
    seed: int
    actions: tuple[tuple[int, str], ...] = ()

    def to_data(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "config": dict(self.config),
            "seed": self.seed,
            "actions": [[seat, text] for seat, text in self.actions],
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> GameRecord:
        try:
            game = data["game"]
            config = data["config"]
            seed = data["seed"]
            actions = data["actions"]
        except (KeyError, TypeError) as error:
            raise RecordError(
                f"a game record needs game, config, seed and actions ({error})"
            ) from None
        if not isinstance(game, str) or not isinstance(config, Mapping):
            raise RecordError("a game record's game must be text and its config a mapping")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RecordError("a game record's seed must be a whole number")
        if not isinstance(actions, (list, tuple)):
            raise RecordError("a game record's actions must be a list")
        pairs: list[tuple[int, str]] = []
        for entry in actions:
            if (
                not isinstance(entry, (list, tuple))
                or len(entry) != 2
                or isinstance(entry[0], bool)
                or not isinstance(entry[0], int)
                or not isinstance(entry[1], str)
            ):
                raise RecordError(f"a recorded action must be [seat, notation], not {entry!r}")
            pairs.append((entry[0], entry[1]))
        return cls(game, dict(config), seed, tuple(pairs))


# --------------------------------------------------------------------------
# Games and states

C = TypeVar("C", bound=Config)
A = TypeVar("A", bound=Action)
V = TypeVar("V", bound=View)


class GameState(ABC, Generic[C, A, V]):
    """One game in progress. Mutable, but only through :meth:`apply`."""

    game_id: ClassVar[str]

    def __init__(self, config: C, seed: int) -> None:
        self.config = config
        self.seed = seed
        self.rng = random.Random(seed)
        self.history: list[tuple[int, A]] = []
        # What the set-up did (e.g. "round 1 dealt"), for a table's first update.
        self.opening_events: tuple[Event, ...] = ()

    # -- queries ----------------------------------------------------------

    @property
    def players(self) -> int:
        return self.config.players

    @property
    @abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """The seats that may act now (several in simultaneous phases)."""

    @abstractmethod
    def legal_actions(self, seat: int) -> tuple[A, ...]:
        """Every action ``seat`` may take now; empty when it may not act."""

    @abstractmethod
    def view(self, seat: int | None) -> V:
        """What ``seat`` may know; ``None`` is a spectator (public only)."""

    @property
    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def result(self) -> Result | None:
        """How the game ended, or ``None`` while it goes on."""

    # -- the one way to change a state ------------------------------------

    def apply(self, seat: int, action: A) -> tuple[Event, ...]:
        """Play ``action`` for ``seat``.

        Raises :class:`IllegalAction` with a reason for anything the rules
        refuse; the state is then exactly as it was.
        """
        if self.is_over:
            raise IllegalAction("the game is over")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalAction(f"there is no seat {seat!r} at this table")
        if seat not in self.to_act:
            raise IllegalAction(f"it is not seat {seat + 1}'s turn to act")
        events = self._apply(seat, action)
        self.history.append((seat, action))
        return events

    @abstractmethod
    def _apply(self, seat: int, action: A) -> tuple[Event, ...]:
        """Validate fully, then mutate. Must raise before any mutation."""

    def statistics(self) -> dict[str, int]:
        """Game-specific counters for ``passe simulate`` (e.g. rounds played)."""
        return {}

    # -- records ----------------------------------------------------------

    def record(self) -> GameRecord:
        return GameRecord(
            self.game_id,
            self.config.to_data(),
            self.seed,
            tuple((seat, str(action)) for seat, action in self.history),
        )

    def clone(self) -> Self:
        return copy.deepcopy(self)


S = TypeVar("S", bound=GameState[Any, Any, Any])


class Bot(ABC):
    """A player program. It sees only a view (with its legal actions) and
    returns one of them, exactly as a human does."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    # A bot that thinks for long (a search bot) is run off the event loop by
    # the table, through :meth:`choose_until`.
    slow: ClassVar[bool] = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    @abstractmethod
    def choose(self, view: View) -> Action:
        """Return one of ``view.legal``; called only when that is not empty."""

    def choose_until(self, view: View, stop: threading.Event) -> Action:
        """:meth:`choose`, ending its thinking early once ``stop`` is set
        (from another thread: the game moved on); a quick bot ignores it."""
        return self.choose(view)


class RandomBot(Bot):
    """Uniformly random among the legal actions: the baseline for every game."""

    name = "random"
    description = "plays any legal move at random"

    def choose(self, view: View) -> Action:
        return self.rng.choice(view.legal)


@dataclass(frozen=True)
class GameInfo:
    """Human-facing facts about a game, for menus and help."""

    id: str
    title: str
    min_players: int
    max_players: int
    solo_player_counts: tuple[int, ...]  # player counts playing each for themselves
    team_player_counts: tuple[int, ...]  # player counts at which teams may play
    summary: str

    def allows(self, players: int, teams: bool) -> bool:
        """Whether the game's Config accepts this table (for menus, without
        importing the engine; a test checks it agrees with the Config)."""
        return players in (self.team_player_counts if teams else self.solo_player_counts)


class Game(ABC, Generic[C, S]):
    """A game's description, found through :mod:`core.registry`."""

    info: ClassVar[GameInfo]
    config_type: ClassVar[type[Config]]
    bots: ClassVar[Mapping[str, type[Bot]]]

    @property
    def id(self) -> str:
        return self.info.id

    def make_config(self, **options: Any) -> C:
        """A validated config from keyword options (plain data)."""
        return self.config_type.from_data(options)  # type: ignore[return-value]

    def config_from_data(self, data: Mapping[str, Any]) -> C:
        return self.config_type.from_data(data)  # type: ignore[return-value]

    @abstractmethod
    def new_game(self, config: C, seed: int) -> S:
        """A fresh game; all its randomness comes from ``seed``."""

    @abstractmethod
    def parse_action(self, text: str) -> Action:
        """The action whose notation is ``text``; :class:`NotationError` if none."""

    @abstractmethod
    def rules_text(self) -> str:
        """The rules in Markdown, house rules marked, for the in-app rules screen."""

    def make_bot(self, name: str, seed: int | None = None) -> Bot:
        try:
            return self.bots[name](seed)
        except KeyError:
            known = ", ".join(sorted(self.bots))
            raise ConfigError(f"unknown bot {name!r}; this game has: {known}") from None

    def replay(self, record: GameRecord, events: list[Event] | None = None) -> S:
        """Rebuild the state a record describes, re-validating every action.

        ``events``, if given, receives every event of the game in order (the
        set-up's first), e.g. to show a resumed game's log.
        """
        if record.game != self.id:
            raise RecordError(f"this record is of {record.game!r}, not {self.id!r}")
        try:
            config = self.config_from_data(record.config)
        except ConfigError as error:
            raise RecordError(f"bad config in record: {error}") from None
        state = self.new_game(config, record.seed)
        if events is not None:
            events.extend(state.opening_events)
        for index, (seat, text) in enumerate(record.actions):
            try:
                happened = state.apply(seat, self.parse_action(text))
            except IllegalAction as error:
                raise RecordError(
                    f"action {index + 1} ({seat}: {text}) does not replay: {error.reason}"
                ) from None
            if events is not None:
                events.extend(happened)
        return state


# Re-exported so that type checkers see the generic state type in one place.
AnyState = GameState[Any, Any, Any]
AnyGame = Game[Any, Any]

__all__ = [
    "Action",
    "AnyGame",
    "AnyState",
    "Bot",
    "Config",
    "ConfigError",
    "Event",
    "Game",
    "GameInfo",
    "GameRecord",
    "GameState",
    "IllegalAction",
    "Names",
    "NotationError",
    "PasseError",
    "Piece",
    "RandomBot",
    "RecordError",
    "Result",
    "View",
    "acts",
    "field",
    "joined",
    "option_from_text",
    "option_to_text",
    "plain",
    "plural",
    "possessive",
    "seat_name",
]
