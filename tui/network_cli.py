"""``passe host`` and ``passe join``: networked play from the command line.

Without ``--headless``/``--bot`` they open the game table at the room's lobby
(``host``) or at the join screen, joining the room at once (``join``);
with them they run without a screen, print JSON lines (``{"event": ...}``) and
exit when the game is over, which is how a bot fills a seat from another
machine and how the tests drive whole games between real processes. Every
failure is one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tui import arguments
from tui.netplay import PRESENCE_TIMEOUT, NetworkOptions, rooms_left_here

if TYPE_CHECKING:
    from net.authority.host import HostedRoom
    from tui.netplay import HostPlan
    from tui.terminal import Shutdown

USAGE_ERROR = 2
HEADLESS_BOTS = ("normal", "hard", "expert", "easy", "random", "heuristic")
# A headless host lets a bot play for a person away this long (seconds).
STAND_IN_AFTER = 120.0
# A headless host frees a lobby seat whose holder shows no live presence
# this long (issue 19 item 2: a Hello alone holds no seat).
FREE_AFTER = 15.0


def _brokers(text: str) -> tuple[tuple[str, int], ...]:
    """``HOST[:PORT]``, or several comma-separated: the nodes of one
    clustered broker, tried in this order (issue 20, docs/scale.md)."""
    from net.protocol.codes import CodeError, parse_join_target

    brokers: list[tuple[str, int]] = []
    for part in text.split(","):
        try:
            target = parse_join_target(f"000000@{part.strip()}")
        except CodeError as error:
            raise argparse.ArgumentTypeError(f"bad broker {part.strip()!r}: {error}") from None
        assert target.host is not None
        brokers.append((target.host, target.port or 1883))
    return tuple(brokers)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port}: choose between 1 and 65535 (0: any)")
    return port


def add_commands(commands: Any, option_type: Any) -> None:
    """Add ``host`` and ``join`` to the ``passe`` command's subparsers."""
    from core.registry import game_ids

    host = commands.add_parser(
        "host",
        help="host a LAN game: others join by its room code",
        description="Open a room others join with `passe join CODE`. Without --broker, "
        "an embedded MQTT broker is started on --port (or the next free port).",
    )
    host.add_argument(
        "game", nargs="?", default="passpass", help=f"one of: {', '.join(game_ids())}"
    )
    host.add_argument("--players", type=int, default=None, help="number of seats")
    host.add_argument("--teams", action="store_true", help="play in teams (where allowed)")
    host.add_argument("--name", default=None, help="your name at the table")
    host.add_argument(
        "--broker",
        type=_brokers,
        default=None,
        metavar="HOST[:PORT][,...]",
        help="use this MQTT broker (e.g. Mosquitto) instead of the embedded one; headless, "
        "a comma-separated list: the nodes of one cluster, tried in order",
    )
    host.add_argument(
        "--port",
        type=_port,
        default=1883,
        help="embedded broker's port (default 1883; 0: any free port, shown in the join address)",
    )
    host.add_argument(
        "--bind",
        action="append",
        default=None,
        metavar="ADDR",
        help="where the embedded broker listens (repeatable; default: this machine's LAN "
        "addresses and 127.0.0.1; 0.0.0.0: every interface)",
    )
    host.add_argument(
        "--option",
        action="append",
        default=[],
        type=option_type,
        metavar="KEY=VALUE",
        help="a game option, e.g. target=61 (repeatable)",
    )
    host.add_argument(
        "--seed", type=arguments.seed, default=None, help="seed of the deal (default: random)"
    )
    host.add_argument(
        "--bot-delay",
        type=arguments.seconds,
        default=None,
        help="seconds between bot moves (default 0.8)",
    )
    host.add_argument(
        "--headless",
        action="store_true",
        help="no screen: wait for --wait-for people, seat bots elsewhere, play, print JSON lines",
    )
    host.add_argument(
        "--wait-for",
        type=int,
        default=None,
        metavar="N",
        help="headless: start when N people have joined (default: every seat)",
    )
    host.add_argument(
        "--bots",
        default="normal",
        choices=HEADLESS_BOTS,
        help="headless: the bot level for seats no one took (default normal)",
    )
    host.add_argument(
        "--stand-in-after",
        type=float,
        default=None,
        metavar="SECONDS",
        help="headless: a bot plays for a person away this long mid-game, until they are "
        f"back (default {STAND_IN_AFTER:g}; 0: wait for them however long)",
    )
    host.add_argument(
        "--no-failover",
        action="store_true",
        help="if this process dies mid-game, the game waits for it to come back (by default "
        "the table moves to a joined player's machine, elected by a majority of the players' "
        "processes, when 2 or more people joined: docs/election.md)",
    )
    # The default since issue 20's failover was turned on; still accepted.
    host.add_argument("--failover", action="store_true", help=argparse.SUPPRESS)
    host.add_argument(
        "--admit",
        nargs="+",
        default=None,
        metavar="RULE",
        help="headless: who may take a seat: `any` (default: every new key while seats are "
        "free), or `keys FILE` (only the keys listed in FILE, one peer id or fingerprint "
        "a line). On screen, you are asked for each new key",
    )
    host.add_argument(
        "--free-after",
        type=float,
        default=None,
        metavar="SECONDS",
        help="headless: free a lobby seat whose holder shows no live presence this long "
        f"(default {FREE_AFTER:g})",
    )
    host.add_argument(
        "--presence-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="headless, --admit any: a seat whose holder's Passe has not been heard this long "
        "(it re-publishes its presence every 15 s) is away (default "
        f"{PRESENCE_TIMEOUT:g}; 0: its presence record alone says)",
    )
    host.add_argument("--no-advertise", action="store_true", help="do not announce on the LAN")
    host.add_argument(
        "--dealer",
        nargs="?",
        const="",
        default=None,
        metavar="KEY",
        help="ask a dealer (`passe dealer`) on --broker to deal the room, so that no "
        "player's machine holds the deck; KEY: which dealer (default: the least busy)",
    )
    host.add_argument(
        "--code", default=None, help="the room code to use (default: a new random one)"
    )
    host.add_argument(
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="CODE",
        help="open again the room of a host that died (its code, if several were)",
    )

    join = commands.add_parser(
        "join",
        help="join a LAN game by its room code",
        description="Join the room CODE, found on the LAN by its code; write CODE@HOST:PORT "
        "(or use --broker) where discovery is blocked. Codes ignore case, and O/0 and "
        "I/L/1 are the same.",
    )
    join.add_argument("code", metavar="CODE[@HOST[:PORT]]", help="the room code the host shows")
    join.add_argument("--name", default=None, help="your name at the table")
    join.add_argument(
        "--broker",
        type=_brokers,
        default=None,
        metavar="HOST[:PORT][,...]",
        help="the room's MQTT broker, when discovery cannot find it; with --bot, a "
        "comma-separated list: the nodes of one cluster, tried in order",
    )
    join.add_argument("--seat", type=int, default=None, help="the seat you want (1-based)")
    join.add_argument(
        "--bot",
        default=None,
        choices=HEADLESS_BOTS,
        help="no screen: a bot of this level plays your seat (prints JSON lines)",
    )
    join.add_argument("--seed", type=arguments.seed, default=None, help="the bot's seed")
    join.add_argument(
        "--bot-delay",
        type=arguments.seconds,
        default=None,
        help="with --bot: seconds it waits before each move, as a person would (default 0)",
    )
    join.add_argument(
        "--no-stand",
        action="store_true",
        help="with --bot: if the host's machine stops mid-game, this process votes for "
        "who holds the table but is never elected itself (docs/election.md)",
    )

    watch = commands.add_parser(
        "watch",
        help="watch a LAN game by its room code (no seat)",
        description="Watch the table of room CODE live, with what everyone may see: hands "
        "face down with their sizes, bids hidden until revealed. You need no seat, and "
        "the room learns nothing of who you are (a fresh key each time). Write "
        "CODE@HOST:PORT (or use --broker) where discovery is blocked.",
    )
    watch.add_argument("code", metavar="CODE[@HOST[:PORT]]", help="the room code the host shows")
    watch.add_argument(
        "--broker",
        type=_brokers,
        default=None,
        metavar="HOST[:PORT][,...]",
        help="the room's MQTT broker, when discovery cannot find it",
    )
    # `passe serve` hands every guest's command its name (tui/serve/server.py):
    # accepted, and shown to nobody (a watcher is anonymous to the room).
    watch.add_argument("--name", default=None, help=argparse.SUPPRESS)
    watch.add_argument(
        "--headless",
        action="store_true",
        help="no screen: print what arrives as JSON lines (every update, then the end)",
    )


