"""Where a room's broker listens and where the room says it is (issue 19
item 7, issue 18 item 5): the embedded broker binds where the host asks (by
default the LAN interfaces the room is advertised on, never every one), and
a room is shown and advertised only at addresses where its broker answers."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from core.registry import get_game
from net.authority.host import broker_binds, open_room
from net.identity import Identity
from net.lan.discovery import INTERFACES_ENV, local_addresses
from tests.net.brokers import require_mosquitto, start_mosquitto
from tests.net.procs import PasseProcess, host_args


def listening(pid: int) -> set[tuple[str, int]]:
    """The addresses and ports a process (or its children) listens on."""
    process = psutil.Process(pid)
    found: set[tuple[str, int]] = set()
    for each in (process, *process.children(recursive=True)):
        for conn in each.net_connections(kind="inet"):
            if conn.status == psutil.CONN_LISTEN:
                found.add((conn.laddr.ip, conn.laddr.port))
    return found


async def test_by_default_the_embedded_broker_listens_on_the_advertised_interfaces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(INTERFACES_ENV, raising=False)  # every interface mDNS would use
    expected = local_addresses()
    assert broker_binds(None) == expected and "0.0.0.0" not in expected
    room = await open_room(
        "passpass",
        get_game("passpass").make_config(players=3),
        identity=Identity.generate(),
        host_name="Hostess",
        port=0,  # the broker child binds a free port itself (issue 23: no probed port)
        advertise=False,
    )
    try:
        assert room.embedded is not None
        port = room.broker_port
        assert {ip for ip, p in listening(room.embedded.pid) if p == port} == set(expected)
        # Shown at the first LAN address where it answers; loopback last.
        assert room.addresses == expected
        assert room.local_only == (expected == ("127.0.0.1",))
    finally:
        await room.close()


@pytest.mark.parametrize("how", ["--bind", "PASSE_BIND"])
async def test_host_bind_loopback_listens_only_there_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """`passe host --bind 127.0.0.1`, or PASSE_BIND=127.0.0.1 as `passe
    serve --ssh --bind 127.0.0.1` gives its guests (docs/ssh.md)."""
    monkeypatch.delenv(INTERFACES_ENV, raising=False)  # else loopback is the default
    host = PasseProcess("host", tmp_path)
    try:
        # Port 0: the broker child binds a free port and the host reports it.
        setup = host_args("passpass", 3, wait_for=3, port=0)
        if how == "--bind":
            await host.start(*setup, "--bind", "127.0.0.1")
        else:
            monkeypatch.setenv("PASSE_BIND", "127.0.0.1")
            await host.start(*setup)
        room = await host.expect("room")
        assert room["join"].endswith(f"@127.0.0.1:{room['broker'].split(':')[1]}")
        assert room["local_only"] is True
        assert host.process is not None
        ports = {p for _, p in listening(host.process.pid)}
        assert ports and {ip for ip, _ in listening(host.process.pid)} == {"127.0.0.1"}
    finally:
        await host.stop()
    await host.finish()
    assert "answers only on this machine" in host.stderr.decode()


async def test_a_broker_given_on_loopback_is_advertised_where_it_answers_and_joinable(
    tmp_path: Path,
) -> None:
    """`passe host --broker 127.0.0.1:PORT` (a Mosquitto on loopback only)
    was shown and advertised at the machine's LAN address, where that
    broker does not listen: `passe join CODE` on the same machine failed."""
    require_mosquitto()
    with start_mosquitto() as mosquitto:
        where = f"127.0.0.1:{mosquitto.port}"
        host = PasseProcess("host", tmp_path)
        ana = PasseProcess("ana", tmp_path)
        try:
            await host.start(
                *host_args("passpass", 3, wait_for=1, broker=where, bot_delay=0, advertise=True)
            )
            room = await host.expect("room")
            assert room["join"].endswith(f"@{where}")
            assert room["local_only"] is True
            # By its code alone, found on the LAN (mDNS on loopback here).
            await ana.start("join", room["code"], "--bot", "heuristic", "--name", "Ana")
            await ana.expect("seated")
            await host.expect("over")
            await ana.expect("over")
        except BaseException:
            print(await host.report(), await ana.report())
            raise
        finally:
            for process in (host, ana):
                await process.stop()
