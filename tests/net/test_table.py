"""The table: the authority's session with people and bots."""

from __future__ import annotations

import asyncio

import pytest

from core.engine import IllegalAction
from core.passpass.model import RoundStarted
from core.passpass.state import PassPassState
from core.registry import get_game
from net.authority.table import SeatSpec, Table, TableUpdate
from net.peer.client import LocalClient
from tests.passpass.rig import play, rig


def bots_table(game_id: str, players: int, *, human: bool = True) -> Table:
    game = get_game(game_id)
    seats = [SeatSpec("you")] if human else [SeatSpec("b0", "random")]
    seats += [SeatSpec(f"b{seat}", "heuristic") for seat in range(1, players)]
    return Table.new(game_id, game.make_config(players=players), 4, seats, bot_delay=0)


async def test_bots_play_a_whole_game_and_every_update_is_a_view() -> None:
    table = bots_table("dominoes", 2, human=False)
    updates: list[TableUpdate] = []
    client = LocalClient(table, None)
    await client.connect(updates.append)
    await asyncio.wait_for(table._runner, 30)  # type: ignore[arg-type]
    assert table.state.is_over
    assert updates[-1].view.is_over and updates[-1].view.seat is None
    await client.close()


async def test_first_update_carries_the_opening_deal() -> None:
    table = bots_table("passpass", 4)
    updates: list[TableUpdate] = []
    table.subscribe(0, updates.append)
    # At once, before any move: the seat's own view of the deal (eight cards
    # in hand, PP-4) and the deal itself as the log's first event.
    [update] = updates
    assert isinstance(table.state, PassPassState)
    assert update.events == (RoundStarted(1, table.state.leader),)
    assert update.view == table.state.view(0) and update.view.seat == 0
    assert len(update.view.hand) == 8 and update.view.round == 1
    assert update.rejected is None


def test_refusal_is_raised_and_reported_to_that_seat_only() -> None:
    table = bots_table("passpass", 4)
    mine: list[TableUpdate] = []
    theirs: list[TableUpdate] = []
    table.subscribe(0, mine.append)
    table.subscribe(1, theirs.append)
    with pytest.raises(IllegalAction):
        table.submit(0, "pick V1")
    assert mine[-1].rejected and len(theirs) == 1
    with pytest.raises(IllegalAction, match="played by a bot"):
        table.submit(1, "V1")


def test_bots_wait_for_people_in_simultaneous_phases() -> None:
    # PP-23: either partner may choose the representative; the bot partner
    # must not answer before the person can.
    state = rig(["V1", "V2", "V3", "V4"], teams=True)
    state.trick_number = 7
    play(state, "V1", "V2", "V3", "V4", "pick V4")
    seats = [SeatSpec("you"), *(SeatSpec(f"b{s}", "heuristic") for s in range(1, 4))]
    table = Table.around(state, seats, bot_delay=0)
    assert set(state.to_act) == {0, 1, 2, 3}
    assert table.bot_to_act() is None
    table.submit(0, "rep 3")
    assert table.bot_to_act() in (1, 3)


async def test_pause_holds_the_bots_until_resumed() -> None:
    table = bots_table("passpass", 3, human=False)
    table.pause()
    table.start()
    for _ in range(20):
        await asyncio.sleep(0)
    assert table.state.history == []
    table.resume()
    for _ in range(20):
        await asyncio.sleep(0)
    assert table.state.history
    await table.stop()


async def test_resume_from_a_record_replays_the_same_position() -> None:
    table = bots_table("passpass", 3, human=False)
    for _ in range(30):
        table.step_bot()
    again = Table.from_record(table.record(), table.seats, bot_delay=0)
    assert again.state.view(None) == table.state.view(None)


@pytest.mark.parametrize("game_id", ["passpass", "dominoes", "fashion"])
def test_a_resumed_table_tells_the_story_once_however_often_resumed(game_id: str) -> None:
    # A crash, a continue, more moves, another crash and continue: the story
    # a (re)connecting seat receives is the uninterrupted game's, never longer.
    table = bots_table(game_id, 3, human=False)
    for _ in range(25):
        table.step_bot()
    resumed = Table.from_record(table.record(), table.seats, bot_delay=0)
    assert resumed.events == table.events
    for _ in range(25):
        resumed.step_bot()  # (its bots are fresh: the game goes on its own way)
    twice = Table.from_record(resumed.record(), resumed.seats, bot_delay=0)
    assert twice.events == resumed.events
    seen: list[TableUpdate] = []
    twice.subscribe(None, seen.append)
    story = tuple(shown for e in resumed.events if (shown := e.for_seat(None)) is not None)
    assert seen[0].events == story
