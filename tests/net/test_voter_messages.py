"""What a voter's driver does with what reaches its topic (net/election/driver.py,
``VoterDriver._on_message``), in process with real sealed messages: junk and
floods are dropped, counted and logged once (bounded: issue 19), and at the
authority a seat's action goes into the log only as ciphertext under the
room secret (issue 20, "Nobody peeks"), or not at all when it would not fit.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from net.election.driver import TOPIC_RATE, VoterDriver
from net.election.messages import MAX_ENTRY_DATA, Request
from net.identity import Identity
from net.protocol.wire import seal
from tests.net.voter_drivers import Network, voter_drivers


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
        for _ in range(burst + 10):
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
