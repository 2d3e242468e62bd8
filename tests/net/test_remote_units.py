"""A seat's side of a networked table (net/remote.py), in-process (issue
23: found by ``make mutation``): a RemoteTable fed what a real authority
(in-process, real keys and signed envelopes) sends, its requests read back
from a link that keeps them. Each docstring names the mutations of
net/remote.py it kills."""

from __future__ import annotations

import hashlib

import pytest

from net.identity import Identity
from net.pins import RoomPins
from net.remote import JoinError, RemoteTable
from net.wire import RoomState, SeatState
from tests.net.rooms_in_process import CODE

ME = Identity.generate()


def remote(identity: Identity = ME, **options: object) -> RemoteTable:
    return RemoteTable(identity, CODE, "127.0.0.1", 1, "Ana", **options)  # type: ignore[arg-type]


def a_room_state(**fields: object) -> RoomState:
    values: dict[str, object] = {
        "room": CODE,
        "game": "passpass",
        "config": {},
        "host": "Host",
        "phase": "over",
        "seats": [],
        "seq": 1,
        "stamp": 1,
    }
    values.update(fields)
    return RoomState(**values)  # type: ignore[arg-type]


def test_next_table_is_the_same_seat_at_the_next_room_or_an_error() -> None:
    """Kills next_table's mutants: the error (words, code) before any next
    game, and each field handed on (identity, code, broker, name, the
    pinned key, pins, bot)."""
    table = remote(authority_key=b"k" * 32, pins=RoomPins(None), bot=True)  # type: ignore[arg-type]
    with pytest.raises(JoinError) as error:
        table.next_table()
    assert (str(error.value), error.value.code) == (
        "the host has not opened a next game",
        "no-room",
    )
    table.next_code = "XYZ789"
    table.broker_host, table.broker_port = "10.0.0.7", 1884
    following = table.next_table()
    assert (following.identity, following.code, following.name) == (ME, "XYZ789", "Ana")
    assert (following.broker_host, following.broker_port) == ("10.0.0.7", 1884)
    assert following.authority_key == b"k" * 32 and following.pinned
    assert following.pins is table.pins and following.bot


def test_the_seat_held_is_the_one_listed_with_our_key_as_a_person_or_a_bot() -> None:
    """Kills _seat_held's mutants (the key compared, the kinds that count,
    the first such seat, None otherwise)."""
    table = remote()
    other = Identity.generate().peer_id
    seats = [
        SeatState("Old", "open", peer=ME.peer_id),
        SeatState("Bea", "human", peer=other),
        SeatState("Ana", "bot", "heuristic", peer=ME.peer_id),
        SeatState("Ana", "human", peer=ME.peer_id),
    ]
    assert table._seat_held(a_room_state(seats=seats)) == 2
    assert table._seat_held(a_room_state(seats=[*seats[:2], seats[3]])) == 2
    assert table._seat_held(a_room_state(seats=seats[:2])) is None


@pytest.mark.parametrize(
    ("seed", "first", "verified"),
    [
        (7, "same", True),
        (7, "other", False),  # the commitment changed since it was first seen
        (7, "none", False),
        (True, "same", False),  # a bool is no seed
        ("7", "same", False),
        (-1, "same", False),
        (2**63, "same", False),
        (2**63 - 1, "same", True),
        (0, "same", True),
    ],
)
def test_the_deal_is_checked_against_its_first_commitment(
    seed: object, first: str, verified: bool
) -> None:
    """Kills _check_deal's mutants: the seed's type and bounds (0 and
    2**63 - 1 are seeds, -1 and 2**63 not), the hash of salt and seed
    (8 bytes, big-endian), compared with the state's and the first one."""
    salt = b"s" * 16
    number = seed if isinstance(seed, int) and 0 <= seed < 2**63 else 0
    digest = hashlib.sha256(salt + int(number).to_bytes(8, "big")).digest()
    table = remote()
    table._first_seed_hash = {"same": digest, "other": b"x" * 32, "none": None}[first]
    table._check_deal(a_room_state(record={"seed": seed}, salt=salt, seed_hash=digest))
    assert table.verified is verified and table._deal_checked.is_set()
