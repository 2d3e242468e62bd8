"""The election's public names (net/election/topics.py): where a room's
authority announces itself, and a voter's standby broker as the room state
writes it. A broker's address comes from other machines' messages: what is
not an IP address and a port is no broker (issue 20)."""

from __future__ import annotations

import msgspec
import pytest

from net.election.topics import (
    Announce,
    announce_decoder,
    authority_topic,
    broker_text,
    election_topic,
    parse_broker,
    voter_presence_topic,
)
from net.protocol.wire import room_prefix


def test_each_topic_is_under_the_room_s_own_prefix() -> None:
    prefix = room_prefix("ABC123")
    assert authority_topic("ABC123") == f"{prefix}/e/authority"
    assert voter_presence_topic("ABC123", "0123456789abcdef") == f"{prefix}/e/p/0123456789abcdef"
    assert election_topic("ABC123", "0123456789abcdef") == f"{prefix}/e/0123456789abcdef"


@pytest.mark.parametrize(
    ("text", "broker"),
    [
        ("127.0.0.1:1883", ("127.0.0.1", 1883)),
        ("10.0.0.7:1", ("10.0.0.7", 1)),
        ("192.168.1.2:65535", ("192.168.1.2", 65535)),
        ("[::1]:1884", ("::1", 1884)),
        ("[fe80::1]:1883", ("fe80::1", 1883)),
    ],
)
def test_a_broker_s_address_is_read_back_as_written(text: str, broker: tuple[str, int]) -> None:
    assert parse_broker(text) == broker
    assert broker_text(broker) == text
    assert parse_broker(broker_text(broker)) == broker


@pytest.mark.parametrize(
    "text",
    [
        "",
        "127.0.0.1",  # no port
        "127.0.0.1:",
        ":1883",  # no address
        "127.0.0.1:0",
        "127.0.0.1:65536",
        "127.0.0.1:-1",
        "127.0.0.1:+80",
        "127.0.0.1: 80",
        "127.0.0.1:١٨٨٣",  # digits, but not ASCII ones: int() would read 1883
        "127.0.0.1:" + "9" * 5000,  # int() refuses past 4,300 digits: no crash
        "127.0.0.1:000001883",
        "127.0.0.1:001883",  # six digits: a port is five at most
        "pi.local:1883",  # a name: a standby broker is an address
        "999.0.0.1:1883",
        "[not-an-address]:1883",
    ],
)
def test_what_is_not_an_address_and_a_port_is_no_broker(text: str) -> None:
    assert parse_broker(text) is None


def test_an_announcement_is_bounded_and_strict() -> None:
    encode = msgspec.msgpack.encode
    assert announce_decoder.decode(encode(Announce(3, b"k" * 32))) == Announce(3, b"k" * 32)
    assert announce_decoder.decode(encode(Announce(1))).room_key == b""
    wrong = [
        {"type": "announce", "term": 0},
        {"type": "announce", "term": 2**53 + 1},
        {"type": "announce", "term": 1, "room_key": b"k" * 33},
        {"type": "announce", "term": 1, "extra": 1},
        {"type": "vote", "term": 1},
    ]
    for message in wrong:
        with pytest.raises(msgspec.ValidationError):
            announce_decoder.decode(encode(message))
