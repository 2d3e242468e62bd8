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
    async def recompose(self) -> None:
        await super().recompose()
        self.forget_closed_watchers()

    def forget_closed_watchers(self) -> None:
        """Drop the watchers of widgets that have closed (removed keys)."""
        watchers: dict[str, list[tuple[Any, Any]]] = getattr(self, "__watchers", {})
        for entries in watchers.values():
            entries[:] = [
                (watcher, callback)
                for watcher, callback in entries
                if not (getattr(watcher, "_closing", False) or getattr(watcher, "_closed", False))
            ]
