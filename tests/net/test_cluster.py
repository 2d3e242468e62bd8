"""Passe unchanged on a clustered broker: a NATS cluster (issue 20).

Three nats-server nodes on loopback (tests/net/brokers.py
start_nats_cluster), each with JetStream and its MQTT gateway: a headless
host on node A, one bot peer (its own `passe join --bot` process) on node B
and one on node C, each given every node's address, its own node first
(``--broker C,A,B``). Node C is killed mid-game, when the game's progress
says so (the authority's updates to the peer on C, seen on node A), never
by a clock: that peer's link goes down its list to another node (its new
presence epoch, seen on node A, says it connected again) and the game
completes, with the same result everywhere and every peer's deal check
passing. docs/scale.md says how to run such a cluster and what was measured.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiomqtt
import pytest

from net.identity import KEY_FILE, load_identity
from net.wire import open_body, open_envelope, presence_decoder, presence_topic, room_prefix
from tests.core.sampler_checks import skip_unless_soak
from tests.net.brokers import require_nats, start_nats_cluster
from tests.net.procs import DEADLINE, PasseProcess, host_args

# The peer on node C has had this many of the authority's updates when its
# node is killed: after the game's start, long before any game's end.
KILL_AFTER_UPDATES = 4
# make test plays the first; make soak all (each game, several deals).
SCENARIOS = [
    ("passpass", 3, 21),
    ("dominoes", 2, 22),
    ("fashion", 3, 23),
    ("passpass", 3, 24),
    ("dominoes", 2, 25),
    ("fashion", 3, 26),
]
QUICK = {SCENARIOS[0]}


def scenarios() -> list[object]:
    return [
        pytest.param(
            game,
            players,
            seed,
            id=f"{game}-seed-{seed}",
            marks=[] if (game, players, seed) in QUICK else [pytest.mark.soak],
        )
        for game, players, seed in SCENARIOS
    ]


@pytest.mark.parametrize(("game", "players", "seed"), scenarios())
async def test_a_game_completes_when_a_cluster_node_dies(
    tmp_path: Path, request: pytest.FixtureRequest, game: str, players: int, seed: int
) -> None:
    if (game, players, seed) not in QUICK:
        skip_unless_soak(request)
    require_nats()
    with start_nats_cluster(3) as cluster:
        node_a, _, node_c = cluster.nodes
        host = PasseProcess("host", tmp_path)
        on_b = PasseProcess("on-b", tmp_path)
        on_c = PasseProcess("on-c", tmp_path)
        # The key the peer on C will use (made here, found there): its topics.
        c_identity = load_identity(on_c.home / "data" / KEY_FILE).identity
        c_peer, c_key = c_identity.peer_id, c_identity.public_key
        try:
            await host.start(
                *host_args(game, players, wait_for=2, bot_delay=0, seed=seed),
                *("--broker", cluster.brokers(0)),
                # No bot plays for the peer on C while it is away: the game
                # goes on only if it comes back.
                *("--stand-in-after", "0"),
            )
            room = await host.expect("room")
            prefix = room_prefix(room["code"])
            async with aiomqtt.Client(node_a.host, node_a.mqtt_port) as watcher:
                # What the authority sends the peer on C (sealed: counted,
                # not read) and that peer's presence, as node A sees them.
                to_c, c_presence = f"{prefix}/p/{c_peer}", presence_topic(room["code"], c_peer)
                await watcher.subscribe(to_c)
                await watcher.subscribe(c_presence)
                epochs: list[int] = []
                for n, (peer, first) in enumerate(((on_b, 1), (on_c, 2))):
                    await peer.start(
                        "join",
                        room["code"],
                        *("--broker", cluster.brokers(first)),
                        *("--bot", "random", "--name", f"Peer {n}", "--seed", str(seed + n)),
                    )
                seats = {(await peer.expect("seated"))["seat"] for peer in (on_b, on_c)}
                assert len(seats) == 2
                await host.expect("started")
                updates = 0
                async with asyncio.timeout(DEADLINE):
                    async for message in watcher.messages:
                        if message.topic.matches(c_presence):
                            epochs.append(_epoch(c_presence, message.payload, c_key))
                        elif message.topic.matches(to_c):
                            updates += 1
                            if updates == KILL_AFTER_UPDATES:
                                break
                    node_c.kill()
                    # The peer on C online again in a new epoch, that is on a
                    # new connection, its node dead: through another node.
                    async for message in watcher.messages:
                        if message.topic.matches(c_presence):
                            epoch = _epoch(c_presence, message.payload, c_key)
                            if epoch > max(epochs):
                                break
            over = await host.expect("over")
            for peer in (on_b, on_c):
                result = await peer.expect("over")
                assert result["winners"] == over["result"]["winners"]
                assert result["scores"] == over["result"]["scores"]
                assert result["deal_verified"] is True  # the record matched the commitment
            assert over["actions"] > KILL_AFTER_UPDATES
            assert await host.finish() == 0
            for peer in (on_b, on_c):
                assert await peer.finish() == 0
        except BaseException:
            for process in (host, on_b, on_c):
                print(await process.report())
            raise
        finally:
            for process in (host, on_b, on_c):
                await process.stop()


def _epoch(topic: str, payload: object, key: bytes) -> int:
    """The epoch of an "online" presence signed by ``key`` (-1 for "gone"):
    a peer's link takes a new one on each connection."""
    assert isinstance(payload, bytes)
    presence = open_body(open_envelope(topic, payload, expect_key=key), presence_decoder)
    return presence.epoch if presence.online else -1
