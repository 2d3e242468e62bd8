"""Quitting Passe while it still votes in a game its person left, and the
others need that vote for their moves to count (``RemoteTable.leave``),
asks first."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from tui.screens.base import PasseModal
from tui.widgets.footer import PasseFooter


def voting_text(codes: list[str]) -> str:
    """What quitting does, for the rooms of ``codes`` (shown as they are:
    codes are made here, of letters and digits)."""
    rooms = ", ".join(codes)
    games = "game" if len(codes) == 1 else "games"
    return (
        f"You left the {games} of room {rooms}, and your\n"
        "machine still votes there: the others need its\n"
        "vote for their moves to count until another\n"
        "machine is back. Quitting now makes them wait.\n\n"
        "y  quit anyway\n"
        "n  stay (Passe votes on while it runs)"
    )


class ConfirmQuitVotingScreen(PasseModal[bool]):
    """Dismisses with ``True`` (quit) or ``False`` (stay)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "quit_app", "Quit anyway", key_display="y"),
        Binding("n,escape", "stay", "Stay", key_display="n"),
    ]

    def __init__(self, codes: list[str]) -> None:
        super().__init__()
        self.codes = codes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Quit Passe?", classes="dialog-title")
            yield Static(voting_text(self.codes))
        yield PasseFooter()

    def action_quit_app(self) -> None:
        self.dismiss(True)

    def action_stay(self) -> None:
        self.dismiss(False)
