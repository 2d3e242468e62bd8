"""The embedded broker's bounds (issue 19 item 7; docs/protocol.md, "The
embedded broker"): a real child process attacked over real sockets.

Other loopback addresses (127.0.0.2, ...) stand for other machines: Linux
routes all of 127.0.0.0/8 to ``lo``, and a client may bind its end to any of
them, so the broker sees distinct source addresses.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import socket
import time
from collections.abc import AsyncIterator

import aiomqtt
import psutil
import pytest
from paho.mqtt.reasoncodes import ReasonCode

from net.lan.broker import (
    IDENTIFIER_REJECTED,
    SERVER_UNAVAILABLE,
    ConnectInfo,
    EmbeddedBroker,
    Gate,
    Limits,
    Outboxes,
    RefusedConnect,
    RetainedQuota,
    parse_connect,
    start_embedded_broker,
)

NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]


def _number(code: int | ReasonCode) -> int:
    """A SUBACK's code as a number (aiomqtt gives paho's ReasonCode, or an int)."""
    return int(code.value if isinstance(code, ReasonCode) else code)


@pytest.fixture(autouse=True)
def _enough_files() -> None:
    """A thousand sockets and more in this process."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < min(hard, 8192):
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))


@contextlib.asynccontextmanager
async def running(limits: Limits, bind: str = "127.0.0.1") -> AsyncIterator[EmbeddedBroker]:
    broker = await start_embedded_broker(bind, 0, limits=limits)
    try:
        yield broker
    finally:
        await broker.stop()


def connect_packet(name: bytes, keepalive: int) -> bytes:
    """An MQTT 3.1.1 CONNECT, clean session, no will."""
    body = b"\x00\x04MQTT\x04\x02" + keepalive.to_bytes(2, "big") + len(name).to_bytes(2, "big")
    body += name
    return bytes([0x10, len(body)]) + body


async def raw_connect(
    port: int,
    source: str = "127.0.0.1",
    *,
    name: bytes = b"",
    keepalive: int = 30,
    receive_buffer: int = 0,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, int | None]:
    """A raw client's CONNECT; its streams and the CONNACK's return code
    (None when the broker closed without one). ``receive_buffer``: a small
    TCP receive window (set before connecting), for a client that reads
    nothing to hold little in its kernel."""
    if receive_buffer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        sock.setblocking(False)
        sock.bind((source, 0))
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
        reader, writer = await asyncio.open_connection(sock=sock)
    else:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(connect_packet(name, keepalive))
    await writer.drain()
    try:
        connack = await asyncio.wait_for(reader.readexactly(4), 10)
    except (asyncio.IncompleteReadError, ConnectionError):
        return reader, writer, None
    assert connack[:3] == b"\x20\x02\x00"
    return reader, writer, connack[3]


async def honest_round_trip(broker: EmbeddedBroker, source: str = "") -> None:
    """A real client connects, subscribes and gets its own message back."""
    async with aiomqtt.Client(
        broker.host, broker.port, bind_address=source, socket_options=NODELAY, timeout=5
    ) as client:
        await client.subscribe("passe/v1/HONEST/x", qos=1)
        await client.publish("passe/v1/HONEST/x", b"hi", qos=1)
        message = await asyncio.wait_for(anext(aiter(client.messages)), 5)
        assert message.payload == b"hi"


async def closed_by_peer(reader: asyncio.StreamReader, timeout: float) -> bool:
    try:
        return await asyncio.wait_for(reader.read(1), timeout) == b""
    except ConnectionError:
        return True
    except TimeoutError:
        return False


def rss_mib(pid: int) -> float:
    return float(psutil.Process(pid).memory_info().rss) / 2**20


# -- the gate, sans I/O -----------------------------------------------------------


def test_the_gate_pushes_out_the_oldest_silent_connection() -> None:
    gate = Gate(Limits(pending_per_address=2, pending=3))
    assert gate.arrive("a1", "A") == []
    assert gate.arrive("a2", "A") == []
    assert gate.arrive("a3", "A") == ["a1"]  # per address
    assert gate.arrive("b1", "B") == []
    assert gate.arrive("c1", "C") == ["a2"]  # in total
    gate.leave_pending("a3")
    assert gate.pending == 2


