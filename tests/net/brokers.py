"""Real MQTT brokers for tests and benchmarks: a Mosquitto of our own.

The machine's Mosquitto (127.0.0.1:1883) does not set ``set_tcp_nodelay``,
which costs ~45 ms per QoS 1 round trip, and a test may want to restart its
broker; so tests and ``bench/net.py`` start their own with
:func:`start_mosquitto`: loopback only, anonymous, TCP_NODELAY, no
persistence, on a free port.

A clustered broker (issue 20): :func:`start_nats_cluster` starts a NATS
cluster of our own (Debian's ``nats-server``), each node with its MQTT
gateway and JetStream, all on loopback.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

MOSQUITTO_READY_TIMEOUT = 10.0
_PORT_ATTEMPTS = 5
# Seconds before a restart tries its port again (times the attempt number).
_PORT_RETRY_DELAY = 0.1

# Kept in step with docs/mosquitto.conf, but loopback only and quiet.
CONFIG = """\
listener {port} 127.0.0.1
allow_anonymous true
set_tcp_nodelay true
max_packet_size 1048576
persistence false
log_dest stderr
log_type error
log_type warning
log_type notice
log_type information
log_timestamp false
"""


def drain_in_thread(fd: int, pending: bytes, output: list[str]) -> threading.Thread:
    """Read the rest of a server's log from ``fd`` into ``output`` (its 200
    latest lines) in a thread of its own: a full pipe would block the server."""

    def drain() -> None:
        buffer = pending
        with contextlib.suppress(OSError):
            while chunk := os.read(fd, 4096):
                *lines, buffer = (buffer + chunk).split(b"\n")
                output.extend(line.decode("utf-8", "replace") for line in lines)
                del output[:-200]

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    return thread


class MosquittoError(Exception):
    """Mosquitto could not be started; the message has its output."""


def installed(name: str, *places: str) -> str | None:
    """The path of the program ``name``: on PATH, else at one of ``places``
    (Debian puts servers in /usr/sbin, which a user's PATH may lack)."""
    return shutil.which(name) or next((p for p in places if os.access(p, os.X_OK)), None)


def required(name: str, path: str | None) -> str:
    """``path``, or skip the test saying that ``name`` (a Debian package of
    that name) is not installed; in CI (``CI=true``), where .ci/run installs
    it, its absence is a failure instead."""
    import pytest

    if path is None:
        reason = f"{name} is not installed (apt-get install {name})"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def mosquitto_path() -> str | None:
    return installed("mosquitto", "/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")


def require_mosquitto() -> str:
    """The mosquitto binary (see :func:`required`)."""
    return required("mosquitto", mosquitto_path())


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now, for a Mosquitto of our own
    (it cannot report a port it chose): another process may take it before
    Mosquitto binds it, so start_mosquitto retries. A passe host binds port 0
    and reports it instead (``--port 0``)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def closed_port() -> Iterator[int]:
    """A port of 127.0.0.1 where nothing answers, for the whole block: a
    socket holds it bound without listening, so a connection is refused and
    no other process can start listening there meanwhile (as it could on a
    port that was merely free when probed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        port: int = holder.getsockname()[1]
        yield port


class Mosquitto:
    """A Mosquitto process of our own on 127.0.0.1 (see :func:`start_mosquitto`)."""

    host = "127.0.0.1"

    def __init__(self, binary: str, directory: Path, port: int, config: str = CONFIG) -> None:
        self.binary = binary
        self.config = config
        self.directory = directory
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None
        self.output: list[str] = []
        self._drain: threading.Thread | None = None

    def start(self) -> None:
        config = self.directory / "mosquitto.conf"
        config.write_text(self.config.format(port=self.port), encoding="utf-8")
        self.output = []
        self.process = subprocess.Popen(
            [self.binary, "-c", str(config)],
            stdin=subprocess.DEVNULL,
            # stderr, which C does not buffer: the log arrives as written.
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self._wait_until_running()

    def _wait_until_running(self) -> None:
        """Read its log until it says it is running (it listens by then)."""
        assert self.process is not None and self.process.stderr is not None
        fd = self.process.stderr.fileno()
        pending = b""
        deadline = time.monotonic() + MOSQUITTO_READY_TIMEOUT
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    self.stop()
                    raise MosquittoError(self._failure("did not start in time"))
                chunk = os.read(fd, 4096)  # unbuffered: select() sees all that is left
                if not chunk:
                    self.process.wait()
                    raise MosquittoError(self._failure(f"exited ({self.process.returncode})"))
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    text = line.decode("utf-8", "replace").rstrip()
                    self.output.append(text)
                    if text.endswith(" running"):
                        self._keep_draining(fd, pending)
                        return

    def _keep_draining(self, fd: int, pending: bytes) -> None:
        """Read the rest of its log in a thread: a full pipe would block it."""
        self._drain = drain_in_thread(fd, pending, self.output)

    def _failure(self, what: str) -> str:
        return f"mosquitto on port {self.port} {what}: " + " | ".join(self.output)

    def stop(self) -> None:
        """Terminate it (SIGTERM; SIGKILL if it lingers)."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._drain is not None:
            self._drain.join(5)  # it ends at EOF, now that the process is gone
            self._drain = None
        if process.stderr is not None:
            process.stderr.close()

    def kill(self) -> None:
        """Kill it without warning (SIGKILL), as a crash would."""
        if self.process is not None:
            self.process.kill()
        self.stop()

    def restart(self) -> None:
        """Stop it and start it again on the same port (its clients see the
        broker go away and come back, with nothing retained).

        The same port, not a free one: its clients reconnect there. Between
        the stop and the start another process may hold it a moment (issue
        23: another test's free_port() probe, or a child binding port 0,
        under -n 3), so a start refused with "Address already in use" is
        tried again, a few times, shortly after."""
        self.stop()
        for attempt in range(_PORT_ATTEMPTS):
            try:
                self.start()
                return
            except MosquittoError as exc:
                if "Address already in use" not in str(exc) or attempt == _PORT_ATTEMPTS - 1:
                    raise
                time.sleep(_PORT_RETRY_DELAY * (attempt + 1))


@contextlib.contextmanager
def start_mosquitto(port: int = 0, *, config: str = CONFIG) -> Iterator[Mosquitto]:
    """A running Mosquitto on 127.0.0.1:``port`` (0: a free port), stopped
    on exit. ``config`` is a template with ``{port}``, logging at least
    ``information`` to stderr (its "running" line tells it is ready). Raises
    :class:`MosquittoError` if it cannot start (and ``FileNotFoundError``
    without a mosquitto binary)."""
    binary = mosquitto_path()
    if binary is None:
        raise FileNotFoundError("mosquitto is not installed")
    with tempfile.TemporaryDirectory(prefix="passe-mosquitto-") as directory:
        attempts = _PORT_ATTEMPTS if port == 0 else 1
        broker: Mosquitto | None = None
        for attempt in range(attempts):
            broker = Mosquitto(binary, Path(directory), port or free_port(), config)
            try:
                broker.start()
                break
            except MosquittoError as exc:
                # Another process took the free port first: try another.
                if "Address already in use" not in str(exc) or attempt == attempts - 1:
                    raise
        assert broker is not None
        try:
            yield broker
        finally:
            broker.stop()


# -- A NATS cluster (issue 20) -------------------------------------------------

NATS_READY_TIMEOUT = 30.0  # seconds for a whole cluster: JetStream elects its leaders
# How often readiness is asked again (the monitor, an MQTT CONNECT): a poll of
# the state that is waited for, each answer read, not a sleep standing for it.
_NATS_POLL = 0.05

# One node: its client, cluster, MQTT and monitoring ports chosen by the
# kernel (-1), except the first node's cluster port, which the others' routes
# name ({seed_port}). A JetStream cluster must have routes configured, so the
# first node's list names itself (NATS drops a route to itself). A cluster of
# one has no cluster block (JetStream alone: clustered, it waits for peers).
NATS_CONFIG = """\
server_name: {name}
listen: 127.0.0.1:-1
http: 127.0.0.1:-1
max_payload: 1048576
jetstream {{
  store_dir: "{store}"
  max_memory_store: 64MB
  max_file_store: 256MB
}}
{cluster}
mqtt {{
  listen: 127.0.0.1:-1
  # On every node, so that losing one loses no session or retained message
  # (else NATS sizes them by the nodes it sees at the first MQTT connection,
  # which may be 1: docs/scale.md).
  stream_replicas: {replicas}
}}
"""


NATS_ROUTES = """\
cluster {{
  name: passe
  listen: 127.0.0.1:{cluster_port}
  routes: [nats-route://127.0.0.1:{seed_port}]
}}
"""


class NatsError(Exception):
    """The NATS cluster could not be started; the message has its output."""


def nats_path() -> str | None:
    return installed("nats-server", "/usr/sbin/nats-server", "/usr/bin/nats-server")


def require_nats() -> str:
    """The nats-server binary (see :func:`required`)."""
    return required("nats-server", nats_path())


class NatsNode:
    """One nats-server of a cluster (see :func:`start_nats_cluster`)."""

    host = "127.0.0.1"

    def __init__(
        self, binary: str, directory: Path, name: str, config: str, *, clustered: bool = True
    ) -> None:
        self.binary = binary
        self.clustered = clustered
        self.directory = directory
        self.name = name
        self.config = config
        self.process: subprocess.Popen[bytes] | None = None
        self.output: list[str] = []
        self.mqtt_port = 0  # known once started
        self.cluster_port = 0
        self.monitor_port = 0
        self._drain: threading.Thread | None = None

    @property
    def address(self) -> str:
        """HOST:PORT of its MQTT gateway, as ``--broker`` takes it."""
        return f"{self.host}:{self.mqtt_port}"

    def start(self, deadline: float) -> None:
        config = self.directory / f"{self.name}.conf"
        config.write_text(self.config, encoding="utf-8")
        self.output = []
        self.process = subprocess.Popen(
            [self.binary, "-c", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,  # its log
        )
        self._read_ports(deadline)

    def _read_ports(self, deadline: float) -> None:
        """Read its log until it has said where it listens (MQTT, routes,
        monitoring): it listens there by then."""
        assert self.process is not None and self.process.stderr is not None
        fd = self.process.stderr.fileno()
        pending = b""
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while not (
                self.mqtt_port and (self.cluster_port or not self.clustered) and self.monitor_port
            ):
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    self.stop()
                    raise NatsError(self.failure("did not listen in time"))
                chunk = os.read(fd, 4096)
                if not chunk:
                    self.process.wait()
                    raise NatsError(self.failure(f"exited ({self.process.returncode})"))
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    text = line.decode("utf-8", "replace").rstrip()
                    self.output.append(text)
                    self._note_port(text)
        self._keep_draining(fd, pending)

    def _note_port(self, line: str) -> None:
        for words, attribute in (
            ("Listening for MQTT clients on ", "mqtt_port"),
            ("Listening for route connections on ", "cluster_port"),
            ("Starting http monitor on ", "monitor_port"),
        ):
            if words in line:
                setattr(self, attribute, int(line.rsplit(":", 1)[1]))

    def _keep_draining(self, fd: int, pending: bytes) -> None:
        """Read the rest of its log in a thread: a full pipe would block it."""
        self._drain = drain_in_thread(fd, pending, self.output)

    def failure(self, what: str) -> str:
        return f"nats-server {self.name} {what}: " + " | ".join(self.output[-40:])

    def routes(self) -> int:
        """How many routes to other nodes it has now (its monitor's /routez)."""
        import json
        import urllib.request

        url = f"http://127.0.0.1:{self.monitor_port}/routez"
        with urllib.request.urlopen(url, timeout=2) as answer:  # loopback only
            routes: int = json.load(answer)["num_routes"]
            return routes

    def consumers(self) -> int:
        """How many JetStream consumers it holds now (its monitor's /jsz):
        NATS makes one for each QoS 1 MQTT subscription."""
        import json
        import urllib.request

        url = f"http://127.0.0.1:{self.monitor_port}/jsz"
        with urllib.request.urlopen(url, timeout=2) as answer:  # loopback only
            consumers: int = json.load(answer)["consumers"]
            return consumers

    def mqtt_ready(self) -> bool:
        """Whether its MQTT gateway accepts a CONNECT now (CONNACK 0: NATS
        answers so once JetStream, which keeps MQTT's sessions, is up)."""
        client_id = f"passe-ready-{self.name}".encode()
        body = b"\x00\x04MQTT\x04\x02\x00\x0a" + len(client_id).to_bytes(2, "big") + client_id
        try:
            with socket.create_connection((self.host, self.mqtt_port), timeout=5) as link:
                link.sendall(b"\x10" + bytes([len(body)]) + body)
                answer = b""
                while len(answer) < 4:
                    chunk = link.recv(4 - len(answer))
                    if not chunk:
                        return False
                    answer += chunk
                link.sendall(b"\xe0\x00")  # DISCONNECT
        except OSError:
            return False
        return answer == b"\x20\x02\x00\x00"

    def stop(self) -> None:
        """Terminate it (SIGTERM; SIGKILL if it lingers)."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._drain is not None:
            self._drain.join(5)
            self._drain = None
        if process.stderr is not None:
            process.stderr.close()

    def kill(self) -> None:
        """Kill it without warning (SIGKILL), as a crash would."""
        if self.process is not None:
            self.process.kill()
        self.stop()


class NatsCluster:
    """Running NATS nodes, routed to each other (see :func:`start_nats_cluster`)."""

    def __init__(self, nodes: list[NatsNode]) -> None:
        self.nodes = nodes

    def brokers(self, first: int = 0) -> str:
        """Every node's MQTT address, comma-separated as ``--broker`` takes a
        list, beginning with node ``first`` and going round."""
        order = self.nodes[first:] + self.nodes[:first]
        return ",".join(node.address for node in order)

    def wait_ready(self, deadline: float) -> None:
        """Until every node has a route to every other and accepts an MQTT
        CONNECT: a message published on one node then reaches any other."""
        waiting = list(self.nodes)
        while waiting:
            node = waiting[0]
            if node.process is None or node.process.poll() is not None:
                raise NatsError(node.failure("exited while the cluster formed"))
            if node.routes() >= len(self.nodes) - 1 and node.mqtt_ready():
                waiting.pop(0)
                continue
            if time.monotonic() > deadline:
                raise NatsError(node.failure("was not ready in time"))
            time.sleep(_NATS_POLL)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


@contextlib.contextmanager
def start_nats_cluster(size: int = 3, *, extra: str = "") -> Iterator[NatsCluster]:
    """A running cluster of ``size`` nats-server nodes on 127.0.0.1, each
    with JetStream (its own store in a temporary directory) and an MQTT
    gateway, every port chosen by the kernel but the first node's cluster
    port (the others' route to it; taken meanwhile, the cluster is started
    again on another). Ready when every node is routed to every other and
    answers an MQTT CONNECT. ``extra`` is added to each node's configuration
    (e.g. an ``authorization`` block). Raises :class:`NatsError` if it cannot
    start (and ``FileNotFoundError`` without a nats-server binary)."""
    binary = nats_path()
    if binary is None:
        raise FileNotFoundError("nats-server is not installed")
    with tempfile.TemporaryDirectory(prefix="passe-nats-") as directory:
        cluster: NatsCluster | None = None
        for attempt in range(_PORT_ATTEMPTS):
            seed_port = free_port()
            nodes = [
                NatsNode(
                    binary,
                    Path(directory),
                    name,
                    NATS_CONFIG.format(
                        name=name,
                        store=Path(directory) / f"{name}-{attempt}",
                        cluster=NATS_ROUTES.format(
                            cluster_port=seed_port if index == 0 else -1, seed_port=seed_port
                        )
                        if size > 1
                        else "",
                        replicas=min(size, 3),
                    )
                    + extra,
                    clustered=size > 1,
                )
                for index, name in enumerate("abcdefghij"[:size])
            ]
            cluster = NatsCluster(nodes)
            deadline = time.monotonic() + NATS_READY_TIMEOUT
            try:
                for node in nodes:
                    node.start(deadline)
                cluster.wait_ready(deadline)
                break
            except NatsError as exc:
                cluster.stop()
                # Another process took the first node's port: try another.
                if "address already in use" not in str(exc) or attempt == _PORT_ATTEMPTS - 1:
                    raise
        assert cluster is not None
        try:
            yield cluster
        finally:
            cluster.stop()


@contextlib.asynccontextmanager
async def broker_at(kind: str) -> AsyncIterator[tuple[str, int]]:
    """A broker of the test's own, running: ``embedded`` (net/lan/broker.py, in
    its child process) or ``mosquitto`` (skipped without one, failing in
    CI); its host and port."""
    if kind == "embedded":
        from net.lan.broker import start_embedded_broker

        embedded = await start_embedded_broker("127.0.0.1", 0)
        try:
            yield embedded.host, embedded.port
        finally:
            await embedded.stop()
        return
    require_mosquitto()
    with start_mosquitto() as mosquitto:
        yield mosquitto.host, mosquitto.port
