"""An older update never replaces a newer picture (net/peer/remote.py _on_update).

The authority's updates to a seat carry a growing ``seq``. One can arrive
late (a QoS 1 redelivery after a reconnection) or be replayed by anyone on
the broker: it is sealed to the seat, so it opens, and its signature is the
host's. A real broker (Mosquitto), the authority in this process.
"""

from __future__ import annotations

from core.registry import get_game
from net.identity import Identity
from net.protocol.wire import (
    Update,
    authority_message_decoder,
    open_body,
    open_envelope,
    to_peer_topic,
)
from tests.net.peers import RawClient, WatchedTable, open_test_room
from tests.net.procs import need_mosquitto

BROKER = ("127.0.0.1", 1883)


async def test_a_replayed_older_update_is_ignored() -> None:
    """Mutation: ``RemoteTable._on_update`` no longer ignoring an update whose
    ``seq`` is older than the one shown: the replay below would show Ana her
    hand of one turn ago (and her next action would be sent as of then)."""
    need_mosquitto()
    room = await open_test_room("passpass", 3, BROKER, seed=5)
    ana_key = Identity.generate()
    topic = to_peer_topic(room.code, ana_key.peer_id)
    try:
        async with RawClient(*BROKER, [topic]) as spy:
            ana = await WatchedTable.join(room.code, *BROKER, "Ana", ana_key)
            table = ana.table
            for seat in (n for n, slot in enumerate(room.authority.seats) if slot.kind == "open"):
                room.authority.set_bot(seat, "random")
            room.authority.start_game()
            first = await ana.until(lambda u: bool(u.view.legal))
            old_seq = table.seq
            mark = ana.mark()
            await table.submit(get_game("passpass").parse_action(str(first.view.legal[0])))
            latest = await ana.until(lambda u: bool(u.view.legal) and table.seq > old_seq, mark)
            new_seq = table.seq

            def seq_of(payload: bytes) -> int | None:
                message = open_body(
                    open_envelope(topic, payload, identity=ana_key),
                    authority_message_decoder,
                    ana_key,
                )
                return message.seq if isinstance(message, Update) else None

            # The spy gets what Ana gets, in the same order: once it holds the
            # latest update it holds the older one too.
            _, newest = await spy.until(lambda _, payload: seq_of(payload) == new_seq)
            old = next(payload for _, payload in spy.messages if seq_of(payload) == old_seq)
            mark = ana.mark()
            await spy.publish(topic, old)  # the replay
            await spy.publish(topic, newest)  # then the latest again: waited on
            await ana.until(lambda u: True, mark)
            assert [update.view for update in ana.updates[mark:]] == [latest.view]
            assert table.seq == new_seq and table.view == latest.view
            await table.close()
    finally:
        await room.close()
