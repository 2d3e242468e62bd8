"""The lobby of a networked room, before its game starts.

The host's view opens the room (:func:`tui.netplay.open_hosted_room`) and
shows its code large, the ``passe join CODE@HOST:PORT`` line for when LAN
discovery fails, the game and its settings, and every seat: who sits there,
connected or away, the team. The host fills empty seats with bots (←/→) and
starts the game (s) once every seat is taken. A joiner sees the same room,
read-only, until the host starts. Then the game's own table screen opens on
top, with the room's :class:`~net.peer.remote.RemoteTable` as its client.

The lobby owns the room: it stays under the table screen, and closing it
(leaving, going home, quitting) leaves the room, and for the host closes it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from core.engine import ConfigError, IllegalAction
from core.registry import game_info, get_game
from net.authority.authority import MAX_KNOCKS
from net.identity import fingerprint
from net.protocol.codes import format_code
from net.protocol.text import clean_text
from tui.games import load_table_screen
from tui.messages import KnocksChanged, LinkChanged, QuitRequested, RoomChanged, SeatLevelChosen
from tui.netplay import HostPlan, NetplayError, open_hosted_room
from tui.plain import plain, sentence
from tui.screens.base import PasseScreen
from tui.screens.confirm_leave_room import (
    HOST_TEXT,
    OWNER_IN_LOBBY_TEXT,
    PLAYER_IN_LOBBY_TEXT,
    ConfirmLeaveRoomScreen,
)
from tui.screens.confirm_quit import HOME, QUIT
from tui.settings import BOT_LEVELS
from tui.widgets.footer import PasseFooter
from tui.widgets.net_status import away_names
from tui.widgets.seat_list import SeatList

if TYPE_CHECKING:
    from net.authority.authority import Authority, Knock
    from net.authority.host import HostedRoom
    from net.peer.remote import RemoteTable
    from net.protocol.wire import Knocking, RoomState

SETTING_NAMES = {"players", "teams"}  # shown in words; other options as key=value
KNOCK_TOAST_GAP = 10.0  # seconds between two "Someone knocks" toasts
KEY_TOAST_SECONDS = 8.0  # "New player key made": read, then out of the way


def spoken_code(code: str) -> str:
    """The code as read aloud: its two halves, letter by letter."""
    first, _, second = format_code(code).partition("-")
    return f"{' '.join(first)}  -  {' '.join(second)}"


# A room's options as the lobby lists them: each within one line's part.
SETTING_CELLS = 40
MAX_SETTINGS_SHOWN = 6


def describe_settings(room: RoomState) -> str:
    """The room's settings in words; options only where they differ from the
    game's defaults (a default table of values is no news to anyone)."""
    config = room.config
    players = len(room.seats)
    teams = bool(config.get("teams"))
    text = f"{players} players · {'teams of two' if teams else 'each for themselves'}"
    try:
        defaults = get_game(room.game).make_config(players=players, teams=teams).to_data()
    except ConfigError:
        defaults = {}
    extra = [
        # Words, not the command line's key=value (a play-test read
        # "target=15" in a lobby).
        clean_text(f"{str(key).replace('_', ' ').capitalize()}: {value}", SETTING_CELLS)
        for key, value in sorted(config.items())
        if key not in SETTING_NAMES and defaults.get(key) != value
    ]
    if len(extra) > MAX_SETTINGS_SHOWN:  # the host's room state: any size it likes
        extra[MAX_SETTINGS_SHOWN:] = [f"{len(extra) - MAX_SETTINGS_SHOWN} more"]
    return f"{text}\n{', '.join(extra)}" if extra else text


def _typed_address(text: str) -> str:
    """An IP address from the environment as typed after ``ssh``; "" for
    anything else."""
    import ipaddress

    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return ""


# The lobby's Game box's text width at 80x24 (51 columns, less its border
# and padding): a line longer than that wraps.
INFO_WIDTH = 47


def join_lines(hint: str, *, local_only: bool = False) -> str:
    """What to tell the others where the LAN hides the room. An SSH guest
    cannot run `passe join` in their session (issue 18): they are told what
    to tell a friend, for Passe and for SSH to this server (with its port).
    A broker that answers only on this machine is said so (issue 18.5),
    rather than shown at an address where it does not listen; for a guest of
    an SSH server, "this machine" is the server, so the SSH form still works
    for anyone who can reach the server."""
    import os

    from tui.netplay import SERVED_ENV, SSH_HOST_ENV, SSH_PORT_ENV, WEB_ENV

    if os.environ.get(WEB_ENV):  # a browser's guest of `passe serve --web`
        browser = f"or, in a browser on this server's page: j, then {hint}"
        if local_only:
            return f"Others join from this server's page: j, then {hint}"
        return f"Tell the others: passe join {hint}\n{browser}"
    if os.environ.get(SERVED_ENV):
        port = os.environ.get(SSH_PORT_ENV, "")
        server = _typed_address(os.environ.get(SSH_HOST_ENV, "")) or "SERVER"
        ssh = f"ssh -t -p {port} {server}" if port.isdigit() else f"ssh -t {server}"
        command = f"{ssh} join {hint}"
        if len(command) > INFO_WIDTH:
            # Wrapped by the box, it broke at a space: pasted, its first
            # line ran alone (a play-test). A shell's continuation instead.
            command = f"{ssh} \\\n  join {hint}"
        if local_only:
            return f"Others join over SSH to this server:\n{command}"
        tell = f"Tell the others: passe join {hint}"
        if len(tell) > INFO_WIDTH:
            tell = f"Tell the others:\npasse join {hint}"
        return f"{tell}\nor, over SSH to this server:\n{command}"
    if local_only:
        return f"Only this machine can reach the room's broker:\npasse join {hint}"
    return f"If the LAN hides the room, others type:\npasse join {hint}"


