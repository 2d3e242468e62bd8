"""A LAN inside the machine: network namespaces on a bridge, for tests that
need separate network stacks (mDNS between machines, a broker reached by
another host's address).

``Lan.create(n)`` (or the ``lan`` fixture, three namespaces, from ``lan_fixture``) makes, as root:

- a bridge with multicast snooping off (mDNS is flooded to every port);
- ``n`` namespaces, each with ``lo`` up and a veth pair whose namespace end
  is ``eth0`` with the address ``10.77.0.<i+1>/24`` (a private range used
  only inside these namespaces: the bridge has no address, so the machine's
  own routing never sees it) and a route for multicast (224.0.0.0/4);

under names unique to the run (parallel runs never collide), and always
removes all of it, with any process still running inside. Without root or
``ip``, tests skip with the reason; with ``CI=true`` they fail instead.

Commands run inside a namespace with ``ip netns exec`` as subprocesses:
:meth:`Lan.run` (wait for the result), :meth:`Lan.spawn` (keep running,
ended at teardown) and :meth:`Lan.spawn_async` (the same for asyncio).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SUBNET = "10.77.0"
PREFIX = 24
ROOT = Path(__file__).resolve().parents[2]  # the repository: `python -m net...` works here
# mDNS inside a namespace must use all of its interfaces: drop a restriction
# that the test process may carry for loopback tests.
_DROPPED_ENV = ("PASSE_MDNS_INTERFACES",)


class LanUnavailable(Exception):
    """Namespaces cannot be made here (the message says why)."""


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and result.returncode != 0:
        raise LanUnavailable(f"`ip {' '.join(args)}` failed: {result.stderr.strip()}")
    return result


def why_unavailable() -> str | None:
    """Why namespaces cannot be made here, or None if they can be tried."""
    if sys.platform != "linux":
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "the `ip` command (iproute2) is not installed"
    return None


def skip_or_fail(reason: str) -> None:
    """Skip the test, except in CI (``CI=true``), where it must fail."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"LAN test cannot run in CI: {reason}")
    pytest.skip(reason)


@dataclass
class Namespace:
    name: str
    address: str  # on eth0, inside the LAN


@dataclass
class Lan:
    run_id: str
    bridge: str
    namespaces: list[Namespace] = field(default_factory=list)
    _links: list[str] = field(default_factory=list)
    _processes: list[subprocess.Popen[Any]] = field(default_factory=list)
    _async_processes: list[asyncio.subprocess.Process] = field(default_factory=list)

    @classmethod
    @contextlib.contextmanager
    def create(cls, count: int) -> Iterator[Lan]:
        """``count`` namespaces on a fresh bridge, removed on exit."""
        reason = why_unavailable()
        if reason is not None:
            raise LanUnavailable(reason)
        run_id = secrets.token_hex(3)  # interface names have at most 15 characters
        lan = cls(run_id, f"pzbr{run_id}")
        try:
            lan._build(count)
            yield lan
        finally:
            lan._teardown()

    def _build(self, count: int) -> None:
        _ip("link", "add", self.bridge, "type", "bridge", "mcast_snooping", "0")
        self._links.append(self.bridge)
        _ip("link", "set", self.bridge, "up")
        for index in range(count):
            name = f"passe-{self.run_id}-{index}"
            _ip("netns", "add", name)
            namespace = Namespace(name, f"{SUBNET}.{index + 1}")
            self.namespaces.append(namespace)
            outside, inside = f"pz{self.run_id}h{index}", f"pz{self.run_id}n{index}"
            _ip("link", "add", outside, "type", "veth", "peer", "name", inside, "netns", name)
            self._links.append(outside)
            _ip("link", "set", outside, "master", self.bridge, "up")
            within = ("-n", name)
            _ip(*within, "link", "set", "lo", "up")
            _ip(*within, "link", "set", inside, "name", "eth0")
            _ip(*within, "addr", "add", f"{namespace.address}/{PREFIX}", "dev", "eth0")
            _ip(*within, "link", "set", "eth0", "up")
            _ip(*within, "route", "add", "224.0.0.0/4", "dev", "eth0")

    def _teardown(self) -> None:
        for process in self._processes:
            if process.poll() is None:
                process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(5)
        for async_process in self._async_processes:
            if async_process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    async_process.kill()
        for namespace in self.namespaces:
            # Anything still running inside was started by this test.
            pids = _ip("netns", "pids", namespace.name, check=False).stdout.split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
            _ip("netns", "del", namespace.name, check=False)
        for link in reversed(self._links):
            _ip("link", "del", link, check=False)  # gone already if its namespace is

    # -- running commands inside --------------------------------------------

    def command(self, index: int, argv: Sequence[str]) -> list[str]:
        return ["ip", "netns", "exec", self.namespaces[index].name, *argv]

    @staticmethod
    def env(extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
        env.update(extra or {})
        return env

    def run(
        self, index: int, argv: Sequence[str], *, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` inside namespace ``index`` and wait for it."""
        return subprocess.run(
            self.command(index, argv),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ROOT,
            env=self.env(),
        )

    def spawn(self, index: int, argv: Sequence[str], **popen: Any) -> subprocess.Popen[Any]:
        """Start ``argv`` inside namespace ``index``; killed at teardown."""
        popen.setdefault("cwd", ROOT)
        popen.setdefault("env", self.env())
        process: subprocess.Popen[Any] = subprocess.Popen(self.command(index, argv), **popen)
        self._processes.append(process)
        return process

    async def spawn_async(
        self, index: int, argv: Sequence[str], **kwargs: Any
    ) -> asyncio.subprocess.Process:
        """:meth:`spawn` for asyncio (stdin/stdout/stderr as keyword arguments)."""
        kwargs.setdefault("cwd", ROOT)
        kwargs.setdefault("env", self.env())
        process = await asyncio.create_subprocess_exec(*self.command(index, argv), **kwargs)
        self._async_processes.append(process)
        return process


@contextlib.contextmanager
def lan_or_skip(count: int) -> Iterator[Lan]:
    """:meth:`Lan.create`, skipping the test (failing it in CI) where
    namespaces cannot be made."""
    stack = contextlib.ExitStack()
    try:
        network = stack.enter_context(Lan.create(count))
    except LanUnavailable as exc:
        skip_or_fail(str(exc))
    with stack:
        yield network


@pytest.fixture(name="lan")
def lan_fixture() -> Iterator[Lan]:
    """``lan``: three namespaces (``lan.namespaces[0..2]``) on one bridge.
    Import ``lan_fixture`` into a test module to use it."""
    with lan_or_skip(3) as network:
        yield network
