"""What a voter's driver does with what reaches its topic (net/election/driver.py,
``VoterDriver._on_message``), in process with real sealed messages: junk and
floods are dropped, counted and logged once (bounded: issue 19), and at the
authority a seat's action goes into the log only as ciphertext under the
room secret (issue 20, "Nobody peeks"), or not at all when it would not fit.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from net.election.driver import TOPIC_RATE, VoterDriver
from net.election.messages import MAX_ENTRY_DATA, Request
from net.election.node import Node, Role
from net.identity import Identity
from net.protocol.wire import seal
from tests.net.peers import until
from tests.net.voter_drivers import Network, voter_drivers


def _role(node: Node) -> Role:
    """The node's role now: a call, so that mypy keeps no narrowing of an
    earlier check across the node's methods that change it."""
    return node.role


async def test_junk_on_a_voter_s_topic_is_dropped_counted_and_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Anyone with the room code can publish to a voter's topic: what does
    not open (not signed, not sealed to it, not a message) changes nothing,
    and a burst of it writes one log line, not one each."""
    voter = voter_drivers(tmp_path, 3)[1]
    term, log = voter.node.term, list(voter.node.log)
    with caplog.at_level(logging.WARNING, logger="passe.election"):
        for junk in (b"junk", b"\x93\x01\x02\x03", b""):
            await voter._on_message(voter.topic, junk)
    assert voter._floods.counts == {"election-bad": 3}
    assert len(caplog.messages) == 1
    assert caplog.messages[0].startswith("dropped an election message: ")
    assert voter.node.term == term and list(voter.node.log) == log and voter._outbox.empty()


async def test_a_flood_past_the_rate_is_dropped_unread_and_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """More than the topic's burst at one moment: the rest is dropped
    before it is even opened (what a sender can make a voter spend is
    bounded), counted, and said in one line."""
    voter = voter_drivers(tmp_path, 3)[1]
    voter.clock = lambda: 100.0  # one moment: no budget comes back meanwhile
    burst = TOPIC_RATE.message_burst
    with caplog.at_level(logging.WARNING, logger="passe.election"):
        for _ in range(int(burst) + 10):
            await voter._on_message(voter.topic, b"junk")
    assert voter._floods.counts["election-flood"] == 10
    assert voter._floods.counts["election-bad"] == burst  # those let in were opened
    assert "dropped election messages past the rate" in caplog.messages


def _request_to(authority: VoterDriver, seat: VoterDriver, data: bytes) -> tuple[str, bytes]:
    """``seat``'s Request of ``data``, sealed to the authority, on its topic."""
    request = Request(1, data)
    return authority.topic, seal(
        seat.identity, authority.topic, request, authority.identity.public_key
    )


async def test_a_seat_s_action_is_in_the_log_only_as_ciphertext(tmp_path: Path) -> None:
    """The authority's driver encrypts a seat's action under the room
    secret before its node logs it: every voter replicates ciphertext, and
    only a holder of the secret reads it back."""
    drivers = voter_drivers(tmp_path, 3)
    network = Network(drivers)
    await network.carry()
    authority, seat = drivers[0], drivers[1]
    before = authority.node.last_index
    await authority._on_message(*_request_to(authority, seat, b"V10 played"))
    assert authority.node.last_index == before + 1
    entry = authority.node.log[-1]
    assert entry.kind == "action" and entry.sender == seat.identity.public_key
    assert b"V10 played" not in entry.data
    assert authority.read(entry) == b"V10 played"
    await network.carry()
    assert seat.node.log[-1] == entry and seat.read(entry) is None  # no secret there


