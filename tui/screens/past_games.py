"""Past games: every finished game kept (tui/records.py), newest first;
Enter replays the one chosen (the app opens its replay screen, or says in
one line why it cannot: a damaged file, a game this Passe does not have)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static

from tui.messages import ReplayRequested
from tui.plain import plain
from tui.records import PastGame, past_games
from tui.screens.base import PasseScreen
from tui.widgets.footer import PasseFooter

EMPTY = (
    "No finished game yet. Every game played to its end, here or over the\n"
    "network, is kept: it will be listed here, to be replayed move by move."
)


def served() -> bool:
    """A guest of `passe serve`: the server's paths are not theirs to read."""
    import os

    from tui.netplay import SERVED_ENV

    return bool(os.environ.get(SERVED_ENV))


class PastGamesScreen(PasseScreen):
    DEFAULT_CSS = """
    PastGamesScreen #past-main {
        border: round $primary 50%;
        border-title-color: $text;
        height: 1fr;
        padding: 0 1;
    }
    PastGamesScreen #past-list { height: 1fr; border: none; }
    PastGamesScreen #past-empty { height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the list takes Enter otherwise, and the footer would not show it.
        Binding(
            "enter",
            "open",
            "Replay",
            key_display="⏎",
            tooltip="Replay the chosen game",
            priority=True,
        ),
        Binding("q,escape", "back", "Back", key_display="esc"),
    ]
    TITLE_IN_HELP = "Past games"
    GUIDE = (
        "Every game played to its end is kept, newest first: when it ended\n"
        "(UTC), the game, who won and your score. ↑/↓ choose one, Enter\n"
        "replays it move by move at its own table. The files are plain text\n"
        "(Passe game notation) in the records folder of Passe's data directory,\n"
        "named at the bottom; passe replay FILE opens one too. The oldest go\n"
        "once there are 300."
    )

    def __init__(self, directory: Path) -> None:
        super().__init__()
        self.directory = directory
        self.games: list[PastGame] = []

    def compose(self) -> ComposeResult:
        yield Static("Passe · past games", classes="screen-title")
        with Vertical(id="past-main"):
            yield Static(EMPTY, id="past-empty")
            yield OptionList(id="past-list")
        yield PasseFooter()

    def on_mount(self) -> None:
        main = self.query_one("#past-main")
        main.border_title = "Finished games, newest first"
        main.border_subtitle = "" if served() else plain(str(self.directory))  # text, not markup
        self.show_games()

    def show_games(self) -> None:
        self.games = past_games(self.directory)
        listing = self.query_one("#past-list", OptionList)
        listing.clear_options()
        listing.add_options([plain(game.describe()) for game in self.games])
        listing.display = bool(self.games)
        self.query_one("#past-empty").display = not self.games
        if self.games:
            listing.highlighted = 0
            listing.focus()

    def refocus(self) -> None:
        if self.games:
            self.query_one("#past-list", OptionList).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open":
            return bool(self.games)
        return super().check_action(action, parameters)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._open(event.option_index)

    def action_open(self) -> None:
        index = self.query_one("#past-list", OptionList).highlighted
        if index is not None:
            self._open(index)

    def _open(self, index: int) -> None:
        if 0 <= index < len(self.games):
            self.post_message(ReplayRequested(self.games[index].path))

    def action_back(self) -> None:
        self.app.pop_screen()
