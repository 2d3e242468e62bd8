"""``passe serve --ssh``: who may come in, what each session runs, limits
and logs. Each session is a :class:`~tui.serve.session.PasseSession` running
``passe`` in its own process on its own pty (``docs/ssh.md`` says why).

Access: open guest mode by default (any user name; a key if the client
offers one, else keyboard-interactive with no question, or any password for
clients that know nothing else), or only the keys of an authorized_keys
file. The SSH user name becomes the player's name (``passe play --name``);
the key's fingerprint, when there is one, is given to the app as
``$PASSE_PLAYER_KEY`` and chooses the player's directory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import asyncssh

from core.engine import plural
from net.paths import data_dir
from net.protocol.text import safe_logging
from tui.netplay import BIND_ENV, SECOND_SESSION_ENV, SERVED_ENV, SSH_HOST_ENV, SSH_PORT_ENV
from tui.serve.host_key import fingerprint, load_or_create_host_key
from tui.serve.identity import Identity, player_name, shown
from tui.serve.session import PasseSession, Request, stopped_farewell
from tui.terminal import Shutdown, guard_standard_streams, watch_streams

log = logging.getLogger("passe.serve")

DEFAULT_PORT = 2222
DEFAULT_MAX_SESSIONS = 32
DEFAULT_IDLE_TIMEOUT = 1800.0
PLAYER_KEY_VARIABLE = "PASSE_PLAYER_KEY"
# Room codes as typed after `join` / `watch`, with the room's broker where LAN
# discovery cannot find it (`CODE@HOST[:PORT]`, `CODE@[IPv6]:PORT`, as `passe
# join` takes them): nothing else reaches the app.
ROOM_CODE = re.compile(r"[A-Za-z0-9-]{1,32}(@[A-Za-z0-9.:\[\]-]{1,255})?")
TERM_TYPE = re.compile(r"[A-Za-z0-9._+-]{1,64}")
# Server variables the app needs (where Python and its packages are, the
# locale); nothing else of the server's environment reaches a guest's app.
# PASSE_BROKER is the operator's choice of broker for the rooms guests host
# (README): a guest's own SendEnv cannot set it.
SERVER_VARIABLES = (
    "PATH",
    "HOME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "PYTHONPATH",
    "PASSE_BROKER",
)
# Variables a client may send (OpenSSH's SendEnv/SetEnv) that the app honours.
CLIENT_VARIABLES = ("NO_COLOR", "COLORTERM")
# Keepalives find clients that vanished without closing (a cable pulled):
# about 90 s; a closed connection is noticed at once.
KEEPALIVE_SECONDS = 30
KEEPALIVE_COUNT = 3
LOGIN_TIMEOUT = 60


@dataclass(frozen=True)
class ServeOptions:
    bind: str = ""
    port: int = DEFAULT_PORT
    max_sessions: int = DEFAULT_MAX_SESSIONS
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT  # 0: never
    authorized_keys: Path | None = None
    bot_delay: float | None = None  # passed to every session's `passe play`
    seed: int | None = None
    # The `passe` commands a guest's session may run (`passe serve` fills it
    # from its own parser: the server never imports the command line).
    commands: frozenset[str] = frozenset({"play", "join"})
    # `passe serve --web --open`: no token asked of browsers (a trusted LAN).
    open_access: bool = False


def server_full(limit: int) -> str:
    """What a guest turned away at the door reads (SSH and browser)."""
    return f"the server is full ({plural(limit, 'player')}); please try again later."


def exit_status(code: int) -> int:
    return code if code >= 0 else 128 - code  # killed by signal N: 128 + N


class Stoppable(Protocol):
    """What :meth:`Hub.shutdown` needs of a live session, SSH or web."""

    end_reason: str
    farewell: str
    task: asyncio.Task[None] | None

    async def stop_child(self, first: signal.Signals) -> None: ...


class Hub:
    """The server's shared state: live sessions, player directories in use,
    background tasks, and the decisions about each session."""

    def __init__(
        self,
        options: ServeOptions,
        authorized: asyncssh.SSHAuthorizedKeys | None,
        protocol: str = "ssh",
    ):
        self.options = options
        self.authorized = authorized
        # One tree per protocol (ssh/, web/): two servers may run at once, and
        # each knows only its own directories in use.
        self.root = data_dir() / protocol
        self.players = self.root / "players"
        self.guests = self.root / "guests"  # throw-away directories (see claim_directory)
        self.sessions: set[Stoppable] = set()  # PasseSession, or a web session
        self.directories_in_use: set[Path] = set()
        self.tasks: set[asyncio.Task[Any]] = set()
        self._numbers = 0
        self.port: int | None = None  # where the server listens, once it does

    def next_session_number(self) -> int:
        self._numbers += 1
        return self._numbers

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    # -- player directories --------------------------------------------------------

    def claim_directory(self, identity: Identity) -> tuple[Path, bool]:
        """The player's directory (config, saves, data), and whether it is a
        throw-away one. A second live session of the same player (or a
        second guest typing the same user name) gets a fresh throw-away
        directory, removed at its end, so two sessions never write the same
        save."""
        wanted = self.players / identity.directory_name
        if wanted not in self.directories_in_use:
            wanted.mkdir(parents=True, exist_ok=True)
            self.directories_in_use.add(wanted)
            return wanted, False
        self.guests.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix="session-", dir=self.guests)), True

    def release_directory(self, directory: Path, throw_away: bool) -> None:
        if throw_away:
            shutil.rmtree(directory, ignore_errors=True)
        else:
            self.directories_in_use.discard(directory)

    def remove_stale_guest_directories(self) -> None:
        """Throw-away directories left by a server that was killed."""
        shutil.rmtree(self.guests, ignore_errors=True)

    # -- what a session runs ---------------------------------------------------------

    def plan(self, command: str | None, name: str | None) -> tuple[list[str], str] | str:
        """The ``passe`` arguments for the client's command and a label for
        the log, or a one-line refusal for the client. ``name`` None: the
        name the player's settings remember (a web guest has no user name)."""
        words = (command or "").split()
        if not words or words == ["play"]:
            arguments = ["play"] if name is None else ["play", "--name", name]
            if self.options.bot_delay is not None:
                arguments += ["--bot-delay", str(self.options.bot_delay)]
            if self.options.seed is not None:
                arguments += ["--seed", str(self.options.seed)]
            return arguments, "play"
        verb = words[0]
        if verb in ("join", "watch"):
            if len(words) != 2 or not ROOM_CODE.fullmatch(words[1]):
                return (
                    f"Passe: write `{verb} CODE` with one room code (letters, digits, dashes), "
                    "or `CODE@HOST:PORT` with the room's broker."
                )
            if verb not in self.options.commands:
                what = "joining" if verb == "join" else "watching"
                return (
                    f"Passe: {what} rooms is not available on this server yet; "
                    "connect without a command to play against bots."
                )
            named = [] if name is None else ["--name", name]
            return [verb, words[1], *named], f"{verb} {words[1]}"
        return "Passe: unknown command; connect without one to play, or with `join CODE`."

    def environment(self, request: Request, identity: Identity, directory: Path) -> dict[str, str]:
        """A guest app's whole environment: the server's few variables, the
        client's few checked ones, and the player's own directory and key.
        A web guest's ``request`` is the browser's terminal (xterm.js)."""
        env = {key: os.environ[key] for key in SERVER_VARIABLES if key in os.environ}
        env.setdefault("LANG", "C.UTF-8")
        term = request.term_type
        env["TERM"] = term if TERM_TYPE.fullmatch(term) else "xterm-256color"
        for key in CLIENT_VARIABLES:
            value = request.environment.get(key)
            if value is not None and len(value) <= 64 and value.isprintable():
                env[key] = value
        env["PASSE_CONFIG_DIR"] = str(directory)
        env["PASSE_DATA_DIR"] = str(directory)
        env[SERVED_ENV] = "1"  # a guest: the server's paths are not theirs to read
        if directory.parent == self.guests:
            # A second session of a player already here: nothing it does is
            # kept, and its home screen says so (a play-test found a game
            # played there gone, without a word).
            env[SECOND_SESSION_ENV] = "1"
        if self.port is not None and self.root.name == "ssh":
            env[SSH_PORT_ENV] = str(self.port)
            if request.server_address:
                env[SSH_HOST_ENV] = request.server_address
        if identity.key:
            env[PLAYER_KEY_VARIABLE] = identity.key
        if self.options.bind and self.options.bind not in ("0.0.0.0", "::"):
            # The embedded brokers of rooms guests host listen where the
            # server does (issue 18): `--bind 127.0.0.1` keeps them local.
            env[BIND_ENV] = self.options.bind
        return env

    # -- one session, start to end ------------------------------------------------------

    def refuse(self, session: PasseSession, reason: str, message: str) -> None:
        log.info("refused %s: %s", session.identity.describe(), reason)
        session.finish(1, message)

    async def run_session(self, session: PasseSession) -> None:
        request = session.request
        if not request.has_pty:
            self.refuse(
                session,
                "no terminal",
                "Passe needs a terminal: connect with `ssh -t` (and a command) or plain `ssh`.",
            )
            return
        planned = self.plan(request.command, player_name(session.identity.user))
        if isinstance(planned, str):
            self.refuse(session, f"command {shown(request.command or '')}", planned)
            return
        if len(self.sessions) >= self.options.max_sessions:
            limit = self.options.max_sessions
            self.refuse(
                session,
                f"server full ({limit} sessions)",
                f"Passe: {server_full(limit)}",
            )
            return
        arguments, label = planned
        directory, throw_away = self.claim_directory(session.identity)
        self.sessions.add(session)
        try:
            argv = [sys.executable, "-P", "-m", "tui.cli", *arguments]
            environment = self.environment(request, session.identity, directory)
            await session.start_child(argv, environment, directory)
            assert session.process is not None
            columns, rows = request.size
            log.info(
                "session %d start: %s, %s, %dx%d %s, pid %d",
                session.number,
                session.identity.describe(),
                label,
                columns,
                rows,
                shown(request.term_type),
                session.process.pid,
            )
            session.watch_idle(self.options.idle_timeout)
            code = await session.wait_child()
            seconds = time.monotonic() - session.started_at
            reason = session.end_reason or f"app exited with {code}"
            farewell = session.farewell
            if code < 0 and not farewell:  # killed, not by us: say so, not a blank screen
                farewell = stopped_farewell(-code, session.COME_BACK)
            session.finish(exit_status(code), farewell, restore=code < 0)
            log.info("session %d end: %s after %.1f s", session.number, reason, seconds)
        finally:
            self.sessions.discard(session)
            self.release_directory(directory, throw_away)

    async def shutdown(self) -> None:
        """End every session's app (they are saved after every move)."""
        for session in list(self.sessions):
            session.end_reason = "server stopped"
            session.farewell = "Passe: the server is stopping; a game in progress is saved."
            self.spawn(session.stop_child(signal.SIGHUP))
        pending = [s.task for s in self.sessions if s.task is not None]
        if pending:
            await asyncio.wait(pending, timeout=10)


