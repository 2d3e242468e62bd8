"""Home: choose the game, players, teams, the game's options, the bots'
speed, each bot's level and your name; Enter starts. The choices are
remembered for next time.

Two panels, "New game" and "Seats": ↑/↓ move within a panel and stop at its
edges (never wrap into the other), Tab goes to the other panel; the focused
row carries a ▸ marker. More entries fit below the options (the left panel
has room for two more lines)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Input, Label, Static

from core.engine import GameInfo
from core.registry import game_info
from tui.games import GameEntry, game_entries
from tui.messages import (
    BotSpeedChosen,
    GameRecorded,
    HostRequested,
    JoinRequested,
    NewGameRequested,
    PastGamesRequested,
    ResumeHostedRequested,
    ResumeRequested,
)
from tui.plain import plain
from tui.saves import describe_saved, load_save
from tui.screens.base import PasseScreen
from tui.session import BOT_NAMES, seat_names
from tui.settings import BOT_LEVELS, BOT_SPEEDS, NAME_LENGTH, Settings, clean_name
from tui.widgets.chooser import FOCUS_MARK, NO_MARK, Chooser
from tui.widgets.footer import PasseFooter
from tui.widgets.text_field import TextField

if TYPE_CHECKING:
    from net.authority.rooms import SavedRoom
    from net.peer.rejoin import HeldSeat
    from tui.netplay import EndedGame
    from tui.options import GameOption

MAX_BOT_SEATS = len(BOT_NAMES)
# The deal check kept with a game that ended while this person's machine
# was away: nothing it was shown survives its process to compare with.
ENDED_AWAY_CHECK = (
    "Fair deal: not checked: the game ended while this machine was away, and nothing "
    "it was shown was kept to compare with."
)
PANELS = ("home-game", "home-seats")
NAME_LABEL = "Your name  "
NAME_PLACEHOLDER = "type a name (You if none)"
CONFIRM_LABEL = "Confirm"
CONFIRM_CHOICES = [("no: a key plays at once", False), ("yes: ask first", True)]


class HomeScreen(PasseScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "start", "Start", key_display="⏎", priority=False),
        # Priority (issue 18 item 7): the keys that move the focus act as
        # they arrive, so the next key (typed 150 ms later, or in the same
        # read) goes to the row now focused. Otherwise it went to the row
        # left behind: "Abc" typed into the name lost its "A", and an "o"
        # hosted a room under the old name.
        # Not in the footer (the ▸ marker shows the rows; help lists ↑↓):
        # it keeps room for every key that works now, F1 Help included.
        Binding("up", "move(-1)", "Move", key_display="↑↓", show=False, priority=True),
        Binding("down", "move(1)", "Move", show=False, priority=True),
        # Shown in the panels' titles: the footer keeps room for F1 Help.
        Binding(
            "tab,shift+tab", "panel", "Other panel", key_display="Tab", show=False, priority=True
        ),
        Binding("r", "rules", "Rules"),
        Binding("c", "resume", "Continue", tooltip="Continue the saved game"),
        # The footer shows every key that works now, F1 included (issue 18):
        # short words there, the help's longer ones in the tooltips.
        Binding("o", "host", "Host", tooltip="Host this game on the LAN"),
        Binding("j", "join", "Join", tooltip="Join a LAN game by its code"),
        # Not h: the choosers take h and l as ← and →.
        Binding("u", "resume_hosted", "Resume", tooltip="Resume the interrupted hosted game"),
        Binding("x", "close_hosted", "End", tooltip="Close the interrupted hosted game for good"),
        # The same keys for a hosted room whose table moved to a player's
        # machine (issue 20): it goes on there, so nothing resumes or ends.
        Binding("u", "rejoin_moved", "Rejoin", tooltip="Your seat back where it went on"),
        Binding("x", "forget_moved", "Del", tooltip="Forget it here: it goes on"),
        # Named in the Seats panel's subtitle (the footer is full at 80 columns).
        Binding("p", "past_games", "Past games", show=False, tooltip="Replay a finished game"),
        # Not Escape: it is "back" on every other screen, and a person pressing
        # it once too many after leaving a lobby found Passe (and their SSH
        # session) gone (found by hand, issue 18). q quits; in the name field,
        # where q types a letter, Escape leaves the field (then q quits).
        Binding("q", "quit", "Quit"),
        Binding("escape", "leave_field", "Done", key_display="esc"),
    ]
    TITLE_IN_HELP = "Home"
    GUIDE = (
        "Move between settings with ↑/↓ (▸ marks the one the keys change);\n"
        "Tab goes between the New game and the Seats panels. ←/→ (or space)\n"
        "change a setting. Type your name in the name field. Options are the\n"
        "game's variants (see r, the rules); bot speed is the pause between\n"
        "bot moves. Confirm: yes asks before each card or tile is played\n"
        "(there is no undo). Enter starts the game.\n"
        "A game in progress is saved after every move: c continues it.\n"
        "o hosts this game on the LAN (others join by its room code);\n"
        "j joins a LAN game by the code its host reads out.\n"
        "p lists the past games: every game played to its end is kept, to\n"
        "be replayed move by move from any seat.\n"
        "A hosted game whose host process died is kept: u resumes it,\n"
        "x closes it for good (it asks first; the others are told). If its\n"
        "table moved to a player's machine meanwhile, u rejoins it there\n"
        "and x forgets it here.\n"
        "A room you were in whose seat is still yours (your connection or\n"
        "the SSH server went away) is named here too: j rejoins it.\n"
        "ctrl+p opens the command palette: pick a theme there (Passe, the\n"
        "colour-blind safe Okabe-Ito one, or high-contrast monochrome)."
    )

    def __init__(
        self,
        settings: Settings,
        save_path: Path | None = None,
        *,
        bot_delay_for_run: float | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        # ``passe play --bot-delay``: the bots' pause for this run, shown as
        # the bot speed until another is chosen (found by a play-test: the
        # screen said "normal (0.8 s)" while the bots waited 3 s).
        self.bot_delay_for_run = bot_delay_for_run
        # Where the saved local game is (none: nothing is offered to continue).
        self.save_path = save_path
        self.entries = game_entries()
        self.playable = [entry for entry in self.entries if entry.playable]
        # Each panel's last focused row, for Tab back into it.
        self.panel_focus: dict[str, Widget] = {}
        # (game id, option, its chooser), once loaded after the first paint.
        self.option_rows: list[tuple[str, GameOption, Chooser[Any]]] = []
        self.options_loaded = False
        self.hosted: SavedRoom | None = None  # an interrupted hosted room
        self.hosted_moved = False  # ...whose table moved to a player's (issue 20)
        # A room joined earlier whose seat our key still holds (issue 18).
        self.rejoin: HeldSeat | None = None
        # Games that ended while this person was away, kept now: said once.
        self.ended_away: list[str] = []
        # The code of the interrupted room being closed for good (x), if any.
        self.closing: str | None = None

    def compose(self) -> ComposeResult:
        yield Static("Passe · a table for the three games called Pass", classes="screen-title")
        games = [(entry.title, entry.id) for entry in self.playable]
        current = (
            self.settings.game if any(e.id == self.settings.game for e in self.playable) else None
        )
        with Horizontal(id="home-main"):
            with Vertical(id="home-game"):
                yield Chooser("Game", games, current, id="game")
                yield Static("", id="summary")
                yield Chooser[int]("Players", [], id="players")
                yield Chooser[bool]("Teams", [], id="teams")
                with Horizontal(id="name-row"):
                    yield Label(NO_MARK + NAME_LABEL, id="name-label")
                    yield TextField(
                        self.settings.name,
                        # Not "You", the default name itself: deleted, the
                        # name looked unchanged (found in a play-test).
                        placeholder=NAME_PLACEHOLDER,
                        max_length=NAME_LENGTH,
                        compact=True,
                        id="name",
                    )
                # The game's options are added after the first paint (they
                # import the game's engine); the bot speed is every game's.
                yield Vertical(id="options")
                yield Chooser("Bot speed", self._bot_speeds(), self._bot_speed(), id="bot-speed")
                # No undo at the tables: the help there points here (issue 18 item 8).
                yield Chooser(
                    CONFIRM_LABEL, CONFIRM_CHOICES, self.settings.confirm_plays, id="confirm-plays"
                )
                yield Static(plain(self._games_text()), id="games")
            with Vertical(id="home-seats"):
                yield Static("", id="seat-you")
                for seat in range(1, MAX_BOT_SEATS + 1):
                    yield Chooser(
                        f"{seat + 1} {BOT_NAMES[seat - 1]}",
                        [(level, level) for level in BOT_LEVELS],
                        self.settings.bot_level(seat),
                        id=f"bot-{seat}",
                    )
                yield Static("", id="team-line")
        # The palette (ctrl+p) is in the help: its footer entry would push
        # the keys that work now off the row.
        yield PasseFooter(compact=True, show_command_palette=False)

    def _bot_speeds(self) -> list[tuple[str, float]]:
        """The speeds offered: this run's own first, when it is none of them."""
        run = self.bot_delay_for_run
        if run is None or run in (value for _, value in BOT_SPEEDS):
            return list(BOT_SPEEDS)
        return [(f"{run:g} s (this run)", run), *BOT_SPEEDS]

    def _bot_speed(self) -> float:
        """This run's speed, else the remembered one (or the nearest offered)."""
        if self.bot_delay_for_run is not None:
            return self.bot_delay_for_run
        delay = self.settings.bot_delay
        return min((value for _, value in BOT_SPEEDS), key=lambda value: abs(value - delay))

    def _chosen_bot_delay(self) -> float:
        """The speed to remember: the one chosen, unless it is still this
        run's own (``--bot-delay`` is for this run), which leaves the
        remembered one."""
        value = float(self.query_one("#bot-speed", Chooser).value)
        return self.settings.bot_delay if value == self.bot_delay_for_run else value

    def on_mount(self) -> None:
        self.query_one("#home-game").border_title = "New game"
        # The LAN keys (the footer is full at 80 columns).
        self.query_one("#home-game").border_subtitle = "o: host on the LAN · j: join by code"
        self.query_one("#home-seats").border_title = "Seats (Tab)"
        self.query_one("#home-seats").border_subtitle = "p: past games"
        self._game_changed()
        self.query_one("#game", Chooser).focus()
        self.call_after_refresh(self.load_options)
        self.call_after_refresh(self._look_for_seat)  # home is drawn first

    async def load_options(self) -> None:
        """One chooser per option of every playable game (tui/options.py),
        shown for the chosen game."""
        from tui.options import game_options

        rows: list[tuple[str, GameOption, Chooser[Any]]] = []
        for entry in self.playable:
            stored = self.settings.options.get(entry.id, {})
            for option in game_options(entry.id):
                chooser: Chooser[Any] = Chooser(
                    option.label,
                    option.choices,
                    option.value_of(stored.get(option.name, option.default)),
                    id=f"opt-{entry.id}-{option.name}",
                )
                rows.append((entry.id, option, chooser))
        await self.query_one("#options", Vertical).mount_all(row[2] for row in rows)
        self.option_rows = rows
        self.options_loaded = True
        self._show_options()

    def _show_options(self) -> None:
        game = self.game
        for game_id, _, chooser in self.option_rows:
            chooser.display = game is not None and game_id == game.id

    # -- moving: within a panel, Tab between panels ------------------------

    def _panel_of(self, widget: Widget | None) -> str | None:
        while widget is not None:
            if widget.id in PANELS:
                return widget.id
            parent = widget.parent
            widget = parent if isinstance(parent, Widget) else None
        return None

    def _rows(self, panel: str) -> list[Widget]:
        return [w for w in self.focus_chain if self._panel_of(w) == panel]

    def action_move(self, step: int) -> None:
        """↑/↓: the previous or next row of the focused panel; at its first
        or last row nothing moves (no wrapping into the other panel)."""
        panel = self._panel_of(self.focused)
        if panel is None:
            self.focus_next() if step > 0 else self.focus_previous()
            return
        rows = self._rows(panel)
        here = rows.index(self.focused) if self.focused in rows else 0
        target = here + step
        if 0 <= target < len(rows):
            self.set_focus(rows[target])

    def action_panel(self) -> None:
        """Tab: the other panel, at the row last focused there."""
        panel = self._panel_of(self.focused)
        other = PANELS[1] if panel == PANELS[0] else PANELS[0]
        rows = self._rows(other)
        if not rows:
            return
        remembered = self.panel_focus.get(other)
        self.set_focus(remembered if remembered in rows else rows[0])

    def on_descendant_focus(self, event: Any) -> None:
        focused = self.focused
        panel = self._panel_of(focused)
        if panel is not None and focused is not None:
            self.panel_focus[panel] = focused
        self._mark_name()

    def on_descendant_blur(self, event: Any) -> None:
        self._mark_name()

    def _mark_name(self) -> None:
        """The name field's row carries the ▸ marker too when focused."""
        focused = self.query_one("#name", Input).has_focus
        mark = FOCUS_MARK if focused else NO_MARK
        self.query_one("#name-label", Label).update(mark + NAME_LABEL)

    def _games_text(self) -> str:
        """What can be continued, as text (never markup: a host's name from
        the network is in it). Only games that cannot be played yet are
        listed (as "coming")."""
        lines = [f"{entry.title}: {entry.note}" for entry in self.entries if not entry.playable]
        from tui.netplay import SECOND_SESSION_ENV, SECOND_SESSION_NOTE

        if os.environ.get(SECOND_SESSION_ENV):
            lines.insert(0, SECOND_SESSION_NOTE)
        saved = self._saved_description()
        if saved:
            if lines:
                lines.append("")
            # Two lines, not three: at 80x24 the panel has six rows for this,
            # a blank and a hosted room's three (found by hand: the hosted
            # room's last line was cut off).
            lines.append(f"Saved game: {saved}: c continues it.")
        self.hosted = self._interrupted_room()
        self.hosted_moved = False
        if self.hosted is not None:
            from tui.netplay import table_moved

            self.hosted_moved = table_moved(self.hosted)
            if lines:
                lines.append("")
            lines.append(self._describe_hosted(self.hosted, moved=self.hosted_moved))
        if self.rejoin is not None:
            if lines:
                lines.append("")
            lines.append(self._describe_rejoin(self.rejoin))
        for ended in self.ended_away:
            if lines:
                lines.append("")
            lines.append(ended)
        return "\n".join(lines)

    def _look_for_seat(self) -> None:
        """Look, in the background, for a room whose seat this person's key
        still holds (issue 18: an SSH guest after a server restart saw no
        hint of it); only for someone who ever sat in one."""
        from tui.netplay import pins_kept

        if pins_kept():
            self.run_worker(self._find_seat(), group="rejoin", exclusive=True)

    async def _find_seat(self) -> None:
        import asyncio
        import importlib

        from net.peer.rejoin import EndedAway
        from tui.netplay import room_to_rejoin, settle_ended_away

        # The network layer takes ~0.2 s to import: not on the screen's loop.
        await asyncio.to_thread(importlib.import_module, "net.peer.rejoin")
        held = await room_to_rejoin()
        if isinstance(held, EndedAway):
            settled = await asyncio.to_thread(settle_ended_away, held)
            if settled is not None and self.is_attached:
                self._keep_ended_away(settled)
            held = await room_to_rejoin()  # an older room, still open
            if isinstance(held, EndedAway):
                held = None  # the next look's
        if held is not None and held.code == self.closing:
            # Opened again only to be closed (x), this process hosts it: our
            # seat there is nothing to rejoin (found by hand: "j to rejoin"
            # showed for the room being closed, seconds long).
            held = None
        if not self.is_attached or held == self.rejoin:
            return
        self.rejoin = held
        self.query_one("#games", Static).update(plain(self._games_text()))

    def _keep_ended_away(self, ended: EndedGame) -> None:
        """A game that ended while this person's machine was away (its
        process killed, a laptop's battery): kept with their past games, as
        their own Passe would have at its end, and said here once (a
        play-test: the player came back to nothing at all)."""
        from net.protocol.codes import format_code
        from tui.records import winners_words

        self.post_message(
            GameRecorded(ended.record, ended.names, ended.seat, ended.result, ENDED_AWAY_CHECK)
        )
        winners = winners_words(ended.result.winners, ended.names, ended.seat)
        self.ended_away.append(
            f"Your game in room {format_code(ended.code)}\n"
            f"({ended.title}, host {ended.host_name})\n"
            f"ended while you were away: {winners} won.\n"
            "p: past games."
        )
        self.query_one("#games", Static).update(plain(self._games_text()))

    @staticmethod
    def _describe_rejoin(held: HeldSeat) -> str:
        from core.engine import ConfigError
        from net.protocol.codes import format_code

        if held.waiting:
            return (
                f"Room {format_code(held.code)} waits for your\nmachine: its game goes on once\n"
                "enough of its machines are back.\nj to rejoin."
            )
        try:
            title = game_info(held.game).title
        except ConfigError:
            title = held.game
        # The host's name is network text, cleaned (net/peer/rejoin.py) and shown
        # as text (plain). Short lines: the panel is 40 columns at 80x24.
        return (
            f"You were in room {format_code(held.code)}\n"
            f"({title}, host {held.host_name}):\nj to rejoin."
        )

    def _interrupted_room(self) -> SavedRoom | None:
        """The latest hosted room whose host process died, if any (the
        network layer loads only when there is a room file)."""
        from net.paths import ROOM_SUFFIX, rooms_dir

        try:
            if not any(rooms_dir().glob(f"*{ROOM_SUFFIX}")):
                return None
        except OSError:
            return None
        from net.authority.rooms import interrupted_rooms

        rooms, notices = interrupted_rooms()
        for notice in notices:
            self.notify(notice, title="Hosted game", severity="warning", timeout=8)
        return rooms[-1].room if rooms else None

    @staticmethod
    def _describe_hosted(room: SavedRoom, *, moved: bool = False) -> str:
        from net.protocol.codes import format_code

        if moved:
            # Found by hand: u said "could not open the room", and x "closed"
            # a room that went on (issue 20: the table moved to a player's).
            return (
                f"Your room {format_code(room.code)} went on without\n"
                "this machine (its table moved to a\n"
                "player's): u rejoins, x forgets it."
            )
        title = game_info(room.game).title
        # Short lines: the panel is 40 columns at 80x24 (issue 18: it was cut).
        return (
            f"Hosted room {format_code(room.code)} was interrupted\n"
            f"({title}, {len(room.seats)} players).\n"
            "u resumes it, x closes it for good."
        )

    def _saved_description(self) -> str | None:
        if self.save_path is None or not self.save_path.exists():
            return None
        saved, notice = load_save(self.save_path)
        if notice:
            self.notify(notice, title="Saved game", severity="warning", timeout=8)
        return None if saved is None else describe_saved(saved)

    def on_screen_resume(self) -> None:
        self.query_one("#games", Static).update(plain(self._games_text()))
        self.refresh_bindings()
        self._look_for_seat()  # left it, or it ended, meanwhile

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("resume_hosted", "close_hosted"):
            return self.hosted is not None and not self.hosted_moved
        if action in ("rejoin_moved", "forget_moved"):
            return self.hosted is not None and self.hosted_moved
        if action in ("quit", "leave_field"):
            # In a text field q is a letter: the footer offers Escape there.
            typing = isinstance(self.focused, Input)
            return typing if action == "leave_field" else not typing
        if action == "resume":
            return self.save_path is not None and self.save_path.exists()
        return super().check_action(action, parameters)

    async def action_quit(self) -> None:
        await self.app.action_quit()

    def action_leave_field(self) -> None:
        if isinstance(self.focused, Input):
            self.focus_next()  # out of the field, to the setting below it

    def action_resume_hosted(self) -> None:
        if self.hosted is not None:
            self.post_message(ResumeHostedRequested(self.hosted))

    def action_rejoin_moved(self) -> None:
        room = self.hosted
        if room is None:
            return
        # Its game goes on on a player's machine: this person rejoins it
        # there as a player (found on the LAN by its code). The files here
        # resume nothing, but their voter votes again beside the seat (the
        # room keeps this machine's vote), and they go when the game ends.
        self.hosted, self.hosted_moved = None, False
        self.query_one("#games", Static).update(plain(self._games_text()))
        self.refresh_bindings()
        from net.protocol.text import clean_name

        # The name this person hosted under, if none is remembered here.
        hint = clean_name(room.host_name, default="")
        self.post_message(JoinRequested(self.collect(), rejoin=room.code, name_hint=hint))

    def action_close_hosted(self) -> None:
        from net.protocol.codes import format_code

        room = self.hosted
        if room is None:
            return
        code = format_code(room.code)
        body = (
            f"The game in room {code} ends here: nobody can resume it. Anyone still "
            "waiting in it is told it is closed."
        )

        def close() -> None:
            self.closing = room.code
            self.run_worker(self._close_hosted(room), exclusive=True)

        options = [f"Yes, close room {code}", "No, keep it to resume"]
        self._confirm(f"Close room {code} for good?", body, options, close)

    def action_forget_moved(self) -> None:
        from net.protocol.codes import format_code
        from tui.netplay import NetplayError, forget_moved

        room = self.hosted
        if room is None:
            return
        code = format_code(room.code)
        body = (
            f"The game in room {code} goes on on a player's machine: this removes it "
            "from this machine only. You can still join it by its code."
        )

        def forget() -> None:
            try:
                said = forget_moved(room)
            except NetplayError as error:
                self.notify(str(error), title="Hosted game", severity="warning")
            else:
                self.notify(said, title="Hosted game")
            self.on_screen_resume()  # the list of what can be continued

        options = [f"Yes, forget room {code}", "No, keep it"]
        self._confirm(f"Forget room {code}?", body, options, forget)

    def _confirm(
        self, title: str, body: str, options: list[str], on_yes: Callable[[], None]
    ) -> None:
        """Ask ``title`` (``options``: yes first, then no); ``on_yes`` if yes."""
        from tui.screens.choice import ChoiceScreen

        def decided(index: int | None) -> None:
            if index == 0:
                on_yes()

        self.app.push_screen(ChoiceScreen(title, body, options, kind="confirm"), decided)

    async def _close_hosted(self, room: SavedRoom) -> None:
        from net.protocol.codes import format_code
        from tui.netplay import NetplayError, close_for_good

        # It waits (seconds) for the others to be back on its broker to be told.
        self.notify(
            f"Closing room {format_code(room.code)}: telling the others…", title="Hosted game"
        )
        try:
            said = await close_for_good(room)
        except NetplayError as error:
            self.notify(str(error), title="Hosted game", severity="warning")
        else:
            self.notify(said, title="Hosted game")
        finally:
            self.closing = None
        self.on_screen_resume()  # the list of what can be continued

    def action_resume(self) -> None:
        self.post_message(ResumeRequested())

    def action_past_games(self) -> None:
        self.post_message(PastGamesRequested())

    # -- reacting to changes ---------------------------------------------

    @property
    def game(self) -> GameInfo | None:
        """The chosen game's facts (its engine loads only when it starts)."""
        if not self.playable:
            return None
        return game_info(self.query_one("#game", Chooser).value)

    def on_chooser_changed(self, message: Chooser.Changed) -> None:
        chooser_id = message.chooser.id
        if chooser_id == "game":
            self._game_changed()
        elif chooser_id == "players":
            self._players_changed()
        elif chooser_id == "teams":
            self._refresh_seats()
        elif chooser_id == "bot-speed":
            seconds = float(self.query_one("#bot-speed", Chooser).value)
            if seconds != self.bot_delay_for_run:
                self.bot_delay_for_run = None  # a speed chosen here from now on
                self.post_message(BotSpeedChosen(seconds))
            self.settings.bot_delay = self._chosen_bot_delay()

    def _game_changed(self) -> None:
        game = self.game
        if game is None:
            self.query_one("#summary", Static).update("No game is playable yet.")
            return
        info = game
        self.query_one("#summary", Static).update(info.summary)
        self._show_options()
        players = self.query_one("#players", Chooser)
        wanted = self.settings.players.get(info.id, min(max(4, info.min_players), info.max_players))
        players.set_options(
            [(str(n), n) for n in range(info.min_players, info.max_players + 1)], wanted
        )
        self._players_changed()

    def _players_changed(self) -> None:
        game = self.game
        if game is None:
            return
        players = self.query_one("#players", Chooser).value
        teams = self.query_one("#teams", Chooser)
        allowed = [flag for flag in (False, True) if game.allows(players, flag)]
        wanted = self.settings.teams.get(game.id, False)
        teams.set_options(
            [("teams of two" if flag else "no, each for themselves", flag) for flag in allowed],
            wanted if wanted in allowed else None,
        )
        self._refresh_seats()

    def _refresh_seats(self) -> None:
        game = self.game
        if game is None:
            return
        players: int = self.query_one("#players", Chooser).value
        name = clean_name(self.query_one("#name", Input).value)
        self.query_one("#seat-you", Static).update(plain(f"1 {name} (you)"))  # as typed
        levels = BOT_LEVELS  # every game ships these (tests/core/test_registry.py)
        # The bots' names as the table will give them: none named like you.
        names = seat_names(name, MAX_BOT_SEATS + 1)
        for seat in range(1, MAX_BOT_SEATS + 1):
            chooser = self.query_one(f"#bot-{seat}", Chooser)
            if chooser.label != f"{seat + 1} {names[seat]}":
                chooser.label = f"{seat + 1} {names[seat]}"
                chooser.refresh()
            chooser.display = seat < players
            chooser.set_options([(level, level) for level in levels])
        teams = self.query_one("#teams", Chooser)
        line = ""
        if teams.options and teams.value:
            names = seat_names(name, players)
            count = players // 2
            groups = [
                " + ".join(names[s] for s in range(players) if s % count == team)
                for team in range(count)
            ]
            line = "Partners sit alternately:\n" + "\n".join(
                f" {'ABCD'[team]}: {group}" for team, group in enumerate(groups)
            )
        self.query_one("#team-line", Static).update(plain(line))

    def show_name(self, name: str) -> None:
        """The name just given elsewhere (asked before hosting or joining)."""
        self.query_one("#name", Input).value = name

    def on_input_changed(self, event: Input.Changed) -> None:
        self._refresh_seats()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_start()

    # -- starting --------------------------------------------------------

    def collect(self) -> Settings:
        """The settings chosen on this screen (also what is remembered)."""
        settings = self.settings
        game = self.game
        if game is not None:
            settings.game = game.id
            settings.players[game.id] = self.query_one("#players", Chooser).value
            teams = self.query_one("#teams", Chooser)
            settings.teams[game.id] = bool(teams.value) if teams.options else False
            if self.options_loaded:
                from tui.options import chosen_options

                rows = [(option, c) for g, option, c in self.option_rows if g == game.id]
                settings.options[game.id] = chosen_options(
                    [option for option, _ in rows], {o.name: c.value for o, c in rows}
                )
        settings.bot_delay = self._chosen_bot_delay()
        settings.confirm_plays = bool(self.query_one("#confirm-plays", Chooser).value)
        settings.name = clean_name(self.query_one("#name", Input).value)
        settings.bots = [
            str(self.query_one(f"#bot-{seat}", Chooser).value)
            for seat in range(1, MAX_BOT_SEATS + 1)
        ]
        return settings

    def action_start(self) -> None:
        if self.game is None:
            self.notify("No game is playable yet.", severity="warning")
            return
        self.post_message(NewGameRequested(self.collect()))

    def action_host(self) -> None:
        if self.game is None:
            self.notify("No game is playable yet.", severity="warning")
            return
        self.post_message(HostRequested(self.collect()))

    def action_join(self) -> None:
        # With a room to rejoin, j takes the seat back there at once (the
        # join screen opens on it: Esc there, and another code can be typed).
        held = self.rejoin
        target, hint = (held.target, held.seat_name) if held is not None else ("", "")
        self.post_message(JoinRequested(self.collect(), rejoin=target, name_hint=hint))

    def action_rules(self) -> None:
        game = self.game
        if game is not None:
            # On demand: the Markdown widget is slow to import, and start-up
            # should not pay for it.
            from tui.screens.rules import RulesScreen

            self.app.push_screen(RulesScreen(game.id))

    def playable_entries(self) -> list[GameEntry]:
        return self.playable
