"""A list of options whose highlighted one carries a ▸ marker, as a
:class:`~tui.widgets.chooser.Chooser`'s focused row does: the shade alone
says nothing without colour (``NO_COLOR``, a monochrome terminal; the LAN's
rooms on the join screen were told apart by colour only, a play-test)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import OptionList

from tui.widgets.chooser import FOCUS_MARK, NO_MARK


class MarkedOptionList(OptionList):
    """Options given as text (shown as written, never markup); the
    highlighted one is marked ``▸``."""

    def __init__(self, prompts: Sequence[str] = (), *, id: str | None = None) -> None:
        self._prompts = list(prompts)
        self._marked: int | None = None
        super().__init__(*(self._shown(prompt, marked=False) for prompt in self._prompts), id=id)

    @staticmethod
    def _shown(prompt: str, *, marked: bool) -> Content:
        return Content((FOCUS_MARK if marked else NO_MARK) + prompt)

    def set_prompts(self, prompts: Sequence[str]) -> None:
        """Replace every option (none highlighted until one is)."""
        self._prompts = list(prompts)
        self._marked = None
        self.clear_options()
        self.add_options([self._shown(prompt, marked=False) for prompt in self._prompts])

    def watch_highlighted(self, highlighted: int | None) -> None:
        super().watch_highlighted(highlighted)
        self._mark(self._marked, marked=False)
        self._mark(highlighted, marked=True)
        self._marked = highlighted

    def _mark(self, index: int | None, *, marked: bool) -> None:
        if index is None or not 0 <= index < len(self._prompts):
            return
        self.replace_option_prompt_at_index(index, self._shown(self._prompts[index], marked=marked))
