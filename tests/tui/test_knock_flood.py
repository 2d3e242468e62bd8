"""A host's lobby when strangers fill the knock queue (found by hand, issue
19): one toast, not one per stranger; the seats' line says the queue is
full and how to let someone in anyway; i lets in a key read aloud; the
footer keeps F1 Help at 80 columns."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from net.authority.authority import MAX_KNOCKS
from net.identity import Identity
from net.protocol.wire import Envelope, Hello, Presence, presence_topic, seal
from tests.tui.conftest import SIZE, footer_keys, help_fits
from tests.tui.test_network import (  # the lobby helpers those tests share
    host_from_home,
    mosquitto,
    named,
    network_app,
    private_data,
    text_of,
    wait_until,
)
from tui.screens.expect_key import ExpectKeyScreen

__all__ = ["mosquitto", "named", "private_data"]  # fixtures, used by name


def knock(hosted: object, key: Identity, name: str) -> None:
    """``key``'s live presence, then its Hello, as the authority's link hands
    them over (nobody knocks without a presence; the signature checks are
    the wire's, tested in tests/net)."""
    authority = hosted.authority  # type: ignore[attr-defined]
    topic = presence_topic(authority.code, key.peer_id)
    online = Presence(room=authority.code, epoch=5, online=True, name=name)
    authority._on_presence(topic, key.peer_id, seal(key, topic, online))
    envelope = Envelope(2, key.public_key, True, b"", b"")
    authority.handle(envelope, Hello(room=authority.code, epoch=1, n=1, name=name))


async def test_a_flood_of_knocks_makes_one_toast_and_i_lets_a_key_in(
    private_config: Path, mosquitto: tuple[str, int]
) -> None:
    app = network_app(private_config, mosquitto)
    async with app.run_test(size=SIZE) as pilot:
        bells: list[int] = []
        app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
        lobby, hosted = await host_from_home(pilot)
        # Someone seated (so x Remove shows too: the fullest footer).
        guest = Identity.generate()
        knock(hosted, guest, "Guest")
        await wait_until(pilot, lambda: lobby.knock is not None, "the guest's knock")
        await pilot.press("y")
        await wait_until(pilot, lambda: lobby.knock is None, "the guest let in")
        strangers = [Identity.generate() for _ in range(MAX_KNOCKS)]
        for n, key in enumerate(strangers):
            knock(hosted, key, f"[/]{n}")
        await wait_until(
            pilot, lambda: "queue is full" in text_of(lobby, "#lobby-seat-hint"), "the full queue"
        )
        await pilot.pause()  # a notification is a message to the app
        # One bell for the flood, no toast: the lobby's line says it.
        assert bells == [1, 1]  # the guest's knock, then the flood's first
        assert not [n for n in app._notifications if n.title == "Someone knocks"]
        assert "i lets in a key" in text_of(lobby, "#lobby-seat-hint")
        shown = [description for description, _ in footer_keys(app)]
        assert {"Let in", "Turn away", "By key", "Remove"} <= set(shown), shown
        assert help_fits(app), footer_keys(app)
        await pilot.press("i")
        assert isinstance(app.screen, ExpectKeyScreen)
        await pilot.press(*"8ef4", "enter")  # too short: said, not taken
        assert isinstance(app.screen, ExpectKeyScreen)
        assert "first 8 characters" in text_of(app.screen, "#dialog-problem")
        wanted = strangers[3]
        typed = wanted.peer_id[:8].upper()
        field = app.screen.query_one(Input)
        field.value = ""
        await pilot.press(*typed, "enter")
        await wait_until(pilot, lambda: app.screen is lobby, "the lobby again")
        await wait_until(
            pilot,
            lambda: any(seat.key == wanted.public_key for seat in hosted.authority.seats),
            "the key let in",
        )
        assert wanted.public_key not in hosted.authority.knocks


async def test_a_knock_at_a_full_screen_of_seats_is_seen_and_told_from_elsewhere(
    private_config: Path, mosquitto: tuple[str, int]
) -> None:
    """Eight seats fill the lobby at 80x24: a toast at the bottom covered
    the knock line it announced (a play-test). On the lobby the line says
    it, whole, and a bell rings; on another screen (the help), a toast."""
    from textual.widgets import Static

    from tests.tui.conftest import SIZE, write_settings
    from tui.screens.help import HelpScreen

    write_settings(private_config, name="Zed", game="fashion", players={"fashion": 8})
    app = network_app(private_config, mosquitto)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        bells: list[int] = []
        app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
        lobby, hosted = await host_from_home(pilot)
        assert len(hosted.authority.seats) == 8
        knock(hosted, Identity.generate(), "Eve")
        await wait_until(pilot, lambda: lobby.knock is not None, "Eve's knock")
        await pilot.pause()
        line = lobby.query_one("#lobby-seat-hint", Static)
        assert "Eve" in str(line.render()) and "n turns them away" in str(line.render())
        covering = [t.region for t in app.screen.query("Toast") if t.region.overlaps(line.region)]
        assert covering == [] and bells == [1]
        await pilot.press("y")
        await wait_until(pilot, lambda: lobby.knock is None, "Eve let in")
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        knock(hosted, Identity.generate(), "Kim")
        await wait_until(
            pilot,
            lambda: any(n.title == "Someone knocks" for n in app._notifications),
            "a toast over the help",
        )
        assert bells == [1]
