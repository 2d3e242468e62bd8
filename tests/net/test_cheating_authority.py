"""Issue 20's acceptance, "Cheating authority", with real processes on a real
broker: a headless host whose authority cheats (tests/net/cheating_host.py:
a test-only subclass, in its own process), two `passe join --bot` peers, a
host bot in the third seat. The seed, its commitment and the record the host
reveals are honest: the check before issue 20 (seed against commitment)
passed these games. Every peer must now report the cheat, naming a mismatch
between the revealed deal and what it was shown. The same checks in memory,
for each game: tests/net/test_dealcheck.py; honest games verify in
tests/net/test_games.py (deal_verified is True there).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.net.procs import PasseProcess, host_args, join_bots

SEED = 31


@pytest.mark.parametrize("cheat", ["swap", "deal"])
async def test_every_peer_catches_a_cheating_authority(tmp_path: Path, cheat: str) -> None:
    host = PasseProcess("host", tmp_path)
    peers = [PasseProcess(f"peer{n}", tmp_path) for n in range(2)]
    try:
        await host.start(
            cheat,
            *host_args("passpass", 3, wait_for=2, bot_delay=0, seed=SEED, port=0),
            module="tests.net.cheating_host",
        )
        room = await host.expect("room")
        await join_bots(peers, room)
        for peer in peers:
            await peer.expect("seated")
        assert (await host.expect("cheated"))["how"] == cheat
        await host.expect("over")
        for n, peer in enumerate(peers):
            over = await peer.expect("over")
            assert over["deal_verified"] is False, f"peer {n}: {over}"
            report = over["deal_report"]
            assert report.startswith("Deal check FAILED "), f"peer {n}: {report}"
            # The commitment held: what is named is a move, not the seed.
            assert "commitment" not in report, f"peer {n}: {report}"
    finally:
        for process in (host, *peers):
            await process.stop()
