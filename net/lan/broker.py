"""The embedded MQTT broker: amqtt (MQTT 3.1.1) in a child process.

``passe host`` without ``--broker`` runs a broker of its own so that a LAN
game needs nothing installed. It runs in a child process, not in the host's
event loop, so the table's work never delays message delivery and a crash of
one does not take the other down::

    python -m net.lan.broker --bind ADDR [--bind ADDR ...] --port 1883 [--tries 20]

prints exactly one line, ``ready <port>``, on stdout once it accepts
connections (the first free port from ``--port`` upward), and exits when its
standard input closes (so it never outlives the host, even after the host is
killed with SIGKILL: the kernel closes the host's end of the pipe), on SIGTERM
or on SIGINT. Errors go to stderr, one line, exit code 2.

How amqtt is set up here (amqtt 0.12):

- The listener is amqtt's ``external`` type: we accept the TCP connections
  ourselves (``asyncio.start_server``) and hand the streams to
  ``Broker.external_connected``. That gives a race-free port fallback (the
  port is taken by binding it, not by a probe), the real port for port 0, and
  a limit on the packet size, which amqtt does not have (it reads a packet of
  any announced length, up to MQTT's 256 MiB, into memory). asyncio already
  sets TCP_NODELAY on every accepted TCP socket (selector transports do it);
  we set it again explicitly because latency depends on it.
- Before amqtt sees a connection, :class:`Gate` (ours) holds it to bounds
  (docs/protocol.md, "The embedded broker"; issue 19 item 7): the first
  packet must be a CONNECT, within CONNECT_TIMEOUT seconds (amqtt waits for
  it for ever); connections still waiting for their CONNECT are capped per
  address and in total, the oldest dropped first (so a flood of silent
  connections never keeps an honest client out: it sends its CONNECT at
  once); connected clients are capped per address and in total, and so are
  amqtt's sessions, the next one refused with CONNACK "server unavailable";
  a keep-alive of 0 (never checked) or over MAX_KEEPALIVE is refused with
  CONNACK "identifier rejected", as Mosquitto's ``max_keepalive`` does; a
  client that stops reading is dropped once MAX_WRITE_BUFFER bytes wait for
  it, or that reads nothing for WRITE_STALL seconds while messages wait for
  it; what amqtt holds for each client meanwhile is capped (MAX_QUEUED_BYTES,
  MAX_QUEUED_TOTAL: :class:`Outbox`, ``_bounded_queues``), and a finished
  delivery is forgotten at once. amqtt's own ``max_connections`` is not
  used: it queues connections on a semaphore instead of refusing them,
  which holds their sockets open.
- Plugins: only anonymous authentication. No ``$SYS`` topics (the
  BrokerSysPlugin is simply not loaded), no packet/event logging plugins, no
  websocket listener.
- amqtt 0.12 delivers retained messages of other sessions' subscriptions to
  every client that connects, before it subscribes (see
  ``tests/net/test_broker.py``): the embedded broker sends a client only the
  retained messages of its own subscriptions (``_only_own_retained``); clients
  still filter what they receive, and nothing private is ever retained.
- amqtt 0.12 formats every message it broadcasts into debug f-strings,
  evaluated whether or not debug is on, payload included: the payload is
  handed on as bytes whose ``repr`` is their size (``_payloads_shown_by_size``;
  a 256 KiB payload cost half a millisecond of CPU in ``repr`` alone).
- amqtt 0.12 delivers at the subscription's QoS, not the lower of the
  publication's and the subscription's (MQTT 3.1.1, 3.8.4): a QoS 0 publish
  reaches a QoS 1 subscriber as QoS 1 (Mosquitto: QoS 0).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import logging
import os
import socket
import sys
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

from net.lan.lifeline import stop_signal

DEFAULT_PORT = 1883
# How many ports from the requested one upward are tried before giving up.
DEFAULT_TRIES = 20
# The largest MQTT packet accepted from a client (fixed header included,
# like Mosquitto's max_packet_size); a bigger one disconnects that client.
# Far above any Passe message; the protocol layer sets its own, smaller limit.
DEFAULT_MAX_PACKET_SIZE = 1024 * 1024
# Bounds on what clients may make the broker hold (docs/protocol.md, "The
# embedded broker"). A room has at most 16 seats, each a process or two; an
# SSH server's guests all connect from its own address: 64 per address.
CONNECT_TIMEOUT = 5.0  # seconds from the TCP connection to its CONNECT
MAX_PENDING_PER_ADDRESS = 16  # connections waiting for their CONNECT
MAX_PENDING = 128
MAX_CLIENTS_PER_ADDRESS = 64  # connected MQTT clients
MAX_CLIENTS = 256
MAX_SESSIONS = 320  # amqtt's sessions, connected or waiting to expire
MAX_KEEPALIVE = 300  # seconds; 0 (no keep-alive at all) is refused too
SESSION_EXPIRY = 60  # seconds a disconnected session is kept
MAX_WRITE_BUFFER = 4 * 1024 * 1024  # bytes waiting for a client that does not read
# What amqtt may hold for one client, in messages not yet written to it or
# (QoS 1) not yet acknowledged, each counted as its payload and topic plus
# MESSAGE_OVERHEAD (amqtt's task, coroutine and message objects: measured at
# about 3.7 KiB, tests/net/test_broker_bounds.py); past it the message is not
# queued for that client (dropped and counted), as Mosquitto's
# max_queued_messages does. One message is always queued for a client with
# nothing waiting, so a packet of any accepted size still gets through.
MAX_QUEUED_BYTES = 1024 * 1024
MAX_QUEUED_TOTAL = 32 * 1024 * 1024  # all clients together (past it: see Outbox)
MESSAGE_OVERHEAD = 4 * 1024
WRITE_STALL = 10.0  # seconds a client may read nothing while messages wait for it
# Retained messages, which amqtt keeps for ever (a stranger retaining 1 MiB
# payloads on fresh topics grew it without bound: 80 MiB for 20,000 of 4 KB,
# 7 December). Each source address may hold RETAINED_PER_ADDRESS topics and
# RETAINED_BYTES_PER_ADDRESS bytes (payload and topic, plus RETAINED_OVERHEAD
# each for amqtt's objects), all addresses RETAINED_TOTAL and
# RETAINED_BYTES_TOTAL; a retained payload over RETAINED_PAYLOAD (the
# protocol's MAX_PAYLOAD) is never kept. Past a bound the message is still
# delivered, only not retained (its topic keeps what it had): Passe's own
# retained messages (a room's state, presences, an announcement) are a few
# per room and per peer, far inside them.
RETAINED_PAYLOAD = 256 * 1024
RETAINED_PER_ADDRESS = 8192
RETAINED_BYTES_PER_ADDRESS = 16 * 1024 * 1024
RETAINED_TOTAL = 32768
RETAINED_BYTES_TOTAL = 64 * 1024 * 1024
RETAINED_OVERHEAD = 512
# Topic filters one session may hold: an authority follows at most 64
# presences (16 seats, 32 waiting keys, 8 knocks, 8 watchers) besides a few
# topics of its own; a peer, five; a dealer, one per room it holds for
# another (200 at most). Beyond it a SUBSCRIBE's filter is refused (SUBACK
# 0x80): 50,000 filters from one client had grown the broker by 30 MiB,
# and each publish is matched against every filter. A filter is at most
# MAX_FILTER_LENGTH characters (Passe's are under 80; MQTT allows 65,535).
MAX_FILTERS_PER_SESSION = 256
MAX_FILTER_LENGTH = 256
# A CONNECT is at most this many bytes (its will included, which amqtt holds
# for the session's life): Passe's wills are presences of a few hundred
# bytes; a CONNECT of the largest packet's size, 1 MiB, from each of the
# sessions allowed would have held 320 MiB of wills.
MAX_CONNECT_SIZE = 8 * 1024
FLOOD_LOG_INTERVAL = 30.0  # seconds between lines about refused connections
# CONNACK return codes (MQTT 3.1.1, 3.2.2.3).
IDENTIFIER_REJECTED = 2
SERVER_UNAVAILABLE = 3
# Seconds the parent waits for ``ready``: Python and amqtt start in ~0.3 s,
# much slower on a loaded 2-core machine.
READY_TIMEOUT = 20.0
STOP_TIMEOUT = 5.0
# Seconds the child gives amqtt to shut down once its clients are cut off
# (less than STOP_TIMEOUT, after which the parent kills it).
SHUTDOWN_TIMEOUT = 2.0
# Seconds the child keeps delivering what it was sent before it stops.
FLUSH_TIMEOUT = 1.0
FLUSH_QUIET = 0.05

_LISTENER = "default"  # amqtt requires a listener of this name
_READY = "ready"
_log = logging.getLogger("passe.broker")


class BrokerError(Exception):
    """The embedded broker could not be started; the message says why, in
    one line, followed by the end of the broker's own error output."""


