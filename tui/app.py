"""The Passe app: home screen, a table screen per game, help, rules, themes.

``passe`` / ``passe play`` calls :func:`run`. The table screens talk only to a
:class:`~net.peer.client.TableClient` and render views, never state.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import random
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen

from core.engine import ConfigError, RecordError
from net.authority.table import SavedTable, Table
from net.paths import records_dir
from net.peer.client import LocalClient, TableClient
from net.protocol.text import clean_text, safe_last_resort
from themes import CARD_VARIABLES, DEFAULT_THEME, THEME_DESCRIPTIONS, THEMES, themes_for
from tui.games import load_table_screen
from tui.messages import (
    BotSpeedChosen,
    GameRecorded,
    GoHomeRequested,
    HostRequested,
    JoinRequested,
    NewGameRequested,
    NextGameRequested,
    PastGamesRequested,
    PlayAgainRequested,
    QuitRequested,
    ReplayRequested,
    ResumeHostedRequested,
    ResumeRequested,
    VoteKept,
)
from tui.saves import clear_save, describe_saved, load_save, save_path, set_aside, write_save
from tui.screens.base import SizeGuard
from tui.screens.confirm_discard import CONTINUE, DISCARD, ConfirmDiscardScreen
from tui.screens.help import HelpScreen
from tui.screens.home import HomeScreen
from tui.session import start_local
from tui.settings import (
    DEFAULT_BOT_DELAY,
    Settings,
    clean_name,
    default_path,
    load_settings,
    login_name,
    save_settings,
)

if TYPE_CHECKING:
    from net.authority.rooms import SavedRoom
    from net.peer.remote import RemoteTable
    from tui.netplay import NetworkOptions

__all__ = ["DEFAULT_BOT_DELAY", "PasseApp", "run"]
HIDDEN_IN_HELP = frozenset({"Explain", "Copy selected text"})


class PasseApp(App[None]):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses live elsewhere
    TITLE = "Passe"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1,question_mark", "help", "Help", key_display="F1"),
    ]

    def __init__(
        self,
        *,
        config_path: Path | None = None,
        bot_delay: float | None = None,
        seed: int | None = None,
        handle_signals: bool = False,
        name: str | None = None,
        network: NetworkOptions | None = None,
        opening: Callable[[], Screen[Any]] | None = None,
    ) -> None:
        from tui.driver import PasseDriver
        from tui.terminal import Shutdown

        # A real terminal (handle_signals): Textual's driver made to end when
        # the terminal goes away, and one Shutdown for signals and hangups.
        # A browser's session (`passe serve --web`) names its driver in
        # TEXTUAL_DRIVER, Textual's own choice of driver (tui/web_driver.py).
        served_to_a_browser = bool(os.environ.get("TEXTUAL_DRIVER"))
        terminal_driver = handle_signals and not served_to_a_browser
        super().__init__(driver_class=PasseDriver if terminal_driver else None)
        # Log lines quote names and topics from the network (issue 19).
        safe_last_resort()
        self.handle_signals = handle_signals
        self.shutdown: Shutdown | None = None
        if handle_signals:
            self.shutdown = Shutdown()
            self.shutdown.note_terminal()  # before Textual puts it in raw mode
        for theme in THEMES:
            self.register_theme(theme)
        self.config_path = config_path if config_path is not None else default_path()
        # ``passe play --bot-delay`` for this run; otherwise the remembered speed.
        self.bot_delay_override = bot_delay
        self.seed = seed
        self.network = network  # None: from the environment, when first needed
        self.opening = opening  # a screen to open over home at start (passe host/join)
        self.games_started = 0
        # Games left whose rooms this machine still votes in (VoteKept):
        # closed when they end, or when Passe quits.
        self.kept_votes: list[RemoteTable] = []
        self.settings, self.settings_notice = load_settings(self.config_path)
        if name is not None:  # `passe play --name`, e.g. an SSH guest's user name
            self.settings.name = clean_name(name)
        self.save_path = save_path(self.config_path)
        self._save_notice_shown = False
        # Finished games are kept in data_dir()/records (tui/records.py,
        # imported when first needed: start-up time).
        self.records_path = records_dir()
        self.last_record: Path | None = None  # the file of the last game kept
        saved = self.settings.theme
        self.theme = saved if saved in self.available_themes else DEFAULT_THEME

    @property
    def bot_delay(self) -> float:
        """Seconds between bot moves."""
        if self.bot_delay_override is not None:
            return self.bot_delay_override
        return self.settings.bot_delay

    # -- themes ------------------------------------------------------------

    def match_terminal_colours(self) -> None:
        """In a 16-colour terminal, card colours that stay apart there
        (themes.themes_for). Called by :func:`run` for the real terminal, not
        in tests: their snapshots are true colour whatever the runner's TERM."""
        for theme in themes_for(self.console.color_system):
            self.register_theme(theme)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification is plain text, whoever asks for it (screens and
        widgets pass ``markup=True`` by default): they quote names, notices
        and reasons from the network, and "[/]" in one crashed the screen
        (issue 19, item 1). Passe writes no markup in notifications.

        The same note again (a key pressed again at the wrong moment)
        replaces the one shown instead of stacking a copy over the table
        (found by hand: four "Take two cards" covered half the screen)."""
        for shown in list(self._notifications):
            if (shown.message, shown.title, shown.severity) == (message, title, severity):
                self._unnotify(shown, refresh=False)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def action_help_quit(self) -> None:
        """ctrl+c does not quit (it copies in a text field): say which key
        does. Textual's own note writes the key in markup, which every
        notification here shows as text ("Press [b]ctrl+q[/b]": found by
        a play-test)."""
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(f"Press {key} to quit Passe", title="Do you want to quit?")
                return

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Card colours for themes that do not define them (Textual's own)."""
        return {**super().get_theme_variable_defaults(), **CARD_VARIABLES}

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        # Textual's own theme picker offers its many built-in themes; Passe
        # offers its three (readable cards, colour-blind safe, monochrome).
        # Of Textual's others only Quit: Maximize left a hatched screen that
        # nothing said how to leave (found by a play-test), Keys repeats F1,
        # and Screenshot writes a file where Passe runs (an SSH guest's on
        # the host's disk).
        yield from (
            command
            for command in super().get_system_commands(screen)
            if command.callback == self.action_quit
        )
        for theme in THEMES:
            yield SystemCommand(
                f"Theme: {THEME_DESCRIPTIONS[theme.name]}",
                f"Switch to the {theme.name} theme (remembered)",
                lambda name=theme.name: setattr(self, "theme", name),
            )

    def _theme_changed(self, theme: str) -> None:
        if self.settings.theme != theme:
            self.settings.theme = theme
            self._save()

    def _save(self) -> None:
        notice = save_settings(self.config_path, self.settings)
        if notice:
            self.notify(notice, severity="warning")

    # -- screens -----------------------------------------------------------

    def get_default_screen(self) -> Screen[Any]:
        return HomeScreen(self.settings, self.save_path, bot_delay_for_run=self.bot_delay_override)

    def on_mount(self) -> None:
        self.watch(self, "theme", self._theme_changed, init=False)
        if self.shutdown is not None:
            self.shutdown.install(asyncio.get_running_loop(), self.quit_on_signal)
        if self.settings_notice:
            self.notify(self.settings_notice, title="Settings", severity="warning", timeout=8)
        if self.opening is not None:
            self.push_screen(self.opening())

    def get_key_display(self, binding: Binding) -> str:
        """Number keys read as those that act now (issue 18 item 8): "1-3"
        for three cards or options, not the "1-8" of a full hand. The footer
        and help both ask here."""
        keys = digit_keys_now(self.screen, binding)
        return keys or super().get_key_display(shown_as_it_acts(self.screen, binding))

    def action_help(self) -> None:
        screen = self.screen
        if isinstance(screen, HelpScreen):
            return
        keys: list[tuple[str, str]] = []
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if active.node is not self and _a_textual_widgets_key(active.node, binding.action):
                continue  # a text box's own editing keys (found by hand: a page of them)
            # The tooltip of Passe's own keys, where there is one, says more
            # than the footer's word (Textual's own keys' tooltips are not ours).
            tooltip = binding.tooltip if active.node is not self else ""
            description = tooltip or binding.description
            if not description:
                continue  # no words for it ("help_quit" was shown): not a key to learn
            if description in seen or not active.enabled or description in HIDDEN_IN_HELP:
                continue
            seen.add(description)
            keys.append((self.get_key_display(binding), description))
        title = getattr(screen, "TITLE_IN_HELP", "") or type(screen).__name__
        notes = screen.help_notes() if isinstance(screen, SizeGuard) else ""
        self.push_screen(HelpScreen(title, keys, notes))

    async def action_quit(self) -> None:
        """Quitting during a game asks first (the table screen's dialog),
        unless the terminal is too small to show it: then it quits at once
        (the game is saved after every move), as the message says."""
        from tui.screens.table import TableScreen  # on demand: start-up time

        screen = self.screen
        if isinstance(screen, HomeScreen):
            # What was chosen there is remembered, as a game's start does
            # (found by a play-test: the game, the bots and the name chosen,
            # then q, came back as they were before).
            self.settings = screen.collect()
            self._save()
        if isinstance(screen, SizeGuard) and screen.too_small:
            self.exit()
            return
        table = next((s for s in self.screen_stack if isinstance(s, TableScreen)), None)
        if table is not None and table.in_progress and self.screen is table:
            table.action_leave()
            return
        leave_room = getattr(self.screen, "action_leave", None)
        if getattr(self.screen, "in_room", False) and leave_room is not None:
            leave_room()  # a networked lobby: leaving tells the others (and may close it)
            return
        await self.quit_asking()

    def on_quit_requested(self, message: QuitRequested) -> None:
        self.call_later(self.quit_asking)

    async def quit_asking(self) -> None:
        """Quit, unless this machine still votes in a game it left and the
        others need that vote: then ask first, on the home screen (a "stay"
        stays there). Every way out of Passe comes here (a play-test: the
        lobby's q quit at once, and the others' game stopped)."""
        needed = self.votes_needed()
        if not needed:
            self.exit()
            return
        from tui.screens.confirm_quit_voting import ConfirmQuitVotingScreen

        await self.go_home()

        def decide(quit_anyway: bool | None) -> None:
            if quit_anyway:
                self.exit()

        self.push_screen(ConfirmQuitVotingScreen(needed), decide)

    def quit_on_signal(self, signum: int) -> None:
        """SIGTERM or SIGHUP (or the terminal gone, which is SIGHUP): like a
        clean quit, without asking, whatever is open. The game in
        progress is saved once more (it already is after every move), a room
        we host is kept to be resumed rather than closed (the others see the
        host away), then the app exits through Textual's shutdown, which
        leaves the alternate screen and turns mouse reporting off. The exit
        code says which signal it was (128 + its number, as shells report it).
        The Shutdown ends the process if this takes over its grace period."""
        # Only screens already imported can be open: importing them now
        # (the lobby brings the whole network stack) would only slow the end.
        table_module = sys.modules.get("tui.screens.table")
        lobby_module = sys.modules.get("tui.screens.lobby")
        tables = (table_module.TableScreen,) if table_module is not None else ()
        lobbies = (lobby_module.LobbyScreen,) if lobby_module is not None else ()
        try:
            for screen in self.screen_stack:
                if isinstance(screen, tables) and screen.view is not None:
                    self.autosave(screen.client, screen.view.is_over)
                if isinstance(screen, lobbies):
                    screen.keep_room = True  # a hosted room waits to be resumed
        finally:
            self.exit(return_code=128 + signum)

    # -- the saved game (nothing lost on a crash) ---------------------------

    def saved_game(self) -> SavedTable | None:
        saved, notice = load_save(self.save_path)
        if notice:
            self.notify(notice, title="Saved game", severity="warning", timeout=8)
        return saved

    def autosave(self, client: TableClient, over: bool) -> None:
        """Called after every update of a table: keep the save current."""
        saved = client.saved()
        if saved is None:
            return
        if over:
            clear_save(self.save_path)
            return
        notice = write_save(self.save_path, saved)
        if notice and not self._save_notice_shown:
            self._save_notice_shown = True  # say it once, not at every move
            self.notify(notice, title="Saved game", severity="warning", timeout=8)

    def resume_game(self) -> None:
        saved = self.saved_game()
        if saved is None:
            self.notify("There is no saved game.", severity="warning")
            return
        try:
            table = Table.from_record(saved.record, saved.seats, bot_delay=self.bot_delay)
            screen_type = load_table_screen(saved.record.game)
        except (RecordError, ConfigError, LookupError, ImportError) as error:
            aside = set_aside(self.save_path)
            self.notify(
                f"The saved game cannot be resumed: {error}. It was kept as {aside.name}.",
                title="Saved game",
                severity="error",
            )
            if isinstance(self.screen, HomeScreen):
                self.screen.on_screen_resume()  # the saved game is no longer offered
            return
        self.push_screen(screen_type(LocalClient(table, saved.seat)))

    # -- finished games: kept, listed, replayed (issue 21) ---------------------

    def on_game_recorded(self, message: GameRecorded) -> None:
        from tui.records import keep_game

        path, notice = keep_game(
            message.record,
            message.names,
            viewer=message.seat,
            result=message.result,
            deal_check=message.deal_check,
            directory=self.records_path,
        )
        if path is not None:
            self.last_record = path
        if notice:
            self.notify(notice, title="Past games", severity="warning", timeout=8)

    def on_past_games_requested(self, message: PastGamesRequested) -> None:
        from tui.screens.past_games import PastGamesScreen

        self.push_screen(PastGamesScreen(self.records_path))

    def on_replay_requested(self, message: ReplayRequested) -> None:
        self.open_replay(message.path)

    def open_replay(self, path: Path) -> None:
        """The replay screen of the game kept in ``path``; a file that does
        not replay is said in one line instead."""
        from tui.records import load_replay, shown_names
        from tui.screens.replay import replay_screen

        try:
            replay = load_replay(path)
            screen = replay_screen(replay, shown_names(replay.file), seat=replay.file.viewer)
        except (RecordError, LookupError, ImportError) as error:
            self.notify(
                # The file's name is shown as text, cleaned (it could be anything).
                f"{clean_text(path.name, 80)} cannot be replayed: {error}",
                title="Cannot replay",
                severity="error",
                timeout=10,
            )
            return
        self.push_screen(screen)

    # -- games -------------------------------------------------------------

    def request_new_game(self, settings: Settings) -> None:
        """Start a game, asking first if that would replace a saved one."""
        saved = self.saved_game()
        if saved is None or not saved.record.actions:
            # A game left before its first move holds nothing worth asking about.
            clear_save(self.save_path)
            self.start_game(settings)
            return

        def decide(choice: str | None) -> None:
            if choice == DISCARD:
                clear_save(self.save_path)
                self.start_game(settings)
            elif choice == CONTINUE:
                self.resume_game()

        self.push_screen(ConfirmDiscardScreen(describe_saved(saved)), decide)

    def start_game(self, settings: Settings) -> None:
        self.settings = settings
        self._save()
        game_id = settings.game
        players = settings.players.get(game_id, 4)
        seed = random.randrange(2**31) if self.seed is None else self.seed + self.games_started
        try:
            screen_type = load_table_screen(game_id)
            client: TableClient = self.make_client(
                game_id,
                players=players,
                teams=settings.teams.get(game_id, False),
                name=settings.name,
                bots=settings.bots,
                seed=seed,
                options=settings.options.get(game_id, {}),
            )
        except (ConfigError, LookupError, ImportError) as error:
            self.notify(str(error), title="Cannot start", severity="error")
            return
        self.games_started += 1
        self.push_screen(screen_type(client))

    def make_client(
        self,
        game_id: str,
        *,
        players: int,
        teams: bool,
        name: str,
        bots: list[str],
        seed: int,
        options: dict[str, Any],
    ) -> TableClient:
        """The client for a new game (tests override this to observe it)."""
        return start_local(
            game_id,
            players=players,
            teams=teams,
            name=name,
            bots=bots,
            seed=seed,
            bot_delay=self.bot_delay,
            options=options,
        )

    # -- networked games (tui/netplay.py) -----------------------------------

    def network_options(self) -> NetworkOptions | None:
        """Where rooms are hosted and looked for; ``None`` after saying why not."""
        from tui.netplay import NetplayError, NetworkOptions

        if self.network is None:
            try:
                self.network = NetworkOptions.from_env()
            except NetplayError as error:
                self.notify(str(error), title="PASSE_BROKER", severity="error")
                return None
        return self.network

    def named(
        self, settings: Settings, then: Callable[[Settings], None], *, suggestion: str = ""
    ) -> None:
        """``then(settings)`` once the person has a name the others can read:
        where none is known (the default "You"), it is asked once and kept
        (issue 18 item 6; the OS login was taken instead, which for an SSH
        guest is the server's account). ``suggestion``: offered instead of
        the OS login (the name a rejoined seat had: found by hand, "Root"
        was offered to Hana and saved)."""
        from tui.screens.ask_name import AskNameScreen, is_unnamed

        if not is_unnamed(settings.name):
            then(settings)
            return

        def answered(name: str | None) -> None:
            if name is None:
                return
            settings.name = name
            self.settings = settings
            self._save()  # asked once: kept for next time
            home = next((s for s in self.screen_stack if isinstance(s, HomeScreen)), None)
            if home is not None:
                home.show_name(name)
            then(settings)

        self.push_screen(AskNameScreen(suggestion or login_name()), answered)

    def on_host_requested(self, message: HostRequested) -> None:
        self.named(message.settings, self._host)

    def _host(self, settings: Settings) -> None:
        from tui.netplay import HostPlan, table_name
        from tui.screens.lobby import LobbyScreen

        network = self.network_options()
        if network is None:
            return
        self.settings = settings
        self._save()
        plan = HostPlan(
            settings.game,
            players=settings.players.get(settings.game, 4),
            teams=settings.teams.get(settings.game, False),
            name=table_name(settings.name),
            options=dict(settings.options.get(settings.game, {})),
            network=network,
            seed=self.seed,
            bot_delay=self.bot_delay,
        )
        self.push_screen(LobbyScreen(plan=plan))

    def resume_hosted(self, room: SavedRoom) -> None:
        """Open again a hosted room whose host process died, at its lobby
        (or its table, if the game had started)."""
        from tui.netplay import HostPlan, table_name
        from tui.screens.lobby import LobbyScreen

        network = self.network_options()
        if network is not None:
            plan = HostPlan.resuming(room, table_name(self.settings.name), network)
            self.push_screen(LobbyScreen(plan=plan))

    def on_join_requested(self, message: JoinRequested) -> None:
        self.named(
            message.settings,
            lambda settings: self._join(settings, message.rejoin),
            suggestion=message.name_hint,
        )

    def _join(self, settings: Settings, rejoin: str = "") -> None:
        from tui.netplay import table_name
        from tui.screens.join import JoinScreen

        network = self.network_options()
        if network is None:
            return
        self.settings = settings
        self._save()
        name = table_name(settings.name)
        self.push_screen(JoinScreen(name, network, code=rejoin, join_now=bool(rejoin)))

    # -- what screens ask (messages up: they never import the app) ----------

    def on_bot_speed_chosen(self, message: BotSpeedChosen) -> None:
        self.bot_delay_override = None  # the speed chosen on home, from now on

    def on_new_game_requested(self, message: NewGameRequested) -> None:
        self.request_new_game(message.settings)

    def on_resume_requested(self, message: ResumeRequested) -> None:
        self.resume_game()

    def on_resume_hosted_requested(self, message: ResumeHostedRequested) -> None:
        self.resume_hosted(message.room)

    def on_vote_kept(self, message: VoteKept) -> None:
        from net.protocol.codes import format_code  # the network layer: loaded already

        self.kept_votes = [table for table in self.kept_votes if not table.closed]
        self.kept_votes.append(message.table)
        self.notify(
            f"Passe keeps your machine's vote in room {format_code(message.table.code)}'s game"
            " until it ends: a move there counts once most of the room's machines hold it."
            " Quitting Passe ends that vote.",
            title="Your machine still votes",
            timeout=10,
        )

    def votes_needed(self) -> list[str]:
        """The codes of the rooms whose games this machine left and still
        votes in, where the others need its vote now (their moves wait
        without it)."""
        from net.protocol.codes import format_code
        from tui.screens.confirm_leave_room import vote_needed

        self.kept_votes = [table for table in self.kept_votes if not table.closed]
        return [
            format_code(table.code)
            for table in self.kept_votes
            if vote_needed(table.machines_reachable())
        ]

    async def on_unmount(self) -> None:
        for table in self.kept_votes:
            with contextlib.suppress(Exception):  # quitting never fails for the person
                await table.close()

    def on_go_home_requested(self, message: GoHomeRequested) -> None:
        self.call_later(self.go_home)

    def on_play_again_requested(self, message: PlayAgainRequested) -> None:
        self.call_later(self.play_again)

    def on_next_game_requested(self, message: NextGameRequested) -> None:
        self.call_later(self.next_game)

    async def go_home(self) -> None:
        while len(self.screen_stack) > 1 and not isinstance(self.screen, HomeScreen):
            await self.pop_screen()

    async def next_game(self) -> None:
        """The next game at a networked table: back to its lobby, which opens
        it (the host) or joins it (the others)."""
        from tui.screens.lobby import LobbyScreen

        while len(self.screen_stack) > 1 and not isinstance(self.screen, LobbyScreen):
            await self.pop_screen()
        if isinstance(self.screen, LobbyScreen):
            self.screen.next_game()

    async def play_again(self) -> None:
        await self.go_home()
        self.start_game(self.settings)


