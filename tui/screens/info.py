"""A dialog to read, then close: a title, a body and a hint. Enter, space or
Escape close it. The end-of-round summary and the look back at the last
trick are such dialogs."""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from tui.plain import literal, plain
from tui.screens.base import PasseModal
from tui.widgets.footer import PasseFooter


class InfoScreen(PasseModal[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,escape", "close", "Close", key_display="⏎")
    ]
    HINT: ClassVar[str] = "Press Enter to close."

    def __init__(self, title: str, body: RenderableType) -> None:
        super().__init__()
        self.info_title = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(plain(self.info_title), classes="dialog-title")  # names: as text
            yield Static(literal(self.body))
            yield Static(self.HINT, classes="hint")
        yield PasseFooter()

    def action_close(self) -> None:
        self.dismiss(None)