# -- the child: python -m net.lan.broker ----------------------------------------


class PacketTooLarge(ConnectionResetError):
    """Raised from a client's stream when it announces a packet over the
    limit; amqtt treats it as a dropped connection (and sends the will)."""


class MqttFraming:
    """Follows the MQTT packet boundaries in the bytes a client sends, to
    refuse a packet over ``limit`` bytes as soon as its fixed header has
    announced the length, before amqtt reads (and buffers) its body."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._in_header = False  # between a packet's first byte and its length's last
        self._header_bytes = 0
        self._length = 0
        self._multiplier = 1
        self._body_left = 0

    def feed(self, data: bytes) -> None:
        index, size = 0, len(data)
        while index < size:
            if self._body_left:
                step = min(self._body_left, size - index)
                self._body_left -= step
                index += step
                continue
            byte = data[index]
            index += 1
            if not self._in_header:  # the packet type and flags
                self._in_header = True
                self._header_bytes, self._length, self._multiplier = 1, 0, 1
                continue
            self._header_bytes += 1
            self._length += (byte & 0x7F) * self._multiplier
            self._multiplier *= 128
            if byte & 0x80:
                if self._header_bytes >= 5:  # MQTT allows 4 length bytes
                    raise PacketTooLarge("malformed remaining length")
                continue
            self._in_header = False
            total = self._header_bytes + self._length
            if total > self.limit:
                raise PacketTooLarge(f"a packet of {total} bytes (limit {self.limit})")
            self._body_left = self._length


class LimitedStreamReader:
    """amqtt's ReaderAdapter interface (``read``, ``feed_eof``) over an
    asyncio stream, with :class:`MqttFraming` watching every byte."""

    def __init__(self, reader: asyncio.StreamReader, framing: MqttFraming, peer: str) -> None:
        self._reader = reader
        self._framing = framing
        self._peer = peer

    async def read(self, n: int = -1) -> bytes:
        data = await (self._reader.read(n) if n == -1 else self._reader.readexactly(n))
        try:
            self._framing.feed(data)
        except PacketTooLarge as exc:
            # amqtt takes this for a dropped connection and ends the session
            # quietly (sending the client's will): say why here.
            _log.warning("client %s sent %s: disconnected", self._peer, exc)
            raise
        return data

    def feed_eof(self) -> None:
        self._reader.feed_eof()


class RefusedConnect(Exception):
    """A connection refused before amqtt sees it; ``code`` is the CONNACK
    return code to send first, or None to just close."""

    def __init__(self, reason: str, code: int | None = None) -> None:
        super().__init__(reason)
        self.code = code


@dataclass(frozen=True)
class ConnectInfo:
    """What the gate reads from a CONNECT packet (MQTT 3.1.1, 3.1.2)."""

    keepalive: int
    clean_session: bool


async def read_first_packet(reader: asyncio.StreamReader, limit: int) -> bytes:
    """The client's first MQTT packet, whole (fixed header and body), of at
    most ``limit`` bytes; raises :class:`RefusedConnect` (not a CONNECT, too
    big, malformed) or ``asyncio.IncompleteReadError`` (closed early)."""
    first = await reader.readexactly(1)
    if first[0] != 0x10:  # CONNECT, flags 0 [MQTT-3.1.0-1, 3.1.1]
        raise RefusedConnect(f"first packet of type {first[0] >> 4}, not CONNECT")
    framing = MqttFraming(limit)
    framing.feed(first)
    header = bytearray(first)
    while True:
        byte = await reader.readexactly(1)
        header += byte
        try:
            framing.feed(byte)
        except PacketTooLarge as exc:
            raise RefusedConnect(str(exc)) from None
        if not byte[0] & 0x80:
            break
    length = 0
    for index, byte_value in enumerate(header[1:]):
        length += (byte_value & 0x7F) << (7 * index)
    return bytes(header) + await reader.readexactly(length)


def parse_connect(packet: bytes) -> ConnectInfo:
    """The keep-alive and clean-session flag of a whole CONNECT packet;
    raises :class:`RefusedConnect` when it is too short to hold them."""
    index = 1
    while packet[index] & 0x80:
        index += 1
    body = packet[index + 1 :]
    if len(body) < 2:
        raise RefusedConnect("a CONNECT too short")
    name_length = int.from_bytes(body[:2], "big")
    flags_at = 2 + name_length + 1  # protocol name, then its level
    if len(body) < flags_at + 3:
        raise RefusedConnect("a CONNECT too short")
    flags = body[flags_at]
    keepalive = int.from_bytes(body[flags_at + 1 : flags_at + 3], "big")
    return ConnectInfo(keepalive=keepalive, clean_session=bool(flags & 0x02))


class ReplayReader:
    """amqtt's ReaderAdapter over ``inner``, giving back ``prefix`` (the
    CONNECT the gate has read) before the rest of the stream."""

    def __init__(self, prefix: bytes, inner: LimitedStreamReader) -> None:
        self._prefix = prefix
        self._inner = inner

    async def read(self, n: int = -1) -> bytes:
        if not self._prefix:
            return await self._inner.read(n)
        if n == -1 or n >= len(self._prefix):
            taken, self._prefix = self._prefix, b""
            more = n - len(taken) if n != -1 else 0
            return taken + (await self._inner.read(more) if more else b"")
        taken, self._prefix = self._prefix[:n], self._prefix[n:]
        return taken

    def feed_eof(self) -> None:
        self._inner.feed_eof()


def bounded_writer(
    writer: asyncio.StreamWriter, limit: int, stall: float, peer: str, outbox: Outbox
) -> Any:
    """amqtt's StreamWriterAdapter, dropping a client that stopped reading:
    when more than ``limit`` bytes wait in its socket's buffer, or when
    nothing more could be written to it for ``stall`` seconds. amqtt writes
    one packet at a time and awaits the drain (under a lock), and every
    message for that client waits meanwhile in a task of its own: ``outbox``
    (read by :func:`_bounded_queues`) caps those, the stall bound ends them."""
    from amqtt.adapters import StreamWriterAdapter

    transport = writer.transport

    def drop(why: str) -> None:
        if not transport.is_closing():
            _log.warning("client %s does not read (%s): dropped", peer, why)
            transport.abort()

    class BoundedWriter(StreamWriterAdapter):  # type: ignore[misc]
        passe_outbox = outbox

        def write(self, data: bytes) -> None:
            if transport.is_closing():
                return
            if transport.get_write_buffer_size() + len(data) > limit:
                drop(f"{limit} bytes waiting")
                return
            super().write(data)

        async def drain(self) -> None:
            try:
                await asyncio.wait_for(super().drain(), stall)
            except TimeoutError:
                drop(f"nothing written for {stall:g} s")
                raise ConnectionResetError("the client does not read") from None

    return BoundedWriter(writer)


@dataclass(frozen=True)
class Limits:
    """The gate's bounds (see the constants above)."""

    connect_timeout: float = CONNECT_TIMEOUT
    pending_per_address: int = MAX_PENDING_PER_ADDRESS
    pending: int = MAX_PENDING
    clients_per_address: int = MAX_CLIENTS_PER_ADDRESS
    clients: int = MAX_CLIENTS
    sessions: int = MAX_SESSIONS
    max_keepalive: int = MAX_KEEPALIVE
    write_buffer: int = MAX_WRITE_BUFFER
    write_stall: float = WRITE_STALL
    queued_bytes: int = MAX_QUEUED_BYTES
    queued_total: int = MAX_QUEUED_TOTAL
    retained_per_address: int = RETAINED_PER_ADDRESS
    retained_bytes_per_address: int = RETAINED_BYTES_PER_ADDRESS
    retained_total: int = RETAINED_TOTAL
    retained_bytes_total: int = RETAINED_BYTES_TOTAL
    filters_per_session: int = MAX_FILTERS_PER_SESSION


