"""What every game's table screen shares: the client connection, the log, the
footer and help, rules, quitting with confirmation, refusals shown as
notifications (cleared once an action of yours is accepted or your turn
starts, so no stale warning contradicts the board), and the end-of-game screen.

A game's screen subclasses :class:`TableScreen` and implements
:meth:`show_view` (render a view) and :meth:`explain` (why a key does nothing
now). It only ever sees views: updates from its :class:`TableClient`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.timer import Timer

from core.engine import Action, ConfigError, Event, IllegalAction, Names, View, acts, plural
from net.authority.table import TableUpdate
from net.peer import dealcheck
from net.peer.client import TableClient
from net.peer.failover import TABLE_MOVED_HERE, table_moved_notice
from net.protocol.codes import format_code
from tui.messages import (
    GameRecorded,
    GoHomeRequested,
    HostChanged,
    LinkChanged,
    MachinesChanged,
    NextGameOpened,
    NextGameRequested,
    PlayAgainRequested,
    QuitRequested,
    RoomChanged,
    TableUpdated,
    VoteKept,
)
from tui.netplay import remote_table
from tui.plain import sentence
from tui.screens.base import PasseScreen
from tui.screens.choice import ChoiceScreen
from tui.screens.confirm_quit import HOME, QUIT, ConfirmQuitScreen
from tui.screens.game_over import AGAIN, GUEST, HOSTING, LOCAL, GameOverScreen
from tui.screens.round_end import RoundEndScreen
from tui.widgets.game_log import GameLog
from tui.widgets.status_line import StatusLine

Dialog = tuple[Screen[Any], Callable[[Any], None] | None]

if TYPE_CHECKING:
    from net.peer.remote import RemoteTable
    from net.protocol.wire import RoomState


class HostControls(Protocol):
    """What the table of a room this person hosts asks of its lobby (the
    lobby hands itself down as ``TableScreen.host_controls``)."""

    def stand_in(self, seat: int) -> None:
        """A bot plays for the person of ``seat``, who is away."""


# What still acts at the table of a room its host closed (issue 18 item 4).
# Seconds after the table moved to another machine (issue 20) during which
# the bar says everyone reconnects, rather than who is away: every seat is
# away at the new table until its link reaches it (about a second here).
MOVE_SETTLE = 5.0
CLOSED_ACTIONS = frozenset({"leave", "rules", "help", "app.help", "quit", "app.quit"})
CLOSED_STATUS = "The host closed the room: this game cannot go on. q: home (↑↓ scroll the log)"
LOG_PAGES = "Log: earlier/later"
EXPLAIN_KEYS = "enter,space,left,right,h,l,1,2,3,4,5,6,7,8,9"
CONFIRM_CHOICE = "confirm"
NO_UNDO = (
    "There is no undo: a card or tile is played as soon as you choose it\n"
    "(Enter, space or its number), and every move is final. To be asked\n"
    'first, set "Confirm" to yes on the home screen (New game panel).'
)
NETWORK_NOTES = (
    "A networked game: the bar at the top says when someone is away (the\n"
    "game waits for them) or your link is down (it comes back by itself).\n"
    "The host's b lets a bot play for someone away until they are back.\n"
    "Where the table moves when its machine stops, a move counts once most\n"
    "of the room's machines hold it: the bar says when too few are here.\n"
    "q leaves the game (it asks first); left to the home screen, your\n"
    "machine votes on until the game ends, unless you quit Passe."
)


# The hand panel's title for a spectator's view (seat None: a watcher's, a
# replay's), in every game: it holds no hand of its own.
SPECTATOR_HAND = "Spectator: no hand"


def points(count: int) -> str:
    """ "1 point", "3 points": never "1 pts" or "point(s)" (issue 18)."""
    return plural(count, "point")


def number_keys(count: int, digits: str = "123456789") -> str:
    """The digit keys that choose among ``count`` items: "1-6", or just "1"
    for a single item (at most as many as ``digits``)."""
    count = max(1, min(count, len(digits)))
    return digits[0] if count == 1 else f"{digits[0]}-{digits[count - 1]}"


def in_our_words(notice: str, me: str, *, runs_the_table: bool) -> str:
    """A room's notice as the person seated as ``me`` reads it: the table
    that moved to their own machine is "your machine", not their name (a
    play-tester read "The table moved to Ben's machine" as Ben), and their
    own coming back is "you" (another read "Kim is back and plays again"
    of herself)."""
    if runs_the_table and notice == table_moved_notice(me):
        return TABLE_MOVED_HERE
    if notice == f"{me} is back and plays again":
        return "You are back: your seat is yours again (a bot held it meanwhile)"
    if notice == f"{me} is back":
        return "You are back"
    return notice


class TableScreen(PasseScreen):
    # From 120 columns a table may spread out (class "-wide"): panels widen
    # instead of the hand stretching far beyond its cards. (Textual declares
    # it without ClassVar, so mypy refuses one here.)
    HORIZONTAL_BREAKPOINTS = [  # noqa: RUF012
        (0, "-normal"),
        (120, "-wide"),
    ]
    # Whether a person plays at this screen: the viewed seat's turn makes
    # its hand active (a cursor, its keys). Not at a replay's or a watch's
    # (ReadOnlyTableScreen: a play-test saw a cursor where nothing plays).
    PLAYS: ClassVar[bool] = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "rules", "Rules"),
        Binding("q,escape", "leave", "Quit", key_display="q"),
        Binding(EXPLAIN_KEYS, "explain", "Explain", show=False),
        # The screen decides which widget has the keys (refocus): Tab does not
        # move them away (the game's keys would all be refused), it explains
        # which keys work now instead. Replaces Screen's focus_next/previous.
        Binding("tab,shift+tab", "explain", "Explain", show=False),
        # The host, while someone is away (networked): a bot plays for them.
        # A short word: the footer keeps F1 Help beside it (issue 18).
        Binding("b", "stand_in", "Stand-in", tooltip="A bot plays for someone away"),
        # The log's earlier lines (a play-test: no key scrolled it). Not in
        # the footer, which has no room at 80 columns: help lists them.
        Binding("pageup", "log_page(-1)", LOG_PAGES, key_display="PgUp/PgDn", show=False),
        Binding("pagedown", "log_page(1)", LOG_PAGES, key_display="PgUp/PgDn", show=False),
        Binding("end", "log_end", "Log: newest line", key_display="End", show=False),
    ]

    def __init__(self, client: TableClient) -> None:
        super().__init__()
        self.client = client
        # Set by the lobby of a room this person hosts (attributes down).
        self.host_controls: HostControls | None = None
        self.names: tuple[str, ...] = client.names
        self.view: View | None = None
        self.game_over_shown = False
        self.updates_received = 0
        self._bindings_state: object = None
        self._submitted = False  # an action of ours awaits its update
        self._my_turn = False
        self.deferred: list[Dialog] = []  # dialogs waiting for this screen
        self._offered_decision: Hashable = None  # see first_offer
        self.round_end_title = ""  # while an end-of-round summary is due or open
        self.catching_up = False  # while the first update (the story so far) is shown
        # While the log's line for an event a bot played for this person (away
        # from a networked table) is made: "Your bot plays", not "You play".
        self._by_stand_in = False
        # While the log's lines for an update are made: the seats of others
        # whose bot plays for them now ("Hana's bot plays").
        self._covered: tuple[int, ...] = ()
        # The log's line for each event of the update being shown (by the
        # event's id), for the screen's own sentences about those events
        # ("Last: Your bot plays Y1", not "Last: You play Y1"): logged_line.
        self._update_lines: dict[int, str] = {}
        # A networked table (tui/netplay.py): the room's state and our link.
        self._network_listeners: list[Callable[[], None]] = []
        self._room: RoomState | None = None
        self._room_notice = ""
        self._deal_check_said = ""  # the deal check's words as last said
        # The final room state did not come within DEAL_CHECK_WAIT of the end.
        self._deal_check_overdue = False
        self.deal_check_timer: Timer | None = None  # armed at the game's end
        self._link_up = True
        self._host_up = True
        # A move sent just before the table went away (issue 18 item 2).
        self._move_in_doubt = False
        self._check_move_in_doubt = False
        self._labels_shown: tuple[str, ...] = ()
        self._players_title: str | None = None  # the players panel's own title
        self._players_shown: tuple[list[str], int] = ([], 0)  # away, watching
        self._to_act_shown: tuple[int, ...] = ()  # what the network bar last knew
        self._table_seat_gone: int | None = None  # its machine ran the table, and went
        self._record_kept = False  # the finished game's record went to the app

    # -- subclasses --------------------------------------------------------

    def compose_table(self) -> ComposeResult:
        """The game's widgets (the log and footer are added by the base)."""
        raise NotImplementedError

    def show_view(self, view: View, events: Sequence[Event]) -> None:
        """Render ``view``; ``events`` are those that led to it."""
        raise NotImplementedError

    def describe(self, event: Event) -> str:
        """The log's line for ``event``: the event's own words, unless the
        game's table says it better for the person reading (issue 18)."""
        return event.describe(self.log_names)

    def action_log_page(self, direction: int) -> None:
        """A page of the log up or down. Scrolled up, the log stays where the
        person reads while new lines come; back at its end, it follows them
        again."""
        log = self.game_log
        if direction < 0:
            log.scroll_page_up(animate=False)
        else:
            log.scroll_page_down(animate=False)
        log.auto_scroll = log.scroll_y >= log.max_scroll_y

    def action_log_end(self) -> None:
        log = self.game_log
        log.scroll_end(animate=False, immediate=True)
        log.auto_scroll = True

    def logged_line(self, event: Event) -> str:
        """``event`` in the words the log gave it, if it came in the update
        being shown (who played it: a stand-in reads "Your bot plays"),
        else described now."""
        return self._update_lines.get(id(event)) or event.describe(self.log_names)

    def explain(self) -> str:
        """Why the key just pressed does nothing now, in words."""
        return "Nothing to choose right now."

    def help_notes(self) -> str:
        notes = [self.GUIDE, NO_UNDO] if self.GUIDE else [NO_UNDO]
        if self.networked:
            notes.append(NETWORK_NOTES)
        return "\n\n".join(notes)

    def refusal(self, reason: str) -> str:
        """A refusal by the rules, in words for a person: the only way
        refusals are shown. When it is not (or no longer) your turn, which
        happens when a key lands just as a bot's move ends, the engine's
        reason names seats by number ("it is not seat 1's turn"): the
        screen's :meth:`explain` of the current view says whose turn it is
        instead. Otherwise the engine's reason (rule ids included) reads as
        a sentence."""
        view = self.view
        if view is None or view.is_over or view.seat not in view.to_act:
            return self.explain()
        text = reason.strip()
        text = text[:1].upper() + text[1:]
        return text if text.endswith((".", "!", "?")) else text + "."

    def bindings_state(self) -> object:
        """A value that changes whenever the footer's keys should change."""
        return self.view is not None and self.view.is_over, tuple(self.waiting_for())

    @property
    def room_closed(self) -> bool:
        """A networked room its host closed: the game cannot go on."""
        return self._room is not None and self._room.phase == "closed"

    def blocked(self, action: str) -> bool:
        # Issue 18 item 4: at a closed room's table only leaving, the rules
        # and help act (the game's keys would do nothing).
        return super().blocked(action) or (self.room_closed and action not in CLOSED_ACTIONS)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stand_in":
            return bool(self.waiting_for()) and super().check_action(action, parameters)
        return super().check_action(action, parameters)

    # -- the host: a bot for a person who is away ----------------------------

    def waiting_for(self) -> list[int]:
        """Seats whose person is away with no bot playing for them, where we
        host the game and it is in progress (empty otherwise)."""
        room = self._room
        if room is None or room.phase != "playing" or not self.in_progress:
            return []
        away = [
            seat
            for seat, state in enumerate(room.seats)
            if state.kind == "human"
            and not state.present
            and not state.level
            and seat != self.client.seat
        ]
        return away if away and (self.hosting or self._runs_the_table()) else []

    def action_stand_in(self) -> None:
        seats = self.waiting_for()
        room = self._room
        if not seats or room is None:
            return
        names = [room.seats[seat].name for seat in seats]
        body = Text(
            "A bot plays the seat of a person who is away, so that the others need not "
            "wait. The seat stays theirs: when they come back, they play it again."
        )
        options = [f"A bot plays for {name}" for name in names] + ["No, keep waiting"]

        def decided(index: int | None) -> None:
            if index is None or index >= len(seats):
                return
            if self.host_controls is not None:
                self.host_controls.stand_in(seats[index])
                return
            remote = remote_table(self.client)
            try:
                if remote is not None:
                    remote.stand_in(seats[index])
            except (IllegalAction, ConfigError) as error:
                self.notify(str(error), title="Not now", severity="warning")

        self.push_dialog(
            ChoiceScreen("A bot for someone away?", body, options, kind=CONFIRM_CHOICE), decided
        )

    def final_scores(self, view: View) -> RenderableType:
        """The scores for the end-of-game screen."""
        assert view.result is not None
        return Text(
            "  ".join(
                f"{name} {score}"
                for name, score in zip(self.names, view.result.scores, strict=False)
            )
        )

    # -- the client --------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield from self.compose_table()

    async def on_mount(self) -> None:
        await self.client.connect(self._receive)
        await self._follow_network()

    def _receive(self, update: TableUpdate) -> None:
        self.post_message(TableUpdated(update))

    async def on_unmount(self) -> None:
        self._stop_following()
        remote = remote_table(self.client)
        if remote is not None and remote.keeps_vote:
            return  # left, its vote kept: the app closes it (VoteKept)
        await self.client.close()

    def _stop_following(self) -> None:
        for unsubscribe in self._network_listeners:
            with contextlib.suppress(ValueError):
                unsubscribe()
        self._network_listeners = []

    # -- a networked table: presence, our link, the room -------------------

    @property
    def networked(self) -> bool:
        return remote_table(self.client) is not None

    async def _follow_network(self) -> None:
        remote = remote_table(self.client)
        if remote is None:
            return
        from tui.widgets.net_status import NetStatus  # the network layer: only here

        # Mounted before any listener can call for it: a room already known
        # is told at once (RemoteTable.on_room).
        await self.mount(NetStatus(id="net-status"))
        self._link_up = remote.connected

        def link_changed(up: bool) -> None:
            self.post_message(LinkChanged(up))

        def room_changed(room: RoomState) -> None:
            self.post_message(RoomChanged(room))

        def host_changed(up: bool) -> None:
            self.post_message(HostChanged(up))

        def next_opened(code: str) -> None:
            self.post_message(NextGameOpened(code))

        def machines_changed() -> None:
            self.post_message(MachinesChanged())

        self._host_up = remote.host_present
        self._network_listeners = [
            remote.on_link(link_changed),
            remote.on_room(room_changed),
            remote.on_host(host_changed),
            remote.on_next(next_opened),
            remote.on_machines(machines_changed),
        ]

    def on_next_game_opened(self, message: NextGameOpened) -> None:
        if self.hosting:
            return  # our own doing
        over = self._game_over_screen()
        if over is not None:
            asked = over.asking  # the owner of a dealer's room asked for it
            over.invite()
            if asked:
                return  # and goes there now: no invitation to read
        host = self._room.host if self._room is not None else "The host"
        if self.client.seat is None:
            # A watcher has no seat there, nor a game-over screen's a (a
            # play-tester read a player's hint on the watcher's screen).
            text = (
                f"{host} opened the next game at this table, room "
                f"{format_code(message.code)}: n watches it."
            )
        else:
            text = (
                f"{host} opened the next game at this table: a (on the game-over screen) joins it."
            )
        self.notify(text, title="Next game", timeout=10, markup=False)

    def _game_over_screen(self) -> GameOverScreen | None:
        return next((s for s in self.app.screen_stack if isinstance(s, GameOverScreen)), None)

    @property
    def hosting(self) -> bool:
        """Whether this person hosts the networked room (its lobby is ours)."""
        return self.host_controls is not None

    def _runs_the_table(self) -> bool:
        """Whether the table moved to this machine (issue 20): its person
        then puts a bot in for someone away as the host would (there a bot
        came only by itself, half a minute after the host's person went
        with their machine; nobody could choose it)."""
        remote = remote_table(self.client)
        return remote is not None and remote.runs_the_table

    def on_link_changed(self, message: LinkChanged) -> None:
        self._link_up = message.up
        self._reachability_changed()
        self._show_network()

    def on_machines_changed(self, message: MachinesChanged) -> None:
        self._show_network()

    def on_host_changed(self, message: HostChanged) -> None:
        self._host_up = message.up
        self._reachability_changed()
        self._show_network()
        over = self._game_over_screen()
        if over is not None and not message.up:
            over.host_left()  # no next game is coming from a host who left

    def on_room_changed(self, message: RoomChanged) -> None:
        room = message.room
        # The first state this screen is told is the room as it was when it
        # opened: its notice happened before (a rejoined player's and a
        # watcher's log read "Lee left the game" after the moves that
        # followed it, a play-test).
        news = self._room is not None
        if news and room.notice and room.notice != self._room_notice and room.phase == "playing":
            notice = self._in_our_words(room.notice)
            self.notify(notice, title="Table")
            # And in the log, to be read later (issue 18: a guest who quit
            # left no trace on the host's table once the toast was gone), a
            # sentence among its sentences ("You are back" had no stop).
            if self.view is not None:
                line = notice[:1].upper() + notice[1:]
                self.game_log.add(line if line.endswith((".", "!", "?", "…")) else f"{line}.")
        self._room_notice = room.notice
        was_closed = self.room_closed
        self._room = room
        self._show_network()
        self._say_deal_check()
        self._keep_record()  # the final room state reveals the record
        if self.room_closed and not was_closed:
            self._close_table()

    def _in_our_words(self, notice: str) -> str:
        """The room's notice as this person reads it (:func:`in_our_words`)."""
        remote = remote_table(self.client)
        if remote is None:
            return notice
        return in_our_words(notice, remote.own_name, runs_the_table=remote.runs_the_table)

    def _close_table(self) -> None:
        """The host closed the room (issue 18 item 4): the status says so,
        the game's keys are gone (its widgets are disabled, the footer
        offers only leaving) and the log takes the keys, to be read."""
        for widget in self.query("*"):
            if widget.focusable and not isinstance(widget, GameLog):
                widget.disabled = True
        log = self.game_log
        log.can_focus = True
        self.set_focus(log)
        self.query_one(StatusLine).say(self.closed_status(), your_turn=False)
        self.refresh_bindings()

    def closed_status(self) -> str:
        """The status line once the host closed the room."""
        return CLOSED_STATUS

    def _reachability_changed(self) -> None:
        """The host or our link went or came back (issue 18 item 2): a move
        of ours still unanswered when the table went away may be lost, and
        the person is told so; once the table is back, the next update says
        whether it counted. The status line says why a turn waits."""
        remote = remote_table(self.client)
        if self.unreachable:
            if remote is not None and (self._submitted or remote.action_pending):
                self._submitted = False  # no answer is coming: the keys are free
                self._move_in_doubt = True
                self.notify(
                    f"Your last move had no answer before the table went away "
                    f"({self.unreachable}). Once it is back, you will see whether it counted.",
                    title="Move not confirmed",
                    severity="warning",
                    timeout=10,
                )
        elif self._move_in_doubt:
            self._check_move_in_doubt = True  # the next update tells
        if self.view is not None:
            self.show_view(self.view, ())  # the status line says why it waits

    def _settle_move_in_doubt(self, my_turn: bool) -> None:
        """The first update once the table is back: a move in doubt that did
        not count is said, so the person knows to make it again."""
        if not self._check_move_in_doubt:
            return
        self._check_move_in_doubt = self._move_in_doubt = False
        if my_turn:
            self.notify(
                "Your move from before the table went away did not arrive: it is still "
                "your turn, make it again.",
                title="Move lost",
                severity="warning",
                timeout=10,
            )

    def deal_check_text(self) -> str:
        """The fair-deal check in one line for the game-over screen ("" for
        a local game): each guest replays the revealed deal and compares it
        with all it was shown (issue 20, net/peer/dealcheck.py)."""
        remote = remote_table(self.client)
        if remote is None:
            return ""
        if self.hosting:
            return (
                "Fair deal: the others check this deal at the end against its commitment "
                "and, replayed, against everything they were shown."
            )
        if remote.verified is None and self._deal_check_overdue:
            return (
                "Fair deal: not checked: the revealed deal has not come (the table's "
                "machine may be gone). It is checked if it comes."
            )
        if remote.verified is None:
            return "Fair deal: checking the deal against everything you were shown…"
        return remote.deal_report

    def _keep_record(self) -> None:
        """At the end of the game its record goes to the app to be kept
        (issue 21), once: a local game's at once, a networked one's when
        its record is revealed (with the final room state), with the deal
        check's words, which that same room state settled."""
        view = self.view
        if self._record_kept or view is None or not view.is_over or view.result is None:
            return
        record = self.client.record()
        if record is None:
            return
        self._record_kept = True
        remote = remote_table(self.client)
        deal_check = "" if remote is None else remote.deal_report or self.deal_check_text()
        self.post_message(
            GameRecorded(record, tuple(self.names), self.client.seat, view.result, deal_check)
        )

    def _say_deal_check(self) -> None:
        """At the end, whether the revealed deal matched its commitment and
        everything this seat was shown (docs/protocol.md): a toast the first
        time, a warning naming the first mismatch if not, and the game-over
        screen's line each time its words change: the final room state and
        the last update come on two topics, in either order, and the later
        one completes the check (a play-test's screen stayed on "checking")."""
        remote = remote_table(self.client)
        if remote is None or remote.verified is None:
            return
        text = self.deal_check_text()
        if text == self._deal_check_said:
            return
        first_time = not self._deal_check_said
        self._deal_check_said = text
        self._show_deal_check(text)
        if remote.verified:
            shown = self._game_over_screen() is not None or any(
                isinstance(dialog, GameOverScreen) for dialog, _ in self.deferred
            )
            if first_time and not shown:
                # The game-over screen says it itself: a toast there covered
                # that very line and the keys (a play-test).
                self.notify("The revealed deal gives everything you were shown.", title="Fair deal")
        else:
            self.notify(
                remote.deal_report,
                title="Deal check failed",
                severity="error",
                timeout=30,
            )

    def _show_network(self) -> None:
        from tui.widgets.net_status import NetStatus, away_names, network_problem

        room = self._room
        status = next(iter(self.query(NetStatus)), None)
        if status is None:
            return  # the screen is going away (a message that was on its way)
        to_act = () if self.view is None else tuple(self.view.to_act)
        self._to_act_shown = to_act
        remote = remote_table(self.client)
        settle = 0.0
        if remote is not None and remote.moved_at is not None:
            settle = MOVE_SETTLE - (time.monotonic() - remote.moved_at)
        if settle > 0:
            self.set_timer(settle, self._show_network)  # then as it is
        status.say(
            network_problem(
                room,
                self._link_up,
                self.client.seat,
                self._host_up,
                to_act,
                settling=settle > 0,
                machines=remote.machines_reachable() if remote is not None else None,
                machines_away=remote.machines_away() if remote is not None else (),
            )
        )
        # Also beside the seats: every game's players panel is #players.
        panel = next(iter(self.query("#players")), None)
        if panel is None:
            return
        if self._players_title is None:
            self._players_title = str(panel.border_title or "")
        playing = room is not None and room.phase == "playing" and settle <= 0
        away = away_names(room.seats, self.client.seat) if room and playing else []
        # The seat of the machine that ran the table, gone with it: its last
        # state still says its person is here (found in a play-test).
        gone = remote.table_seat() if remote is not None and playing and not self._host_up else None
        self._table_seat_gone = gone if gone != self.client.seat else None
        if room is not None and self._table_seat_gone is not None:
            name = room.seats[self._table_seat_gone].name
            away += [name] if name not in away else []
        self._players_shown = (away, remote.watching if remote is not None else 0)
        self._title_players()
        if self.view is not None and self.seat_labels != self._labels_shown:
            self.show_view(self.view, ())  # the ⚠ beside the seats
        keys = self.bindings_state()
        if keys != self._bindings_state:  # b, for the host, while someone is away
            self._bindings_state = keys
            self.refresh_bindings()

    def _title_players(self, *, again: bool = True) -> None:
        """The players panel's title: who is away, how many watch, fitted
        to the panel's width (tui/widgets/net_status.py); ``again``: once
        more after the next refresh if the panel is not laid out yet."""
        from tui.widgets.net_status import players_title

        panel = next(iter(self.query("#players")), None)
        if panel is None or self._players_title is None:
            return
        away, watching = self._players_shown
        width = panel.size.width
        panel.border_title = players_title(self._players_title, away, watching, width)
        if not width and again and (away or watching):
            self.call_after_refresh(lambda: self._title_players(again=False))

    def on_resize(self, event: events.Resize) -> None:
        # After the new layout: the panel's width is the screen's share.
        del event
        self.call_after_refresh(self._title_players)

    @property
    def seat_labels(self) -> tuple[str, ...]:
        """Names for the players panels: a person who is away (disconnected)
        is marked ⚠ beside their seat (words say why in the bar above), the
        person whose machine ran the table too once it is gone."""
        room = self._room
        if room is None or room.phase != "playing":
            return self.names
        return tuple(
            f"⚠{name}"
            if seat == self._table_seat_gone
            or (
                seat < len(room.seats)
                and room.seats[seat].kind == "human"
                and not room.seats[seat].present
                and seat != self.client.seat
            )
            else name
            for seat, name in enumerate(self.names)
        )

    def panel_names(self) -> tuple[str, ...]:
        """:attr:`seat_labels`, remembered as shown (the panels call this)."""
        self._labels_shown = self.seat_labels
        return self._labels_shown

    def reads_own(self, seat: int) -> bool:
        """Whether ``seat``'s view is the reader's own ("your" hand): the
        seat that reads "you" in the log (:attr:`log_names`), so that the
        hand, the won cards and the log never disagree about who "you" is."""
        return seat == self.log_names.you

    def hand_title(self, seat: int) -> str:
        """The hand panel's title for ``seat``'s view (a name: made plain
        by the caller)."""
        name = self.names[seat]
        return f"Your hand ({name})" if self.reads_own(seat) else f"{name}'s hand"

    @property
    def log_names(self) -> Names:
        """Seat names for event descriptions, the one place every table
        screen gets them: the seat whose view this client is given reads
        "you" (a player's own seat, the seat a replay shows), and nobody
        does for a spectator or a watcher (their client has no seat). An
        event a bot played for the player while they were away reads "your
        bot" for their seat (a networked table's stand-in)."""
        names = self.names
        if self._covered:
            names = tuple(
                f"{name}'s bot" if seat in self._covered else name
                for seat, name in enumerate(names)
            )
        if self._by_stand_in:
            return Names(names, stand_in=self.client.seat)
        return Names(names, you=self.client.seat)

    def _people_played_by_bots(self) -> tuple[int, ...]:
        """The seats of others whose stand-in bot plays now, or a bot since
        their person left the game (a networked table: the room says so)."""
        from tui.widgets.net_status import away_seats

        room = self._room
        if room is None or room.phase != "playing":
            return ()
        # A seat its person left (the authority's Leave): its bot's moves read
        # as the bot's ("Kim's bot plays"), as a stand-in's do, for those who
        # saw Kim sit and those who came after (play-tests).
        covered = away_seats(room.seats, self.client.seat, covered=True)
        return tuple(sorted({*covered, *self._seats_left()}))

    def _seats_left(self) -> set[int]:
        """Others' seats whose person left the game: a bot plays on there."""
        seats = self._room.seats if self._room is not None else []
        return {
            n
            for n, seat in enumerate(seats)
            if seat.kind == "bot" and seat.replaced and n != self.client.seat
        }

    def acts(self, seat: int, verb: str, *, start: bool = True) -> str:
        """A seat as the subject of a sentence: "Ada leads", "You lead" (or
        "you lead" with ``start=False``). Every sentence of the UI with a seat
        as subject goes through this, like the log."""
        return acts(self.log_names, seat, verb, start=start)

    @property
    def game_log(self) -> GameLog:
        return self.query_one(GameLog)

    def on_table_updated(self, message: TableUpdated) -> None:
        update = message.update
        self.updates_received += 1
        view = update.view
        my_turn = not view.is_over and view.seat is not None and view.seat in view.to_act
        accepted = self._submitted and not update.rejected
        if accepted or (my_turn and not self._my_turn):
            # Earlier warnings ("Does not fit…", "Not now") would contradict
            # the board once our action is accepted or a new turn starts.
            self.app.clear_notifications()
        self._my_turn = my_turn
        self._submitted = False
        self._settle_move_in_doubt(my_turn)
        # What a person's stand-in does reads as the bot's for everyone else
        # ("Hana's bot plays Y1": the others read "Hana plays Y1" while she
        # was away, found in a play-test); news only, not the story so far.
        self._covered = self._people_played_by_bots() if self.updates_received > 1 else ()
        try:
            for index, event in enumerate(update.events):
                self._by_stand_in = index in update.by_stand_in
                line = self.describe(event)
                self._update_lines[id(event)] = line
                self.game_log.add(line)
        finally:
            self._by_stand_in = False
        self.view = update.view
        if self._room is not None and tuple(update.view.to_act) != self._to_act_shown:
            self._show_network()  # "the game waits for them" when their turn comes
        over = self._game_over_screen() if view.is_over else None
        if update.rejected and over is not None and over.asking:
            # The dealer would not open the next game: its reason, as said.
            over.next_refused()
            self.notify(sentence(update.rejected), title="Next game", severity="warning")
        elif update.rejected:
            self.notify(self.refusal(update.rejected), title="Not allowed", severity="warning")
        # The first update tells the story so far (a resumed or re-joined
        # game): it fills the log, but what happened before is not news.
        self.catching_up = self.updates_received == 1
        try:
            # The board's sentences too ("2nd: Kim's bot takes two", as the
            # log says it: a play-test read "Kim takes two" beside it).
            self.show_view(update.view, update.events)
        finally:
            self.catching_up = False
            self._update_lines = {}
            self._covered = ()
        keys = self.bindings_state()
        if keys != self._bindings_state:
            self._bindings_state = keys
            self.refresh_bindings()  # the footer rebuilds: only when keys change
        autosave = getattr(self.app, "autosave", None)
        if autosave is not None:
            autosave(self.client, update.view.is_over)
        self._keep_record()
        if update.view.is_over and not self.game_over_shown:
            self.game_over_shown = True
            self.show_game_over(update.view)
        self._say_deal_check()  # an update after the record completes the check

    @property
    def confirm_plays(self) -> bool:
        """The person asked to confirm each card or tile before it is played
        (the settings' ``confirm_plays``, off by default)."""
        settings = getattr(self.app, "settings", None)
        return bool(getattr(settings, "confirm_plays", False))

    async def play(self, action: Action, what: str) -> None:
        """Play a card or tile chosen in the hand or the trick: at once, or,
        with "Confirm plays" on, after a yes in a dialog (Enter confirms,
        Escape or 2 goes back to choosing). ``what`` says it: "play V6"."""
        if not self.confirm_plays:
            await self.submit(action)
            return

        def decided(index: int | None) -> None:
            view = self.view
            if index == 0 and view is not None and action in view.legal:
                self.run_worker(self.submit(action), exclusive=False)
            elif view is not None:
                self.show_view(view, ())  # the hand is yours again

        body = Text("Confirm plays is on: nothing is played until you say yes.\n")
        options = [f"Yes, {what}", "No, choose again"]
        self.push_dialog(
            ChoiceScreen(f"{what[:1].upper()}{what[1:]}?", body, options, kind=CONFIRM_CHOICE),
            decided,
        )

    @property
    def unreachable(self) -> str:
        """Why the table cannot take a move now (networked: our link is
        down or the host is away), or "" when it can."""
        if not self.networked or self.room_closed:
            return ""
        if not self._link_up:
            # Ours or the table's end: this machine cannot tell which (the
            # host's machine, with the broker in it, may be the one gone).
            return "the connection to it is down"
        if not self._host_up:
            dealer = self._room.dealer if self._room is not None else ""
            return f"the dealer ({dealer}) is away" if dealer else "the host is away"
        return ""

    async def submit(self, action: Action) -> None:
        # A refusal also arrives as an update with ``rejected``, shown then.
        remote = remote_table(self.client)
        why = self.unreachable
        if why:
            # Issue 18 item 2: a move sent now would vanish untold (nobody
            # answers); it is not sent, the person is told at once and the
            # board (cursor, selection) stays as it was, to play it again.
            self.notify(
                f"Not sent: the table is unreachable ({why}). Make your move again once it "
                "is back; the bar at the top says when.",
                title="Move not sent",
                severity="warning",
            )
            if self.view is not None:
                self.show_view(self.view, ())
            return
        if self._submitted or (remote is not None and remote.action_pending):
            # A second key before the table answered the first (a double
            # Enter over the network): it acts on the picture from before
            # our move and would only come back refused. (An answer that
            # never comes is asked for: docs/protocol.md, section 6.)
            return
        self._submitted = True
        try:
            await self.client.submit(action)
        except IllegalAction:
            self._submitted = False  # refused before it left: nothing to wait for

    def say_status(self, text: str, *, your_turn: bool) -> None:
        """The status line: what happens now. While an end-of-round summary
        is due or open it says so (the next round waits for it), not what the
        next round's first player is doing."""
        if self.round_end_title:
            text, your_turn = f"{self.round_end_title}: read the summary, Enter goes on.", False
        if self.room_closed:
            text, your_turn = self.closed_status(), False
        elif your_turn and self.unreachable:
            # One line at 80 columns: the bar above says more.
            text = f"Your turn, once the table is back ({self.unreachable})."
        self.query_one(StatusLine).say(text, your_turn=your_turn)

    # -- dialogs -----------------------------------------------------------

    def first_offer(self, decision: Hashable) -> bool:
        """Whether the dialog of ``decision`` (the moment of the game that
        asks this seat to choose: its round, trick or turn, and phase) opens
        by itself now: once per moment. The same moment drawn again (a
        seat's ⚠ beside its name, a notice) after the choice was made and
        is on its way, or was put off (Esc), opens nothing; the game's key
        opens it again. A second dialog for a choice made already stayed
        open over the round's summary (a browser tab, CI, 6 December)."""
        if decision == self._offered_decision:
            return False
        self._offered_decision = decision
        return True

    def push_dialog(
        self, dialog: Screen[Any], callback: Callable[[Any], None] | None = None
    ) -> None:
        """Open a dialog of the game (a summary, a choice, the end of the
        game) over this table, or as soon as the table is shown again when
        something else is open over it (the command palette, help, rules):
        a dialog is never drawn over those."""
        if self.app.screen is self and not self.deferred:
            self.app.push_screen(dialog, callback)
        else:
            self.deferred.append((dialog, callback))

    def on_screen_resume(self) -> None:
        self.refocus()  # the keys go back where the game needs them
        if self.deferred and self.app.screen is self:
            dialog, callback = self.deferred.pop(0)
            self.app.push_screen(dialog, callback)

    def show_round_end(self, title: str, body: RenderableType) -> None:
        """The end-of-round summary. Bots wait while it is read (hold), and
        the status line says the summary is open until it is closed."""
        self.client.hold(True)
        self.round_end_title = title
        if self.view is not None:
            self.show_view(self.view, ())  # the status line now says so

        def closed(_: object) -> None:
            self.round_end_title = ""
            self.client.hold(False)
            if self.view is not None:
                self.show_view(self.view, ())

        self.push_dialog(RoundEndScreen(title, body), closed)

    # -- end of game -------------------------------------------------------

    def show_game_over(self, view: View) -> None:
        assert view.result is not None
        remote = remote_table(self.client)
        # A table that moved here (issue 20): this person hosts the next game.
        hosting = self.hosting or self._runs_the_table()
        table = LOCAL if remote is None else HOSTING if hosting else GUEST
        # A seat whose person left the game ended with their bot: "Lee's bot
        # wins", as the log says it (a play-test read "Lee wins." beside it).
        left = self._seats_left()
        names = tuple(f"{name}'s bot" if n in left else name for n, name in enumerate(self.names))
        dealt = remote is not None and remote.room is not None and bool(remote.room.dealer)
        owns = dealt and remote is not None and remote.owns_room
        screen = GameOverScreen(
            view.result,
            names,
            view.seat,
            self.final_scores(view),
            table=table,
            invited=remote is not None and remote.next_code is not None,
            moved=remote is not None and remote.moved,
            dealt=dealt,
            # The person who asked for a dealer's room asks it for the next one.
            ask_next=remote.ask_next_game if owns and remote is not None else None,
            deal_check=self.deal_check_text(),
        )
        # What was said during the game is over with it: a "Not now" of a
        # key pressed as the last move came covered the dialog's last lines
        # and spoke of a turn that was no more (a play-test).
        self.app.clear_notifications()
        self.push_dialog(screen, self._after_game_over)
        if remote is not None and remote.verified is None and not self.hosting:
            # "Checking…" for ever where the final room state never comes
            # (its broker gone with the table's machine): said after a while.
            self.deal_check_timer = self.set_timer(dealcheck.DEAL_CHECK_WAIT, self._deal_check_late)

    def _deal_check_late(self) -> None:
        remote = remote_table(self.client)
        if remote is None or remote.verified is not None:
            return
        self._deal_check_overdue = True
        self._show_deal_check(self.deal_check_text())

    def _show_deal_check(self, text: str) -> None:
        """The deal check's line on the game-over screen, shown or waiting."""
        over = self._game_over_screen()
        if over is not None:
            over.say_deal_check(text)
        for dialog, _ in self.deferred:
            if isinstance(dialog, GameOverScreen):
                dialog.deal_check = text

    def _after_game_over(self, choice: str | None) -> None:
        if choice == AGAIN and self.networked:
            remote = remote_table(self.client)
            if remote is not None and self._runs_the_table():
                # The table moved here: kept running for the next game as
                # this screen closes the seat (the lobby then opens it).
                with contextlib.suppress(IllegalAction):
                    remote.keep_table()
            self.post_message(NextGameRequested())  # the lobby opens or joins it
        elif choice == AGAIN:
            self.post_message(PlayAgainRequested())
        else:
            self.post_message(GoHomeRequested())

    # -- keys --------------------------------------------------------------

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # Focus moved by other means (a mouse click) goes back to where the
        # game's keys are: the screen's refocus chooses, never the person.
        if not self.room_closed:
            self.call_after_refresh(self.refocus)

    @property
    def in_progress(self) -> bool:
        return self.view is not None and not self.view.is_over

    def action_rules(self) -> None:
        from tui.screens.rules import RulesScreen  # on demand: a slow import

        self.app.push_screen(RulesScreen(self.client.game_id))

    def action_explain(self) -> None:
        if self.view is not None and self.view.is_over:
            return  # nothing waits for a turn any more
        self.notify(self.explain(), title="Not now", severity="information")

    def action_leave(self) -> None:
        room_closed = self._room is not None and self._room.phase == "closed"
        if not self.in_progress or room_closed:
            self._leave(HOME)
            return
        if self.networked:
            self.push_dialog(self._confirm_leave_room(), self._leave)
            return
        self.push_dialog(ConfirmQuitScreen(), self._leave)

    def _confirm_leave_room(self) -> ConfirmQuitScreen:
        from tui.screens.confirm_leave_room import (
            HOST_TEXT,
            PLAYER_CUT_OFF_TEXT,
            PLAYER_IN_GAME_TEXT,
            VOTE_NEEDED_TEXT,
            ConfirmLeaveRoomScreen,
        )

        if self.hosting:
            text = HOST_TEXT
        else:
            text = PLAYER_IN_GAME_TEXT if self._link_up else PLAYER_CUT_OFF_TEXT
            if self._link_up and self._vote_needed():
                text += VOTE_NEEDED_TEXT
        return ConfirmLeaveRoomScreen("Leave this networked game?", text)

    def _vote_needed(self) -> bool:
        """Whether leaving now takes away a vote the room's moves need: in a
        game of a room that fails over, this machine's voter counts no more
        of the room's machines where it is than a move needs."""
        remote = remote_table(self.client)
        room = self._room
        if remote is None or room is None or room.phase != "playing" or not room.election:
            return False
        from tui.screens.confirm_leave_room import vote_needed

        return vote_needed(remote.machines_reachable())

    def _leave(self, choice: str | None) -> None:
        remote = remote_table(self.client)
        room_open = self._room is None or self._room.phase != "closed"
        if (
            remote is not None
            and choice in (HOME, QUIT)
            and self.in_progress
            and room_open
            and not self.hosting
        ):
            # Tell the host first: a bot takes the seat and the others go on.
            # Not the host's own seat (issue 18 item 4): its lobby closes the
            # room as it goes, and "a bot plays for them" would contradict it.
            self.run_worker(self._leave_room(remote, choice), exclusive=True)
            return
        self._go(choice)

    async def _leave_room(self, remote: RemoteTable, choice: str) -> None:
        self._stop_following()  # our own leaving is not news to us
        with contextlib.suppress(Exception):  # leaving never fails for the person
            # To the home screen, this machine votes on until the game ends.
            if await remote.leave(keep_vote=choice == HOME):
                self.post_message(VoteKept(remote))
        self._go(choice)

    def _go(self, choice: str | None) -> None:
        if choice == HOME:
            self.post_message(GoHomeRequested())
        elif choice == QUIT:
            self.post_message(QuitRequested())
