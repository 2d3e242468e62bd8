"""Real `passe` processes for the network tests, followed by their JSON lines.

Tests synchronise on what a process prints (``{"event": ...}`` lines), never
on sleeps; every wait has a deadline so that a broken build fails instead of
hanging.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

DEADLINE = 60.0  # seconds: a failure guard, not a synchronisation
# The most of a child's stderr kept (its end): PASSE_LOG=debug says a lot.
STDERR_KEPT = 8 * 1024 * 1024


def reachable(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=1).close()
    except OSError:
        return False
    return True


def need_mosquitto(host: str = "127.0.0.1", port: int = 1883) -> None:
    """Skip (locally) or fail (CI) when the machine's Mosquitto is not there."""
    if reachable(host, port):
        return
    message = f"Mosquitto is not reachable on {host}:{port}"
    if os.environ.get("CI") == "true":
        pytest.fail(message + " (CI must start it: see .ci/run)")
    pytest.skip(message)


def host_args(
    game: str,
    players: int,
    *,
    wait_for: int,
    broker: str | None = None,
    port: int | None = None,
    bot_delay: float | None = None,
    seed: int | None = None,
    advertise: bool = False,
    failover: bool = True,
) -> tuple[str, ...]:
    """``passe host`` without a screen (and, unless asked, without an advert
    on the LAN): the set-up of a host process that the network tests share.
    ``failover=False``: a test of what a room does when its host's machine
    stops and the room waits for it (``--resume``); with failover, on by
    default, a room of three people's machines or more moves instead."""
    args = ["host", game, "--players", str(players), "--headless", "--wait-for", str(wait_for)]
    if not advertise:
        args.append("--no-advertise")
    if not failover:
        args.append("--no-failover")
    if bot_delay is not None:
        args += ["--bot-delay", str(bot_delay)]
    if seed is not None:
        args += ["--seed", str(seed)]
    if broker is not None:
        args += ["--broker", broker]
    if port is not None:
        args += ["--port", str(port)]
    return tuple(args)


class PasseProcess:
    """``passe ARGS`` in its own process, with its own key and config."""

    def __init__(
        self, name: str, home: Path, wrap: tuple[str, ...] = (), drop_env: tuple[str, ...] = ()
    ) -> None:
        self.name = name
        self.wrap = wrap  # e.g. ("ip", "netns", "exec", NAME): run it elsewhere
        self.drop_env = drop_env  # variables it must not inherit
        self.extra_env: dict[str, str] = {}  # and its own (e.g. PASSE_LOG)
        self.home = home / name
        self.home.mkdir(parents=True, exist_ok=True)
        self.process: asyncio.subprocess.Process | None = None
        self.lines: list[dict[str, Any]] = []
        self._stderr = bytearray()
        self._stderr_drain: asyncio.Task[None] | None = None

    @property
    def stderr(self) -> bytes:
        """What it wrote to stderr so far, over all its runs (the last
        STDERR_KEPT bytes)."""
        return bytes(self._stderr)

    @property
    def env(self) -> dict[str, str]:
        return {
            **{key: value for key, value in os.environ.items() if key not in self.drop_env},
            "PASSE_DATA_DIR": str(self.home / "data"),
            "PASSE_CONFIG_DIR": str(self.home / "config"),
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }

    async def start(self, *args: str, module: str = "tui.cli") -> PasseProcess:
        """``passe ARGS``; ``module``: another entry point taking the same
        arguments (a test's patched host, tests/net/cheating_host.py)."""
        self.process = await asyncio.create_subprocess_exec(
            *self.wrap,
            sys.executable,
            "-m",
            module,
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self.env,
        )
        self.lines = []
        if self._stderr_drain is not None:  # the previous run's (it was stopped)
            self._stderr_drain.cancel()
        # Read stderr as it comes: a pipe holds ~64 KiB, and a child whose
        # stderr nobody reads blocks in its next log line (issue 23: under
        # PASSE_LOG=debug, the chaos tests' recipe, after ~200 KiB).
        self._stderr_drain = asyncio.create_task(self._drain_stderr(self.process))
        return self

    async def _drain_stderr(self, process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None
        while chunk := await process.stderr.read(65536):
            self._stderr += chunk
            del self._stderr[:-STDERR_KEPT]

    async def expect(self, event: str, timeout: float = DEADLINE) -> dict[str, Any]:
        """The next line announcing ``event`` (earlier other events are kept)."""
        return await self.expect_any((event,), timeout)

    async def expect_any(
        self, events: tuple[str, ...], timeout: float = DEADLINE
    ) -> dict[str, Any]:
        """The next line announcing one of ``events`` (others are kept)."""
        assert self.process is not None and self.process.stdout is not None
        event = " or ".join(repr(name) for name in events)
        for line in self.lines:
            if line.get("event") in events and not line.get("_seen"):
                line["_seen"] = True
                return line
        async with asyncio.timeout(timeout):
            while True:
                raw = await self.process.stdout.readline()
                if not raw:
                    await self._collect_stderr()
                    raise AssertionError(
                        f"{self.name} ended before {event}: exit "
                        f"{self.process.returncode}, stderr: {self.stderr.decode()[-2000:]}"
                    )
                try:
                    parsed: dict[str, Any] = json.loads(raw)
                except ValueError:
                    raise AssertionError(f"{self.name} printed {raw!r}") from None
                self.lines.append(parsed)
                if parsed.get("event") in events:
                    parsed["_seen"] = True
                    return parsed

    async def _collect_stderr(self, wait: float = 5.0) -> None:
        """Wait (``wait`` seconds at most) for the rest of its stderr."""
        if self._stderr_drain is not None and not self._stderr_drain.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._stderr_drain), wait)

    async def finish(self, timeout: float = DEADLINE) -> int:
        """Wait for the exit code (reading what is left of the output)."""
        assert self.process is not None
        async with asyncio.timeout(timeout):
            assert self.process.stdout is not None
            rest = await self.process.stdout.read()
            for raw in rest.splitlines():
                with contextlib.suppress(ValueError):
                    self.lines.append(json.loads(raw))
            await self._collect_stderr()
            return await self.process.wait()

    async def report(self) -> str:
        """What it printed, for a failed test's output: stops it first, so
        that its whole stderr can be read (PASSE_LOG=debug makes it say more)."""
        ended = self.process.returncode if self.process is not None else None
        await self.stop()
        how = "still running (stopped now)" if ended is None else f"exit {ended}"
        return f"--- {self.name} ({how}): {self.lines}\n{self.stderr.decode(errors='replace')}"

    def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.kill()

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            with contextlib.suppress(Exception):
                await self.process.wait()
        # What it wrote is in the pipe by now; a grandchild that inherited
        # the pipe may hold it open, so the end is waited for briefly.
        await self._collect_stderr(1.0)
        if self._stderr_drain is not None and not self._stderr_drain.done():
            self._stderr_drain.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._stderr_drain
        # A grandchild (the embedded broker a host started) may still hold
        # the pipes: asyncio then keeps the transport open past the test's
        # loop, and the collector, closing it later, warned that the loop
        # was closed (PytestUnraisableExceptionWarning). Closed here, on
        # the loop that opened it.
        if self.process is not None:
            transport = getattr(self.process, "_transport", None)
            if transport is not None:
                transport.close()


