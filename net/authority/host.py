"""Hosting a room: a broker (embedded or given), the authority, the advert.

:func:`open_room` is what ``passe host`` and the home screen's "Host a LAN
game" do: start the embedded broker in its own process unless a broker is
given, pick a room code, run the authority, and advertise the room on the LAN
(mDNS) so that others can join by the code alone. The authority keeps the
room on disk (:mod:`net.authority.rooms`); :func:`resume_room` (``passe host
--resume``) opens it again after the host's process died, on the same broker
(the embedded one on the same port, where the peers keep reconnecting).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import logging
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from nacl.signing import SigningKey

from core.engine import Config, IllegalAction
from net.authority.authority import Authority
from net.authority.replication import maker_vote_path
from net.authority.rooms import (
    BrokerChoice,
    RoomBusy,
    RoomFileError,
    RoomStore,
    SavedRoom,
    load_room,
    room_path,
)
from net.election.driver import broker_text
from net.identity import Identity
from net.protocol.codes import format_code, new_code
from net.protocol.text import clean_text
from net.protocol.wire import PROTOCOL_VERSION

if TYPE_CHECKING:
    from net.lan.broker import EmbeddedBroker
    from net.lan.discovery import Advertiser, RoomAdvert

log = logging.getLogger("passe.host")

DEFAULT_PORT = 1883


class RoomMoved(Exception):
    """The room failed over to another machine: it cannot be resumed here."""


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
    lan_address: str  # where others reach it (the first of ``addresses``)
    embedded: EmbeddedBroker | None = None
    advertiser: Advertiser | None = None
    # A resumed room whose embedded broker could not take its old port back:
    # that port (peers waiting there must join again, with the new hint).
    moved_from: int | None = None
    # Where the broker was found to answer (issue 18.5), loopback last: what
    # the room advertises on the LAN. Set once the authority is connected.
    addresses: tuple[str, ...] = ()
    _advert_lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    @property
    def code(self) -> str:
        return self.authority.code

    @property
    def local_only(self) -> bool:
        """Whether the broker answers only on this machine (loopback): a
        broker given on 127.0.0.1, or the embedded one with ``--bind
        127.0.0.1``; players elsewhere cannot reach the room."""
        return all(_is_loopback(address) for address in self.addresses or (self.lan_address,))

    @property
    def reach_note(self) -> str:
        """One line for the host when others cannot reach the room, else ""."""
        if not self.local_only:
            return ""
        how = (
            "host with --bind one of this machine's LAN addresses"
            if self.embedded is not None
            else "make that broker listen on the LAN too, e.g. Mosquitto's `listener 1883`"
        )
        return (
            f"the room's broker ({self.lan_address}:{self.broker_port}) answers only on this "
            f"machine: players on other machines cannot join ({how})"
        )

    @property
    def moved_note(self) -> str:
        """One line for the host when its resumed room's broker could not
        take its old port back, else "": others find the room on the LAN
        (their Passe looks there once the old port has no state of it), or
        join again by hand."""
        if self.moved_from is None:
            return ""
        return (
            f"port {self.moved_from} was taken: the room's broker is on port "
            f"{self.broker_port} now; the others' Passe looks for it on the LAN, "
            f"else they join again with {self.join_hint}"
        )

    @property
    def join_hint(self) -> str:
        host = f"[{self.lan_address}]" if ":" in self.lan_address else self.lan_address
        return f"{format_code(self.code)}@{host}:{self.broker_port}"

    async def update_advert(self) -> None:
        if self.advertiser is None:
            return
        # One update at a time, each with the room as it is when its turn
        # comes: the last one sent is the room's latest state.
        async with self._advert_lock:
            with contextlib.suppress(Exception):  # the LAN list is a convenience
                # The phase too: a started game is "in play", not "full" (issue 18).
                await self.advertiser.update(
                    free_seats=self.authority.free_seats, phase=advert_phase(self.authority.phase)
                )

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
    from net.lan.discovery import local_addresses

    return local_addresses()[0]


# What a bind address means "every interface".
ALL_INTERFACES = ("", "0.0.0.0", "::")
# Seconds to wait for the broker to accept a probe connection on an address.
PROBE_TIMEOUT = 1.0

Bind = str | Sequence[str] | None


def broker_binds(bind: Bind) -> tuple[str, ...]:
    """Where the embedded broker listens: ``bind`` (an address or several),
    or by default (None) the interfaces the room is advertised on (issue
    19.7): this machine's LAN addresses and loopback, as
    :func:`net.lan.discovery.local_addresses` lists them for the interfaces mDNS
    uses (``PASSE_MDNS_INTERFACES``), never every interface."""
    if bind is None:
        from net.lan.discovery import local_addresses, mdns_interfaces

        # An interface listed but not usable now (going down) would make the
        # whole broker fail to start: only those a socket can bind to.
        usable = tuple(a for a in local_addresses(mdns_interfaces()) if _bindable(a))
        return usable or ("127.0.0.1",)
    return (bind,) if isinstance(bind, str) else tuple(bind)


def _bindable(address: str) -> bool:
    try:
        with socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET) as probe:
            probe.bind((address, 0))
    except OSError:
        return False
    return True


def _is_loopback(address: str) -> bool:
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


async def answers(address: str, port: int, timeout: float = PROBE_TIMEOUT) -> bool:
    """Whether something accepts a TCP connection at ``address:port``."""
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(address, port), timeout)
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


async def reachable_addresses(
    broker_host: str, port: int, embedded: EmbeddedBroker | None
) -> tuple[str, ...]:
    """The IPv4 addresses where the room's broker answers (issue 18.5),
    loopback last: what it is advertised and shown at. For a broker on
    loopback (embedded or given), this machine's LAN addresses are tried
    too: a broker listening on every interface answers there as well."""
    from net.lan.discovery import local_addresses

    if embedded is not None and not any(bind in ALL_INTERFACES for bind in embedded.binds):
        candidates: Sequence[str] = embedded.binds
    elif embedded is not None or _is_loopback(broker_host):
        candidates = local_addresses()
    else:
        candidates = await _ipv4_of(broker_host, port)
    ordered = sorted(dict.fromkeys(candidates), key=_is_loopback)  # stable: loopback last
    ipv4 = [address for address in ordered if _ipv4(address)]
    found = await asyncio.gather(*(answers(address, port) for address in ipv4))
    return tuple(address for address, ok in zip(ipv4, found, strict=True) if ok)


def _ipv4(address: str) -> bool:
    try:
        ipaddress.IPv4Address(address)
    except ValueError:
        return False
    return True


async def _ipv4_of(host: str, port: int) -> list[str]:
    if _ipv4(host):
        return [host]
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            host, port, family=socket.AF_INET, type=socket.SOCK_STREAM
        )
    except OSError:
        return []
    return [str(info[4][0]) for info in infos]


async def open_room(
    game_id: str,
    config: Config,
    *,
    identity: Identity,
    host_name: str,
    broker: tuple[str, int] | None = None,
    port: int = DEFAULT_PORT,
    bind: Bind = None,
    seed: int | None = None,
    bot_delay: float = 0.6,
    advertise: bool = True,
    app_version: str = "",
    code: str | None = None,
    admission: str = "any",
    alternates: Sequence[tuple[str, int]] = (),
    failover: bool = True,
    rooms: Path | None = None,
) -> HostedRoom:
    """Open a room and return it; raises ``BrokerUnreachable``,
    ``BrokerError`` or ``RoomBusy`` with a one-line reason. ``alternates``:
    the other nodes of ``broker``'s cluster, tried in order when it cannot be
    reached (issue 20). ``rooms``: where its file goes (a dealer's own
    directory; by default the person's, where ``passe host --resume`` looks)."""
    room_code = code or new_code()
    store = _claim(room_code, rooms)
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
        broker_alternates=tuple(alternates) if broker is not None else (),
        failover=failover,
        **extra,  # type: ignore[arg-type]
    )
    room = HostedRoom(authority, broker_host, broker_port, shown, embedded)
    return await _run(room, advertise)