async def test_an_action_too_large_for_an_entry_is_dropped_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An action that would not fit an entry once encrypted (the secret
    box's 40 bytes more) never reaches the log; the drop is logged."""
    drivers = voter_drivers(tmp_path, 3)
    network = Network(drivers)
    await network.carry()
    authority, seat = drivers[0], drivers[1]
    before = authority.node.last_index
    with caplog.at_level(logging.WARNING, logger="passe.election"):
        for _ in range(2):  # said once
            await authority._on_message(*_request_to(authority, seat, b"x" * MAX_ENTRY_DATA))
    assert authority.node.last_index == before and authority._outbox.empty()
    assert authority._floods.counts == {"election-bad": 2}
    assert caplog.messages == ["dropped an action too large for an entry"]


async def test_a_re_sent_action_is_logged_once(tmp_path: Path) -> None:
    """A seat re-sends its request, same nonce, until answered (issue 20:
    a duplicate gets the original answer, never a second application)."""
    drivers = voter_drivers(tmp_path, 3)
    network = Network(drivers)
    await network.carry()
    authority, seat = drivers[0], drivers[1]
    before = authority.node.last_index
    for _ in range(3):
        await authority._on_message(*_request_to(authority, seat, b"V10 played"))
    assert authority.node.last_index == before + 1


async def test_junk_on_a_voter_s_presence_topic_is_dropped_and_counted(tmp_path: Path) -> None:
    """The other voters' presence topics too: a record that does not open
    is dropped and counted, each time, and decides nothing."""
    from net.election.driver import voter_presence_topic

    authority, voter, other = voter_drivers(tmp_path, 3)
    topic = voter_presence_topic(voter.code, other.identity.peer_id)
    for _ in range(2):
        await voter._on_message(topic, b"junk")
    assert voter._floods.counts == {"election-bad": 2}
    assert voter._presences.newest(other.identity.public_key) == 0
    assert authority.node.role == "authority"


async def test_a_voter_is_in_step_only_once_an_append_ends_where_its_log_does(
    tmp_path: Path,
) -> None:
    """``in_step`` (a dealer started again says so once set: net/dealer/)
    means this voter held the authority's whole log: an Append of the
    authority, of its term, not a full batch (more may follow), whose end
    matches this voter's log there. Mutations: each condition, and where
    the Append's end is."""
    from net.election.messages import MAX_BATCH, Append

    drivers = voter_drivers(tmp_path, 3)
    network = Network(drivers)
    await network.carry()
    authority, voter = drivers[0], drivers[1]
    authority.append(b"a move")
    await network.carry()
    log, term, key = list(voter.node.log), voter.node.term, authority.identity.public_key
    assert [entry.term for entry in log] == [0, 1, 1]  # the config, term 1's entry, a move

    def in_step(append: Append, sender: bytes = key) -> bool:
        voter.in_step.clear()
        voter._note_in_step(sender, append)
        return voter.in_step.is_set()

    assert in_step(Append(term, 0, 0, log[:2], 0))  # ends at index 2, of term 1
    assert in_step(Append(term, 3, 1, [], 0))  # a heartbeat at its end
    assert in_step(Append(term, 0, 0, [], 0))  # an empty log's
    assert not in_step(Append(term, 3, 1, [], 0), sender=drivers[2].identity.public_key)
    assert not in_step(Append(term + 1, 3, 1, [], 0))  # not this term's authority
    assert not in_step(Append(term, 2, 0, [], 0))  # index 2 is not of term 0 here
    assert not in_step(Append(term, 4, 1, [], 0))  # past its log's end
    for move in range(MAX_BATCH - 1):
        authority.append(b"move %d" % move)
    await network.carry()
    log = list(voter.node.log)
    assert len(log) == 2 + MAX_BATCH
    assert in_step(Append(term, 3, 1, log[3:], 0))  # fewer than a batch: the end
    assert not in_step(Append(term, 2, 1, log[2:], 0))  # a whole batch: more may follow


# -- what a voter carries out of its core's effects -------------------------


async def test_a_write_that_failed_leaves_nothing_counted_as_on_disk(tmp_path: Path) -> None:
    """From a replaced entry on, the disk's log is being rewritten: if the
    write fails (a full disk), this voter counts none of it as held, so it
    never tells a seat (Held) or counts for itself what it may not have.
    Mutations: where the durable end is put before the write."""
    from net.election.node import PersistEntries

    drivers = voter_drivers(tmp_path, 3)
    network = Network(drivers)
    await network.carry()
    drivers[0].append(b"a move")
    await network.carry()
    voter = drivers[1]
    log = list(voter.node.log)
    assert voter.holds(1, 3) and voter.holds(1, 2)

    def full(first: int, entries: object) -> None:
        raise OSError(28, "No space left on device")

    voter.storage.save_entries = full  # type: ignore[method-assign]
    with pytest.raises(OSError):
        voter._carry_out([PersistEntries(2, tuple(log[1:]))])
    assert voter.holds(0, 1) and not voter.holds(1, 2) and not voter.holds(1, 3)


async def test_each_write_of_entries_is_told_and_nothing_else_is(tmp_path: Path) -> None:
    """``on_held`` (the seat's peer counts its own majority) hears each
    write of log entries, once per batch of effects, and nothing when only
    a heartbeat came. Mutations: the flag's start and its setting."""
    drivers = voter_drivers(tmp_path, 3)
    network = Network(drivers)
    await network.carry()
    voter, told = drivers[1], []
    voter.on_held = lambda: told.append(voter.node.last_index)
    drivers[0].append(b"a move")
    await network.carry()
    assert told == [3]
    drivers[0]._carry_out(drivers[0].node.tick(drivers[0].clock() + 1.0))  # a heartbeat
    await network.carry()
    assert told == [3]


async def test_a_committed_entry_reaches_the_owner_with_its_plaintext_where_it_is_read(
    tmp_path: Path,
) -> None:
    """``on_apply`` gets each committed entry in order: its index, the
    entry, and its action in clear at the authority (which holds the room
    secret); None elsewhere."""
    drivers = voter_drivers(tmp_path, 3)
    applied: dict[int, list[tuple[int, str, bytes | None]]] = {0: [], 1: []}
    for number in applied:
        drivers[number].on_apply = lambda index, entry, plain, n=number: applied[n].append(
            (index, entry.kind, plain)
        )
    network = Network(drivers)
    await network.carry()
    index = drivers[0].append(b"a move")
    await network.carry()
    drivers[0]._carry_out(drivers[0].node.tick(drivers[0].clock() + 1.0))  # the commit, told
    await network.carry()
    assert (index, "action", b"a move") in applied[0]
    assert (index, "action", None) in applied[1]


async def test_a_new_authority_is_logged_told_and_announced_by_itself_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A term's authority becomes known: the log says so, the owner is told
    first, and only the authority itself announces its term; a step-down
    is logged and told. Mutations: the log lines, the announce's condition."""
    from net.election.driver import authority_topic
    from net.election.node import AuthorityKnown, SteppedDown

    authority, voter, _ = voter_drivers(tmp_path, 3)
    known: list[tuple[int, bytes]] = []
    stepped: list[int] = []
    authority.on_authority = lambda term, key: known.append((term, key))
    authority.on_stepped_down = stepped.append
    while not authority._outbox.empty():
        authority._outbox.get_nowait()
    other = voter.identity.public_key
    with caplog.at_level(logging.INFO, logger="passe.election"):
        authority._carry_out([AuthorityKnown(1, other)])  # another's: no announcement
        assert authority._outbox.empty()
        authority._carry_out([AuthorityKnown(1, authority.identity.public_key)])
        authority._carry_out([SteppedDown(4)])
    topics = [authority._outbox.get_nowait()[0] for _ in range(authority._outbox.qsize())]
    assert topics == [authority_topic(authority.code)]
    assert known == [(1, other), (1, authority.identity.public_key)] and stepped == [4]
    assert caplog.messages == [
        f"room {authority.code}: the authority of term 1 is {voter.identity.peer_id}",
        f"room {authority.code}: the authority of term 1 is {authority.identity.peer_id}",
        "stepped down: term 4 is another's",
    ]


async def test_a_term_and_a_vote_are_on_disk_before_anything_follows(tmp_path: Path) -> None:
    """A vote is persisted before it is sent (issue 20: at most one vote
    per term, across a crash): the core's PersistState is written to the
    voter's file, which a restarted process reads back. Mutation: the
    state effect skipped."""
    from net.election.driver import FileStorage
    from net.election.node import PersistState

    voter = voter_drivers(tmp_path, 3)[1]
    candidate = Identity.generate().public_key
    voter._carry_out([PersistState(5, candidate)])
    restarted = FileStorage(voter.storage.path).load()
    assert (restarted.term, restarted.voted_for) == (5, candidate)


def test_elections_are_told_step_by_step_in_the_debug_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``PASSE_LOG=debug`` says why a room found no authority: who asked
    whom before standing, who stood for which term with which log, and
    each vote given or refused; nothing else, and nothing above debug."""
    from net.election.driver import _log_election
    from net.election.messages import AppendReply, PreVote, RequestVote, Vote
    from net.election.node import Send

    to = Identity.generate()
    sends = [
        Send(to.public_key, PreVote(3, 7, 2)),
        Send(to.public_key, RequestVote(3, 7, 2)),
        Send(to.public_key, Vote(3, True)),
        Send(to.public_key, Vote(4, False)),
        Send(to.public_key, AppendReply(3, True, 7)),
    ]
    with caplog.at_level(logging.INFO, logger="passe.election"):
        for send in sends:
            _log_election(send)
    assert caplog.messages == []
    with caplog.at_level(logging.DEBUG, logger="passe.election"):
        for send in sends:
            _log_election(send)
    assert caplog.messages == [
        f"asking {to.peer_id} whether it would vote for us in term 3",
        f"standing for term 3 (log 7 of term 2): asking {to.peer_id}",
        f"term 3: vote granted to {to.peer_id}",
        f"term 4: vote refused to {to.peer_id}",
    ]


# -- what a voter sends, and how -------------------------------------------


class _Link:
    """A link that is up: what the driver writes at once, and where it
    would go next when the broker dies."""

    def __init__(self) -> None:
        self.connected = True
        self.at_once: list[str] = []
        self.alternates: list[tuple[list[tuple[str, int]], bool]] = []

    def publish_now(self, topic: str, payload: bytes) -> bool:
        self.at_once.append(topic)
        return True

    def set_alternates(self, alternates: list[tuple[str, int]], *, rejoin_earlier: bool) -> None:
        self.alternates.append((alternates, rejoin_earlier))


async def test_a_message_goes_at_once_only_when_nothing_of_the_voter_s_waits(
    tmp_path: Path,
) -> None:
    """SEND_AT_ONCE: written in the call when the outbox is empty and the
    send loop holds nothing (the core's order kept); else queued, not
    retained (only presences and announcements are)."""
    from net.election.messages import Vote

    voter, other = voter_drivers(tmp_path, 3)[1:]
    while not voter._outbox.empty():
        voter._outbox.get_nowait()
    link = _Link()
    voter._link = link  # type: ignore[assignment]
    voter.send(other.identity.public_key, Vote(1, False))
    assert link.at_once == [other.topic] and voter._outbox.empty()
    voter._sending = True  # the loop is writing one of ours: after it
    voter.send(other.identity.public_key, Vote(1, False))
    voter._sending = False
    voter.send(other.identity.public_key, Vote(1, False))  # one waits: behind it
    assert link.at_once == [other.topic]
    queued = [voter._outbox.get_nowait() for _ in range(voter._outbox.qsize())]
    assert [(topic, retain) for topic, _, retain in queued] == [(other.topic, False)] * 2


async def test_the_send_loop_seals_what_was_put_off_and_says_it_is_writing(
    tmp_path: Path,
) -> None:
    """The send loop writes its outbox in order: a message put off unsealed
    (an Append after the seat's update, OTHERS_AFTER_UPDATE) sealed as it
    goes, each with its own retain; ``_sending`` while one is being written
    (a message made meanwhile waits behind it, SEND_AT_ONCE), not after.
    Mutations: the sealing skipped; retain dropped or changed; ``_sending``
    not set, or left set."""
    import asyncio
    from functools import partial

    from net.election.messages import Vote

    voter, other = voter_drivers(tmp_path, 3)[1:]
    _drain(voter)

    class Writes:
        connected = True

        def __init__(self) -> None:
            self.written: list[tuple[str, bytes, object, object]] = []
            self.go_on = asyncio.Event()

        async def publish(self, topic: str, payload: bytes, *, retain: object = "unsaid") -> bool:
            self.written.append((topic, payload, retain, voter._sending))
            await self.go_on.wait()
            self.go_on.clear()
            return True

    link = Writes()
    voter._link = link  # type: ignore[assignment]
    topic = other.topic
    put_off = partial(seal, voter.identity, topic, Vote(1, False), other.identity.public_key)
    voter._outbox.put_nowait((topic, put_off, False))
    voter._outbox.put_nowait((topic, b"a retained record", True))
    loop = asyncio.create_task(voter._send_loop())
    try:
        await until(lambda: len(link.written) == 1)
        first = link.written[0]
        assert _opened(other, first[1]) == Vote(1, False)  # sealed as it went
        assert (first[2], first[3]) == (False, True)  # not retained; being written
        link.go_on.set()
        await until(lambda: len(link.written) == 2)
        assert link.written[1][1:] == (b"a retained record", True, True)
        link.go_on.set()
        await until(lambda: voter._outbox.empty() and not voter._sending)
        assert voter._sending is False
    finally:
        loop.cancel()


@pytest.mark.parametrize(
    "breaking",
    [
        "surveys-off",
        "a-cluster",
        "no-link",
        "link-down",
        "the-authority",
        "hears-the-authority",
        "one-broker-known",
    ],
)
async def test_a_voter_alone_surveys_its_room_s_brokers_only_when_all_says_so(
    tmp_path: Path, breaking: str
) -> None:
    """docs/election.md section 13: a voter that has heard no authority on
    its broker for LONELY_FIRST surveys the room's brokers, once at a time;
    not with surveys off (a dealer's), on a cluster's node (every node holds
    the same), without a link up, as the authority, while it hears one, or
    with one broker known; any of these ends the loneliness and its wait
    starts over. Mutations: each condition dropped or inverted; the wait's
    boundary; a second survey while one runs; the wait not started over."""
    import asyncio

    from net.election import driver as driver_module

    drivers = voter_drivers(tmp_path, 3)
    me = drivers[1]
    now = [1000.0]
    me.clock = lambda: now[0]
    await Network(drivers).carry()  # it heard its authority, at 1000
    assert me.node.authority is not None and me.node.hears_authority(now[0])
    now[0] += 100.0  # and nothing since

    class Up:
        connected = True
        brokers = (("10.0.0.1", 1883),)

    me._link = Up()  # type: ignore[assignment]
    me.remembered_brokers = (("10.0.0.2", 1883),)
    surveyed: list[float] = []
    go_on = asyncio.Event()

    async def survey() -> None:
        surveyed.append(now[0])
        await go_on.wait()

    me._survey = survey  # type: ignore[method-assign]
    first = driver_module.LONELY_FIRST
    me._check_lonely()
    assert me._lonely_since == now[0] and me._surveying is None
    now[0] += first - 0.5
    me._check_lonely()
    assert me._surveying is None
    now[0] += 0.5  # exactly the wait
    me._check_lonely()
    running = me._surveying
    assert running is not None
    await asyncio.sleep(0)
    assert surveyed == [now[0]]
    now[0] += 100
    me._check_lonely()  # one survey at a time
    assert me._surveying is running
    go_on.set()
    await running
    # Each condition, broken, ends the loneliness: the wait starts over.
    me._lonely_wait = 99.0
    if breaking == "surveys-off":
        me.surveys = False
    elif breaking == "a-cluster":
        me.cluster = (("10.0.0.3", 1883),)
    elif breaking == "no-link":
        me._link = None
    elif breaking == "link-down":
        Up.connected = False
    elif breaking == "the-authority":
        me.node.role = "authority"
    elif breaking == "hears-the-authority":
        me.node.hears_authority = lambda at: True
    else:
        me.remembered_brokers = ()
    me._check_lonely()
    assert (me._lonely_since, me._lonely_wait) == (None, first)


async def test_only_the_append_that_holds_the_seat_s_entry_names_it(tmp_path: Path) -> None:
    """``notify`` goes on the Append that carries the seat's entry (its
    voters then tell the seat they hold it), never on a heartbeat after it
    nor on any other message."""
    from net.election.messages import Append, Notify, Vote

    drivers = voter_drivers(tmp_path, 3)
    network = Network(drivers)
    await network.carry()
    authority, mover, other = drivers
    for driver in drivers:
        while not driver._outbox.empty():
            driver._outbox.get_nowait()
    index = authority.append(b"a move", notify=mover.identity.public_key)
    to_other = [p for t, p, _ in _drain(authority) if t == other.topic]
    expected = Notify(mover.identity.public_key, index)
    assert [_opened(other, p).notify for p in to_other] == [expected]  # type: ignore[attr-defined]
    heartbeat = Append(1, index, 1, [], index)
    authority.send(other.identity.public_key, heartbeat)
    authority.send(other.identity.public_key, Vote(1, False))  # no notify to put on it
    sent = [_opened(other, p) for t, p, _ in _drain(authority) if t == other.topic]
    assert sent[0] == heartbeat and sent[1] == Vote(1, False)


def _drain(driver: VoterDriver) -> list[tuple[str, bytes, bool]]:
    """What waits in the driver's outbox, sealed as its send loop seals it."""
    drained = [driver._outbox.get_nowait() for _ in range(driver._outbox.qsize())]
    return [
        (topic, sealed if isinstance(sealed, bytes) else sealed(), retain)
        for topic, sealed, retain in drained
    ]


def _opened(reader: VoterDriver, payload: bytes) -> object:
    from net.election.driver import _message_decoder
    from net.protocol.wire import open_body, open_envelope

    return open_body(
        open_envelope(reader.topic, payload, identity=reader.identity),
        _message_decoder,
        reader.identity,
    )


async def test_a_held_is_sent_for_the_authority_s_append_of_this_term_only(
    tmp_path: Path,
) -> None:
    """A voter that wrote the seat's entry tells that seat (Held) only for
    an Append of the current authority in its term: not for one another
    voter sends, nor one of another term."""
    from net.election.messages import Append, Notify

    drivers = voter_drivers(tmp_path, 4)
    network = Network(drivers)
    await network.carry()
    authority, voter, mover, stranger = drivers
    index = authority.append(b"a move")
    await network.carry()
    _drain(voter)
    notify = Notify(mover.identity.public_key, index)
    append = Append(1, index - 1, 1, [voter.node.log[index - 1]], index, notify)
    voter._tell_held(stranger.identity.public_key, append)  # not the authority's
    voter._tell_held(authority.identity.public_key, Append(2, index - 1, 1, [], 0, notify))
    # Of term 0, naming the config entry (index 1, term 0), which it holds:
    # still not this term's authority.
    config = Notify(mover.identity.public_key, 1)
    voter._tell_held(authority.identity.public_key, Append(0, 0, 0, [], 0, config))
    assert _drain(voter) == []
    voter._tell_held(authority.identity.public_key, append)
    assert [topic for topic, _, _ in _drain(voter)] == [mover.topic]


async def test_a_held_counts_only_when_newer_than_the_last_from_its_voter(
    tmp_path: Path,
) -> None:
    """``held_by`` keeps each voter's furthest Held (a late one does not
    take it back) and tells its owner only of a change."""
    from net.election.messages import Held

    mover, ana, bo = voter_drivers(tmp_path, 3)
    told: list[int] = []
    mover.on_held = lambda: told.append(len(told))
    ana_key, bo_key = ana.identity.public_key, bo.identity.public_key
    mover._on_held(ana_key, Held(0, 1))  # the config entry's term is 0
    mover._on_held(ana_key, Held(1, 5))
    mover._on_held(ana_key, Held(1, 3))  # late: kept as it was
    mover._on_held(ana_key, Held(1, 5))  # again: nothing new
    mover._on_held(bo_key, Held(1, 2))
    assert mover.held_by == {ana_key: (1, 5), bo_key: (1, 2)} and len(told) == 3
    assert not mover.holds(0, 0) and not mover.holds(1, 0)  # no entry 0


async def test_an_announcement_names_the_term_and_its_room_key_and_stays(
    tmp_path: Path,
) -> None:
    """The authority's announcement (retained: a process that connects
    later reads it) names its term and the room key its game signs with,
    which every seat then pins."""
    from net.election.driver import Announce, authority_topic
    from net.protocol.wire import open_envelope

    authority = voter_drivers(tmp_path, 3)[0]
    _drain(authority)
    authority.room_key = Identity.generate().public_key
    authority._announce(3)
    [(topic, payload, retain)] = _drain(authority)
    assert topic == authority_topic(authority.code) and retain
    envelope = open_envelope(topic, payload, expect_key=authority.identity.public_key)
    import msgspec

    assert msgspec.msgpack.decode(envelope.body, type=Announce) == Announce(3, authority.room_key)


async def test_where_a_voter_goes_next_follows_the_brokers_it_learns(tmp_path: Path) -> None:
    """Standby brokers learnt from the room's state: a follower goes to
    one that comes before its current one in succession (rejoin earlier),
    the authority stays where its voters are; brokers from presences
    change the list without moving anyone."""
    authority, voter, other = voter_drivers(tmp_path, 3)
    brokers = {other.identity.public_key: ("10.0.0.3", 1884)}
    for driver, earlier in ((voter, True), (authority, False)):
        link = _Link()
        driver._link = link  # type: ignore[assignment]
        driver.learn_brokers(brokers)
        assert link.alternates == [([("10.0.0.3", 1884)], earlier)]
    link = _Link()
    voter._link = link  # type: ignore[assignment]
    voter.broker = ("10.0.0.2", 1884)
    voter._follow_succession()
    assert link.alternates == [([("10.0.0.2", 1884), ("10.0.0.3", 1884)], False)]


async def test_a_voter_that_cannot_run_the_table_says_so_and_never_stands(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Elected, but no game goes on from its log: the authority steps aside
    for good (the others' deadlines then pass), and the log says why."""
    voter = voter_drivers(tmp_path, 3)[0]
    assert voter.node.role == "authority"
    with caplog.at_level(logging.WARNING, logger="passe.election"):
        voter.abdicate()
    assert caplog.messages == [
        f"room {voter.code}: this voter cannot run the table: it stands aside"
    ]
    assert _role(voter.node) == "follower" and not voter.node.can_stand
    assert not voter.node._in_lease(voter.clock() + 0.001)  # pre-votes from now on


async def test_the_authority_s_own_entries_fit_an_entry_and_are_numbered_in_turn(
    tmp_path: Path,
) -> None:
    """``append``: an entry's plaintext up to what fits under the secret
    box (MAX_ENTRY_DATA less its nonce and tag), numbered 1, 2, 3 as the
    authority's own requests; 0 for more, and 0 anywhere but at the
    authority."""
    from nacl.secret import SecretBox

    authority, voter, _ = voter_drivers(tmp_path, 3)
    limit = MAX_ENTRY_DATA - SecretBox.NONCE_SIZE - SecretBox.MACBYTES
    assert authority.append(b"x" * (limit + 1)) == 0
    first = authority.append(b"x" * limit)
    assert first > 0 and authority.append(b"a") == first + 1 and authority.append(b"b") == first + 2
    own = [e.nonce for e in authority.node.log if e.sender == authority.identity.public_key]
    assert own[-3:] == [1, 2, 3]
    assert voter.append(b"a") == 0


async def test_a_will_s_stand_waits_a_moment_and_not_for_a_connection_come_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stand after a will is due WILL_SETTLE and a random share of
    WILL_SPREAD later (never sooner), and does not happen if the
    authority's newer connection said "online" meanwhile."""
    import asyncio

    from net.election import driver as driver_module

    authority, voter, _ = voter_drivers(tmp_path, 3)
    delays: list[float] = []
    loop = asyncio.get_running_loop()

    def call_at_once(delay: float, callback: Callable[[], object]) -> object:
        delays.append(delay)
        return callback()

    monkeypatch.setattr(loop, "call_later", call_at_once)
    link = _Link()
    voter._link = link  # type: ignore[assignment]
    network = Network([authority, voter])
    await network.carry()
    key = authority.identity.public_key
    assert voter.node.authority == key
    voter.node.authority_gone(voter.clock())  # its will heard: pre-votes granted
    voter._presences._newest[key] = 7  # its newer connection, come back
    _drain(voter)
    link.at_once.clear()
    voter._stand_soon(voter.node.term, key, 6)
    assert _drain(voter) == [] and link.at_once == [] and voter.node.term == 1
    voter._stand_soon(voter.node.term, key, 7)  # that connection's will: a stand
    assert link.at_once or _drain(voter)  # it asks the others
    assert (
        driver_module.WILL_SETTLE
        <= delays[0]
        <= driver_module.WILL_SETTLE + driver_module.WILL_SPREAD
    )


def test_the_waiting_seat_s_append_leads_the_sends_that_open_the_list() -> None:
    """Among the sends that open the core's effects, the one to the voter
    waiting for its copy goes first; nothing moves past a write or an
    apply; a list of sends only, or no one waiting, is handled too."""
    from net.election.driver import _waiting_voter_first
    from net.election.messages import Vote
    from net.election.node import Effect, PersistState, Send

    ana, bo, waiting = (Identity.generate().public_key for _ in range(3))
    to_ana, to_bo, to_waiting = (Send(key, Vote(1, True)) for key in (ana, bo, waiting))
    written = PersistState(1, None)
    assert _waiting_voter_first([to_ana, to_bo, to_waiting], waiting) == [
        to_waiting,
        to_ana,
        to_bo,
    ]
    effects: list[Effect] = [to_ana, written, to_waiting]
    assert _waiting_voter_first(effects, waiting) == effects  # not past the write
    assert _waiting_voter_first([to_ana, to_waiting], None) == [to_ana, to_waiting]


def test_the_election_s_topics_are_the_documented_ones() -> None:
    """docs/protocol.md's table: a compatible client subscribes there."""
    from net.election.driver import authority_topic, election_topic, voter_presence_topic

    assert authority_topic("ABC123") == "passe/v1/ABC123/e/authority"
    assert election_topic("ABC123", "0123abcd") == "passe/v1/ABC123/e/0123abcd"
    assert voter_presence_topic("ABC123", "0123abcd") == "passe/v1/ABC123/e/p/0123abcd"


async def test_a_voter_s_will_is_retained_gone_of_a_new_connection_naming_no_broker(
    tmp_path: Path,
) -> None:
    """Each connection's will: retained (a voter that connects later reads
    that this one is gone), "gone" for that connection's epoch (one more
    than the last), and no standby broker where it has none."""
    from net.protocol.wire import open_body, open_envelope, presence_decoder

    voter = voter_drivers(tmp_path, 3)[1]
    before = voter._epoch
    will = voter._will()
    assert will.retain and voter._epoch == before + 1
    envelope = open_envelope(will.topic, will.payload, expect_key=voter.identity.public_key)
    gone = open_body(envelope, presence_decoder)
    assert (gone.online, gone.epoch, gone.broker) == (False, before + 1, "")


async def test_the_authority_encrypts_each_new_action_once_at_the_entry_s_limit(
    tmp_path: Path,
) -> None:
    """``_sealed_request``: the largest action that fits an entry once
    encrypted is taken, one byte more is not; a request this authority has
    logged already (same sender, same nonce) goes on as it is; a voter
    that is not the authority passes requests on untouched."""
    from nacl.secret import SecretBox

    drivers = voter_drivers(tmp_path, 3)
    network = Network(drivers)
    await network.carry()
    authority, seat, follower = drivers
    sender = seat.identity.public_key
    limit = MAX_ENTRY_DATA - SecretBox.NONCE_SIZE - SecretBox.MACBYTES
    fits = authority._sealed_request(sender, Request(1, b"x" * limit))
    assert fits is not None and len(fits.data) == MAX_ENTRY_DATA
    assert authority._sealed_request(sender, Request(1, b"x" * (limit + 1))) is None
    await authority._on_message(*_request_to(authority, seat, b"V10 played"))
    logged = Request(1, b"V10 played")
    assert authority._sealed_request(sender, logged) is logged  # answered from the log
    other = Identity.generate().public_key
    assert authority._sealed_request(other, logged) != logged  # another's nonce 1: new
    assert authority._sealed_request(sender, Request(2, b"V10 played")) != Request(2, b"V10 played")
    assert follower._sealed_request(sender, logged) is logged


async def test_a_voter_s_connection_says_online_retained_and_it_leaves_without_a_goodbye(
    tmp_path: Path,
) -> None:
    """On each connection the voter publishes its "online" (retained, its
    own presence topic); closing, a voter that is not the authority leaves
    its "gone" there (its link's clean end sends no will, and a survey would
    count it online: net/election/survey.py), its loops stopped; the
    authority leaves nothing (its table says when it closes). Mutations:
    the presence's topic, words and retain; close's grace and farewell."""
    from net.election.driver import voter_presence_topic
    from net.protocol.wire import open_body, open_envelope, presence_decoder

    class Link:
        farewell: Callable[[], tuple[str, bytes]]

        def __init__(self) -> None:
            self.published: list[tuple[str, bytes, bool]] = []
            self.closed: list[tuple[bool, list[tuple[str, bytes]]]] = []

        async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
            self.published.append((topic, payload, retain))

        async def close(
            self, *, graceful: bool = True, final: Sequence[tuple[str, bytes]] = ()
        ) -> None:
            self.closed.append((graceful, list(final)))

    authority, voter, _ = voter_drivers(tmp_path, 3)
    link = Link()
    voter._link = link  # type: ignore[assignment]
    link.farewell = lambda: (topic, voter._presence(online=False))
    await voter._on_connect()
    [(topic, payload, retain)] = link.published
    assert topic == voter_presence_topic(voter.code, voter.identity.peer_id) and retain
    envelope = open_envelope(topic, payload, expect_key=voter.identity.public_key)
    online = open_body(envelope, presence_decoder)
    assert online.online and online.epoch == voter._epoch and online.room == voter.code
    await voter.close()
    [(graceful, [(gone_topic, gone_payload)])] = link.closed
    assert graceful and gone_topic == topic and voter._tasks == []
    envelope = open_envelope(topic, gone_payload, expect_key=voter.identity.public_key)
    gone = open_body(envelope, presence_decoder)
    assert not gone.online and gone.epoch == online.epoch and gone.room == voter.code
    # The authority (the room's maker, in term 1) leaves nothing behind.
    assert authority.node.role == "authority"
    link = Link()
    authority._link = link  # type: ignore[assignment]
    link.farewell = lambda: (topic, authority._presence(online=False))
    await authority.close()
    assert link.closed == [(False, [])]


async def test_a_voter_is_made_with_what_it_is_given_and_numbers_on_after_a_restart(
    tmp_path: Path,
) -> None:
    """The driver keeps its standby broker and timing, starts its presence
    epochs at the clock's milliseconds (newer than any before a restart),
    announces no room key before its game makes one, and numbers its own
    entries on from those its file holds."""
    from net.election.driver import FileStorage, VoterDriver
    from net.election.node import Timing

    drivers = voter_drivers(tmp_path, 3)
    authority = drivers[0]
    assert authority.room_key == b""
    for move in (b"a", b"b", b"c"):
        authority.append(move)
    own = [e.nonce for e in authority.node.log if e.sender == authority.identity.public_key]
    timing = Timing(heartbeat=0.5, election=(2.0, 4.0))
    now_ms = time.time_ns() // 1_000_000
    again = VoterDriver(
        authority.identity,
        authority.code,
        FileStorage(authority.storage.path),
        "127.0.0.1",
        1,
        broker=("10.0.0.2", 1884),
        timing=timing,
    )
    assert again.broker == ("10.0.0.2", 1884) and again.node.timing == timing
    assert now_ms <= again._epoch <= time.time_ns() // 1_000_000
    assert again._own_nonce == max(own) == 3


async def test_a_voter_knows_the_announcement_of_the_term_it_leads_and_no_other(
    tmp_path: Path,
) -> None:
    """``announcement()``: what the voter that leads a term announced
    (retained), for its table's link to send again beside its room state
    (a broker further down the succession never had it; a peer pinned to
    the former room key then refused the new table's state as "signed by
    another key": found by hand, 5 December). A voter that leads no term,
    or no longer leads the one it announced, has none; and a connection
    sends only the voter's presence: a voter back from a freeze cannot know
    it still leads, and its term's announcement, retained, once replaced
    its successor's (tests/net/test_recovery.py). Mutations: the
    announcement kept for a term no longer led, or sent on connecting."""
    from net.election.driver import announce_decoder, authority_topic, voter_presence_topic
    from net.protocol.wire import open_body, open_envelope

    class Link:
        def __init__(self) -> None:
            self.published: list[tuple[str, bytes, bool]] = []

        async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
            self.published.append((topic, payload, retain))

    leader, follower, _ = voter_drivers(tmp_path, 3)
    assert follower.announcement() is None
    announced = leader.announcement()
    assert announced is not None
    sent = leader._outbox.get_nowait()  # the first, sent once elected
    assert sent == (authority_topic(leader.code), announced, True)
    envelope = open_envelope(authority_topic(leader.code), announced)
    assert envelope.sender == leader.identity.public_key
    assert open_body(envelope, announce_decoder).term == leader.node.term == 1
    link = Link()
    leader._link = link  # type: ignore[assignment]
    await leader._on_connect()
    assert [topic for topic, _, _ in link.published] == [
        voter_presence_topic(leader.code, leader.identity.peer_id)
    ]
    # A higher term seen: it follows now, and announces nothing.
    leader.node.term += 1
    assert leader.announcement() is None
    leader.node.term -= 1
    leader.node.role = "follower"
    assert leader.announcement() is None
