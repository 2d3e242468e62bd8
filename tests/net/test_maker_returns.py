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
from tests.net.peers import hosts_person, open_test_room, until
from tests.net.procs import need_mosquitto

BROKER = ("127.0.0.1", 1883)


def _in_step(table: RemoteTable) -> bool:
    voter = table.voter
    return voter is not None and voter.replica.driver.in_step.is_set()


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
        await until(lambda: _in_step(bob) and _in_step(cy))
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
    runs its first voter without a standby broker of its own (as a seat's
    voter restarted from its file: one started now was learned late, and
    the table and a seat met on two brokers, 2 runs in 4); when the
    successor's machine dies too, the two machines left meet on the
    standby broker that lives and elect."""
    from core.registry import get_game
    from net.authority.host import open_room

    room = await open_room(
        "passpass",
        get_game("passpass").make_config(players=3),
        identity=Identity.generate(),
        host_name="Hostess",
        port=0,
        bind=["127.0.0.1"],
        advertise=False,
        bot_delay=0,
        seed=4,
    )
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
        await until(lambda: _in_step(bob) and _in_step(cy))
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
