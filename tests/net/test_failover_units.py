"""The failover wiring in-process (issue 20; docs/election.md section 10):
what a failover room's authority lets out before its log commits anything,
and how a seat's process restarted from its files finds the table again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

import msgspec
import pytest

from net.authority.authority import Authority
from net.authority.replication import (
    NO_KEY,
    PLAINTEXT_LIMIT,
    BaseEntry,
    DeltaEntry,
    ReplicaError,
    RoomReplica,
    VoterBusy,
    _entry_decoder,
    _entry_encoder,
    close_quietly,
    decode_room_config,
    encode_room_config,
    make_room_config,
    rebuild,
    spawn,
)
from net.authority.rooms import BrokerChoice, SavedRoom, journal_entry
from net.election.driver import Announce, FileStorage, StorageError, authority_topic
from net.election.messages import Config, RequestVote
from net.identity import Identity
from net.peer import remote as remote_module
from net.peer.failover import SeatVoter
from net.peer.pins import RoomPins
from net.peer.remote import JoinError, RemoteTable
from net.protocol.wire import (
    RoomState,
    Welcome,
    WireError,
    open_body,
    open_envelope,
    peer_message_decoder,
    room_topic,
    seal,
    to_authority_topic,
    to_peer_topic,
)
from tests.net.peers import until
from tests.net.rooms_in_process import (
    CODE,
    hello,
    linked,
    listen,
    replicas_reach_no_broker,
    room,
    seat_voter,
    seated,
    sent,
    within_turns,
)
from tests.net.voter_drivers import Network


def _free_to_leave(authority: Authority) -> list[tuple[str, bytes, bool]]:
    """What the authority's send loop would publish now: its outbox up to
    the first message held for a log index not committed yet."""
    outbox, replica = authority._outbox, authority.replica
    assert outbox is not None and replica is not None
    out = []
    while len(outbox) and outbox.barrier() <= replica.committed:
        message = outbox.pop()
        assert message is not None
        out.append(message)
    return out


def _failover_game(voter_dir: Path) -> tuple[Authority, list[Identity]]:
    """A game started with failover on: three people seated (the voters
    with the room's process), a bot in seat 1, what it sends kept (listen).
    Its voter's link goes to no broker: nothing it appends ever commits."""
    authority = room(players=4, failover=True, voter_dir=voter_dir)
    people = [Identity.generate() for _ in range(3)]
    for number, person in enumerate(people):
        seated(authority, person, name=f"P{number}", seat=number + 1)
    authority.set_bot(0, "heuristic")
    listen(authority)
    authority.start_game()
    return authority, people


async def test_the_first_state_of_a_failover_game_leaves_before_a_newer_one_that_waits(
    tmp_path: Path,
) -> None:
    """The voters learn who they are from the game's first room state, and
    the game's first entry commits only once a majority of them hold it: a
    newer state published before the send loop ran (a seat's Hello again)
    replaced that first one in the outbox, and waited for the commit that
    only it could bring: the game never started (the repeated-kill soak
    test, 2 runs of 4 on a loaded machine)."""
    authority, people = _failover_game(tmp_path)
    hello(authority, people[0], n=2, seat=1)  # a seat's Hello again: the room republished
    assert authority.replica is not None and authority.replica.committed == 1
    rooms = [
        open_body(open_envelope(topic, payload), msgspec.msgpack.Decoder(RoomState))
        for topic, payload, _ in _free_to_leave(authority)
        if topic == room_topic(authority.code)
    ]
    assert [state.phase for state in rooms] == ["playing"]
    config = decode_room_config(rooms[0].election)
    assert config is not None
    assert {voter.key for voter in config.voters} == {
        authority.identity.public_key,
        *(person.public_key for person in people),
    }
    await authority.close(keep=True)


async def test_a_join_asking_an_authority_that_died_asks_the_next_one_with_a_whole_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A restarted seat whose pinned room state is still on the broker asks
    that state's authority, dead, to seat it; the table moves meanwhile (an
    election that needed this seat's vote): its Hello goes to the next
    authority, which gets a whole REPLY_WAIT to answer, rather than what
    was left of the first one's. (mutmut remote _request 22, an extra
    Hello at the start, is killed by the first count.)"""
    monkeypatch.setattr(remote_module, "REPLY_WAIT", 2.0)
    monkeypatch.setattr(remote_module, "HELLO_RESEND_FIRST", 0.02)
    monkeypatch.setattr(remote_module, "HELLO_RESEND_MOST", 0.04)
    me, voter = Identity.generate(), Identity.generate()
    dead, successor = room(), room()
    table = RemoteTable(me, CODE, "127.0.0.1", 1, "Ana")
    link = linked(table, dead)
    config, _ = make_room_config(voter, [voter.public_key, me.public_key, dead.identity.public_key])
    table._follow_config(encode_room_config(config), vote=False)
    loop = asyncio.get_running_loop()
    started = loop.time()
    answering = asyncio.create_task(
        table._request(table._hello(0, have=0), resend=lambda: table._hello(0, have=0))
    )

    def asked(authority: Authority) -> int:
        count = 0
        for topic, payload, _ in link.published:
            if topic == to_authority_topic(CODE, me.peer_id):
                with contextlib.suppress(WireError):
                    open_body(
                        open_envelope(topic, payload, identity=authority.identity),
                        peer_message_decoder,
                        authority.identity,
                    )
                    count += 1
        return count

    # Past the Hello's resends (waited for as events: a loaded CI machine
    # once stalled this process past a fixed time before the resends ran,
    # 3 December), halfway through its wait, the table moves.
    await until(lambda: asked(dead) == 1 + remote_module.HELLO_RESENDS, timeout=5)
    await until(lambda: loop.time() > started + 1.0)
    assert asked(dead) == 1 + remote_module.HELLO_RESENDS and not answering.done()
    topic = authority_topic(CODE)
    move = Announce(term=2, room_key=successor.identity.public_key)
    await table._on_message(topic, seal(voter, topic, move))
    assert table.authority_key == successor.identity.public_key
    await until(
        lambda: answering.done() or asked(successor) == 1 + remote_module.HELLO_RESENDS,
        timeout=5,
    )
    await until(lambda: answering.done() or loop.time() > started + 2.1, timeout=5)
    assert not answering.done(), "the join gave up when the first authority's wait ended"
    # The next authority was asked as the first was: a Hello at once, then
    # all its resends (mutmut remote _request 26: one resend fewer; 27: no
    # Hello at the move).
    assert asked(successor) == 1 + remote_module.HELLO_RESENDS
    reply_topic = to_peer_topic(CODE, me.peer_id)
    welcome = seal(successor.identity, reply_topic, Welcome(room=CODE, seat=0), me.public_key)
    await table._on_message(reply_topic, welcome)
    assert await answering == Welcome(room=CODE, seat=0)


async def test_a_seat_that_votes_waits_for_the_next_authority_to_seat_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A restarted seat of a failover room asks an authority that may have
    died, whose successor needs this seat's vote: its join waits MOVE_WAIT
    for an answer, not REPLY_WAIT (a restarted bot gave up after 5 s when
    the table's runner was killed again meanwhile: its vote went with it,
    and the voters left could not elect anyone)."""
    monkeypatch.setattr(remote_module, "REPLY_WAIT", 0.3)
    monkeypatch.setattr(remote_module, "MOVE_WAIT", 1.5)
    monkeypatch.setattr(remote_module, "HELLO_RESEND_FIRST", 0.02)
    monkeypatch.setattr(remote_module, "HELLO_RESEND_MOST", 0.04)
    me, maker = Identity.generate(), Identity.generate()
    table = RemoteTable(me, CODE, "127.0.0.1", 1, "Ana")
    linked(table, room())
    keys = [maker.public_key, me.public_key, Identity.generate().public_key]
    config, _ = make_room_config(maker, keys)
    election = encode_room_config(config)
    voter = SeatVoter(
        me,
        CODE,
        config,
        election,
        "127.0.0.1",
        1,
        seat_name=lambda: "Ana",
        room_key=lambda: None,
        directory=tmp_path,
    )  # never started: this test is about the seat's patience only
    table._follow_config(election, vote=False)
    table.voter = voter
    loop = asyncio.get_running_loop()
    started = loop.time()
    answering = asyncio.create_task(
        table._request(table._hello(0, have=0), resend=lambda: table._hello(0, have=0))
    )
    await until(lambda: answering.done() or loop.time() > started + 0.6, timeout=5)
    assert not answering.done(), "the seat gave up after REPLY_WAIT"
    with pytest.raises(JoinError) as error:
        await answering
    assert error.value.code == "timeout" and loop.time() >= started + 1.5


