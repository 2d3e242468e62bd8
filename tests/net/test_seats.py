"""Who sits, against strangers who cost nothing to make (issue 19, the
seats items): an honest joiner sits during a flood of fresh keys' Hellos
(item 1); a knock goes when its knocker does (item 2); a retained "online"
presence with no will does not hold a seat for ever (item 5). Real
processes and real brokers where the wire is what is tested; the
attackers are this test."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import aiomqtt
import pytest

from net.authority import authority as authority_module
from net.identity import Identity
from net.peer import remote as remote_module
from net.peer.remote import RemoteTable
from net.protocol.wire import Hello, Presence, presence_topic, seal, to_authority_topic
from tests.net.peers import RawClient, clear_room, open_test_room, room_state_of, until
from tests.net.procs import PasseProcess, host_args
from tests.net.test_admission import broker_args, brokers, room_state, split, spy

# The flood of item 1: fresh keys, one Hello each, as test_floods sends them
# (a key made and a Hello sealed per message), paced per broker: on
# Mosquitto at 15 times the strangers' total budget of 40 a second
# (net/authority/authority.py), 3 times the 200 a second; on the embedded
# amqtt broker (a Python process on the same two cores) at the issue's
# rate: at 250 and 600 a second the joiner did not sit within 12 s, amqtt
# answering the host's subscription to the joiner's presence (and sending
# its retained record) behind the flood (docs/protocol.md, section 11).
FLOOD_RATES = {"mosquitto": 600.0, "embedded": 200.0}
FLOOD_MOST = 30_000  # messages: a failure guard, the flood stops once seated
# Made before the flood starts (a key and a seal cost about 0.3 ms here):
# the rate is then the link's; more are made as it goes.
FLOOD_MADE = 8_000


class HelloFlood:
    """Hellos from fresh keys on a room's request topics, at ``rate`` a second."""

    def __init__(self, address: str, code: str, authority: bytes, rate: float) -> None:
        self.address, self.code, self.authority = address, code, authority
        self.target = rate
        self.sent = 0
        self.started = asyncio.Event()
        self.began = 0.0

    def hello(self) -> tuple[str, bytes]:
        key = Identity.generate()
        topic = to_authority_topic(self.code, key.peer_id)
        hello = Hello(room=self.code, epoch=int(time.time() * 1000), n=1, name="Squatter")
        return topic, seal(key, topic, hello, self.authority)

    async def run(self) -> None:
        made = [self.hello() for _ in range(FLOOD_MADE)]
        async with aiomqtt.Client(*split(self.address)) as client:
            self.began = time.monotonic()
            while self.sent < FLOOD_MOST:
                topic, payload = made[self.sent] if self.sent < len(made) else self.hello()
                # QoS 0, unacknowledged (a broker may drop the attacker's
                # link under the flood: it goes on as far as it got).
                with contextlib.suppress(aiomqtt.MqttError):
                    await client.publish(topic, payload, qos=0)
                self.sent += 1
                if self.sent == 200:
                    self.started.set()
                ahead = self.sent / self.target - (time.monotonic() - self.began)
                await asyncio.sleep(max(ahead, 0))  # pacing, not synchronisation

    @property
    def rate(self) -> float:
        return self.sent / max(time.monotonic() - self.began, 1e-9)


@pytest.mark.parametrize("kind", brokers())
async def test_an_honest_joiner_sits_during_a_fresh_key_hello_flood(
    tmp_path: Path, kind: str
) -> None:
    """Item 1: fresh keys' Hellos past the strangers' budget (each key once)
    while a bot joiner joins: its Hello, sent again while unanswered, draws
    on the budget of keys heard before; the fresh keys never sit (no live
    presence), so the seat is there for it."""
    host = PasseProcess("host", tmp_path)
    peer = PasseProcess("peer", tmp_path)
    flooding: asyncio.Task[None] | None = None
    try:
        await host.start(
            *host_args("passpass", 3, wait_for=1, bot_delay=0, seed=5), *broker_args(kind)
        )
        room = await host.expect("room")
        code, address = room["code"], room["broker"]
        # Room states only: a spy of the whole room would read the flood too.
        async with RawClient(*split(address), [f"passe/v1/{code}/room"]) as client:
            _, authority = await room_state(client)
            flood = HelloFlood(address, code, authority, FLOOD_RATES[kind])
            flooding = asyncio.create_task(flood.run())
            await asyncio.wait_for(flood.started.wait(), 30)
            await peer.start("join", f"{code}@{address}", "--bot", "random", "--seed", "2")
            joining = time.monotonic()
            await peer.expect("seated")
            took = time.monotonic() - joining
            assert not flooding.done(), "the flood ended before the joiner sat"
            print(
                f"{kind}: seated {took:.1f} s after starting, during a flood of "
                f"{flood.sent} Hellos at {flood.rate:.0f}/s"
            )
            # A flood past the strangers' budget (40/s) all the while: the
            # pace asked for (the was 200/s) is not reached on a
            # loaded machine (267/s of 600 once, in a run shared with other
            # work), and the test's point is only that the budget was passed.
            assert flood.rate > 2 * authority_module.STRANGERS_RATE.messages
            flooding.cancel()
            over = await host.expect("over")
            assert (await peer.expect("over"))["scores"] == over["result"]["scores"]
            final, _ = await room_state(client, lambda r: r.phase == "over")
            assert [seat.name for seat in final.seats if seat.peer] != []
            assert all(seat.name != "Squatter" for seat in final.seats)
        assert await host.finish() == 0
        assert "Traceback" not in host.stderr.decode(errors="replace")
    except BaseException:
        for process in (host, peer):
            print(await process.report())
        raise
    finally:
        if flooding is not None:
            flooding.cancel()
            with contextlib.suppress(BaseException):
                await flooding
        for process in (host, peer):
            await process.stop()
        if kind == "mosquitto" and "code" in locals():
            await clear_room(code)


