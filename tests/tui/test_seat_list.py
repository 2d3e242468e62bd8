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
