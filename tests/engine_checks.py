"""Checks shared by every game's tests."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from core.engine import Action, AnyState, IllegalAction


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