@dataclass
class RetainedQuota:
    """Who holds which retained topic and what it costs, sans I/O (see
    RETAINED_PER_ADDRESS): :meth:`admit` says whether a retained message
    may be kept and, if so, counts it. ``refused`` counts the others, for
    the log."""

    per_address: int = RETAINED_PER_ADDRESS
    bytes_per_address: int = RETAINED_BYTES_PER_ADDRESS
    total: int = RETAINED_TOTAL
    bytes_total: int = RETAINED_BYTES_TOTAL
    largest: int = RETAINED_PAYLOAD
    refused: int = 0
    held: dict[str, tuple[str, int]] = field(default_factory=dict)  # topic: address, cost
    _count: dict[str, int] = field(default_factory=dict)
    _bytes: dict[str, int] = field(default_factory=dict)
    _bytes_total: int = 0

    def admit(self, address: str, topic: str, size: int) -> bool:
        """Whether ``address`` may retain ``size`` bytes on ``topic`` (replacing
        what the topic holds, whoever retained it); counted if so."""
        if size > self.largest:
            self.refused += 1
            return False
        cost = size + len(topic) + RETAINED_OVERHEAD
        before = self.held.get(topic)
        count = self._count.get(address, 0)
        spent = self._bytes.get(address, 0)
        total, bytes_total = len(self.held), self._bytes_total
        if before is not None:
            total -= 1
            bytes_total -= before[1]
            if before[0] == address:
                count -= 1
                spent -= before[1]
        if (
            count + 1 > self.per_address
            or spent + cost > self.bytes_per_address
            or total + 1 > self.total
            or bytes_total + cost > self.bytes_total
        ):
            self.refused += 1
            return False
        self.release(topic)
        self.held[topic] = (address, cost)
        self._count[address] = self._count.get(address, 0) + 1
        self._bytes[address] = self._bytes.get(address, 0) + cost
        self._bytes_total += cost
        return True

    def release(self, topic: str) -> None:
        """The topic's retained message is cleared (or replaced)."""
        before = self.held.pop(topic, None)
        if before is None:
            return
        address, cost = before
        self._bytes_total -= cost
        left = self._count[address] - 1
        if left:
            self._count[address] = left
            self._bytes[address] -= cost
        else:
            del self._count[address], self._bytes[address]


