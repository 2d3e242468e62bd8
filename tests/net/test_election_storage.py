"""A voter's file (net/election/driver.py FileStorage): what the core
persists survives the process, exactly, and a damaged file is refused in
words, never half-loaded (issue 20)."""

from __future__ import annotations

from pathlib import Path

import pytest

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
