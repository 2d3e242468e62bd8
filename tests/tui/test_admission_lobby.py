"""The host's lobby decides who sits (issue 19 item 2) and shows the room's
key (item 5): a knock from a new key is shown with its name and key and
answered with y or n; the host key's fingerprint is under the code; a
room state from another key on this code is warned about. Pilot, with the
peers as real RemoteTables over the machine's Mosquitto."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest
from textual.pilot import Pilot

from net.identity import Identity, fingerprint
from net.peer.remote import JoinError, RemoteTable
from net.protocol.codes import format_code
from net.protocol.wire import room_topic, seal
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
from tui.screens.expect_key import ExpectKeyScreen

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
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        lobby, hosted = await host_from_home(pilot)
        authority = hosted.authority
        bells: list[int] = []
        app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
        # This Passe's first room: its player key is new, and said so briefly.
        await wait_until(pilot, lambda: app._notifications, "the key's toast")
        assert [n.message for n in app._notifications] == [
            "New player key made: it gets you your seat back after a dropped connection."
        ]
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
        # No toast: the new key's hid the knock line (a play-test, 6
        # December), and the lobby's line says the knock (a bell rings).
        await pilot.pause()
        assert list(app._notifications) == [] and bells == [1]
        await pilot.press("n")
        with pytest.raises(JoinError) as refused:
            await asyncio.wait_for(eve_joins, 10)
        assert refused.value.code == "denied" and "did not let you in" in str(refused.value)
        assert "knocks" not in hint(lobby)
        # One toast for it, not the room's notice of the host's own doing
        # too (a play-test read "Eve was turned away." and "the host turned
        # someone away").
        await wait_until(
            pilot, lambda: lobby.room is not None and lobby.room.notice, "the notice, shown"
        )
        await pilot.pause()
        said = [str(n.message) for n in app._notifications]
        eve_print = fingerprint(eve_key.public_key)
        assert said == [
            f"[b]Eve[/b] was turned away. By mistake? i and their key, {eve_print}, "
            "let them in again."
        ], said
        assert "Eve" not in seats_text(lobby)
        await eve.close()
        # By mistake: i and the start of her key undo it (n barred a key for
        # good: only a new room let a friend turned away in).
        await pilot.press("i")
        assert isinstance(app.screen, ExpectKeyScreen)
        await pilot.press(*eve_print[:9], "enter")
        await wait_until(pilot, lambda: app.screen is lobby, "the lobby again")
        eve = RemoteTable(eve_key, hosted.code, *mosquitto, "[b]Eve[/b]")
        assert await asyncio.wait_for(eve.join(), 10) is not None
        await wait_until(pilot, lambda: "[b]Eve[/b]" in seats_text(lobby), "Eve seated")
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


async def test_the_host_takes_a_present_person_out_of_their_seat(
    private_config: Path, mosquitto: tuple[str, int]
) -> None:
    """issue 19 seats item 3: x in the host's lobby, a confirmation naming the
    person and the seat, y: the seat is free and they are told in one line;
    n (or esc) keeps them."""
    from tui.screens.confirm_remove import ConfirmRemoveScreen

    write_settings(private_config, name="Zed", players={"passpass": 3})
    app = network_app(private_config, mosquitto)
    async with app.run_test(size=SIZE) as pilot:
        lobby, hosted = await host_from_home(pilot)
        await wait_until(pilot, lambda: "Zed (you)" in seats_text(lobby), "the host's seat")
        assert "Remove" not in {label for label, _ in footer_keys(app)}  # nobody yet
        bob = RemoteTable(Identity.generate(), hosted.code, *mosquitto, "[i]Bob[/i]")
        bob_joins = asyncio.create_task(bob.join())
        await wait_until(pilot, lambda: "knocks" in hint(lobby), "Bob's knock")
        await pilot.press("y")
        seat = await asyncio.wait_for(bob_joins, 10)
        await wait_until(
            pilot,
            lambda: (
                bool(hosted.authority.seats[seat].present) and "[i]Bob[/i]" in seats_text(lobby)
            ),
            "Bob seated and present",
        )
        await wait_until(
            pilot,
            lambda: "Remove" in {label for label, _ in footer_keys(app)},
            "x in the footer",
        )
        # n keeps him.
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmRemoveScreen), "the dialog")
        question = f"Remove [i]Bob[/i] from seat {seat + 1}? They will be told."
        assert question in screen_text(app)  # his name as text, not markup
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is lobby, "back in the lobby")
        assert hosted.authority.seats[seat].key == bob.identity.public_key
        # y takes him out: the seat is free, and he is told in one line.
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmRemoveScreen), "the dialog")
        await pilot.press("y")
        await wait_until(pilot, lambda: hosted.authority.seats[seat].kind == "open", "freed")
        async with asyncio.timeout(10):
            while bob.removed is None:
                await pilot.pause(0.01)
        assert (
            bob.removed
            == f"the host of room {format_code(hosted.code)} took you out of seat {seat + 1}"
        )
        assert "\n" not in bob.removed and bob.seat is None
        await wait_until(pilot, lambda: "[i]Bob[/i]" not in seats_text(lobby), "Bob gone")
        assert "took [i]Bob[/i] out" in hosted.authority.room_state().notice
        await bob.close()


async def test_a_joiner_taken_out_is_told_in_one_line_on_their_lobby(
    private_config: Path, mosquitto: tuple[str, int]
) -> None:
    """The other side of issue 19 seats item 3: the joiner's lobby says why, in
    its status line, with the way home."""
    from tests.net.peers import open_test_room
    from tests.tui.test_network import join_from_home

    write_settings(private_config, name="Bob", players={"passpass": 3})
    room = await open_test_room("passpass", 3, mosquitto)
    try:
        app = network_app(private_config, mosquitto)
        async with app.run_test(size=SIZE) as pilot:
            lobby = await join_from_home(pilot, room.code)
            await wait_until(
                pilot, lambda: lobby.table is not None and lobby.table.seat is not None, "seated"
            )
            assert lobby.table is not None and lobby.table.seat is not None
            seat = lobby.table.seat
            await wait_until(pilot, lambda: room.authority.seats[seat].present, "present")
            room.authority.remove(seat)

            def status() -> str:
                return text_of(lobby, "#lobby-status")

            await wait_until(pilot, lambda: "took you out" in status(), "told")
            assert status() == (
                f"the host of room {format_code(room.code)} took you out of seat {seat + 1}. "
                "q: back home"
            )
    finally:
        await room.close()


async def test_a_stranger_turned_away_in_the_lobby_is_not_news_at_the_table(
    private_config: Path, mosquitto: tuple[str, int]
) -> None:
    """Found by hand (issue 19): the host turned a stranger away in the lobby,
    then started; the room's notice "the host turned someone away" rode on
    the game's first room state into the host's game log, as if it had just
    happened (the authority kept its lobby notice into the game)."""
    from tui.games.passpass.table import PassPassTableScreen

    write_settings(private_config, name="Zed", players={"passpass": 3})
    app = network_app(private_config, mosquitto)
    async with app.run_test(size=SIZE) as pilot:
        lobby, hosted = await host_from_home(pilot)
        await wait_until(pilot, lambda: "Zed (you)" in seats_text(lobby), "the host's seat")
        eve = RemoteTable(Identity.generate(), hosted.code, *mosquitto, "Eve")
        eve_joins = asyncio.create_task(eve.join())
        await wait_until(pilot, lambda: "knocks" in hint(lobby), "the knock")
        await pilot.press("n")
        with pytest.raises(JoinError):
            await asyncio.wait_for(eve_joins, 10)
        await eve.close()
        await wait_until(pilot, lambda: hosted.authority.room_state().notice, "the notice")
        await pilot.press("right", "down", "right")  # bots in seats 2 and 3
        await wait_until(pilot, lambda: lobby.start_refusal() is None, "every seat taken")
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, PassPassTableScreen), "the table")
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        await wait_until(
            pilot,
            lambda: table._room is not None and table._room.phase == "playing",
            "the game's room state at the table",
        )
        await wait_until(pilot, lambda: table.view is not None, "the first view")
        assert not any("turned" in line for line in table.game_log.lines_written)


async def test_a_ghost_the_host_let_in_is_away_once_unheard(
    private_config: Path, mosquitto: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by hand (issue 19 seats item 5, on screen): a key with a retained
    "online" record and nothing behind it (no will, no beat) knocked, the
    host let it in, and it stayed present for ever: at its turn the game
    waited with nothing to do (b is offered only for someone away). The host
    on screen bounds presences like a headless one; its own seat, beating,
    stays present."""
    from net.authority.authority import SeatSlot
    from net.peer import remote as remote_module
    from tests.net.peers import clear_room
    from tests.net.test_seats import fake_presence, ghost_hello
    from tui import netplay

    monkeypatch.setattr(remote_module, "PRESENCE_BEAT", 0.2)
    # Long enough that the seat is present at the room's first change after
    # the host's y on a loaded machine (1 s failed once in CI, 6 December).
    monkeypatch.setattr(netplay, "PRESENCE_TIMEOUT", 3.0)
    write_settings(private_config, name="Zed", players={"passpass": 3})
    app = network_app(private_config, mosquitto)
    code = ""
    try:
        async with app.run_test(size=SIZE) as pilot:
            lobby, hosted = await host_from_home(pilot)
            code, authority = hosted.code, hosted.authority
            await wait_until(pilot, lambda: "Zed (you)" in seats_text(lobby), "the host's seat")
            ghost = Identity.generate()
            async with RawClient(*mosquitto, []) as attacker:
                await fake_presence(attacker, code, ghost)
                await ghost_hello(attacker, code, ghost, authority.identity.public_key)
            await wait_until(pilot, lambda: "knocks" in hint(lobby), "the ghost's knock")

            def held() -> SeatSlot | None:
                return next((s for s in authority.seats if s.key == ghost.public_key), None)

            # Each state of the ghost's seat as the room changes: present for
            # at most PRESENCE_TIMEOUT, which a loaded machine's polling
            # missed (CI-like run, 3 December).
            states: list[bool | None] = []
            authority.on_change.append(lambda: states.append(getattr(held(), "present", None)))
            await pilot.press("y")
            await wait_until(pilot, lambda: True in states, "seated, present")
            await wait_until(pilot, lambda: False in states[states.index(True) :], "away")
            # AWAY, or "not here yet" where the lobby never drew it present.
            await wait_until(
                pilot,
                lambda: any(w in seats_text(lobby) for w in ("person · AWAY", "not here yet")),
                "shown away",
            )
            assert authority.seats[0].present  # the host's own seat beats
    finally:
        if code:
            await clear_room(code, *mosquitto)  # the ghost's retained record


