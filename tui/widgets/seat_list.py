"""The lobby's seats: who sits where, person or bot, connected or away, and
the team where the game is played in teams. For the host, ↑/↓ choose an empty
seat and ←/→ (or space) cycle what fills it: nobody, or a bot of each level."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Static

from net.protocol.wire import RoomState, SeatState
from tui.messages import SeatLevelChosen
from tui.plain import cells

OPEN, HUMAN, BOT = "open", "human", "bot"
TEAM_LETTERS = "ABCD"


def team_of(seat: int, players: int) -> int:
    """Partners sit alternately (as on the home screen): seat mod teams."""
    return seat % max(1, players // 2)


def seat_line(seat: SeatState, *, mine: bool, seen: bool = True) -> tuple[str, str]:
    """Who sits there and how they are, in words (never by colour alone).
    ``seen``: whether this lobby saw the person present; one it never saw
    is not yet here (invited to the next game, or a resumed room's player
    not back yet), which "AWAY" (their connection dropped) would misstate."""
    if seat.kind == HUMAN:
        name = f"{seat.name} (you)" if mine else seat.name
        if seat.present:
            return name, "person · present"
        return name, "person · AWAY" if seen else "person · not here yet"
    if seat.kind == BOT and seat.peer:  # a bot process elsewhere (passe join --bot)
        # Not its level: a Hello says only that it is a bot, and the room's
        # state names "heuristic" whatever it plays at (found by hand: "Bob
        # bot · heuristic" for a `--bot normal`).
        return seat.name, "bot, joined · present" if seat.present else "bot, joined · AWAY"
    if seat.kind == BOT:
        return seat.name, f"bot · {seat.level}"
    return "(empty)", "waiting for a person"


class SeatList(Static, can_focus=True):
    DEFAULT_CSS = """
    SeatList {
        height: auto;
        padding: 0 1;
    }
    SeatList:focus { background: $accent 10%; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Seat", key_display="↑↓"),
        Binding("down,j", "move(1)", "Seat", show=False),
        Binding("left,h", "cycle(-1)", "Bot", key_display="←→"),
        Binding("right,l,space", "cycle(1)", "Bot", show=False),
    ]

    def __init__(self, *, editable: bool, levels: Sequence[str], id: str | None = None) -> None:
        super().__init__(id=id)
        self.editable = editable
        self.levels = tuple(levels)
        self.room: RoomState | None = None
        self.mine: int | None = None
        self.cursor = 0
        # The level last asked for per seat, until a room state shows it:
        # keys pressed faster than the room answers (a burst of →) each step
        # on from the previous ask, not from the state they all saw.
        self._asked: dict[int, str | None] = {}
        # The keys this lobby saw present (seat_line's ``seen``).
        self._seen_present: set[str] = set()

    def show(self, room: RoomState, mine: int | None) -> None:
        self.room = room
        self.mine = mine
        self._seen_present.update(
            seat.peer for seat in room.seats if seat.present and seat.kind == HUMAN
        )
        for seat, level in list(self._asked.items()):
            if not self._changeable(seat) or _level_of(room.seats[seat]) == level:
                del self._asked[seat]
        self.cursor = min(self.cursor, max(0, len(room.seats) - 1))
        if self.editable and not self._changeable(self.cursor):
            self.cursor = next(
                (n for n in range(len(room.seats)) if self._changeable(n)), self.cursor
            )
        self._render_seats()

    def _changeable(self, seat: int) -> bool:
        """Empty, a bot, or a person who is away (who did not follow to the
        next game): the host may fill it, change it, or replace them. (The
        authority lets the host give a present person's seat away too; not
        with ←→ here, where a person sitting down under the cursor would be
        taken out by the host's next key.)"""
        if self.room is None or self.room.phase != "lobby" or seat >= len(self.room.seats):
            return False
        state = self.room.seats[seat]
        return state.kind != HUMAN or (not state.present and seat != self.mine)

    def _render_seats(self) -> None:
        room = self.room
        if room is None:
            self.update("")
            return
        teams = bool(room.config.get("teams")) and len(room.seats) >= 4
        table = Table(box=None, padding=(0, 1, 0, 0), expand=True, show_header=False)
        table.add_column("", width=1, no_wrap=True)
        table.add_column("#", width=2, no_wrap=True)
        if teams:
            table.add_column("team", width=6, no_wrap=True)
        table.add_column("who", ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column("how", width=22, no_wrap=True)
        for n, seat in enumerate(room.seats):
            seen = seat.peer in self._seen_present
            name, how = seat_line(seat, mine=n == self.mine, seen=seen)
            chosen = self.editable and n == self.cursor and self._changeable(n)
            row: list[Text | str] = [Text("▶" if chosen else " "), str(n + 1)]
            if teams:
                row.append(f"team {TEAM_LETTERS[team_of(n, len(room.seats))]}")
            style = "bold" if chosen else ("dim" if seat.kind == OPEN else "")
            row += [Text(name, style=style), Text(how, style="reverse" if "AWAY" in how else "")]
            table.add_row(*cells(*row))
        self.update(table)

    # -- keys (the host's) --------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("move", "cycle"):
            return self.editable and self.room is not None and self.room.phase == "lobby"
        return True

    def action_move(self, step: int) -> None:
        room = self.room
        if room is None:
            return
        changeable = [n for n in range(len(room.seats)) if self._changeable(n)]
        if not changeable:
            return
        after = [n for n in changeable if (n - self.cursor) * step > 0]
        if after:
            self.cursor = min(after) if step > 0 else max(after)
        self._render_seats()

    def action_cycle(self, step: int) -> None:
        """Empty → each bot level → empty, for the seat under the cursor."""
        room = self.room
        if room is None or not self._changeable(self.cursor):
            return
        choices: list[str | None] = [None, *self.levels]
        if self.cursor in self._asked:
            current = self._asked[self.cursor]
        else:
            current = _level_of(room.seats[self.cursor])
        index = choices.index(current) if current in choices else 0
        level = choices[(index + step) % len(choices)]
        self._asked[self.cursor] = level
        self.post_message(SeatLevelChosen(self.cursor, level))

    def forget_ask(self, seat: int) -> None:
        """The room refused the level asked for ``seat``: step on from what it shows."""
        self._asked.pop(seat, None)


def _level_of(seat: SeatState) -> str | None:
    """A seat's bot level, ``None`` when no bot sits there."""
    return seat.level if seat.kind == BOT else None