def run(args: argparse.Namespace) -> int:
    # The first broker is the room's; the others are its cluster's other
    # nodes, tried in order when it cannot be reached (issue 20).
    brokers = args.broker or ()
    args.broker, args.alternates = (brokers[0], brokers[1:]) if brokers else (None, ())
    headless = args.headless if args.command in ("host", "watch") else args.bot is not None
    if not headless:
        # On screen, as `passe play`: $PASSE_LOG_FILE (found by hand: only
        # `passe play` read it, so a table that did not move left no trace).
        from tui.terminal import log_to_file

        failed = log_to_file()
        if failed is not None:
            return failed
    if args.alternates and not headless:
        where = "--bot" if args.command == "join" else "--headless"
        return _fail(f"a list of brokers is for {where} for now: on screen, give one")
    if args.broker is None:  # $PASSE_BROKER stands for --broker (README)
        from tui.netplay import BROKER_ENV, NetplayError, NetworkOptions

        try:
            args.broker = NetworkOptions.from_env().broker
        except NetplayError as error:
            return _fail(f"{BROKER_ENV}: {error}")
    if args.command == "host":
        from tui.netplay import bind_from_env

        if args.bind is not None and args.broker is not None:
            return _fail("--bind is for the embedded broker: with --broker, the broker binds")
        args.bind = tuple(args.bind) if args.bind is not None else bind_from_env()
    if args.command == "host" and args.resume is not None:
        from core.registry import game_ids

        if args.resume == "" and args.game not in game_ids():
            # `passe host --headless --resume CODE`: the code came after a flag.
            args.resume, args.game = args.game, "passpass"
        clash = _resume_clash(args)
        if clash:
            return _fail(f"{clash} is the room's own setting: --resume keeps it")
    if args.command == "host" and args.dealer is not None:
        return _host_with_dealer(args)
    if args.command == "host" and not args.headless:
        return _host_on_screen(args)
    if args.command == "join" and args.bot is None:
        return _join_on_screen(args)
    if args.command == "watch" and not args.headless:
        return _watch_on_screen(args)
    return _run_headless(args)


