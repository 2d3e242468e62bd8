"""Joining goes wrong in every way a person can make it go wrong: each ends
with one clear line on stderr and exit code 2, within seconds (issue 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.registry import get_game
from net.authority.authority import Authority, SeatSlot
from net.authority.table import HUMAN
from net.identity import Identity
from net.peer.remote import RemoteTable
from net.protocol.codes import format_code, new_code
from net.protocol.wire import Presence, RoomState, presence_topic, room_topic, seal
from tests.net.brokers import closed_port
from tests.net.peers import RawClient, clear_room
from tests.net.procs import PasseProcess, host_args, need_mosquitto, run_passe

BROKER = "127.0.0.1:1883"


async def start_host(tmp_path: Path, *extra: str) -> tuple[PasseProcess, str]:
    host = PasseProcess("host", tmp_path)
    await host.start(*host_args("passpass", 3, wait_for=2, bot_delay=0, broker=BROKER), *extra)
    return host, (await host.expect("room"))["code"]


async def test_a_code_typed_with_ambiguous_letters_finds_the_room(tmp_path: Path) -> None:
    need_mosquitto()
    # A fresh code each run (the shared Mosquitto keeps what a killed host
    # leaves retained; cleared at the end), starting with 1 and 0.
    wanted = "10" + new_code()[2:]
    host, code = await start_host(tmp_path, "--code", wanted)
    try:
        assert code == wanted
        joiner = PasseProcess("joiner", tmp_path)
        # Lower case, L for the first 1, O for 0, I for other 1s, and the
        # hyphen the host shows.
        rest = wanted[2:].lower().replace("0", "o").replace("1", "i")
        await joiner.start("join", f"lo{rest[0]}-{rest[1:]}@{BROKER}", "--bot", "random")
        assert (await joiner.expect("seated"))["code"] == wanted
        await joiner.stop()
    finally:
        await host.stop()
        await clear_room(wanted)


async def test_a_wrong_code_says_so(tmp_path: Path) -> None:
    need_mosquitto()
    host, code = await start_host(tmp_path)
    try:
        wrong = "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"
        status, _, err = await run_passe(tmp_path, "join", f"{wrong}@{BROKER}", "--bot", "random")
        assert status == 2
        assert f"no room {format_code(wrong)}" in err and "Traceback" not in err
        status, _, err = await run_passe(tmp_path, "join", "ABCU12@" + BROKER, "--bot", "random")
        assert status == 2 and "'U' is never used" in err
    finally:
        await host.stop()


async def test_a_started_game_refuses_newcomers(tmp_path: Path) -> None:
    need_mosquitto()
    host, code = await start_host(tmp_path, "--bot-delay", "5")
    peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(2)]
    try:
        for peer in peers:
            await peer.start("join", f"{code}@{BROKER}", "--bot", "random")
            await peer.expect("seated")
        await host.expect("started")
        status, _, err = await run_passe(tmp_path, "join", f"{code}@{BROKER}", "--bot", "random")
        assert status == 2 and "has already started" in err and "Traceback" not in err
    finally:
        for process in (host, *peers):
            await process.stop()


async def test_a_full_room_refuses_newcomers(tmp_path: Path) -> None:
    need_mosquitto()
    game = get_game("dominoes")
    code = new_code()  # not a fixed one: each run's room is its own
    authority = Authority(
        Identity.generate(),
        code,
        "dominoes",
        game.make_config(players=2),
        "test",
        "127.0.0.1",
        1883,
    )
    await authority.start()
    try:
        authority.set_bot(0, "random")
        authority.set_bot(1, "random")
        status, _, err = await run_passe(tmp_path, "join", f"{code}@{BROKER}", "--bot", "random")
        assert status == 2 and f"room {format_code(code)} is full" in err
    finally:
        await authority.close()
        await clear_room(code)


async def test_another_protocol_version_is_named(tmp_path: Path) -> None:
    """A room of a future Passe (its state under passe/v2/...) is reported
    as a version mismatch, not as a wrong code."""
    need_mosquitto()
    future = Identity.generate()
    code = new_code()
    topic = f"passe/v2/{code}/room"
    state = RoomState(
        room=code, game="passpass", config={}, host="x", phase="lobby", seats=[], seq=0, stamp=1
    )
    async with RawClient("127.0.0.1", 1883, []) as client:
        await client.publish(topic, seal(future, topic, state), retain=True)
        try:
            status, _, err = await run_passe(
                tmp_path, "join", f"{code}@{BROKER}", "--bot", "random"
            )
        finally:
            await client.publish(topic, b"", retain=True)  # leave the broker clean
    assert status == 2 and "protocol version 2" in err


async def test_an_unreachable_broker_is_reported_quickly(tmp_path: Path) -> None:
    # "Quickly": the link gives up after CONNECT_WAIT, and run_passe's own
    # timeout fails the test on a hang (no elapsed-time assertion: this
    # machine is shared and noisy).
    with closed_port() as port:
        status, _, err = await run_passe(
            tmp_path, "join", f"ABC123@127.0.0.1:{port}", "--bot", "random"
        )
    assert status == 2 and "cannot reach the broker at 127.0.0.1" in err


async def test_a_closed_room_says_so(tmp_path: Path) -> None:
    need_mosquitto()
    game = get_game("passpass")
    code = new_code()
    authority = Authority(
        Identity.generate(),
        code,
        "passpass",
        game.make_config(players=3),
        "test",
        "127.0.0.1",
        1883,
    )
    # Ana, seated, is away when it closes: the closed state stays retained
    # for her (a room whose people all had its end leaves nothing behind:
    # docs/protocol.md, "What stays on the broker").
    authority.seats[0] = SeatSlot("Ana", HUMAN, key=Identity.generate().public_key)
    await authority.start()
    await authority.close()
    try:
        status, _, err = await run_passe(tmp_path, "join", f"{code}@{BROKER}", "--bot", "random")
    finally:
        await clear_room(code)
    assert status == 2 and "closed by its host" in err


async def test_a_host_that_is_away_is_named_so(tmp_path: Path) -> None:
    """A player who comes back while the host's process is gone (crashed,
    hung up: its presence says offline, its room is not closed) is told
    that the host is away and the game waits, not that it "may have left"."""
    need_mosquitto()
    game = get_game("passpass")
    code = new_code()
    authority = Authority(
        Identity.generate(),
        code,
        "passpass",
        game.make_config(players=3),
        "test",
        "127.0.0.1",
        1883,
    )
    await authority.start()
    # Its "online" presence is out before it goes (on Python 3.13 it could
    # still be on its way after start(), and land after the "offline" one).
    async with RawClient(
        "127.0.0.1", 1883, [presence_topic(code, authority.identity.peer_id)]
    ) as spy:
        await spy.until(lambda topic, payload: bool(payload))
    await authority.close(keep=True)  # gone as a host that died: away, not closed
    try:
        status, _, err = await run_passe(tmp_path, "join", f"{code}@{BROKER}", "--bot", "random")
        assert status == 2 and "Traceback" not in err
        assert (
            f"the host of room {format_code(code)} is away" in err and "passe host --resume" in err
        )
    finally:
        async with RawClient("127.0.0.1", 1883, []) as client:
            await client.publish(room_topic(code), b"", retain=True)
            await client.publish(presence_topic(code, authority.identity.peer_id), b"", retain=True)


def test_the_hosts_presence_is_read_only_once_the_room_state_names_it() -> None:
    """A peer subscribes to no presence but the authority's, once the room
    state names it (issue 19 item 6: a flood of retained presences on
    presence/+ once overflowed the joiner's link); the retained presence
    comes after that subscription. Before, any presence is ignored."""
    host = Identity.generate()
    code = new_code()
    table = RemoteTable(Identity.generate(), code, "127.0.0.1", 1883, "Ana")
    away = presence_topic(code, host.peer_id)
    gone = seal(host, away, Presence(room=code, epoch=5, online=False, name="host"))
    table._on_presence(away, gone)
    assert table.host_present  # nobody is known to be the host yet
    room = RoomState(
        room=code, game="passpass", config={"players": 3}, host="test", phase="playing",
        seats=[], seq=0, stamp=1, app="", seed_hash=b"", record=None, salt=b"", notice="",
    )  # fmt: skip
    table._on_room_message(room_topic(code), seal(host, room_topic(code), room))
    assert table.authority_key == host.public_key
    table._on_presence(away, gone)  # the retained one, as the new subscription brings it
    assert not table.host_present
    other = Identity.generate()
    theirs = presence_topic(code, other.peer_id)
    table._on_presence(
        theirs, seal(other, theirs, Presence(room=code, epoch=9, online=True, name="x"))
    )
    assert not table.host_present  # another key's presence counts for nothing


async def test_passe_log_debug_shows_the_link_and_nothing_shows_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need_mosquitto()
    joining = ("join", f"ZZZZZZ@{BROKER}", "--bot", "random")
    monkeypatch.setenv("PASSE_LOG", "debug")
    status, _, err = await run_passe(tmp_path, *joining)
    assert status == 2 and f"connected to {BROKER}" in err and "no room ZZZ-ZZZ" in err
    monkeypatch.setenv("PASSE_LOG", "nonsense")  # an unknown level: the default, not an error
    status, _, err = await run_passe(tmp_path, *joining)
    assert status == 2 and "connected to" not in err and "no room ZZZ-ZZZ" in err
