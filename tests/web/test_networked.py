"""Issue 22's acceptance for rooms: one networked Pass Pass game with four
people, each on another way in. Two browser tabs (two browser profiles, so
two players) on ``passe serve --web``: Ada hosts a room from her home screen
(``o``), Bruno joins it by its code (``j``); Cleo joins over SSH (``passe
serve --ssh``'s ``join`` command); Dora runs ``passe join`` in a terminal of
her own. Ada lets each in (``y``) and starts; all four play their seat by
keys, reading only their screen, to the end-of-game dialog.

The rooms browser guests host use the server's broker (``PASSE_BROKER``:
the machine's Mosquitto), which the others name after the code, as a person
would where the LAN hides the room. Everything waits on screen content or
log lines, with deadlines; nothing sleeps to synchronise.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.net.procs import need_mosquitto
from tests.ssh.conftest import (
    HOME,
    NETWORK_GAME_OVER,
    Client,
    ServerFactory,
    SshBinaryClient,
    passe_command,
    play_all_to_end,
    ssh_arguments,
)
from tests.web.conftest import BrowserClient, WebServer, new_context

BROKER = "127.0.0.1:1883"
SEED = 1  # as tests/ssh/test_networked.py: a game that ends in round 3
NAME_ASKED = "Your name at the table?"
HOST_GAME_OVER = "a / Enter: next game, same table"
# The lobby's code box: the code read aloud ("A B C  -  1 2 3").
CODE = re.compile(r"┃\s*((?:\w ){2,}\w)\s+-\s+((?:\w ){2,}\w)\s*┃")


async def spoken_code(tab: BrowserClient) -> str:
    await tab.terminal.wait(lambda: CODE.search(tab.terminal.text()) is not None, "a room code")
    found = CODE.search(tab.terminal.text())
    assert found is not None
    return found[1].replace(" ", "") + "-" + found[2].replace(" ", "")


async def let_in(host: BrowserClient, name: str) -> None:
    """The host answers the knock of ``name`` (issue 19 item 2)."""
    await host.terminal.wait(
        lambda: re.search(rf"{name} \(key .*knocks", host.terminal.text()) is not None,
        f"{name}'s knock",
    )
    await host.send("y")
    await host.terminal.wait(lambda: "knocks" not in host.terminal.text(), f"{name} let in")


@pytest.mark.long
async def test_browser_tabs_an_ssh_guest_and_a_terminal_play_one_networked_game(
    start_web_server: Callable[..., WebServer],
    start_server: ServerFactory,
    browser: Any,
    clients: list[Client],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    need_mosquitto()
    web = start_web_server(seed=SEED, environment={"PASSE_BROKER": BROKER})
    ssh = start_server()
    ada = await BrowserClient.open(await new_context(browser), web.url)
    bruno = await BrowserClient.open(await new_context(browser), web.url)
    for tab in (ada, bruno):
        await tab.terminal.wait_for(HOME)

    await ada.send("o")  # host a room with the home screen's game: Pass Pass, 4 seats
    await ada.terminal.wait_for(NAME_ASKED)  # "You" is no name for the others
    await ada.send("Ada\r")
    target = f"{await spoken_code(ada)}@{BROKER}"

    await bruno.send("j")
    await bruno.terminal.wait_for(NAME_ASKED)
    await bruno.send("Bruno\r")
    await bruno.terminal.wait_for("Room code")
    await bruno.send(f"{target}\r")
    await let_in(ada, "Bruno")

    cleo = SshBinaryClient(ssh_arguments(ssh, "Cleo", "join", target), 80, 24)
    clients.append(cleo)
    await let_in(ada, "Cleo")

    monkeypatch.setenv("PASSE_CONFIG_DIR", str(tmp_path / "dora"))  # her own settings and key
    monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path / "dora"))
    dora = SshBinaryClient([*passe_command(), "join", target, "--name", "Dora"], 80, 24)
    clients.append(dora)
    await let_in(ada, "Dora")

    await ada.send("s")  # every seat taken by a person: start
    players: list[tuple[Client, str]] = [
        (ada, HOST_GAME_OVER),
        (bruno, NETWORK_GAME_OVER),
        (cleo, NETWORK_GAME_OVER),
        (dora, NETWORK_GAME_OVER),
    ]
    for player, _ in players:
        await player.terminal.wait_for("Your hand")
    keys = await play_all_to_end(players)
    assert all(sent >= 3 for sent in keys), keys
    for player, _ in players:  # the authority's end, told on every screen
        assert "Why: " in player.terminal.text(), player.terminal.text()
    for player, _ in players:
        await player.send("q")  # quit from the end-of-game dialog
    statuses = [await player.exit_status() for player, _ in players]
    try:
        await web.server.wait_log(r"session 1 end: app exited with 0 ")
        await web.server.wait_log(r"session 2 end: app exited with 0 ")
        await ssh.wait_log(r"session 1 end: app exited with 0")
    except AssertionError as error:
        # An app that ended with 1 printed its traceback on its screen (CI,
        # 3 December: both joiners' apps once ended with 1 as they quit).
        screens = "\n".join(
            f"--- player {n} (exit {status}):\n{player.terminal.text()}"
            for n, ((player, _), status) in enumerate(zip(players, statuses, strict=True))
        )
        raise AssertionError(f"{error}\n{screens}") from None
