"""Your name at a networked table, asked once when none is known (issue 18
item 6): the home screen's default, "You", would read as each reader
themself on the others' screens, and the OS login is the server's account
for an SSH guest (or a stranger's short name). What is typed is kept."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Input, Static

from tui.screens.base import PasseModal
from tui.settings import NAME_LENGTH, clean_name


def is_unnamed(name: str) -> bool:
    """Whether ``name`` is no name for the others: empty or "You"."""
    return name.strip().casefold() in ("", "you")


class AskNameScreen(PasseModal[str | None]):
    """Dismisses with the name typed (cleaned), or ``None`` (Escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", key_display="esc"),
    ]

    def __init__(self, suggestion: str = "") -> None:
        super().__init__()
        self.suggestion = suggestion

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Your name at the table?", classes="dialog-title")
            yield Static(
                "The others see this name beside your seat. It is kept for\n"
                "next time (the home screen's name field changes it).\n"
            )
            yield Input(
                self.suggestion,
                placeholder="your name",
                max_length=NAME_LENGTH,
                compact=True,
                id="ask-name",
            )
            yield Static("", id="ask-name-problem")
        yield Footer()

    def on_mount(self) -> object:
        self.query_one(Input).focus()
        return super().on_mount()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        name = clean_name(event.value)
        if is_unnamed(name):
            self.query_one("#ask-name-problem", Static).update(
                'Type a name the others will know you by (not "You").'
            )
            return
        self.dismiss(name)

    def action_back(self) -> None:
        self.dismiss(None)
