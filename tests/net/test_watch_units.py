"""The authority's side of watching (issue 21), in-process: real keys and
sealed envelopes, no broker (tests/net/rooms_in_process.py). A watch waits
for its key's live presence as a Hello does; a watcher is sent the
spectator's view and the public log, sealed to it, and never a seat's; it
is never seated; places are bounded and freed by a "gone" presence, by
silence past the lease and by a leave. Last, against Mosquitto: an earlier
host (which does not know `watch`) is reported in one line."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import msgspec
import pytest

from core.registry import get_game
from net.authority import authority as authority_module
from net.authority.authority import CLOSED, MAX_WATCHERS, WATCH_LEASE, Authority
from net.authority.rooms import BrokerChoice
from net.identity import Identity, fingerprint
from net.peer.remote import JoinError
from net.peer.watch import Watcher
from net.protocol.codes import format_code
from net.protocol.wire import (
    Act,
    Hello,
    Leave,
    Refused,
    Sync,
    Update,
    Watch,
    Watched,
    open_body,
    open_envelope,
    presence_decoder,
    presence_topic,
    watchers_decoder,
    watchers_topic,
)
from tests.net.peers import clear_room, open_test_room
from tests.net.procs import need_mosquitto
from tests.net.rooms_in_process import (
    CODE,
    MemoryLink,
    listen,
    presence,
    request,
    room,
    seated,
    to,
)


def unroomed(message: str) -> str:
    """An authority's log line without the room code it starts with (a
    dealer's log mixes many rooms: net/authority/authority.py RoomLog)."""
    assert message.startswith("room "), message
    return message.split(": ", 1)[1]


def wire(data: object) -> object:
    """As the wire carries it (tuples become lists)."""
    return msgspec.msgpack.decode(msgspec.msgpack.encode(data))


def watch(authority: Authority, key: Identity, n: int = 1, have: int = 0) -> None:
    request(authority, key, Watch(room=CODE, epoch=1, n=n, have=have))


def watching(authority: Authority, key: Identity, n: int = 1) -> None:
    """``key`` present, then watching."""
    presence(authority, key, online=True)
    watch(authority, key, n)


async def started(authority: Authority, ana: Identity) -> None:
    """Ana seated, bots elsewhere, the game on, its bots stopped."""
    seated(authority, ana)
    for seat in range(1, len(authority.seats)):
        authority.set_bot(seat, "heuristic")
    authority.start_game()
    assert authority.table is not None
    await authority.table.stop()


def advance(authority: Authority) -> None:
    """One move: Ana's first legal one, or a bot's."""
    table = authority.table
    assert table is not None
    if 0 in table.state.to_act:
        table.submit(0, table.state.legal_actions(0)[0])
    else:
        table.step_bot()


def counts(authority: Authority) -> list[int]:
    """The watcher counts the authority published since the last look
    (retained, signed, public), leaving the rest of its outbox."""
    outbox = authority._outbox
    assert outbox is not None
    kept, found = [], []
    while (message := outbox.pop()) is not None:
        topic, payload, retain = message
        if topic == watchers_topic(CODE):
            assert retain
            envelope = open_envelope(topic, payload, expect_key=authority.identity.public_key)
            found.append(open_body(envelope, watchers_decoder).count)
        else:
            kept.append(message)
    for topic, payload, retain in kept:
        outbox.push(topic, payload, retain, 0)
    return found


async def test_a_watcher_is_sent_the_spectators_view_and_public_log_only() -> None:
    authority = room(players=3)
    ana, eve = Identity.generate(), Identity.generate()
    listen(authority)
    await started(authority, ana)
    assert authority.table is not None
    advance(authority)
    watching(authority, eve, n=3)
    assert counts(authority) == [1]  # retained, public: how many watch
    watched, update = to(authority, eve)
    assert watched == Watched(room=CODE, watchers=1)
    assert isinstance(update, Update) and update.base == 0 and update.ack == 3
    state = authority.table.state
    assert update.view == wire(authority.codec.encode_view(state.view(None)))
    assert update.view["hand"] == [] and update.view["seat"] is None
    public = [
        authority.codec.encode_event(seen)
        for event in authority.table.events
        if (seen := event.for_seat(None)) is not None
    ]
    assert update.events == wire(public)
    assert authority._seat_of(eve.public_key) is None  # never seated
    # Each move reaches it, after the seats', as the public view.
    before = len(public)
    advance(authority)
    (moved,) = to(authority, eve)
    assert isinstance(moved, Update) and moved.base == before
    assert moved.view == wire(authority.codec.encode_view(authority.table.state.view(None)))
    # It cannot act; a Sync is answered like a seat's.
    request(authority, eve, Act(room=CODE, epoch=1, n=4, seat=0, action="x", at=0))
    assert to(authority, eve) == [
        Refused(room=CODE, reason="you have no seat at this table", code="unseated", n=4)
    ]
    request(authority, eve, Sync(room=CODE, epoch=1, n=5, have=1))
    (synced,) = to(authority, eve)
    assert isinstance(synced, Update) and synced.base == 1 and synced.ack == 5


