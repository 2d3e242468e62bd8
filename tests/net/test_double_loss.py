"""Two machines lost one after the other, then back: the game goes on
(issue 20; docs/election.md section 13).

Found in a play-test (5 December, three people on the embedded broker, 2
runs of 2): Hana's machine died and the table moved to Joe's; Joe's died
too before Hana's was back. Once both were back, the game never resumed:
each returned voter sat on its own revived broker and Kim's on its standby
one, and nothing advertised the room on the LAN, so ``u``, ``j`` and
``passe join CODE`` said "no room found". Only ``CODE@HOST:PORT`` of Kim's
standby broker, which no screen shows, brought them together.

Now a process back from the dead that finds no advert surveys the room's
brokers (remembered beside its pins) and goes where its voters are; and a
voter alone with no authority for a while surveys them too and moves.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from net.authority.host import HostedRoom
from net.election import driver as election_driver
from net.election.survey import choose, survey
from net.identity import Identity
from net.paths import rooms_dir
from net.peer.pins import RoomPins
from net.peer.rejoin import HeldSeat, room_between_machines, seat_to_rejoin
from net.peer.remote import RemoteTable
from tests.net.peers import host_on_the_embedded_broker, hosts_person, in_step, until


class Room:
    """Hana's room, Bob and Cy seated, the game started; who is alive.
    Each person's pins are a file of their own, as on their own machine
    (here one process holds all three)."""

    def __init__(self, room: HostedRoom, pins: Path) -> None:
        self.room = room
        self.code = room.code
        self.first = ("127.0.0.1", room.broker_port)
        self.pins = pins
        self.hana = hosts_person(room, self.first, "Hana")
        self.hana.pins = self.pins_of(self.hana)
        self.bob = RemoteTable(Identity.generate(), self.code, *self.first, "Bob")
        self.cy = RemoteTable(Identity.generate(), self.code, *self.first, "Cy")
        self.bob.pins, self.cy.pins = self.pins_of(self.bob), self.pins_of(self.cy)
        self.alive: list[RemoteTable] = [self.hana, self.bob, self.cy]

    def pins_of(self, table: RemoteTable) -> RoomPins:
        return RoomPins(self.pins / f"{table.identity.peer_id}.json")

    async def start(self) -> None:
        for table in (self.hana, self.bob, self.cy):
            await table.join()
            await table.connect(lambda update: None)
        await self.room.authority.wait_standby()
        self.room.authority.start_game()
        await until(lambda: in_step(self.bob) and in_step(self.cy))
        # Each seat remembers the room's standby brokers beside its pins,
        # the host's person's too (its seat has no voter).
        for table in (self.hana, self.bob, self.cy):
            await until(lambda table=table: len(self.pins_of(table).brokers(self.code)) >= 2)  # type: ignore[misc]

    async def lose_two(self) -> tuple[RemoteTable, RemoteTable]:
        """Hana's machine dies (its broker with it), the table moves; the
        machine it moved to dies too. The one left, and the one that died
        second."""
        await self.room.close(keep=True)
        await self.hana.close()
        await until(lambda: self.bob.runs_the_table or self.cy.runs_the_table)
        runner, other = (self.bob, self.cy) if self.bob.runs_the_table else (self.cy, self.bob)
        assert runner.voter is not None and runner.voter.broker is not None
        dead = {self.first, ("127.0.0.1", runner.voter.broker.port)}
        await runner.close()  # its machine, and its standby broker, gone
        # The one left is alone on a broker that lives (its own standby
        # one): no majority, no table, no advert.
        assert other.voter is not None
        link = other.voter.replica.driver.link
        assert link is not None
        await until(lambda: link.connected and (link.host, link.port) not in dead)
        assert not other.runs_the_table
        # Its screen knows the table is gone: by the will of the table's
        # link, or, the broker that would send it gone too, because its
        # own link is on another broker, where no record says the table is.
        await until(lambda: not other.host_present)
        return other, runner

    async def back(self, dead: RemoteTable, where: tuple[str, int]) -> RemoteTable:
        again = RemoteTable(
            dead.identity,
            self.code,
            *where,
            dead.name,
            pins=self.pins_of(dead),
            maker_rooms=rooms_dir(),
        )
        self.alive.append(again)
        assert await again.join() == dead.seat
        await again.connect(lambda update: None)
        return again

    async def close(self) -> None:
        for table in self.alive:
            await table.close()
        await self.room.close()


@pytest.mark.long
async def test_back_after_a_double_loss_each_finds_the_room_where_its_voters_are(
    tmp_path: Path,
) -> None:
    """The play-test's case: the host's machine and the one the table moved
    to both die; the two come back by the room's code alone (as ``u``,
    ``j`` and ``passe join CODE`` do when the LAN shows no advert), meet
    the one left, elect, and play on."""
    room = Room(await host_on_the_embedded_broker("Hana"), tmp_path)
    try:
        await room.start()
        # A survey, on real brokers: every voter is online on the room's
        # broker, under its table of term 1; a broker nobody answers on is
        # left out.
        replica = room.room.authority.replica
        assert replica is not None
        voters = replica.driver.node.voters
        order = list(room.pins_of(room.bob).brokers(room.code))
        seen = await survey(room.code, [*order, room.first, ("127.0.0.1", 1)], voters)
        views = {view.broker: view for view in seen}
        assert ("127.0.0.1", 1) not in views
        assert views[room.first].online == frozenset(voters)
        assert views[room.first].table_term == 1
        assert choose(seen) == room.first
        other, runner = await room.lose_two()
        assert other.voter is not None
        link = other.voter.replica.driver.link
        assert link is not None and link.connected
        survivor_broker = (link.host, link.port)
        # The second one killed is offered its seat back (j): nothing runs
        # the room, but its voters wait for this machine's vote.
        waits = await seat_to_rejoin(runner.identity, room.pins_of(runner))
        assert isinstance(waits, HeldSeat) and waits.waiting and waits.code == room.code
        assert (waits.broker_host, waits.broker_port) == survivor_broker
        # Hana back: her machine finds where the last player waits.
        where = await room_between_machines(room.code, room.hana.identity, room.pins_of(room.hana))
        assert where == survivor_broker
        hana = await room.back(room.hana, where)
        await until(lambda: hana.term > 0 and (other.runs_the_table or hana._maker is not None))
        await until(
            lambda: (
                other.runs_the_table
                or (
                    hana._maker is not None
                    and hana._maker[1].authority is not None
                    and hana._maker[1].replica.is_authority
                )
            )
        )
        assert hana.room is not None and hana.room.phase == "playing"
        # The second one back finds the table that runs now, and its seat
        # is offered to it (``j``) where the table is.
        held = await seat_to_rejoin(runner.identity, room.pins_of(runner))
        assert isinstance(held, HeldSeat) and held.code == room.code and held.seat == runner.seat
        assert not held.waiting
        where = await room_between_machines(room.code, runner.identity, room.pins_of(runner))
        assert where is not None
        again = await room.back(runner, where)
        assert again.room is not None and again.room.phase == "playing"
        await until(lambda: again.term == hana.term == other.term)
    finally:
        await room.close()


async def test_a_voter_alone_surveys_the_room_s_brokers_and_joins_the_others(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Hana back at her own broker (typed as CODE@HOST:PORT, the pinned
    one): the last player waits on its standby broker, and each is alone.
    Within a few election timeouts both survey, agree on where to meet
    (most voters, then the earliest in the room's list), elect, and the
    game goes on; the seat's link follows its voter."""
    monkeypatch.setattr(election_driver, "LONELY_FIRST", 1.5)
    room = Room(await host_on_the_embedded_broker("Hana"), tmp_path)
    try:
        await room.start()
        other, _ = await room.lose_two()
        hana = await room.back(room.hana, room.first)  # its broker back on its port
        assert hana._maker is not None
        await until(
            lambda: (
                other.runs_the_table
                or (hana._maker is not None and hana._maker[1].replica.is_authority)
            ),
            timeout=40,
        )
        # Both seats' links are where the table is, and so are the voters.
        await until(lambda: hana.term == other.term and hana.host_present and other.host_present)
        assert hana.room is not None and hana.room.phase == "playing"
    finally:
        await room.close()
