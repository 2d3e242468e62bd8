"""The end of a round: what each player (or team) scored, and the sheet."""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Static

from tui.screens.base import PasseModal


class RoundEndScreen(PasseModal[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,escape", "close", "Continue", key_display="⏎")
    ]

    def __init__(self, title: str, body: RenderableType) -> None:
        super().__init__()
        self.round_title = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.round_title, classes="dialog-title")
            yield Static(self.body)
            yield Static("Press Enter to go on to the next round.", classes="hint")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
