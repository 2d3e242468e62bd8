"""Starting a new game while one is saved asks first: the save would go."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from tui.screens.base import PasseModal
from tui.widgets.footer import PasseFooter

DISCARD = "discard"
CONTINUE = "continue"


class ConfirmDiscardScreen(PasseModal[str | None]):
    """Dismisses with ``"discard"`` (start the new game), ``"continue"``
    (resume the saved one) or ``None`` (back to the home screen)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "discard", "Start new", key_display="y"),
        Binding("c", "resume", "Continue saved", key_display="c"),
        Binding("n,escape", "back", "Back", key_display="n"),
    ]

    def __init__(self, description: str) -> None:
        super().__init__()
        self.description = description

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Discard the saved game?", classes="dialog-title")
            yield Static(
                f"You have a saved game: {self.description}.\n"
                "A new game replaces it.\n\n"
                "y  start the new game (the saved one is lost)\n"
                "c  continue the saved game instead\n"
                "n  back"
            )
        yield PasseFooter()

    def action_discard(self) -> None:
        self.dismiss(DISCARD)

    def action_resume(self) -> None:
        self.dismiss(CONTINUE)

    def action_back(self) -> None:
        self.dismiss(None)
