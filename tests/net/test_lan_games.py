"""A networked game across real network stacks (issue 10): the host and two
peers each in their own network namespace on a bridge; the peers find the
room by its code alone (mDNS across the bridge) and play to the end."""

from __future__ import annotations

from pathlib import Path

from tests.net.netns import Lan, lan_fixture  # noqa: F401  (the `lan` fixture)
from tests.net.procs import PasseProcess, host_args


async def test_peers_on_other_machines_join_by_code_and_play(lan: Lan, tmp_path: Path) -> None:
    def on(index: int) -> tuple[str, ...]:
        return ("ip", "netns", "exec", lan.namespaces[index].name)

    # Each "machine" uses its own network for mDNS, not the suite's loopback.
    drop = ("PASSE_MDNS_INTERFACES",)
    host = PasseProcess("host", tmp_path, on(0), drop)
    peers = [PasseProcess(f"peer{n}", tmp_path, on(n + 1), drop) for n in range(2)]
    try:
        # No --broker: the embedded one, on 1883 inside the host's namespace.
        await host.start(*host_args("passpass", 3, wait_for=2, bot_delay=0, seed=8, advertise=True))
        room = await host.expect("room")
        assert room["join"].endswith(f"@{lan.namespaces[0].address}:1883")
        for peer in peers:
            # The code alone, in lower case: found by mDNS across the bridge.
            await peer.start("join", room["code"].lower(), "--bot", "heuristic")
        for peer in peers:
            await peer.expect("seated")
        over = await host.expect("over")
        for peer in peers:
            assert (await peer.expect("over"))["winners"] == over["result"]["winners"]
    finally:
        for process in (host, *peers):
            await process.stop()
