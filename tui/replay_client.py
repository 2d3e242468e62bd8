"""The client of a replay's table screen: a finished game, looked at from
one seat (or the spectator's), where nothing is played. The replay screen
(tui/screens/replay.py) shows each moment itself; this client only gives
the table screen what it asks of every client: the game, the names, the
seat whose view is shown."""

from __future__ import annotations

from core.engine import Action, GameRecord, IllegalAction
from core.replay import Replay
from net.authority.table import Listener
from net.peer.client import TableClient


class ReplayClient(TableClient):
    def __init__(self, replay: Replay, names: tuple[str, ...], seat: int | None) -> None:
        self.replay = replay
        self.game_id = replay.game.id
        self.names = names
        self.seat = seat  # whose view is shown; the screen's v changes it

    async def connect(self, listener: Listener) -> None:
        """Nothing arrives: the replay screen shows the moments itself."""

    async def submit(self, action: Action) -> None:
        raise IllegalAction("this is a replay: nothing can be played")

    async def close(self) -> None:
        """Nothing to close: the game is over and lives in memory."""

    def record(self) -> GameRecord | None:
        """None: a replayed game is kept already (it is not kept again)."""
        return None


__all__ = ["ReplayClient"]
