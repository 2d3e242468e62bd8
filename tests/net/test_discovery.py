"""LAN discovery over real mDNS, on loopback only (nothing is multicast on
the machine's networks): rooms advertised by one process and found by code
from another, and hostile records that must be skipped."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
from zeroconf import InterfaceChoice, ServiceInfo
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from net.lan.discovery import (
    INTERFACES_ENV,
    SERVICE_TYPE,
    Advertiser,
    RoomAdvert,
    advert_from_info,
    browse_rooms,
    check_advert,
    find_room,
    local_addresses,
    mdns_interfaces,
)
from net.protocol.codes import new_code

LOOPBACK = "127.0.0.1"


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # Every zeroconf made here, and in the processes started here, uses lo only.
    monkeypatch.setenv(INTERFACES_ENV, LOOPBACK)
    yield


def advert(code: str, **changes: object) -> RoomAdvert:
    fields: dict[str, object] = {
        "code": code,
        "game": "passpass",
        "host_name": "Ann",
        "free_seats": 3,
        "version": 1,
        "port": 1884,
        "addresses": (LOOPBACK,),
    }
    fields.update(changes)
    return RoomAdvert(**fields)  # type: ignore[arg-type]


def record(
    name_code: str,
    txt: dict[bytes, bytes | None],
    *,
    port: int | None = 1884,
    addresses: list[str] | None = None,
) -> ServiceInfo:
    return ServiceInfo(
        SERVICE_TYPE,
        f"{name_code}.{SERVICE_TYPE}",
        port=port,
        properties=txt,
        server=f"passe-{name_code.lower()}.local.",
        parsed_addresses=[LOOPBACK] if addresses is None else addresses,
    )


GOOD_TXT: dict[bytes, bytes | None] = {
    b"code": b"ABC123",
    b"game": b"passpass",
    b"free": b"2",
    b"v": b"1",
    b"host": "Zoë".encode(),
}


def test_a_good_record_is_read_with_loopback_last() -> None:
    info = record("ABC123", GOOD_TXT, addresses=["127.0.0.1", "10.0.0.5", "192.168.1.9"])
    found = advert_from_info(info)
    assert found is not None
    # zeroconf keeps no order among addresses (its cache is LIFO): only
    # "loopback last" is ours to promise.
    assert found.addresses[-1] == "127.0.0.1"
    assert found == RoomAdvert(
        "ABC123", "passpass", "Zoë", 2, 1, 1884, (*found.addresses[:2], "127.0.0.1")
    )
    assert set(found.addresses) == {"127.0.0.1", "10.0.0.5", "192.168.1.9"}


@pytest.mark.parametrize(
    ("name_code", "changes"),
    [
        ("ABC123", {b"code": b"ABC124"}),  # TXT code is not the name's
        ("ABCU23", {b"code": b"ABCU23"}),  # not a code
        ("ABC123", {b"code": None}),  # key without a value
        ("ABC123", {b"game": b"Pass Pass"}),  # not a game id
        ("ABC123", {b"game": b"x" * 33}),
        ("ABC123", {b"host": b"\xff\xfe"}),  # not UTF-8
        ("ABC123", {b"host": b"Ann\x1b[2J"}),  # a terminal escape sequence
        ("ABC123", {b"host": "Ann\u202egnp.exe".encode()}),  # a bidi override
        ("ABC123", {b"host": b""}),
        ("ABC123", {b"host": b" Ann"}),
        ("ABC123", {b"host": b"A" * 41}),
        ("ABC123", {b"free": b"-1"}),
        ("ABC123", {b"free": b"100"}),
        ("ABC123", {b"free": b"1e3"}),
        ("ABC123", {b"free": "٣".encode()}),  # an Arabic-Indic digit
        ("ABC123", {b"free": b""}),
        ("ABC123", {b"v": b"99999"}),
        ("ABC123", {b"v": None}),
        ("ABC123", {b"pad1": b"x" * 200, b"pad2": b"y" * 200, b"pad3": b"z" * 200}),  # too big
        ("ABC123", {b"phase": b"started"}),  # not one of the phases (issue 18)
        ("ABC123", {b"phase": b"closed"}),  # a closed room is withdrawn, never advertised
        ("ABC123", {b"phase": b"PLAYING"}),
        ("ABC123", {b"phase": b"playing\x1b[2J"}),
        ("ABC123", {b"phase": "pläying".encode()}),
        ("ABC123", {b"phase": b""}),
        ("ABC123", {b"phase": None}),
    ],
)
def test_hostile_records_are_skipped(name_code: str, changes: dict[bytes, bytes | None]) -> None:
    txt = {**GOOD_TXT, **changes}
    assert advert_from_info(record(name_code, txt)) is None


@pytest.mark.parametrize("phase", ["lobby", "playing", "over"])
def test_the_phase_is_read_and_a_record_without_one_is_a_lobby(phase: str) -> None:
    # Issue 18: a started game read as "full"; an older host sends no phase.
    found = advert_from_info(record("ABC123", {**GOOD_TXT, b"phase": phase.encode()}))
    assert found is not None and found.phase == phase
    older = advert_from_info(record("ABC123", GOOD_TXT))
    assert older is not None and older.phase == "lobby"
    assert check_advert(advert("ABC123", phase="closed")) is None


@pytest.mark.parametrize("missing", [b"code", b"game", b"free", b"v", b"host"])
def test_records_missing_a_field_are_skipped(missing: bytes) -> None:
    txt = {key: value for key, value in GOOD_TXT.items() if key != missing}
    assert advert_from_info(record("ABC123", txt)) is None


@pytest.mark.parametrize(
    "addresses", [[], ["224.0.0.251"], ["0.0.0.0"], [f"10.0.0.{n}" for n in range(1, 18)]]
)
def test_records_with_unusable_addresses_are_skipped(addresses: list[str]) -> None:
    assert advert_from_info(record("ABC123", GOOD_TXT, addresses=addresses)) is None


def test_records_without_a_port_are_skipped() -> None:
    assert advert_from_info(record("ABC123", GOOD_TXT, port=None)) is None


def test_check_advert_normalizes_and_bounds() -> None:
    checked = check_advert(advert("abc-123", addresses=("127.0.0.1", "10.1.2.3")))
    assert checked is not None
    assert (checked.code, checked.addresses) == ("ABC123", ("10.1.2.3", "127.0.0.1"))
    assert check_advert(advert("ABC123", free_seats=-1)) is None
    assert check_advert(advert("ABC123", port=70000)) is None
    assert check_advert(advert("ABC123", host_name="\x07")) is None


def test_local_addresses_end_with_loopback() -> None:
    assert local_addresses(["127.0.0.1"]) == ("127.0.0.1",)
    assert local_addresses(["10.77.0.2"]) == ("10.77.0.2", "127.0.0.1")
    every = local_addresses()
    assert every[-1] == "127.0.0.1" and "127.0.0.1" not in every[:-1]


# -- over the network (loopback) -------------------------------------------------


@pytest.fixture
async def advertised_elsewhere() -> AsyncIterator[RoomAdvert]:
    """A room advertised by another process (``python -m net.lan.discovery``)."""
    code = new_code()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "net.lan.discovery",
        "advertise",
        code,
        "--game",
        "dominoes",
        "--host-name",
        "Bea",
        "--free",
        "2",
        "--port",
        "1885",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, INTERFACES_ENV: LOOPBACK},
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), 20)
        assert line.startswith(b"advertising "), line
        published = json.loads(line.removeprefix(b"advertising "))
        yield RoomAdvert(**{**published, "addresses": tuple(published["addresses"])})
    finally:
        process.stdin.close()  # it withdraws the room and exits
        assert await asyncio.wait_for(process.wait(), 10) == 0


async def test_find_a_room_advertised_by_another_process(
    advertised_elsewhere: RoomAdvert,
) -> None:
    start = time.monotonic()
    found = await find_room(advertised_elsewhere.code.lower(), timeout=30)
    # Answered at once, not at the end of the (long) timeout.
    assert time.monotonic() - start < 10
    assert found == advertised_elsewhere
    assert found == RoomAdvert(
        advertised_elsewhere.code, "dominoes", "Bea", 2, 1, 1885, ("127.0.0.1",)
    )


async def test_browse_lists_it(advertised_elsewhere: RoomAdvert) -> None:
    rooms = await browse_rooms(3.0)
    assert advertised_elsewhere in rooms


async def test_a_wrong_code_finds_nothing() -> None:
    assert await find_room(new_code(), timeout=1.0) is None


async def found_changed(
    code: str, changed: Callable[[RoomAdvert], bool], timeout: float = 15.0
) -> RoomAdvert:
    """The room's record once a search finds it changed. A search may first
    meet the record as it was: an announcement of it still on its way when
    it changed (zeroconf repeats a new service's announcements; CI, a clean
    clone on Python 3.13, 5 December)."""
    async with asyncio.timeout(timeout):
        while True:
            found = await find_room(code)
            if found is not None and changed(found):
                return found


async def test_update_then_close() -> None:
    # (A code already taken is detected between machines, tests/net/test_lan.py;
    # on one machine zeroconf's probe answers are unicast to a port 5353 that
    # several processes share, so it may not see them.)
    code = new_code()
    async with Advertiser() as advertiser:
        published = await advertiser.start(advert(code))
        assert published.addresses == ("127.0.0.1",)
        await advertiser.update(free_seats=0)
        found = await found_changed(code, lambda room: room.free_seats == 0)
        assert found.host_name == "Ann" and found.phase == "lobby"
        await advertiser.update(free_seats=0, phase="playing")  # the game started
        found = await found_changed(code, lambda room: room.phase == "playing")
        assert found.free_seats == 0
        with pytest.raises(ValueError):
            await advertiser.update(free_seats=0, phase="closed")
    # Withdrawn with goodbye packets: a new search finds nothing.
    assert await find_room(code, timeout=1.0) is None


async def test_an_advert_cancelled_once_registered_is_withdrawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cancelled after its name was registered, as it announces it (the
    table that asked for it closed): nothing answers for the code after.
    Left registered, a closed table's advert answered for the room's code
    for the process's life (CI, 6 December)."""
    registered = asyncio.Event()
    register = AsyncZeroconf.async_register_service

    async def noting(self: AsyncZeroconf, *arguments: object, **options: object) -> object:
        announced = await register(self, *arguments, **options)  # type: ignore[arg-type]
        registered.set()
        return announced

    monkeypatch.setattr(AsyncZeroconf, "async_register_service", noting)
    code = new_code()
    advertiser = Advertiser()
    starting = asyncio.ensure_future(advertiser.start(advert(code)))
    await registered.wait()
    assert not starting.done()  # its announcements still going out
    starting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await starting
    await advertiser.close()  # nothing to withdraw: harmless
    # The room's next table advertises the code (refused while the first
    # registration answered for it).
    async with Advertiser() as again:
        assert (await again.start(advert(code))).code == code


