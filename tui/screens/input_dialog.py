"""A dialog that asks for one line of text: a title, a few lines saying
what to type, the field, and a line saying what is wrong with what was
typed (each subclass checks its own). Escape dismisses with ``None``."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Static

from tui.screens.base import PasseModal
from tui.widgets.footer import PasseFooter
from tui.widgets.text_field import TextField


class InputDialog(PasseModal[str | None]):
    """Dismisses with what ``accept`` makes of the text typed, or ``None``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", key_display="esc"),
    ]
    TITLE = ""
    EXPLANATION = ""
    PLACEHOLDER = ""
    MAX_LENGTH = 0  # 0: no limit

    def __init__(self, value: str = "") -> None:
        super().__init__()
        self.initial = value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.TITLE, classes="dialog-title")
            yield Static(self.EXPLANATION)
            yield TextField(
                self.initial,
                placeholder=self.PLACEHOLDER,
                max_length=self.MAX_LENGTH,
                compact=True,
                id="dialog-input",
            )
            yield Static("", id="dialog-problem")
        yield PasseFooter()

    def on_mount(self) -> object:
        self.query_one(Input).focus()
        return super().on_mount()

    def accept(self, text: str) -> str:
        """What is returned for ``text``; ValueError says, in words, what is
        wrong with it (shown under the field, the dialog stays)."""
        return text

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            accepted = self.accept(event.value)
        except ValueError as error:
            self.query_one("#dialog-problem", Static).update(str(error))
            return
        self.dismiss(accepted)

    def action_back(self) -> None:
        self.dismiss(None)
