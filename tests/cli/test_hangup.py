"""Issue 24: when its terminal goes away, Passe saves and exits, whoever got
the hangup signal. ``passe`` runs under ``make play``, a shell pipeline or a
wrapper script on a real pty that is the session's controlling terminal (as
in tmux); the pty's master is closed (``tmux kill-session``, a dropped SSH
link); the kernel's SIGHUP goes to make, the shell or the wrapper, and
``passe`` is left with a terminal that reads end-of-file and fails writes.
It must end within 5 s without burning CPU, its local game saved (``c``
continues it) and its networked seat kept (away, then back)."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from net.protocol.wire import RoomState, SeatState, room_topic
from tests.cli.ptys import (
    HOME_TEXT,
    PtyCommand,
    cpu_times,
    ended,
    environment,
    make_play,
    passe_binary,
)
from tests.net.peers import RawClient, room_state_of
from tests.net.procs import PasseProcess, host_args, need_mosquitto

BROKER = ("127.0.0.1", 1883)

# CPU seconds passe may use from the close to its end: the clean quit
# (saving, unmounting the screens, closing a broker link, Python's exit) on
# the main thread; next to nothing in the others (Textual's input and output
# threads), which spun at a second per second in issue 24.
CPU_LIMIT = 0.8
BACKGROUND_CPU_LIMIT = 0.1
HAND = "Your hand"
SETTINGS = {"bot_delay": 0.0, "name": "Tess"}  # bots play at once, also under make play


def wrapper_script(tmp_path: Path) -> Path:
    """A wrapper that does not ``exec`` (as uv run, pipx run, many scripts):
    it gets the hangup, and records passe's exit status when it ends (a
    trapped signal waits for the foreground command)."""
    script = tmp_path / "passe-wrapper"
    script.write_text(
        "#!/bin/sh\n"
        "trap 'echo hup >> \"$0.log\"' HUP\n"
        f'"{passe_binary()}" "$@"\n'
        'echo "status $?" >> "$0.log"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


Launcher = Callable[[Path, list[str]], list[str]]


def under_make(tmp_path: Path, args: list[str]) -> list[str]:
    assert not args, "make play takes no arguments"
    return make_play()


def under_pipeline(tmp_path: Path, args: list[str]) -> list[str]:
    quoted = " ".join([passe_binary(), *args])
    return ["/bin/sh", "-c", f"{quoted} | cat"]


def under_wrapper(tmp_path: Path, args: list[str]) -> list[str]:
    return [str(wrapper_script(tmp_path)), *args]


def config_dir(tmp_path: Path) -> Path:
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").write_text(json.dumps(SETTINGS), encoding="utf-8")
    return config


@pytest.fixture
async def commands() -> AsyncIterator[list[PtyCommand]]:
    started: list[PtyCommand] = []
    yield started
    for command in started:
        command.stop()


LAUNCHERS = {"make play": under_make, "sh -c 'passe | cat'": under_pipeline}
LAUNCHERS["wrapper script"] = under_wrapper


@pytest.mark.parametrize("launcher", LAUNCHERS.values(), ids=list(LAUNCHERS))
async def test_a_closed_terminal_at_home_ends_passe(
    tmp_path: Path, launcher: Launcher, commands: list[PtyCommand]
) -> None:
    config = config_dir(tmp_path)
    command = PtyCommand(launcher(tmp_path, []), environment(config))
    commands.append(command)
    await command.wait_for(HOME_TEXT)
    ending = await command.hang_up(command.passe())
    assert ending.cpu < CPU_LIMIT and ending.background_cpu < BACKGROUND_CPU_LIMIT, ending
    if launcher is under_wrapper:
        command.process.wait(timeout=5)  # the wrapper, once passe has ended
        log = (tmp_path / "passe-wrapper.log").read_text(encoding="utf-8")
        assert f"status {128 + signal.SIGHUP}" in log  # passe's own exit status


@pytest.mark.parametrize("launcher", LAUNCHERS.values(), ids=list(LAUNCHERS))
async def test_a_closed_terminal_mid_game_saves_it_and_c_continues_it(
    tmp_path: Path, launcher: Launcher, commands: list[PtyCommand]
) -> None:
    config = config_dir(tmp_path)
    args = [] if launcher is under_make else ["play", "--seed", "3"]
    command = PtyCommand(launcher(tmp_path, args), environment(config))
    commands.append(command)
    await command.wait_for(HOME_TEXT)
    await command.send("\r")  # start a Pass Pass game (bots at once)
    await command.wait_for(HAND)
    save = config / "saved-game.json"
    save.unlink(missing_ok=True)  # the hangup itself must save the game
    ending = await command.hang_up(command.passe())
    assert ending.cpu < CPU_LIMIT and ending.background_cpu < BACKGROUND_CPU_LIMIT, ending
    saved = json.loads(save.read_text(encoding="utf-8"))
    assert saved["record"]["game"] == "passpass"
    moves = len(saved["record"]["actions"])

    again = PtyCommand([passe_binary()], environment(config))
    commands.append(again)
    await again.wait_for("c continues it")
    await again.send("c")
    await again.wait_for(HAND)
    # The same game, from where it was: its moves are all there.
    assert len(json.loads(save.read_text(encoding="utf-8"))["record"]["actions"]) >= moves


async def test_sigterm_ends_passe_whose_terminal_is_already_gone(
    tmp_path: Path, commands: list[PtyCommand]
) -> None:
    """A passe stopped (as by Ctrl+Z) when its terminal closes cannot notice;
    the SIGTERM then sent to it (a `kill`, a shutdown) ends it."""
    config = config_dir(tmp_path)
    command = PtyCommand([passe_binary(), "play", "--seed", "5"], environment(config))
    commands.append(command)
    await command.wait_for(HOME_TEXT)
    await command.send("\r")
    await command.wait_for(HAND)
    passe = command.passe()
    os.kill(passe.pid, signal.SIGSTOP)
    command.close_terminal()
    before = cpu_times(passe)
    assert before is not None
    os.kill(passe.pid, signal.SIGTERM)
    os.kill(passe.pid, signal.SIGCONT)
    ending = await ended(passe, before)
    assert ending.cpu < CPU_LIMIT and ending.background_cpu < BACKGROUND_CPU_LIMIT, ending
    status = command.process.wait(timeout=5)
    # The kernel's hangup comes with a SIGCONT to the terminal's session
    # leader (passe here): its clean quit may already have begun, and a
    # SIGTERM that lands once Python has given the signals back at its
    # exit ends it as the signal's default does (-15: CI, Python 3.13).
    assert status in (128 + signal.SIGTERM, 128 + signal.SIGHUP, -signal.SIGTERM)
    assert json.loads((config / "saved-game.json").read_text(encoding="utf-8"))


def seat_named(state: RoomState | None, name: str) -> SeatState | None:
    if state is None:
        return None
    return next((seat for seat in state.seats if seat.name == name), None)


@pytest.mark.parametrize("launcher", [under_wrapper, under_pipeline], ids=["wrapper", "pipeline"])
async def test_a_closed_terminal_mid_game_keeps_a_networked_seat_to_come_back_to(
    tmp_path: Path, launcher: Launcher, commands: list[PtyCommand]
) -> None:
    """The peer's seat is kept (it left no Leave: nobody decided to quit),
    shown away to the others, and its player takes it back by joining again."""
    need_mosquitto()
    host = PasseProcess("host", tmp_path)
    await host.start(
        *host_args("passpass", 3, wait_for=1, bot_delay=0, seed=7, broker="127.0.0.1:1883")
    )
    try:
        code = (await host.expect("room"))["code"]
        target = f"{code}@127.0.0.1:1883"
        config = config_dir(tmp_path)
        async with RawClient(*BROKER, [room_topic(code)]) as spy:
            peer = PtyCommand(launcher(tmp_path, ["join", target]), environment(config))
            commands.append(peer)
            await peer.wait_for(HAND)
            await spy.until(
                lambda t, p: (
                    (s := seat_named(room_state_of(t, p), "Tess")) is not None and s.present
                )
            )
            seen = len(spy.messages)
            ending = await peer.hang_up(peer.passe())
            assert ending.cpu < CPU_LIMIT and ending.background_cpu < BACKGROUND_CPU_LIMIT, ending
            _, payload = await spy.until(
                lambda t, p: (
                    (s := seat_named(room_state_of(t, p), "Tess")) is not None and not s.present
                ),
                seen,
            )
            state = room_state_of(room_topic(code), payload)
            assert state is not None and state.phase == "playing"
            away = seat_named(state, "Tess")
            assert away is not None and away.kind == "human"  # kept, not given away
            if launcher is under_wrapper:
                peer.process.wait(timeout=5)
                log = (tmp_path / "passe-wrapper.log").read_text(encoding="utf-8")
                assert f"status {128 + signal.SIGHUP}" in log

            seen = len(spy.messages)
            again = PtyCommand([passe_binary(), "join", target], environment(config))
            commands.append(again)
            await again.wait_for(HAND)
            await spy.until(
                lambda t, p: (
                    (s := seat_named(room_state_of(t, p), "Tess")) is not None and s.present
                ),
                seen,
            )
    finally:
        await host.stop()
