"""Dealers (issue 20, "Dealers"; net/dealer/, docs/election.md section 11):
real `passe dealer` processes on Mosquitto deal a room that `passe host
--dealer` asked for; three `passe join --bot` players play it. No player's
process holds a share of the deck; when the dealer running the table is
SIGKILLed, the table moves to another dealer, and when that one is stopped
(SIGTERM), it hands the table on before it exits; the game ends for every
player with the deal verified."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from net.dealer.client import DealerError, ask_dealer
from net.dealer.messages import Deal
from net.dealer.service import LOBBIES_PER_ASKER, STATUS_INTERVAL
from net.election.driver import FileStorage
from net.election.messages import decode_config
from net.identity import Identity
from tests.net.brokers import broker_at
from tests.net.procs import (
    PasseProcess,
    dealer_args,
    join_bots,
    reported,
    run_passe,
    trusting_each_other,
)
from tests.net.test_failover import all_end_verified, moved_notice


async def start_dealers(tmp_path: Path, count: int, broker: str) -> list[PasseProcess]:
    """``count`` dealers on Mosquitto, each once it has seen every other
    online (a dealer names the others it has seen as the room's holders)."""
    dealers = [PasseProcess(f"dealer{n}", tmp_path) for n in range(count)]
    trusting_each_other(dealers)
    keys = []
    for n, dealer in enumerate(dealers):
        await dealer.start(*dealer_args(dealer, broker, f"D{n}"))
        keys.append((await dealer.expect("dealer"))["key"])
    for dealer, key in zip(dealers, keys, strict=True):
        seen: set[str] = set()
        while not seen >= set(keys) - {key}:
            line = await dealer.expect("other_dealer")
            if line["online"]:
                seen.add(line["key"])
    return dealers


async def dealer_status(
    tmp_path: Path, name: str, until: Callable[[dict[str, Any]], bool] = lambda _: True
) -> dict[str, Any]:
    """``passe dealer --status --json`` with dealer ``name``'s files, read
    again until ``until`` holds (the dealer writes its status at most every
    STATUS_INTERVAL: it may name a change that much later)."""
    deadline = time.monotonic() + 10 * STATUS_INTERVAL + 10
    while True:
        status = PasseProcess(name, tmp_path)
        await status.start("dealer", "--status", "--json")
        assert status.process is not None and status.process.stdout is not None
        out = await status.process.stdout.read()
        assert await status.finish() == 0, status.stderr
        parsed: dict[str, Any] = json.loads(out)
        if until(parsed) or time.monotonic() > deadline:
            return parsed


async def dealt_game(
    tmp_path: Path,
    broker: str,
    dealer: PasseProcess,
    peers: list[PasseProcess],
    *,
    fails_over: bool = True,
    bot_delay: float = 0.0,
) -> dict[str, Any]:
    """Dominoes for the ``peers`` (bot processes), dealt by ``dealer``."""
    key = next(line["key"] for line in dealer.lines if line.get("event") == "dealer")
    asker = PasseProcess("asker", tmp_path)
    await asker.start(
        "host", "dominoes", "--headless", "--dealer", key, "--broker", broker,
        "--players", str(len(peers)), "--name", "Asker",
    )  # fmt: skip
    room = await asker.expect("room")
    assert await asker.finish() == 0  # the room is the dealer's: the asker is done
    assert (await dealer.expect("dealt"))["code"] == room["code"]
    await join_bots(peers, room, delay=bot_delay)
    assert (await dealer.expect("started"))["fails_over"] is fails_over
    return room


@pytest.mark.long
async def test_a_dealer_s_table_moves_dealer_to_dealer_and_no_player_holds_a_share(
    tmp_path: Path,
) -> None:
    # A Mosquitto of the test's own: a dealer picks the other dealers it
    # sees online on its broker, another test's among them on a shared one.
    async with broker_at("mosquitto") as (host, port):
        await _dealer_to_dealer(tmp_path, f"{host}:{port}")


async def _dealer_to_dealer(tmp_path: Path, broker: str) -> None:
    dealers = await start_dealers(tmp_path, 3, broker)
    peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(3)]
    async with reported(*dealers, *peers):
        room = await dealt_game(tmp_path, broker, dealers[0], peers)
        # The dealer's status names the room it runs.
        runs = [(room["code"], "runs")]
        status = await dealer_status(
            tmp_path, "dealer0", lambda s: [(r["code"], r["role"]) for r in s["rooms"]] == runs
        )
        assert status["running"] is True
        assert [(r["code"], r["role"]) for r in status["rooms"]] == runs
        # No player's process holds a share: the config on its disk gives
        # them to the dealers only (three dealers, threshold 2).
        for peer in peers:
            await peer.expect("synced")
        for peer in peers:
            configs = [
                decode_config(FileStorage(path).load().log[0].data)
                for path in (peer.home / "data").rglob("*.vote")
            ]
            assert len(configs) == 1, configs
            (config,) = configs
            holders = {share.holder for share in config.shares}
            dealer_voters = {voter.key for voter in config.voters if voter.dealer}
            assert len(dealer_voters) == 3 and holders == dealer_voters
            assert config.threshold == 2
        await peers[0].expect("acted")
        dealers[0].kill()  # its presence's will says it is gone
        terms = [(await peer.expect("moved"))["term"] for peer in peers]
        assert len(set(terms)) == 1 and terms[0] >= 2
        # One of the two others took the table over; stopped, it hands it on.
        runner = await _runner(dealers[1:], room["code"])
        # Everyone is told which dealer holds the deck now (a dealer has no
        # seat: its name, not a person's machine).
        runner_name = f"D{dealers.index(runner)}"
        for peer in peers:
            assert await moved_notice(peer) == (
                f"The table moved to dealer {runner_name} (it holds the deck now)"
            )
        # Its status: the room it took, still for the person who asked for
        # it (it said the dealer's own name), and no longer held.
        asker = status["rooms"][0]["for"]
        taken = await dealer_status(
            tmp_path,
            runner.name,
            lambda s: [r["role"] for r in s["rooms"]] == ["runs (taken over)"],
        )
        assert [(r["code"], r["role"], r["for"]) for r in taken["rooms"]] == [
            (room["code"], "runs (taken over)", asker)
        ]
        runner.process.terminate()  # type: ignore[union-attr]
        handed = await runner.expect("handed")
        assert handed["code"] == room["code"] and handed["term"] > terms[0]
        assert await runner.finish() == 0
        later = [(await peer.expect("moved"))["term"] for peer in peers]
        assert set(later) == {handed["term"]}
        await all_end_verified(peers)
        (last,) = [dealer for dealer in dealers[1:] if dealer is not runner]
        assert (await last.expect("over"))["code"] == room["code"]