async def test_a_restarted_seat_votes_from_its_voter_file_until_the_room_says_otherwise(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A seat that sat in the room (its pin) and holds a voter file for its
    code votes again from that file as it joins, knowing the voters before
    any room state; a seat that never sat there does not. The config of a
    room state signed by the room's key wins over the file's (a file left
    by another room of the same code): that voter stops, the room's starts."""
    monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path))
    started: list[bytes] = []
    stopped: list[bytes] = []

    async def start(voter: SeatVoter) -> None:  # no broker here: the link is not the point
        started.append(voter.election)

    async def close(voter: SeatVoter) -> None:
        stopped.append(voter.election)
        await voter.replica.close()  # its file let go of

    monkeypatch.setattr(SeatVoter, "start", start)
    monkeypatch.setattr(SeatVoter, "close", close)
    me, maker = Identity.generate(), Identity.generate()

    def election() -> tuple[bytes, list[bytes]]:
        keys = [maker.public_key, me.public_key, Identity.generate().public_key]
        return encode_room_config(make_room_config(maker, keys)[0]), keys

    filed, filed_keys = election()
    config = decode_room_config(filed)
    assert config is not None
    earlier = SeatVoter(
        me, CODE, config, filed, "127.0.0.1", 1, seat_name=str, room_key=lambda: None
    )
    await earlier.replica.close()  # its process ended: its file stays
    stranger = RemoteTable(me, CODE, "127.0.0.1", 1, "Ana")  # no pin: never sat there
    stranger._resume_voter()
    assert stranger.voter is None and not stranger._voters
    pins = RoomPins(tmp_path / "pins.json")
    pins.remember(CODE, Identity.generate().public_key, ("127.0.0.1", 1))
    table = RemoteTable(me, CODE, "127.0.0.1", 1, "Ana", pins=pins)
    table._resume_voter()
    await until(lambda: started == [filed], timeout=5)
    assert table.voter is not None and table._voters == frozenset(filed_keys)
    table._follow_config(filed, vote=True)  # the room's state says the same: nothing changes
    rooms, room_keys = election()
    table._follow_config(rooms, vote=True)
    await until(lambda: stopped == [filed] and started == [filed, rooms], timeout=5)
    assert table.voter is not None and table.voter.election == rooms
    assert table._voters == frozenset(room_keys)


def test_a_person_who_declines_to_stand_votes_and_holds_no_share() -> None:
    """Issue 20, "a person may decline to be a candidate": the decliner is
    a voter of the config (its vote counts for a majority) and holds no
    share of the secret, so its node never stands (Node.can_stand); the
    threshold is a majority of those who hold one. Fails if the declined
    keys are not left out of the shares."""
    from net.election import shares

    maker, ana, bea, cy = (Identity.generate() for _ in range(4))
    voters = [maker.public_key, ana.public_key, bea.public_key, cy.public_key]
    config, secret = make_room_config(maker, voters, declined=[cy.public_key, maker.public_key])
    assert [voter.key for voter in config.voters] == voters
    holders = [share.holder for share in config.shares]
    assert holders == [maker.public_key, ana.public_key, bea.public_key]  # never the maker out
    assert config.threshold == 2
    assert shares.own_share(cy, config) is None
    # Two of the standing holders' shares rebuild the secret; the decliner's
    # vote brings none.
    opened = {
        index: share
        for person in (ana, bea)
        if (mine := shares.own_share(person, config)) is not None
        for index, share in [mine]
    }
    assert shares.combine(config, opened) == secret
    with pytest.raises(ValueError, match="somebody must stand"):
        shares.make_config(maker, [], declined=[])


