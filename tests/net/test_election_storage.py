"""A voter's file (net/election/driver.py FileStorage): what the core
persists survives the process, exactly, and a damaged file is refused in
words, never half-loaded (issue 20)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from net.election import driver
from net.election.driver import MAX_STORAGE_BYTES, FileStorage, StorageError
from net.election.messages import Entry
from net.election.node import Persisted

KEY = b"k" * 32


def _entry(term: int, nonce: int, kind: str = "action") -> Entry:
    return Entry(term, kind, KEY, nonce, f"data {nonce}".encode())  # type: ignore[arg-type]


CONFIG = Entry(0, "config", KEY, 0, b"config")


def test_what_is_persisted_is_what_a_new_process_loads(tmp_path: Path) -> None:
    path = tmp_path / "voter.bin"
    storage = FileStorage.create(path, Persisted(0, None, (CONFIG,)))
    storage.save_state(3, KEY)
    storage.save_entries(2, [_entry(3, 1), _entry(3, 2), _entry(3, 3)])
    # Raft 5.3: a conflicting suffix is replaced from its first index.
    storage.save_entries(3, [_entry(4, 7)])
    assert FileStorage(path).load() == Persisted(3, KEY, (CONFIG, _entry(3, 1), _entry(4, 7)))
    storage.save_state(4, None)
    assert FileStorage(path).load() == Persisted(4, None, (CONFIG, _entry(3, 1), _entry(4, 7)))


def test_a_storage_opened_on_an_existing_file_keeps_its_log(tmp_path: Path) -> None:
    """A restarted voter's first persist effect (a vote) keeps the log it
    loaded: the state and the entries are saved together."""
    path = tmp_path / "voter.bin"
    FileStorage.create(path, Persisted(2, None, (CONFIG, _entry(2, 1))))
    again = FileStorage(path)
    again.save_state(5, KEY)
    assert FileStorage(path).load() == Persisted(5, KEY, (CONFIG, _entry(2, 1)))


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "not a voter's file"),
        (b"\x93\x01\xc0\x90", "not a voter's file"),  # an array, not a map
        (b"\x83\xa4term\x00\xa9voted_for\xc0\xa3log\x90", "does not start with the room's config"),
    ],
)
def test_a_damaged_file_is_refused_in_words(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "voter.bin"
    path.write_bytes(content)
    with pytest.raises(StorageError, match=words):
        FileStorage(path).load()


def test_a_missing_or_oversized_file_is_refused_in_words(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="No such file"):
        FileStorage(tmp_path / "gone.bin").load()
    big = tmp_path / "big.bin"
    with big.open("wb") as file:
        file.truncate(MAX_STORAGE_BYTES + 1)
    with pytest.raises(StorageError, match="bytes, over"):
        FileStorage(big).load()


def _journal(tmp_path: Path) -> tuple[Path, FileStorage]:
    path = tmp_path / "voter.bin"
    storage = FileStorage.create(path, Persisted(0, None, (CONFIG,)))
    storage.save_state(1, KEY)
    storage.save_entries(2, [_entry(1, 1)])
    storage.save_entries(3, [_entry(1, 2)])
    return path, storage


def test_each_change_is_one_record_appended_and_synced(tmp_path: Path) -> None:
    """A change costs one appended record (one fsync), not a new file: a
    replicated move waits for a majority of these writes
    (docs/benchmarks.md)."""
    path, storage = _journal(tmp_path)
    before = path.read_bytes()
    assert before.startswith(driver.JOURNAL_MAGIC)
    inode = path.stat().st_ino
    storage.save_entries(4, [_entry(1, 3)])
    after = path.read_bytes()
    assert after.startswith(before) and len(after) > len(before)
    assert path.stat().st_ino == inode  # appended in place, not replaced
    assert FileStorage(path).load().log[-1] == _entry(1, 3)


@pytest.mark.parametrize("tail", ["cut", "zeros"])
def test_a_record_cut_short_by_a_crash_is_dropped_and_written_over(
    tmp_path: Path, tail: str
) -> None:
    """The last record, never synced when the process died, was never
    acknowledged: the file loads without it, and the next change is written
    where it was (never after the torn bytes, which would damage the file)."""
    path, _ = _journal(tmp_path)
    whole = path.read_bytes()
    big = Entry(1, "action", KEY, 3, bytes(range(256)) * 2)
    FileStorage(path).save_entries(4, [big])
    data = path.read_bytes()
    torn = data[: len(whole) + 300] if tail == "cut" else whole + bytes(len(data) - len(whole))
    path.write_bytes(torn)
    again = FileStorage(path)
    assert again.load() == Persisted(1, KEY, (CONFIG, _entry(1, 1), _entry(1, 2)))
    again.save_entries(4, [_entry(1, 4)])
    # Written where the torn record began, nothing of it left after.
    assert path.read_bytes() == whole + driver._record(driver._Entries(4, [_entry(1, 4)]))
    assert FileStorage(path).load().log[-1] == _entry(1, 4)


def test_a_damaged_record_before_the_end_refuses_the_file(tmp_path: Path) -> None:
    path, storage = _journal(tmp_path)
    storage.save_entries(4, [_entry(1, 3)])
    data = bytearray(path.read_bytes())
    data[len(driver.JOURNAL_MAGIC) + 12] ^= 0xFF  # inside the snapshot's body
    path.write_bytes(bytes(data))
    with pytest.raises(StorageError, match="a damaged record at byte"):
        FileStorage(path).load()


def test_a_journal_must_start_with_a_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "voter.bin"
    path.write_bytes(driver.JOURNAL_MAGIC + driver._record(driver._State(3, None)))
    with pytest.raises(StorageError, match="does not start with a snapshot"):
        FileStorage(path).load()


def test_a_file_of_an_earlier_passe_loads_and_becomes_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "voter.bin"
    old = driver._Stored(2, KEY, [CONFIG, _entry(2, 1)])
    path.write_bytes(msgspec.msgpack.encode(old))
    storage = FileStorage(path)
    assert storage.load() == Persisted(2, KEY, (CONFIG, _entry(2, 1)))
    storage.save_state(3, None)
    assert path.read_bytes().startswith(driver.JOURNAL_MAGIC)
    assert FileStorage(path).load() == Persisted(3, None, (CONFIG, _entry(2, 1)))


def test_a_long_journal_is_written_again_as_one_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Terms, votes and replaced suffixes add records without end: past
    COMPACT_AFTER bytes since its snapshot the file is one snapshot again."""
    monkeypatch.setattr(driver, "COMPACT_AFTER", 400)
    path, storage = _journal(tmp_path)
    for term in range(2, 40):
        storage.save_state(term, KEY)
    assert path.stat().st_size < 400 + 200
    assert FileStorage(path).load() == Persisted(39, KEY, (CONFIG, _entry(1, 1), _entry(1, 2)))