async def open_next_room(
    room: HostedRoom,
    *,
    seed: int | None = None,
    rooms: Path | None = None,
    prepare: Callable[[Authority], None] | None = None,
) -> HostedRoom:
    """The next game at the table of ``room``, whose game is over: a new room
    (its own code, deal and commitment) on the same broker, run by the same
    authority key, with the same seats (each person's bound to their key, the
    same bots). ``room`` then announces it (docs/protocol.md, "The next game")
    and closes; its broker and its LAN advert pass to the new room. Raises
    ``IllegalAction`` if the game is not over, as :func:`open_room` otherwise.
    ``rooms``: where its file goes, as for :func:`open_room`; ``prepare``
    sets the new authority up before it starts and is announced (a
    dealer's room: its owner, net/dealer/service.py)."""
    old = room.authority
    if old.phase != "over":
        raise IllegalAction("the game is not over")
    code = new_code()
    store = _claim(code, rooms)
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
        presence_timeout=old.presence_timeout,
        broker_alternates=old.broker_alternates,
        failover=old.failover,
        standby=old.standby,
        **extra,  # type: ignore[arg-type]
    )
    if prepare is not None:
        prepare(authority)
    try:
        await authority.start()
    except BaseException:
        with contextlib.suppress(Exception):
            await authority.close()
        store.release()
        raise
    # On another broker than the old room's (a table that moved: its
    # holder's own), the notice says where.
    elsewhere = (room.broker_host, room.broker_port) != old.link_address
    old.announce_next(code, broker_text((room.lan_address, room.broker_port)) if elsewhere else "")
    # The old room's notice and final state are read by those following:
    # its retained messages are cleared when the table's last room closes.
    old.clear_on_close = False
    inherited, old.also_clear = old.also_clear, []
    authority.told_keys |= old.told_keys
    following = HostedRoom(
        authority,
        room.broker_host,
        room.broker_port,
        room.lan_address,
        room.embedded,
        addresses=room.addresses,
    )
    advertised = room.advertiser is not None
    room.embedded = None  # the next room's now: closing this one must not stop it
    await room.close()
    ended_for_all = not old.unreached
    authority.also_clear = [*inherited, *(old.retained_topics() if ended_for_all else [])]
    if advertised:
        following.advertiser = await _advertise(following, old.game_id, old.host_name)
    return following


