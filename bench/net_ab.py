"""A/B of a change on a replicated move's path, in one run.

    python -m bench.net_ab [--flag early|others] [--slices 6] [--moves 100] [--link-delay MS]

(part of ``make bench BENCH_ARGS=net``, both flags).

Replicated moves with each seat in a process of its own
(``bench.net.move_round_trips_in_processes``), the authority in this
process with the flag off and on in alternate slices (each pair of slices
in both orders), on both brokers, in rooms of three voters (two people and
a bot: as a hosted room of three people, whose host's person does not
vote) and of four (three people and a host with no seat). Bare round
trips go between the pairs, and the ratios are the medians of the
per-slice ratios (bench/net.py). Only the authority reads the flags:

- ``early``: the seat's early update (docs/election.md section 12,
  ``net.authority.authority.EARLY_UPDATES``); the seats show an early
  update whenever one comes;
- ``others``: with the early update on, the other voters' Appends after the
  seat's update instead of before it, where the seat's voter and the
  authority are a majority (``net.election.driver.OTHERS_AFTER_UPDATE``:
  three voters; four are the control, the flag changes nothing there).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import statistics

from bench.common import fmt_ms, percentile, table
from bench.link_delay import delayed
from bench.net import bare_round_trips, brokers, move_round_trips_in_processes

ROOMS = {"3 voters (2 people, 1 bot)": 1, "4 voters (3 people)": 0}
# flag -> (module, attribute, the column's heading)
FLAGS = {
    "early": ("net.authority.authority", "EARLY_UPDATES", "early update"),
    "others": ("net.election.driver", "OTHERS_AFTER_UPDATE", "others' Appends after"),
}


async def _measure(
    slices: int, moves: int, link_delay_ms: float | None = None, flag: str = "early"
) -> str:
    module_name, attribute, heading = FLAGS[flag]
    module = importlib.import_module(module_name)
    rows: list[list[str]] = []
    async with brokers() as running, contextlib.AsyncExitStack() as relays:
        for broker, (broker_host, broker_port) in running.items():
            host, port = broker_host, broker_port
            if link_delay_ms is not None:
                # Every link through a relay holding each byte that long
                # each way (bench/net_lan.py): a LAN's hops, not loopback's.
                relay = delayed(broker_host, broker_port, link_delay_ms)
                host, port = relays.enter_context(relay)
            for room, bots in ROOMS.items():
                times: dict[bool, list[float]] = {False: [], True: []}
                ratios: dict[bool, list[float]] = {False: [], True: []}
                for number in range(slices):
                    bare = percentile(await bare_round_trips(host, port, 100, qos=0), 0.5)
                    for on in (False, True) if number % 2 == 0 else (True, False):
                        setattr(module, attribute, on)
                        got = await move_round_trips_in_processes(host, port, moves, bots=bots)
                        times[on] += got
                        ratios[on].append(percentile(got, 0.5) / bare)
                for on in (False, True):
                    rows.append(
                        [
                            broker,
                            room,
                            "on" if on else "off",
                            f"{len(times[on]):,}",
                            fmt_ms(percentile(times[on], 0.5)),
                            fmt_ms(percentile(times[on], 0.99)),
                            f"{statistics.median(ratios[on]):.2f}x",
                        ]
                    )
    setattr(module, attribute, True)
    headers = ["broker", "room", heading, "moves", "p50 ms", "p99 ms", "p50 / bare p50"]
    links = "" if link_delay_ms is None else f", links delayed {link_delay_ms:g} ms each way"
    return table(
        f"replicated move, seats in own processes{links}: {heading} off/on (interleaved)",
        headers,
        rows,
    )


def run(*, quick: bool) -> str:
    """The A/Bs as `make bench BENCH_ARGS=net` runs them (bench/net.py)."""
    slices, moves = (2, 40) if quick else (6, 100)
    return "\n\n".join(asyncio.run(_measure(slices, moves, flag=flag)) for flag in FLAGS)


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench.net_ab")
    parser.add_argument("--flag", choices=sorted(FLAGS), default="early")
    parser.add_argument("--slices", type=int, default=6)
    parser.add_argument("--moves", type=int, default=100)
    parser.add_argument(
        "--link-delay", type=float, default=None, help="ms each way on every link (a LAN's)"
    )
    args = parser.parse_args()
    print(asyncio.run(_measure(args.slices, args.moves, args.link_delay, args.flag)))


if __name__ == "__main__":
    main()
