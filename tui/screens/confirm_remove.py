"""The host takes a person out of their seat in the lobby: asked first,
since it is done to someone present (issue 19 seats item 3)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from tui.plain import plain
from tui.screens.base import PasseModal
from tui.widgets.footer import PasseFooter


def removal_question(name: str, seat: int) -> str:
    """The dialog's question; ``seat`` counts from 0."""
    return f"Remove {name} from seat {seat + 1}? They will be told."


class ConfirmRemoveScreen(PasseModal[bool]):
    """Dismisses with ``True`` (take them out) or ``False`` (keep them)."""

    DEFAULT_CSS = """
    ConfirmRemoveScreen .dialog { width: auto; max-width: 76; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "remove", "Remove", key_display="y"),
        Binding("n,escape", "keep", "Keep them", key_display="n"),
    ]

    def __init__(self, name: str, seat: int) -> None:
        super().__init__()
        self.person = name
        self.seat = seat

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Remove someone?", classes="dialog-title")
            # The name comes from the network: text, never markup (issue 19).
            yield Static(plain(removal_question(self.person, self.seat)))
            yield Static(
                "The seat is free again; to sit, they must be let in again.\n\n"
                "y  remove them\nn  keep them"
            )
        yield PasseFooter()

    def action_remove(self) -> None:
        self.dismiss(True)

    def action_keep(self) -> None:
        self.dismiss(False)
