"""One SSH session: a ``passe`` process on its own pseudo-terminal.

The SSH channel and the pty's master side are joined byte for byte: the
client's keys go to the master, the app's output comes back from it. The
child is a session leader whose controlling terminal is the pty, so a
window change set on the master (``TIOCSWINSZ``) reaches Textual as
``SIGWINCH`` from the kernel. The app ends with the connection (``SIGHUP``
to its process group, ``SIGKILL`` after a grace period) and the connection
ends with the app. Nothing that goes wrong in here may reach the server:
every failure ends this session alone, with a message when the client is
still there to read it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import ipaddress
import logging
import os
import signal
import struct
import termios
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import asyncssh

from tui.serve.identity import Identity


class Hub(Protocol):
    """What a session asks of the server (tui.serve.server.Hub): the server
    imports the session, never the other way round."""

    def next_session_number(self) -> int: ...

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None: ...

    async def run_session(self, session: PasseSession) -> None: ...


log = logging.getLogger("passe.serve")

# Seconds between SIGHUP/SIGTERM and SIGKILL for a child that does not end:
# longer than the app's own bound on its quit (tui/terminal.py GRACE_SECONDS).
GRACE_SECONDS = 4.0
READ_SIZE = 65536
# Input the child has not read yet, kept at most (a stuck app must not let a
# client fill the server's memory); beyond it keys are dropped.
MAX_PENDING_INPUT = 1 << 20
DEFAULT_SIZE = (80, 24)
# What Textual's driver writes when it leaves application mode. Written by
# the server when it ends an app itself (idle timeout, a crash), so the
# guest's terminal is usable again for the message that follows.
RESTORE_TERMINAL = (
    b"\x1b[?1049l"  # leave the alternate screen
    b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l"  # mouse reporting off
    b"\x1b[?2004l"  # bracketed paste off
    b"\x1b[?1004l"  # focus events off
    b"\x1b[<u"  # kitty keyboard protocol: pop
    b"\x1b[?7h"  # line wrap on (Textual turns it off)
    b"\x1b[0m\x1b[?25h\r\n"  # plain text, visible cursor
)


@dataclass
class Request:
    """What the client asked for, gathered before the session starts."""

    term_type: str = ""
    size: tuple[int, int] = DEFAULT_SIZE  # columns, rows
    pixels: tuple[int, int] = (0, 0)
    has_pty: bool = False
    command: str | None = None  # None: a shell (no command)
    environment: dict[str, str] = field(default_factory=dict)
    server_address: str = ""  # the server's IP the client reached ("" unknown)


def reached_at(sockname: object) -> str:
    """The server's IP address in a connection's ``sockname``, as a person
    types it after ``ssh -p PORT`` (an IPv4-mapped address as IPv4); "" for
    what a friend could not type: no address, the unspecified one, or a
    link-local one (it needs the friend's own interface name)."""
    if not isinstance(sockname, tuple) or not sockname:
        return ""
    try:
        address = ipaddress.ip_address(str(sockname[0]))
    except ValueError:
        return ""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_unspecified or address.is_link_local:
        return ""
    return str(address)


def set_window_size(descriptor: int, size: tuple[int, int], pixels: tuple[int, int]) -> None:
    columns, rows = size
    packed = struct.pack("HHHH", rows, columns, pixels[0], pixels[1])
    fcntl.ioctl(descriptor, termios.TIOCSWINSZ, packed)


async def stop_process(process: asyncio.subprocess.Process | None, first: signal.Signals) -> None:
    """End a guest's app (a session leader): ``first`` to its process group,
    SIGKILL after :data:`GRACE_SECONDS`; reaped. Safe to call when it has
    already ended. The SSH and the web server end their apps this one way."""
    if process is None or process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, first)
    try:
        await asyncio.wait_for(process.wait(), GRACE_SECONDS)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()


