"""The ``passe`` command: the game table by default, plus tools for people who
script it (``simulate``). Bad arguments print one clear line and exit with 2."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from core.engine import ConfigError
from tui import arguments

USAGE_ERROR = 2


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # slow: only for --version

    try:
        return version("passe")
    except PackageNotFoundError:
        return "0+unknown"


class _Parser(argparse.ArgumentParser):
    """argparse, but an error is one line on stderr and exit code 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # --game must not mean --games
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"passe: {message} (see {self.prog} --help)\n")


class _VersionAction(argparse.Action):
    """``--version``, looking the version up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"passe {package_version()}")
        parser.exit()


def _bot_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"bad bot list {text!r}: write names separated by commas")
    return names


def _option(text: str) -> tuple[str, object]:
    """``key=value``; the value as :func:`core.engine.option_from_text`
    reads it (JSON when it parses, else text; commas make a list)."""
    from core.engine import option_from_text

    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"bad option {text!r}: write KEY=VALUE")
    return key.strip(), option_from_text(raw)


def _build_parser() -> argparse.ArgumentParser:
    from core.registry import game_ids

    parser = _Parser(
        prog="passe",
        description="Passe: a terminal table for Pass Pass, Passe dominoes and Passe fashion.",
    )
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)

    play = commands.add_parser("play", help="open the game table (the default)")
    play.add_argument(
        "--bot-delay",
        type=arguments.seconds,
        default=None,
        help="seconds between bot moves for this run (default: the home screen's bot speed)",
    )
    play.add_argument(
        "--seed", type=arguments.seed, default=None, help="seed of the first game (default: random)"
    )
    play.add_argument("--name", default=None, help="your player name (default: the saved one)")

    sim = commands.add_parser("simulate", help="play bot-only games and print a JSON summary")
    sim.add_argument("game", help=f"one of: {', '.join(game_ids())}")
    sim.add_argument("--players", type=int, required=True, help="number of players")
    sim.add_argument("--teams", action="store_true", help="play in teams (where allowed)")
    sim.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    sim.add_argument(
        "--seed", type=arguments.seed, default=0, help="seed of the whole run (default 0)"
    )
    sim.add_argument(
        "--option",
        action="append",
        default=[],
        type=_option,
        metavar="KEY=VALUE",
        help=(
            "a game option, e.g. payment=everyone, target=61 or a list separated by "
            "commas, diamonds=3,2,2,0,1,0,1,0,1,1,0,0 (repeatable)"
        ),
    )
    sim.add_argument(
        "--bots",
        type=_bot_list,
        help="one bot per seat, comma-separated, e.g. heuristic,random,random (default: random)",
    )
    sim.add_argument(
        "--timings",
        action="store_true",
        help="add each seat's decision times (ms) and search playouts to the summary",
    )
    sim.add_argument(
        "--no-clock",
        dest="clock",
        action="store_false",
        help=(
            "search bots (hard, expert) think to their playout cap whatever the time: "
            "the run reproduces exactly from its seed on any machine, however busy"
        ),
    )
    from tui.network_cli import add_commands

    add_commands(commands, _option)
    from tui.dealer_cli import add_dealer_command

    add_dealer_command(commands)
    _add_serve(commands)
    _add_replay(commands)
    return parser


def _simulate(args: argparse.Namespace) -> int:
    from core.simulate import simulate

    bots = args.bots if args.bots is not None else ["random"] * max(args.players, 0)
    started = time.perf_counter()
    try:
        summary = simulate(
            args.game,
            players=args.players,
            teams=args.teams,
            games=args.games,
            seed=args.seed,
            bots=bots,
            options=dict(args.option),
            timings=args.timings,
            clock=args.clock,
        )
    except ConfigError as error:
        print(f"passe: {error}", file=sys.stderr)
        return USAGE_ERROR
    data = summary.to_data()
    data["seconds"] = round(time.perf_counter() - started, 3)
    try:
        print(json.dumps(data), flush=True)
    except BrokenPipeError:
        # `passe simulate ... | head -c 100`: the reader left, which is no
        # error of ours (Python's own advice: stdout to devnull, no traceback
        # at exit).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _build_parser().parse_args(_with_the_default_command(argv))
    if args.command == "simulate":
        return _simulate(args)
    if args.command in ("host", "join", "watch"):
        from tui.network_cli import run

        return run(args)
    if args.command == "dealer":
        from tui.dealer_cli import run_dealer

        return run_dealer(args)
    if args.command == "serve":
        return _serve(args)
    if args.command == "replay":
        return _replay(args)
    return _play(args)


def _with_the_default_command(argv: Sequence[str] | None) -> list[str]:
    """``passe --name Hana`` is ``passe play --name Hana``: ``play`` is the
    default command, and its options came before any command (a play-test:
    refused as unrecognised). ``--help`` and ``--version`` stay passe's."""
    given = list(sys.argv[1:] if argv is None else argv)
    if given and given[0].startswith("-") and given[0] not in ("-h", "--help", "--version"):
        return ["play", *given]
    return given


