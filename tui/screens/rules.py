"""A game's rules, from the project's own rules text (house rules marked)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from core.registry import get_game
from tui.screens.base import PasseScreen
from tui.widgets.footer import PasseFooter


def rules_markdown(game_id: str) -> str:
    try:
        game = get_game(game_id)
    except Exception as error:  # a missing or broken engine: say so, don't crash
        return f"# Rules\n\nThe {game_id!r} game could not be loaded: {error}"
    try:
        return game.rules_text()
    except OSError as error:
        return (
            f"# {game.info.title}\n\n{game.info.summary}\n\n"
            f"*The full rules text of {game.info.title} is not installed ({error.strerror}).*"
        )


class RulesScreen(PasseScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,r", "close", "Back", key_display="esc"),
        Binding("up,k", "scroll(-1)", "Scroll", key_display="↑↓", show=True),
        Binding("down,j", "scroll(1)", "Scroll", show=False),
        Binding("pageup,b", "page(-1)", "Page", key_display="PgUp/PgDn"),
        Binding("pagedown,space", "page(1)", "Page", show=False),
    ]
    TITLE_IN_HELP = "Rules"
    GUIDE = "Scroll with the arrows, j/k, PgUp/PgDn or space. Escape returns."

    def __init__(self, game_id: str) -> None:
        super().__init__()
        self.game_id = game_id

    def compose(self) -> ComposeResult:
        yield Static("Rules", id="rules-title", classes="screen-title")
        with VerticalScroll(id="rules-scroll"):
            yield Markdown(rules_markdown(self.game_id))
        yield PasseFooter()

    def on_mount(self) -> None:
        scroll = self.query_one("#rules-scroll", VerticalScroll)
        scroll.can_focus = False
        try:
            title = get_game(self.game_id).info.title
        except Exception:
            title = self.game_id
        self.query_one("#rules-title", Static).update(f"Rules of {title}")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll(self, step: int) -> None:
        self.query_one("#rules-scroll", VerticalScroll).scroll_relative(y=step, animate=False)

    def action_page(self, step: int) -> None:
        scroll = self.query_one("#rules-scroll", VerticalScroll)
        scroll.scroll_relative(y=step * max(1, scroll.size.height - 1), animate=False)
