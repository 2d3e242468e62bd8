"""The seat that acted counts its own majority (issue 20; docs/election.md
section 12): its update leaves the authority once the authority holds the
change's entry on disk, marked uncommitted, and the seat shows it only when
its own voter holds the entry on disk and enough others said they do
(``Held``) to make a majority with the authority, a share holder other
than the authority among them. First the drivers' rule, with real sealed
messages carried by hand; then a room on a real broker (Mosquitto, the
authority and three seats in this process) whose authority never commits.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.registry import get_game
from net.authority.authority import Authority
from net.authority.host import HostedRoom
from net.authority.replication import RoomReplica
from net.election.driver import election_topic
from net.election.messages import Held
from net.identity import Identity
from net.protocol.wire import Update, seal
from tests.net.peers import WatchedTable, hosts_person, open_test_room, until
from tests.net.procs import need_mosquitto
from tests.net.voter_drivers import CODE, Network, voter_drivers

BROKER = ("127.0.0.1", 1883)


async def test_a_seat_counts_a_majority_from_its_disk_the_authority_and_held(
    tmp_path: Path,
) -> None:
    """Four voters: a majority is three. The authority and the seat that
    acted are two, a third voter's Held makes it; but only once the entry
    is on the seat's own disk. Mutations: counting the seat without its
    own copy, or a majority of two."""
    drivers = voter_drivers(tmp_path, 4)
    network = Network(drivers)
    await network.carry()  # term 1's first entry, everywhere
    authority, mover = drivers[0], drivers[1]
    index = authority.append(b"a move", notify=mover.identity.public_key)
    assert index > 0 and authority.holds(1, index)
    await network.carry(only={2})  # voter 2 writes it and says so to the mover
    held = [message for message in network.waiting if message[0] == mover.topic][-1]
    network.waiting.remove(held)
    await mover._on_message(*held)  # which hears that before the entry itself
    assert mover.held_by[drivers[2].identity.public_key] == (1, index)
    assert not mover.holds(1, index)
    assert not mover.majority_holds(1, index)  # three of four, but not on its disk
    await network.carry(only={1})
    assert mover.holds(1, index)
    assert mover.majority_holds(1, index)
    assert not mover.majority_holds(2, index)  # not another term's entry
    # Voter 3 was told nothing and says nothing; voter 2 tells no one else.
    assert drivers[3].identity.public_key not in mover.held_by
    assert authority.held_by == {} and drivers[2].held_by == {}


async def test_the_voter_that_waits_gets_its_append_first(tmp_path: Path) -> None:
    """The authority's Appends of a seat's action go to that seat's voter
    before the others' (its copy is on the seat's path; the others' only
    one of them is). Mutation: the core's order (the config's)."""
    drivers = voter_drivers(tmp_path, 5)
    network = Network(drivers)
    await network.carry()
    authority, mover = drivers[0], drivers[4]
    authority.append(b"a move", notify=mover.identity.public_key)
    sent = [authority._outbox.get_nowait()[0] for _ in range(authority._outbox.qsize())]
    assert sent[0] == mover.topic
    assert sorted(sent) == sorted(driver.topic for driver in drivers[1:])


class _Writes:
    """A link that is up and writes at once: which topics it wrote so."""

    connected = True

    def __init__(self) -> None:
        self.at_once: list[str] = []
        self.payloads: list[tuple[str, bytes]] = []

    def publish_now(self, topic: str, payload: bytes) -> bool:
        self.at_once.append(topic)
        self.payloads.append((topic, payload))
        return True


@pytest.mark.parametrize(
    ("voters", "dealers", "mover_at", "put_off"),
    [
        (3, 0, 1, True),  # the seat's voter and the authority: two of three
        (4, 0, 1, False),  # a majority is three: another voter is on the path
        (3, 2, 2, False),  # the seat holds no share: the other dealer must hold it
    ],
    ids=["three-voters", "four-voters", "the-seat-holds-no-share"],
)
async def test_the_others_appends_wait_behind_the_seat_s_update_only_off_its_path(
    tmp_path: Path, voters: int, dealers: int, mover_at: int, put_off: bool
) -> None:
    """Where the seat's voter and the authority are a majority with a share
    holder (OTHERS_AFTER_UPDATE), the other voters' Appends of the seat's
    entry are not sealed nor written in ``append``: the send loop does it,
    after the seat's update, in order with what follows them; they still
    name the seat, and its majority comes from them as before. Elsewhere
    every Append goes at once. Mutations: every Append at once; the rule
    without the majority or without the share holder."""
    from net.election.messages import Append

    drivers = voter_drivers(tmp_path, voters, dealers=dealers)
    network = Network(drivers)
    await network.carry()
    authority, mover = drivers[0], drivers[mover_at]
    others = [driver for driver in drivers[1:] if driver is not mover]
    link = _Writes()
    authority._link = link  # type: ignore[assignment]
    index = authority.append(b"a move", notify=mover.identity.public_key)
    if not put_off:
        assert others[0].topic in link.at_once and authority._outbox.empty()
        return
    assert link.at_once == [mover.topic]
    waiting = [authority._outbox.get_nowait() for _ in range(authority._outbox.qsize())]
    assert [topic for topic, _, _ in waiting] == [other.topic for other in others]
    assert all(callable(sealed) for _, sealed, _ in waiting)  # sealed when they go
    assert not any(retain for _, _, retain in waiting)
    # Only while append() carries the entry out: a heartbeat after it, with
    # nothing waiting, goes at once.
    authority.send(others[0].identity.public_key, Append(1, index, 1, [], index))
    assert link.at_once == [mover.topic, others[0].topic] and authority._outbox.empty()
    # A heartbeat to the same voter made meanwhile queues behind its Append.
    for item in waiting:
        authority._outbox.put_nowait(item)
    authority.send(others[0].identity.public_key, Append(1, index, 1, [], index))
    assert len(link.at_once) == 2 and authority._outbox.qsize() == len(others) + 1
    authority._link = None
    await mover._on_message(*link.payloads[0])  # the seat's voter writes its copy
    await network.carry(only={drivers.index(other) for other in others})
    # Each other voter wrote the entry and told the seat so: its majority.
    assert mover.topic in {topic for topic, _ in network.waiting}
    await network.carry()
    assert mover.majority_holds(1, index)


@pytest.mark.parametrize("waiting", ["the-authority", "no-voter"])
async def test_an_append_for_the_authority_s_own_seat_or_no_voter_goes_at_once(
    tmp_path: Path, waiting: str
) -> None:
    """A dealer's room whose only share holder is the authority: a majority
    of two needs no other holder, yet the others' Appends wait only behind
    a seat's voter that can count it. The authority's own key (its person
    learns of the commit in its process) or a key that does not vote waits
    for nothing: every Append goes at once. Mutations: either guard
    dropped, or turned into "and"."""
    drivers = voter_drivers(tmp_path, 3, dealers=1)
    network = Network(drivers)
    await network.carry()
    authority = drivers[0]
    link = _Writes()
    authority._link = link  # type: ignore[assignment]
    key = authority.identity.public_key if waiting == "the-authority" else Identity.generate()
    notify = key if isinstance(key, bytes) else key.public_key
    authority.append(b"a move", notify=notify)
    assert authority._outbox.empty()
    assert sorted(link.at_once) == sorted(driver.topic for driver in drivers[1:])


async def test_a_held_from_outside_the_voters_counts_for_nothing(tmp_path: Path) -> None:
    """Anyone with the room code can seal a message to a voter: a Held from
    a key that does not vote, or a voter's own key sent by someone else, is
    dropped. Mutation: ``_on_held`` without its voter check."""
    drivers = voter_drivers(tmp_path, 4)
    network = Network(drivers)
    await network.carry()
    authority, mover = drivers[0], drivers[1]
    index = authority.append(b"a move", notify=mover.identity.public_key)
    await network.carry(only={1})
    stranger = Identity.generate()
    topic = election_topic(CODE, mover.identity.peer_id)
    await mover._on_message(topic, seal(stranger, topic, Held(1, index), mover.identity.public_key))
    assert mover.held_by == {} and not mover.majority_holds(1, index)


async def test_in_a_dealers_room_the_other_dealer_must_hold_it_too(tmp_path: Path) -> None:
    """Two dealers and three players: a majority is three, but the other
    dealer (the only voter that could take the table next) must be among
    them, as the authority's commit rule has it (Node._successor_holds).
    The players get the entry only once the other dealer holds it
    (Node._sendable), so no Held of theirs comes before."""
    drivers = voter_drivers(tmp_path, 5, dealers=2)
    network = Network(drivers)
    await network.carry()
    authority, other_dealer, mover = drivers[0], drivers[1], drivers[3]
    index = authority.append(b"a move", notify=mover.identity.public_key)
    await network.carry(only={0, 2, 3, 4})  # every player, not the other dealer
    assert not mover.held_by
    assert not mover.majority_holds(1, index)  # held by nobody but the authority
    await network.carry()  # the other dealer, then the players
    assert mover.held_by[other_dealer.identity.public_key] == (1, index)
    assert len(mover.held_by) == 3
    assert mover.majority_holds(1, index)


async def test_only_a_follower_counts_a_majority_of_its_own(tmp_path: Path) -> None:
    """The authority commits by its own rule (the core's): Helds that reach
    it (anyone with the room code can seal one, and a voter may) never make
    it count a majority here. Mutations: the role check weakened."""
    drivers = voter_drivers(tmp_path, 4)
    network = Network(drivers)
    await network.carry()
    authority = drivers[0]
    index = authority.append(b"a move", notify=drivers[1].identity.public_key)
    for voter in drivers[1:3]:
        authority._on_held(voter.identity.public_key, Held(1, index))
    assert authority.holds(1, index) and len(authority.held_by) == 2
    assert not authority.majority_holds(1, index)


async def test_a_held_of_another_term_counts_for_nothing(tmp_path: Path) -> None:
    """A Held says what was on a disk in its term: one of another term
    counts for nothing here, however far its index. Mutation: the term or
    the index enough."""
    drivers = voter_drivers(tmp_path, 4)
    network = Network(drivers)
    await network.carry()
    authority, mover = drivers[0], drivers[1]
    index = authority.append(b"a move", notify=mover.identity.public_key)
    await network.carry(only={1})
    assert mover.holds(1, index) and not mover.majority_holds(1, index)
    mover._on_held(drivers[2].identity.public_key, Held(2, index + 5))
    assert not mover.majority_holds(1, index)
    mover._on_held(drivers[3].identity.public_key, Held(1, index))
    assert mover.majority_holds(1, index)


async def test_a_majority_without_the_other_dealer_is_not_enough(tmp_path: Path) -> None:
    """Two dealers, three players: the authority, the mover and another
    player are a majority, but the other dealer (the only voter that could
    take the table next, holding a share) is not among them: the update
    waits for its Held. Mutations: the share holders' rule dropped."""
    drivers = voter_drivers(tmp_path, 5, dealers=2)
    network = Network(drivers)
    await network.carry()
    authority, other_dealer, mover = drivers[0], drivers[1], drivers[3]
    index = authority.append(b"a move", notify=mover.identity.public_key)
    await network.carry(only={0, 1, 2, 4})  # the entry everywhere but at the mover
    await network.carry(only={3})  # ...and there, with every Held to it
    dealers_held = (1, index)
    assert mover.held_by.pop(other_dealer.identity.public_key) == dealers_held
    assert mover.holds(1, index) and len(mover.held_by) == 2  # the two other players
    assert not mover.majority_holds(1, index)  # a majority, but no share holder
    mover._on_held(other_dealer.identity.public_key, Held(*dealers_held))
    assert mover.majority_holds(1, index)


# -- on a real broker --------------------------------------------------------


@contextlib.asynccontextmanager
async def _closing(
    room: HostedRoom, people: list[WatchedTable]
) -> AsyncIterator[tuple[HostedRoom, list[WatchedTable]]]:
    try:
        yield room, people
    finally:
        for person in people:
            await person.table.close()
        await room.close()


@contextlib.asynccontextmanager
async def _three_people(
    seed: int,
) -> AsyncIterator[tuple[Authority, list[WatchedTable], WatchedTable]]:
    """A room of three people's seats in this process, playing, each
    seat's voter in step with the authority's log (four voters); its
    authority, the seats, and the one to act."""
    room = await open_test_room("passpass", 3, BROKER, seed=seed)
    people = [await WatchedTable.join(room.code, *BROKER, name) for name in ("Ana", "Bob", "Cy")]
    async with _closing(room, people):
        room.authority.start_game()
        assert room.authority.replica is not None, "three people's machines: it fails over"
        await until(
            lambda: all(
                p.table.voter is not None and p.table.voter.replica.driver.in_step.is_set()
                for p in people
            )
        )
        yield room.authority, people, await _to_act(people)


def _hold_commits(monkeypatch: pytest.MonkeyPatch, authority: Authority) -> RoomReplica:
    """The authority commits nothing more (until ``monkeypatch.undo()``)."""
    assert authority.replica is not None
    monkeypatch.setattr(authority.replica.driver.node, "_advance_commit", lambda: [])
    return authority.replica


async def _beyond(person: WatchedTable, seq: int) -> None:
    """Until ``person`` shows a moment after ``seq``."""
    await until(lambda: person.table.seq > seq, timeout=10)


async def _to_act(people: list[WatchedTable]) -> WatchedTable:
    # Every seat shows the same moment (the last move reached everyone).
    await until(
        lambda: (
            all(p.table.view is not None for p in people)
            and len({p.table.seq for p in people}) == 1
        )
    )
    view = people[0].table.view
    assert view is not None
    seat = view.to_act[0]
    mover = next(p for p in people if p.table.seat == seat)
    await until(lambda: mover.table.view is not None and bool(mover.table.view.legal))
    return mover


async def test_the_seat_that_acted_sees_its_move_before_the_authority_commits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The authority's commits are held back: the others see nothing of the
    move, and the seat that made it sees it, a majority of the voters
    holding it. Then commits resume and everyone has it. Mutation: the
    authority sending no uncommitted update (PASSE_EARLY_UPDATES=0): the
    mover waits as the others do and the test times out; the committed
    copy shown again."""
    need_mosquitto()
    async with _three_people(seed=7) as (authority, people, mover):
        others = [p for p in people if p is not mover]
        before = [p.table.seq for p in people]
        replica = _hold_commits(monkeypatch, authority)
        committed = replica.committed
        assert mover.table.view is not None
        action = get_game("passpass").parse_action(str(mover.table.view.legal[0]))
        mark = mover.mark()
        await mover.table.submit(action)
        await until(lambda: mover.table.seq > before[people.index(mover)])
        assert not mover.table.action_pending
        assert replica.committed == committed < authority._barrier
        assert [p.table.seq for p in others] == [before[people.index(p)] for p in others]
        monkeypatch.undo()  # commits resume at the next replies (heartbeats)
        await until(lambda: all(p.table.seq >= mover.table.seq for p in others))
        # The committed copy came too, and was not shown a second time.
        await until(lambda: mover.table._shown_uncommitted is None)
        assert len(mover.updates) - mark == 1


async def test_without_a_majority_on_disk_the_seat_waits_for_the_commit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four voters (the host's process and three seats); the two other
    seats' voters say nothing: the seat that acted holds the entry, and
    so does the authority, two of four. Its update waits until the
    authority commits and sends the committed copy. Mutation: counting a
    majority of the voters wrongly (two of four), or showing an
    uncommitted update without counting."""
    need_mosquitto()
    async with _three_people(seed=8) as (authority, people, mover):
        for other in people:
            if other is not mover:
                assert other.table.voter is not None
                monkeypatch.setattr(other.table.voter.replica.driver, "_tell_held", lambda *_: None)
        replica = _hold_commits(monkeypatch, authority)
        seq = mover.table.seq
        assert mover.table.view is not None and mover.table.voter is not None
        driver = mover.table.voter.replica.driver
        action = get_game("passpass").parse_action(str(mover.table.view.legal[0]))
        await mover.table.submit(action)
        await until(lambda: mover.table._uncommitted is not None or mover.table.seq > seq)
        assert mover.table.seq == seq, "shown before a majority held it"
        held_back = mover.table._uncommitted
        assert held_back is not None and held_back.uncommitted is not None
        entry = held_back.uncommitted
        await until(lambda: driver.holds(entry.term, entry.index))
        await asyncio.sleep(0)  # what its voter's write set off has run
        assert mover.table.seq == seq and mover.table.action_pending
        assert not driver.majority_holds(entry.term, entry.index)
        monkeypatch.undo()
        # Shown once a majority holds it: the committed copy, or the other
        # voters' Held now let through (which may come first: CI, 3.13,
        # 5 December, the seat showed it before the authority's commit).
        await until(lambda: mover.table.seq > seq)
        await until(lambda: replica.committed >= entry.index)
        await until(lambda: mover.table._uncommitted is None)


async def test_the_hosts_person_sees_their_move_once_it_commits_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The host's person's seat runs in the authority's process, with a key
    of its own that does not vote (told there: net/authority/host.py, tui/netplay.py):
    its early update shows when the change commits in that process. Here
    every committed copy to that seat is lost on the way, and the host's
    person still sees each of their moves. Mutation: no ``hosted_replica``
    (the seat then waits for a copy that never comes)."""
    need_mosquitto()
    room = await open_test_room("passpass", 3, BROKER, seed=9)
    authority = room.authority
    host = await WatchedTable.seat(hosts_person(room, BROKER))
    hostess = host.table.identity
    people = [host, *[await WatchedTable.join(room.code, *BROKER, n) for n in ("Bob", "Cy")]]
    async with _closing(room, people):
        authority.start_game()
        assert authority.replica is not None
        assert hostess.public_key not in authority.replica.driver.node.voters
        send_at_once, send_update = authority._send_at_once, authority._to_peer
        early: set[int] = set()

        def note_early(key: bytes, update: Update) -> None:
            if key == hostess.public_key:
                early.add(update.seq)
            send_at_once(key, update)

        def lose_copies(key: bytes, message: object) -> None:
            if key == hostess.public_key and isinstance(message, Update) and message.seq in early:
                return  # the committed copy of an early update: lost
            send_update(key, message)  # type: ignore[arg-type]

        monkeypatch.setattr(authority, "_send_at_once", note_early)
        monkeypatch.setattr(authority, "_to_peer", lose_copies)
        game = get_game("passpass")
        for _ in range(6):  # whoever acts: the host's person among them
            mover = await _to_act(people)
            assert mover.table.view is not None
            seq = mover.table.seq
            await mover.table.submit(game.parse_action(str(mover.table.view.legal[0])))
            await _beyond(mover, seq)
        assert early and not host.table.action_pending
