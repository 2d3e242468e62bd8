"""One browser session of ``passe serve --web``: a ``passe`` process that
textual-serve's :class:`~textual_serve.app_service.AppService` talks to
through Textual's web driver (packets on the app's stdin and stdout), with
what the SSH sessions have too: its own player directory and environment,
an idle timeout, a bounded stop. ``docs/web.md`` says why it is a subclass
and which of the library's methods it replaces.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from tui.serve.identity import Identity
from tui.serve.session import GRACE_SECONDS, IdleWatch, stop_process

log = logging.getLogger("passe.serve")


def terminal_line(text: str) -> bytes:
    """``text`` on a cleared screen of the browser's terminal (the page shows
    it under its "session ended" box)."""
    return b"\x1b[2J\x1b[H\x1b[?25h" + text.encode("utf-8", "replace") + b"\r\n"


class WebSession(AppService, IdleWatch):
    """A browser's ``passe``: started with exactly ``argv``, ``environment``
    and ``directory`` (never a shell, never the server's environment, which
    the library's ``AppService`` would pass whole), ended within bounds."""

    COME_BACK = "reload the page"

    def __init__(
        self,
        number: int,
        identity: Identity,
        directory: Path,
        *,
        write_bytes: Callable[[bytes], Awaitable[None]],
        write_str: Callable[[str], Awaitable[None]],
        close: Callable[[], Awaitable[object]],
        download_manager: DownloadManager,
    ) -> None:
        super().__init__(
            "passe",  # a label only: _open_app_process runs self.argv
            write_bytes=write_bytes,
            write_str=write_str,
            close=close,  # type: ignore[arg-type]  # aiohttp's close returns a bool
            download_manager=download_manager,
        )
        self.number = number
        self.identity = identity
        self.directory = directory
        self.argv: list[str] = []
        self.environment: dict[str, str] = {}
        self.started_at = 0.0
        self.last_input = time.monotonic()
        self.end_reason = ""
        self.app_exited = False  # the app said it exits (before the websocket closed)
        self.farewell = ""  # shown in the browser's terminal after the app ended
        self.task: asyncio.Task[None] | None = None  # the websocket's handler
        # Whether the browser's websocket has closed (set by the server).
        self.browser_closed: Callable[[], bool] = lambda: False
        self.ended = asyncio.Event()  # the app is gone and the directory released
        self.idle_timer: asyncio.TimerHandle | None = None
        self.stopping: set[asyncio.Task[None]] = set()

    @property
    def pid(self) -> int:
        return self._process.pid if self._process is not None else 0

    @property
    def returncode(self) -> int | None:
        return self._process.returncode if self._process is not None else None

    async def _open_app_process(
        self, width: int = 80, height: int = 24
    ) -> asyncio.subprocess.Process:
        """The library's, with exec instead of a shell, our environment and
        the player's directory as working directory, in a session of its own
        (so the whole process group can be ended, as over SSH)."""
        environment = dict(self.environment, COLUMNS=str(width), ROWS=str(height))
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            cwd=self.directory,
            start_new_session=True,
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        self.started_at = time.monotonic()
        return process

    async def on_meta(self, data: bytes) -> None:
        """The library's; and an app that says it exits is not a browser
        gone, and leaves the server's farewell (if any) in the browser's
        terminal before the library closes the websocket."""
        with contextlib.suppress(ValueError, AttributeError, RecursionError):
            if json.loads(data).get("type") == "exit":
                self.app_exited = True
                if self.farewell:
                    await self.remote_write_bytes(terminal_line(self.farewell))
        await super().on_meta(data)

    async def send_bytes(self, data: bytes) -> bool:
        self.last_input = time.monotonic()
        return await super().send_bytes(data)

    async def stop(self) -> None:
        """The library's stop asks the app to quit and waits for it without
        end; here the wait is bounded: then SIGTERM, then SIGKILL."""
        if self._task is None:
            return
        if self.returncode is None:
            await self.send_meta({"type": "quit"})
        try:
            await asyncio.wait_for(asyncio.shield(self._task), GRACE_SECONDS)
        except TimeoutError:
            await stop_process(self._process, signal.SIGTERM)
        await self._task
        self._task = None
        if self._process is not None:
            await self._process.wait()

    async def stop_child(self, first: signal.Signals) -> None:
        """For the hub's shutdown and the idle timeout: end the app now."""
        await stop_process(self._process, first)

    def stop_for_idle(self) -> None:
        task = asyncio.ensure_future(self.stop_child(signal.SIGTERM))
        self.stopping.add(task)
        task.add_done_callback(self.stopping.discard)


__all__ = ["WebSession", "terminal_line"]
