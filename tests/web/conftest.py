"""Acceptance rig for ``passe serve --web``: the real server in a subprocess
(tests/ssh/conftest.py's ``launch_server``), Debian's ``chromium`` driven
headless by Playwright (never a downloaded browser build), and the screen
read from xterm.js's own buffer in the page.

The page's terminal object is local to textual-serve's script; an init script
(bench/web.py's ``TERMINAL_HOOK``) catches it as it is built, and pushes the
screen's text to the test after every write xterm.js has parsed.
:class:`BrowserTerminal` keeps that text and offers the waits of the SSH
rig's ``Terminal``, so ``play_passpass_to_end`` plays a browser seat
as it plays an SSH one. Nothing sleeps to synchronise.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from bench.web import CHROMIUM, TERMINAL_HOOK
from tests.ssh.conftest import (  # clients, start_server: the SSH rig's fixtures, here too
    DEADLINE,
    Client,
    ScreenWaits,
    Server,
    clients,  # noqa: F401
    launch_server,
    start_server,  # noqa: F401
)

TOKEN = re.compile(r"Guests open: (http://\S+)")

# Runs in the page before textual-serve's script (bench/web.py's hook, which
# catches the terminal object): report the screen after each parsed write
# and resize, and the page's "session ended".
HOOK = (
    TERMINAL_HOOK
    + """
window.__passeTerminalCaught = (terminal) => {
  let queued = false;
  const report = () => {
    queued = false;
    window.passeScreen(window.passeScreenText(), terminal.cols, terminal.rows);
  };
  const soon = () => { if (!queued) { queued = true; setTimeout(report, 0); } };
  terminal.onWriteParsed(soon);
  terminal.onResize(soon);
  new MutationObserver(() => {
    if (document.body.classList.contains("-closed")) window.passeClosed();
  }).observe(document.body, { attributes: true });
};
"""
)

# What Client.send's strings mean as keys on a keyboard.
KEYS = {"\r": "Enter", "\x1b": "Escape", "\t": "Tab", "\x7f": "Backspace"}


def need_chromium() -> None:
    """Skip (locally) or fail (CI) without the system browser and Playwright."""
    reason = ""
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        reason = "Debian's chromium is not installed (apt-get install chromium chromium-driver)"
    else:
        try:
            import playwright  # noqa: F401
        except ImportError:
            reason = "the playwright package is not installed (make .venv/.installed-dev)"
    if not reason:
        return
    if os.environ.get("CI") == "true":  # .ci/run installs it: missing there is a failure
        pytest.fail(reason + " (CI must install it: see .ci/run)")
    pytest.skip(reason)


class BrowserTerminal(ScreenWaits):
    """The SSH rig's ``Terminal`` API over what the page reports."""

    def __init__(self) -> None:
        self.screen_text = ""
        self.columns = 0
        self.rows = 0
        self.closed = False
        self.changed = asyncio.Event()

    def update(self, text: str, columns: int, rows: int) -> None:
        self.screen_text, self.columns, self.rows = text, columns, rows
        self.changed.set()

    def end(self) -> None:
        self.closed = True
        self.changed.set()

    def text(self) -> str:
        return self.screen_text

    def line(self, row: int) -> str:
        lines = self.screen_text.split("\n")
        return lines[row] if row < len(lines) else ""


class BrowserClient(Client):
    """One browser tab on the table (a Playwright page)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.terminal = BrowserTerminal()  # type: ignore[assignment]

    @classmethod
    async def open(cls, context: Any, url: str) -> BrowserClient:
        page = await context.new_page()
        client = cls(page)
        terminal = cast(BrowserTerminal, client.terminal)  # as __init__ made it
        await page.expose_function("passeScreen", terminal.update)
        await page.expose_function("passeClosed", terminal.end)
        await page.goto(url)
        return client

    async def focus(self) -> None:
        """Keys go where a person's would after tapping the terminal: its
        input element (a click would also be a mouse click in the app)."""
        await self.page.focus(".xterm-helper-textarea")

    async def send(self, keys: str) -> None:
        await self.focus()
        for key in keys:
            if key in KEYS:
                await self.page.keyboard.press(KEYS[key])
            else:
                await self.page.keyboard.type(key)

    async def press(self, key: str) -> None:
        """A key by its browser name (``Control+p``, ``F1``, ``ArrowLeft``)."""
        await self.focus()
        await self.page.keyboard.press(key)

    async def resize(self, columns: int, rows: int) -> None:
        raise NotImplementedError("a browser tab is resized by its window (set_viewport_size)")

    async def exit_status(self, timeout: float = DEADLINE) -> int:
        await self.terminal.wait(lambda: self.terminal.closed, "the session to end", timeout)
        return 0


def token_url(banner: str) -> str:
    found = TOKEN.search(banner)
    assert found, banner
    return found.group(1)


class WebServer:
    def __init__(self, server: Server, url: str) -> None:
        self.server = server
        self.url = url  # with its token, as printed

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.port}/"


@pytest.fixture
def start_web_server(tmp_path: Path) -> Iterator[Callable[..., WebServer]]:
    """Start ``passe serve --web`` (stopped at the end)."""
    started: list[WebServer] = []

    def start(
        *arguments: str, seed: int = 11, environment: dict[str, str] | None = None
    ) -> WebServer:
        server, banner = launch_server(
            tmp_path, len(started), "--web", *arguments, seed=seed, environment=environment
        )
        web = WebServer(server, token_url(banner))
        started.append(web)
        return web

    yield start
    for web in started:
        web.server.stop()


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    """Debian's chromium, headless, through Playwright."""
    need_chromium()
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            await launched.close()


async def new_context(browser: Any, width: int = 1000, height: int = 640) -> Any:
    """A browser profile of its own (its own cookies), with the hook."""
    context = await browser.new_context(viewport={"width": width, "height": height})
    await context.add_init_script(HOOK)
    return context
