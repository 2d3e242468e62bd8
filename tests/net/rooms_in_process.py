"""An authority driven in-process (no broker, no network): real keys, real
signed envelopes (net/protocol/wire.py seal, open_envelope, open_body), and what the
authority sends read back from its outbox, opened as its recipient would.
Shared by the fast in-process tests of net/authority/authority.py (issue 23: the
mutation score needs tests mutmut can map to the authority's functions)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import pytest

from core.registry import get_game
from net.authority.authority import Authority
from net.authority.replication import encode_room_config
from net.identity import Identity
from net.lan.transport import BrokerUnreachable
from net.peer import remote as remote_module
from net.peer.failover import SeatVoter
from net.peer.remote import RemoteTable
from net.protocol.bounds import Outbox
from net.protocol.wire import (
    Hello,
    NextRoom,
    Presence,
    Request,
    RoomState,
    authority_message_decoder,
    next_topic,
    open_body,
    open_envelope,
    peer_message_decoder,
    presence_topic,
    room_topic,
    seal,
    to_authority_topic,
    to_peer_topic,
)

CODE = "ABC123"


def room(game: str = "passpass", players: int = 3, **options: object) -> Authority:
    """A room's authority in its lobby, of a fresh key, with no link; its
    deal seeded (1 unless given) so that a test's game is the same each run:
    a random deal once ended a three-player game before the log a test needed
    was long enough (CI, 3 December)."""
    options.setdefault("seed", 1)
    return Authority(
        Identity.generate(),
        CODE,
        game,
        get_game(game).make_config(players=players),
        "Host",
        "127.0.0.1",
        1,
        **options,  # type: ignore[arg-type]
    )


def replicas_reach_no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    """A room's voters (its RoomReplica) start no link: what they would
    send waits in their outboxes (the in-process tests of what the
    authority replicates)."""
    from net.authority.replication import RoomReplica

    async def no_broker(self: RoomReplica) -> None:
        del self

    monkeypatch.setattr(RoomReplica, "start", no_broker)


def request(authority: Authority, key: Identity, message: Request) -> None:
    """``message`` from ``key``, sealed to the authority as a peer sends it,
    opened and checked as the authority's link does, then handled."""
    topic = to_authority_topic(authority.code, key.peer_id)
    payload = seal(key, topic, message, authority.identity.public_key)
    envelope = open_envelope(topic, payload, identity=authority.identity, expect_id=key.peer_id)
    authority.handle(envelope, open_body(envelope, peer_message_decoder, authority.identity))


def hello(authority: Authority, key: Identity, n: int = 1, **fields: object) -> None:
    name = str(fields.pop("name", "Ana"))
    message = Hello(room=CODE, epoch=1, n=n, name=name, **fields)  # type: ignore[arg-type]
    request(authority, key, message)


def presence(authority: Authority, key: Identity, *, online: bool, epoch: int = 5) -> None:
    topic = presence_topic(CODE, key.peer_id)
    payload = seal(key, topic, Presence(room=CODE, epoch=epoch, online=online, name="x"))
    authority._on_presence(topic, key.peer_id, payload)


def seated(authority: Authority, key: Identity, name: str = "Ana", **fields: Any) -> None:
    """``key`` present and seated (a Hello after its live presence)."""
    presence(authority, key, online=True)
    hello(authority, key, name=name, **fields)


def holders(authority: Authority) -> list[bytes | None]:
    return [seat.key for seat in authority.seats]


def as_sent(log: list[msgspec.Raw]) -> list[Any]:
    """An authority's log (each event kept as msgpack) as its peer decodes it."""
    return [msgspec.msgpack.decode(event) for event in log]


def listen(authority: Authority) -> None:
    """Keep what the authority sends from now on (its outbox, never sent)."""
    authority._outbox = Outbox()


def sent(authority: Authority, *recipients: Identity) -> list[tuple[str, Any]]:
    """What the authority sent since the last call, in order, each opened as
    its recipient would: ``(peer id, message)`` for a peer among
    ``recipients`` (``None`` for another peer's), ``("room", RoomState)``,
    ``("next", NextRoom)``."""
    outbox = authority._outbox
    assert outbox is not None, "listen(authority) first"
    by_topic = {to_peer_topic(authority.code, key.peer_id): key for key in recipients}
    opened: list[tuple[str, Any]] = []
    while (message := outbox.pop()) is not None:
        topic, payload, _ = message
        key = by_topic.get(topic)
        if key is None and topic not in (room_topic(authority.code), next_topic(authority.code)):
            opened.append((topic.rsplit("/", 1)[-1], None))  # to someone the test did not name
            continue
        envelope = open_envelope(
            topic, payload, identity=key, expect_key=authority.identity.public_key
        )
        if topic == room_topic(authority.code):
            opened.append(("room", open_body(envelope, msgspec.msgpack.Decoder(RoomState))))
        elif topic == next_topic(authority.code):
            opened.append(("next", open_body(envelope, msgspec.msgpack.Decoder(NextRoom))))
        else:
            assert key is not None
            opened.append((key.peer_id, open_body(envelope, authority_message_decoder, key)))
    return opened


def to(authority: Authority, key: Identity) -> list[Any]:
    """What the authority sent ``key`` (only) since the last look."""
    return [message for who, message in sent(authority, key) if who == key.peer_id]