@pytest.mark.parametrize(
    ("voters", "standing", "can"),
    [(2, 1, False), (3, 2, True), (3, 1, False), (4, 1, False), (4, 2, True), (5, 3, True)],
)
def test_a_room_fails_over_only_with_three_voters_and_two_who_stand(
    voters: int, standing: int, can: bool
) -> None:
    """With one person standing besides the maker, the holders are two and
    the survivor holds half the shares: no successor can rebuild the
    secret, so such a room does not replicate (it waits for its host)."""
    from net.authority.replication import can_fail_over

    assert can_fail_over(voters, standing) is can


async def test_the_authority_leaves_out_of_the_shares_who_declined_in_their_hello(
    tmp_path: Path,
) -> None:
    """A seated person's Hello with ``stand`` false (sent again from the
    lobby: RemoteTable.set_stand) puts them among the decliners, a later
    Hello standing takes them out; the config made at the start gives them
    no share. With only one other person standing, no config is made."""
    authority = room(players=4, failover=True, voter_dir=tmp_path)
    ana, bea, cy = (Identity.generate() for _ in range(3))
    for number, person in enumerate((ana, bea, cy)):
        seated(authority, person, name=f"P{number}", seat=number + 1)
    hello(authority, cy, n=2, seat=3, stand=False)
    assert authority.declined == {cy.public_key}
    assert authority.failover_voters() == ([authority.identity.public_key, ana.public_key,
                                            bea.public_key, cy.public_key], 2)  # fmt: skip
    hello(authority, bea, n=2, seat=2, stand=False)
    assert authority.failover_voters()[1] == 1
    hello(authority, bea, n=3, seat=2)  # stands again
    assert authority.declined == {cy.public_key}
    authority.set_bot(0, "heuristic")
    listen(authority)
    authority.start_game()
    assert authority.replica is not None
    config = decode_room_config(authority._election)
    assert config is not None
    assert cy.public_key in {voter.key for voter in config.voters}
    assert [share.holder for share in config.shares] == [
        authority.identity.public_key, ana.public_key, bea.public_key
    ]  # fmt: skip
    await authority.close(keep=True)


async def test_a_room_where_too_few_stand_does_not_replicate(tmp_path: Path) -> None:
    """Two people seated, one declining: no successor could be elected, so
    the game starts without a config (the room waits for its host)."""
    authority = room(players=3, failover=True, voter_dir=tmp_path)
    ana, bea = Identity.generate(), Identity.generate()
    seated(authority, ana, name="Ana", seat=1)
    seated(authority, bea, name="Bea", seat=2, stand=False)
    authority.set_bot(0, "heuristic")
    listen(authority)
    authority.start_game()
    assert authority.replica is None and authority._election == b""
    await authority.close(keep=True)


async def test_a_seat_that_declines_says_so_in_a_hello_for_its_seat() -> None:
    """RemoteTable.set_stand sends a Hello for the seat held, carrying the
    choice; the table's next room (the next game) keeps it."""
    authority = room()
    me = Identity.generate()
    table = RemoteTable(me, CODE, "127.0.0.1", 1, "Ana")
    link = linked(table, authority)
    table.seat = 1
    table.set_stand(False)
    topic = to_authority_topic(CODE, me.peer_id)
    await within_turns(lambda: any(sent == topic for sent, _, _ in link.published))
    [payload] = [p for sent, p, _ in link.published if sent == topic]
    envelope = open_envelope(topic, payload, identity=authority.identity)
    message = open_body(envelope, peer_message_decoder, authority.identity)
    assert message.stand is False and message.seat == 1  # type: ignore[union-attr]
    table.next_code = "ABC234"
    assert table.next_table().stand is False


async def test_a_stepped_down_host_sends_nothing_more_and_never_stands_again(
    tmp_path: Path,
) -> None:
    """The room's maker steps down for a higher term (its link came back
    after the players elected). Its table can never run again from this
    process, so its voter votes on but never stands: Raft may re-elect a
    stepped-down leader, and here that authority ran nothing and the whole
    table waited (CI, stop 28). And nothing leaves it any more: it answered
    Hellos and published its room state again over its successor's."""
    authority, people = _failover_game(tmp_path)
    replica = authority.replica
    assert replica is not None and replica.driver.node.can_stand
    sent(authority)
    sender = authority._sender = asyncio.get_running_loop().create_task(authority._send_loop())
    assert authority.table is not None
    authority.table.start()  # its bots' runner
    node = replica.driver.node
    replica.driver._carry_out(
        node.receive(people[0].public_key, RequestVote(node.term + 3, 1, 0), 0.0)
    )
    async with asyncio.timeout(5):
        assert await authority.wait_stepped_down() == node.term
    assert node.role == "follower" and not node.can_stand
    # Its send loop and its bots are stopped (mutmut _stand_aside 1, 3, 4).
    assert sender.done() and authority._sender is None
    assert authority.table._runner is None
    assert node.tick(1e6) == []  # its election timer long past: no pre-vote
    hello(authority, people[1], n=2, seat=2)
    usurper = Identity.generate()
    topic = room_topic(CODE)
    authority._on_own_topic(topic, seal(usurper, topic, Welcome(room=CODE, seat=0)))
    assert sent(authority) == []
    await authority.close(keep=True)


