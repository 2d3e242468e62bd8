"""``passe dealer`` and ``passe host --dealer`` (issue 20, "Dealers").

``passe dealer [--broker HOST[:PORT]]`` serves rooms until it is stopped
(SIGTERM or Ctrl-C: it hands the tables it runs to another dealer first),
writing one log line per event on stderr; without ``--broker`` it starts an
embedded broker as a host does. ``passe dealer --status`` prints the rooms of
the dealer running with this data directory. ``passe host --dealer`` asks a
dealer on ``--broker`` for a room: headless, it prints the room's code and
ends; on screen, it joins the room at once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from tui.arguments import key_list

DEALER_DIR = "dealer"


def add_dealer_command(commands: Any) -> None:
    dealer = commands.add_parser(
        "dealer",
        help="serve rooms as a dealer that never plays (`passe host --dealer` asks one)",
        description="Serve rooms for others: `passe host --dealer --broker HOST` asks for "
        "one. No player's machine holds the deck of a dealer's room; with other dealers "
        "it trusts (--trust) on the same broker, a table whose dealer dies moves to one "
        "of them. Stop it with SIGTERM or Ctrl-C: it hands its tables to another dealer "
        "first.",
    )
    dealer.add_argument(
        "--broker",
        default=None,
        metavar="HOST[:PORT]",
        help="the MQTT broker to serve on (default: start an embedded one on --port)",
    )
    dealer.add_argument("--port", type=int, default=None, help="the embedded broker's port")
    dealer.add_argument("--name", default=None, help="this dealer's name (default: the machine's)")
    dealer.add_argument(
        "--max-rooms",
        type=int,
        default=None,
        help="rooms served at once, run or held (default 200)",
    )
    dealer.add_argument(
        "--status", action="store_true", help="print the rooms of the dealer running here and end"
    )
    dealer.add_argument(
        "--json", action="store_true", help="with --status: the status as JSON, as written"
    )
    dealer.add_argument(
        "--no-advertise", action="store_true", help="do not announce rooms on the LAN"
    )
    dealer.add_argument(
        "--trust",
        type=key_list,
        default=frozenset(),
        metavar="FILE",
        help="the other dealers this one shares its rooms with, so that a table whose "
        "dealer dies moves to one of them: their keys in FILE, one peer id or fingerprint "
        "a line (each dealer's first line says its key). A dealer that holds a share can "
        "read the deck: trust only dealers you run. Default: none (rooms wait for this one)",
    )


def dealer_dir() -> Path:
    from net.paths import data_dir

    return data_dir() / DEALER_DIR


def run_dealer(args: argparse.Namespace) -> int:
    if args.status:
        return print_status(args.json)
    from net.dealer.service import DEFAULT_MAX_ROOMS

    max_rooms = DEFAULT_MAX_ROOMS if args.max_rooms is None else args.max_rooms
    if not 1 <= max_rooms <= 10_000:
        return _fail(f"--max-rooms {max_rooms}: from 1 to 10000")
    if args.broker is not None and args.port is not None:
        return _fail("--port is for the embedded broker: with --broker, give HOST:PORT there")
    brokers: tuple[tuple[str, int], ...] = ()
    if args.broker is not None:
        from tui.network_cli import _brokers

        try:
            brokers = _brokers(args.broker)
        except argparse.ArgumentTypeError as error:
            return _fail(f"--broker: {error}")
    from net.dealer.service import HANDOVER_WAIT
    from tui.terminal import Shutdown, guard_standard_streams

    # A stop hands each table on, which may take HANDOVER_WAIT: a player's
    # 3 s ended a dealer in the middle of it (exit 143, a play-test). A
    # second signal still ends it at once.
    shutdown = Shutdown(grace=HANDOVER_WAIT + 5.0)
    guard_standard_streams(shutdown)
    from net.protocol.text import safe_logging

    # One line per event, with the time: a dealer's log is read later.
    safe_logging(_level(), "%(asctime)s passe dealer: %(message)s")
    try:
        return asyncio.run(_serve(args, brokers, max_rooms, shutdown))
    except KeyboardInterrupt:
        return 130


async def _serve(
    args: argparse.Namespace,
    brokers: tuple[tuple[str, int], ...],
    max_rooms: int,
    shutdown: Any,
) -> int:
    from net.authority.host import DEFAULT_PORT, default_host_name, shown_address
    from net.dealer.service import Dealer
    from net.identity import load_identity

    directory = dealer_dir()
    directory.mkdir(parents=True, exist_ok=True)
    # The dealer's own key, kept: its votes in the rooms it holds outlive a
    # restart of its process (its voter files are signed for this key).
    loaded = load_identity(directory / "dealer.key")
    if loaded.notice:
        print(f"passe: {loaded.notice}", file=sys.stderr)
    embedded = None
    if not brokers:
        from net.authority.host import broker_binds
        from net.lan.broker import start_embedded_broker
        from tui.netplay import bind_from_env

        binds = broker_binds(bind_from_env())
        try:
            embedded = await start_embedded_broker(
                bind=binds, port=DEFAULT_PORT if args.port is None else args.port, tries=1
            )
        except Exception as error:
            return _fail(f"could not start the embedded broker: {error}")
        where = shown_address(binds, embedded.host)
        host, port, shown = embedded.host, embedded.port, f"{where}:{embedded.port}"
    else:
        host, port = brokers[0]
        shown = f"{host}:{port}"
    dealer = Dealer(
        loaded.identity,
        args.name or default_host_name(),
        host,
        port,
        shown=shown,
        max_rooms=max_rooms,
        advertise=not args.no_advertise,
        state_dir=directory,
        alternates=brokers[1:],
        trusted=args.trust - {loaded.identity.peer_id},
        on_event=_emit,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    shutdown.install(loop, lambda signum: stop.set(), (1, 2))
    from net import testhooks

    testhooks.install(loop)
    import signal

    # Ctrl-C stops it as SIGTERM does: its tables handed over first.
    loop.add_signal_handler(signal.SIGINT, stop.set)
    try:
        await dealer.start()
    except Exception as error:
        if embedded is not None:
            await embedded.stop()
        return _fail(str(error) or type(error).__name__)
    _freeze_what_lasts()
    _emit("dealer", key=dealer.identity.peer_id, name=dealer.name, broker=shown)
    # What it ran when its process last ended goes on (after the line
    # above: a script reads the dealer's key first, then its events).
    await dealer.resume_kept()
    await dealer.resume_held()
    await stop.wait()
    await dealer.stop()
    if embedded is not None:
        await embedded.stop()
    _emit("stopped")
    return 0


def _freeze_what_lasts() -> None:
    """Every game's code loaded, then all that start-up made (modules, the
    engines, the link) left out of the garbage collector's walks: it lives
    as long as the process, and the full collections that walked it stood
    the dealer's loop still 60-180 ms at 50-150 rooms (bench/dealer.py)."""
    import gc

    from core.registry import game_ids, get_game

    for game_id in game_ids():
        get_game(game_id)  # its engine's modules, loaded now rather than by a room
    gc.collect()
    gc.freeze()


