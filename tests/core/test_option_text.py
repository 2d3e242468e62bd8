"""A game option written as text (``passe host --option KEY=VALUE``, and a
dealer's ``Deal``, which carries options as text): read back as what was
written (core/engine.py ``option_from_text`` and ``option_to_text``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.engine import option_from_text, option_to_text


def test_numbers_booleans_lists_and_text_are_read_as_written() -> None:
    assert option_from_text("61") == 61
    assert option_from_text("true") is True
    assert option_from_text("0,0,1") == [0, 0, 1]
    assert option_from_text("[0, 0, 1]") == [0, 0, 1]
    assert option_from_text("red") == "red"
    assert option_from_text("[" * 10_000) == "[" * 10_000  # past JSON's depth: text


@given(st.text() | st.lists(st.text(), min_size=2).map(",".join))
def test_what_is_read_from_text_is_written_back_to_the_same(raw: str) -> None:
    """Whatever a command line gives, the dealer reads what the asker read
    (NaN aside: it equals nothing, itself included)."""
    value = option_from_text(raw)
    if not has_nan(value):
        assert option_from_text(option_to_text(value)) == value


def has_nan(value: object) -> bool:
    if isinstance(value, float):
        return value != value
    if isinstance(value, list):
        return any(has_nan(item) for item in value)
    if isinstance(value, dict):
        return any(has_nan(item) for item in value.values())
    return False
