"""Leaving a networked room (its lobby or its game) asks first, and says what
it does to the others."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from tui.screens.confirm_quit import ConfirmQuitScreen
from tui.widgets.footer import PasseFooter

HOST_TEXT = (
    "You host this room: leaving closes it for everyone\nin it, and a game in progress ends there."
)
PLAYER_IN_GAME_TEXT = (
    "The others are told that you left, and a bot\n"
    "takes your seat so they can finish the game.\n"
    "You cannot take it back: a networked game is\n"
    "not saved here."
)
# A room that fails over needs a majority of its machines for a move to
# count, and this one is among the few left (found in a play-test: a person
# left, and the others' game stood still for minutes). Leaving to the home
# screen keeps its vote while Passe runs (RemoteTable.leave(keep_vote=True));
# quitting takes it away.
VOTE_NEEDED_TEXT = (
    "\nThe others need your machine's vote for their\n"
    "moves to count: with y, Passe votes on for them\n"
    "until the game ends (keep it running); with q,\n"
    "they wait until another machine is back."
)
# Leaving while the link is down: nothing reaches the table (a play-tester
# read that the others would be told and a bot would take the seat).
PLAYER_CUT_OFF_TEXT = (
    "The table cannot be told now (no connection):\n"
    "your seat stays yours, shown away, until the\n"
    "host gives it to a bot or you come back.\n"
    "A networked game is not saved here."
)
PLAYER_IN_LOBBY_TEXT = "The others see your seat free again."
OWNER_IN_LOBBY_TEXT = (
    "You asked the dealer for this room and decide who\nsits: leaving closes it for everyone in it."
)


def vote_needed(machines: tuple[int, int] | None) -> bool:
    """Whether this machine's vote is one a move needs now: of the room's
    machines (its voters, ``machines`` as counted where this one's voter
    is, this one among them), too few would be left without it for a
    majority (None: this machine has no vote)."""
    if machines is None:
        return False
    found, voters = machines
    from net.election.node import majority

    return found - 1 < majority(voters)


class ConfirmLeaveRoomScreen(ConfirmQuitScreen):
    """:class:`ConfirmQuitScreen`'s keys and answers, with what leaving a
    networked room means for the others."""

    # A lobby's dialog offered "keep playing" where nothing is played yet
    # (a play-test): "stay" fits a room and a game.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n,escape", "stay", "Stay", key_display="n"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="dialog-title")
            yield Static(f"{self.text}\n\ny  leave to the home screen\nq  quit Passe\nn  stay")
        yield PasseFooter()