async def test_a_lone_dealer_s_game_outlives_its_process(tmp_path: Path) -> None:
    """One dealer, so no other holds its room: killed mid-game (SIGKILL),
    then stopped (SIGTERM), each time started again with the same data
    directory, it resumes the game where it stopped, and the game ends for
    every player with the deal verified. (Before, the room was lost with
    the process: its file was in the person's rooms, and nothing read it.)"""
    async with broker_at("mosquitto") as (host, port):
        broker = f"{host}:{port}"
        (dealer,) = await start_dealers(tmp_path, 1, broker)
        peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(3)]
        again = PasseProcess("dealer0", tmp_path)  # the same name: the same files
        async with reported(dealer, again, *peers):
            room = await dealt_game(tmp_path, broker, dealer, peers, fails_over=False)
            for peer in peers:  # each seat in turn acted: two moves at least were taken
                await peer.expect("acted")
            dealer.kill()
            assert dealer.process is not None
            await dealer.process.wait()
            resumed = await restarted(again, broker)
            assert resumed["code"] == room["code"] and resumed["moves"] >= 2
            await acted_since(peers[0], resumed["seq"])  # the game goes on there
            assert again.process is not None
            again.process.terminate()  # nobody to hand it to: kept
            assert (await again.expect("kept"))["code"] == room["code"]
            assert await again.finish() == 0
            # Its status says what it keeps, and that it is not running.
            status = PasseProcess("dealer0", tmp_path)  # the same files
            await status.start("dealer", "--status")
            assert status.process is not None and status.process.stdout is not None
            out = (await status.process.stdout.read()).decode()
            assert await status.finish() == 1 and "not running" in out, out
            assert f"{room['code']}  for Asker" in out, out
            resumed = await restarted(again, broker)
            assert resumed["code"] == room["code"]
            await all_end_verified(peers)
            assert (await again.expect("over"))["code"] == room["code"]
            # Over: nothing is left to resume, and the person's own rooms
            # never held the dealer's.
            assert not list((again.home / "data" / "dealer" / "rooms").glob("*.deal"))
            assert not list((again.home / "data").glob("rooms/*.room"))