def test_a_connect_too_short_to_read_is_refused() -> None:
    assert parse_connect(connect_packet(b"me", 30)) == ConnectInfo(30, True)
    for packet in (b"\x10\x00", b"\x10\x02\x00\x04", b"\x10\x06\x00\x04MQTT"):
        with pytest.raises(RefusedConnect):
            parse_connect(packet)


# -- real processes -----------------------------------------------------------------


async def test_a_first_packet_that_is_no_connect_is_closed_and_the_broker_lives() -> None:
    async with running(Limits()) as broker:
        for first in (
            b"\xc0\x00",  # PINGREQ
            b"\x30\x03\x00\x01x",  # PUBLISH
            b"\x10\xff\xff\xff\xff\x7f",  # a length past MQTT's four bytes
            b"\x10\x00",  # an empty CONNECT
            b"\x10\xff\xff\xff\x7f",  # 256 MiB announced
        ):
            reader, writer = await asyncio.open_connection("127.0.0.1", broker.port)
            writer.write(first)
            await writer.drain()
            assert await closed_by_peer(reader, 5), first
            writer.close()
        await honest_round_trip(broker)


async def test_silent_connections_are_dropped_and_never_keep_an_honest_client_out() -> None:
    """1,100 connections that never send CONNECT (issue 19.7: they were held
    for ever and new connections then timed out)."""
    limits = Limits(connect_timeout=2.0)
    async with running(limits) as broker:
        silent: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        for _batch in range(11):
            silent += await asyncio.gather(
                *(asyncio.open_connection("127.0.0.1", broker.port) for _ in range(100))
            )
        opened = time.monotonic()
        await honest_round_trip(broker)
        # Every silent one is closed by the broker, within the bound.
        closed = await asyncio.gather(
            *(closed_by_peer(reader, limits.connect_timeout + 5) for reader, _ in silent)
        )
        took = time.monotonic() - opened
        assert all(closed)
        assert took < limits.connect_timeout + 5
        for _, writer in silent:
            writer.close()
        await honest_round_trip(broker)


async def test_clients_past_the_cap_of_an_address_are_refused_while_others_connect() -> None:
    limits = Limits(clients_per_address=5, clients=50)
    async with running(limits) as broker:
        held = [await raw_connect(broker.port, "127.0.0.2", keepalive=30) for _ in range(5)]
        assert [code for _, _, code in held] == [0] * 5
        _, refused, code = await raw_connect(broker.port, "127.0.0.2")
        assert code == SERVER_UNAVAILABLE
        refused.close()
        # Another address is not held back by the first one's cap.
        await honest_round_trip(broker, "127.0.0.3")
        with pytest.raises(aiomqtt.MqttCodeError, match="unavailable"):
            await honest_round_trip(broker, "127.0.0.2")
        # One of the first address's clients leaves: its place is free again.
        held[0][1].close()
        assert await closed_by_peer(held[0][0], 5)
        for _ in range(50):  # the broker notices the close within a moment
            _, writer, code = await raw_connect(broker.port, "127.0.0.2")
            if code == 0:
                break
            writer.close()
            await asyncio.sleep(0.05)
        assert code == 0
        for _, writer, _ in held:
            writer.close()


async def test_a_keepalive_of_zero_is_refused() -> None:
    async with running(Limits()) as broker:
        _, never, code = await raw_connect(broker.port, keepalive=0)
        assert code == IDENTIFIER_REJECTED
        never.close()
        _, too_long, code = await raw_connect(broker.port, keepalive=3600)
        assert code == IDENTIFIER_REJECTED
        too_long.close()
        _, fine, code = await raw_connect(broker.port, keepalive=60)
        assert code == 0
        fine.close()


