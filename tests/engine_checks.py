"""Checks shared by every game's tests."""

from __future__ import annotations

import copy
import os
import random
from typing import Any

import pytest

from core.engine import Action, AnyState, IllegalAction

# `make test` plays a sixth of the property tests' random games (still about
# two thousand games across the three games, and tens of thousands of
# positions in the bots' tests); `make soak` (PASSE_SOAK=1) plays them all.
SOAK = os.environ.get("PASSE_SOAK") == "1"


def examples(full: int) -> int:
    """How many random games (or positions) a property test plays in this run."""
    return full if SOAK else max(full // 6, 25)


def snapshot(state: AnyState) -> dict[str, Any]:
    """Everything a state holds, comparable with ``==`` (the RNG by its state)."""
    fields: dict[str, Any] = {}
    for name, value in vars(state).items():
        is_rng = isinstance(value, random.Random)
        fields[name] = value.getstate() if is_rng else copy.deepcopy(value)
    return fields


def assert_refused(state: AnyState, seat: Any, action: Action, reason: str | None = None) -> str:
    """``action`` raises :class:`IllegalAction` (matching ``reason``) and the
    state is exactly as it was. Returns the reason given."""
    before = snapshot(state)
    with pytest.raises(IllegalAction, match=reason) as caught:
        state.apply(seat, action)
    assert caught.value.reason, "an IllegalAction always says why"
    assert snapshot(state) == before, "a refused action must not change the state"
    return caught.value.reason
