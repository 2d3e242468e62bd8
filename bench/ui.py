"""Key press to updated table, in a Textual Pilot session (headless, 80x24).

A Pass Pass game (4 players, heuristic bots, ``bot_delay=0``) is driven by
keys only. On each of the person's turns to play a card, the digit key of a
legal card is pressed and timed until the hand on screen no longer shows that
card ("table updated"), then until the next frame is composed after that
(the screen's update handed to the driver: headless, so nothing is written).
The key is posted to the app as a terminal driver does, without Pilot's
``press`` (which also waits until the process is idle, i.e. until the bots
have finished the trick). Other prompts (picks, choices, end of round) are
answered without timing.

Run alone: ``python -m bench ui [--quick]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import fmt_ms, machine, percentile, table

SIZE = (80, 24)
MAX_STEPS = 5000


async def _measure(games: int, seed: int) -> tuple[list[float], list[float]]:
    # Imported here: the other benchmark families must not pay for Textual.
    from textual import events
    from textual.pilot import Pilot

    from tui.app import PasseApp
    from tui.games.passpass.hand import HandView
    from tui.games.passpass.table import PassPassTableScreen
    from tui.screens.choice import ChoiceScreen
    from tui.screens.game_over import GameOverScreen
    from tui.screens.home import HomeScreen
    from tui.screens.round_end import RoundEndScreen

    shown: list[float] = []
    painted: list[float] = []
    frames: list[float] = []
    with tempfile.TemporaryDirectory(prefix="passe-bench-") as directory:
        config = Path(directory) / "settings.json"  # defaults: Pass Pass, 4 players
        for index in range(games):
            app = PasseApp(config_path=config, bot_delay=0.0, seed=seed + index)
            pilot: Pilot[None]
            async with app.run_test(size=SIZE) as pilot:
                display = app._display  # wrapped: note when a frame is composed

                def noting(screen: Any, renderable: Any, display: Any = display) -> None:
                    if renderable is not None:
                        frames.append(time.perf_counter())
                    display(screen, renderable)

                app._display = noting  # type: ignore[method-assign]
                assert isinstance(app.screen, HomeScreen)
                await pilot.press("enter")
                await pilot.pause()
                for _ in range(MAX_STEPS):
                    await pilot.pause()
                    screen = app.screen
                    if isinstance(screen, GameOverScreen):
                        break
                    if isinstance(screen, RoundEndScreen):
                        await pilot.press("enter")
                        continue
                    if isinstance(screen, ChoiceScreen):
                        await pilot.press("1")
                        continue
                    if not isinstance(screen, PassPassTableScreen):
                        raise RuntimeError(f"unexpected screen {screen!r}")
                    view = screen.pp_view
                    if view is None or view.is_over or view.seat not in view.to_act:
                        await pilot.pause(0.002)
                        continue
                    if view.phase == "pick":
                        await pilot.press("space")
                        continue
                    if view.phase != "play":
                        await pilot.press("c")
                        continue
                    legal = {getattr(a, "card", None) for a in view.legal}
                    position = next(i for i, c in enumerate(view.hand) if c in legal)
                    card = view.hand[position]
                    hand = screen.query_one(HandView)
                    key = str(position + 1)
                    frames.clear()
                    start = time.perf_counter()
                    app.post_message(events.Key(key, key))  # as the terminal driver does
                    while any(slot.card == card for slot in hand.items):
                        await asyncio.sleep(0)
                    updated = time.perf_counter()
                    while not frames or frames[-1] < updated:
                        await asyncio.sleep(0)
                    shown.append(updated - start)
                    painted.append(next(t for t in frames if t >= updated) - start)
                    await pilot.pause()  # untimed: let the bots finish the trick
                else:
                    raise RuntimeError(f"the game did not end in {MAX_STEPS} steps")
    return shown, painted


def run(*, quick: bool = False, seed: int = 11) -> str:
    games = 1 if quick else 3
    shown, painted = asyncio.run(_measure(games, seed))
    rows = [
        [
            "digit key -> card gone from the hand on screen",
            str(len(shown)),
            fmt_ms(statistics.median(shown)),
            fmt_ms(percentile(shown, 0.9)),
            fmt_ms(max(shown)),
        ],
        [
            "digit key -> next frame composed",
            str(len(painted)),
            fmt_ms(statistics.median(painted)),
            fmt_ms(percentile(painted, 0.9)),
            fmt_ms(max(painted)),
        ],
    ]
    return "\n".join(
        [
            f"{games} Pass Pass games (4 players, heuristic bots, bot_delay 0), "
            f"headless Pilot {SIZE[0]}x{SIZE[1]}; machine: {machine()}\n",
            table(
                "Key press to updated table (Pilot)",
                ["measure", "presses", "median ms", "p90 ms", "max ms"],
                rows,
            ),
        ]
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench ui", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one game only")
    args: Any = parser.parse_args(argv)
    print(run(quick=args.quick))


if __name__ == "__main__":
    main()
