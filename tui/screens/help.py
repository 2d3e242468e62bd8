"""The keys of the screen you came from: those that work now, then the
screen's own notes (keys that depend on the moment of the game)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from tui.plain import plain
from tui.screens.base import PasseModal
from tui.widgets.footer import PasseFooter


def reflow(notes: str) -> str:
    """Guides are written as hard-wrapped prose: join each paragraph's lines
    so the text wraps to the dialog's width instead of breaking twice."""
    paragraphs = notes.strip().split("\n\n")
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


class HelpScreen(PasseModal[None]):
    # Its layout is in app.tcss ("help"): app CSS outranks DEFAULT_CSS.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1,question_mark", "close", "Close", key_display="esc"),
    ]

    def __init__(self, title: str, keys: Sequence[tuple[str, str]], notes: str) -> None:
        super().__init__()
        self.help_title = title
        self.keys = list(keys)
        self.notes = notes

    def compose(self) -> ComposeResult:
        table = Table(box=None, padding=(0, 2, 0, 0), show_header=False)
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for key, description in self.keys:
            table.add_row(key, description)
        with Vertical(classes="dialog wide"):
            yield Static(f"Help: {self.help_title}", classes="dialog-title")
            with VerticalScroll():
                yield Static("Keys that work now", classes="section", id="keys-title")
                yield Static(table)
                if self.notes:
                    yield Static("About this screen", classes="section")
                    # As written, never markup: the guides name keys like
                    # [ and ] and tiles like [3|5], which markup would eat.
                    yield Static(plain(reflow(self.notes)))
        yield PasseFooter()

    def blocked(self, action: str) -> bool:
        # Closing help changes nothing in the game: it works even behind the
        # "terminal too small" message (help itself may open there).
        return action != "close" and super().blocked(action)

    def action_close(self) -> None:
        self.dismiss(None)