def _emit(event: str, **fields: Any) -> None:
    from net.peer.headless import emit

    emit(event, **fields)


def print_status(as_json: bool) -> int:
    path = dealer_dir() / "status.json"
    try:
        status = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if as_json:  # what a script reads: JSON always (a play-test got a sentence)
            print(json.dumps({"running": False, "rooms": [], "kept": []}, indent=1))
            return 1
        print(f"No dealer has run with this data directory ({path.parent}).")
        return 1
    except (OSError, ValueError, RecursionError) as error:
        return _fail(f"cannot read {path}: {error}")
    if not isinstance(status, dict):
        return _fail(f"{path} is not a dealer's status")
    running = bool(status.get("running")) and _alive(status.get("pid"))
    status["running"] = running
    # Stopped or killed: the games it resumes when it starts again.
    status["kept"] = [] if running else _kept_games(path.parent / "rooms")
    if as_json:
        print(json.dumps(status, indent=1))
        return 0 if running else 1
    since = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(status.get("since", 0))))
    state = f"running (pid {status.get('pid')})" if running else "not running"
    print(f"Dealer {status.get('name')} ({status.get('key')}), {state}, since {since}")
    print(
        f"Broker {status.get('shown') or status.get('broker')}; other dealers online: "
        f"{', '.join(status.get('dealers') or []) or 'none'}"
    )
    trusts = status.get("trusts")
    if isinstance(trusts, int):
        print(
            f"Shares its rooms with {trusts} trusted dealers (--trust)"
            if trusts
            else "Trusts no other dealer (--trust): its rooms wait for it if it stops"
        )
    from core.engine import plural

    rooms = status.get("rooms") or []
    count = f"{plural(len(rooms), 'room')} of at most {status.get('max_rooms')}"
    # Stopped or killed, its last status is what it did then, not now.
    print(count if running else f"When it stopped: {count}")
    for room in rooms:
        seats = ", ".join(name or "(open)" for name in room.get("seats", []))
        term = f"term {room['term']}" if room.get("term") else "no failover"
        asker = f"for {room['for']}" if room.get("for") else ""
        what = " ".join(word for word in (room.get("game", ""), asker) if word)
        print(f"  {room.get('code')}  {room.get('role')}  {room.get('phase')}  {term}  {what}")
        if seats:
            print(f"          seats: {seats}")
    if status["kept"]:
        print("Kept, to go on when this dealer starts again (`passe dealer`):")
        for kept in status["kept"]:
            print(f"  {kept['code']}  for {kept['for']}")
    refused = status.get("refused") or {}
    if refused:
        print("Refused or dropped: " + ", ".join(f"{k} {v}" for k, v in sorted(refused.items())))
    return 0 if running else 1


def _kept_games(directory: Path) -> list[dict[str, str]]:
    """The games a stopped dealer keeps in ``directory`` (read only: a
    record that cannot be read is left for the dealer to set aside)."""
    from net.dealer.kept import kept_rooms
    from net.protocol.text import clean_text

    records, _ = kept_rooms(directory, set_aside=False)
    return [
        {"code": record.code, "for": clean_text(record.asker)}
        for record in records
        if not record.replicated
    ]


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _level() -> int:
    import logging

    wanted = os.environ.get("PASSE_LOG", "info").strip().upper()
    return logging.getLevelNamesMapping().get(wanted, logging.INFO)


def _fail(message: str) -> int:
    print(f"passe: {message}", file=sys.stderr)
    return 2


__all__ = ["add_dealer_command", "dealer_dir", "print_status", "run_dealer"]
