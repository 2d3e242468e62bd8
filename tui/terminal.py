"""Ending Passe when asked to or when its terminal goes away (issue 24).

A closed terminal must end Passe whoever got the hangup signal. Under
``make play``, ``sh -c 'passe | cat'``, a wrapper script or ``uv run``, the
kernel's SIGHUP goes to the session leader (make, the shell, the wrapper),
never to ``passe``, which is left with a hung-up terminal: reads return
end-of-file, writes fail with EIO. Textual's Linux driver (8.x) never treats
that as the end: its input thread selects the terminal, which is always
readable, reads nothing and goes round again at full speed; its output
thread dies on the first EIO, and once its queue of 30 writes is full the
app's own thread blocks for ever in ``Queue.put``, where no signal handler
of the event loop can run (the SIGTERM "ignored" of issue 24).

:class:`Shutdown` is the one way out of the process: the first SIGTERM or
SIGHUP, or a vanished terminal (which counts as SIGHUP), starts a clean quit
(the app saves and leaves its room as on SIGHUP) that must end within
:data:`GRACE_SECONDS`, else the process ends anyway; a second signal ends it
at once. :class:`tui.driver.PasseDriver` is Textual's driver with an input
loop that stops at end-of-file or EIO and an output stream that reports a
failed write instead of dying; both report the hangup to the app's
:class:`Shutdown`. The headless modes and the SSH server (which must not
load Textual: this module does not) watch their own standard streams with
:func:`watch_streams` and :class:`GuardedStream`.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import select
import signal
import stat
import sys
import termios
import threading
from collections.abc import Callable, Iterable
from types import FrameType
from typing import IO, Any

# Seconds a clean quit may take (saving, telling the room, closing the
# broker link) before the process ends without it. The SSH server waits
# longer (tui/serve/session.py GRACE_SECONDS) before its SIGKILL.
GRACE_SECONDS = 3.0
QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
# What Textual writes when it leaves application mode: written when the
# process must end before Textual could, so a live terminal is usable again.
RESTORE_TERMINAL = (
    b"\x1b[<u"  # kitty keyboard protocol: pop
    b"\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l"  # mouse reporting off
    b"\x1b[?2004l"  # bracketed paste off
    b"\x1b[?1004l"  # focus events off
    b"\x1b[?7h"  # line wrap on
    b"\x1b[?1049l"  # leave the alternate screen
    b"\x1b[?25h"  # visible cursor
)


def exit_code(signum: int) -> int:
    """128 + the signal's number, as shells report a process it ended."""
    return 128 + signum


