"""Networked play for the screens: what to host, where the broker is, how a
typed code becomes a joined seat. Every failure is one line for a person
(:class:`NetplayError`), never a traceback.

The network layer (``net.peer.remote``, ``net.authority.host``: aiomqtt, PyNaCl) is imported
only when networked play is used, so a local game starts as fast as before.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.engine import ConfigError, GameRecord, PasseError, Result

if TYPE_CHECKING:
    from net.authority.host import ClosedRoom, HostedRoom
    from net.authority.rooms import SavedRoom
    from net.identity import Identity
    from net.lan.discovery import RoomAdvert
    from net.peer.client import TableClient
    from net.peer.pins import RoomPins
    from net.peer.rejoin import EndedAway, HeldSeat
    from net.peer.remote import RemoteTable
    from net.peer.watch import Watcher

log = logging.getLogger("passe.netplay")

# Seconds to find a room by its code on the LAN (mDNS), on screen as on the
# command line: about a second on a quiet LAN; a busy machine or a lost
# packet needs more (the join screen waited 3 s, `passe join` 5).
DISCOVERY_WAIT = 5.0
BROKER_ENV = "PASSE_BROKER"  # HOST[:PORT] of an MQTT broker to use instead of the embedded one
# Addresses (comma-separated) the embedded broker listens on; `passe serve
# --ssh --bind ADDR` sets it for its guests' rooms (docs/ssh.md).
BIND_ENV = "PASSE_BIND"
# Set by `passe serve` in a guest's environment: messages then name no path on
# the server (a guest's key lives there, but the path means nothing to them).
SERVED_ENV = "PASSE_SERVED"
# The SSH port of that server, so a guest's lobby can give the SSH form with
# its port (`ssh -t -p PORT SERVER join CODE`), which is what a guest's
# friends type (issue 18).
SSH_PORT_ENV = "PASSE_SSH_PORT"
# The server's address that guest reached it at (an IP), so that the SSH
# form names it instead of SERVER: the guest's friends on the same LAN
# reach it there too (a play-test: "ssh -t -p 2299 SERVER join ...").
SSH_HOST_ENV = "PASSE_SSH_HOST"
# Set by `passe serve --web` for a browser's app (docs/web.md): its lobby
# tells friends how to join from a browser.
WEB_ENV = "PASSE_WEB"
# Set by `passe serve` for a second live session of the same player: its
# directory is a throw-away one (docs/ssh.md), and its home screen says so.
SECOND_SESSION_ENV = "PASSE_SECOND_SESSION"
SECOND_SESSION_NOTE = (
    "You play in another window already: what you do here (games, settings, records) is not kept."
)
DEFAULT_PORT = 1883
# A seat whose key was not heard this long (no presence record, which peers
# re-publish every 15 s, and no request) is away: on a host at a screen, and
# on a headless one that admits any key (issue 19 seats item 5).
PRESENCE_TIMEOUT = 60.0
ADMIT_ASK = "ask"  # net.authority.authority's rule for a host with a screen: each new key knocks


class NetplayError(Exception):
    """Hosting or joining failed; the message is one line for a person.
    ``code``: a join's refusal code (net/peer/remote.py JoinError), or ""."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class NetworkOptions:
    """Where rooms are hosted: a given broker (``None``: the embedded one, on
    ``port`` or the next free port) and whether rooms are announced on the LAN."""

    broker: tuple[str, int] | None = None
    port: int = DEFAULT_PORT
    advertise: bool = True
    # Where the embedded broker listens (None: the LAN interfaces the room
    # is advertised on, and loopback; net.authority.host.broker_binds).
    bind: tuple[str, ...] | None = None

    @classmethod
    def from_env(cls) -> NetworkOptions:
        """``$PASSE_BROKER`` (``HOST[:PORT]``) chooses the broker; a bad value
        is reported when a room is opened, not ignored. ``$PASSE_BIND``
        (addresses, comma-separated) where the embedded broker listens."""
        text = os.environ.get(BROKER_ENV, "").strip()
        return cls(broker=parse_broker(text) if text else None, bind=bind_from_env())


def bind_from_env() -> tuple[str, ...] | None:
    """``$PASSE_BIND`` as addresses, None when unset or empty."""
    words = [word.strip() for word in os.environ.get(BIND_ENV, "").split(",")]
    return tuple(word for word in words if word) or None