def _take_terminal() -> None:
    """In the child, after ``setsid``: make the pty on stdin the controlling
    terminal, so the kernel delivers SIGWINCH and SIGHUP to the app.
    Only async-signal-safe work (one ioctl) runs here."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def stopped_farewell(signum: int, come_back: str) -> str:
    """What a guest reads when their app was killed, not by the server."""
    return (
        f"Passe: the game stopped unexpectedly (signal {signum}). "
        f"A game in progress is saved: {come_back} and press c to continue it."
    )


class IdleWatch:
    """The idle timeout of a guest's session, SSH or web: no key for the
    given seconds ends the app (SIGTERM: it saves) with a farewell."""

    COME_BACK = "reconnect"  # how the guest comes back, in the farewells
    last_input: float
    idle_timer: asyncio.TimerHandle | None
    end_reason: str
    farewell: str

    def stop_for_idle(self) -> None:
        raise NotImplementedError

    def watch_idle(self, seconds: float) -> None:
        if seconds <= 0:
            return
        remaining = self.last_input + seconds - time.monotonic()
        if remaining > 0:
            loop = asyncio.get_running_loop()
            self.idle_timer = loop.call_later(remaining, self.watch_idle, seconds)
            return
        self.end_reason = f"idle for {seconds:g} s"
        self.farewell = (
            f"Passe: disconnected after {seconds:g} seconds without a key press. "
            f"A game in progress is saved: {self.COME_BACK} and press c to continue it."
        )
        self.stop_for_idle()

    def cancel_idle(self) -> None:
        if self.idle_timer is not None:
            self.idle_timer.cancel()
            self.idle_timer = None


class PasseSession(asyncssh.SSHServerSession[bytes], IdleWatch):
    """The SSH side of one session; :class:`Hub` decides what it runs."""

    def __init__(
        self, hub: Hub, connection: asyncssh.SSHServerConnection, identity: Identity
    ) -> None:
        self.hub = hub
        self.connection = connection
        self.identity = identity
        self.number = hub.next_session_number()
        self.request = Request()
        self.channel: asyncssh.SSHServerChannel[bytes] | None = None
        self.loop = asyncio.get_running_loop()
        self.master: int | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.started_at = 0.0
        self.end_reason = ""
        self.farewell = ""  # message for the client after the app ended
        self.pending_input = bytearray()
        self.last_input = time.monotonic()
        self.idle_timer: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] | None = None
        self.reading = False
        self.client_gone = False
        self.on_end: Callable[[], None] = lambda: None  # set by the hub

    # -- what the client asks for (before the session starts) -------------

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.channel = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], _: Any) -> bool:
        self.request.has_pty = True
        self.request.term_type = term_type
        columns, rows, pixel_width, pixel_height = term_size
        if columns > 0 and rows > 0:
            self.request.size = (min(columns, 1000), min(rows, 1000))
        self.request.pixels = (pixel_width, pixel_height)
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.request.command = command
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        return False  # no sftp, nothing but the game

    def session_started(self) -> None:
        assert self.channel is not None
        self.request.environment = dict(self.channel.get_environment())
        self.request.server_address = reached_at(self.connection.get_extra_info("sockname"))
        self.task = asyncio.ensure_future(self._run_guarded())

    # -- the running session ------------------------------------------------

    async def _run_guarded(self) -> None:
        try:
            await self.hub.run_session(self)
        except Exception:
            # One broken session must not take the server down: log it, tell
            # the guest if they are still there, end this session alone.
            log.exception("session %d failed", self.number)
            self.end_reason = self.end_reason or "server error"
            await self.stop_child(signal.SIGTERM)
            self.finish(1, "Passe: this session failed on the server; please reconnect.")
        finally:
            self.on_end()

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self.last_input = time.monotonic()
        if self.master is None:
            return
        if self.pending_input:
            self._queue_input(data)
            return
        try:
            written = os.write(self.master, data)
        except BlockingIOError:
            written = 0
        except OSError:
            return  # the app is gone; the session is ending
        if written < len(data):
            self._queue_input(data[written:])

    def _queue_input(self, data: bytes) -> None:
        if self.master is None:
            return
        room = MAX_PENDING_INPUT - len(self.pending_input)
        if room <= 0:
            return
        if not self.pending_input:
            self.loop.add_writer(self.master, self._flush_input)
        self.pending_input += data[:room]

    def _flush_input(self) -> None:
        if self.master is None:
            return
        try:
            written = os.write(self.master, self.pending_input)
        except BlockingIOError:
            return
        except OSError:
            written = len(self.pending_input)
        del self.pending_input[:written]
        if not self.pending_input:
            self.loop.remove_writer(self.master)

    def eof_received(self) -> bool:
        return True  # keep the channel open: the app decides when to end

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        if width <= 0 or height <= 0:
            return
        self.request.size = (min(width, 1000), min(height, 1000))
        self.request.pixels = (pixwidth, pixheight)
        if self.master is not None:
            with contextlib.suppress(OSError):
                # The kernel sends SIGWINCH to the app (its controlling tty).
                set_window_size(self.master, self.request.size, self.request.pixels)

    def pause_writing(self) -> None:
        self._stop_reading()

    def resume_writing(self) -> None:
        self._start_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self.client_gone = True
        if self.process is not None and self.process.returncode is None:
            self.end_reason = self.end_reason or "client disconnected"
            # The task's stop_child is awaited by run_session via the hub.
            self.hub.spawn(self.stop_child(signal.SIGHUP))
        self.connection.close()

    # -- the child process ----------------------------------------------------

    async def start_child(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        master, slave = os.openpty()
        try:
            set_window_size(slave, self.request.size, self.request.pixels)
            self.process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=env,
                cwd=cwd,
                start_new_session=True,
                preexec_fn=_take_terminal,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        self.master = master
        self.started_at = time.monotonic()
        self._start_reading()

    def _start_reading(self) -> None:
        if self.master is not None and not self.reading:
            self.loop.add_reader(self.master, self._read_output)
            self.reading = True

    def _stop_reading(self) -> None:
        if self.master is not None and self.reading:
            self.loop.remove_reader(self.master)
            self.reading = False

    def _read_output(self) -> None:
        assert self.master is not None
        try:
            data = os.read(self.master, READ_SIZE)
        except BlockingIOError:
            return
        except OSError as error:
            if error.errno != errno.EIO:  # EIO: every slave closed, the app ended
                log.warning("session %d: reading the app failed: %s", self.number, error)
            data = b""
        if not data:
            self._stop_reading()
            return
        if self.channel is not None and not self.client_gone:
            self.channel.write(data)

    async def wait_child(self) -> int:
        """Wait for the app to end; pass on what it wrote last."""
        assert self.process is not None
        code = await self.process.wait()
        self._drain_output()
        return code

    def _drain_output(self) -> None:
        if self.master is None:
            return
        self._stop_reading()
        while True:
            try:
                data = os.read(self.master, READ_SIZE)
            except OSError:
                break
            if not data:
                break
            if self.channel is not None and not self.client_gone:
                self.channel.write(data)

    async def stop_child(self, first: signal.Signals) -> None:
        """End the app: ``first`` to its process group, SIGKILL after the
        grace period. Safe to call when it has already ended."""
        await stop_process(self.process, first)

    def close_master(self) -> None:
        if self.master is None:
            return
        self._stop_reading()
        if self.pending_input:
            self.loop.remove_writer(self.master)
            self.pending_input.clear()
        os.close(self.master)
        self.master = None

    # -- idle timeout (IdleWatch) ----------------------------------------------------

    def stop_for_idle(self) -> None:
        self.hub.spawn(self.stop_child(signal.SIGTERM))

    # -- the end ----------------------------------------------------------------

    def finish(self, status: int, message: str = "", *, restore: bool = False) -> None:
        """Tell the client ``message`` (after restoring its terminal if the
        server ended the app) and close the channel with ``status``."""
        self.cancel_idle()
        self.close_master()
        channel = self.channel
        if channel is None or self.client_gone:
            return
        text = b""
        if restore:
            text += RESTORE_TERMINAL
        if message:
            newline = b"\r\n" if self.request.has_pty else b"\n"
            text += message.encode("utf-8", "replace") + newline
        with contextlib.suppress(asyncssh.Error, OSError):
            if text:
                channel.write(text)
            channel.exit(status)
