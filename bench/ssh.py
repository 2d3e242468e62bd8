"""``passe serve --ssh``: time from connect to the first screen, and memory
per SSH session, beside a plain ``ssh`` + ``passe`` launch through the
system's OpenSSH server.

Both servers run privately on 127.0.0.1 on a free port: ours with a
throw-away data directory; OpenSSH's ``sshd`` (when the binary exists) with a
throw-away config, host key and client key, running ``passe`` as the login's
command. The client is OpenSSH's ``ssh`` in a pty (80x24,
``TERM=xterm-256color``); a run is timed from the client's launch to the home
screen's title in its output. Runs alternate (ours, sshd, ours, ...) after a
warm-up each; figures are medians.

Memory: with N sessions open at the home screen, the proportional set size
(PSS, shared pages split between their users) of the server and all its
descendants, minus the same with none open, divided by N. RSS of one
session's ``passe`` process is shown too (it counts shared pages whole).

Run alone: ``python -m bench ssh [--quick]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pwd
import re
import select
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import fmt_ms, machine, table
from bench.startup import COLUMNS, HOME_MARKER, LINES, TIMEOUT, _drain, _read_until, passe_command

SESSIONS = 5
SSHD_CANDIDATES = ("/usr/sbin/sshd", "/usr/local/sbin/sshd")


# -- processes and memory -------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            text = (task / "children").read_text()
            found += [int(child) for child in text.split()]
    return found


def _tree(pid: int) -> list[int]:
    pids, todo = [], [pid]
    while todo:
        current = todo.pop()
        pids.append(current)
        todo += _children(current)
    return pids


def _kib(pid: int, field: str, source: str) -> int:
    try:
        text = Path(f"/proc/{pid}/{source}").read_text()
    except OSError:
        return 0
    found = re.search(rf"^{field}:\s+(\d+) kB", text, re.M)
    return int(found.group(1)) if found else 0


def tree_pss_mib(pid: int) -> float:
    return sum(_kib(p, "Pss", "smaps_rollup") for p in _tree(pid)) / 1024


def rss_mib(pid: int) -> float:
    return _kib(pid, "VmRSS", "status") / 1024


# -- a client session ---------------------------------------------------------------------------


@dataclass
class Session:
    process: subprocess.Popen[bytes]
    master: int
    seconds: float  # launch to home screen
    found: bool

    def close(self) -> None:
        os.write(self.master, b"\x11")  # ctrl+q: the app quits, ssh ends with it
        deadline = time.monotonic() + 10
        # Keep reading meanwhile: output nobody reads would stall the app.
        while self.process.poll() is None and time.monotonic() < deadline:
            if select.select([self.master], [], [], 0.05)[0]:
                _drain(self.master)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def open_session(command: list[str]) -> Session:
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color"}
    env.pop("SSH_AUTH_SOCK", None)
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
    )
    os.close(slave)
    found = _read_until(master, HOME_MARKER.encode(), bytearray(), start + TIMEOUT)
    return Session(process, master, time.perf_counter() - start, found)


def ssh_command(port: int, user: str, key: Path | None, *remote: str) -> list[str]:
    ssh = shutil.which("ssh") or "ssh"
    command = [ssh, "-F", "/dev/null", "-p", str(port), "-l", user, "-t"]
    command += ["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"]
    command += ["-o", "LogLevel=ERROR", "-o", "IdentityAgent=none"]
    if key is None:
        command += ["-o", "PubkeyAuthentication=no"]
    else:
        command += ["-i", str(key), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes"]
    return [*command, "127.0.0.1", *remote]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_port(port: int, deadline: float) -> bool:
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return True
        time.sleep(0.05)
    return False


# -- the two servers --------------------------------------------------------------------------


@dataclass
class Server:
    name: str
    process: subprocess.Popen[bytes]
    client: list[str]  # the ssh command that opens one session

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@contextlib.contextmanager
def started_server(work: Path, protocol: str, *arguments: str) -> Iterator[tuple[Server, bytes]]:
    """``passe serve PROTOCOL`` on 127.0.0.1, a free port, a throw-away data
    directory; the server and its banner (up to the line for guests)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PASSE_", "TEXTUAL"))}
    env["PASSE_DATA_DIR"] = str(work / f"passe-data{protocol}")
    command = [*passe_command(), "serve", protocol, "--bind", "127.0.0.1", "--port", "0"]
    log = (work / f"passe-server{protocol}.log").open("wb")
    process = subprocess.Popen([*command, *arguments], stdout=subprocess.PIPE, stderr=log, env=env)
    server = Server(f"passe serve {protocol}", process, [])
    try:  # from here on, whatever happens, the server is stopped
        assert process.stdout is not None
        banner = b""
        while b"Guests " not in banner:  # "Guests connect with" (SSH), "Guests open" (web)
            line = process.stdout.readline()
            if not line:
                raise RuntimeError(f"passe serve {protocol} did not start")
            banner += line
        yield server, banner
    finally:
        server.stop()
        log.close()


@contextlib.contextmanager
def passe_server(work: Path) -> Iterator[Server]:
    with started_server(work, "--ssh") as (server, banner):
        found = re.search(rb"port (\d+)", banner)
        assert found
        server.client = ssh_command(int(found.group(1)), "bench", None)
        yield server


