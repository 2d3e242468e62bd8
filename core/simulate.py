"""Bot-only games for any registered game: the engine of ``passe simulate``."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from core.engine import AnyGame, AnyState, Bot, ConfigError, plural
from core.registry import get_game
from core.search import SearchBot, without_clock

MAX_ACTIONS_PER_GAME = 100_000  # a guard: every game must end far sooner


@dataclass
class Summary:
    """Totals over many games; ``to_data`` is the JSON object the CLI prints."""

    game: str
    players: int
    teams: bool
    bots: tuple[str, ...]
    games: int = 0
    wins: list[int] = field(default_factory=list)
    # A win counts 1, a victory shared between k rivals 1/k: the seats'
    # shares add up to the number of games, so a bot's fair share is exactly
    # 1 / players (wins count a shared victory for every winner).
    win_shares: list[float] = field(default_factory=list)
    shared: int = 0
    immediate_victories: int = 0
    score_sums: list[int] = field(default_factory=list)
    actions: int = 0
    statistics: dict[str, int] = field(default_factory=dict)
    # With ``timings``: each seat's decisions with a real choice (two legal
    # actions or more), in milliseconds, and its search playouts in total.
    decision_ms: list[list[float]] | None = None
    playouts: list[int] | None = None

    def add(self, state: AnyState, actions: int) -> None:
        result = state.result()
        assert result is not None
        self.games += 1
        for seat in result.winners:  # a shared or team victory counts for every winner
            self.wins[seat] += 1
            self.win_shares[seat] += 1 / len(result.winners) if result.shared else 1.0
        self.shared += result.shared
        self.immediate_victories += result.immediate
        for seat, score in enumerate(result.scores):
            self.score_sums[seat] += score
        self.actions += actions
        for key, value in state.statistics().items():
            self.statistics[key] = self.statistics.get(key, 0) + value

    def to_data(self) -> dict[str, object]:
        games = max(self.games, 1)
        data: dict[str, object] = {
            "game": self.game,
            "players": self.players,
            "teams": self.teams,
            "bots": list(self.bots),
            "games": self.games,
            "wins": self.wins,
            "win_shares": [round(share, 6) for share in self.win_shares],
            "shared": self.shared,
            "mean_scores": [round(total / games, 3) for total in self.score_sums],
            "mean_actions": round(self.actions / games, 3),
            "immediate_victories": self.immediate_victories,
        }
        for key, value in self.statistics.items():  # means per game
            data[key] = round(value / games, 3)
        if self.decision_ms is not None and self.playouts is not None:
            data["decision_ms"] = [[round(ms, 3) for ms in seat] for seat in self.decision_ms]
            data["playouts"] = self.playouts
        return data


def make_bots(game: AnyGame, names: Sequence[str], seed: int) -> list[Bot]:
    return [game.make_bot(name, seed * 7919 + seat) for seat, name in enumerate(names)]


def play_out(state: AnyState, bots: Sequence[Bot], summary: Summary | None = None) -> int:
    """Let bots play ``state`` to its end, each seeing only its own view.
    Returns the number of actions taken; times every decision with a real
    choice into ``summary`` if it keeps timings."""
    count = 0
    timed = summary is not None and summary.decision_ms is not None
    clock = time.perf_counter
    while not state.is_over:
        seat = state.to_act[0]
        view = state.view(seat)
        bot = bots[seat]
        if timed and len(view.legal) > 1:
            assert summary is not None and summary.decision_ms is not None
            assert summary.playouts is not None
            start = clock()
            action = bot.choose(view)
            summary.decision_ms[seat].append((clock() - start) * 1000)
            if isinstance(bot, SearchBot):
                summary.playouts[seat] += bot.iterations_done
        else:
            action = bot.choose(view)
        state.apply(seat, action)
        count += 1
        if count > MAX_ACTIONS_PER_GAME:
            raise RuntimeError(f"game did not end within {MAX_ACTIONS_PER_GAME} actions")
    return count


def simulate(
    game_id: str,
    *,
    players: int,
    teams: bool,
    games: int,
    seed: int,
    bots: Sequence[str],
    options: Mapping[str, object] | None = None,
    timings: bool = False,
    clock: bool = True,
) -> Summary:
    """Play ``games`` bot-only games; every game's seed derives from ``seed``.

    ``timings`` keeps every decision's time and the search bots' playouts;
    ``clock=False`` lets search bots think to their playout cap whatever the
    time (core/search.py ``without_clock``): the run then reproduces exactly.

    Raises :class:`ConfigError` (with a sentence for people) for an unknown
    game or bot, a bad player count or the wrong number of bots.
    """
    game = get_game(game_id)
    config = game.make_config(**{**(options or {}), "players": players, "teams": teams})
    if len(bots) != players:
        named = plural(len(bots), "bot")
        raise ConfigError(f"{named} named for {players} players: name one per seat")
    for name in bots:
        if name not in game.bots:
            known = ", ".join(sorted(game.bots))
            raise ConfigError(f"unknown bot {name!r}; {game.info.title} has: {known}")
    if games < 1:
        raise ConfigError("--games must be at least 1")
    summary = Summary(game_id, players, teams, tuple(bots))
    summary.wins = [0] * players
    summary.win_shares = [0.0] * players
    summary.score_sums = [0] * players
    if timings:
        summary.decision_ms = [[] for _ in range(players)]
        summary.playouts = [0] * players
    seeds = random.Random(seed)
    for _ in range(games):
        game_seed = seeds.getrandbits(32)
        state = game.new_game(config, game_seed)
        seated = make_bots(game, bots, game_seed)
        if not clock:
            seated = [without_clock(bot) for bot in seated]
        summary.add(state, play_out(state, seated, summary))
    return summary
