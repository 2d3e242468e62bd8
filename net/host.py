"""Hosting a room: a broker (embedded or given), the authority, the advert.

:func:`open_room` is what ``passe host`` and the home screen's "Host a LAN
game" do: start the embedded broker in its own process unless a broker is
given, pick a room code, run the authority, and advertise the room on the LAN
(mDNS) so that others can join by the code alone. The authority keeps the
room on disk (:mod:`net.rooms`); :func:`resume_room` (``passe host
--resume``) opens it again after the host's process died, on the same broker
(the embedded one on the same port, where the peers keep reconnecting).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.engine import Config, IllegalAction
from net.authority import Authority
from net.codes import format_code, new_code
from net.identity import Identity
from net.rooms import BrokerChoice, RoomBusy, RoomStore, SavedRoom, room_path
from net.wire import PROTOCOL_VERSION

if TYPE_CHECKING:
    from net.broker import EmbeddedBroker
    from net.discovery import Advertiser

log = logging.getLogger("passe.host")

DEFAULT_PORT = 1883
# Seconds a resumed room waits for its port: the embedded broker of the
# process that died exits when it notices (its stdin closes), not at once.
PORT_WAIT = 5.0


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
    # A resumed room whose embedded broker could not take its old port back:
    # that port (peers waiting there must join again, with the new hint).
    moved_from: int | None = None

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

    async def close(self, *, keep: bool = False) -> None:
        """Close the room, stop advertising, stop the embedded broker.
        ``keep``: leave the room on disk, to be resumed (see Authority.close)."""
        with contextlib.suppress(Exception):
            await self.authority.close(keep=keep)
        if self.advertiser is not None:
            with contextlib.suppress(Exception):
                await self.advertiser.close()
        if self.embedded is not None:
            await self.embedded.stop()
        if self.authority.store is not None:
            self.authority.store.release()


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
    admission: str = "any",
) -> HostedRoom:
    """Open a room and return it; raises ``BrokerUnreachable``,
    ``BrokerError`` or ``RoomBusy`` with a one-line reason."""
    room_code = code or new_code()
    store = _claim(room_code)
    try:
        embedded, broker_host, broker_port, shown = await _broker(broker, port, bind)
    except BaseException:
        store.release()
        raise
    store.broker = _choice(embedded, broker_host, broker_port)
    extra = {} if seed is None else {"seed": seed}
    authority = Authority(
        identity,
        room_code,
        game_id,
        config,
        host_name,
        broker_host,
        broker_port,
        bot_delay=bot_delay,
        app_version=app_version,
        store=store,
        admission=admission,  # before it listens (issue 19 item 2)
        **extra,  # type: ignore[arg-type]
    )
    room = HostedRoom(authority, broker_host, broker_port, shown, embedded)
    return await _run(room, advertise)


async def open_next_room(room: HostedRoom, *, seed: int | None = None) -> HostedRoom:
    """The next game at the table of ``room``, whose game is over: a new room
    (its own code, deal and commitment) on the same broker, run by the same
    authority key, with the same seats (each person's bound to their key, the
    same bots). ``room`` then announces it (docs/protocol.md, "The next game")
    and closes; its broker and its LAN advert pass to the new room. Raises
    ``IllegalAction`` if the game is not over, as :func:`open_room` otherwise."""
    old = room.authority
    if old.phase != "over":
        raise IllegalAction("the game is not over")
    code = new_code()
    store = _claim(code)
    store.broker = _choice(room.embedded, room.broker_host, room.broker_port)
    extra = {} if seed is None else {"seed": seed}
    authority = Authority(
        old.identity,
        code,
        old.game_id,
        old.config,
        old.host_name,
        room.broker_host,
        room.broker_port,
        bot_delay=old.bot_delay,
        app_version=old.app_version,
        store=store,
        seats=old.next_seats(),
        # The same rule; whoever was let in at this table is not asked again.
        admission=old.admission,
        allowed_keys=old.allowed_keys,
        admitted=set(old.admitted),
        barred=set(old.barred),
        free_away_after=old.free_away_after,
        **extra,  # type: ignore[arg-type]
    )
    try:
        await authority.start()
    except BaseException:
        with contextlib.suppress(Exception):
            await authority.close()
        store.release()
        raise
    old.announce_next(code)
    following = HostedRoom(
        authority, room.broker_host, room.broker_port, room.lan_address, room.embedded
    )
    advertised = room.advertiser is not None
    room.embedded = None  # the next room's now: closing this one must not stop it
    await room.close()
    if advertised:
        following.advertiser = await _advertise(following, old.game_id, old.host_name)
    return following


async def resume_room(
    saved: SavedRoom,
    *,
    broker: tuple[str, int] | None = None,
    bind: str = "0.0.0.0",
    bot_delay: float | None = None,
    advertise: bool = True,
    app_version: str = "",
    admission: str = "any",
) -> HostedRoom:
    """Open the room ``saved`` again (see :func:`net.rooms.load_room`), on
    ``broker`` if given, else where it was: the embedded broker on its old
    port when it is free again, or the broker it was given. Raises as
    :func:`open_room` does; the file is left as it was if it fails."""
    store = _claim(saved.code)
    try:
        return await _resume(
            saved, store, broker, bind, bot_delay, advertise, app_version, admission
        )
    except BaseException:
        store.release()
        raise


async def close_interrupted_room(saved: SavedRoom) -> bool:
    """Close for good a room whose host died (a game nobody will finish):
    it is opened again on its broker just long enough to tell everyone it is
    closed (its room state, retained), then its files are removed. If its
    broker cannot be reached the files are removed anyway. Returns whether
    the others could be told. Raises ``RoomBusy`` if a running Passe hosts it."""
    try:
        room = await resume_room(saved, advertise=False)
    except RoomBusy:
        raise
    except Exception as error:  # the broker is gone: nobody is left to tell
        log.info("room %s closed without telling anyone: %s", saved.code, error)
        store = _claim(saved.code)
        store.discard()
        store.release()
        return False
    await room.close()
    return True


async def _resume(
    saved: SavedRoom,
    store: RoomStore,
    broker: tuple[str, int] | None,
    bind: str,
    bot_delay: float | None,
    advertise: bool,
    app_version: str,
    admission: str = "any",
) -> HostedRoom:
    moved_from = None
    if broker is None and saved.broker.embedded:
        wanted = saved.broker.port
        free = await _wait_until_free(bind, wanted, PORT_WAIT)
        embedded, broker_host, broker_port, shown = await _broker(
            None, wanted, bind, tries=1 if free else None
        )
        if broker_port != wanted:
            moved_from = wanted
    else:
        given = broker or (saved.broker.host, saved.broker.port)
        embedded, broker_host, broker_port, shown = await _broker(given, DEFAULT_PORT, bind)
    store.broker = _choice(embedded, broker_host, broker_port)
    authority = Authority.restore(
        saved,
        broker_host,
        broker_port,
        store=store,
        bot_delay=bot_delay,
        app_version=app_version,
    )
    authority.admission = admission  # before it listens; seated keys never knock
    room = HostedRoom(authority, broker_host, broker_port, shown, embedded, moved_from=moved_from)
    return await _run(room, advertise)


async def _broker(
    broker: tuple[str, int] | None, port: int, bind: str, *, tries: int | None = None
) -> tuple[EmbeddedBroker | None, str, int, str]:
    """The embedded broker started (``broker`` None) or the given one: the
    broker, where this process reaches it, and the address others use."""
    if broker is None:
        from net.broker import DEFAULT_TRIES, start_embedded_broker

        embedded = await start_embedded_broker(
            bind=bind, port=port, tries=DEFAULT_TRIES if tries is None else tries
        )
        shown = lan_address() if bind in ("0.0.0.0", "::", "") else bind
        return embedded, "127.0.0.1", embedded.port, shown
    broker_host, broker_port = broker
    shown = lan_address() if broker_host in ("127.0.0.1", "localhost", "::1") else broker_host
    return None, broker_host, broker_port, shown


def _claim(code: str) -> RoomStore:
    """The room's store, locked for this process (raises ``RoomBusy``)."""
    store = RoomStore(room_path(code), BrokerChoice(embedded=True, host="", port=DEFAULT_PORT))
    store.claim()
    return store


def _choice(embedded: EmbeddedBroker | None, host: str, port: int) -> BrokerChoice:
    return BrokerChoice(embedded=embedded is not None, host=host, port=port)


async def _wait_until_free(bind: str, port: int, timeout: float) -> bool:
    """Whether ``port`` can be listened on, waiting up to ``timeout`` for
    the dead host's broker to let it go."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.socket(socket.AF_INET6 if ":" in bind else socket.AF_INET) as probe:
                # As asyncio's server does: connections of the dead broker
                # waiting out TIME_WAIT do not keep the port.
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind((bind, port))
            return True
        except OSError as error:
            if error.errno != errno.EADDRINUSE or time.monotonic() >= deadline:
                return False
        await asyncio.sleep(0.1)


async def _run(room: HostedRoom, advertise: bool) -> HostedRoom:
    try:
        await room.authority.start()
    except BaseException:
        await room.close()
        raise
    if advertise:
        room.advertiser = await _advertise(room, room.authority.game_id, room.authority.host_name)
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


__all__ = [
    "HostedRoom",
    "close_interrupted_room",
    "default_host_name",
    "lan_address",
    "open_next_room",
    "open_room",
    "resume_room",
]
