"""net/protocol/text.py: text from the network is shown as text (issue 19, item 1)."""

from __future__ import annotations

import logging
import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.markup import escape
from rich.text import Text

from net.protocol.text import (
    NAME_CELLS,
    SafeFormatter,
    clean_name,
    clean_text,
    clean_tree,
    log_safe,
    name_key,
)

ATTACKS = [
    "[/]",
    "[bold red]x",
    "\x1b]0;PWNED\x07",
    "\x1b[2J",
    "\u202eevil\u202c",
    "a\u2066b\u2069c\u200e\u200f\u061c",
    "\x9b2J",
    "\x1bP1$r\x1b\\",
]
BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


def shown_safely(text: str) -> bool:
    """No character a terminal acts on or draws unlike its counted width."""
    return all(
        unicodedata.category(char) not in ("Cc", "Cf", "Cs", "Co", "Cn")
        and char not in BIDI
        and not ("\ufe00" <= char <= "\ufe0f")
        and (char == " " or not char.isspace())
        for char in text
    )


@given(st.text(), st.integers(min_value=0, max_value=60))
@example("\x1b]0;PWNED\x07", NAME_CELLS)
@example("e\u200d\u0301", 5)
@example("漢字" * 20, 7)
@example("\\[", 2)
@example("[/]", 3)
@settings(max_examples=400)
def test_clean_text_leaves_nothing_to_interpret(text: str, cells: int) -> None:
    cleaned = clean_text(text, cells)
    assert shown_safely(cleaned)
    assert "\x1b" not in cleaned
    assert cell_len(cleaned) <= cells
    assert cleaned == " ".join(cleaned.split())  # one line, single spaces
    assert clean_text(cleaned, cells) == cleaned  # a cleaned text stays as it is
    # Shown by Rich as a Text (how tui/ shows it), it reads as exactly that.
    assert Text.assemble(("x", "bold"), cleaned, "!").plain == f"x{cleaned}!"
    # Escaped into Rich markup it shows as written, but for backslashes
    # before "[": rich.markup.escape is not exact (hypothesis found "\\[" +
    # "[/b]" and a final "\\"), which is why tui/ never builds markup strings.
    if "\\" not in cleaned:
        assert Text.from_markup(f"[b]{escape(cleaned)}[/b]!").plain == cleaned + "!"


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
@settings(max_examples=300)
def test_clean_name_is_a_bounded_printable_name(text: str) -> None:
    name = clean_name(text)
    assert name
    assert shown_safely(name)
    assert cell_len(name) <= NAME_CELLS
    assert clean_name(name) == name


@given(st.text())
def test_printable_words_are_kept(text: str) -> None:
    """Ordinary text (letters, digits, punctuation, markup) is not changed."""
    words = " ".join("".join(c for c in text if c.isascii() and c.isprintable()).split())
    assert clean_text(words) == words


def test_the_attacks_of_issue_19_are_neutralised() -> None:
    assert clean_name("[/]") == "[/]"  # markup stays text: escaped where shown
    assert clean_name("[bold red]x") == "[bold red]x"
    assert clean_name("\x1b]0;PWNED\x07") == "Player"  # the whole sequence goes
    assert clean_name("\x1b[2J") == "Player"
    assert clean_name("\x1b[31mRed\x1b[0m Ada") == "Red Ada"
    assert clean_name("\u202eevil\u202c") == "evil"
    assert clean_name("a\u2066b\u2069c\u200e\u200f\u061c") == "abc"
    assert clean_name("\x9b2JBob") == "Bob"
    assert clean_name("\x1bP1$r\x1b\\Eve") == "Eve"
    assert clean_name("  Ada \n\t Lovelace  ") == "Ada Lovelace"
    assert clean_name("", default="You") == "You"


def test_names_are_bounded_in_cells_not_characters() -> None:
    assert clean_name("Maximilian Alexander") == "Maximilian Alexa"
    assert clean_name("漢字" * 10) == "漢字" * 4  # two cells each: 8 characters
    assert cell_len(clean_name("a" + "漢" * 10)) == 15  # no half of a wide character
    # Stacked accents do not spill over the lines around.
    assert clean_name("Zo" + "\u0301" * 50 + "e") == "Zó\u0301\u0301e"


def test_names_compare_as_a_reader_reads_them() -> None:
    assert name_key("ada") == name_key("Ada") == name_key("ＡＤＡ") == name_key("A\u200bda")
    assert name_key("Ada") != name_key("Adam")


def test_clean_tree_cleans_every_text() -> None:
    data = {"a\x1b[2J": ["x\u202e", 3, {"k": "\x07y"}], "n": None}
    assert clean_tree(data) == {"a": ["x", 3, {"k": "y"}], "n": None}


