"""Sessions' ends and refusals: a client that vanishes, the session limit,
the idle timeout, unknown keys, commands, clients without a terminal."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

import asyncssh
import pytest

from net.protocol.codes import format_code
from tests.ssh.conftest import (
    DEADLINE,
    HOME,
    Client,
    ServerFactory,
    SshBinaryClient,
    asyncssh_connect,
    passe_command,
    play_passpass_to_end,
    ssh_arguments,
)
from tui.cli import command_names


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


async def test_vanished_client_mid_game_is_cleaned_up_and_its_game_kept(
    start_server: ServerFactory, clients: list[Client]
) -> None:
    server = start_server()
    client = SshBinaryClient(ssh_arguments(server, "carla"), 80, 24)
    clients.append(client)
    await client.terminal.wait_for(HOME)
    await client.send("\r")
    await client.terminal.wait_for("Your hand")
    await play_passpass_to_end(client, stop_after=3)
    (pid,) = server.session_pids()
    assert _alive(pid)
    await client.vanish()  # SIGKILL: no goodbye, the TCP connection just closes
    await server.wait_log(r"session 1 end: client disconnected")
    assert not _alive(pid)  # the app was ended (and reaped) by the server
    # Nothing is lost: the same player (same user name, no key) finds the game.
    again = SshBinaryClient(ssh_arguments(server, "carla"), 80, 24)
    clients.append(again)
    await again.terminal.wait_for(HOME)
    await again.terminal.wait_for("Continue")
    await again.send("c")
    await again.terminal.wait_for("Your hand")
    await again.send("q")
    await again.terminal.wait_for("Leave this game?")
    await again.send("q")
    assert await again.exit_status() == 0


async def test_session_limit_refuses_with_a_message(
    start_server: ServerFactory, clients: list[Client]
) -> None:
    server = start_server("--max-sessions", "1")
    first = SshBinaryClient(ssh_arguments(server, "dora"), 80, 24)
    clients.append(first)
    await first.terminal.wait_for(HOME)
    second = SshBinaryClient(ssh_arguments(server, "emil"), 80, 24)
    clients.append(second)
    assert await second.exit_status() == 1
    assert "the server is full (1 player); please try again later." in second.terminal.all_text()
    await server.wait_log(r"refused user 'emil' key none from 127.0.0.1: server full")
    # The first session is untouched, and its end frees the place.
    await first.send("q")
    assert await first.exit_status() == 0
    await server.wait_log(r"session 1 end: app exited with 0")
    third = SshBinaryClient(ssh_arguments(server, "emil"), 80, 24)
    clients.append(third)
    await third.terminal.wait_for("emil (you)")


async def test_idle_session_is_ended_with_a_message(
    start_server: ServerFactory, clients: list[Client]
) -> None:
    server = start_server("--idle-timeout", "5")
    client = SshBinaryClient(ssh_arguments(server, "fritz"), 80, 24)
    clients.append(client)
    await client.terminal.wait_for(HOME)
    (pid,) = server.session_pids()
    assert await client.exit_status() == 128 + 15  # the app was ended with SIGTERM
    text = client.terminal.all_text()
    assert "disconnected after 5 seconds without a key press" in text
    # The server restored the terminal before its message: alternate screen left.
    assert text.rindex("\x1b[?1049l") < text.rindex("disconnected after")
    await server.wait_log(r"session 1 end: idle for 5 s")
    assert not _alive(pid)


async def test_only_authorized_keys_get_in(
    start_server: ServerFactory, clients: list[Client], tmp_path: Path
) -> None:
    allowed = asyncssh.generate_private_key("ssh-ed25519")
    stranger = asyncssh.generate_private_key("ssh-ed25519")
    keys = tmp_path / "authorized_keys"
    keys.write_bytes(allowed.export_public_key())
    server = start_server("--authorized-keys", str(keys))
    with pytest.raises(asyncssh.PermissionDenied):
        await asyncssh_connect(server, "gina", key=stranger)
    await server.wait_log(r"refused user 'gina' from 127.0.0.1: key not authorized")
    with pytest.raises(asyncssh.PermissionDenied):
        await asyncssh_connect(server, "gina", password="")  # no password login here
    # OpenSSH without a key: no guest login in this mode.
    keyless = SshBinaryClient(ssh_arguments(server, "hans"), 80, 24)
    clients.append(keyless)
    assert await keyless.exit_status() == 255
    assert "Permission denied" in keyless.terminal.all_text()
    await server.wait_log(r"refused user 'hans' from 127.0.0.1: key not authorized")
    # The listed key gets in, with OpenSSH too.
    key_file = tmp_path / "id_allowed"
    allowed.write_private_key(str(key_file))
    os.chmod(key_file, 0o600)
    client = SshBinaryClient(ssh_arguments(server, "gina", key=key_file), 80, 24)
    clients.append(client)
    await client.terminal.wait_for("gina (you)")
    assert f"key {allowed.get_fingerprint('sha256')}" in server.log()


async def test_join_runs_passe_join(start_server: ServerFactory, clients: list[Client]) -> None:
    server = start_server()
    client = SshBinaryClient(ssh_arguments(server, "ines", "join", "ABC-123"), 80, 24)
    clients.append(client)
    # This installation has `passe join` (a server without it refuses in
    # words: test_server_parts).
    assert "join" in command_names()
    await server.wait_log(r"session 1 start: user 'ines' .*, join ABC-123, ")


@pytest.mark.mosquitto
async def test_watch_runs_passe_watch(
    tmp_path: Path, start_server: ServerFactory, clients: list[Client]
) -> None:
    """A guest's `watch CODE@HOST:PORT` opens the room's table read-only
    (issue 21): the line above it says so."""
    from tests.net.peers import clear_room
    from tests.net.procs import PasseProcess, host_args, need_mosquitto

    need_mosquitto()
    assert "watch" in command_names()
    host = PasseProcess("host", tmp_path)
    try:
        await host.start(
            *host_args("dominoes", 2, wait_for=1, seed=1), "--broker", "127.0.0.1:1883"
        )
        code = (await host.expect("room"))["code"]
        server = start_server()
        target = f"{code}@127.0.0.1:1883"
        client = SshBinaryClient(ssh_arguments(server, "nia", "watch", target), 80, 24)
        clients.append(client)
        await client.terminal.wait_for(f"Watching {format_code(code)} (no seat)")
        await server.wait_log(rf"session 1 start: user 'nia' .*, watch {code}@127.0.0.1:1883, ")
    finally:
        await host.stop()
        if "code" in locals():
            await clear_room(code)


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (["join", "../../etc"], "write `join CODE` with one room code"),
        (["join"], "write `join CODE` with one room code"),
        (["rm", "-rf", "/"], "unknown command"),
    ],
)
async def test_bad_commands_are_refused(
    start_server: ServerFactory, clients: list[Client], command: list[str], message: str
) -> None:
    server = start_server()
    client = SshBinaryClient(ssh_arguments(server, "jo", *command), 80, 24)
    clients.append(client)
    assert await client.exit_status() == 1
    assert message in client.terminal.all_text()
    assert not server.session_pids()


async def test_a_session_without_a_terminal_is_refused(
    start_server: ServerFactory, clients: list[Client]
) -> None:
    server = start_server()
    client = SshBinaryClient(ssh_arguments(server, "kim", tty=False), 80, 24)
    clients.append(client)
    assert await client.exit_status() == 1
    assert "Passe needs a terminal" in client.terminal.all_text()
    await server.wait_log(r"refused user 'kim' key none from 127.0.0.1: no terminal")


async def test_a_crashed_app_ends_its_session_alone(
    start_server: ServerFactory, clients: list[Client]
) -> None:
    server = start_server()
    victim = SshBinaryClient(ssh_arguments(server, "lea"), 80, 24)
    other = SshBinaryClient(ssh_arguments(server, "max"), 80, 24)
    clients.extend([victim, other])
    await victim.terminal.wait_for("lea (you)")
    await other.terminal.wait_for("max (you)")
    start = await server.wait_log(r"session \d+ start: user 'lea' .*, pid (\d+)")
    os.kill(int(start.group(1)), signal.SIGKILL)  # the app dies, as if it crashed
    assert await victim.exit_status() == 128 + signal.SIGKILL
    text = victim.terminal.all_text()
    assert "the game stopped unexpectedly (signal 9)" in text
    assert text.rindex("\x1b[?1049l") < text.rindex("stopped unexpectedly")
    # The server and the other guest go on.
    await other.send("\r")
    await other.terminal.wait_for("Your hand")
    newcomer = SshBinaryClient(ssh_arguments(server, "nina"), 80, 24)
    clients.append(newcomer)
    await newcomer.terminal.wait_for("nina (you)")


async def test_open_mode_takes_any_password_for_clients_without_keys(
    start_server: ServerFactory, clients: list[Client]
) -> None:
    server = start_server()
    client = await asyncssh_connect(server, "olga", password="")
    clients.append(client)
    await client.terminal.wait_for("olga (you)")
    assert "user 'olga' key none from 127.0.0.1" in server.log()


def test_unreadable_authorized_keys_or_a_busy_port_stop_the_server(tmp_path: Path) -> None:
    env = {**os.environ, "PASSE_DATA_DIR": str(tmp_path / "data")}
    serve = [*passe_command(), "serve", "--ssh", "--bind", "127.0.0.1"]
    missing = tmp_path / "nope"
    done = subprocess.run(
        [*serve, "--port", "0", "--authorized-keys", str(missing)],
        capture_output=True,
        text=True,
        env=env,
        timeout=DEADLINE,
    )
    assert done.returncode == 1
    assert done.stderr.startswith(f"passe: cannot read authorized keys {missing}:")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [*serve, "--port", str(port)], capture_output=True, text=True, env=env, timeout=DEADLINE
        )
    assert done.returncode == 1
    assert f"passe: cannot listen on port {port}:" in done.stderr


async def test_a_guests_app_ends_when_the_server_dies(
    start_server: ServerFactory, clients: list[Client]
) -> None:
    """Issue 24: the server killed outright (no SIGHUP sent by it): each app
    is left with a pty whose master is gone, which is its hangup. It saves
    and ends within 5 s instead of running on."""
    import psutil

    from tests.cli.ptys import cpu_times, ended

    server = start_server()
    client = SshBinaryClient(ssh_arguments(server, "gina"), 80, 24)
    clients.append(client)
    await client.terminal.wait_for(HOME)
    await client.send("\r")
    await client.terminal.wait_for("Your hand")
    (pid,) = server.session_pids()
    app = psutil.Process(pid)
    before = cpu_times(app)
    assert before is not None
    for save in server.data_dir.rglob("saved-game.json"):
        save.unlink()  # the hangup itself must save the game
    server.process.kill()
    ending = await ended(app, before)
    assert ending.background_cpu < 0.1, ending
    assert list(server.data_dir.rglob("saved-game.json"))


async def test_sighup_stops_the_server_and_its_sessions(
    start_server: ServerFactory, clients: list[Client]
) -> None:
    """The server's own terminal closed (SIGHUP) stops it as SIGTERM does,
    apps saved, and its status says it was a hangup (issue 24)."""
    server = start_server()
    client = SshBinaryClient(ssh_arguments(server, "hugo"), 80, 24)
    clients.append(client)
    await client.terminal.wait_for(HOME)
    (pid,) = server.session_pids()
    server.process.send_signal(signal.SIGHUP)
    assert server.process.wait(timeout=DEADLINE) == 128 + signal.SIGHUP
    assert "server stopped" in server.log()
    assert not _alive(pid)
