"""A Hello that nobody receives is sent again (net/peer/remote.py RESEAT_WAIT).

A peer takes its seat again with a Hello after its link comes back, or when
the host's presence comes back. A Hello published while the authority is not
subscribed (a resuming host on a new broker, between its broker's start and
its subscription) reaches nobody, as any QoS 0 message without subscribers;
the peer must not wait forever for the answer. Here the authority's
subscription is taken away for the moment of one Hello, on a real Mosquitto.
"""

from __future__ import annotations

import asyncio

from core.registry import get_game
from net.authority.authority import Authority
from net.identity import Identity
from net.peer.remote import RESEAT_WAIT
from net.protocol.codes import new_code
from net.protocol.wire import to_authority_topic
from tests.net.peers import RawClient, WatchedTable
from tests.net.procs import need_mosquitto

BROKER = ("127.0.0.1", 1883)


async def test_an_unanswered_hello_is_sent_again() -> None:
    need_mosquitto()
    authority = Authority(
        Identity.generate(),
        new_code(),
        "passpass",
        get_game("passpass").make_config(players=3),
        "host",
        *BROKER,
        seed=3,
        bot_delay=0,
    )
    await authority.start()
    try:
        ana = await WatchedTable.join(authority.code, *BROKER, "Ana")
        for seat in (1, 2):
            authority.set_bot(seat, "random")
        authority.start_game()
        await ana.until(lambda update: update.view is not None)
        link = authority._link
        assert link is not None and link._client is not None
        requests = f"{authority.prefix}/a/+"
        from_ana = to_authority_topic(authority.code, ana.table.identity.peer_id)
        async with RawClient(*BROKER, [requests]) as spy:
            await link._client.unsubscribe(requests)
            ana.table._take_seat_again()
            lost = ana.table._n
            # The broker has it (the spy got it) while the authority is not
            # subscribed: the authority never will.
            await spy.until(lambda topic, _: topic == from_ana)
            await link._client.subscribe(requests, qos=1)
        assert ana.table.acked < lost
        async with asyncio.timeout(RESEAT_WAIT * 5):  # a bound on a hang, not a timing claim
            while ana.table.acked < lost:
                await ana.until(lambda update: True, ana.mark())
        await ana.table.close()
    finally:
        await authority.close()
