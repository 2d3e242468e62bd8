"""Join by code: type the room's code (or ``CODE@HOST:PORT``), or pick a room
found on the LAN, then wait in its lobby; or watch it (F3, or w in the
list: no seat, issue 21). Every failure is one line on this
screen (wrong code, room full, game started, another protocol version, broker
unreachable), and no attempt takes more than a few seconds."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.widgets import Input, OptionList, Static

from tui.netplay import (
    NetplayError,
    NetworkOptions,
    advert_target,
    discovery_available,
    join_target,
    resolve_target,
    watch_target,
)
from tui.plain import plain, sentence
from tui.screens.base import PasseScreen
from tui.widgets.chooser import NO_MARK
from tui.widgets.fit import pad
from tui.widgets.footer import PasseFooter
from tui.widgets.marked_option_list import MarkedOptionList
from tui.widgets.text_field import TextField

if TYPE_CHECKING:
    from net.lan.discovery import RoomAdvert

BROWSE_SECONDS = 2.0
UNAVAILABLE = "LAN discovery unavailable: type the code with @HOST:PORT, as the host's lobby shows"


ROOM_COLUMNS = "{code:<9}{game:<16}{host:<22}{seats}"
# Over the list's rows: its padding, then the room the keys go to's ▸.
ROOM_HEADER = (
    " " + NO_MARK + ROOM_COLUMNS.format(code="code", game="game", host="host", seats="seats")
)


def shown_code(code: str) -> str:
    """A room's code as people read it everywhere else (``K6K-KWS``); what
    is not a code, cut short (it came from the network)."""
    from net.protocol.codes import CodeError, format_code

    try:
        return format_code(code)
    except CodeError:
        return code[:8]


def as_typed(code: str) -> str:
    """A code given to the screen (``passe join``, a rejoin, a dealer's
    room) as the host's lobby shows it, QKR-JSX rather than QKRJSX; what is
    not a bare code (a join with its address) as it was given."""
    from net.protocol.codes import CodeError, format_code

    try:
        return format_code(code)
    except CodeError:
        return code


def room_line(advert: RoomAdvert) -> str:
    """One room of the LAN list: code, game, host's name, free seats (or
    whether its game is in play or over)."""
    from core.engine import ConfigError
    from core.registry import game_info

    code = shown_code(advert.code)
    try:
        game = game_info(advert.game).title
    except ConfigError:
        game = advert.game[:15]
    # A started game is "in play", not "full" (issue 18): joining it is
    # refused, except to a person whose key holds a seat there.
    if advert.phase == "playing":
        seats = "in play"
    elif advert.phase == "over":
        seats = "over"
    else:
        seats = "full" if advert.free_seats <= 0 else f"{advert.free_seats} free"
    # The host's name comes from the LAN: fitted in cells (CJK, emoji).
    return ROOM_COLUMNS.format(code=code, game=game, host=pad(advert.host_name, 21), seats=seats)


class JoinScreen(PasseScreen):
    DEFAULT_CSS = """
    JoinScreen #join-box {
        height: auto;
        border: round $primary;
        border-title-color: $text;
        padding: 0 1;
    }
    JoinScreen #join-code { width: 1fr; margin: 1 0 0 0; }
    JoinScreen #join-code:focus { background: $accent 30%; }
    JoinScreen #join-explain { color: $text-muted; height: auto; }
    JoinScreen #join-message { height: auto; min-height: 1; margin-top: 1; }
    JoinScreen #join-message.-problem { background: $error 40%; text-style: bold; }
    JoinScreen #join-rooms-box {
        height: 1fr;
        border: round $primary;
        border-title-color: $text;
    }
    JoinScreen #join-rooms { height: 1fr; border: none; }
    JoinScreen #join-lan-note { color: $text-muted; padding: 0 1; height: auto; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "join", "Join", key_display="⏎", priority=False),
        Binding("down", "app.focus_next", "Move", key_display="↑↓", show=False),
        Binding("up", "app.focus_previous", "Move", show=False),
        Binding("f5,ctrl+r", "browse", "Look again", key_display="F5"),
        # w types a letter in the code: there F3 watches; in the list, w too.
        Binding("f3,w", "watch", "Watch", key_display="F3", tooltip="Watch the room: no seat"),
        Binding("escape", "leave", "Back", key_display="Esc"),
    ]
    TITLE_IN_HELP = "Join by code"
    GUIDE = (
        "Type the room code the host reads out: 6 letters and digits; case,\n"
        "spaces and dashes do not matter, and O/0, I/L/1 are the same.\n"
        "Where the LAN hides rooms, type the code with the host's address as\n"
        "the host's lobby shows it: ABC-123@192.168.1.20:1883.\n"
        "Rooms found on the LAN are listed below: ↓ to the list, Enter joins.\n"
        "F3 (or w in the list) watches the room instead (with no code typed,\n"
        "the one marked in the list): you see its table live, with hands\n"
        "face down, and take no seat.\n"
        "F5 looks for rooms again. Escape goes back home."
    )

    def __init__(
        self,
        name: str,
        network: NetworkOptions | None = None,
        *,
        code: str = "",
        join_now: bool = False,
        watch_now: bool = False,
        from_home: bool = True,
        notice: str = "",
        dealer: str = "",
    ) -> None:
        super().__init__()
        self.notice = notice  # said once it opens (`passe host --dealer`: which dealer)
        # The peer id of that dealer: the room of ``code`` counts only as it
        # signed it (RemoteTable.dealt_by); another code typed here, as any.
        self.dealer = dealer
        self.dealt_code = code
        self.player_name = name
        self.name_from_home = from_home  # False: given by --name
        self.network = network if network is not None else NetworkOptions()
        self.initial_code = as_typed(code)
        self.join_now = join_now
        self.watch_now = watch_now  # `passe watch CODE`: leaving the table ends Passe
        self.adverts: list[RoomAdvert] = []
        self.joining = False

    def compose(self) -> ComposeResult:
        yield Static("Passe · join a LAN game", classes="screen-title")
        with Vertical(id="join-box"):
            yield TextField(
                self.initial_code,
                placeholder="room code, e.g. ABC-123 (or ABC-123@HOST:PORT)",
                max_length=80,
                compact=True,
                id="join-code",
            )
            yield Static(
                # The name the person typed: text, never markup ("[b red]Kim").
                plain(
                    f"Enter joins as {self.player_name}"
                    + (" (your name on the home screen)." if self.name_from_home else ".")
                ),
                id="join-explain",
            )
            yield Static("", id="join-message")
        with Vertical(id="join-rooms-box"):
            yield Static("", id="join-lan-note")
            yield MarkedOptionList(id="join-rooms")
        yield PasseFooter()

    def on_mount(self) -> None:
        self.query_one("#join-box").border_title = "Room code"
        self.query_one("#join-rooms-box").border_title = "Rooms on the LAN"
        self.query_one("#join-code", Input).focus()
        self.query_one("#join-rooms", OptionList).display = False
        self.action_browse()
        if self.notice:
            self.notify(self.notice, title="Dealer", timeout=20, markup=False)
        if self.join_now and self.initial_code:
            self.action_join()
        elif self.watch_now and self.initial_code:
            self.action_watch()

    # -- the LAN's rooms -----------------------------------------------------

    def action_browse(self) -> None:
        if not discovery_available():
            self._lan_note(UNAVAILABLE)
            return
        self._lan_note("Looking for rooms on the LAN…")
        self.run_worker(self._browse(), group="browse", exclusive=True)

    async def _browse(self) -> None:
        try:
            from net.lan.discovery import browse_rooms

            adverts = await browse_rooms(timeout=BROWSE_SECONDS)
        except Exception as error:  # multicast blocked, no interface…
            if self.is_attached:
                self._lan_note(f"{UNAVAILABLE} ({' '.join(str(error).split()) or 'failed'})")
            return
        if not self.is_attached:
            return  # joined meanwhile: this screen is gone
        try:
            rooms = self.query_one("#join-rooms", MarkedOptionList)
        except NoMatches:
            return  # the screen is being taken down (joined meanwhile)
        self.adverts = list(adverts)
        if not self.adverts:
            rooms.set_prompts([])
            rooms.display = False
            self._lan_note("No room found on the LAN. F5 looks again.")
            return
        rooms.set_prompts([room_line(advert) for advert in self.adverts])  # text, not markup
        rooms.highlighted = 0  # Enter on the list joins the first room at once
        rooms.display = True
        self._lan_note(ROOM_HEADER)

    def _lan_note(self, text: str) -> None:
        with contextlib.suppress(NoMatches):  # a late answer to a screen going away
            self.query_one("#join-lan-note", Static).update(plain(text))

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        message.stop()
        if 0 <= message.option_index < len(self.adverts):
            self._start_join(advert=self.adverts[message.option_index])

    # -- joining -------------------------------------------------------------

    def on_input_submitted(self, message: Input.Submitted) -> None:
        message.stop()
        self.action_join()

    def action_join(self) -> None:
        text = self.query_one("#join-code", Input).value.strip()
        if not text:
            self._say("Type the room code first.", problem=True)
            return
        self._start_join(text=text)

    def _start_join(
        self, *, text: str = "", advert: RoomAdvert | None = None, watch: bool = False
    ) -> None:
        if self.joining:
            return
        self.joining = True
        if advert is None and text and "@" not in text:
            # Found on the LAN, or among the brokers it was last on: a few
            # seconds with nothing said read as a screen that hung (found in
            # a play-test: 8 s after a double loss).
            doing = "Watching" if watch else "Joining"
            self._say(f"{doing} room {shown_code(text)}: looking for it…")
        else:
            self._say("Watching…" if watch else "Joining…")
        work = self._watch(text, advert) if watch else self._join(text, advert)
        self.run_worker(work, group="join", exclusive=True)

    def action_watch(self) -> None:
        """Watch the room typed (issue 21), or the one the LAN list marks
        when the list has the keys or nothing is typed (a room marked ▸
        below an empty code is the one meant: found by hand)."""
        rooms = self.query_one("#join-rooms", OptionList)
        index = rooms.highlighted
        text = self.query_one("#join-code", Input).value.strip()
        if (
            index is not None
            and rooms.display
            and 0 <= index < len(self.adverts)
            and (rooms.has_focus or not text)
        ):
            self._start_join(advert=self.adverts[index], watch=True)
            return
        if not text:
            self._say("Type the room code first (or pick a room in the list).", problem=True)
            return
        self._start_join(text=text, watch=True)

    async def _watch(self, text: str, advert: RoomAdvert | None) -> None:
        from tui.screens.watch import watch_screen

        try:
            if advert is not None:
                target = await advert_target(advert)
            else:
                target = await resolve_target(text, self.network)
            self._say(f"Watching room {shown_code(target.code)} at {target.host}:{target.port}…")
            watcher = await watch_target(target)
        except NetplayError as error:
            self._say(str(error), problem=True)
            return
        finally:
            self.joining = False
        try:
            screen = watch_screen(watcher, exits=self.watch_now)
        except (LookupError, ImportError):
            await watcher.close()
            code = shown_code(watcher.code)
            self._say(f"room {code} plays a game this Passe cannot show", problem=True)
            return
        self.app.switch_screen(screen)

    async def _join(self, text: str, advert: RoomAdvert | None) -> None:
        from tui.screens.lobby import LobbyScreen

        try:
            if advert is not None:
                target = await advert_target(advert)
            else:
                target = await resolve_target(text, self.network)
            self._say(f"Joining room {shown_code(target.code)} at {target.host}:{target.port}…")
            # A host with a screen is asked about a new key: say we wait for it.
            dealer = self.dealer if self.dealer and target.code == self.dealt_code else None
            table, notice = await join_target(
                target, self.player_name, on_knock=self._say, dealer=dealer
            )
        except NetplayError as error:
            # Turned away, or no seat left: watching is what is left, and
            # this screen's F3 does it (a play-test: "You can still watch
            # this one", and no word of how).
            said = str(error)
            if error.code in ("denied", "full") and said.endswith("watch it."):
                said = f"{said[:-1]} (F3)."  # not "… watch it. F3 watches it."
            elif error.code == "started" and said.endswith(("has already started", "taken back")):
                said += ": you can still watch it (F3)."  # a game in play, as a full room's
            # A sentence (a play-test: "… has already started", no stop).
            self._say(sentence(said), problem=True)
            return
        finally:
            self.joining = False
        if notice:
            from tui.screens.lobby import say_key_notice

            say_key_notice(self, notice)
        self.app.switch_screen(LobbyScreen(table=table))

    def _say(self, text: str, *, problem: bool = False) -> None:
        message = self.query_one("#join-message", Static)
        # A sentence on the screen (the reasons are the command line's too,
        # after "passe: "; a play-tester read "no room …" here).
        text = text[:1].upper() + text[1:]
        message.update(plain(text))  # a host's refusal, quoted: as text
        message.set_class(problem, "-problem")

    @property
    def message_text(self) -> str:
        return str(self.query_one("#join-message", Static).render())

    def action_leave(self) -> None:
        self.dismiss()
