"""net/files.py: the one atomic, durable file write (issue 23) that the key
files, saved rooms, settings, saved game and SSH host key all use."""

from __future__ import annotations

import errno
import json
import os
import stat
import threading
from pathlib import Path

import msgspec
import pytest

from net.files import sync_directory, validation_message, write_atomic
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


def test_the_temporary_is_a_hidden_file_beside_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beside it, so that the rename never crosses filesystems (EXDEV), and
    named after it, so that a leftover after a crash says whose it was."""
    renamed: list[tuple[str, str]] = []
    real = os.replace

    def replace(source: str, target: str) -> None:
        renamed.append((source, target))
        real(source, target)

    monkeypatch.setattr(os, "replace", replace)
    path = tmp_path / "room.json"
    write_atomic(path, "é")
    [(source, target)] = renamed
    assert Path(target) == path and Path(source).parent == tmp_path
    assert Path(source).name.startswith(".room.json.") and source.endswith(".tmp")
    assert path.read_bytes() == "é".encode()


def test_a_failed_write_whose_temporary_cannot_be_removed_raises_the_first_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    def stuck(path: str) -> None:
        raise OSError(16, "Device or resource busy")

    monkeypatch.setattr(os, "fsync", full)
    monkeypatch.setattr(os, "unlink", stuck)
    with pytest.raises(OSError, match="No space"):
        write_atomic(tmp_path / "file.bin", b"data")


@pytest.mark.parametrize("where", ["open", "fsync"])
def test_a_directory_that_cannot_be_synced_is_passed_over_and_other_errors_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """Filesystems that cannot sync a directory say so with EINVAL, ENOTSUP
    or EBADF: nothing better can be done. Any other error is real."""
    real_open = os.open
    for number in (errno.EINVAL, errno.ENOTSUP, errno.EBADF, errno.EIO):

        def fails(*args: object, number: int = number) -> int:
            raise OSError(number, os.strerror(number))

        if where == "open":
            monkeypatch.setattr(os, "open", fails)
        else:
            monkeypatch.setattr(os, "open", real_open)
            monkeypatch.setattr(os, "fsync", fails)
        if number == errno.EIO:
            with pytest.raises(OSError) as raised:
                sync_directory(tmp_path)
            assert raised.value.errno == errno.EIO
        else:
            sync_directory(tmp_path)


def test_syncing_a_directory_refuses_a_file(tmp_path: Path) -> None:
    """Opened as a directory (O_DIRECTORY): a path that is not one is an error."""
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(NotADirectoryError):
        sync_directory(tmp_path / "file")


class Saved(msgspec.Struct):
    name: str
    players: list[int]

    def __post_init__(self) -> None:
        if self.name == "two lines":
            raise ValueError("Not a name:\nit has two lines")


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b'{"name": "a", "players": [1, "x"]}', "players[1]: expected `int`, got `str`"),
        (b'{"name": 3, "players": []}', "name: expected `str`, got `int`"),
        (b'{"players": []}', "object missing required field `name`"),
        (b'"a"', "expected `object | array`, got `str`"),
        (b'[{"name": "two lines", "players": []}]', "[0]: not a name:\nit has two lines"),
    ],
)
def test_a_file_that_holds_the_wrong_thing_is_said_in_plain_field_names(
    data: bytes, said: str
) -> None:
    with pytest.raises(msgspec.ValidationError) as error:
        msgspec.json.decode(data, type=Saved | list[Saved])
    assert validation_message(error.value) == said
