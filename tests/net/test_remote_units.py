"""A seat's side of a networked table (net/peer/remote.py), in-process (issue
23: found by ``make mutation``): a RemoteTable fed what a real authority
(in-process, real keys and signed envelopes) sends, its requests read back
from a link that keeps them. Each docstring names the mutations of
net/peer/remote.py it kills."""

from __future__ import annotations

import asyncio
import hashlib
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import msgspec
import pytest

from core.engine import Event, IllegalAction
from core.registry import get_game
from net.authority.authority import Authority, SeatSlot
from net.authority.replication import encode_room_config, make_room_config
from net.authority.table import TableUpdate
from net.election.driver import Announce, authority_topic
from net.identity import Identity, fingerprint, peer_fingerprint, peer_id
from net.peer import remote as remote_module
from net.peer.failover import HandedTable
from net.peer.pins import RoomPins
from net.peer.remote import JoinError, RemoteTable, _refusal
from net.protocol import wire
from net.protocol.codec import CodecError, codec_for
from net.protocol.codes import format_code, new_code
from net.protocol.wire import (
    Act,
    Envelope,
    Hello,
    Leave,
    NextRoom,
    Presence,
    Refused,
    RoomState,
    SeatState,
    Sync,
    Update,
    Watched,
    Watchers,
    Welcome,
    WireError,
    dealt_proof,
    next_topic,
    open_body,
    open_envelope,
    presence_decoder,
    presence_topic,
    room_topic,
    seal,
    to_peer_topic,
    watchers_topic,
)
from tests.net.peers import RawClient, clear_room, until
from tests.net.procs import need_mosquitto
from tests.net.rooms_in_process import (
    CODE,
    BrokerLink,
    MemoryLink,
    as_sent,
    joining_on,
    linked,
    listen,
    pump,
    requests_of,
    room,
    seated,
    within_turns,
)

# Each test here takes well under a second: one that hangs (a mutant that
# loses a deadline, under make mutation) fails after 15 s instead of
# waiting out mutmut's own limit of minutes (docs/testing.md).
pytestmark = pytest.mark.timeout(15)

ME = Identity.generate()


def remote(identity: Identity = ME, **options: object) -> RemoteTable:
    return RemoteTable(identity, CODE, "127.0.0.1", 1, "Ana", **options)  # type: ignore[arg-type]


def a_room_state(**fields: object) -> RoomState:
    values: dict[str, object] = {
        "room": CODE,
        "game": "passpass",
        "config": {},
        "host": "Host",
        "phase": "over",
        "seats": [],
        "seq": 1,
        "stamp": 1,
    }
    values.update(fields)
    return RoomState(**values)  # type: ignore[arg-type]


def test_next_table_is_the_same_seat_at_the_next_room_or_an_error() -> None:
    """Kills next_table's mutants: the error (words, code) before any next
    game, and each field handed on (identity, code, broker and its
    alternates, name, the pinned key, pins, bot)."""
    table = remote(authority_key=b"k" * 32, pins=RoomPins(None), bot=True)
    with pytest.raises(JoinError) as error:
        table.next_table()
    assert (str(error.value), error.value.code) == (
        "the host has not opened a next game",
        "no-room",
    )
    table.next_code = "XYZ789"
    table.broker_host, table.broker_port = "10.0.0.7", 1884
    table.cluster = (("10.0.0.8", 1883), ("10.0.0.9", 1885))
    # A standby broker of this room (issue 20) is not the next room's.
    table.broker_alternates = (*table.cluster, ("10.0.0.5", 2000))
    following = table.next_table()
    assert (following.identity, following.code, following.name) == (ME, "XYZ789", "Ana")
    assert (following.broker_host, following.broker_port) == ("10.0.0.7", 1884)
    # The cluster's other nodes too (issue 20): the next game is on the same broker.
    assert following.broker_alternates == (("10.0.0.8", 1883), ("10.0.0.9", 1885))
    assert following.cluster == following.broker_alternates
    assert following.authority_key == b"k" * 32 and following.pinned
    assert following.pins is table.pins and following.bot
    # After a failover the table's link is on another broker (the room's
    # first died with its host's machine): the next room is looked for
    # there first, then at the first broker and the cluster's nodes.
    link = MemoryLink("10.0.0.8", 1883)
    table._link = link  # type: ignore[assignment]
    following = table.next_table()
    assert (following.broker_host, following.broker_port) == ("10.0.0.8", 1883)
    assert following.broker_alternates == (("10.0.0.7", 1884), ("10.0.0.9", 1885))
    link.connected = False  # down: where it was last up, if it ever was
    following = table.next_table()
    assert (following.broker_host, following.broker_port) == ("10.0.0.7", 1884)
    table._on_link_state(True)  # up on 10.0.0.8: remembered when closed
    link.connected = False
    table._link = None
    following = table.next_table()
    assert (following.broker_host, following.broker_port) == ("10.0.0.8", 1883)


def test_the_seat_held_is_the_one_listed_with_our_key_as_a_person_or_a_bot() -> None:
    """Kills _seat_held's mutants (the key compared, the kinds that count,
    the first such seat, None otherwise)."""
    table = remote()
    other = Identity.generate().peer_id
    seats = [
        SeatState("Old", "open", peer=ME.peer_id),
        SeatState("Bea", "human", peer=other),
        SeatState("Ana", "bot", "heuristic", peer=ME.peer_id),
        SeatState("Ana", "human", peer=ME.peer_id),
    ]
    assert table._seat_held(a_room_state(seats=seats)) == 2
    assert table._seat_held(a_room_state(seats=[*seats[:2], seats[3]])) == 2
    assert table._seat_held(a_room_state(seats=seats[:2])) is None


