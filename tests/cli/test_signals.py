"""A real ``passe`` process in a pseudo-terminal: SIGTERM (a plain ``kill``,
a system shutdown) and SIGHUP (the terminal gone) quit like a clean quit:
the game is saved and the terminal is given back as it was found (no
alternate screen, no mouse reporting)."""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

import pytest

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"
MOUSE_OFF = (b"\x1b[?1000l", b"\x1b[?1003l", b"\x1b[?1006l")
DEADLINE = 60.0  # seconds; a loaded machine starts Python slowly


class PtyProcess:
    """``passe play`` on the slave side of a pty (80x24); everything it
    writes is collected from the master side."""

    def __init__(self, config: Path) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = {
            **os.environ,
            "PASSE_CONFIG_DIR": str(config),
            "TERM": "xterm-256color",
            "COLUMNS": "80",
            "LINES": "24",
        }
        env.pop("NO_COLOR", None)
        env.pop("TEXTUAL", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tui.cli", "play", "--bot-delay", "30", "--seed", "1"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,  # the pty becomes its controlling terminal
        )
        os.close(slave)
        self.output = bytearray()

    def read_until(self, wanted: bytes, start: int = 0) -> None:
        """Collect output until ``wanted`` appears after ``start``."""
        deadline = time.monotonic() + DEADLINE
        while wanted not in self.output[start:]:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"{wanted!r} never came; got {bytes(self.output[-400:])!r}"
            if not self._read(remaining):
                raise AssertionError(f"the process ended before {wanted!r}")

    def read_to_end(self) -> int:
        """Collect output until the process closes the terminal; its exit code."""
        deadline = time.monotonic() + DEADLINE
        while self._read(max(0.1, deadline - time.monotonic())):
            assert time.monotonic() < deadline, "the process did not exit"
        return self.process.wait(timeout=DEADLINE)

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the slave side is closed, the process is gone
            return False
        self.output.extend(chunk)
        return bool(chunk)

    def send(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=DEADLINE)
        os.close(self.master)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_saves_the_game_and_restores_the_terminal(
    tmp_path: Path, signum: signal.Signals
) -> None:
    config = tmp_path / "config"
    passe = PtyProcess(config)
    try:
        passe.read_until(b"\x1b[?1049h")  # the app took the alternate screen
        passe.read_until(b"Start")  # the home screen is drawn
        passe.send(b"\r")  # start a Pass Pass game
        passe.read_until(b"Your hand")
        save = config / "saved-game.json"
        save.unlink(missing_ok=True)  # the signal itself must save the game
        killed_at = len(passe.output)
        passe.process.send_signal(signum)
        code = passe.read_to_end()
    finally:
        passe.close()
    after = bytes(passe.output[killed_at:])
    assert LEAVE_ALTERNATE_SCREEN in after
    for sequence in MOUSE_OFF:
        assert sequence in after
    assert code == 128 + signum
    saved = json.loads(save.read_text(encoding="utf-8"))
    assert saved["record"]["game"] == "passpass"


# -- bounded: whatever the app is doing, a signal ends it (issue 24) -----------

