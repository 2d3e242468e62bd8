"""``passe serve --web``: the game table in a browser, served by the Textualize
project's textual-serve (``docs/web.md``).

Each browser tab's websocket gets its own ``passe`` process
(:class:`~tui.serve.web_session.WebSession`), run by Textual's web driver; the
browser shows its terminal with xterm.js (textual-serve's page script). What
the SSH server decides for a guest, the same :class:`~tui.serve.server.Hub`
decides here: the player's directory, the app's environment and arguments,
the limits, the stop. This module adds what a browser needs:

- **access**: a random token in the printed URL (as Jupyter does), compared in
  constant time, then kept in an HttpOnly cookie; ``--open`` asks none;
- **identity**: a random player id in a second cookie, made on the first
  visit and checked (length, characters) before it names anything; it plays
  the part of an SSH key (its hash names the player's directory), so a guest
  who reloads the page finds their settings, saved game and seat again;
- **refusals** as short pages (or, for a websocket, a line in the terminal),
  never a traceback; one log line per session start, end and refusal.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import html
import json
import logging
import secrets
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp_jinja2
from aiohttp import WSMsgType, web
from textual_serve.server import Server

from net.protocol.text import safe_logging
from tui.netplay import WEB_ENV
from tui.serve.identity import Identity, shown
from tui.serve.server import Hub, ServeOptions, exit_status, server_full, wait_for_stop
from tui.serve.session import Request, stopped_farewell
from tui.serve.web_session import WebSession, terminal_line
from tui.terminal import Shutdown, guard_standard_streams

log = logging.getLogger("passe.serve")

DEFAULT_WEB_PORT = 8000
TOKEN_COOKIE = "passe_token"
PLAYER_COOKIE = "passe_player"
# secrets.token_urlsafe(32): 43 characters of the URL-safe base64 alphabet.
PLAYER_ID = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
PLAYER_ID_LENGTH = 43
TOKEN_BYTES = 24
COOKIE_SECONDS = 400 * 24 * 3600  # the longest a browser keeps a cookie
# What a browser may send on its websocket: keys, a resize, a ping. Far
# more than a paste of keys; aiohttp closes the socket on a bigger message.
MAX_MESSAGE = 64 * 1024
MAX_CELLS = 1000  # a terminal's columns or rows, as over SSH
# Seconds a new session of a player waits for their previous one to end
# (a reload: the old tab's app saves and leaves before the new one starts).
PREVIOUS_SESSION_WAIT = 6.0
TEMPLATES = Path(__file__).with_name("templates")
# The app's driver, named for Textual's TEXTUAL_DRIVER (not imported: the
# server never loads Textual, whose memory belongs to the sessions).
DRIVER_IMPORT = "tui.web_driver:PasseWebDriver"
REQUEST_KEY = web.AppKey("passe_identity", Identity)


def valid_player_id(value: str | None) -> bool:
    """A player id as this server makes them, and nothing else: it becomes
    (hashed) a directory name, so it is checked before it is used."""
    return (
        value is not None
        and len(value) == PLAYER_ID_LENGTH
        and all(character in PLAYER_ID for character in value)
    )


def web_identity(player_id: str, peer: str) -> Identity:
    """The browser's identity: its player id hashed, never the id itself
    (the id is the secret that proves the player; logs and the app's
    environment see only the hash, as they see an SSH key's fingerprint)."""
    digest = hashlib.sha256(player_id.encode("ascii")).hexdigest()[:32]
    return Identity(user="browser", key=f"browser:{digest}", peer=peer)


def refusal_page(status: int, title: str, text: str) -> web.Response:
    """A short page that says why, and nothing of the server."""
    body = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>Passe: {html.escape(title)}</title>"
        "<style>body{background:#0c181f;color:#eee;font-family:monospace;"
        "max-width:40em;margin:3em auto;padding:0 1em;line-height:1.5}</style>"
        f"</head><body><h1>Passe: {html.escape(title)}</h1><p id='why'>{html.escape(text)}</p>"
        "</body></html>"
    )
    return web.Response(status=status, text=body, content_type="text/html")


