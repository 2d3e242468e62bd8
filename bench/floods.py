"""An honest game under each flood of issue 19, beside the same game without it.

A headless host (bots in the free seats, 0.1 s each) and a peer process (a
heuristic bot) play Pass Pass on the embedded broker and on a Mosquitto of
our own, while an attacker floods the room (``tests/net/test_floods.py``:
fresh-key Hellos at the issue's 200/s, 256 KiB bombs and deep nests with a
replay of the peer's requests, retained presences before the join, and the
mixed flood of every kind at once, seeded). Calm and flooded games
alternate, slice by slice, in one run, so both see the same machine. For
each: the game's duration (the peer's join to its end) and the p99 of the
time between two of the peer's moves (its turn comes back through the
host, both bots and the broker), and the ratios. The target is within 2x;
it is measured, not asserted.

Run alone: ``python -m bench.floods [--quick] [hellos|junk|presences|mixed ...]``
(part of ``python -m bench net``).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import fmt_ms, percentile, table

ATTACKS = ("hellos", "junk", "presences", "mixed")
HELLO_RATE = 200.0  # a second: issue 19's rate (as fast as possible, the
# attacker's own work ran in the loop that timed the moves)
MIXED_SECONDS = 3.0
MIXED_PRESENCES = 1000
MIXED_SEED = 19


async def timed_game(
    home: Path, kind: str, attack: str | None, size: int
) -> tuple[float, list[float]]:
    """(duration, intervals between the peer's moves) of one game."""
    # The attacks are the tests' own (tests/net/test_floods.py); imported by
    # name, as tests are not type-checked with the packages.
    floods: Any = importlib.import_module("tests.net.test_floods")
    RawClient: Any = importlib.import_module("tests.net.peers").RawClient

    with floods.broker_for(kind) as broker:
        game = floods.Game(home, broker)
        flood: asyncio.Task[Any] | None = None
        try:
            await game.open()
            room = [f"passe/v1/{game.code}/room"]
            watched = [*room, f"passe/v1/{game.code}/a/+"]
            # The attacker subscribes to nothing it floods (it would spend
            # the timing process's time on its own messages).
            async with (
                RawClient("127.0.0.1", game.port, room) as attacker,
                RawClient("127.0.0.1", game.port, watched) as spy,
            ):
                if attack == "presences":
                    await floods.presences(game, attacker, size)
                elif attack == "mixed":
                    await floods.presences(game, attacker, MIXED_PRESENCES)
                started = time.monotonic()
                await game.join()
                stamps = [started]
                if attack in ("hellos", "junk", "mixed"):
                    await game.peer.expect("acted")  # the junk replays its requests
                    stamps.append(time.monotonic())
                    flood = asyncio.get_running_loop().create_task(
                        _attack(floods, game, attack, size, attacker, spy)
                    )
                while True:
                    line = await game.peer.expect_any(("acted", "over"))
                    stamps.append(time.monotonic())
                    if line["event"] == "over":
                        break
                if flood is not None:
                    flood.cancel()
                    with contextlib.suppress(BaseException):
                        await flood
            await game.host.expect("over")
        finally:
            await game.stop()
    gaps = [later - earlier for earlier, later in itertools.pairwise(stamps[1:])]
    return stamps[-1] - stamps[0], gaps


async def _attack(floods: Any, game: Any, attack: str, size: int, attacker: Any, spy: Any) -> None:
    if attack == "hellos":
        await floods.fresh_hellos(game, attacker, size, rate=HELLO_RATE)
    elif attack == "junk":
        await floods.junk(game, spy, size)
    else:
        import random

        peer_id, real = floods.peer_of(spy)
        topic = floods.to_authority_topic(game.code, peer_id)
        await spy.until(lambda t, p: t == topic)
        captured = [p for t, p in spy.messages if t == topic]
        authority = await floods.authority_key(game, spy)
        await floods.mixed_flood(
            game, attacker, MIXED_SECONDS, random.Random(MIXED_SEED), captured, real,
            authority, peer_id,
        )  # fmt: skip


async def _measure(quick: bool, attacks: tuple[str, ...] = ATTACKS) -> str:
    from tests.net.brokers import mosquitto_path

    sizes = {"hellos": 300, "junk": 40, "presences": 3000, "mixed": 0}
    slices = 1 if quick else 3
    kinds = ["embedded"] + (["mosquitto"] if mosquitto_path() else [])
    results: dict[tuple[str, str, bool], list[tuple[float, list[float]]]] = {}
    with tempfile.TemporaryDirectory(prefix="passe-bench-floods-") as directory:
        run = 0
        for _ in range(slices):
            for kind in kinds:
                for attack in attacks:
                    for flooded in (False, True):
                        run += 1
                        home = Path(directory) / str(run)
                        measured = await timed_game(
                            home, kind, attack if flooded else None, sizes[attack]
                        )
                        results.setdefault((kind, attack, flooded), []).append(measured)
    rows = []
    for kind in kinds:
        for attack in attacks:
            calm, flood = results[(kind, attack, False)], results[(kind, attack, True)]
            calm_s = statistics.median(d for d, _ in calm)
            flood_s = statistics.median(d for d, _ in flood)
            calm_p99 = percentile([g for _, gaps in calm for g in gaps], 0.99)
            flood_p99 = percentile([g for _, gaps in flood for g in gaps], 0.99)
            rows.append(
                [
                    kind,
                    f"{attack} x{sizes[attack]:,}"
                    if sizes[attack]
                    else f"{attack} {MIXED_SECONDS:g} s",
                    f"{calm_s:.1f} s",
                    f"{flood_s:.1f} s",
                    f"{flood_s / calm_s:.2f}x",
                    fmt_ms(calm_p99),
                    fmt_ms(flood_p99),
                    f"{flood_p99 / calm_p99:.2f}x",
                ]
            )
    return table(
        f"Pass Pass, a peer and two host bots, calm and flooded ({slices} slice(s) each,"
        " interleaved; target within 2x, not asserted)",
        ["broker", "flood", "game", "flooded", "ratio", "move p99", "flooded", "ratio"],
        rows,
    )


def run(*, quick: bool, attacks: tuple[str, ...] = ATTACKS) -> str:
    return asyncio.run(_measure(quick, attacks))


if __name__ == "__main__":
    # python -m bench.floods [--quick] [ATTACK ...]: the named floods only.
    named = tuple(word for word in sys.argv[1:] if word in ATTACKS)
    print(run(quick="--quick" in sys.argv, attacks=named or ATTACKS))
