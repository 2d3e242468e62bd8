"""The election's public names: its topics, the authority's announcement,
and how a voter's standby broker is written (issue 20; docs/election.md).

Apart from :mod:`net.election.driver` so that what reads these without
running a voter (a seat, a watcher, :mod:`net.election.survey`) needs no
voter's machinery.
"""

from __future__ import annotations

import ipaddress
from typing import Annotated, Final

import msgspec

from net.protocol.wire import room_prefix


class Announce(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="announce"):
    """ "I am the authority of ``term``": published retained by a voter that
    won, signed (public: who holds the table is no secret). Seats send
    their actions there only, never to a voter they do not know to be the
    authority (an action may be secret: a fashion bid)."""

    term: Annotated[int, msgspec.Meta(ge=1, le=2**53)]
    # The key that signs the room's state and updates in this term (a game's
    # authority makes a fresh one when it takes over: net/authority/replication.py);
    # empty when the voter runs no game.
    room_key: Annotated[bytes, msgspec.Meta(max_length=32)] = b""


announce_decoder: Final = msgspec.msgpack.Decoder(Announce)


def authority_topic(code: str) -> str:
    """Where the authority of room ``code`` announces itself (retained)."""
    return f"{room_prefix(code)}/e/authority"


def voter_presence_topic(code: str, peer: str) -> str:
    """Where a voter's connection says "online" (retained) and its will
    "gone": apart from protocol v1's presence topics, which a voter's seat
    (or its room's authority) keeps on another connection of the same key."""
    return f"{room_prefix(code)}/e/p/{peer}"


def election_topic(code: str, peer: str) -> str:
    """Where the voter or seat of peer id ``peer`` receives election and
    replication messages of room ``code``."""
    return f"{room_prefix(code)}/e/{peer}"


def parse_broker(text: str) -> tuple[str, int] | None:
    """``"ADDRESS:PORT"`` (an IP address: a voter's standby broker) or None."""
    address, _, port = text.rpartition(":")
    address = address.removeprefix("[").removesuffix("]")
    # ASCII digits, five at most: int() reads other scripts' digits too.
    if not (port.isascii() and port.isdigit() and len(port) <= 5) or not 0 < int(port) < 65536:
        return None
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return None
    return address, int(port)


def broker_text(broker: tuple[str, int]) -> str:
    """``(address, port)`` as :func:`parse_broker` reads it back."""
    address, port = broker
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


__all__ = [
    "Announce",
    "announce_decoder",
    "authority_topic",
    "broker_text",
    "election_topic",
    "parse_broker",
    "voter_presence_topic",
]