@pytest.mark.long
@pytest.mark.parametrize("stop", ["killed", "terminated"])
async def test_a_holding_dealer_stopped_and_started_again_holds_its_room_again(
    tmp_path: Path, stop: str
) -> None:
    """Two dealers: the one that holds the room for the other is SIGKILLed
    (or stopped with SIGTERM) and started again with the same data
    directory. It votes and stands in the room again from its voter file
    (before, it forgot the room, or let it go on SIGTERM and its file with
    it: when the dealer running the table then died, no dealer was left to
    take it, and the game waited for ever). Then the running dealer is
    killed: the restarted one takes the table, and the game ends for every
    player with the deal verified."""
    async with broker_at("mosquitto") as (host, port):
        broker = f"{host}:{port}"
        runner, holder = await start_dealers(tmp_path, 2, broker)
        again = PasseProcess("dealer1", tmp_path)  # the same name: the same files
        peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(3)]
        async with reported(runner, holder, again, *peers):
            room = await dealt_game(tmp_path, broker, runner, peers)
            await peers[0].expect("acted")
            hold_the_game(peers)
            assert holder.process is not None
            if stop == "killed":
                holder.kill()
                await holder.process.wait()
            else:
                holder.process.terminate()
                assert await holder.finish() == 0
            await start_again(again, broker, "D1")
            await holds_again_and_takes_over(again, room, runner, peers)


async def test_a_dealer_killed_while_running_its_room_holds_it_again_when_started_again(
    tmp_path: Path,
) -> None:
    """Two dealers: the one that dealt the room and runs its table is
    SIGKILLed; the other takes the table. Started again, the first never
    runs its old table, but votes and stands in the room again from its
    voter file (before, it deleted that file: the room had lost a dealer,
    and when the one running the table died next, nobody could take it).
    Then the second is killed: the first takes the table back, and the game
    ends for every player with the deal verified."""
    async with broker_at("mosquitto") as (host, port):
        broker = f"{host}:{port}"
        maker, other = await start_dealers(tmp_path, 2, broker)
        again = PasseProcess("dealer0", tmp_path)  # the same name: the same files
        peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(3)]
        async with reported(maker, other, again, *peers):
            room = await taken_over(tmp_path, broker, maker, other, peers)
            await start_again(again, broker, "D0")
            closed = await again.expect("closed")
            assert closed["code"] == room["code"] and "other dealers hold it" in closed["why"]
            await holds_again_and_takes_over(again, room, other, peers)


