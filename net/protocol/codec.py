"""Views and events to plain data and back, checked field by field.

What leaves the authority is a seat's :class:`~core.engine.View` and the
:class:`~core.engine.Event`\\ s it may see. This module turns them into plain
data (maps, lists, text, numbers) for msgpack and, on the receiving side, back
into the very same values, trusting nothing: msgspec checks every field
against the dataclass's type hints (in C, and running each dataclass's own
``__post_init__`` checks), actions are re-parsed with the game's notation,
and a value must encode back to exactly the data that came, so a field the
type does not have is refused too. Anything else raises :class:`CodecError`.

Encoding (``docs/protocol.md`` section 7):

* an action is its notation (``str(action)``);
* any other dataclass (a piece, a summary, a view) is a map of its fields;
* an enum is its value, a tuple is a list;
* an event is ``[type name, {fields}]``.

The classes come from the game itself (its ``Game[C, S]`` and
``GameState[C, A, V]`` generics, and the events its package defines), so a
fourth game needs nothing here.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from typing import Any

import msgspec

from core.engine import Action, AnyGame, Event, IllegalAction, View

# Maps with sorted keys, tuples and lists alike: equal data, equal bytes.
_canonical = msgspec.msgpack.Encoder(order="sorted")
# Events kept as msgpack (encode_event_raw): written as a message's encoder
# (net/protocol/wire.py) would write them.
_event_encoder = msgspec.msgpack.Encoder()


class CodecError(ValueError):
    """Plain data that is not a valid value of the expected type."""


class GameCodec:
    """Encode and decode one game's views and events."""

    def __init__(self, game: AnyGame) -> None:
        self.game = game
        self.view_type = _view_type(game)
        self.event_types: dict[str, type[Event]] = {cls.__name__: cls for cls in _event_types(game)}
        # Fields holding actions, per class: they travel as notations.
        self._action_fields = {
            cls: _action_fields(cls) for cls in (self.view_type, *self.event_types.values())
        }

    # -- public surface ----------------------------------------------------

    def encode_view(self, view: View) -> dict[str, Any]:
        return self._encode(view)

    def decode_view(self, data: Any) -> View:
        view = self._decode(data, self.view_type)
        assert isinstance(view, View)
        if view.game != self.game.id:
            raise CodecError(f"a view of {view.game!r}, expected {self.game.id!r}")
        return view

    def encode_event(self, event: Event) -> list[Any]:
        return [type(event).__name__, self._encode(event)]

    def encode_event_raw(self, event: Event) -> msgspec.Raw:
        """:meth:`encode_event` already written as msgpack: one object that
        goes into a message as it is. An authority keeps every seat's log
        for the whole game; as plain lists and maps each event was two or
        more objects its garbage collector walked at every full collection,
        and added to what starts the next one (bench/dealer.py)."""
        return msgspec.Raw(_event_encoder.encode(self.encode_event(event)))

    def decode_event(self, data: Any) -> Event:
        if not isinstance(data, (list, tuple)) or len(data) != 2 or not isinstance(data[0], str):
            raise CodecError("an event must be [type name, fields]")
        cls = self.event_types.get(data[0])
        if cls is None:
            raise CodecError(f"{self.game.id} has no event {data[0][:40]!r}")
        event = self._decode(data[1], cls)
        assert isinstance(event, Event)
        return event

    # -- both ways ---------------------------------------------------------

    def _encode(self, value: Any) -> dict[str, Any]:
        # msgspec turns dataclasses into maps, tuples into lists and enums
        # into their values, in C; actions are then written as notations.
        data: dict[str, Any] = msgspec.to_builtins(value)
        for name, many in self._action_fields[type(value)]:
            actions = getattr(value, name)
            if actions is None:
                continue
            data[name] = [str(a) for a in actions] if many else str(actions)
        return data

    def _decode(self, data: Any, cls: type) -> Any:
        if not isinstance(data, dict):
            raise CodecError(f"a {cls.__name__} must be a map of its fields")
        try:
            value: Any = msgspec.convert(data, cls, strict=True, dec_hook=self._dec_hook)
        except msgspec.ValidationError as error:
            raise CodecError(f"{cls.__name__}: {str(error)[:300]}") from None
        # msgspec ignores fields a dataclass does not have: a value that does
        # not encode back to exactly what came is refused.
        try:
            came = _canonical.encode(data)
        except TypeError:  # sorted maps need text keys: one in a field it ignored
            raise CodecError(f"a {cls.__name__} with a map not keyed by text") from None
        if _canonical.encode(self._encode(value)) != came:
            raise CodecError(f"a {cls.__name__} with fields it does not have")
        return value

    def _dec_hook(self, expected: type, data: Any) -> Any:
        if isinstance(expected, type) and issubclass(expected, Action):
            if not isinstance(data, str) or len(data) > 200:
                raise ValueError("an action must be its notation, as text")
            try:
                parsed = self.game.parse_action(data)
            except IllegalAction as error:
                raise ValueError(error.reason) from None
            if not isinstance(parsed, expected):
                raise ValueError(f"{data!r} is not a {expected.__name__}")
            return parsed
        raise NotImplementedError(f"cannot decode {expected!r}")


def _action_fields(cls: type) -> tuple[tuple[str, bool], ...]:
    """``(field, many)`` for the fields of ``cls`` typed ``Action``,
    ``tuple[Action, ...]`` or either or None; an action anywhere deeper is
    not supported (no game has one) and is refused here, at start-up."""
    found: list[tuple[str, bool]] = []
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        options = [option for option in _union_options(hint) if option is not type(None)]
        if len(options) == 1 and _is_action(options[0]):
            found.append((field.name, False))
            continue
        if len(options) == 1 and typing.get_origin(options[0]) is tuple:
            args = typing.get_args(options[0])
            if len(args) == 2 and args[1] is Ellipsis and _is_action(args[0]):
                found.append((field.name, True))
                continue
        if _mentions_action(hint):
            raise TypeError(f"{cls.__name__}.{field.name}: actions only at the top level")
    return tuple(found)


def _union_options(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return typing.get_args(hint)
    return (hint,)


def _is_action(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, Action)


def _mentions_action(hint: Any) -> bool:
    if _is_action(hint):
        return True
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return any(_mentions_action(h) for h in typing.get_type_hints(hint).values())
    return any(_mentions_action(arg) for arg in typing.get_args(hint) if arg is not Ellipsis)


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
