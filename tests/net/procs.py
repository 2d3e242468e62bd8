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
from pathlib import Path
from typing import Any

import pytest

DEADLINE = 60.0  # seconds: a failure guard, not a synchronisation


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
) -> tuple[str, ...]:
    """``passe host`` without a screen (and, unless asked, without an advert
    on the LAN): the set-up of a host process that the network tests share."""
    args = ["host", game, "--players", str(players), "--headless", "--wait-for", str(wait_for)]
    if not advertise:
        args.append("--no-advertise")
    if bot_delay is not None:
        args += ["--bot-delay", str(bot_delay)]
    if seed is not None:
        args += ["--seed", str(seed)]
    if broker is not None:
        args += ["--broker", broker]
    if port is not None:
        args += ["--port", str(port)]
    return tuple(args)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PasseProcess:
    """``passe ARGS`` in its own process, with its own key and config."""

    def __init__(
        self, name: str, home: Path, wrap: tuple[str, ...] = (), drop_env: tuple[str, ...] = ()
    ) -> None:
        self.name = name
        self.wrap = wrap  # e.g. ("ip", "netns", "exec", NAME): run it elsewhere
        self.drop_env = drop_env  # variables it must not inherit
        self.home = home / name
        self.home.mkdir(parents=True, exist_ok=True)
        self.process: asyncio.subprocess.Process | None = None
        self.lines: list[dict[str, Any]] = []
        self.stderr = b""

    @property
    def env(self) -> dict[str, str]:
        return {
            **{key: value for key, value in os.environ.items() if key not in self.drop_env},
            "PASSE_DATA_DIR": str(self.home / "data"),
            "PASSE_CONFIG_DIR": str(self.home / "config"),
            "PYTHONUNBUFFERED": "1",
        }

    async def start(self, *args: str) -> PasseProcess:
        self.process = await asyncio.create_subprocess_exec(
            *self.wrap,
            sys.executable,
            "-m",
            "tui.cli",
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self.env,
        )
        self.lines = []
        return self

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
                    line = json.loads(raw)
                except ValueError:
                    raise AssertionError(f"{self.name} printed {raw!r}") from None
                self.lines.append(line)
                if line.get("event") in events:
                    line["_seen"] = True
                    return line

    async def _collect_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5):
                self.stderr += await self.process.stderr.read()

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
        if self.process is not None and self.process.stderr is not None:
            await self._collect_stderr()
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


async def run_passe(home: Path, *args: str, timeout: float = DEADLINE) -> tuple[int, str, str]:
    """Run ``passe ARGS`` to its end: (exit code, stdout, stderr)."""
    process = PasseProcess("cli", home)
    await process.start(*args)
    assert process.process is not None
    async with asyncio.timeout(timeout):
        out, err = await process.process.communicate()
    return process.process.returncode or 0, out.decode(), err.decode()