async def test_a_knock_at_a_full_table_waits_for_a_free_seat(
    private_config: Path, mosquitto: tuple[str, int]
) -> None:
    """Found by hand: with every seat taken, the knock line still said "y
    lets them in", and y dropped the knock without a word (the knocker was
    told the room is full). Now the line says every seat is taken, y says
    so and keeps the knock, and once a bot makes way y seats them."""
    write_settings(private_config, name="Zed", players={"passpass": 3})
    app = network_app(private_config, mosquitto)
    async with app.run_test(size=SIZE) as pilot:
        lobby, hosted = await host_from_home(pilot)
        authority = hosted.authority
        await wait_until(pilot, lambda: "Zed (you)" in seats_text(lobby), "the host's seat")
        await pilot.press("right", "down", "right")  # bots in seats 2 and 3
        await wait_until(pilot, lambda: lobby.start_refusal() is None, "every seat taken")
        eve = RemoteTable(Identity.generate(), hosted.code, *mosquitto, "Eve")
        # A knock that came while a seat was free, answered once none is:
        # in the room, a seat frees and fills while people knock.
        await pilot.press("left")  # seat 3's bot out
        await wait_until(pilot, lambda: authority.seat_to_give(), "a free seat")
        eve_joins = asyncio.create_task(eve.join())
        try:
            await wait_until(pilot, lambda: "Eve" in hint(lobby), "Eve's knock")
            await pilot.press("right")  # a bot in seat 3 again: the table is full
            await wait_until(pilot, lambda: "every seat is taken" in hint(lobby), "said full")
            await pilot.press("y")
            await pilot.pause()
            assert eve.identity.public_key in authority.knocks  # kept, not refused
            await pilot.press("left")  # the bot makes way
            await wait_until(pilot, lambda: "y lets them in" in hint(lobby), "a seat to give")
            await pilot.press("y")
            assert await asyncio.wait_for(eve_joins, 10) == 2
        finally:
            eve_joins.cancel()
            await eve.close()