async def _session_flood(count: int, addresses: int) -> tuple[float, float, int]:
    """``count`` CONNECTs (half with keep-alive 0), from ``addresses``
    loopback addresses, all kept open: the broker's RSS before and after
    (MiB) and how many were accepted."""
    async with running(Limits(), bind="0.0.0.0") as broker:
        await honest_round_trip(broker)
        before = rss_mib(broker.pid)
        held: list[asyncio.StreamWriter] = []
        accepted = 0
        for start in range(0, count, 100):
            batch = await asyncio.gather(
                *(
                    raw_connect(
                        broker.port,
                        f"127.0.0.{2 + n % addresses}",
                        name=b"flood-%d" % n,
                        keepalive=0 if n % 2 else 60,
                    )
                    for n in range(start, min(start + 100, count))
                )
            )
            for _, writer, code in batch:
                held.append(writer)
                accepted += code == 0
        after = rss_mib(broker.pid)
        # The honest client still gets in once the flood's clients have gone.
        for writer in held:
            writer.close()
        for _ in range(100):
            try:
                await honest_round_trip(broker)
                break
            except aiomqtt.MqttError:
                await asyncio.sleep(0.1)
        else:
            pytest.fail("the broker stayed full after the flood's clients left")
        return before, after, accepted


# RSS bound of the whole broker process with every cap reached (MiB); the
# broker starts at about 30 MiB; 5,000 open sessions took it to 280 MiB.
RSS_BOUND = 60.0


async def test_a_flood_of_sessions_keeps_the_broker_within_its_memory_bound() -> None:
    before, after, accepted = await _session_flood(800, addresses=8)
    limits = Limits()
    assert accepted <= limits.clients
    assert after < RSS_BOUND, f"{before:.1f} -> {after:.1f} MiB with {accepted} clients"


@pytest.mark.soak
async def test_five_thousand_sessions_keep_the_broker_within_its_memory_bound(
    request: pytest.FixtureRequest,
) -> None:
    if "soak" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("soak test: run with `make soak`")
    before, after, accepted = await _session_flood(5000, addresses=40)
    assert accepted <= Limits().clients
    assert after < RSS_BOUND, f"{before:.1f} -> {after:.1f} MiB with {accepted} clients"
    print(f"embedded broker RSS: {before:.1f} -> {after:.1f} MiB, {accepted} of 5000 accepted")


async def test_it_listens_only_where_it_is_told() -> None:
    async with running(Limits(), bind="127.0.0.1") as broker:
        listening = {
            (conn.laddr.ip, conn.laddr.port)
            for conn in psutil.Process(broker.pid).net_connections(kind="inet")
            if conn.status == psutil.CONN_LISTEN
        }
        assert listening == {("127.0.0.1", broker.port)}


async def test_it_listens_on_several_addresses_on_one_port() -> None:
    async with running(Limits(), bind="127.0.0.1") as first:
        port = first.port
    broker = await start_embedded_broker(["127.0.0.1", "127.0.0.5"], port)
    async with broker:
        listening = {
            conn.laddr.ip
            for conn in psutil.Process(broker.pid).net_connections(kind="inet")
            if conn.status == psutil.CONN_LISTEN and conn.laddr.port == broker.port
        }
        assert listening == {"127.0.0.1", "127.0.0.5"}
        assert broker.host == "127.0.0.1"


def connected_from(pid: int, port: int) -> bool:
    """Whether the broker still holds a connection from local port ``port``."""
    return any(
        conn.raddr and conn.raddr.port == port
        for conn in psutil.Process(pid).net_connections(kind="inet")
    )


async def stuck_subscriber(
    broker: EmbeddedBroker, topic_filter: bytes = b"#", qos: int = 1
) -> tuple[asyncio.StreamWriter, int]:
    """A client subscribed to ``topic_filter`` that never reads again, with
    a small receive window; its writer and local port."""
    reader, writer, code = await raw_connect(broker.port, name=b"stuck", receive_buffer=4096)
    assert code == 0
    subscribe = b"\x00\x01" + len(topic_filter).to_bytes(2, "big") + topic_filter + bytes([qos])
    writer.write(bytes([0x82, len(subscribe)]) + subscribe)
    await writer.drain()
    suback = await asyncio.wait_for(reader.readexactly(5), 5)
    assert suback == b"\x90\x03\x00\x01" + bytes([qos])
    return writer, writer.get_extra_info("sockname")[1]


