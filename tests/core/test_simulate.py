"""``passe simulate`` (core.simulate): game options and the per-game figures."""

from __future__ import annotations

import pytest

from core.engine import ConfigError
from core.simulate import simulate


def _fashion(season: str) -> dict[str, object]:
    summary = simulate(
        "fashion",
        players=4,
        teams=False,
        games=40,
        seed=7,
        bots=["random"] * 4,
        options={"season": season},
    )
    return summary.to_data()


def test_fashion_reports_season_figures_under_each_reading() -> None:
    """FA-15: random bots play the same games under both readings (it only
    scores the end), and the table's conditions score more season points than
    the strict collection reading."""
    table, strict = _fashion("table"), _fashion("strict")
    for data in (table, strict):
        for key in ("season_points", "season_hands", "season_tiebreaks"):
            assert isinstance(data[key], float) and data[key] >= 0
    assert table["mean_actions"] == strict["mean_actions"]
    assert table["season_points"] > strict["season_points"]  # type: ignore[operator]
    assert table["season_hands"] > strict["season_hands"]  # type: ignore[operator]


def test_an_unknown_season_reading_is_refused_in_words() -> None:
    with pytest.raises(ConfigError, match=r"season must be table .* or strict"):
        simulate(
            "fashion",
            players=2,
            teams=False,
            games=1,
            seed=0,
            bots=["random", "random"],
            options={"season": "loose"},
        )
