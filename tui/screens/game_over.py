"""The end of a game: winners (or a shared victory), why, the scores (the
whole round-by-round table: it scrolls with ↑/↓ where it is longer than the
dialog); play again with the same settings, or go home."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Footer, Static

from core.engine import Result
from tui.screens.base import PasseModal

AGAIN = "again"
HOME = "home"
KEYS_HINT = "a / Enter: play again    h / Escape: home    q: quit"
# A networked game is played again by hosting a new room (o on home).
NETWORK_KEYS_HINT = "h / Escape: home    q: quit    (to play again, host a new room)"


def verdict(result: Result, names: Sequence[str], seat: int | None) -> str:
    winners = " and ".join(names[s] for s in result.winners)
    if result.shared:
        headline = f"Shared victory: {winners}!"
    elif seat is not None and seat in result.winners:
        headline = "You win!" if len(result.winners) == 1 else f"Your team wins: {winners}!"
    else:
        headline = f"{winners} win{'s' if len(result.winners) == 1 else ''}."
    return f"{headline}\nWhy: {result.reason}."


class GameOverScreen(PasseModal[str]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a,enter", "again", "Play again", key_display="a"),
        Binding("h,escape", "home", "Home", key_display="h"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(
        self,
        result: Result,
        names: Sequence[str],
        seat: int | None,
        scores: RenderableType,
        *,
        again: bool = True,
    ) -> None:
        super().__init__()
        self.again = again  # False for a networked game: its host opens a new room
        self.result = result
        self.names = tuple(names)
        self.seat = seat
        self.scores = scores

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Static("Game over", classes="dialog-title")
            yield Static(verdict(self.result, self.names, self.seat), id="verdict")
            with VerticalScroll(id="final-scroll"):
                yield Static(self.scores, id="final-scores")
            yield Static(self.keys_hint, classes="hint", id="game-over-hint")
        yield Footer()

    @property
    def keys_hint(self) -> str:
        return KEYS_HINT if self.again else NETWORK_KEYS_HINT

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "again" and not self.again:
            return False
        return super().check_action(action, parameters)

    def on_mount(self) -> object:
        self.call_after_refresh(self._hint_scrolling)
        return super().on_mount()

    def _hint_scrolling(self) -> None:
        """Say that the scores scroll, when they do."""
        if self.query_one("#final-scroll", VerticalScroll).max_scroll_y > 0:
            self.query_one("#game-over-hint", Static).update(self.keys_hint + "    ↑↓: more scores")

    def action_again(self) -> None:
        self.dismiss(AGAIN)

    def action_home(self) -> None:
        self.dismiss(HOME)
