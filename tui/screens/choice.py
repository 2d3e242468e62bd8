"""A decision among a few options, keyboard only: the arrows and Enter, or
the option's number. Used for choices that are not a card in a row, such as
the second winner's tie (PP-14) and a team's representative (PP-23)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static

from tui.plain import literal, plain
from tui.screens.base import PasseModal
from tui.widgets.footer import PasseFooter
from tui.widgets.marked_option_list import MarkedOptionList


class ChoiceScreen(PasseModal[int | None]):
    """Dismisses with the chosen option's index, or ``None`` if put off."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "later", "Later", key_display="esc"),
        *[
            Binding(str(n), f"choose({n})", "Choose by number", key_display="1-9", show=n == 1)
            for n in range(1, 10)
        ],
    ]

    def __init__(
        self, title: str, body: RenderableType, options: Sequence[str], *, kind: str
    ) -> None:
        super().__init__()
        self.choice_title = title
        self.body = body
        self.options = list(options)
        self.kind = kind

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            # Titles and options name players: text, never markup (issue 19).
            yield Static(plain(self.choice_title), classes="dialog-title")
            yield Static(literal(self.body))
            yield MarkedOptionList(
                [f"{n}) {label}" for n, label in enumerate(self.options, start=1)], id="options"
            )
        yield PasseFooter()

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose":
            nth = parameters[0]
            return isinstance(nth, int) and 1 <= nth <= len(self.options)
        return super().check_action(action, parameters)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_index)

    def action_choose(self, nth: int) -> None:
        self.dismiss(nth - 1)

    def action_later(self) -> None:
        self.dismiss(None)
