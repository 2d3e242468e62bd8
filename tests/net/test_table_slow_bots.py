"""Slow (search) bots think off the event loop and stop when the table stops."""

from __future__ import annotations

import asyncio
import threading

from core.engine import Action, Bot, View
from core.registry import get_game
from net.authority.table import SeatSpec, Table


class ThinkingBot(Bot):
    """Thinks (blocks its thread) until released or told to stop."""

    name = "thinking"
    slow = True

    def __init__(self) -> None:
        super().__init__(0)
        self.release = threading.Event()
        self.started = threading.Event()
        self.thinking = threading.Event()  # set while inside choose_until
        self.decided = threading.Event()
        self.stopped = threading.Event()
        self.thread: threading.Thread | None = None

    def choose(self, view: View) -> Action:
        return self.choose_until(view, threading.Event())

    def choose_until(self, view: View, stop: threading.Event) -> Action:
        self.thread = threading.current_thread()
        self.thinking.set()
        self.started.set()
        for _ in range(1000):  # at most 10 s, so a blocked loop fails, not hangs
            if self.release.is_set():
                break
            if stop.is_set():
                self.stopped.set()
                break
            self.release.wait(0.01)
        self.thinking.clear()
        self.decided.set()
        return view.legal[0]


class LastBot(Bot):
    """Plays the last legal action (the thinking bot plays the first)."""

    name = "last"

    def choose(self, view: View) -> Action:
        return view.legal[-1]


def _table() -> tuple[Table, ThinkingBot]:
    game = get_game("passpass")
    seats = [SeatSpec(f"b{seat}", "random") for seat in range(3)]
    table = Table.new("passpass", game.make_config(players=3), 4, seats, bot_delay=0)
    bot = ThinkingBot()
    table._bots[table.state.to_act[0]] = bot
    return table, bot


async def _until(flag: threading.Event) -> None:
    while not flag.is_set():
        await asyncio.sleep(0.005)


async def test_the_loop_runs_while_a_slow_bot_thinks() -> None:
    """The bot thinks in another thread, and this coroutine (on the loop)
    runs while it does: were the bot called on the loop, this would resume
    only once it had decided (and played)."""
    table, bot = _table()
    seat = table.state.to_act[0]
    expected = table.state.view(seat).legal[0]
    table.start()
    await asyncio.wait_for(_until(bot.started), 5)
    for _ in range(20):  # the loop keeps turning while the bot's thread thinks
        await asyncio.sleep(0)
        assert bot.thinking.is_set() and not table.state.history
    assert bot.thread is not None and bot.thread is not threading.current_thread()
    bot.release.set()
    while not table.state.history:
        await asyncio.sleep(0.005)
    assert table.state.history[0] == (seat, expected)
    await table.stop()


async def test_stopping_the_table_stops_the_thinking() -> None:
    table, bot = _table()
    table.start()
    await asyncio.wait_for(_until(bot.started), 5)
    await table.stop()
    await asyncio.wait_for(_until(bot.stopped), 1)
    assert table.state.history == []


async def test_a_decision_made_for_a_replaced_bot_is_dropped() -> None:
    """Mutation (issue 23): ``Table.run_bots`` no longer checking that the
    seat's bot is still the one that thought. The old bot plays the first
    legal action, its replacement the last: only the replacement's is played."""
    table, bot = _table()
    seat = table.state.to_act[0]
    legal = table.state.view(seat).legal
    assert len(legal) > 1 and legal[0] != legal[-1]
    table.start()
    await asyncio.wait_for(_until(bot.started), 5)
    table.pause()
    table.hand_to_bot(seat, "random")  # the seat changes hands while it thinks
    table._bots[seat] = LastBot(0)  # a replacement whose choice is known
    bot.release.set()
    await asyncio.wait_for(_until(bot.decided), 5)
    assert table.state.history == []  # paused: nothing played meanwhile
    table.resume()
    while not table.state.history:
        await asyncio.sleep(0.005)
    assert table.state.history[0] == (seat, legal[-1])
    await table.stop()
