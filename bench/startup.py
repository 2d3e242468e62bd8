"""Start-up of ``passe`` in a pseudo-terminal, next to a bare Textual app.

Each run launches a fresh process in a pty (80x24, ``TERM=xterm-256color``,
a private empty config directory) and reads what it writes until a known
string of the first screen appears: that is "painted". The bare app
(:mod:`bench.bare_app`, one label) is launched the same way and is the
floor. Runs alternate (passe, bare, passe, ...) after one warm-up each (so
both read compiled bytecode from a warm cache); the figures are medians.

Peak resident memory (``VmHWM`` from ``/proc``, read just before quitting)
is taken at the home screen, and in one more run after Enter has started a
Pass Pass table.

Run alone: ``python -m bench startup [--quick]``.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.bare_app import READY
from bench.common import fmt_ms, machine, table, verdict

HOME_MARKER = "a table for the three games called Pass"
TABLE_MARKER = "Your hand"
COLUMNS, LINES = 80, 24
TIMEOUT = 30.0
TARGET_RATIO = 1.5
TARGET_RSS_MB = 100.0
_CSI = re.compile(rb"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


@dataclass
class Launch:
    seconds: float  # launch to marker seen
    max_rss_mb: float  # peak resident memory of the process
    found: bool


def passe_command() -> list[str]:
    script = Path(sys.executable).with_name("passe")
    if script.exists():
        return [str(script)]
    found = shutil.which("passe")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from tui.cli import main; sys.exit(main())"]


def bare_command() -> list[str]:
    return [sys.executable, str(Path(__file__).with_name("bare_app.py"))]


def environment(config_dir: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL")}
    env.pop("NO_COLOR", None)
    env.update(
        TERM="xterm-256color",
        COLUMNS=str(COLUMNS),
        LINES=str(LINES),
        PASSE_CONFIG_DIR=config_dir,
    )
    return env


def _read_until(fd: int, marker: bytes, buffer: bytearray, deadline: float) -> bool:
    """Read the pty into ``buffer`` until ``marker`` shows in the text
    (escape sequences removed) or the deadline passes."""
    while True:
        if marker in _CSI.sub(b"", bytes(buffer)):
            return True
        left = deadline - time.perf_counter()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child closed the terminal
            return False
        if not chunk:
            return False
        buffer.extend(chunk)


def _drain(fd: int) -> None:
    while select.select([fd], [], [], 0)[0]:
        try:
            if not os.read(fd, 65536):
                return
        except OSError:
            return


def launch(
    command: Sequence[str],
    marker: str,
    env: dict[str, str],
    *,
    then: tuple[bytes, str] | None = None,
) -> Launch:
    """Launch ``command`` in a fresh pty; time until ``marker`` is painted.
    With ``then = (keys, marker2)``, type the keys and wait for the second
    marker too (memory in a game). The process is then stopped and reaped."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    start = time.perf_counter()
    process = subprocess.Popen(
        list(command),
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
        close_fds=True,
    )
    os.close(slave)
    buffer = bytearray()
    found = _read_until(master, marker.encode(), buffer, start + TIMEOUT)
    seconds = time.perf_counter() - start
    if found and then is not None:
        keys, second = then
        buffer.clear()
        os.write(master, keys)
        found = _read_until(master, second.encode(), buffer, time.perf_counter() + TIMEOUT)
        time.sleep(0.3)  # let it settle (bots at the table)
    _drain(master)
    peak_mb = _peak_rss_mb(process.pid)
    os.write(master, b"\x11")  # ctrl+q
    rusage = None
    deadline = time.perf_counter() + 5
    while time.perf_counter() < deadline:
        _drain(master)
        pid, _, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            rusage = usage
            break
        time.sleep(0.02)
    if rusage is None:  # did not quit on ctrl+q (e.g. a confirmation): stop it
        process.send_signal(signal.SIGTERM)
        try:
            _, _, rusage = os.wait4(process.pid, 0)
        except ChildProcessError:
            rusage = None
    process.returncode = 0  # reaped by wait4 above; keep Popen from waiting again
    os.close(master)
    if peak_mb is None:  # no /proc: the kernel's figure (may include the pre-exec parent)
        peak_mb = rusage.ru_maxrss / 1024 if rusage is not None else float("nan")
    return Launch(seconds, peak_mb, found)