@dataclass
class Outboxes:
    """What amqtt holds for all clients together, sans I/O (issue 19 item
    7: a subscriber that never reads cost the broker the stall time times
    the publish rate). ``dropped`` counts messages not queued, for the log."""

    per_client: int
    total: int
    queued: int = 0
    dropped: int = 0

    def open(self) -> Outbox:
        return Outbox(self)


@dataclass
class Outbox:
    """What amqtt holds for one client: bytes of messages handed to it and
    not yet written (QoS 0) or acknowledged (QoS 1)."""

    shared: Outboxes
    queued: int = 0

    def admit(self, cost: int) -> bool:
        """Whether a message costing ``cost`` bytes may be queued for this
        client; if so it is counted until :meth:`release`. With nothing
        queued the answer is always yes (one message of any size passes);
        otherwise it must fit under this client's cap and the total cap."""
        shared = self.shared
        if self.queued and (
            self.queued + cost > shared.per_client or shared.queued + cost > shared.total
        ):
            shared.dropped += 1
            return False
        self.queued += cost
        shared.queued += cost
        return True

    def release(self, cost: int) -> None:
        self.queued -= cost
        self.shared.queued -= cost


def message_cost(topic: str, data: bytes | bytearray | None) -> int:
    return len(topic) + len(data or b"") + MESSAGE_OVERHEAD


@dataclass
class Gate:
    """Who may connect, sans I/O: the connections waiting for their CONNECT
    (oldest first) and the connected clients, per address. ``close`` is
    called on a waiting connection pushed out by a newer one."""

    limits: Limits
    _pending: dict[object, str] = field(default_factory=dict)  # in arrival order
    _clients: dict[str, int] = field(default_factory=dict)
    refused: int = 0  # CONNECTs refused, counted for the log (once in a while)
    dropped: int = 0  # connections pushed out or timed out before their CONNECT

    def arrive(self, connection: object, address: str) -> list[object]:
        """A new TCP connection; returns the waiting ones to drop for it."""
        dropped: list[object] = []
        same = [other for other, where in self._pending.items() if where == address]
        while len(same) >= self.limits.pending_per_address:
            dropped.append(same.pop(0))
            del self._pending[dropped[-1]]
        while len(self._pending) >= self.limits.pending:
            oldest = next(iter(self._pending))
            dropped.append(oldest)
            del self._pending[oldest]
        self._pending[connection] = address
        self.dropped += len(dropped)
        return dropped

    def leave_pending(self, connection: object) -> None:
        self._pending.pop(connection, None)

    @property
    def pending(self) -> int:
        return len(self._pending)

    def admit(self, address: str, connect: ConnectInfo, sessions: int) -> None:
        """A CONNECT read from ``address``: count it in, or raise
        :class:`RefusedConnect` with the CONNACK code to send."""
        limits = self.limits
        if not 0 < connect.keepalive <= limits.max_keepalive:
            self.refused += 1
            raise RefusedConnect(
                f"keep-alive {connect.keepalive} s (1-{limits.max_keepalive} s accepted)",
                IDENTIFIER_REJECTED,
            )
        if self._clients.get(address, 0) >= limits.clients_per_address:
            self.refused += 1
            raise RefusedConnect(
                f"{limits.clients_per_address} clients from this address already",
                SERVER_UNAVAILABLE,
            )
        if sum(self._clients.values()) >= limits.clients or sessions >= limits.sessions:
            self.refused += 1
            raise RefusedConnect("the broker is full", SERVER_UNAVAILABLE)
        self._clients[address] = self._clients.get(address, 0) + 1

    def depart(self, address: str) -> None:
        left = self._clients.get(address, 0) - 1
        if left > 0:
            self._clients[address] = left
        else:
            self._clients.pop(address, None)

    @property
    def clients(self) -> int:
        return sum(self._clients.values())


class _SnapshotDict(dict[str, Any]):
    """A dict whose iteration walks a copy of its keys, so it may change
    while an iteration awaits."""

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.keys()))


def _broker_config() -> dict[str, Any]:
    return {
        "listeners": {_LISTENER: {"type": "external"}},
        # amqtt drops a client the moment its keep-alive lapses; MQTT allows
        # one and a half keep-alives (3.1.2.10), and a busy client's ping
        # comes a little late: allow as much again.
        "timeout_disconnect_delay": 10,
        # A session whose client went stays this long (amqtt keeps one that
        # logged in with a user name and clean_session 0, with its messages;
        # anonymous ones go at once): no session outlives its use for ever.
        "session_expiry_interval": SESSION_EXPIRY,
        # Only anonymous authentication: no $SYS plugin, no logging plugins.
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }


def _where(binds: Sequence[str]) -> str:
    return ", ".join(binds)


# Ports the kernel picks for the first of several addresses, tried in turn:
# one may be taken on another address (seen under parallel tests, where a
# port picked on a LAN address was in use on loopback).
PORT_ZERO_TRIES = 8


