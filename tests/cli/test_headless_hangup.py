"""Issue 24 for the modes without a screen: ``passe host --headless`` and
``passe join --bot`` treat their standard streams as the app treats its
terminal. Output gone (the terminal closed, the reader of the pipe gone) or
SIGTERM/SIGHUP: the hosted room is kept on disk to be resumed, the bot's
seat is kept (away), the exit status is 128 + the signal, within 5 s."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from pathlib import Path

from net.authority.rooms import interrupted_rooms
from net.protocol.wire import room_topic
from tests.cli.ptys import PtyCommand, environment, passe_binary
from tests.cli.test_hangup import (
    BACKGROUND_CPU_LIMIT,
    BROKER,
    CPU_LIMIT,
    commands,  # noqa: F401 (a fixture)
    seat_named,
    wrapper_script,
)
from tests.net.peers import RawClient, room_state_of
from tests.net.procs import PasseProcess, host_args, need_mosquitto

MOSQUITTO = "127.0.0.1:1883"


def _events(command: PtyCommand) -> list[dict[str, object]]:
    """The JSON lines a headless mode printed on its terminal."""
    lines = command.terminal.all_text().splitlines()
    return [json.loads(line) for line in lines if line.startswith('{"event"')]


def _resumable(data: Path, code: str) -> bool:
    rooms, _ = interrupted_rooms(data / "rooms")
    return any(room.room.code == code for room in rooms)


async def test_a_headless_host_whose_terminal_closes_keeps_its_room(
    tmp_path: Path,
    commands: list[PtyCommand],  # noqa: F811
) -> None:
    need_mosquitto()
    config = tmp_path / "config"
    config.mkdir()
    # Every seat a bot, slow: the game is under way when the terminal closes.
    args = host_args("passpass", 3, wait_for=0, bot_delay=5, seed=4, broker=MOSQUITTO)
    host = PtyCommand([str(wrapper_script(tmp_path)), *args], environment(config))
    commands.append(host)
    await host.wait_for('"event": "started"')
    room = next(line for line in _events(host) if line["event"] == "room")
    passe = host.passe()
    ending = await host.hang_up(passe)
    assert ending.cpu < CPU_LIMIT and ending.background_cpu < BACKGROUND_CPU_LIMIT, ending
    host.process.wait(timeout=5)
    log = (tmp_path / "passe-wrapper.log").read_text(encoding="utf-8")
    assert f"status {128 + signal.SIGHUP}" in log
    code = room["code"]
    assert isinstance(code, str)
    assert _resumable(config.with_name("config-data"), code)


async def test_sigterm_keeps_a_headless_hosts_room(tmp_path: Path) -> None:
    need_mosquitto()
    host = PasseProcess("host", tmp_path)
    await host.start(*host_args("passpass", 3, wait_for=0, bot_delay=5, seed=2, broker=MOSQUITTO))
    try:
        code = (await host.expect("room"))["code"]
        await host.expect("started")
        assert host.process is not None
        host.process.send_signal(signal.SIGTERM)
        assert await host.finish(timeout=5) == 128 + signal.SIGTERM
        assert "Traceback" not in host.stderr.decode()
    finally:
        await host.stop()
    assert _resumable(host.home / "data", code)


async def test_a_bot_whose_output_reader_goes_keeps_its_seat(tmp_path: Path) -> None:
    """`passe join --bot ... | reader`, the reader gone: the bot ends (129)
    and its seat stays its own, away."""
    need_mosquitto()
    host = PasseProcess("host", tmp_path)
    await host.start(*host_args("passpass", 3, wait_for=1, bot_delay=5, seed=6, broker=MOSQUITTO))
    bot: subprocess.Popen[bytes] | None = None
    try:
        code = (await host.expect("room"))["code"]
        async with RawClient(*BROKER, [room_topic(code)]) as spy:
            config = tmp_path / "bot"
            config.mkdir()
            bot = subprocess.Popen(
                [
                    passe_binary(),
                    "join",
                    f"{code}@{MOSQUITTO}",
                    "--bot",
                    "random",
                    "--name",
                    "Robo",
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=environment(config),
            )
            assert bot.stdout is not None
            line = await asyncio.to_thread(bot.stdout.readline)
            assert json.loads(line)["event"] == "seated", line
            await host.expect("started")
            await spy.until(
                lambda t, p: (
                    (s := seat_named(room_state_of(t, p), "Robo")) is not None and s.present
                )
            )
            seen = len(spy.messages)
            bot.stdout.close()  # whoever read its output is gone
            assert await asyncio.to_thread(bot.wait, 5) == 128 + signal.SIGHUP
            assert bot.stderr is not None
            assert b"Traceback" not in bot.stderr.read()
            _, payload = await spy.until(
                lambda t, p: (
                    (s := seat_named(room_state_of(t, p), "Robo")) is not None and not s.present
                ),
                seen,
            )
            state = room_state_of(room_topic(code), payload)
            robo = seat_named(state, "Robo")
            # A --bot joiner is listed as a bot (issue 18 item 9), its seat kept.
            assert robo is not None and robo.kind == "bot"
    finally:
        if bot is not None and bot.poll() is None:
            bot.kill()
            bot.wait()
        await host.stop()
