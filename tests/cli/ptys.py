"""A command on a pseudo-terminal that is its session's controlling
terminal, as tmux or sshd give one (issue 24): the screen read through pyte
(tests/ssh/conftest.py's Terminal), the ``passe`` process found among the
command's descendants, and the terminal closed as ``tmux kill-session`` or a
dropped SSH link closes it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from tests.ssh.conftest import TERM, Terminal, _set_size, _take_terminal

REPO = Path(__file__).resolve().parents[2]
START_DEADLINE = 60.0  # seconds; a loaded machine starts Python slowly
EXIT_DEADLINE = 5.0  # seconds from the terminal closing to passe gone (issue 24)
HOME_TEXT = "a table for the three games called Pass"


def passe_binary() -> str:
    script = Path(sys.executable).with_name("passe")
    assert script.exists(), f"no passe script next to {sys.executable}"
    return str(script)


def make_play() -> list[str]:
    """``make play`` in the repository, with the test's venv and without
    reinstalling (``-o``: the install stamp counts as up to date)."""
    bin_dir = Path(sys.executable).parent
    return ["make", "-s", "-C", str(REPO), "-o", ".venv/.installed-app", f"BIN={bin_dir}", "play"]


def environment(config: Path, **extra: str) -> dict[str, str]:
    """Passe's settings and saves in ``config``, its key and rooms beside it."""
    env = {
        **os.environ,
        "PASSE_CONFIG_DIR": str(config),
        "PASSE_DATA_DIR": str(config.with_name(config.name + "-data")),
        "TERM": TERM,
        **extra,
    }
    # Nothing of the test's own run: no colour or size overrides, no broker,
    # and none of the outer make's flags (`make test` runs these tests).
    dropped = ("NO_COLOR", "TEXTUAL", "COLUMNS", "LINES", "PASSE_BROKER")
    for name in (*dropped, "MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(name, None)
    return env


@dataclass
class Ending:
    """How passe ended after its terminal closed."""

    seconds: float  # from the close to the process gone
    cpu: float  # CPU seconds it used after the close, all threads
    # ... of which in threads other than the main one (Textual's input and
    # output threads: where issue 24's spinning was); the main thread's is
    # the clean quit itself and Python's exit.
    background_cpu: float


class PtyCommand:
    """``argv`` as the leader of a new session on a fresh 80x24 pty."""

    def __init__(self, argv: Sequence[str], env: dict[str, str], cwd: Path | None = None) -> None:
        self.terminal = Terminal(80, 24)
        master, slave = os.openpty()
        _set_size(slave, 80, 24)
        self.process = subprocess.Popen(
            list(argv),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=cwd,
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
        os.close(slave)
        os.set_blocking(master, False)
        self.master: int | None = master
        asyncio.get_running_loop().add_reader(master, self._read)

    def _read(self) -> None:
        assert self.master is not None
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

    async def wait_for(self, text: str, timeout: float = START_DEADLINE) -> None:
        await self.terminal.wait_for(text, timeout)

    async def send(self, keys: str) -> None:
        assert self.master is not None
        os.write(self.master, keys.encode())

    def passe(self) -> psutil.Process:
        """The process running Passe: the command itself or a descendant."""
        leader = psutil.Process(self.process.pid)
        for process in [leader, *leader.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                command = " ".join(process.cmdline())
                runs_passe = "bin/passe" in command or "tui.cli" in command
                if runs_passe and process.name() not in ("make", "sh", "dash"):
                    return process
        raise AssertionError(f"no passe process under {leader.cmdline()}")

    def close_terminal(self) -> None:
        """Close the master side: the terminal is gone (as tmux kill-session)."""
        if self.master is not None:
            with contextlib.suppress(ValueError, OSError):
                asyncio.get_running_loop().remove_reader(self.master)
            os.close(self.master)
            self.master = None

    async def hang_up(self, passe: psutil.Process) -> Ending:
        """Close the terminal; wait (at most EXIT_DEADLINE) for ``passe`` to
        end, sampling its CPU time until it is gone."""
        before = cpu_times(passe)
        assert before is not None, "passe ended before its terminal closed"
        self.close_terminal()
        return await ended(passe, before)

    def stop(self) -> None:
        self.close_terminal()
        with contextlib.suppress(psutil.Error):
            for process in psutil.Process(self.process.pid).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    process.kill()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=START_DEADLINE)


def cpu_times(process: psutil.Process) -> tuple[float, float] | None:
    """CPU seconds of the whole process and of its main thread (None once
    it has ended), from /proc/PID/stat and /proc/PID/task/PID/stat."""
    try:
        whole = Path(f"/proc/{process.pid}/stat").read_text()
        main = Path(f"/proc/{process.pid}/task/{process.pid}/stat").read_text()
    except OSError:
        return None
    whole_fields = whole.rpartition(")")[2].split()
    if whole_fields[0] in ("Z", "X"):  # a zombie: it has ended
        return None
    main_fields = main.rpartition(")")[2].split()
    tick = os.sysconf("SC_CLK_TCK")
    # utime and stime are fields 14 and 15 of stat(5); 12 and 13 after ")".
    return (
        (int(whole_fields[11]) + int(whole_fields[12])) / tick,
        (int(main_fields[11]) + int(main_fields[12])) / tick,
    )


async def ended(passe: psutil.Process, before: tuple[float, float]) -> Ending:
    """Wait for ``passe`` to end (EXIT_DEADLINE at most), sampling its CPU."""
    started = time.monotonic()
    last = before
    while (now := cpu_times(passe)) is not None:
        last = now
        waited = time.monotonic() - started
        if waited > EXIT_DEADLINE:
            passe.kill()
            raise AssertionError(
                f"passe still running {waited:.1f} s after its terminal closed, "
                f"having used {last[0] - before[0]:.2f} s of CPU"
            )
        await asyncio.sleep(0.02)
    whole = last[0] - before[0]
    return Ending(time.monotonic() - started, whole, whole - (last[1] - before[1]))