async def _listen(
    handler: Any, binds: Sequence[str], port: int, tries: int
) -> tuple[asyncio.Server, int]:
    """Listen on every address of ``binds``, on the first port of
    ``port .. port + tries - 1`` free on all of them (port 0: one the
    kernel picks for the first address, then the same for the others,
    another one if that is taken on one of them)."""
    last = port if port == 0 else min(port + tries - 1, 65535)
    several = len(binds) > 1
    candidates = [0] * max(tries, PORT_ZERO_TRIES) if port == 0 and several else []
    candidates = candidates or list(range(port, last + 1))
    where = _where(binds)
    for attempt, candidate in enumerate(candidates):
        final = attempt == len(candidates) - 1
        try:
            if candidate == 0 and several:
                first = await asyncio.start_server(handler, binds[0], 0)
                chosen = first.sockets[0].getsockname()[1]
                first.close()
                server = await asyncio.start_server(handler, list(binds), chosen)
            else:
                server = await asyncio.start_server(handler, list(binds), candidate)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE and not final:
                continue
            if exc.errno == errno.EADDRINUSE:
                if port == 0:
                    span = f"no port of {len(candidates)} the system picked was free on all"
                    raise BrokerError(f"cannot listen on {where}: {span}") from None
                span = f"port {port} is" if last == port else f"ports {port}-{last} are all"
                raise BrokerError(f"cannot listen on {where}: {span} in use") from None
            reason = os.strerror(exc.errno) if exc.errno else _bind_failure(binds, candidate)
            raise BrokerError(f"cannot listen on {where}:{candidate}: {reason}") from None
        bound: int = server.sockets[0].getsockname()[1]
        return server, bound
    raise BrokerError(f"cannot listen on {where}: no port to try")  # range was empty


def _bind_failure(binds: Sequence[str], port: int) -> str:
    """The operating system's reason why ``port`` cannot be bound on one of
    ``binds``.

    Python 3.13's asyncio skips an address that is not this machine's
    (EADDRNOTAVAIL) and then raises "could not bind on any address out of
    [...]" without an errno; the person should read the OS's words ("Cannot
    assign requested address"), as on 3.11 (issue 23): bind a plain socket
    to learn them."""
    for bind in binds:
        try:
            addresses = socket.getaddrinfo(
                bind, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
            )
        except OSError as error:
            return error.strerror or str(error)
        for family, kind, proto, _, address in addresses:
            with socket.socket(family, kind, proto) as probe:
                try:
                    probe.bind(address)
                except OSError as error:
                    return error.strerror or str(error)
    return "the address cannot be used"


async def serve(
    binds: Sequence[str],
    port: int,
    tries: int,
    max_packet_size: int,
    limits: Limits | None = None,
) -> None:
    """Run the broker until stdin closes or a SIGTERM/SIGINT arrives."""
    from amqtt.broker import Broker

    limits = limits or Limits()
    stop = stop_signal()

    broker = Broker(_broker_config())
    # amqtt 0.12, on every connection, loops over all sessions' subscriptions
    # with an await inside (broker.py, "publish retained messages to a
    # pre-existing session's subscriptions"); another client subscribing
    # meanwhile makes that loop raise "dictionary changed size during
    # iteration" and the new client's connection is reset. Seen when peers
    # join a room at the same moment; iterating a snapshot avoids it.
    broker._subscriptions = _SnapshotDict(broker._subscriptions)
    _only_own_retained(broker)
    quota = RetainedQuota(
        limits.retained_per_address,
        limits.retained_bytes_per_address,
        limits.retained_total,
        limits.retained_bytes_total,
    )
    _bounded_retained(broker, quota)
    _bounded_subscriptions(broker, limits.filters_per_session)
    _bounded_queues(broker)
    _payloads_shown_by_size(broker)
    await broker.start()

    clients: set[asyncio.StreamWriter] = set()
    gate = Gate(limits)
    outboxes = Outboxes(limits.queued_bytes, limits.queued_total)
    waiting: dict[object, asyncio.StreamWriter] = {}

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        clients.add(writer)
        sock = writer.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        token = object()
        admitted = False
        try:
            # A flood of connections that send nothing pushes out the
            # oldest of them, never the newest (which sends its CONNECT now).
            for old in gate.arrive(token, address):
                dropped = waiting.pop(old, None)
                if dropped is not None:
                    dropped.transport.abort()
            waiting[token] = writer
            try:
                async with asyncio.timeout(limits.connect_timeout):
                    first = await read_first_packet(reader, min(max_packet_size, MAX_CONNECT_SIZE))
            finally:
                gate.leave_pending(token)
                waiting.pop(token, None)
            try:
                # amqtt's own session table, read only (0.12 has no public count).
                gate.admit(address, parse_connect(first), len(broker._sessions))
            except RefusedConnect as refusal:
                if refusal.code is not None:
                    writer.write(bytes([0x20, 0x02, 0x00, refusal.code]))  # CONNACK
                    with contextlib.suppress(OSError, TimeoutError):
                        async with asyncio.timeout(1):
                            await writer.drain()
                raise
            admitted = True
            await broker.external_connected(
                ReplayReader(
                    first, LimitedStreamReader(reader, MqttFraming(max_packet_size), str(peer))
                ),
                bounded_writer(
                    writer, limits.write_buffer, limits.write_stall, str(peer), outboxes.open()
                ),
                _LISTENER,
            )
        except TimeoutError:
            gate.dropped += 1  # no CONNECT in time
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass  # gone before its CONNECT (or pushed out): nothing to say
        except RefusedConnect as refusal:
            _log.info("refused %s: %s", peer, refusal)
        except Exception:
            # One client's failure must never stop the broker.
            _log.exception("client %s failed", peer)
        finally:
            if admitted:
                gate.depart(address)
            clients.discard(writer)
            writer.close()

    try:
        server, bound = await _listen(connected, binds, port, tries)
    except BrokerError:
        await broker.shutdown()
        raise
    print(f"{_READY} {bound}", flush=True)
    reporter = asyncio.get_running_loop().create_task(_report_floods(gate, outboxes, quota))
    await stop.wait()
    reporter.cancel()
    server.close()
    # What was published before the host stopped us still reaches its
    # subscribers (a game's final room state, with the record each peer
    # checks the deal against), within FLUSH_TIMEOUT.
    await _flush(broker, FLUSH_TIMEOUT)
    # Then every client sees the broker go. amqtt's shutdown can hang when a
    # client drops at the same moment (as the host's own link does when the
    # host is killed): its clients then stayed connected to a broker that
    # served no one, while a resumed host's new broker took the port, and a
    # game never went on. So the connections are closed first, and the
    # shutdown gets a bounded time.
    for writer in list(clients):
        writer.close()
    try:
        await asyncio.wait_for(broker.shutdown(), SHUTDOWN_TIMEOUT)
    except TimeoutError:
        _log.warning("amqtt did not shut down within %g s: exiting anyway", SHUTDOWN_TIMEOUT)
        # Its stuck tasks could hold up asyncio.run's own clean-up as well;
        # nothing is left to save (a broker keeps nothing on disk).
        sys.stderr.flush()
        os._exit(0)


