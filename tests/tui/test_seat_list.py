"""A seat in words (tui/widgets/seat_list.py), never by colour alone."""

from __future__ import annotations

from net.protocol.wire import SeatState
from tui.widgets.seat_list import seat_line


def test_a_bot_process_that_joined_is_not_given_a_level_it_does_not_play() -> None:
    """The room's state names "heuristic" for every ``passe join --bot``
    seat, whatever level it plays at: the screen does not repeat it."""
    present = SeatState("Bob", "bot", "heuristic", "3d03858a706e3627", True)
    away = SeatState("Bob", "bot", "heuristic", "3d03858a706e3627", False)
    assert seat_line(present, mine=False) == ("Bob", "bot, joined · present")
    assert seat_line(away, mine=False) == ("Bob", "bot, joined · AWAY")


def test_the_host_s_own_bots_show_their_level() -> None:
    assert seat_line(SeatState("Bruno", "bot", "normal"), mine=False) == ("Bruno", "bot · normal")


def test_people_and_empty_seats() -> None:
    ana = SeatState("Ana", "human", "", "0123456789abcdef", True)
    assert seat_line(ana, mine=True) == ("Ana (you)", "person · present")
    assert seat_line(SeatState("Cy", "human", "", "fedcba9876543210", False), mine=False) == (
        "Cy",
        "person · AWAY",
    )
    assert seat_line(SeatState("Seat 3", "open"), mine=False) == ("(empty)", "waiting for a person")


async def test_a_person_never_seen_here_is_not_yet_here_not_away() -> None:
    """By hand (7 December): the next game's lobby said "Ben · AWAY" while
    Ben, invited, was still reading his game-over screen: AWAY says a
    dropped connection. A person this lobby never saw present is "not here
    yet"; once seen, and gone, AWAY."""
    from rich.console import Console
    from textual.app import App, ComposeResult

    from net.protocol.wire import RoomState
    from tui.widgets.seat_list import SeatList

    def room(ben_present: bool) -> RoomState:
        seats = [
            SeatState("Ann", "human", "", "0123456789abcdef", True),
            SeatState("Ben", "human", "", "fedcba9876543210", ben_present),
        ]
        return RoomState("ABC123", "dominoes", {"players": 2}, "Ann", "lobby", seats, 0, 1)

    class Lobby(App[None]):
        def compose(self) -> ComposeResult:
            yield SeatList(editable=True, levels=("normal",))

    app = Lobby()
    async with app.run_test() as pilot:
        seats = app.query_one(SeatList)
        said = []
        for present in (False, True, False):
            seats.show(room(present), 0)
            await pilot.pause()
            console = Console(width=80, color_system=None)
            with console.capture() as seen:
                console.print(seats.content)
            said.append(seen.get())
        assert "not here yet" in said[0] and "AWAY" not in said[0], said[0]
        assert "present" in said[1].split("Ben", 1)[1], said[1]
        assert "AWAY" in said[2] and "not here yet" not in said[2], said[2]