async def test_hostile_records_on_the_network_are_skipped() -> None:
    good, bad = new_code(), new_code()
    hostile = AsyncServiceInfo(
        SERVICE_TYPE,
        f"{bad}.{SERVICE_TYPE}",
        port=1884,
        properties={
            "code": bad,
            "game": "passpass",
            "free": "lots",
            "v": "1",
            "host": "\x1b]0;pwned\x07",
        },
        server=f"passe-{bad.lower()}.local.",
        parsed_addresses=[LOOPBACK],
    )
    async with AsyncZeroconf(interfaces=[LOOPBACK]) as raw, Advertiser() as advertiser:

        async def register_hostile() -> None:
            await (await raw.async_register_service(hostile))

        await asyncio.gather(advertiser.start(advert(good)), register_hostile())
        assert await find_room(bad, timeout=2.0) is None
        codes = {room.code for room in await browse_rooms(3.0)}
        assert good in codes and bad not in codes


async def test_a_lookup_whose_zeroconf_closed_meanwhile_finds_nothing_and_raises_nothing() -> None:
    """A name seen as a browse ended was looked up in a task nobody read
    once zeroconf had closed: "Task exception was never retrieved ...
    NotRunningException" in a play-tester's log. The lookup now finds
    nothing, quietly."""
    from net.lan.discovery import _resolve, service_name

    zeroconf = AsyncZeroconf(interfaces=["127.0.0.1"])
    await zeroconf.async_close()
    assert await _resolve(zeroconf.zeroconf, service_name(new_code()), 0.1) is None