async def resume_room(
    saved: SavedRoom,
    *,
    broker: tuple[str, int] | None = None,
    bind: Bind = None,
    bot_delay: float | None = None,
    advertise: bool = True,
    app_version: str = "",
    admission: str = "any",
    alternates: Sequence[tuple[str, int]] = (),
    rooms: Path | None = None,
) -> HostedRoom:
    """Open the room ``saved`` again (see :func:`net.authority.rooms.load_room`), on
    ``broker`` if given (``alternates``: the other nodes of its cluster, as
    for :func:`open_room`), else where it was: the embedded broker on its old
    port when it is free again, or the broker it was given. Raises as
    :func:`open_room` does; the file is left as it was if it fails, but
    for a room that failed over (:class:`RoomMoved`): it is removed.
    ``rooms``: the directory its file is in (as for :func:`open_room`)."""
    store = _claim(saved.code, rooms)
    if table_moved(saved):
        # Its voters elected another authority when this process stopped
        # (issue 20): running this one again would be a second table.
        store.discard()
        store.release()
        raise RoomMoved(
            f"room {format_code(saved.code)} fails over: when this Passe stopped, the "
            "players' machines elected one of them to hold the table. Join it by its "
            "code to take your seat back"
        )
    try:
        return await _resume(
            saved,
            store,
            broker,
            bind,
            bot_delay,
            advertise,
            app_version,
            admission,
            tuple(alternates) if broker is not None else (),
        )
    except BaseException:
        store.release()
        raise