# Slack over a stated bound, for the allocator (freed blocks it keeps) and
# amqtt's own growth; the bounds' absence costs four times as much and more.
RSS_SLACK = 8.0
FLOOD_MESSAGE = b"x" * 65536


async def test_a_client_that_stops_reading_is_dropped_before_it_grows_the_broker() -> None:
    """A subscriber to everything (QoS 0) that never reads: once the
    kernel's buffers are full, it is dropped (10 s without reading; 1 s
    here) before 64 MiB have been sent to it, having cost the broker no
    more than its outbox (1 MiB) and the slack; the broker and its other
    clients carry on. (At QoS 1 its unacknowledged messages fill its outbox
    first, and what does not fit is not queued: the test below.)"""
    limits = Limits(write_stall=1.0)
    async with running(limits) as broker:
        writer, stuck_port = await stuck_subscriber(broker, qos=0)
        before = rss_mib(broker.pid)
        sent = 0
        # Until the broker lets it go, however much the kernels buffer; the
        # stall is timed, so the bound is in time, not in messages (a fast
        # machine sent 64 MiB within the second: 4 December). The RSS below
        # is what says the broker did not grow meanwhile.
        deadline = time.monotonic() + 20 * limits.write_stall
        async with aiomqtt.Client(broker.host, broker.port, socket_options=NODELAY) as sender:
            while connected_from(broker.pid, stuck_port):
                assert time.monotonic() < deadline, (
                    f"the broker kept a client that reads nothing ({sent} messages)"
                )
                for _ in range(16):
                    await sender.publish("passe/v1/FLOOD/x", FLOOD_MESSAGE, qos=1)
                sent += 16
        after = rss_mib(broker.pid)
        print(f"broker RSS {before:.1f} -> {after:.1f} MiB after {sent} messages")
        assert after - before < limits.queued_bytes / 2**20 + RSS_SLACK
        writer.close()
        await honest_round_trip(broker)


async def test_what_waits_for_a_client_that_does_not_read_is_capped() -> None:
    """32 MiB published to a subscriber that never reads, within its stall
    time: amqtt held every message for it, in a task each (issue 19.7:
    measured 24 MiB for 27 MiB sent); its outbox holds 1 MiB, the rest is
    not queued for it, and the broker grows by no more than that and the
    slack."""
    limits = Limits(write_stall=60.0)
    async with running(limits) as broker:
        writer, stuck_port = await stuck_subscriber(broker)
        before = rss_mib(broker.pid)
        async with aiomqtt.Client(broker.host, broker.port, socket_options=NODELAY) as sender:
            for _ in range(512):
                await sender.publish("passe/v1/FLOOD/x", FLOOD_MESSAGE, qos=1)
        after = rss_mib(broker.pid)
        print(f"broker RSS {before:.1f} -> {after:.1f} MiB for 32 MiB sent to a stuck client")
        assert connected_from(broker.pid, stuck_port)  # not dropped: its messages were
        assert after - before < limits.queued_bytes / 2**20 + RSS_SLACK
        await honest_round_trip(broker)
        writer.close()