class Shutdown:
    """The process's one way out; see the module's docstring.

    ``on_quit(signum)`` runs in the event loop's thread and starts the clean
    quit; the process ends by itself when it is done (the app returns
    :attr:`code`) or, at the latest, :data:`GRACE_SECONDS` later.
    """

    def __init__(self, grace: float = GRACE_SECONDS) -> None:
        self.grace = grace
        self.signum: int | None = None  # what started the quit
        self.terminal_gone = False
        self.reason = ""
        self._lock = threading.RLock()
        self._loop: Any = None
        self._on_quit: Callable[[int], None] = lambda signum: None
        self._terminal_fds: list[int] = []
        self._terminal_path = ""
        self._attributes: list[Any] | None = None
        self._timer: threading.Timer | None = None
        self._signals = 0  # SIGTERM/SIGHUP received
        self._noted = False

    @property
    def code(self) -> int:
        """The exit status of a quit begun here (0 if none was)."""
        return 0 if self.signum is None else exit_code(self.signum)

    def install(
        self,
        loop: Any,
        on_quit: Callable[[int], None],
        streams: Iterable[int] = (0, 1, 2),
    ) -> None:
        """Take SIGTERM and SIGHUP (in the main thread, before the loop
        runs); ``streams``: the standard descriptors, of which those on a
        terminal are silenced when it goes."""
        self._loop = loop
        self._on_quit = on_quit
        if not self._noted:
            self.note_terminal(streams)
        # signal.signal, not loop.add_signal_handler: the handler must run
        # (to end the process) even when the loop is stuck.
        for signum in QUIT_SIGNALS:
            signal.signal(signum, self._on_signal)

    def note_terminal(self, streams: Iterable[int] = (0, 1, 2)) -> None:
        """Which of ``streams`` are on the terminal, and its modes as they
        are now: call it before Textual sets raw mode (the app does, in its
        constructor), so that a forced end gives the terminal back cooked."""
        self._noted = True
        self._terminal_fds = []
        for fd in streams:
            with contextlib.suppress(OSError):
                if os.isatty(fd):
                    self._terminal_fds.append(fd)
        if self._terminal_fds:
            fd = self._terminal_fds[0]
            with contextlib.suppress(OSError, termios.error):
                self._terminal_path = os.ttyname(fd)
                self._attributes = termios.tcgetattr(fd)

    def uninstall(self) -> None:
        for signum in QUIT_SIGNALS:
            with contextlib.suppress(ValueError):
                signal.signal(signum, signal.SIG_DFL)
        if self._timer is not None:
            self._timer.cancel()

    # -- what starts the end ---------------------------------------------------

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        # A second signal ends the process at once. Only signals count: the
        # kernel's SIGHUP to a session leader comes with the end-of-file that
        # hangup() already reported, and is the same event, not a second one.
        if self._signals:
            self.force_exit()
        self._signals += 1
        self.begin(signum)

    def hangup(self, reason: str) -> None:
        """The terminal is gone (EOF or EIO reading it, a failed write, a
        hang-up seen by poll): from any thread. As SIGHUP, once."""
        with self._lock:
            if self.terminal_gone:
                return
            self.terminal_gone = True
            self.reason = reason
            self._silence()
        self.begin(signal.SIGHUP)

    def begin(self, signum: int) -> None:
        """Start the clean quit (once), with its deadline."""
        with self._lock:
            if self.signum is not None:
                return
            self.signum = signum
            self._timer = threading.Timer(self.grace, self.force_exit)
            self._timer.daemon = True
            self._timer.start()
        try:
            self._loop.call_soon_threadsafe(self._on_quit, signum)
        except (AttributeError, RuntimeError):  # no loop yet, or no longer
            self.force_exit()

    # -- the end ---------------------------------------------------------------------

    def _silence(self) -> None:
        """Point the dead terminal's descriptors at /dev/null: whatever
        still writes there (Textual leaving application mode, an exit
        message, Python flushing stdout at exit) succeeds unseen, and the
        exit status stays 128 + SIGHUP, with no traceback."""
        dead = [fd for fd in self._terminal_fds if _hung_up(fd)]
        if not dead:
            return  # e.g. a pipe for output failed, the terminal is still there
        null = os.open(os.devnull, os.O_RDWR)
        try:
            for fd in dead:
                with contextlib.suppress(OSError):
                    os.dup2(null, fd)
        finally:
            os.close(null)

    def force_exit(self) -> None:
        """End the process now: give a live terminal back as Textual would
        (without ever blocking on it), then exit with :attr:`code`."""
        code = self.code or exit_code(signal.SIGTERM)
        if not self.terminal_gone and self._terminal_path:
            with contextlib.suppress(OSError, termios.error):
                # A new open file description: non-blocking for us alone (the
                # shell shares the terminal's own), so a stalled terminal
                # cannot hold the exit.
                fd = os.open(self._terminal_path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
                try:
                    if self._attributes is not None:
                        termios.tcsetattr(fd, termios.TCSANOW, self._attributes)
                    os.write(fd, RESTORE_TERMINAL)
                finally:
                    os.close(fd)
        os._exit(code)


def _hung_up(fd: int) -> bool:
    """Whether the terminal on ``fd`` is gone: poll reports a hang-up or an
    error, or it no longer answers as a terminal (a hung-up tty fails its
    ioctls with EIO)."""
    poller = select.poll()
    poller.register(fd, 0)
    try:
        events = poller.poll(0)
    except OSError:
        return True
    if any(event & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, event in events):
        return True
    try:
        return not os.isatty(fd)
    except OSError:
        return True


# -- headless modes ----------------------------------------------------------------------


class FailSafeStream:
    """A text stream whose first failed write (EPIPE from a reader gone, EIO
    from a terminal gone) is reported once, as ``on_failure(reason)``, and
    whose later output is dropped: no traceback, no dead writer thread."""

    def __init__(self, stream: IO[str], on_failure: Callable[[str], None], what: str) -> None:
        self._stream = stream
        self._on_failure = on_failure
        self._what = what
        self.failed = False

    def write(self, text: str) -> int:
        if not self.failed:
            try:
                self._stream.write(text)
            except (OSError, ValueError) as error:
                self._fail(error)
        return len(text)

    def flush(self) -> None:
        if not self.failed:
            try:
                self._stream.flush()
            except (OSError, ValueError) as error:
                self._fail(error)

    def _fail(self, error: Exception) -> None:
        self.failed = True
        self._on_failure(f"writing to {self._what} failed: {error}")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class GuardedStream(FailSafeStream):
    """``sys.stdout``/``sys.stderr`` of a headless mode: a failed write is a
    hangup (:meth:`Shutdown.hangup`)."""

    def __init__(self, stream: IO[str], shutdown: Shutdown) -> None:
        super().__init__(stream, shutdown.hangup, "standard output")


def watch_streams(shutdown: Shutdown, fds: Iterable[int] = (1, 2)) -> threading.Thread | None:
    """A thread that reports a hangup as soon as one of ``fds`` (those on a
    terminal or a pipe) hangs up or loses its reader, before anything is
    written there: poll with no events asked reports only POLLHUP and
    POLLERR, so the thread sleeps until then and costs nothing."""
    poller = select.poll()
    watched = 0
    for fd in fds:
        with contextlib.suppress(OSError):
            mode = os.fstat(fd).st_mode
            if (stat.S_ISCHR(mode) and os.isatty(fd)) or stat.S_ISFIFO(mode):
                poller.register(fd, 0)
                watched += 1
    if not watched:
        return None

    def watch() -> None:
        while True:
            try:
                events = poller.poll()
            except InterruptedError:
                continue
            except OSError as error:
                if error.errno == errno.EINTR:
                    continue
                return
            if any(
                event & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, event in events
            ):
                shutdown.hangup("standard output hung up")
                return

    thread = threading.Thread(target=watch, name="passe-stream-watch", daemon=True)
    thread.start()
    return thread


def guard_standard_streams(shutdown: Shutdown) -> None:
    """Headless modes: failed writes to stdout/stderr are a hangup."""
    if not isinstance(sys.stdout, GuardedStream) and sys.stdout is not None:
        sys.stdout = GuardedStream(sys.stdout, shutdown)
    if not isinstance(sys.stderr, GuardedStream) and sys.stderr is not None:
        sys.stderr = GuardedStream(sys.stderr, shutdown)


__all__ = [
    "GRACE_SECONDS",
    "QUIT_SIGNALS",
    "FailSafeStream",
    "GuardedStream",
    "Shutdown",
    "exit_code",
    "guard_standard_streams",
    "watch_streams",
]


def log_to_file() -> int | None:
    """``$PASSE_LOG_FILE`` for an app on screen: the screen owns the
    terminal, so what a headless process says on stderr (PASSE_LOG,
    docs/protocol.md) the app appends to this file (for finding out why a
    table did not move). 2 when it cannot be written (said in one line)."""
    log_file = os.environ.get("PASSE_LOG_FILE", "").strip()
    if log_file:
        from net.protocol.text import safe_logging

        wanted = os.environ.get("PASSE_LOG", "info").strip().upper()
        level = logging.getLevelNamesMapping().get(wanted, logging.INFO)
        try:
            safe_logging(level, "%(asctime)s %(name)s: %(message)s", log_file)
            # The rules screen's markdown parser logs every token at debug:
            # 3,889 of a play-tester's 4,602 lines, none of them Passe's.
            logging.getLogger("markdown_it").setLevel(max(level, logging.INFO))
        except OSError as error:
            print(f"passe: cannot write the log file {log_file}: {error}", file=sys.stderr)
            return 2
    return None
