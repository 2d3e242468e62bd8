"""The host's lobby decides who sits (issue 19 item 2) and shows the room's
key (item 5): a knock from a new key is shown with its name and key and
answered with y or n; the host key's fingerprint is under the code; a
room state from another key on this code is warned about. Pilot, with the
peers as real RemoteTables over the machine's Mosquitto."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from net.identity import Identity, fingerprint
from net.remote import JoinError, RemoteTable
from net.wire import room_topic, seal
from tests.net.peers import RawClient
from tests.tui.conftest import SIZE, footer_keys, write_settings
from tests.tui.test_network import (  # the lobby helpers those tests share
    host_from_home,
    mosquitto,
    network_app,
    private_data,
    seats_text,
    text_of,
    wait_until,
)

__all__ = ["mosquitto", "private_data"]  # fixtures, used by name


def screen_text(app: object) -> str:
    """What the terminal shows, as text (from Textual's screenshot)."""
    import html
    import re

    svg = app.export_screenshot()  # type: ignore[attr-defined]
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def hint(lobby: object) -> str:
    return text_of(lobby, "#lobby-seat-hint")


async def test_a_knock_is_shown_and_answered_by_the_host(
    private_config: Path, mosquitto: tuple[str, int]
) -> None:
    write_settings(private_config, name="Zed", players={"passpass": 3})
    app = network_app(private_config, mosquitto)
    async with app.run_test(size=SIZE) as pilot:
        lobby, hosted = await host_from_home(pilot)
        authority = hosted.authority
        # The host key's fingerprint, to compare aloud, under the code.
        box = lobby.query_one("#lobby-code-box")
        await wait_until(pilot, lambda: box.border_subtitle, "the key under the code")
        shown = f"key {fingerprint(authority.identity.public_key)}"
        assert str(box.border_subtitle) == shown
        await pilot.pause()
        assert shown in screen_text(app)  # whole at 80x24, not cut off
        await wait_until(pilot, lambda: "Zed (you)" in seats_text(lobby), "the host's seat")

        # A stranger knocks: name and key shown, y and n offered; n refuses.
        eve_key = Identity.generate()
        eve = RemoteTable(eve_key, hosted.code, *mosquitto, "[b]Eve[/b]")
        knocking: list[str] = []
        eve.on_knock(knocking.append)
        eve_joins = asyncio.create_task(eve.join())
        await wait_until(pilot, lambda: "knocks" in hint(lobby), "the knock")
        assert "[b]Eve[/b]" in hint(lobby)  # shown as text, never as markup
        assert fingerprint(eve_key.public_key) in hint(lobby)
        await wait_until(
            pilot,
            lambda: {"Let in", "Turn away"} <= {label for label, _ in footer_keys(app)},
            "y and n in the footer",
        )
        await wait_until(pilot, lambda: knocking, "the joiner told it waits")
        assert "asked to let you in" in knocking[0]
        await pilot.press("n")
        with pytest.raises(JoinError) as refused:
            await asyncio.wait_for(eve_joins, 10)
        assert refused.value.code == "denied" and "did not let you in" in str(refused.value)
        assert "knocks" not in hint(lobby)
        assert "Eve" not in seats_text(lobby)
        await eve.close()

        # Ana knocks; y lets her in; she never knocks again (she comes back).
        ana_key = Identity.generate()
        ana = RemoteTable(ana_key, hosted.code, *mosquitto, "Ana")
        ana_joins = asyncio.create_task(ana.join())
        await wait_until(pilot, lambda: "Ana" in hint(lobby), "Ana's knock")
        await pilot.press("y")
        seat = await asyncio.wait_for(ana_joins, 10)
        await wait_until(pilot, lambda: "Ana" in seats_text(lobby), "Ana seated")
        await ana.close()
        again = RemoteTable(ana_key, hosted.code, *mosquitto, "Ana")
        assert await asyncio.wait_for(again.join(), 10) == seat
        assert not authority.knocks
        await again.close()


async def test_the_host_is_warned_of_another_key_on_its_code(
    private_config: Path, mosquitto: tuple[str, int]
) -> None:
    write_settings(private_config, name="Zed", players={"passpass": 3})
    app = network_app(private_config, mosquitto)
    async with app.run_test(size=SIZE) as pilot:
        lobby, hosted = await host_from_home(pilot)
        state = hosted.authority.room_state()
        squatter = Identity.generate()
        async with RawClient(*mosquitto, []) as client:
            topic = room_topic(hosted.code)
            await client.publish(topic, seal(squatter, topic, state), retain=True)
        await wait_until(pilot, lambda: "another key" in hint(lobby), "the warning")
        assert fingerprint(squatter.public_key) in hint(lobby)
        assert "published again" in hint(lobby)