# The edges of every bound on what anyone on the LAN may advertise (found
# by make mutation: each `<=` could have been a `<`, each `or` an `and`).


@pytest.mark.parametrize(
    ("changes", "kept"),
    [
        ({"free_seats": 0}, True),
        ({"free_seats": 99}, True),
        ({"free_seats": 100}, False),
        ({"free_seats": -1}, False),
        ({"version": 0}, True),
        ({"version": 9999}, True),
        ({"version": 10000}, False),
        ({"port": 1}, True),
        ({"port": 65535}, True),
        ({"port": 0}, False),
        ({"port": 65536}, False),
        ({"game": "g" * 32}, True),
        ({"game": "g" * 33}, False),
        ({"host_name": "A"}, True),
        ({"host_name": "A" * 40}, True),
        ({"host_name": "A" * 41}, False),
        ({"host_name": ""}, False),
        ({"addresses": tuple(f"10.0.0.{n}" for n in range(1, 17))}, True),
        ({"addresses": tuple(f"10.0.0.{n}" for n in range(1, 18))}, False),
    ],
)
def test_an_advert_at_each_edge_of_its_bounds(changes: dict[str, object], kept: bool) -> None:
    checked = check_advert(advert("ABC123", **changes))
    assert (checked is not None) == kept


@pytest.mark.parametrize(
    ("free", "read"),
    [(b"0", 0), (b"9", 9), (b"99", 99), (b"100", None), (b"", None), (b"-1", None), (b"1a", None)],
)
def test_a_record_s_free_seats_are_read_to_their_edge(free: bytes, read: int | None) -> None:
    found = advert_from_info(record("ABC123", {**GOOD_TXT, b"free": free}))
    assert (None if found is None else found.free_seats) == read


