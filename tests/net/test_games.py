"""Whole networked games between real processes over a real broker (issue 10).

A headless host process runs the authority; two `passe join --bot` processes
take seats from their own processes, each with its own key, and play from the
views they receive; the host seats a bot in any other seat. Each game is
played to its end over Mosquitto and over the embedded broker.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.sampler_checks import skip_unless_soak
from tests.net.procs import PasseProcess, host_args, join_bots, need_mosquitto
from tui.records import read_game_file

GAMES = [("passpass", 3), ("dominoes", 2), ("fashion", 3)]
# `make test` plays each game once, over one broker or the other (the
# embedded one for the two games of three people, whose failover runs on
# it); `make soak` plays every game over both (the suite's time: issue 23).
QUICK = {("passpass", "embedded"), ("fashion", "embedded"), ("dominoes", "mosquitto")}


async def play_whole_game(
    tmp_path: Path, game: str, players: int, broker_args: list[str], seed: int
) -> None:
    host = PasseProcess("host", tmp_path)
    peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(2)]
    try:
        await host.start(
            *host_args(game, players, wait_for=2, bot_delay=0, seed=seed), *broker_args
        )
        room = await host.expect("room")
        await join_bots(peers, room)
        seated = [await peer.expect("seated") for peer in peers]
        assert len({line["seat"] for line in seated}) == 2
        await host.expect("started")
        over = await host.expect("over")
        results = [await peer.expect("over") for peer in peers]
        for result in results:
            assert result["winners"] == over["result"]["winners"]
            assert result["scores"] == over["result"]["scores"]
            # The record matched the commitment and, replayed, gave every
            # view and event the peer was shown (issue 20).
            assert result["deal_verified"] is True, result["deal_report"]
            assert result["deal_report"].startswith("Deal verified"), result["deal_report"]
        assert over["actions"] > 0
        # Each kept the game's record where the app keeps them (issue 21):
        # the same game, from the host's (no seat) and each seat's view.
        kept = [read_game_file(Path(over["kept"]))]
        kept += [read_game_file(Path(result["kept"])) for result in results]
        assert all(game_file.record == kept[0].record for game_file in kept)
        assert len(kept[0].record.actions) == over["actions"]
        assert [game_file.viewer for game_file in kept] == [None, *(r["seat"] for r in seated)]
        assert await host.finish() == 0
        for peer in peers:
            assert await peer.finish() == 0
    finally:
        for process in (host, *peers):
            await process.stop()


@pytest.mark.soak  # all of them in `make soak`, the QUICK ones in `make test`
@pytest.mark.mosquitto
@pytest.mark.parametrize(("game", "players"), GAMES)
async def test_whole_game_over_mosquitto(
    tmp_path: Path, game: str, players: int, request: pytest.FixtureRequest
) -> None:
    if (game, "mosquitto") not in QUICK:
        skip_unless_soak(request)
    need_mosquitto()
    await play_whole_game(tmp_path, game, players, ["--broker", "127.0.0.1:1883"], seed=11)


@pytest.mark.soak  # all of them in `make soak`, the QUICK ones in `make test`
@pytest.mark.parametrize(("game", "players"), GAMES)
async def test_whole_game_over_the_embedded_broker(
    tmp_path: Path, game: str, players: int, request: pytest.FixtureRequest
) -> None:
    """No --broker: the host starts amqtt in a child process, which binds a
    free port itself (--port 0) and reports it: no port probed here and
    handed over later, which another test could take meanwhile."""
    if (game, "embedded") not in QUICK:
        skip_unless_soak(request)
    await play_whole_game(tmp_path, game, players, ["--port", "0"], seed=12)


async def test_join_by_the_code_alone(tmp_path: Path) -> None:
    """The host advertises the room over mDNS (loopback here; see
    test_lan_games.py for other machines); the joiner types only the code."""
    host = PasseProcess("host", tmp_path)
    joiner = PasseProcess("joiner", tmp_path)
    try:
        await host.start(*host_args("dominoes", 2, wait_for=1, bot_delay=0, port=0, advertise=True))
        room = await host.expect("room")
        await joiner.start("join", room["code"], "--bot", "random")
        await joiner.expect("seated")
        over = await host.expect("over")
        assert (await joiner.expect("over"))["scores"] == over["result"]["scores"]
    finally:
        for process in (host, joiner):
            await process.stop()
