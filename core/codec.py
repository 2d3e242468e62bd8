"""Views and events to plain data and back, checked field by field.

What leaves the authority is a seat's :class:`~core.engine.View` and the
:class:`~core.engine.Event`\\ s it may see. This module turns them into plain
data (dicts, lists, str, int, bool, None) and, on the receiving side, back
into the very same values, trusting nothing: every field is checked against
the dataclass's type hints, actions are re-parsed with the game's notation,
and anything else raises :class:`CodecError` with a reason. ``net`` packs the
plain data as msgpack; ``core`` knows nothing of the wire.

Encoding rules (documented for other clients in ``docs/protocol.md``):

* an action is its notation (``str(action)``);
* any other dataclass (a piece, a summary, a view) is a map of its fields;
* an enum is its value, a tuple is a list;
* an event is ``[type name, {fields}]``.

Decoders are compiled once per type from its hints, so a view decodes in tens
of microseconds.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

from core.engine import Action, AnyGame, Event, IllegalAction, View

Decoder = Callable[[Any], Any]
Encoder = Callable[[Any], Any]


class CodecError(ValueError):
    """Plain data that is not a valid value of the expected type."""


class GameCodec:
    """Encode and decode one game's views and events."""

    def __init__(self, game: AnyGame) -> None:
        self.game = game
        self.view_type = _view_type(game)
        self.event_types: dict[str, type[Event]] = {cls.__name__: cls for cls in _event_types(game)}
        self._decoders: dict[Any, Decoder] = {}
        self._encoders: dict[type, Encoder] = {}
        self._view_decoder = self._decoder(self.view_type)
        self._event_decoders = {name: self._decoder(cls) for name, cls in self.event_types.items()}

    # -- public surface ----------------------------------------------------

    def encode_view(self, view: View) -> dict[str, Any]:
        return self._encode(view)  # type: ignore[no-any-return]

    def decode_view(self, data: Any) -> View:
        view = self._view_decoder(data)
        assert isinstance(view, View)
        if view.game != self.game.id:
            raise CodecError(f"a view of {view.game!r}, expected {self.game.id!r}")
        return view

    def encode_event(self, event: Event) -> list[Any]:
        return [type(event).__name__, self._encode(event)]

    def decode_event(self, data: Any) -> Event:
        if not isinstance(data, (list, tuple)) or len(data) != 2 or not isinstance(data[0], str):
            raise CodecError("an event must be [type name, fields]")
        decoder = self._event_decoders.get(data[0])
        if decoder is None:
            raise CodecError(f"{self.game.id} has no event {data[0][:40]!r}")
        event = decoder(data[1])
        assert isinstance(event, Event)
        return event

    # -- encoding ----------------------------------------------------------

    def _encode(self, value: Any) -> Any:
        if isinstance(value, Action):
            return value.notation()
        if isinstance(value, (tuple, list)):
            return [self._encode(item) for item in value]
        if isinstance(value, enum.Enum):
            return value.value
        cls = type(value)
        encoder = self._encoders.get(cls)
        if encoder is None:
            if not dataclasses.is_dataclass(value):
                return value  # str, int, bool, None
            names = tuple(f.name for f in dataclasses.fields(value))

            def encoder(obj: Any, names: tuple[str, ...] = names) -> Any:
                return {name: self._encode(getattr(obj, name)) for name in names}

            self._encoders[cls] = encoder
        return encoder(value)

    # -- decoding ----------------------------------------------------------

    def _decoder(self, hint: Any) -> Decoder:
        try:
            return self._decoders[hint]
        except (KeyError, TypeError):
            pass
        decoder = self._compile(hint)
        with contextlib.suppress(TypeError):  # an unhashable hint is not cached
            self._decoders[hint] = decoder
        return decoder

    def _compile(self, hint: Any) -> Decoder:
        origin = typing.get_origin(hint)
        if hint is Any:
            raise TypeError("core.codec cannot decode an untyped (Any) field")
        if origin in (typing.Union, types.UnionType):
            options = [self._decoder(option) for option in typing.get_args(hint)]
            return _union(options, hint)
        if origin is typing.Literal:
            allowed = typing.get_args(hint)

            def literal(data: Any) -> Any:
                if isinstance(data, bool) or data not in allowed:
                    raise CodecError(f"{data!r} is not one of {allowed}")
                return data

            return literal
        if origin is tuple:
            args = typing.get_args(hint)
            if len(args) == 2 and args[1] is Ellipsis:
                return _tuple_of(self._decoder(args[0]))
            return _fixed_tuple(tuple(self._decoder(arg) for arg in args))
        if hint is type(None):
            return _none
        if hint is bool:
            return _bool
        if hint is int:
            return _int
        if hint is str:
            return _str
        if isinstance(hint, type) and issubclass(hint, Action):
            return self._action(hint)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return _enum(hint)
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self._dataclass(hint)
        raise TypeError(f"core.codec cannot decode {hint!r}")

    def _action(self, expected: type[Action]) -> Decoder:
        parse = self.game.parse_action

        def action(data: Any) -> Action:
            if not isinstance(data, str) or len(data) > 200:
                raise CodecError("an action must be its notation, as text")
            try:
                parsed = parse(data)
            except IllegalAction as error:
                raise CodecError(error.reason) from None
            if not isinstance(parsed, expected):
                raise CodecError(f"{data!r} is not a {expected.__name__}")
            return parsed

        return action

    def _dataclass(self, cls: type) -> Decoder:
        hints = typing.get_type_hints(cls)
        fields = [f for f in dataclasses.fields(cls) if f.init]
        # Placeholder first, so a self-referencing type cannot recurse forever.
        self._decoders[cls] = _unresolved
        decoders = {f.name: self._decoder(hints[f.name]) for f in fields}
        required = frozenset(
            f.name
            for f in fields
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        )
        name = cls.__name__

        def dataclass(data: Any) -> Any:
            if not isinstance(data, dict):
                raise CodecError(f"a {name} must be a map of its fields")
            unknown = [key for key in data if key not in decoders]
            if unknown:
                raise CodecError(f"a {name} has no field {str(unknown[0])[:40]!r}")
            missing = required - data.keys()
            if missing:
                raise CodecError(f"a {name} needs {', '.join(sorted(missing))}")
            values = {}
            for key, raw in data.items():
                try:
                    values[key] = decoders[key](raw)
                except CodecError as error:
                    raise CodecError(f"{name}.{key}: {error}") from None
            try:
                return cls(**values)
            except (TypeError, ValueError) as error:  # a __post_init__ check
                raise CodecError(f"{name}: {error}") from None

        self._decoders[cls] = dataclass
        return dataclass


