"""Custom messages between the table's widgets, its screen and the client."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from core.engine import GameRecord, Result
from net.authority.table import TableUpdate

if TYPE_CHECKING:
    from net.authority.rooms import SavedRoom
    from net.peer.remote import RemoteTable
    from net.protocol.wire import RoomState
    from tui.settings import Settings


class TableUpdated(Message):
    """A view (and the events and refusal that came with it) from the client."""

    def __init__(self, update: TableUpdate) -> None:
        super().__init__()
        self.update = update


@dataclass
class CardChosen(Message):
    """A card was chosen in a hand or trick widget (index in that widget)."""

    source: str  # "hand" or "trick"
    index: int


@dataclass
class TileChosen(Message):
    """A domino was chosen in the hand (index in the hand); ``end`` is the
    open end asked for ("L" or "R"), or None to let the screen decide."""

    index: int
    end: str | None = None


class RoomChanged(Message):
    """A networked room's public state changed (seats, presence, phase)."""

    def __init__(self, room: RoomState) -> None:
        super().__init__()
        self.room = room


@dataclass
class KnocksChanged(Message):
    """Who knocks at a room whose owner this seat is (a dealer's room asked
    for by this person) changed: the room told us."""


@dataclass
class LinkChanged(Message):
    """Our link to a networked room's broker went down (``up`` False:
    reconnecting by itself) or came back."""

    up: bool


@dataclass
class HostChanged(Message):
    """The host's process of a networked room went away (``up`` False: its
    last will) or came back."""

    up: bool


class MachinesChanged(Message):
    """A machine of a networked room (a voter) came or went where this
    process's voter is: how many the table waits for may have changed."""


@dataclass
class NextGameOpened(Message):
    """The host of a networked room whose game is over opened the next game
    at the same table, in room ``code``."""

    code: str


@dataclass
class SeatLevelChosen(Message):
    """The host chose who fills an empty seat in the lobby: a bot of
    ``level``, or nobody (``None``: the seat waits for a person)."""

    seat: int
    level: str | None


@dataclass
class HostRequested(Message):
    """Home asks to host a LAN game with these settings."""

    settings: Settings


@dataclass
class JoinRequested(Message):
    """Home asks to join a LAN game by its code (``settings``: the name);
    ``rejoin``: ``CODE@HOST:PORT`` of a room whose seat is still ours, to
    join at once; ``name_hint``: the name to offer if none is known yet
    (the one that seat had)."""

    settings: Settings
    rejoin: str = ""
    name_hint: str = ""


# Screens ask the app by messages and never import it ("attributes down,
# messages up"): the app handles each in an ``on_...`` method.


@dataclass
class BotSpeedChosen(Message):
    """A bot speed was chosen on the home screen: it replaces, from now on,
    the one ``passe play --bot-delay`` gave for this run."""

    seconds: float


@dataclass
class NewGameRequested(Message):
    """Home asks for a local game with these settings (the app asks first
    when that would replace the saved game)."""

    settings: Settings


class ResumeRequested(Message):
    """Home asks to continue the saved local game."""


@dataclass
class ResumeHostedRequested(Message):
    """Home asks to open again ``room``, a hosted room whose host process
    died, at its lobby (or its table)."""

    room: SavedRoom


class GoHomeRequested(Message):
    """A table is done: back to the home screen."""


@dataclass
class VoteKept(Message):
    """A networked game was left and this machine votes on in it until it
    ends (``RemoteTable.leave(keep_vote=True)``): the app keeps ``table``,
    asks before quitting while the others need its vote, and closes it."""

    table: RemoteTable


class QuitRequested(Message):
    """A screen asks to quit Passe (its own leave done): the app asks first
    while the others need a vote this machine kept (VoteKept)."""


class PlayAgainRequested(Message):
    """A local game's game-over screen asks for another game, same settings."""


class NextGameRequested(Message):
    """A networked game's game-over screen asks for the next game at the same
    table (its lobby opens or joins it)."""


@dataclass
class GameRecorded(Message):
    """A table's game is over and its record is known (a networked game's
    once its deal is revealed): the app keeps it with the players' names,
    this person's seat, the result and the deal check (issue 21)."""

    record: GameRecord
    names: tuple[str, ...]
    seat: int | None
    result: Result
    deal_check: str


class PastGamesRequested(Message):
    """Home asks for the list of finished games, to replay one."""


@dataclass
class ReplayRequested(Message):
    """The past games list asks to replay the game kept in ``path``."""

    path: Path