async def test_a_stuck_client_does_not_make_the_broker_keep_what_others_were_sent() -> None:
    """A client stuck on a topic of its own: amqtt forgot a delivered
    message only once every delivery started before it had finished, so
    while the stuck one waited, every message delivered to the others stayed
    in memory (measured: 64 MiB for 64 MiB delivered to an honest reader)."""
    limits = Limits(write_stall=60.0)
    async with running(limits) as broker:
        # QoS 0: its delivery waits on the drain (at QoS 1, on a PUBACK for
        # 5 s, after which amqtt goes on).
        writer, _ = await stuck_subscriber(broker, b"passe/v1/STUCK/x", qos=0)
        async with (
            aiomqtt.Client(broker.host, broker.port, socket_options=NODELAY) as sender,
            aiomqtt.Client(broker.host, broker.port, socket_options=NODELAY) as reader,
        ):
            for _ in range(128):  # more than the kernels buffer: its delivery waits
                await sender.publish("passe/v1/STUCK/x", FLOOD_MESSAGE, qos=1)
            await reader.subscribe("passe/v1/HONEST/x", qos=1)
            before = rss_mib(broker.pid)
            count = 1024
            # At most this many messages ahead of the reader: the broker's
            # queue for one client holds 1 MiB (15 of these), and a reader
            # slowed by a loaded machine lost the rest, so the test waited
            # for messages dropped by design (once, with four test workers
            # and a play-test on two cores).
            window = 8
            received = 0
            progress = asyncio.Event()

            async def read_all() -> None:
                nonlocal received
                async for _ in reader.messages:
                    received += 1
                    progress.set()
                    if received == count:
                        return

            reading = asyncio.create_task(read_all())
            for sent in range(count):
                while sent - received >= window:
                    progress.clear()
                    await asyncio.wait_for(progress.wait(), 30)
                await sender.publish("passe/v1/HONEST/x", FLOOD_MESSAGE, qos=1)
            await asyncio.wait_for(reading, 30)
            after = rss_mib(broker.pid)
        print(f"broker RSS {before:.1f} -> {after:.1f} MiB for 64 MiB delivered")
        assert after - before < limits.queued_bytes / 2**20 + RSS_SLACK
        writer.close()


def test_an_outbox_takes_one_message_always_then_up_to_its_caps() -> None:
    shared = Outboxes(per_client=100, total=150)
    first, second = shared.open(), shared.open()
    assert first.admit(500)  # nothing waits for it: one message of any size
    assert not first.admit(1)
    first.release(500)
    assert first.admit(60) and first.admit(40) and not first.admit(1)  # its own cap
    assert second.admit(40) and not second.admit(20)  # the total: 140 + 20 > 150
    assert (shared.queued, shared.dropped) == (140, 3)
    first.release(60)
    first.release(40)
    assert second.admit(20) and shared.queued == 60


# -- retained messages (7 December: a stranger's grew the broker without bound) --


def test_a_retained_quota_counts_each_address_and_all_and_frees_what_is_cleared() -> None:
    """Each address may hold so many retained topics and bytes, all of them
    together so many; a payload over the largest is never kept; replacing a
    topic counts once, and moves it to its new holder; clearing frees it."""
    quota = RetainedQuota(per_address=2, bytes_per_address=3000, total=3, bytes_total=10_000)
    quota.largest = 1000
    assert quota.admit("10.0.0.9", "t/1", 100) and quota.admit("10.0.0.9", "t/2", 100)
    assert not quota.admit("10.0.0.9", "t/3", 100)  # its two topics
    assert quota.admit("10.0.0.9", "t/2", 200)  # a topic of its own, replaced
    assert quota.admit("10.0.0.1", "h/1", 100)
    assert not quota.admit("10.0.0.1", "h/2", 100)  # three in all
    assert not quota.admit("10.0.0.1", "h/1", 1001)  # too large: h/1 keeps what it had
    assert quota.held["h/1"][0] == "10.0.0.1"
    assert quota.refused == 3
    quota.release("t/1")
    assert quota.admit("10.0.0.1", "h/2", 100)
    assert not quota.admit("10.0.0.1", "t/2", 100)  # 10.0.0.1 would hold three
    quota.release("h/2")
    # Another address's topic, replaced: now the replacer's.
    assert quota.admit("10.0.0.1", "t/2", 100) and quota.held["t/2"][0] == "10.0.0.1"
    assert quota.admit("10.0.0.9", "t/1", 1) and not quota.admit("10.0.0.9", "t/3", 1)  # 3 in all
    for topic in ("h/1", "t/1", "t/2"):
        quota.release(topic)
    assert quota.held == {} and quota._count == {} and quota._bytes == {}
    assert quota._bytes_total == 0
    # Bytes: per address, then in all.
    small = RetainedQuota(per_address=100, bytes_per_address=2000, total=100, bytes_total=3100)
    assert small.admit("a", "x", 1000) and not small.admit("a", "y", 1000)  # 512 each on top
    assert small.admit("b", "y", 1000) and not small.admit("c", "z", 100)


