"""Hosting a room: a broker (embedded or given), the authority, the advert.

:func:`open_room` is what ``passe host`` and the home screen's "Host a LAN
game" do: start the embedded broker in its own process unless a broker is
given, pick a room code, run the authority, and advertise the room on the LAN
(mDNS) so that others can join by the code alone.
"""

from __future__ import annotations

import contextlib
import logging
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.engine import Config
from net.authority import Authority
from net.codes import format_code, new_code
from net.identity import Identity
from net.wire import PROTOCOL_VERSION

if TYPE_CHECKING:
    from net.broker import EmbeddedBroker
    from net.discovery import Advertiser

log = logging.getLogger("passe.host")

DEFAULT_PORT = 1883


@dataclass
class HostedRoom:
    """A room this process hosts. ``join_hint`` is what others type when
    discovery cannot find it (``passe join CODE@HOST:PORT``)."""

    authority: Authority
    broker_host: str  # where this process reaches the broker
    broker_port: int
    lan_address: str  # where others reach it
    embedded: EmbeddedBroker | None = None
    advertiser: Advertiser | None = None

    @property
    def code(self) -> str:
        return self.authority.code

    @property
    def join_hint(self) -> str:
        host = f"[{self.lan_address}]" if ":" in self.lan_address else self.lan_address
        return f"{format_code(self.code)}@{host}:{self.broker_port}"

    async def update_advert(self) -> None:
        if self.advertiser is not None:
            with contextlib.suppress(Exception):  # the LAN list is a convenience
                await self.advertiser.update(free_seats=self.authority.free_seats)

    async def close(self) -> None:
        """Close the room, stop advertising, stop the embedded broker."""
        with contextlib.suppress(Exception):
            await self.authority.close()
        if self.advertiser is not None:
            with contextlib.suppress(Exception):
                await self.advertiser.close()
        if self.embedded is not None:
            await self.embedded.stop()


def lan_address() -> str:
    """This machine's first non-loopback IPv4 address (as discovery orders
    them), or 127.0.0.1."""
    from net.discovery import local_addresses

    return local_addresses()[0]


async def open_room(
    game_id: str,
    config: Config,
    *,
    identity: Identity,
    host_name: str,
    broker: tuple[str, int] | None = None,
    port: int = DEFAULT_PORT,
    bind: str = "0.0.0.0",
    seed: int | None = None,
    bot_delay: float = 0.6,
    advertise: bool = True,
    app_version: str = "",
    code: str | None = None,
) -> HostedRoom:
    """Open a room and return it; raises ``BrokerUnreachable`` or
    ``BrokerError`` with a one-line reason."""
    embedded = None
    if broker is None:
        from net.broker import start_embedded_broker

        embedded = await start_embedded_broker(bind=bind, port=port)
        broker_host, broker_port = "127.0.0.1", embedded.port
        shown = lan_address() if bind in ("0.0.0.0", "::", "") else bind
    else:
        broker_host, broker_port = broker
        shown = lan_address() if broker_host in ("127.0.0.1", "localhost", "::1") else broker_host
    extra = {} if seed is None else {"seed": seed}
    authority = Authority(
        identity,
        code or new_code(),
        game_id,
        config,
        host_name,
        broker_host,
        broker_port,
        bot_delay=bot_delay,
        app_version=app_version,
        **extra,  # type: ignore[arg-type]
    )
    room = HostedRoom(authority, broker_host, broker_port, shown, embedded)
    try:
        await authority.start()
    except BaseException:
        await room.close()
        raise
    if advertise:
        room.advertiser = await _advertise(room, game_id, host_name)
    return room


async def _advertise(room: HostedRoom, game_id: str, host_name: str) -> Advertiser | None:
    from net.discovery import Advertiser, RoomAdvert

    advert = RoomAdvert(
        code=room.code,
        game=game_id,
        host_name=host_name,
        free_seats=room.authority.free_seats,
        version=PROTOCOL_VERSION,
        port=room.broker_port,
        addresses=(room.lan_address,) if room.lan_address != "127.0.0.1" else (),
    )
    advertiser = Advertiser()
    try:
        await advertiser.start(advert)
    except Exception as error:  # multicast may be blocked: CODE@HOST:PORT still works
        log.warning("could not advertise the room on the LAN: %s", error)
        with contextlib.suppress(Exception):
            await advertiser.close()
        return None
    return advertiser


def default_host_name() -> str:
    return socket.gethostname()[:64] or "passe"


__all__ = ["HostedRoom", "default_host_name", "lan_address", "open_room"]
