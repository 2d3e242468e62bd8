"""A whole local Pass Pass game over SSH, by keys, reading the screen, with a
window resize mid-game: with OpenSSH's client and with asyncssh's."""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest

from tests.ssh.conftest import (
    GAME_OVER,
    HOME,
    Client,
    ServerFactory,
    SshBinaryClient,
    asyncssh_connect,
    play_passpass_to_end,
    process_environment,
    ssh_arguments,
)


async def _play_whole_game(client: Client, name: str) -> None:
    terminal = client.terminal
    await terminal.wait_for(HOME)
    await terminal.wait_for(f"{name} (you)")  # the SSH user name is the player's name
    await client.send("\r")  # the defaults: Pass Pass, 4 players, heuristic bots
    await terminal.wait_for("Your hand")
    keys = await play_passpass_to_end(client, resize_at=6)
    assert keys >= 8
    assert GAME_OVER in terminal.text()
    assert terminal.columns == 100 and terminal.rows == 30
    await client.send("q")  # quit from the end-of-game dialog: the app ends...
    assert await client.exit_status() == 0  # ...and with it the connection


@pytest.mark.long
async def test_ssh_binary_plays_a_game_and_resizes(
    start_server: ServerFactory, clients: list[Client]
) -> None:
    server = start_server()
    client = SshBinaryClient(ssh_arguments(server, "alice"), 80, 24)
    clients.append(client)
    await _play_whole_game(client, "alice")
    await server.wait_log(r"session 1 end: app exited with 0")
    assert "session 1 start: user 'alice' key none from 127.0.0.1, play, 80x24" in server.log()


async def test_asyncssh_client_with_a_key_starts_a_game_and_resizes(
    start_server: ServerFactory, clients: list[Client]
) -> None:
    server = start_server()
    key = asyncssh.generate_private_key("ssh-ed25519")
    client = await asyncssh_connect(server, "bruno", key=key)
    clients.append(client)
    await client.terminal.wait_for(HOME)
    # The key identifies the player: its fingerprint reaches the app, and
    # chooses the player's directory (config and saves).
    (pid,) = server.session_pids()
    environment = process_environment(pid)
    fingerprint = key.get_fingerprint("sha256")
    assert environment["PASSE_PLAYER_KEY"] == fingerprint
    assert f"key {fingerprint} from 127.0.0.1" in server.log()
    player_dir = Path(environment["PASSE_CONFIG_DIR"])
    assert player_dir.parent == server.data_dir / "ssh" / "players"
    assert player_dir.name.startswith("key-")
    assert environment["TERM"] == "xterm-256color"
    # Part of a game (the whole game runs with OpenSSH's client above).
    terminal = client.terminal
    await terminal.wait_for("bruno (you)")
    await client.send("\r")
    await terminal.wait_for("Your hand")
    assert await play_passpass_to_end(client, resize_at=3, stop_after=8) == 8
    assert terminal.columns == 100
    await client.send("q")
    await terminal.wait_for("Leave this game?")
    await client.send("q")  # quit Passe: the app ends, and the connection with it
    assert await client.exit_status() == 0
    await server.wait_log(r"session 1 end: app exited with 0")
    assert (player_dir / "settings.json").exists()
    assert (player_dir / "saved-game.json").exists()
