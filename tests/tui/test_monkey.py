"""A person pressing keys at random: no screen may crash.

Seeded random presses over the whole app, local play (every game, every
screen a local player reaches: home, the tables, choices, summaries, help,
rules, past games and replays, the quit questions), with the terminal
resized now and then (below 80x24 too, where the size guard speaks). The
keys are the ones people press: letters, digits, arrows, Enter, Escape,
Tab, space, F1-F5, Backspace. Network entries (host, join) are left out:
their screens are driven by the network tests. A crash anywhere (an
exception in a handler, a query that finds nothing) fails the test, with
the seed and the keys pressed so far. ``make test`` runs three seeds;
``make soak`` 150, with more keys each.
"""

from __future__ import annotations

import asyncio
import os
import random
import string
from collections import Counter
from pathlib import Path

import pytest

from tests.tui.conftest import SIZE, make_app, write_settings
from tui.screens.home import HomeScreen

KEYS = (
    list(string.ascii_lowercase)
    + list(string.digits)
    + ["enter"] * 6
    + ["escape"] * 3
    + ["space"] * 3
    + ["up", "down", "left", "right"] * 3
    + ["tab", "shift+tab", "backspace", "question_mark", "f1", "f2", "f3", "f4", "f5"]
)
# Home's keys that open a room on the network or look for one.
NETWORK_KEYS = {"o", "j", "u", "x"}
GAMES = ("passpass", "dominoes", "fashion")  # the home screen starts on each in turn
SIZES = [SIZE, SIZE, SIZE, (100, 30), (79, 23), (60, 20), (120, 40)]
PRESSES = 1500 if os.environ.get("PASSE_SOAK") == "1" else 150


def seeds(*, quick: int, soak: int) -> list[object]:
    """``quick`` seeds for `make test`, up to ``soak`` for `make soak`."""
    return [
        pytest.param(seed, id=f"seed-{seed}", marks=[] if seed < quick else [pytest.mark.soak])
        for seed in range(soak)
    ]


@pytest.mark.long
@pytest.mark.parametrize("seed", seeds(quick=3, soak=150))
async def test_random_keys_never_crash_a_screen(private_config: Path, seed: int) -> None:
    rng = random.Random(seed)
    write_settings(private_config, game=GAMES[seed % len(GAMES)])
    app = make_app(private_config, seed=seed, bot_delay=0.0)
    pressed: list[str] = []
    screens: Counter[str] = Counter()  # keys pressed on each, said with a failure
    try:
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(PRESSES):
                if app._exit or not app.is_running:
                    break  # quit on purpose (q, then yes): nothing more to press
                screens[type(app.screen).__name__] += 1
                if rng.random() < 0.02:
                    size = rng.choice(SIZES)
                    pressed.append(f"resize{size}")
                    await pilot.resize_terminal(*size)
                    continue
                key = rng.choice(KEYS)
                home = isinstance(app.screen, HomeScreen)
                if home and (key in NETWORK_KEYS or key == "q"):
                    continue  # q at home leaves Passe at once: the run would end
                pressed.append(key)
                await pilot.press(key)
                if rng.random() < 0.1:
                    await pilot.pause()  # the bots' moves and the timers catch up
    except Exception as error:
        raise AssertionError(
            f"seed {seed}: crashed after {len(pressed)} keys; the last ones: {pressed[-30:]};"
            f" keys per screen: {dict(screens)}"
        ) from error


@pytest.fixture
def mosquitto() -> tuple[str, int]:
    """The machine's Mosquitto (skipped where it is not running, failing in CI)."""
    from tests.net.procs import need_mosquitto
    from tests.tui.test_network import MOSQUITTO

    need_mosquitto(*MOSQUITTO)
    return MOSQUITTO


@pytest.mark.long
@pytest.mark.mosquitto
@pytest.mark.parametrize("seed", seeds(quick=1, soak=40))
async def test_random_keys_at_a_networked_table_never_crash_a_screen(
    private_config: Path, mosquitto: tuple[str, int], seed: int
) -> None:
    """The same person at a networked table: a room on Mosquitto with Ada,
    whose bot plays her seat and whose link drops and comes back now and
    then; the person joins by its code, the room's host seats a bot and
    starts; random keys from then on (leaving the room, the lobby, the table,
    its dialogs, the game's end), and back by the code when a key took them
    home."""
    from net.identity import Identity
    from net.peer.headless import play_with_bot
    from net.peer.remote import RemoteTable
    from tests.net.peers import open_test_room
    from tests.tui.test_network import network_app
    from tests.tui.test_network import write_settings as write_named_settings

    rng = random.Random(seed)
    write_named_settings(private_config, name="Tess")
    hosted = await open_test_room("passpass", 3, mosquitto, seed=seed)
    authority = hosted.authority
    ada: RemoteTable | None = None
    playing: asyncio.Task[None] | None = None

    async def ada_comes() -> None:
        nonlocal ada, playing
        ada = RemoteTable(
            Identity.generate() if ada is None else ada.identity, hosted.code, *mosquitto, "Ada"
        )
        await ada.join()
        playing = asyncio.create_task(play_with_bot(ada, "random", seed=seed))

    async def ada_goes() -> None:
        if playing is not None:
            playing.cancel()
        if ada is not None:
            await ada.close()

    app = network_app(private_config, mosquitto, seed=seed)
    pressed: list[str] = []
    screens: Counter[str] = Counter()  # keys pressed on each, said with a failure
    try:
        await ada_comes()
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(PRESSES):
                if app._exit or not app.is_running:
                    break
                screens[type(app.screen).__name__] += 1
                if authority.phase == "lobby" and all(
                    seat.kind != "open" for seat in authority.seats[:2]
                ):
                    open_seats = [n for n, s in enumerate(authority.seats) if s.kind == "open"]
                    for seat in open_seats:
                        authority.set_bot(seat, "random")
                    authority.start_game()
                if isinstance(app.screen, HomeScreen):
                    pressed.append("j+code")
                    await pilot.press("j", *hosted.code.lower(), "enter")
                    await pilot.pause()
                    continue
                roll = rng.random()
                if roll < 0.02:
                    size = rng.choice(SIZES)
                    pressed.append(f"resize{size}")
                    await pilot.resize_terminal(*size)
                    continue
                if roll < 0.03:
                    pressed.append("ada-link")
                    await ada_goes()
                    await ada_comes()
                    continue
                key = rng.choice(KEYS)
                pressed.append(key)
                await pilot.press(key)
                if rng.random() < 0.2:
                    await pilot.pause()
    except Exception as error:
        raise AssertionError(
            f"seed {seed}: crashed after {len(pressed)} keys; the last ones: {pressed[-30:]};"
            f" keys per screen: {dict(screens)}"
        ) from error
    finally:
        await ada_goes()
        await hosted.close()
