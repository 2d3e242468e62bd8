"""An update too large for one message goes in pages (issue 19 item 8).

A long log (a long dominoes game to a high target, asked for from the
start) would pass the 256 KiB payload limit and every peer would drop it.
Here the page size is made tiny, so that nearly every update of a whole game
goes in pages, on a real broker (embedded and Mosquitto), to the peer code
of this version, which is that of protocol 1: it must end the game with the
very log the authority keeps for its seat, through a reconnection too (the
whole log again, in pages).
"""

from __future__ import annotations

import asyncio

import msgspec
import pytest

import net.authority.authority
from core.registry import get_game
from net.authority.authority import Authority, SeatSlot
from net.authority.table import HUMAN
from net.identity import Identity
from net.peer.headless import play_with_bot
from net.peer.remote import RemoteTable
from net.protocol.codes import new_code
from net.protocol.wire import MAX_PAYLOAD, Update
from tests.net.brokers import broker_at
from tests.net.peers import DEADLINE, until

# Moves between two measures of a long log's size (see below).
MEASURE_EVERY = 50


@pytest.mark.parametrize("kind", ["embedded", "mosquitto"])
async def test_a_whole_game_in_pages(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pages: list[int] = []
    real = net.authority.authority.paged

    def counted(update: Update, budget: int) -> list[Update]:
        result = real(update, budget)
        pages.append(len(result))
        return result

    monkeypatch.setattr(net.authority.authority, "PAGE_BYTES", 1)  # one event per page
    monkeypatch.setattr(net.authority.authority, "paged", counted)
    async with broker_at(kind) as (host, port):
        authority = Authority(
            Identity.generate(),
            new_code(),
            "dominoes",
            get_game("dominoes").make_config(players=2),
            "host",
            host,
            port,
            seed=5,
            bot_delay=0,
        )
        await authority.start()
        table = RemoteTable(Identity.generate(), authority.code, host, port, "Ana")
        try:
            seat = await table.join()
            authority.set_bot(1 - seat, "heuristic")
            authority.start_game()
            playing = asyncio.get_running_loop().create_task(
                play_with_bot(table, "heuristic", seed=2)
            )
            await until(lambda: len(table.log) >= 6)
            # Asked for from the start: the whole log, one event a page.
            table.log.clear()
            table._take_seat_again()
            async with asyncio.timeout(DEADLINE):
                await playing
            assert authority.phase == "over"
            # The final view comes with the first page of the last update;
            # its last events with the pages after it.
            await until(lambda: len(table.log) >= len(authority._logs[seat]))
            codec = authority.codec
            assert [codec.encode_event_raw(e) for e in table.log] == authority._logs[seat]
            assert max(pages) >= 6 and sum(1 for n in pages if n > 1) > 3
            await table.close()
        finally:
            await authority.close()


@pytest.mark.parametrize("kind", ["embedded", "mosquitto"])
async def test_a_log_past_the_payload_limit_reaches_the_peer(kind: str) -> None:
    """A long dominoes game to a high target: its log passes 256 KiB. Once
    sent as one update, which every peer dropped (over the payload limit),
    so a peer coming back never had its table again."""
    game = get_game("dominoes")
    ana, ben = Identity.generate(), Identity.generate()
    async with broker_at(kind) as (host, port):
        authority = Authority(
            Identity.generate(),
            new_code(),
            "dominoes",
            game.make_config(players=2, target=5000),
            "host",
            host,
            port,
            seed=5,
            bot_delay=0,
            # Pages are protocol v1's; the peers here are tables without
            # voters, and the game is played before the room is on the broker.
            failover=False,
        )
        for seat, key in enumerate((ana, ben)):
            authority.seats[seat] = SeatSlot(f"P{seat}", HUMAN, key=key.public_key, present=True)
        authority.start_game()
        table = authority.table
        assert table is not None
        bots = [game.make_bot("random", seed) for seed in (1, 2)]
        # Played here, before the room goes on the broker (fast). The log's
        # size is measured every MEASURE_EVERY moves, not after each: encoding
        # the whole growing log each time took ~80 % of this test (~4000 moves).
        moves = 0
        while (
            moves % MEASURE_EVERY
            or len(msgspec.msgpack.encode(authority._logs[0])) < MAX_PAYLOAD + 16 * 1024
        ):
            assert not table.state.is_over
            seat = next(s for s in (0, 1) if table.state.view(s).legal)
            table.submit(seat, bots[seat].choose(table.state.view(seat)))
            moves += 1
        await authority.start()
        peer = RemoteTable(ana, authority.code, host, port, "P0")
        try:
            assert await peer.join() == 0
            async with asyncio.timeout(DEADLINE):
                await peer.wait_started()
            await until(lambda: len(peer.log) >= len(authority._logs[0]))
            codec = authority.codec
            assert [codec.encode_event_raw(e) for e in peer.log] == authority._logs[0]
        finally:
            await peer.close()
            await authority.close()