async def _report_floods(
    gate: Gate, outboxes: Outboxes, quota: RetainedQuota, interval: float = FLOOD_LOG_INTERVAL
) -> None:
    """One line per interval at most about connections refused or dropped,
    messages not queued for clients that do not read and retained messages
    not kept (a flood must not flood the log)."""
    said = (0, 0, 0, 0)
    while True:
        await asyncio.sleep(interval)
        now = (gate.refused, gate.dropped, outboxes.dropped, quota.refused)
        if now != said:
            _log.warning(
                "in the last %g s: %d connections refused, %d dropped before their CONNECT, "
                "%d messages not queued for clients that do not read, %d retained messages "
                "not kept (over a bound)",
                interval,
                now[0] - said[0],
                now[1] - said[1],
                now[2] - said[2],
                now[3] - said[3],
            )
            said = now


def _bounded_queues(broker: Any) -> None:
    """Every message amqtt hands a client goes through the client's
    :class:`Outbox` (issue 19 item 7, a subscriber that never reads).

    amqtt 0.12 delivers each message to each subscriber in a task of its own
    (``handler.mqtt_publish``, from the broadcast loop, and from the two
    retained-message paths), all found through ``_get_handler``; the tasks
    of a client that does not read wait on its write lock, each holding its
    message, without limit. The handler's ``mqtt_publish`` is wrapped once:
    a message that does not fit the client's outbox is not queued at all
    (no packet id, no task work), like Mosquitto's max_queued_messages."""
    from amqtt.errors import ProtocolHandlerError

    find = broker._get_handler

    def get_handler(session: Any) -> Any:
        handler = find(session)
        outbox = getattr(getattr(handler, "writer", None), "passe_outbox", None)
        if handler is None or outbox is None or getattr(handler, "passe_bounded", False):
            return handler
        publish = handler.mqtt_publish

        async def nothing() -> None:
            return None

        async def releasing(delivery: Any, cost: int) -> Any:
            try:
                return await delivery
            except ProtocolHandlerError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    # amqtt turns the cancel of a delivery (the broker
                    # shutting down) into this error, then logs it as a
                    # failure with its traceback: said as what it is.
                    raise asyncio.CancelledError from None
                raise
            finally:
                outbox.release(cost)

        def bounded_publish(
            topic: str, data: bytes, qos: int | None, retain: bool, ack_timeout: int | None = None
        ) -> Any:
            # A plain function returning a coroutine: the check is made
            # when amqtt asks, before it creates the delivery task.
            cost = message_cost(topic, data)
            if not outbox.admit(cost):
                return nothing()
            return releasing(publish(topic, data, qos, retain, ack_timeout), cost)

        handler.mqtt_publish = bounded_publish
        handler.passe_bounded = True
        return handler

    broker._get_handler = get_handler
    # amqtt's broadcast loop forgets a finished delivery task only once every
    # task started before it has finished: behind one client's stuck task,
    # every other client's delivered message stayed in memory (with its
    # payload) until that client was dropped. Finished tasks are swept.
    broker._tasks_queue = _SweptTasks()


class _SweptTasks(deque[Any]):
    """amqtt's queue of delivery tasks, dropping the finished ones (their
    exceptions retrieved, as amqtt's loop does) whenever it has doubled
    since the last sweep."""

    SWEEP_FROM = 64

    def __init__(self) -> None:
        super().__init__()
        self._sweep_at = self.SWEEP_FROM

    def append(self, task: Any) -> None:
        super().append(task)
        if len(self) < self._sweep_at:
            return
        running = []
        for each in self:
            if not each.done():
                running.append(each)
            elif not each.cancelled():
                each.exception()  # retrieved: amqtt logs these only at debug
        self.clear()
        self.extend(running)
        self._sweep_at = max(self.SWEEP_FROM, 2 * len(running))