def parse_broker(text: str) -> tuple[str, int]:
    """``HOST[:PORT]`` (port 1883 by default); raises :class:`NetplayError`."""
    from net.protocol.codes import CodeError, parse_join_target

    try:
        target = parse_join_target(f"000000@{text}")
    except CodeError as error:
        raise NetplayError(f"bad broker {text!r}: {error}") from None
    assert target.host is not None
    return target.host, target.port or DEFAULT_PORT


@dataclass(frozen=True)
class HostPlan:
    """A room to open: the game and its settings, the host's name, the network."""

    game_id: str
    players: int
    teams: bool
    name: str
    options: dict[str, object] = field(default_factory=dict)
    network: NetworkOptions = NetworkOptions()
    seed: int | None = None
    bot_delay: float = 0.8
    code: str | None = None  # the room code to use (default: a new random one)
    # If this machine stops mid-game, the table moves to a player's (issue
    # 20; the lobby's f turns it off or on again).
    failover: bool = True
    # A room whose host died, opened again instead of a new one (its own
    # game and settings stand; the person takes back the seat their key holds).
    resume: SavedRoom | None = None

    @classmethod
    def resuming(cls, room: SavedRoom, name: str, network: NetworkOptions) -> HostPlan:
        return cls(
            room.game,
            players=len(room.seats),
            teams=bool(room.config.get("teams", False)),
            name=name,
            network=network,
            bot_delay=room.bot_delay,
            code=room.code,
            resume=room,
        )


def table_name(name: str) -> str:
    """The name the others see. The home screen's default, "You", would read
    as each reader themself on the others' screens, so a networked seat
    takes the login name instead (or "Player")."""
    if name.strip().casefold() != "you":
        return name
    from tui.settings import login_name

    chosen = login_name()
    return chosen if chosen and chosen.casefold() != "you" else "Player"


def discovery_available() -> bool:
    """Whether this Passe can find and announce rooms on the LAN (mDNS)."""
    try:
        return importlib.util.find_spec("net.lan.discovery") is not None
    except (ImportError, ValueError):
        return False


def embedded_broker_available() -> bool:
    try:
        return importlib.util.find_spec("net.lan.broker") is not None
    except (ImportError, ValueError):
        return False


def remote_table(client: TableClient) -> RemoteTable | None:
    """``client`` if it is a networked seat, else ``None`` (without loading
    the network layer for a local game: if it is not loaded, it is not one)."""
    import sys

    module = sys.modules.get("net.peer.remote")
    remote_type: type[RemoteTable] | None = getattr(module, "RemoteTable", None)
    return client if remote_type is not None and isinstance(client, remote_type) else None


def _user_identity() -> tuple[Identity, str | None]:
    from net.identity import load_identity

    # A guest of `passe serve` is not shown the server's paths.
    loaded = load_identity(show_path=not os.environ.get(SERVED_ENV))
    return loaded.identity, loaded.notice


async def open_hosted_room(plan: HostPlan) -> tuple[HostedRoom, RemoteTable, str | None]:
    """Open the room and seat the host's person in it, through the broker like
    any other peer (one code path). Returns the room, the host's seat and a
    notice about the key (made or replaced), if any."""
    from net.peer.remote import JoinError, RemoteTable

    network = plan.network
    if network.broker is None and not embedded_broker_available():
        raise NetplayError(
            "this Passe has no embedded broker: set PASSE_BROKER=HOST:PORT "
            "(e.g. a Mosquitto) or use `passe host --broker HOST:PORT`"
        )
    advertise = network.advertise and discovery_available()
    identity, notice = _user_identity()
    resumed = plan.resume
    if (
        resumed is not None
        and resumed.phase != "lobby"
        and all(seat.key != identity.public_key for seat in resumed.seats)
    ):
        raise NetplayError(
            f"you hold no seat in room {resumed.code} (it was hosted without a screen): "
            f"resume it with `passe host --resume {resumed.code} --headless`"
        )
    room = await _open(plan, advertise)
    # A seat let in whose record says "online" but whose process is gone (a
    # retained record with no will, no beat) is away after a while, so the
    # host can give its turn to a bot (b) rather than wait for ever: found by
    # hand, a ghost the host let in stalled the game (issue 19 seats item 5).
    room.authority.watch_presence(PRESENCE_TIMEOUT)
    # The person at this screen learns how the room ends from it: the room
    # never waits for them, nor keeps its messages for them (issue 18.10).
    room.authority.told_keys.add(identity.public_key)
    # The host's own person never knocks at their own room.
    room.authority.admitted.add(identity.public_key)
    table = RemoteTable(
        identity, room.code, room.broker_host, room.broker_port, plan.name, pins=_pins()
    )
    # Its own actions' early updates show once they commit here (issue 20).
    table.hosted_replica = lambda: room.authority.replica
    table.runs_the_room = True
    try:
        # A resumed room knows the person's key: it gives back their seat.
        await table.join(None if resumed is not None else 0)
    except JoinError as error:
        # A resumed room stays on disk: failing to sit must not lose it.
        await room.close(keep=resumed is not None)
        raise NetplayError(str(error)) from None
    except BaseException as error:  # failed, or cancelled: the person left
        await table.close()
        await room.close(keep=resumed is not None)
        if isinstance(error, Exception):
            raise NetplayError(_one_line(error, "could not take your seat")) from None
        raise
    return room, table, notice