def _unresolved(data: Any) -> Any:
    raise CodecError("recursive types are not supported")


def _none(data: Any) -> None:
    if data is not None:
        raise CodecError(f"expected nothing, got {type(data).__name__}")


def _bool(data: Any) -> bool:
    if not isinstance(data, bool):
        raise CodecError(f"expected true or false, got {type(data).__name__}")
    return data


def _int(data: Any) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise CodecError(f"expected a whole number, got {type(data).__name__}")
    return data


def _str(data: Any) -> str:
    if not isinstance(data, str):
        raise CodecError(f"expected text, got {type(data).__name__}")
    return data


def _enum(cls: type[enum.Enum]) -> Decoder:
    def decode(data: Any) -> enum.Enum:
        if isinstance(data, bool):
            raise CodecError(f"{data!r} is not a {cls.__name__}")
        try:
            return cls(data)
        except (ValueError, TypeError):
            raise CodecError(f"{str(data)[:40]!r} is not a {cls.__name__}") from None

    return decode


def _tuple_of(item: Decoder) -> Decoder:
    def decode(data: Any) -> tuple[Any, ...]:
        if not isinstance(data, (list, tuple)):
            raise CodecError(f"expected a list, got {type(data).__name__}")
        return tuple(item(entry) for entry in data)

    return decode


def _fixed_tuple(items: tuple[Decoder, ...]) -> Decoder:
    def decode(data: Any) -> tuple[Any, ...]:
        if not isinstance(data, (list, tuple)) or len(data) != len(items):
            raise CodecError(f"expected a list of {len(items)}")
        return tuple(item(entry) for item, entry in zip(items, data, strict=True))

    return decode


def _union(options: list[Decoder], hint: Any) -> Decoder:
    if len(options) == 2 and _none in options:
        other = options[0] if options[1] is _none else options[1]

        def optional(data: Any) -> Any:
            return None if data is None else other(data)

        return optional

    def decode(data: Any) -> Any:
        for option in options:
            try:
                return option(data)
            except CodecError:
                continue
        raise CodecError(f"{str(data)[:40]!r} is not a valid {hint}")

    return decode


def _view_type(game: AnyGame) -> type[View]:
    """The game's View class, read from its generic bases: ``Game[C, S]``
    and ``GameState[C, A, V]``."""
    for base in getattr(type(game), "__orig_bases__", ()):
        args = typing.get_args(base)
        if len(args) == 2:
            state_type = args[1]
            for state_base in getattr(state_type, "__orig_bases__", ()):
                state_args = typing.get_args(state_base)
                if len(state_args) == 3 and issubclass(state_args[2], View):
                    return state_args[2]  # type: ignore[no-any-return]
    raise TypeError(f"cannot find the view type of {game.id}")


def _event_types(game: AnyGame) -> list[type[Event]]:
    """Every event class defined in the game's package."""
    package = type(game).__module__.rpartition(".")[0] + "."
    found: list[type[Event]] = []
    pending: list[type[Event]] = [Event]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            pending.append(sub)
            # ``@dataclass(slots=True)`` replaces a class with a new one; the
            # module's attribute is the one in use.
            module = sys.modules.get(sub.__module__)
            if sub.__module__.startswith(package) and getattr(module, sub.__name__, None) is sub:
                found.append(sub)
    names = [cls.__name__ for cls in found]
    duplicated = {name for name in names if names.count(name) > 1}
    if duplicated:
        raise TypeError(f"{game.id} has two events named {sorted(duplicated)}")
    return found


_codecs: dict[str, GameCodec] = {}


def codec_for(game: AnyGame) -> GameCodec:
    """The game's codec, built once."""
    codec = _codecs.get(game.id)
    if codec is None:
        codec = _codecs[game.id] = GameCodec(game)
    return codec


__all__ = ["CodecError", "GameCodec", "codec_for"]
