"""The embedded MQTT broker: amqtt (MQTT 3.1.1) in a child process.

``passe host`` without ``--broker`` runs a broker of its own so that a LAN
game needs nothing installed. It runs in a child process, not in the host's
event loop, so the table's work never delays message delivery and a crash of
one does not take the other down::

    python -m net.broker --bind 0.0.0.0 --port 1883 [--tries 20]

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
- Plugins: only anonymous authentication. No ``$SYS`` topics (the
  BrokerSysPlugin is simply not loaded), no packet/event logging plugins, no
  websocket listener.
- amqtt 0.12 delivers retained messages of other sessions' subscriptions to
  every client that connects, before it subscribes (see
  ``tests/net/test_broker.py``): clients must filter what they receive, and
  nothing private may ever be published retained.
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

from net.lifeline import stop_signal

DEFAULT_PORT = 1883
# How many ports from the requested one upward are tried before giving up.
DEFAULT_TRIES = 20
# The largest MQTT packet accepted from a client (fixed header included,
# like Mosquitto's max_packet_size); a bigger one disconnects that client.
# Far above any Passe message; the protocol layer sets its own, smaller limit.
DEFAULT_MAX_PACKET_SIZE = 1024 * 1024
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


# -- the child: python -m net.broker ----------------------------------------


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
        # Only anonymous authentication: no $SYS plugin, no logging plugins.
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }


async def _listen(handler: Any, bind: str, port: int, tries: int) -> tuple[asyncio.Server, int]:
    """Listen on the first free port of ``port .. port + tries - 1``."""
    last = port if port == 0 else min(port + tries - 1, 65535)
    for candidate in range(port, last + 1):
        try:
            server = await asyncio.start_server(handler, bind, candidate)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE and candidate < last:
                continue
            if exc.errno == errno.EADDRINUSE:
                span = f"port {port} is" if last == port else f"ports {port}-{last} are all"
                raise BrokerError(f"cannot listen on {bind}: {span} in use") from None
            reason = os.strerror(exc.errno) if exc.errno else _bind_failure(bind, candidate)
            raise BrokerError(f"cannot listen on {bind}:{candidate}: {reason}") from None
        bound: int = server.sockets[0].getsockname()[1]
        return server, bound
    raise BrokerError(f"cannot listen on {bind}: no port to try")  # range was empty


def _bind_failure(bind: str, port: int) -> str:
    """The operating system's reason why ``bind:port`` cannot be bound.

    Python 3.13's asyncio skips an address that is not this machine's
    (EADDRNOTAVAIL) and then raises "could not bind on any address out of
    [...]" without an errno; the person should read the OS's words ("Cannot
    assign requested address"), as on 3.11 (issue 23): bind a plain socket
    to learn them."""
    try:
        addresses = socket.getaddrinfo(bind, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as error:
        return error.strerror or str(error)
    for family, kind, proto, _, address in addresses:
        with socket.socket(family, kind, proto) as probe:
            try:
                probe.bind(address)
            except OSError as error:
                return error.strerror or str(error)
    return "the address cannot be used"


async def serve(bind: str, port: int, tries: int, max_packet_size: int) -> None:
    """Run the broker until stdin closes or a SIGTERM/SIGINT arrives."""
    from amqtt.adapters import StreamWriterAdapter
    from amqtt.broker import Broker

    stop = stop_signal()

    broker = Broker(_broker_config())
    # amqtt 0.12, on every connection, loops over all sessions' subscriptions
    # with an await inside (broker.py, "publish retained messages to a
    # pre-existing session's subscriptions"); another client subscribing
    # meanwhile makes that loop raise "dictionary changed size during
    # iteration" and the new client's connection is reset. Seen when peers
    # join a room at the same moment; iterating a snapshot avoids it.
    broker._subscriptions = _SnapshotDict(broker._subscriptions)
    await broker.start()

    clients: set[asyncio.StreamWriter] = set()

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        clients.add(writer)
        sock = writer.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        peer = writer.get_extra_info("peername")
        try:
            await broker.external_connected(
                LimitedStreamReader(reader, MqttFraming(max_packet_size), str(peer)),
                StreamWriterAdapter(writer),
                _LISTENER,
            )
        except Exception:
            # One client's failure must never stop the broker.
            _log.exception("client %s failed", peer)
        finally:
            clients.discard(writer)
            writer.close()

    try:
        server, bound = await _listen(connected, bind, port, tries)
    except BrokerError:
        await broker.shutdown()
        raise
    print(f"{_READY} {bound}", flush=True)
    await stop.wait()
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
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.DEBUG if verbose else logging.WARNING,
        format="passe broker: %(levelname)s %(name)s: %(message)s",
    )
    if not verbose:
        # amqtt logs every connection that closes before CONNECT (a port scan,
        # a client giving up) at ERROR; only real failures should show.
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.CRITICAL)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m net.broker",
        description="Passe's embedded MQTT broker. Prints 'ready PORT' once it "
        "accepts connections; exits when standard input closes.",
    )
    parser.add_argument("--bind", default="0.0.0.0", help="address to listen on")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="first port to try")
    parser.add_argument("--tries", type=int, default=1, help="ports to try from --port upward")
    parser.add_argument(
        "--max-packet-size", type=int, default=DEFAULT_MAX_PACKET_SIZE, help="bytes"
    )
    parser.add_argument("--verbose", action="store_true", help="log amqtt's debug output")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535 or args.tries < 1 or args.max_packet_size < 2:
        print(
            "passe broker: --port must be 0-65535, --tries and --max-packet-size positive",
            file=sys.stderr,
        )
        return 2
    _quiet_logging(args.verbose)
    try:
        asyncio.run(serve(args.bind, args.port, args.tries, args.max_packet_size))
    except BrokerError as exc:
        print(f"passe broker: {exc}", file=sys.stderr, flush=True)
        return 2
    return 0


# -- the parent: start_embedded_broker ----------------------------------------


@dataclass
class EmbeddedBroker:
    """A running broker child. ``host`` is the address a client on this
    machine connects to (loopback when the broker listens on every interface);
    ``bind`` is what it listens on."""

    bind: str
    port: int
    process: asyncio.subprocess.Process
    _drains: list[asyncio.Task[None]] = field(default_factory=list)
    _stderr: deque[str] = field(default_factory=lambda: deque(maxlen=40))

    @property
    def host(self) -> str:
        if self.bind in ("", "0.0.0.0"):
            return "127.0.0.1"
        if self.bind == "::":
            return "::1"
        return self.bind

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
    bind: str = "0.0.0.0",
    port: int = DEFAULT_PORT,
    *,
    tries: int = DEFAULT_TRIES,
    max_packet_size: int = DEFAULT_MAX_PACKET_SIZE,
    timeout: float = READY_TIMEOUT,
) -> EmbeddedBroker:
    """Start the broker child on the first free port from ``port`` upward
    (``port=0``: any free port) and wait until it accepts connections.

    Raises :class:`BrokerError` if it does not start within ``timeout``.
    """
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "net.broker",
        "--bind",
        bind,
        "--port",
        str(port),
        "--tries",
        str(tries),
        "--max-packet-size",
        str(max_packet_size),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        # Its own session: a Ctrl-C in the host's terminal is for the host,
        # which decides when the broker goes (by closing its stdin).
        start_new_session=True,
    )
    assert process.stdout is not None and process.stderr is not None
    broker = EmbeddedBroker(bind, 0, process)
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