def find_sshd() -> str | None:
    return next((p for p in SSHD_CANDIDATES if os.access(p, os.X_OK)), shutil.which("sshd"))


@contextlib.contextmanager
def system_sshd(work: Path) -> Iterator[Server | str]:
    """A private ``sshd`` (the system's binary) that runs ``passe`` for its
    logins; yields the reason instead when it cannot run here."""
    sshd = find_sshd()
    if sshd is None:
        yield "not available (no sshd binary on this machine)"
        return
    port = _free_port()
    host_key, client_key = work / "sshd_host_key", work / "client_key"
    for path in (host_key, client_key):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    authorized = work / "authorized_keys"
    authorized.write_text(Path(f"{client_key}.pub").read_text())
    os.chmod(authorized, 0o600)
    config_dir = work / "sshd-passe-config"
    config_dir.mkdir()
    passe = " ".join(passe_command())
    # The same environment as our server gives a session: a private config dir.
    force = f"env PASSE_CONFIG_DIR={config_dir} {passe} play"
    config = work / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {host_key}\n"
        f"AuthorizedKeysFile {authorized}\nPasswordAuthentication no\n"
        f"KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
        f"PidFile {work / 'sshd.pid'}\nForceCommand {force}\n"
        "PermitRootLogin yes\nPrintMotd no\nPrintLastLog no\nAcceptEnv TERM\n"
    )
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(exist_ok=True)  # its privilege-separation directory
    log = (work / "sshd.log").open("wb")
    process = subprocess.Popen(
        [sshd, "-D", "-e", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT
    )
    user = pwd.getpwuid(os.geteuid()).pw_name
    server = Server("ssh + passe via system sshd", process, ssh_command(port, user, client_key))
    try:  # from here on, whatever happens, the private sshd is stopped
        if _wait_port(port, time.monotonic() + 10):
            yield server
        else:
            server.stop()
            log.flush()
            detail = (work / "sshd.log").read_text(errors="replace").strip().splitlines()
            yield f"not available (sshd did not start: {detail[-1] if detail else 'no output'})"
    finally:
        server.stop()
        log.close()


# -- measurements ---------------------------------------------------------------------------------


@dataclass
class Figures:
    connects: list[float]
    failures: int
    pss_per_session: float
    rss_passe: float


def connect_once(server: Server) -> tuple[float, bool]:
    session = open_session(server.client)
    session.close()
    return session.seconds, session.found


def memory(server: Server) -> tuple[float, float]:
    """(PSS per session, RSS of one session's passe process), MiB."""
    idle = tree_pss_mib(server.process.pid)
    sessions = [open_session(server.client) for _ in range(SESSIONS)]
    try:
        time.sleep(0.5)  # let the apps settle after painting (timers, first idle GC)
        loaded = tree_pss_mib(server.process.pid)
        passe_pids = [
            p
            for p in _tree(server.process.pid)
            if "tui.cli" in _cmdline(p) or _cmdline(p).endswith("passe play")
        ]
        rss = statistics.median(rss_mib(p) for p in passe_pids) if passe_pids else float("nan")
    finally:
        for session in sessions:
            session.close()
    return (loaded - idle) / SESSIONS, rss


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


def measure(servers: list[Server], runs: int) -> dict[str, Figures]:
    connects: dict[str, list[float]] = {s.name: [] for s in servers}
    failures = dict.fromkeys(connects, 0)
    for server in servers:
        connect_once(server)  # warm-up: bytecode, page cache, host keys
    for _ in range(runs):
        for server in servers:
            seconds, found = connect_once(server)
            connects[server.name].append(seconds)
            failures[server.name] += not found
    figures = {}
    for server in servers:
        pss, rss = memory(server)
        figures[server.name] = Figures(connects[server.name], failures[server.name], pss, rss)
    return figures


def run(*, quick: bool = False) -> str:
    runs = 3 if quick else 9
    if shutil.which("ssh") is None:
        return "ssh family skipped: no `ssh` client (apt-get install openssh-client)\n"
    with tempfile.TemporaryDirectory(prefix="passe-bench-ssh-") as directory:
        work = Path(directory)
        with passe_server(work) as ours, system_sshd(work) as peer:
            servers = [ours] + ([peer] if isinstance(peer, Server) else [])
            figures = measure(servers, runs)
    rows = []
    for name, f in figures.items():
        rows.append(
            [
                name,
                str(len(f.connects)),
                fmt_ms(statistics.median(f.connects)),
                fmt_ms(min(f.connects)),
                fmt_ms(max(f.connects)),
                f"{f.pss_per_session:.1f}",
                f"{f.rss_passe:.1f}",
            ]
        )
    if isinstance(peer, str):
        rows.append(["ssh + passe via system sshd", "", peer, "", "", "", ""])
    out = [
        f"{runs} alternating connects after one warm-up each; memory with {SESSIONS} sessions "
        f"open at the home screen; ssh client in a pty {COLUMNS}x{LINES}, "
        f"TERM=xterm-256color; machine: {machine()}\n",
        table(
            "SSH: connect to first screen, and memory per session",
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
    failed = sum(f.failures for f in figures.values())
    if failed:
        out.append(f"WARNING: {failed} connects never showed the home screen in {TIMEOUT:g} s\n")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench ssh", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer runs")
    args: Any = parser.parse_args(argv)
    print(run(quick=args.quick))


if __name__ == "__main__":
    main()