def rooms_left_here() -> str:
    """What this machine's latest interrupted room still holds for its
    person, in words, or "": a person who ran ``passe host`` again after
    their machine had stopped mid-game opened a second room without a word
    while the first went on elsewhere (found in a play-test, 5 December)."""
    from net.authority.rooms import interrupted_rooms
    from net.paths import ROOM_SUFFIX, rooms_dir
    from net.protocol.codes import format_code

    try:
        if not any(rooms_dir().glob(f"*{ROOM_SUFFIX}")):
            return ""
        rooms, _ = interrupted_rooms()
    except OSError:
        return ""
    if not rooms:
        return ""
    latest = rooms[-1].room
    code = format_code(latest.code)
    if table_moved(latest):
        return (
            f"Your room {code} goes on without this machine (its table moved to a "
            "player's): on the home screen, u takes your seat there again."
        )
    return f"Your room {code} was interrupted: on the home screen, u resumes it."


def table_moved(room: SavedRoom) -> bool:
    """Whether the interrupted hosted ``room`` went on without this machine
    (its table moved to a player's: issue 20); its person rejoins it."""
    from net.authority.host import table_moved as moved

    return moved(room)


def forget_moved(room: SavedRoom) -> str:
    """This machine's files of ``room``, whose table moved, removed; what
    happened, in words. Raises :class:`NetplayError` (a running Passe holds
    them)."""
    from net.authority.host import forget_moved_room
    from net.protocol.codes import format_code

    code = format_code(room.code)
    try:
        forget_moved_room(room)
    except Exception as error:
        raise NetplayError(_one_line(error, f"could not forget room {code}")) from None
    return f"Room {code} is forgotten on this machine; its game goes on without it."


async def close_for_good(room: SavedRoom) -> str:
    """Close an interrupted hosted room for good; what happened, in words.
    Raises :class:`NetplayError` (e.g. a running Passe hosts it)."""
    from net.authority.host import close_interrupted_room
    from net.protocol.codes import format_code

    code = format_code(room.code)
    identity, _ = _user_identity()
    try:
        closed = await close_interrupted_room(room, own_key=identity.public_key)
    except Exception as error:
        raise NetplayError(_one_line(error, f"could not close room {code}")) from None
    return closed_notice(code, closed)


def closed_notice(code: str, closed: ClosedRoom) -> str:
    """What closing a room for good achieved, truthfully (issue 18.3)."""
    if not closed.reached_broker:
        return f"Room {code} is closed (its broker could not be reached to tell the others)."
    parts = []
    if closed.told:
        parts.append(f"{_names(closed.told)} {'was' if len(closed.told) == 1 else 'were'} told")
    if closed.untold and closed.kept_for_them:
        parts.append(f"{_names(closed.untold)} will see it is closed when they come back")
    elif closed.untold:
        parts.append(f"{_names(closed.untold)} could not be told (not connected)")
    return f"Room {code} is closed: {'; '.join(parts)}." if parts else f"Room {code} is closed."


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


