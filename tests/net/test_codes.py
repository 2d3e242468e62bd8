"""Room codes: what people type, what they see, and where they join."""

from __future__ import annotations

import random

import pytest

from net.protocol.codes import (
    ALPHABET,
    CODE_LENGTH,
    CodeError,
    JoinTarget,
    format_code,
    new_code,
    normalize_code,
    parse_join_target,
)


def test_alphabet_is_crockford_base32() -> None:
    assert len(ALPHABET) == 32 == len(set(ALPHABET))
    assert not set("ILOU") & set(ALPHABET)


def test_new_codes_use_the_alphabet_and_are_reproducible_with_a_seed() -> None:
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200  # 32**6 codes: a repeat here would be a broken source
    for code in codes:
        assert len(code) == CODE_LENGTH and set(code) <= set(ALPHABET)
    assert new_code(random.Random(7)) == new_code(random.Random(7))
    assert normalize_code(new_code(random.Random(7))) == new_code(random.Random(7))


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("ABC123", "ABC123"),
        ("abc123", "ABC123"),
        ("AbC-123", "ABC123"),
        (" abc 123 ", "ABC123"),
        ("a-b-c-1-2-3", "ABC123"),
        ("\tabc123\t", "ABC123"),
        # Every ambiguous letter, either case, reads as its digit.
        ("O00000", "000000"),
        ("o0oO0o", "000000"),
        ("I11111", "111111"),
        ("iIlL11", "111111"),
        ("LOL-OIL", "101011"),
        ("zyxwvt", "ZYXWVT"),
    ],
)
def test_normalize_forgives_case_ambiguous_letters_spaces_and_hyphens(
    typed: str, code: str
) -> None:
    assert normalize_code(typed) == code


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("ABCU12", "room codes have 6 characters (letters and digits); 'U' is never used"),
        ("abcu12", "room codes have 6 characters (letters and digits); 'U' is never used"),
        ("ABC!12", "(letters and digits); '!' is not a letter or digit"),
        ("ABC_12", "'_' is not a letter or digit"),
        ("ABCé12", "'é' is not one of them"),  # as typed (issue 18)
        ("ABC12", "'ABC12' has 5"),
        ("ABC1234", "'ABC1234' has 7"),
        ("", "none were typed"),
        (" - ", "none were typed"),
    ],
)
def test_normalize_names_what_is_wrong(typed: str, message: str) -> None:
    with pytest.raises(CodeError) as caught:
        normalize_code(typed)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_normalize_rejects_look_alike_unicode() -> None:
    # Full-width and Cyrillic letters look right on screen but are other characters.
    for typed in ("ＡBC123", "АBC123"):
        with pytest.raises(CodeError):
            normalize_code(typed)


def test_format_splits_in_halves_and_normalize_reads_it_back() -> None:
    assert format_code("abc123") == "ABC-123"
    for seed in range(20):
        code = new_code(random.Random(seed))
        assert normalize_code(format_code(code)) == code
    with pytest.raises(CodeError):
        format_code("ABCDEFG")


@pytest.mark.parametrize(
    ("typed", "target"),
    [
        ("abc123", JoinTarget("ABC123")),
        (" ABC-123 ", JoinTarget("ABC123")),
        ("abc-123@192.168.1.20", JoinTarget("ABC123", "192.168.1.20", 1883)),
        ("abc-123@192.168.1.20:1884", JoinTarget("ABC123", "192.168.1.20", 1884)),
        ("ABC123@gamebox.local", JoinTarget("ABC123", "gamebox.local", 1883)),
        ("ABC123@gamebox:2000", JoinTarget("ABC123", "gamebox", 2000)),
        ("ABC123@[::1]:1884", JoinTarget("ABC123", "::1", 1884)),
        ("ABC123@[fe80::1]", JoinTarget("ABC123", "fe80::1", 1883)),
        ("ABC123@::1", JoinTarget("ABC123", "::1", 1883)),
        ("OIL-abc@localhost:65535", JoinTarget("011ABC", "localhost", 65535)),
        ("ABC123@localhost:1", JoinTarget("ABC123", "localhost", 1)),
        ("ABC123@1.2.X", JoinTarget("ABC123", "1.2.X", 1883)),  # a name, not an address
    ],
)
def test_parse_join_target(typed: str, target: JoinTarget) -> None:
    assert parse_join_target(typed) == target


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("ABC12@host", "has 5"),
        ("ABC123@", "no host after '@'"),
        ("ABC123@host:0", "'0' is not a port"),
        ("ABC123@host:65536", "'65536' is not a port"),
        ("ABC123@host:http", "'http' is not a port"),
        ("ABC123@host:", "'' is not a port"),
        ("ABC123@[::1", "closing ']'"),
        ("ABC123@[::1]1884", "only ':PORT' may follow ']'"),
        ("ABC123@[nothere]:1884", "'nothere' is not an IPv6 address"),
        ("ABC123@1:2:zz", "not an IPv6 address"),
        ("ABC123@bad host", "'bad host' is not a host name or address"),
        ("ABC123@-host", "is not a host name or address"),
        ("ABC123@300.1.1.1", "'300.1.1.1' is not an IPv4 address"),
        ("ABC123@a@b", "'a@b' is not a host name or address"),
    ],
)
def test_parse_join_target_names_what_is_wrong(typed: str, message: str) -> None:
    with pytest.raises(CodeError) as caught:
        parse_join_target(typed)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("ABC123@", "no host after '@': use CODE@HOST or CODE@HOST:PORT"),
        ("ABC123@[nothere]:1884", "'[nothere]:1884': 'nothere' is not an IPv6 address"),
        ("ABC123@1:2:zz", "'1:2:zz': '1:2:zz' is not an IPv6 address"),
        ("ABC123@[::1]]:1884", "'[::1]]:1884': only ':PORT' may follow ']'"),
        ("ABC123@1.2.3.4.", "'1.2.3.4.' is not an IPv4 address"),  # a trailing dot: still digits
        # A dotless i upper-cased is an ASCII I (a 1): a look-alike all the same.
        ("ABC\u0131\u01311", "room codes have 6 characters (letters and digits); 'ı' is not"),
    ],
)
def test_each_refusal_is_said_whole(typed: str, message: str) -> None:
    with pytest.raises(CodeError) as caught:
        parse_join_target(typed)
    assert str(caught.value).startswith(message), str(caught.value)