def _host_with_dealer(args: argparse.Namespace) -> int:
    """``passe host --dealer``: a dealer on --broker deals the room (issue
    20). Headless, its code is printed (``room``) and this process ends: the
    room is the dealer's; on screen, the person joins it at once."""
    from core.engine import option_to_text
    from net.dealer.client import DealerError, ask_dealer, new_deal_nonce
    from net.dealer.messages import Deal
    from net.identity import Identity

    if args.broker is None:
        return _fail("--dealer: say where the dealers are with --broker HOST[:PORT]")
    for given, flag in ((args.resume, "--resume"), (args.code, "--code"), (args.seed, "--seed")):
        if given is not None:
            return _fail(f"{flag} is the host's own: a dealer's room has its dealer's")
    admission = _admission(args)
    if isinstance(admission, int):
        return admission
    settings = _game_settings(args)
    if isinstance(settings, int):
        return settings
    game, config = settings
    if args.wait_for == 0:
        return _fail("--wait-for 0: a dealer's room starts with 1 person at least")
    after = STAND_IN_AFTER if args.stand_in_after is None else args.stand_in_after
    if not 0 <= after <= 86_400:
        return _fail(f"--stand-in-after {after:g}: seconds from 0 (never) to 86400")
    name = args.name or _screen_name(args)
    owner = b""
    if not args.headless and args.admit is None:
        # On screen, the person decides who sits, from their seat in the
        # room, as a host does (y / n on their lobby): their player key.
        from net.identity import load_identity

        owner = load_identity(show_path=False).identity.public_key
    deal = Deal(
        nonce=new_deal_nonce(),
        game=game.id,
        players=config.players,
        name=name[:40] or "someone",
        teams=args.teams,
        # As text the dealer reads back typed (core.engine.option_from_text):
        # str(30) was refused there as "not a valid value" (found by hand).
        options={str(k): option_to_text(v) for k, v in args.option},
        wait_for=args.wait_for or 0,
        bots=args.bots,
        admit=sorted(admission[1]),
        stand_in_after=after,
        failover=not args.no_failover,
        owner=owner,
    )
    host, port = args.broker
    if not args.headless:
        print(f"passe: asking a dealer on {host}:{port} for a room...", file=sys.stderr)
    from net.dealer.client import KNOWN_FILE, KnownDealers
    from net.identity import peer_fingerprint
    from net.paths import data_dir
    from net.protocol.codes import format_code

    known = KnownDealers(data_dir() / KNOWN_FILE)
    try:
        dealt = asyncio.run(
            ask_dealer(
                Identity.generate(),
                host,
                port,
                deal,
                dealer=args.dealer or None,
                known=known.read(),
            )
        )
    except DealerError as error:
        return _fail(str(error))
    except (OSError, ConnectionError) as error:
        return _fail(f"cannot reach the broker {host}:{port}: {error}")
    except KeyboardInterrupt:
        return 130
    try:
        known.remember(dealt.dealer_id)
    except OSError as error:
        print(f"passe: the dealer asked is not remembered ({error.strerror})", file=sys.stderr)
    # Which dealer holds the deck, by its key (anyone may call a dealer
    # "Dealer-One"), and whether this machine asked it before.
    dealt_by = (
        f"Room {format_code(dealt.code)} dealt by {dealt.dealer} (key "
        f"{peer_fingerprint(dealt.dealer_id)}"
        + ("" if dealt.known else ": a dealer this machine has not asked before")
        + ")"
    )
    if args.headless:
        _emit(
            "room",
            code=dealt.code,
            join=dealt.join,
            broker=dealt.join.split("@", 1)[-1],
            dealer=dealt.dealer,
            dealer_key=dealt.dealer_id,
            known_dealer=dealt.known,
            phase="lobby",
        )
        return 0
    from tui.app import run as run_app

    network = NetworkOptions(broker=(host, port))

    def join() -> Any:
        from tui.screens.join import JoinScreen

        return JoinScreen(
            name,
            network,
            code=dealt.code,
            join_now=True,
            from_home=not args.name,
            notice=dealt_by,
            dealer=dealt.dealer_id,
        )

    bot_delay, seed = _screen_options(args)
    return run_app(bot_delay=bot_delay, seed=seed, name=args.name, network=network, opening=join)


