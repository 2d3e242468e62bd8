"""``passe serve --web``: time from a browser's connect to the first screen
painted, and the server's memory per browser session, beside ``passe serve
--ssh`` measured the same way in the same run (bench/ssh.py's client and
memory helpers).

The browser is Debian's ``chromium``, headless, driven by Playwright (never a
downloaded browser build); one browser process for the whole run, a fresh
profile (context) per connect, so each connect loads the page, its script
and font, and starts a new ``passe`` on the server. A connect is timed from
the page's request to the home screen's title in xterm.js's buffer (read by
:data:`TERMINAL_HOOK`, the same hook as tests/web). SSH connects are
OpenSSH's ``ssh`` in a pty, timed to the title in its output. Runs alternate
web, SSH, web, ... after a warm-up each; figures are medians.

Memory: with N sessions open at the home screen, the proportional set size
(PSS) of the server and all its descendants, minus the same with none open,
divided by N; the browser's own memory is the guest's, not counted. RSS of
one session's ``passe`` process is shown too.

Run alone: ``python -m bench web [--quick]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import fmt_ms, machine, table
from bench.ssh import (
    SESSIONS,
    Server,
    _cmdline,
    _tree,
    connect_once,
    passe_server,
    rss_mib,
    started_server,
    tree_pss_mib,
)
from bench.ssh import memory as ssh_memory
from bench.startup import HOME_MARKER, TIMEOUT

CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 1000, "height": 640}

# Runs in the page before textual-serve's script: its terminal object (a
# local of that script) is caught as it is built, at the first assignment
# of one of its fields (``fitAddon``), and kept as window.__passeTerminal.
# ``window.passeScreenText()`` is the screen's text.
TERMINAL_HOOK = """
(() => {
  Object.defineProperty(Object.prototype, "fitAddon", {
    configurable: true,
    set(value) {
      Object.defineProperty(this, "fitAddon", {
        value, writable: true, configurable: true, enumerable: true });
      if (this.terminal && !window.__passeTerminal) {
        window.__passeTerminal = this.terminal;
        if (window.__passeTerminalCaught) window.__passeTerminalCaught(this.terminal);
      }
    },
  });
  window.passeScreenText = () => {
    const terminal = window.__passeTerminal;
    if (!terminal) return "";
    const buffer = terminal.buffer.active, lines = [];
    for (let row = 0; row < terminal.rows; row++) {
      const line = buffer.getLine(buffer.viewportY + row);
      lines.push(line ? line.translateToString(true) : "");
    }
    return lines.join("\\n");
  };
})();
"""


@contextlib.contextmanager
def web_server(work: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``passe serve --web``; (process, link with token)."""
    with started_server(work, "--web", "--max-sessions", str(SESSIONS * 4)) as (server, banner):
        found = re.search(rb"Guests open: (\S+)", banner)
        assert found
        yield server.process, found.group(1).decode()


@dataclass
class Connect:
    context: Any  # the browser profile, to close
    seconds: float  # request to the home screen painted in xterm.js
    page_ready: float  # request to the terminal made (page, script, font loaded)


def open_tab(browser: Any, url: str) -> Connect:
    """A new profile's tab on the table, timed."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(TERMINAL_HOOK)
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_function("() => Boolean(window.__passeTerminal)", polling="raf")
    ready = time.perf_counter() - start
    page.wait_for_function(
        f"() => window.passeScreenText().includes({HOME_MARKER!r})",
        polling="raf",
        timeout=TIMEOUT * 1000,
    )
    return Connect(context, time.perf_counter() - start, ready)


def web_memory(browser: Any, process: subprocess.Popen[bytes], url: str) -> tuple[float, float]:
    """(PSS per session, RSS of one session's passe process), MiB."""
    idle = tree_pss_mib(process.pid)
    contexts = [open_tab(browser, url).context for _ in range(SESSIONS)]
    try:
        time.sleep(0.5)  # let the apps settle after painting, as bench/ssh.py does
        loaded = tree_pss_mib(process.pid)
        pids = [p for p in _tree(process.pid) if "tui.cli" in _cmdline(p)]
        rss = statistics.median(rss_mib(p) for p in pids) if pids else float("nan")
    finally:
        for context in contexts:
            context.close()
    return (loaded - idle) / SESSIONS, rss


def run(*, quick: bool = False) -> str:
    runs = 3 if quick else 9
    if not os.path.exists(CHROMIUM):
        return "web family skipped: no chromium (apt-get install chromium chromium-driver)\n"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "web family skipped: the playwright package is not installed\n"
    web_times: list[float] = []
    page_times: list[float] = []  # of which: the page until its terminal exists
    ssh_times: list[float] = []
    with (
        tempfile.TemporaryDirectory(prefix="passe-bench-web-") as directory,
        sync_playwright() as playwright,
    ):
        work = Path(directory)
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        has_ssh = shutil.which("ssh") is not None
        with web_server(work) as (process, url), contextlib.ExitStack() as stack:
            ssh: Server | None = stack.enter_context(passe_server(work)) if has_ssh else None
            open_tab(browser, url).context.close()  # warm-up: bytecode, page cache
            if ssh is not None:
                connect_once(ssh)
            for _ in range(runs):  # interleaved slices: one web, one SSH
                connect = open_tab(browser, url)
                connect.context.close()
                web_times.append(connect.seconds)
                page_times.append(connect.page_ready)
                if ssh is not None:
                    ssh_times.append(connect_once(ssh)[0])
            web_pss, web_rss = web_memory(browser, process, url)
            ssh_pss, ssh_rss = ssh_memory(ssh) if ssh is not None else (float("nan"),) * 2
        browser.close()
    rows = [
        [
            "passe serve --web (chromium)",
            str(len(web_times)),
            fmt_ms(statistics.median(web_times)),
            fmt_ms(min(web_times)),
            fmt_ms(max(web_times)),
            f"{web_pss:.1f}",
            f"{web_rss:.1f}",
        ]
    ]
    if ssh_times:
        rows.append(
            [
                "passe serve --ssh (ssh)",
                str(len(ssh_times)),
                fmt_ms(statistics.median(ssh_times)),
                fmt_ms(min(ssh_times)),
                fmt_ms(max(ssh_times)),
                f"{ssh_pss:.1f}",
                f"{ssh_rss:.1f}",
            ]
        )
    else:
        rows.append(["passe serve --ssh", "", "no ssh client", "", "", "", ""])
    viewport = f"{VIEWPORT['width']}x{VIEWPORT['height']}"
    return "\n".join(
        [
            f"{runs} interleaved connects (web, SSH) after one warm-up each; memory with "
            f"{SESSIONS} sessions open at the home screen; browser viewport {viewport} CSS px, "
            f"a new profile per connect; machine: {machine()}\n",
            f"Of a web connect's median, {fmt_ms(statistics.median(page_times))} ms pass "
            "before the page's terminal exists (page, script, font); the rest is the "
            "websocket, the app's start and its first screen.\n",
            table(
                "Web and SSH: connect to first screen, and server memory per session",
                [
                    "server",
                    "runs",
                    "median ms",
                    "min ms",
                    "max ms",
                    "PSS MiB / session",
                    "RSS MiB passe",
                ],
                rows,
            ),
        ]
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench web", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer runs")
    args: Any = parser.parse_args(argv)
    print(run(quick=args.quick))


if __name__ == "__main__":
    main()