class _Payload(bytes):
    """A message's payload whose ``repr`` is its size, not its bytes."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} bytes>"


def _payloads_shown_by_size(broker: Any) -> None:
    """amqtt 0.12 formats each message it broadcasts into debug lines
    (f-strings, evaluated whether or not debug is on: ``_run_broadcast``
    and the delivery loop), and with it the payload's ``repr``: 1 MiB of
    text for a 256 KiB payload, half a millisecond of the broker's CPU per
    message (issue 19, the mixed flood). The payload is handed on as
    bytes whose ``repr`` is its size."""
    broadcast = broker._broadcast_message

    async def broadcast_sized(
        session: Any, topic: str | None, data: bytes | bytearray | None, *args: Any
    ) -> None:
        await broadcast(session, topic, None if data is None else _Payload(data), *args)

    broker._broadcast_message = broadcast_sized


def _only_own_retained(broker: Any) -> None:
    """amqtt 0.12 sends a new client, on CONNECT, every retained message that
    matches any other session's filter (tests/net/test_broker.py): with the
    authority subscribed to ``presence/+``, anyone retaining 30,000 presence
    records made every joiner receive all of them before its own SUBSCRIBE
    was even read, and its join timed out (issue 19 item 6). Retained
    messages go only where the session itself subscribed (MQTT 3.1.1,
    3.3.1.3), as Mosquitto does."""
    publish = broker._publish_retained_messages_for_subscription

    async def publish_own(subscription: tuple[str, int], session: Any) -> None:
        subscribers = broker._subscriptions.get(subscription[0], ())
        if any(subscriber.client_id == session.client_id for subscriber, _ in subscribers):
            await publish(subscription, session)

    broker._publish_retained_messages_for_subscription = publish_own


def _bounded_retained(broker: Any, quota: RetainedQuota) -> None:
    """Every retained message amqtt would keep (a client's, or a will's)
    goes through ``quota`` first, by the address of the session it came
    from; one refused is not kept (it was delivered all the same). An
    empty one clears its topic as always. Messages the broker makes itself
    (no session) are kept."""
    retain = broker.retain_message

    async def bounded(
        source_session: Any, topic_name: str | None, data: bytes | None, qos: int | None = None
    ) -> None:
        if topic_name is not None and data and source_session is not None:
            address = str(getattr(source_session, "remote_address", None) or "?")
            if not quota.admit(address, topic_name, len(data)):
                return
        elif topic_name is not None and not data:
            quota.release(topic_name)
        await retain(source_session, topic_name, data, qos)

    broker.retain_message = bounded


SUBSCRIPTION_REFUSED = 0x80  # a SUBACK's failure code (MQTT 3.1.1, 3.9.3)


def _bounded_subscriptions(broker: Any, per_session: int) -> None:
    """A session holds at most ``per_session`` topic filters: a new one past
    it is refused (SUBACK 0x80); a filter already held may be subscribed
    again. A filter nobody holds any more is forgotten at once (amqtt 0.12
    kept an empty entry for each filter unsubscribed, for ever: fresh
    filters subscribed and unsubscribed grew it without bound)."""
    held: dict[str, set[str]] = {}  # client id: its filters
    add, delete = broker.add_subscription, broker._del_subscription
    subscriptions = broker._subscriptions

    def forget_if_empty(a_filter: str) -> None:
        if not subscriptions.get(a_filter, True):
            del subscriptions[a_filter]

    async def add_subscription(subscription: tuple[str, int], session: Any) -> int:
        topic_filter = subscription[0]
        filters = held.setdefault(session.client_id, set())
        if len(topic_filter) > MAX_FILTER_LENGTH:
            return SUBSCRIPTION_REFUSED
        if topic_filter not in filters and len(filters) >= per_session:
            return SUBSCRIPTION_REFUSED
        code: int = await add(subscription, session)
        if code != SUBSCRIPTION_REFUSED:
            filters.add(topic_filter)
        return code

    def del_subscription(a_filter: str, session: Any) -> int:
        deleted: int = delete(a_filter, session)
        held.get(session.client_id, set()).discard(a_filter)
        forget_if_empty(a_filter)
        return deleted

    async def del_all_subscriptions(session: Any) -> None:
        # As amqtt's, which would find the filters emptied here gone.
        held.pop(session.client_id, None)
        for a_filter in list(subscriptions):
            if delete(a_filter, session):
                forget_if_empty(a_filter)

    broker.add_subscription = add_subscription
    broker._del_subscription = del_subscription
    broker._del_all_subscriptions = del_all_subscriptions


async def _flush(broker: Any, timeout: float) -> None:
    """Until amqtt has handed every message it holds to its subscribers (and,
    at QoS 1, had them acknowledged), or ``timeout`` seconds. amqtt 0.12 has
    no public call for this, so its queues are read (a later amqtt without
    them is simply not waited for): each session's incoming messages, the
    broadcast queue, the delivery tasks. A message moves between them in
    steps that await, so all must be seen empty for FLUSH_QUIET seconds."""
    queue = getattr(broker, "_broadcast_queue", None)
    deliveries = getattr(broker, "_tasks_queue", None)
    sessions = getattr(broker, "_sessions", {})

    def flushed() -> bool:
        for session, _handler in list(sessions.values()):
            incoming = getattr(session, "delivered_message_queue", None)
            if incoming is not None and not incoming.empty():
                return False
        idle = queue is None or queue.empty()
        return idle and (deliveries is None or all(task.done() for task in list(deliveries)))

    quiet_since: float | None = None
    loop = asyncio.get_running_loop()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout):
            while quiet_since is None or loop.time() - quiet_since < FLUSH_QUIET:
                if not flushed():
                    quiet_since = None
                elif quiet_since is None:
                    quiet_since = loop.time()
                await asyncio.sleep(0.005)


def _quiet_logging(verbose: bool) -> None:
    from net.protocol.text import safe_logging

    # Log lines quote client ids and topics from the network (issue 19).
    safe_logging(
        logging.DEBUG if verbose else logging.WARNING,
        "passe broker: %(levelname)s %(name)s: %(message)s",
    )
    if not verbose:
        # amqtt logs every connection that closes before CONNECT (a port scan,
        # a client giving up) at ERROR; only real failures should show.
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.CRITICAL)


_LIMIT_OPTIONS: dict[str, type] = {
    "connect_timeout": float,
    "pending_per_address": int,
    "pending": int,
    "clients_per_address": int,
    "clients": int,
    "sessions": int,
    "max_keepalive": int,
    "write_buffer": int,
    "write_stall": float,
    "queued_bytes": int,
    "queued_total": int,
    "retained_per_address": int,
    "retained_bytes_per_address": int,
    "retained_total": int,
    "retained_bytes_total": int,
    "filters_per_session": int,
}


def limit_arguments(limits: Limits) -> list[str]:
    """The command-line options that give the child ``limits``."""
    default = Limits()
    arguments: list[str] = []
    for name in _LIMIT_OPTIONS:
        value = getattr(limits, name)
        if value != getattr(default, name):
            arguments += [f"--{name.replace('_', '-')}", str(value)]
    return arguments


def _more_files() -> None:
    """As many open files as the system lets us: each client is a socket,
    and running out makes asyncio stop accepting for a while."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m net.lan.broker",
        description="Passe's embedded MQTT broker. Prints 'ready PORT' once it "
        "accepts connections; exits when standard input closes.",
    )
    parser.add_argument(
        "--bind",
        action="append",
        default=None,
        help="address to listen on (repeatable; default 0.0.0.0)",
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="first port to try")
    parser.add_argument("--tries", type=int, default=1, help="ports to try from --port upward")
    parser.add_argument(
        "--max-packet-size", type=int, default=DEFAULT_MAX_PACKET_SIZE, help="bytes"
    )
    default = Limits()
    for name, kind in _LIMIT_OPTIONS.items():
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            type=kind,
            default=getattr(default, name),
            help=f"(default {getattr(default, name)})",
        )
    parser.add_argument("--verbose", action="store_true", help="log amqtt's debug output")
    args = parser.parse_args(argv)
    limits = Limits(**{name: getattr(args, name) for name in _LIMIT_OPTIONS})
    if (
        not 0 <= args.port <= 65535
        or args.tries < 1
        or args.max_packet_size < 2
        or not all(getattr(limits, name) > 0 for name in _LIMIT_OPTIONS)
    ):
        print(
            "passe broker: --port must be 0-65535, --tries, --max-packet-size and the limits "
            "positive",
            file=sys.stderr,
        )
        return 2
    _quiet_logging(args.verbose)
    _more_files()
    binds = args.bind or ["0.0.0.0"]
    try:
        asyncio.run(serve(binds, args.port, args.tries, args.max_packet_size, limits))
    except BrokerError as exc:
        print(f"passe broker: {exc}", file=sys.stderr, flush=True)
        return 2
    return 0


