"""A TCP relay that holds every byte a fixed time in each direction: a LAN's
link latency on a machine where ``tc netem`` is missing (no kernel module).

    python -m bench.link_delay --to HOST:PORT --delay-ms D

prints the port it listens on (127.0.0.1), then relays each connection to
``HOST:PORT``, every chunk read on one side written to the other ``D`` ms
after it was read, in order. Each client of a broker reached through it
sits, in effect, on a link whose one-way latency is ``D`` (the relay's own
cost, about the same with ``--delay-ms 0``, comes on top: measure it too).

Threads, not an event loop: a thread's ``time.sleep`` wakes within tens of
microseconds, where asyncio's timers round up to the millisecond (epoll).
Its own process, so that its work does not share a loop or a GIL with
what it measures. Toxiproxy does this and more, but it is a Go program
outside this machine's registries (PyPI, Debian, npm).
"""

from __future__ import annotations

import argparse
import contextlib
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

CHUNK = 65536


def _pump(source: socket.socket, target: socket.socket, delay: float) -> None:
    """Read from ``source``, write to ``target`` ``delay`` seconds later."""
    held: queue.SimpleQueue[tuple[float, bytes]] = queue.SimpleQueue()

    def write() -> None:
        while True:
            due, data = held.get()
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            if not data:
                with contextlib.suppress(OSError):
                    target.shutdown(socket.SHUT_WR)
                return
            try:
                target.sendall(data)
            except OSError:
                return

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    while True:
        try:
            data = source.recv(CHUNK)
        except OSError:
            data = b""
        held.put((time.monotonic() + delay, data))
        if not data:
            break
    writer.join()


def _relay(client: socket.socket, upstream: tuple[str, int], delay: float) -> None:
    try:
        server = socket.create_connection(upstream)
    except OSError:
        client.close()
        return
    for each in (client, server):
        each.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    back = threading.Thread(target=_pump, args=(server, client, delay), daemon=True)
    back.start()
    _pump(client, server, delay)
    back.join()
    client.close()
    server.close()


def serve(upstream: tuple[str, int], delay: float) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    print(listener.getsockname()[1], flush=True)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_relay, args=(client, upstream, delay), daemon=True).start()


@contextlib.contextmanager
def delayed(host: str, port: int, delay_ms: float) -> Iterator[tuple[str, int]]:
    """A relay to ``host:port`` with ``delay_ms`` each way, running: the
    address to connect to instead."""
    command = [sys.executable, "-m", "bench.link_delay", "--to", f"{host}:{port}"]
    relay = subprocess.Popen([*command, "--delay-ms", str(delay_ms)], stdout=subprocess.PIPE)
    try:
        assert relay.stdout is not None
        line = relay.stdout.readline()
        if not line.strip().isdigit():
            raise RuntimeError(f"the delaying relay did not start: {line!r}")
        yield "127.0.0.1", int(line)
    finally:
        relay.kill()
        relay.wait()


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench.link_delay")
    parser.add_argument("--to", required=True, help="HOST:PORT to relay to")
    parser.add_argument("--delay-ms", type=float, required=True, help="one-way delay")
    args = parser.parse_args()
    host, _, port = args.to.rpartition(":")
    if not port.isdigit() or args.delay_ms < 0:
        parser.error("--to HOST:PORT and a --delay-ms of 0 or more")
    serve((host, int(port)), args.delay_ms / 1000)


if __name__ == "__main__":
    main()
