"""The one interface through which the TUI talks to a table.

Two implementations: :class:`LocalClient` (in-process: the table runs here,
no network at all) and the MQTT client of the networked play. The TUI only
ever receives :class:`~net.authority.table.TableUpdate`\\ s: views, never state.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from core.engine import Action, GameRecord, IllegalAction
from net.authority.table import Listener, SavedTable, Table, TableUpdate


class TableClient(ABC):
    """A seat's (or a spectator's) connection to one table."""

    seat: int | None
    game_id: str
    names: tuple[str, ...]

    @abstractmethod
    async def connect(self, listener: Listener) -> None:
        """Start receiving updates; the first one carries the current view."""

    @abstractmethod
    async def submit(self, action: Action) -> None:
        """Send an action for this seat. A refusal arrives as an update with
        ``rejected`` set (and, in-process, as :class:`IllegalAction`)."""

    @abstractmethod
    async def close(self) -> None: ...

    def hold(self, holding: bool) -> None:  # noqa: B027 - optional, no-op by default
        """Ask bots to wait (``True``) while this person reads something, e.g.
        an end-of-round summary, or to go on. Local tables honour it; a
        networked table does not stop for one person."""

    def saved(self) -> SavedTable | None:
        """What resumes this game after a crash, when it is kept here (local
        play); a networked game is kept by its authority."""
        return None

    @abstractmethod
    def record(self) -> GameRecord | None:
        """The game record so far, when this client may know it (for saving)."""


class LocalClient(TableClient):
    """In-process: the table (authority and bots) lives in this program."""

    def __init__(self, table: Table, seat: int | None) -> None:
        self.table = table
        self.seat = seat
        self.game_id = table.game.id
        self.names = table.names
        self._unsubscribe: Callable[[], None] | None = None

    async def connect(self, listener: Listener) -> None:
        self._unsubscribe = self.table.subscribe(self.seat, listener)
        self.table.start()

    async def submit(self, action: Action) -> None:
        if self.seat is None:
            raise IllegalAction("spectators cannot act")
        self.table.submit(self.seat, action)

    async def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        await self.table.stop()

    def hold(self, holding: bool) -> None:
        if holding:
            self.table.pause()
        else:
            self.table.resume()

    def saved(self) -> SavedTable | None:
        if self.seat is None:
            return None
        return SavedTable(self.table.record(), self.table.seats, self.seat)

    def record(self) -> GameRecord | None:
        return self.table.record()


__all__ = ["LocalClient", "TableClient", "TableUpdate"]