async def test_failover_is_on_and_the_lobby_says_what_it_needs_and_f_turns_it_off(
    private_config: Path, mosquitto: tuple[str, int]
) -> None:
    """Issue 20: failover is a room setting the host sees in the lobby, on
    by default, with one line saying what it means; with fewer than three
    people's machines the room cannot fail over, and the line says how many
    more it needs; f turns it off (and on again)."""
    write_settings(private_config, name="Zed", players={"passpass": 3})
    app = network_app(private_config, mosquitto)
    async with app.run_test(size=SIZE) as pilot:
        lobby, hosted = await host_from_home(pilot)
        await wait_until(pilot, lambda: "Failover on (f)" in text_of(lobby, "#lobby-info"), "on")
        assert "f" in app.screen.active_bindings
        assert hosted.authority.failover
        line = text_of(lobby, "#lobby-info")
        assert "needs 2 more people's machines" in " ".join(line.split()), line
        async with let_in(pilot, lobby, hosted.code, mosquitto, "Eve") as eve:
            await wait_until(
                pilot,
                lambda: (
                    "needs 1 more person's machine"
                    in " ".join(text_of(lobby, "#lobby-info").split())
                ),
                "one more",
            )
            # The joiners read what the host's lobby says (the room state's
            # failover): a play-test's joiner was promised the deck.
            await wait_until(pilot, lambda: outlook(eve) == "short", "Eve told: short")
            await pilot.press("f")
            assert not hosted.authority.failover
            assert "Failover off (f)" in text_of(lobby, "#lobby-info")
            await wait_until(pilot, lambda: outlook(eve) == "off", "Eve told: off")
            await pilot.press("f")
            assert hosted.authority.failover
            await wait_until(pilot, lambda: outlook(eve) == "short", "Eve told: short again")
            async with let_in(pilot, lobby, hosted.code, mosquitto, "Bob") as bob:
                await wait_until(
                    pilot, lambda: outlook(eve) == outlook(bob) == "on", "three machines: on"
                )
                bob.set_stand(False)  # Bob declines: one standing person short
                await wait_until(pilot, lambda: outlook(eve) == "short", "Bob declined: short")
                lobby._render_room()
                line = " ".join(text_of(lobby, "#lobby-info").split())
                assert "needs 1 more person's machine that stands" in line, line


