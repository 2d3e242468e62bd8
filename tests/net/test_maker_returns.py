"""The old host back as a player keeps its machine's vote (issue 20).

Found by hand (5 December, three people on the embedded broker): Hana's
machine died, the table moved to Joe's, Hana came back as a player; then
Joe's machine died and the game waited for good, although Hana's and
Kim's machines (two of the room's three voters) lived. The room had lost
Hana's machine's voter at the first failover: her rejoin forgot the files
of the room she hosted, its first voter's among them. Now her process
votes and stands again from that voter's file beside her seat, as a
restarted Raft node does.
"""

from __future__ import annotations

from net.authority.host import claim_moved_room, table_moved
from net.authority.rooms import load_room, room_path
from net.identity import Identity
from net.paths import rooms_dir
from net.peer.pins import RoomPins
from net.peer.remote import RemoteTable
from tests.net.peers import (
    host_on_the_embedded_broker,
    hosts_person,
    in_step,
    open_test_room,
    until,
)
from tests.net.procs import need_mosquitto

BROKER = ("127.0.0.1", 1883)


async def test_the_old_host_back_as_a_player_votes_again_and_a_second_loss_is_survived() -> None:
    need_mosquitto()
    room = await open_test_room("passpass", 3, BROKER, seed=4)
    code = room.code
    hostess = hosts_person(room, BROKER)
    hostess.pins = RoomPins()  # as every person's seat: the room's key, remembered
    bob = RemoteTable(Identity.generate(), code, *BROKER, "Bob")
    cy = RemoteTable(Identity.generate(), code, *BROKER, "Cy")
    back: RemoteTable | None = None
    try:
        for table in (hostess, bob, cy):
            await table.join()
            await table.connect(lambda update: None)
        room.authority.start_game()
        await until(lambda: in_step(bob) and in_step(cy))
        # The host's machine dies mid-game, its person's seat with it; its
        # files stay, as after a crash.
        await room.close(keep=True)
        await hostess.close()
        await until(lambda: bob.runs_the_table or cy.runs_the_table)
        saved = load_room(room_path(code))
        assert table_moved(saved)
        # Hana is back, as a player, from this machine's files.
        back = RemoteTable(
            hostess.identity, code, *BROKER, "Hostess", pins=RoomPins(), maker_rooms=rooms_dir()
        )
        # (Its Hello, sealed to the key it had pinned, may reach the new
        # holder first: asked again, sealed to the key that holds it now.)
        assert await back.join() == hostess.seat
        await back.connect(lambda update: None)
        assert back._maker is not None
        _, maker = back._maker
        assert maker.replica.identity.public_key != hostess.identity.public_key
        assert claim_moved_room(code) is None  # held by this process: one voter per key
        await until(lambda: maker.replica.driver.in_step.is_set())
        # Now the machine that runs the table dies too: Hana's machine and
        # the last player's still make two of the room's three voters.
        runner, other = (bob, cy) if bob.runs_the_table else (cy, bob)
        term = runner.term
        await runner.close()
        await until(
            lambda: (
                other.runs_the_table or (maker.authority is not None and maker.replica.is_authority)
            )
        )
        for table in (back, other):
            await until(lambda table=table: table.term > term)  # type: ignore[misc]
        assert back.room is not None and back.room.phase == "playing"
        # Its process ends mid-game: the room's files stay for a later rejoin.
        await back.close()
        claimed = claim_moved_room(code)
        assert room_path(code).exists() and claimed is not None
        claimed[0].release()
    finally:
        for table in (bob, cy, hostess, *([back] if back is not None else [])):
            await table.close()
        await room.close()


async def test_on_the_embedded_broker_too_the_old_host_s_machine_keeps_its_vote() -> None:
    """The default set-up: the room's broker dies with the host's machine,
    and the voters' standby brokers take over. Back, the old host's process
    runs its first voter and brings the room's broker back on its port
    (first in everyone's lists: a broker on a new port, learned late, had
    the table and a seat meet on two brokers, 2 runs in 4); when the
    successor's machine dies too, the two machines left meet on the first
    broker that lives and elect."""
    room = await host_on_the_embedded_broker("Hostess")
    code, where = room.code, ("127.0.0.1", room.broker_port)
    hostess = hosts_person(room, where)
    hostess.pins = RoomPins()
    bob = RemoteTable(Identity.generate(), code, *where, "Bob")
    cy = RemoteTable(Identity.generate(), code, *where, "Cy")
    back: RemoteTable | None = None
    try:
        for table in (hostess, bob, cy):
            await table.join()
            await table.connect(lambda update: None)
        await room.authority.wait_standby()  # as a host's start does
        assert room.authority.standby_missing() == []
        room.authority.start_game()
        await until(lambda: in_step(bob) and in_step(cy))
        await room.close(keep=True)  # its broker with it
        await hostess.close()
        await until(lambda: bob.runs_the_table or cy.runs_the_table)
        runner, other = (bob, cy) if bob.runs_the_table else (cy, bob)
        assert runner.voter is not None and runner.voter.authority is not None
        # Found again where the table went (on the LAN: its advert, the
        # broker its new holder's room is on), once its room state is there.
        table_link = runner.voter.authority._link
        assert table_link is not None
        await until(lambda: table_link.connected and (table_link.host, table_link.port) != where)
        await until(lambda: other.room is not None and other.term > 1)
        back = RemoteTable(
            hostess.identity,
            code,
            table_link.host,
            table_link.port,
            "Hostess",
            pins=RoomPins(),
            maker_rooms=rooms_dir(),
        )
        assert await back.join() == hostess.seat
        await back.connect(lambda update: None)
        assert back._maker is not None
        _, maker = back._maker
        await until(lambda: maker.replica.driver.in_step.is_set())
        term = runner.term
        await runner.close()  # its machine, and its standby broker, gone
        await until(
            lambda: (
                other.runs_the_table or (maker.authority is not None and maker.replica.is_authority)
            )
        )
        for table in (back, other):
            await until(lambda table=table: table.term > term)  # type: ignore[misc]
    finally:
        for table in (bob, cy, hostess, *([back] if back is not None else [])):
            await table.close()
        await room.close()


