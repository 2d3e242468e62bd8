"""The end of a round: what each player (or team) scored, and the sheet."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from tui.screens.info import InfoScreen


class RoundEndScreen(InfoScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,escape", "close", "Continue", key_display="⏎")
    ]
    HINT = "Press Enter to go on to the next round."