@contextlib.asynccontextmanager
async def let_in(
    pilot: Pilot[None], lobby: object, code: str, broker: tuple[str, int], name: str
) -> AsyncIterator[RemoteTable]:
    """``name`` knocks at the host's lobby, and the host's y seats them."""
    table = RemoteTable(Identity.generate(), code, *broker, name)
    joining = asyncio.create_task(table.join())
    try:
        await wait_until(pilot, lambda: name in hint(lobby), f"{name}'s knock")
        await pilot.press("y")
        await asyncio.wait_for(joining, 10)
        yield table
    finally:
        joining.cancel()
        await table.close()


def outlook(table: RemoteTable) -> str:
    """What the room state tells a joiner of the lobby's failover."""
    return "" if table.room is None else table.room.failover


@pytest.mark.parametrize(
    ("told", "stand", "says"),
    [
        ("on", True, "If the host's machine stops, yours may take over the table and hold"),
        ("on", False, "Yours will not take over the table (f to allow it): if the host's"),
        ("short", True, "Failover needs more people's machines: until then, if the host's"),
        ("short", False, "game waits (yours will not take over: f to allow it)."),
        ("off", True, "Failover off (the host's f): if the host's machine stops, the game"),
        ("never", True, "Too few seats for people's machines to fail over: if the host's"),
    ],
)
async def test_a_joiner_s_lobby_says_what_the_host_s_says_of_failover(
    private_config: Path, told: str, stand: bool, says: str
) -> None:
    """A play-test (6 December): with two people, the joiner's lobby said
    "You stand: if the host's machine stops, yours may hold the deck" while
    the host's said the room needed more people's machines to fail over."""
    from net.protocol.wire import RoomState, SeatState
    from tui.messages import RoomChanged
    from tui.screens.lobby import LobbyScreen

    app = network_app(private_config, ("127.0.0.1", 9))
    async with app.run_test(size=SIZE) as pilot:
        table = RemoteTable(Identity.generate(), "ABC123", "127.0.0.1", 9, "Eve")
        table.seat, table.stand = 1, stand
        lobby = LobbyScreen(table=table)
        app.push_screen(lobby)
        await pilot.pause()
        seats = [SeatState("Zed", "human", "", "a" * 16), SeatState("Eve", "human", "", "b" * 16)]
        room = RoomState("ABC123", "passpass", {"players": 3}, "Zed", "lobby", seats, 0, 1)
        lobby.post_message(RoomChanged(msgspec.structs.replace(room, failover=told)))
        await wait_until(pilot, lambda: lobby.room is not None, "the room")
        line = " ".join(text_of(lobby, "#lobby-info").split())
        assert says in line, line
        if told != "on":
            assert "hold the deck" not in line