# -- the parent: start_embedded_broker ----------------------------------------


@dataclass
class EmbeddedBroker:
    """A running broker child. ``host`` is the address a client on this
    machine connects to (loopback when the broker listens on every interface
    or on loopback); ``binds`` are the addresses it listens on."""

    binds: tuple[str, ...]
    port: int
    process: asyncio.subprocess.Process
    _drains: list[asyncio.Task[None]] = field(default_factory=list)
    _stderr: deque[str] = field(default_factory=lambda: deque(maxlen=40))

    @property
    def bind(self) -> str:
        return self.binds[0]

    @property
    def host(self) -> str:
        if any(bind in ("", "0.0.0.0", "127.0.0.1") for bind in self.binds):
            return "127.0.0.1"
        if any(bind in ("::", "::1") for bind in self.binds):
            return "::1"
        return self.binds[0]

    @property
    def pid(self) -> int:
        return self.process.pid

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    async def stop(self) -> None:
        """Close the child's stdin (it exits by itself), then make sure."""
        process = self.process
        if process.returncode is None:
            if process.stdin is not None and not process.stdin.is_closing():
                process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        for task in self._drains:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        # Closed on the loop that opened it: left to the garbage collector,
        # its close ran after that loop had closed and printed "Event loop
        # is closed" (CI on Python 3.13, a TUI test that hosted a room).
        transport = getattr(process, "_transport", None)
        if isinstance(transport, asyncio.SubprocessTransport):
            transport.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()


async def _drain_lines(stream: asyncio.StreamReader, keep: deque[str] | None) -> None:
    """Read a child's pipe to its end so the child never blocks writing."""
    while line := await stream.readline():
        if keep is not None:
            keep.append(line.decode("utf-8", "replace").rstrip())


async def start_embedded_broker(
    bind: str | Sequence[str] = "0.0.0.0",
    port: int = DEFAULT_PORT,
    *,
    tries: int = DEFAULT_TRIES,
    max_packet_size: int = DEFAULT_MAX_PACKET_SIZE,
    limits: Limits | None = None,
    timeout: float = READY_TIMEOUT,
) -> EmbeddedBroker:
    """Start the broker child listening on ``bind`` (an address or several)
    on the first port from ``port`` upward free on all of them (``port=0``:
    any free port), and wait until it accepts connections.

    Raises :class:`BrokerError` if it does not start within ``timeout``.
    """
    binds = (bind,) if isinstance(bind, str) else tuple(bind)
    if not binds:
        raise BrokerError("embedded broker: no address to listen on")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "net.lan.broker",
        *(word for address in binds for word in ("--bind", address)),
        "--port",
        str(port),
        "--tries",
        str(tries),
        "--max-packet-size",
        str(max_packet_size),
        *limit_arguments(limits or Limits()),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        # Its own session: a Ctrl-C in the host's terminal is for the host,
        # which decides when the broker goes (by closing its stdin).
        start_new_session=True,
    )
    assert process.stdout is not None and process.stderr is not None
    broker = EmbeddedBroker(binds, 0, process)
    broker._drains.append(asyncio.create_task(_drain_lines(process.stderr, broker._stderr)))
    try:
        line = await asyncio.wait_for(process.stdout.readline(), timeout)
    except TimeoutError:
        await broker.stop()
        reason = f"the broker did not start within {timeout:g} s"
        raise BrokerError(_failure(reason, broker)) from None
    words = line.decode("utf-8", "replace").split()
    if len(words) != 2 or words[0] != _READY or not words[1].isdigit():
        await broker.stop()
        reason = (
            f"the broker exited with code {process.returncode}"
            if not line
            else (f"the broker said {line!r} instead of '{_READY} PORT'")
        )
        raise BrokerError(_failure(reason, broker))
    broker.port = int(words[1])
    broker._drains.append(asyncio.create_task(_drain_lines(process.stdout, None)))
    return broker


def _failure(reason: str, broker: EmbeddedBroker) -> str:
    """One line saying why, then whatever else the child wrote to stderr."""
    tail = list(broker._stderr)
    # The child's own one-line reason (``passe broker: ...``) says it best.
    for line in reversed(tail):
        if line.startswith("passe broker: "):
            reason = line.removeprefix("passe broker: ")
            tail.remove(line)
            break
    return "\n".join([f"embedded broker: {reason}", *tail])


if __name__ == "__main__":
    sys.exit(main())
