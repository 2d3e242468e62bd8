"""Watching a networked table live (issue 21), at its game's own table.

The watch screen *is* the game's table screen (tui/games/<game>/table.py),
read-only: for each game a class ``Watch<GameTableScreen>`` (made once, by
:func:`watch_screen`) puts :class:`WatchTableScreen` before it, as the
replay screen does (tui/screens/replay.py). Its client is a
:class:`~net.peer.watch.Watcher`: the updates are the spectator's view
(``view(None)``: hands face down with their sizes, bids hidden until
revealed) and the public log, sealed to the watcher's own fresh key.

Nothing is played: the game's keys are off (only the rules, help, the
game's look-back keys and leaving act), no widget has the keys, and no
dialog opens on its own. q or Escape leaves at once: nothing is lost.

Watched from the lobby, the table is not shown until the game starts (its
panels would be empty, the hand's saying "no cards"): a note says so and
how many sit. At the game's end the line above the table keeps the winner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from core.engine import View
from core.registry import game_info
from net.protocol.codes import format_code
from tui.messages import GoHomeRequested, NextGameOpened, QuitRequested, RoomChanged
from tui.screens.game_over import verdict
from tui.screens.read_only_table import ReadOnlyTableScreen, over_game_table
from tui.widgets.footer import PasseFooter
from tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from net.peer.watch import Watcher

# What acts while watching: reading (rules, help, the last trick, the log's
# pages) and leaving.
WATCH_ACTIONS = frozenset(
    {
        *("leave", "rules", "help", "app.help", "quit", "app.quit", "last_trick"),
        *("watch_next", "log_page", "log_end"),
    }
)
WATCH_GUIDE = (
    "You are watching this table: you have no seat, and nothing you press\n"
    "plays. You see what everyone may see: hands face down with their sizes,\n"
    "bids hidden until they are revealed, the table, the scores and the log.\n"
    "The host's Passe sends it to you alone, sealed to a key made for this\n"
    "watch: the room learns nothing of who you are.\n"
    "PgUp/PgDn: the log's pages (End: its newest line again).\n"
    "r: the rules; q or Escape: stop watching (nothing is lost); n, once the\n"
    "host opens the next game at this table: watch that game."
)


CLOSED_BEFORE_START = "The host closed the room before the game started.\n\nq stops watching."


def lobby_note(seated: int | None, seats: int) -> str:
    """What a watcher sees before the game starts, in place of the table."""
    if seated is None:
        taken = "The room's seats are not known yet"
    else:
        taken = f"{seated} of {seats} seats are taken"
    return (
        "The game has not started yet.\n\n"
        f"{taken}: the table appears here as soon as the host starts the game.\n\n"
        "q stops watching (nothing is lost)."
    )


def watching_words(count: int) -> str:
    """ "1 watching", "2 watching" (players and watchers see it)."""
    return f"{count} watching"


class WatchTableScreen(ReadOnlyTableScreen):
    """Put before a game's table screen (see :func:`watch_screen`)."""

    # Before the first view, the note in place of the table's panels: by a
    # class, not by each widget's display (that would override the
    # too-small rule of app.tcss, which app CSS keeps over these).
    DEFAULT_CSS = """
    WatchTableScreen #watch-lobby {
        display: none;
        height: 1fr;
        padding: 2 4;
        border: round $primary 50%;
        content-align: center middle;
        text-align: center;
    }
    WatchTableScreen.-lobby > * { display: none; }
    WatchTableScreen.-lobby > StatusLine { display: block; }
    WatchTableScreen.-lobby > PasseFooter { display: block; }
    WatchTableScreen.-lobby > #watch-lobby { display: block; }
    /* Watching, the count and the game's words: two rows where one is not
       enough at 80 columns (a play-test read it cut). */
    WatchTableScreen StatusLine { height: auto; max-height: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,escape", "leave", "Leave", key_display="q", tooltip="Stop watching"),
        Binding("n", "watch_next", "Watch next", tooltip="Watch the next game at this table"),
    ]
    TITLE_IN_HELP = "Watching"

    def __init__(self, watcher: Watcher, *, exits: bool = False) -> None:
        super().__init__(watcher)
        self.watcher = watcher
        # Opened by `passe watch CODE`: leaving ends Passe (as it began).
        self.exits = exits
        self._game_words = ""  # the game's own status words
        self._following = False  # n pressed: the next game's watch is being asked

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield Static(id="watch-lobby", markup=False)

    async def on_mount(self) -> None:
        # Textual calls the table screen's on_mount too (after this one):
        # it connects the watcher and follows the room.
        for footer in self.query(PasseFooter):
            footer.compact = True
            footer.show_command_palette = False
        self.say_status("", your_turn=False)

    def _show_lobby(self) -> None:
        """Before the first view (the game not started), the note in place
        of the table's panels; the table from the first view on."""
        if not self.is_mounted:
            return
        waiting = self.view is None
        self.set_class(waiting, "-lobby")
        if not waiting:
            return
        note = self.query_one("#watch-lobby", Static)
        room = self.watcher.room
        if self.room_closed:
            note.update(CLOSED_BEFORE_START)
        elif room is None:
            note.update(lobby_note(None, 0))
        else:
            seated = sum(1 for seat in room.seats if seat.kind != "open")
            note.update(lobby_note(seated, len(room.seats)))

    # -- what is shown ---------------------------------------------------------

    def status_text(self) -> str:
        """The line above the table: watching, how many watch, and what
        happens at the table."""
        watcher = self.watcher
        # Short: the game's words follow, within 80 columns (a play-test read
        # "… · R1 T1 · Waiting for Ada to", cut).
        parts = [f"Watching {format_code(watcher.code)} (no seat)"]
        parts.append(watching_words(max(watcher.watching, 1)))
        room = watcher.room
        if self.view is None and room is not None and room.phase == "lobby":
            seated = sum(1 for seat in room.seats if seat.kind != "open")
            parts.append(f"lobby: {seated}/{len(room.seats)} seated")
        elif self.view is not None and self.view.is_over:
            result = self.view.result
            # Kept on the line: the note below goes after a while.
            winner = verdict(result, self.names, None).split("\n")[0] if result else ""
            parts.append(f"game over: {winner}" if winner else "game over")
        elif self._game_words:
            parts.append(self._game_words)
        return " · ".join(parts)

    def closed_status(self) -> str:
        """Where q goes from here (Passe ends, opened by `passe watch`), and
        a log to scroll only once the game had one (a play-test read "q:
        home (↑↓ scroll the log)" over a lobby's note, q ending Passe)."""
        where = "q: leave Passe" if self.exits else "q: home"
        scroll = " (↑↓ scroll the log)" if self.view is not None else ""
        return f"The host closed the room: this game cannot go on. {where}{scroll}"

    def say_status(self, text: str, *, your_turn: bool) -> None:
        # The game's words, behind the line that says we only watch.
        self._game_words = text
        self._show_lobby()
        if self.room_closed:
            super().say_status(text, your_turn=False)
            return
        self.query_one(StatusLine).say(self.status_text(), your_turn=False)

    def on_room_changed(self, message: RoomChanged) -> None:
        # Watched from the lobby, the names come as people sit.
        self.names = self.watcher.names
        super().on_room_changed(message)
        self._show_lobby()

    def _show_network(self) -> None:
        super()._show_network()
        if self.is_mounted and not self.room_closed:
            self.query_one(StatusLine).say(self.status_text(), your_turn=False)

    def show_game_over(self, view: View) -> None:
        """No game-over dialog (its choices are a player's): a note, and the
        table shows the result."""
        # Who won, in words: the final scores are a table (a renderable for
        # Pass Pass), which an f-string showed as "<rich.console.Group
        # object at 0x…>" (found in a play-test, 5 December).
        result = view.result
        winner = verdict(result, self.names, None).split("\n")[0] if result else ""
        self.notify(
            f"Game over: {winner} q leaves." if winner else "Game over. q leaves.",
            title=f"Room {format_code(self.watcher.code)}",
            timeout=15,
            markup=False,
        )

    def help_notes(self) -> str:
        return WATCH_GUIDE

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action not in WATCH_ACTIONS:
            return False
        if action == "watch_next":
            # Shown once the host has opened it (a watcher had to go home
            # and type the next room's code).
            return self.watcher.next_code is not None and not self._following
        return super().check_action(action, parameters)

    def on_next_game_opened(self, message: NextGameOpened) -> None:
        # (The table screen's own handler says it, as Textual calls both.)
        self.refresh_bindings()  # n

    # -- keys ------------------------------------------------------------------

    async def action_watch_next(self) -> None:
        """Watch the next game at this table, on a screen of its own (this
        one closes, and its watch with it)."""
        from net.peer.remote import JoinError

        try:
            following = self.watcher.next_watcher()
        except JoinError:
            return  # no next game: the key is not offered then
        self._following = True
        self.refresh_bindings()
        code = format_code(following.code)
        self.notify(f"Watching the next game, room {code}…", title="Next game", markup=False)
        try:
            await following.watch()
            screen = watch_screen(following, exits=self.exits)
        except (JoinError, LookupError, ImportError) as error:
            await following.close()
            self._following = False
            self.refresh_bindings()
            words = str(error) if isinstance(error, JoinError) else "a game this Passe cannot show"
            self.notify(
                f"Could not watch room {code}: {words}",
                title="Next game",
                severity="warning",
                markup=False,
            )
            return
        except BaseException:
            await following.close()
            raise
        self.app.switch_screen(screen)

    def action_leave(self) -> None:
        if self.exits:
            self.post_message(QuitRequested())
        else:
            self.post_message(GoHomeRequested())


_watch_types: dict[str, type[WatchTableScreen]] = {}


def watch_screen(watcher: Watcher, *, exits: bool = False) -> WatchTableScreen:
    """The watch screen of the room ``watcher`` watches (its game known from
    the room state). Raises ``LookupError`` or ``ImportError`` if the game
    has no table screen here."""
    title = f"Watching a {game_info(watcher.game_id).title} game"
    screen_type = over_game_table(WatchTableScreen, watcher.game_id, "Watch", title, _watch_types)
    return screen_type(watcher, exits=exits)


__all__ = ["WATCH_ACTIONS", "WatchTableScreen", "lobby_note", "watch_screen", "watching_words"]
