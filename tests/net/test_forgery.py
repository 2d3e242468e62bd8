"""Public messages that claim the host's key without its signature (issue 23).

A room state, the host's presence and a next-game notice travel in clear,
retained, signed by the authority. Anyone on the broker can publish on their
topics; a message that names the host's key as its sender but carries another
key's signature (or was changed after signing) must change nothing at a
peer. The authority runs in this process on a real broker (Mosquitto); each
forgery is followed, from the same client and on the same topic, by a
genuine message that the peer is waited on, so the forgery arrived first.
"""

from __future__ import annotations

import msgspec

from net.identity import peer_id
from net.peer.remote import RemoteTable
from net.protocol.wire import (
    NextRoom,
    Presence,
    RoomState,
    next_topic,
    presence_topic,
    room_topic,
    seal,
)
from tests.net.peers import RawClient, WatchedTable, forged, open_test_room, until
from tests.net.procs import need_mosquitto

BROKER = ("127.0.0.1", 1883)


async def test_messages_claiming_the_hosts_key_without_its_signature_change_nothing() -> None:
    """Mutation: ``open_envelope`` checking the signature only when the body
    is sealed. Each forged message below would be taken as the host's."""
    need_mosquitto()
    room = await open_test_room("passpass", 3, BROKER, seed=4)
    host = room.authority.identity
    try:
        ana = await WatchedTable.join(room.code, *BROKER, "Ana")
        table: RemoteTable = ana.table
        assert table.authority_key == host.public_key and table.room is not None
        rooms: list[RoomState] = []
        table.on_room(rooms.append)
        host_changes: list[bool] = []
        table.on_host(host_changes.append)
        codes: list[str] = []
        table.on_next(codes.append)
        await until(lambda: table._host_epoch >= 0)
        epoch = table._host_epoch
        stamp = table.room.stamp
        async with RawClient(*BROKER, []) as client:
            # The room: closed, says the forgery.
            topic = room_topic(room.code)
            fake = msgspec.structs.replace(
                table.room, phase="closed", stamp=stamp + 1000, notice="forged"
            )
            await client.publish(topic, forged(host.public_key, topic, fake))
            # Over, as the host says: a next-game notice counts only then
            # (issue 19 seats item 4), and the real one below must count.
            real = msgspec.structs.replace(
                table.room, stamp=stamp + 2000, notice="genuine", phase="over"
            )
            await client.publish(topic, seal(host, topic, real))
            # The host's presence: gone, says the forgery.
            topic = presence_topic(room.code, peer_id(host.public_key))
            gone = Presence(room=room.code, epoch=epoch + 1, online=False)
            await client.publish(topic, forged(host.public_key, topic, gone))
            back = Presence(room=room.code, epoch=epoch + 2, online=True)
            await client.publish(topic, seal(host, topic, back))
            # The next game: in a room of the forger's.
            topic = next_topic(room.code)
            await client.publish(
                topic, forged(host.public_key, topic, NextRoom(room.code, "EVE123"))
            )
            await client.publish(topic, seal(host, topic, NextRoom(room.code, "ABC234")))
            await until(
                lambda: (
                    table.room is not None
                    and table.room.notice == "genuine"
                    and table._host_epoch == epoch + 2
                    and "ABC234" in codes
                )
            )
        assert "forged" not in [state.notice for state in rooms]
        assert table.room.phase != "closed"
        assert host_changes == [] and table.host_present
        assert codes == ["ABC234"]
        await table.close()
    finally:
        await room.close()