def test_the_journal_is_compacted_only_once_past_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record that brings the journal exactly to COMPACT_AFTER bytes past
    its snapshot is appended; one byte further, the file is written again
    as one snapshot. Mutations: the bound's comparison and sum."""
    record = len(driver._record(driver._State(2, KEY)))
    for room, compacted in ((0, False), (-1, True)):
        path = tmp_path / f"voter{room}.bin"
        storage = FileStorage.create(path, Persisted(1, None, (CONFIG,)))
        storage.save_state(1, KEY)
        since = storage._since_snapshot
        monkeypatch.setattr(driver, "COMPACT_AFTER", since + record + room)
        storage.save_state(2, KEY)
        assert storage._since_snapshot == (0 if compacted else since + record)
        assert FileStorage(path).load() == Persisted(2, KEY, (CONFIG,))


def _records(*records: driver._Record) -> bytes:
    return driver.JOURNAL_MAGIC + b"".join(driver._record(record) for record in records)


SNAPSHOT = driver._Snapshot(1, KEY, [CONFIG])


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (driver.JOURNAL_MAGIC, "an empty journal"),
        (_records(SNAPSHOT, SNAPSHOT), "a second snapshot at byte"),
        (_records(SNAPSHOT, driver._Entries(3, [_entry(1, 1)])), "entries from 3 leave a gap"),
        (_records(SNAPSHOT, driver._Entries(0, [_entry(1, 1)])), "entries from 0 leave a gap"),
    ],
)
def test_a_journal_that_cannot_be_replayed_is_refused_in_words(
    tmp_path: Path, data: bytes, words: str
) -> None:
    path = tmp_path / "voter.bin"
    path.write_bytes(data)
    with pytest.raises(StorageError, match=f"^{path}: {words}"):
        FileStorage(path).load()


