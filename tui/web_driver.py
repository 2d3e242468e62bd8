"""Textual's web driver (the one textual-serve runs an app with), made to end
when the server that feeds it goes away, as :class:`tui.driver.PasseDriver`
does for a terminal (issue 24; docs/web.md).

``passe serve --web`` starts each browser's ``passe`` with
``TEXTUAL_DRIVER=tui.web_driver:PasseWebDriver``: Textual's own way to
choose a driver. The app's input is a pipe from the server, its output a
pipe to it. Textual's ``WebDriver`` stops reading at end-of-file but leaves
the app running, and raises from the app's own thread when a write finds the
pipe closed; here both are the hangup of the app's :class:`Shutdown` (saved,
the room told, ended within its grace period).
"""

from __future__ import annotations

import os
from typing import Any

from textual.drivers.web_driver import WebDriver

from tui.terminal import Shutdown


class PasseWebDriver(WebDriver):
    """Textual's web driver; a server gone is a hangup, never a traceback."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        shutdown = getattr(app, "shutdown", None)
        self._passe_shutdown: Shutdown | None = shutdown if isinstance(shutdown, Shutdown) else None
        self._passe_output_failed = False
        # WebDriver writes every packet (data and meta) through ``_write``.
        self._write = self._write_or_hang_up  # type: ignore[assignment]

    def _write_or_hang_up(self, data: bytes) -> int:
        if self._passe_output_failed:
            return len(data)
        try:
            return os.write(self.fileno, data)
        except OSError as error:  # EPIPE: the server is gone
            self._passe_output_failed = True
            self._gone(f"writing to the web server failed: {error}")
            return len(data)

    def _gone(self, reason: str) -> None:
        if self._passe_shutdown is not None:
            self._passe_shutdown.hangup(reason)

    def run_input_thread(self) -> None:
        """Textual's input loop; its end before the app stopped input is
        end-of-file from the server: the server is gone."""
        super().run_input_thread()
        if not self.exit_event.is_set():
            self._gone("the web server closed the app's input")


__all__ = ["PasseWebDriver"]
