"""Home: choose the game, players, teams, each bot's level and your name;
Enter starts. The choices are remembered for next time."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Input, Label, Static

from core.engine import GameInfo
from core.registry import game_info
from tui.games import GameEntry, game_entries
from tui.messages import HostRequested, JoinRequested
from tui.screens.base import PasseScreen, rules_screen
from tui.session import BOT_NAMES
from tui.settings import BOT_LEVELS, NAME_LENGTH, Settings, clean_name
from tui.widgets.chooser import Chooser

MAX_BOT_SEATS = len(BOT_NAMES)


class HomeScreen(PasseScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "start", "Start", key_display="⏎", priority=False),
        Binding("up", "app.focus_previous", "Move", key_display="↑↓"),
        Binding("down", "app.focus_next", "Move", show=False),
        Binding("r", "rules", "Rules"),
        Binding("c", "resume", "Continue"),
        # In the hint line (the footer is full at 80 columns).
        Binding("o", "host", "Host a LAN game", show=False),
        Binding("j", "join", "Join by code", show=False),
        Binding("q,escape", "app.quit", "Quit", key_display="q"),
    ]
    TITLE_IN_HELP = "Home"
    GUIDE = (
        "Move between settings with ↑/↓ or Tab; change one with ←/→ (or space).\n"
        "Type your name in the name field. Enter starts the game.\n"
        "A game in progress is saved after every move: c continues it.\n"
        "o hosts this game on the LAN (others join by its room code);\n"
        "j joins a LAN game by the code its host reads out.\n"
        "ctrl+p opens the command palette: pick a theme there (Passe, the\n"
        "colour-blind safe Okabe-Ito one, or high-contrast monochrome)."
    )

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings
        self.entries = game_entries()
        self.playable = [entry for entry in self.entries if entry.playable]

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
                    yield Label("Your name  ", id="name-label")
                    yield Input(
                        self.settings.name,
                        placeholder="You",
                        max_length=NAME_LENGTH,
                        compact=True,
                        id="name",
                    )
                yield Static(self._games_text(), id="games")
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
        yield Static(
            "Enter: start   o: host a LAN game   j: join by code   r: rules   F1: help",
            id="home-hint",
        )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#home-game").border_title = "New game"
        self.query_one("#home-seats").border_title = "Seats"
        self._game_changed()
        self.query_one("#game", Chooser).focus()

    def _games_text(self) -> str:
        # Only games that cannot be played yet are listed (as "coming").
        lines = [f"{entry.title}: {entry.note}" for entry in self.entries if not entry.playable]
        saved = self._saved_description()
        if saved:
            if lines:
                lines.append("")
            lines.append(f"Saved game: {saved}.\nPress c to continue it.")
        return "\n".join(lines)

    def _saved_description(self) -> str | None:
        from tui.app import PasseApp

        app = self.app
        if not isinstance(app, PasseApp) or not app.save_path.exists():
            return None
        saved = app.saved_game()
        return None if saved is None else app.describe_saved(saved)

    def on_screen_resume(self) -> None:
        self.query_one("#games", Static).update(self._games_text())
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "resume":
            from tui.app import PasseApp

            app = self.app
            return isinstance(app, PasseApp) and app.save_path.exists()
        return super().check_action(action, parameters)

    def action_resume(self) -> None:
        from tui.app import PasseApp

        app = self.app
        assert isinstance(app, PasseApp)
        app.resume_game()

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

    def _game_changed(self) -> None:
        game = self.game
        if game is None:
            self.query_one("#summary", Static).update("No game is playable yet.")
            return
        info = game
        self.query_one("#summary", Static).update(info.summary)
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
        self.query_one("#seat-you", Static).update(f"1 {name} (you)")
        levels = BOT_LEVELS  # every game ships these (tests/core/test_registry.py)
        for seat in range(1, MAX_BOT_SEATS + 1):
            chooser = self.query_one(f"#bot-{seat}", Chooser)
            chooser.display = seat < players
            chooser.set_options([(level, level) for level in levels])
        teams = self.query_one("#teams", Chooser)
        line = ""
        if teams.options and teams.value:
            names = [name, *BOT_NAMES[: players - 1]]
            count = players // 2
            groups = [
                " + ".join(names[s] for s in range(players) if s % count == team)
                for team in range(count)
            ]
            line = "Partners sit alternately:\n" + "\n".join(
                f" {'ABCD'[team]}: {group}" for team, group in enumerate(groups)
            )
        self.query_one("#team-line", Static).update(line)

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
        settings.name = clean_name(self.query_one("#name", Input).value)
        settings.bots = [
            str(self.query_one(f"#bot-{seat}", Chooser).value)
            for seat in range(1, MAX_BOT_SEATS + 1)
        ]
        return settings

    def action_start(self) -> None:
        from tui.app import PasseApp

        if self.game is None:
            self.notify("No game is playable yet.", severity="warning")
            return
        app = self.app
        assert isinstance(app, PasseApp)
        app.request_new_game(self.collect())

    def action_host(self) -> None:
        if self.game is None:
            self.notify("No game is playable yet.", severity="warning")
            return
        self.post_message(HostRequested(self.collect()))

    def action_join(self) -> None:
        self.post_message(JoinRequested(self.collect()))

    def action_rules(self) -> None:
        game = self.game
        if game is not None:
            self.app.push_screen(rules_screen(game.id))

    def playable_entries(self) -> list[GameEntry]:
        return self.playable