def test_entries_may_replace_the_log_from_its_first_index(tmp_path: Path) -> None:
    """Raft 5.3's replaced suffix may start anywhere from index 1 to just
    past the log's end."""
    path = tmp_path / "voter.bin"
    path.write_bytes(
        _records(SNAPSHOT, driver._Entries(2, [_entry(1, 1)]), driver._Entries(1, [CONFIG]))
    )
    assert FileStorage(path).load().log == (CONFIG,)


def test_a_torn_tail_is_dropped_with_a_word_and_a_whole_damaged_record_is_not(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """What a crash leaves (a record header cut short, or a header with no
    body yet) is dropped and said; a last record whose bytes are all there
    but do not match their checksum is damage, and refuses the file."""
    import logging

    path = tmp_path / "voter.bin"
    last = driver._record(driver._State(2, KEY))
    for tail in (last[:5], last[:8]):
        path.write_bytes(_records(SNAPSHOT) + tail)
        with caplog.at_level(logging.WARNING, logger="passe.election"):
            assert FileStorage(path).load().term == 1
        assert caplog.messages[-1] == f"{path}: the last record was cut short (a crash): dropped"
    damaged = last[:-1] + bytes([last[-1] ^ 0xFF])
    # And a header of length 0 followed by bytes that are not zeros: not a
    # write in progress (a file system leaves zeros), damage.
    for tail in (damaged, b"\0\0\0\0XXXX"):
        path.write_bytes(_records(SNAPSHOT) + tail)
        with pytest.raises(StorageError, match="a damaged record at byte"):
            FileStorage(path).load()


def test_a_loaded_journal_counts_what_it_holds_past_its_snapshot(tmp_path: Path) -> None:
    """So that compaction comes when the journal really grew
    (COMPACT_AFTER), not sooner or later after a restart."""
    path = tmp_path / "voter.bin"
    later: list[driver._State | driver._Entries] = [
        driver._State(2, KEY),
        driver._Entries(2, [_entry(2, 1)]),
    ]
    path.write_bytes(_records(SNAPSHOT, *later))
    storage = FileStorage(path)
    storage.load()
    assert storage._since_snapshot == sum(len(driver._record(record)) for record in later)
    assert storage._valid == path.stat().st_size


def test_a_file_s_refusal_names_its_size_limit_and_the_system_s_words(tmp_path: Path) -> None:
    """A file of exactly MAX_STORAGE_BYTES is read (and refused for what it
    holds), one byte more is refused unread; a missing file is named with
    the system's words."""
    exact = tmp_path / "exact.bin"
    with exact.open("wb") as file:
        file.truncate(MAX_STORAGE_BYTES)
    with pytest.raises(StorageError, match="not a voter's file"):
        FileStorage(exact).load()
    gone = tmp_path / "gone.bin"
    with pytest.raises(StorageError) as refused:
        FileStorage(gone).load()
    assert str(refused.value) == f"{gone}: No such file or directory"
