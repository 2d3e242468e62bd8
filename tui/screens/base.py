"""What every Passe screen shares: below 80x24 its content is replaced by a
clear "terminal too small" message instead of a broken layout."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from textual import events
from textual.screen import ModalScreen, Screen

from tui.widgets.too_small import MIN_HEIGHT, MIN_WIDTH, TooSmall

T = TypeVar("T")

# While the terminal is too small only these still act (besides the app's
# own keys: help, quit, palette): nothing happens unseen behind the message.
# Not "leave": its dialog would open (and answer) unseen; ctrl+q quits at
# once instead (the game is saved after every move), as the message says.
SMALL_ACTIONS = frozenset({"app.quit", "quit", "help", "app.help"})


class SizeGuard:
    """Mixin for screens: toggles the ``-too-small`` class and its message."""

    GUIDE: ClassVar[str] = ""
    """Extra lines for the help screen (keys that are not bindings)."""

    def _guard_size(self) -> None:
        screen: Screen[Any] = self  # type: ignore[assignment]
        if not screen.is_mounted:
            return
        width, height = screen.app.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        guards = screen.query_children(TooSmall)
        if small and not guards:
            guard = TooSmall()
            screen.mount(guard)
            guard.show_size(width, height)
        elif guards:
            guards.first().show_size(width, height)
        was_small = screen.has_class("-too-small")
        screen.set_class(small, "-too-small")
        if small != was_small:
            screen.refresh_bindings()
        if was_small and not small:
            # Hidden widgets lost focus while the terminal was too small.
            screen.call_after_refresh(self.refocus)

    @property
    def too_small(self) -> bool:
        screen: Screen[Any] = self  # type: ignore[assignment]
        return screen.has_class("-too-small")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While the terminal is too small only quitting and help act
        (:data:`SMALL_ACTIONS`): nothing happens unseen behind the message.
        Screens that refine ``check_action`` end with ``super().check_action``.
        Widgets' own keys need no check: hidden widgets lose the focus."""
        return not (self.too_small and action not in SMALL_ACTIONS)

    def help_notes(self) -> str:
        """The help screen's notes about this screen (keys that are not
        bindings, how to read it)."""
        return self.GUIDE

    def refocus(self) -> None:
        """Give focus back to where the keys matter (default: the first
        focusable widget, if nothing has focus)."""
        screen: Screen[Any] = self  # type: ignore[assignment]
        if screen.focused is None:
            screen.focus_next()

    def on_mount(self) -> object:
        self._guard_size()
        return None

    def on_resize(self, event: events.Resize) -> None:
        self._guard_size()

    def on_screen_resume(self) -> None:
        self._guard_size()


class PasseScreen(SizeGuard, Screen[None]):
    pass


class PasseModal(SizeGuard, ModalScreen[T]):
    pass


def rules_screen(game_id: str) -> Screen[None]:
    """The rules of a game, imported on demand: the Markdown widget is slow
    to import and start-up should not pay for it."""
    from tui.screens.rules import RulesScreen

    return RulesScreen(game_id)