def _run_headless(args: argparse.Namespace) -> int:
    """A headless host or bot. SIGTERM, SIGHUP, or its output gone (a
    terminal closed, a reader of the pipe gone: tui/terminal.py) end it as
    the app ends on SIGHUP: a hosted room is kept to be resumed (``passe host
    --resume``), a bot's seat is kept for it (away); exit 128 + the signal,
    within the grace period, a second signal at once (issue 24)."""
    from tui.terminal import Shutdown, guard_standard_streams, watch_streams

    shutdown = Shutdown()
    guard_standard_streams(shutdown)  # before logging takes sys.stderr
    from net.protocol.text import safe_logging

    # Log lines quote names and topics from the network: no escapes (issue 19).
    safe_logging(_log_level(), "passe: %(message)s")

    async def main() -> int:
        task = asyncio.current_task()
        assert task is not None

        def on_quit(signum: int) -> None:
            task.cancel()  # the finally blocks close the room or the seat

        shutdown.install(asyncio.get_running_loop(), on_quit, (1, 2))
        watch_streams(shutdown, (1, 2))
        from net import testhooks

        testhooks.install(asyncio.get_running_loop())
        try:
            if args.command == "host":
                return await _host(args, shutdown)
            if args.command == "watch":
                return await _watch(args)
            return await _join(args)
        except asyncio.CancelledError:
            if shutdown.signum is None:
                raise
            return shutdown.code

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        return 130


def _resume_clash(args: argparse.Namespace) -> str:
    """The first option given with ``--resume`` that would change the room."""
    given = {
        "the game": args.game != "passpass",
        "--players": args.players is not None,
        "--teams": args.teams,
        "--option": bool(args.option),
        "--seed": args.seed is not None,
        "--code": args.code is not None,
    }
    return next((name for name, present in given.items() if present), "")


def _interrupted_room(wanted: str) -> Any:
    """The saved room to resume (an ``Interrupted``), or an exit code after
    saying why not: none, not that one, or several and none named."""
    from net.authority.rooms import interrupted_rooms, rooms_dir
    from net.protocol.codes import CodeError, normalize_code

    code = ""
    if wanted:
        try:
            code = normalize_code(wanted)
        except CodeError as error:
            return _fail(str(error))
    rooms, notices = interrupted_rooms()
    for notice in notices:
        print(f"passe: {notice}", file=sys.stderr)
    chosen = [room for room in rooms if not code or room.room.code == code]
    if len(chosen) == 1:
        return chosen[0]
    if not chosen:
        # A room hosted right now by another process here is no interrupted
        # one: say so (issue 18: it said "no interrupted room").
        hosted = _hosted_here(code)
        if code and hosted:
            return _fail(f"{hosted}: it needs no --resume")
        where = f"room {code}" if code else "hosted room"
        also = f" ({hosted})" if hosted else ""
        return _fail(f"no interrupted {where} to resume in {rooms_dir()}{also}")
    _fail(f"{len(chosen)} rooms can be resumed: name one (passe host --resume CODE):")
    for room in chosen:
        print(f"  {room.describe()}", file=sys.stderr)
    return USAGE_ERROR


def _hosted_here(code: str) -> str:
    """ "room CODE is already hosted here, by process N" for the room of
    ``code`` (any room, when ``code`` is empty) that another running Passe
    hosts on this machine now, its lock held; "" when none is."""
    from net.authority.rooms import hosting_pid, room_path
    from net.paths import ROOM_SUFFIX, rooms_dir
    from net.protocol.codes import CodeError, format_code

    if code:
        paths = [room_path(code)]
    else:
        try:
            paths = sorted(rooms_dir().glob(f"*{ROOM_SUFFIX}"))
        except OSError:
            paths = []
    for path in paths:
        pid = hosting_pid(path)
        if pid is not None:
            by = f"by process {pid}" if pid else "by another running Passe"
            try:
                shown = format_code(path.stem)
            except CodeError:  # a file not named by Passe
                continue
            return f"room {shown} is already hosted here, {by}"
    return ""


