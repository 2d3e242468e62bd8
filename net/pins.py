"""The authority key of every room this peer sat in (issue 19 item 5).

A room code is public and short; the key that signs a room's state is what
makes it *that* room. A peer trusts the key it first sees for a code (trust
on first use, docs/protocol.md section 5), and from the moment it sits in
the room it remembers that key here, in its data directory: a process
started later (joining again, after the game, after a restart) then accepts
no other key for that code, so a squatter's forged ending is never shown.

The file is JSON, written atomically (a temporary file renamed into place);
a damaged one is set aside as ``room_keys.json.corrupt`` and reported once,
never fatal: the peer then trusts on first use again.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from pathlib import Path

from net.files import write_atomic
from net.paths import data_dir

log = logging.getLogger("passe.pins")

PINS_FILE = "room_keys.json"
FORMAT = 1
MAX_PINS = 1000  # the newest rooms are kept; the file stays small


class RoomPins:
    """Room code -> the authority key of the room of that code we sat in."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else data_dir() / PINS_FILE
        self.notice: str | None = None  # set when the file was damaged
        self._pins: dict[str, tuple[str, int]] | None = None

    def _load(self) -> dict[str, tuple[str, int]]:
        if self._pins is not None:
            return self._pins
        pins: dict[str, tuple[str, int]] = {}
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            raw = None
        except OSError as error:
            self._report(f"cannot read {self.path.name} ({error.strerror}): rooms are trusted anew")
            raw = None
        if raw is not None:
            try:
                data = json.loads(raw)
                if not isinstance(data, dict) or data.get("version") != FORMAT:
                    raise ValueError("not a room key file of this version")
                rooms = data.get("rooms")
                if not isinstance(rooms, dict):
                    raise ValueError("no rooms")
                for code, entry in rooms.items():
                    key, at = entry["key"], entry["at"]
                    bytes.fromhex(key)
                    if not isinstance(code, str) or len(key) != 64 or not isinstance(at, int):
                        raise ValueError("a bad entry")
                    pins[code] = (key, at)
            except (ValueError, KeyError, TypeError) as error:
                aside = self.path.with_name(self.path.name + ".corrupt")
                with contextlib.suppress(OSError):
                    os.replace(self.path, aside)
                self._report(
                    f"{self.path.name} was damaged ({error}); kept aside as {aside.name}: "
                    "rooms are trusted anew"
                )
                pins = {}
        self._pins = pins
        return pins

    def _report(self, text: str) -> None:
        self.notice = text
        log.warning(text)

    def get(self, code: str) -> bytes | None:
        entry = self._load().get(code)
        return bytes.fromhex(entry[0]) if entry is not None else None

    def remember(self, code: str, key: bytes) -> None:
        """Pin ``key`` for ``code`` (a failure to write is logged, not raised:
        the game goes on; the pin then lasts as long as this process)."""
        pins = self._load()
        if pins.get(code, ("", 0))[0] == key.hex():
            return
        pins.pop(code, None)
        pins[code] = (key.hex(), int(time.time()))
        while len(pins) > MAX_PINS:
            del pins[next(iter(pins))]
        data = {
            "version": FORMAT,
            "rooms": {code: {"key": key, "at": at} for code, (key, at) in pins.items()},
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, json.dumps(data))
        except OSError as error:
            log.warning("could not remember the key of room %s: %s", code, error)


__all__ = ["PINS_FILE", "RoomPins"]