def test_a_watch_waits_for_its_keys_live_presence_as_a_hello_does() -> None:
    """A fresh key with no presence (a flood's) is not let watch: it waits,
    followed, and nothing is answered; its presence lets it in."""
    authority = room()
    eve = Identity.generate()
    listen(authority)
    watch(authority, eve)
    assert to(authority, eve) == [] and authority.watchers == {}
    assert eve.public_key in authority._candidates
    presence(authority, eve, online=True)
    assert to(authority, eve) == [Watched(room=CODE, watchers=1)]  # the lobby: no update yet
    assert list(authority.watchers) == [eve.public_key]


def test_the_ninth_watcher_is_refused_in_words_and_a_gone_one_frees_its_place() -> None:
    authority = room()
    listen(authority)
    keys = [Identity.generate() for _ in range(MAX_WATCHERS + 1)]
    for key in keys[:-1]:
        watching(authority, key)
    assert len(authority.watchers) == MAX_WATCHERS
    ninth = keys[-1]
    watching(authority, ninth, n=7)
    assert to(authority, ninth) == [
        Refused(
            room=CODE,
            reason=f"This table already has {MAX_WATCHERS} watchers",
            code="watchers",
            n=7,
        )
    ]
    presence(authority, keys[0], online=False, epoch=5)  # its will
    assert keys[0].public_key not in authority.watchers
    watch(authority, ninth, n=8)
    assert to(authority, ninth) == [Watched(room=CODE, watchers=MAX_WATCHERS)]


def test_a_silent_watcher_loses_its_place_and_a_leave_frees_one() -> None:
    now = [100.0]
    authority = room(clock=lambda: now[0])
    listen(authority)
    quiet, talker, late = Identity.generate(), Identity.generate(), Identity.generate()
    watching(authority, quiet)
    watching(authority, talker)
    now[0] += WATCH_LEASE / 2
    presence(authority, talker, online=True)  # a beat (same epoch)
    now[0] += WATCH_LEASE / 2 + 1
    assert authority._drop_stale_watchers()
    assert list(authority.watchers) == [talker.public_key]
    request(authority, talker, Leave(room=CODE, epoch=1, n=2))
    assert authority.watchers == {}
    watching(authority, late)
    assert to(authority, late) == [Watched(room=CODE, watchers=1)]


def test_a_seated_key_is_told_its_seat_shows_the_table() -> None:
    authority = room()
    ana = Identity.generate()
    listen(authority)
    seated(authority, ana)
    to(authority, ana)
    watch(authority, ana, n=2)
    assert to(authority, ana) == [
        Refused(
            room=CODE,
            reason="you sit at this table: your seat shows it to you",
            code="seated",
            n=2,
        )
    ]
    assert authority.watchers == {}


