"""In-test peers: a RemoteTable whose updates a test can wait for, and a raw
MQTT client for what no honest peer would send."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

import aiomqtt
import msgspec

from core.registry import get_game
from net.authority.host import HostedRoom, open_room
from net.authority.table import Listener, TableUpdate
from net.identity import Identity
from net.peer.remote import RemoteTable
from net.protocol.wire import (
    Envelope,
    RoomState,
    open_body,
    open_envelope,
    room_prefix,
    room_state_decoder,
    seal,
)

DEADLINE = 30.0


async def until(condition: Callable[[], bool], timeout: float = DEADLINE) -> None:
    """Until ``condition`` holds (state the test cannot be told about by an
    event, such as the authority's seats), checked as the loop runs."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def open_test_room(
    game: str,
    players: int,
    broker: tuple[str, int],
    *,
    seed: int | None = None,
    host_name: str = "Hostess",
) -> HostedRoom:
    """A room hosted in the test's process on ``broker``: a fresh authority
    key, not advertised, bots without delay."""
    return await open_room(
        game,
        get_game(game).make_config(players=players),
        identity=Identity.generate(),
        host_name=host_name,
        broker=broker,
        advertise=False,
        bot_delay=0,
        seed=seed,
    )


def forged(claimed: bytes, topic: str, message: msgspec.Struct) -> bytes:
    """``message`` on ``topic`` claiming the key ``claimed`` (the host's, say)
    as its sender, but signed by another key: a well-formed envelope whose
    signature is the only thing wrong (issue 23: a different sender alone
    tests the sender check, not the signature)."""
    signed = msgspec.msgpack.decode(seal(Identity.generate(), topic, message), type=Envelope)
    return msgspec.msgpack.encode(msgspec.structs.replace(signed, sender=claimed))


def hosts_person(room: HostedRoom, broker: tuple[str, int], name: str = "Hostess") -> RemoteTable:
    """The seat of the host's own person, not yet joined: a key of its own,
    told and let in by the authority of this process, which does not vote
    and learns of each commit here (tui/netplay.py does the same)."""
    authority = room.authority
    key = Identity.generate()
    authority.told_keys.add(key.public_key)
    authority.admitted.add(key.public_key)
    table = RemoteTable(key, room.code, *broker, name)
    table.hosted_replica = lambda: authority.replica
    return table


class WatchedTable:
    """A seat whose updates are recorded; ``until`` waits on them."""

    def __init__(self, table: RemoteTable) -> None:
        self.table = table
        self.updates: list[TableUpdate] = []
        self._changed = asyncio.Condition()

    @classmethod
    async def join(
        cls, code: str, host: str, port: int, name: str, identity: Identity | None = None
    ) -> WatchedTable:
        return await cls.seat(RemoteTable(identity or Identity.generate(), code, host, port, name))

    @classmethod
    async def seat(cls, table: RemoteTable) -> WatchedTable:
        """``table`` joined and watched."""
        await table.join()
        watched = cls(table)
        await table.connect(watched._receive)
        return watched

    def _receive(self, update: TableUpdate) -> None:
        self.updates.append(update)
        asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def mark(self) -> int:
        """A point in the updates to wait from (take it before acting)."""
        return len(self.updates)

    async def until(
        self,
        test: Callable[[TableUpdate], bool],
        since: int | None = None,
        timeout: float = DEADLINE,
    ) -> TableUpdate:
        """The first update from ``since`` (default: the latest one) passing ``test``."""
        async with asyncio.timeout(timeout), self._changed:
            start = max(len(self.updates) - 1, 0) if since is None else since
            while True:
                for update in self.updates[start:]:
                    if test(update):
                        return update
                start = len(self.updates)
                await self._changed.wait()


