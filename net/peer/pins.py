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

Each entry also keeps where the room's broker was (``broker``: host and
port, as this peer reached it) and when it last sat there: after its process
ended (an SSH server's restart, a closed terminal), the home screen offers
the latest rooms whose seat its key still holds (net/peer/rejoin.py, issue 18).
An entry of an older Passe has no broker: it is only a pin.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

from net.files import write_atomic
from net.paths import data_dir

log = logging.getLogger("passe.pins")

PINS_FILE = "room_keys.json"
FORMAT = 1
MAX_PINS = 1000  # the newest rooms are kept; the file stays small
MAX_HOST = 255  # a broker's host name or address, as DNS bounds a name
# Sitting again in a room already pinned rewrites its entry's time at most
# this often (seconds): a reconnection writes nothing.
REFRESH_AFTER = 60

Broker = tuple[str, int]


@dataclass(frozen=True)
class SatIn:
    """A room this peer sat in: its code, the key pinned, where its broker
    was, and when it last sat there (seconds since the epoch)."""

    code: str
    key: bytes
    broker: Broker
    at: int


def _broker(raw: object) -> Broker | None:
    """An entry's ``broker`` as written by :meth:`RoomPins.remember`;
    ValueError for anything else (the file is then damaged)."""
    if raw is None:
        return None
    if not (isinstance(raw, list) and len(raw) == 2):
        raise ValueError("a bad broker")
    host, port = raw
    if not (isinstance(host, str) and 0 < len(host) <= MAX_HOST and host.isprintable()):
        raise ValueError("a bad broker host")
    if not (isinstance(port, int) and not isinstance(port, bool) and 0 < port <= 65535):
        raise ValueError("a bad broker port")
    return host, port


Entry = tuple[str, int, Broker | None]
MAX_VOTERS = 24  # as the election's config bounds them


def _voters(raw: object) -> frozenset[bytes]:
    """An entry's ``voters`` (hex keys); ValueError for anything else."""
    if raw is None:
        return frozenset()
    if not (isinstance(raw, list) and len(raw) <= MAX_VOTERS):
        raise ValueError("bad voters")
    keys = []
    for item in raw:
        if not _hex_key(item):
            raise ValueError("a bad voter")
        keys.append(bytes.fromhex(item))
    return frozenset(keys)


def _brokers(raw: object) -> tuple[Broker, ...]:
    """An entry's ``brokers`` (its room's succession list); ValueError for
    anything else."""
    if raw is None:
        return ()
    if not (isinstance(raw, list) and len(raw) <= MAX_VOTERS):
        raise ValueError("bad brokers")
    found = tuple(_broker(item) for item in raw)
    return tuple(broker for broker in found if broker is not None)


def _writable(broker: Broker) -> bool:
    """Whether ``broker`` reads back from the file (else it would be taken
    for damage and every pin set aside)."""
    try:
        return _broker(list(broker)) is not None
    except ValueError:
        return False


def _count(value: object) -> bool:
    """An integer of the file's, not a boolean (JSON's true is Python's 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _same(value: object, number: int) -> bool:
    return _count(value) and value == number


def _hex_key(text: object) -> bool:
    """Whether ``text`` is a key as this file writes it: 64 hex digits
    (``bytes.fromhex`` alone skips spaces: "ab cd…" read as a shorter key)."""
    return (
        isinstance(text, str)
        and len(text) == 64
        and all(c in "0123456789abcdefABCDEF" for c in text)
    )


class RoomPins:
    """Room code -> the authority key of the room of that code we sat in."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else data_dir() / PINS_FILE
        self.notice: str | None = None  # set when the file was damaged
        self._pins: dict[str, Entry] | None = None
        # The voters of each room that fails over (docs/election.md section
        # 10): an announcement signed by one of them moves the pin.
        self._voters: dict[str, frozenset[bytes]] = {}
        # And their standby brokers in succession order: where a process
        # back from the dead looks for the room when nothing advertises it
        # (net/election/survey.py).
        self._brokers: dict[str, tuple[Broker, ...]] = {}

    def _load(self) -> dict[str, Entry]:
        if self._pins is not None:
            return self._pins
        pins: dict[str, Entry] = {}
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
                if not isinstance(data, dict) or not _same(data.get("version"), FORMAT):
                    raise ValueError("not a room key file of this version")
                rooms = data.get("rooms")
                if not isinstance(rooms, dict):
                    raise ValueError("no rooms")
                for code, entry in rooms.items():
                    key, at = entry["key"], entry["at"]
                    if not isinstance(code, str) or not _hex_key(key) or not _count(at):
                        raise ValueError("a bad entry")
                    pins[code] = (key, at, _broker(entry.get("broker")))
                    voters = _voters(entry.get("voters"))
                    if voters:
                        self._voters[code] = voters
                    brokers = _brokers(entry.get("brokers"))
                    if brokers:
                        self._brokers[code] = brokers
            except (ValueError, KeyError, TypeError, RecursionError) as error:
                # RecursionError: a file of deeply nested arrays ("[[[[…").
                aside = self.path.with_name(self.path.name + ".corrupt")
                with contextlib.suppress(OSError):
                    os.replace(self.path, aside)
                self._report(
                    f"{self.path.name} was damaged ({error}); kept aside as {aside.name}: "
                    "rooms are trusted anew"
                )
                pins = {}
                # The voters read before the damage was found go too: those
                # of a room no longer pinned are not to be trusted.
                self._voters.clear()
                self._brokers.clear()
        self._pins = pins
        return pins

    def _report(self, text: str) -> None:
        self.notice = text
        log.warning(text)

    def get(self, code: str) -> bytes | None:
        entry = self._load().get(code)
        return bytes.fromhex(entry[0]) if entry is not None else None

    def remember(self, code: str, key: bytes, broker: Broker | None = None) -> None:
        """Pin ``key`` for ``code``, with where its broker is (a failure to
        write is logged, not raised: the game goes on; the pin then lasts as
        long as this process)."""
        pins = self._load()
        now = int(time.time())
        known = pins.get(code)
        if (
            known is not None
            and known[0] == key.hex()
            and (broker is None or known[2] == broker)
            and now - known[1] < REFRESH_AFTER
        ):
            return
        pins.pop(code, None)
        pins[code] = (key.hex(), now, broker if broker is not None else (known or ("", 0, None))[2])
        while len(pins) > MAX_PINS:
            del pins[next(iter(pins))]
        self._write(code)

    def voters(self, code: str) -> frozenset[bytes]:
        """The voters of the room of ``code``, if it fails over."""
        self._load()
        return self._voters.get(code, frozenset())

    def remember_voters(self, code: str, voters: frozenset[bytes]) -> None:
        """The room of ``code`` (pinned) fails over among ``voters``."""
        if code not in self._load() or self._voters.get(code) == voters:
            return
        self._voters[code] = voters
        self._write(code)

    def broker(self, code: str) -> Broker | None:
        """Where the broker of the room of ``code`` was when we last sat there."""
        entry = self._load().get(code)
        return entry[2] if entry is not None else None

    def brokers(self, code: str) -> tuple[Broker, ...]:
        """The standby brokers of the room of ``code``, in succession order."""
        self._load()
        return self._brokers.get(code, ())

    def remember_brokers(self, code: str, brokers: list[Broker]) -> None:
        """The room of ``code`` (pinned) has these standby brokers, in order
        (at most as many as it has voters)."""
        kept = tuple(broker for broker in brokers if _writable(broker))[:MAX_VOTERS]
        if code not in self._load() or self._brokers.get(code, ()) == kept:
            return
        self._brokers[code] = kept
        self._write(code)

    def forget_broker(self, code: str) -> None:
        """We left the room of ``code`` for good: its key stays pinned, but
        it is no room to rejoin any more (see :meth:`recent`)."""
        pins = self._load()
        known = pins.get(code)
        if known is None or (known[2] is None and code not in self._brokers):
            return
        pins[code] = (known[0], known[1], None)
        self._brokers.pop(code, None)  # nor where its standby brokers were
        self._write(code)

    def _write(self, code: str) -> None:
        pins = self._load()
        rooms: dict[str, dict[str, object]] = {}
        for pinned, (hex_key, at, where) in pins.items():
            rooms[pinned] = {"key": hex_key, "at": at}
            if where is not None:
                rooms[pinned]["broker"] = list(where)
            if pinned in self._voters:
                rooms[pinned]["voters"] = sorted(key.hex() for key in self._voters[pinned])
            if self._brokers.get(pinned):
                rooms[pinned]["brokers"] = [list(broker) for broker in self._brokers[pinned]]
        data = {"version": FORMAT, "rooms": rooms}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, json.dumps(data))
        except OSError as error:
            log.warning("could not remember the key of room %s: %s", code, error)

    def recent(self, limit: int, *, since: int = 0) -> list[SatIn]:
        """The rooms sat in with a known broker, newest first: at most
        ``limit``, none older than ``since``."""
        # The file's order is the order sat in (an entry moves to the end
        # when it is written again): the newest last, within one second too.
        found = [
            SatIn(code, bytes.fromhex(key), where, at)
            for code, (key, at, where) in reversed(self._load().items())
            if where is not None and at >= since
        ]
        return found[:limit]


__all__ = ["PINS_FILE", "RoomPins", "SatIn"]
