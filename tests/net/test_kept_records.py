"""What a dealer keeps of each room (net/dealer/kept.py): read back from its
own disk after a restart, and from a room's replicated log by the dealer
that takes the table over (``SavedRoom.dealt_as``). Either may be damaged
or written by someone else, so each bound is said here on both sides of
its line, and what a refusal says; the dealer's use of the records is
tests/net/test_dealer_service.py's (docs/testing.md, "The score")."""

from __future__ import annotations

import logging
import tracemalloc
from pathlib import Path

import msgspec
import pytest

from net.dealer.kept import (
    KEPT_SUFFIX,
    KEPT_VERSION,
    MAX_ADMITTED,
    MAX_KEPT_SIZE,
    KeptRoom,
    KeptRoomError,
    decode_kept,
    encode_kept,
    forget,
    keep,
    kept_path,
    kept_rooms,
    read_kept,
)

CODE = "ABC123"


def record(**changes: object) -> KeptRoom:
    room = KeptRoom(KEPT_VERSION, CODE, "Eve", ["a" * 16], 30.0, owner=b"\x01" * 32, wanted=3)
    return msgspec.structs.replace(room, **changes)


def refusal(data: bytes, code: str = CODE) -> str:
    with pytest.raises(KeptRoomError) as raised:
        decode_kept(data, code, where="its log")
    return str(raised.value)


def test_a_record_reads_back_as_it_was_written() -> None:
    room = record(replicated=True, bots="hard")
    assert decode_kept(encode_kept(room), CODE, where="its log") == room


@pytest.mark.parametrize(
    ("changes", "accepted"),
    [
        ({"admit": ["p" * 16] * MAX_ADMITTED}, True),
        ({"admit": ["p" * 16] * (MAX_ADMITTED + 1)}, False),
        ({"admit": ["p" * 64]}, True),
        ({"admit": ["p" * 65]}, False),
        ({"admit": ["p" * 16] * (MAX_ADMITTED + 1), "asker": "x"}, False),
        ({"asker": "n" * 64}, True),
        ({"asker": "n" * 65}, False),
        ({"stand_in_after": 0.0}, True),
        ({"stand_in_after": 86_400.0}, True),
        ({"stand_in_after": -0.5}, False),
        ({"stand_in_after": 86_400.5}, False),
    ],
)
def test_each_bound_of_a_record_holds_at_its_line_and_refuses_past_it(
    changes: dict[str, object], accepted: bool
) -> None:
    data = encode_kept(record(**changes))
    if accepted:
        assert decode_kept(data, CODE, where="its log") == record(**changes)
        return
    problem = refusal(data)
    assert problem.startswith("its log: ")
    if "admit" in changes:
        assert problem == "its log: its list of who may sit is longer than a deal's"
    elif "asker" in changes:
        assert problem == "its log: its asker's name is longer than a deal's"
    else:
        assert problem == f"its log: stand-in after {changes['stand_in_after']!r} s"


def test_a_record_of_another_version_or_room_is_refused_in_words() -> None:
    assert refusal(encode_kept(record(version=2))) == "its log: version 2, this Passe reads 1"
    assert refusal(encode_kept(record(code="XYZ789"))) == "its log: it names room 'XYZ789'"
    assert refusal(b"[1, 2]").startswith("its log: not a dealer's room record (")


def test_a_record_larger_than_any_dealer_writes_is_refused_before_it_is_read() -> None:
    data = encode_kept(record())
    padded = data + b" " * (MAX_KEPT_SIZE - len(data))  # still the same record
    assert decode_kept(padded, CODE, where="its log") == record()
    assert refusal(padded + b" ") == "its log: larger than any dealer writes"


def test_reading_a_huge_file_costs_no_more_than_the_bound(tmp_path: Path) -> None:
    """Bounded cost (issue 19): a record file of 32 MiB (sparse: nothing is
    written) is refused having read at most the bound plus one byte."""
    path = kept_path(tmp_path, CODE)
    with path.open("wb") as stream:
        stream.truncate(32 << 20)
    tracemalloc.start()
    try:
        with pytest.raises(KeptRoomError, match=r"^ABC123\.deal: larger than any dealer writes$"):
            read_kept(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * MAX_KEPT_SIZE, peak


def test_a_file_that_cannot_be_read_is_named_with_the_system_s_reason(tmp_path: Path) -> None:
    path = kept_path(tmp_path, CODE)
    path.mkdir()
    with pytest.raises(KeptRoomError) as raised:
        read_kept(path)
    assert str(raised.value) == "ABC123.deal: Is a directory"


def test_a_file_not_named_as_a_record_is_no_room_s_record(tmp_path: Path) -> None:
    path = tmp_path / f"{CODE}.txt"
    path.write_bytes(encode_kept(record()))
    with pytest.raises(KeptRoomError, match=r"^ABC123\.txt: it names room 'ABC123'$"):
        read_kept(path)
    keep(tmp_path, record())
    assert read_kept(kept_path(tmp_path, CODE)) == record()  # the same bytes, named as a record


def test_a_reader_that_changes_nothing_lists_every_problem_and_every_good_record(
    tmp_path: Path,
) -> None:
    """``set_aside=False`` (``passe dealer --status``): a bad record that
    sorts first stops neither the others' reading nor its own report."""
    (tmp_path / f"AAAAAA{KEPT_SUFFIX}").write_bytes(b"\x00 not json")
    keep(tmp_path, record())
    keep(tmp_path, record(code="ZZZZZZ"))
    rooms, problems = kept_rooms(tmp_path, set_aside=False)
    assert [room.code for room in rooms] == [CODE, "ZZZZZZ"]
    assert len(problems) == 1
    assert problems[0].startswith("AAAAAA.deal: not a dealer's room record (")
    assert (tmp_path / "AAAAAA.deal").exists() and not list(tmp_path.glob("*.bad"))


def test_a_record_that_cannot_be_kept_is_logged_with_its_room_and_the_game_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    not_a_directory = tmp_path / "rooms"
    not_a_directory.write_bytes(b"")  # a file where the dealer's directory should be
    with caplog.at_level(logging.WARNING, logger="passe.dealer"):
        keep(not_a_directory, record())  # never raises: the game goes on
    [line] = [r.getMessage() for r in caplog.records if r.name == "passe.dealer"]
    assert line.startswith(f"room {CODE}: cannot keep its record: ")
    assert "File exists" in line  # mkdir of the directory found a file


def test_a_forgotten_record_is_gone_and_forgetting_twice_is_no_error(tmp_path: Path) -> None:
    keep(tmp_path, record())
    forget(tmp_path, CODE)
    forget(tmp_path, CODE)
    assert not kept_path(tmp_path, CODE).exists()
    assert kept_rooms(tmp_path) == ([], [])


def test_a_bad_record_that_cannot_be_set_aside_is_still_reported(tmp_path: Path) -> None:
    """Its ``.bad`` name is taken by a directory (an earlier look's, say):
    the rename fails, and the record is reported all the same."""
    (tmp_path / f"{CODE}{KEPT_SUFFIX}").write_bytes(b"\x00 not json")
    taken = tmp_path / f"{CODE}{KEPT_SUFFIX}.bad"
    taken.mkdir()
    (taken / "inside").write_bytes(b"")
    rooms, problems = kept_rooms(tmp_path)
    assert rooms == [] and len(problems) == 1
    assert problems[0].startswith("ABC123.deal: not a dealer's room record (")
