"""The test helpers' own guarantees (tests/net/procs.py, tests/net/brokers.py)."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

import pytest

from tests.net.brokers import Mosquitto, require_mosquitto, start_mosquitto
from tests.net.procs import PasseProcess

# A child that logs more than a pipe holds before it says anything: the
# chaos tests' PASSE_LOG=debug recipe writes that much.
LOUD = (
    "import sys\n"
    "sys.stderr.write('x' * 1_000_000 + 'end of log\\n'); sys.stderr.flush()\n"
    'print(\'{"event": "ready"}\', flush=True)\n'
)


async def test_a_child_that_logs_a_lot_is_never_blocked(tmp_path: Path) -> None:
    """Its stderr is read as it comes, not only at its exit: unread, a full
    pipe (~64 KiB) blocks the child's next write, and its event never came."""
    # ``wrap`` runs this script instead of passe (passe's own arguments are
    # its ignored sys.argv).
    loud = PasseProcess("loud", tmp_path, wrap=(sys.executable, "-c", LOUD))
    try:
        await loud.start()
        await loud.expect("ready", timeout=30)
        assert await loud.finish() == 0
        assert loud.stderr.endswith(b"end of log\n") and len(loud.stderr) > 1_000_000
    finally:
        await loud.stop()


async def test_a_mosquitto_restart_waits_out_a_moment_when_its_port_is_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A restart needs its own port again (its clients reconnect there);
    another process holding it a moment (issue 23: a probe under -n 3)
    made the restart fail at once. Here a socket holds the port during the
    first start, and lets it go when that start has failed."""
    require_mosquitto()
    with start_mosquitto() as mosquitto:
        port = mosquitto.port
        starts: list[str] = []
        real_start = Mosquitto.start

        def start_while_held(self: Mosquitto) -> None:
            if starts:
                starts.append("free")
                real_start(self)
                return
            starts.append("held")
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
                holder.bind(("127.0.0.1", port))
                real_start(self)  # "Address already in use"; the port is let go

        monkeypatch.setattr(Mosquitto, "start", start_while_held)
        await asyncio.to_thread(mosquitto.restart)  # as the tests restarting one do
        assert starts == ["held", "free"]
        assert mosquitto.port == port
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
