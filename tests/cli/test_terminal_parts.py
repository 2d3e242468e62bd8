"""The parts of issue 24's fix, alone: the driver's output file and the
headless streams report a failed write once, as a hangup, and drop the
rest; the driver really wraps Textual's output file (a Textual upgrade that
renames it must fail here, not silently bring the spinning back)."""

from __future__ import annotations

import errno
import io
import os
import signal
from pathlib import Path

from tui.app import PasseApp
from tui.driver import PasseDriver, TerminalInput, _TerminalOutput
from tui.terminal import GuardedStream, Shutdown


class DeadTerminal(io.StringIO):
    """A stream whose writes fail as a hung-up terminal's do."""

    def write(self, text: str) -> int:
        raise OSError(errno.EIO, "Input/output error")


def test_a_failed_write_to_the_terminal_is_one_hangup_and_drops_the_rest() -> None:
    reasons: list[str] = []
    output = _TerminalOutput(DeadTerminal(), reasons.append)
    assert output.write("frame 1") == len("frame 1")  # no exception: the thread lives
    output.write("frame 2")
    output.flush()
    assert len(reasons) == 1 and "Input/output error" in reasons[0]
    assert not output.isatty()


def test_a_headless_stream_that_fails_is_a_hangup() -> None:
    shutdown = Shutdown()
    calls: list[str] = []

    def hangup(reason: str) -> None:
        calls.append(reason)

    shutdown.hangup = hangup  # type: ignore[method-assign]
    stream = GuardedStream(DeadTerminal(), shutdown)
    stream.write('{"event": "over"}\n')
    stream.flush()
    stream.write("more\n")
    assert len(calls) == 1 and "standard output" in calls[0]


async def test_the_driver_wraps_textuals_output_file(tmp_path: Path) -> None:
    saved = {number: signal.getsignal(number) for number in (signal.SIGTSTP, signal.SIGCONT)}
    try:
        app = PasseApp(config_path=tmp_path / "config", handle_signals=True)
        assert app.driver_class is PasseDriver
        driver = PasseDriver(app)
        assert isinstance(driver._file, _TerminalOutput)
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


def _keys(terminal: TerminalInput, data: bytes) -> list[str]:
    return [str(getattr(event, "key", "")) for event in terminal.feed(data)]


def test_bytes_that_are_not_utf_8_are_keys_not_a_crash() -> None:
    """A byte that is not UTF-8 (a Latin-1 terminal, an Alt key sent as
    8-bit) ended Passe with a UnicodeDecodeError in the input thread; a
    sequence cut between two reads fed the parser empty text, which it
    takes for the end of its input (ParseError): both found in a play-test.
    Now a bad byte is U+FFFD, a cut sequence waits for its end, and the
    keys around them come through."""
    terminal = TerminalInput()
    assert _keys(terminal, b"\x82") == ["replacement_character"]
    assert _keys(terminal, b"\xe9") == []  # the start of a sequence: it waits
    assert _keys(terminal, b"\x82") == []  # still not whole
    assert _keys(terminal, b"a") == ["replacement_character", "a"]  # never whole: replaced
    assert _keys(terminal, b"\xc3") == []
    assert _keys(terminal, b"\xa9") == ["\u00e9"]  # é, cut between two reads
    assert _keys(terminal, b"\x1b[A") == ["up"]


def test_the_log_file_keeps_passe_s_lines_not_the_markdown_parser_s(tmp_path: Path) -> None:
    """A play-test (7 December): with PASSE_LOG=debug, opening the rules
    wrote 3,889 lines of the markdown parser's tokens into the log file,
    of a log of 4,602. Passe's debug lines stay; the parser's debug go."""
    import subprocess
    import sys

    log = tmp_path / "passe.log"
    script = (
        "import logging; from tui.terminal import log_to_file; log_to_file(); "
        "logging.getLogger('markdown_it.rules_block').debug('a token'); "
        "logging.getLogger('passe.net').debug('a Passe line')"
    )
    env = {**os.environ, "PASSE_LOG_FILE": str(log), "PASSE_LOG": "debug"}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=Path.cwd())
    text = log.read_text()
    assert "a Passe line" in text and "a token" not in text, text
