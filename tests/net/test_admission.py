"""Who sits is the host's decision, and a room's key is what makes it that
room (issue 19 items 2 and 5, issue 18 item 9). Real processes, real
brokers (the embedded one and Mosquitto); the attackers are this test, with
fresh keys, sending what no honest peer sends."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from core.registry import get_game
from net.identity import Identity
from net.protocol.wire import (
    Hello,
    RoomState,
    open_body,
    open_envelope,
    room_state_decoder,
    room_topic,
    seal,
    to_authority_topic,
)
from tests.net.peers import RawClient, room_state_of
from tests.net.procs import PasseProcess, host_args, need_mosquitto

MOSQUITTO = "127.0.0.1:1883"


def brokers() -> list[object]:
    return [
        pytest.param("embedded", id="embedded"),
        pytest.param("mosquitto", id="mosquitto", marks=pytest.mark.mosquitto),
    ]


def broker_args(kind: str) -> list[str]:
    if kind == "mosquitto":
        need_mosquitto()
        return ["--broker", MOSQUITTO]
    # Port 0: the embedded broker binds a free port itself and the host
    # reports it on its "room" line (issue 23: a port probed here could be
    # taken by another test's process before the child binds it).
    return ["--port", "0"]


def split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host, int(port)


@asynccontextmanager
async def spy(address: str, code: str) -> AsyncIterator[RawClient]:
    """A stranger reading the room's state topic (every test here looks at
    the room states only). Not the room's every topic: with failover on,
    those carry every voter's Appends and every seat's updates too, which a
    reader on a loaded machine may fall behind on, and the broker drops a
    client that falls too far behind (net/lan/broker.py: WRITE_STALL, the
    queued bytes). Once (make test under load, 5 December) this spy never
    saw the room state of the game's end that both players had: most
    likely that; not reproduced in isolation (0 of 3)."""
    async with RawClient(*split(address), [room_topic(code)]) as client:
        yield client


async def room_state(client: RawClient, test: object = None) -> tuple[RoomState, bytes]:
    """The next room state the spy sees (passing ``test``) and its signer."""
    check = test if callable(test) else (lambda room: True)
    topic, payload = await client.until(
        lambda t, p: (room := room_state_of(t, p)) is not None and check(room)
    )
    return open_body(open_envelope(topic, payload), room_state_decoder), open_envelope(
        topic, payload
    ).sender


async def squat_a_seat(client: RawClient, code: str, authority: bytes) -> Identity:
    """A Hello from a fresh key that never shows a presence: the attack of
    issue 19 item 2 (today it holds a seat for good)."""
    attacker = Identity.generate()
    topic = to_authority_topic(code, attacker.peer_id)
    hello = Hello(room=code, epoch=1, n=1, name="Mallory")
    await client.publish(topic, seal(attacker, topic, hello, authority))
    return attacker


@pytest.mark.parametrize("kind", brokers())
async def test_two_fresh_keys_do_not_freeze_a_headless_room(tmp_path: Path, kind: str) -> None:
    host = PasseProcess("host", tmp_path)
    peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(2)]
    try:
        await host.start(
            *host_args("passpass", 3, wait_for=2, bot_delay=0, seed=4),
            "--stand-in-after",
            "5",
            "--free-after",
            "2",
            *broker_args(kind),
        )
        room = await host.expect("room")
        code, address = room["code"], room["broker"]
        async with spy(address, code) as client:
            _, authority = await room_state(client)
            attackers = [await squat_a_seat(client, code, authority) for _ in range(2)]
            ids = {attacker.peer_id for attacker in attackers}
            # Neither takes a seat: a Hello waits for its key's live
            # presence, which never comes (issue 19 seats item 1; before, both sat
            # until --free-after freed them).
            for n, peer in enumerate(peers):
                await peer.start("join", f"{code}@{address}", "--bot", "random", "--seed", str(n))
            for peer in peers:
                await peer.expect("seated")
            await host.expect("started")
            over = await host.expect("over")
            for peer in peers:
                result = await peer.expect("over")
                assert result["scores"] == over["result"]["scores"]
                assert result["deal_verified"] is True
            final, _ = await room_state(client, lambda r: r.phase == "over")
            assert not ids & {seat.peer for seat in final.seats}
            states = [r for t, p in client.messages if (r := room_state_of(t, p)) is not None]
            assert not [r for r in states if ids & {seat.peer for seat in r.seats}]
            # The honest bot joiners are listed as bots (issue 18 item 9).
            listed = [seat for seat in final.seats if seat.peer]
            assert len(listed) == 2 and all(seat.kind == "bot" for seat in listed)
        assert await host.finish() == 0
    except BaseException:
        for process in (host, *peers):
            print(await process.report())
        raise
    finally:
        for process in (host, *peers):
            await process.stop()


@pytest.mark.parametrize("kind", brokers())
@pytest.mark.long
async def test_a_squatters_seat_goes_to_the_next_person_who_asks(tmp_path: Path, kind: str) -> None:
    """Honest players who come after attackers asked for every seat (with no
    presence) get those seats at once (no "room is full", no "already
    started"): the attackers never sat (issue 19 seats item 1)."""
    host = PasseProcess("host", tmp_path)
    peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(2)]
    try:
        await host.start(
            *host_args("dominoes", 2, wait_for=2, bot_delay=0, seed=4),
            "--free-after",
            "600",
            *broker_args(kind),
        )
        room = await host.expect("room")
        code, address = room["code"], room["broker"]
        async with spy(address, code) as client:
            _, authority = await room_state(client)
            ids = {(await squat_a_seat(client, code, authority)).peer_id for _ in range(2)}
            for n, peer in enumerate(peers):
                await peer.start("join", f"{code}@{address}", "--bot", "random", "--seed", str(n))
            for peer in peers:
                await peer.expect("seated")
            over = await host.expect("over")
            for peer in peers:
                assert (await peer.expect("over"))["scores"] == over["result"]["scores"]
            states = [r for t, p in client.messages if (r := room_state_of(t, p)) is not None]
            assert not [r for r in states if ids & {seat.peer for seat in r.seats}]
    except BaseException:
        for process in (host, *peers):
            print(await process.report())
        raise
    finally:
        for process in (host, *peers):
            await process.stop()


