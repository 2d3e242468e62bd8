"""The strength results' behaviour keys (bench/strength.py): a change to one
level sets aside the results it affects, and only those."""

from __future__ import annotations

import pytest

from bench.strength import PAIRINGS, pairing_keys
from core.dominoes import bots
from core.search import Budget

DOMINOES = [p for p in PAIRINGS if p.game == "dominoes"]


def test_a_change_to_expert_alone_keeps_the_other_pairings_results(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = pairing_keys(DOMINOES)
    names = {p.name for p in DOMINOES}
    assert names == {
        "dominoes/2/hard-v-normal",
        "dominoes/2/expert-v-hard",
        "dominoes/2/easy-v-normal",
    }
    # easy, normal and hard share their game's key; expert's pairing has its own.
    assert before["dominoes/2/hard-v-normal"] == before["dominoes/2/easy-v-normal"]
    assert before["dominoes/2/expert-v-hard"] != before["dominoes/2/hard-v-normal"]
    assert pairing_keys(DOMINOES) == before  # the same bots, the same keys

    monkeypatch.setattr(bots.ExpertBot, "level_budget", Budget(seconds=1.5, iterations=999))
    expert_changed = pairing_keys(DOMINOES)
    assert expert_changed["dominoes/2/expert-v-hard"] != before["dominoes/2/expert-v-hard"]
    assert expert_changed["dominoes/2/hard-v-normal"] == before["dominoes/2/hard-v-normal"]

    monkeypatch.setattr(bots.HardBot, "level_budget", Budget(seconds=0.3, iterations=99))
    hard_changed = pairing_keys(DOMINOES)
    assert len(set(hard_changed.values()) & set(expert_changed.values())) == 0  # all stale