# Seconds an interrupted room closed for good waits for its people to be
# back on its broker to be told (issue 18.3). The embedded broker died with
# the host: peers find the new one within their reconnection backoff (at
# most 5 s, with jitter 6.5 s). A broker that outlived the host (Mosquitto)
# has kept their links: their retained presences come at once.
CLOSE_WAIT_EMBEDDED = 10.0
CLOSE_WAIT_LASTING = 3.0


@dataclass(frozen=True)
class ClosedRoom:
    """What closing an interrupted room for good achieved: whether its
    broker was reached, who was told, who was not (their names), and
    whether the broker keeps the closed state for them (it outlives us)."""

    reached_broker: bool
    told: tuple[str, ...] = ()
    untold: tuple[str, ...] = ()
    kept_for_them: bool = False


def table_moved(saved: SavedRoom, directory: Path | None = None) -> bool:
    """Whether the interrupted room ``saved`` went on without this machine:
    a game in play whose host's process was a voter (its room failed over,
    issue 20), so its players' machines elected one of them when it
    stopped. It cannot be resumed here; its person rejoins it as a player."""
    maker = Identity(SigningKey(saved.authority_key))
    return saved.phase == "playing" and maker_vote_path(saved.code, maker, directory).exists()


def claim_moved_room(
    code: str, directory: Path | None = None
) -> tuple[RoomStore, SavedRoom] | None:
    """This machine's room ``code`` whose table moved (see
    :func:`table_moved`), locked for this process, and what its file says;
    None when there is none, its file cannot be read, or another running
    Passe holds it (one process at a time votes with its maker's key)."""
    path = room_path(code, directory)
    if not path.exists():
        return None
    try:
        saved = load_room(path)
    except (RoomFileError, OSError):
        return None
    if saved.code != code or not table_moved(saved, directory):
        return None
    try:
        return _claim(code, directory), saved
    except RoomBusy:
        return None


def forget_moved_room(saved: SavedRoom) -> None:
    """This machine's files of room ``saved``, whose table moved (see
    :func:`table_moved`), removed: nobody is told anything (the game goes on
    elsewhere). Raises ``RoomBusy`` if a running Passe holds them."""
    store = _claim(saved.code)
    store.discard()
    store.release()


async def close_interrupted_room(
    saved: SavedRoom,
    *,
    own_key: bytes | None = None,
    wait: float | None = None,
    rooms: Path | None = None,
) -> ClosedRoom:
    """Close for good a room whose host died (a game nobody will finish):
    it is opened again on its broker until each of its people (but the one
    with ``own_key``, at this machine) is back to receive the closed state,
    at most ``wait`` seconds, then closed and its files removed. If its
    broker cannot be reached the files are removed anyway. Raises
    ``RoomBusy`` if a running Passe hosts it. ``rooms``: the directory its
    file is in (as for :func:`open_room`)."""
    try:
        room = await resume_room(saved, advertise=False, rooms=rooms)
    except RoomBusy:
        raise
    except Exception as error:  # the broker is gone: nobody is left to tell
        log.info("room %s closed without telling anyone: %s", saved.code, error)
        store = _claim(saved.code, rooms)
        store.discard()
        store.release()
        return ClosedRoom(reached_broker=False)
    authority = room.authority
    if authority.table is not None:
        await authority.table.stop()  # no bot plays on while the room waits to close
    if own_key is not None:
        authority.told_keys.add(own_key)
    if wait is None:
        wait = CLOSE_WAIT_EMBEDDED if room.embedded is not None else CLOSE_WAIT_LASTING
    everyone = asyncio.Event()

    def check() -> None:
        if not authority.absent_seats():
            everyone.set()

    authority.on_change.append(check)
    check()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(everyone.wait(), wait)
    await room.close()
    return ClosedRoom(
        reached_broker=True,
        told=tuple(authority.reached),
        untold=tuple(authority.unreached),
        kept_for_them=room.embedded is None,
    )


