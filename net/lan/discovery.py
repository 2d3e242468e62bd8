"""LAN discovery of rooms with mDNS/DNS-SD (zeroconf).

The host advertises each open room as the service ``<CODE>._passe._tcp.local.``
whose SRV record points at the room's broker (port) and whose TXT record
carries ``code``, ``game``, ``free`` (free seats), ``v`` (protocol version),
``host`` (the host's player name) and ``phase`` (``lobby``, ``playing`` or
``over``: a started game is "in play" in the LAN list, not "full"; a record
without it, from an older Passe, reads as ``lobby``). A peer finds a room by its code alone:
:func:`find_room` asks for that one service name and returns as soon as it is
answered. :func:`browse_rooms` lists every room on the LAN.

Addresses: the advert lists the machine's non-loopback IPv4 addresses, then
127.0.0.1 (so a machine without a network still finds its own rooms).
zeroconf answers on every interface with every address of the record, so a
peer on another machine also receives 127.0.0.1 and the addresses of
interfaces it cannot reach: it should try :attr:`RoomAdvert.addresses` in
order (loopback is always last).

Everything that arrives from the network is hostile: :func:`advert_from_info`
checks each field's type and size and drops a record that is wrong in any
way; nothing here raises for a bad record.

Questions are always asked as QM (multicast answers): a QU question asks for
a unicast answer, which on a machine where several processes share port
5353 (two Passe processes, or Passe and avahi) reaches only one of them,
often not the one that asked. Measured: QM finds a room in ~0.1 s between
namespaces and on one machine; zeroconf's default (QU first) takes ~0.01 s
between namespaces but ~1.4 s on one machine. A responder multicasts a
record at most once a second, so a search right after another one (or
right after the room was announced) can take up to ~1 s more.

``PASSE_MDNS_INTERFACES`` (comma-separated IPv4 addresses) limits mDNS to
those interfaces, e.g. ``127.0.0.1`` in tests so that nothing is multicast
on the machine's real networks.

Manual testing: ``python -m net.lan.discovery advertise|find|browse --help``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Final, Self

from zeroconf import (
    DNSQuestionType,
    InterfaceChoice,
    IPVersion,
    NonUniqueNameException,
    NotRunningException,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
)
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from net.lan.lifeline import stop_signal
from net.protocol.codes import CODE_LENGTH, CodeError, format_code, normalize_code

SERVICE_TYPE: Final = "_passe._tcp.local."
INTERFACES_ENV: Final = "PASSE_MDNS_INTERFACES"

# Limits on what is accepted from the network (and advertised).
MAX_TXT_BYTES: Final = 512  # the whole TXT record; ours is under 100 bytes
MAX_GAME_ID = 32
MAX_HOST_NAME = 40
MAX_FREE_SEATS = 99
MAX_VERSION = 9999
MAX_ADDRESSES = 16
# The phases a room is advertised in (net.authority.authority's names; a closed room is
# withdrawn). Any other value makes the record unusable.
PHASES: Final = ("lobby", "playing", "over")
LOBBY: Final = "lobby"
_GAME_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


# What zeroconf is told to use: all interfaces, or these IPv4 addresses'.
Interfaces = list[str] | InterfaceChoice


class DiscoveryError(Exception):
    """Advertising failed; the message is one line for people."""


class RoomCodeTaken(DiscoveryError):
    """Another host on the LAN already advertises this room code."""


@dataclass(frozen=True)
class RoomAdvert:
    """An open room as advertised on the LAN. ``addresses``: IPv4 addresses
    of its broker, to try in order (loopback last)."""

    code: str
    game: str
    host_name: str
    free_seats: int
    version: int
    port: int
    addresses: tuple[str, ...] = ()
    phase: str = LOBBY


# -- validation ------------------------------------------------------------------


def service_name(code: str) -> str:
    return f"{normalize_code(code)}.{SERVICE_TYPE}"


def _valid_text(value: str, limit: int) -> bool:
    # isprintable() refuses control and format characters (escape sequences,
    # bidi overrides) that would garble or spoof the lobby list.
    return 0 < len(value) <= limit and value.isprintable() and value == value.strip()


def _small_int(raw: bytes | None, limit: int) -> int | None:
    if raw is None or not 0 < len(raw) <= len(str(limit)) or not raw.isdigit():
        return None
    value = int(raw)
    return value if value <= limit else None


def _ordered_addresses(addresses: Sequence[str]) -> tuple[str, ...] | None:
    """Valid, distinct IPv4 addresses, loopback last; None if any is bad."""
    parsed: list[ipaddress.IPv4Address] = []
    for text in addresses:
        try:
            address = ipaddress.IPv4Address(text)
        except ValueError:
            return None
        if address.is_multicast or address.is_unspecified or address in parsed:
            return None
        parsed.append(address)
    if not 0 < len(parsed) <= MAX_ADDRESSES:
        return None
    parsed.sort(key=lambda address: address.is_loopback)  # stable: keeps their order
    return tuple(str(address) for address in parsed)


def check_advert(advert: RoomAdvert) -> RoomAdvert | None:
    """The advert with its code normalized and its addresses ordered, or
    None if any field is out of bounds."""
    try:
        code = normalize_code(advert.code)
    except CodeError:
        return None
    addresses = _ordered_addresses(advert.addresses)
    if (
        addresses is None
        or not (_GAME_ID.match(advert.game) and len(advert.game) <= MAX_GAME_ID)
        or not _valid_text(advert.host_name, MAX_HOST_NAME)
        or not 0 <= advert.free_seats <= MAX_FREE_SEATS
        or not 0 <= advert.version <= MAX_VERSION
        or not 0 < advert.port <= 65535
        or advert.phase not in PHASES
    ):
        return None
    return replace(advert, code=code, addresses=addresses)


def advert_from_info(info: ServiceInfo) -> RoomAdvert | None:
    """Read a resolved service record from the network; None if anything in
    it is missing, of the wrong type or too big."""
    try:
        if len(info.text or b"") > MAX_TXT_BYTES:
            return None
        name = info.name
        if not name.lower().endswith("." + SERVICE_TYPE.lower()):
            return None
        name_code = name[: -len(SERVICE_TYPE) - 1]
        txt = info.properties
        code_raw, game_raw, host_raw = txt.get(b"code"), txt.get(b"game"), txt.get(b"host")
        if code_raw is None or game_raw is None or host_raw is None:
            return None
        if len(code_raw) != CODE_LENGTH or len(name_code) != CODE_LENGTH:
            return None
        code, game, host_name = (
            raw.decode("utf-8", "strict") for raw in (code_raw, game_raw, host_raw)
        )
        if normalize_code(code) != normalize_code(name_code):
            return None
        free_seats = _small_int(txt.get(b"free"), MAX_FREE_SEATS)
        version = _small_int(txt.get(b"v"), MAX_VERSION)
        port = info.port
        if free_seats is None or version is None or port is None:
            return None
        # Absent from an older host's record: read as the lobby (what it
        # meant then); present, it is one of PHASES or the record is dropped.
        phase_raw = txt.get(b"phase", LOBBY.encode())
        if phase_raw is None or len(phase_raw) > max(map(len, PHASES)):
            return None
        phase = phase_raw.decode("ascii", "strict")
        addresses = info.parsed_addresses(IPVersion.V4Only)
        return check_advert(
            RoomAdvert(code, game, host_name, free_seats, version, port, tuple(addresses), phase)
        )
    except (UnicodeError, CodeError, ValueError, TypeError, AttributeError):
        return None


# -- interfaces and addresses ---------------------------------------------------


def mdns_interfaces(interfaces: Sequence[str] | None = None) -> Interfaces:
    """The interfaces to use: those given, else ``PASSE_MDNS_INTERFACES``,
    else all of them."""
    if interfaces is None:
        configured = os.environ.get(INTERFACES_ENV, "").strip()
        if not configured:
            return InterfaceChoice.All
        interfaces = [part.strip() for part in configured.split(",") if part.strip()]
    for address in interfaces:
        ipaddress.IPv4Address(address)  # ValueError for anything else
    return list(interfaces)


def local_addresses(interfaces: Interfaces = InterfaceChoice.All) -> tuple[str, ...]:
    """What a room advertises: the IPv4 addresses of the interfaces used
    (every non-loopback one for all interfaces), then 127.0.0.1."""
    if isinstance(interfaces, InterfaceChoice):
        import ifaddr

        found = [
            ip.ip
            for adapter in ifaddr.get_adapters()
            for ip in adapter.ips
            if isinstance(ip.ip, str) and not ipaddress.IPv4Address(ip.ip).is_loopback
        ]
    else:
        found = list(interfaces)
    ordered = [a for a in dict.fromkeys(found) if not ipaddress.IPv4Address(a).is_loopback]
    return (*ordered[: MAX_ADDRESSES - 1], "127.0.0.1")


# -- advertising --------------------------------------------------------------------


def _service_info(advert: RoomAdvert) -> AsyncServiceInfo:
    return AsyncServiceInfo(
        SERVICE_TYPE,
        service_name(advert.code),
        port=advert.port,
        properties={
            "code": advert.code,
            "game": advert.game,
            "free": str(advert.free_seats),
            "v": str(advert.version),
            "host": advert.host_name,
            "phase": advert.phase,
        },
        # A host name of the room's own: never clashes with the machine's
        # (which avahi may answer for with other addresses).
        server=f"passe-{advert.code.lower()}.local.",
        parsed_addresses=list(advert.addresses),
    )


class Advertiser:
    """Advertises one room on the LAN while it is open (``async with`` or
    :meth:`start` ... :meth:`close`)."""

    def __init__(self, *, interfaces: Sequence[str] | None = None) -> None:
        self._interfaces = mdns_interfaces(interfaces)
        self._zeroconf: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None
        self.advert: RoomAdvert | None = None

    async def start(self, advert: RoomAdvert) -> RoomAdvert:
        """Register the room (the machine's addresses when ``advert`` has
        none) once its name is known to be unique on the LAN; returns the
        advert as published. Raises :class:`RoomCodeTaken` or
        :class:`DiscoveryError`."""
        if self._zeroconf is not None:
            raise DiscoveryError("this advertiser already advertises a room")
        if not advert.addresses:
            advert = replace(advert, addresses=local_addresses(self._interfaces))
        checked = check_advert(advert)
        if checked is None:
            raise ValueError(f"cannot advertise {advert!r}: a field is out of bounds")
        info = _service_info(checked)
        zeroconf = _open_zeroconf(self._interfaces)
        try:
            # Probes for the name first (~0.75 s), then announces it.
            announced = await zeroconf.async_register_service(info)
            await announced
        except NonUniqueNameException:
            await zeroconf.async_close()
            raise RoomCodeTaken(
                f"room code {format_code(checked.code)} is already in use on this network"
            ) from None
        except (OSError, RuntimeError) as exc:
            await zeroconf.async_close()
            raise DiscoveryError(f"cannot advertise the room on the LAN: {exc}") from exc
        except BaseException:
            # Cancelled as it probed (the table that asked closed): whatever
            # was registered goes, or it answered for the room's code for
            # the process's life, and the room's next table could not be
            # advertised (CI, 6 December).
            with contextlib.suppress(Exception):
                await zeroconf.async_close()
            raise
        self._zeroconf, self._info, self.advert = zeroconf, info, checked
        return checked

    async def update(self, *, free_seats: int, phase: str | None = None) -> None:
        """Publish a new number of free seats and, if given, the room's
        phase (nothing is sent when neither changed)."""
        if self._zeroconf is None or self.advert is None:
            raise DiscoveryError("no room is advertised")
        changed = replace(self.advert, free_seats=free_seats, phase=phase or self.advert.phase)
        if changed == self.advert:
            return
        advert = check_advert(changed)
        if advert is None:
            raise ValueError(
                f"free seats must be 0 to {MAX_FREE_SEATS} and the phase one of "
                f"{', '.join(PHASES)}, not {free_seats} and {phase!r}"
            )
        info = _service_info(advert)
        await (await self._zeroconf.async_update_service(info))
        self._info, self.advert = info, advert

    async def close(self) -> None:
        """Withdraw the room (goodbye packets) and stop answering."""
        zeroconf, self._zeroconf = self._zeroconf, None
        if zeroconf is None:
            return
        if self._info is not None:
            with contextlib.suppress(Exception):
                await (await zeroconf.async_unregister_service(self._info))
        await zeroconf.async_close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


# -- finding ------------------------------------------------------------------------


def _open_zeroconf(interfaces: Interfaces) -> AsyncZeroconf:
    try:
        return AsyncZeroconf(interfaces=interfaces)
    except (OSError, RuntimeError) as exc:
        raise DiscoveryError(f"cannot use multicast DNS on this machine: {exc}") from exc


async def _resolve(zeroconf: Zeroconf, name: str, timeout: float) -> RoomAdvert | None:
    """The advert of service ``name``, or None: none within ``timeout``, or
    zeroconf closed meanwhile (a name seen as a browse ended: its lookup
    raised into a task nobody awaited, found in a play-test's log)."""
    info = AsyncServiceInfo(SERVICE_TYPE, name)
    try:
        found = await info.async_request(zeroconf, timeout * 1000, question_type=DNSQuestionType.QM)
    except NotRunningException:
        return None
    return advert_from_info(info) if found else None


async def find_room(
    code: str, timeout: float = 3.0, *, interfaces: Sequence[str] | None = None
) -> RoomAdvert | None:
    """The room advertised with this code on the LAN, as soon as it answers;
    None after ``timeout`` seconds, or if its record is malformed. Raises
    :class:`~net.protocol.codes.CodeError` for a code that cannot be one and
    :class:`DiscoveryError` where mDNS cannot be used at all."""
    name = service_name(code)
    async with _open_zeroconf(mdns_interfaces(interfaces)) as zeroconf:
        return await _resolve(zeroconf.zeroconf, name, timeout)


async def browse_rooms(
    timeout: float = 2.0, *, interfaces: Sequence[str] | None = None
) -> list[RoomAdvert]:
    """Every well-formed room advertised on the LAN within ``timeout``
    seconds, by code."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    resolving: dict[str, asyncio.Task[RoomAdvert | None]] = {}
    browsing: asyncio.Future[None] = loop.create_future()  # done once the browse ends
    async with _open_zeroconf(mdns_interfaces(interfaces)) as zeroconf:

        def on_change(
            zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
        ) -> None:
            key = name.lower()
            if state_change is ServiceStateChange.Removed or key in resolving or browsing.done():
                return  # after the browse: nobody would read its lookup
            if len(resolving) >= 256:  # a flood of names: enough
                return
            left = max(deadline - loop.time(), 0.05)
            resolving[key] = asyncio.ensure_future(_resolve(zeroconf, name, left))

        browser = AsyncServiceBrowser(
            zeroconf.zeroconf,
            SERVICE_TYPE,
            handlers=[on_change],
            question_type=DNSQuestionType.QM,
        )
        try:
            await asyncio.sleep(max(deadline - loop.time(), 0))
        finally:
            browsing.set_result(None)
            await browser.async_cancel()
        results = await asyncio.gather(*resolving.values(), return_exceptions=True)
    rooms = {r.code: r for r in results if isinstance(r, RoomAdvert)}
    return [rooms[code] for code in sorted(rooms)]


# -- command line, for trying it by hand ----------------------------------------


async def _advertise(advert: RoomAdvert, interfaces: Sequence[str] | None) -> None:
    stop = stop_signal()
    async with Advertiser(interfaces=interfaces) as advertiser:
        published = await advertiser.start(advert)
        print("advertising " + json.dumps(asdict(published)), flush=True)
        await stop.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m net.lan.discovery", description="Passe rooms on the LAN (mDNS)."
    )
    parser.add_argument(
        "--interface",
        action="append",
        help=f"IPv4 address of an interface to use (repeatable; default: ${INTERFACES_ENV} or all)",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    advertise = commands.add_parser(
        "advertise", help="advertise a room until stdin closes or SIGTERM/SIGINT"
    )
    advertise.add_argument("code")
    advertise.add_argument("--game", default="passpass")
    advertise.add_argument("--host-name", default="host")
    advertise.add_argument("--free", type=int, default=1)
    advertise.add_argument("--phase", choices=PHASES, default=LOBBY)
    advertise.add_argument("--version", type=int, default=1)
    advertise.add_argument("--port", type=int, default=1883)
    advertise.add_argument("--address", action="append", help="advertised address (repeatable)")
    find = commands.add_parser("find", help="find a room by its code; JSON, or exit 1")
    find.add_argument("code")
    find.add_argument("--timeout", type=float, default=3.0)
    browse = commands.add_parser("browse", help="list rooms, one JSON line each")
    browse.add_argument("--timeout", type=float, default=2.0)
    args = parser.parse_args(argv)
    try:
        if args.command == "advertise":
            advert = RoomAdvert(
                args.code,
                args.game,
                args.host_name,
                args.free,
                args.version,
                args.port,
                tuple(args.address or ()),
                args.phase,
            )
            asyncio.run(_advertise(advert, args.interface))
        elif args.command == "find":
            found = asyncio.run(find_room(args.code, args.timeout, interfaces=args.interface))
            if found is None:
                print(f"no room {format_code(args.code)} found on the LAN", file=sys.stderr)
                return 1
            print(json.dumps(asdict(found)), flush=True)
        else:
            for room in asyncio.run(browse_rooms(args.timeout, interfaces=args.interface)):
                print(json.dumps(asdict(room)), flush=True)
    except (DiscoveryError, ValueError) as exc:
        print(f"passe discovery: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
