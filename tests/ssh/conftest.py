"""Acceptance rig for ``passe serve --ssh``: the real server in a subprocess
on 127.0.0.1 (port 0: the kernel picks a free one, the server prints it),
real clients (the ``ssh`` binary on a pty, asyncssh's client), and the
screen read through ``pyte``. Everything waits on screen content or on the
server's log lines, with a deadline; nothing sleeps to synchronise."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import asyncssh
import pyte
import pytest

HOME = "a table for the three games called Pass"
GAME_OVER = "a / Enter: play again"
# A networked game's end-of-game dialog: no "play again" (the host opens a new room).
# A guest's game-over hint: "(the host may open a next game)", then, once a
# headless host has gone, "(the host has left the table)".
NETWORK_GAME_OVER = "q: quit (the host"
ROUND_END = "Press Enter to go on to the next round"
DEADLINE = 30.0
TERM = "xterm-256color"


def passe_command() -> list[str]:
    script = Path(sys.executable).with_name("passe")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tui.cli"]


# -- the server -----------------------------------------------------------------------


@dataclass
class Server:
    process: subprocess.Popen[str]
    port: int
    host_key: str
    log_path: Path
    data_dir: Path

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    async def wait_log(self, pattern: str, timeout: float = DEADLINE) -> re.Match[str]:
        """The first match of ``pattern`` in the server's log, polled until the deadline."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.log())
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"no {pattern!r} in the server log:\n{self.log()}")
            if self.process.poll() is not None:
                raise AssertionError(f"the server died:\n{self.log()}")
            await asyncio.sleep(0.02)

    def session_pids(self) -> list[int]:
        return [int(pid) for pid in re.findall(r"session \d+ start: .*, pid (\d+)", self.log())]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


ServerFactory = Callable[..., Server]


def process_environment(pid: int) -> dict[str, str]:
    """A session's app's environment, as the kernel shows it."""
    return dict(
        item.split("=", 1)
        for item in Path(f"/proc/{pid}/environ").read_text().split("\0")
        if "=" in item
    )


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[ServerFactory]:
    """Start ``passe serve --ssh`` with a private data directory; stopped at the end."""
    servers: list[Server] = []

    def start(*arguments: str, seed: int = 11, data_dir: Path | None = None) -> Server:
        """``data_dir``: an earlier server's, to start it again (a restart)."""
        server, banner = launch_server(
            tmp_path, len(servers), "--ssh", *arguments, seed=seed, data_dir=data_dir
        )
        servers.append(server)
        key = re.search(r"Host key: (SHA256:\S+)", banner)
        assert key, banner
        server.host_key = key.group(1)
        return server

    yield start
    for server in servers:
        server.stop()


def launch_server(
    tmp_path: Path,
    index: int,
    protocol: str,
    *arguments: str,
    seed: int = 11,
    data_dir: Path | None = None,
    environment: dict[str, str] | None = None,
) -> tuple[Server, str]:
    """``passe serve PROTOCOL`` on 127.0.0.1, any port, with a private data
    directory and log; the server and its banner (up to the line that tells
    guests how to connect). Its later output goes to the log too: nothing
    waits on a full pipe. ``environment``: variables added to the server's."""
    data_dir = data_dir or tmp_path / f"data{index}"
    log_path = tmp_path / f"server{index}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PASSE_", "TEXTUAL"))}
    env["PASSE_DATA_DIR"] = str(data_dir)
    env.update(environment or {})
    command = [*passe_command(), "serve", protocol, "--bind", "127.0.0.1", "--port", "0"]
    command += ["--bot-delay", "0", "--seed", str(seed), *arguments]
    log_path.write_text("")
    with log_path.open("a") as log:  # appended to by the server and by _copy_rest
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    assert process.stdout is not None
    banner = ""
    while "Guests " not in banner:  # "Guests connect with" (SSH), "Guests open" (web)
        line = process.stdout.readline()  # the banner comes at once, or EOF on failure
        if not line:
            raise AssertionError(f"the server did not start:\n{log_path.read_text()}")
        banner += line
    threading.Thread(target=_copy_rest, args=(process.stdout, log_path), daemon=True).start()
    port = re.search(r"port (\d+)", banner)
    assert port, banner
    return Server(process, int(port.group(1)), "", log_path, data_dir), banner


def _copy_rest(stream: IO[str], log_path: Path) -> None:
    with log_path.open("a") as log:
        for line in stream:
            log.write(line)
            log.flush()


# -- a terminal on the client side -----------------------------------------------------