# The broker's RSS with every retained bound of three addresses reached,
# the defaults: 48 MiB of retained payloads (MiB).
RETAINED_RSS_BOUND = 100.0


async def _retained_flood(limits: Limits, per_address: int) -> tuple[float, float, int]:
    """Three addresses each retain ``per_address`` messages of 4 KB on fresh
    topics and one over the largest payload; then an honest client from its
    own address retains its presence, which a newcomer receives; of each
    address's topics, exactly the first ones up to its bound are kept. The
    broker's RSS before and after the flood, and how many each kept."""
    payload = bytes(4000)
    async with running(limits) as broker:
        before = rss_mib(broker.pid)
        for address in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):
            async with aiomqtt.Client(
                broker.host, broker.port, bind_address=address, timeout=30
            ) as flood:
                for n in range(per_address):
                    await flood.publish(
                        f"passe/v1/FLOOD1/presence/{address}-{n}", payload, retain=True
                    )
                # A payload over the largest: never kept.
                await flood.publish("passe/v1/FLOOD1/room", bytes(300 * 1024), qos=1, retain=True)
        after = rss_mib(broker.pid)
        async with aiomqtt.Client(broker.host, broker.port, timeout=10) as honest:
            await honest.publish("passe/v1/HONEST/presence/me", b"online", qos=1, retain=True)
        async with aiomqtt.Client(broker.host, broker.port, timeout=10) as newcomer:
            await newcomer.subscribe("passe/v1/HONEST/presence/me", qos=1)
            message = await asyncio.wait_for(anext(aiter(newcomer.messages)), 5)
            assert message.payload == b"online" and message.retain
            cost = 4000 + len("passe/v1/FLOOD1/presence/127.0.0.2-1000") + 512
            last = min(limits.retained_per_address, limits.retained_bytes_per_address // cost) - 1
            looked = [
                f"passe/v1/FLOOD1/presence/127.0.0.{a}-{n}" for a in (2, 3, 4) for n in (0, last)
            ]
            beyond = [f"passe/v1/FLOOD1/presence/127.0.0.{a}-{last + 1}" for a in (2, 3, 4)]
            for topic in [*looked, *beyond, "passe/v1/FLOOD1/room"]:
                await newcomer.subscribe(topic, qos=0)
            kept: list[str] = []
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2):
                    async for message in newcomer.messages:
                        kept.append(message.topic.value)
        assert sorted(kept) == sorted(looked), kept
        return before, after, last + 1


async def test_retained_messages_past_an_address_s_bound_are_not_kept_and_honest_ones_are() -> None:
    """By hand (7 December): 20,000 retained messages of 4 KB from one
    client grew the embedded broker from 29 to 113 MiB, without bound (1 MiB
    payloads would have been 1 MiB each). Three addresses each fill their
    bound (300 topics here; the defaults in `make soak`) and go on: only
    what the bound allows is kept, and an honest client from its own
    address still retains its presence."""
    limits = Limits(retained_per_address=300, retained_total=2000)
    before, after, kept = await _retained_flood(limits, 3000)
    assert kept == 300
    # What 300 a address cost (3.5 MiB of payloads, amqtt's objects and the
    # allocator's high-water mark), far under the 35 MiB all 3,000 a
    # address would: +4.5 to +6.4 MiB measured here on Python 3.11 and
    # 3.13 whether 1,500 or 3,000 came (the cost does not grow with the
    # flood), and +10.8 once in CI on 3.13 under load, when the bound was
    # 8 MiB over a flood of 1,500 (17 MiB if all kept): the flood is
    # larger now, so that a bound with room for the allocator's noise is
    # still far from what an unbounded broker keeps.
    assert after - before < 16.0, f"{before:.1f} -> {after:.1f} MiB"


@pytest.mark.soak
async def test_a_retained_flood_keeps_the_broker_within_its_memory_bound(
    request: pytest.FixtureRequest,
) -> None:
    """The defaults: three addresses offer 84 MB of retained messages."""
    if "soak" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("soak test: run with `make soak`")
    before, after, kept = await _retained_flood(Limits(), 7000)
    assert after < RETAINED_RSS_BOUND, f"{before:.1f} -> {after:.1f} MiB"
    print(f"embedded broker RSS: {before:.1f} -> {after:.1f} MiB, {kept} kept per address")


