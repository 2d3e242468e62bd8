"""The UI only ever receives views: never a card from another seat's hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.engine import View, plain
from core.passpass.model import CARDS, CardPicked, GameEnded, RoundScored, RoundStarted
from core.passpass.state import PassPassView
from tests.tui.conftest import SIZE, RecordingClient, SpyApp, play_to_end, spy_until
from tui.games.passpass.table import PassPassTableScreen

CARD_NAMES = {str(card) for card in CARDS}


def card_names(data: Any) -> set[str]:
    """Every card notation found anywhere in plain data (strings like ``V10``
    or inside ``pick V10`` / ``take G4 B4``)."""
    found: set[str] = set()
    if isinstance(data, str):
        found.update(word for word in data.split() if word in CARD_NAMES)
    elif isinstance(data, dict):
        for value in data.values():
            found |= card_names(value)
    elif isinstance(data, (list, tuple)):
        for value in data:
            found |= card_names(value)
    return found


class SpyingClient(RecordingClient):
    def hidden_now(self) -> set[str]:
        state: Any = self.table.state
        return {
            str(CARDS[card])
            for seat, hand in enumerate(state.hands)
            if seat != self.seat
            for card in hand
        }


def last_trick_of_round_2(view: View) -> bool:
    assert isinstance(view, PassPassView)
    return view.round == 2 and view.trick_number == 8 and view.phase == "play"  # PP-6


@pytest.mark.long
async def test_the_screen_never_receives_another_seats_cards(private_config: Path) -> None:
    # Rounds 1 and 2 up to the last trick are played in core (fast), every
    # update to your seat recorded and checked below as the screen's are;
    # the screen then gets the whole log so far, the end of round 2, the
    # deal of round 3 and that round played by keys to the end of the game.
    spy = spy_until(SpyingClient, "passpass", last_trick_of_round_2)
    app = SpyApp(SpyingClient, continued=spy, config_path=private_config, bot_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PassPassTableScreen)
        await play_to_end(pilot)
    assert app.spies == [spy]
    # The log so far, then a deal, picks, a round's end, the game's end on the screen.
    spy.check_screen_saw((RoundScored, RoundStarted, CardPicked, GameEnded), at_least=50)
    own_cards_seen = 0
    for update, hidden in spy.seen:
        assert update.view.seat == 0
        shown = card_names(update.view.to_data())
        # Events before a new deal name cards of the previous round, which
        # may now be dealt to someone else: only later events are checked.
        dealt = [i for i, event in enumerate(update.events) if isinstance(event, RoundStarted)]
        for event in update.events[dealt[-1] if dealt else 0 :]:
            shown |= card_names(plain(event))
        leaked = shown & hidden
        assert not leaked, f"another seat's cards reached the UI: {sorted(leaked)}"
        own_cards_seen += len(update.view.hand)  # type: ignore[attr-defined]
    assert own_cards_seen > 0  # the check above did look at real views