def _to_cells(value: object, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return default
    try:
        number = int(value)
    except ValueError:
        return default
    return min(max(number, 1), MAX_CELLS)


class PasseWebServer(Server):
    """textual-serve's ``Server``, with Passe's access, identity, sessions and
    limits; its routes, static files (xterm.js and the page script) and
    packet protocol are the library's."""

    def __init__(self, options: ServeOptions, token: str | None = None) -> None:
        super().__init__(
            "passe",
            host=options.bind or "0.0.0.0",
            port=options.port,
            title="Passe",
            templates_path=TEMPLATES,
        )
        self.options = options
        self.token = token if token is not None else secrets.token_urlsafe(TOKEN_BYTES)
        self.hub = Hub(options, None, protocol="web")
        self.live: dict[str, set[WebSession]] = {}  # directory name -> its player's sessions

    # -- the aiohttp application -------------------------------------------------

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self.guard)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """The library prints its logo here; Passe prints its banner in :func:`serve`."""

    @web.middleware
    async def guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Every request: the token (unless ``--open``), a websocket from this
        server's own page only; any failure a page, never a traceback."""
        peer = request.remote or "?"
        counted = request.path in ("/", "/ws")  # a page or a session: logged
        try:
            if not self.options.open_access:
                given = request.query.get("token")
                if given is not None and request.path == "/":
                    if not self._is_token(given):
                        return self._refuse(peer, "wrong token", counted)
                    # Kept in a cookie, and out of the address bar (and of
                    # the history) from now on.
                    moved = web.HTTPSeeOther("/")
                    self._with_cookie(moved, TOKEN_COOKIE, self.token)
                    raise moved
                if not self._is_token(request.cookies.get(TOKEN_COOKIE)):
                    return self._refuse(peer, "no token", counted)
            if request.path == "/ws" and not self._same_origin(request):
                log.info("refused browser from %s: websocket from another site", peer)
                return refusal_page(
                    403, "not from this page", "A table opens from its own page only."
                )
            return await handler(request)
        except web.HTTPException:
            raise
        except Exception:
            log.exception("request %s from %s failed", shown(request.path), peer)
            return refusal_page(500, "server error", "This request failed on the server.")

    def _is_token(self, given: str | None) -> bool:
        if given is None or len(given) > 256:
            return False
        return hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode("ascii"))

    def _refuse(self, peer: str, reason: str, logged: bool) -> web.Response:
        if logged:
            log.info("refused browser from %s: %s", peer, reason)
        return refusal_page(
            403,
            "this table needs its link",
            "Open the address the host gave you, with its token "
            "(http://HOST:PORT/?token=...), as it was printed when the server started.",
        )

    @staticmethod
    def _same_origin(request: web.Request) -> bool:
        """A websocket opened by this server's page: its Origin, when the
        browser sends one (they all do), is the address it asked for."""
        origin = request.headers.get("Origin")
        if origin is None:
            return True
        return urlsplit(origin).netloc == request.host

    @staticmethod
    def _with_cookie(response: web.StreamResponse, name: str, value: str) -> web.StreamResponse:
        response.set_cookie(
            name, value, max_age=COOKIE_SECONDS, httponly=True, samesite="Strict", path="/"
        )
        return response

    # -- the page ---------------------------------------------------------------------

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        peer = request.remote or "?"
        if len(self.hub.sessions) >= self.options.max_sessions:
            return self._full(peer)
        response = aiohttp_jinja2.render_template(
            "index.html", request, {"title": "Passe", "static": "/static/"}
        )
        response.headers["Cache-Control"] = "no-store"
        if not valid_player_id(request.cookies.get(PLAYER_COOKIE)):
            self._with_cookie(response, PLAYER_COOKIE, secrets.token_urlsafe(32))
        return response

    def _full(self, peer: str) -> web.Response:
        limit = self.options.max_sessions
        log.info("refused browser from %s: server full (%d sessions)", peer, limit)
        return refusal_page(
            503,
            "the table is full",
            server_full(limit).capitalize(),
        )

    # -- a session ------------------------------------------------------------------------

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        await websocket.prepare(request)
        peer = request.remote or "?"
        player_id = request.cookies.get(PLAYER_COOKIE)
        if not valid_player_id(player_id):
            # No cookie (refused by the browser): a visit with no memory.
            player_id = secrets.token_urlsafe(32)
        assert player_id is not None
        identity = web_identity(player_id, peer)
        await self._wait_for_previous(identity)
        if len(self.hub.sessions) >= self.options.max_sessions:
            limit = self.options.max_sessions
            log.info("refused %s: server full (%d sessions)", identity.describe(), limit)
            await self._tell(websocket, f"Passe: {server_full(limit)}")
            await websocket.close()
            return websocket
        directory, throw_away = self.hub.claim_directory(identity)
        session = WebSession(
            self.hub.next_session_number(),
            identity,
            directory,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
        )
        session.browser_closed = lambda: websocket.closed
        session.task = asyncio.current_task()
        self.hub.sessions.add(session)
        self.live.setdefault(identity.directory_name, set()).add(session)
        try:
            await self._run(websocket, request, session)
        except Exception:
            # One broken session must not take the server down, nor show a
            # traceback: log it, stop its app, tell the browser, as over SSH.
            log.exception("session %d failed", session.number)
            await session.stop_child(signal.SIGTERM)
            await self._tell(websocket, "Passe: this session failed on the server; please reload.")
            await websocket.close()
        finally:
            session.cancel_idle()
            self.hub.sessions.discard(session)
            self.hub.release_directory(directory, throw_away)
            session.ended.set()
            mine = self.live.get(identity.directory_name, set())
            mine.discard(session)
            if not mine:
                self.live.pop(identity.directory_name, None)
        return websocket

    async def _wait_for_previous(self, identity: Identity) -> None:
        """A reload closes the old tab's websocket just before the new one
        opens: let that app save and leave first, so the player gets their
        own directory (and game, and seat) back rather than a throw-away one.
        A second tab still open is another matter: it keeps its directory."""
        ending = [
            session.ended.wait()
            for session in self.live.get(identity.directory_name, ())
            if session.end_reason or session.browser_closed()
        ]
        if ending:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*ending), PREVIOUS_SESSION_WAIT)

    async def _run(
        self, websocket: web.WebSocketResponse, request: web.Request, session: WebSession
    ) -> None:
        width = _to_cells(request.query.get("width"), 80)
        height = _to_cells(request.query.get("height"), 24)
        planned = self.hub.plan(None, None)
        assert not isinstance(planned, str)
        arguments, label = planned
        terminal = Request(term_type="xterm-256color", size=(width, height), has_pty=True)
        environment = self.hub.environment(terminal, session.identity, session.directory)
        environment.update(
            {
                # What textual-serve's AppService sets for Textual's web driver,
                # with Passe's driver (tui/web_driver.py) in place of Textual's.
                "TEXTUAL_DRIVER": DRIVER_IMPORT,
                "TEXTUAL_FPS": "60",
                "TEXTUAL_COLOR_SYSTEM": "truecolor",
                "TERM_PROGRAM": "textual",
                WEB_ENV: "1",
            }
        )
        session.argv = [sys.executable, "-P", "-m", "tui.cli", *arguments]
        session.environment = environment
        await session.start(width, height)
        log.info(
            "session %d start: %s, %s, %dx%d browser, pid %d",
            session.number,
            session.identity.describe(),
            label,
            width,
            height,
            session.pid,
        )
        session.watch_idle(self.options.idle_timeout)
        try:
            await self._process_messages(websocket, session)
        finally:
            if not session.end_reason and not session.app_exited:
                session.end_reason = "browser disconnected"
            await session.stop()
            code = session.returncode if session.returncode is not None else 0
            reason = session.end_reason or f"app exited with {code}"
            farewell = session.farewell
            if code < 0 and not farewell:
                farewell = stopped_farewell(-code, session.COME_BACK)
            if farewell and not websocket.closed:
                await self._tell(websocket, farewell)
                await websocket.close()
            seconds = time.monotonic() - session.started_at
            log.info(
                "session %d end: %s after %.1f s (status %d)",
                session.number,
                reason,
                seconds,
                exit_status(code),
            )

    async def _process_messages(  # type: ignore[override]
        self, websocket: web.WebSocketResponse, app_service: WebSession
    ) -> None:
        """The library's loop over the browser's messages, with every
        message checked (the library trusts them: a malformed one raised
        in the server, a resize to a string reached the app)."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except (ValueError, RecursionError):  # "[[[[…" nested past the parser's depth
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind = envelope[0]
            data = envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                await app_service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                width = _to_cells(data.get("width"), 80)
                height = _to_cells(data.get("height"), 24)
                await app_service.set_terminal_size(width, height)
            elif kind == "ping" and isinstance(data, str):
                await websocket.send_json(["pong", data[:32]])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    @staticmethod
    async def _tell(websocket: web.WebSocketResponse, text: str) -> None:
        """A line in the browser's terminal (the page shows it under the
        "session ended" box)."""
        with contextlib.suppress(ConnectionError, RuntimeError):
            await websocket.send_bytes(terminal_line(text))

    async def shutdown(self) -> None:
        await self.hub.shutdown()


def banner(options: ServeOptions, port: int, token: str) -> str:
    where = options.bind if options.bind not in ("", "0.0.0.0", "::") else "HOST"
    query = "" if options.open_access else f"/?token={token}"
    access = (
        "open: no token asked (a trusted LAN only)"
        if options.open_access
        else "the link's token (keep it for the guests you invite)"
    )
    limits = f"at most {options.max_sessions} sessions"
    if options.idle_timeout > 0:
        limits += f", idle timeout {options.idle_timeout:g} s"
    return (
        f"Passe web server listening on {options.bind or 'all addresses'} port {port}\n"
        f"Access: {access}; {limits}\n"
        f"Guests open: http://{where}:{port}{query}"
    )


# Seconds the server may take to stop (as the SSH server's STOP_GRACE).
STOP_GRACE = 15.0


async def serve(
    options: ServeOptions,
    *,
    token: str | None = None,
    ready: asyncio.Event | None = None,
    shutdown: Shutdown | None = None,
) -> int:
    server = PasseWebServer(options, token)
    server.hub.remove_stale_guest_directories()
    runner = web.AppRunner(await server._make_app(), handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, options.bind or None, options.port)
    try:
        await site.start()
    except OSError as error:
        await runner.cleanup()
        print(f"passe: cannot listen on port {options.port}: {error}", file=sys.stderr)
        return 1
    port = _listening_port(site) or options.port
    server.hub.port = port
    print(banner(options, port, server.token), flush=True)
    try:
        await wait_for_stop(shutdown, ready)
    finally:
        log.info("server stopping: %d sessions", len(server.hub.sessions))
        await site.stop()
        await server.shutdown()
        with contextlib.suppress(Exception):
            await runner.cleanup()
    if shutdown is not None and shutdown.signum == signal.SIGHUP:
        return shutdown.code
    return 0


def _listening_port(site: web.TCPSite) -> int | None:
    server: Any = site._server  # aiohttp keeps the asyncio server there
    if server is None or not server.sockets:
        return None
    return int(server.sockets[0].getsockname()[1])


def run(options: ServeOptions) -> int:
    shutdown = Shutdown(grace=STOP_GRACE)
    guard_standard_streams(shutdown)
    safe_logging(logging.INFO, "%(asctime)s %(levelname)s %(message)s")
    logging.getLogger("aiohttp").setLevel(logging.WARNING)  # ours is one line per event
    logging.getLogger("textual-serve").setLevel(logging.WARNING)
    return asyncio.run(serve(options, shutdown=shutdown))


__all__ = ["DEFAULT_WEB_PORT", "PasseWebServer", "banner", "run", "serve", "valid_player_id"]