async def within_turns(condition: Callable[[], bool], turns: int = 50) -> None:
    """Until ``condition`` holds, within a few turns of the event loop and no
    wall-clock wait: in-process, what the code sends is a task it creates
    (MemoryLink.publish) or a callback due now (a wait set to 0), run in the
    next turns. A mutant that never sends fails at once instead of after a
    deadline (issue 23: each such mutant cost make mutation 30 s)."""
    for _ in range(turns):
        if condition():
            return
        await asyncio.sleep(0)
    assert condition(), f"not so after {turns} turns of the loop"


class MemoryLink:
    """Stands for a RemoteTable's MqttLink in in-process tests (the real
    link is tested against real brokers: test_transport, test_reach): what
    is published is kept, in order, for the test to read or hand on to an
    authority; ``connected`` is the test's to set."""

    def __init__(self, host: str = "127.0.0.1", port: int = 1) -> None:
        self.host, self.port = host, port  # the broker it is on
        self.connected = True
        self.published: list[tuple[str, bytes, bool]] = []
        self.subscriptions: list[str] = []
        self.final: list[tuple[str, bytes]] | None = None
        self.alternates: list[tuple[str, int]] = []  # where it would go next

    async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
        self.published.append((topic, payload, retain))

    def subscribe(self, topic: str) -> None:
        if topic not in self.subscriptions:
            self.subscriptions.append(topic)

    def unsubscribe(self, topic: str) -> None:
        self.subscriptions.remove(topic)

    def set_alternates(
        self, alternates: list[tuple[str, int]], *, rejoin_earlier: bool = False
    ) -> None:
        self.alternates = list(alternates)

    async def close(self, *, final: list[tuple[str, bytes]] | None = None) -> None:
        self.final = list(final or [])
        self.connected = False


def requests_of(
    link: MemoryLink, key: Identity, authority: Authority, *, keep: bool = False
) -> list[Any]:
    """The requests ``key`` published on ``link`` since the last look, opened
    as the authority opens them (``keep``: left there, for pump)."""
    opened = []
    for topic, payload, _ in link.published:
        if topic == to_authority_topic(authority.code, key.peer_id):
            envelope = open_envelope(
                topic, payload, identity=authority.identity, expect_id=key.peer_id
            )
            opened.append(open_body(envelope, peer_message_decoder, authority.identity))
    if not keep:
        link.published.clear()
    return opened


async def pump(authority: Authority, table: RemoteTable, link: MemoryLink) -> None:
    """Hand what ``table`` published to ``authority`` (as its link would),
    then what the authority sent that ``table`` subscribes to, to ``table``."""
    published, link.published = link.published, []
    for topic, payload, _ in published:
        await authority._on_message(topic, payload)
    outbox = authority._outbox
    assert outbox is not None, "listen(authority) first"
    wanted = {
        room_topic(authority.code),
        next_topic(authority.code),
        to_peer_topic(authority.code, table.identity.peer_id),
    }
    while (message := outbox.pop()) is not None:
        if message[0] in wanted:
            await table._on_message(message[0], message[1])


def linked(table: RemoteTable, authority: Authority) -> MemoryLink:
    """``table`` with a MemoryLink, knowing ``authority``'s key."""
    link = MemoryLink()
    table._link = link  # type: ignore[assignment]
    table.authority_key = authority.identity.public_key
    return link


def seat_voter(identity: Identity, config: Any, directory: Path, **options: Any) -> SeatVoter:
    """Ana's voter in room CODE on a broker nobody runs, never started: its
    take-over is run by hand."""
    return SeatVoter(
        identity,
        CODE,
        config,
        encode_room_config(config),
        "127.0.0.1",
        1,
        seat_name=lambda: "Ana",
        directory=directory,
        **{"room_key": lambda: None, **options},
    )


class BrokerLink(MemoryLink):
    """Stands for the MqttLink that join() makes (in-process): it keeps what
    join handed it; start() connects as a broker would, at once (our
    presence then goes out, on_connect), then hands on the retained
    messages of the topics subscribed; or refuses, as an unreachable broker
    does."""

    made: ClassVar[list[BrokerLink]] = []  # each test sets its own (monkeypatch)
    retained: ClassVar[dict[str, bytes]] = {}
    unreachable: ClassVar[str | None] = None

    def __init__(self, host: str, port: int, **options: Any) -> None:
        super().__init__()
        self.host, self.port, self.options = host, port, options
        self.subscriptions = list(options["subscriptions"])
        self.timeout: float | None = None
        BrokerLink.made.append(self)

    async def start(self, timeout: float = 5.0) -> None:
        self.timeout = timeout
        if BrokerLink.unreachable is not None:
            raise BrokerUnreachable(BrokerLink.unreachable)
        await self.options["on_connect"]()
        for topic, payload in BrokerLink.retained.items():
            if topic in self.subscriptions or topic == room_topic(CODE):
                await self.options["on_message"](topic, payload)


def joining_on(monkeypatch: pytest.MonkeyPatch, retained: dict[str, bytes]) -> None:
    """join() makes a BrokerLink holding ``retained``."""
    monkeypatch.setattr(remote_module, "MqttLink", BrokerLink)
    monkeypatch.setattr(BrokerLink, "made", [])
    monkeypatch.setattr(BrokerLink, "retained", retained)
    monkeypatch.setattr(BrokerLink, "unreachable", None)
