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
            value = data[key]
            assert isinstance(value, float) and value >= 0
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


def _hard_against_normal(*, clock: bool) -> dict[str, object]:
    summary = simulate(
        "dominoes",
        players=2,
        teams=False,
        games=1,
        seed=1,
        bots=["hard", "normal"],
        options={"target": 5},
        timings=True,
        clock=clock,
    )
    return summary.to_data()


def test_without_the_clock_a_run_reproduces_and_times_every_real_choice() -> None:
    """--no-clock: the search thinks to its playout cap whatever the time, so
    the same seed gives the same games (bench/strength.py relies on it);
    --timings keeps one time per decision with a real choice."""
    first, second = _hard_against_normal(clock=False), _hard_against_normal(clock=False)
    times = first.pop("decision_ms")
    second.pop("decision_ms")
    assert first == second
    assert isinstance(times, list) and all(len(seat) > 0 for seat in times)
    assert all(ms >= 0 for seat in times for ms in seat)
    playouts = first["playouts"]
    assert isinstance(playouts, list)
    assert playouts[0] > 0 and playouts[1] == 0  # only the search bot plays out


def test_win_shares_add_up_to_the_games() -> None:
    """A victory shared by k rivals counts 1/k: the shares sum to the games,
    so 1 / players is every bot's fair share."""
    data = simulate(
        "passpass", players=4, teams=False, games=30, seed=3, bots=["random"] * 4
    ).to_data()
    shares = data["win_shares"]
    wins = data["wins"]
    assert isinstance(shares, list) and isinstance(wins, list)
    assert sum(shares) == pytest.approx(30)
    assert all(share <= win for share, win in zip(shares, wins, strict=True))
