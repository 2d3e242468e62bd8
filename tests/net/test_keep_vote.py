"""A person who leaves a game keeps their machine's vote until it ends
(issue 20; ``RemoteTable.leave(keep_vote=True)``, the table screen's "leave
to the home screen").

Found in a play-test (6 December): a room of three machines lost one, then
a person left the game; one machine of three could not make a move count,
and the game stood still for minutes. A leaver's voter is one of the room's
majority (membership does not change when a person leaves), so it votes on
in the leaver's process, never standing again, and closes itself with the
game. A real broker (Mosquitto), the authority in this process.
"""

from __future__ import annotations

import asyncio

import pytest

from core.registry import get_game
from net.identity import Identity
from net.peer.remote import JoinError, RemoteTable
from tests.net.peers import DEADLINE, open_test_room, started_with_two_voters, until
from tests.net.procs import need_mosquitto

BROKER = ("127.0.0.1", 1883)


@pytest.mark.long
async def test_a_leaver_s_machine_votes_until_the_game_ends_with_another_machine_gone() -> None:
    need_mosquitto()
    room = await open_test_room("passpass", 3, BROKER, seed=9)
    authority = room.authority
    changed = asyncio.Event()
    tables: tuple[RemoteTable, ...] = ()
    try:
        tables = hostess, bob, cy = await started_with_two_voters(
            room, BROKER, lambda update: changed.set()
        )
        bob_seat, cy_seat = bob.seat, cy.seat
        assert bob_seat is not None and cy_seat is not None
        # Cy's machine dies: two of the three voters are left, a majority.
        await cy.close()
        await until(lambda: not authority.seats[cy_seat].present)
        authority.stand_in(cy_seat)
        # Bob leaves the game: his seat goes to a bot, his machine votes on.
        assert await bob.leave(keep_vote=True)
        assert bob.keeps_vote and bob.voter is not None
        assert not bob.voter.replica.driver.node.stands  # never elected in a screenless process
        await until(lambda: authority.seats[bob_seat].kind != "human")
        # Bob tries the room again from the same Passe: refused (his seat
        # is the bot's), and no second voter of his key starts from the
        # file his kept one writes (two would each vote once per term).
        again = RemoteTable(bob.identity, room.code, *BROKER, "Bob")
        with pytest.raises(JoinError):
            await again.join()
        assert again.voter is None and again._voter_busy
        assert not bob.closed and bob.voter.replica.driver._link is not None
        await until(lambda: bob._left)  # the table had his Leave: his seat is not his
        # The game goes on to its end: every move needs two voters' copies,
        # the table's and Bob's.
        bot = get_game("passpass").make_bot("random", 1)
        async with asyncio.timeout(DEADLINE):
            while not (hostess.view is not None and hostess.view.is_over):
                changed.clear()
                view = hostess.view
                if view is not None and view.legal and not hostess.action_pending:
                    await hostess.submit(bot.choose(view))
                await changed.wait()
        assert authority.phase == "over"
        assert authority.seats[bob_seat].key != bob.identity.public_key  # never seated again
        # With the game, Bob's kept vote ends by itself, its file with it
        # (his seat was given up: never started again from it).
        await until(lambda: bob.closed)
        assert bob.voter is not None and bob.voter.replica.driver.node.stands is False
        # (closed says it began: its voter's close, the file's removal, follow)
        voter_file = bob.voter.replica.driver.storage.path
        await until(lambda: not voter_file.exists())
    finally:
        for table in tables:
            await table.close()
        await room.close()


async def test_leaving_a_game_without_keeping_the_vote_or_outside_a_game_closes_at_once() -> None:
    """``keep_vote`` is for a game in play in a room that fails over: a
    lobby's leave, or a leave that does not ask, closes everything."""
    need_mosquitto()
    room = await open_test_room("passpass", 3, BROKER, seed=9)
    ana = RemoteTable(Identity.generate(), room.code, *BROKER, "Ana")
    try:
        await ana.join()
        await ana.connect(lambda update: None)
        assert not await ana.leave(keep_vote=True)  # the lobby: nothing to vote on yet
        assert ana.closed and not ana.keeps_vote
    finally:
        await ana.close()
        await room.close()


async def test_a_kept_vote_ended_mid_game_takes_its_files_once_the_seat_is_given_up() -> None:
    """Passe quit while it kept a vote (the others did not need it): the
    seat was given up for good, so nothing starts that voter again, and its
    file goes (left behind, later Passes looked for the room's brokers; a
    play-test). Not before the table had the Leave: a seat still ours could
    be taken back, its voter started again from that file."""
    need_mosquitto()
    room = await open_test_room("passpass", 3, BROKER, seed=9)
    tables: tuple[RemoteTable, ...] = ()
    try:
        tables = _, bob, _ = await started_with_two_voters(room, BROKER, lambda update: None)
        voter = bob.voter
        assert voter is not None
        assert not bob._nothing_to_vote_on()  # a seat of a game in play: its file stays
        assert await bob.leave(keep_vote=True)
        await until(lambda: bob._left)
        await bob.close()  # Passe quits
        assert not voter.replica.driver.storage.path.exists()
        assert room.authority.phase == "playing"
    finally:
        for table in tables:
            await table.close()
        await room.close()
