"""The embedded broker's guard, graded by mutation testing: ``serve`` in the
test's own process and event loop (its child process, which the other
broker tests start, is out of mutmut's sight), on a free port of 127.0.0.1
only, with real clients over real sockets; and the guard's pieces sans I/O
(the framing, the first packet, the gate, the outboxes, the bounded writer).

Each test says what a hostile LAN sender could otherwise make the broker
do (hold, spend, keep) and which mutants of net/lan/broker.py it kills.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import logging
import os
import resource
import socket
import struct
import sys
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import aiomqtt
import pytest

from net.lan import broker as broker_module
from net.lan.broker import (
    DEFAULT_MAX_PACKET_SIZE,
    IDENTIFIER_REJECTED,
    MESSAGE_OVERHEAD,
    SERVER_UNAVAILABLE,
    SESSION_EXPIRY,
    BrokerError,
    ConnectInfo,
    Gate,
    LimitedStreamReader,
    Limits,
    MqttFraming,
    Outboxes,
    PacketTooLarge,
    RefusedConnect,
    ReplayReader,
    _SnapshotDict,
    _SweptTasks,
    bounded_writer,
    limit_arguments,
    message_cost,
    parse_connect,
    read_first_packet,
)

NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
LOOPBACK = "127.0.0.1"
WAIT = 10.0  # seconds: the bound on any wait for the broker (never reached when it works)


def connect_packet(
    name: bytes = b"", keepalive: int = 30, *, clean: bool = True, protocol: bytes = b"MQTT"
) -> bytes:
    """An MQTT CONNECT (level 4 for MQTT, 3 for MQIsdp), no will, its
    remaining length in as many bytes as it takes."""
    level = b"\x04" if protocol == b"MQTT" else b"\x03"
    body = len(protocol).to_bytes(2, "big") + protocol + level
    body += (b"\x02" if clean else b"\x00") + keepalive.to_bytes(2, "big")
    body += len(name).to_bytes(2, "big") + name
    return b"\x10" + remaining_length(len(body)) + body


def remaining_length(value: int) -> bytes:
    """MQTT's variable-length integer."""
    out = bytearray()
    while True:
        byte, value = value % 128, value // 128
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def publish_packet(topic: bytes, payload: bytes) -> bytes:
    """A QoS 0 PUBLISH."""
    body = len(topic).to_bytes(2, "big") + topic + payload
    return b"\x30" + remaining_length(len(body)) + body


def fed(data: bytes, *, eof: bool = True) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    if eof:
        reader.feed_eof()
    return reader


# -- the framing of what a client sends -----------------------------------------------


def test_a_packet_of_exactly_the_limit_passes_and_one_byte_more_is_refused() -> None:
    """A sender announcing a body bigger than the limit is cut off before its
    body is buffered; a packet of exactly the limit (fixed header included,
    as Mosquitto counts) must still pass, or the largest legal message of a
    game would drop its sender. Kills the comparison and sum mutants of
    MqttFraming.feed (``>=``, ``-``, the header bytes left out)."""
    packet = publish_packet(b"t", b"x" * 300)  # 2-byte length: 3 + 303 bytes
    MqttFraming(len(packet)).feed(packet)
    with pytest.raises(PacketTooLarge) as caught:
        MqttFraming(len(packet) - 1).feed(packet)
    assert str(caught.value) == f"a packet of {len(packet)} bytes (limit {len(packet) - 1})"


def test_the_announced_length_is_read_in_base_128_whatever_the_split() -> None:
    """The limit must apply to the length as MQTT encodes it (7 bits a
    byte, least significant first): a wrong multiplier lets a 2 MiB packet
    through or refuses a small one. Fed one byte at a time and whole, then a
    second packet after the body to check the body was skipped exactly.
    Kills the multiplier and length mutants of MqttFraming.feed."""
    big = b"\x30" + remaining_length(2 * 1024 * 1024)  # four length bytes
    MqttFraming(2 * 1024 * 1024 + 5).feed(big)
    with pytest.raises(PacketTooLarge, match=f"a packet of {2 * 1024 * 1024 + 5} bytes"):
        MqttFraming(2 * 1024 * 1024 + 4).feed(big)
    MqttFraming(100 * 128 + 3).feed(b"\x30" + remaining_length(100 * 128))  # two bytes
    stream = publish_packet(b"t", b"y" * 130) + b"\xc0\x00" + publish_packet(b"t", b"z" * 129)
    whole = MqttFraming(136)
    whole.feed(stream)
    bytewise = MqttFraming(136)
    for index in range(len(stream)):
        bytewise.feed(stream[index : index + 1])
    # The third packet is 135 bytes: one byte less of limit refuses it only.
    with pytest.raises(PacketTooLarge, match="a packet of 136 bytes"):
        MqttFraming(135).feed(stream)


def test_four_length_bytes_are_allowed_and_a_fifth_is_malformed() -> None:
    """MQTT's length has at most four bytes; a fifth continuation would make
    the broker add ever larger numbers for as long as the sender likes.
    Kills ``>= 5`` mutated to ``> 5`` or ``>= 6`` / ``>= 4``."""
    MqttFraming(10**9).feed(b"\x30\xff\xff\xff\x7f")  # 256 MiB - 1, announced in four
    for five in (b"\x30\xff\xff\xff\xff\x01", b"\x30\xff\xff\xff\xff\xff\x01"):
        with pytest.raises(PacketTooLarge) as caught:
            MqttFraming(10**12).feed(five)
        assert str(caught.value) == "malformed remaining length"


def test_a_packet_with_no_body_leaves_the_next_byte_a_packet_type() -> None:
    """A PINGREQ (no body) then a big PUBLISH: the next byte after an empty
    body must start a packet again, or the sender shifts the framing and
    smuggles a length past the limit. Kills the ``_in_header`` and
    ``_body_left`` resets of MqttFraming.feed."""
    framing = MqttFraming(10)
    framing.feed(b"\xc0\x00\xc0\x00")
    with pytest.raises(PacketTooLarge, match="a packet of 12 bytes"):
        framing.feed(b"\x30\x0a")
    framing = MqttFraming(10)
    framing.feed(b"\x30\x05ab")  # a body cut short: its rest comes next
    framing.feed(b"cde\xc0\x00")  # "d" would announce 100 bytes if read as a length
    framing = MqttFraming(10)
    framing.feed(b"\x30\x02ab")  # a body skipped exactly, then a header again
    with pytest.raises(PacketTooLarge, match="a packet of 11 bytes"):
        framing.feed(b"\x30\x09")