async def test_a_failover_game_ends_for_its_host_once_a_majority_holds_the_end(
    tmp_path: Path,
) -> None:
    """An authority cut off from the voters may play on alone (its bots
    standing in for everyone away) and reach an end that nobody else sees:
    the chaos soak's seed 30 had the headless host print that "over" while
    the players, who had elected another authority, played the game out
    there. The end counts for the host once a majority holds it."""
    authority, _ = _failover_game(tmp_path)
    replica = authority.replica
    assert replica is not None and replica.committed < authority._barrier
    authority._over.set()  # the engine's end, reached here alone
    ending = asyncio.create_task(authority.wait_over())
    for _ in range(20):
        await asyncio.sleep(0)
    assert not ending.done()
    replica._on_apply(authority._barrier, None, None)  # type: ignore[arg-type]  # a majority holds it
    await asyncio.wait_for(ending, 1)
    await authority.close(keep=True)


async def test_a_seat_voter_that_won_but_cannot_rebuild_the_game_stands_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Elected, but no game rebuilds from its log (a damaged entry): the
    voter says why and abdicates (never stands again), so that another
    takes the table instead of the room waiting on one that runs nothing."""
    me, maker = Identity.generate(), Identity.generate()
    keys = [maker.public_key, me.public_key, Identity.generate().public_key]
    config, _ = make_room_config(maker, keys)
    voter = seat_voter(me, config, tmp_path)

    def damaged() -> None:
        raise ReplicaError("entry 3 does not decode")

    monkeypatch.setattr(voter.replica, "rebuild", damaged)
    assert voter.replica.driver.node.can_stand
    with caplog.at_level(logging.ERROR, logger="passe.failover"):
        voter._take_over(2)
    assert caplog.messages == [
        f"room {CODE}: won term 2 but cannot run the table: entry 3 does not decode"
    ]
    assert voter.authority is None and voter.failed == "entry 3 does not decode"
    assert not voter.replica.driver.node.can_stand


async def test_a_successor_whose_log_holds_the_end_publishes_the_end() -> None:
    """The authority died just after the game's end was replicated, before
    everyone had it: the successor's log says "over". It rebuilds the table
    from the record, finds the same end and publishes it (the record and
    the salt), rather than abdicating ("a room in phase 'over' does not go
    on"), which left every seat waiting for an end nobody would send."""
    from net.authority.replication import NO_KEY, BaseEntry, _entry_encoder, rebuild

    ended, saved = await _an_ended_game()
    assert saved.phase == "over"
    log = [_entry_encoder.encode(BaseEntry(msgspec.structs.replace(saved, authority_key=NO_KEY)))]

    rebuilt = rebuild(log)
    successor = Authority.restore(
        msgspec.structs.replace(rebuilt, authority_key=bytes(Identity.generate().signing_key)),
        "127.0.0.1",
        1,
    )
    listen(successor)
    assert successor.table is not None and successor.table.state.is_over
    successor._check_over()  # as its start does, once its state is out
    assert successor.phase == "over" and successor._over.is_set()
    state = successor.room_state()
    assert state.record == ended.room_state().record is not None
    assert state.salt == ended.room_state().salt != b""
    assert [kind for kind, _ in sent(successor)] == ["room"]
    await successor.close(keep=True)
    await ended.close(keep=True)


async def test_a_voter_whose_broker_is_not_up_yet_waits_for_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A seat's voter started while its broker restarts (CI, 4 December:
    Mosquitto restarted as the game began) gave up after its link's first
    connection wait, and its room was one vote short for good: with the
    host gone, two of three voters could not elect. Now it waits, however
    long, and comes up with the broker; closed meanwhile, it ends quietly."""
    from net.authority.replication import RoomReplica
    from net.lan import transport
    from tests.net.brokers import free_port, require_mosquitto, start_mosquitto

    require_mosquitto()
    # A link's own wait, made short: the voter must not be bound by it.
    monkeypatch.setattr(transport.MqttLink.start, "__defaults__", (0.2,))
    maker, me = Identity.generate(), Identity.generate()
    config, _ = make_room_config(
        maker, [maker.public_key, me.public_key, Identity.generate().public_key]
    )
    port = free_port()
    voter = RoomReplica(
        me, CODE, config, tmp_path / "me.vote", "127.0.0.1", port, maker=maker.public_key
    )
    starting = asyncio.create_task(voter.start())
    loop = asyncio.get_running_loop()
    began = loop.time()
    await until(lambda: starting.done() or loop.time() > began + 0.6)
    assert not starting.done(), starting.exception()  # past the link's own wait
    with start_mosquitto(port):
        await asyncio.wait_for(starting, 30)
        assert voter.driver._link is not None and voter.driver._link.connected
        await voter.close()
    closing = RoomReplica(
        me, CODE, config, tmp_path / "me2.vote", "127.0.0.1", free_port(), maker=maker.public_key
    )
    starting = asyncio.create_task(closing.start())
    await until(lambda: closing.driver._link is not None)
    await closing.close()
    await asyncio.wait_for(starting, 5)  # no error: nothing to run


@pytest.mark.parametrize(
    ("voters", "dealers", "can"), [(2, 2, False), (3, 2, True), (3, 1, False), (5, 3, True)]
)
def test_a_dealer_s_room_fails_over_with_three_voters_and_another_dealer(
    voters: int, dealers: int, can: bool
) -> None:
    """Mutants: the bounds one off, ``or`` for ``and``."""
    from net.authority.replication import dealers_can_fail_over

    assert dealers_can_fail_over(voters, dealers) is can


def test_two_voters_never_fail_over_however_many_stand() -> None:
    """Mutant: the voters' bound joined by ``or``."""
    from net.authority.replication import can_fail_over

    assert not can_fail_over(2, 2)