async def test_two_machines_back_from_the_dead_carry_the_game_when_the_third_dies() -> None:
    """Found in a play-test (5 December, embedded brokers, 2 runs of 2):
    Hana's machine died (the table moved to Kim's), Hana came back; Kim's
    died (the table moved to Joe's), Kim came back; then Joe's died. Hana's
    and Kim's machines were two of the three voters, but neither ran a
    broker any more (both came back without one), and the game was lost
    for good: "Connection to the table lost: reconnecting…" for ever. Now a
    machine back from the dead brings its broker back where everyone's
    lists have it (the room's own port for its host's, its standby port for
    a seat's), and the two left meet there and elect."""
    from net.peer.failover import stored_standby_port

    room = await host_on_the_embedded_broker("Hana")
    code, first = room.code, ("127.0.0.1", room.broker_port)
    hana = hosts_person(room, first)
    hana.pins = RoomPins()
    bob = RemoteTable(Identity.generate(), code, *first, "Bob", pins=RoomPins())
    cy = RemoteTable(Identity.generate(), code, *first, "Cy", pins=RoomPins())
    alive: list[RemoteTable] = [hana, bob, cy]

    def where_the_table_is(table: RemoteTable) -> tuple[str, int] | None:
        """The broker ``table``'s runner is on; None while its link is being
        made (a table just taken over has none for a moment: CI rehearsal,
        6 December, where this asserted instead of waiting)."""
        assert table.voter is not None and table.voter.authority is not None
        link = table.voter.authority._link
        return None if link is None else (link.host, link.port)

    async def table_address(
        table: RemoteTable, *, not_at: tuple[str, int] | None = None
    ) -> tuple[str, int]:
        """Where ``table``'s runner is, once its link is up (and elsewhere
        than ``not_at``)."""
        await until(lambda: where_the_table_is(table) not in (None, not_at))
        where = where_the_table_is(table)
        assert where is not None
        return where

    async def back_from_the_dead(dead: RemoteTable, where: tuple[str, int]) -> RemoteTable:
        again = RemoteTable(
            dead.identity, code, *where, dead.name, pins=RoomPins(), maker_rooms=rooms_dir()
        )
        alive.append(again)
        assert await again.join() == dead.seat
        await again.connect(lambda update: None)
        return again

    try:
        for table in (hana, bob, cy):
            await table.join()
            await table.connect(lambda update: None)
        await room.authority.wait_standby()
        room.authority.start_game()
        await until(lambda: in_step(bob) and in_step(cy))
        for seat in (bob, cy):  # each seat's standby port, noted beside its voter file
            assert stored_standby_port(code, seat.identity) > 0
        # 1. Hana's machine dies, its broker with it; the table moves.
        await room.close(keep=True)
        await hana.close()
        await until(lambda: bob.runs_the_table or cy.runs_the_table)
        first_runner, other = (bob, cy) if bob.runs_the_table else (cy, bob)
        moved_to = await table_address(first_runner, not_at=first)
        # Hana back (u): her first voter votes again, the room's broker is
        # back on its port.
        hana_back = await back_from_the_dead(hana, moved_to)
        assert hana_back._maker is not None
        _, maker = hana_back._maker
        await until(lambda: maker.broker is not None and maker.replica.driver.in_step.is_set())
        assert maker.broker is not None and maker.broker.port == first[1]
        # 2. The machine the table moved to dies; the table moves again, to
        # the other player's (as in the play-test: Hana's votes, for now
        # without standing, so that the third loss is the table's machine).
        maker.replica.driver.node.stands = False
        term = first_runner.term
        await first_runner.close()
        await until(lambda: other.runs_the_table)
        await until(lambda: other.term > term and hana_back.term > term)
        maker.replica.driver.node.stands = True
        # Its person back from its files: its voter and its standby broker,
        # on the port it had.
        runner_port = stored_standby_port(code, first_runner.identity)
        runner_back = await back_from_the_dead(first_runner, await table_address(other))
        assert runner_back.voter is not None
        voter = runner_back.voter
        await until(lambda: voter.broker is not None and voter.replica.driver.in_step.is_set())
        assert voter.broker is not None and voter.broker.port == runner_port
        # 3. Now the third machine dies: Hana's and the first runner's, both
        # back from the dead, are two of three; the game goes on.
        term = other.term
        await other.close()
        await until(
            lambda: (
                runner_back.runs_the_table
                or (maker.authority is not None and maker.replica.is_authority)
            )
        )
        for table in (hana_back, runner_back):
            await until(lambda table=table: table.term > term)  # type: ignore[misc]
            assert table.room is not None and table.room.phase == "playing"
    finally:
        for table in alive:
            await table.close()
        await room.close()
