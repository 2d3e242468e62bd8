"""The table (net/authority/table.py), rule by rule: each seat gets its own
view and only the events it may see, the story so far on subscribing,
refusals to the seat that acted, bots put in and taken out, the bots'
seeds, and a saved game's file read back and refused in words. The
table deals the cards in every local game and in the networked
authority; a mutation here must show (docs/testing.md, "The score")."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from core.dominoes import DRAW
from core.dominoes.model import Drew
from core.engine import ConfigError, Event, IllegalAction, RecordError
from core.registry import get_game
from net.authority.table import HUMAN, SavedTable, SeatSpec, Table, TableUpdate
from tests.passpass.rig import play, rig

SEED = 4


def people(game_id: str, players: int) -> Table:
    seats = [SeatSpec(f"p{seat}") for seat in range(players)]
    config = get_game(game_id).make_config(players=players)
    return Table.new(game_id, config, SEED, seats, bot_delay=0)


def until_a_draw(table: Table) -> tuple[Event, ...]:
    """People play the first legal action (a draw where they may) until
    someone draws: the events of that move."""
    for _ in range(200):
        seat = table.state.to_act[0]
        legal = table.state.legal_actions(seat)
        events = table.submit(seat, DRAW if DRAW in legal else legal[0])
        if any(isinstance(event, Drew) for event in events):
            return events
    raise AssertionError("nobody drew in 200 moves")


def shown_to(events: Sequence[Event], seat: int | None) -> tuple[Event, ...]:
    return tuple(shown for event in events if (shown := event.for_seat(seat)) is not None)


def test_each_seat_gets_its_own_view_and_only_what_it_may_see() -> None:
    table = people("dominoes", 3)
    updates: dict[int | None, list[TableUpdate]] = {0: [], 1: [], 2: [], None: []}
    for seat, received in updates.items():
        table.subscribe(seat, received.append)
    events = until_a_draw(table)
    drew = next(event for event in events if isinstance(event, Drew))
    for seat, received in updates.items():
        last = received[-1]
        assert last.view == table.state.view(seat) and last.view.seat == seat
        assert last.events == shown_to(events, seat) and last.rejected is None
        shown = next(event for event in last.events if isinstance(event, Drew))
        # DO-7: the drawn tile is the drawer's alone.
        assert shown.tile == (drew.tile if seat == drew.seat else None), (seat, shown)
    assert drew.tile is not None


def test_a_seat_that_subscribes_late_gets_its_own_story_so_far() -> None:
    table = people("dominoes", 3)
    until_a_draw(table)
    drawer = next(event.seat for event in table.events if isinstance(event, Drew))
    for seat in (drawer, (drawer + 1) % 3, None):
        received: list[TableUpdate] = []
        table.subscribe(seat, received.append)
        [first] = received
        assert first.view == table.state.view(seat)
        assert first.events == shown_to(table.events, seat)
        tiles = [event.tile for event in first.events if isinstance(event, Drew)]
        assert all(tiles) if seat == drawer else not any(tiles), (seat, tiles)


def test_an_unsubscribed_seat_hears_nothing_more_and_unsubscribing_twice_is_no_error() -> None:
    table = people("dominoes", 2)
    received: list[TableUpdate] = []
    unsubscribe = table.subscribe(1, received.append)
    unsubscribe()
    unsubscribe()
    seat = table.state.to_act[0]
    table.submit(seat, table.state.legal_actions(seat)[0])
    assert len(received) == 1  # the view at subscribing only


def test_a_refusal_goes_to_the_seat_that_acted_with_its_own_view() -> None:
    table = people("dominoes", 3)
    acting = table.state.to_act[0]
    waiting = (acting + 1) % 3
    mine: list[TableUpdate] = []
    theirs: list[TableUpdate] = []
    table.subscribe(waiting, mine.append)
    table.subscribe(acting, theirs.append)
    with pytest.raises(IllegalAction) as refused:
        table.submit(waiting, DRAW)  # not their turn
    assert mine[-1].rejected == refused.value.reason and mine[-1].rejected
    assert mine[-1].view == table.state.view(waiting) and mine[-1].events == ()
    assert len(theirs) == 1  # the acting seat heard nothing


def test_a_bot_s_seat_refuses_a_person_s_action_naming_the_seat_as_people_count() -> None:
    table = people("dominoes", 3)
    table.hand_to_bot(1, "random")
    with pytest.raises(IllegalAction, match=r"^seat 2 is played by a bot$"):
        table.submit(1, DRAW)


def test_a_bot_put_in_keeps_the_seat_s_name_or_takes_the_one_given_and_goes_again() -> None:
    table = people("dominoes", 3)
    table.hand_to_bot(1, "random")
    assert table.seats == (SeatSpec("p0"), SeatSpec("p1", "random"), SeatSpec("p2"))
    table.hand_to_bot(2, "heuristic", "p2's bot")
    assert table.seats == (
        SeatSpec("p0"),
        SeatSpec("p1", "random"),
        SeatSpec("p2's bot", "heuristic"),
    )
    table.hand_to_person(1)
    table.hand_to_person(0)  # a person's seat already: nothing changes
    assert table.seats[1] == SeatSpec("p1", HUMAN) and not table.seats[1].is_bot
    assert table.seats[2].is_bot and table.seats[0] == SeatSpec("p0")
    # Seat 1 is a person's again: at its turn no bot plays, and it may act.
    while table.state.to_act != (1,):
        seat = table.state.to_act[0]
        if seat == 2:
            table.step_bot()
        else:
            table.submit(seat, table.state.legal_actions(seat)[0])
    assert table.bot_to_act() is None
    table.submit(1, table.state.legal_actions(1)[0])


async def test_a_bot_put_in_at_its_seat_s_turn_plays_at_once() -> None:
    """The running table wakes when a bot takes the seat that must act
    (a person who left at their turn): the game does not wait."""
    table = people("dominoes", 3)
    table.start()
    try:
        seat = table.state.to_act[0]
        moves = len(table.state.history)
        for _ in range(20):
            await asyncio.sleep(0)
        assert len(table.state.history) == moves  # a person's turn: nothing moves
        table.hand_to_bot(seat, "random")
        async with asyncio.timeout(5):
            while len(table.state.history) == moves:
                await asyncio.sleep(0)
        assert table.state.history[moves][0] == seat
    finally:
        await table.stop()


async def test_a_paused_table_resumed_plays_its_bots_again() -> None:
    seats = [SeatSpec("b0", "random"), SeatSpec("b1", "random")]
    config = get_game("dominoes").make_config(players=2)
    table = Table.new("dominoes", config, SEED, seats, bot_delay=0)
    table.pause()
    table.start()
    try:
        for _ in range(20):
            await asyncio.sleep(0)
        assert table.paused and table.state.history == []
        table.resume()
        assert table.paused is False
        async with asyncio.timeout(5):
            while not table.state.history:
                await asyncio.sleep(0)
    finally:
        await table.stop()


def test_bots_wait_for_their_partner_when_two_seats_act_at_once() -> None:
    """PP-23: the other team chose; now a person and their bot partner may
    both choose theirs, and the bot does not answer first."""
    state = rig(["V1", "V2", "V3", "V4"], teams=True)
    state.trick_number = 7
    play(state, "V1", "V2", "V3", "V4", "pick V4")
    seats = [
        SeatSpec("you"),
        SeatSpec("them"),
        SeatSpec("b2", "heuristic"),
        SeatSpec("b3", "heuristic"),
    ]
    table = Table.around(state, seats, bot_delay=0)
    choice = next(str(a) for a in state.legal_actions(1) if str(a).startswith("rep"))
    table.submit(1, choice)
    assert sorted(table.state.to_act) == [0, 2]
    assert table.bot_to_act() is None


def test_each_bot_s_seed_is_the_game_s_and_its_seat_s() -> None:
    """A bot's decisions follow from the game's seed and its seat
    (seed x 7919 + seat): a resumed game's bots play as they would have."""
    game = get_game("dominoes")
    seats = [SeatSpec("b0", "random"), SeatSpec("b1", "random"), SeatSpec("b2", "random")]
    table = Table.new("dominoes", game.make_config(players=3), SEED, seats, bot_delay=0)
    twins = {seat: game.make_bot("random", SEED * 7919 + seat) for seat in range(3)}
    for _ in range(60):
        seat = table.bot_to_act()
        if seat is None:
            break
        expected = twins[seat].choose(table.state.view(seat))
        table.step_bot()
        assert table.state.history[-1] == (seat, expected)
    # A bot put in for a person later draws from the same seed.
    later = people("dominoes", 3)
    while later.state.to_act[0] == 0:  # a seat other than the first
        seat = later.state.to_act[0]
        later.submit(seat, later.state.legal_actions(seat)[0])
    seat = later.state.to_act[0]
    later.hand_to_bot(seat, "random")
    twin = game.make_bot("random", SEED * 7919 + seat)
    for _ in range(5):  # its next moves, the others' in between
        while later.state.to_act[0] != seat:
            other = later.state.to_act[0]
            later.submit(other, later.state.legal_actions(other)[0])
        expected = twin.choose(later.state.view(seat))
        later.step_bot()
        assert later.state.history[-1] == (seat, expected)