async def _open(plan: HostPlan, advertise: bool) -> HostedRoom:
    from core.registry import get_game
    from net.authority.host import open_room, resume_room
    from net.identity import Identity as AuthorityIdentity

    network = plan.network
    try:
        if plan.resume is not None:
            return await resume_room(
                plan.resume,
                broker=network.broker,
                bind=network.bind,
                advertise=advertise,
                admission=ADMIT_ASK,
            )
        game = get_game(plan.game_id)
        config = game.make_config(players=plan.players, teams=plan.teams, **plan.options)
        return await open_room(
            game.id,
            config,
            # The authority signs with a key of its own; the host's person
            # sits at the table with the user's key, like every other peer.
            identity=AuthorityIdentity.generate(),
            host_name=plan.name,
            broker=network.broker,
            port=network.port,
            bind=network.bind,
            seed=plan.seed,
            bot_delay=plan.bot_delay,
            advertise=advertise,
            code=plan.code,
            failover=plan.failover,
            # A host with a screen is asked about each new key (issue 19 item 2).
            admission=ADMIT_ASK,
        )
    except ConfigError as error:
        raise NetplayError(str(error)) from None
    except Exception as error:  # broker errors carry a one-line reason
        raise NetplayError(_one_line(error, "could not open the room")) from None


async def open_next_hosted_room(
    room: HostedRoom, table: RemoteTable
) -> tuple[HostedRoom, RemoteTable]:
    """The next game at the table of ``room`` (hosted here, its game over),
    with the host's person seated again by their key; raises
    :class:`NetplayError`. The old room is closed either way."""
    from net.authority.host import open_next_room
    from net.peer.remote import JoinError, RemoteTable

    try:
        following = await open_next_room(room)
    except Exception as error:
        raise NetplayError(_one_line(error, "could not open the next game")) from None
    finally:
        await table.close()
    again = RemoteTable(
        table.identity,
        following.code,
        following.broker_host,
        following.broker_port,
        table.name,
        authority_key=following.authority.identity.public_key,
        pins=table.pins,
    )
    again.hosted_replica = lambda: following.authority.replica
    again.runs_the_room = True
    try:
        await again.join()
    except BaseException as error:
        await again.close()
        await following.close()
        if isinstance(error, JoinError):
            raise NetplayError(str(error)) from None
        if isinstance(error, Exception):
            raise NetplayError(_one_line(error, "could not take your seat")) from None
        raise
    return following, again


async def open_next_moved_room(table: RemoteTable) -> tuple[HostedRoom, RemoteTable]:
    """The next game at a table that moved here (issue 20: this process's
    voter won it and ran it; its game over, the seat kept it:
    ``RemoteTable.keep_table``): this person hosts it, as the host would
    have, on the broker the table is on now; the others are invited as by
    any host. Raises :class:`NetplayError` (the kept table then closed)."""
    from net.authority.host import next_room_host

    kept, table.kept_table = table.kept_table, None
    if kept is None:
        raise NetplayError("the table runs on another machine: its host opens the next game")
    # This person's seat is the host's own at the next table: it does not
    # vote there (the table's key does), as at any host's. Counted, the next
    # room had two voters on this machine, and its loss left the others
    # short of a majority for good (found in a play-test).
    kept.authority.told_keys.add(table.identity.public_key)
    room = await next_room_host(kept.authority, kept.broker, kept.advertiser)
    try:
        return await open_next_hosted_room(room, table)
    except BaseException:
        await room.close()
        raise


async def join_next_game(table: RemoteTable) -> RemoteTable:
    """Our seat at the next game of ``table``'s room (its host opened it);
    raises :class:`NetplayError`. ``table`` is closed once seated."""
    from net.peer.remote import JoinError

    again = table.next_table()
    try:
        await again.join()
    except JoinError as error:
        raise NetplayError(f"could not join the next game: {error}") from None
    except BaseException as error:
        await again.close()
        if isinstance(error, Exception):
            raise NetplayError(_one_line(error, "could not join the next game")) from None
        raise
    await table.close()
    return again


@dataclass(frozen=True)
class Target:
    code: str
    host: str
    port: int


