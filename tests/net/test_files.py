"""net/files.py: the one atomic, durable file write (issue 23) that the key
files, saved rooms, settings, saved game and SSH host key all use."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from net.files import write_atomic
from tui.settings import Settings, load_settings, save_settings

WRITES = 300  # per writer: enough for a fixed temporary name to collide


def leftovers(directory: Path, keep: str) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name != keep)


def test_it_writes_the_whole_file_private_and_leaves_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "file.bin"
    write_atomic(path, b"one")
    write_atomic(path, "twó")  # text goes as UTF-8
    assert path.read_bytes() == "twó".encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert leftovers(path.parent, "file.bin") == []


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "file.bin"
    write_atomic(path, b"old")

    def no_rename(source: str, target: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", no_rename)
    with pytest.raises(OSError, match="No space"):
        write_atomic(path, b"new")
    assert path.read_bytes() == b"old"
    assert leftovers(tmp_path, "file.bin") == []  # the temporary is gone too


def synced(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record what each os.fsync flushes: "file" or "directory"."""
    kinds: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        kinds.append("directory" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return kinds


def test_durable_syncs_the_file_then_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the directory's sync the rename may not be on the disk after
    a power cut, and the "durable" file would be the old one (or none)."""
    kinds = synced(monkeypatch)
    write_atomic(tmp_path / "file.bin", b"data")
    assert kinds == ["file", "directory"]


def test_not_durable_syncs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kinds = synced(monkeypatch)
    write_atomic(tmp_path / "file.bin", b"data", durable=False)
    assert kinds == []


def two_writers_at_once(write: object, first: object, second: object) -> list[BaseException]:
    """Run ``write(first)`` and ``write(second)`` WRITES times each, in two
    threads started together; the exceptions raised (and falsy results are
    fine, anything else is recorded as an error)."""
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def writer(content: object) -> None:
        start.wait()
        for _ in range(WRITES):
            try:
                result = write(content)  # type: ignore[operator]
            except BaseException as error:  # recorded for the assertion
                errors.append(error)
                return
            if result:
                errors.append(AssertionError(result))
                return

    threads = [threading.Thread(target=writer, args=(c,)) for c in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_two_writers_at_once_never_share_a_temporary(tmp_path: Path) -> None:
    path = tmp_path / "file.txt"
    first, second = "a" * 50_000, "b" * 70_000
    errors = two_writers_at_once(lambda c: write_atomic(path, c, durable=False), first, second)
    assert errors == []
    assert path.read_text() in (first, second)  # one whole write, never a mix
    assert leftovers(tmp_path, "file.txt") == []


def test_two_processes_saving_settings_at_once_both_succeed(tmp_path: Path) -> None:
    """Two Passe windows saving their settings at the same moment: with the
    fixed ``settings.tmp`` of before, one's rename took the other's file and
    the other failed ("Could not save settings") or left a mix."""
    path = tmp_path / "settings.json"
    ana, ben = Settings(name="Ana"), Settings(name="Ben", bot_delay=0.3)
    errors = two_writers_at_once(lambda s: save_settings(path, s), ana, ben)
    assert errors == []
    loaded, notice = load_settings(path)
    assert notice is None and loaded.name in ("Ana", "Ben")
    assert json.loads(path.read_text())["name"] == loaded.name
    assert leftovers(tmp_path, "settings.json") == []