def _screen_name(args: argparse.Namespace) -> str:
    """``--name``, else the name remembered from the home screen."""
    from tui.netplay import table_name
    from tui.settings import clean_name, default_path, load_settings

    if args.name:
        return table_name(clean_name(args.name))
    settings, _ = load_settings(default_path())
    return table_name(settings.name)


def _remembered_bot_delay() -> float:
    """The bot speed last chosen on the home screen (settings.json)."""
    from tui.settings import default_path, load_settings

    settings, _ = load_settings(default_path())
    return settings.bot_delay


def _screen_options(args: argparse.Namespace) -> tuple[float | None, int | None]:
    """The bot speed given for this run (None: the one chosen on the home
    screen, remembered; found by hand: `passe join` set the home's bots to
    "instant", its default for --bot) and the seed."""
    return getattr(args, "bot_delay", None), getattr(args, "seed", None)


def _host_on_screen(args: argparse.Namespace) -> int:
    """The game table, opened at the lobby of a new room (the home screen's
    "Host a LAN game" with these settings)."""
    from core.engine import ConfigError
    from core.registry import get_game
    from tui.netplay import HostPlan, NetworkOptions

    if args.wait_for is not None:
        return _fail("--wait-for is for --headless: on screen, you start the game")
    if args.stand_in_after is not None:
        return _fail("--stand-in-after is for --headless: on screen, b at the table does it")
    if args.admit is not None or args.free_after is not None or args.presence_timeout is not None:
        return _fail(
            "--admit, --free-after and --presence-timeout are for --headless: "
            "on screen, you are asked"
        )
    network = NetworkOptions(
        broker=args.broker, port=args.port, advertise=not args.no_advertise, bind=args.bind
    )
    if args.resume is not None:
        chosen = _interrupted_room(args.resume)
        if isinstance(chosen, int):
            return chosen
        plan = HostPlan.resuming(chosen.room, _screen_name(args), network)
        return _lobby_on_screen(plan, args)
    try:
        game = get_game(args.game)
        players = args.players if args.players is not None else game.info.min_players
        game.make_config(players=players, teams=args.teams, **dict(args.option))
    except ConfigError as error:
        return _fail(str(error))
    bot_delay, seed = _screen_options(args)
    code = _given_code(args)
    if isinstance(code, int):
        return code
    plan = HostPlan(
        game.id,
        players=players,
        teams=args.teams,
        name=_screen_name(args),
        options=dict(args.option),
        network=network,
        seed=seed,
        bot_delay=bot_delay if bot_delay is not None else _remembered_bot_delay(),
        code=code,
        failover=not args.no_failover,
    )
    return _lobby_on_screen(plan, args)


def _lobby_on_screen(plan: HostPlan, args: argparse.Namespace) -> int:
    from tui.app import run as run_app

    # A new room while an earlier one of this machine's still goes on (or
    # waits to be resumed): said in the lobby, where the person looks.
    note = "" if plan.resume is not None else rooms_left_here()

    def lobby() -> Any:
        from tui.screens.lobby import LobbyScreen

        return LobbyScreen(plan=plan, note=note)

    bot_delay, seed = _screen_options(args)
    # --name (an SSH guest's user name) is the name on the home screen too,
    # for the next room hosted or joined from there (issue 18 item 6).
    return run_app(
        bot_delay=bot_delay, seed=seed, name=args.name, network=plan.network, opening=lobby
    )


def _join_on_screen(args: argparse.Namespace) -> int:
    """The game table, opened at the join screen, joining the room found
    here (a code that is not found fails here, with exit code 2)."""
    from tui.app import run as run_app

    if args.seat is not None:
        return _fail("--seat is for --bot: on screen, the host's room gives you a free seat")
    if args.no_stand:
        return _fail("--no-stand is for --bot: on screen, f in the room's lobby declines to stand")
    found = _found_on_screen(args)
    if isinstance(found, int):
        return found
    code, network = found
    name = _screen_name(args)

    def join() -> Any:
        from tui.screens.join import JoinScreen

        return JoinScreen(name, network, code=code, join_now=True, from_home=not args.name)

    bot_delay, seed = _screen_options(args)
    # The room's broker is the join's, not the session's: a room this person
    # hosts later (o at home) is on their own broker, as from `passe`. It was
    # on the joined host's embedded broker (a play-test), which dies with
    # that host's machine.
    return run_app(bot_delay=bot_delay, seed=seed, name=args.name, network=None, opening=join)


def _found_on_screen(args: argparse.Namespace) -> tuple[str, NetworkOptions] | int:
    """The room's code and broker for a screen that joins or watches it, or
    the exit status (2: not found, said in one line; 130: interrupted)."""
    try:
        resolved = asyncio.run(_resolve(args))
    except KeyboardInterrupt:
        return 130
    if isinstance(resolved, int):
        return resolved
    code, host, port = resolved
    return code, NetworkOptions(broker=(host, port))