async def test_a_log_that_holds_no_room_that_can_go_on_is_refused_in_words() -> None:
    """The successor's log is data it must check like a saved room: no
    entry, a change before any room, a change that skips actions, an entry
    that does not decode, a room that cannot go on; each is refused in
    words naming the save (counted from 1), never an error of another kind.
    Mutants: the words, the count's start, the room's check skipped."""
    from net.authority.replication import (
        NO_KEY,
        BaseEntry,
        DeltaEntry,
        ReplicaError,
        _entry_encoder,
        rebuild,
    )
    from net.authority.rooms import BrokerChoice, journal_entry

    authority = room(game="dominoes", players=2, bot_delay=0.0)
    authority.set_bot(0, "random")
    authority.set_bot(1, "random")
    listen(authority)
    authority.start_game()
    saved = authority.snapshot(BrokerChoice(False, "127.0.0.1", 1))
    base = _entry_encoder.encode(
        BaseEntry(msgspec.structs.replace(saved, authority_key=NO_KEY, actions=[]))
    )
    change = journal_entry(saved, 0)
    skipping = _entry_encoder.encode(DeltaEntry(msgspec.structs.replace(change, first=5)))
    nowhere = _entry_encoder.encode(
        BaseEntry(msgspec.structs.replace(saved, authority_key=NO_KEY, game="x" * 30))
    )
    for log, words in (
        ([], "the log holds no game"),
        (
            [_entry_encoder.encode(DeltaEntry(change))],
            "save 1 changes a room the log never started",
        ),
        ([base, skipping], "save 2 skips actions"),
        ([base, b"\xc1"], "save 2 of the log is not readable ("),
        ([nowhere], f"the log's room cannot go on: there is no game {'x' * 20!r}"),
    ):
        with pytest.raises(ReplicaError) as refused:
            rebuild(log)
        assert str(refused.value).startswith(words), str(refused.value)
    assert rebuild([base, _entry_encoder.encode(DeltaEntry(change))]).actions == saved.actions


async def test_the_replicated_log_never_holds_the_authority_s_private_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The room's saves go to every voter (under the room secret, which a
    majority can rebuild): the authority's private key must not be among
    them (docs/protocol.md, "what each process can learn"). The base is the
    room without its key and without actions; the actions follow in
    changes; a later save that lost actions (a table rebuilt) starts a new
    base; many actions at once go in changes of ACTIONS_PER_ENTRY at most.
    Mutants: the key left in the base, the actions left in it, the count of
    actions replicated lost or its comparison loosened, one change for all."""
    from net.authority.replication import NO_KEY, BaseEntry, DeltaEntry, _entry_decoder
    from net.authority.rooms import BrokerChoice

    replicas_reach_no_broker(monkeypatch)
    authority = room(players=3, failover=True, voter_dir=tmp_path)
    for seat, name in enumerate(("Ana", "Bo", "Cy")):
        seated(authority, Identity.generate(), name=name, seat=seat)
    listen(authority)
    authority.start_game()
    replica = authority.replica
    assert replica is not None and authority.table is not None
    await authority.table.stop()
    saved = authority.snapshot(BrokerChoice(False, "127.0.0.1", 1))
    key = bytes(authority.identity.signing_key)
    assert saved.authority_key == key
    with_actions = msgspec.structs.replace(saved, actions=[(0, "x"), (1, "y")])
    one_action = msgspec.structs.replace(saved, actions=[(0, "x")])
    many = msgspec.structs.replace(saved, actions=[(n % 3, "x") for n in range(70)])
    for save in (with_actions, with_actions, one_action, many):
        # more actions: changes; as many: a change with none; fewer: a new
        # base, then its change; 70 at once: changes of 64 at most
        assert replica.record(save) > 0
    plaintexts = replica.driver.read_log()
    assert all(key not in plaintext for plaintext in plaintexts)
    entries = [_entry_decoder.decode(plaintext) for plaintext in plaintexts]
    bases = [entry.room for entry in entries if isinstance(entry, BaseEntry)]
    assert len(bases) == 2
    assert all(base.authority_key == NO_KEY and base.actions == [] for base in bases)
    changes = [entry.change for entry in entries if isinstance(entry, DeltaEntry)]
    assert [(change.first, change.actions) for change in changes[-5:]] == [
        (0, [(0, "x"), (1, "y")]),
        (2, []),
        (0, [(0, "x")]),
        (1, many.actions[1:65]),
        (65, many.actions[65:]),
    ]
    await authority.close(keep=True)


async def test_a_seat_voter_that_won_takes_the_table_over_as_the_log_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Elected, Ana's voter runs the table from the log: the game as the
    log has it, signed by a fresh room key (announced with the term; the
    old one only a predecessor's), hosted under her name, its brokers the
    succession's after the cluster's, waiting for people longer, saying
    where the table moved, replicating through her voter, and handed to
    whoever asked (a dealer). A dealer's voter says "dealer" instead.
    Mutants of _take_over: each of these dropped or changed."""
    from net.authority.replication import NO_KEY, BaseEntry, _entry_encoder, rebuild
    from net.authority.rooms import BrokerChoice
    from net.peer.failover import PRESENCE_TIMEOUT

    game = room(players=3, bot_delay=0.0)
    for seat, name in enumerate(("Host", "Ana", "Bo")):
        seated(game, Identity.generate(), name=name, seat=seat)
    listen(game)
    game.start_game()
    assert game.table is not None
    await game.table.stop()
    saved = game.snapshot(BrokerChoice(False, "127.0.0.1", 1))
    logged = rebuild(
        [_entry_encoder.encode(BaseEntry(msgspec.structs.replace(saved, authority_key=NO_KEY)))]
    )
    me, maker = Identity.generate(), Identity.generate()
    keys = [maker.public_key, me.public_key, Identity.generate().public_key]
    config, _ = make_room_config(maker, keys)
    tables: list[Authority] = []
    old_key = Identity.generate().public_key

    def voter(dealer: bool) -> SeatVoter:
        made = seat_voter(
            me,
            config,
            tmp_path / str(dealer),
            room_key=lambda: old_key,
            cluster=[("10.0.0.9", 1883)],
            standby=True,
            advertise=False,
            on_table=tables.append,
            dealer=dealer,
        )
        monkeypatch.setattr(made.replica, "rebuild", lambda: logged)
        monkeypatch.setattr(made.replica.driver, "succession", lambda: [("10.0.0.7", 1999)])
        return made

    ana = voter(dealer=False)
    with caplog.at_level(logging.INFO, logger="passe.failover"):
        ana._take_over(2)
    assert f"room {CODE}: term 2: the table runs here now" in caplog.messages
    table = ana.authority
    assert table is not None and tables == [table] and ana.failed is None
    assert ana.former_host == "Host" and table.host_name == "Ana"
    assert table.table is not None and table.table.state.record() == game.table.state.record()
    new_key = ana.replica.driver.room_key
    assert new_key == table.identity.public_key not in (old_key, game.identity.public_key)
    assert table.predecessors == {old_key}
    assert table.broker_alternates == (("10.0.0.9", 1883), ("10.0.0.7", 1999))
    assert table.standby and table.cluster == (("10.0.0.9", 1883),)
    assert table.presence_timeout == PRESENCE_TIMEOUT
    assert table._notice == "The table moved to Ana's machine (it holds the deck now)"
    assert table.replica is ana.replica and table._election == encode_room_config(config)
    assert (table.broker_host, table.broker_port) == ("127.0.0.1", 1)
    await ana.close()
    dealer = voter(dealer=True)
    dealer._take_over(3)
    assert dealer.authority is not None
    assert dealer.authority._notice == "The table moved to dealer Ana (it holds the deck now)"
    await dealer.close()


