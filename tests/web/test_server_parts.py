"""``passe serve --web`` without a browser: its websocket and pages driven by
aiohttp's client (what a hostile client would send, byte for byte), and the
parts that need no server. The real-browser tests are test_page.py and
test_networked.py."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiohttp
import pytest

from tests.ssh.conftest import DEADLINE, process_environment
from tests.web.conftest import WebServer
from tui.cli import main
from tui.serve.web import PLAYER_COOKIE, valid_player_id, web_identity

HOME_TEXT = b"three games"


def test_only_player_ids_as_the_server_makes_them_name_a_directory() -> None:
    good = "a" * 43
    assert valid_player_id(good)
    for bad in (None, "", "a" * 42, "a" * 44, "../" + "a" * 40, "a" * 42 + "/", "é" * 43):
        assert not valid_player_id(bad), bad
    identity = web_identity(good, "127.0.0.1")
    # Neither the log line nor the directory carries the id (the player's secret).
    assert good not in identity.describe() and good not in identity.directory_name
    assert identity.directory_name.startswith("key-")
    assert web_identity(good, "10.0.0.9").directory_name == identity.directory_name


class Guest:
    """A websocket session with what a browser keeps: the two cookies."""

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.session = session
        self.base = base
        self.received = bytearray()
        self.socket: aiohttp.ClientWebSocketResponse | None = None

    async def open_page(self, url: str) -> int:
        async with self.session.get(url) as response:
            await response.read()
            return response.status

    async def connect(self, **headers: str) -> None:
        self.received.clear()
        self.socket = await self.session.ws_connect(
            self.base + "ws?width=80&height=24", headers=headers
        )

    async def send(self, *message: object) -> None:
        assert self.socket is not None
        await self.socket.send_str(json.dumps(list(message)))

    async def wait_for(self, data: bytes) -> None:
        """Until the terminal's output holds ``data``, or the socket closes."""
        assert self.socket is not None
        deadline = time.monotonic() + DEADLINE
        while data not in self.received:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no {data!r} in ...{bytes(self.received[-300:])!r}"
            message = await self.socket.receive(timeout=remaining)
            if message.type == aiohttp.WSMsgType.BINARY:
                self.received += message.data
            elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                tail = bytes(self.received[-300:])
                assert data in self.received, f"closed before {data!r}: ...{tail!r}"


def environment_of(web: WebServer, number: int) -> dict[str, str]:
    """The environment of session ``number``'s app (from 1)."""
    return process_environment(web.server.session_pids()[number - 1])


@pytest.fixture
async def guests() -> AsyncIterator[Callable[[WebServer], Guest]]:
    sessions: list[aiohttp.ClientSession] = []

    def make(web: WebServer) -> Guest:
        session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        sessions.append(session)
        return Guest(session, web.base)

    yield make
    for session in sessions:
        await session.close()


async def admitted(make: Callable[[WebServer], Guest], web: WebServer) -> Guest:
    guest = make(web)
    assert await guest.open_page(web.url) == 200  # the token's link, then the page
    return guest


async def test_a_reload_gets_the_same_directory_a_second_tab_a_throw_away_one(
    start_web_server: Callable[..., WebServer], guests: Callable[[WebServer], Guest]
) -> None:
    web = start_web_server()
    ada = await admitted(guests, web)
    await ada.connect()
    await ada.wait_for(HOME_TEXT)
    first = environment_of(web, 1)
    directory = Path(first["PASSE_CONFIG_DIR"])
    assert directory.parent == web.server.data_dir / "web" / "players"
    assert first["PASSE_PLAYER_KEY"].startswith("browser:")
    assert first["TEXTUAL_DRIVER"] == "tui.web_driver:PasseWebDriver"
    assert "PASSE_SSH_PORT" not in first and first["PASSE_WEB"] == "1"
    # A second tab of the same browser while the first is open: its own files.
    second_tab = Guest(ada.session, web.base)
    await second_tab.connect()
    await second_tab.wait_for(HOME_TEXT)
    assert Path(environment_of(web, 2)["PASSE_CONFIG_DIR"]).parent.name == "guests"
    # A reload: the old tab's socket closes, the new one gets the player's own.
    assert ada.socket is not None
    await ada.socket.close()
    await ada.connect()
    await ada.wait_for(HOME_TEXT)
    await web.server.wait_log(r"session 1 end: browser disconnected")
    assert Path(environment_of(web, 3)["PASSE_CONFIG_DIR"]) == directory