class ScreenWaits:
    """Waits on a screen's text (``text()``), woken by ``changed``, given up
    once ``closed``: the SSH rig's terminal and the browser's alike."""

    changed: asyncio.Event
    closed: bool

    def text(self) -> str:
        raise NotImplementedError

    async def wait(self, test: Callable[[], bool], what: str, timeout: float = DEADLINE) -> None:
        deadline = time.monotonic() + timeout
        while not test():
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (self.closed and not test()):
                state = "closed" if self.closed else "open"
                raise AssertionError(f"waited for {what} ({state}); screen:\n{self.text()}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)

    async def wait_for(self, text: str, timeout: float = DEADLINE) -> None:
        await self.wait(lambda: text in self.text(), repr(text), timeout)


@dataclass
class Terminal(ScreenWaits):
    """A pyte screen fed with what the client receives, and waits on it."""

    columns: int = 80
    rows: int = 24
    screen: pyte.Screen = field(init=False)
    stream: pyte.ByteStream = field(init=False)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False
    received: bytearray = field(default_factory=bytearray)

    def __post_init__(self) -> None:
        self.screen = pyte.Screen(self.columns, self.rows)
        self.stream = pyte.ByteStream(self.screen)

    def feed(self, data: bytes) -> None:
        self.received += data
        self.stream.feed(data)
        self.changed.set()

    def end(self) -> None:
        self.closed = True
        self.changed.set()

    def resize(self, columns: int, rows: int) -> None:
        self.columns, self.rows = columns, rows
        self.screen.resize(rows, columns)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def line(self, row: int) -> str:
        return self.screen.display[row]

    def all_text(self) -> str:
        """Everything received, decoded (for messages after the app ended)."""
        return self.received.decode("utf-8", "replace")


class Client:
    """What the tests need of any SSH client with a pty."""

    terminal: Terminal

    async def send(self, keys: str) -> None:
        raise NotImplementedError

    async def resize(self, columns: int, rows: int) -> None:
        raise NotImplementedError

    async def exit_status(self, timeout: float = DEADLINE) -> int:
        raise NotImplementedError

    async def vanish(self) -> None:
        """Drop the connection abruptly, as a dead client would."""
        raise NotImplementedError


def _set_size(descriptor: int, columns: int, rows: int) -> None:
    fcntl.ioctl(descriptor, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


def _take_terminal() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class SshBinaryClient(Client):
    """OpenSSH's ``ssh`` on a pty of its own (so a resize reaches it as SIGWINCH)."""

    def __init__(self, arguments: list[str], columns: int, rows: int) -> None:
        self.terminal = Terminal(columns, rows)
        master, slave = os.openpty()
        _set_size(slave, columns, rows)
        env = {**os.environ, "TERM": TERM}
        env.pop("SSH_AUTH_SOCK", None)
        self.process = subprocess.Popen(
            arguments,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
        os.close(slave)
        os.set_blocking(master, False)
        self.master = master
        asyncio.get_running_loop().add_reader(master, self._read)

    def _read(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            self.terminal.feed(data)
        else:
            asyncio.get_running_loop().remove_reader(self.master)
            self.terminal.end()

    async def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    async def resize(self, columns: int, rows: int) -> None:
        self.terminal.resize(columns, rows)
        _set_size(self.master, columns, rows)

    async def exit_status(self, timeout: float = DEADLINE) -> int:
        await self.terminal.wait(lambda: self.terminal.closed, "ssh to end", timeout)
        return self.process.wait(timeout=timeout)

    async def vanish(self) -> None:
        self.process.kill()
        self.process.wait()

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            asyncio.get_running_loop().remove_reader(self.master)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        with contextlib.suppress(OSError):
            os.close(self.master)


def ssh_arguments(
    server: Server, user: str, *command: str, key: Path | None = None, tty: bool = True
) -> list[str]:
    ssh = shutil.which("ssh")
    if ssh is None:
        reason = "the ssh client is not installed (apt-get install openssh-client)"
        if os.environ.get("CI") == "true":  # .ci/run installs it: missing there is a failure
            pytest.fail(reason + " (CI must install it: see .ci/run)")
        pytest.skip(reason)
    arguments = [ssh, "-F", "/dev/null", "-p", str(server.port), "-l", user]
    arguments += ["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"]
    arguments += ["-o", "LogLevel=ERROR", "-o", "IdentityAgent=none"]
    if key is None:
        arguments += ["-o", "PubkeyAuthentication=no"]
    else:
        arguments += ["-i", str(key), "-o", "IdentitiesOnly=yes"]
    arguments += ["-t"] if tty else ["-T"]
    return [*arguments, "127.0.0.1", *command]


class AsyncsshClient(Client):
    """asyncssh's client with a pty; a resize is its window-change request."""

    def __init__(
        self,
        connection: asyncssh.SSHClientConnection,
        process: asyncssh.SSHClientProcess[bytes],
        size: tuple[int, int],
    ) -> None:
        self.connection = connection
        self.process = process
        self.terminal = Terminal(*size)
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        try:
            while data := await self.process.stdout.read(65536):
                self.terminal.feed(data)
        except (asyncssh.Error, ConnectionError):
            pass
        finally:
            self.terminal.end()

    async def send(self, keys: str) -> None:
        self.process.stdin.write(keys.encode())

    async def resize(self, columns: int, rows: int) -> None:
        self.terminal.resize(columns, rows)
        self.process.change_terminal_size(columns, rows)

    async def exit_status(self, timeout: float = DEADLINE) -> int:
        await asyncio.wait_for(self.process.wait_closed(), timeout)
        status = self.process.exit_status
        return -1 if status is None else status

    async def vanish(self) -> None:
        self.connection.abort()

    def close(self) -> None:
        self.reader.cancel()
        self.connection.abort()


async def asyncssh_connect(
    server: Server,
    user: str,
    command: str | None = None,
    *,
    key: asyncssh.SSHKey | None = None,
    password: str | None = None,
    size: tuple[int, int] = (80, 24),
) -> AsyncsshClient:
    connection = await asyncssh.connect(
        "127.0.0.1",
        server.port,
        username=user,
        known_hosts=None,
        client_keys=[key] if key is not None else None,
        password=password,
        agent_path=None,
        config=[],
    )
    process = await connection.create_process(
        command, term_type=TERM, term_size=size, encoding=None
    )
    return AsyncsshClient(connection, process, size)


@pytest.fixture
async def clients() -> AsyncIterator[list[Client]]:
    """Clients made in a test; all closed at its end."""
    made: list[Client] = []
    yield made
    for client in made:
        if isinstance(client, SshBinaryClient | AsyncsshClient):
            client.close()


# -- playing through the screen ---------------------------------------------------------


def _signature(terminal: Terminal) -> tuple[str, bool, bool, bool, bool]:
    text = terminal.text()
    over = GAME_OVER in text, NETWORK_GAME_OVER in text
    return (terminal.line(0), ROUND_END in text, *over, "Later" in text)


def _changed_from(terminal: Terminal) -> Callable[[], bool]:
    """A test for ``wait``: the screen's signature is no longer what it is now."""
    before = _signature(terminal)
    return lambda: _signature(terminal) != before


async def play_passpass_to_end(
    client: Client,
    *,
    resize_at: int | None = None,
    resize_to: tuple[int, int] = (100, 30),
    stop_after: int | None = None,
    game_over: str = GAME_OVER,
    others: str = "the bots",
) -> int:
    """Play the person's seat by keys, reading only the screen, until the
    end-of-game dialog (its text ``game_over``; or ``stop_after`` keys);
    return the number of keys sent. After ``resize_at`` keys, resize the
    client's window and check the app redrew at the new size. ``others``
    names who the player waits for, in a failure's message."""
    terminal = client.terminal
    sent = 0
    for _ in range(2000):
        text = terminal.text()
        if game_over in text or sent == stop_after:
            return sent
        status = terminal.line(0)
        if ROUND_END in text:
            key = "\r"
        elif "Later" in text and "Choose" in status:
            key = "1"  # a choice dialog is open: its first option
        elif "Your turn: play a card" in status or "pick a card to keep" in status:
            key = "1"
        elif "(press c)" in status:
            key = "c"
        else:
            await terminal.wait(_changed_from(terminal), others)
            continue
        changed = _changed_from(terminal)
        await client.send(key)
        sent += 1
        await terminal.wait(changed, f"key {key!r} to act")
        if resize_at is not None and sent == resize_at:
            await resize_and_check(client, *resize_to)
    raise AssertionError(f"the game did not end; screen:\n{terminal.text()}")


async def play_all_to_end(players: Sequence[tuple[Client, str]]) -> list[int]:
    """Every player's seat played at once to its end-of-game dialog (each
    with its own text); the keys each sent. A player stuck fails with every
    player's screen: the first to give up is often one waiting for another,
    whose screen says why (a browser tab's wait, 6 December)."""
    results = await asyncio.gather(
        *(
            play_passpass_to_end(client, game_over=over, others="the others")
            for client, over in players
        ),
        return_exceptions=True,
    )
    failures = [result for result in results if isinstance(result, BaseException)]
    if failures:
        screens = "\n".join(
            f"--- player {n}:\n{client.terminal.text()}" for n, (client, _) in enumerate(players)
        )
        raise AssertionError(f"{failures[0]}\n{screens}") from failures[0]
    return [result for result in results if isinstance(result, int)]


async def resize_and_check(client: Client, columns: int, rows: int) -> None:
    """Resize the client's window; wait until the app has redrawn for it:
    the footer on the new last row, and above it the table's bottom right
    panel closing at the new right edge (the table's footer leaves the
    palette's entry, once the marker here, to the help)."""
    terminal = client.terminal
    await client.resize(columns, rows)

    def redrawn() -> bool:
        footer = terminal.line(rows - 1).strip()
        above = terminal.line(rows - 2).rstrip()
        return bool(footer) and len(above) == columns and above.endswith("╯")

    await terminal.wait(redrawn, f"the app to redraw at {columns}x{rows}")
