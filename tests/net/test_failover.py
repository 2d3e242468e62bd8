"""The table outlives its host's machine (issue 20; docs/election.md,
section 10): a headless host with ``--failover`` and two `passe join --bot`
processes, each a voter of the room; the host is SIGKILLed mid-game; the two
others elect one of them, which rebuilds the room from the replicated log
and runs it; both play to the end, and each checks the deal against all it
was shown, by both authorities."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from net.protocol.wire import room_topic
from tests.core.sampler_checks import skip_unless_soak
from tests.net.peers import RawClient, clear_room
from tests.net.procs import PasseProcess, host_args, join_bots, need_mosquitto, reported


async def start_failover_game(
    host: PasseProcess,
    peers: list[PasseProcess],
    seed: int,
    broker: Sequence[str] = ("--broker", "127.0.0.1:1883"),
    bot_delay: float = 0,
) -> dict[str, Any]:
    """A headless Pass Pass host with --failover (on Mosquitto unless
    ``broker`` says otherwise), each of ``peers`` seated as a bot process,
    the game started: the host's room line. ``bot_delay``: the host's own
    seat's bot, between its moves."""
    players = len(peers) + 1
    setup = host_args("passpass", players, wait_for=len(peers), bot_delay=bot_delay, seed=seed)
    await host.start(*setup, *broker, "--failover")
    room = await host.expect("room")
    await join_bots(peers, room)
    for peer in peers:
        await peer.expect("seated")
    await host.expect("started")
    return room


async def moved_notice(peer: PasseProcess) -> str:
    """The first room notice ``peer`` shows that says the table moved."""
    while True:
        text: str = (await peer.expect("notice"))["text"]
        if text.startswith("The table moved"):
            return text


async def all_end_verified(peers: Sequence[PasseProcess]) -> None:
    """Every peer sees the same end, checks the deal against all it was
    shown (by every authority), and exits cleanly."""
    results = [await peer.expect("over") for peer in peers]
    assert len({(tuple(r["winners"]), tuple(r["scores"])) for r in results}) == 1
    for result in results:
        assert result["deal_verified"] is True, result["deal_report"]
    for peer in peers:
        assert await peer.finish() == 0


@pytest.mark.parametrize(
    ("broker", "killed"),
    [("mosquitto", "mid-game"), ("embedded", "mid-game"), ("embedded", "at-the-start")],
)
async def test_a_killed_host_s_table_moves_to_a_player_and_the_game_ends(
    tmp_path: Path, broker: str, killed: str
) -> None:
    """With Mosquitto, only the table moves. With the embedded broker (the
    default), the host's machine takes the room's broker with it: each voter
    ran a standby broker, named in its presence, and everyone goes down the
    same list (the config's order), elects there and plays on.

    ``at-the-start``: the host killed as soon as both players hold their
    first view. Each seat's process started its standby broker in the
    lobby and named it there, and the game's first state named them all.
    When the voters' standby brokers only started with the game, a host
    killed in its first second left each voter knowing no other's, alone
    on its own for good (CI, 5 December: 2 runs of 23 under load mid-game,
    6 of 12 at the start)."""
    if broker == "mosquitto":
        need_mosquitto()
    where = ("--broker", "127.0.0.1:1883") if broker == "mosquitto" else ("--port", "0")
    host = PasseProcess("host", tmp_path)
    peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(2)]
    try:
        await start_failover_game(host, peers, seed=11, broker=where)
        if killed == "at-the-start":
            for peer in peers:
                await peer.expect("synced")
        else:
            for _ in range(3):
                await peers[0].expect("acted")
        host.kill()  # an embedded broker notices its stdin closing and exits
        # Both see the table move, to the same term (an election's).
        moves = [await peer.expect("moved") for peer in peers]
        assert moves[0]["term"] == moves[1]["term"] >= 2
        # Each says where it went, by the winner's name (issue 20).
        (runner,) = [n for n, move in enumerate(moves) if move["here"]]
        for peer in peers:
            assert await moved_notice(peer) == (
                f"The table moved to Peer {runner}'s machine (it holds the deck now)"
            )
        await all_end_verified(peers)
    except BaseException:
        print(await host.report(), *[await peer.report() for peer in peers])
        raise
    finally:
        for process in (host, *peers):
            await process.stop()