DIGIT_ORDER = "1234567890"  # dominoes' tenth tile is 0


def digit_keys_now(screen: Screen[Any], binding: Binding) -> str:
    """For a number key, the range of number keys with the same meaning
    that act now on ``screen`` ("1-3", "1"); "" for other keys."""
    if len(binding.key) != 1 or binding.key not in DIGIT_ORDER:
        return ""
    keys = sorted(
        (
            active.binding.key
            for active in screen.active_bindings.values()
            if active.enabled
            and len(active.binding.key) == 1
            and active.binding.key in DIGIT_ORDER
            and active.binding.description == binding.description
        ),
        key=DIGIT_ORDER.index,
    )
    if not keys:
        return ""
    return keys[0] if len(keys) == 1 else f"{keys[0]}-{keys[-1]}"


def shown_as_it_acts(screen: Screen[Any], binding: Binding) -> Binding:
    """``binding``, or, where its ``key_display`` names another of its keys
    that the focused widget takes as typing, the same binding shown by its
    own key. Issue 18: home's "q,escape" Quit read "q Quit" in the footer
    while the name field was focused, where q types a letter and only
    escape quits; it reads "esc Quit" there."""
    shown = binding.key_display
    focused = screen.focused
    if (
        shown is None
        or len(shown) != 1
        or shown == binding.key
        or focused is None
        or not focused.check_consume_key(shown, shown)
    ):
        return binding
    return dataclasses.replace(binding, key_display=None)


def _a_textual_widgets_key(node: object, action: str) -> bool:
    """Whether ``action`` is one of the keys a Textual class that ``node``
    is made of binds itself (an Input's cursor and selection keys, a scroll
    container's, a screen's Tab: keys everyone knows, not Passe's; the
    rules' help listed "↑ Scroll Up", "^pgup Page Left" and "tab Focus
    Next" beside Passe's own "↑↓ Scroll", a play-test)."""
    for cls in type(node).__mro__:
        if not cls.__module__.startswith("textual."):
            continue
        for entry in cls.__dict__.get("BINDINGS", ()):
            bound = entry.action if isinstance(entry, Binding) else entry[1]
            if bound == action:
                return True
    return False


def run(
    *,
    bot_delay: float | None = None,
    seed: int | None = None,
    name: str | None = None,
    network: NetworkOptions | None = None,
    opening: Callable[[], Screen[Any]] | None = None,
) -> int:
    """``opening``: a screen shown over home at start (``passe host``/``join``)."""
    app = PasseApp(
        bot_delay=bot_delay,
        seed=seed,
        name=name,
        handle_signals=True,
        network=network,
        opening=opening,
    )
    app.match_terminal_colours()
    app.run()
    return app.return_code or 0
