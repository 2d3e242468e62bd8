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
