"""Nothing is lost when a link drops (issue 10): a peer killed mid-game and
restarted gets its seat, hand and log back; a broker restarted mid-game
(Mosquitto) sees every process reconnect and the game complete."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec

from net.wire import RoomState, open_body, open_envelope, room_state_decoder, room_topic
from tests.net.brokers import require_mosquitto, start_mosquitto
from tests.net.peers import RawClient
from tests.net.procs import PasseProcess, host_args


def room_state(topic: str, payload: bytes) -> RoomState | None:
    try:
        return open_body(open_envelope(topic, payload), room_state_decoder)
    except (ValueError, msgspec.MsgspecError):
        return None


async def test_a_killed_peer_comes_back_to_its_seat(tmp_path: Path) -> None:
    require_mosquitto()
    with start_mosquitto() as broker:
        where = f"127.0.0.1:{broker.port}"
        host = PasseProcess("host", tmp_path)
        ana = PasseProcess("ana", tmp_path)
        ben = PasseProcess("ben", tmp_path)
        try:
            await host.start(
                *host_args("passpass", 3, wait_for=2, bot_delay=0.05, seed=3, broker=where)
            )
            code = (await host.expect("room"))["code"]
            async with RawClient("127.0.0.1", broker.port, [room_topic(code)]) as spy:
                await ana.start("join", f"{code}@{where}", "--bot", "heuristic", "--name", "Ana")
                seat = (await ana.expect("seated"))["seat"]
                await ben.start("join", f"{code}@{where}", "--bot", "heuristic", "--name", "Ben")
                await ben.expect("seated")
                await ana.expect("acted")
                await ana.expect("acted")
                ana.kill()
                # Everyone learns within seconds that Ana is away (her will).
                await spy.until(
                    lambda topic, payload: (
                        (state := room_state(topic, payload)) is not None
                        and state.phase == "playing"
                        and not state.seats[seat].present
                    )
                )
                # Same key on disk: the same seat, the view and the log so far.
                await ana.start("join", f"{code}@{where}", "--bot", "heuristic", "--name", "Ana")
                assert (await ana.expect("seated"))["seat"] == seat
                synced = await ana.expect("synced")
                assert synced["events"] > 3 and synced["seq"] > 0
                await spy.until(
                    lambda topic, payload: (
                        (state := room_state(topic, payload)) is not None
                        and state.seats[seat].present
                    )
                )
            over = await host.expect("over")
            for peer in (ana, ben):
                assert (await peer.expect("over"))["winners"] == over["result"]["winners"]
        finally:
            for process in (host, ana, ben):
                await process.stop()


async def test_the_game_survives_a_broker_restart(tmp_path: Path) -> None:
    require_mosquitto()
    with start_mosquitto() as broker:
        where = f"127.0.0.1:{broker.port}"
        host = PasseProcess("host", tmp_path)
        peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(2)]
        try:
            await host.start(
                *host_args("dominoes", 3, wait_for=2, bot_delay=0.02, seed=4, broker=where)
            )
            code = (await host.expect("room"))["code"]
            for peer in peers:
                await peer.start("join", f"{code}@{where}", "--bot", "heuristic")
                await peer.expect("seated")
            await host.expect("started")
            for _ in range(3):
                await peers[0].expect("acted")
            # Down and up again on the same port, with nothing retained.
            await asyncio.to_thread(broker.restart)
            over = await host.expect("over")
            for peer in peers:
                assert (await peer.expect("over"))["scores"] == over["result"]["scores"]
        except BaseException:
            for process in (host, *peers):
                print(await process.report())
            raise
        finally:
            for process in (host, *peers):
                await process.stop()
