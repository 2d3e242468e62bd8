"""One line over a networked table, shown only when something is wrong:
our own link is down (it reconnects by itself), a player is away, or the
host closed the room. Words, not colour, carry the meaning (NO_COLOR)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from textual.content import Content
from textual.widgets import Static

from net.election.node import majority
from net.protocol.wire import RoomState, SeatState
from tui.widgets.fit import fit


def network_problem(
    room: RoomState | None,
    link_up: bool,
    mine: int | None,
    host_up: bool = True,
    to_act: Collection[int] = (),
    settling: bool = False,
    machines: tuple[int, int] | None = None,
    machines_away: Sequence[str] = (),
) -> str:
    """What the bar says, or "" when all is well. ``to_act``: the seats the
    game waits for now (a person away while others play is not yet what
    the game waits for). ``settling``: the table has just moved to another
    machine, where every seat is away until its link reaches it.
    ``machines``: how many of the room's machines (its voters) this one's
    voter finds where it is, of how many (None: this one does not vote);
    ``machines_away``: whose those not found are ("Bob's", "the host's")."""
    # A dealer's room (issue 20) is run by that dealer, not by a player;
    # the host is named (after a move the table's runner is another person:
    # "The host is away" named nobody, found in a play-test, 5 December).
    if room is not None and room.dealer:
        host = f"The dealer ({room.dealer})"
    elif room is not None and room.host:
        host = f"The host ({room.host})"
    else:
        host = "The host"
    if room is not None and room.phase == "closed":
        # First: once the room is closed, a lost link is no news.
        return f"⚠ {host} closed the room: this game cannot go on. q: home"
    # In play, the table moves to a player's machine when its runner's is
    # gone (issue 20), or it waits for that machine (rooms that cannot
    # elect say so); a dealer's room goes to another dealer, if any.
    if room is not None and room.phase == "playing" and not room.dealer:
        after = (
            "another player's takes the table"
            if room.election
            else "the game waits for it to come back"
        )
    else:
        after = ""
    # What follows the host's machine gone, counted where this one's voter
    # is (our own link down, it counts nothing): not "another player's
    # takes the table" when too few of the room's machines live for an
    # election (a play-tester read it with 1 of 3 alive, 5 December).
    after_host = after
    if after and room is not None and room.election and machines is not None:
        found, voters = machines
        missing = majority(voters) - found  # a majority elects (docs/election.md)
        if missing > 0:
            after_host = (
                f"another player's takes the table once {missing} more of the "
                f"room's {voters} machines {'is' if missing == 1 else 'are'} back"
            )
    if not link_up:
        lost = "⚠ Connection to the table lost: reconnecting…"
        return f"{lost} If the host's machine is gone, {after}." if after else lost
    if settling and room is not None and room.phase == "playing":
        # For a moment after a move the new table counts everyone away, and
        # its presence may not have come: the bar named present people away
        # and the new host as gone (found in a play-test, 5 December).
        return "⚠ The table just moved: everyone is reconnecting to it…"
    if not host_up and (room is None or room.phase != "over"):
        if room is not None and room.election and after:
            return (
                f"⚠ {host} is away (disconnected): if their machine does not come back, "
                f"{after_host}"
            )
        return f"⚠ {host} is away (disconnected): the game waits for it to come back"
    if room is None:
        return ""
    if room.phase != "playing":
        return ""
    if room.election and machines is not None:
        # The table runs, but too few of the room's machines are here for
        # a move to count (it counts once most of them hold it): the game
        # stood still, its screens saying only who was away (found in a
        # play-test: the table's runner left alone when one machine died
        # and another person left the game).
        found, voters = machines
        needed = majority(voters)
        if found < needed:
            more = needed - found
            # Whose, so that the table knows whom to call (a play-test: "1
            # of its 3 is here" named nobody; the players panel marks away
            # seats, not machines: the host's has no seat of its own).
            whose = f": {_either(machines_away)}" if machines_away else ""
            return (
                f"⚠ The game waits for the room's machines: {found} of its {voters} "
                f"{'is' if found == 1 else 'are'} here, and a move counts once {needed} hold it. "
                f"It goes on when {more} more {'is' if more == 1 else 'are'} back{whose}."
            )
    waiting = away_seats(room.seats, mine, covered=False)
    if waiting:
        who = _are([room.seats[seat].name for seat in waiting])
        if all(seat in room.bot_due for seat in waiting):
            # As the room's notice says ("a bot plays for them in 25 s"): the
            # bar said the game waited for them (found in a play-test).
            them = "them" if len(waiting) == 1 else "each"
            return f"⚠ {who} away (disconnected): a bot plays for {them} soon unless they are back"
        if any(seat in to_act for seat in waiting):
            return f"⚠ {who} away (disconnected): the game waits for them to come back"
        return f"⚠ {who} away (disconnected): the game will wait at their turn"
    covered = away_names(room.seats, mine, covered=True)
    if covered:
        return f"⚠ {_are(covered)} away: a bot plays for them until they are back"
    return ""


# Whose machines the bar names at most, each in at most this many cells:
# with the sentence, three lines at 80 columns (the bar's most).
MACHINES_NAMED = 3
MACHINE_CELLS = 18


def _either(whose: Sequence[str]) -> str:
    """ "Bob's", "Bob's or Cy's", "Ann's, Bob's or Cy's", and past three
    "Ann's, Bob's, Cy's or 2 more"; a name too long for its share fitted
    (in terminal cells: a wide character takes two)."""
    shown = [fit(w, MACHINE_CELLS) for w in whose]
    if len(shown) > MACHINES_NAMED:
        shown = [*shown[:MACHINES_NAMED], f"{len(shown) - MACHINES_NAMED} more"]
    if len(shown) == 1:
        return shown[0]
    return f"{', '.join(shown[:-1])} or {shown[-1]}"


def _are(names: Sequence[str]) -> str:
    return f"{', '.join(names)} {'is' if len(names) == 1 else 'are'}"


def away_names(
    seats: Sequence[SeatState], mine: int | None, *, covered: bool | None = None
) -> list[str]:
    """Names of the people (not bots) whose connection is down; ``covered``
    True or False: only those a bot plays for (a stand-in level), or not."""
    return [seats[n].name for n in away_seats(seats, mine, covered=covered)]


def away_seats(
    seats: Sequence[SeatState], mine: int | None, *, covered: bool | None = None
) -> list[int]:
    """The seats of :func:`away_names`."""
    return [
        n
        for n, seat in enumerate(seats)
        if seat.kind == "human"
        and n != mine
        and not seat.present
        and (covered is None or bool(seat.level) == covered)
    ]


def players_title(title: str, away: Sequence[str], watching: int, width: int) -> Content:
    """The players panel's title (``title``, its own: markup) with who is
    away and how many watch (issue 21), within ``width`` cells (the panel's;
    0: not laid out yet). The names are added as text, in place of its
    "(public)"; when they do not fit, their count (the panel marks each
    away seat with ⚠, and the bar above names them), and then without the
    panel's own word: at 80 columns two names and the watchers were cut
    off mid-word (a play-test, 6 December)."""
    more = [f"{watching} watching"] if watching else []
    if not away and not more:
        return Content.from_markup(title)
    base = Content.from_markup(title.replace(" (public)", ""))
    room = width - 4  # the corners and a cell of padding each side
    for shown in ([f"away: {', '.join(away)}"], [f"{len(away)} away"]) if away else ([],):
        line = base + Content(f" · {' · '.join(shown + more)}")
        if width <= 0 or line.cell_length <= room:
            return line
    # The panel's own word last: what it lists is plain from its rows.
    return Content(" · ".join(([f"{len(away)} away"] if away else []) + more))


class NetStatus(Static):
    DEFAULT_CSS = """
    NetStatus {
        dock: top;
        /* Three away names of 16 cells and the sentence pass 80 columns:
           the bar wraps rather than cut what the game waits for. */
        height: auto;
        max-height: 3;
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
        self.update(Content(text))  # names from the network: shown as text
        self.set_class(bool(text), "-shown")

    @property
    def text(self) -> str:
        return str(self.render()) if self.has_class("-shown") else ""
