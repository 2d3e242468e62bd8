"""Writing a file so that a crash never leaves half of it: one helper for the
key files, the saved rooms, the settings and the saved game (issue 23); and
holding a file for one process at a time (``hold_lock``: the rooms a host
keeps, the voters' files).

It lives in net/ because tui/ may import net/ but not the reverse, and both
write such files.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import tempfile
from pathlib import Path

import msgspec

# Filesystems that cannot sync a directory say so with one of these; the
# rename is then as durable as that filesystem makes it, and nothing better
# can be done.
_NO_DIRECTORY_SYNC = {errno.EINVAL, errno.ENOTSUP, errno.EBADF}


def write_atomic(path: Path, data: bytes | str, *, durable: bool = True) -> None:
    """Replace the file at ``path`` with ``data`` (text is written as UTF-8),
    so that a reader sees the old content or the new, never a mix, and a
    crash at any moment leaves one of the two (raises ``OSError``).

    The data goes to a temporary file in the same directory, under a name
    of its own (``mkstemp``: created exclusively, a random part), so two
    writers at once never share a temporary (a fixed ``settings.tmp`` did:
    one writer's rename took the other's file, and the other's failed); it
    is renamed over ``path``. The file is readable by its owner only (mode
    0600, from its creation): several hold private keys.

    ``durable`` (the default) also survives a power cut: the file's data is
    synced before the rename, and the directory after it, so the rename
    itself is on the disk. ``durable=False`` survives a crash of the process
    (the kernel keeps what was written) but not of the machine; the room
    files use it for each move, where two syncs would add ~10 ms to every
    move's latency (net/authority/rooms.py, docs/protocol.md)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data.encode("utf-8") if isinstance(data, str) else data)
            stream.flush()
            if durable:
                os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    if durable:
        sync_directory(path.parent)


class LockHeld(Exception):
    """Another open of the lock (this process's or another's) holds it."""


def hold_lock(lock: Path) -> int:
    """An exclusive hold of the lock file ``lock`` (created if missing) for
    as long as the returned descriptor stays open (``let_go``); the kernel
    lets go of it when the process dies, so a crash leaves nothing held.
    Raises :class:`LockHeld` if it is held, even by this process (a lock is
    per open, not per process), and ``OSError`` when it cannot be made."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        raise LockHeld(str(lock)) from None
    return descriptor


def let_go(lock: Path, descriptor: int) -> None:
    """The hold of ``hold_lock`` ended: its file removed, then closed."""
    with contextlib.suppress(OSError):
        lock.unlink()
    os.close(descriptor)


def sync_directory(directory: Path) -> None:
    """Flush a directory's entries (a rename, a new or removed file) to the
    disk; a no-op where the filesystem cannot."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as error:
        if error.errno in _NO_DIRECTORY_SYNC:
            return
        raise
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in _NO_DIRECTORY_SYNC:
            raise
    finally:
        os.close(fd)


def validation_message(error: msgspec.ValidationError) -> str:
    """msgspec's words for a file that does not hold what it should, with
    the place first and in plain field names: "Expected `int`, got `str` -
    at `$.players[...]`" becomes "players[...]: expected `int`, got `str`"."""
    text = str(error)
    found = re.fullmatch(r"(.*) - at `\$\.?(.*)`", text, re.DOTALL)
    if found is None:
        return text[:1].lower() + text[1:]
    what, where = found.groups()  # msgspec says no "at" for the top level
    return f"{where}: {what[:1].lower()}{what[1:]}"


__all__ = ["sync_directory", "validation_message", "write_atomic"]