STUCK_QUIT = """
import asyncio, sys, time
from tui.terminal import Shutdown

async def main() -> None:
    shutdown = Shutdown(grace=float(sys.argv[1]))

    def on_quit(signum: int) -> None:
        print("quitting", signum, flush=True)
        time.sleep(60)  # a clean quit that never ends: the loop is stuck

    shutdown.install(asyncio.get_running_loop(), on_quit)
    print("ready", flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


# faulthandler in the stuck process: a SIGABRT prints every thread's stack,
# which is what a failure needs to say (CI, 3 December: a forced end that
# never came within 10 s, once in ~1,500 runs, not reproduced here).
STUCK_ENV = {**os.environ, "PYTHONFAULTHANDLER": "1"}


def _ended(process: subprocess.Popen[Any], master: int | None = None) -> int:
    """The process's exit code once it has ended; if it is still running
    after :data:`DEADLINE`, it is made to print its threads' stacks, and the
    test fails with them."""
    try:
        return process.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        if master is None:
            output, errors = process.communicate(timeout=DEADLINE)
            stacks = f"{output or ''}{errors or ''}".encode()
        else:
            process.wait(timeout=DEADLINE)
            stacks = b""
            while select.select([master], [], [], 0.2)[0]:
                stacks += os.read(master, 65536)
        raise AssertionError(f"still running after {DEADLINE} s:\n{stacks!r}") from None


def _stuck(grace: float) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", STUCK_QUIT, str(grace)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env=STUCK_ENV,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "ready\n"
    return process


def test_a_clean_quit_that_hangs_ends_after_the_grace_period() -> None:
    process = _stuck(grace=0.5)
    assert process.stdout is not None
    process.send_signal(signal.SIGTERM)
    assert process.stdout.readline() == f"quitting {signal.SIGTERM.value}\n"
    started = time.monotonic()
    assert _ended(process) == 128 + signal.SIGTERM
    assert time.monotonic() - started < 5


def test_a_second_signal_ends_the_process_at_once() -> None:
    process = _stuck(grace=60)
    assert process.stdout is not None
    process.send_signal(signal.SIGHUP)
    assert process.stdout.readline() == f"quitting {signal.SIGHUP.value}\n"
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    assert _ended(process) == 128 + signal.SIGHUP  # the first one's code
    assert time.monotonic() - started < 2


def test_sigterm_with_a_dialog_open_saves_and_exits(tmp_path: Path) -> None:
    config = tmp_path / "config"
    passe = PtyProcess(config)
    try:
        passe.read_until(b"Start")
        passe.send(b"\r")
        passe.read_until(b"Your hand")
        shown = len(passe.output)
        passe.send(b"q")  # the leave dialog, modal
        passe.read_until(b"Leave", shown)
        (config / "saved-game.json").unlink(missing_ok=True)
        passe.process.send_signal(signal.SIGTERM)
        code = passe.read_to_end()
    finally:
        passe.close()
    assert code == 128 + signal.SIGTERM
    assert json.loads((config / "saved-game.json").read_text(encoding="utf-8"))


def test_sighup_after_the_terminal_was_found_gone_is_not_a_second_signal() -> None:
    """A session leader gets the kernel's SIGHUP along with end-of-file on
    its terminal: one event, so the clean quit goes on (seen in an SSH
    guest's app whose server died: it exited at once, unsaved)."""
    script = STUCK_QUIT.replace(
        'print("ready", flush=True)',
        'shutdown.hangup("test"); print("ready", flush=True)',
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script, "3.0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=STUCK_ENV,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "ready\n"
    assert process.stdout.readline() == f"quitting {signal.SIGHUP.value}\n"
    started = time.monotonic()
    process.send_signal(signal.SIGHUP)
    assert _ended(process) == 128 + signal.SIGHUP
    assert time.monotonic() - started > 1.0  # the grace period, not at once


def test_a_process_ended_by_the_grace_period_gives_its_live_terminal_back() -> None:
    """The clean quit hangs with the terminal still there (raw mode, the
    alternate screen): the forced end restores it as Textual would."""
    master, slave = os.openpty()
    attributes = termios.tcgetattr(slave)
    process = subprocess.Popen(
        [sys.executable, "-c", STUCK_QUIT, "0.5"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
        env=STUCK_ENV,
    )
    try:
        raw = termios.tcgetattr(slave)
        output = bytearray()
        deadline = time.monotonic() + DEADLINE
        while b"ready" not in output:
            assert time.monotonic() < deadline, bytes(output)
            if select.select([master], [], [], 1)[0]:
                output += os.read(master, 65536)
        raw[3] &= ~(termios.ECHO | termios.ICANON)  # as an app in raw mode leaves it
        termios.tcsetattr(slave, termios.TCSANOW, raw)
        process.send_signal(signal.SIGTERM)
        assert _ended(process, master) == 128 + signal.SIGTERM
        while select.select([master], [], [], 0.2)[0]:
            output += os.read(master, 65536)
        assert LEAVE_ALTERNATE_SCREEN in output
        assert termios.tcgetattr(slave)[3] == attributes[3]  # cooked mode again
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(slave)
        os.close(master)