def _play(args: argparse.Namespace) -> int:
    from tui.app import run
    from tui.terminal import log_to_file

    failed = log_to_file()
    if failed is not None:
        return failed
    return int(
        run(
            bot_delay=getattr(args, "bot_delay", None),  # None: the remembered speed
            seed=getattr(args, "seed", None),
            name=getattr(args, "name", None),
        )
    )


# -- passe serve --ssh (tui/serve/, docs/ssh.md) ------------------------------


class _ServeHelpAction(argparse.Action):
    """``serve --help`` ends with the host key's fingerprint, read only when
    help is shown (every other ``passe`` run stays fast)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show this help and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from tui.serve.host_key import describe_host_key

        print(parser.format_help() + "\n" + describe_host_key())
        parser.exit()


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text}: a port is between 0 and 65535")
    return value


def _add_serve(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        add_help=False,
        help="let guests play with nothing installed: over SSH (--ssh) or in a browser (--web)",
        description=(
            "--ssh: run an SSH server: every guest who connects (ssh -p PORT HOST) gets their "
            "own Passe. Open guest mode by default: any user name, no password; the user name "
            "is the player's name. `ssh -t -p PORT HOST join CODE` joins a room.\n"
            "--web: serve the table to browsers (textual-serve): every browser tab gets its "
            "own Passe. The printed link carries a random token; --open asks none."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Logs go to stderr, one line per session start, end and refusal.",
    )
    serve.add_argument("-h", "--help", action=_ServeHelpAction)
    protocol = serve.add_mutually_exclusive_group()
    protocol.add_argument("--ssh", action="store_true", help="serve over SSH")
    protocol.add_argument("--web", action="store_true", help="serve to web browsers (docs/web.md)")
    serve.add_argument(
        "--port", type=_port, default=None, help="port (default 2222 for SSH, 8000 for web; 0: any)"
    )
    serve.add_argument("--bind", default="", help="address to listen on (default: all)")
    serve.add_argument(
        "--max-sessions", type=arguments.count, default=32, help="sessions at once (default 32)"
    )
    serve.add_argument(
        "--idle-timeout",
        type=arguments.timeout,
        default=1800.0,
        metavar="S",
        help="end a session after S seconds without a key press (default 1800; 0: never)",
    )
    serve.add_argument(
        "--authorized-keys",
        type=Path,
        default=None,
        metavar="FILE",
        help="SSH: admit only these keys (OpenSSH authorized_keys format)",
    )
    serve.add_argument(
        "--open",
        action="store_true",
        help="web: ask browsers for no token (a trusted LAN only)",
    )
    serve.add_argument(
        "--bot-delay", type=arguments.seconds, default=None, help="passed to every guest's game"
    )
    serve.add_argument(
        "--seed", type=arguments.seed, default=None, help="passed to every guest's game"
    )


def command_names() -> list[str]:
    """The ``passe`` commands of this installation (the SSH server offers
    ``join CODE`` and ``watch CODE`` to guests only where they exist)."""
    for action in _build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def _serve(args: argparse.Namespace) -> int:
    if not args.ssh and not args.web:
        print("passe: serve needs a protocol: passe serve --ssh or --web", file=sys.stderr)
        return USAGE_ERROR
    if args.web and args.authorized_keys is not None:
        print(
            "passe: --authorized-keys is for --ssh; browsers use the link's token", file=sys.stderr
        )
        return USAGE_ERROR
    if args.ssh and args.open:
        print("passe: --open is for --web", file=sys.stderr)
        return USAGE_ERROR
    from tui.serve.server import ServeOptions

    options = ServeOptions(
        bind=args.bind,
        port=args.port if args.port is not None else (8000 if args.web else 2222),
        max_sessions=args.max_sessions,
        idle_timeout=args.idle_timeout,
        authorized_keys=args.authorized_keys,
        bot_delay=args.bot_delay,
        seed=args.seed,
        commands=frozenset(command_names()),
        open_access=args.open,
    )
    if args.web:
        from tui.serve.web import run as run_web

        return run_web(options)
    from tui.serve.server import run

    return run(options)


# -- passe replay FILE (issue 21, docs/notation.md) ----------------------------


def _add_replay(commands: Any) -> None:
    replay = commands.add_parser(
        "replay",
        help="step through a finished game, move by move (or print one moment)",
        description=(
            "Replay a game kept in Passe game notation (docs/notation.md): the finished "
            "games are in the records folder of Passe's data directory. With --seat or "
            "--step, print that moment as text instead (no screen)."
        ),
    )
    replay.add_argument("file", type=Path, help="a game record (.passe)")
    replay.add_argument(
        "--seat",
        default=None,
        metavar="N",
        help="whose view: a seat from 1, or spectator (default: spectator)",
    )
    replay.add_argument(
        "--step",
        type=arguments.step,
        default=None,
        metavar="K",
        help="after K moves: 0 is the deal (default: the end)",
    )


def _replay(args: argparse.Namespace) -> int:
    from core.notation import GameFileError
    from core.replay import moment_text, parse_seat
    from tui.records import load_replay

    shown = ascii(str(args.file))[1:-1] if not str(args.file).isprintable() else str(args.file)
    try:
        replay = load_replay(args.file)
    except GameFileError as error:
        print(f"passe: {shown}: {error}", file=sys.stderr)
        return USAGE_ERROR
    seat: int | None = None
    if args.seat is not None:
        try:
            seat = parse_seat(args.seat, replay.players)
        except ValueError as error:
            print(f"passe: {error}", file=sys.stderr)
            return USAGE_ERROR
    if args.step is not None and args.step > replay.steps:
        print(
            f"passe: --step {args.step}: this game has {replay.steps} moves (0 to {replay.steps})",
            file=sys.stderr,
        )
        return USAGE_ERROR
    if args.seat is not None or args.step is not None:
        step = replay.steps if args.step is None else args.step
        sys.stdout.write(moment_text(replay, step, seat))
        return 0
    return _replay_screen(replay)


def _replay_screen(replay: Any) -> int:
    from tui.app import run
    from tui.records import shown_names
    from tui.screens.replay import replay_screen

    try:
        from tui.games import load_table_screen

        load_table_screen(replay.game.id)
    except (LookupError, ImportError) as error:
        print(f"passe: {error}", file=sys.stderr)
        return USAGE_ERROR
    names = shown_names(replay.file)
    return run(opening=lambda: replay_screen(replay, names, seat=replay.file.viewer, exits=True))


if __name__ == "__main__":
    sys.exit(main())
