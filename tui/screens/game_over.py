"""The end of a game: winners (or a shared victory), why, the scores; play
again with the same settings, or go home."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Footer, Static

from core.engine import Result
from tui.screens.base import PasseModal

AGAIN = "again"
HOME = "home"


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
            yield Static(self.scores, id="final-scores")
            yield Static(
                "a / Enter: play again    h / Escape: home    q: quit"
                if self.again
                else "h / Escape: home    q: quit\n"
                "To play again, one of you hosts a new room (o on the home screen).",
                classes="hint",
            )
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "again" and not self.again:
            return False
        return super().check_action(action, parameters)

    def action_again(self) -> None:
        self.dismiss(AGAIN)

    def action_home(self) -> None:
        self.dismiss(HOME)
