"""Nobody peeks, even after a failover (issue 20, "Secrecy"): every
process is asked through its test hook (net/testhooks.py: SIGUSR2 with
PASSE_TEST_HOOKS=1) which secrets it holds, then every *player's* process
is searched, memory (``/proc/PID/mem``) and files, for the others': the
commitment salt and the room secret (either reads the deal: the salt with
the revealed seed's hash, the secret the replicated log) and every share
of the secret but its own. A `#` subscriber's recording is searched too.

- A host's room: before the host's machine dies, no player's process
  holds any of them; after, the successor holds the room secret (found in
  its memory: the search works) and the other player still nothing.
- A dealer's room: no player's process ever holds any of them, not even
  its own share (it has none), before and after the table moves from
  dealer to dealer.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.net.brokers import broker_at
from tests.net.memory import in_memory, on_disk
from tests.net.peers import RawClient
from tests.net.procs import PasseProcess, host_args, join_bots, reported
from tests.net.test_dealers import dealt_game, start_dealers


@pytest.fixture(autouse=True)
def _hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PASSE_TEST_HOOKS", "1")


async def holds(process: PasseProcess) -> dict[str, Any]:
    """What ``process`` says it holds (its hook's line)."""
    assert process.process is not None
    process.process.send_signal(signal.SIGUSR2)
    return await process.expect("holds")


def learnt(process: PasseProcess, secrets: dict[str, bytes]) -> set[str]:
    """Which of ``secrets`` the process holds, in memory or on disk."""
    assert process.process is not None
    return in_memory(process.process.pid, secrets) | on_disk(process.home, secrets)


async def learnt_unrevealed(process: PasseProcess, secrets: dict[str, bytes]) -> set[str]:
    """Which of ``secrets`` the process holds that it was not told in the
    open: a commitment's salt is revealed with the game's end, for every
    seat to check the deal (CI, 4 December: bots ended a game before the
    check, and a player's process held the salt, as it must). Asked after
    the search: a salt found must have been revealed by then."""
    found = learnt(process, secrets)
    revealed = set((await holds(process))["revealed"])
    return {name for name in found if secrets[name].hex() not in revealed}


def named(said: dict[str, Any], owner: str) -> dict[str, bytes]:
    secrets = {f"{owner}'s salt": bytes.fromhex(salt) for salt in said["salts"]}
    secrets |= {f"{owner}'s room secret": bytes.fromhex(s) for s in said["secrets"]}
    secrets |= {f"{owner}'s share": bytes.fromhex(share) for share in said["shares"]}
    return secrets


def in_recording(recording: list[tuple[str, bytes]], secrets: dict[str, bytes]) -> set[str]:
    found = set()
    for _, payload in recording:
        for name, secret in secrets.items():
            if secret in payload or secret.hex().encode() in payload:
                found.add(name)
    return found


async def test_a_host_s_room_no_player_holds_a_secret_until_one_takes_the_table(
    tmp_path: Path,
) -> None:
    async with broker_at("mosquitto") as (address, port):
        broker = f"{address}:{port}"
        host = PasseProcess("host", tmp_path)
        peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(2)]
        async with reported(host, *peers):
            async with RawClient(address, port, ["#"]) as spy:
                # The host's bot is slow: the game lasts while memory is read.
                setup = host_args("passpass", 3, wait_for=2, bot_delay=0.4, seed=5)
                await host.start(*setup, "--broker", broker)
                room = await host.expect("room")
                await join_bots(peers, room)
                await host.expect("started")
                await peers[0].expect("acted")
                said = await holds(host)
                assert said["salts"] and said["secrets"] and said["shares"]
                secrets = named(said, "host")
                for n, peer in enumerate(peers):
                    secrets |= named(await holds(peer), f"peer{n}")
                assert set(secrets) == {
                    "host's salt", "host's room secret", "host's share",
                    "peer0's share", "peer1's share",
                }  # fmt: skip
                for n, peer in enumerate(peers):
                    assert await learnt_unrevealed(peer, secrets) == {f"peer{n}'s share"}
                # The search finds what is there (the host holds all of its own).
                assert {"host's salt", "host's room secret"} <= learnt(host, secrets)
                assert in_recording(spy.messages, secrets) == set()
            host.kill()
            for peer in peers:
                await peer.expect("moved")
            runner, other = await _successor(peers)
            assert (
                bytes.fromhex((await holds(runner))["secrets"][0]) == secrets["host's room secret"]
            )
            assert "host's room secret" in learnt(runner, secrets)
            n = peers.index(other)
            assert await learnt_unrevealed(other, secrets) == {f"peer{n}'s share"}


async def _successor(peers: list[PasseProcess]) -> tuple[PasseProcess, PasseProcess]:
    """The peer whose process holds the room secret now, and the other: the
    successor takes the table once elected, which its hook may not show at
    the very first ask."""
    for _ in range(50):
        said = [await holds(peer) for peer in peers]
        holding = [peer for peer, held in zip(peers, said, strict=True) if held["secrets"]]
        if holding:
            (runner,) = holding
            (other,) = [peer for peer in peers if peer is not runner]
            return runner, other
        await asyncio.sleep(0.1)  # asked again until the election is over
    raise AssertionError("no player's process took the table")


async def test_a_dealer_s_room_no_player_ever_holds_a_secret(tmp_path: Path) -> None:
    async with broker_at("mosquitto") as (address, port):
        broker = f"{address}:{port}"
        dealers = await start_dealers(tmp_path, 3, broker)
        peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(3)]
        async with reported(*dealers, *peers):
            async with RawClient(address, port, ["#"]) as spy:
                # Each bot a little slow: the game lasts while memory is read.
                await dealt_game(tmp_path, broker, dealers[0], peers, bot_delay=0.1)
                await peers[0].expect("acted")
                secrets: dict[str, bytes] = {}
                for n, dealer in enumerate(dealers):
                    secrets |= named(await holds(dealer), f"dealer{n}")
                assert {"dealer0's salt", "dealer0's room secret"} <= set(secrets)
                assert sum(name.endswith("share") for name in secrets) == 3
                for peer in peers:
                    assert (await holds(peer))["shares"] == []
                    assert await learnt_unrevealed(peer, secrets) == set()
                assert {"dealer0's salt", "dealer0's room secret"} <= learnt(dealers[0], secrets)
                assert in_recording(spy.messages, secrets) == set()
            dealers[0].kill()
            for peer in peers:
                await peer.expect("moved")
            for peer in peers:
                assert await learnt_unrevealed(peer, secrets) == set()