def test_a_table_of_the_wrong_size_or_an_unknown_bot_is_refused_in_words() -> None:
    game = get_game("dominoes")
    state = game.new_game(game.make_config(players=3), SEED)
    with pytest.raises(ConfigError, match=r"^2 seats for 3 players$"):
        Table.around(state, [SeatSpec("a"), SeatSpec("b")], bot_delay=0)
    record = people("dominoes", 2).record()
    with pytest.raises(RecordError, match=r"^unknown bot 'psychic' in the saved seats$"):
        Table.from_record(record, [SeatSpec("a"), SeatSpec("b", "psychic")], bot_delay=0)


def test_a_saved_game_reads_back_as_it_was_written() -> None:
    table = people("dominoes", 3)
    until_a_draw(table)
    seats = (SeatSpec("Hana"), SeatSpec("Ada", "random"), SeatSpec("Bo", "heuristic"))
    saved = SavedTable(table.record(), seats, 0)
    assert saved.to_data()["seats"][:2] == [
        {"name": "Hana", "kind": HUMAN},
        {"name": "Ada", "kind": "random"},
    ]
    again = SavedTable.from_data(saved.to_data())
    assert again == saved
    resumed = Table.from_record(again.record, again.seats, bot_delay=0)
    assert resumed.state.view(None) == table.state.view(None)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"seat": 3}, "a saved game's seat must be one of its seats"),
        ({"seat": -1}, "a saved game's seat must be one of its seats"),
        ({"seats": [{"name": "a", "kind": 7}]}, "seats[0].kind: expected `str`, got `int`"),
        ({"seat": "0"}, "seat: expected `int`, got `str`"),
    ],
)
def test_a_damaged_saved_game_is_refused_in_words(change: dict[str, object], problem: str) -> None:
    table = people("dominoes", 3)
    data = SavedTable(table.record(), table.seats, 0).to_data()
    data.update(change)
    with pytest.raises(RecordError) as refused:
        SavedTable.from_data(data)
    assert str(refused.value) == problem
    last_seat = SavedTable(table.record(), table.seats, 2).to_data()
    assert SavedTable.from_data(last_seat).seat == 2  # the last seat is one of them