class PasseSSHServer(asyncssh.SSHServer):
    """One connection's authentication; its sessions go to the hub."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.connection: asyncssh.SSHServerConnection | None = None
        self.peer = ("?", 0)
        self.user = ""
        self.offered_key: asyncssh.SSHKey | None = None
        self.key: asyncssh.SSHKey | None = None
        self.logged_in = False
        self.asked_for_session = False

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.connection = conn
        peer = conn.get_extra_info("peername")
        if peer:
            self.peer = (str(peer[0]), int(peer[1]))

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.logged_in and self.user:
            why = "key not authorized" if self.hub.authorized is not None else "login failed"
            log.info("refused user %s from %s: %s", shown(self.user), self.peer[0], why)

    def begin_auth(self, username: str) -> bool:
        self.user = username
        return True  # always ask, so that a client with a key shows it

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        authorized = self.hub.authorized
        if authorized is not None and authorized.validate(key, *self.peer_host_addr()) is None:
            return False
        # asyncssh verifies the signature right after this returns True and
        # succeeds at once, so the key of a success is the last one seen here.
        self.offered_key = key
        return True

    def peer_host_addr(self) -> tuple[str, str]:
        return self.peer[0], self.peer[0]

    def kbdint_auth_supported(self) -> bool:
        return self.hub.authorized is None  # open guest mode: no key needed

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        self.offered_key = None  # logged in without a key
        return True  # no question asked

    def password_auth_supported(self) -> bool:
        # For clients that know no keyboard-interactive login: in open guest
        # mode any password (an empty one too) is accepted.
        return self.hub.authorized is None

    def validate_password(self, username: str, password: str) -> bool:
        self.offered_key = None  # logged in without a key
        return self.hub.authorized is None

    def auth_completed(self) -> None:
        self.logged_in = True
        self.key = self.offered_key
        # A login that never asks for a session would hold a connection for
        # ever without counting against --max-sessions: give it the login time.
        asyncio.get_running_loop().call_later(LOGIN_TIMEOUT, self._close_if_no_session)

    def _close_if_no_session(self) -> None:
        if not self.asked_for_session and self.connection is not None:
            log.info(
                "refused user %s from %s: no session asked for", shown(self.user), self.peer[0]
            )
            self.connection.close()

    def session_requested(self) -> PasseSession:
        assert self.connection is not None
        self.asked_for_session = True
        identity = Identity(
            user=self.user,
            key=fingerprint(self.key) if self.key is not None else None,
            peer=self.peer[0],
        )
        return PasseSession(self.hub, self.connection, identity)


def _read_authorized_keys(path: Path) -> asyncssh.SSHAuthorizedKeys:
    try:
        return asyncssh.read_authorized_keys(str(path))
    except (OSError, ValueError, asyncssh.KeyImportError) as error:
        raise SystemExit(f"passe: cannot read authorized keys {path}: {error}") from None


# Seconds the server may take to stop (every app gets SIGHUP and up to 10 s,
# Hub.shutdown) before it ends anyway; a second signal ends it at once.
STOP_GRACE = 15.0


async def wait_for_stop(shutdown: Shutdown | None, ready: asyncio.Event | None) -> None:
    """Until SIGINT, or SIGTERM (with ``shutdown``: SIGTERM and SIGHUP, and
    the server's own terminal or log pipe gone, issue 24, stopped as on
    SIGTERM, bounded by STOP_GRACE); ``ready`` is set once listening. The
    SSH and the web server stop alike."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, stop.set)
    if shutdown is not None:
        shutdown.install(loop, lambda signum: stop.set(), (1, 2))
        watch_streams(shutdown, (1, 2))
    else:
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    if ready is not None:
        ready.set()
    await stop.wait()