@pytest.mark.parametrize("kind", brokers())
async def test_a_sigtermed_bot_frees_its_lobby_seat(tmp_path: Path, kind: str) -> None:
    """Issue 18 item 9: a bot joiner is listed as a bot, and when its
    process dies in the lobby its seat is empty again, not "person · AWAY"."""
    host = PasseProcess("host", tmp_path)
    bot = PasseProcess("bot", tmp_path)
    try:
        await host.start(*host_args("passpass", 3, wait_for=3, bot_delay=0), *broker_args(kind))
        room = await host.expect("room")
        code, address = room["code"], room["broker"]
        async with spy(address, code) as client:
            await bot.start("join", f"{code}@{address}", "--bot", "random", "--name", "Robo")
            await bot.expect("seated")
            seated, _ = await room_state(
                client, lambda r: any(s.name == "Robo" and s.present for s in r.seats)
            )
            robo = next(seat for seat in seated.seats if seat.name == "Robo")
            assert (robo.kind, robo.level) == ("bot", "heuristic")
            mark = len(client.messages)
            assert bot.process is not None
            bot.process.send_signal(signal.SIGTERM)
            await bot.finish()
            topic, payload = await client.until(
                lambda t, p: (
                    (r := room_state_of(t, p)) is not None
                    and all(s.name != "Robo" for s in r.seats)
                ),
                since=mark,
            )
            freed = room_state_of(topic, payload)
            assert freed is not None and [s.kind for s in freed.seats].count("open") == 3
    except BaseException:
        for process in (host, bot):
            print(await process.report())
        raise
    finally:
        for process in (host, bot):
            await process.stop()


def fake_ending(real: RoomState, forger: Identity) -> bytes:
    """A room state ``over`` signed by ``forger``: the seats of the real
    room (public), another deal with its own commitment and record."""
    import hashlib

    game = get_game(real.game)
    config = game.config_from_data(real.config)
    seed, salt = 99, b"s" * 16
    state = game.new_game(config, seed)
    bot = game.make_bot("random", 5)
    while not state.is_over:
        seat = state.to_act[0]
        state.apply(seat, bot.choose(state.view(seat)))
    record = state.record()
    forged = RoomState(
        room=real.room,
        game=real.game,
        config=real.config,
        host=real.host,
        phase="over",
        seats=real.seats,
        seq=real.seq + 1,
        stamp=real.stamp + 1,
        seed_hash=hashlib.sha256(salt + seed.to_bytes(8, "big")).digest(),
        record=record.to_data(),
        salt=salt,
        notice="Mallory wins",
    )
    return seal(forger, room_topic(real.room), forged)