async def test_the_limited_reader_reads_what_amqtt_asks_and_refuses_past_the_limit(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """amqtt reads a packet in pieces (``read(n)`` exactly n, or what is
    there); every byte goes through the framing, and a packet over the
    limit ends the client with a warning naming it. Kills the mutants of
    LimitedStreamReader.read (read vs readexactly, the log line) and
    feed_eof."""
    stream = fed(b"\x30\x03\x00\x01x\xc0\x00")
    reader = LimitedStreamReader(stream, MqttFraming(10), "peer-1")
    assert await reader.read(2) == b"\x30\x03"
    assert await reader.read(3) == b"\x00\x01x"
    async with asyncio.timeout(WAIT):
        assert await reader.read() == b"\xc0\x00"
    reader2 = LimitedStreamReader(fed(b"\x30\x7f"), MqttFraming(10), "peer-2")
    with caplog.at_level(logging.WARNING, "passe.broker"), pytest.raises(PacketTooLarge):
        await reader2.read(2)
    assert caplog.messages == ["client peer-2 sent a packet of 129 bytes (limit 10): disconnected"]
    ending = asyncio.StreamReader()
    LimitedStreamReader(ending, MqttFraming(10), "peer-3").feed_eof()
    assert ending.at_eof()
    with pytest.raises(asyncio.IncompleteReadError):
        await LimitedStreamReader(fed(b"\xc0"), MqttFraming(10), "p").read(2)


async def test_the_limited_reader_reads_what_is_there_when_asked_for_anything() -> None:
    """``read()`` with no size reads to the stream's end, through the
    framing all the same; ``readexactly(-1)`` would fail. Kills the
    ``n == -1`` mutants of LimitedStreamReader.read."""
    reader = LimitedStreamReader(fed(b"\xc0\x00"), MqttFraming(10), "p")
    async with asyncio.timeout(WAIT):
        assert await reader.read() == b"\xc0\x00"
    reader = LimitedStreamReader(fed(b"\xc0\x00\x30\x7f"), MqttFraming(10), "p")
    with pytest.raises(PacketTooLarge):
        await reader.read(-1)


# -- the first packet ---------------------------------------------------------------------


async def test_the_first_packet_is_read_whole_with_a_long_length() -> None:
    """A CONNECT with a client id long enough for a two-byte length is read
    whole and nothing more (the next packet stays in the stream for amqtt).
    Kills the length decoding mutants of read_first_packet (the shift, the
    7 bits, the header slice)."""
    packet = connect_packet(b"n" * 200)
    assert packet[1] & 0x80  # two length bytes
    reader = fed(packet + b"\xc0\x00")
    assert await read_first_packet(reader, 1024) == packet
    assert await reader.read() == b"\xc0\x00"
    small = connect_packet(b"me")
    assert await read_first_packet(fed(small), len(small)) == small


async def test_a_first_packet_that_is_no_plain_connect_is_refused_without_a_connack() -> None:
    """The first packet must be a CONNECT with flags 0 (MQTT-3.1.0-1): a
    sender's PUBLISH or a CONNECT with reserved flags is refused, with no
    code (the connection is just closed). Kills the 0x10 and type mutants
    of read_first_packet."""
    for first, kind in ((b"\x30\x00", 3), (b"\x11\x00", 1), (b"\xc0\x00", 12)):
        with pytest.raises(RefusedConnect) as caught:
            await read_first_packet(fed(first), 1024)
        assert str(caught.value) == f"first packet of type {kind}, not CONNECT"
        assert caught.value.code is None


async def test_a_first_packet_over_the_limit_is_refused_before_its_body() -> None:
    """A CONNECT announcing more than the limit is refused as soon as its
    length is read: its body (up to 256 MiB) is never awaited, so the
    stream need not hold it. Kills the mutants that feed the framing
    nothing, another limit, or raise a different error."""
    with pytest.raises(RefusedConnect) as caught:
        async with asyncio.timeout(WAIT):
            await read_first_packet(fed(b"\x10\xff\xff\x7f", eof=False), 1000)
    assert str(caught.value) == "a packet of 2097155 bytes (limit 1000)"
    assert caught.value.code is None
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    with pytest.raises(RefusedConnect, match="malformed"):
        await read_first_packet(fed(b"\x10\xff\xff\xff\xff\x7f"), 10**12)
    packet = connect_packet(b"x" * 20)
    with pytest.raises(RefusedConnect, match=f"a packet of {len(packet)} bytes"):
        await read_first_packet(fed(packet), len(packet) - 1)


async def test_a_first_packet_cut_short_is_an_incomplete_read() -> None:
    """A sender closing mid-packet is no refusal (nothing to log): it is
    gone. Kills mutants turning the short read into a wrong packet."""
    for cut in (b"", b"\x10", b"\x10\x80", b"\x10\x05\x00"):
        with pytest.raises(asyncio.IncompleteReadError):
            await read_first_packet(fed(cut), 1024)


def test_the_keepalive_and_clean_session_are_read_after_any_protocol_name() -> None:
    """The gate's keep-alive check reads past the protocol name by its
    length (MQTT 3.1's "MQIsdp" is 6 bytes, 3.1.1's "MQTT" 4) and past a
    long packet's two length bytes; a wrong offset reads the client id as
    the keep-alive. Kills the offset and flag mutants of parse_connect."""
    assert parse_connect(connect_packet(b"me", 30)) == ConnectInfo(30, True)
    assert parse_connect(connect_packet(b"me", 300, clean=False)) == ConnectInfo(300, False)
    assert parse_connect(connect_packet(b"m", 7, protocol=b"MQIsdp")) == ConnectInfo(7, True)
    long = connect_packet(b"\xff" * 300, 0x1234, clean=False)
    assert parse_connect(long) == ConnectInfo(0x1234, False)
    flags_only = b"\x10\x0a\x00\x04MQTT\x04\xc2\x01\x02"  # user name and password flags too
    assert parse_connect(flags_only) == ConnectInfo(0x0102, True)
    reserved = b"\x10\x0a\x00\x04MQTT\x04\x01\x00\x1e"  # bit 0 is reserved, not clean session
    assert parse_connect(reserved) == ConnectInfo(30, False)


def test_a_connect_cut_anywhere_before_its_keepalive_is_refused() -> None:
    """The exact edges of "too short": a CONNECT ending right after its
    keep-alive is read; one byte less is refused in words (not an
    IndexError, which would end the client with a traceback in the log).
    Kills the ``< 2`` and ``< flags_at + 3`` edge mutants."""
    whole = b"\x00\x04MQTT\x04\x02\x00\x1e"
    assert parse_connect(b"\x10" + bytes([len(whole)]) + whole) == ConnectInfo(30, True)
    for end in range(len(whole)):
        body = whole[:end]
        with pytest.raises(RefusedConnect) as caught:
            parse_connect(b"\x10" + bytes([len(body)]) + body)
        assert str(caught.value) == "a CONNECT too short"


# -- the connect handed on ------------------------------------------------------------


class Inner:
    """A LimitedStreamReader stand-in recording what is asked of it."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.asked: list[int] = []
        self.ended = False

    async def read(self, n: int = -1) -> bytes:
        self.asked.append(n)
        if n == -1:
            taken, self.data = self.data, b""
        else:
            taken, self.data = self.data[:n], self.data[n:]
        return taken

    def feed_eof(self) -> None:
        self.ended = True


async def test_the_connect_is_given_back_to_amqtt_before_the_rest() -> None:
    """amqtt reads the CONNECT the gate already took: in pieces, whole, or
    with more than it; not one byte may be lost or given twice, and the
    stream is not read while the prefix answers. Kills the mutants of
    ReplayReader.read (the slices, ``>=``, ``more``)."""
    inner = Inner(b"REST")
    replay = ReplayReader(b"CONNECT", inner)  # type: ignore[arg-type]
    assert await replay.read(3) == b"CON"
    assert await replay.read(4) == b"NECT"
    assert inner.asked == []
    assert await replay.read(2) == b"RE"
    assert inner.asked == [2]
    inner = Inner(b"REST")
    replay = ReplayReader(b"CONNECT", inner)  # type: ignore[arg-type]
    assert await replay.read(9) == b"CONNECTRE"
    assert inner.asked == [2]
    inner = Inner(b"REST")
    replay = ReplayReader(b"CONNECT", inner)  # type: ignore[arg-type]
    assert await replay.read() == b"CONNECT"
    assert inner.asked == []
    assert await replay.read() == b"REST"
    assert inner.asked == [-1]
    replay.feed_eof()
    assert inner.ended


# -- the bounded writer, over a stand-in transport ---------------------------------------


class Transport:
    """What bounded_writer reads of a socket's transport."""

    def __init__(self, buffered: int = 0) -> None:
        self.buffered = buffered
        self.closing = False
        self.aborted = 0

    def is_closing(self) -> bool:
        return self.closing

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def abort(self) -> None:
        self.aborted += 1
        self.closing = True


class Writer:
    """An asyncio.StreamWriter stand-in whose drain waits until ``drained``."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.written: list[bytes] = []
        self.drained = asyncio.Event()

    def write(self, data: bytes) -> None:
        self.written.append(data)

    async def drain(self) -> None:
        await self.drained.wait()


def test_a_client_is_dropped_once_more_than_the_write_buffer_would_wait(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A subscriber that reads nothing: what waits for it in the broker's
    memory is capped at ``write_buffer`` bytes; up to the cap exactly it is
    written, past it the client is aborted once, with a warning, and
    nothing more is written to it. Kills the mutants of BoundedWriter.write
    and of ``drop`` (``>``, ``+``, the closing checks, the log line)."""
    transport = Transport(buffered=90)
    writer = Writer(transport)
    outbox = Outboxes(10, 10).open()
    adapter = bounded_writer(writer, 100, 5.0, "peer-9", outbox)  # type: ignore[arg-type]
    assert adapter.passe_outbox is outbox
    adapter.write(b"x" * 10)  # 100: not more than the limit
    assert writer.written == [b"x" * 10] and transport.aborted == 0
    with caplog.at_level(logging.WARNING, "passe.broker"):
        adapter.write(b"y" * 11)
        adapter.write(b"z")
    assert writer.written == [b"x" * 10]
    assert transport.aborted == 1
    assert caplog.messages == ["client peer-9 does not read (100 bytes waiting): dropped"]


def test_nothing_is_written_to_a_client_already_closing() -> None:
    """Once a client's transport closes (dropped, or gone), amqtt's writes
    are ignored rather than buffered for no one. Kills the mutant that
    drops the ``is_closing`` check of BoundedWriter.write."""
    transport = Transport()
    transport.closing = True
    writer = Writer(transport)
    adapter = bounded_writer(writer, 100, 5.0, "p", Outboxes(1, 1).open())  # type: ignore[arg-type]
    adapter.write(b"x")
    assert writer.written == [] and transport.aborted == 0


async def test_a_client_that_reads_nothing_for_the_stall_time_is_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """amqtt awaits each write's drain under the client's lock, and every
    message for it waits meanwhile: a drain that does not end within the
    stall time aborts the client and ends amqtt's wait with a connection
    error (a stall of 0 here: the drain cannot end at once). A drain that
    ends is awaited normally. Kills the mutants of BoundedWriter.drain."""
    transport = Transport()
    writer = Writer(transport)
    adapter = bounded_writer(writer, 100, 0.0, "peer-7", Outboxes(1, 1).open())  # type: ignore[arg-type]
    with (
        caplog.at_level(logging.WARNING, "passe.broker"),
        pytest.raises(ConnectionResetError, match=r"^the client does not read$"),
    ):
        async with asyncio.timeout(WAIT):
            await adapter.drain()
    assert transport.aborted == 1
    assert caplog.messages == ["client peer-7 does not read (nothing written for 0 s): dropped"]
    patient = Writer(Transport())
    adapter = bounded_writer(patient, 100, WAIT, "p", Outboxes(1, 1).open())  # type: ignore[arg-type]
    draining = asyncio.create_task(adapter.drain())
    await asyncio.sleep(0)
    patient.drained.set()
    async with asyncio.timeout(WAIT):
        await draining
    assert patient.transport.aborted == 0


async def test_a_stall_on_a_client_already_dropped_is_not_dropped_twice(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A client aborted by the write bound whose drain then times out is
    not aborted nor logged again. Kills the mutant of ``drop`` that loses
    its ``is_closing`` check."""
    transport = Transport()
    transport.closing = True
    adapter = bounded_writer(Writer(transport), 100, 0.0, "p", Outboxes(1, 1).open())  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, "passe.broker"), pytest.raises(ConnectionResetError):
        await adapter.drain()
    assert transport.aborted == 0 and caplog.messages == []


# -- what waits for each client ---------------------------------------------------


def test_an_outbox_takes_exactly_up_to_its_caps() -> None:
    """The caps are inclusive: a message bringing a client's queue to
    exactly its cap, or all queues to exactly the total, is queued; one
    byte more is not, and is counted. Kills the ``>``/``>=`` and ``+``
    mutants of Outbox.admit and the counts of Outbox.release."""
    shared = Outboxes(per_client=100, total=150)
    first, second = shared.open(), shared.open()
    assert first.admit(60) and first.admit(40)
    assert (first.queued, shared.queued) == (100, 100)
    assert not first.admit(1) and shared.dropped == 1
    assert second.admit(30) and second.admit(20)  # the total: exactly 150
    assert not second.admit(1) and shared.dropped == 2
    second.release(20)
    assert (second.queued, shared.queued) == (30, 130)
    assert second.admit(20) and shared.queued == 150
    first.release(100)
    assert (first.queued, shared.queued, shared.dropped) == (0, 50, 2)


def test_a_message_costs_its_topic_payload_and_overhead() -> None:
    """A message's cost is what amqtt holds for it: an empty payload (None
    for a will or a retained delete) still costs its topic and overhead.
    Kills the arithmetic mutants of message_cost."""
    assert message_cost("abc", b"12345") == 8 + MESSAGE_OVERHEAD
    assert message_cost("abc", None) == 3 + MESSAGE_OVERHEAD
    assert message_cost("", bytearray(7)) == 7 + MESSAGE_OVERHEAD


# -- the gate, sans I/O -----------------------------------------------------------


def test_silent_connections_are_pushed_out_oldest_first_and_counted() -> None:
    """A flood of connections that send nothing: per address, then in
    total, the oldest waiting one goes, never the newest (an honest client
    sends its CONNECT at once); each counts as dropped; one that left is
    forgotten. Kills the mutants of Gate.arrive and leave_pending."""
    gate = Gate(Limits(pending_per_address=2, pending=4))
    assert gate.arrive("a1", "A") == [] and gate.arrive("b1", "B") == []
    assert gate.arrive("a2", "A") == []
    assert gate.arrive("a3", "A") == ["a1"]
    assert gate.arrive("a4", "A") == ["a2"]
    assert gate.dropped == 2 and gate.pending == 3
    assert gate.arrive("c1", "C") == []
    assert gate.arrive("d1", "D") == ["b1"]  # the total: four waiting at most
    assert gate.arrive("e1", "E") == ["a3"]
    assert (gate.dropped, gate.pending) == (4, 4)
    gate.leave_pending("a4")
    gate.leave_pending("unknown")
    assert gate.pending == 3
    assert gate.arrive("a5", "A") == []  # a4 left: A has room again
    assert gate.arrive("f1", "F") == ["c1"]
    one = Gate(Limits(pending_per_address=1, pending=1))
    assert one.arrive("x", "X") == [] and one.arrive("y", "Y") == ["x"]
    assert one.arrive("z", "Y") == ["y"] and one.dropped == 2


def test_the_keepalive_must_be_from_one_second_to_the_maximum() -> None:
    """A keep-alive of 0 is never checked (a dead client held for ever) and
    a long one is almost as bad: refused with "identifier rejected", as
    Mosquitto's max_keepalive does, and counted; the edges 1 and the
    maximum are accepted. Kills the keep-alive mutants of Gate.admit."""
    gate = Gate(Limits(max_keepalive=300))
    for keepalive in (0, 301, 65535):
        with pytest.raises(RefusedConnect) as caught:
            gate.admit("A", ConnectInfo(keepalive, True), 0)
        assert caught.value.code == IDENTIFIER_REJECTED
        assert str(caught.value) == f"keep-alive {keepalive} s (1-300 s accepted)"
    assert gate.refused == 3 and gate.clients == 0
    gate.admit("A", ConnectInfo(1, True), 0)
    gate.admit("A", ConnectInfo(300, False), 0)
    assert gate.clients == 2 and gate.refused == 3


def test_clients_are_capped_per_address_in_total_and_by_sessions() -> None:
    """One address may hold ``clients_per_address`` clients, all together
    ``clients``, and amqtt ``sessions`` sessions: the next is refused with
    "server unavailable" (and counted), exactly at each cap; a client that
    departs frees its place. Kills the mutants of Gate.admit's caps and of
    Gate.depart and Gate.clients."""
    gate = Gate(Limits(clients_per_address=2, clients=3, sessions=10))
    ok = ConnectInfo(30, True)
    gate.admit("A", ok, 0)
    gate.admit("A", ok, 0)
    with pytest.raises(RefusedConnect) as caught:
        gate.admit("A", ok, 0)
    assert (str(caught.value), caught.value.code) == (
        "2 clients from this address already",
        SERVER_UNAVAILABLE,
    )
    gate.admit("B", ok, 0)
    assert gate.clients == 3
    with pytest.raises(RefusedConnect) as caught:
        gate.admit("C", ok, 0)
    assert (str(caught.value), caught.value.code) == ("the broker is full", SERVER_UNAVAILABLE)
    assert gate.refused == 2
    gate.depart("A")
    assert gate.clients == 2
    gate.admit("C", ok, 9)  # nine sessions: one more is allowed
    with pytest.raises(RefusedConnect, match="the broker is full"):
        gate.depart("C")
        gate.admit("C", ok, 10)
    assert gate.refused == 3
    gate.depart("A")
    gate.depart("A")  # one more than it had: nothing goes below zero
    gate.depart("nobody")
    assert gate.clients == 1
    gate.admit("A", ok, 0)
    gate.admit("A", ok, 0)
    assert gate.clients == 3
    with pytest.raises(RefusedConnect, match="2 clients from this address already"):
        gate.admit("A", ok, 0)
    assert gate.refused == 4
    single = Gate(Limits(clients_per_address=1))
    single.admit("new", ok, 0)  # an address never seen has no client yet
    assert single.clients == 1


def test_an_address_that_departs_entirely_is_forgotten() -> None:
    """A gate must not keep an entry for every address ever seen (a
    sender changing addresses would grow it): the last client's departure
    removes the address. Kills ``left > 0`` mutated to ``>= 0``."""
    gate = Gate(Limits())
    gate.admit("A", ConnectInfo(30, True), 0)
    gate.depart("A")
    assert gate._clients == {}
    gate.admit("A", ConnectInfo(30, True), 0)
    gate.admit("A", ConnectInfo(30, True), 0)
    gate.depart("A")
    assert gate._clients == {"A": 1}


# -- amqtt's queues -----------------------------------------------------------------


class Task:
    """A delivery task stand-in: done or not, cancelled or not."""

    def __init__(self, done: bool = True, cancelled: bool = False) -> None:
        self._done = done
        self._cancelled = cancelled
        self.retrieved = 0

    def done(self) -> bool:
        return self._done

    def cancelled(self) -> bool:
        return self._cancelled

    def exception(self) -> BaseException | None:
        if self._cancelled:
            raise asyncio.CancelledError
        self.retrieved += 1
        return None


def test_finished_deliveries_are_swept_once_the_queue_has_doubled() -> None:
    """amqtt forgot a delivered message only once every earlier delivery
    had finished: behind one stuck client every other message stayed in
    memory. The queue keeps only running tasks once it reaches 64, then
    twice the running ones; a finished task's exception is retrieved, a
    cancelled one's is not asked for (that would raise). Kills the mutants
    of _SweptTasks.append and __init__."""
    queue = _SweptTasks()
    stuck = Task(done=False)
    queue.append(stuck)
    finished = [Task() for _ in range(62)]
    for task in finished:
        queue.append(task)
    assert len(queue) == 63 and all(task.retrieved == 0 for task in finished)
    cancelled = Task(cancelled=True)
    queue.append(cancelled)  # the 64th: swept
    assert list(queue) == [stuck]
    assert all(task.retrieved == 1 for task in finished)
    for _ in range(62):
        queue.append(Task(done=False))
    queue.append(Task())  # the 64th again: 63 running are left
    assert len(queue) == 63
    late = Task()
    queue.append(late)  # the next sweep waits for 2 x 63 = 126
    for _ in range(61):
        queue.append(Task(done=False))
    assert len(queue) == 125 and late in queue and late.retrieved == 0
    queue.append(Task(done=False))
    assert len(queue) == 125 and late not in queue and late.retrieved == 1


def test_what_a_client_is_sent_goes_through_its_outbox() -> None:
    """Each message amqtt hands a client is counted in the client's outbox
    while its delivery runs, released when it ends (even by an error), and
    not queued at all (no delivery started) when it does not fit; the
    handler is wrapped once, and handlers without an outbox (amqtt's own)
    are left alone. Kills the mutants of _bounded_queues."""

    from amqtt.errors import ProtocolHandlerError

    async def run() -> None:
        outboxes = Outboxes(per_client=2 * MESSAGE_OVERHEAD + 20, total=10**9)
        outbox = outboxes.open()
        started: list[tuple[Any, ...]] = []
        gate = asyncio.Event()

        class Handler:
            writer = type("W", (), {"passe_outbox": outbox})()

            async def mqtt_publish(self, *args: Any) -> str:
                started.append(args)
                try:
                    await gate.wait()
                except asyncio.CancelledError:
                    # As amqtt's handler says a write cancelled mid-way.
                    raise ProtocolHandlerError("Packet handling was cancelled") from None
                if args[1] == b"boom":
                    raise ConnectionResetError
                if args[1] == b"odd":
                    raise ProtocolHandlerError("a failure of its own")
                return "sent"

        handler = Handler()
        bare = type("Bare", (), {"writer": None})()

        class Amqtt:
            _tasks_queue: Any = None

            def _get_handler(self, session: Any) -> Any:
                return {"client": handler, "bare": bare}.get(session)

        amqtt = Amqtt()
        broker_module._bounded_queues(amqtt)
        assert isinstance(amqtt._tasks_queue, _SweptTasks)
        assert amqtt._get_handler("nobody") is None
        assert amqtt._get_handler("bare") is bare
        wrapped = amqtt._get_handler("client")
        assert wrapped is handler and amqtt._get_handler("client").mqtt_publish is (
            handler.mqtt_publish
        )
        first = asyncio.ensure_future(wrapped.mqtt_publish("t", b"12345", 1, False))
        second = asyncio.ensure_future(wrapped.mqtt_publish("t", b"boom", 0, True, 7))
        await asyncio.sleep(0)
        assert started == [("t", b"12345", 1, False, None), ("t", b"boom", 0, True, 7)]
        cost = message_cost("t", b"12345") + message_cost("t", b"boom")
        assert outbox.queued == cost
        refused = wrapped.mqtt_publish("t", b"x" * 20, 1, False)
        assert await refused is None
        assert len(started) == 2 and outboxes.dropped == 1
        gate.set()
        assert await first == "sent"
        with pytest.raises(ConnectionResetError):
            await second
        assert (outbox.queued, outboxes.queued) == (0, 0)
        # Cancelled while it writes (the broker shutting down): amqtt's
        # error is said as the cancel it is (amqtt logged it as a failure,
        # with a traceback), and its place in the outbox is given back.
        gate = asyncio.Event()
        cancelled = asyncio.ensure_future(wrapped.mqtt_publish("t", b"cut", 0, False))
        await asyncio.sleep(0)
        assert outbox.queued == message_cost("t", b"cut")
        cancelled.cancel()
        with pytest.raises(asyncio.CancelledError):
            await cancelled
        assert outbox.queued == 0
        odd = asyncio.ensure_future(wrapped.mqtt_publish("t", b"odd", 0, False))
        gate.set()
        with pytest.raises(ProtocolHandlerError):  # not a cancel: as it came
            await odd
        assert (outbox.queued, outboxes.queued) == (0, 0)

    asyncio.run(run())


def test_an_iteration_over_subscriptions_survives_a_change_meanwhile() -> None:
    """amqtt loops over every session's subscriptions with an await inside;
    a client subscribing meanwhile reset the connection of another joining
    at the same moment. Kills the mutants of _SnapshotDict.__iter__."""
    table = _SnapshotDict({"a": 1, "b": 2})
    seen = []
    for key in table:
        seen.append(key)
        table[key + "x"] = 0
    assert seen == ["a", "b"] and len(table) == 4


def test_retained_messages_go_only_to_the_session_that_subscribed() -> None:
    """amqtt 0.12 sent a new client every retained message that matched
    any session's filter: 30,000 retained presences buried a joiner. Only
    a session among the filter's own subscribers gets them. Kills the
    mutants of _only_own_retained."""
    sent: list[tuple[Any, Any]] = []

    class Session:
        def __init__(self, client_id: str) -> None:
            self.client_id = client_id

    class Amqtt:
        def __init__(self) -> None:
            self._subscriptions = {"presence/+": [(Session("host"), 1), (Session("joiner"), 1)]}

        async def _publish_retained_messages_for_subscription(
            self, subscription: Any, session: Any
        ) -> None:
            sent.append((subscription, session.client_id))

    amqtt = Amqtt()
    broker_module._only_own_retained(amqtt)

    async def run() -> None:
        publish = amqtt._publish_retained_messages_for_subscription
        await publish(("presence/+", 1), Session("joiner"))
        await publish(("presence/+", 1), Session("stranger"))
        await publish(("nobody/#", 1), Session("joiner"))

    asyncio.run(run())
    assert sent == [(("presence/+", 1), "joiner")]


def test_amqtt_is_configured_with_the_guard_in_front_and_sessions_that_expire() -> None:
    """The listener must be amqtt's external one (the gate accepts the
    connections, amqtt never listens itself), a disconnected session goes
    after SESSION_EXPIRY, keep-alives get their grace, and only anonymous
    authentication is loaded (no $SYS topics). Kills the mutants of
    _broker_config."""
    config = broker_module._broker_config()
    assert config == {
        "listeners": {"default": {"type": "external"}},
        "timeout_disconnect_delay": 10,
        "session_expiry_interval": SESSION_EXPIRY,
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }


# -- logging and the command line ------------------------------------------------


@pytest.fixture
def logging_restored() -> Iterator[None]:
    """The root logger's handlers and levels, and amqtt's, as they were."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    levels = {name: logging.getLogger(name).level for name in ("amqtt", "transitions")}
    root.handlers[:] = []
    try:
        yield
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


@pytest.mark.usefixtures("logging_restored")
def test_the_broker_logs_warnings_through_the_safe_formatter_and_silences_amqtt() -> None:
    """Log lines quote client ids and topics from the network: they go
    through the safe formatter; amqtt's errors for every connection closed
    before its CONNECT (a port scan) are silenced unless verbose. Kills the
    mutants of _quiet_logging."""
    from net.protocol.text import SafeFormatter

    root = logging.getLogger()
    root.handlers[:] = []  # pytest's own, for this test's call
    broker_module._quiet_logging(False)
    assert root.level == logging.WARNING
    [handler] = root.handlers
    assert isinstance(handler.formatter, SafeFormatter)
    record = logging.LogRecord("passe.broker", logging.WARNING, "", 0, "x %s", ("y",), None)
    assert handler.format(record) == "passe broker: WARNING passe.broker: x y"
    for name in ("amqtt", "transitions"):
        assert logging.getLogger(name).level == logging.CRITICAL
    root.handlers[:] = []
    for name in ("amqtt", "transitions"):
        logging.getLogger(name).setLevel(logging.NOTSET)
    broker_module._quiet_logging(True)
    assert root.level == logging.DEBUG
    for name in ("amqtt", "transitions"):
        assert logging.getLogger(name).level == logging.NOTSET


def test_a_system_refusing_more_open_files_does_not_stop_the_broker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Raising the soft limit can fail (a hard limit the kernel caps lower:
    ValueError; not permitted: OSError): the broker starts all the same
    with what it has. Kills the ``suppress`` mutants of _more_files."""
    asked: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "getrlimit", lambda kind: (1024, 4096))
    for error in (ValueError("not allowed"), OSError(errno.EPERM, "Operation not permitted")):

        def refuse(kind: int, limits: tuple[int, int], error: Exception = error) -> None:
            asked.append(limits)
            raise error

        monkeypatch.setattr(resource, "setrlimit", refuse)
        broker_module._more_files()
    assert asked == [(4096, 4096)] * 2


def test_more_open_files_are_asked_for() -> None:
    """Each client is a socket: a flood of them must not hit a soft limit
    below what the system allows. Kills the mutants of _more_files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    lower = min(soft, hard, 4096) - 1
    resource.setrlimit(resource.RLIMIT_NOFILE, (lower, hard))
    try:
        broker_module._more_files()
        assert resource.getrlimit(resource.RLIMIT_NOFILE) == (hard, hard)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, lower), hard))


