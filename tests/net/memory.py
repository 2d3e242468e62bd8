"""Looking for secrets in another process's memory and files (issue 20,
"Secrecy"): the bytes a process could read the deck with (a room secret,
a commitment salt, a share of the secret) searched for, raw and as hex,
in every readable mapping of a running process (``/proc/PID/mem``, which
root may read) and in every file under a directory."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

CHUNK = 1 << 22
_MAPPING = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (r)")


def _forms(secret: bytes) -> tuple[bytes, ...]:
    return secret, secret.hex().encode(), secret.hex().upper().encode()


def in_memory(pid: int, secrets: Mapping[str, bytes]) -> set[str]:
    """The names of ``secrets`` found in process ``pid``'s memory."""
    found: set[str] = set()
    longest = max((len(form) for s in secrets.values() for form in _forms(s)), default=0)
    with open(f"/proc/{pid}/maps", encoding="ascii") as maps:
        regions = [m for line in maps if (m := _MAPPING.match(line))]
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as memory:
        for region in regions:
            start, end = int(region[1], 16), int(region[2], 16)
            tail = b""
            for at in range(start, end, CHUNK):
                try:
                    memory.seek(at)
                    data = tail + memory.read(min(CHUNK, end - at))
                except (OSError, ValueError):
                    break  # a guard page, a mapping gone meanwhile
                for name, secret in secrets.items():
                    if name not in found and any(form in data for form in _forms(secret)):
                        found.add(name)
                tail = data[-longest:] if longest else b""
    return found


def on_disk(directory: Path, secrets: Mapping[str, bytes]) -> set[str]:
    """The names of ``secrets`` found in any file under ``directory``."""
    found: set[str] = set()
    for path in directory.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for name, secret in secrets.items():
                if any(form in data for form in _forms(secret)):
                    found.add(name)
    return found