def _watch_on_screen(args: argparse.Namespace) -> int:
    """The watch screen of the room found here (issue 21); a code that is
    not found fails here, with exit code 2."""
    from tui.app import run as run_app

    found = _found_on_screen(args)
    if isinstance(found, int):
        return found
    code, network = found

    def watch() -> Any:
        from tui.screens.join import JoinScreen

        return JoinScreen("", network, code=code, watch_now=True, from_home=True)

    # As a join's (above): the room's broker is the watch's, not the session's.
    return run_app(bot_delay=None, seed=None, name=None, network=None, opening=watch)


def _given_code(args: argparse.Namespace) -> str | int | None:
    """``--code`` in its normal form, None when not given, or (said in one
    line) the exit status of a code that is not one."""
    if args.code is None:
        return None
    from net.protocol.codes import CodeError, normalize_code

    try:
        return normalize_code(args.code)
    except CodeError as error:
        return _fail(str(error))


def _log_level() -> int:
    """``PASSE_LOG=debug`` (or info) makes a headless host or bot say what it
    receives and sends, on stderr: for finding out why a game stalled."""
    wanted = os.environ.get("PASSE_LOG", "").strip().upper()
    return logging.getLevelNamesMapping().get(wanted, logging.WARNING)


def _fail(message: str) -> int:
    print(f"passe: {message}", file=sys.stderr)
    return USAGE_ERROR


def _emit(event: str, **fields: Any) -> None:
    from net.peer.headless import emit

    emit(event, **fields)


def _keep(
    record: Any, names: Sequence[str], seat: int | None, result: Any, deal_check: str
) -> str | None:
    """A headless process's finished game, kept where the app keeps them
    (tui/records.py): the file's path, or None after saying why on stderr."""
    from tui.records import keep_game

    path, notice = keep_game(record, names, viewer=seat, result=result, deal_check=deal_check)
    if notice:
        print(f"passe: {notice}", file=sys.stderr)
    return None if path is None else str(path)


def _admission(args: argparse.Namespace) -> tuple[str, frozenset[str]] | int:
    """``--admit``: the rule and the peer ids it lets in, or an exit code
    after saying what is wrong (issue 19 item 2)."""
    rule = args.admit or ["any"]
    if rule == ["any"]:
        return "any", frozenset()
    if len(rule) != 2 or rule[0] != "keys":
        return _fail(f"--admit {' '.join(rule)}: write `--admit any` or `--admit keys FILE`")
    from tui.arguments import read_key_list

    try:
        return "keys", read_key_list(rule[1])
    except ValueError as error:
        return _fail(f"--admit keys {rule[1]}: {error}")


async def _host(args: argparse.Namespace, shutdown: Shutdown) -> int:
    after = args.stand_in_after
    if after is not None and not 0 <= after <= 86_400:  # NaN fails this too
        return _fail(f"--stand-in-after {after:g}: seconds from 0 (never) to 86400")
    free_after = FREE_AFTER if args.free_after is None else args.free_after
    if not 0 < free_after <= 86_400:
        return _fail(f"--free-after {free_after:g}: seconds from 0 (excluded) to 86400")
    admission = _admission(args)
    if isinstance(admission, int):
        return admission
    timeout = PRESENCE_TIMEOUT if args.presence_timeout is None else args.presence_timeout
    if not 0 <= timeout <= 86_400:
        return _fail(f"--presence-timeout {timeout:g}: seconds from 0 (none) to 86400")
    opened = await (_resume_headless(args) if args.resume is not None else _open_headless(args))
    if isinstance(opened, int):
        return opened
    room = opened
    authority = room.authority
    authority.admission, authority.allowed_keys = admission
    authority.free_away_after = free_after
    authority.failover = not args.no_failover
    # Where any key may sit, a retained "online" with no will (a process
    # gone) must not look present for ever (issue 19 seats item 5): a seat not
    # heard for the timeout is away. A "keys" rule lists who may sit.
    authority.watch_presence((timeout or None) if admission[0] == "any" else None)
    # Nobody at a headless host can decide to let a bot play for someone
    # whose link died: after a while, it happens by itself.
    after = STAND_IN_AFTER if args.stand_in_after is None else args.stand_in_after
    authority.watch_away(after or None)
    try:
        _emit(
            "room",
            code=room.code,
            join=room.join_hint,
            broker=f"{room.broker_host}:{room.broker_port}",
            phase=authority.phase,
            local_only=room.local_only,
        )
        if room.reach_note:
            print(f"passe: {room.reach_note}", file=sys.stderr)
        if room.moved_note:
            print(f"passe: {room.moved_note}", file=sys.stderr)
        if authority.phase == "lobby":
            from net.peer.headless import fill_and_start

            players = len(authority.seats)
            wanted = players if args.wait_for is None else args.wait_for
            await fill_and_start(room, wanted, args.bots, _emit)
        else:
            assert authority.table is not None
            _emit("resumed", seq=authority.seq, actions=len(authority.table.state.history))
        from net.peer.headless import over_or_stepped_down

        if await over_or_stepped_down(authority):
            # Another machine runs the table now (issue 20): this process
            # keeps its vote (the room's majority may need it) and follows
            # the game to its end there, as a spectator.
            _emit("stepped_down", term=authority.stepped_down)
            from net.peer.headless import follow_to_end

            followed = await follow_to_end(authority)
            if followed is None:
                await asyncio.Event().wait()  # its vote, until stopped
                return 0
            _emit("over", moved=True, **followed)
            return 0
        assert authority.table is not None
        result = authority.table.state.result()
        # Kept as the app keeps its games (issue 21): the host saw no seat.
        kept = _keep(
            authority.table.record(), [slot.name for slot in authority.seats], None, result, ""
        )
        _emit(
            "over",
            kept=kept,
            result=None
            if result is None
            else json.loads(
                json.dumps(
                    {"winners": result.winners, "scores": result.scores, "reason": result.reason}
                )
            ),
            actions=len(authority.table.state.history),
        )
    finally:
        # Ended by a signal or a hangup mid-game: nobody decided to end the
        # game, so the room stays to be resumed, as when the app's host quits
        # on a signal (LobbyScreen.keep_room); the others see the host away.
        await room.close(keep=shutdown.signum is not None and authority.phase != "over")
    return 0


