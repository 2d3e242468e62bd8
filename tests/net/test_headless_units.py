"""A headless seat (`passe join --bot`, net/peer/headless.py) says what
happens to its table from before the game's first view: scripts and the
dealer tests read its lines."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from net.peer.headless import play_with_bot


class SlowSeat:
    """As much of a RemoteTable as play_with_bot uses before the first
    view: a seat whose first view has not come yet."""

    game_id = "dominoes"
    runs_the_table = False

    def __init__(self) -> None:
        self.moved: list[Callable[[int], None]] = []
        self.hosts: list[Callable[[bool], None]] = []
        self.started = asyncio.Event()

    def on_moved(self, listener: Callable[[int], None]) -> None:
        self.moved.append(listener)

    def on_host(self, listener: Callable[[bool], None]) -> None:
        self.hosts.append(listener)

    async def wait_started(self) -> None:
        await self.started.wait()


async def test_a_seat_says_its_table_moved_and_came_back_before_its_first_view(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A seat slow to get the game's first view, whose table moved to
    another dealer meanwhile, said that it moved but never that the new
    table was there; the test reading it waited 60 s (CI, 6 December:
    test_the_last_dealer_stopped_after_a_takeover_says_its_table_is_away)."""
    seat = SlowSeat()
    playing = asyncio.create_task(play_with_bot(seat, "random", seed=1))  # type: ignore[arg-type]
    try:
        await asyncio.sleep(0)  # it waits for the first view now
        assert not playing.done()
        for listener in seat.moved:
            listener(2)
        for presence in seat.hosts:
            presence(False)  # the first dealer's will
            presence(True)  # the new dealer's presence
        lines: list[dict[str, Any]] = [
            json.loads(line) for line in capsys.readouterr().out.splitlines()
        ]
        assert lines == [
            {"event": "moved", "term": 2, "here": False},
            {"event": "table", "present": False},
            {"event": "table", "present": True},
        ]
    finally:
        playing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await playing
