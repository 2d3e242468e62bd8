"""One line over a networked table, shown only when something is wrong:
our own link is down (it reconnects by itself), a player is away, or the
host closed the room. Words, not colour, carry the meaning (NO_COLOR)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.widgets import Static

from net.wire import RoomState, SeatState


def network_problem(
    room: RoomState | None, link_up: bool, mine: int | None, host_up: bool = True
) -> str:
    """What the bar says, or "" when all is well."""
    if room is not None and room.phase == "closed":
        # First: once the room is closed, a lost link is no news.
        return "⚠ The host closed the room: this game cannot go on. q: home"
    if not link_up:
        return "⚠ Connection to the table lost: reconnecting…"
    if not host_up and (room is None or room.phase != "over"):
        return "⚠ The host is away (disconnected): the game waits for it to come back"
    if room is None:
        return ""
    away = away_names(room.seats, mine)
    if away and room.phase == "playing":
        who = ", ".join(away)
        verb = "is" if len(away) == 1 else "are"
        return f"⚠ {who} {verb} away (disconnected): the game waits for them to come back"
    return ""


def away_names(seats: Sequence[SeatState], mine: int | None) -> list[str]:
    """Names of the people (not bots) whose connection is down."""
    return [
        seat.name
        for n, seat in enumerate(seats)
        if seat.kind == "human" and n != mine and not seat.present
    ]


class NetStatus(Static):
    DEFAULT_CSS = """
    NetStatus {
        dock: top;
        height: 1;
        width: 1fr;
        padding: 0 1;
        background: $warning 50%;
        color: $text;
        text-style: bold;
        display: none;
    }
    NetStatus.-shown { display: block; }
    """

    def say(self, text: str) -> None:
        self.update(text)
        self.set_class(bool(text), "-shown")

    @property
    def text(self) -> str:
        return str(self.render()) if self.has_class("-shown") else ""