async def test_a_runner_killed_before_it_showed_anything_finds_the_table_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three voters (the host's process and two `join --bot` ones). The
    host is killed; the player process that wins the next term is killed
    too, and the broker keeps the host's room state, as when that winner
    dies before its first state went out; it restarts from its files at
    once. Its pin (its own room key) signs nothing on the broker, and the
    other player's vote alone elects nobody: it must know the voters from
    its voter file and vote again at once, then find the next authority by
    its announcement. It once waited for a room state signed by its pin
    that never came, and with it the whole table (the repeated-kill soak
    test, 2 runs of 16)."""
    need_mosquitto()
    monkeypatch.setenv("PASSE_LOG", "info")  # "the table runs here now" names the runner
    host = PasseProcess("host", tmp_path)
    peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(2)]
    code = ""
    try:
        room = await start_failover_game(host, peers, seed=11)
        code = room["code"]
        for _ in range(3):
            await peers[0].expect("acted")
        async with RawClient("127.0.0.1", 1883, [room_topic(code)]) as raw:
            _, hosts_state = await raw.until(lambda _, payload: bool(payload))
        host.kill()
        term = (await peers[0].expect("moved"))["term"]
        assert (await peers[1].expect("moved"))["term"] == term
        ran_here = f"term {term}: the table runs here now".encode()
        (runner,) = [peer for peer in peers if ran_here in peer.stderr]
        runner.kill()
        await runner.finish()
        async with RawClient("127.0.0.1", 1883, []) as raw:
            await raw.publish(room_topic(code), hosts_state, retain=True)
        n = peers.index(runner)
        await runner.start(
            "join",
            f"{room['code']}@{room['broker']}",
            *("--bot", "heuristic", "--name", f"Peer {n}", "--seed", str(n)),
        )
        await all_end_verified(peers)
        assert b"this seat votes again from its voter file" in runner.stderr
    except BaseException:
        print(await host.report(), *[await peer.report() for peer in peers])
        raise
    finally:
        for process in (host, *peers):
            await process.stop()
        if code:
            await clear_room(code)


@pytest.mark.long
async def test_two_machines_lost_one_after_the_other_the_one_back_finds_the_game_by_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default set-up (embedded brokers). The host's machine dies, then
    the one the table moved to, before anyone is back: the last player
    waits alone on its standby broker, and nothing advertises the room on
    the LAN. The second one killed comes back with `passe join CODE`, by
    the code alone: it surveys the room's brokers (remembered beside its
    pins), finds the last player's, votes there with it, and the two play
    to the end (found in a play-test, 5 December: "no room found on the
    LAN", the game lost; docs/election.md section 13)."""
    monkeypatch.setenv("PASSE_LOG", "info")  # "the table runs here now" names the runner
    host = PasseProcess("host", tmp_path)
    peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(2)]
    async with reported(host, *peers):
        room = await start_failover_game(host, peers, seed=17, broker=("--port", "0"))
        for _ in range(3):
            await peers[0].expect("acted")
        host.kill()  # its embedded broker goes with it
        term = (await peers[0].expect("moved"))["term"]
        assert (await peers[1].expect("moved"))["term"] == term
        ran_here = f"term {term}: the table runs here now".encode()
        (runner,) = [peer for peer in peers if ran_here in peer.stderr]
        runner.kill()  # and its standby broker with it
        await runner.finish()
        n = peers.index(runner)
        await runner.start(
            "join",
            room["code"],
            *("--bot", "heuristic", "--name", f"Peer {n}", "--seed", str(n)),
        )
        await all_end_verified(peers)
        err = runner.stderr.decode()
        assert "its voters' brokers chose" in err and "votes again from its voter file" in err


async def test_a_killed_host_that_failed_over_is_not_resumed_as_a_second_table(
    tmp_path: Path,
) -> None:
    """The host's table moved to a player's machine: `passe host --resume`
    on the old machine refuses in words (exit 2) and forgets the room,
    rather than run a second authority under the old key; the game goes on
    and ends; nothing is left of its voter files."""
    need_mosquitto()
    host = PasseProcess("host", tmp_path)
    peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(2)]
    try:
        room = await start_failover_game(host, peers, seed=13)
        await peers[0].expect("acted")
        host.kill()
        await host.finish()
        await peers[0].expect("moved")
        await host.start("host", "--resume", room["code"], "--headless", "--no-advertise")
        assert await host.finish() == 2
        err = host.stderr.decode()
        assert "fails over" in err and "Join it by its code" in err, err
        assert not list((tmp_path / "host" / "data" / "rooms").glob("*.room"))
        for peer in peers:
            assert (await peer.expect("over"))["deal_verified"] is True
            assert await peer.finish() == 0
            assert not list((peer.home / "data" / "votes").glob("*.vote"))
    except BaseException:
        print(await host.report(), *[await peer.report() for peer in peers])
        raise
    finally:
        for process in (host, *peers):
            await process.stop()


@pytest.mark.soak
async def test_the_table_survives_its_authority_killed_again_and_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """Four people (the host's process and three `join --bot` ones: four
    voters, three make a majority). The host is killed, then, twice, the
    player process that runs the table, which restarts from its files at
    once (its key, its pins, its voter file) and plays on. Seeded: how
    many of the watcher's acts each kill waits for is the same each run;
    acts it printed before the table moved count too (expect reads what
    came before), so a kill may fall at once after the move, before the
    new runner showed anything: kept so, since that found two bugs.

    In `make soak` only (half a minute). It failed 2 runs of 16 on
    3 December, 5 of 8 on a loaded machine; the four causes found are in
    docs/election.md, section 10, each with a fast test of its own (one is
    the runner killed before it showed anything, above)."""
    skip_unless_soak(request)
    need_mosquitto()
    monkeypatch.setenv("PASSE_LOG", "info")  # "the table runs here now" names the runner
    rng = random.Random(20)
    host = PasseProcess("host", tmp_path)
    peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(3)]
    try:
        room = await start_failover_game(host, peers, seed=5)
        for _ in range(rng.randint(2, 5)):
            await peers[0].expect("acted")
        host.kill()
        term, restarted = 1, None
        for kill in range(2):
            # Every peer that was not just restarted sees the table move (a
            # restarted one may learn it while joining); the winner says in
            # its log that the table runs there now.
            moves = [await peer.expect("moved") for peer in peers if peer is not restarted]
            assert len({move["term"] for move in moves}) == 1 and moves[0]["term"] > term
            term = moves[0]["term"]
            ran_here = f"term {term}: the table runs here now".encode()
            (runner,) = [peer for peer in peers if ran_here in peer.stderr]
            watcher = next(peer for peer in peers if peer is not runner)
            for _ in range(rng.randint(2, 5)):
                await watcher.expect("acted")
            runner.kill()
            await runner.finish()
            n = peers.index(runner)
            await runner.start(
                "join",
                f"{room['code']}@{room['broker']}",
                *("--bot", "heuristic", "--name", f"Peer {n}", "--seed", str(n + 10 * kill)),
            )
            restarted = runner
        await all_end_verified(peers)
    except BaseException:
        print(await host.report(), *[await peer.report() for peer in peers])
        raise
    finally:
        for process in (host, *peers):
            await process.stop()