@pytest.mark.parametrize(
    ("seed", "first", "verified"),
    [
        (7, "same", True),
        (7, "other", False),  # the commitment changed since it was first seen
        (7, "none", False),
        (True, "same", False),  # a bool is no seed
        ("7", "same", False),
        (-1, "same", False),
        (2**63, "same", False),  # 8 bytes, but past the engine's seeds
        (2**64 - 1, "same", False),
        (2**63 - 1, "same", True),
        (0, "same", True),
    ],
)
def test_the_deal_is_checked_against_its_first_commitment(
    seed: object, first: str, verified: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """Kills _check_deal's mutants: the seed's type and bounds (0 and
    2**63 - 1 are seeds, -1, 2**63 and 2**64 - 1 not, even when the hash of
    their 8 bytes is the one published), the hash of salt and seed (8
    bytes, big-endian), compared with the state's and the first one (the
    commitment; the replay is checked in test_dealcheck.py); a failed
    check said in its words and logged once, the same state again not
    checked again."""
    import logging

    salt = b"s" * 16
    number = seed if isinstance(seed, int) and 0 <= seed < 2**64 else 0
    digest = hashlib.sha256(salt + int(number).to_bytes(8, "big")).digest()
    table = remote()
    table._first_seed_hash = {"same": digest, "other": b"x" * 32, "none": None}[first]
    state = a_room_state(record={"seed": seed}, salt=salt, seed_hash=digest)
    with caplog.at_level(logging.WARNING, logger="passe.peer"):
        table._check_deal(state)
        table._check_deal(state)  # republished as it was: not checked again
    # The commitment alone here: a record of a seed only then fails the
    # replay against what was shown (issue 20, tests/net/test_dealcheck.py).
    assert table._commitment_held is verified and table._deal_checked.is_set()
    assert table.verified is False
    if verified:
        assert table.deal_report.startswith("Deal check FAILED: the revealed record is not")
    else:
        assert table.deal_report == (
            "Deal check FAILED: the revealed deal does not match the commitment "
            "the host published at the start."
        )
    assert [r.getMessage() for r in caplog.records] == [table.deal_report]


def test_a_record_republished_otherwise_is_checked_again() -> None:
    """Kills _check_deal's mutant that leaves the record out of what was
    checked: the same commitment with another record (its seed now the
    committed one) is checked again, and then holds."""
    salt = b"s" * 16
    digest = hashlib.sha256(salt + (7).to_bytes(8, "big")).digest()
    table = remote()
    table._first_seed_hash = digest
    table._check_deal(a_room_state(record={"seed": 8}, salt=salt, seed_hash=digest))
    assert table._commitment_held is False
    table._check_deal(a_room_state(record={"seed": 7}, salt=salt, seed_hash=digest))
    assert table._commitment_held is True


async def a_finished_game(ana: Identity = ME, game: str = "passpass") -> Authority:
    """A game (of Pass Pass unless told) played to its end: Ana (the key
    ``ana``) in seat 1, two bots; each Ana move her first legal one."""
    authority = room(game)
    authority.seats[0] = SeatSlot("Ana", "human", key=ana.public_key)
    authority.set_bot(1, "heuristic")
    authority.set_bot(2, "heuristic")
    authority.start_game()
    table = authority.table
    assert table is not None
    await table.stop()
    while not table.state.is_over:
        if table.state.to_act[0] == 0:
            table.submit(0, table.state.view(0).legal[0])
        else:
            table.step_bot()
    assert authority.phase == "over"
    return authority


def seat_events(authority: Authority) -> list[Event]:
    codec = codec_for(get_game(authority.game_id))
    return [codec.decode_event(data) for data in as_sent(authority._logs[0])]


async def test_the_end_comes_from_the_revealed_record_once_it_matches_the_deal() -> None:
    """Kills _finish_from_record's mutants: only for a seat held, a record
    checked (verified), a view not yet over; the events missed (after those
    held) delivered with the final view, the seq (never lowered), started."""
    authority = await a_finished_game()
    table = remote()
    updates: list[TableUpdate] = []
    await table.connect(updates.append)
    events = seat_events(authority)
    table.seat = 0
    table.log = list(events[:3])
    table.seq = 10**6
    await table._on_message(room_topic(CODE), authority._room_payload())
    assert table.verified is True
    assert table.view is not None and table.view.is_over and table.view.seat == 0
    assert table.log == events and table.seq == 10**6 and table._started.is_set()
    assert [(update.view, list(update.events)) for update in updates] == [(table.view, events[3:])]
    # Nothing again once over.
    table._finish_from_record(authority.room_state())
    assert len(updates) == 1
    # A newer room's seq is taken.
    fresh = remote()
    fresh.seat = 0
    await fresh._on_message(room_topic(CODE), authority._room_payload())
    assert fresh.seq == authority.seq and fresh.log == events


async def test_a_game_over_is_offered_again_nowhere(tmp_path: Path) -> None:
    """Its record read, the room is forgotten as a room to rejoin, and so
    are its standby brokers (a rejoin tried the dead brokers of finished
    games, a play-test, 5 December); its key stays pinned."""
    authority = await a_finished_game()
    pins = RoomPins(tmp_path / "pins.json")
    pins.remember(CODE, authority.identity.public_key, ("127.0.0.1", 1))
    pins.remember_brokers(CODE, [("127.0.0.1", 2)])
    table = remote(pins=pins)
    table.seat = 0
    await table._on_message(room_topic(CODE), authority._room_payload())
    assert table.verified is True
    again = RoomPins(tmp_path / "pins.json")
    assert again.recent(5) == [] and again.brokers(CODE) == ()
    assert again.get(CODE) == authority.identity.public_key


async def test_our_own_secrets_come_back_with_the_end_from_the_record() -> None:
    """Kills _finish_from_record's mutant that reads the record's events as
    a spectator would: in Passe fashion, our own bids (FA-7) are ours to
    see, face up, at the end from the record as in the host's updates."""
    authority = await a_finished_game(game="fashion")
    table = remote()
    table.seat = 0
    await table._on_message(room_topic(CODE), authority._room_payload())
    assert table.view is not None and table.view.is_over
    ours = [e for e in table.log if type(e).__name__ == "BidPlaced" and e.seat == 0]  # type: ignore[attr-defined]
    assert ours and all(e.card is not None for e in ours)  # type: ignore[attr-defined]
    assert table.log == seat_events(authority)


async def test_no_end_from_a_record_without_a_seat_a_check_or_a_whole_game(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _finish_from_record's mutants of each early return: no seat,
    no record, not verified, a record that does not replay (logged, with
    the engine's reason), a record of a game not over, a seat past the
    players."""
    import logging

    authority = await a_finished_game()
    state = authority.room_state()
    record = state.record
    assert record is not None

    def finish(seat: int | None, verified: bool | None, data: object) -> RemoteTable:
        table = remote()
        table.game_id, table.seat = "passpass", seat
        table._commitment_held = verified is True  # the gate since issue 20's check
        table._finish_from_record(msgspec.structs.replace(state, record=data))
        return table

    assert finish(0, True, record).view is not None  # the case that finishes
    assert finish(None, True, record).view is None
    assert finish(0, None, record).view is None
    assert finish(0, False, record).view is None
    assert finish(0, True, None).view is None
    assert finish(3, True, record).view is None
    assert finish(0, True, {**record, "actions": record["actions"][:-1]}).view is None
    with caplog.at_level(logging.WARNING, logger="passe.peer"):
        assert finish(0, True, {**record, "actions": [[0, "nonsense"]]}).view is None
    assert [r.getMessage() for r in caplog.records] == [
        "ignored a final record that does not replay: action 1 (0: nonsense) does not "
        "replay: 'nonsense' is not a card: write a "
        "colour letter (V violet, B blue, G green, Y yellow) and a value 1-12, e.g. V10"
    ]
    assert finish(0, True, {**record, "seed": "x"}).view is None


async def test_a_seat_changes_to_a_free_one_or_says_why_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills change_seat's mutants: the Hello (the seat asked, the log
    held), the seat taken from the Welcome, the refusal raised in the
    host's words and code, the link kept either way, even when the host
    does not answer (the seat still held, the link not left)."""
    # Each answer is handed over in the test's turn: a mutant that loses it
    # fails after 1 s, not the 5 a host on a network is given.
    monkeypatch.setattr(remote_module, "REPLY_WAIT", 1.0)
    authority = room()
    listen(authority)
    table = remote()
    link = linked(table, authority)
    await authority._on_message(
        presence_topic(CODE, ME.peer_id), table._presence_payload(online=True)
    )
    table._send(table._hello(None, have=0))
    await within_turns(lambda: bool(link.published))
    await pump(authority, table, link)
    assert table.seat == 0
    bea = Identity.generate()
    seated(authority, bea, name="Bea")
    assert authority._outbox is not None
    authority._outbox = type(authority._outbox)()  # Bea's welcome is hers
    table.log = [object()]  # type: ignore[list-item]
    moving = asyncio.create_task(table.change_seat(2))
    await within_turns(lambda: bool(link.published))
    (hello,) = requests_of(link, ME, authority, keep=True)
    assert (hello.seat, hello.have, hello.name) == (2, 1, "Ana")
    await pump(authority, table, link)
    assert await moving == 2 and table.seat == 2
    taking = asyncio.create_task(table.change_seat(1))
    await within_turns(lambda: bool(link.published))
    await pump(authority, table, link)
    with pytest.raises(JoinError) as error:
        await taking
    assert (str(error.value), error.value.code) == ("seat 2 is taken", "taken")
    assert table.seat == 2 and link.final is None  # still at the table
    monkeypatch.setattr(remote_module, "REPLY_WAIT", 0.05)
    with pytest.raises(JoinError) as error:
        await table.change_seat(1)  # the host never answers it
    assert error.value.code == "timeout"
    assert table.seat == 2 and link.final is None and link.connected


async def test_a_knock_waits_for_the_hosts_answer_saying_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _knock's and on_knock's mutants: the words told while waiting
    (with our key) to each listener still listening, knocking while waiting
    only, the answer returned, and the timeout's error (words with the wait
    in minutes, code) after leaving the link."""
    # The host's answer is handed over in the test's turn: a mutant that
    # loses it fails after 2 s, not the 5 minutes a person is given.
    monkeypatch.setattr(remote_module, "KNOCK_WAIT", 2.0)
    authority = room(admission="ask")
    listen(authority)
    table = remote()
    link = linked(table, authority)
    told: list[str] = []
    table.on_knock(told.append)
    gone: list[str] = []
    table.on_knock(gone.append)()  # a screen closed: told nothing
    await authority._on_message(
        presence_topic(CODE, ME.peer_id), table._presence_payload(online=True)
    )
    table._pending = asyncio.get_running_loop().create_future()
    table._send(table._hello(None, have=0))
    await within_turns(lambda: bool(link.published))
    await pump(authority, table, link)
    first = table._pending.result()
    assert isinstance(first, Refused)
    assert first.code == "knock"
    table._pending = None
    knocking = asyncio.create_task(table._knock())
    await within_turns(lambda: table.knocking)
    assert told == [
        f"The host of room {format_code(CODE)} is asked to let you in: waiting for them… "
        f"Your key is {fingerprint(ME.public_key)}: read it to the host if they ask."
    ]
    assert gone == []
    # The knock refusal of a Hello sent again is no answer.
    await table._on_message(*_sealed_to(authority, ME, first))
    assert not knocking.done()
    authority.admit(ME.public_key)
    await pump(authority, table, link)
    assert await knocking == Welcome(room=CODE, seat=0)
    assert not table.knocking and table._pending is None
    monkeypatch.setattr(remote_module, "KNOCK_WAIT", 0.06)
    with pytest.raises(JoinError) as error:
        async with asyncio.timeout(2.0):  # a wait without its bound fails here
            await table._knock()
    assert str(error.value) == (
        f"the host of room {format_code(CODE)} did not let you in within 0.001 minutes"
    )
    assert error.value.code == "timeout" and link.final is not None
    assert not table.knocking and table._pending is None


def _sealed_to(authority: Authority, key: Identity, message: object) -> tuple[str, bytes]:
    topic = to_peer_topic(CODE, key.peer_id)
    return topic, seal(authority.identity, topic, message, key.public_key)  # type: ignore[arg-type]


@pytest.mark.parametrize("phase", ["lobby", "over", "closed"])
async def test_leaving_tells_the_host_forgets_the_broker_and_says_gone(
    phase: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Kills leave's mutants: the Leave sealed to the host (room, epoch, n),
    the broker forgotten in the pins, the table closed; and _abandon's
    final messages (gone; cleared too once over or closed) and debug line."""
    import logging

    caplog.set_level(logging.DEBUG, logger="passe.peer")
    authority = room()
    listen(authority)
    pins = RoomPins(tmp_path / "pins.json")
    pins.remember(CODE, authority.identity.public_key, ("127.0.0.1", 1))
    table = remote(pins=pins)
    link = linked(table, authority)
    table.seat = 0
    table.room = a_room_state(phase=phase)
    table._n = 4
    await table.leave()
    (leave,) = requests_of(link, ME, authority)
    assert leave == Leave(room=CODE, epoch=table._epoch, n=5)
    assert pins.recent(5) == [] and RoomPins(tmp_path / "pins.json").recent(5) == []
    assert table._closed and table._listener is None
    topic = presence_topic(CODE, ME.peer_id)
    assert link.final is not None and [t for t, _ in link.final] == [topic] * (
        1 if phase == "lobby" else 2
    )
    gone = open_body(open_envelope(topic, link.final[0][1]), presence_decoder)
    assert gone == Presence(room=CODE, epoch=table._presence_epoch, online=False, name="Ana")
    if phase != "lobby":
        assert link.final[1][1] == b""
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("leaving")]
    assert said == [f"leaving the link: presence gone (epoch {table._epoch})"]


async def test_nothing_is_sent_without_a_link_or_the_hosts_key(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _send's and _log_failure's mutants: nothing goes out before
    the host's key is known (nor without a link), and an action then is
    refused in words at once; what goes out is in the debug log, with the
    link's state; a publication that fails is a warning in words, one that
    works none."""
    import logging

    authority, table, updates = await a_seat_in_play()
    await deliver(authority, table)
    legal = authority.table.state.view(0).legal[0]  # type: ignore[union-attr]
    link = MemoryLink()
    table._link = link  # type: ignore[assignment]
    table.authority_key = None
    await table.submit(legal)
    table.authority_key = authority.identity.public_key
    table._link = None
    await table.submit(legal)
    await asyncio.sleep(0)
    assert link.published == []
    assert [u.rejected for u in updates[-2:]] == ["not connected to the table: reconnecting…"] * 2
    table._link = link  # type: ignore[assignment]
    caplog.set_level(logging.DEBUG, logger="passe.peer")
    sync = Sync(room=CODE, epoch=1, n=9)
    assert table._send(sync)
    await asyncio.sleep(0)
    assert len(link.published) == 1
    # The link down: sent all the same (it queues), said so; a publication
    # that fails is a warning with its reason.
    link.connected = False

    async def fails(topic: str, payload: bytes, *, retain: bool = False) -> None:
        raise ConnectionError("the broker went away")

    link.publish = fails  # type: ignore[method-assign]
    assert not table._send(sync)
    for _ in range(3):
        await asyncio.sleep(0)
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("to the host")]
    assert said == [f"to the host: {sync!r} (link up)", f"to the host: {sync!r} (link down)"]
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warned == ["sending failed: the broker went away"]


async def test_leaving_without_a_seat_or_a_link_sends_nothing() -> None:
    """Kills leave's mutants of its condition (a seat, a link, connected)."""
    authority = room()
    for seat, connected in ((None, True), (0, False)):
        table = remote()
        link = linked(table, authority)
        link.connected = connected
        table.seat = seat
        await table.leave()
        assert requests_of(link, ME, authority) == [] and table._closed


async def test_an_unanswered_action_asks_for_the_table_until_answered(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Kills _sync_if_unanswered's mutants: each reason to stay quiet
    (closed, answered, no link, link down, the game over or closed: nothing
    sent, even a turn of the loop later, when a Sync would be published),
    the Sync (room, epoch, the next n, the log held), the next check, for
    the Sync's own n, and the debug line saying why it asks."""
    import logging

    caplog.set_level(logging.DEBUG, logger="passe.peer")
    monkeypatch.setattr(remote_module, "ACT_WAIT", 0.0)
    authority = room()
    table = remote()
    link = linked(table, authority)
    table.log = [object(), object()]  # type: ignore[list-item]
    table._n = 5
    for quiet in ("closed", "acked", "down", "over", "shut", "nolink"):
        table._closed = quiet == "closed"
        table.acked = 5 if quiet == "acked" else 4
        link.connected = quiet != "down"
        table.room = a_room_state(phase={"over": "over", "shut": "closed"}.get(quiet, "lobby"))
        table._link = None if quiet == "nolink" else link  # type: ignore[assignment]
        table._sync_if_unanswered(5)
        await asyncio.sleep(0)  # a Sync sent would be published by now
        assert requests_of(link, ME, authority) == [], quiet
    assert not [r for r in caplog.records if "unanswered" in r.getMessage()]
    table._link = link  # type: ignore[assignment]
    table._closed, table.acked, link.connected = False, 4, True
    table.room = a_room_state(phase="playing")
    table._sync_if_unanswered(5)
    table.acked = 5  # the act answered; its Sync (6) not yet
    await within_turns(lambda: len(link.published) >= 2)
    table.acked = 10**6  # answered: the checks stop
    syncs = requests_of(link, ME, authority)
    assert syncs[:2] == [
        Sync(room=CODE, epoch=table._epoch, n=6, have=2),
        Sync(room=CODE, epoch=table._epoch, n=7, have=2),
    ]
    asked = [r.getMessage() for r in caplog.records if "unanswered" in r.getMessage()]
    assert asked[:2] == [
        "action 5 unanswered after 0 s: asking for the table",
        "action 6 unanswered after 0 s: asking for the table",
    ]


# -- what comes in: the host's presence, the next game, the room state --------


async def test_the_hosts_presence_says_whether_it_is_here_by_its_newest_epoch(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _on_presence's mutants: nothing read before the host's key is
    known, nor an empty record, nor another topic, key or room; an older
    epoch and a same-epoch "online" after its will ignored, but its will
    of the same epoch heard; the listeners told of each change only; a
    newer "online" takes our seat again; each record taken in the debug
    log."""
    import logging

    caplog.set_level(logging.DEBUG, logger="passe.peer")
    authority = room()
    table = remote()
    topic = presence_topic(CODE, authority.identity.peer_id)
    authority._epoch = 10
    await table._on_message(topic, authority._presence_payload(online=False))
    assert table.host_present and table._host_epoch == -1  # no host key yet
    link = linked(table, authority)
    told: list[bool] = []
    table.on_host(told.append)
    await table._on_message(topic, b"")
    other = presence_topic(CODE, Identity.generate().peer_id)
    await table._on_message(other, authority._presence_payload(online=False))
    impostor = Identity.generate()
    await table._on_message(
        topic, seal(impostor, topic, Presence(room=CODE, epoch=50, online=False))
    )
    await table._on_message(
        topic, seal(authority.identity, topic, Presence(room="XYZ789", epoch=50, online=False))
    )
    assert told == [] and table._host_epoch == -1
    await table._on_message(topic, authority._presence_payload(online=False))
    assert told == [False] and table._host_epoch == 10 and not table.host_present
    authority._epoch = 9
    await table._on_message(topic, authority._presence_payload(online=True))
    authority._epoch = 10
    await table._on_message(topic, authority._presence_payload(online=True))
    assert told == [False] and not table.host_present
    authority._epoch = 11
    await table._on_message(topic, authority._presence_payload(online=True))
    assert told == [False, True] and table._host_epoch == 11
    assert requests_of(link, ME, authority) == []  # no seat to take again
    table.seat, table.log = 2, [object()]
    await table._on_message(topic, authority._presence_payload(online=True))  # a beat
    await asyncio.sleep(0)
    assert requests_of(link, ME, authority) == []
    authority._epoch = 12
    await table._on_message(topic, authority._presence_payload(online=True))
    await within_turns(lambda: bool(link.published))
    (hello,) = requests_of(link, ME, authority)
    assert (hello.seat, hello.have, hello.name) == (2, 1, "Ana")
    assert told == [False, True] and table._host_epoch == 12
    await table._on_message(topic, authority._presence_payload(online=False))  # its will
    assert told == [False, True, False] and not table.host_present
    taken = [r.getMessage() for r in caplog.records if r.getMessage().startswith("host presence")]
    assert taken == [
        "host presence: epoch 10, online False",
        "host presence: epoch 11, online True",
        "host presence: epoch 11, online True",
        "host presence: epoch 12, online True",
        "host presence: epoch 12, online False",
    ]


async def test_on_another_broker_the_table_is_present_only_once_its_record_there_says_so() -> None:
    """Found in a play-test (5 December): the machine that ran the table
    died with the broker everyone was on; the last player's link went to
    its own standby broker, where no will came, and its screen went on as
    if the table were there (a move taken without a word). A link that
    comes up on another broker says the table is away until its record
    there says online (even the same connection's record, read again); a
    reconnection to the same broker, a cluster's other node, a table
    already away, or no table key yet, changes nothing."""
    authority = room()
    table = remote()
    topic = presence_topic(CODE, authority.identity.peer_id)
    link = linked(table, authority)
    told: list[bool] = []
    table.on_host(told.append)
    authority._epoch = 10
    await table._on_message(topic, authority._presence_payload(online=True))
    table._on_link_state(True)  # up on 127.0.0.1:1
    await table._on_connect()  # the same broker again: a blip
    assert told == [] and table.host_present and table._host_epoch == 10
    link.host, link.port = "127.0.0.1", 2
    await table._on_connect()
    assert told == [False] and not table.host_present and table._host_reread
    table._on_link_state(True)
    # An older connection's "online" left here (it moved away cleanly, no
    # will): not the table (found by a test under load, 1 run in 4).
    authority._epoch = 9
    await table._on_message(topic, authority._presence_payload(online=True))
    assert told == [False] and not table.host_present
    authority._epoch = 10
    await table._on_message(topic, authority._presence_payload(online=True))  # read again here
    assert told == [False, True] and table.host_present and not table._host_reread
    link.host, link.port = "127.0.0.1", 3
    table.cluster = (("127.0.0.1", 3),)  # a cluster's nodes share their records
    await table._on_connect()
    assert told == [False, True] and table.host_present
    table.cluster = ()
    table._on_link_state(True)
    table.host_present = False  # away already: said once
    link.host, link.port = "127.0.0.1", 4
    await table._on_connect()
    assert told == [False, True]
    fresh = remote()
    fresh._link = MemoryLink()
    fresh._last_broker = ("127.0.0.1", 9)  # no table key yet: nothing to say
    await fresh._on_connect()
    assert fresh.host_present


async def test_our_presence_beats_while_connected_and_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _beat_presence's mutants: our presence record (online, this
    connection's epoch) published again, retained, on our presence topic,
    every PRESENCE_BEAT while the link is up; a failed publication does not
    stop the beat; nothing while the link is down; the beat ends once we
    are closed."""
    monkeypatch.setattr(remote_module, "PRESENCE_BEAT", 0.0)
    table = remote()
    link = linked(table, room())
    publish = link.publish
    failures = [ConnectionError("the link dropped")]

    async def flaky(topic: str, payload: bytes, *, retain: bool = False) -> None:
        if failures:
            raise failures.pop()
        await publish(topic, payload, retain=retain)

    link.publish = flaky  # type: ignore[method-assign]
    beat = asyncio.create_task(table._beat_presence())
    await within_turns(lambda: len(link.published) >= 2)
    topic = presence_topic(CODE, ME.peer_id)
    online = Presence(room=CODE, epoch=table._presence_epoch, online=True, name="Ana")
    for where, payload, retain in link.published:
        assert (where, retain) == (topic, True)
        assert open_body(open_envelope(topic, payload), presence_decoder) == online
    link.connected = False
    link.published.clear()
    for _ in range(5):
        await asyncio.sleep(0)
    assert link.published == [] and not beat.done()
    link.connected = True
    table._closed = True
    for _ in range(5):
        await asyncio.sleep(0)
    assert link.published == [] and beat.done()


async def _an_over_room(table: RemoteTable, authority: Authority) -> None:
    authority.phase = "over"
    await table._on_message(room_topic(CODE), authority._room_payload())
    assert table.room is not None and table.room.phase == "over"


async def test_a_next_game_is_followed_only_once_over_and_from_this_host(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _on_next's mutants: an empty notice ignored; one before the
    room kept and read when it comes (refused unless over); one from
    another key, for another room, with a bad code, naming this room or the
    one already followed: ignored (logged once, every one counted: a second
    one within the flood interval is no error); the code, normalised, told
    to each listener still listening, once; a notice before the room state
    kept when the host's key is already known (pinned) too."""
    import logging

    authority = room()
    topic = next_topic(CODE)

    def notice(next_code: str, signer: Identity = authority.identity, code: str = CODE) -> bytes:
        return seal(signer, topic, NextRoom(room=code, next=next_code))

    table = remote()
    heard: list[str] = []
    table.on_next(heard.append)
    stopped: list[str] = []
    table.on_next(stopped.append)()  # a screen closed: told nothing
    await table._on_message(topic, b"")
    assert table._next_payload is None
    first = notice("XYZ789")
    await table._on_message(topic, first)  # before any room state: kept
    assert table._next_payload == (topic, first)
    await table._on_message(room_topic(CODE), authority._room_payload())  # a lobby
    assert heard == [] and table._next_payload is None
    assert table._floods.counts.get("next-early") == 1
    await table._on_message(topic, first)  # again, still in the lobby
    assert table._floods.counts.get("next-early") == 2 and heard == []
    await _an_over_room(table, authority)
    with caplog.at_level(logging.WARNING, logger="passe.peer"):
        await table._on_message(topic, notice("XYZ789", Identity.generate()))
        assert table._floods.counts.get("next") == 1
        await table._on_message(topic, notice("XYZ789", Identity.generate()))
        assert table._floods.counts.get("next") == 2
        await table._on_message(topic, notice("XYZ789", code="QQQ111"))
        await table._on_message(topic, notice("XY!789"))
        await table._on_message(topic, notice("abc123"))  # this room itself
    assert heard == [] and table.next_code is None
    assert [r.getMessage() for r in caplog.records if r.name == "passe.peer"] == [
        "ignored a next-game notice: the game is not over",
        "ignored a next-game notice: not from this room's host",
        "ignored a next-game notice not from this room's host",
        "ignored a next-game notice with a bad code",
    ]
    await table._on_message(topic, notice("xyz789"))
    assert heard == ["XYZ789"] and table.next_code == "XYZ789"
    await table._on_message(topic, notice("XYZ789"))  # again: told once
    assert heard == ["XYZ789"]
    late: list[str] = []
    table.on_next(late.append)
    assert late == ["XYZ789"] and stopped == []
    # A notice before the room state, the room over: followed once it comes.
    early = remote()
    await early._on_message(topic, notice("XYZ789"))
    await early._on_message(room_topic(CODE), authority._room_payload())
    assert early.next_code == "XYZ789" and early._next_payload is None
    # The same with the host's key pinned (following a table): no room yet.
    pinned = remote(authority_key=authority.identity.public_key)
    await pinned._on_message(topic, notice("XYZ789"))
    assert pinned._next_payload is not None and pinned.next_code is None
    await pinned._on_message(room_topic(CODE), authority._room_payload())
    assert pinned.next_code == "XYZ789" and pinned._next_payload is None


async def test_a_dealer_named_without_its_signature_is_read_as_a_hosts_room(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The trust boundary: a host that writes a dealer's name in its room
    state holds the deck all the same; its players' screens said "Dealt by
    Dealer-One: no player's machine holds the deck". A name counts only
    with its dealer's signature for this room's key (RoomState.dealer_proof);
    else the room is read as the host's, the name kept to warn of it (once
    in the log)."""
    import logging

    authority = room()
    dealer = Identity.generate()
    table = remote()
    table._link = MemoryLink()  # type: ignore[assignment]
    topic = room_topic(CODE)
    seen: list[RoomState] = []
    table.on_room(seen.append)

    def state(**fields: object) -> bytes:
        fields.setdefault("stamp", authority._next_stamp())
        body = msgspec.structs.replace(authority.room_state(), **fields)
        return seal(authority.identity, topic, body)

    caplog.set_level(logging.WARNING, logger="passe.peer")
    await table._on_message(topic, state(dealer="Dealer-One"))
    await table._on_message(topic, state(dealer="Dealer-One"))
    assert table.room is not None and table.room.dealer == "" and seen[-1] is table.room
    assert table.unproven_dealer == "Dealer-One"
    assert [r.getMessage() for r in caplog.records] == [
        "room state names dealer 'Dealer-One' without its signature"
    ]
    # A real dealer's proof for another room key (a host that copied it
    # from a dealer's room) holds nothing either; its key is not kept.
    stolen = dealt_proof(dealer, CODE, Identity.generate().public_key, "Dealer-One")
    await table._on_message(
        topic, state(dealer="Dealer-One", dealer_key=dealer.public_key, dealer_proof=stolen)
    )
    assert table.room.dealer == "" and table.room.dealer_key == b""
    # Signed as sent, before its text is cleaned: an escape in the name is
    # the dealer's own, and shown cleaned.
    name = "Dealer\x1b[2J-One"
    proof = dealt_proof(dealer, CODE, authority.identity.public_key, name)
    await table._on_message(
        topic, state(dealer=name, dealer_key=dealer.public_key, dealer_proof=proof)
    )
    assert table.room.dealer == "Dealer-One" and table.room.dealer_key == dealer.public_key
    assert table.unproven_dealer == ""
    # A name no dealer signed, cleaned for the warning.
    await table._on_message(topic, state(dealer="\x1b[31mEve's dealer"))
    assert table.room.dealer == "" and table.unproven_dealer == "Eve's dealer"
    await table._on_message(topic, state())  # a host's room naming none
    assert table.unproven_dealer == "" and table.room.dealer == ""


async def test_a_person_who_asked_a_dealer_trusts_only_the_room_that_dealer_signed(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The trust boundary: `passe host --dealer` joins the code the dealer
    answered with, a public code. Trusted on first use, a state that anyone
    wrote under it before the dealer's came made its signer this person's
    host (and holder of the deck). With the dealer asked (``dealer=`` its
    peer id), only a state that dealer signed for its own room key counts:
    a host's, another dealer's, or the asked dealer's proof copied to
    another room key are ignored (logged once) and named if nothing else
    comes. Mutations: trusting on first use; any proven dealer; the proof
    unchecked."""
    import logging

    authority = room()
    dealer, other_dealer = Identity.generate(), Identity.generate()
    topic = room_topic(CODE)

    def state(signer: Authority, **fields: object) -> bytes:
        fields.setdefault("stamp", signer._next_stamp())
        return seal(signer.identity, topic, msgspec.structs.replace(signer.room_state(), **fields))

    def dealt_by(who: Identity, room_key: bytes) -> dict[str, object]:
        proof = dealt_proof(who, CODE, room_key, "Dealer-One")
        return {"dealer": "Dealer-One", "dealer_key": who.public_key, "dealer_proof": proof}

    impostor = room()
    key = authority.identity.public_key
    forged = [
        state(impostor),  # a host's room under the code
        state(impostor, dealer="Dealer-One"),  # naming the dealer, unsigned
        state(impostor, **dealt_by(other_dealer, impostor.identity.public_key)),
        state(impostor, **dealt_by(dealer, key)),  # the dealer's proof for another key
    ]
    table = remote(dealer=peer_id(dealer.public_key))
    table._link = MemoryLink()  # type: ignore[assignment]
    caplog.set_level(logging.WARNING, logger="passe.peer")
    for payload in forged:
        await table._on_message(topic, payload)
    assert table.authority_key is None and table.room is None
    assert [r.getMessage() for r in caplog.records] == [
        "ignored a room state that the dealer asked did not deal"
    ]
    await table._on_message(topic, state(authority, **dealt_by(dealer, key)))
    assert table.authority_key == key and table.room is not None
    assert table.room.dealer_key == dealer.public_key
    # Without a dealer asked, the first signer is trusted (as a host's room).
    trusting = remote()
    trusting._link = MemoryLink()
    await trusting._on_message(topic, forged[0])
    assert trusting.authority_key == impostor.identity.public_key
    # Nothing but others' states: the join names the dealer asked and the signer.
    joining_on(monkeypatch, {topic: forged[2]})
    table = remote(dealer=peer_id(dealer.public_key))
    with pytest.raises(JoinError) as error:
        async with asyncio.timeout(2.0):
            await table.join(timeout=0.2)
    assert error.value.code == "foreign"
    assert str(error.value) == (
        f"room {format_code(CODE)} at 127.0.0.1:1 was not dealt by the dealer you asked "
        f"(key {peer_fingerprint(peer_id(dealer.public_key))}): its state is signed by "
        f"another key ({fingerprint(impostor.identity.public_key)}), so it was ignored. "
        "Ask the dealer again"
    )


async def test_the_room_state_is_the_first_signers_newest_of_its_game(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _on_room_message's mutants: another protocol version's topic
    noted (its number); the first signer trusted and its presence followed;
    another key's state ignored and its key kept (at most 16); another
    room's ignored; an older or equal stamp ignored; an unknown game
    ignored (logged); another game from the same key ignored; the names
    cleaned, the first commitment kept, the listeners told."""
    import logging

    authority = room()
    table = remote()
    link = MemoryLink()
    table._link = link  # type: ignore[assignment]
    seen: list[RoomState] = []
    table.on_room(seen.append)
    await table._on_message("passe/v7/ABC123/room", b"x")
    await table._on_message("passe/vq/ABC123/room", b"x")
    assert table._foreign_version == 7 and table.room is None
    topic = room_topic(CODE)
    other_room = seal(
        authority.identity, topic, msgspec.structs.replace(authority.room_state(), room="XYZ789")
    )
    await table._on_message(topic, other_room)
    assert table.room is None and seen == []
    older = authority._room_payload()
    authority.seats[0].name = "\x1b[31mEve"
    first = authority._room_payload()
    await table._on_message(topic, first)
    assert table.authority_key == authority.identity.public_key
    assert link.subscriptions == [presence_topic(CODE, authority.identity.peer_id)]
    assert table.room is not None and table.room.stamp == authority._stamp
    assert table.names == ("Eve", "Seat 2", "Seat 3") and table.game_id == "passpass"
    assert table.codec is not None and table._room_seen.is_set()
    assert table._first_seed_hash == authority.seed_hash() and seen == [table.room]
    await table._on_message(topic, older)
    await table._on_message(topic, first)
    assert len(seen) == 1
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="passe.peer"):
        for _ in range(17):
            impostor = Identity.generate()
            await table._on_message(topic, seal(impostor, topic, authority.room_state()))
    assert len(table._foreign_keys) == 16 and len(seen) == 1
    assert table._floods.counts["room-sender"] == 17
    assert [r.getMessage() for r in caplog.records][:1] == [
        "ignored a room state: not from this room's host"
    ]
    # A salt with no record (no end revealed): nothing to check, no error.
    salted = msgspec.structs.replace(
        authority.room_state(), record=None, salt=b"s" * 16, stamp=authority._next_stamp()
    )
    await table._on_message(topic, seal(authority.identity, topic, salted))
    assert len(seen) == 2 and table.verified is None
    seen.pop()
    authority._salt = b"t" * 16  # a new commitment: the first one is kept
    await table._on_message(topic, authority._room_payload())
    assert len(seen) == 2 and table._first_seed_hash != authority.seed_hash()
    dominoes = Authority(
        authority.identity,
        CODE,
        "dominoes",
        get_game("dominoes").make_config(players=3),
        "Host",
        "127.0.0.1",
        1,
    )
    await table._on_message(topic, dominoes._room_payload())
    assert len(seen) == 2 and table.room.game == "passpass"
    fresh = remote()
    chess = msgspec.structs.replace(authority.room_state(), game="chess")
    with caplog.at_level(logging.WARNING, logger="passe.peer"):
        await fresh._on_message(topic, seal(authority.identity, topic, chess))
    assert fresh.room is None and fresh.codec is None and fresh.game_id == ""
    assert "ignored a room of an unknown game 'chess'" in [r.getMessage() for r in caplog.records]


# -- what comes in: the host's private messages --------------------------------


async def a_seat_in_play() -> tuple[Authority, RemoteTable, list[TableUpdate]]:
    """Ana's RemoteTable (seat 1, knowing the host's key and game) at an
    authority whose game has started; nothing delivered yet."""
    authority = room()
    listen(authority)
    authority.seats[0] = SeatSlot("Ana", "human", key=ME.public_key, present=True)
    authority.set_bot(1, "heuristic")
    authority.set_bot(2, "heuristic")
    authority.start_game()
    assert authority.table is not None
    await authority.table.stop()
    table = remote()
    table.authority_key = authority.identity.public_key
    table.codec, table.game_id, table.seat = codec_for(get_game("passpass")), "passpass", 0
    updates: list[TableUpdate] = []
    await table.connect(updates.append)
    return authority, table, updates


async def deliver(authority: Authority, table: RemoteTable) -> int:
    """What the authority sent to ``table``'s key, handed to it; how many."""
    outbox = authority._outbox
    assert outbox is not None
    mine = to_peer_topic(CODE, table.identity.peer_id)
    count = 0
    while (message := outbox.pop()) is not None:
        if message[0] == mine:
            await table._on_message(message[0], message[1])
            count += 1
    return count


def move(authority: Authority) -> None:
    table = authority.table
    assert table is not None
    if table.state.to_act[0] == 0:
        table.submit(0, table.state.view(0).legal[0])
    else:
        table.step_bot()


async def test_updates_build_the_seats_log_view_seq_and_acknowledgement() -> None:
    """Kills _on_update's mutants of an update taken: the events after
    those held appended, the view, the seq, the highest ack kept, started,
    the listener told the fresh events and the cleaned reason."""
    authority, table, updates = await a_seat_in_play()
    assert await deliver(authority, table) == 1
    events = seat_events(authority)
    assert table.log == events and table.seq == authority.seq and table._started.is_set()
    assert table.view is not None and table.view.seat == 0
    assert [list(update.events) for update in updates] == [events]
    move(authority)
    await deliver(authority, table)
    assert table.log == seat_events(authority) and table.seq == authority.seq
    assert list(updates[-1].events) == seat_events(authority)[len(events) :]
    view = authority.codec.encode_view(authority.table.state.view(0))  # type: ignore[union-attr]
    log = authority._logs[0]
    for ack, rejected in ((5, "\x1b[31mno\u202e"), (3, None)):
        update = Update(
            room=CODE,
            seq=authority.seq,
            view=view,
            base=len(log) - 1,  # one event already held: not again
            events=log[-1:],
            rejected=rejected,
            ack=ack,
        )
        await table._on_message(*_sealed_to(authority, ME, update))
    assert table.acked == 5 and table.log == seat_events(authority)
    assert [(list(u.events), u.rejected) for u in updates[-2:]] == [([], "no"), ([], None)]


async def test_a_seat_that_saw_the_game_is_checked_against_all_it_was_shown() -> None:
    """Kills _replay_check's mutants of the seat checked from (ours, even
    when the room lists our key no more: the host gave the seat away at the
    end) and of the codec needed, and _on_update's record of what was shown
    (each view at its seq as received, the events counted): every view and
    event the seat received matches the revealed deal, said in the check's
    words. And _on_update's check again when the last update comes after
    the room state that revealed the record (two topics, no order between
    them): in part first, then all of it."""
    authority, table, _ = await a_seat_in_play()
    game = authority.table
    assert game is not None
    mine = to_peer_topic(CODE, ME.peer_id)
    received: list[bytes] = []  # what the host sent us, in order

    async def deliver_kept() -> None:
        outbox = authority._outbox
        assert outbox is not None
        while (message := outbox.pop()) is not None:
            if message[0] == mine:
                received.append(message[1])
                await table._on_message(mine, message[1])

    await deliver_kept()
    while not game.state.is_over:
        move(authority)
        await deliver_kept()
    assert authority.phase == "over" and table.view is not None and table.view.is_over
    authority.seats[0].key = Identity.generate().public_key
    final = authority._room_payload()
    await table._on_message(room_topic(CODE), final)
    moves = len(game.record().actions)
    verified = (
        f"Deal verified: all {moves} moves, replayed from the revealed deal, match "
        f"everything you were shown (every view and all {len(table.log)} events)."
    )
    assert table.verified is True and table.deal_report == verified
    # The same messages, the room state before the last update.
    late = remote()
    late.authority_key = authority.identity.public_key
    late.codec, late.game_id, late.seat = table.codec, "passpass", 0
    for payload in received[:-1]:
        await late._on_message(mine, payload)
    await late._on_message(room_topic(CODE), final)
    assert late.verified is True and late.deal_report.startswith(
        "Deal verified for what this Passe was shown: "
    )
    await late._on_message(mine, received[-1])
    assert late.verified is True and late.deal_report == verified


async def test_a_listener_connected_later_gets_the_table_as_it_stands() -> None:
    """Kills connect's mutants: a listener connected once the view is known
    is given it at once, with the whole log and no refusal."""
    authority, table, _ = await a_seat_in_play()
    await deliver(authority, table)
    move(authority)
    await deliver(authority, table)
    later: list[TableUpdate] = []
    await table.connect(later.append)
    assert later == [TableUpdate(table.view, tuple(table.log), None)]  # type: ignore[arg-type]
    assert table.view is not None and len(table.log) >= 2


async def test_a_record_the_engine_refuses_unforeseen_is_a_failed_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _replay_check's mutant of its last guard: a revealed record
    the engine refuses in a way the check did not foresee (an error of the
    rules, or a value error) is a failed check, in words, never an error in
    the message loop."""
    authority = await a_finished_game()
    for error in (IllegalAction("no such card"), ValueError("no such card")):

        def refuses(*args: object, failure: Exception = error) -> None:
            raise failure

        monkeypatch.setattr(remote_module, "check_shown", refuses)
        table = remote()
        table.seat = 0
        await table._on_message(room_topic(CODE), authority._room_payload())
        assert table.verified is False and table.deal_report == (
            "Deal check FAILED: the revealed record does not replay (no such card)."
        )


async def test_an_update_past_the_log_asks_for_the_missing_events_once_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _on_update's mutants of a gap: one Sync (from the log's end)
    per log length and RESYNC_WAIT (asked again only once more than that
    has passed), nothing taken meanwhile; an older seq ignored."""
    clock = [1000.0]  # remote.py's monotonic clock, the test's to move
    monkeypatch.setattr(
        remote_module, "time", SimpleNamespace(monotonic=lambda: clock[0], time_ns=time.time_ns)
    )
    authority, table, updates = await a_seat_in_play()
    link = linked(table, authority)
    await deliver(authority, table)
    held = len(table.log)
    view = authority.codec.encode_view(authority.table.state.view(0))  # type: ignore[union-attr]
    gap = Update(room=CODE, seq=authority.seq + 1, view=view, base=held + 1, events=[])
    for _ in range(2):
        await table._on_message(*_sealed_to(authority, ME, gap))
    await within_turns(lambda: bool(link.published))
    await asyncio.sleep(0)
    (sync,) = requests_of(link, ME, authority)
    assert sync == Sync(room=CODE, epoch=table._epoch, n=1, have=held)
    assert len(table.log) == held and table.seq == authority.seq and len(updates) == 1
    clock[0] += remote_module.RESYNC_WAIT  # not more than the wait: not yet
    await table._on_message(*_sealed_to(authority, ME, gap))
    await asyncio.sleep(0)
    assert requests_of(link, ME, authority) == []
    clock[0] += 0.001
    await table._on_message(*_sealed_to(authority, ME, gap))
    await within_turns(lambda: bool(link.published))
    assert [s.n for s in requests_of(link, ME, authority)] == [2]
    older = Update(room=CODE, seq=authority.seq - 1, view=view, base=held + 5, events=[])
    await table._on_message(*_sealed_to(authority, ME, older))
    await asyncio.sleep(0)
    assert requests_of(link, ME, authority) == [] and len(updates) == 1


async def test_an_update_that_does_not_decode_or_is_for_another_seat_is_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _on_update's mutants of its two refusals (logged, the first
    with the codec's reason)."""
    import logging

    authority, table, updates = await a_seat_in_play()
    assert table.codec is not None
    with pytest.raises(CodecError) as refused:
        table.codec.decode_view({"game": "chess"})
    state = authority.table.state  # type: ignore[union-attr]
    other = authority.codec.encode_view(state.view(1))
    with caplog.at_level(logging.WARNING, logger="passe.peer"):
        for view in ({"game": "chess"}, other):
            update = Update(room=CODE, seq=1, view=view, base=0, events=[])
            await table._on_message(*_sealed_to(authority, ME, update))
    assert table.view is None and table.log == [] and updates == []
    lines = [r.getMessage() for r in caplog.records if r.name == "passe.peer"]
    assert lines[0] == f"ignored an update that does not decode: {refused.value}"
    assert lines[1] == "ignored an update for seat 1"


async def test_refusals_are_told_removed_or_answered_and_others_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _on_message's mutants of private messages: nothing before the
    host's key; another signer's and another recipient's dropped (counted
    by kind, each kind logged once in words, a second one no error);
    another room's ignored; a Welcome seats; each message taken in the
    debug log; "removed" drops the seat in the lobby (kept mid-game) and
    tells the room's listeners the room; any other refusal acknowledged
    (the highest n) and shown, cleaned."""
    import logging

    caplog.set_level(logging.DEBUG, logger="passe.peer")
    authority, table, updates = await a_seat_in_play()
    await deliver(authority, table)
    topic = to_peer_topic(CODE, ME.peer_id)
    no_key = remote()
    await no_key._on_message(*_sealed_to(authority, ME, Welcome(room=CODE, seat=2)))
    assert no_key.seat is None and no_key._floods.counts == {}
    impostor = Identity.generate()
    await table._on_message(topic, seal(impostor, topic, Welcome(room=CODE, seat=2)))
    stranger = Identity.generate()
    await table._on_message(
        topic, seal(authority.identity, topic, Welcome(room=CODE, seat=2), stranger.public_key)
    )
    assert table._floods.counts == {"dropped-sender": 1, "dropped-sealed": 1}
    await table._on_message(topic, seal(impostor, topic, Welcome(room=CODE, seat=2)))
    await table._on_message(
        topic, seal(authority.identity, topic, Welcome(room=CODE, seat=2), stranger.public_key)
    )
    assert table._floods.counts == {"dropped-sender": 2, "dropped-sealed": 2}  # no error
    with pytest.raises(WireError) as not_ours:
        open_envelope(
            topic,
            seal(authority.identity, topic, Welcome(room=CODE, seat=2), stranger.public_key),
            identity=ME,
        )
    dropped = [r.getMessage() for r in caplog.records if r.getMessage().startswith("dropped")]
    assert dropped == [
        f"dropped a message on {topic}: not from this room's host",
        f"dropped a message on {topic}: {not_ours.value.reason}",
    ]
    await table._on_message(*_sealed_to(authority, ME, Welcome(room="XYZ789", seat=2)))
    assert table.seat == 0
    await table._on_message(*_sealed_to(authority, ME, Welcome(room=CODE, seat=2)))
    assert table.seat == 2
    taken = [r.getMessage() for r in caplog.records if r.getMessage().startswith("from the host")]
    assert taken[-1] == f"from the host: {Welcome(room=CODE, seat=2)!r}"
    rooms: list[RoomState] = []
    table.room = authority.room_state()
    table.on_room(rooms.append)
    removed = Refused(room=CODE, reason="out", code="removed")
    await table._on_message(*_sealed_to(authority, ME, removed))
    assert table.removed == "out" and table.seat == 2 and len(rooms) == 2  # mid-game: kept
    assert rooms[-1] is table.room
    table.room = msgspec.structs.replace(table.room, phase="lobby")
    await table._on_message(*_sealed_to(authority, ME, removed))
    assert table.seat is None and len(rooms) == 3
    table.room = None
    table.seat = 1
    await table._on_message(*_sealed_to(authority, ME, removed))
    assert table.seat is None and len(rooms) == 3
    table.seat = 0
    for n in (7, 4):
        refused = Refused(room=CODE, reason="\x1b[31mno\u202e", code="illegal", n=n)
        await table._on_message(*_sealed_to(authority, ME, refused))
    assert table.acked == 7 and [u.rejected for u in updates[-2:]] == ["no", "no"]


# -- what goes out: actions, seats taken again, requests --------------------------


async def test_an_action_is_sent_for_our_seat_and_its_answer_awaited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills submit's mutants: no seat (its error), the Act (room, epoch,
    the next n, our seat, the action's notation, the seq seen, 0 before
    any), its n remembered as pending; connected: no refusal shown, and
    the table asked for after ACT_WAIT unless the act was answered by
    then; not connected: told so at once."""
    authority, table, updates = await a_seat_in_play()
    link = linked(table, authority)
    while authority.table.state.to_act[0] != 0:  # type: ignore[union-attr]
        authority.table.step_bot()  # type: ignore[union-attr]
    await deliver(authority, table)
    monkeypatch.setattr(remote_module, "ACT_WAIT", 3600.0)
    legal = authority.table.state.view(0).legal[0]  # type: ignore[union-attr]
    table._n = 3
    await table.submit(legal)
    await within_turns(lambda: bool(link.published))
    (act,) = requests_of(link, ME, authority)
    assert act == Act(room=CODE, epoch=table._epoch, n=4, seat=0, action=str(legal), at=table.seq)
    assert table.last_action_n == 4 and table.action_pending
    table.acked = 4
    assert not table.action_pending
    table.seq = -1
    await table.submit(legal)
    await within_turns(lambda: bool(link.published))
    assert requests_of(link, ME, authority)[0].at == 0
    assert all(update.rejected is None for update in updates)
    monkeypatch.setattr(remote_module, "ACT_WAIT", 0.0)
    table.acked = 0
    await table.submit(legal)  # unanswered: the table is asked for
    await within_turns(lambda: len(link.published) >= 2)
    act, sync = requests_of(link, ME, authority)[:2]
    assert isinstance(act, Act) and sync == Sync(
        room=CODE, epoch=table._epoch, n=act.n + 1, have=len(table.log)
    )
    table.acked = 10**6  # the checks stop
    for _ in range(5):  # (a Sync already on its way is published)
        await asyncio.sleep(0)
    requests_of(link, ME, authority)
    await table.submit(legal)
    table.acked = table.last_action_n  # answered before the wait is over
    for _ in range(5):
        await asyncio.sleep(0)
    assert [type(m) for m in requests_of(link, ME, authority)] == [Act]
    link.connected = False
    await table.submit(legal)
    assert updates[-1].rejected == "not connected to the table: reconnecting…"
    table.seat = None
    with pytest.raises(IllegalAction, match=r"^you have no seat at this table$"):
        await table.submit(legal)


async def test_a_seat_is_taken_again_until_answered_while_the_link_is_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _take_seat_again's and _reseat_if_unanswered's mutants: the
    Hello (our seat, the log held), sent again after RESEAT_WAIT unless
    answered, closed, seatless, over or closed, or the link down."""
    monkeypatch.setattr(remote_module, "RESEAT_WAIT", 0.0)
    authority = room()
    table = remote()
    link = linked(table, authority)
    table.seat, table.log = 1, [object(), object()]  # type: ignore[list-item]
    table._take_seat_again()
    await within_turns(lambda: len(link.published) >= 2)
    table.acked = 10**6
    await asyncio.sleep(0)  # the check already due sees the answer
    await asyncio.sleep(0)
    hellos = requests_of(link, ME, authority)
    assert [(h.seat, h.have, h.n) for h in hellos[:2]] == [(1, 2, 1), (1, 2, 2)]
    for quiet in ("closed", "seatless", "over", "shut", "down", "answered"):
        table.acked = 5 if quiet == "answered" else 0  # the Hello's own n: answered
        table._closed = quiet == "closed"
        table.seat = None if quiet == "seatless" else 1
        table.room = a_room_state(phase={"over": "over", "shut": "closed"}.get(quiet, "lobby"))
        link.connected = quiet != "down"
        table._reseat_if_unanswered(5)
        await asyncio.sleep(0)
        assert requests_of(link, ME, authority) == [], quiet


async def test_an_unanswered_request_says_why_the_host_did_not_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _request's mutants: the Hello sent again while unanswered (at
    most HELLO_RESENDS times), then the error: the host away (its presence
    says so) or silent, in words, after leaving the link (unless told not
    to); a reply before then returned."""
    # The six resends take at most 0.022 s of the 0.6 s: a loaded machine's
    # late turns do not cut them short (CI, Python 3.13: 3 of 6 sent within
    # 0.3 s, when they needed up to 0.22 s).
    monkeypatch.setattr(remote_module, "REPLY_WAIT", 0.6)
    monkeypatch.setattr(remote_module, "HELLO_RESEND_FIRST", 0.002)
    monkeypatch.setattr(remote_module, "HELLO_RESEND_MOST", 0.004)
    authority = room()
    table = remote()
    link = linked(table, authority)
    with pytest.raises(JoinError) as error:
        async with asyncio.timeout(3.0):  # a deadline never reached fails here
            await table._request(
                table._hello(None, have=0), resend=lambda: table._hello(None, have=0)
            )
    assert (str(error.value), error.value.code) == (
        f"the host of room {format_code(CODE)} did not answer: it may have left",
        "timeout",
    )
    hellos = requests_of(link, ME, authority)
    assert len(hellos) == 1 + remote_module.HELLO_RESENDS
    assert link.final is not None and table._pending is None
    table = remote()
    link = linked(table, authority)
    table.host_present = False
    with pytest.raises(JoinError) as error:
        await table._request(Sync(room=CODE, epoch=1, n=1), abandon=False)
    assert error.value.code == "host-away" and str(error.value) == (
        f"the host of room {format_code(CODE)} is away (its Passe stopped or lost its link): "
        "the game "
        "waits for it; try again once it is back (`u` on its home screen, or `passe host "
        "--resume`)"
    )
    assert len(requests_of(link, ME, authority)) == 1 and link.final is None
    answering = asyncio.create_task(table._request(Sync(room=CODE, epoch=1, n=2)))
    await within_turns(lambda: table._pending is not None)
    table._pending.set_result(Welcome(room=CODE, seat=1))  # type: ignore[union-attr]
    assert await answering == Welcome(room=CODE, seat=1) and table._pending is None


async def test_a_hello_unanswered_is_sent_again_after_doubling_waits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _request's mutants of the schedule of a Hello sent again
    (docs/protocol.md section 11): each wait drawn from a half to the whole
    of the delay, the delay doubling from HELLO_RESEND_FIRST (up to
    HELLO_RESEND_MOST), within REPLY_WAIT."""
    drawn: list[tuple[float, float]] = []

    def uniform(low: float, high: float) -> float:
        drawn.append((low, high))
        return high  # the whole delay: the times below are known

    monkeypatch.setattr(remote_module, "random", SimpleNamespace(uniform=uniform))
    # 1.4 s: the third resend (0.7 s) has 0.7 s to spare on a loaded
    # machine, and the fourth (1.5 s) is past the deadline however late.
    monkeypatch.setattr(remote_module, "REPLY_WAIT", 1.4)
    monkeypatch.setattr(remote_module, "HELLO_RESEND_FIRST", 0.1)
    monkeypatch.setattr(remote_module, "HELLO_RESEND_MOST", 10.0)
    authority = room()
    table = remote()
    link = linked(table, authority)
    with pytest.raises(JoinError):
        async with asyncio.timeout(5.0):
            await table._request(
                table._hello(None, have=0), resend=lambda: table._hello(None, have=0)
            )
    assert drawn and set(drawn) == {(0.5, 1.0)}
    # Sent again after 0.1, 0.3 and 0.7 s; the next (1.5 s) is past the deadline.
    assert len(requests_of(link, ME, authority)) == 4


async def test_the_record_the_deal_check_and_the_end_from_the_room() -> None:
    """Kills record's, deal_check's and _end_from_room's mutants: no record
    before the end (nor a damaged one); the check's answer, or None when
    it does not come in time; our seat's end from a room over that lists
    our key, none otherwise. And _replay_check's of a seat not yet taken:
    checked from the seat the room lists for our key, or said to be
    checked against the commitment alone when it lists none."""
    authority = await a_finished_game(Identity.generate())
    table = remote()
    assert table.record() is None
    async with asyncio.timeout(1.0):  # a wait without its bound fails here, not never
        assert await table.deal_check(0.01) is None
    assert table._end_from_room() is None
    await table._on_message(room_topic(CODE), authority._room_payload())
    assert table.record() == authority.table.record()  # type: ignore[union-attr]
    assert await table.deal_check(0.01) is True
    assert table.deal_report == (
        "Deal matched the host's commitment (you held no seat to check it from)."
    )
    assert table._end_from_room() is None  # our key holds no seat there
    ours = remote()
    authority.seats[0].key = ME.public_key
    await ours._on_message(room_topic(CODE), authority._room_payload())
    # Back at a room over (no seat yet): checked from the seat our key holds.
    assert ours.verified is True and ours.deal_report == (
        "Deal matched the host's commitment; this seat was shown nothing of the game "
        "to check it against."
    )
    assert ours._end_from_room() == 0 and ours.seat == 0 and ours.view is not None
    assert ours.room is not None
    damaged = msgspec.structs.replace(ours.room, record={"game": "passpass"})
    ours.room = damaged
    assert ours.record() is None
    lobby = remote()
    lobby.room = msgspec.structs.replace(authority.room_state(), phase="lobby")
    assert lobby._end_from_room() is None and lobby.seat is None


# -- a seat's own bookkeeping ------------------------------------------------------


def test_a_fresh_seat_holds_nothing_owes_nothing_and_numbers_from_the_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills __init__'s mutants of a seat before anything came: no names
    (the table screen zips them with scores), not removed (the lobby says
    why when it is), no deal report to show, no action pending, a person's
    Hello not a bot's; and its requests numbered from the clock's
    milliseconds, so that a new process of the same key is newer than any
    earlier one (the host refuses a request older than one it handled)."""
    table = remote()
    assert table.names == () and table.removed is None and table.deal_report == ""
    assert not table.action_pending and table._hello(None, have=0).bot is False
    now_ms = 1_800_000_000_000
    monkeypatch.setattr(remote_module, "time", SimpleNamespace(time_ns=lambda: now_ms * 10**6))
    assert remote()._epoch == now_ms


async def test_a_record_revealed_without_its_salt_ends_nothing() -> None:
    """Kills __init__'s mutant that holds the commitment before any check:
    a room over whose record comes without the salt to check it against
    the commitment gives no end from that record."""
    authority = await a_finished_game()
    state = msgspec.structs.replace(authority.room_state(), salt=b"")
    table = remote()  # coming back to it (join): our key holds seat 0
    await table._on_message(room_topic(CODE), seal(authority.identity, room_topic(CODE), state))
    assert table._end_from_room() is None
    assert table.room is not None and table.view is None and table.verified is None


def test_a_seat_knows_the_pinned_key_and_pins_the_room_it_sits_in(tmp_path: Path) -> None:
    """Kills __init__'s pin mutants (a pinned key read, pinned or not) and
    _pin's (the room, its key and broker remembered only with pins and a
    key)."""
    pins = RoomPins(tmp_path / "pins.json")
    key = Identity.generate().public_key
    assert not remote(pins=pins).pinned and remote(pins=pins).authority_key is None
    table = remote(pins=pins)
    table._pin()  # no key yet: nothing
    assert pins.recent(5) == []
    table.authority_key = key
    table.broker_host, table.broker_port = "10.0.0.7", 1884
    table._pin()
    (sat,) = RoomPins(tmp_path / "pins.json").recent(5)
    assert (sat.code, sat.key, sat.broker) == (CODE, key, ("10.0.0.7", 1884))
    again = remote(pins=RoomPins(tmp_path / "pins.json"))
    assert again.authority_key == key and again.pinned
    given = remote(pins=pins, authority_key=b"k" * 32)
    assert given.authority_key == b"k" * 32 and given.pinned
    remote()._pin()  # no pins: nothing, no error


def test_each_connection_is_a_newer_presence_epoch_with_its_own_will(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _will's and _presence_payload's mutants: the epoch grows (at
    least by one, and to the clock's milliseconds when they are ahead: a
    connection an hour later is an hour newer), the will is "gone" on our
    presence topic, the name cut at 40."""
    table = RemoteTable(ME, CODE, "127.0.0.1", 1, "N" * 50)
    before = table._presence_epoch
    will = table._will()
    assert table._presence_epoch >= before + 1
    topic = presence_topic(CODE, ME.peer_id)
    assert will.topic == topic
    gone = open_body(open_envelope(topic, will.payload, expect_key=ME.public_key), presence_decoder)
    assert gone == Presence(room=CODE, epoch=table._presence_epoch, online=False, name="N" * 40)
    table._presence_epoch = 2**60
    table._will()
    assert table._presence_epoch == 2**60 + 1
    later = before + 3_600_000  # ms
    monkeypatch.setattr(wire, "time", SimpleNamespace(time_ns=lambda: later * 10**6))
    table._presence_epoch = before
    table._will()
    assert table._presence_epoch == later


def test_the_room_shown_has_every_text_cleaned() -> None:
    """Kills shown_room's mutants: each text field cleaned and bounded
    (names, kinds, levels, peers, game, host, phase, app, notice, config)."""
    dirty = "\x1b[31m"
    state = a_room_state(
        game=dirty + "passpass",
        host=dirty + "H" * 70,
        phase=dirty + "lobby",
        app=dirty + "1.0",
        notice=dirty + "hi\u202e",
        config={"name": dirty + "x"},
        seats=[SeatState(dirty + "Ana", dirty + "human", dirty + "lvl", dirty + "peer")],
    )
    shown = remote_module.shown_room(state)
    assert (shown.game, shown.host, shown.phase, shown.app, shown.notice) == (
        "passpass",
        "H" * 64,
        "lobby",
        "1.0",
        "hi",
    )
    assert shown.config == {"name": "x"}
    assert shown.seats == [SeatState("Ana", "human", "lvl", "peer")]
    long = remote_module.shown_room(
        a_room_state(
            game="g" * 20,
            phase="p" * 10,
            app="a" * 40,
            seats=[SeatState("n" * 40, "k" * 10, "l" * 20, "q" * 16)],
        )
    )
    assert (long.game, long.phase, long.app) == ("g" * 20, "p" * 10, "a" * 40)
    assert long.seats[0].kind == "k" * 10 and long.seats[0].level == "l" * 20
    assert long.seats[0].peer == "q" * 16
    # One cell more: cut at each bound.
    longer = remote_module.shown_room(
        a_room_state(
            game="g" * 21,
            phase="p" * 11,
            app="a" * 41,
            seats=[SeatState("n", "k" * 11, "l" * 21, "q" * 17)],
        )
    )
    assert (longer.game, longer.phase, longer.app) == ("g" * 20, "p" * 10, "a" * 40)
    assert (longer.seats[0].kind, longer.seats[0].level, longer.seats[0].peer) == (
        "k" * 10,
        "l" * 20,
        "q" * 16,
    )


async def test_listeners_are_told_now_and_later_and_can_stop() -> None:
    """Kills on_room's, on_link's, on_host's and _on_link_state's mutants:
    a room known is told at once; each unsubscribes; the link's state
    reaches each listener."""
    table = remote()
    rooms: list[RoomState] = []
    stop = table.on_room(rooms.append)
    assert rooms == []
    table.room = a_room_state()
    later: list[RoomState] = []
    table.on_room(later.append)
    assert later == [table.room]
    stop()
    assert table._room_listeners == [later.append]
    links: list[bool] = []
    stop_link = table.on_link(links.append)
    table._on_link_state(False)
    table._on_link_state(True)
    assert links == [False, True]
    stop_link()
    table._on_link_state(False)
    assert links == [False, True]
    hosts: list[bool] = []
    stop_host = table.on_host(hosts.append)
    stop_host()
    assert table._host_listeners == []
    assert not table.connected
    linked(table, room())
    assert table.connected
    table._started.set()
    await table.wait_started()


async def test_on_connecting_our_presence_goes_out_the_beat_starts_and_the_seat_is_taken_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _on_connect's and _abandon's mutants: our presence, online,
    retained; the beat started once (not when closed); the seat taken
    again when we hold one; on leaving, the beat stopped."""
    monkeypatch.setattr(remote_module, "RESEAT_WAIT", 3600.0)
    authority = room()
    table = remote()
    link = linked(table, authority)
    await table._on_connect()
    topic = presence_topic(CODE, ME.peer_id)
    ((where, payload, retain),) = link.published
    assert (where, retain) == (topic, True)
    online = open_body(open_envelope(topic, payload), presence_decoder)
    assert online.online and online.epoch == table._presence_epoch
    beat = table._beat
    assert beat is not None and not beat.done()
    link.published.clear()
    table.seat = 2
    await table._on_connect()
    assert table._beat is beat  # still the same
    await within_turns(lambda: len(link.published) >= 2)
    hello = requests_of(link, ME, authority)
    assert [(m.seat, type(m).__name__) for m in hello] == [(2, "Hello")]
    await table.close()
    assert beat.cancelled() and table._beat is None
    closed = remote()
    linked(closed, authority)
    closed._closed = True
    await closed._on_connect()
    assert closed._beat is None


def test_the_log_summary_of_each_message() -> None:
    """Kills _summary's mutants (an update's counts; any other as repr)."""
    update = Update(room=CODE, seq=3, view={}, base=2, events=[1, 2], rejected="no", ack=4)
    assert remote_module._summary(update) == (
        "Update(seq=3, base=2, events=2, ack=4, rejected='no')"
    )
    welcome = Welcome(room=CODE, seat=1)
    assert remote_module._summary(welcome) == repr(welcome)


# -- joining, in-process ---------------------------------------------------------


async def test_joining_hands_the_link_what_it_needs_and_takes_the_seat_offered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills join's mutants of the link it makes: the broker and its
    alternates, the topics (any version's room, our private topic, the next
    game, and the pinned host's presence: its will is heard from the
    start), our will ("gone" on our presence topic), the link's state told
    to our listeners, CONNECT_WAIT to connect; the seat the host offers
    taken; an unreachable broker said in its words ("unreachable"); no
    room within the wait ("no-room")."""
    authority = room()
    listen(authority)
    monkeypatch.setattr(remote_module, "MqttLink", BrokerLink)
    monkeypatch.setattr(BrokerLink, "made", [])
    monkeypatch.setattr(BrokerLink, "retained", {room_topic(CODE): authority._room_payload()})
    host_presence = presence_topic(CODE, authority.identity.peer_id)
    table = RemoteTable(
        ME,
        CODE,
        "127.0.0.1",
        1,
        "Ana",
        authority_key=authority.identity.public_key,
        alternates=[("127.0.0.2", 2)],
    )
    states: list[bool] = []
    table.on_link(states.append)
    joining = asyncio.create_task(table.join())
    await within_turns(lambda: len(BrokerLink.made) == 1 and len(BrokerLink.made[0].published) >= 2)
    (link,) = BrokerLink.made
    await pump(authority, table, link)
    assert await joining == 0 and table.seat == 0
    assert (link.host, link.port, link.options["alternates"]) == (
        "127.0.0.1",
        1,
        (("127.0.0.2", 2),),
    )
    assert link.subscriptions == [
        f"passe/+/{CODE}/room",
        to_peer_topic(CODE, ME.peer_id),
        next_topic(CODE),
        authority_topic(CODE),  # the elected authority's announcements (issue 20)
        watchers_topic(CODE),  # how many watch (issue 21)
        host_presence,
    ]
    # As long for each node of the cluster (a NATS node can be slow to take
    # subscriptions: docs/scale.md).
    assert link.timeout == 2 * remote_module.CONNECT_WAIT
    will = link.options["will"]()
    assert will.topic == presence_topic(CODE, ME.peer_id)
    gone = open_body(open_envelope(will.topic, will.payload), presence_decoder)
    assert not gone.online and gone.epoch == table._presence_epoch
    link.options["on_state"](False)
    assert states == [False]
    await table.close()
    # An unreachable broker, in its words.
    monkeypatch.setattr(BrokerLink, "unreachable", "cannot reach the broker at 127.0.0.1:1")
    with pytest.raises(JoinError) as error:
        await RemoteTable(ME, CODE, "127.0.0.1", 1, "Ana").join()
    assert (str(error.value), error.value.code) == (
        "cannot reach the broker at 127.0.0.1:1",
        "unreachable",
    )
    # No room on that broker within the wait (our pin of it no matter).
    monkeypatch.setattr(BrokerLink, "unreachable", None)
    monkeypatch.setattr(BrokerLink, "retained", {})
    pinned = RemoteTable(ME, CODE, "127.0.0.1", 1, "Ana", authority_key=b"k" * 32)
    with pytest.raises(JoinError) as error:
        async with asyncio.timeout(2.0):  # a wait without its bound fails here
            await pinned.join(timeout=0.05)
    assert error.value.code == "no-room"


async def test_joining_a_room_over_where_our_key_sits_ends_from_its_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills join's mutants of the end from the room: a room over that
    lists our key is our seat at once, its end from the revealed record,
    nothing asked of a host that may be gone; and a room that ends while
    our Hello goes unanswered (its host gone with it) is the same; but a
    record that does not match the deal's commitment ends nothing (the
    host is asked, and does not answer here)."""
    monkeypatch.setattr(remote_module, "REPLY_WAIT", 0.2)
    authority = await a_finished_game()
    listen(authority)
    joining_on(monkeypatch, {room_topic(CODE): authority._room_payload()})
    table = remote()
    async with asyncio.timeout(2.0):
        assert await table.join() == 0
    assert table.view is not None and table.view.is_over and table.verified is True
    (link,) = BrokerLink.made
    assert [t for t, _, _ in link.published] == [presence_topic(CODE, ME.peer_id)]
    await table.close()
    # The room in play when we ask; over before any answer.
    authority.phase = "playing"
    joining_on(monkeypatch, {room_topic(CODE): authority._room_payload()})
    authority.phase = "over"
    final = authority._room_payload()  # a newer stamp
    table = remote()
    joining = asyncio.create_task(table.join())
    await within_turns(lambda: bool(BrokerLink.made) and len(BrokerLink.made[0].published) >= 2)
    await table._on_message(room_topic(CODE), final)
    async with asyncio.timeout(2.0):
        assert await joining == 0
    assert table.view is not None and table.view.is_over
    await table.close()
    # A record that does not match its commitment ends nothing: the host is asked.
    state = authority.room_state()
    assert state.record is not None
    forged = msgspec.structs.replace(
        state, record={**state.record, "seed": 1 + state.record["seed"]}
    )
    joining_on(monkeypatch, {room_topic(CODE): seal(authority.identity, room_topic(CODE), forged)})
    table = remote()
    with pytest.raises(JoinError) as error:
        async with asyncio.timeout(2.0):
            await table.join()
    assert error.value.code == "timeout" and table.view is None and table.verified is False
    assert len(requests_of(BrokerLink.made[0], ME, authority)) >= 1  # its Hello


async def test_joining_a_finished_game_without_a_seat_there_is_refused_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by hand: a stranger who knew a finished room's code (its host
    gone on to the next game's room) knocked, waited, and read "the host is
    away… `passe host --resume`". A room over with no seat of ours is said
    over at once, as its host would say it, and nothing is sent to it."""
    monkeypatch.setattr(remote_module, "REPLY_WAIT", 30.0)  # no answer is waited for
    authority = await a_finished_game()
    joining_on(monkeypatch, {room_topic(CODE): authority._room_payload()})
    stranger = Identity.generate()
    table = remote(stranger)
    with pytest.raises(JoinError) as error:
        async with asyncio.timeout(2.0):
            await table.join()
    assert (str(error.value), error.value.code) == (
        f"the game in room {format_code(CODE)} is over",
        "started",
    )
    assert requests_of(BrokerLink.made[-1], stranger, authority) == []
    assert table.seat is None and table.view is None


async def test_joining_a_game_in_play_takes_the_view_that_follows_the_welcome(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _on_message's mutant that waits for join() to take the seat
    of a Welcome: in a game in play the host's Welcome is followed at once
    by our view and the log, before join() resumes; both are ours."""
    authority, _, _ = await a_seat_in_play()
    joining_on(monkeypatch, {room_topic(CODE): authority._room_payload()})
    table = remote()
    joining = asyncio.create_task(table.join())
    await within_turns(lambda: bool(BrokerLink.made) and len(BrokerLink.made[0].published) >= 2)
    (link,) = BrokerLink.made
    await pump(authority, table, link)  # the Welcome, then the update, in one go
    async with asyncio.timeout(2.0):
        assert await joining == 0
    assert table.view is not None and table.view.seat == 0
    assert table.log == seat_events(authority)
    await table.close()


async def test_a_join_unanswered_asks_again_for_the_same_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills join's mutants of its Hello and the one sent again while
    unanswered (the seat asked, nothing of the log held, our name)."""
    monkeypatch.setattr(remote_module, "HELLO_RESEND_FIRST", 0.01)
    authority = room()
    listen(authority)
    joining_on(monkeypatch, {room_topic(CODE): authority._room_payload()})
    table = remote(bot=True)  # a bot process: its Hello says so
    joining = asyncio.create_task(table.join(2))
    await within_turns(lambda: bool(BrokerLink.made))
    (link,) = BrokerLink.made
    await until(lambda: len(requests_of(link, ME, authority, keep=True)) >= 2, timeout=2.0)
    hellos = requests_of(link, ME, authority, keep=True)
    assert [(h.seat, h.have, h.name, h.bot) for h in hellos[:2]] == [(2, 0, "Ana", True)] * 2
    await pump(authority, table, link)
    async with asyncio.timeout(2.0):
        assert await joining == 2
    await table.close()


async def test_a_join_to_a_room_that_asks_waits_for_the_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills join's mutants of a knock: the host's "knock" answer makes the
    join wait for its decision (told to our knock listeners), and the seat
    it then gives is ours."""
    authority = room(admission="ask")
    listen(authority)
    joining_on(monkeypatch, {room_topic(CODE): authority._room_payload()})
    table = remote()
    told: list[str] = []
    table.on_knock(told.append)
    joining = asyncio.create_task(table.join())
    await within_turns(lambda: bool(BrokerLink.made) and len(BrokerLink.made[0].published) >= 2)
    (link,) = BrokerLink.made
    await pump(authority, table, link)
    await within_turns(lambda: table.knocking)
    assert len(told) == 1 and not joining.done()
    authority.admit(ME.public_key)
    await pump(authority, table, link)
    async with asyncio.timeout(2.0):
        assert await joining == 0
    assert table.seat == 0 and not table.knocking
    await table.close()


# -- joining, on the machine's Mosquitto --------------------------------------------


BROKER = ("127.0.0.1", 1883)


def _hosted(code: str, **options: object) -> Authority:
    return Authority(
        Identity.generate(),
        code,
        "passpass",
        get_game("passpass").make_config(players=3),
        "host",
        *BROKER,
        bot_delay=0,
        **options,  # type: ignore[arg-type]
    )


async def test_joining_says_why_not_in_words() -> None:
    """Kills join's mutants of each refusal: no room (words with the code
    and broker, "no-room"), another protocol version's room ("version"),
    a pinned room signed by another key ("foreign"), a closed room
    ("closed"), the host's refusal (its words and code); and its success
    (the seat, the key pinned)."""
    need_mosquitto()
    code = new_code()
    try:
        table = RemoteTable(Identity.generate(), code, *BROKER, "Ana")
        with pytest.raises(JoinError) as error:
            await table.join(timeout=0.5)
        assert (str(error.value), error.value.code) == (
            f"no room {format_code(code)} at 127.0.0.1:1883: check the code",
            "no-room",
        )
        async with RawClient(*BROKER, []) as raw:
            await raw.publish(f"passe/v9/{code}/room", b"x", retain=True)
            table = RemoteTable(Identity.generate(), code, *BROKER, "Ana")
            with pytest.raises(JoinError) as error:
                await table.join(timeout=0.5)
            assert error.value.code == "version" and str(error.value) == (
                f"room {format_code(code)} speaks protocol version 9; this Passe speaks version "
                f"{wire.PROTOCOL_VERSION}: use the same Passe version"
            )
            await raw.publish(f"passe/v9/{code}/room", b"", retain=True)
            # A state signed by its host that this Passe cannot read (one of
            # a later version, say): "no room … check the code" misled a
            # play-tester; it says the state was found, not read, and why.
            topic = f"passe/v1/{code}/room"
            later = Watchers(room=code, count=1, stamp=1)  # any other body
            await raw.publish(topic, seal(Identity.generate(), topic, later), retain=True)
            table = RemoteTable(Identity.generate(), code, *BROKER, "Ana")
            with pytest.raises(JoinError) as error:
                await table.join(timeout=0.5)
            assert error.value.code == "version" and str(error.value).startswith(
                f"room {format_code(code)} was found, but this Passe cannot read its state "
                "(malformed message: "
            )
            assert str(error.value).endswith(
                "its host may run another version of Passe; use the same version"
            )
            # A host of protocol version 1 (an earlier Passe) on the same
            # topics: its state's envelope is refused by its version, before
            # any signature; the join says so, not "check the code".
            earlier = msgspec.msgpack.decode(seal(Identity.generate(), topic, later), type=Envelope)
            old = msgspec.msgpack.encode(msgspec.structs.replace(earlier, v=1))
            await raw.publish(topic, old, retain=True)
            table = RemoteTable(Identity.generate(), code, *BROKER, "Ana")
            with pytest.raises(JoinError) as error:
                await table.join(timeout=0.5)
            assert error.value.code == "version" and str(error.value) == (
                f"room {format_code(code)} was found, but this Passe cannot read its state "
                "(protocol version 1; this Passe speaks version 2): its host may run another "
                "version of Passe; use the same version"
            )
            await raw.publish(topic, b"", retain=True)
        authority = _hosted(code, clear_on_close=False)  # its closed state stays
        await authority.start()
        try:
            stranger = Identity.generate().public_key
            table = RemoteTable(Identity.generate(), code, *BROKER, "Ana", authority_key=stranger)
            with pytest.raises(JoinError) as error:
                await table.join(timeout=0.5)
            assert error.value.code == "foreign" and str(error.value) == (
                f"room {format_code(code)} is now signed by another key "
                f"({fingerprint(authority.identity.public_key)}) than the one of its host "
                "when you sat there: ignored. If that host opened a new room under this "
                "code, ask them for a new one"
            )
            for seat in range(3):
                authority.set_bot(seat, "heuristic")
            table = RemoteTable(Identity.generate(), code, *BROKER, "Ana")
            with pytest.raises(JoinError) as error:
                await table.join(timeout=0.5)
            assert (str(error.value), error.value.code) == (
                f"room {format_code(code)} is full: you can still watch it.",
                "full",
            )
            authority.set_bot(0, None)
            pins = RoomPins(None)
            table = RemoteTable(Identity.generate(), code, *BROKER, "Ana", pins=pins)
            assert await table.join(timeout=0.5) == 0 and table.seat == 0
            assert pins.get(code) == authority.identity.public_key
            await table.close()
        finally:
            await authority.close()
        table = RemoteTable(Identity.generate(), code, *BROKER, "Ana")
        with pytest.raises(JoinError) as error:
            await table.join(timeout=0.5)
        assert (str(error.value), error.value.code) == (
            f"room {format_code(code)} was closed by its host",
            "closed",
        )
    finally:
        await clear_room(code)


async def test_a_started_game_whose_first_update_never_came_is_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by hand (a screen host, a joiner let in after 3,000 fresh-key
    Hellos filled the host's outbox): the game started, the joiner's first
    update was dropped past the bounded outbox, and its table stayed empty
    for good. A seat that sees the room playing and has no view takes its
    seat again after RESEAT_WAIT, which brings the view and the log; not
    when the update came meanwhile. Fails without _ask_for_the_table."""
    monkeypatch.setattr(remote_module, "RESEAT_WAIT", 0.0)
    authority = room()
    table = remote()
    link = linked(table, authority)
    table.seat = 1
    table._ask_for_the_table(a_room_state(phase="lobby"))
    table._ask_for_the_table(a_room_state(phase="playing"))
    await within_turns(lambda: bool(link.published))
    [hello] = requests_of(link, ME, authority)
    assert (hello.seat, hello.have) == (1, 0)
    table.acked = hello.n  # answered: no Hello again
    table._ask_for_the_table(a_room_state(phase="playing", stamp=2))  # asked once
    other = remote()
    other_link = linked(other, authority)
    other.seat = 1
    other._ask_for_the_table(a_room_state(phase="playing"))
    other.view = object()  # type: ignore[assignment]  # the update came meanwhile
    for _ in range(5):
        await asyncio.sleep(0)
    assert requests_of(other_link, ME, authority) == []
    other.view = None  # what it says on leaving is not this test's
    for each in (table, other):
        await each.close()


async def test_the_watchers_count_is_the_hosts_newest_told_to_room_listeners(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """How many watch (issue 21), on the retained watchers topic: only once
    the host's key is known, only signed by it (another key's count is
    dropped, logged in words and counted), only for this room, only a newer
    stamp; an empty payload (a cleared topic) is nothing; a Watched answer
    sets it too; room listeners are told each change, once. Kills
    _on_watchers' mutants (1-28: the guards, the envelope's key, the note's
    kind, words and clock, the stamp kept, the count), _on_watched's and
    _set_watching's (the change only, the listeners told with the room)."""
    import logging

    authority = room()
    table = remote()
    topic = watchers_topic(CODE)

    def count(watchers: int, stamp: int, signer: Identity | None = None, code: str = CODE) -> bytes:
        message = Watchers(room=code, count=watchers, stamp=stamp)
        return seal(signer or authority.identity, topic, message)

    await table._on_message(topic, count(2, 5))  # the host's key not known yet
    assert table.watching == 0
    linked(table, authority)
    table.room = a_room_state(phase="lobby")
    told: list[RoomState] = []
    table.on_room(told.append)
    told.clear()
    await table._on_message(topic, b"")  # cleared: nothing, not even a drop
    assert table.watching == 0 and "watchers" not in table._floods.counts
    await table._on_message(topic, count(2, 5))
    assert table.watching == 2 and told == [table.room]
    impostor = Identity.generate()
    forged = count(7, 9, impostor)
    with pytest.raises(WireError) as refused:
        open_envelope(topic, forged, expect_key=authority.identity.public_key)
    with caplog.at_level(logging.WARNING, logger="passe.peer"):
        await table._on_message(topic, forged)
        await table._on_message(topic, count(7, 10, impostor))  # counted, not said again
    assert table.watching == 2 and table._floods.counts["watchers"] == 2
    assert [r.getMessage() for r in caplog.records if r.name == "passe.peer"] == [
        f"ignored a count: {refused.value.reason}"
    ]
    await table._on_message(topic, count(3, 5))  # the same stamp: not newer
    await table._on_message(topic, count(3, 4))
    await table._on_message(topic, count(3, 9, code="XYZ789"))  # another room's
    assert table.watching == 2 and len(told) == 1
    await table._on_message(topic, count(2, 6))  # newer, the same count: nobody told
    assert table.watching == 2 and len(told) == 1
    await table._on_message(topic, count(4, 7))
    assert table.watching == 4 and told == [table.room, table.room]
    await table._on_message(*_sealed_to(authority, ME, Watched(room=CODE, watchers=5)))
    assert table.watching == 5 and len(told) == 3


async def test_standing_is_said_in_a_hello_only_for_a_seat_held_while_open() -> None:
    """RemoteTable.set_stand before a seat is held only keeps the choice
    (the join's Hello carries it), and a closed table sends nothing. Kills
    set_stand's mutants (mutmut_2: `or`, a Hello for no seat before joining)."""
    authority = room()
    table = remote()
    link = linked(table, authority)
    table.set_stand(False)
    for _ in range(5):
        await asyncio.sleep(0)
    assert table.stand is False and requests_of(link, ME, authority) == []
    table.seat = 1
    table._closed = True
    table.set_stand(True)
    for _ in range(5):
        await asyncio.sleep(0)
    assert table.stand is True and requests_of(link, ME, authority) == []
    table._closed = False
    table.set_stand(False)
    await within_turns(lambda: bool(link.published))
    [hello] = requests_of(link, ME, authority)
    assert (hello.seat, hello.stand) == (1, False)


def test_the_name_a_voter_gives_is_our_seats_in_the_room_or_ours() -> None:
    """_own_name (what this seat's voter calls itself, issue 20): the name
    the room lists for our seat, else the name we joined with (no room, no
    seat, a seat past the room's). Kills its mutants 1-5."""
    table = remote()
    assert table._own_name() == "Ana"
    table.seat = 1
    assert table._own_name() == "Ana"  # no room yet
    table.room = a_room_state(seats=[SeatState("Host", "human"), SeatState("Ana B.", "human")])
    assert table._own_name() == "Ana B."
    table.seat = 2  # past the room's seats
    assert table._own_name() == "Ana"
    table.seat = None
    assert table._own_name() == "Ana"


def test_a_table_that_moves_tells_its_listeners_the_term_until_they_stop() -> None:
    """on_moved (net/peer/headless.py reports "moved"): each listener hears the
    term of the authority the table moved to; the function it returns stops
    that listener only. Kills on_moved's mutants 1-3."""
    table = remote()
    table._closed = True  # no seat to take again here
    heard: list[int] = []
    others: list[int] = []
    stop = table.on_moved(heard.append)
    table.on_moved(others.append)
    table.term = 3
    table._repin(Identity.generate().public_key)
    assert heard == [3] and others == [3]
    stop()
    table.term = 4
    table._repin(Identity.generate().public_key)
    assert heard == [3] and others == [3, 4]


def test_a_watched_answer_to_a_join_is_refused_in_words() -> None:
    """Kills _refusal's mutants 1-8 (the words and code of a join answered
    as a watch, a host's mistake)."""
    error = _refusal(Watched(room=CODE, watchers=1))
    assert (str(error), error.code) == ("the host answered a join as a watch", "bad")


async def test_a_table_moves_to_the_key_a_voter_announces(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Failover seen from a seat (issue 20, docs/election.md section 10):
    an announcement heard before the room's voters is read once they are
    known; the table then accepts only the new key (pinned, said in a log
    line, its presence subscribed, our seat taken again there), replays the
    state that key signed meanwhile, and starts its room, presence and
    watchers stamps anew (they are the new authority's own); the voters
    are pinned. A second move counts again; an older or equal term, a key
    of another length, or the key already followed moves nothing; a
    garbled announcement is dropped in words, counted. Kills _repin's
    mutants (1-44: the log line, moves counted, pinned, foreign key
    forgotten, epochs and stamps reset, the subscription, the kept state,
    the seat taken again, 18: the new host's first presence, of epoch 1,
    not taken as newer), _on_announce's (2, 17-28) and _follow_config's
    (6-8 the undecodable config's words, 11-15 a former voter's close named
    in its failure, 21-22 the voters pinned, 25-26 the announcement kept
    for later)."""
    import logging

    voter = Identity.generate()
    old, successor, third = room(), room(), room()
    pins = RoomPins(tmp_path / "pins")
    pins.remember(CODE, old.identity.public_key, ("127.0.0.1", 1))
    table = remote(pins=pins)
    link = linked(table, old)
    table.seat = 1
    moved: list[int] = []
    table.on_moved(moved.append)
    topic = authority_topic(CODE)

    def announce(term: int, key: bytes) -> bytes:
        return seal(voter, topic, Announce(term=term, room_key=key))

    def state(signer: Authority, stamp: int) -> bytes:
        return seal(signer.identity, room_topic(CODE), a_room_state(phase="lobby", stamp=stamp))

    def count(signer: Authority, watchers: int, stamp: int) -> bytes:
        message = Watchers(room=CODE, count=watchers, stamp=stamp)
        return seal(signer.identity, watchers_topic(CODE), message)

    await table._on_message(room_topic(CODE), state(old, 9))
    await table._on_message(watchers_topic(CODE), count(old, 2, 50))
    assert table.room is not None and table.room.stamp == 9 and table.watching == 2
    await table._on_message(room_topic(CODE), state(successor, 1))  # another key's: kept
    assert table.room.stamp == 9 and successor.identity.public_key in table._foreign_keys
    await table._on_message(topic, announce(2, successor.identity.public_key))
    assert table.authority_key == old.identity.public_key  # no voters known yet
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="passe.peer"):
        table._follow_config(b"junk", vote=False)
    assert [r.getMessage() for r in caplog.records if r.name == "passe.peer"] == [
        "ignored a room's election config that does not decode"
    ]
    caplog.clear()
    voters = [voter.public_key, ME.public_key, old.identity.public_key]
    config, _ = make_room_config(voter, voters)
    link.published.clear()

    async def fails() -> None:
        raise OSError("its file is gone")

    # A voter of another room that had this code: closed, its failure said.
    table.voter = SimpleNamespace(close=fails)  # type: ignore[assignment]
    with caplog.at_level(logging.INFO, logger="passe.peer"):
        table._follow_config(encode_room_config(config), vote=False)
        await within_turns(lambda: any(r.name == "passe.replication" for r in caplog.records))
    assert table.voter is None
    assert [r.getMessage() for r in caplog.records if r.name == "passe.replication"] == [
        "a former voter's close failed: its file is gone"
    ]
    assert pins.voters(CODE) == frozenset(voters)
    key = successor.identity.public_key
    assert (table.authority_key, table.pinned, table.term, moved) == (key, True, 2, [2])
    assert table.table_voter == voter.peer_id  # the voter that runs the table
    assert table._moves == 1 and key not in table._foreign_keys
    assert [r.getMessage() for r in caplog.records if r.name == "passe.peer"] == [
        f"the table moved: room {CODE} is signed by {fingerprint(key)} now"
    ]
    assert presence_topic(CODE, successor.identity.peer_id) in link.subscriptions
    assert table.room.stamp == 1  # its state kept, replayed over ours reset to 0
    await within_turns(lambda: bool(link.published))
    [hello] = requests_of(link, ME, successor)
    assert hello.seat == 1
    # Its presence and its watchers count, with stamps of its own.
    presence = Presence(room=CODE, epoch=1, online=True)
    await table._on_message(
        presence_topic(CODE, successor.identity.peer_id),
        seal(successor.identity, presence_topic(CODE, successor.identity.peer_id), presence),
    )
    assert table.host_present  # (present until said otherwise)
    await within_turns(lambda: bool(link.published))  # its first presence: our seat again
    [hello] = requests_of(link, ME, successor)
    assert hello.seat == 1
    await table._on_message(watchers_topic(CODE), count(successor, 3, 1))
    assert table.watching == 3
    # What moves nothing: an equal term, the key followed, a key of another length.
    await table._on_message(topic, announce(2, third.identity.public_key))
    await table._on_message(topic, announce(3, key))
    await table._on_message(topic, announce(4, b"k" * 16))
    assert (table.authority_key, table.term, table._moves, moved) == (key, 4, 1, [2])
    with caplog.at_level(logging.WARNING, logger="passe.peer"):
        caplog.clear()
        await table._on_message(topic, b"junk")
        await table._on_message(topic, b"junk again")
    with pytest.raises(WireError) as refused:
        open_envelope(topic, b"junk")
    assert [r.getMessage() for r in caplog.records if r.name == "passe.peer"] == [
        f"ignored an announcement: {refused.value.reason}"
    ]
    assert table._floods.counts["announce-bad"] == 2
    # A second move, with no state kept from its key: ours kept, reset.
    await table._on_message(topic, announce(5, third.identity.public_key))
    assert table._moves == 2 and moved == [2, 5]
    assert table.room is not None and table.room.stamp == 0
    await table._on_message(room_topic(CODE), state(third, 1))
    assert table.room.stamp == 1


async def test_the_states_of_the_last_four_other_keys_are_kept_for_a_move() -> None:
    """_keep_foreign_room keeps the latest state of MAX_FOREIGN_ROOMS other
    keys, the one heard longest ago dropped first (a key heard again is
    the newest). Kills its mutants 1 (the key heard again not moved up), 4
    (nothing kept) and 5 (`>=`: one fewer kept)."""
    assert remote_module.MAX_FOREIGN_ROOMS == 4
    table = remote()
    others = [room() for _ in range(5)]

    def state(signer: Authority, stamp: int) -> bytes:
        return seal(signer.identity, room_topic(CODE), a_room_state(phase="lobby", stamp=stamp))

    linked(table, room())
    for other in others[:4]:
        await table._on_message(room_topic(CODE), state(other, 1))
    table._repin(others[0].identity.public_key)
    assert table.room is not None  # the fourth key heard is still kept
    table = remote()
    linked(table, room())
    for other in others[:4]:
        await table._on_message(room_topic(CODE), state(other, 1))
    await table._on_message(room_topic(CODE), state(others[0], 2))  # heard again
    await table._on_message(room_topic(CODE), state(others[4], 1))  # drops others[1]
    table._repin(others[1].identity.public_key)
    assert table.room is None
    table._repin(others[0].identity.public_key)
    assert table.room is not None and table.room.stamp == 2


def _successor(authority: Authority) -> Authority:
    """The room as an elected successor runs it (net/peer/failover.py's
    _take_over): the same saved room, signed with a fresh key."""
    saved = authority.snapshot(authority._broker_choice())
    fresh = Identity.generate()
    saved = msgspec.structs.replace(saved, authority_key=bytes(fresh.signing_key))
    successor = Authority.restore(saved, "127.0.0.1", 1)
    listen(successor)
    assert successor.table is not None
    return successor


@pytest.mark.parametrize("handled_before", [False, True])
async def test_an_action_unanswered_when_the_table_moved_is_sent_again_with_its_nonce(
    monkeypatch: pytest.MonkeyPatch, handled_before: bool
) -> None:
    """Issue 20 ("a peer whose unacknowledged action was in flight re-sends
    it with the same nonce, and a duplicate gets the original answer, never
    a second application"). Ana's Act is unanswered when the table moves:
    lost before the old authority saw it, or handled there with its answer
    lost. Re-pinned to the successor, her table sends the same Act (same
    epoch and n) before the Hello that takes her seat there; the successor
    applies it once (lost), or answers it with her view (handled): either
    way it is acknowledged, played exactly once, and nothing is refused.
    Fails without _send_action_again (the move is lost: the person must
    make it again) or with the repeat refused as stale."""
    monkeypatch.setattr(remote_module, "ACT_WAIT", 3600.0)
    monkeypatch.setattr(remote_module, "RESEAT_WAIT", 3600.0)
    authority, table, updates = await a_seat_in_play()
    link = linked(table, authority)
    game = authority.table
    assert game is not None
    while game.state.to_act[0] != 0:
        game.step_bot()
    await pump(authority, table, link)
    played = len(game.record().actions)
    await table.submit(game.state.view(0).legal[0])
    await within_turns(lambda: bool(link.published))
    if handled_before:
        await authority._on_message(*link.published[0][:2])  # handled, its answer lost
        assert len(game.record().actions) == played + 1
        while authority._outbox.pop() is not None:  # type: ignore[union-attr]
            pass
    (act,) = requests_of(link, ME, authority)
    assert table.action_pending
    successor = _successor(authority)
    await successor.table.stop()  # type: ignore[union-attr]
    table._repin(successor.identity.public_key)
    await within_turns(lambda: len(link.published) >= 2)
    again, hello = requests_of(link, ME, successor, keep=True)
    assert again == act and isinstance(hello, Hello) and hello.n > act.n
    await pump(successor, table, link)
    record = successor.table.record()  # type: ignore[union-attr]
    assert len(record.actions) == played + 1 and record.actions[-1][0] == 0
    assert not table.action_pending and table.acked >= act.n
    assert all(update.rejected is None for update in updates)
    assert table.view is not None and not table.view.legal  # her turn is over


async def test_only_the_latest_unanswered_action_is_sent_again_and_it_is_said(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """When the table moves, _send_action_again sends nothing for an action
    already answered, nor for one a newer action followed; the latest one
    unanswered goes as it was, with a log line. Kills its mutants 2-3 (an
    answered action sent again) and 7-12 (the line's words and number)."""
    import logging

    authority = room()
    table = remote()
    link = linked(table, authority)
    act = Act(room=CODE, epoch=1, n=5, seat=0, action="x", at=0)
    table._last_act, table.last_action_n, table.acked = act, 5, 5  # answered
    table._send_action_again()
    table.last_action_n, table.acked = 6, 0  # a newer action followed
    table._send_action_again()
    for _ in range(5):
        await asyncio.sleep(0)
    assert requests_of(link, ME, authority) == []
    table.last_action_n = 5
    with caplog.at_level(logging.INFO, logger="passe.peer"):
        table._send_action_again()
    await within_turns(lambda: bool(link.published))
    assert requests_of(link, ME, authority) == [act]
    assert [r.getMessage() for r in caplog.records if r.name == "passe.peer"] == [
        "action 5 was unanswered when the table moved: sent again"
    ]


async def test_a_room_between_authorities_is_waited_for_move_wait_and_not_for_ever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """_find_room with the room's voters known waits MOVE_WAIT in all, and
    no longer ("no-room" then), where the room may be between authorities:
    this process votes in it (a seat restarted from its voter file: the
    next authority may need its vote first), or a voter's announcement or
    another key's state is there. With no such trace, the caller's wait
    only: a host back after its table moved and its game ended there (the
    room cleared) waited 20 s to learn so. Kills its mutants 42-46 (the
    wait None, for ever, or a max of None) and the extension's."""
    joining_on(monkeypatch, {})
    monkeypatch.setattr(remote_module, "MOVE_WAIT", 30.0)
    loop = asyncio.get_running_loop()

    async def gives_up_after(table: RemoteTable) -> float:
        started = loop.time()
        with pytest.raises(JoinError) as error:
            async with asyncio.timeout(60.0):  # a wait without its bound fails here
                await table._find_room(0.05)
        assert error.value.code == "no-room"
        return loop.time() - started

    traceless = remote()
    traceless._voters = frozenset({ME.public_key})
    assert await gives_up_after(traceless) < 5.0  # not MOVE_WAIT
    monkeypatch.setattr(remote_module, "MOVE_WAIT", 0.3)
    announced = remote()
    announced._voters = frozenset({ME.public_key})
    announced._announcement = b"an announcement"
    assert await gives_up_after(announced) >= 0.3
    foreign = remote()
    foreign._voters = frozenset({ME.public_key})
    foreign._foreign_rooms[b"k" * 32] = ("topic", b"state")
    assert await gives_up_after(foreign) >= 0.3
    voting = remote()
    voting._voters = frozenset({ME.public_key})
    voting.voter = object()  # type: ignore[assignment]
    assert await gives_up_after(voting) >= 0.3
    voting.voter = None
    nobody = remote()  # no voters known: the caller's wait, a trace or not
    nobody._announcement = b"an announcement"
    assert await gives_up_after(nobody) < 0.3


async def test_the_first_room_state_names_the_host_whose_presence_is_then_followed() -> None:
    """Trust on first use (docs/protocol.md): a table that knows no host
    key takes the signer of the first room state as the host, and follows
    its presence from then on (its will is heard). Kills
    _on_room_message's mutants 50-55 (the presence topic subscribed)."""
    authority = room()
    table = remote()
    link = MemoryLink()
    table._link = link  # type: ignore[assignment]
    await table._on_message(room_topic(CODE), authority._room_payload())
    assert table.authority_key == authority.identity.public_key
    assert link.subscriptions == [presence_topic(CODE, authority.identity.peer_id)]


async def test_the_table_is_asked_for_once_by_a_seat_without_a_view_while_linked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """_ask_for_the_table asks (a Hello for our seat) only in a game in
    play, for a seat held with no view yet, on a table not closed, with the
    link up, and once. Kills its mutants 1-3 (the room's phase, the seat,
    the view), 8-10 (asked again) and 17 (sent with the link down)."""
    monkeypatch.setattr(remote_module, "RESEAT_WAIT", 0.0)
    authority = room()
    playing = a_room_state(phase="playing")

    async def asked(table: RemoteTable, link: MemoryLink, state: RoomState) -> list[Any]:
        table._ask_for_the_table(state)
        for _ in range(5):
            await asyncio.sleep(0)
        return requests_of(link, ME, authority)

    def seat_without_view(**fields: object) -> tuple[RemoteTable, MemoryLink]:
        table = remote()
        link = linked(table, authority)
        table.seat = 1
        table._reseat_if_unanswered = lambda n: None  # type: ignore[method-assign]  # one Hello
        for name, value in fields.items():
            setattr(table, name, value)
        return table, link

    # Each case on a table of its own: a first call marks the table asked.
    assert await asked(*seat_without_view(seat=None), playing) == []
    assert await asked(*seat_without_view(), a_room_state(phase="lobby")) == []
    assert await asked(*seat_without_view(view=object()), playing) == []
    assert await asked(*seat_without_view(_closed=True), playing) == []
    table, link = seat_without_view()
    link.connected = False
    assert await asked(table, link, playing) == []  # down: its own Hello comes when back
    table, link = seat_without_view()
    [hello] = await asked(table, link, playing)
    assert hello.seat == 1
    assert await asked(table, link, a_room_state(phase="playing", stamp=2)) == []


def test_a_seat_stands_for_the_table_unless_its_person_declines() -> None:
    """Failover is on by default (issue 20): a seat's Hello says it stands
    unless its person said no (`passe join --no-stand`). Kills remote
    __init__ mutmut_2 (the default turned to "declines": with it, a room of
    three people's machines has too few who stand and never fails over)."""
    me = Identity.generate()
    assert RemoteTable(me, "ABC123", "127.0.0.1", 1, "Ana")._hello(0, have=0).stand is True
    declining = RemoteTable(me, "ABC123", "127.0.0.1", 1, "Ana", stand=False)
    assert declining._hello(0, have=0).stand is False


async def test_a_later_process_follows_the_table_by_the_voters_its_pins_kept(
    tmp_path: Path,
) -> None:
    """Pins keep the voters of a room that fails over (docs/election.md
    section 10): a later process of the same person, before any room state
    reaches it, follows an announcement signed by one of them, and takes
    the new room key. Kills remote __init__ mutmut_90 and 92 (the voters not
    read from the pins: the announcement waited for a room state that the
    old key signed, or none)."""
    me, voter, successor = Identity.generate(), Identity.generate(), Identity.generate()
    pins = RoomPins(tmp_path / "pins.json")
    pins.remember("ABC123", Identity.generate().public_key)  # the host's key, first met
    pins.remember_voters("ABC123", frozenset({voter.public_key, me.public_key}))
    table = RemoteTable(me, "ABC123", "127.0.0.1", 1, "Ana", pins=RoomPins(tmp_path / "pins.json"))
    topic = authority_topic("ABC123")
    move = Announce(term=2, room_key=successor.public_key)
    await table._on_message(topic, seal(voter, topic, move))
    assert table.authority_key == successor.public_key and table.term == 2


async def test_a_table_knows_it_moved_seen_or_announced_before_it_came(tmp_path: Path) -> None:
    """RemoteTable.moved (the game-over screen's "the table moved: no next
    game"): not for the maker's own term 1; yes once the seat followed a
    move, and yes for a seat that came after it, pinned to the successor's
    key already, by the announcement's term (the old host's person, found
    by hand)."""
    me, voter, host, successor = (Identity.generate() for _ in range(4))
    topic = authority_topic("ABC123")

    def a_table(first_key: bytes, name: str) -> RemoteTable:
        pins = RoomPins(tmp_path / name)
        pins.remember("ABC123", first_key)
        pins.remember_voters("ABC123", frozenset({voter.public_key, me.public_key}))
        return RemoteTable(me, "ABC123", "127.0.0.1", 1, "Ana", pins=RoomPins(tmp_path / name))

    table = a_table(host.public_key, "seen.json")
    await table._on_message(topic, seal(voter, topic, Announce(1, host.public_key)))
    assert table.term == 1 and not table.moved
    await table._on_message(topic, seal(voter, topic, Announce(2, successor.public_key)))
    assert table.authority_key == successor.public_key and table.moved
    later = a_table(successor.public_key, "later.json")
    assert not later.moved
    await later._on_message(topic, seal(voter, topic, Announce(2, successor.public_key)))
    assert later.authority_key == successor.public_key and later.moved
    # Only a seat at the table saw it move just now (the screen's "the table
    # just moved: everyone is reconnecting"): one still joining finds it
    # where it is (a play-test read that line after a plain rejoin).
    assert table.moved_at is None and later.moved_at is None
    table.seat = 1
    await table._on_message(topic, seal(voter, topic, Announce(3, host.public_key)))
    assert table.moved_at is not None


async def test_an_update_with_an_array_as_a_map_key_is_refused_in_words(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """msgpack decodes an array used as a map key to a tuple; cleaning the
    view's text made it a list, unhashable: a TypeError from the message
    handler instead of a refusal (found by mutation testing of
    net/protocol/text.py, 5 December)."""
    import logging

    authority, table, updates = await a_seat_in_play()
    state = authority.table.state  # type: ignore[union-attr]
    view = authority.codec.encode_view(state.view(0))
    strange = {**view, "hand": {(1, "\x1b[2J"): "x"}}
    with caplog.at_level(logging.WARNING):
        update = Update(room=CODE, seq=1, view=strange, base=0, events=[])
        await table._on_message(*_sealed_to(authority, ME, update))
        update = Update(room=CODE, seq=1, view=view, base=0, events=[{(1,): {(2, 3): 4}}])
        await table._on_message(*_sealed_to(authority, ME, update))
    assert table.view is None and table.log == [] and updates == []
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    assert all(line.startswith("ignored an update that does not decode: ") for line in lines)


async def test_a_table_that_moved_here_is_kept_for_the_next_game_when_the_seat_closes() -> None:
    """keep_table(): the table this process runs (it moved here), its game
    over, is taken from the seat's voter, once, before the table screen
    closes the seat: closed with it, the next game had no table to be
    announced from (found writing that feature's test). With no voter there
    is nothing to keep. Mutations: the voter not asked, asked twice."""
    table = remote()
    with pytest.raises(IllegalAction, match=r"^this machine runs no table$"):
        table.keep_table()

    the_table = cast(HandedTable, "the table")  # a stand-in: only handed on and compared

    class Voter:
        def __init__(self) -> None:
            self.handed = 0
            self.closed = False
            self.authority = None  # (runs no table: keep_table asks it all the same)

        def hand_over_table(self) -> HandedTable:
            self.handed += 1
            return the_table

        async def close(self) -> None:
            self.closed = True

    voter = Voter()
    table.voter = voter  # type: ignore[assignment]
    table.keep_table()
    table.keep_table()
    assert table.kept_table == the_table and voter.handed == 1
    await table.close()
    assert voter.closed and table.kept_table == the_table  # its new owner closes it


def test_a_seat_that_has_the_game_s_record_keeps_its_voters_from_standing() -> None:
    """Found in a play-test (5 December): when the table that ran a
    finished game closed (its person opened the next game), the old host's
    returned voter stood, won the finished room, and its screen said "the
    table moved" under "Game over" while the others went on to the next
    game. A seat with the final state (its record) retires its voters, its
    own and its machine's first one: they vote on, never stand. Before the
    record, they stand as ever (a table that died at the end is taken
    over). Mutations: the retirement dropped, or done before the end."""

    class Node:
        def __init__(self) -> None:
            self.retired = False

        def retire(self) -> None:
            self.retired = True

    class Voter:
        def __init__(self) -> None:
            self.replica = SimpleNamespace(driver=SimpleNamespace(node=Node()))

    host = Identity.generate()
    table = remote(authority_key=host.public_key)
    seat_voter, maker_voter = Voter(), Voter()
    table.voter = seat_voter  # type: ignore[assignment]
    table._maker = (None, maker_voter)  # type: ignore[assignment]
    topic = room_topic(CODE)
    playing = a_room_state(phase="playing", stamp=1)
    table._on_room_message(topic, seal(host, topic, playing))
    assert table.room is not None and table.room.phase == "playing"
    assert not seat_voter.replica.driver.node.retired
    over = a_room_state(phase="over", stamp=2, record={"seed": 1}, salt=b"s" * 16)
    table._on_room_message(topic, seal(host, topic, over))
    assert table.room.phase == "over"
    assert seat_voter.replica.driver.node.retired and maker_voter.replica.driver.node.retired


def test_the_table_this_process_runs_may_be_its_host_s_first_voter_s() -> None:
    """A host's machine back from the dead runs the room's first voter
    beside its seat, and it may win a term: then this process runs the
    table as much as when its seat's voter wins (found in a play-test: the
    old host held the table at the end and nobody could open the next
    game). Mutations: only the seat's voter looked at."""

    class Voter:
        def __init__(self, runs: bool) -> None:
            self.authority = object() if runs else None
            self.replica = SimpleNamespace(is_authority=runs)

    table = remote()
    assert not table.runs_the_table and table._table_voter() is None
    seat, maker = Voter(runs=False), Voter(runs=True)
    table.voter = seat  # type: ignore[assignment]
    table._maker = (None, maker)  # type: ignore[assignment]
    assert table.runs_the_table and table._table_voter() is maker
    table.voter = Voter(runs=True)
    assert table._table_voter() is table.voter


def test_the_table_s_seat_is_its_voter_s_after_a_move_and_the_host_s_before() -> None:
    """The seat whose person's machine runs the table (its ⚠ when that
    machine goes: tui/screens/table.py): before any move the host's own
    seat, by its name; after one, the seat of the voter that announced the
    term (a seat's voter signs with the seat's key); none in a dealer's
    room, nor when no person's seat matches (a headless host)."""
    joe, kim = Identity.generate(), Identity.generate()
    seats = [
        SeatState("Host", "bot", "heuristic", "", True),  # a bot of the host's name
        SeatState("Host", "human", "", ME.peer_id, True),
        SeatState("Joe", "human", "", joe.peer_id, True),
        SeatState("Kim", "human", "", kim.peer_id, True),
    ]
    table = remote()
    assert table.table_seat() is None  # no room yet
    table.room = a_room_state(phase="playing", seats=seats)
    assert table.table_seat() == 1
    table.table_voter = kim.peer_id
    assert table.table_seat() == 3
    table.table_voter = Identity.generate().peer_id  # a voter with no seat here
    assert table.table_seat() is None
    table.room = a_room_state(phase="playing", seats=seats, host="Joe", dealer="Dealer")
    table.table_voter = ""
    assert table.table_seat() is None


def test_the_host_s_seat_counts_the_room_s_machines_with_the_table_s_own_voter() -> None:
    """The host's person's seat has no voter of its own: it counts the
    room's machines with the table's voter in its process (its bar says
    when too few are here for a move to count); with neither, nothing."""
    table = remote()
    assert table.machines_reachable() is None
    counted = [False]
    driver = SimpleNamespace(
        voters_online=lambda: 1,
        node=SimpleNamespace(voters=[b"a", b"b", b"c"]),
        counting=lambda: counted[0],
    )
    table.hosted_replica = lambda: SimpleNamespace(driver=driver)  # type: ignore[assignment,return-value]
    assert table.machines_reachable() is None  # just connected: the others' records to come
    counted[0] = True
    assert table.machines_reachable() == (1, 3)


def test_the_machines_not_found_are_named_by_whose_they_are() -> None:
    """The bar says whose machines the game waits for: a seat's person by
    name (a bot process's seat too), a dealer as such, and the voter that
    is no seat's (the table's first, in its host's process) as the host's,
    or the first host's once the table moved. None when this process does
    not vote."""
    from net.election.messages import Voter

    table = remote()
    assert table.machines_away() == []
    joe, kim, bot, maker = (Identity.generate() for _ in range(4))
    seats = [
        SeatState("Hana", "human", present=True),
        SeatState("Joe", "human", peer=joe.peer_id),
        SeatState("Kim", "human", peer=kim.peer_id, present=True),
        SeatState("Robo", "bot", "heuristic", peer=bot.peer_id),
    ]
    table.room = a_room_state(phase="playing", seats=seats, host="Hana")
    away = [
        Voter(maker.public_key, dealer=False),
        Voter(joe.public_key, dealer=False),
        Voter(Identity.generate().public_key, dealer=True),
        Voter(bot.public_key, dealer=False),
    ]
    counted = [False]
    driver = SimpleNamespace(voters_away=lambda: away, counting=lambda: counted[0])
    table.hosted_replica = lambda: SimpleNamespace(driver=driver)  # type: ignore[assignment,return-value]
    assert table.machines_away() == []  # not counted yet: nobody named
    counted[0] = True
    assert table.machines_away() == ["the host's", "Joe's", "a dealer's", "Robo's"]
    table._moves = 1  # the table moved: "the host" is another machine's now
    assert table.machines_away()[0] == "the first host's"


def test_an_update_before_a_room_state_it_can_read_is_dropped_in_words(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An update (sealed to this seat by its authority) before any room
    state this Passe could read, one of a later version say: there is no
    game to decode it by. It raised AssertionError, a traceback in a
    play-test's log; it is dropped, said once, and nothing changes."""
    import logging

    table = remote()
    assert table.codec is None
    update = Update(room=CODE, seq=3, view={}, base=0, events=[])
    with caplog.at_level(logging.INFO, logger="passe.peer"):
        table._on_update(update)
        table._on_update(update)
    assert (table.seq, table.view, table.log) == (-1, None, [])
    said = [r.getMessage() for r in caplog.records if "room's state is not known" in r.getMessage()]
    assert said == ["dropped an update: the room's state is not known yet"]


async def test_a_refused_join_closes_the_voter_it_started_from_its_file() -> None:
    """A seat's process back from its files votes again before the room
    answers (its voter file). Refused ("the game has already started": its
    person had left the game), the voter ran on in a process that showed
    nothing of the room, and won the table's next election there (found in
    a play-test: "The table moved to Joe's machine", Joe on his home
    screen). A refused join closes everything it started."""
    need_mosquitto()
    closed: list[str] = []

    class Voter:
        async def close(self) -> None:
            closed.append("voter")

    table = RemoteTable(Identity.generate(), new_code(), *BROKER, "Joe")

    def resume_voter() -> None:
        table.voter = Voter()  # type: ignore[assignment]

    table._resume_voter = resume_voter  # type: ignore[method-assign]
    with pytest.raises(JoinError, match="no room"):
        await table.join(timeout=0.3)
    assert closed == ["voter"] and table._closed


class LinkHere:
    """A seat's link, as far as the room's search moves it."""

    def __init__(self, where: tuple[str, int]) -> None:
        self.host, self.port = where
        self.connected, self.closed = True, False
        self.moved_to: list[tuple[str, int]] = []

    def move_to(self, broker: tuple[str, int]) -> None:
        self.moved_to.append(broker)


def voter_at(where: tuple[str, int], *, term: int, knows_authority: bool, up: bool = True) -> Any:
    """A voter of this process, as far as the seat reads where it is."""
    link = SimpleNamespace(host=where[0], port=where[1], connected=up)
    node = SimpleNamespace(term=term, authority=b"k" * 32 if knows_authority else None)
    return SimpleNamespace(replica=SimpleNamespace(driver=SimpleNamespace(link=link, node=node)))


async def test_a_seat_with_no_room_where_it_is_goes_where_its_machine_s_voter_hears_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A seat on a broker where the room's state does not come goes where a
    voter of its own process is up and knows the authority of a term at
    least the seat's, before it looks on the LAN: its seat's voter, or the
    room's first voter run again by the machine that made it (the maker).
    A seat on the LAN: a stale advert answered for the room's code, the
    live table's was refused, and the old host's seat, back, sat on a
    standby broker the table had left (CI, 6 December). Not to a voter
    that is down, knows no authority, is behind the seat, or is where the
    seat is already: those are looked for on the LAN."""
    monkeypatch.setattr(remote_module, "ROOM_HERE_WAIT", 0.0)
    monkeypatch.setattr(remote_module, "ROOM_SEARCH_GAP", 0.0)
    here, there = ("127.0.0.1", 40001), ("127.0.0.1", 40002)
    looked: list[tuple[str, int]] = []

    def ready(**voters: Any) -> tuple[RemoteTable, LinkHere]:
        table = remote()
        table.room = a_room_state(phase="playing")
        table.term = 3
        link = LinkHere(here)
        table._link = link  # type: ignore[assignment]
        table.voter = voters.get("voter")
        maker = voters.get("maker")
        table._maker = (SimpleNamespace(), maker) if maker is not None else None  # type: ignore[assignment]
        return table, link

    async def on_the_lan(self: RemoteTable, where: tuple[str, int]) -> None:
        looked.append(where)
        self._closed = True  # looked once: enough for this test

    monkeypatch.setattr(RemoteTable, "_room_on_the_lan", on_the_lan)
    for found in (
        {"voter": voter_at(there, term=3, knows_authority=True)},
        {"maker": voter_at(there, term=4, knows_authority=True)},
        {
            "voter": voter_at(here, term=3, knows_authority=True),
            "maker": voter_at(there, term=3, knows_authority=True),
        },
    ):
        table, link = ready(**found)
        await table._look_for_the_room()
        assert link.moved_to == [there] and (table.broker_host, table.broker_port) == there
        assert looked == []
    for not_found in (
        {},
        {"voter": voter_at(there, term=3, knows_authority=False)},
        {"voter": voter_at(there, term=2, knows_authority=True)},
        {"maker": voter_at(there, term=3, knows_authority=True, up=False)},
        {"voter": voter_at(here, term=5, knows_authority=True)},
    ):
        looked.clear()
        table, link = ready(**not_found)
        await table._look_for_the_room()
        assert link.moved_to == [] and looked == [here], not_found
