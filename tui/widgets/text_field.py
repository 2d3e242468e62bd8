"""A text field whose editing keys keep the order they were typed in."""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class TextField(Input):
    """Textual's :class:`~textual.widgets.Input`, its own bound keys
    (backspace, delete, the arrows, Enter) run as they come, in order with
    the characters typed around them.

    Input inserts a character in its key handler, but leaves a bound key to
    bubble up to the app, which runs the binding later: keys that arrive
    together (fast typing, a paste of keys through tmux, a slow SSH link)
    were applied out of order. A play-test's "backspace ×3, Zoe" left the
    name field empty (Textual issue #6605; its fix, pull request #6631,
    runs them inline as here)."""

    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable:
            for binding in self._bindings.key_to_bindings.get(event.key, ()):
                # A priority binding ran before the key reached us (the app
                # checks those first); ours run here, as the app would run
                # them for the focused widget, its first namespace.
                if not binding.priority and await self.app.run_action(binding.action, self):
                    event.stop()
                    event.prevent_default()
                    return
        await super()._on_key(event)


__all__ = ["TextField"]
