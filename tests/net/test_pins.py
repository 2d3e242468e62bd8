"""The room pins keep the voters of a room that fails over (issue 20): a
process that sat there follows the table's announcements after a restart."""

from __future__ import annotations

import json
from pathlib import Path

from net.peer.pins import RoomPins


def test_the_voters_of_a_pinned_room_are_kept_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "room_keys.json"
    pins = RoomPins(path)
    voters = frozenset({bytes([1]) * 32, bytes([2]) * 32})
    pins.remember_voters("ABC123", voters)  # not pinned: nothing to keep
    assert RoomPins(path).voters("ABC123") == frozenset()
    pins.remember("ABC123", bytes([9]) * 32, ("127.0.0.1", 1883))
    pins.remember_voters("ABC123", voters)
    again = RoomPins(path)
    assert again.voters("ABC123") == voters
    assert again.get("ABC123") == bytes([9]) * 32


def test_damaged_voters_set_the_file_aside_as_any_damage_does(tmp_path: Path) -> None:
    path = tmp_path / "room_keys.json"
    entry = {"key": "ab" * 32, "at": 1, "voters": ["zz" * 32]}
    path.write_text(json.dumps({"version": 1, "rooms": {"ABC123": entry}}))
    pins = RoomPins(path)
    assert pins.voters("ABC123") == frozenset() and pins.get("ABC123") is None
    assert pins.notice is not None and "damaged" in pins.notice
    assert (tmp_path / "room_keys.json.corrupt").exists()