def test_the_limits_differing_from_the_defaults_become_options() -> None:
    """The parent hands the child its limits on the command line: only
    those that differ, each as ``--name value``. Kills the mutants of
    limit_arguments."""
    assert limit_arguments(Limits()) == []
    assert limit_arguments(Limits(connect_timeout=2.5, clients=7, queued_total=9)) == [
        "--connect-timeout",
        "2.5",
        "--clients",
        "7",
        "--queued-total",
        "9",
    ]


@dataclass
class Served:
    """What main handed serve."""

    binds: list[str]
    port: int
    tries: int
    max_packet_size: int
    limits: Limits


@pytest.fixture
def main_served(
    monkeypatch: pytest.MonkeyPatch, logging_restored: None
) -> Callable[[list[str]], tuple[int, list[Served]]]:
    """main with serve replaced: its exit code and what serve was given."""
    calls: list[Served] = []
    failure: list[BrokerError] = []

    async def serve(
        binds: list[str], port: int, tries: int, max_packet_size: int, limits: Limits
    ) -> None:
        calls.append(Served(binds, port, tries, max_packet_size, limits))
        if failure:
            raise failure[0]

    monkeypatch.setattr(broker_module, "serve", serve)

    def run(argv: list[str]) -> tuple[int, list[Served]]:
        if argv[:1] == ["FAIL"]:
            failure.append(BrokerError("cannot listen on 127.0.0.1: port 9 is in use"))
            argv = argv[1:]
        calls.clear()
        return broker_module.main(argv), list(calls)

    return run


