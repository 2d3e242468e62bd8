"""Text from the network, made safe to show and to log (issue 19, item 1).

Anything a peer, a squatter or an old host sends (names, notices, refusal
reasons, the strings inside views and events) is *text*: it is shown as what
it says, never interpreted by the terminal. :func:`clean_text` removes what
a terminal would act on or draw misleadingly:

* escape sequences as a whole (CSI ``ESC [ … final``, OSC ``ESC ] … BEL``,
  DCS/SOS/PM/APC ``… ESC \\``, two-character ``ESC x``; also their 8-bit C1
  forms), so ``"\\x1b]0;PWNED\\x07"`` (set the window title) leaves nothing;
* every other control and format character (C0, DEL, C1; bidi embeddings,
  overrides, isolates and marks U+202A-202E, U+2066-2069, U+200E/F, U+061C;
  zero-width joiners and spaces, soft hyphens, tags), surrogates, private-use
  and unassigned code points, and emoji variation selectors: a terminal draws
  these differently from how widths are counted, or reorders the text around
  them;
* more than two combining marks on one character (stacked marks spill onto
  the lines above and below) and marks with nothing to combine with;
* line breaks and other spaces: runs of whitespace read as one space.

The result is bounded in terminal cells (Rich's cell widths: CJK and emoji
take two), not in code points. Markup is *not* removed: ``[/]`` is a fine
name. Escaping markup belongs to the screen (``tui/``), which knows its markup
dialect; what this module returns must still be shown as text there.

:func:`clean_name` is the one name cleaner (the authority on Hello, the TUI's
name field and settings, saved rooms, every name a peer reads).
:class:`SafeFormatter` keeps log lines free of escapes whatever they quote.
"""

from __future__ import annotations

import logging
import re
import unicodedata

from rich.cells import cell_len, set_cell_size

# The one name length, in terminal cells. 16, not 12: the authority has
# accepted 16 since the first protocol version, so saved rooms and other
# hosts' seats hold names that long, and every panel fits a name with "…"
# (tui/widgets/fit.py) anyway; counted in cells, a CJK name keeps 8 characters.
NAME_CELLS = 16
# Bounds for the other texts from the network: a notice or reason is one line.
TEXT_CELLS = 400
MAX_MARKS = 2  # combining marks kept on one character

# ESC-introduced sequences, 7-bit and 8-bit (ECMA-48): CSI with its
# parameters, string sequences up to their terminator (or the end), and any
# other ESC + one character.
_ESCAPES = re.compile(
    r"""
    (?:\x1b\[|\x9b)[\x20-\x3f]*[\x40-\x7e]?          # CSI … final
    | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])          # OSC, DCS, SOS, PM, APC …
      [^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?           # … up to BEL or ST
    | \x1b[\x20-\x2f]*[\x30-\x7e]?                     # ESC (intermediates) final
    """,
    re.VERBOSE,
)
# Categories never shown: controls, format characters (bidi, zero-width),
# surrogates, private use, unassigned.
_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
# Variation selectors: VS1-16 and the supplement (emoji vs text presentation,
# whose width terminals disagree on).
_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")


def clean_text(text: str, cells: int = TEXT_CELLS) -> str:
    """``text`` with nothing a terminal would interpret or draw wrongly (see
    the module's docstring), on one line, at most ``cells`` terminal cells."""
    if (
        len(text) <= cells
        and text.isascii()
        and text.isprintable()
        and "  " not in text
        and text == text.strip()
    ):
        return text  # the usual case (card codes, notations, most names): as it is
    text = _ESCAPES.sub("", text)
    text = _SELECTORS.sub("", text)
    shown = "".join(
        " " if char.isspace() else char
        for char in text
        if char.isspace() or unicodedata.category(char) not in _DROPPED
    )
    # Composed once what is dropped no longer stands between a letter and
    # its accent: the result cleans to itself (a saved name is checked so).
    kept: list[str] = []
    marks = MAX_MARKS  # none may come before a character to combine with
    for char in unicodedata.normalize("NFC", shown):
        if char == " ":
            marks = MAX_MARKS
        elif unicodedata.category(char)[0] == "M":
            if marks >= MAX_MARKS:
                continue
            marks += 1
        else:
            marks = 0
        kept.append(char)
    cleaned = " ".join("".join(kept).split())
    if cell_len(cleaned) > cells:
        cleaned = set_cell_size(cleaned, cells).rstrip()
    return cleaned