class RawClient:
    """A bare MQTT client: records what it sees and publishes anything."""

    def __init__(self, host: str, port: int, subscriptions: list[str], *, source: str = "") -> None:
        """``source``: the local address to connect from (another loopback
        address is another machine to the embedded broker's per-address
        bounds)."""
        self.host, self.port, self.subscriptions = host, port, subscriptions
        self.source = source
        self.messages: list[tuple[str, bytes]] = []
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._arrived = asyncio.Condition()

    async def __aenter__(self) -> RawClient:
        self._client = aiomqtt.Client(self.host, self.port, bind_address=self.source)
        await self._client.__aenter__()
        for pattern in self.subscriptions:
            await self._client.subscribe(pattern, qos=1)
        self._task = asyncio.get_running_loop().create_task(self._read())
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._client is not None:
            await self._client.__aexit__(None, None, None)

    async def _read(self) -> None:
        assert self._client is not None
        async for message in self._client.messages:
            payload = message.payload if isinstance(message.payload, bytes) else b""
            self.messages.append((message.topic.value, payload))
            async with self._arrived:
                self._arrived.notify_all()

    async def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        assert self._client is not None
        await self._client.publish(topic, payload, qos=1, retain=retain)

    async def until(
        self, test: Callable[[str, bytes], bool], since: int = 0, timeout: float = DEADLINE
    ) -> tuple[str, bytes]:
        """The first message from index ``since`` on passing ``test``."""
        async with asyncio.timeout(timeout), self._arrived:
            seen = since
            while True:
                for topic, payload in self.messages[seen:]:
                    if test(topic, payload):
                        return topic, payload
                seen = len(self.messages)
                await self._arrived.wait()


def room_state_of(topic: str, payload: bytes) -> RoomState | None:
    """The room state a raw MQTT message carries, or None if it is not one
    (another topic, a cleared retained message, or not valid)."""
    if not topic.endswith("/room") or not payload:
        return None
    try:
        return open_body(open_envelope(topic, payload), room_state_decoder)
    except (ValueError, msgspec.MsgspecError):
        return None


async def clear_room(code: str, host: str = "127.0.0.1", port: int = 1883) -> list[str]:
    """Clear every retained message of room ``code`` on a broker (its room
    state, presences, next-game notice), so a test leaves the shared
    Mosquitto as it found it; returns the topics cleared. Synchronised on a
    marker published after subscribing: the broker sends the retained
    messages at the subscription, before anything published later."""
    base = room_prefix(code)
    marker = f"{base}/cleared-{os.urandom(4).hex()}"
    async with RawClient(host, port, [f"{base}/#"]) as client:
        await client.publish(marker, b"marker")
        await client.until(lambda topic, _: topic == marker)
        retained = sorted({t for t, p in client.messages if p and t != marker})
        for topic in retained:
            await client.publish(topic, b"", retain=True)
    return retained


def in_step(table: RemoteTable) -> bool:
    """Whether ``table``'s voter held its authority's whole log once."""
    voter = table.voter
    return voter is not None and voter.replica.driver.in_step.is_set()


async def started_with_two_voters(
    room: HostedRoom, broker: tuple[str, int], listener: Listener
) -> tuple[RemoteTable, RemoteTable, RemoteTable]:
    """The host's person, Bob and Cy seated in ``room`` (Pass Pass for 3),
    each told by ``listener``, and the game started: three voters (the
    table's, Bob's and Cy's; the host's person's seat does not vote), Bob's
    and Cy's in step. Closing them is the caller's."""
    hostess = hosts_person(room, broker)
    bob = RemoteTable(Identity.generate(), room.code, *broker, "Bob")
    cy = RemoteTable(Identity.generate(), room.code, *broker, "Cy")
    for table in (hostess, bob, cy):
        await table.join()
        await table.connect(listener)
    room.authority.start_game()
    assert room.authority.replica is not None, "three voters: it fails over"
    await until(lambda: in_step(bob) and in_step(cy))
    return hostess, bob, cy


async def host_on_the_embedded_broker(host_name: str, seed: int = 4) -> HostedRoom:
    """A room of Pass Pass for 3 on its own embedded broker (the default
    set-up: the broker dies with its host's machine), on loopback."""
    return await open_room(
        "passpass",
        get_game("passpass").make_config(players=3),
        identity=Identity.generate(),
        host_name=host_name,
        port=0,
        bind=["127.0.0.1"],
        advertise=False,
        bot_delay=0,
        seed=seed,
    )
