"""The room pins keep the voters of a room that fails over (issue 20): a
process that sat there follows the table's announcements after a restart."""

from __future__ import annotations

import errno
import json
import logging
from pathlib import Path

import pytest

import net.peer.pins as pins_module
from net.files import write_atomic
from net.paths import DATA_DIR_VARIABLE
from net.peer.pins import MAX_HOST, MAX_PINS, MAX_VOTERS, REFRESH_AFTER, RoomPins, SatIn


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


# -- the file of pins, each behaviour with the mutants it kills (docs/testing.md)

KEY = bytes([9]) * 32
OTHER_KEY = bytes([7]) * 32
BROKER = ("192.0.2.7", 1883)


class Clock:
    """The pins' clock (``time.time``), set by the test: no wall clock."""

    def __init__(self, now: int) -> None:
        self.now = now

    def time(self) -> float:
        return float(self.now)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock(1_000_000)
    monkeypatch.setattr(pins_module, "time", clock)
    return clock


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Each file the pins write, in order (written as usual)."""
    written: list[Path] = []
    real = write_atomic

    def spy(path: Path, data: bytes | str, *, durable: bool = True) -> None:
        written.append(path)
        real(path, data, durable=durable)

    monkeypatch.setattr(pins_module, "write_atomic", spy)
    return written


def pin_file(path: Path, rooms: dict[str, object], version: object = 1) -> None:
    path.write_text(json.dumps({"version": version, "rooms": rooms}))


def entry(**fields: object) -> dict[str, object]:
    """A room's entry as the pins write it, with ``fields`` changed."""
    return {"key": KEY.hex(), "at": 1, "broker": list(BROKER), **fields}


def test_a_room_pinned_is_read_back_by_a_later_process_with_its_broker_and_time(
    tmp_path: Path, clock: Clock
) -> None:
    """What one process pins is what the next one trusts and offers to
    rejoin; a file that is not there yet is no damage (kills the missing
    file read as empty text, ``_load`` mutmut_4, and a notice of "" rather
    than None, ``__init__`` mutmut_6)."""
    path = tmp_path / "room_keys.json"
    pins = RoomPins(path)
    assert pins.get("ABC123") is None and pins.recent(5) == []
    assert pins.notice is None and not path.exists()
    pins.remember("ABC123", KEY, BROKER)
    again = RoomPins(path)
    assert again.get("ABC123") == KEY
    assert again.recent(5) == [SatIn("ABC123", KEY, BROKER, clock.now)]
    assert again.notice is None