async def resolve_target(text: str, network: NetworkOptions) -> Target:
    """Where the room ``text`` (``CODE`` or ``CODE@HOST[:PORT]``) is: the
    address typed, else the configured broker, else the LAN (mDNS)."""
    from net.protocol.codes import CodeError, parse_join_target

    try:
        target = parse_join_target(text)
    except CodeError as error:
        raise NetplayError(str(error)) from None
    if target.host is not None:
        return Target(target.code, target.host, target.port or DEFAULT_PORT)
    if network.broker is not None:
        return Target(target.code, *network.broker)
    if not discovery_available():
        raise NetplayError(
            "LAN discovery unavailable: type CODE@HOST:PORT (the host's lobby shows it)"
        )
    try:
        from net.lan.discovery import find_room

        advert = await find_room(target.code, timeout=DISCOVERY_WAIT)
    except Exception as error:
        raise NetplayError(
            f"LAN discovery unavailable ({_one_line(error, 'failed')}): type CODE@HOST:PORT"
        ) from None
    if advert is None:
        between = await room_between_machines(target.code)
        if between is not None:
            return Target(target.code, *between)
        raise NetplayError(
            f"no room {target.code} found on the LAN: check the code, or type "
            "CODE@HOST:PORT (the host's lobby shows it)"
        )
    return await advert_target(advert)


async def room_between_machines(code: str) -> tuple[str, int] | None:
    """Where room ``code``, which this person sat in, may be found although
    nothing on the LAN advertises it: its table is between machines (its
    machines died one after another, and this one is back), and its voters
    wait on one of its standby brokers for this machine's vote
    (net/peer/rejoin.py, ``locate_room``). None for a room never sat in."""
    if not pins_kept():
        return None
    from net.identity import load_identity
    from net.peer.rejoin import room_between_machines as locate

    try:
        identity = load_identity(show_path=False).identity
        return await locate(code, identity)
    except Exception as error:  # a lookup that fails finds nothing
        log.info("could not look for room %s among its brokers: %r", code, error)
        return None


async def first_reachable(addresses: Sequence[str], port: int) -> str | None:
    """The first of the advertised addresses whose broker accepts a
    connection: a host may be on several networks, not all of them ours."""
    import asyncio

    for address in addresses:
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(address, port), 1.5)
        except (OSError, TimeoutError):
            continue
        writer.close()
        return address
    return None


async def advert_target(advert: RoomAdvert) -> Target:
    """Where a room found on the LAN is reachable from here."""
    addresses = advert.addresses or ("127.0.0.1",)
    address = await first_reachable(addresses, advert.port)
    if address is None:
        raise NetplayError(
            f"room {advert.code} was found at {', '.join(addresses)} port {advert.port}, "
            "but its broker does not answer there"
        )
    return Target(advert.code, address, advert.port)


def pins_kept() -> bool:
    """Whether this person ever sat in a networked room (their data
    directory keeps the rooms' keys): only then is a room to rejoin looked
    for, so a local player's home never loads the network layer."""
    from net.paths import data_dir
    from net.peer.pins import PINS_FILE

    try:
        return (data_dir() / PINS_FILE).is_file()
    except OSError:
        return False


async def room_to_rejoin() -> HeldSeat | EndedAway | None:
    """The latest room whose seat this person's key still holds, its host
    present (issue 18: an SSH guest after a server restart), or whose game
    ended while this person was away (to keep: :func:`settle_ended_away`).
    A room this machine hosted whose host process died is ``u``'s to
    resume, not this (one a live process hosts here is a room like any
    other). Never raises: None then."""
    from net.authority.rooms import is_hosted
    from net.paths import ROOM_SUFFIX, rooms_dir
    from net.peer.rejoin import seat_to_rejoin

    try:
        paths = list(rooms_dir().glob(f"*{ROOM_SUFFIX}"))
    except OSError:
        paths = []
    interrupted = {path.stem for path in paths if not is_hosted(path)}
    try:
        identity, _ = _user_identity()
        return await seat_to_rejoin(identity, _pins(), skip=interrupted)
    except Exception:  # a damaged key file, no network: nothing to offer
        return None


@dataclass(frozen=True)
class EndedGame:
    """A game that ended while this person was away, replayed: what the
    app keeps of it and what the home screen says."""

    code: str
    title: str
    host_name: str
    seat: int
    names: tuple[str, ...]
    record: GameRecord
    result: Result


