"""What a dealer keeps of each room it runs, beside the room's own file, so
that a room no other dealer holds outlives the dealer's process (issue 20:
"nothing lost on a crash"; docs/protocol.md section 14, "Restarting a
dealer").

The room's file (net/authority/rooms.py, in the dealer's ``rooms`` directory) holds
the game, as a host's does; this record holds what the dealer was asked
(who may sit, after how long a stand-in plays for someone away) and
whether other dealers hold the room (then its table moves to one of them
when this dealer dies, and this one must never run it again: that would
be a second table). ``passe dealer`` started again with the same data
directory reads these records and resumes the rooms they name.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import Annotated, Final

import msgspec
from msgspec import Meta

from net.files import write_atomic

log = logging.getLogger("passe.dealer")

KEPT_SUFFIX: Final = ".deal"
KEPT_VERSION: Final = 1
# A record is a few hundred bytes; anything far larger is not ours.
MAX_KEPT_SIZE: Final = 64 * 1024
MAX_ADMITTED: Final = 64  # as a Deal's ``admit``


class KeptRoom(msgspec.Struct, forbid_unknown_fields=True):
    """One room a dealer runs, as it was asked for."""

    version: int
    code: str
    asker: str  # the asker's name, as shown in the dealer's log and status
    admit: list[str]  # peer ids that may sit (empty: anyone)
    stand_in_after: float  # seconds (0: never)
    # Other dealers hold the room's log and shares: it fails over to them,
    # and is never resumed here.
    replicated: bool = False
    # The person who asked for it on screen (their player key; empty: none),
    # who starts it early and opens its next game, and how its lobby fills
    # (the next game's fills so too): kept so that a room resumed after a
    # restart still has its owner (it refused their next game without).
    owner: Annotated[bytes, Meta(max_length=32)] = b""
    wanted: Annotated[int, Meta(ge=0, le=16)] = 0
    bots: Annotated[str, Meta(max_length=16)] = "normal"


_decoder = msgspec.json.Decoder(KeptRoom)
_encoder = msgspec.json.Encoder()


class KeptRoomError(Exception):
    """A record that cannot be read back (one line, with the file's name)."""


def kept_path(directory: Path, code: str) -> Path:
    return directory / f"{code}{KEPT_SUFFIX}"


def keep(directory: Path, room: KeptRoom) -> None:
    """Write ``room``'s record (durable: it is written twice in a game, at
    the deal and at the start). A failure is logged, never raised: the game
    goes on, it only would not come back after a crash."""
    try:
        write_atomic(kept_path(directory, room.code), encode_kept(room))
    except OSError as error:
        log.warning("room %s: cannot keep its record: %s", room.code, error)


def forget(directory: Path, code: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(kept_path(directory, code))


def read_kept(path: Path) -> KeptRoom:
    """The record at ``path``, checked (raises :class:`KeptRoomError`)."""
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_KEPT_SIZE + 1)
    except OSError as error:
        raise KeptRoomError(f"{path.name}: {error.strerror or error}") from None
    code = path.name[: -len(KEPT_SUFFIX)] if path.name.endswith(KEPT_SUFFIX) else ""
    return decode_kept(data, code, where=path.name)


def encode_kept(room: KeptRoom) -> bytes:
    """``room`` as its record holds it: also what a dealer's room carries in
    its replicated log (net/authority/rooms.py, ``SavedRoom.dealt_as``), so
    that the dealer that takes its table over knows its owner and how its
    next game's lobby fills."""
    return _encoder.encode(room)


def decode_kept(data: bytes, code: str, *, where: str) -> KeptRoom:
    """The record ``data`` of room ``code``, checked: raises
    :class:`KeptRoomError`, its sentence starting with ``where``."""
    if len(data) > MAX_KEPT_SIZE:
        raise KeptRoomError(f"{where}: larger than any dealer writes")
    try:
        room = _decoder.decode(data)
    except msgspec.DecodeError as error:
        raise KeptRoomError(f"{where}: not a dealer's room record ({error})") from None
    problem = _problem(room, code)
    if problem:
        raise KeptRoomError(f"{where}: {problem}")
    return room


def _problem(room: KeptRoom, code: str) -> str | None:
    if room.version != KEPT_VERSION:
        return f"version {room.version}, this Passe reads {KEPT_VERSION}"
    if room.code != code:
        return f"it names room {room.code!r}"
    if len(room.admit) > MAX_ADMITTED or any(len(each) > 64 for each in room.admit):
        return "its list of who may sit is longer than a deal's"
    if len(room.asker) > 64:
        return "its asker's name is longer than a deal's"
    if not 0 <= room.stand_in_after <= 86_400:
        return f"stand-in after {room.stand_in_after!r} s"
    return None


def kept_rooms(directory: Path, *, set_aside: bool = True) -> tuple[list[KeptRoom], list[str]]:
    """Every record in ``directory``, and one sentence for each that cannot
    be read (set aside as ``.bad``, kept for a look; ``set_aside`` False:
    left where it is, for a reader that changes nothing)."""
    try:
        paths = sorted(directory.glob(f"*{KEPT_SUFFIX}"))
    except OSError:
        return [], []
    rooms: list[KeptRoom] = []
    problems: list[str] = []
    for path in paths:
        try:
            rooms.append(read_kept(path))
        except KeptRoomError as error:
            if not set_aside:
                problems.append(str(error))
                continue
            with contextlib.suppress(OSError):
                os.replace(path, path.with_name(path.name + ".bad"))
            problems.append(f"{error}: set aside as {path.name}.bad")
    return rooms, problems