def test_a_replica_tells_its_owner_only_of_its_own_later_terms(tmp_path: Path) -> None:
    """``on_won``: this voter became the authority of a term after the
    first (the maker's first term is no win to act on), with that term;
    another's term, or none to tell, nothing. And a voter that is not the
    authority replicates nothing (index 0). Mutants: each condition."""
    from net.authority.replication import RoomReplica

    me, other = Identity.generate(), Identity.generate()
    config, _ = make_room_config(
        me, [me.public_key, other.public_key, Identity.generate().public_key]
    )
    won: list[int] = []
    replica = RoomReplica(
        me,
        CODE,
        config,
        tmp_path / "me.vote",
        "127.0.0.1",
        1,
        maker=me.public_key,
        on_won=won.append,
    )
    replica._on_authority(1, me.public_key)
    replica._on_authority(3, other.public_key)
    assert won == [] and replica.authority_known.is_set()
    replica._on_authority(2, me.public_key)
    assert won == [2]
    quiet = RoomReplica(
        me, CODE, config, tmp_path / "quiet.vote", "127.0.0.1", 1, maker=me.public_key
    )
    quiet._on_authority(2, me.public_key)  # nobody to tell: no error
    assert not replica.is_authority
    saved_room = None  # a follower returns before it reads the save
    assert replica.record(saved_room) == 0  # type: ignore[arg-type]


# -- net/authority/replication.py: the voter's file, the log's entries -------


def _room_of(*people: Identity) -> tuple[Config, bytes]:
    """A room's config and secret, the first of ``people`` its maker."""
    return make_room_config(people[0], [person.public_key for person in people])


def _replica(identity: Identity, config: Config, path: Path, **options: Any) -> RoomReplica:
    """``identity``'s voter in room CODE on a broker nobody runs, never
    started (the maker's key is the config's sealer: it split the secret)."""
    return RoomReplica(identity, CODE, config, path, "127.0.0.1", 1, maker=config.sealer, **options)


async def _an_ended_game() -> tuple[Authority, SavedRoom]:
    """A two-bot dominoes game played to its end (146 actions with room()'s
    seed): its authority (still open: the caller closes it) and its save."""
    ended = room(game="dominoes", players=2, bot_delay=0.0)
    ended.set_bot(0, "random")
    ended.set_bot(1, "random")
    listen(ended)
    ended.start_game()
    await asyncio.wait_for(ended._over.wait(), 30)
    return ended, ended.snapshot(BrokerChoice(False, "127.0.0.1", 1))


async def _a_played_game() -> SavedRoom:
    """The save of a two-bot dominoes game played to its end."""
    ended, saved = await _an_ended_game()
    await ended.close(keep=True)
    return saved


def _partway(game: SavedRoom, actions: int) -> SavedRoom:
    """``game`` as it was saved ``actions`` actions in."""
    return msgspec.structs.replace(game, actions=game.actions[:actions], phase="playing")


def test_only_the_dealers_named_hold_shares_and_without_any_every_voter_does() -> None:
    """make_room_config marks as dealers exactly the keys in ``dealers``:
    with none, no voter is a dealer, every one holds a share and the
    threshold is a majority of them (3 of 4: the dealers' rule would say
    2, and any two players could rebuild the deck); with two dealers, only
    they hold shares, either alone enough. Kills make_room_config's
    mutants: ``not in dealers``."""
    maker, ana, bea, cy = (Identity.generate() for _ in range(4))
    keys = [maker.public_key, ana.public_key, bea.public_key, cy.public_key]
    config, _ = make_room_config(maker, keys)
    assert [voter.dealer for voter in config.voters] == [False] * 4
    assert [share.holder for share in config.shares] == keys and config.threshold == 3
    dealt, _ = make_room_config(maker, keys, dealers=[maker.public_key, bea.public_key])
    assert [voter.dealer for voter in dealt.voters] == [True, False, True, False]
    assert [share.holder for share in dealt.shares] == [maker.public_key, bea.public_key]
    assert dealt.threshold == 1


async def test_the_log_s_key_is_a_placeholder_that_a_successor_never_checks() -> None:
    """A successor signs with a key of its own (SeatVoter._take_over), so
    rebuild checks the log's room as it will run, whatever key its base
    holds: NO_KEY as record writes it, or an empty one (a writer that left
    it out) alike; the rest of the room is checked as ever. Kills
    rebuild's mutants: the room checked with the log's own key."""
    saved = await _a_played_game()
    for placeholder in (NO_KEY, b""):
        base = BaseEntry(msgspec.structs.replace(saved, authority_key=placeholder))
        rebuilt = rebuild([_entry_encoder.encode(base)])
        assert rebuilt.actions == saved.actions and rebuilt.phase == "playing"


