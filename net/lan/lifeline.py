"""How a helper child process (the embedded broker, the mDNS advertiser)
knows to stop: its standard input closes, or a SIGTERM or SIGINT arrives.

The parent keeps the write end of the child's stdin pipe; when the parent
dies, even by SIGKILL, the kernel closes it, so the child never outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading


def _wait_for_stdin_eof(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """In a thread: read standard input to its end, then ask to stop. A
    blocking read works on every kind of stdin (pipe, tty, /dev/null, file)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        while os.read(sys.stdin.fileno(), 4096):
            pass
    with contextlib.suppress(RuntimeError):  # the loop has already closed
        loop.call_soon_threadsafe(stop.set)


def stop_signal() -> asyncio.Event:
    """An event of the running loop, set when stdin closes or on SIGTERM or
    SIGINT."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    threading.Thread(target=_wait_for_stdin_eof, args=(loop, stop), daemon=True).start()
    return stop


__all__ = ["stop_signal"]