async def _resume(
    saved: SavedRoom,
    store: RoomStore,
    broker: tuple[str, int] | None,
    bind: Bind,
    bot_delay: float | None,
    advertise: bool,
    app_version: str,
    admission: str = "any",
    alternates: tuple[tuple[str, int], ...] = (),
) -> HostedRoom:
    moved_from = None
    if broker is None and saved.broker.embedded:
        wanted = saved.broker.port
        free = await _wait_until_free(broker_binds(bind), wanted, PORT_WAIT)
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
    authority.broker_alternates = alternates
    room = HostedRoom(authority, broker_host, broker_port, shown, embedded, moved_from=moved_from)
    return await _run(room, advertise)


def shown_address(binds: Sequence[str], fallback: str) -> str:
    """The address others reach a broker listening on ``binds`` at: this
    machine's LAN address for every interface, else the first bound that is
    not loopback, else ``fallback`` (a dealer bound to 127.0.0.1 showed the
    LAN address it did not listen on: found by hand, 5 December)."""
    if any(address in ALL_INTERFACES for address in binds):
        return lan_address()
    return next((a for a in binds if not _is_loopback(a)), fallback)


async def _broker(
    broker: tuple[str, int] | None, port: int, bind: Bind, *, tries: int | None = None
) -> tuple[EmbeddedBroker | None, str, int, str]:
    """The embedded broker started (``broker`` None) or the given one: the
    broker, where this process reaches it, and the address others use (a
    first guess: :func:`_run` checks where the broker answers)."""
    if broker is None:
        from net.lan.broker import DEFAULT_TRIES, start_embedded_broker

        binds = broker_binds(bind)
        embedded = await start_embedded_broker(
            bind=binds, port=port, tries=DEFAULT_TRIES if tries is None else tries
        )
        return embedded, embedded.host, embedded.port, shown_address(binds, embedded.host)
    broker_host, broker_port = broker
    return None, broker_host, broker_port, broker_host


def _claim(code: str, directory: Path | None = None) -> RoomStore:
    """The room's store, locked for this process (raises ``RoomBusy``)."""
    store = RoomStore(
        room_path(code, directory), BrokerChoice(embedded=True, host="", port=DEFAULT_PORT)
    )
    store.claim()
    return store


def _choice(embedded: EmbeddedBroker | None, host: str, port: int) -> BrokerChoice:
    return BrokerChoice(embedded=embedded is not None, host=host, port=port)


