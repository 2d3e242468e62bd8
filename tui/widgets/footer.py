"""The key bar at the foot of every screen: Textual's Footer, without its leak.

Textual 8's Footer builds its keys afresh whenever a screen's bindings change
(every view at a table), and each key watches the Footer's ``compact`` with
``data_bind``. Those watchers are dropped only when ``compact`` itself changes,
which it never does here, so every key ever shown stayed in memory: 392 after
two rounds of Pass Pass, hundreds of MB of a host's memory after an evening
(found by hand; Textualize/textual#6666, open). This Footer forgets the
watchers of keys that are gone each time it has rebuilt them, as Textual does
itself when the watched value changes (``Reactive._check_watchers``).
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer


class PasseFooter(Footer):
    # What the footer shows (each key: its key, display, words, action,
    # whether it works, tooltip, group), as last composed.
    _shown: tuple[object, ...] | None = None

    async def recompose(self) -> None:
        # Textual rebuilds every key whenever the screen's bindings may have
        # changed, which at a table is every update, whether or not a key
        # did: removing and mounting the keys (styles applied afresh each
        # time) was the largest cost of a table screen's updates (364
        # rebuilds, a fifth of a whole fashion game's time in the TUI).
        shown = self.shown_keys()
        if shown == self._shown:
            return
        self._shown = shown
        await super().recompose()
        self.forget_closed_watchers()

    def shown_keys(self) -> tuple[object, ...]:
        """What :meth:`compose` would show now, to compare."""
        if not self._bindings_ready or not self.is_attached:
            return ()
        app = self.app
        active = self.screen.active_bindings
        keys: list[object] = [
            (
                binding.key,
                app.get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip,
                binding.group,
            )
            for _, binding, enabled, tooltip in active.values()
            if binding.show
        ]
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            palette = active.get(app.COMMAND_PALETTE_BINDING)
            keys.append(None if palette is None else palette[1:])
        return tuple(keys)

    def forget_closed_watchers(self) -> None:
        """Drop the watchers of widgets that have closed (removed keys)."""
        watchers: dict[str, list[tuple[Any, Any]]] = getattr(self, "__watchers", {})
        for entries in watchers.values():
            entries[:] = [
                (watcher, callback)
                for watcher, callback in entries
                if not (getattr(watcher, "_closing", False) or getattr(watcher, "_closed", False))
            ]