def _game_settings(args: argparse.Namespace) -> tuple[Any, Any] | int:
    """The game and its config from ``passe host``'s arguments, ``--wait-for``
    checked against its seats; or the exit status, the reason said."""
    from core.engine import ConfigError
    from core.registry import get_game

    try:
        game = get_game(args.game)
        players = args.players if args.players is not None else game.info.min_players
        config = game.make_config(players=players, teams=args.teams, **dict(args.option))
    except ConfigError as error:
        return _fail(str(error))
    if args.wait_for is not None and not 0 <= args.wait_for <= config.players:
        return _fail(f"--wait-for {args.wait_for}: choose between 0 and {config.players}")
    return game, config


async def _open_headless(args: argparse.Namespace) -> HostedRoom | int:
    from net.authority.host import default_host_name, open_room
    from net.identity import Identity

    settings = _game_settings(args)
    if isinstance(settings, int):
        return settings
    game, config = settings
    code = _given_code(args)
    if isinstance(code, int):
        return code
    # The authority's key is its own, not the person's: the host's player
    # joins their own room with their key like everyone else.
    identity = Identity.generate()
    try:
        return await open_room(
            game.id,
            config,
            identity=identity,
            host_name=args.name or default_host_name(),
            broker=args.broker,
            port=args.port,
            bind=args.bind,
            seed=args.seed,
            bot_delay=args.bot_delay if args.bot_delay is not None else 0.8,
            advertise=not args.no_advertise,
            code=code,
            alternates=args.alternates,
        )
    except Exception as error:  # broker errors carry their own one-line reason
        return _fail(str(error) or type(error).__name__)


async def _resume_headless(args: argparse.Namespace) -> HostedRoom | int:
    from net.authority.host import resume_room

    chosen = _interrupted_room(args.resume)
    if isinstance(chosen, int):
        return chosen
    players = len(chosen.room.seats)
    if args.wait_for is not None and not 0 <= args.wait_for <= players:
        return _fail(f"--wait-for {args.wait_for}: choose between 0 and {players}")
    try:
        return await resume_room(
            chosen.room,
            broker=args.broker,
            bind=args.bind,
            bot_delay=args.bot_delay,
            advertise=not args.no_advertise,
            alternates=args.alternates,
        )
    except Exception as error:  # broker errors carry their own one-line reason
        return _fail(str(error) or type(error).__name__)