def settle_ended_away(ended: EndedAway) -> EndedGame | None:
    """The game of ``ended``, replayed by the engine from its revealed
    record (network data: one that does not replay to its end is nothing
    to keep, None), and its room forgotten either way (its pin's broker
    and this key's voter files), so that it is offered once. Never raises."""
    from core.registry import game_info, get_game
    from net.peer.rejoin import forget_ended

    try:
        record = GameRecord.from_data(ended.record)
        game = get_game(ended.game)
        state = game.replay(record)
        result = state.result()
        if record.game != ended.game or not state.is_over or result is None:
            raise ValueError("the record does not end its game")
        if ended.seat >= state.players or len(ended.names) != state.players:
            raise ValueError("the record's seats are not the room's")
        settled: EndedGame | None = EndedGame(
            ended.code,
            game_info(ended.game).title,
            ended.host_name,
            ended.seat,
            ended.names,
            record,
            result,
        )
    except (PasseError, ValueError) as error:
        log.info("room %s ended while away; its record is not kept: %s", ended.code, error)
        settled = None
    try:
        identity, _ = _user_identity()
        forget_ended(ended, identity, _pins())
    except Exception as error:  # a damaged key file: offered again next time
        log.info("room %s: not forgotten: %s", ended.code, error)
    return settled


def _pins() -> RoomPins:
    from net.peer.pins import RoomPins

    return RoomPins()


async def join_target(
    target: Target,
    name: str,
    on_knock: Callable[[str], None] | None = None,
    *,
    dealer: str | None = None,
) -> tuple[RemoteTable, str | None]:
    """Take a seat in the room at ``target``; raises :class:`NetplayError`.
    ``on_knock(text)``: the host is being asked to let us in. ``dealer``: the
    peer id of the dealer asked to deal it (`passe host --dealer`), the
    only signer of its state trusted."""
    from net.paths import rooms_dir
    from net.peer.remote import JoinError, RemoteTable

    identity, notice = _user_identity()
    table = RemoteTable(
        identity,
        target.code,
        target.host,
        target.port,
        name,
        pins=_pins(),
        # A room this machine hosted whose table moved: its voter votes again.
        maker_rooms=rooms_dir(),
        dealer=dealer,
    )
    if on_knock is not None:
        table.on_knock(on_knock)
    try:
        await table.join()
    except JoinError as error:
        raise NetplayError(str(error), error.code) from None
    except BaseException as error:  # failed, or cancelled: the person went back
        await table.close()
        if isinstance(error, Exception):
            raise NetplayError(_one_line(error, "could not join")) from None
        raise
    return table, notice


async def watch_target(target: Target) -> Watcher:
    """Watch the room at ``target`` (issue 21): no seat, a fresh key (never
    this person's); raises :class:`NetplayError`."""
    from net.peer.remote import JoinError
    from net.peer.watch import Watcher

    watcher = Watcher(target.code, target.host, target.port, pins=_pins())
    try:
        await watcher.watch()
    except JoinError as error:
        raise NetplayError(str(error)) from None
    except BaseException as error:  # failed, or cancelled: the person went back
        await watcher.close()
        if isinstance(error, Exception):
            raise NetplayError(_one_line(error, "could not watch")) from None
        raise
    return watcher


def _one_line(error: BaseException, fallback: str) -> str:
    text = " ".join(str(error).split())
    return text or f"{fallback} ({type(error).__name__})"


__all__ = [
    "BIND_ENV",
    "BROKER_ENV",
    "SECOND_SESSION_ENV",
    "SECOND_SESSION_NOTE",
    "SERVED_ENV",
    "SSH_HOST_ENV",
    "SSH_PORT_ENV",
    "WEB_ENV",
    "EndedGame",
    "HostPlan",
    "NetplayError",
    "NetworkOptions",
    "Target",
    "advert_target",
    "bind_from_env",
    "close_for_good",
    "closed_notice",
    "discovery_available",
    "first_reachable",
    "join_next_game",
    "join_target",
    "open_hosted_room",
    "open_next_hosted_room",
    "open_next_moved_room",
    "parse_broker",
    "pins_kept",
    "remote_table",
    "resolve_target",
    "room_between_machines",
    "room_to_rejoin",
    "rooms_left_here",
    "settle_ended_away",
    "table_name",
    "watch_target",
]