def key_notice(notice: str) -> str:
    """The key notice in words for a person (issue 18): what the key is for.
    A first key is said in two lines, without its path: a toast of seven
    lines hid the lobby's knock line for its 8 seconds (a play-test); a
    damaged or unreadable key file is said in full, with where it is."""
    if notice.startswith("made a new key"):
        return "New player key made: it gets you your seat back after a dropped connection."
    said = notice[:1].upper() + notice[1:]
    return f"{said}. Your player key gets you your seat back after a dropped connection."


def say_key_notice(screen: PasseScreen, notice: str) -> float:
    """The key notice as a toast: information for a first key, a warning
    for a damaged one. Its path is text, never markup. Returns how long it
    shows (seconds)."""
    first = notice.startswith("made a new key")
    timeout = KEY_TOAST_SECONDS if first else 2 * KEY_TOAST_SECONDS
    screen.notify(
        key_notice(notice),
        title="Your player key",
        severity="information" if first else "warning",
        timeout=timeout,
        markup=False,
    )
    return timeout


class LobbyScreen(PasseScreen):
    DEFAULT_CSS = """
    LobbyScreen #lobby-top { height: auto; }
    LobbyScreen #lobby-code-box {
        width: 29;  /* room for "key " and the 19-cell fingerprint below */
        height: 6;
        border: heavy $accent;
        border-title-color: $text;
        content-align: center middle;
        text-style: bold;
    }
    LobbyScreen #lobby-info {
        width: 1fr;
        /* Grows when the settings wrap: the join line is never cut off. */
        height: auto;
        min-height: 6;
        border: round $primary;
        border-title-color: $text;
        padding: 0 1;
    }
    LobbyScreen #lobby-seats-box {
        height: 1fr;
        border: round $primary;
        border-title-color: $text;
    }
    LobbyScreen #lobby-seat-hint { padding: 0 1; color: $text-muted; height: auto; }
    /* Wraps: a refusal such as a room that moved takes two or three lines
       at 80 columns (found by hand, issue 20). */
    LobbyScreen #lobby-status { height: auto; max-height: 3; padding: 0 1; background: $panel; }
    LobbyScreen #lobby-status.-problem { background: $error 40%; text-style: bold; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # Short words: the host's row holds up to seven keys and F1 Help at
        # 80 columns (issue 18: "F1 Help" dropped off when y and n showed).
        Binding("s", "start", "Start"),
        # Someone new knocks (issue 19 item 2): the host lets them in or not.
        Binding("y", "admit", "Let in"),
        Binding("n", "turn_away", "Turn away"),
        # Let in a key its owner reads out, when strangers fill the knock queue.
        Binding("i", "expect_key", "By key"),
        # The host takes a person out of their seat, present or not (issue 19
        # seats item 3): asked first; they are told.
        Binding("x", "remove_person", "Remove"),
        # The table moves to a player's machine if this one stops (issue 20).
        # Not in the footer: with a knock's keys it no longer fit 80 columns;
        # the lobby's failover line says "(f)", and the help lists it.
        Binding("f", "failover", "Failover", show=False),
        # A joiner's f (stand for the table, or decline): in the footer, where
        # a joiner's keys leave room (a play-tester read "f declines" above
        # and looked for f below, 5 December).
        Binding("f", "stand", "Take over?"),
        # A joiner moves to another free seat (e.g. beside a partner).
        Binding("1", "sit(0)", "Sit in seat", key_display="1-8"),
        # The same description for every seat's key: the footer reads the
        # seats' keys that work now from it, "1-4", not "1" (issue 18).
        *(Binding(str(n + 1), f"sit({n})", "Sit in seat", show=False) for n in range(1, 8)),
        Binding("q,escape", "leave", "Leave", key_display="q"),
    ]
    TITLE_IN_HELP = "Lobby"
    GUIDE = (
        "The room's code is shown large: others type it in Join by code on\n"
        "their home screen (O and 0, I, L and 1 are the same). Where the LAN\n"
        "hides the room, they type the whole passe join line shown beside it.\n"
        "Host: ↑/↓ choose an empty seat, ←/→ put a bot in it (or take it out,\n"
        "or replace a person who is away); s starts once every seat holds a\n"
        "person or a bot. After a game, a on its game-over screen opens the\n"
        "next game at this table: the same seats, a new code; the others are\n"
        "invited and join it with a.\n"
        "Someone new knocks first: their name and key show; y lets them\n"
        "in, n turns them away. If strangers fill the queue (the room code is\n"
        "public), i lets in someone by the key they read to you from their\n"
        "join screen. x takes someone out of their seat (asked first; they\n"
        "are told, and must be let in again).\n"
        "f turns failover on or off: with it, if this machine stops mid-game,\n"
        "the players' machines elect one of them, which holds the deck from\n"
        "then on, and the game goes on (3 or more people's machines needed,\n"
        "2 of the joiners' allowed to take over). A joiner's f refuses to let their\n"
        "machine take over (it still votes, never holds the deck), or allows it.\n"
        "Check aloud the host key under the code:\n"
        "a room shown with another key is not this host's.\n"
        "Joiner: a seat's number moves you to that seat while it is free.\n"
        "'AWAY' marks a person whose connection dropped: they come back by\n"
        "themselves; 'not here yet', one invited who has not come yet.\n"
        "q leaves the room (the host's leaving closes it)."
    )
    # A dealer's room (issue 20): no host at a screen seats bots or starts
    # it, so the host's keys above would only mislead (found by hand).
    DEALER_GUIDE = (
        "The room's code is shown large: others type it in Join by code on\n"
        "their home screen (O and 0, I, L and 1 are the same). Where the LAN\n"
        "hides the room, they type the whole passe join line shown beside it.\n"
        "A dealer (named beside the code) deals this room: the dealer, never\n"
        "a player's machine, holds the deck, and it starts the game itself once\n"
        "the people it waits for sit (every seat, unless the room was asked\n"
        "for with --wait-for N: bots take the other seats). If the dealer stops,\n"
        "another dealer on the same broker takes the table, or the game waits\n"
        "for it to come back. After a game, the person who asked for the room\n"
        "opens the next game at this table with a on the game-over screen (the\n"
        "dealer deals it: the same seats, a new code); the others join it with a.\n"
        "The person who asked for the room decides who sits: someone new knocks\n"
        "first, their name and key show on that person's lobby; y lets them in,\n"
        "n turns them away. They may also start the game before everyone came:\n"
        "s, and bots take the empty seats.\n"
        "Check aloud the key under the code: a room shown with another key is\n"
        "not this dealer's.\n"
        "A seat's number moves you to that seat while it is free. 'AWAY' marks\n"
        "a person whose connection dropped: they come back by themselves.\n"
        "q leaves the room."
    )

    def __init__(
        self,
        *,
        table: RemoteTable | None = None,
        plan: HostPlan | None = None,
        note: str = "",
    ) -> None:
        """``note``: a word for the person as the lobby opens (an earlier
        room of theirs that still goes on)."""
        if (table is None) == (plan is None):
            raise ValueError("a lobby either hosts (plan) or has joined (table)")
        super().__init__()
        self.plan = plan
        self.note = note
        self.hosting = plan is not None
        self.table = table
        self.hosted: HostedRoom | None = None
        self.room: RoomState | None = None
        self.problem: str | None = None  # why the room could not be opened
        self.link_up = True
        self.table_shown = False
        self._notice = ""
        self._closing_room = False
        self._starting = False  # s pressed: the start waits for standby brokers
        self.room_closed = False  # left, and closed if hosted
        # Set when the app ends on a signal (the terminal or SSH link hung
        # up, SIGTERM): a hosted room then only goes away, as a host that
        # crashed does, and stays on disk to be resumed (`u`, `passe host
        # --resume`); the others wait for it. Nobody decided to end the game.
        self.keep_room = False
        self._unsubscribe: list[Callable[[], None]] = []
        self.warning = ""  # the latest warning about others on this code
        self._knocks_seen: set[bytes] = set()
        self._knock_toast_at = -1e9  # monotonic: one "Someone knocks" toast at a time
        self._key_toast_until = 0.0  # monotonic: the key notice shows until then
        self._knocks_untold = 0

    # -- layout ---------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("Passe · lobby", id="lobby-title", classes="screen-title")
        with Horizontal(id="lobby-top"):
            yield Static("", id="lobby-code-box")
            yield Static("", id="lobby-info")
        with Vertical(id="lobby-seats-box"):
            yield SeatList(editable=self.hosting, levels=BOT_LEVELS, id="lobby-seats")
            yield Static("", id="lobby-seat-hint")
        yield Static("", id="lobby-status")
        # Compact, and the palette (ctrl+p, in the help) left out: with a
        # knock's y and n, F1 Help fell under the palette's entry at 80
        # columns (issue 18: the footer shows every key that works now).
        yield PasseFooter(compact=True, show_command_palette=False)

    def help_notes(self) -> str:
        return self.DEALER_GUIDE if self.room is not None and self.room.dealer else self.GUIDE

    def on_mount(self) -> None:
        self.query_one("#lobby-code-box").border_title = "Room code"
        self.query_one("#lobby-info").border_title = "Game"
        self.query_one("#lobby-seats-box").border_title = "Seats"
        self.query_one(SeatList).focus()
        if self.note:
            self.notify(
                self.note, title="Your earlier room", severity="warning", timeout=15, markup=False
            )
        if self.hosting:
            self._say("Opening the room…")
            self.run_worker(self._open_room(), exclusive=True)
        else:
            self._follow_room()

    # -- the room -------------------------------------------------------------

    async def _open_room(self) -> None:
        assert self.plan is not None
        try:
            hosted, table, notice = await open_hosted_room(self.plan)
        except NetplayError as error:
            self.problem = str(error)
            self._say(f"Could not open the room: {error}", problem=True)
            self.query_one("#lobby-code-box", Static).update("—")
            self.refresh_bindings()
            return
        self.hosted = hosted
        self.table = table
        if notice:
            self._key_toast_until = time.monotonic() + say_key_notice(self, notice)
        if hosted.moved_note:
            # A resumed room whose broker's port another program took.
            moved = hosted.moved_note
            self.notify(
                moved[:1].upper() + moved[1:] + ".",
                title="The room moved",
                severity="warning",
                timeout=20,
                markup=False,
            )
        hosted.authority.on_change.append(self._on_authority_change)
        hosted.authority.on_warning.append(self._on_warning)
        for text in hosted.authority.warnings:  # before we listened
            self._on_warning(text)
        self._on_authority_change()  # the host's own seat is taken by now
        self._follow_room()

    def _on_warning(self, text: str) -> None:
        """Another key published on this room's code (issue 19 item 5)."""
        self.warning = text
        self.notify(
            text, title="Someone else on this code", severity="warning", timeout=12, markup=False
        )
        self._render_room()

    def _on_authority_change(self) -> None:
        if self.hosted is not None:
            self._tell_knocks(list(self.hosted.authority.knocks.values()))
            self._render_room()
            # Free seats change the LAN advert (a no-op when not advertised).
            self.run_worker(self.hosted.update_advert(), group="advert")

    def _tell_knocks(self, knocks: Sequence[Knock | Knocking]) -> None:
        """A toast for the knocks not seen before (the host's, or those a
        dealer's room tells its owner)."""
        new = [knock for knock in knocks if knock.key not in self._knocks_seen]
        self._knocks_seen.update(knock.key for knock in new)
        if len(self._knocks_seen) > 4096:  # bounded: fresh keys cost us nothing
            self._knocks_seen = {knock.key for knock in knocks}
        self._knocks_untold += len(new)
        now = time.monotonic()
        # One alert at a time (found by hand: eight strangers' knocks
        # stacked eight toasts over half the lobby); the seats' line
        # always names the oldest knock and counts the others.
        if new and now - self._knock_toast_at >= KNOCK_TOAST_GAP:
            self._knock_toast_at = now
            if self._knocks_untold == 1:
                text = f"{new[0].name} (key {fingerprint(new[0].key)}) asks to sit: y or n"
            else:
                text = f"{self._knocks_untold} people knock: y or n for each, oldest first"
            self._knocks_untold = 0
            if now < self._key_toast_until:
                # The key's toast hid the knock line (a play-test): the
                # knock is what to act on.
                self._key_toast_until = 0.0
                self.app.clear_notifications()
            if self.is_active:
                # The lobby's knock line says it: a toast, at the bottom,
                # covered that very line where the seats fill the screen
                # (8 seats at 80x24). A bell, as at a door.
                self.app.bell()
            else:
                self.notify(text, title="Someone knocks", markup=False, timeout=6)

    def _follow_room(self) -> None:
        table = self.table
        assert table is not None

        def link_changed(up: bool) -> None:
            self.post_message(LinkChanged(up))

        def room_changed(room: RoomState) -> None:
            self.post_message(RoomChanged(room))

        self.link_up = table.connected  # as it is now; then as it changes
        self._unsubscribe.append(table.on_link(link_changed))
        self._unsubscribe.append(table.on_room(room_changed))

        # A dealer's room asked for by this person: they decide who sits.
        def knocks_changed(knocks: list[Knocking]) -> None:
            del knocks  # read from the table when the message is handled
            self.post_message(KnocksChanged())

        self._unsubscribe.append(table.on_waiting(knocks_changed))
        self.refresh_bindings()

    def on_knocks_changed(self, message: KnocksChanged) -> None:
        del message
        self._tell_knocks(self.table.waiting if self.table is not None else [])
        self._render_room()

    def on_room_changed(self, message: RoomChanged) -> None:
        room = message.room
        # The first state seen tells what happened before we came (a
        # play-test's newcomer was told "the host turned someone away"):
        # news are the notices that change after it.
        news = self.room is not None
        self.room = room
        if (
            news
            and room.notice
            and room.notice != self._notice
            and room.phase == "lobby"
            # The host's own doing is said by this screen as it is done ("Dora
            # was turned away."): not twice (a play-test).
            and not (self.hosting and room.notice.startswith("the host "))
        ):
            notice = room.notice[:1].upper() + room.notice[1:]
            self.notify(notice, title="Room", markup=False)
        self._notice = room.notice
        self._render_room()
        if room.phase in ("playing", "over") and not self.table_shown:
            self._show_table(room)

    def on_link_changed(self, message: LinkChanged) -> None:
        self.link_up = message.up
        self._render_room()

    def _show_table(self, room: RoomState) -> None:
        assert self.table is not None
        try:
            screen_type = load_table_screen(room.game)
        except (LookupError, ImportError) as error:
            self._say(f"Cannot show this game: {error}", problem=True)
            return
        self.table_shown = True
        table_screen = screen_type(self.table)
        if self.hosting:
            table_screen.host_controls = self  # its b (a bot for someone away)
        self.app.push_screen(table_screen)

    def _render_room(self) -> None:
        room = self.room
        if room is None or self.table is None:
            return
        code_box = self.query_one("#lobby-code-box", Static)
        code_box.update(plain(spoken_code(room.room)))
        if self.table.authority_key is not None:
            # Compared aloud with the host's screen (issue 19 item 5).
            code_box.border_subtitle = f"key {fingerprint(self.table.authority_key)}"
        try:
            title = game_info(room.game).title
        except ConfigError:
            title = room.game
        # The host's name and the settings come from the room state: text,
        # never markup (issue 19, item 1).
        self.query_one("#lobby-title", Static).update(
            plain(f"Passe · lobby · {title} hosted by {room.host}")
        )
        hint = (
            self.hosted.join_hint
            if self.hosted is not None
            else f"{format_code(room.room)}@{self.table.broker_host}:{self.table.broker_port}"
        )
        local_only = self.hosted is not None and self.hosted.local_only
        self.query_one("#lobby-info", Static).update(
            plain(
                f"{title} · {describe_settings(room)}\n"
                + join_lines(hint, local_only=local_only)
                + self.failover_line()
            )
        )
        self.query_one(SeatList).show(room, self.table.seat)
        # How many watch (issue 21): our own words and a number.
        watching = self.table.watching
        self.query_one("#lobby-seats-box").border_subtitle = (
            f"{watching} watching" if watching else ""
        )
        away = away_names(room.seats, self.table.seat)
        hint = ""
        if self.hosting and room.phase == "lobby" and away:
            hint = "↑↓ choose a seat · ←→ add a bot, take it out, or replace someone away"
        elif self.hosting and room.phase == "lobby" and any(s.kind != "human" for s in room.seats):
            hint = "↑↓ choose an empty seat · ←→ add a bot or take it out"
        knock = self.knock
        if knock is not None:
            waiting = self._waiting_count()
            more = f" ({waiting - 1} more waiting)" if waiting > 1 else ""
            answer = "y lets them in, n turns them away"
            if not self._seat_to_give():
                # y would only tell them the room is full (found by hand).
                answer = "every seat is taken: free one to let them in, or n turns them away"
            hint = f"⚠ {knock.name} (key {fingerprint(knock.key)}) knocks{more}: {answer}"
            if waiting >= MAX_KNOCKS and self.hosted is not None:
                hint += (
                    "; the queue is full (someone may be flooding the room): i lets in "
                    "a key its owner reads to you"
                )
        elif self.warning:
            hint = f"⚠ {self.warning}"
        self.query_one("#lobby-seat-hint", Static).update(Text(hint))
        self.refresh_bindings()
        if self.table.removed is not None and self.table.seat is None and not self.hosting:
            self._say(f"{self.table.removed}. q: back home", problem=True)
        elif room.phase == "closed":
            # Before the link: a room closed on its host's embedded broker
            # loses its broker next, and "reconnecting…" then hid for good
            # that the room was closed (found by hand).
            self._say("The host closed the room. q: back home", problem=True)
        elif not self.link_up:
            self._say("Connection to the room lost: reconnecting…", problem=True)
        elif room.phase != "lobby" or self._started_here():
            # The host's own authority started it before its room state
            # came back over the broker: "Cannot start yet: the game has
            # already started" flashed here (found by hand).
            self._say("The game has started.")
        elif self._starting and self.hosted is not None:
            self._say_starting(self.hosted.authority.standby_missing())
        elif self.hosting:
            reason = self.start_refusal()
            if reason:
                self._say(f"Cannot start yet: {reason}")
            elif away:
                who = f"{' and '.join(away)} {'is' if len(away) == 1 else 'are'} away"
                self._say(f"{who}: s starts anyway (the game waits), ←→ gives a bot the seat.")
            else:
                self._say("Ready: s starts the game.")
        elif room.dealer:
            self._say(f"Waiting: {room.dealer} starts the game when enough people sit.")
        else:
            self._say("Waiting for the host to start the game.")

    def failover_line(self) -> str:
        """The failover setting in one line (issue 20), or "": the host's
        (on or off, what the room still needs), a joiner's own choice to
        stand for the table or not."""
        if self.room is None or self.room.phase != "lobby":
            return ""
        if self.hosted is None:
            if self.table is None or self.table.seat is None:
                return ""
            if self.room.dealer:
                # Signed by the dealer's key (the peer checked it): its
                # fingerprint, to compare with the dealer's own screen.
                key = fingerprint(self.room.dealer_key)
                return (
                    f"\nDealt by {self.room.dealer} (key {key}): no player's machine holds "
                    # A dealer that trusts no other (passe dealer --trust)
                    # has nobody to hand its table to: said as it may be.
                    "the deck; if the dealer stops, a dealer it trusts takes the table, "
                    "or the game waits for it."
                )
            if self.table.unproven_dealer:
                # A host's room that names a dealer none signed it for.
                return (
                    f"\n⚠ This room says {self.table.unproven_dealer} deals it, but no "
                    "dealer signed it: the host's machine holds the deck."
                )
            # As the host's lobby says it (the room state's failover):
            # a play-test's joiner read "yours may hold the deck" where
            # the host's said the room needed more machines.
            if self.room.failover == "off":
                return "\nFailover off (the host's f): if the host's machine stops, the game waits."
            if self.room.failover == "never":
                return (
                    "\nToo few seats for people's machines to fail over: if the host's "
                    "machine stops, the game waits."
                )
            if self.room.failover == "short":
                # In words, not the election's: a play-tester did not know
                # what "you stand" meant.
                choice = (
                    "yours may take over: f to refuse"
                    if self.table.stand
                    else "yours will not take over: f to allow it"
                )
                return (
                    "\nFailover needs more people's machines: until then, if the host's "
                    f"machine stops, the game waits ({choice})."
                )
            if self.table.stand:
                return (
                    "\nIf the host's machine stops, yours may take over the table and "
                    "hold the deck (f to refuse)."
                )
            return (
                "\nYours will not take over the table (f to allow it): if the host's "
                "machine stops, it votes for one that does."
            )
        authority = self.hosted.authority
        outlook, missing = authority.failover_outlook()
        if outlook == "off":
            return "\nFailover off (f): if this machine stops, the game waits for it."
        if outlook == "never":
            return (
                "\nFailover on (f), but this room's seats are too few for enough people's "
                "machines: if this machine stops, the game waits for it."
            )
        if outlook == "short":
            whose = "person's machine" if missing == 1 else "people's machines"
            who = " here"
            if authority.declined:
                who = " that stands" if missing == 1 else " that stand"
            return (
                f"\nFailover on (f), but it needs {missing} more {whose}{who}: "
                "until then, if this machine stops, the game waits for it."
            )
        return "\nFailover on (f): if this machine stops, the table moves to a player's."

    def action_stand(self) -> None:
        if self.room is None or self.room.phase != "lobby":
            return
        if self.table is not None and self.table.seat is not None:
            self.table.set_stand(not self.table.stand)
            self._render_room()

    def action_failover(self) -> None:
        if self.room is None or self.room.phase != "lobby" or self.hosted is None:
            return
        authority = self.hosted.authority
        authority.set_failover(not authority.failover)
        self._render_room()

    @property
    def in_room(self) -> bool:
        """Whether quitting should ask first: we sit in an open room."""
        return self.table is not None and not self.room_closed

    @property
    def knock(self) -> Knock | Knocking | None:
        """The oldest knock waiting for the host's answer (or, in a dealer's
        room this person asked for, for theirs), if any."""
        if self.room is None or self.room.phase != "lobby":
            return None
        if self.hosted is not None:
            return next(iter(self.hosted.authority.knocks.values()), None)
        if self.table is not None and self.table.waiting:
            return self.table.waiting[0]
        return None

    def _waiting_count(self) -> int:
        if self.hosted is not None:
            return len(self.hosted.authority.knocks)
        return len(self.table.waiting) if self.table is not None else 0

    def _seat_to_give(self) -> bool:
        if self.hosted is not None:
            return self.hosted.authority.seat_to_give()
        return self.room is not None and any(seat.kind == "open" for seat in self.room.seats)

    def action_admit(self) -> None:
        knock = self.knock
        if knock is not None and self.hosted is None and self.table is not None:
            # The owner of a dealer's room: the room decides on our word.
            if not self._seat_to_give():
                self.notify(
                    f"Every seat is taken: {knock.name} cannot sit.",
                    title="Room",
                    severity="warning",
                    markup=False,
                )
                return
            self.table.admit(knock.key, yes=True)
            self._knock_answered()
            self.notify(f"{knock.name} is let in.", title="Room", markup=False)
            return
        if knock is not None and self.hosted is not None:
            if not self.hosted.authority.seat_to_give():
                # Letting them in would only refuse them as full: the knock
                # stays for when a seat is free (found by hand: y dropped it
                # without a word).
                self.notify(
                    f"Every seat is taken: free one to let {knock.name} in.",
                    title="Room",
                    severity="warning",
                    markup=False,
                )
                return
            with contextlib.suppress(IllegalAction):
                self.hosted.authority.admit(knock.key)
            self._knock_answered()
            self._render_room()

    def _knock_answered(self) -> None:
        """The last knock answered: its "Someone knocks … y or n" toast goes
        (a play-test: it stayed up after the y, as if still waiting)."""
        if self._waiting_count() == 0:
            self.app.clear_notifications()
            self._knock_toast_at = -1e9  # the next knock has a toast of its own

    def action_expect_key(self) -> None:
        from tui.screens.expect_key import ExpectKeyScreen

        def typed(text: str | None) -> None:
            if text is None or self.hosted is None:
                return
            try:
                knock = self.hosted.authority.expect(text)
            except (ValueError, IllegalAction) as error:
                self.notify(f"{error}.", title="Room", severity="warning", markup=False)
                return
            if knock is not None:
                self.notify(
                    f"{knock.name} (key {knock.fingerprint}) was let in.",
                    title="Room",
                    markup=False,
                )
            else:
                self.notify(
                    f"The key starting {text.strip()} will be let in when it knocks: "
                    "ask them to join again.",
                    title="Room",
                    markup=False,
                )
            self._render_room()

        self.app.push_screen(ExpectKeyScreen(), typed)

    def action_turn_away(self) -> None:
        knock = self.knock
        if knock is not None and self.hosted is None and self.table is not None:
            self.table.admit(knock.key, yes=False)
            self._knock_answered()
            self.notify(f"{knock.name} was turned away.", title="Room", markup=False)
            return
        if knock is not None and self.hosted is not None:
            with contextlib.suppress(IllegalAction):
                self.hosted.authority.refuse(knock.key)
            self._knock_answered()
            # Not for good: i and the key's start let it in again.
            self.notify(
                f"{knock.name} was turned away. By mistake? i and their key, "
                f"{fingerprint(knock.key)}, let them in again.",
                title="Room",
                markup=False,
            )
            self._render_room()

    def removable_seats(self) -> list[int]:
        """Seats of persons the host may take out: all but its own."""
        if not self.hosting or self.room is None or self.room.phase != "lobby":
            return []
        mine = self.table.seat if self.table is not None else None
        return [n for n, seat in enumerate(self.room.seats) if seat.kind == "human" and n != mine]

    def action_remove_person(self) -> None:
        seats = self.removable_seats()
        if self.room is None or not seats:
            return
        names = [self.room.seats[n].name for n in seats]
        if len(seats) == 1:
            self._confirm_removal(seats[0], names[0])
            return
        from tui.screens.choice import ChoiceScreen

        def chosen(index: int | None) -> None:
            if index is not None:
                self._confirm_removal(seats[index], names[index])

        self.app.push_screen(
            ChoiceScreen(
                "Remove whom?",
                "Whom should the host take out of their seat?",
                [f"seat {n + 1}: {name}" for n, name in zip(seats, names, strict=True)],
                kind="remove",
            ),
            chosen,
        )

    def _confirm_removal(self, seat: int, name: str) -> None:
        from net.identity import peer_id
        from tui.screens.confirm_remove import ConfirmRemoveScreen

        asked_about = self.room.seats[seat].peer if self.room is not None else ""

        def answered(remove: bool | None) -> None:
            if not remove or self.hosted is None:
                return
            held = self.hosted.authority.seats[seat].key
            if held is None or peer_id(held) != asked_about:
                # Someone else sits there now: not whom the host was asked about.
                self.notify(f"{name} is no longer in seat {seat + 1}.", title="Room", markup=False)
                return
            try:
                self.hosted.authority.remove(seat)
            except IllegalAction as error:  # they left, or the game started, meanwhile
                self.notify(
                    sentence(error.reason), title="Not now", severity="warning", markup=False
                )
                return
            self.notify(f"{name} was taken out of seat {seat + 1}.", title="Room", markup=False)

        self.app.push_screen(ConfirmRemoveScreen(name, seat), answered)

    def start_refusal(self) -> str | None:
        """Why the host cannot start now, or ``None``."""
        if self.hosted is None:
            return "the room is not open"
        return self.hosted.authority.can_start()

    def on_key(self, event: events.Key) -> None:
        """Keys a joiner may try that only the host has, or that have nothing
        to do now: said in words (a play-tester's s and digits did nothing,
        silently)."""
        if self.hosting or self.room is None or self.room.phase != "lobby":
            return
        host = self.room.host or "the host"
        if event.key == "s" and not self._owns_dealt_room():
            event.stop()
            text = f"Only the host ({host}) starts the game; you play once they do."
            if self.room.dealer:
                text = (
                    f"{self.room.dealer} starts the game when enough people sit, or "
                    f"{host}, who asked for the room, starts it sooner; you play then."
                )
            self.notify(text, title="Start", markup=False)
        elif (
            event.character is not None
            and event.character.isdigit()
            and self.table is not None
            and not self.check_action("sit", (int(event.character) - 1,))
        ):
            event.stop()
            seat = int(event.character)
            if 1 <= seat <= len(self.room.seats):
                self.notify(
                    f"Seat {seat} is taken and no seat is free: you stay where you are.",
                    title="Seat",
                    markup=False,
                )

    def _say(self, text: str, *, problem: bool = False) -> None:
        status = self.query_one("#lobby-status", Static)
        status.update(plain(text))  # names of the seated: as text
        status.set_class(problem, "-problem")

    # -- the host's controls --------------------------------------------------

    def on_seat_level_chosen(self, message: SeatLevelChosen) -> None:
        if self.hosted is None:
            return
        try:
            self.hosted.authority.set_bot(message.seat, message.level)
        except (IllegalAction, ConfigError) as error:
            self.query_one(SeatList).forget_ask(message.seat)
            self.notify(sentence(str(error)), title="Not now", severity="warning", markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("admit", "turn_away"):
            return self.knock is not None
        if action == "expect_key":
            # Only when it is needed (the footer has no room for a key that
            # does nothing new): a full queue, or a key turned away, which
            # it lets in again (n by mistake).
            if self.hosted is None:
                return False
            authority = self.hosted.authority
            return len(authority.knocks) >= MAX_KNOCKS or bool(authority.barred)
        if action == "failover":
            return self.room is not None and self.room.phase == "lobby" and self.hosted is not None
        if action == "stand":
            return (
                self.hosted is None
                and self.room is not None
                and self.room.phase == "lobby"
                and not self.room.dealer
                and self.table is not None
                and self.table.seat is not None
            )
        if action == "remove_person":
            return bool(self.removable_seats()) if self.hosting else False
        if action == "sit":
            seat = parameters[0] if parameters else 0
            return (
                not self.hosting
                and self.table is not None
                and self.room is not None
                and self.room.phase == "lobby"
                # Only the room's seats: the footer and help say "1-3", not "1-8".
                and isinstance(seat, int)
                and seat < len(self.room.seats)
                # While a seat is free to move to: with every other seat
                # taken the footer offered "1-4 Sit in seat", which only
                # refused (found by a play-test). Every seat's key then, as
                # one range: a seat taken meanwhile is refused in words.
                and any(other.kind == "open" for other in self.room.seats)
            )
        if action == "start":
            if self._owns_dealt_room():
                # Its owner starts it before everyone came: bots take the rest.
                return self.room is not None and self.room.phase == "lobby"
            if not self.hosting or (self.hosted is None and self.problem is not None):
                return False  # a room that could not open never starts: no key for it
            if self.hosted is None or self.room is None or self.room.phase != "lobby":
                return None
            return None if self.start_refusal() else super().check_action(action, parameters)
        return super().check_action(action, parameters)

    def action_sit(self, seat: int) -> None:
        if self.table is None or self.room is None or seat >= len(self.room.seats):
            return
        if seat == self.table.seat:
            self.notify("You already sit there.", title="Seat")
            return
        self.run_worker(self._sit(self.table, seat), group="sit", exclusive=True)

    async def _sit(self, table: RemoteTable, seat: int) -> None:
        from net.peer.remote import JoinError

        try:
            await table.change_seat(seat)
        except JoinError as error:
            self.notify(sentence(str(error)), title="Seat", severity="warning", markup=False)

    def _owns_dealt_room(self) -> bool:
        """This person asked a dealer for this room: they decide who sits
        and when it starts (the dealer deals it)."""
        return (
            not self.hosting
            and self.room is not None
            and bool(self.room.dealer)
            and self.table is not None
            and self.table.owns_room
        )

    def action_start(self) -> None:
        if self._owns_dealt_room() and self.table is not None and self.room is not None:
            if self.table.ask_start():
                empty = sum(1 for seat in self.room.seats if seat.kind == "open")
                bots = f": bots take the {empty} empty seats" if empty > 1 else ""
                bots = ": a bot takes the empty seat" if empty == 1 else bots
                self._say(f"Asked {self.room.dealer} to start the game{bots}.")
            return
        if self.hosted is None:
            return
        authority = self.hosted.authority
        reason = authority.can_start()
        if reason is not None:
            self._say(f"Cannot start yet: {reason}", problem=True)
            return
        self.run_worker(self._start(authority), group="start", exclusive=True)

    async def _start(self, authority: Authority) -> None:
        """The game starts once each seated person's machine can hold the
        table if this one stops (their standby brokers: a second at most,
        usually ready long before)."""
        self._starting = True
        try:
            self._say_starting(authority.standby_missing())
            await authority.wait_standby()
        finally:
            self._starting = False
        try:
            authority.start_game()
        except IllegalAction as error:
            self._say(f"Cannot start yet: {error.reason}", problem=True)

    def _say_starting(self, missing: list[str]) -> None:
        if missing:
            whose = f"{' and '.join(missing)}'s machine" if len(missing) < 3 else "the machines"
            self._say(f"Starting: waiting for {whose} to get ready…")

    def _started_here(self) -> bool:
        """Whether the room this screen hosts has started its game."""
        return self.hosted is not None and self.hosted.authority.phase != "lobby"

    def stand_in(self, seat: int) -> None:
        """During the game: a bot plays for the person of ``seat``, who is
        away, until they come back (the table's b)."""
        if self.hosted is None:
            return
        try:
            self.hosted.authority.stand_in(seat)
        except (IllegalAction, ConfigError) as error:
            self.notify(sentence(str(error)), title="Not now", severity="warning", markup=False)

    # -- the next game at this table ---------------------------------------------

    def next_game(self) -> None:
        """Open the next game at this table (the host), or join the one its
        host opened (the others): this lobby then shows the new room."""
        if self.table is None or self._closing_room:
            return
        self._say("Opening the next game…" if self.hosting else "Joining the next game…")
        self.run_worker(self._next_game(self.table), exclusive=True)

    async def _next_game(self, table: RemoteTable) -> None:
        from tui.netplay import join_next_game, open_next_hosted_room, open_next_moved_room

        self._stop_following()
        try:
            if self.hosted is None and table.kept_table is not None:
                # The table moved here (issue 20): this person hosts the next
                # game, as its first host would have (found in a play-test:
                # after a failover nobody could open one).
                self.hosted, self.table = await open_next_moved_room(table)
                self.hosting = True
                self.query_one(SeatList).editable = True  # the host's seats now
                self.hosted.authority.on_change.append(self._on_authority_change)
                self.hosted.authority.on_warning.append(self._on_warning)
                self._on_authority_change()
            elif self.hosted is not None:
                with contextlib.suppress(ValueError):
                    self.hosted.authority.on_change.remove(self._on_authority_change)
                self.hosted, self.table = await open_next_hosted_room(self.hosted, table)
                self.hosted.authority.on_change.append(self._on_authority_change)
                self._on_authority_change()
            else:
                self.table = await join_next_game(table)
        except NetplayError as error:
            self.problem = str(error)
            self._say(f"{str(error).rstrip('.')}. q: back home", problem=True)
            self.refresh_bindings()
            return
        self.room = None
        self.table_shown = False
        self._notice = ""
        self._follow_room()

    def _stop_following(self) -> None:
        for unsubscribe in self._unsubscribe:
            with contextlib.suppress(ValueError):
                unsubscribe()
        self._unsubscribe.clear()

    # -- leaving ----------------------------------------------------------------

    def action_leave(self) -> None:
        if self.table is None and self.problem is None:
            self.notify("The room is opening: a moment.", title="Not now")
            return
        if self.problem is not None or (self.room is not None and self.room.phase == "closed"):
            self._leave(HOME)
            return
        owner = self.table is not None and self.table.owns_room
        text = HOST_TEXT if self.hosting else OWNER_IN_LOBBY_TEXT if owner else PLAYER_IN_LOBBY_TEXT
        self.app.push_screen(ConfirmLeaveRoomScreen("Leave this room?", text), self._leave)

    def _leave(self, choice: str | None) -> None:
        if choice in (HOME, QUIT):
            self.run_worker(self._leave_room(choice), exclusive=True)

    async def _leave_room(self, choice: str) -> None:
        await self.close_room(leaving=True)
        if choice == QUIT:
            self.post_message(QuitRequested())
        else:
            self.dismiss()

    async def close_room(self, *, leaving: bool = False) -> None:
        """Leave the room (telling the host) and close it if we host it."""
        if self._closing_room:
            return
        self._closing_room = True
        self._stop_following()
        if self.hosted is not None:
            with contextlib.suppress(ValueError):
                self.hosted.authority.on_change.remove(self._on_authority_change)
            with contextlib.suppress(ValueError):
                # A warning while the room closes would look for this
                # screen's widgets as they go.
                self.hosted.authority.on_warning.remove(self._on_warning)
        # A game left from its table keeps its vote (VoteKept): the app closes it.
        if self.table is not None and not self.table.keeps_vote:
            with contextlib.suppress(Exception):
                await (self.table.leave() if leaving else self.table.close())
        if self.hosted is not None:
            with contextlib.suppress(Exception):
                await self.hosted.close(keep=self.keep_room and not leaving)
        self.room_closed = True

    async def on_unmount(self) -> None:
        await self.close_room()
