"""What every Passe screen shares: below 80x24 its content is replaced by a
clear "terminal too small" message instead of a broken layout."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from textual import events
from textual.await_complete import AwaitComplete
from textual.screen import ModalScreen, Screen

from tui.widgets.too_small import MIN_HEIGHT, MIN_WIDTH, TooSmall

T = TypeVar("T")

# While the terminal is too small only these still act (besides the app's
# own keys: help, quit, palette): nothing happens unseen behind the message.
# Not "leave": its dialog would open (and answer) unseen; ctrl+q quits at
# once instead (the game is saved after every move), as the message says.
SMALL_ACTIONS = frozenset({"app.quit", "quit", "help", "app.help"})


CheckAction = Callable[[Any, str, tuple[object, ...]], bool | None]


def _size_gated(check: CheckAction) -> CheckAction:
    """``check`` behind the size gate: while the terminal is too small only
    :data:`SMALL_ACTIONS` act, whatever the screen's own ``check_action``
    says (issue 18 item 1: several returned early, without ``super()``, so
    fashion's ``e`` ended a turn and a dialog's ``1`` chose, unseen)."""

    @functools.wraps(check)
    def gated(self: SizeGuard, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.blocked(action):
            return False
        return check(self, action, parameters)

    gated.size_gated = True  # type: ignore[attr-defined]
    return gated


class SizeGuard:
    """Mixin for screens: toggles the ``-too-small`` class and its message."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Every screen's own check_action passes the size gate first, so no
        # subclass can forget it (see _size_gated).
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("check_action")
        if own is not None and not getattr(own, "size_gated", False):
            cls.check_action = _size_gated(own)  # type: ignore[method-assign,assignment]

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

    def blocked(self, action: str) -> bool:
        """Whether ``action`` may not act now, whatever the screen's own
        ``check_action`` says: while the terminal is too small, all but
        :data:`SMALL_ACTIONS` (nothing happens unseen behind the message).
        Widgets' own keys need no check: hidden widgets lose the focus."""
        return self.too_small and action not in SMALL_ACTIONS

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """See :meth:`blocked` (every subclass's ``check_action`` is gated
        by it first, see ``__init_subclass__``)."""
        return not self.blocked(action)

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
    def dismiss(self, result: T | None = None) -> AwaitComplete:
        """Close this dialog, once. Textual pops whatever screen is on top:
        a key that reached the dialog after it was dismissed (Enter pressed
        twice at a round's summary) closed the screen under it too, the
        table, and the game was gone from the screen (found by hand, 4
        December). A dialog that is no longer on top does nothing."""
        if self.app.screen is not self:
            return AwaitComplete()
        return super().dismiss(result)