def clean_name(text: str, default: str = "Player") -> str:
    """A display name from any text: :func:`clean_text` within
    :data:`NAME_CELLS`, or ``default`` when nothing is left."""
    return clean_text(text, NAME_CELLS) or default


def name_key(name: str) -> str:
    """What two names are compared by: "ada", "Ada" and "Ａｄａ" (full width)
    are one name to a reader, so one to the table (issue 18)."""
    return unicodedata.normalize("NFKC", clean_text(name)).casefold()


# What msgpack decodes that holds no text: passed as it is without a call
# (most of a view's nodes are numbers; a view has ~250 of them).
_NO_TEXT = frozenset({int, float, bool, bytes, type(None)})


def clean_tree(data: object, cells: int = TEXT_CELLS) -> object:
    """``data`` (plain msgpack data: maps, lists, text, numbers) with every
    text in it cleaned, keys included."""
    kind = type(data)
    if kind in _NO_TEXT:
        return data
    if isinstance(data, str):
        return clean_text(data, cells)
    if isinstance(data, dict):
        return {
            clean_text(key, cells) if type(key) is str else _clean_key(key, cells): (
                value if type(value) in _NO_TEXT else clean_tree(value, cells)
            )
            for key, value in data.items()
        }
    if isinstance(data, (list, tuple)):
        # Every view and event is walked before decoding: a call per number
        # was 60 % of the walk (cProfile of the move benchmark, issue 20).
        return [item if type(item) in _NO_TEXT else clean_tree(item, cells) for item in data]
    return data


def _clean_key(key: object, cells: int) -> object:
    """A map key that is not text, cleaned and still hashable: msgpack
    decodes an array used as a key to a tuple (a list as a key was a
    TypeError from any sender's nested map)."""
    if type(key) is str:
        return clean_text(key, cells)
    if isinstance(key, tuple):
        return tuple(_clean_key(item, cells) for item in key)
    return key


def log_safe(text: str) -> str:
    """``text`` for a log line: every character that is not printable is
    written as its escape (``\\x1b``, ``\\u202e``), as ``repr`` does, so a
    log read in a terminal cannot act on it, and nothing is lost either.
    Line breaks and tabs stay (tracebacks)."""
    if text.isprintable():
        return text
    return "".join(
        char
        if char.isprintable() or char in "\n\t"
        else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


def quote(text: str) -> str:
    """``text`` in quotes for a message to a person: as typed where it is
    printable (``'á'``, not ``'\\xe1'``: issue 18), else escaped, as in a
    log line (``'\\x1b'``)."""
    return f"'{log_safe(text)}'"


class SafeFormatter(logging.Formatter):
    """A formatter whose lines carry no terminal escapes, whatever a message
    quotes from the network (a topic, a name, a reason): see :func:`log_safe`."""

    def format(self, record: logging.LogRecord) -> str:
        return log_safe(super().format(record))


def safe_last_resort() -> None:
    """Where no logging is configured (the app on screen), Python writes
    warnings to stderr through ``logging.lastResort``: the terminal, once the
    app has let it go (a room closing after the screen ended). Through a
    :class:`SafeFormatter` too."""
    if logging.lastResort is not None and not isinstance(
        logging.lastResort.formatter, SafeFormatter
    ):
        logging.lastResort.setFormatter(SafeFormatter("%(message)s"))


def safe_logging(level: int, fmt: str, path: str | None = None) -> None:
    """``logging.basicConfig`` with a :class:`SafeFormatter`: to stderr, or
    appended to the file ``path`` (the app on screen owns the terminal)."""
    handler: logging.Handler = (
        logging.StreamHandler() if path is None else logging.FileHandler(path, encoding="utf-8")
    )
    handler.setFormatter(SafeFormatter(fmt))
    logging.basicConfig(level=level, handlers=[handler])


__all__ = [
    "NAME_CELLS",
    "TEXT_CELLS",
    "SafeFormatter",
    "clean_name",
    "clean_text",
    "clean_tree",
    "log_safe",
    "name_key",
    "quote",
    "safe_last_resort",
    "safe_logging",
]