@pytest.mark.long
async def test_the_last_dealer_stopped_after_a_takeover_says_its_table_is_away(
    tmp_path: Path,
) -> None:
    """A play-test (6 December): the table moved from a dealer stopped (or
    killed) to the other; that one stopped too, with no dealer online to
    take it. It fell silent for a hand-over nobody could take, the
    process ended at 3 s with 143, and the players' screens said nothing
    while their moves went unanswered. Now it says "kept", its table says
    "gone" (each player sees it away), it exits 0, and started again it
    holds the room again, takes the table, and the game ends."""
    async with broker_at("mosquitto") as (host, port):
        broker = f"{host}:{port}"
        maker, other = await start_dealers(tmp_path, 2, broker)
        again = PasseProcess("dealer1", tmp_path)  # the same name: the same files
        peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(3)]
        async with reported(maker, other, again, *peers):
            room = await taken_over(tmp_path, broker, maker, other, peers)
            for peer in peers[:-1]:
                await peer.expect("moved")
                skip_read(peer, "table")  # the first dealer's table, then its will
                while not (await peer.expect("table"))["present"]:
                    pass  # the new table's presence, once it runs there
                skip_read(peer, "table")
            assert other.process is not None
            other.process.terminate()  # nobody online to hand it to
            assert (await other.expect("kept"))["code"] == room["code"]
            assert await other.finish() == 0
            for peer in peers[:-1]:  # the frozen one reads it when it goes on
                assert (await peer.expect("table"))["present"] is False
            await start_again(again, broker, "D1")
            assert (await again.expect("holds_again"))["code"] == room["code"]
            assert (await again.expect("took_over"))["code"] == room["code"]
            go_on(peers)
            await all_end_verified(peers)
            assert (await again.expect("over"))["code"] == room["code"]


async def taken_over(
    tmp_path: Path,
    broker: str,
    maker: PasseProcess,
    other: PasseProcess,
    peers: list[PasseProcess],
) -> dict[str, Any]:
    """A game ``maker`` deals, the last player frozen (hold_the_game), then
    ``maker`` SIGKILLed: ``other`` takes its table. The room."""
    room = await dealt_game(tmp_path, broker, maker, peers)
    await peers[0].expect("acted")
    hold_the_game(peers)
    maker.kill()
    assert maker.process is not None
    await maker.process.wait()
    assert (await other.expect("took_over"))["code"] == room["code"]
    return room


def skip_read(process: PasseProcess, event: str) -> None:
    """Every ``event`` line ``process`` printed so far counts as seen: the
    next expect(event) is one printed after them."""
    for line in process.lines:
        if line.get("event") == event:
            line["_seen"] = True


def hold_the_game(peers: list[PasseProcess]) -> None:
    """The last of the bot players frozen (SIGSTOP): the game waits at its
    next turn, so that it outlasts a dealer's restart and catch-up (CI, 4
    December: with bots at no delay, a whole dominoes game ended 1.7 s
    after a takeover, before the restarted dealer heard its room again).
    The others and a dealer are three of the room's five voters: elections
    still win without it."""
    process = peers[-1].process
    assert process is not None
    process.send_signal(signal.SIGSTOP)


def go_on(peers: list[PasseProcess]) -> None:
    process = peers[-1].process
    assert process is not None
    process.send_signal(signal.SIGCONT)


async def holds_again_and_takes_over(
    again: PasseProcess, room: dict[str, Any], runner: PasseProcess, peers: list[PasseProcess]
) -> None:
    """``again`` (a dealer started again) holds ``room`` again and its log
    catches up; ``runner``, the dealer running its table, is killed: the
    table moves to ``again``, and the game ends with every deal verified."""
    assert (await again.expect("holds_again"))["code"] == room["code"]
    assert (await again.expect("in_step"))["code"] == room["code"]
    runner.kill()
    assert (await again.expect("took_over"))["code"] == room["code"]
    go_on(peers)
    await all_end_verified(peers)
    assert (await again.expect("over"))["code"] == room["code"]


async def start_again(dealer: PasseProcess, broker: str, name: str = "D0") -> None:
    """``dealer`` started (again) on ``broker`` as ``name``, up."""
    await dealer.start(*dealer_args(dealer, broker, name))
    await dealer.expect("dealer")