@pytest.mark.parametrize(
    ("version", "read"), [(b"9999", 9999), (b"10000", None), (b"0", 0), (b"x", None)]
)
def test_a_record_s_version_is_read_to_its_edge(version: bytes, read: int | None) -> None:
    found = advert_from_info(record("ABC123", {**GOOD_TXT, b"v": version}))
    assert (None if found is None else found.version) == read


@pytest.mark.parametrize("missing", [b"code", b"game", b"host", b"free", b"v"])
def test_a_record_missing_any_one_field_is_dropped(missing: bytes) -> None:
    assert advert_from_info(record("ABC123", {**GOOD_TXT, missing: None})) is None
    txt = {key: value for key, value in GOOD_TXT.items() if key != missing}
    assert advert_from_info(record("ABC123", txt)) is None


def test_a_record_is_dropped_for_each_thing_wrong_alone() -> None:
    assert advert_from_info(record("ABC123", GOOD_TXT)) is not None
    assert advert_from_info(record("ABC123", GOOD_TXT, port=None)) is None
    assert advert_from_info(record("ABC12", {**GOOD_TXT, b"code": b"ABC12"})) is None
    assert advert_from_info(record("ABC1234", GOOD_TXT)) is None  # the name's code too long
    assert advert_from_info(record("ABC123", {**GOOD_TXT, b"host": b"\xff\xfe"})) is None
    assert advert_from_info(record("ABC123", {**GOOD_TXT, b"phase": "é".encode()})) is None
    assert advert_from_info(record("ABC123", {**GOOD_TXT, b"phase": b"playing"})) is not None
    assert advert_from_info(record("ABC123", {**GOOD_TXT, b"phase": b"playingg"})) is None
    assert advert_from_info(record("ABC123", {**GOOD_TXT, b"phase": None})) is None


def test_a_record_s_text_is_read_up_to_its_bound() -> None:
    """512 bytes of TXT at most (ours is under 100): at the bound, read."""
    base = record("ABC123", GOOD_TXT).text
    assert base is not None
    room = 512 - len(base) - 2 * 3  # two more entries: a length byte and "k=" each

    def padded(extra: int) -> ServiceInfo:
        first = min(250, room)
        return record(
            "ABC123", {**GOOD_TXT, b"p": b"x" * first, b"q": b"y" * (room - first + extra)}
        )

    at_bound, over = padded(0), padded(1)
    assert at_bound.text is not None and len(at_bound.text) == 512
    assert advert_from_info(at_bound) is not None
    assert over.text is not None and len(over.text) == 513
    assert advert_from_info(over) is None


def test_what_a_room_advertises_is_its_own_addresses_then_loopback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At most 15 of its interfaces' addresses, without loopback, then
    127.0.0.1; every non-loopback one of the machine's when none is named."""
    many = [f"10.0.0.{n}" for n in range(1, 21)]
    assert local_addresses([*many, "127.0.0.1"]) == (*many[:15], "127.0.0.1")
    import ifaddr

    machine = [
        ip.ip
        for adapter in ifaddr.get_adapters()
        for ip in adapter.ips
        if isinstance(ip.ip, str) and not ip.ip.startswith("127.")
    ]
    assert local_addresses() == (*list(dict.fromkeys(machine))[:15], "127.0.0.1")


def test_the_interfaces_come_from_the_environment_comma_separated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(INTERFACES_ENV, " 127.0.0.1 , 10.0.0.1,, ")
    assert mdns_interfaces() == ["127.0.0.1", "10.0.0.1"]
    monkeypatch.setenv(INTERFACES_ENV, "  ")
    assert mdns_interfaces() == InterfaceChoice.All
    monkeypatch.delenv(INTERFACES_ENV)
    assert mdns_interfaces() == InterfaceChoice.All
    assert mdns_interfaces(["10.0.0.2"]) == ["10.0.0.2"]
    with pytest.raises(ValueError):
        mdns_interfaces(["eth0"])