@pytest.mark.mosquitto
async def test_an_earlier_host_is_reported_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A host of the protocol before `watch` decodes it as a malformed
    request and refuses it (code bad): the watcher says the host's Passe
    cannot be watched, and the host goes on."""
    need_mosquitto()
    earlier = msgspec.msgpack.Decoder(Hello | Act | Sync | Leave)
    monkeypatch.setattr(authority_module, "peer_message_decoder", earlier)
    hosted = await open_test_room("dominoes", 2, ("127.0.0.1", 1883))
    watcher = Watcher(hosted.authority.code, "127.0.0.1", 1883)
    try:
        with pytest.raises(JoinError) as refused:
            await watcher.watch()
        assert refused.value.code == "version"
        assert str(refused.value).startswith(
            f"the host of room {format_code(hosted.authority.code)} runs an older Passe"
        )
        assert str(refused.value).endswith("that cannot be watched")
        assert get_game("dominoes").id == hosted.authority.game_id
    finally:
        await watcher.close()
        await hosted.close()
        await clear_room(hosted.authority.code)


async def test_a_watcher_leaving_says_gone_then_clears_its_presence() -> None:
    """Its key is never used again: nothing of it stays retained on the
    broker (a player's record stays while the room is open)."""
    watcher = Watcher(CODE, "127.0.0.1", 1)
    link = MemoryLink()
    watcher._link = link  # type: ignore[assignment]
    await watcher.close()
    topic = presence_topic(CODE, watcher.identity.peer_id)
    assert link.final is not None and [t for t, _ in link.final] == [topic, topic]
    gone, cleared = (payload for _, payload in link.final)
    assert not open_body(open_envelope(topic, gone), presence_decoder).online
    assert cleared == b""


def test_a_flood_of_new_keys_does_not_make_a_watcher_look_gone() -> None:
    """Records of keys without a seat are bounded (the oldest forgotten
    first): a watcher's is kept, or a flood would take its place."""
    authority = room()
    listen(authority)
    eve = Identity.generate()
    watching(authority, eve)
    for _ in range(authority_module.MAX_STRANGERS + 20):
        authority._peer_record(Identity.generate().public_key)
    assert authority._watching_live(eve.public_key)
    assert not authority._drop_stale_watchers()
    assert list(authority.watchers) == [eve.public_key]


async def test_a_watcher_follows_the_voters_standby_brokers_and_never_votes() -> None:
    """Issue 20 with issue 21: on the embedded broker, the room's broker
    dies with its host and the table moves to a voter's standby broker. A
    watcher follows the voters' presences, which name those brokers, so its
    link goes down the same succession list as the seats'. Found by hand:
    a watcher said "reconnecting" for good once the table moved."""
    from net.authority.replication import encode_room_config, make_room_config
    from net.election.driver import voter_presence_topic
    from net.protocol.wire import Presence, seal

    voters = [Identity.generate() for _ in range(3)]
    config, _ = make_room_config(voters[0], [voter.public_key for voter in voters])
    watcher = Watcher(CODE, "127.0.0.1", 1)
    link = MemoryLink()
    followed: list[list[tuple[str, int]]] = []
    link.set_alternates = lambda brokers, **_: followed.append(brokers)  # type: ignore[method-assign]
    watcher._link = link  # type: ignore[assignment]
    watcher._follow_config(encode_room_config(config), vote=True, standby=True)
    assert watcher.voter is None  # a watcher never votes
    topics = [voter_presence_topic(CODE, voter.peer_id) for voter in voters]
    assert all(topic in link.subscriptions for topic in topics)
    for number in (2, 1):  # out of order: the succession is the config's
        topic = topics[number]
        where = f"127.0.0.1:{2000 + number}"
        online = Presence(room=CODE, epoch=5, online=True, name="x", broker=where)
        await watcher._on_message(topic, seal(voters[number], topic, online))
    assert watcher.broker_alternates == (("127.0.0.1", 2001), ("127.0.0.1", 2002))
    assert followed[-1] == [("127.0.0.1", 2001), ("127.0.0.1", 2002)]
    # A presence signed by another key names nothing.
    forged = Presence(room=CODE, epoch=6, online=True, name="x", broker="10.0.0.9:1883")
    await watcher._on_message(topics[0], seal(voters[1], topics[0], forged))
    assert ("10.0.0.9", 1883) not in watcher.broker_alternates


# Found by make mutation (issue 23): each test below names the mutants of
# net/authority/authority.py it kills.


def test_a_closed_room_refuses_a_watch_in_words() -> None:
    """Kills _on_watch's mutants 16-25 (the refusal's key, words, code, n)."""
    authority = room()
    listen(authority)
    eve = Identity.generate()
    presence(authority, eve, online=True)
    authority.phase = CLOSED  # as close() leaves it
    watch(authority, eve, n=4)
    assert to(authority, eve) == [
        Refused(room=CODE, reason=f"room {format_code(CODE)} is closed", code="closed", n=4)
    ]
    assert authority.watchers == {}


async def test_watchers_are_logged_and_checked_every_quarter_of_the_lease(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A watch is logged with the number watching; its place is checked
    every WATCH_LEASE / 4 while anyone watches (the check arms the next
    one); heard exactly WATCH_LEASE ago it holds, a moment later it goes,
    logged, and the count published again. Kills _on_watch's 45-52,
    _arm_watch_timer's 3-10, _check_watchers' 1 (a timer never armed
    again), _watching_live's 7 (`<` at the lease's edge) and
    _drop_stale_watchers' 4-9 (its log line)."""
    now = [100.0]
    authority = room(clock=lambda: now[0])
    listen(authority)
    eve = Identity.generate()
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        watching(authority, eve)
    said = [unroomed(r.getMessage()) for r in caplog.records if r.name == "passe.authority"]
    assert f"key {fingerprint(eve.public_key)} watches (1 watching)" in said
    timer = authority._watch_timer
    assert timer is not None and timer._callback == authority._check_watchers  # type: ignore[attr-defined]
    loop = asyncio.get_running_loop()
    assert WATCH_LEASE / 4 - 1 < timer.when() - loop.time() <= WATCH_LEASE / 4
    timer.cancel()
    authority._check_watchers()  # still heard: the next check armed
    assert isinstance(authority._watch_timer, asyncio.TimerHandle)
    assert authority._watch_timer is not timer
    authority._watch_timer.cancel()
    assert counts(authority) == [1]
    now[0] += WATCH_LEASE
    assert authority._watching_live(eve.public_key)  # at the edge: still
    now[0] += 0.01
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        authority._check_watchers()
    assert authority.watchers == {} and counts(authority) == [0]
    said = [unroomed(r.getMessage()) for r in caplog.records if r.name == "passe.authority"]
    assert said == [f"key {fingerprint(eve.public_key)} stopped watching (not heard)"]


async def test_a_long_log_is_answered_to_a_watcher_once_per_interval(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A watch asking for a long public log (more than LOG_ANSWER_EVENTS
    events) is answered with it at most once per LOG_ANSWER_INTERVAL per
    key, as a seat's Hello is; what is no longer than that, another key's
    watch, and a move's update are sent whatever the gate. The first held
    back is logged, each counted; a watcher's Sync is gated alike. Kills
    _on_watch's 64-68 and _on_sync's 8-12 (the answer not gated),
    _send_watch_update's 1 (every update gated by default) and 12-28 (the
    length compared, the gate per key, the note's kind, words and clock)."""
    now = [100.0]
    authority = room(players=3, clock=lambda: now[0])
    listen(authority)
    ana, eve, bob = Identity.generate(), Identity.generate(), Identity.generate()
    await started(authority, ana)
    advance(authority)
    advance(authority)
    to(authority, ana)
    length = len(authority._public_log)
    assert length >= 3
    monkeypatch.setattr(authority_module, "LOG_ANSWER_EVENTS", length - 2)

    def updates(key: Identity) -> list[Update]:
        return [message for message in to(authority, key) if isinstance(message, Update)]

    presence(authority, eve, online=True)
    watch(authority, eve, n=1, have=0)
    assert [update.base for update in updates(eve)] == [0]
    with caplog.at_level(logging.WARNING, logger="passe.authority"):
        watch(authority, eve, n=2, have=0)  # the long log again, so soon
        assert updates(eve) == []
        watch(authority, eve, n=3, have=0)
        assert updates(eve) == []
    assert authority._floods.counts["log-answer"] == 2
    said = [unroomed(r.getMessage()) for r in caplog.records if r.name == "passe.authority"]
    assert said == ["did not send a watcher the log again so soon"]
    watch(authority, eve, n=4, have=2)  # exactly LOG_ANSWER_EVENTS: not long
    assert [update.base for update in updates(eve)] == [2]
    request(authority, eve, Sync(room=CODE, epoch=1, n=5, have=0))  # a Sync alike
    assert updates(eve) == [] and authority._floods.counts["log-answer"] == 3
    presence(authority, bob, online=True)
    watch(authority, bob, n=1, have=0)  # its own gate
    assert [update.base for update in updates(bob)] == [0]
    monkeypatch.setattr(authority_module, "LOG_ANSWER_EVENTS", 0)
    advance(authority)  # a move's update: never held back
    assert [update.base for update in updates(eve)] == [length]


async def test_a_restored_room_in_play_shows_its_public_log_to_a_watcher() -> None:
    """Kills restore's mutant 77 (no public log after a restore: a watch
    then failed)."""
    authority = room(players=3)
    listen(authority)
    ana, eve = Identity.generate(), Identity.generate()
    await started(authority, ana)
    advance(authority)
    public = list(authority._public_log)
    restored = Authority.restore(authority.snapshot(BrokerChoice(True, "127.0.0.1", 1)), "h", 1)
    assert restored.table is not None
    await restored.table.stop()
    listen(restored)
    presence(restored, eve, online=True)
    watch(restored, eve)
    watched, update = to(restored, eve)
    assert watched == Watched(room=CODE, watchers=1)
    assert isinstance(update, Update) and update.base == 0
    assert update.events == wire(public)


def test_a_watcher_has_a_budget_of_its_own_and_its_count_is_retained() -> None:
    """A watcher's messages are counted against a watcher's budget, not
    as a stranger's (which would remember it among keys heard); the count's
    topic is among the room's retained topics once a count went out. Kills
    _watcher_ids' 1 and _publish_watchers' 1-2."""
    authority = room()
    listen(authority)
    eve = Identity.generate()
    assert watchers_topic(CODE) not in authority.retained_topics()
    watching(authority, eve)
    assert watchers_topic(CODE) in authority.retained_topics()
    authority._heard.clear()
    assert authority._within_bounds("request", eve.peer_id, b"x")
    assert eve.peer_id not in authority._heard


async def test_a_reconnected_link_sends_each_watcher_the_whole_public_log() -> None:
    """After every reconnection each watcher gets the public log from its
    start (it may have missed updates while the link was down), and the
    count goes out again. Kills _on_connect's mutants 35-39 (the watcher,
    its base)."""
    authority = room(players=3)
    listen(authority)
    ana, eve = Identity.generate(), Identity.generate()
    await started(authority, ana)
    advance(authority)
    watching(authority, eve)
    counts(authority)
    to(authority, eve)
    authority._link = MemoryLink()  # type: ignore[assignment]
    await authority._on_connect()
    assert counts(authority) == [1]
    updates = [message for message in to(authority, eve) if isinstance(message, Update)]
    assert [update.base for update in updates] == [0]
    assert updates[0].events == wire(authority._public_log)


async def test_a_watcher_of_the_lobby_is_sent_the_game_as_it_starts() -> None:
    """A watcher let in before the deal gets the public view and the whole
    public log when the game starts. Kills start_game's mutants 39-43 (the
    watcher, its base)."""
    authority = room(players=3)
    listen(authority)
    ana, eve = Identity.generate(), Identity.generate()
    watching(authority, eve)
    assert to(authority, eve) == [Watched(room=CODE, watchers=1)]
    await started(authority, ana)
    updates = [message for message in to(authority, eve) if isinstance(message, Update)]
    assert [update.base for update in updates] == [0]
    assert updates[0].events == wire(authority._public_log)


def test_each_watcher_has_a_budget_of_its_own_and_a_stranger_stays_a_stranger() -> None:
    """A watcher past its own budget (a stranger's burst) does not spend
    another watcher's; a key that does not watch is counted as a stranger
    (remembered among keys heard) while others watch. Kills _within_bounds'
    mutants 11 (`or`: every key a watcher once anyone watches) and 13 (one
    bucket for all watchers)."""
    now = [100.0]
    authority = room(clock=lambda: now[0])
    listen(authority)
    eve, bob = Identity.generate(), Identity.generate()
    watching(authority, eve)
    watching(authority, bob)
    burst = int(authority_module.STRANGER_RATE.message_burst)
    assert all(authority._within_bounds("request", eve.peer_id, b"x") for _ in range(burst))
    assert not authority._within_bounds("request", eve.peer_id, b"x")
    assert authority._within_bounds("request", bob.peer_id, b"x")
    stranger = Identity.generate().peer_id
    authority._heard.clear()
    assert authority._within_bounds("request", stranger, b"x")
    assert stranger in authority._heard