@pytest.mark.mosquitto
async def test_a_forged_ending_is_refused_by_a_player_who_sat_there(tmp_path: Path) -> None:
    """Issue 19 item 5: after the game (its host gone; a broker that
    outlives it), a room state `over` from another key with fake winners;
    the player joins again from a new process: the key pinned on disk when
    it sat refuses it. (An embedded broker dies with its host.)"""
    host = PasseProcess("host", tmp_path)
    player = PasseProcess("player", tmp_path)
    again = PasseProcess("player", tmp_path)  # the same data directory
    try:
        await host.start(
            *host_args("dominoes", 2, wait_for=1, bot_delay=0, seed=3), *broker_args("mosquitto")
        )
        room = await host.expect("room")
        code, address = room["code"], room["broker"]
        # The spy watches from the start: once everyone has had the end, the
        # host clears the room's retained messages (issue 18.10).
        async with spy(address, code) as client:
            await player.start("join", f"{code}@{address}", "--bot", "random")
            await host.expect("over")
            assert (await player.expect("over"))["deal_verified"] is True
            assert await player.finish() == 0
            assert await host.finish() == 0
            real, _ = await room_state(client, lambda r: r.phase == "over")
            forger = Identity.generate()
            await client.publish(room_topic(code), fake_ending(real, forger), retain=True)
            await room_state(client, lambda r: r.notice == "Mallory wins")
        await again.start("join", f"{code}@{address}", "--bot", "random")
        status = await again.finish()
        assert status == 2 and not [line for line in again.lines if line.get("event") == "over"]
        assert "signed by another key" in again.stderr.decode()
    except BaseException:
        for process in (host, player, again):
            print(await process.report())
        raise
    finally:
        for process in (host, player, again):
            await process.stop()


@pytest.mark.parametrize("kind", brokers())
async def test_an_empty_or_squatted_room_topic_does_not_hide_the_room(
    tmp_path: Path, kind: str
) -> None:
    """Issue 19 item 5: an empty retained message on `room` (it clears the
    host's state) and a squatter's retained state are answered by the host
    publishing its room again at once, with a warning; joiners reach it."""
    host = PasseProcess("host", tmp_path)
    joiner = PasseProcess("joiner", tmp_path)
    try:
        await host.start(*host_args("dominoes", 2, wait_for=1, bot_delay=0), *broker_args(kind))
        room = await host.expect("room")
        code, address = room["code"], room["broker"]
        async with spy(address, code) as client:
            real, authority = await room_state(client)
            mark = len(client.messages)
            await client.publish(room_topic(code), b"", retain=True)
            await client.until(lambda t, p: room_state_of(t, p) is not None, since=mark)
            squatter = Identity.generate()
            mark = len(client.messages)
            await client.publish(
                room_topic(code),
                seal(squatter, room_topic(code), msgspec_replace(real, host="Mallory")),
                retain=True,
            )
            # The squatter's state, as the broker passed it on; then the
            # host's, published again after it (not an earlier one, late).
            found = await client.until(signed_by(squatter.public_key), since=mark)
            await client.until(signed_by(authority), since=client.messages.index(found) + 1)
        # What a newcomer finds retained is the host's room, and it sits.
        async with spy(address, code) as late:
            _, signer = await room_state(late)
            assert signer == authority
        await joiner.start("join", f"{code}@{address}", "--bot", "random")
        await joiner.expect("seated")
        await host.expect("over")
        assert (await joiner.expect("over"))["deal_verified"] is True
        assert await host.finish() == 0
        stderr = host.stderr.decode()
        assert "cleared or garbled a room state" in stderr
        assert f"another key ({squatter.peer_id[:4]}" in stderr
    except BaseException:
        for process in (host, joiner):
            print(await process.report())
        raise
    finally:
        for process in (host, joiner):
            await process.stop()


def signed_by(key: bytes) -> Callable[[str, bytes], bool]:
    """A test for RawClient.until: a room state signed by ``key``."""
    return lambda t, p: room_state_of(t, p) is not None and open_envelope(t, p).sender == key


def msgspec_replace(state: RoomState, **changes: object) -> RoomState:
    import msgspec

    return msgspec.structs.replace(state, **changes)