async def test_a_session_holds_so_many_filters_and_unsubscribed_ones_are_forgotten() -> None:
    """By hand (7 December): one client's 50,000 filters grew the embedded
    broker by 30 MiB (each publish is matched against them all), and amqtt
    kept an empty entry for every filter ever unsubscribed. On amqtt's own
    broker object: a session's new filter past the bound is refused (SUBACK
    0x80), one it holds may be subscribed again, one let go frees its place
    and leaves nothing behind; a session's end frees all of its own."""
    from amqtt.broker import Broker
    from amqtt.session import Session

    from net.lan import broker as broker_module

    broker = Broker(broker_module._broker_config())
    broker._subscriptions = broker_module._SnapshotDict(broker._subscriptions)
    broker_module._bounded_subscriptions(broker, 3)
    ana, ben = Session(), Session()
    ana.client_id, ben.client_id = "ana", "ben"
    codes = [await broker.add_subscription((f"t/{n}", 1), ana) for n in range(5)]
    assert codes == [1, 1, 1, 0x80, 0x80]
    assert await broker.add_subscription(("t/0", 0), ana) == 0  # held: again
    assert await broker.add_subscription(("t/3", 1), ben) == 1  # another session's own
    assert broker._del_subscription("t/1", ana) == 1
    assert "t/1" not in broker._subscriptions  # nobody holds it: forgotten
    assert await broker.add_subscription(("t/4", 1), ana) == 1  # its place, freed
    for n in range(1000):  # churn: nothing stays behind
        assert await broker.add_subscription((f"churn/{n}", 0), ben) == 0
        assert broker._del_subscription(f"churn/{n}", ben) == 1
    assert sorted(broker._subscriptions) == ["t/0", "t/2", "t/3", "t/4"]
    await broker._del_all_subscriptions(ana)
    assert sorted(broker._subscriptions) == ["t/3"]
    assert [await broker.add_subscription((f"u/{n}", 1), ana) for n in range(4)] == [1, 1, 1, 0x80]


async def test_the_serving_broker_refuses_a_session_s_filters_past_its_bound() -> None:
    """The bound is the serving broker's: a SUBSCRIBE of 300 filters gets
    256 granted and the rest refused, as is a filter of 257 characters, and
    the client's honest traffic goes on."""
    async with running(Limits()) as broker:
        async with aiomqtt.Client(broker.host, broker.port, timeout=10) as client:
            long = "passe/v1/LONG00/" + "x" * 241
            assert [_number(c) for c in await client.subscribe(long)] == [0x80]
            granted = await client.subscribe([(f"passe/v1/MANY00/x/{n}", 0) for n in range(300)])
            codes = [_number(code) for code in granted]
            assert codes.count(0) == Limits().filters_per_session == 256
            assert codes.count(0x80) == 300 - 256
        await honest_round_trip(broker)


async def test_a_connect_carrying_a_large_will_is_closed_and_a_passe_will_is_not() -> None:
    """amqtt holds a session's will for the session's life: a CONNECT of
    1 MiB (a will of that size) from each session allowed would have held
    320 MiB. A CONNECT over MAX_CONNECT_SIZE is closed unanswered; a client
    with a will of a presence's size connects."""
    from net.lan.broker import MAX_CONNECT_SIZE

    async with running(Limits()) as broker:
        big = aiomqtt.Will("passe/v1/WILL00/presence/x", bytes(MAX_CONNECT_SIZE), retain=True)
        with pytest.raises(aiomqtt.MqttError):
            async with aiomqtt.Client(broker.host, broker.port, will=big, timeout=2):
                pass
        small = aiomqtt.Will("passe/v1/WILL00/presence/x", bytes(300), retain=True)
        async with aiomqtt.Client(broker.host, broker.port, will=small, timeout=5) as client:
            await client.subscribe("passe/v1/WILL00/presence/x")
        await honest_round_trip(broker)