async def _wait_until_free(binds: Sequence[str], port: int, timeout: float) -> bool:
    """Whether ``port`` can be listened on at every address of ``binds``,
    waiting up to ``timeout`` for the dead host's broker to let it go."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            for bind in binds:
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
    # The embedded broker dies with this machine: with failover, each voter
    # then runs a standby broker, and everyone's links go down their list.
    room.authority.standby = room.embedded is not None
    try:
        await room.authority.start()
    except BaseException:
        await room.close()
        raise
    # Shown and advertised only where the broker answers (issue 18.5: a
    # broker on 127.0.0.1 was shown at the LAN address, where it does not).
    await _find_addresses(room)
    if room.local_only:
        log.info(room.reach_note)
    if advertise:
        room.advertiser = await _advertise(room, room.authority.game_id, room.authority.host_name)
    return room


async def _find_addresses(room: HostedRoom) -> None:
    """Where ``room``'s broker answers (its LAN addresses first), and the
    first of them as the address shown to others."""
    room.addresses = await reachable_addresses(room.broker_host, room.broker_port, room.embedded)
    if room.addresses:
        room.lan_address = room.addresses[0]


def room_advert(room: HostedRoom, game_id: str, host_name: str) -> RoomAdvert:
    """The room's LAN advert. The host's name as the room state carries it
    (net/protocol/text.py): raw, an escape in ``--name`` would make every receiver
    drop the advert (discovery.check_advert)."""
    from net.lan.discovery import MAX_HOST_NAME, RoomAdvert

    return RoomAdvert(
        code=room.code,
        game=game_id,
        host_name=clean_text(host_name, MAX_HOST_NAME) or "passe",
        free_seats=room.authority.free_seats,
        version=PROTOCOL_VERSION,
        port=room.broker_port,
        addresses=room.addresses,
        phase=advert_phase(room.authority.phase),
    )


def advert_phase(phase: str) -> str:
    """The authority's phase as a LAN advert says it: a closed room is
    withdrawn, not advertised, and reads as over until it is."""
    from net.lan.discovery import PHASES

    return phase if phase in PHASES else "over"


async def _advertise(
    room: HostedRoom, game_id: str, host_name: str, *, again: bool = False
) -> Advertiser | None:
    """The room's advert, or None (said in the log: at warning the first
    time, quietly when ``again``, a table taken over asking again)."""
    from net.lan.discovery import Advertiser

    level = logging.DEBUG if again else logging.WARNING
    if not room.addresses:
        log.log(level, "not advertised on the LAN: the broker answers at no IPv4 address")
        return None
    advert = room_advert(room, game_id, host_name)
    advertiser = Advertiser()
    try:
        await advertiser.start(advert)
    except Exception as error:  # multicast may be blocked: CODE@HOST:PORT still works
        log.log(level, "could not advertise the room on the LAN: %s", error)
        with contextlib.suppress(Exception):
            await advertiser.close()
        return None
    return advertiser


async def taken_over_room(
    authority: Authority,
    embedded: EmbeddedBroker | None,
    advertiser: Advertiser | None = None,
) -> HostedRoom:
    """A room this process took over (issue 20; net/peer/failover.py), as a
    hosted room: where its authority's link is now, with this process's
    standby broker when that is where (``embedded``: closing the room stops
    it), and its LAN advert."""
    host, port = authority.link_address
    mine = embedded is not None and port == embedded.port
    room = HostedRoom(authority, host, port, host, embedded if mine else None, advertiser)
    await _find_addresses(room)
    return room


async def next_room_host(
    authority: Authority,
    embedded: EmbeddedBroker | None,
    advertiser: Advertiser | None = None,
) -> HostedRoom:
    """A table this process took over, its game over, as the hosted room
    its next game opens from: on this machine's own broker (its standby
    one) when it has one; the broker the table was on may be another
    machine's, which goes when that person leaves, the next room's lobby
    with it (found in a play-test, 5 December). Else where the table is."""
    if embedded is None:
        return await taken_over_room(authority, None, advertiser)
    room = HostedRoom(authority, embedded.host, embedded.port, embedded.host, embedded, advertiser)
    await _find_addresses(room)
    return room


async def advertise_taken_over(
    authority: Authority, embedded: EmbeddedBroker | None, *, again: bool = False
) -> Advertiser | None:
    """A room this process took over, on the LAN where its authority's link
    is now: so that a person who comes back (the old host's, above all)
    finds it by its code. ``again``: asked again after a refusal (its
    failure is logged quietly: once a minute for a table's life otherwise)."""
    room = await taken_over_room(authority, embedded)
    return await _advertise(room, authority.game_id, authority.host_name, again=again)


def default_host_name() -> str:
    return socket.gethostname()[:64] or "passe"


__all__ = [
    "ClosedRoom",
    "HostedRoom",
    "advert_phase",
    "close_interrupted_room",
    "default_host_name",
    "forget_moved_room",
    "lan_address",
    "next_room_host",
    "open_next_room",
    "open_room",
    "resume_room",
    "table_moved",
    "taken_over_room",
]