async def _resolve(args: argparse.Namespace) -> tuple[str, str, int] | int:
    from net.protocol.codes import CodeError, parse_join_target

    try:
        target = parse_join_target(args.code)
    except CodeError as error:
        return _fail(str(error))
    if target.host is not None:
        args.alternates = ()  # CODE@HOST:PORT names the broker: --broker is not used
        return target.code, target.host, target.port or 1883
    if args.broker is not None:
        host, port = args.broker
        return target.code, host, port
    try:
        from net.lan.discovery import find_room

        # About a second on a quiet LAN; a busy machine or a lost packet needs more.
        from tui.netplay import DISCOVERY_WAIT

        advert = await find_room(target.code, timeout=DISCOVERY_WAIT)
    except Exception as error:  # no zeroconf, multicast blocked…
        return _fail(
            f"LAN discovery unavailable ({error or type(error).__name__}): "
            "type CODE@HOST:PORT or use --broker HOST:PORT"
        )
    from tui.netplay import first_reachable, room_between_machines

    if advert is None:
        between = await room_between_machines(target.code)
        if between is not None:
            return (target.code, *between)
        return _fail(
            f"no room {target.code} found on the LAN: check the code, or ask the host "
            "for the address and type CODE@HOST:PORT"
        )

    address = await first_reachable(advert.addresses or ("127.0.0.1",), advert.port)
    if address is None:
        return _fail(
            f"room {target.code} was found at {', '.join(advert.addresses)} port {advert.port}, "
            "but its broker does not answer there"
        )
    return target.code, address, advert.port


async def _join(args: argparse.Namespace) -> int:
    from net.identity import load_identity
    from net.peer.headless import play_with_bot
    from net.peer.remote import JoinError, RemoteTable

    resolved = await _resolve(args)
    if isinstance(resolved, int):
        return resolved
    code, host, port = resolved
    if args.seat is not None and not 1 <= args.seat <= 16:
        return _fail(f"--seat {args.seat}: seats are numbered from 1")
    from net.paths import rooms_dir
    from net.peer.pins import RoomPins

    identity = load_identity().identity
    table = RemoteTable(
        identity,
        code,
        host,
        port,
        args.name or "Bot",
        pins=RoomPins(),
        bot=True,
        alternates=args.alternates,
        stand=not args.no_stand,
        maker_rooms=rooms_dir(),
    )
    try:
        seat = await table.join(None if args.seat is None else args.seat - 1)
    except JoinError as error:
        return _fail(str(error))
    try:
        _emit("seated", seat=seat, code=code)
        delay = args.bot_delay if args.bot_delay is not None else 0.0
        await play_with_bot(table, args.bot, seed=args.seed, delay=delay)
        view = table.view
        result = view.result if view is not None else None
        # The record comes with the final room state, just after the view.
        from net.peer.dealcheck import DEAL_CHECK_WAIT

        verified = await table.deal_check(DEAL_CHECK_WAIT)
        record = table.record()
        # Kept as the app keeps its games (issue 21), from this seat's view.
        kept = (
            None if record is None else _keep(record, table.names, seat, result, table.deal_report)
        )
        _emit(
            "over",
            winners=list(result.winners) if result else [],
            scores=list(result.scores) if result else [],
            deal_verified=verified,
            # In words: verified (in part, if views were missed) or the
            # first mismatch between the revealed deal and what was shown.
            deal_report=table.deal_report,
            kept=kept,
        )
    finally:
        await table.close()
    return 0


async def _watch(args: argparse.Namespace) -> int:
    """``passe watch CODE --headless``: each update as received (decrypted,
    its text cleaned), the watchers' count as it changes, then the end and
    the spectator's deal check, as JSON lines."""
    from net.peer.pins import RoomPins
    from net.peer.remote import JoinError
    from net.peer.watch import Watcher
    from net.protocol.text import clean_tree
    from net.protocol.wire import RoomState, Update

    resolved = await _resolve(args)
    if isinstance(resolved, int):
        return resolved
    code, host, port = resolved
    watcher = Watcher(code, host, port, pins=RoomPins(), alternates=args.alternates)
    done = asyncio.Event()
    counted = [-1]

    def raw(update: Update) -> None:
        _emit(
            "update",
            seq=update.seq,
            base=update.base,
            view=clean_tree(update.view),
            events=clean_tree(update.events),
        )

    def room_changed(room: RoomState) -> None:
        if watcher.watching != counted[0]:
            counted[0] = watcher.watching
            _emit("watchers", count=watcher.watching)
        if room.phase == "closed":
            done.set()

    def table_changed(update: Any) -> None:
        if update.view.is_over:
            done.set()

    watcher.on_raw(raw)
    try:
        try:
            await watcher.watch()
        except JoinError as error:
            return _fail(str(error))
        _emit("watching", code=code, watchers=watcher.watching)
        watcher.on_room(room_changed)
        await watcher.connect(table_changed)
        await done.wait()
        view = watcher.view
        result = view.result if view is not None else None
        from net.peer.dealcheck import DEAL_CHECK_WAIT

        _emit(
            "over",
            winners=list(result.winners) if result else [],
            scores=list(result.scores) if result else [],
            deal_verified=await watcher.deal_check(DEAL_CHECK_WAIT),
            deal_report=watcher.deal_report,
            record=watcher.room.record if watcher.room is not None else None,
        )
    finally:
        await watcher.close()
    return 0


__all__ = ["add_commands", "run"]