async def restarted(dealer: PasseProcess, broker: str) -> dict[str, Any]:
    """``dealer`` started (again) on ``broker``: its "resumed" line."""
    await start_again(dealer, broker)
    return await dealer.expect("resumed")


async def acted_since(peer: PasseProcess, seq: int) -> None:
    """``peer``'s first action on a table newer than update ``seq``."""
    while (await peer.expect("acted"))["seq"] <= seq:
        pass


async def _runner(dealers: list[PasseProcess], code: str) -> PasseProcess:
    """The dealer that says it took room ``code`` over."""
    waits = {asyncio.ensure_future(d.expect("took_over")): d for d in dealers}
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    task = done.pop()
    assert task.result()["code"] == code
    return waits[task]


async def test_a_deal_that_cannot_be_made_is_refused_in_words(tmp_path: Path) -> None:
    """Refused by the dealer (a game it does not know, more rooms waiting
    for one asker than it keeps): the answer says why; no dealer there, or
    not the one named: the asker says so and ends with 2."""
    async with broker_at("embedded") as (host, port):
        await _refusals(tmp_path, host, port)


async def _refusals(tmp_path: Path, host: str, port: int) -> None:
    (dealer,) = await start_dealers(tmp_path, 1, f"{host}:{port}")
    asker = Identity.generate()
    try:
        with pytest.raises(DealerError, match=r"the dealer refused: .*chess"):
            await ask_dealer(asker, host, port, Deal(1, "chess", 2, "Eve"))
        first = [
            (await ask_dealer(asker, host, port, Deal(nonce, "dominoes", 2, "Eve"))).code
            for nonce in range(2, 2 + LOBBIES_PER_ASKER)
        ]
        with pytest.raises(DealerError, match="rooms waiting for players here already"):
            await ask_dealer(asker, host, port, Deal(99, "dominoes", 2, "Eve"))
        # The same request again gets its first answer, and no second room.
        again = await ask_dealer(asker, host, port, Deal(2, "dominoes", 2, "Eve"))
        assert again.code == first[0]
        status = await dealer_status(tmp_path, "dealer0", lambda s: len(s["rooms"]) == len(first))
        assert sorted(room["code"] for room in status["rooms"]) == sorted(first)
        code, out, err = await run_passe(
            tmp_path / "asker", "host", "dominoes", "--headless", "--broker", f"{host}:{port}",
            "--dealer", "0123-4567-89ab-cdef",
        )  # fmt: skip
        assert (code, out) == (2, "")
        assert f"no dealer 0123-4567-89ab-cdef is online on {host}:{port}" in err
    finally:
        await dealer.stop()


async def test_the_asker_says_which_dealer_dealt_by_its_key_and_asks_it_again_first(
    tmp_path: Path,
) -> None:
    """Anyone may publish a dealer's presence with the most room to spare:
    `passe host --dealer` says the dealer's key and whether this machine
    asked it before, and prefers the dealers it asked before while they are
    online (net/dealer/client.py KnownDealers)."""
    async with broker_at("mosquitto") as (host, port):
        (dealer,) = await start_dealers(tmp_path, 1, f"{host}:{port}")
        key = next(line["key"] for line in dealer.lines if line.get("event") == "dealer")
        try:
            rooms = []
            for _ in range(2):
                code, out, err = await run_passe(
                    tmp_path / "asker", "host", "dominoes", "--headless",
                    "--broker", f"{host}:{port}", "--players", "2", "--name", "Asker",
                    "--dealer",  # any: the one it asked before first
                )  # fmt: skip
                assert code == 0, err
                rooms.append(json.loads(out.splitlines()[-1]))
            assert [room["dealer_key"] for room in rooms] == [key, key]
            assert [room["known_dealer"] for room in rooms] == [False, True]
            kept = tmp_path / "asker" / "cli" / "data" / "dealers.json"
            assert json.loads(kept.read_text()) == [key]
        finally:
            await dealer.stop()
