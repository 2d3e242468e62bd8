"""Twenty SSH sessions at once: every one reaches the home screen and
answers keys, the server still admits and refuses promptly, and every app
ends with its connection."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import asyncssh
import pytest

from tests.ssh.conftest import HOME, AsyncsshClient, Client, ServerFactory, asyncssh_connect

SESSIONS = 20
RESPONSIVE_SECONDS = 5.0  # a login and a refusal, with twenty apps running

pytestmark = pytest.mark.soak


async def test_twenty_sessions_at_the_home_screen(
    start_server: ServerFactory, clients: list[Client]
) -> None:
    server = start_server("--max-sessions", str(SESSIONS))
    # One key for all: one player in twenty sessions, so nineteen of them get
    # a throw-away directory (two sessions never write the same save).
    key = asyncssh.generate_private_key("ssh-ed25519")
    connected = await asyncio.gather(
        *(asyncssh_connect(server, f"p{n}", key=key) for n in range(SESSIONS))
    )
    clients.extend(connected)
    await asyncio.gather(*(c.terminal.wait_for(HOME, timeout=120) for c in connected))
    for number, client in enumerate(connected):
        assert f"p{number} (you)" in client.terminal.text()
    pids = server.session_pids()
    assert len(pids) == SESSIONS
    ssh_dir = server.data_dir / "ssh"
    assert len(list((ssh_dir / "players").iterdir())) == 1
    assert len(list((ssh_dir / "guests").iterdir())) == SESSIONS - 1
    # Every app answers a key: the rules screen of the game under the cursor.
    await asyncio.gather(*(c.send("r") for c in connected))
    await asyncio.gather(*(c.terminal.wait_for("Rules", timeout=60) for c in connected))
    # The server still answers at once: a 21st guest logs in and is refused
    # with the session-limit message.
    started = time.monotonic()
    extra = await asyncssh_connect(server, "late", key=key)
    clients.append(extra)
    assert await extra.exit_status(timeout=RESPONSIVE_SECONDS) == 1
    assert "the server is full" in extra.terminal.all_text()
    assert time.monotonic() - started < RESPONSIVE_SECONDS
    # Every connection closed: every app ends.
    for client in connected:
        assert isinstance(client, AsyncsshClient)
        client.connection.close()
    for number in range(1, SESSIONS + 1):
        await server.wait_log(rf"session {number} end: client disconnected")
    assert not [pid for pid in pids if Path(f"/proc/{pid}").exists()]
    assert not list((ssh_dir / "guests").iterdir())
