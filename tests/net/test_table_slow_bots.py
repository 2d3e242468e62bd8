"""Slow (search) bots think off the event loop and stop when the table stops."""

from __future__ import annotations

import asyncio
import threading

from core.engine import Action, Bot, View
from core.registry import get_game
from net.table import SeatSpec, Table


class ThinkingBot(Bot):
    """Thinks (blocks its thread) until released or told to stop."""

    name = "thinking"
    slow = True

    def __init__(self) -> None:
        super().__init__(0)
        self.release = threading.Event()
        self.started = threading.Event()
        self.stopped = threading.Event()

    def choose(self, view: View) -> Action:
        return self.choose_until(view, threading.Event())

    def choose_until(self, view: View, stop: threading.Event) -> Action:
        self.started.set()
        for _ in range(200):  # at most 2 s, so a blocked loop fails, not hangs
            if self.release.is_set():
                break
            if stop.is_set():
                self.stopped.set()
                break
            self.release.wait(0.01)
        return view.legal[0]


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
    table, bot = _table()
    seat = table.state.to_act[0]
    expected = table.state.view(seat).legal[0]
    table.start()
    await asyncio.wait_for(_until(bot.started), 5)
    ticks = 0
    for _ in range(20):  # the loop keeps turning while the bot's thread thinks
        await asyncio.sleep(0.005)
        ticks += 1
    assert ticks == 20 and not table.state.history and not bot.release.is_set()
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
    table, bot = _table()
    seat = table.state.to_act[0]
    table.start()
    await asyncio.wait_for(_until(bot.started), 5)
    table.pause()
    table.hand_to_bot(seat, "random")  # the seat changes hands while it thinks
    bot.release.set()
    await asyncio.sleep(0.05)
    assert table.state.history == []  # the old bot's decision was not played
    table.resume()
    while not table.state.history:
        await asyncio.sleep(0.005)
    assert table.state.history[0][0] == seat
    await table.stop()
