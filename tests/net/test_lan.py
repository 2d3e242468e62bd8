"""Discovery and the embedded broker across real network stacks: each
"machine" is a network namespace on a bridge (tests/net/netns.py)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import textwrap

import pytest

from net.lan.discovery import RoomAdvert
from net.protocol.codes import new_code
from tests.net.netns import Lan, lan_fixture, lan_or_skip  # noqa: F401  (the `lan` fixture)

PY = sys.executable

# Runs in another namespace: find the room by its code, connect to the first
# address discovery gave, and do a request/reply through its broker.
PEER_SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys, time
    import aiomqtt
    from net.lan.discovery import find_room

    async def main(code):
        start = time.monotonic()
        room = await find_room(code, timeout=3.0)
        found_after = time.monotonic() - start
        if room is None:
            print(json.dumps({"found": None}))
            return
        async with aiomqtt.Client(room.addresses[0], room.port) as client:
            await client.subscribe(f"passe/v1/{code}/echo", qos=1)
            await client.publish(f"passe/v1/{code}/echo", b"across the LAN", qos=1)
            async for message in client.messages:
                reply = message.payload.decode()
                break
        print(json.dumps({"found": room.__dict__, "after": found_after, "reply": reply}))

    asyncio.run(main(sys.argv[1]))
    """
)


async def start_line(process: asyncio.subprocess.Process, prefix: bytes) -> bytes:
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), 30)
    assert line.startswith(prefix), line
    return line.removeprefix(prefix).strip()


async def test_find_a_room_by_code_and_use_its_broker_from_another_machine(lan: Lan) -> None:
    code = new_code()
    pipes = {"stdin": asyncio.subprocess.PIPE, "stdout": asyncio.subprocess.PIPE}
    broker = await lan.spawn_async(
        0, [PY, "-m", "net.lan.broker", "--bind", "0.0.0.0", "--port", "1883"], **pipes
    )
    port = int(await start_line(broker, b"ready "))
    advertiser = await lan.spawn_async(
        0,
        [
            PY,
            "-m",
            "net.lan.discovery",
            "advertise",
            code,
            "--host-name",
            "Host",
            "--free",
            "2",
            "--port",
            str(port),
        ],
        **pipes,
    )
    await start_line(advertiser, b"advertising ")

    peer = await asyncio.to_thread(lan.run, 1, [PY, "-c", PEER_SCRIPT, code])
    assert peer.returncode == 0, peer.stderr
    result = json.loads(peer.stdout)
    assert result["found"] is not None, "the room was not found from the other namespace"
    found = RoomAdvert(**{**result["found"], "addresses": tuple(result["found"]["addresses"])})
    # The host's LAN address first; its loopback (useless from here) last.
    assert found == RoomAdvert(code, "passpass", "Host", 2, 1, port, ("10.77.0.1", "127.0.0.1"))
    assert result["after"] < 3.0
    assert result["reply"] == "across the LAN"

    for process in (advertiser, broker):
        assert process.stdin is not None
        process.stdin.close()  # both end when their stdin closes
        assert await asyncio.wait_for(process.wait(), 10) == 0


async def test_a_code_already_advertised_on_the_lan_is_refused(lan: Lan) -> None:
    code = new_code()
    first = await lan.spawn_async(
        0,
        [PY, "-m", "net.lan.discovery", "advertise", code],
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    await start_line(first, b"advertising ")
    rival = await asyncio.to_thread(
        lan.run, 2, [PY, "-m", "net.lan.discovery", "advertise", code], timeout=30
    )
    assert rival.returncode == 2
    assert f"room code {code[:3]}-{code[3:]} is already in use on this network" in rival.stderr
    assert first.stdin is not None
    first.stdin.close()
    assert await asyncio.wait_for(first.wait(), 10) == 0


def test_namespaces_are_separate_machines(lan: Lan) -> None:
    # Each has its own address and its own ports: 1883 is free in there even
    # though the machine's Mosquitto holds it outside.
    addresses = lan.run(2, ["ip", "-o", "-4", "addr", "show", "dev", "eth0"])
    assert f" {lan.namespaces[2].address}/24 " in addresses.stdout
    listeners = lan.run(2, ["ss", "-ltn"])
    assert listeners.returncode == 0 and ":1883 " not in listeners.stdout


def test_without_root_it_skips_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.delenv("CI", raising=False)
    with (
        pytest.raises(pytest.skip.Exception, match="network namespaces need root"),
        lan_or_skip(1),
    ):
        pass
    monkeypatch.setenv("CI", "true")
    with (
        pytest.raises(pytest.fail.Exception, match=r"LAN test cannot run in CI: .* need root"),
        lan_or_skip(1),
    ):
        pass
