"""A game's variants as the home screen offers them, read from the fields of
the game's :class:`~core.engine.Config` so that a new option appears by itself.

Every config field but ``players`` and ``teams`` is an option when its
choices are known: from the field's ``metadata["choices"]`` (a sequence of
``(label, value)``), from :data:`KNOWN_CHOICES` (keyed by field name), or,
for a ``bool`` field, no and yes. Fields without known choices (such as
Pass Pass's ``first_leader``, drawn from the seed) are not offered. The
field's default always comes first. Every value offered is one that
``passe simulate --option`` accepts, written by :func:`option_text`.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.registry import get_game

FIXED_FIELDS = frozenset({"players", "teams"})

# Choices by field name: (the label on the home screen, [(value label, value)]).
# Labels fit the home screen's 80 columns (a value label at most 24 cells).
KNOWN_CHOICES: dict[str, tuple[str, tuple[tuple[str, object], ...]]] = {
    # Passe fashion, FA-8 [interpretation] and its two variants.
    "payment": (
        "Payment",
        (
            ("winning bid paid", "winner"),
            ("every bid paid", "everyone"),
            ("no bid paid", "nobody"),
        ),
    ),
    # Passe fashion, FA-15: the season collection's conditions.
    "season": (
        "Season",
        (
            ("table's MUST and BANNED", "table"),
            ("strict (a collection)", "strict"),
        ),
    ),
    # Passe dominoes, DO-13/DO-14: None is the rules' target for the players.
    "target": (
        "Target",
        (
            ("rules: 101 (61 at 4)", None),
            ("31 points (short)", 31),
            ("61 points", 61),
            ("101 points", 101),
            ("151 points (long)", 151),
        ),
    ),
    # Pass Pass, PP-2 [interpretation]: the diamonds on values 1..12.
    "diamonds": (
        "Diamonds",
        (
            ("PP-2 table (assumed)", (3, 2, 2, 0, 1, 0, 1, 0, 1, 1, 0, 0)),
            ("1 on every card", (1,) * 12),
            ("none: cards only", (0,) * 12),
        ),
    ),
}


@dataclass(frozen=True)
class GameOption:
    """One option of one game: the config field, its label and its choices
    (``(label, value)``, the field's default first)."""

    name: str
    label: str
    choices: tuple[tuple[str, object], ...]

    @property
    def default(self) -> object:
        return self.choices[0][1]

    def value_of(self, stored: object) -> object:
        """The choice equal to a remembered value (JSON turns tuples into
        lists), or the default when it is no longer offered."""
        for _, value in self.choices:
            if same(value, stored):
                return value
        return self.default


def same(one: object, other: object) -> bool:
    """Equal as plain data (a tuple and a list with the same items are)."""
    return json.dumps(one, sort_keys=True) == json.dumps(other, sort_keys=True)


def _choices(
    field: dataclasses.Field[Any], hint: object
) -> tuple[str, Sequence[tuple[str, object]]]:
    label = field.name.replace("_", " ").capitalize()
    declared = field.metadata.get("choices")
    if declared is not None:
        return label, tuple(declared)
    if field.name in KNOWN_CHOICES:
        return KNOWN_CHOICES[field.name]
    if hint is bool:
        return label, (("no", False), ("yes", True))
    return label, ()


def game_options(game_id: str) -> tuple[GameOption, ...]:
    """The options of a game, in its config's field order (imports the
    engine: call it after the first paint)."""
    config_type = get_game(game_id).config_type
    hints = typing.get_type_hints(config_type)
    options: list[GameOption] = []
    for field in dataclasses.fields(config_type):
        if not field.init or field.name in FIXED_FIELDS:
            continue
        label, choices = _choices(field, hints.get(field.name))
        if not choices:
            continue
        default = field.default
        ordered = sorted(choices, key=lambda choice: not same(choice[1], default))
        if not any(same(value, default) for _, value in ordered):
            ordered.insert(0, ("default", default))
        options.append(GameOption(field.name, label, tuple(ordered)))
    return tuple(options)


def chosen_options(
    options: Sequence[GameOption], stored: Mapping[str, object]
) -> dict[str, object]:
    """The config options to start a game with: the remembered value of each
    option still offered, defaults left out (the record stays short)."""
    chosen: dict[str, object] = {}
    for option in options:
        value = option.value_of(stored.get(option.name, option.default))
        if not same(value, option.default):
            chosen[option.name] = value
    return chosen


def option_text(name: str, value: object) -> str:
    """``KEY=VALUE`` as ``passe simulate --option`` reads it (text as is,
    anything else as JSON: numbers, null, lists)."""
    return f"{name}={value if isinstance(value, str) else json.dumps(value)}"