async def serve(
    options: ServeOptions,
    *,
    ready: asyncio.Event | None = None,
    shutdown: Shutdown | None = None,
) -> int:
    authorized = _read_authorized_keys(options.authorized_keys) if options.authorized_keys else None
    host_key = load_or_create_host_key()
    hub = Hub(options, authorized)
    hub.remove_stale_guest_directories()
    try:
        server = await asyncssh.create_server(
            lambda: PasseSSHServer(hub),
            options.bind,
            options.port,
            server_host_keys=[host_key],
            encoding=None,
            line_editor=False,
            x11_forwarding=False,
            agent_forwarding=False,
            allow_scp=False,
            keepalive_interval=KEEPALIVE_SECONDS,
            keepalive_count_max=KEEPALIVE_COUNT,
            login_timeout=LOGIN_TIMEOUT,
        )
    except OSError as error:
        print(f"passe: cannot listen on port {options.port}: {error}", file=sys.stderr)
        return 1
    port = server.sockets[0].getsockname()[1] if server.sockets else options.port
    hub.port = port
    access = (
        f"only the keys in {options.authorized_keys}"
        if options.authorized_keys
        else "open guest mode: any user name, no password"
    )
    print(
        f"Passe SSH server listening on {options.bind or 'all addresses'} port {port}\n"
        f"Host key: {fingerprint(host_key)}\n"
        f"Access: {access}; at most {options.max_sessions} sessions"
        + (f", idle timeout {options.idle_timeout:g} s" if options.idle_timeout > 0 else "")
        + f"\nGuests connect with: ssh -p {port} HOST   (or: ssh -t -p {port} HOST join CODE)",
        flush=True,
    )
    try:
        await wait_for_stop(shutdown, ready)
    finally:
        log.info("server stopping: %d sessions", len(hub.sessions))
        server.close()
        await hub.shutdown()
        with contextlib.suppress(Exception):
            await server.wait_closed()
    # A stop that was asked for (SIGTERM, SIGINT) is a success; a hangup is
    # reported as one (128 + SIGHUP).
    if shutdown is not None and shutdown.signum == signal.SIGHUP:
        return shutdown.code
    return 0


def run(options: ServeOptions) -> int:
    shutdown = Shutdown(grace=STOP_GRACE)
    guard_standard_streams(shutdown)  # before logging takes sys.stderr
    # Log lines quote user names and room codes from guests (issue 19).
    safe_logging(logging.INFO, "%(asctime)s %(levelname)s %(message)s")
    logging.getLogger("asyncssh").setLevel(logging.WARNING)  # ours is one line per event
    return asyncio.run(serve(options, shutdown=shutdown))
