"""The floor for start-up: a bare Textual app that paints one label.

Launched by :mod:`bench.startup` exactly as ``passe`` is (a Python process in
a pseudo-terminal); ``ctrl+q`` quits (Textual's default binding).
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Label

READY = "Bare Textual app ready"


class BareApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Label(READY)


if __name__ == "__main__":
    BareApp().run()