def _peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident set (VmHWM) in MiB, while it runs.

    Not ``ru_maxrss``: on Linux that survives ``exec`` and so starts from the
    size of the forking parent (this benchmark process), not of the app."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for entry in status:
                if entry.startswith("VmHWM:"):
                    return int(entry.split()[1]) / 1024
    except OSError:
        return None
    return None


def run(*, quick: bool = False) -> str:
    runs = 3 if quick else 9
    passe, bare = passe_command(), bare_command()
    with tempfile.TemporaryDirectory(prefix="passe-bench-") as config_dir:
        env = environment(config_dir)
        launch(passe, HOME_MARKER, env)  # warm-ups: bytecode and page cache
        launch(bare, READY, env)
        ours: list[Launch] = []
        floor: list[Launch] = []
        for _ in range(runs):
            ours.append(launch(passe, HOME_MARKER, env))
            floor.append(launch(bare, READY, env))
        in_game = launch(passe, HOME_MARKER, env, then=(b"\r", TABLE_MARKER))
    failures = sum(not r.found for r in ours + floor)
    ratios = [a.seconds / b.seconds for a, b in zip(ours, floor, strict=True)]
    ratio = statistics.median(ratios)
    ours_s = statistics.median(r.seconds for r in ours)
    floor_s = statistics.median(r.seconds for r in floor)
    rss_home = statistics.median(r.max_rss_mb for r in ours)
    rss_bare = statistics.median(r.max_rss_mb for r in floor)
    rows = [
        [
            "passe (home screen)",
            str(runs),
            fmt_ms(ours_s),
            fmt_ms(min(r.seconds for r in ours)),
            fmt_ms(max(r.seconds for r in ours)),
            f"{rss_home:.1f}",
        ],
        [
            "bare Textual app (one label)",
            str(runs),
            fmt_ms(floor_s),
            fmt_ms(min(r.seconds for r in floor)),
            fmt_ms(max(r.seconds for r in floor)),
            f"{rss_bare:.1f}",
        ],
        [
            "passe, then Enter: Pass Pass table",
            "1",
            "",
            "",
            "",
            f"{in_game.max_rss_mb:.1f}" + ("" if in_game.found else " (table not seen)"),
        ],
    ]
    out = [
        f"{runs} alternating runs after one warm-up each, pty {COLUMNS}x{LINES}, "
        f"TERM=xterm-256color; machine: {machine()}\n",
        table(
            "Start-up: launch to first screen painted",
            ["process", "runs", "median ms", "min ms", "max ms", "peak RSS MiB"],
            rows,
        ),
        table(
            "Start-up targets",
            ["figure", "value", "target", ""],
            [
                [
                    "passe / bare app start-up (median of paired ratios)",
                    f"{ratio:.2f}x",
                    f"<= {TARGET_RATIO}x",
                    verdict(ratio, TARGET_RATIO, at_least=False),
                ],
                [
                    "peak RSS at the home screen",
                    f"{rss_home:.1f} MiB",
                    f"< {TARGET_RSS_MB:g} MB",
                    verdict(rss_home, TARGET_RSS_MB, at_least=False),
                ],
                [
                    "peak RSS at a Pass Pass table",
                    f"{in_game.max_rss_mb:.1f} MiB",
                    f"< {TARGET_RSS_MB:g} MB",
                    verdict(in_game.max_rss_mb, TARGET_RSS_MB, at_least=False),
                ],
            ],
        ),
    ]
    if failures:
        out.append(f"WARNING: {failures} runs never showed their marker within {TIMEOUT:g} s\n")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench startup", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer runs")
    args: Any = parser.parse_args(argv)
    print(run(quick=args.quick))


if __name__ == "__main__":
    main()