@given(st.text())
def test_log_lines_carry_no_escape_and_lose_nothing(text: str) -> None:
    line = log_safe(text)
    assert all(char.isprintable() or char in "\n\t" for char in line)
    if text.isprintable():
        assert line == text


def test_the_formatter_escapes_what_a_message_quotes() -> None:
    record = logging.LogRecord(
        "passe", logging.WARNING, __file__, 1, "%s took seat %d", ("\x1b]0;PWNED\x07", 2), None
    )
    assert SafeFormatter("%(message)s").format(record) == "\\x1b]0;PWNED\\x07 took seat 2"


def test_warnings_without_configured_logging_are_escaped_too() -> None:
    """The app on screen configures no logging: Python's last resort writes
    to stderr, the terminal once the app has let it go (issue 19)."""
    from tui.app import PasseApp

    PasseApp()
    assert logging.lastResort is not None
    record = logging.LogRecord(
        "passe", logging.WARNING, __file__, 1, "dropped %s", ("\x1b[2J",), None
    )
    assert logging.lastResort.format(record) == "dropped \\x1b[2J"


# -- each rule at its edge (mutation testing of net/protocol/text.py) --------


def test_what_is_removed_leaves_nothing_in_its_place() -> None:
    assert clean_text("ok\ufe0f") == "ok"  # a variation selector: dropped, not replaced
    assert clean_text("\u2764\ufe0f Ada") == "\u2764 Ada"
    assert clean_text("Ada\nLovelace") == "Ada Lovelace"  # a line break reads as a space
    assert clean_text("Ada\u2003Lovelace") == "Ada Lovelace"  # so does any other space
    assert clean_text("Ada  Lovelace") == "Ada Lovelace"  # ASCII, printable: still one space


def test_a_mark_needs_a_character_to_combine_with() -> None:
    assert clean_text("\u0301Ada") == "Ada"  # nothing before it
    assert clean_text("Ada \u0301\u0301Bo") == "Ada Bo"  # a space before it
    assert clean_text("Ada\n\u0301Bo") == "Ada Bo"  # a line break is a space here too
    assert clean_text("q\u0301\u0302\u0303 q\u0301") == "q\u0301\u0302 q\u0301"  # two kept


def test_clean_tree_keeps_what_holds_no_text_and_passes_its_bound_down() -> None:
    data = {1: "x\x1b[2J", "k\x07": [b"raw", 2.5, True, None], (2, ("a\x07", 3)): "t"}
    assert clean_tree(data) == {1: "x", "k": [b"raw", 2.5, True, None], (2, ("a", 3)): "t"}
    nested = {"abcdef": ["abcdef", {"abcdef": "abcdef", 7: "abcdef"}], 8: ("abcdef",)}
    assert clean_tree(nested, 3) == {"abc": ["abc", {"abc": "abc", 7: "abc"}], 8: ["abc"]}
    assert clean_tree("abcdef", 2) == "ab"
    assert clean_tree({("abcdef", 1): 0}, 3) == {("abc", 1): 0}


def test_a_log_line_keeps_printable_text_as_typed_and_escapes_the_rest() -> None:
    assert log_safe("Zoë\x1b[2J\n\tok") == "Zoë\\x1b[2J\n\tok"
    assert log_safe("\u202eevil") == "\\u202eevil"


def test_the_last_resort_is_made_safe_once_and_none_is_no_error() -> None:
    from net.protocol.text import safe_last_resort

    kept = logging.lastResort
    try:
        logging.lastResort = None
        safe_last_resort()  # a program that removed it: nothing to do
        logging.lastResort = logging.StreamHandler()
        safe_last_resort()
        formatter = logging.lastResort.formatter
        assert isinstance(formatter, SafeFormatter)
        safe_last_resort()
        assert logging.lastResort.formatter is formatter
    finally:
        logging.lastResort = kept


def test_safe_logging_writes_escaped_lines_to_a_file_or_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from net.protocol.text import safe_logging

    root = logging.getLogger()
    kept = root.handlers[:], root.level
    try:
        for path in (str(tmp_path / "passe.log"), None):
            root.handlers.clear()
            safe_logging(logging.INFO, "%(levelname)s %(message)s", path)
            assert root.level == logging.INFO
            logging.getLogger("passe.test").info("name %s", "\x1b]0;PWNED\x07")
            logging.getLogger("passe.test").debug("not written")
            for handler in root.handlers:
                handler.close()
        assert (tmp_path / "passe.log").read_text(encoding="utf-8") == (
            "INFO name \\x1b]0;PWNED\\x07\n"
        )
        assert capsys.readouterr().err == "INFO name \\x1b]0;PWNED\\x07\n"
    finally:
        root.handlers[:], _ = kept
        root.setLevel(kept[1])
