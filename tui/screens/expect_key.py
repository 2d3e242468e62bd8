"""The host lets someone in by their key, as they read it aloud (issue 19,
found by hand): strangers' fresh keys can fill the knock queue, and the
person the host is waiting for is then refused "too many people are
knocking". Their join screen shows their key; the host types its start here
and the room lets that key in when it knocks (Authority.expect)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Input, Static

from net.authority import EXPECT_DIGITS, key_prefix
from tui.screens.base import PasseModal


class ExpectKeyScreen(PasseModal[str | None]):
    """Dismisses with the key's start as typed (checked), or ``None``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", key_display="esc"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Let someone in by their key", classes="dialog-title")
            yield Static(
                "Ask them to read the key their join screen shows, and type\n"
                f"at least its first {EXPECT_DIGITS} characters (dashes do not matter).\n"
                "Their key is let in as soon as it knocks, however many\n"
                "others are waiting.\n"
            )
            yield Input(placeholder="e.g. 8ef4-36c2", max_length=24, compact=True, id="expect-key")
            yield Static("", id="expect-key-problem")
        yield Footer()

    def on_mount(self) -> object:
        self.query_one(Input).focus()
        return super().on_mount()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            key_prefix(event.value)
        except ValueError as error:
            self.query_one("#expect-key-problem", Static).update(f"{str(error).capitalize()}.")
            return
        self.dismiss(event.value)

    def action_back(self) -> None:
        self.dismiss(None)
