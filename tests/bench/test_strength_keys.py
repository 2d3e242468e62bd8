"""The strength results' behaviour keys (bench/strength.py): a change to one
level sets aside the results it affects, and only those."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import strength
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


def test_a_chunk_played_twice_counts_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Two runs that played the same chunk (the same seed and bots, so the
    same games) must not double its games in the report."""
    monkeypatch.setattr(strength, "PAIRINGS", tuple(DOMINOES))
    pairing = DOMINOES[0]
    key = pairing_keys(DOMINOES)[pairing.name]
    line = {
        "pairing": pairing.name,
        "game": "dominoes",
        "chunk": 0,
        "key": key,
        "seed": pairing.seed(0),
        "bots": pairing.bots(0),
        "focus_seat": 0,
        "games": 5,
        "focus_wins": 4,
        "focus_share": 4.0,
        "decision_ms": [[10.0], [0.1]],
        "playouts": [100, 0],
        "seconds": 1.0,
    }
    path = tmp_path / "results.jsonl"
    path.write_text((json.dumps(line) + "\n") * 2)
    row = next(r for r in strength.report(path).splitlines() if "hard v 1 normal" in r)
    cells = [cell.strip() for cell in row.split("|")]
    assert cells[4:6] == ["5", "80.0%"]  # five games, not ten