async def test_a_newcomer_is_not_told_what_happened_before_they_came(
    private_config: Path,
) -> None:
    """A play-test (6 December): a joiner was greeted with the toast "the
    host turned someone away", of a refusal before they knocked. The first
    room state tells what was; the notices after it are news (a sentence)."""
    from net.protocol.wire import RoomState, SeatState
    from tui.messages import RoomChanged
    from tui.screens.lobby import LobbyScreen

    app = network_app(private_config, ("127.0.0.1", 9))
    async with app.run_test(size=SIZE) as pilot:
        table = RemoteTable(Identity.generate(), "ABC123", "127.0.0.1", 9, "Eve")
        table.seat = 1
        lobby = LobbyScreen(table=table)
        app.push_screen(lobby)
        await pilot.pause()
        seats = [SeatState("Zed", "human", "", "a" * 16), SeatState("Eve", "human", "", "b" * 16)]
        room = RoomState("ABC123", "passpass", {"players": 3}, "Zed", "lobby", seats, 0, 1)
        before = msgspec.structs.replace(room, notice="the host turned someone away")
        lobby.post_message(RoomChanged(before))
        await wait_until(pilot, lambda: lobby.room is not None, "the room")
        await pilot.pause()
        assert list(app._notifications) == []
        lobby.post_message(RoomChanged(msgspec.structs.replace(room, notice="kim left", stamp=2)))
        await wait_until(pilot, lambda: list(app._notifications), "the news")
        assert [str(n.message) for n in app._notifications] == ["Kim left"]
