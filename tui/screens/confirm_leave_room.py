"""Leaving a networked room (its lobby or its game) asks first, and says what
it does to the others."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from tui.screens.confirm_quit import ConfirmQuitScreen
from tui.widgets.footer import PasseFooter

HOST_TEXT = (
    "You host this room: leaving closes it for everyone\nin it, and a game in progress ends there."
)
PLAYER_IN_GAME_TEXT = (
    "The others are told that you left, and a bot\n"
    "takes your seat so they can finish the game.\n"
    "A networked game is not saved here."
)
# Leaving while the link is down: nothing reaches the table (a play-tester
# read that the others would be told and a bot would take the seat).
PLAYER_CUT_OFF_TEXT = (
    "The table cannot be told now (no connection):\n"
    "your seat stays yours, shown away, until the\n"
    "host gives it to a bot or you come back.\n"
    "A networked game is not saved here."
)
PLAYER_IN_LOBBY_TEXT = "The others see your seat free again."


class ConfirmLeaveRoomScreen(ConfirmQuitScreen):
    """:class:`ConfirmQuitScreen`'s keys and answers, with what leaving a
    networked room means for the others."""

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="dialog-title")
            yield Static(
                f"{self.text}\n\ny  leave to the home screen\nq  quit Passe\nn  keep playing"
            )
        yield PasseFooter()
