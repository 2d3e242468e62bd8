"""Every **[interpretation]** of the rules specification (``shared/rules/*.md``,
outside this repository) is shown as a house rule, by its id, in the in-app
rules text (FA-1..FA-16, DO-1..DO-14, PP-1..PP-25)."""

from __future__ import annotations

import pytest

from core.registry import get_game

# The ids the specification marks **[interpretation]**, game by game. A new
# interpretation in the specification belongs here and in the game's rules.md.
INTERPRETATIONS = {
    "passpass": ("PP-2", "PP-5", "PP-23"),
    "dominoes": ("DO-5", "DO-7", "DO-11", "DO-14"),
    "fashion": (
        "FA-1",
        "FA-3",
        "FA-4",
        "FA-6",
        "FA-7",
        "FA-8",
        "FA-12",
        "FA-13",
        "FA-14",
        "FA-15",
        "FA-16",
    ),
}


@pytest.mark.parametrize("game_id", sorted(INTERPRETATIONS))
def test_every_interpretation_is_a_marked_house_rule(game_id: str) -> None:
    text = get_game(game_id).rules_text()
    missing = [rule for rule in INTERPRETATIONS[game_id] if f"House rule ({rule})" not in text]
    assert not missing, f"{game_id} rules.md does not mark {missing} as house rules"