def test_main_hands_serve_its_options_and_the_limits_back(
    main_served: Callable[[list[str]], tuple[int, list[Served]]],
) -> None:
    """What the parent passes (binds, port, tries, packet size, and the
    limits as limit_arguments writes them) reaches serve as it was meant;
    the defaults are every address, port 1883, one try. Kills the mutants
    of main's parsing and its call of serve."""
    limits = Limits(connect_timeout=2.5, pending=3, clients=7, write_stall=1.5, queued_total=9)
    code, calls = main_served(
        [
            *("--bind", LOOPBACK, "--bind", "::1", "--port", "0", "--tries", "3"),
            *("--max-packet-size", "2", *limit_arguments(limits)),
        ]
    )
    assert code == 0
    assert calls == [Served([LOOPBACK, "::1"], 0, 3, 2, limits)]
    code, calls = main_served(["--port", "65535"])
    assert code == 0
    assert calls == [Served(["0.0.0.0"], 65535, 1, DEFAULT_MAX_PACKET_SIZE, Limits())]


@pytest.mark.parametrize(
    "argv",
    [
        ["--port", "-1"],
        ["--port", "65536"],
        ["--tries", "0"],
        ["--max-packet-size", "1"],
        *([f"--{name.replace('_', '-')}", "0"] for name in broker_module._LIMIT_OPTIONS),
    ],
)
def test_main_refuses_options_out_of_range_in_one_line(
    argv: list[str],
    main_served: Callable[[list[str]], tuple[int, list[Served]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A port out of range, no tries, a packet limit under 2 bytes, or any
    limit that is not positive (a cap of 0 refuses everyone, a timeout of 0
    drops everyone): exit code 2, one line, and nothing served. Kills the
    range mutants of main."""
    code, calls = main_served(argv)
    assert (code, calls) == (2, [])
    assert capsys.readouterr().err == (
        "passe broker: --port must be 0-65535, --tries, --max-packet-size and the limits positive\n"
    )


def test_main_says_why_the_broker_could_not_start_and_exits_with_2(
    main_served: Callable[[list[str]], tuple[int, list[Served]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The parent shows the child's last ``passe broker: ...`` line as the
    reason: a BrokerError from serve becomes exactly that, and code 2.
    Kills the mutants of main's error path."""
    code, calls = main_served(["FAIL", "--bind", LOOPBACK, "--port", "9"])
    assert code == 2 and len(calls) == 1
    assert capsys.readouterr().err == "passe broker: cannot listen on 127.0.0.1: port 9 is in use\n"


# -- listening -------------------------------------------------------------------


async def nothing(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.close()


@contextlib.contextmanager
def taken_port(port: int = 0) -> Iterator[int]:
    """A loopback port held by a plain listening socket."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as blocker:
        blocker.bind((LOOPBACK, port))
        blocker.listen()
        yield blocker.getsockname()[1]


@contextlib.contextmanager
def two_taken_ports() -> Iterator[int]:
    """Two adjacent loopback ports held, the first one's number: the
    system's pick, and the next if it is free (under ``-n 6`` another
    test's child may hold it: tried again with another pick)."""
    for _ in range(50):
        with contextlib.ExitStack() as held:
            first = held.enter_context(taken_port())
            try:
                held.enter_context(taken_port(first + 1))
            except OSError:
                continue
            yield first
            return
    raise AssertionError("no two adjacent free ports on loopback")


async def test_listening_falls_back_to_the_next_free_port_and_says_which() -> None:
    """A taken port (another broker, Mosquitto) moves the broker to the next
    one within its tries; the port it reports is the one it holds. Kills
    the range and fallback mutants of _listen."""
    with taken_port() as taken:
        server, port = await broker_module._listen(nothing, [LOOPBACK], taken, 20)
        try:
            assert taken < port < taken + 20
            assert server.sockets[0].getsockname() == (LOOPBACK, port)
        finally:
            server.close()
            await server.wait_closed()


async def test_listening_on_a_taken_port_says_which_ports_were_tried() -> None:
    """The person is told which port, or which range, was in use: one line
    naming the addresses. Kills the message mutants of _listen."""
    with two_taken_ports() as taken:
        with pytest.raises(BrokerError) as caught:
            await broker_module._listen(nothing, [LOOPBACK], taken, 1)
        assert str(caught.value) == f"cannot listen on {LOOPBACK}: port {taken} is in use"
        with pytest.raises(BrokerError) as caught:
            await broker_module._listen(nothing, [LOOPBACK], taken, 2)
        assert str(caught.value) == (
            f"cannot listen on {LOOPBACK}: ports {taken}-{taken + 1} are all in use"
        )
    with pytest.raises(BrokerError, match="no port to try"):
        await broker_module._listen(nothing, [LOOPBACK], 1000, 0)


async def test_port_zero_gives_the_port_the_system_picked() -> None:
    """Port 0: the real port is reported (the parent's ``ready PORT``).
    Kills the mutants of _listen's port 0 on one address."""
    server, port = await broker_module._listen(nothing, [LOOPBACK], 0, 1)
    try:
        assert port > 0 and server.sockets[0].getsockname() == (LOOPBACK, port)
    finally:
        server.close()
        await server.wait_closed()


async def test_port_zero_on_several_addresses_gives_up_after_its_picks_in_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When every port the system picks is taken on another address, the
    broker says so after PORT_ZERO_TRIES picks (or ``tries`` when more),
    not after the first. Kills the candidate count mutants of _listen."""
    start_server = asyncio.start_server
    asked: list[Any] = []

    async def always_taken(handler: Any, host: Any, port: int, **kwargs: Any) -> asyncio.Server:
        asked.append(host)
        if isinstance(host, list):
            raise OSError(errno.EADDRINUSE, os.strerror(errno.EADDRINUSE))
        return await start_server(handler, host, port, **kwargs)

    monkeypatch.setattr(asyncio, "start_server", always_taken)
    for tries, picks in ((1, broker_module.PORT_ZERO_TRIES), (11, 11)):
        asked.clear()
        with pytest.raises(BrokerError) as caught:
            await broker_module._listen(nothing, [LOOPBACK, LOOPBACK], 0, tries)
        assert str(caught.value) == (
            f"cannot listen on {LOOPBACK}, {LOOPBACK}: "
            f"no port of {picks} the system picked was free on all"
        )
        assert asked == [LOOPBACK, [LOOPBACK, LOOPBACK]] * picks


async def test_a_bind_failure_without_an_errno_is_said_in_the_systems_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Python 3.13 raises "could not bind on any address" without an
    errno; the person reads the system's reason instead (a plain socket's
    bind), and an errno's own words otherwise. Kills the mutants of the
    error path of _listen and of _bind_failure."""
    with taken_port() as taken:

        async def no_errno(handler: Any, host: Any, port: int, **kwargs: Any) -> asyncio.Server:
            raise OSError("could not bind on any address out of [...]")

        monkeypatch.setattr(asyncio, "start_server", no_errno)
        with pytest.raises(BrokerError) as caught:
            await broker_module._listen(nothing, [LOOPBACK], taken, 1)
        assert str(caught.value) == (
            f"cannot listen on {LOOPBACK}:{taken}: {os.strerror(errno.EADDRINUSE)}"
        )

        async def denied(handler: Any, host: Any, port: int, **kwargs: Any) -> asyncio.Server:
            raise OSError(errno.EACCES, os.strerror(errno.EACCES))

        monkeypatch.setattr(asyncio, "start_server", denied)
        with pytest.raises(BrokerError) as caught:
            await broker_module._listen(nothing, [LOOPBACK], 80, 5)
        assert str(caught.value) == f"cannot listen on {LOOPBACK}:80: {os.strerror(errno.EACCES)}"
        assert broker_module._bind_failure([LOOPBACK], taken) == os.strerror(errno.EADDRINUSE)

    getaddrinfo = socket.getaddrinfo

    def unknown(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "nowhere":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        if host == "wordless":
            raise OSError("no words from the resolver")
        return getaddrinfo(host, *args, **kwargs)

    with taken_port() as free:
        pass
    with monkeypatch.context() as patch:
        patch.setattr(socket, "getaddrinfo", unknown)
        assert broker_module._bind_failure(["nowhere"], free) == "Name or service not known"
        assert broker_module._bind_failure(["wordless"], free) == "no words from the resolver"
        assert broker_module._bind_failure([LOOPBACK], free) == "the address cannot be used"

    class Unbindable(socket.socket):
        def bind(self, address: Any) -> None:
            raise OSError("no words from bind")

    with monkeypatch.context() as patch:
        patch.setattr(socket, "socket", Unbindable)
        assert broker_module._bind_failure([LOOPBACK], free) == "no words from bind"


# -- the guard served in this process ---------------------------------------------------


class Watch:
    """Wakes a waiter whenever the gate moves (a client in, out, waiting)."""

    def __init__(self) -> None:
        self._moved = asyncio.Event()

    def poke(self) -> None:
        self._moved.set()

    async def until(self, condition: Callable[[], bool]) -> None:
        async with asyncio.timeout(WAIT):
            while not condition():
                self._moved.clear()
                await self._moved.wait()


@dataclass
class Guard:
    """A broker served by ``serve`` in this test's loop."""

    port: int
    gate: Gate
    outboxes: list[Outboxes]
    amqtt: Any
    watch: Watch
    stop: asyncio.Event
    task: asyncio.Task[None]
    addresses: list[str]  # what the gate was told, each arrival and CONNECT
    on_admit: list[Callable[[], None]]  # called as the gate reads a CONNECT

    def client(self, name: str | None = None, keepalive: int = 60) -> aiomqtt.Client:
        return aiomqtt.Client(
            LOOPBACK,
            self.port,
            identifier=name,
            socket_options=NODELAY,
            keepalive=keepalive,
            timeout=WAIT,
        )


class Exited(Exception):
    """serve called os._exit (which would end the test process)."""

    def __init__(self, code: int) -> None:
        super().__init__(f"os._exit({code})")
        self.code = code


class ReadyLine:
    """sys.stdout for serve: the port of its ``ready PORT`` line, once
    flushed (the parent reads a pipe: an unflushed line never arrives)."""

    def __init__(self) -> None:
        self.text = ""
        self.port: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        words = self.text.split()
        ready = self.text.endswith("\n") and len(words) == 2 and words[0] == "ready"
        if ready and not self.port.done():
            self.port.set_result(int(words[1]))


@contextlib.asynccontextmanager
async def guarded(
    monkeypatch: pytest.MonkeyPatch,
    limits: Limits | None = None,
    max_packet_size: int = DEFAULT_MAX_PACKET_SIZE,
    *,
    port: int = 0,
    tries: int = 1,
) -> AsyncIterator[Guard]:
    """``serve`` on a free port of 127.0.0.1 (or the first free one from
    ``port``), in this loop; stopped (as by its stdin closing) and awaited
    at the end."""
    from amqtt import broker as amqtt_broker

    stop = asyncio.Event()
    watch = Watch()
    gates: list[Gate] = []
    addresses: list[str] = []
    on_admit: list[Callable[[], None]] = []
    outboxes: list[Outboxes] = []
    brokers: list[Any] = []

    class WatchedGate(Gate):
        def __init__(self, limits: Limits) -> None:
            super().__init__(limits)
            gates.append(self)

        def arrive(self, connection: object, address: str) -> list[object]:
            addresses.append(address)
            try:
                return super().arrive(connection, address)
            finally:
                watch.poke()

        def leave_pending(self, connection: object) -> None:
            super().leave_pending(connection)
            watch.poke()

        def admit(self, address: str, connect: ConnectInfo, sessions: int) -> None:
            addresses.append(address)
            for hook in on_admit:
                hook()
            try:
                super().admit(address, connect, sessions)
            finally:
                watch.poke()

        def depart(self, address: str) -> None:
            super().depart(address)
            watch.poke()

    class WatchedOutboxes(Outboxes):
        def __init__(self, per_client: int, total: int) -> None:
            super().__init__(per_client, total)
            outboxes.append(self)

    class RecordedBroker(amqtt_broker.Broker):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            brokers.append(self)

    def exit_(code: int) -> None:
        raise Exited(code)

    ready = ReadyLine()
    monkeypatch.setattr(broker_module, "stop_signal", lambda: stop)
    monkeypatch.setattr(broker_module, "Gate", WatchedGate)
    monkeypatch.setattr(broker_module, "Outboxes", WatchedOutboxes)
    monkeypatch.setattr(amqtt_broker, "Broker", RecordedBroker)
    monkeypatch.setattr(os, "_exit", exit_)
    monkeypatch.setattr(sys, "stdout", ready)
    task = asyncio.create_task(
        broker_module.serve([LOOPBACK], port, tries, max_packet_size, limits or Limits())
    )
    try:
        async with asyncio.timeout(WAIT):
            either: set[asyncio.Future[Any]] = {task, ready.port}
            done, _ = await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            task.result()  # its error
            raise AssertionError("serve returned before it was ready")
        [gate], [amqtt] = gates, brokers
        yield Guard(
            ready.port.result(), gate, outboxes, amqtt, watch, stop, task, addresses, on_admit
        )
    finally:
        stop.set()
        try:
            async with asyncio.timeout(WAIT):
                with contextlib.suppress(Exited):  # a test's own stuck shutdown
                    await task
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task


async def raw_connect(
    port: int, packet: bytes | None = None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, int | None]:
    """A raw client's CONNECT (keep-alive 30 by default); its streams and
    the CONNACK's return code, None when the broker closed without one."""
    reader, writer = await asyncio.open_connection(LOOPBACK, port)
    writer.write(connect_packet() if packet is None else packet)
    await writer.drain()
    try:
        async with asyncio.timeout(WAIT):
            connack = await reader.readexactly(4)
    except (asyncio.IncompleteReadError, ConnectionError):
        return reader, writer, None
    assert connack[:3] == b"\x20\x02\x00"
    return reader, writer, connack[3]


async def closed_by_peer(reader: asyncio.StreamReader) -> bool:
    """Whether the broker closes this connection (within WAIT)."""
    try:
        async with asyncio.timeout(WAIT):
            return await reader.read(1) == b""
    except ConnectionError:
        return True


async def round_trip(guard: Guard, name: str | None = None) -> None:
    """A real client connects, subscribes and gets its own message back."""
    async with guard.client(name) as client:
        await client.subscribe("passe/v1/HONEST/x", qos=1)
        await client.publish("passe/v1/HONEST/x", b"hi", qos=1)
        async with asyncio.timeout(WAIT):
            message = await anext(aiter(client.messages))
        assert message.payload == b"hi"


async def test_served_in_process_it_says_ready_carries_messages_and_stops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The whole path a LAN client takes: the gate, amqtt, both ways, at
    QoS 0 and 1; then the stop closes every client and serve returns,
    having delivered what was published before it. Kills the mutants of
    serve that break the wiring (the ready line, the readers and writers
    handed to amqtt, the stop)."""
    async with guarded(monkeypatch) as guard:
        assert guard.port > 0
        async with guard.client("player") as player, guard.client("host") as host:
            # Each connection is counted under its sender's address.
            assert guard.addresses == [LOOPBACK] * 4
            await player.subscribe("room", qos=1)
            for qos in (0, 1):
                await host.publish("room", b"%d" % qos, qos=qos)
            for n in range(20):
                await host.publish("room", b"n%d" % n, qos=1)
            guard.stop.set()
            received = []
            with pytest.raises(aiomqtt.MqttError, match="Disconnected"):
                async with asyncio.timeout(WAIT):
                    async for message in player.messages:
                        received.append(message.payload)
            assert received == [b"0", b"1"] + [b"n%d" % n for n in range(20)]
            async with asyncio.timeout(WAIT):
                await guard.task
        with pytest.raises(OSError):
            await asyncio.open_connection(LOOPBACK, guard.port)


async def test_a_first_packet_that_is_no_connect_is_closed_and_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A port scanner or a stray sender: closed without a CONNACK, said at
    info level with its address, and the broker serves the next client.
    Kills the mutants of serve's refusal path."""
    async with guarded(monkeypatch) as guard:
        with caplog.at_level(logging.INFO, "passe.broker"):
            reader, writer, code = await raw_connect(guard.port, b"\x30\x03\x00\x01x")
            assert code is None and await closed_by_peer(reader)
            writer.close()
            await guard.watch.until(lambda: guard.gate.pending == 0)
        [line] = [m for m in caplog.messages if m.startswith("refused")]
        assert line.startswith(f"refused ('{LOOPBACK}', ")
        assert line.endswith("): first packet of type 3, not CONNECT")
        await round_trip(guard)
        await guard.watch.until(lambda: guard.gate.clients == 0)
        assert guard.gate.refused == 0


async def test_a_keepalive_out_of_range_gets_identifier_rejected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A client asking never to be checked (0) or for longer than the
    broker keeps a dead client: CONNACK 2, then closed; the edges connect.
    Kills the mutants of the CONNACK write in serve."""
    async with guarded(monkeypatch, Limits(max_keepalive=100)) as guard:
        for keepalive, expected in ((0, IDENTIFIER_REJECTED), (101, IDENTIFIER_REJECTED)):
            reader, writer, code = await raw_connect(guard.port, connect_packet(b"", keepalive))
            assert code == expected
            assert await closed_by_peer(reader)
            writer.close()
        for keepalive in (1, 100):
            reader, writer, code = await raw_connect(guard.port, connect_packet(b"", keepalive))
            assert code == 0
            writer.close()
        assert guard.gate.refused == 2


async def test_clients_past_the_cap_are_refused_until_one_leaves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two clients at most from one address: the third gets "server
    unavailable"; once one leaves (its connection's end counted out), a new
    one is accepted, and the count never drifts. Kills the mutants of
    serve's ``admitted`` and ``depart`` bookkeeping."""
    async with guarded(monkeypatch, Limits(clients_per_address=2)) as guard:
        first = await raw_connect(guard.port, connect_packet(b"one"))
        second = await raw_connect(guard.port, connect_packet(b"two"))
        assert (first[2], second[2]) == (0, 0)
        assert guard.gate.clients == 2
        reader, writer, code = await raw_connect(guard.port, connect_packet(b"three"))
        assert code == SERVER_UNAVAILABLE and await closed_by_peer(reader)
        writer.close()
        assert guard.gate.clients == 2
        first[1].write(b"\xe0\x00")  # DISCONNECT
        first[1].close()
        await guard.watch.until(lambda: guard.gate.clients == 1)
        reader, writer, code = await raw_connect(guard.port, connect_packet(b"four"))
        assert code == 0 and guard.gate.clients == 2
        for each in (second[1], writer):
            each.close()
        await guard.watch.until(lambda: guard.gate.clients == 0)


async def test_sessions_past_the_cap_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """amqtt's own sessions are capped too (each costs memory until it
    expires): with one session allowed, a second client is refused while
    the first is connected. Kills the mutant that hands the gate another
    count than amqtt's sessions."""
    async with guarded(monkeypatch, Limits(sessions=1)) as guard:
        _, held, code = await raw_connect(guard.port, connect_packet(b"one"))
        assert code == 0 and len(guard.amqtt._sessions) == 1
        _, writer, code = await raw_connect(guard.port, connect_packet(b"two"))
        assert code == SERVER_UNAVAILABLE
        writer.close()
        held.close()


async def test_silent_connections_are_pushed_out_oldest_first_by_the_newest(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Connections that never send a CONNECT: past two waiting, the oldest
    is closed by the broker (never the newest), quietly (a flood must not
    write an error per connection), and the ones still waiting are served
    when they do send theirs. Kills the mutants of serve's ``waiting``
    table (the abort, the pops)."""
    caplog.set_level(logging.ERROR, "passe.broker")
    async with guarded(monkeypatch, Limits(pending_per_address=2)) as guard:
        silent = []
        for _ in range(3):
            silent.append(await asyncio.open_connection(LOOPBACK, guard.port))
            await guard.watch.until(lambda: guard.gate.dropped + guard.gate.pending == len(silent))
        assert await closed_by_peer(silent[0][0])
        assert guard.gate.dropped == 1
        for reader, writer in silent[1:]:
            writer.write(connect_packet())
            await writer.drain()
            async with asyncio.timeout(WAIT):
                assert await reader.readexactly(4) == b"\x20\x02\x00\x00"
        for _, writer in silent:
            writer.close()
        await guard.watch.until(lambda: guard.gate.clients == 0)
    assert [r for r in caplog.records if r.name == "passe.broker"] == []


async def test_a_connection_silent_past_the_connect_timeout_is_closed_and_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """amqtt waits for a CONNECT for ever; the gate gives it
    ``connect_timeout`` (a short one here), then closes the connection and
    counts it as dropped, and forgets it. Kills the mutants of serve's
    timeout and its count."""
    async with guarded(monkeypatch, Limits(connect_timeout=0.05)) as guard:
        for count in (1, 2):
            reader, writer = await asyncio.open_connection(LOOPBACK, guard.port)
            assert await closed_by_peer(reader)
            writer.close()
            assert guard.gate.dropped == count
        await guard.watch.until(lambda: guard.gate.pending == 0)
        await round_trip(guard)


async def test_a_connect_over_the_packet_limit_is_closed_without_reading_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A CONNECT announcing more than the packet limit: closed at once,
    its body never read, nothing counted in. Kills the mutants of serve
    that hand read_first_packet another limit."""
    async with guarded(monkeypatch, max_packet_size=64) as guard:
        packet = connect_packet(b"n" * 40)  # 56 bytes
        _, writer, code = await raw_connect(guard.port, packet)
        assert code == 0
        writer.close()
        _, writer, code = await raw_connect(guard.port, connect_packet(b"n" * 60))
        assert code is None
        writer.close()


async def test_a_packet_over_the_limit_after_the_connect_drops_only_its_sender(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """After its CONNECT a client's packets are still held to the limit
    (amqtt would buffer 256 MiB): the sender is dropped with a warning, the
    others carry on. Kills the mutants of serve's LimitedStreamReader and
    MqttFraming arguments."""
    async with (
        guarded(monkeypatch, max_packet_size=4096) as guard,
        guard.client("receiver") as receiver,
    ):
        await receiver.subscribe("big", qos=1)
        messages = aiter(receiver.messages)
        async with guard.client("fits") as sender:
            await sender.publish("big", b"x" * 4000, qos=1)
            async with asyncio.timeout(WAIT):
                assert len((await anext(messages)).payload) == 4000
        with caplog.at_level(logging.WARNING, "passe.broker"):
            reader, writer, code = await raw_connect(guard.port, connect_packet(b"big"))
            assert code == 0
            writer.write(publish_packet(b"big", b"y" * 5000))
            await writer.drain()
            assert await closed_by_peer(reader)
            writer.close()
        [line] = [m for m in caplog.messages if "sent a packet" in m]
        assert line.startswith(f"client ('{LOOPBACK}', ")
        assert line.endswith("sent a packet of 5008 bytes (limit 4096): disconnected")
        async with guard.client("after") as sender:
            await sender.publish("big", b"after", qos=1)
            async with asyncio.timeout(WAIT):
                assert (await anext(messages)).payload == b"after"


async def subscribe_raw(port: int, name: bytes, topic: bytes) -> tuple[Any, Any]:
    """A raw QoS 1 subscriber that reads but never acknowledges (each
    message it is sent stays in its outbox)."""
    reader, writer, code = await raw_connect(port, connect_packet(name))
    assert code == 0
    subscribe = b"\x00\x01" + len(topic).to_bytes(2, "big") + topic + b"\x01"
    writer.write(bytes([0x82, len(subscribe)]) + subscribe)
    await writer.drain()
    async with asyncio.timeout(WAIT):
        assert await reader.readexactly(5) == b"\x90\x03\x00\x01\x01"
    return reader, writer


async def read_publish(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The packet id and payload of the next QoS 1 PUBLISH (topic ``q``)."""
    async with asyncio.timeout(WAIT):
        header = await reader.readexactly(1)
        assert header[0] & 0xF0 == 0x30
        length, shift = 0, 0
        while True:
            byte = (await reader.readexactly(1))[0]
            length += (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        body = await reader.readexactly(length)
    topic_length = int.from_bytes(body[:2], "big")
    packet_id = int.from_bytes(body[2 + topic_length : 4 + topic_length], "big")
    return packet_id, body[4 + topic_length :]


async def test_what_waits_unacknowledged_for_a_client_is_capped_then_freed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A subscriber that never acknowledges: messages past its outbox
    (here two messages' worth) are not queued for it, and counted; once it
    acknowledges, its outbox is free and the next message reaches it. A
    sender cannot make the broker hold more than that for one client.
    Kills the mutants of serve's Outboxes and outbox arguments."""
    cost = message_cost("q", b"1")
    limits = Limits(queued_bytes=2 * cost, queued_total=100 * cost)
    async with guarded(monkeypatch, limits) as guard:
        reader, writer = await subscribe_raw(guard.port, b"slow", b"q")
        [outboxes] = guard.outboxes
        assert (outboxes.per_client, outboxes.total) == (2 * cost, 100 * cost)
        async with guard.client("sender") as sender:
            for payload in (b"1", b"2", b"3"):
                await sender.publish("q", payload, qos=1)
            first, second = await read_publish(reader), await read_publish(reader)
            assert (first[1], second[1]) == (b"1", b"2")
            async with asyncio.timeout(WAIT):
                while outboxes.dropped < 1:
                    await sender.publish("q", b"-", qos=1)
            for packet_id, _ in (first, second):
                writer.write(b"\x40\x02" + packet_id.to_bytes(2, "big"))
            await writer.drain()
            async with asyncio.timeout(WAIT):
                while outboxes.queued:
                    await sender.publish("sync", b"", qos=1)
            await sender.publish("q", b"4", qos=1)
            while (message := await read_publish(reader))[1] == b"-":
                writer.write(b"\x40\x02" + message[0].to_bytes(2, "big"))
            assert message[1] == b"4"
        writer.close()


# -- the flood log and the flush at the end ------------------------------------------


class Counters:
    """A gate's and the outboxes' counters as _report_floods reads them,
    counting the reads (one a round of its loop)."""

    def __init__(self) -> None:
        self.refused_ = 0
        self.dropped = 0
        self.reads = 0
        self.read = asyncio.Event()

    @property
    def refused(self) -> int:
        self.reads += 1
        self.read.set()
        return self.refused_

    async def rounds(self, count: int) -> None:
        """Until the loop has read the counters ``count`` more times."""
        target = self.reads + count
        async with asyncio.timeout(WAIT):
            while self.reads < target:
                self.read.clear()
                await self.read.wait()


async def test_refusals_are_logged_once_a_round_as_what_changed_since() -> None:
    """A flood must not flood the log: one line per interval at most, only
    when something changed, saying how many connections were refused or
    dropped and messages not queued since the last line. Kills the mutants
    of _report_floods."""
    lines: list[str] = []

    class Lines(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    handler = Lines(logging.WARNING)
    logger = logging.getLogger("passe.broker")
    logger.addHandler(handler)
    gate, outboxes, quota = Counters(), Counters(), Counters()
    reporter = asyncio.create_task(
        broker_module._report_floods(gate, outboxes, quota, 0.0)  # type: ignore[arg-type]
    )
    try:
        await gate.rounds(3)
        assert lines == []
        gate.refused_, gate.dropped, outboxes.dropped = 2, 1, 5
        await gate.rounds(3)
        gate.refused_ = 3
        await gate.rounds(3)
        gate.dropped = 4
        outboxes.dropped = 7
        await gate.rounds(3)
        quota.refused_ = 9
        await gate.rounds(3)
    finally:
        reporter.cancel()
        logger.removeHandler(handler)
    kept = ", {} retained messages not kept (over a bound)"
    assert lines == [
        "in the last 0 s: 2 connections refused, 1 dropped before their CONNECT, "
        "5 messages not queued for clients that do not read" + kept.format(0),
        "in the last 0 s: 1 connections refused, 0 dropped before their CONNECT, "
        "0 messages not queued for clients that do not read" + kept.format(0),
        "in the last 0 s: 0 connections refused, 3 dropped before their CONNECT, "
        "2 messages not queued for clients that do not read" + kept.format(0),
        "in the last 0 s: 0 connections refused, 0 dropped before their CONNECT, "
        "0 messages not queued for clients that do not read" + kept.format(9),
    ]


class Pending:
    """A queue (or a task) busy for its first ``busy`` looks, idle after;
    the loop times of its looks."""

    def __init__(self, busy: int) -> None:
        self.busy = busy
        self.looks: list[tuple[float, bool]] = []

    def _look(self) -> bool:
        idle = len(self.looks) >= self.busy
        self.looks.append((asyncio.get_running_loop().time(), idle))
        return idle

    def empty(self) -> bool:
        return self._look()

    def done(self) -> bool:
        return self._look()


def amqtt_holding(incoming: Pending, broadcast: Pending, task: Pending) -> Any:
    session = type("Session", (), {"delivered_message_queue": incoming})()
    return type(
        "Amqtt",
        (),
        {
            "_broadcast_queue": broadcast,
            "_tasks_queue": [task],
            "_sessions": {"c": (session, None)},
        },
    )()


@pytest.mark.parametrize("busy", ["incoming", "broadcast", "task"])
async def test_the_flush_waits_until_everything_held_was_handed_on(busy: str) -> None:
    """What was published before the host stops the broker (a game's last
    room state) must reach its subscribers: the flush waits while a
    session's incoming queue, the broadcast queue or a delivery task is
    busy, then until all stay idle for FLUSH_QUIET. Kills the mutants of
    _flush's checks."""
    pieces = {
        name: Pending(12 if name == busy else 0) for name in ("incoming", "broadcast", "task")
    }
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(WAIT):
        await broker_module._flush(amqtt_holding(**pieces), WAIT)
    ended = loop.time()
    looks = pieces[busy].looks
    # Ended by the quiet, not by the timeout: the last look saw it idle.
    assert [idle for _, idle in looks[:12]] == [False] * 12 and looks[-1][1]
    last_busy = looks[11][0]
    assert ended - last_busy >= broker_module.FLUSH_QUIET


async def test_the_flush_gives_up_after_its_timeout_and_a_broker_without_queues_is_flushed() -> (
    None
):
    """A delivery stuck for ever (a client that does not read) must not
    hold the broker's exit beyond the flush's timeout; an amqtt without the
    queues read here is not waited for. Kills the timeout mutants of
    _flush and its ``getattr`` defaults."""
    stuck = amqtt_holding(Pending(0), Pending(0), Pending(10**9))
    async with asyncio.timeout(WAIT):
        await broker_module._flush(stuck, 0.01)
        await broker_module._flush(object(), WAIT)
        bare_session = type("Amqtt", (), {"_sessions": {"c": (object(), None)}})()
        await broker_module._flush(bare_session, WAIT)


# -- the guard served in this process: failures, stalls, the end ----------------------


def server_ends(port: int) -> list[asyncio.StreamWriter]:
    """The broker's own writers of connections to ``port`` still in memory."""
    gc.collect()
    found = []
    for thing in gc.get_objects():
        if isinstance(thing, asyncio.StreamWriter):
            sockname = thing.get_extra_info("sockname")
            if isinstance(sockname, tuple) and sockname[1] == port:
                found.append(thing)
    return found


async def test_the_broker_forgets_every_connection_that_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each connection the broker ever accepted — connected, refused, or
    silent and pushed out — must leave nothing behind once it ends, or a
    sender opening and closing connections grows the broker for ever.
    Kills the mutants that drop serve's ``waiting.pop`` or
    ``clients.discard``."""
    async with guarded(monkeypatch, Limits(pending_per_address=1)) as guard:
        await round_trip(guard)
        _, refused, code = await raw_connect(guard.port, connect_packet(b"", 0))
        assert code == IDENTIFIER_REJECTED
        silent = [await asyncio.open_connection(LOOPBACK, guard.port) for _ in range(2)]
        assert await closed_by_peer(silent[0][0])
        silent[1][1].write(connect_packet(b"late"))
        async with asyncio.timeout(WAIT):
            assert await silent[1][0].readexactly(4) == b"\x20\x02\x00\x00"
        for writer in (refused, silent[0][1], silent[1][1]):
            writer.close()
        await guard.watch.until(lambda: guard.gate.clients == 0 and guard.gate.pending == 0)
        async with asyncio.timeout(WAIT):
            while server_ends(guard.port):
                # The last connection's handler ends just after its departure.
                await asyncio.sleep(0)


async def test_one_clients_failure_inside_amqtt_is_logged_and_the_broker_goes_on(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Whatever amqtt raises for one client (a bug, a packet it chokes on)
    ends that client only, with a line saying which; its place is given
    back, and the next client is served. Kills the mutants of serve's last
    ``except`` and of its ``admitted`` bookkeeping."""
    async with guarded(monkeypatch) as guard:
        connect = guard.amqtt.external_connected

        async def choking(reader: Any, writer: Any, listener: str) -> None:
            guard.amqtt.external_connected = connect
            raise RuntimeError("amqtt choked")

        guard.amqtt.external_connected = choking
        with caplog.at_level(logging.ERROR, "passe.broker"):
            reader, writer, code = await raw_connect(guard.port, connect_packet(b"one"))
            assert code is None and await closed_by_peer(reader)
            writer.close()
            await guard.watch.until(lambda: guard.gate.clients == 0)
        [record] = [r for r in caplog.records if r.name == "passe.broker"]
        assert record.getMessage().startswith(f"client ('{LOOPBACK}', ")
        assert record.getMessage().endswith(") failed")
        assert record.exc_info is not None and str(record.exc_info[1]) == "amqtt choked"
        await round_trip(guard)


async def test_amqtt_is_patched_before_it_serves_anyone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The broker serves with amqtt's subscription table iterated over a
    snapshot (a client subscribing while another connects reset the
    latter), payloads shown by their size in its debug lines, and its
    delivery tasks swept; and a newcomer receives no retained message of
    another session's subscriptions before its own. Kills the mutants of
    serve that leave out one of the patches."""
    async with guarded(monkeypatch) as guard:
        amqtt = guard.amqtt
        assert isinstance(amqtt._subscriptions, _SnapshotDict)
        assert isinstance(amqtt._tasks_queue, _SweptTasks)
        assert amqtt._broadcast_message.__name__ == "broadcast_sized"
        async with guard.client("publisher") as publisher, guard.client("watcher") as watcher:
            await watcher.subscribe("presence/#", qos=1)
            await publisher.publish("presence/a", b"A", qos=1, retain=True)
            async with asyncio.timeout(WAIT):
                assert (await anext(aiter(watcher.messages))).payload == b"A"
            async with guard.client("newcomer") as newcomer:
                await newcomer.subscribe("own", qos=1)
                await publisher.publish("own", b"mine", qos=1)
                async with asyncio.timeout(WAIT):
                    first = await anext(aiter(newcomer.messages))
                assert (str(first.topic), first.payload) == ("own", b"mine")


async def test_a_broker_that_cannot_listen_shuts_amqtt_down_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A port already taken: serve raises the reason (the child prints it)
    after shutting amqtt down, and never says ready. Kills the mutants of
    serve's listening failure path."""
    from amqtt import broker as amqtt_broker

    brokers: list[Any] = []

    class RecordedBroker(amqtt_broker.Broker):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            brokers.append(self)

    ready = ReadyLine()
    monkeypatch.setattr(broker_module, "stop_signal", asyncio.Event)
    monkeypatch.setattr(amqtt_broker, "Broker", RecordedBroker)
    monkeypatch.setattr(sys, "stdout", ready)
    with taken_port() as taken, pytest.raises(BrokerError) as caught:
        async with asyncio.timeout(WAIT):
            await broker_module.serve([LOOPBACK], taken, 1, 1024)
    assert str(caught.value) == f"cannot listen on {LOOPBACK}: port {taken} is in use"
    [amqtt] = brokers
    assert amqtt.transitions.state == "stopped"
    assert ready.text == ""


async def test_serve_leaves_nothing_running_once_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The flood reporter and every task of the broker end with it: in the
    host's process nothing of the broker may be left running. Kills the
    mutant that drops ``reporter.cancel()``."""
    before = asyncio.all_tasks()
    async with guarded(monkeypatch) as guard:
        await round_trip(guard)
    left = [
        task
        for task in asyncio.all_tasks() - before
        if task is not asyncio.current_task() and "_report_floods" in repr(task.get_coro())
    ]
    assert left == []


async def test_a_stuck_amqtt_shutdown_still_cuts_every_client_off_and_exits(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """amqtt's shutdown can hang (a client dropping as the host dies): the
    clients must see the broker go all the same (or they wait on a broker
    that serves no one while a resumed host's takes the port), and the
    process exits after SHUTDOWN_TIMEOUT, saying so. Kills the mutants of
    serve's client closing and its bounded shutdown."""
    monkeypatch.setattr(broker_module, "SHUTDOWN_TIMEOUT", 0.01)
    async with guarded(monkeypatch) as guard:
        amqtt = guard.amqtt
        real_shutdown = amqtt.shutdown
        never = asyncio.Event()

        async def hanging() -> None:
            await never.wait()

        amqtt.shutdown = hanging
        try:
            async with guard.client("player") as player:
                await player.subscribe("room", qos=1)
                with caplog.at_level(logging.WARNING, "passe.broker"):
                    guard.stop.set()
                    with pytest.raises(aiomqtt.MqttError, match="Disconnected"):
                        async with asyncio.timeout(WAIT):
                            async for _ in player.messages:
                                pass
                    with pytest.raises(Exited) as exited:
                        async with asyncio.timeout(WAIT):
                            await guard.task
            assert exited.value.code == 0
            assert "amqtt did not shut down within 0.01 s: exiting anyway" in caplog.messages
        finally:
            await real_shutdown()


class Said(logging.Handler):
    """The broker's log lines, awaitable."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []
        self.said = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())
        self.said.set()

    async def until(
        self, condition: Callable[[list[str]], bool], while_: Callable[[], Any]
    ) -> None:
        """Run ``while_`` (a coroutine function) again and again until a line
        makes ``condition`` true."""
        async with asyncio.timeout(WAIT):
            while not condition(self.lines):
                self.said.clear()
                step = asyncio.ensure_future(while_())
                said = asyncio.ensure_future(self.said.wait())
                await asyncio.wait({step, said}, return_when=asyncio.FIRST_COMPLETED)
                for each in (step, said):
                    if not each.done():
                        each.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await each
                    elif not each.cancelled():
                        each.result()


@contextlib.contextmanager
def said() -> Iterator[Said]:
    handler = Said()
    logger = logging.getLogger("passe.broker")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


async def stuck_reader(port: int) -> tuple[asyncio.StreamWriter, int]:
    """A QoS 0 subscriber to ``flood`` with a small receive window that
    never reads; its writer and local port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (LOOPBACK, port))
    reader, writer = await asyncio.open_connection(sock=sock)
    writer.write(connect_packet(b"stuck"))
    subscribe = b"\x00\x01\x00\x05flood\x00"
    writer.write(bytes([0x82, len(subscribe)]) + subscribe)
    await writer.drain()
    async with asyncio.timeout(WAIT):
        assert await reader.readexactly(4) == b"\x20\x02\x00\x00"
        assert await reader.readexactly(5) == b"\x90\x03\x00\x01\x00"
    return writer, writer.get_extra_info("sockname")[1]


async def test_a_client_that_stops_reading_is_dropped_after_the_stall_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A subscriber that never reads, with room for everything in the
    broker's write buffer: once nothing can be written to it for
    ``write_stall`` seconds (a short one here), it is dropped, with its
    address in the line. Kills the mutants of serve's stall argument to
    bounded_writer."""
    limits = Limits(write_stall=0.05, write_buffer=1 << 30, queued_bytes=1 << 30)
    async with guarded(monkeypatch, limits) as guard:
        writer, stuck_port = await stuck_reader(guard.port)
        async with guard.client("sender") as sender:

            async def flood() -> None:
                await sender.publish("flood", b"x" * 65536, qos=1)

            with said() as log:
                await log.until(lambda lines: bool(lines), flood)
        assert log.lines[0] == (
            f"client ('{LOOPBACK}', {stuck_port}) does not read (nothing written for 0.05 s): "
            "dropped"
        )
        writer.close()


async def test_a_client_that_stops_reading_is_dropped_once_its_buffer_is_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same subscriber with a long stall time: dropped once more than
    ``write_buffer`` bytes would wait for it; here a message bigger than
    the buffer, which could never be written whole, at once (amqtt awaits
    each write's drain, so only a packet this size can pass the bound in
    one step). Kills the mutants of serve's buffer argument to
    bounded_writer."""
    limits = Limits(write_stall=WAIT * 10, write_buffer=50_000, queued_bytes=1 << 30)
    async with guarded(monkeypatch, limits) as guard:
        writer, stuck_port = await stuck_reader(guard.port)
        async with guard.client("sender") as sender:

            async def flood() -> None:
                await sender.publish("flood", b"x" * 65536, qos=1)

            with said() as log:
                await log.until(lambda lines: bool(lines), flood)
        assert log.lines[0] == (
            f"client ('{LOOPBACK}', {stuck_port}) does not read (50000 bytes waiting): dropped"
        )
        writer.close()


def test_the_command_line_explains_itself(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m net.lan.broker --help`` says what the child is and each
    option (someone running it by hand, or reading a host's process list).
    Kills the mutants of main's parser texts."""
    monkeypatch.setenv("COLUMNS", "400")
    with pytest.raises(SystemExit) as exited:
        broker_module.main(["--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m net.lan.broker [-h] [--bind BIND] [--port PORT]")
    for line in (
        "Passe's embedded MQTT broker. Prints 'ready PORT' once it accepts connections; "
        "exits when standard input closes.",
        "--bind BIND  address to listen on (repeatable; default 0.0.0.0)",
        "--port PORT  first port to try",
        "--tries TRIES  ports to try from --port upward",
        "--max-packet-size MAX_PACKET_SIZE  bytes",
        "--connect-timeout CONNECT_TIMEOUT  (default 5.0)",
        "--queued-total QUEUED_TOTAL  (default 33554432)",
        "--verbose  log amqtt's debug output",
    ):
        assert " ".join(line.split()) in " ".join(out.split()), line


def test_verbose_keeps_amqtts_own_lines_and_limits_of_one_are_accepted(
    main_served: Callable[[list[str]], tuple[int, list[Served]]],
) -> None:
    """``--verbose`` (a flag, no value) leaves amqtt's loggers alone, for a
    person chasing a problem; without it they are silenced. Every limit of
    exactly 1 is valid (only 0 and below are refused). Kills the mutants of
    ``--verbose`` and of main's ``> 0``."""
    amqtt = logging.getLogger("amqtt")
    amqtt.setLevel(logging.NOTSET)
    code, calls = main_served(["--verbose", "--port", "0"])
    assert code == 0 and len(calls) == 1
    assert amqtt.level == logging.NOTSET
    ones = [word for name in broker_module._LIMIT_OPTIONS for word in (f"--{name}", "1")]
    code, calls = main_served([word.replace("_", "-") for word in ones])
    assert code == 0
    assert calls[0].limits == Limits(**dict.fromkeys(broker_module._LIMIT_OPTIONS, 1))
    assert amqtt.level == logging.CRITICAL


async def test_a_client_gone_before_its_refusal_is_still_said_refused(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A sender whose CONNECT is refused and who resets the connection at
    once (a scanner): the CONNACK cannot be written, and the refusal is
    still what is logged, not taken for an ordinary disconnection. Kills
    the mutants that stop suppressing OSError around the CONNACK."""
    async with guarded(monkeypatch) as guard:
        sock = socket.create_connection((LOOPBACK, guard.port))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

        def reset() -> None:
            with contextlib.suppress(OSError):
                sock.close()  # SO_LINGER 0: a reset, before the CONNACK is written

        guard.on_admit.append(reset)
        sock.sendall(connect_packet(b"", 0))
        with caplog.at_level(logging.INFO, "passe.broker"):
            await guard.watch.until(lambda: guard.gate.refused == 1)
            await guard.watch.until(lambda: guard.gate.pending == 0)
            async with asyncio.timeout(WAIT):
                while not any(m.startswith("refused") for m in caplog.messages):
                    await asyncio.sleep(0)
        [line] = [m for m in caplog.messages if m.startswith("refused")]
        assert line.endswith("): keep-alive 0 s (1-300 s accepted)")


async def test_served_on_a_taken_port_it_says_ready_on_the_next_free_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The host asks for 1883 and Mosquitto has it: the broker takes the
    next free port within its tries and says which. Kills the mutants of
    serve's call of _listen."""
    with taken_port() as taken:
        async with guarded(monkeypatch, port=taken, tries=20) as guard:
            assert taken < guard.port < taken + 20
            await round_trip(guard)


async def test_the_flood_log_counts_what_the_serving_gate_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While serving, the flood log reads the gate and outboxes that do the
    refusing (a flood must show in the log, once per interval: here the
    interval is cut short). Kills the mutants of serve's reporter task."""
    report = broker_module._report_floods

    def soon(gate: Gate, outboxes: Outboxes, quota: Any) -> Any:
        return report(gate, outboxes, quota, 0.001)

    monkeypatch.setattr(broker_module, "_report_floods", soon)
    with said() as log:
        async with guarded(monkeypatch) as guard:
            _, writer, code = await raw_connect(guard.port, connect_packet(b"", 0))
            assert code == IDENTIFIER_REJECTED
            writer.close()

            async def nothing_more() -> None:
                await asyncio.Event().wait()

            await log.until(lambda lines: any("refused" in line for line in lines), nothing_more)
    assert log.lines[0] == (
        "in the last 0.001 s: 1 connections refused, 0 dropped before their CONNECT, "
        "0 messages not queued for clients that do not read, 0 retained messages not kept "
        "(over a bound)"
    )


async def test_a_client_that_reads_nothing_does_not_hold_the_stop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At the stop, what is in flight is delivered, but only for
    FLUSH_TIMEOUT: a subscriber that reads nothing (its delivery stuck on a
    full socket, for as long as its stall time) must not keep the broker,
    and the host's port, for ever; and the flush is of the serving broker.
    Kills the mutants of serve's call of _flush."""
    flushed: list[Any] = []
    flush = broker_module._flush

    async def recorded(broker: Any, timeout: float) -> None:
        flushed.append(broker)
        await flush(broker, timeout)

    monkeypatch.setattr(broker_module, "_flush", recorded)
    limits = Limits(write_stall=WAIT * 10, queued_bytes=1 << 30)
    async with guarded(monkeypatch, limits) as guard:
        writer, _ = await stuck_reader(guard.port)
        async with guard.client("sender") as sender:
            for _ in range(128):  # more than the kernels buffer: its delivery waits
                await sender.publish("flood", b"x" * 65536, qos=1)
            guard.stop.set()
            async with asyncio.timeout(WAIT):
                await guard.task
        assert flushed == [guard.amqtt]
        writer.close()


async def test_what_is_still_in_flight_at_the_stop_is_delivered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A host publishes its last room states and stops the broker at once:
    everything amqtt had accepted (acknowledged to the sender) still
    reaches the subscriber before the broker goes. Kills the mutant that
    flushes nothing."""
    async with (
        guarded(monkeypatch) as guard,
        guard.client("player") as player,
        guard.client("host") as host,
    ):
        await player.subscribe("room", qos=1)
        await player.subscribe("other", qos=1)
        count = 200
        for n in range(count):
            await host.publish("room" if n % 2 else "other", b"%d" % n + b"." * 4096, qos=1)
        guard.stop.set()
        received = 0
        with pytest.raises(aiomqtt.MqttError, match="Disconnected"):
            async with asyncio.timeout(WAIT):
                async for _ in player.messages:
                    received += 1
        assert received == count


# -- the parent's view of the child ---------------------------------------------------


async def test_the_childs_error_output_is_kept_line_by_line() -> None:
    """The parent keeps the end of the child's stderr to explain a failure:
    each line whole, its indentation kept (a traceback), its line break
    gone; stdout is read and dropped. Kills the mutants of _drain_lines."""
    keep: deque[str] = deque(maxlen=40)
    await broker_module._drain_lines(fed(b"Traceback:\n  File x\r\nlast"), keep)
    assert list(keep) == ["Traceback:", "  File x", "last"]
    await broker_module._drain_lines(fed(b"ready 1883\n"), None)


def test_a_failure_is_said_in_the_childs_own_words_then_the_rest() -> None:
    """The child's one-line reason (``passe broker: ...``) replaces the
    parent's guess, and the rest of its stderr follows, a line each.
    Kills the mutants of _failure and EmbeddedBroker.stderr_tail."""
    running = broker_module.EmbeddedBroker((LOOPBACK,), 0, None)  # type: ignore[arg-type]
    running._stderr.extend(["warning: x", "passe broker: port 9 is in use", "after"])
    assert running.stderr_tail() == "warning: x\npasse broker: port 9 is in use\nafter"
    assert broker_module._failure("it exited", running) == (
        "embedded broker: port 9 is in use\nwarning: x\nafter"
    )
    quiet = broker_module.EmbeddedBroker((LOOPBACK,), 0, None)  # type: ignore[arg-type]
    quiet._stderr.extend(["a", "b"])
    assert broker_module._failure("it exited", quiet) == "embedded broker: it exited\na\nb"


async def test_payloads_are_handed_on_with_their_sender() -> None:
    """The broadcast keeps its source session (amqtt's no-local and its
    plugins read it) while the payload is shown by its size. Kills the
    mutants of _payloads_shown_by_size that lose an argument."""
    got: list[tuple[object, ...]] = []

    class Amqtt:
        async def _broadcast_message(self, *args: object) -> None:
            got.append(args)

    amqtt = Amqtt()
    broker_module._payloads_shown_by_size(amqtt)
    await amqtt._broadcast_message("session", "t", b"x", 1)
    assert got == [("session", "t", b"x", 1)]


# -- listening, with the system's answers stood in for ------------------------------


class Binds:
    """asyncio.start_server standing in for several addresses: every
    server really listens on 127.0.0.1 only; each call is recorded."""

    def __init__(self, taken: set[int] | None = None) -> None:
        self.calls: list[tuple[Any, Any]] = []
        self.taken = taken or set()
        self.start_server = asyncio.start_server

    async def __call__(self, handler: Any, host: Any, port: Any, **kwargs: Any) -> asyncio.Server:
        self.calls.append((host, port))
        if port in self.taken:
            raise OSError(errno.EADDRINUSE, os.strerror(errno.EADDRINUSE))
        return await self.start_server(handler, LOOPBACK, port if isinstance(host, list) else 0)


async def test_port_zero_on_several_addresses_takes_the_first_ones_pick_for_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Port 0 on several addresses: the system picks a port on the first,
    and every address listens on that one, with the handler that serves;
    the port said is that one. Kills the mutants of _listen's
    several-address path."""
    binds = Binds()
    monkeypatch.setattr(asyncio, "start_server", binds)
    served = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        served.set()
        writer.close()

    server, port = await broker_module._listen(handler, [LOOPBACK, "localhost"], 0, 1)
    try:
        [(first_host, first_port), (hosts, chosen)] = binds.calls
        assert (first_host, first_port) == (LOOPBACK, 0)
        assert (hosts, chosen) == ([LOOPBACK, "localhost"], port)
        _, writer = await asyncio.open_connection(LOOPBACK, port)
        async with asyncio.timeout(WAIT):
            await served.wait()
        writer.close()
    finally:
        server.close()
        await server.wait_closed()


async def test_a_port_asked_for_on_several_addresses_is_that_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A port asked for (not 0) on several addresses is tried as it is, on
    all of them at once, never replaced by one the system picks. Kills the
    mutants that take the port 0 path for a given port."""
    with taken_port() as free:
        pass
    binds = Binds()
    monkeypatch.setattr(asyncio, "start_server", binds)
    server, port = await broker_module._listen(nothing, [LOOPBACK, "localhost"], free, 1)
    server.close()
    await server.wait_closed()
    assert port == free and binds.calls == [([LOOPBACK, "localhost"], free)]


async def test_the_ports_tried_are_the_ones_asked_for_and_no_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``tries`` ports from the one asked for; port 0 is one try (the
    system picks), never ports 1, 2, ...; and never past 65535. Kills the
    range mutants of _listen."""
    binds = Binds(taken={0, 1, 2, 3, 65534, 65535})
    monkeypatch.setattr(asyncio, "start_server", binds)
    with pytest.raises(BrokerError) as caught:
        await broker_module._listen(nothing, [LOOPBACK], 1, 3)
    assert str(caught.value) == f"cannot listen on {LOOPBACK}: ports 1-3 are all in use"
    assert binds.calls == [([LOOPBACK], 1), ([LOOPBACK], 2), ([LOOPBACK], 3)]
    binds.calls.clear()
    with pytest.raises(BrokerError) as caught:
        await broker_module._listen(nothing, [LOOPBACK], 0, 3)
    assert str(caught.value) == (
        f"cannot listen on {LOOPBACK}: no port of 1 the system picked was free on all"
    )
    assert binds.calls == [([LOOPBACK], 0)]
    binds.calls.clear()
    with pytest.raises(BrokerError) as caught:
        await broker_module._listen(nothing, [LOOPBACK], 65534, 5)
    assert str(caught.value) == f"cannot listen on {LOOPBACK}: ports 65534-65535 are all in use"
    assert binds.calls == [([LOOPBACK], 65534), ([LOOPBACK], 65535)]


async def test_the_childs_error_output_is_kept_even_when_it_is_not_utf8() -> None:
    """Bytes that are not UTF-8 on the child's stderr (a locale, a crash)
    must not end the reading of its pipe (the child would block on a full
    pipe): they are kept as replacement characters. Kills the error mode
    mutants of _drain_lines."""
    keep: deque[str] = deque(maxlen=40)
    await broker_module._drain_lines(fed(b"bad \xff byte\nnext\n"), keep)
    assert list(keep) == ["bad \ufffd byte", "next"]


async def test_no_address_to_listen_on_is_said_without_starting_a_child() -> None:
    """An empty list of addresses is a caller's mistake, said in one line.
    Kills the message mutants of start_embedded_broker's first check."""
    with pytest.raises(BrokerError) as caught:
        await broker_module.start_embedded_broker([], 0)
    assert str(caught.value) == "embedded broker: no address to listen on"


async def test_a_child_saying_something_else_than_ready_is_refused_in_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever the child prints first, even bytes that are not UTF-8, the
    parent says what it got instead of ``ready PORT``, and reaps it. Kills
    the decoding mutants of start_embedded_broker."""
    spawn = asyncio.create_subprocess_exec
    script = "import sys; sys.stdout.buffer.write(b'\\xffready\\n'); sys.stdout.flush()"

    async def impostor(*args: Any, **kwargs: Any) -> asyncio.subprocess.Process:
        return await spawn(sys.executable, "-c", script, **kwargs)

    monkeypatch.setattr(asyncio, "create_subprocess_exec", impostor)
    with pytest.raises(BrokerError) as caught:
        await broker_module.start_embedded_broker(LOOPBACK, 0)
    assert str(caught.value).splitlines()[0] == (
        "embedded broker: the broker said b'\\xffready\\n' instead of 'ready PORT'"
    )


async def test_the_child_runs_in_a_session_of_its_own() -> None:
    """A Ctrl-C in the host's terminal is for the host: the broker child
    is in its own session (it goes when the host closes its stdin), not in
    the terminal's. Kills the mutants that drop ``start_new_session``."""
    running = await broker_module.start_embedded_broker(LOOPBACK, 0)
    async with running:
        assert os.getsid(running.pid) == running.pid != os.getsid(0)