async def test_a_knock_goes_when_its_knocker_does(tmp_path: Path) -> None:
    """Item 2: a room that asks (a host with a screen; here its authority
    in this process) on Mosquitto; a joiner process knocks and is killed:
    its will says it is gone, and the knock goes (the host's lobby is told
    by on_change) instead of waiting its 5 minutes."""
    from tests.net.procs import need_mosquitto

    need_mosquitto()
    broker = ("127.0.0.1", 1883)
    hosted = await open_test_room("passpass", 3, broker)
    hosted.authority.admission = "ask"
    knocker = PasseProcess("eve", tmp_path)
    changes = asyncio.Event()
    hosted.authority.on_change.append(changes.set)
    try:
        await knocker.start(
            "join", f"{hosted.code}@127.0.0.1:1883", "--bot", "random", "--name", "Eve"
        )
        await until(lambda: bool(hosted.authority.knocks), timeout=30)
        (knock,) = hosted.authority.knocks.values()
        assert knock.name == "Eve"
        changes.clear()
        knocker.kill()  # no clean disconnect: the broker sends its will
        await asyncio.wait_for(changes.wait(), 30)
        await until(lambda: not hosted.authority.knocks, timeout=30)
        # Nobody is followed for it any more.
        assert presence_topic(hosted.code, Identity.generate().peer_id) not in (
            hosted.authority._presence_topics()
        )
        assert not hosted.authority._followed_ids()
    except BaseException:
        print(await knocker.report())
        raise
    finally:
        await knocker.stop()
        await hosted.close()
        await clear_room(hosted.code)


async def fake_presence(client: RawClient, code: str, key: Identity) -> None:
    """A retained "online" record for ``key``, with no will behind it."""
    topic = presence_topic(code, key.peer_id)
    record = Presence(room=code, epoch=int(time.time() * 1000), online=True, name="Ghost")
    await client.publish(topic, seal(key, topic, record), retain=True)


async def ghost_hello(client: RawClient, code: str, key: Identity, authority: bytes) -> None:
    topic = to_authority_topic(code, key.peer_id)
    hello = Hello(room=code, epoch=int(time.time() * 1000), n=1, name="Ghost")
    await client.publish(topic, seal(key, topic, hello, authority))


@pytest.mark.mosquitto
async def test_a_retained_presence_with_no_will_does_not_hold_a_seat(tmp_path: Path) -> None:
    """Item 5: a key publishes a retained "online" presence, takes a seat of
    a headless `--admit any` host and disconnects without a will. It looks
    present (its record says so), then, unheard for --presence-timeout, it
    is away and --free-after frees the seat; the room stays open for
    people. (Before, it looked present for ever.)"""
    host = PasseProcess("host", tmp_path)
    code = ""
    try:
        await host.start(
            *host_args("passpass", 3, wait_for=2, bot_delay=0, seed=6),
            "--presence-timeout",
            "2",
            "--free-after",
            "1",
            *broker_args("mosquitto"),
        )
        room = await host.expect("room")
        code, address = room["code"], room["broker"]
        ghost = Identity.generate()
        async with spy(address, code) as client:
            _, authority = await room_state(client)
            async with RawClient(*split(address), []) as attacker:
                await fake_presence(attacker, code, ghost)
                await ghost_hello(attacker, code, ghost, authority)
            # Seated and present, on its retained record.
            await room_state(
                client, lambda r: any(s.peer == ghost.peer_id and s.present for s in r.seats)
            )
            seated = len(client.messages)
            topic, payload = await client.until(
                lambda t, p: (
                    (r := room_state_of(t, p)) is not None
                    and all(s.peer != ghost.peer_id for s in r.seats)
                ),
                since=seated,
                timeout=20,
            )
            freed = room_state_of(topic, payload)
            assert freed is not None and freed.phase == "lobby"
            assert "away too long" in freed.notice
        assert host.process is not None and host.process.returncode is None
    except BaseException:
        print(await host.report())
        raise
    finally:
        await host.stop()
        if code:
            await clear_room(code)


async def test_a_beating_peer_stays_present_while_a_ghost_goes_away(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Item 5, both sides in this process on Mosquitto: with a bound of 1 s
    and peers beating every 0.2 s, the joiner Ana stays present while the
    ghost (a retained record, no will, disconnected) becomes away."""
    from tests.net.procs import need_mosquitto

    need_mosquitto()
    monkeypatch.setattr(remote_module, "PRESENCE_BEAT", 0.2)
    broker = ("127.0.0.1", 1883)
    hosted = await open_test_room("passpass", 3, broker)
    authority = hosted.authority
    authority.watch_presence(1.0)
    ana = RemoteTable(Identity.generate(), hosted.code, *broker, "Ana")
    ghost = Identity.generate()
    try:
        await ana.join()
        async with RawClient(*broker, []) as attacker:
            await fake_presence(attacker, hosted.code, ghost)
            await ghost_hello(attacker, hosted.code, ghost, authority.identity.public_key)

        def slot(key: bytes) -> object:
            return next((s for s in authority.seats if s.key == key), None)

        await until(lambda: getattr(slot(ghost.public_key), "present", False), timeout=30)
        await until(lambda: not getattr(slot(ghost.public_key), "present", True), timeout=30)
        ana_slot = slot(ana.identity.public_key)
        assert ana_slot is not None and getattr(ana_slot, "present", False)
    finally:
        await ana.close()
        await hosted.close()
        await clear_room(hosted.code)
