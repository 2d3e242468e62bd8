"""Leaving a game in progress asks first."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from tui.screens.base import PasseModal
from tui.widgets.footer import PasseFooter

HOME = "home"
QUIT = "quit"


class ConfirmQuitScreen(PasseModal[str | None]):
    """Dismisses with ``"home"``, ``"quit"`` or ``None`` (keep playing)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # y only: Enter plays at the table behind, and a second Enter left
        # the game (found by a play-test); in a hosted room it closes the
        # room for everyone (ConfirmLeaveRoomScreen has these keys).
        Binding("y", "leave", "Leave to home"),
        Binding("q,ctrl+q", "quit_app", "Quit Passe", key_display="q"),
        Binding("n,escape", "stay", "Keep playing", key_display="n"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Leave this game?", classes="dialog-title")
            yield Static(
                "The game is saved: continue it later from the\n"
                "home screen with c.\n\n"
                "y  leave to the home screen\n"
                "q  quit Passe\n"
                "n  keep playing"
            )
        yield PasseFooter()

    def action_leave(self) -> None:
        self.dismiss(HOME)

    def action_quit_app(self) -> None:
        self.dismiss(QUIT)

    def action_stay(self) -> None:
        self.dismiss(None)