async def test_a_pause_that_comes_during_a_bot_s_delay_holds_its_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bot waits ``bot_delay`` before it plays, and a round's summary
    may open meanwhile (pause): the move waits for the resume. Here the
    pause comes exactly in the delay."""
    seats = [SeatSpec("b0", "random"), SeatSpec("b1", "random")]
    config = get_game("dominoes").make_config(players=2)
    table = Table.new("dominoes", config, SEED, seats, bot_delay=0.5)
    delays: list[float] = []
    sleep = asyncio.sleep

    async def a_summary_opens_in_the_delay(seconds: float) -> None:
        if seconds > 0:
            delays.append(seconds)
            table.pause()
        await sleep(0)

    monkeypatch.setattr(asyncio, "sleep", a_summary_opens_in_the_delay)
    table.start()
    try:
        for _ in range(20):
            await sleep(0)
        assert delays == [0.5] and table.state.history == []
        monkeypatch.undo()
        table.bot_delay = 0
        table.resume()
        async with asyncio.timeout(5):
            while len(table.state.history) < 2:
                await sleep(0)  # the loop goes on after the pause
    finally:
        await table.stop()


async def test_a_paused_table_waits_without_looking_again_and_again() -> None:
    """Paused (a summary open), the bots' loop sleeps until woken: it does
    not spin asking which bot may act (a loop that did burnt a core)."""
    seats = [SeatSpec("b0", "random"), SeatSpec("b1", "random")]
    config = get_game("dominoes").make_config(players=2)
    table = Table.new("dominoes", config, SEED, seats, bot_delay=0)
    asked: list[int | None] = []
    bot_to_act = table.bot_to_act

    def counted() -> int | None:
        asked.append(seat := bot_to_act())
        return seat

    table.pause()
    table.bot_to_act = counted  # type: ignore[method-assign]
    table.start()
    try:
        for _ in range(50):
            await asyncio.sleep(0)
        assert asked == [] and table.state.history == []
    finally:
        await table.stop()