def test_the_pins_live_in_the_data_directory_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every process of this user finds the same file: the data directory's
    room_keys.json (``PINS_FILE``)."""
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path))
    RoomPins().remember("ABC123", KEY, BROKER)
    assert RoomPins(tmp_path / "room_keys.json").get("ABC123") == KEY


def test_the_pin_file_is_written_in_a_data_directory_not_made_yet(tmp_path: Path) -> None:
    """On a first start the data directory and its parents may not exist:
    the pin is written all the same (kills ``mkdir`` without ``parents``,
    ``_write`` mutmut_23, 25, 27: the write would fail and only be logged)."""
    path = tmp_path / "not" / "made" / "room_keys.json"
    RoomPins(path).remember("ABC123", KEY, BROKER)
    assert RoomPins(path).get("ABC123") == KEY


def test_sitting_again_within_a_minute_writes_nothing(
    tmp_path: Path, clock: Clock, writes: list[Path]
) -> None:
    """A reconnection (the same key, the same broker or none said) within
    ``REFRESH_AFTER`` seconds writes nothing: a flapping link would else
    rewrite and sync the file each time (kills every way the "nothing
    changed" test can fail to hold, ``remember`` mutmut_4, 5, 10, 12, 14,
    15, 16, 17)."""
    path = tmp_path / "room_keys.json"
    pins = RoomPins(path)
    pins.remember("ABC123", KEY, BROKER)
    assert writes == [path]
    clock.now += REFRESH_AFTER - 1
    pins.remember("ABC123", KEY, BROKER)
    pins.remember("ABC123", KEY)
    assert writes == [path]
    assert RoomPins(path).recent(5) == [SatIn("ABC123", KEY, BROKER, clock.now - 59)]


def test_sitting_again_a_minute_later_refreshes_the_time_and_moves_the_room_first(
    tmp_path: Path, clock: Clock
) -> None:
    """After ``REFRESH_AFTER`` seconds the entry is written again, with the
    new time, and moves to the end of the file: the home screen offers the
    room sat in last first (kills ``<=`` for ``<``, ``remember`` mutmut_18,
    and the entry not moved, mutmut_19)."""
    path = tmp_path / "room_keys.json"
    pins = RoomPins(path)
    pins.remember("AAAAAA", KEY, BROKER)
    pins.remember("BBBBBB", OTHER_KEY, BROKER)
    start = clock.now
    clock.now += REFRESH_AFTER
    pins.remember("AAAAAA", KEY, BROKER)
    assert RoomPins(path).recent(5) == [
        SatIn("AAAAAA", KEY, BROKER, start + REFRESH_AFTER),
        SatIn("BBBBBB", OTHER_KEY, BROKER, start),
    ]


def test_a_new_key_or_a_new_broker_is_written_at_once(tmp_path: Path, clock: Clock) -> None:
    """The minute without writes is only for what is already known: a table
    that moved (a new key, ``_repin``) or a broker elsewhere is remembered
    at once, or a restart would trust the old key or look for the room in
    the wrong place (kills ``!=`` for ``==`` on the key, ``remember``
    mutmut_11, and ``broker is not None``, mutmut_13)."""
    path = tmp_path / "room_keys.json"
    pins = RoomPins(path)
    pins.remember("ABC123", KEY, BROKER)
    pins.remember("ABC123", OTHER_KEY, BROKER)
    assert RoomPins(path).get("ABC123") == OTHER_KEY
    elsewhere = ("198.51.100.2", 1884)
    pins.remember("ABC123", OTHER_KEY, elsewhere)
    assert RoomPins(path).recent(5) == [SatIn("ABC123", OTHER_KEY, elsewhere, clock.now)]


def test_a_room_pinned_again_without_its_broker_keeps_the_one_it_had(
    tmp_path: Path, clock: Clock
) -> None:
    """``remember`` without a broker (the headless host's own room, a new
    key) keeps where the room was: it can still be offered to rejoin; a room
    first pinned without one is not offered (kills the broker replaced by
    None, ``remember`` mutmut_24)."""
    path = tmp_path / "room_keys.json"
    pins = RoomPins(path)
    pins.remember("ABC123", KEY, BROKER)
    pins.remember("ABC123", OTHER_KEY)
    pins.remember("XYZ789", KEY)
    again = RoomPins(path)
    assert again.recent(5) == [SatIn("ABC123", OTHER_KEY, BROKER, clock.now)]
    assert again.get("XYZ789") == KEY


def test_past_max_pins_the_room_sat_in_longest_ago_is_dropped(tmp_path: Path, clock: Clock) -> None:
    """The file keeps the ``MAX_PINS`` newest rooms, no fewer: one more
    drops the oldest only (kills ``>=`` for ``>``, ``remember`` mutmut_30,
    and the eviction's ``next(iter(pins))`` broken, mutmut_31, 32)."""
    path = tmp_path / "room_keys.json"
    codes = [f"R{number:05d}" for number in range(MAX_PINS)]
    pin_file(path, {code: entry(at=number) for number, code in enumerate(codes)})
    RoomPins(path).remember("NEWEST", OTHER_KEY, BROKER)
    again = RoomPins(path)
    assert again.get(codes[0]) is None
    assert again.get(codes[1]) == KEY and again.get("NEWEST") == OTHER_KEY
    rooms = json.loads(path.read_text())["rooms"]
    assert list(rooms) == [*codes[1:], "NEWEST"]


def test_recent_rooms_are_those_sat_in_since_the_bound_itself_included(tmp_path: Path) -> None:
    """``since`` is the oldest time offered, included; by default every
    room with a broker is, from the epoch on (kills ``at > since``,
    ``recent`` mutmut_15, and a default of 1, mutmut_1)."""
    path = tmp_path / "room_keys.json"
    pin_file(path, {"AAAAAA": entry(at=0), "BBBBBB": entry(at=50), "CCCCCC": entry(at=100)})
    pins = RoomPins(path)
    assert [room.code for room in pins.recent(5)] == ["CCCCCC", "BBBBBB", "AAAAAA"]
    assert [room.code for room in pins.recent(5, since=50)] == ["CCCCCC", "BBBBBB"]
    assert [room.code for room in pins.recent(1)] == ["CCCCCC"]


def test_a_room_left_for_good_keeps_its_pin_but_is_offered_no_more(
    tmp_path: Path, clock: Clock, writes: list[Path]
) -> None:
    """``forget_broker`` keeps the key and its time (a squatter is still
    refused after the room ended) and removes only the broker; a room not
    pinned, or already without broker, is left alone and nothing is written
    (kills ``and`` for ``or``, ``forget_broker`` mutmut_4, the key or the
    time replaced, mutmut_9, 10)."""
    path = tmp_path / "room_keys.json"
    pins = RoomPins(path)
    pins.forget_broker("ABC123")
    assert writes == []
    pins.remember("ABC123", KEY, BROKER)
    pins.forget_broker("ABC123")
    assert pins.recent(5) == [] and pins.get("ABC123") == KEY
    assert len(writes) == 2
    pins.forget_broker("ABC123")
    assert len(writes) == 2
    again = RoomPins(path)
    assert again.get("ABC123") == KEY and again.notice is None and again.recent(5) == []
    assert json.loads(path.read_text())["rooms"] == {"ABC123": {"key": KEY.hex(), "at": clock.now}}
    # Its standby brokers go too, even with the broker gone already (a game
    # over: nowhere to look for it).
    again.remember_brokers("ABC123", [BROKER])
    assert again.brokers("ABC123") == (BROKER,) and len(writes) == 3
    again.forget_broker("ABC123")
    assert again.brokers("ABC123") == () and RoomPins(path).brokers("ABC123") == ()
    assert len(writes) == 4


def test_voters_are_kept_only_for_a_pinned_room_and_written_only_when_they_change(
    tmp_path: Path, writes: list[Path]
) -> None:
    """The voters of a room not pinned are not trusted, even in this process
    (an announcement they sign would move a pin that is not there), and the
    same voters said again write nothing (kills ``and`` for ``or``,
    ``remember_voters`` mutmut_1, and ``get(None)``, mutmut_3)."""
    path = tmp_path / "room_keys.json"
    pins = RoomPins(path)
    voters = frozenset({bytes([1]) * 32, bytes([2]) * 32})
    pins.remember_voters("ABC123", voters)
    assert pins.voters("ABC123") == frozenset() and writes == []
    pins.remember("ABC123", KEY, BROKER)
    pins.remember_voters("ABC123", voters)
    pins.remember_voters("ABC123", voters)
    assert len(writes) == 2
    assert RoomPins(path).voters("ABC123") == voters


def test_a_pin_that_cannot_be_written_is_logged_with_its_room_and_lasts_the_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A full disk never stops the game: each write that fails (a pin, its
    voters, a broker forgotten) is logged with the room's code and the
    reason, and the pin holds in memory (kills the log line's text and
    arguments, ``_write`` mutmut_34 to 41, and the code lost on the way,
    ``remember`` mutmut_33, ``remember_voters`` mutmut_6, ``forget_broker``
    mutmut_11)."""
    full = OSError(errno.ENOSPC, "No space left on device")

    def fail(path: Path, data: bytes | str, *, durable: bool = True) -> None:
        raise full

    monkeypatch.setattr(pins_module, "write_atomic", fail)
    pins = RoomPins(tmp_path / "room_keys.json")
    voters = frozenset({bytes([1]) * 32})
    with caplog.at_level(logging.WARNING, logger="passe.pins"):
        pins.remember("ABC123", KEY, BROKER)
        pins.remember_voters("ABC123", voters)
        pins.forget_broker("ABC123")
    expected = f"could not remember the key of room ABC123: {full}"
    assert [record.getMessage() for record in caplog.records] == [expected] * 3
    assert pins.get("ABC123") == KEY and pins.voters("ABC123") == voters
    assert not (tmp_path / "room_keys.json").exists()


def test_the_edges_of_a_broker_and_of_voters_are_read_back(tmp_path: Path) -> None:
    """What a broker and its voters may be, up to each bound, is read back,
    not taken for damage (which would forget every pin): a one-character
    host, a 255-character one, ports 1 and 65535, ``MAX_VOTERS`` voters
    (kills ``_broker`` mutmut_13, 15, 23, 25 and ``_voters`` mutmut_4)."""
    path = tmp_path / "room_keys.json"
    voters = [bytes([number]) * 32 for number in range(MAX_VOTERS)]
    pin_file(
        path,
        {
            "AAAAAA": entry(broker=["h", 1]),
            "BBBBBB": entry(broker=["h" * MAX_HOST, 65535], voters=[v.hex() for v in voters]),
        },
    )
    pins = RoomPins(path)
    assert pins.notice is None
    assert [(room.code, room.broker) for room in pins.recent(5)] == [
        ("BBBBBB", ("h" * MAX_HOST, 65535)),
        ("AAAAAA", ("h", 1)),
    ]
    assert pins.voters("BBBBBB") == frozenset(voters)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("[]", "not a room key file of this version"),
        (
            json.dumps({"version": 2, "rooms": {"ABC123": entry()}}),
            "not a room key file of this version",
        ),
        (json.dumps({"version": 1}), "no rooms"),
        (json.dumps({"version": 1, "rooms": {"ABC123": entry(key="ab" * 16)}}), "a bad entry"),
        (json.dumps({"version": 1, "rooms": {"ABC123": entry(at="1")}}), "a bad entry"),
        (json.dumps({"version": 1, "rooms": {"ABC123": entry(broker="ab")}}), "a bad broker"),
        (
            json.dumps({"version": 1, "rooms": {"ABC123": entry(broker=["", 1883])}}),
            "a bad broker host",
        ),
        (
            json.dumps(
                {"version": 1, "rooms": {"ABC123": entry(broker=["h" * (MAX_HOST + 1), 1883])}}
            ),
            "a bad broker host",
        ),
        (
            json.dumps({"version": 1, "rooms": {"ABC123": entry(broker=["h", 0])}}),
            "a bad broker port",
        ),
        (
            json.dumps({"version": 1, "rooms": {"ABC123": entry(broker=["h", 65536])}}),
            "a bad broker port",
        ),
        (json.dumps({"version": 1, "rooms": {"ABC123": entry(voters="")}}), "bad voters"),
        (
            json.dumps(
                {"version": 1, "rooms": {"ABC123": entry(voters=["ab" * 32] * (MAX_VOTERS + 1))}}
            ),
            "bad voters",
        ),
        (json.dumps({"version": 1, "rooms": {"ABC123": entry(voters=["ab" * 16])}}), "a bad voter"),
        # A key with spaces in it (bytes.fromhex skips them: a shorter key).
        (
            json.dumps({"version": 1, "rooms": {"ABC123": entry(key="ab " * 21 + "a")}}),
            "a bad entry",
        ),
        (
            json.dumps({"version": 1, "rooms": {"ABC123": entry(voters=["ab " * 21 + "a"])}}),
            "a bad voter",
        ),
        # JSON's true is Python's 1: not a number of this file's.
        (json.dumps({"version": True, "rooms": {}}), "not a room key file of this version"),
        (json.dumps({"version": 1, "rooms": {"ABC123": entry(at=True)}}), "a bad entry"),
    ],
)
def test_a_damaged_pin_file_is_set_aside_and_reported_with_what_is_wrong(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: str, reason: str
) -> None:
    """Damage of any kind (another version, a short key, a broker or voters
    out of bounds) sets the file aside and says so once, in the notice the
    home screen shows and in the log, with what is wrong: never fatal, never
    half read (kills each message, ``_broker`` mutmut_3, 6-8, 14, 16-18,
    26-29, ``_voters`` mutmut_3, 5-7, 10, 13-15, ``_load`` mutmut_10,
    16-18, 24-26, 33, 34, 39-41, 64, 65, ``_report`` mutmut_2)."""
    path = tmp_path / "room_keys.json"
    path.write_text(content)
    with caplog.at_level(logging.WARNING, logger="passe.pins"):
        pins = RoomPins(path)
        assert pins.get("ABC123") is None
    expected = (
        f"room_keys.json was damaged ({reason}); kept aside as room_keys.json.corrupt: "
        "rooms are trusted anew"
    )
    assert pins.notice == expected
    assert [record.getMessage() for record in caplog.records] == [expected]
    assert (tmp_path / "room_keys.json.corrupt").read_text() == content
    assert not path.exists()


def test_a_pin_file_that_cannot_be_read_is_reported_and_left_in_place(tmp_path: Path) -> None:
    """A file that exists but cannot be read (here a directory of that name)
    is said in words, and not taken for damage: it is not moved aside
    (kills the notice lost, ``_load`` mutmut_5, and the read taken as
    empty, mutmut_6, which would set the directory aside)."""
    path = tmp_path / "room_keys.json"
    path.mkdir()
    pins = RoomPins(path)
    assert pins.get("ABC123") is None
    assert pins.notice == "cannot read room_keys.json (Is a directory): rooms are trusted anew"
    assert path.is_dir() and not (tmp_path / "room_keys.json.corrupt").exists()


def test_a_damaged_pin_file_that_cannot_be_set_aside_is_still_reported_and_not_fatal(
    tmp_path: Path,
) -> None:
    """When the damaged file cannot be moved aside (the ``.corrupt`` name is
    taken by a directory), the peer still starts, trusting rooms anew
    (kills ``suppress(None)``, ``_load`` mutmut_58)."""
    path = tmp_path / "room_keys.json"
    path.write_text("{")
    aside = tmp_path / "room_keys.json.corrupt"
    aside.mkdir()
    (aside / "kept").write_text("")
    pins = RoomPins(path)
    assert pins.get("ABC123") is None
    assert pins.notice is not None and pins.notice.startswith("room_keys.json was damaged")
    assert path.read_text() == "{"


def test_the_voters_of_a_damaged_file_are_not_trusted_either(tmp_path: Path) -> None:
    """A damaged file is forgotten whole: the voters of the rooms read before
    the damage was found are not kept, or a room trusted anew would follow
    an announcement they sign (remote.py reads them when it joins) and the
    same voters, said again once pinned, would never be written (a real
    bug: ``_load`` kept them in memory)."""
    path = tmp_path / "room_keys.json"
    voters = frozenset({bytes([1]) * 32})
    pin_file(
        path,
        {
            "AAAAAA": entry(voters=[key.hex() for key in voters]),
            "BBBBBB": entry(key="zz"),
        },
    )
    pins = RoomPins(path)
    assert pins.get("AAAAAA") is None and pins.notice is not None
    assert pins.voters("AAAAAA") == frozenset()
    pins.remember("AAAAAA", KEY, BROKER)
    pins.remember_voters("AAAAAA", voters)
    assert RoomPins(path).voters("AAAAAA") == voters


def test_a_pin_file_nested_too_deep_to_read_is_damage_not_a_crash(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A crafted file of arrays nested deeper than the parser recurses
    ("[[[[…") raised RecursionError out of the load: the home screen
    crashed where any other damage is set aside and said (a pins
    mutation run noticed it). Now it is damage like the rest."""
    path = tmp_path / "room_keys.json"
    content = "[" * 100_000 + "]" * 100_000
    path.write_text(content)
    with caplog.at_level(logging.WARNING, logger="passe.pins"):
        pins = RoomPins(path)
        assert pins.get("ABC123") is None
    assert pins.notice is not None and pins.notice.startswith("room_keys.json was damaged (")
    assert (tmp_path / "room_keys.json.corrupt").read_text() == content
