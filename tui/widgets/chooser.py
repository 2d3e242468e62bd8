"""A one-line setting: ``▸ Label   ◀ value ▶``; ←/→ (or h/l, space) change it.

The focused row carries a ▸ marker (and a shade where there is colour): the
marker alone must say where the keys go, e.g. with ``NO_COLOR``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Generic, TypeVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

V = TypeVar("V")

FOCUS_MARK = "▸ "
NO_MARK = "  "


class Chooser(Widget, Generic[V], can_focus=True):
    DEFAULT_CSS = """
    Chooser {
        height: 1;
        width: 1fr;
        padding: 0 1 0 0;
    }
    Chooser:focus {
        background: $accent 30%;
        text-style: bold;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,h", "step(-1)", "Change", key_display="←→"),
        Binding("right,l,space", "step(1)", "Change", show=False),
    ]

    index: reactive[int] = reactive(0)

    class Changed(Message):
        def __init__(self, chooser: Chooser[object]) -> None:
            super().__init__()
            self.chooser = chooser

        @property
        def control(self) -> Chooser[object]:
            return self.chooser

    def __init__(
        self,
        label: str,
        options: Sequence[tuple[str, V]],
        value: V | None = None,
        *,
        id: str | None = None,
        label_width: int = 11,
    ) -> None:
        super().__init__(id=id)
        self.label = label
        self.label_width = label_width
        self.options: list[tuple[str, V]] = list(options)
        self.set_reactive(Chooser.index, self._index_of(value))

    def _index_of(self, value: V | None) -> int:
        for index, (_, option) in enumerate(self.options):
            if option == value:
                return index
        return 0

    @property
    def value(self) -> V:
        return self.options[self.index][1]

    def set_options(self, options: Sequence[tuple[str, V]], value: V | None = None) -> None:
        current = self.value if value is None and self.options else value
        self.options = list(options)
        self.index = self._index_of(current)
        self.refresh()

    def render(self) -> Text:
        text = Text(FOCUS_MARK if self.has_focus else NO_MARK)
        text.append(f"{self.label:<{self.label_width}}")
        if not self.options:
            return text
        many = len(self.options) > 1
        text.append("◀ " if many else "  ", style="dim")
        text.append(self.options[self.index][0])
        if many:
            text.append(" ▶", style="dim")
        return text

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def watch_index(self) -> None:
        self.post_message(self.Changed(self))  # type: ignore[arg-type]

    def action_step(self, step: int) -> None:
        if self.options:
            self.index = (self.index + step) % len(self.options)