def trusting_each_other(dealers: Sequence[PasseProcess]) -> None:
    """Dealers that share their rooms (`passe dealer --trust FILE`): each
    one's key made in its data directory before it starts, and a file of
    the others' keys beside it, which :func:`dealer_args` passes."""
    from net.identity import load_identity

    keys = [load_identity(d.home / "data" / "dealer" / "dealer.key").identity for d in dealers]
    for dealer, key in zip(dealers, keys, strict=True):
        others = [other.peer_id for other in keys if other is not key]
        (dealer.home / "trust").write_text("".join(f"{peer}\n" for peer in others))


def dealer_args(dealer: PasseProcess, broker: str, name: str) -> tuple[str, ...]:
    """`passe dealer` on ``broker`` as ``name``, trusting the dealers
    :func:`trusting_each_other` listed for it, if any."""
    trust = dealer.home / "trust"
    trusting = ("--trust", str(trust)) if trust.exists() else ()
    return ("dealer", "--broker", broker, "--name", name, "--no-advertise", *trusting)


@contextlib.asynccontextmanager
async def reported(*processes: PasseProcess) -> AsyncIterator[None]:
    """The block, with ``processes`` stopped at its end; if it fails, what
    each printed is shown first (their reports)."""
    try:
        yield
    except BaseException:
        print(*[await process.report() for process in processes])
        raise
    finally:
        for process in processes:
            await process.stop()


async def run_passe(home: Path, *args: str, timeout: float = DEADLINE) -> tuple[int, str, str]:
    """Run ``passe ARGS`` to its end: (exit code, stdout, stderr)."""
    process = PasseProcess("cli", home)
    await process.start(*args)
    assert process.process is not None and process.process.stdout is not None
    try:
        async with asyncio.timeout(timeout):
            out = await process.process.stdout.read()
            status = await process.process.wait()
            await process._collect_stderr()
    finally:
        await process.stop()
    return status, out.decode(), process.stderr.decode()


async def join_bots(
    peers: Sequence[PasseProcess], room: dict[str, Any], *, delay: float = 0.0
) -> None:
    """Each of ``peers`` joins the room a headless host announced
    (its ``room`` line) as a heuristic bot, named "Peer N", seeded N;
    ``delay``: seconds each waits before a move."""
    for n, peer in enumerate(peers):
        await peer.start(
            "join",
            f"{room['code']}@{room['broker']}",
            *("--bot", "heuristic", "--name", f"Peer {n}", "--seed", str(n)),
            *(("--bot-delay", str(delay)) if delay else ()),
        )
