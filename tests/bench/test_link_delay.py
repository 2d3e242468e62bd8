"""The delaying relay of the LAN benchmark (bench/link_delay.py): every byte
arrives, in order, no sooner than the delay each way, and an end of stream
goes through."""

from __future__ import annotations

import socket
import threading
import time

from bench.link_delay import delayed


def _echo_server() -> tuple[socket.socket, threading.Thread]:
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            while data := connection.recv(4096):
                connection.sendall(data)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread


def test_bytes_come_back_whole_in_order_and_no_sooner_than_the_delay_each_way() -> None:
    listener, server = _echo_server()
    delay_ms = 30.0
    address: tuple[str, int] = listener.getsockname()[:2]
    with (
        listener,
        delayed(*address, delay_ms) as (host, port),
        socket.create_connection((host, port), timeout=10) as client,
    ):
        message = bytes(range(256)) * 64  # more than one chunk may carry
        start = time.monotonic()
        client.sendall(message)
        received = b""
        while len(received) < len(message):
            received += client.recv(65536)
        elapsed = time.monotonic() - start
        assert received == message
        # Out to the echo and back: two crossings of the relay.
        assert elapsed >= 2 * delay_ms / 1000
        client.shutdown(socket.SHUT_WR)
        assert client.recv(1) == b""  # the echo's end came back through
    server.join(timeout=10)
    assert not server.is_alive()