async def test_limits_and_refusals_are_told_and_logged(
    start_web_server: Callable[..., WebServer], guests: Callable[[WebServer], Guest]
) -> None:
    web = start_web_server("--max-sessions", "1", "--idle-timeout", "3")
    ada = await admitted(guests, web)
    # A websocket opened by another site's page is refused.
    with pytest.raises(aiohttp.WSServerHandshakeError):
        await ada.connect(Origin="http://elsewhere.example")
    await web.server.wait_log(r"refused browser from 127.0.0.1: websocket from another site")
    await ada.connect()
    await ada.wait_for(HOME_TEXT)
    # Full: the page says so, and so does a websocket that comes anyway.
    bruno = guests(web)
    async with bruno.session.get(web.url) as response:
        assert response.status == 503
        assert "The server is full (1 player)" in await response.text()
    await web.server.wait_log(r"refused browser from 127.0.0.1: server full \(1 sessions\)")
    extra = Guest(ada.session, web.base)
    await extra.connect()
    await extra.wait_for(b"the server is full (1 player)")
    await web.server.wait_log(r"refused user 'browser' key browser:\S+ from .*: server full")
    # Idle: no key for 3 s ends the session, with a line in its terminal.
    await ada.wait_for(b"disconnected after 3 seconds without a key press")
    await web.server.wait_log(r"session 1 end: idle for 3 s after")


async def test_hostile_messages_change_nothing(
    start_web_server: Callable[..., WebServer], guests: Callable[[WebServer], Guest]
) -> None:
    web = start_web_server()
    ada = await admitted(guests, web)
    ada.session.cookie_jar.update_cookies({PLAYER_COOKIE: "../../etc"})  # not an id
    await ada.connect()
    await ada.wait_for(HOME_TEXT)
    assert ada.socket is not None
    # Nested past the parser's depth: RecursionError, not a ValueError.
    deep = "[" * 5_000 + "]" * 5_000
    for text in ("not json", "{}", "[]", "[1, 2]", '["stdin", 5]', '["resize", "big"]', deep):
        await ada.socket.send_str(text)
    await ada.send("resize", {"width": "x", "height": 10**12})
    await ada.send("resize", {"width": True, "height": None})
    await ada.send("ping", "x" * 10_000)
    await ada.socket.send_bytes(b"\x00\xff binary")
    await ada.send("stdin", "r")  # the rules: the app is alive and reads keys
    await ada.wait_for(b"Rules of Pass Pass")
    await ada.socket.close()
    await web.server.wait_log(r"session 1 end: browser disconnected")
    log = web.server.log()
    assert "Traceback" not in log and "ERROR" not in log, log
    # The bad cookie named nothing: a fresh id's directory, by its hash.
    players = web.server.data_dir / "web" / "players"
    assert [path.name[:4] for path in players.iterdir()] == ["key-"]


def test_the_web_server_does_not_load_textual() -> None:
    """As the SSH server: Textual's memory belongs to the sessions."""
    code = "import sys, tui.serve.web, tui.cli; print('textual' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        (["--web", "--authorized-keys", "keys"], "--authorized-keys is for --ssh"),
        (["--ssh", "--open"], "--open is for --web"),
    ],
)
def test_options_of_the_other_protocol_are_usage_errors(
    arguments: list[str], complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", *arguments]) == 2
    assert complaint in capsys.readouterr().err


def test_both_protocols_at_once_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--ssh", "--web"])
    assert stopped.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


async def test_open_access_asks_no_token(
    start_web_server: Callable[..., WebServer], guests: Callable[[WebServer], Guest]
) -> None:
    web = start_web_server("--open")
    assert "token" not in web.url
    guest = guests(web)
    assert await guest.open_page(web.base) == 200
    await guest.connect()
    await guest.wait_for(HOME_TEXT)


async def test_a_server_stop_ends_every_session_with_a_word(
    start_web_server: Callable[..., WebServer], guests: Callable[[WebServer], Guest]
) -> None:
    web = start_web_server()
    ada = await admitted(guests, web)
    await ada.connect()
    await ada.wait_for(HOME_TEXT)
    web.server.process.send_signal(signal.SIGTERM)
    await ada.wait_for(b"the server is stopping; a game in progress is saved")
    await web.server.wait_log(r"session 1 end: server stopped after")
    assert web.server.process.wait(timeout=DEADLINE) == 0