async def test_a_background_task_s_failure_is_logged_in_words_and_its_success_is_not(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """spawn: a task that fails says so in one warning naming it (never
    lost silently); one that ends well, or is cancelled, says nothing.
    Kills spawn's mutants: ``or`` for ``and`` (a success logged as
    "failed: None")."""

    async def fails() -> None:
        raise OSError("the broker refused the connection")

    async def ends_well() -> None:
        return None

    async def waits() -> None:
        await asyncio.Event().wait()

    with caplog.at_level(logging.INFO, logger="passe.replication"):
        for task in (spawn(ends_well(), "a quiet task"), spawn(fails(), "the room's voter")):
            with contextlib.suppress(OSError):
                await task  # its own callback ran first: it was added first
        cancelled = spawn(waits(), "a cancelled task")
        cancelled.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await cancelled
    assert caplog.messages == ["the room's voter failed: the broker refused the connection"]


async def test_a_replica_closed_and_discarded_twice_at_the_end_says_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a game's end the table's close closes and discards its voter,
    then the seat's voter does both again (SeatVoter.close): the file is
    gone the first time, and neither the second discard nor a close that
    fails raises (close_quietly: the process is on its way out). Kills
    discard's and close_quietly's mutants: ``suppress(None)``, which
    raises TypeError on the error it should swallow."""
    maker, ana, bo = (Identity.generate() for _ in range(3))
    config, _ = _room_of(maker, ana, bo)
    path = tmp_path / "ana.vote"
    replica = _replica(ana, config, path)
    assert path.exists()
    replica.discard()
    assert not path.exists()
    replica.discard()  # the file already gone: nothing to say

    async def broken() -> None:
        raise OSError("the broker's socket is gone")

    monkeypatch.setattr(replica.driver, "close", broken)
    await close_quietly(replica)
    await close_quietly(None)


async def test_a_restarted_voter_keeps_its_file_and_another_room_s_is_replaced(
    tmp_path: Path,
) -> None:
    """RoomReplica's file: a process restarted in the same room takes its
    file back (its term, vote and log: the maker's term-1 entry here); a
    file left by another room of the same code, under the same name, is
    replaced by a fresh one of this room's config. Kills _storage's
    mutants: ``!=`` for ``==``. While a voter runs, no second one starts
    from its file (each would vote once per term: twice in all)."""
    maker, ana, bo = (Identity.generate() for _ in range(3))
    config, secret = _room_of(maker, ana, bo)
    path = tmp_path / "maker.vote"
    first = _replica(maker, config, path)
    first.lead(secret, Identity.generate().public_key)
    assert first.driver.node.last_index == 2
    with pytest.raises(
        VoterBusy, match=r"ABC123: this key's voter runs already \(in this Passe or another\)"
    ):
        _replica(maker, config, path)
    await first.close()
    restarted = _replica(maker, config, path)
    assert restarted.driver.node.last_index == 2 and restarted.term == 1
    await restarted.close()
    other, _ = _room_of(maker, ana, Identity.generate())
    replaced = _replica(maker, other, path)
    assert replaced.driver.node.last_index == 1
    assert replaced.driver.node.config == other != config


def test_a_damaged_voter_file_is_replaced_and_the_log_says_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A voter file that does not load (damaged, cut short) is replaced by
    a new one of the room's config, and the operator reads why in one
    warning: the file and what is wrong with it. Kills _storage's
    mutants: the warning's words, its argument, or its format string
    left out."""
    maker, ana, bo = (Identity.generate() for _ in range(3))
    config, _ = _room_of(maker, ana, bo)
    path = tmp_path / "ana.vote"
    path.write_bytes(b"not a voter's file")
    with pytest.raises(StorageError) as damaged:
        FileStorage(path).load()
    with caplog.at_level(logging.INFO, logger="passe.replication"):
        replica = _replica(ana, config, path)
    assert caplog.messages == [f"starting a new voter file: {damaged.value}"]
    assert str(path) in caplog.messages[0]
    assert replica.driver.node.last_index == 1
    assert FileStorage(path).load().log[0].kind == "config"


def test_a_voter_file_s_directory_is_made_with_its_parents(tmp_path: Path) -> None:
    """The rooms' directory may not exist yet (a first run, a new
    PASSE_DATA_DIR): the voter file's directory is made, its parents too.
    Kills _storage's mutants: mkdir without ``parents``."""
    maker, ana, bo = (Identity.generate() for _ in range(3))
    config, _ = _room_of(maker, ana, bo)
    path = tmp_path / "data" / "rooms" / "ana.vote"
    replica = _replica(ana, config, path)
    assert path.is_file() and replica.driver.storage.path == path


def _with_action(save: SavedRoom, length: int) -> SavedRoom:
    """``save`` with one action of ``length`` characters."""
    return msgspec.structs.replace(save, actions=[(0, "x" * length)])


def _change_size(save: SavedRoom) -> int:
    """The bytes of the entry that holds ``save``'s actions, from the first."""
    return len(_entry_encoder.encode(DeltaEntry(journal_entry(save, 0))))


def _leading_replica(path: Path) -> tuple[RoomReplica, SavedRoom]:
    """The room's maker's voter, authority of term 1 (no broker: nothing
    commits), having replicated a lobby's save (its base and change)."""
    maker, ana, bo = (Identity.generate() for _ in range(3))
    config, secret = _room_of(maker, ana, bo)
    replica = _replica(maker, config, path)
    replica.lead(secret, Identity.generate().public_key)
    save = room().snapshot(BrokerChoice(False, "127.0.0.1", 1))
    assert replica.record(save) > 0
    return replica, save


def test_a_save_that_fills_an_entry_exactly_is_replicated(tmp_path: Path) -> None:
    """PLAINTEXT_LIMIT is the largest save an entry holds under the room
    secret (MAX_ENTRY_DATA with the secret box's 40 bytes): a change of
    exactly that size is replicated whole. Kills _append's mutants:
    ``>=`` for ``>``."""
    replica, save = _leading_replica(tmp_path / "maker.vote")
    exact = _with_action(save, 1000 + PLAINTEXT_LIMIT - _change_size(_with_action(save, 1000)))
    assert _change_size(exact) == PLAINTEXT_LIMIT
    index = replica.record(exact)
    assert index == replica.driver.node.last_index > 0
    assert _entry_decoder.decode(replica.driver.read_log()[-1]) == DeltaEntry(
        journal_entry(exact, 0)
    )


def test_a_save_too_large_to_replicate_is_held_by_no_entry_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A change one byte over PLAINTEXT_LIMIT goes in no entry: record
    returns 0, as documented when nothing is replicated (Authority._save
    takes max(barrier, index): None would raise there, and 1 names the
    config's entry, which holds no save), the log is as it was, and the
    operator reads one error naming the room and the size. Kills record's
    mutants (``index`` starting at None or 1) and _append's (1 returned;
    the error's words, its room or size left out or None)."""
    replica, save = _leading_replica(tmp_path / "maker.vote")
    before = replica.driver.read_log()
    over = _with_action(save, 1001 + PLAINTEXT_LIMIT - _change_size(_with_action(save, 1000)))
    assert _change_size(over) == PLAINTEXT_LIMIT + 1
    with caplog.at_level(logging.INFO, logger="passe.replication"):
        assert replica.record(over) == 0
    assert caplog.messages == [
        f"a save of room {CODE} is too large to replicate ({PLAINTEXT_LIMIT + 1} bytes)"
    ]
    assert replica.driver.read_log() == before


def test_a_save_that_could_not_be_replicated_leaves_no_gap_in_the_log(tmp_path: Path) -> None:
    """An action whose change went in no entry is not counted as
    replicated: the next save's change starts where the log stops, so the
    log never skips an action and a successor always rebuilds it (before,
    the next change began after the lost action and rebuild refused the
    log: "skips actions"). A base that went in no entry is tried again."""
    replica, save = _leading_replica(tmp_path / "maker.vote")
    over = _with_action(save, PLAINTEXT_LIMIT)
    assert replica.record(over) == 0
    later = msgspec.structs.replace(over, actions=[*over.actions, (1, "y")])
    assert replica.record(later) == 0  # the lost action is still not in an entry
    assert rebuild(replica.driver.read_log()).actions == []  # the lobby, whole
    fresh, lobby = _leading_replica(tmp_path / "fresh.vote")
    fresh._replicated_actions = None  # a new authority's first save: a base
    too_large = msgspec.structs.replace(lobby, host_name="h" * PLAINTEXT_LIMIT)
    assert fresh.record(too_large) == 0 and fresh._replicated_actions is None
    entries = len(fresh.driver.read_log())
    assert fresh.record(lobby) > 0 and len(fresh.driver.read_log()) == entries + 2


def test_a_voter_tries_the_nodes_of_its_broker_s_cluster_first(tmp_path: Path) -> None:
    """The room's broker gone, a voter's link goes to the other nodes of
    that broker's cluster before any standby broker (docs/scale.md).
    Kills RoomReplica.__init__'s mutants: ``cluster`` not handed on."""
    maker, ana, bo = (Identity.generate() for _ in range(3))
    config, _ = _room_of(maker, ana, bo)
    node = ("10.0.0.9", 1883)
    replica = _replica(ana, config, tmp_path / "ana.vote", cluster=[node])
    assert replica.driver.cluster == (node,)
    assert replica.driver._alternates() == [node]


async def test_a_voter_elected_after_the_maker_goes_on_from_the_room_it_rebuilt(
    tmp_path: Path,
) -> None:
    """Three voters, real sealed messages carried by hand: the maker leads
    term 1 and replicates a game two actions in; its machine goes (Bo saw
    its will, Ana stands). Ana's replica wins term 2: it tells its owner
    (on_won, the take-over) and knows the room is alive (authority_known,
    as its followers did in term 1); it rebuilds the game from its log
    and replicates the next save as a change from there, not a new base
    with every action again. Kills RoomReplica.__init__'s mutants
    (``on_authority`` not wired) and RoomReplica.rebuild's (the count of
    actions replicated forgotten)."""
    people = maker, ana, bo = tuple(Identity.generate() for _ in range(3))
    config, secret = _room_of(*people)
    won: dict[str, list[int]] = {person.peer_id: [] for person in people}
    first, successor, other = (
        _replica(
            person, config, tmp_path / f"{person.peer_id}.vote", on_won=won[person.peer_id].append
        )
        for person in people
    )
    network = Network([first.driver, successor.driver, other.driver])
    first.lead(secret, Identity.generate().public_key)
    assert first.authority_known.is_set() and not successor.authority_known.is_set()
    game = await _a_played_game()
    assert first.record(_partway(game, 2)) > 0
    await network.carry()
    assert successor.authority_known.is_set() and other.authority_known.is_set()
    now = other.driver.clock()
    other.driver.node.authority_gone(now)  # as its driver does on the maker's will
    successor.driver._carry_out(successor.driver.node.suspect(now, current=True))
    await network.carry(only={1, 2})  # the maker hears nothing more
    assert successor.is_authority and successor.term == 2
    assert won == {maker.peer_id: [], ana.peer_id: [2], bo.peer_id: []}
    rebuilt = successor.rebuild()
    assert rebuilt == msgspec.structs.replace(_partway(game, 2), authority_key=NO_KEY)
    log_before = len(successor.driver.read_log())
    assert successor.record(_partway(game, 3)) > 0
    added = [_entry_decoder.decode(plain) for plain in successor.driver.read_log()[log_before:]]
    assert added == [DeltaEntry(journal_entry(_partway(game, 3), 2))]
    for replica in (first, successor, other):
        await replica.close()
