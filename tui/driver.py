"""Textual's Linux driver, made to end when its terminal goes away (issue
24; tui/terminal.py tells why). Textual's open pull request #6690 stops
the input loop at end-of-file; nothing upstream yet for the dead writer
thread."""

from __future__ import annotations

import contextlib
import os
import selectors
from codecs import getincrementaldecoder
from collections.abc import Callable
from typing import IO, Any

from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

from tui.terminal import FailSafeStream, Shutdown

READ_SIZE = 4096


class _TerminalOutput(FailSafeStream):
    """The driver's output file, reporting a failed write as a hangup and
    dropping everything after it, instead of killing Textual's writer
    thread (whose queue would then block the app for ever)."""

    def __init__(self, file: IO[str], on_failure: Callable[[str], None]) -> None:
        super().__init__(file, on_failure, "the terminal")

    def fileno(self) -> int:
        return self._stream.fileno()

    def isatty(self) -> bool:
        return not self.failed and self._stream.isatty()


class TerminalInput:
    """The terminal's bytes as Textual's events. Textual's driver decodes
    them strictly, and a byte that is not UTF-8 (a Latin-1 terminal, an
    Alt key sent as 8-bit) raised in its input thread and ended Passe, exit
    code 0 (a play-test); and it fed the parser the empty text of a
    sequence cut between two reads, which the parser takes for the end of
    its input (a second crash). Here a bad byte reads as U+FFFD, and only
    text is fed."""

    def __init__(self, debug: bool = False) -> None:
        from textual._xterm_parser import XTermParser

        self.parser = XTermParser(debug)
        self._decode = getincrementaldecoder("utf-8")(errors="replace").decode

    def feed(self, data: bytes) -> list[Message]:
        text = self._decode(data)
        return list(self.parser.feed(text)) if text else []

    def tick(self) -> list[Message]:
        return list(self.parser.tick())


class PasseDriver(LinuxDriver):
    """Textual's Linux driver, ending at a vanished terminal (issue 24).

    Two changes, through the driver's own extension points (the app's
    ``driver_class``, :meth:`run_input_thread`): the input loop stops at
    end-of-file or EIO and reports the hangup (Textual's loops at full speed
    on end-of-file and panics with a traceback on EIO); the output file
    reports a failed write instead of raising in the writer thread.
    """

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self._passe_debug = bool(kwargs.get("debug", False))
        shutdown = getattr(app, "shutdown", None)
        self._passe_shutdown: Shutdown | None = shutdown if isinstance(shutdown, Shutdown) else None
        # LinuxDriver keeps its output file in ``_file`` (Textual 0.x to 8.x);
        # it is wrapped only where it is that attribute.
        file = getattr(self, "_file", None)
        if file is not None and hasattr(file, "write"):
            self._file = _TerminalOutput(file, self._gone)  # type: ignore[assignment]

    def _gone(self, reason: str) -> None:
        if self._passe_shutdown is not None:
            self._passe_shutdown.hangup(reason)

    def run_input_thread(self) -> None:
        """Textual's input loop (LinuxDriver.run_input_thread), except that
        end-of-file or an error reading the terminal is the terminal gone:
        report it and read no more until the app stops input."""
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        terminal = TerminalInput(self._passe_debug)
        try:
            while not self.exit_event.is_set():
                ready = selector.select(0.1)
                if ready:
                    try:
                        data = os.read(self.fileno, READ_SIZE)
                    except BlockingIOError:
                        data = None  # someone made the terminal non-blocking
                    except OSError as error:
                        self._gone(f"reading the terminal failed: {error}")
                        break
                    if data == b"":
                        self._gone("end of input: the terminal was closed")
                        break
                    if data:
                        for event in terminal.feed(data):
                            self.process_message(event)
                for event in terminal.tick():
                    self.process_message(event)
            else:
                return
            self.exit_event.wait()  # disable_input sets it, then joins us
        finally:
            selector.close()
            with contextlib.suppress(Exception):
                for _event in terminal.parser.feed(""):  # the end of its input
                    pass


__all__ = ["PasseDriver", "TerminalInput"]
