"""The replicated move against the bare round trip on a LAN's links, not
loopback's (issue 20's ratio, as a player on a network sees it).

    python -m bench.net_lan [--slices 4] [--moves 100] [--delays 0,0.5,1]

Every client (the authority, each seat's process and its voter, the bare
pair) reaches the broker through a relay that holds each byte the same time
each way (bench/link_delay.py): a broker on a LAN machine of its own, as a
Mosquitto or a dealer's is, with every link alike. With ``0`` the relay is
there and adds its own cost only, the figure to compare loopback's with.
For each broker and delay: bare round trips and replicated moves (a hosted
room of three voters, seats in their own processes: bench/net.py's
``move_round_trips_in_processes``), in interleaved slices; the ratios are
the medians of the per-slice ratios.

A bare round trip crosses four links (A to the broker, on to B, B's reply
back, on to A); a move with the seat's early update crosses the same four
(the request there, the update back; the mover's Append goes beside the
update), so a link's latency adds the same to both, and the ratio falls
toward 1 as the links slow: what stays is the work each process does.
"""

from __future__ import annotations

import argparse
import asyncio

from bench.common import percentile, table
from bench.link_delay import delayed
from bench.net import against_bare, bare_round_trips, brokers, move_round_trips_in_processes

DELAYS_MS = (0.0, 0.5, 1.0)


async def _measure(slices: int, moves: int, delays: tuple[float, ...]) -> str:
    rows: list[list[str]] = []
    async with brokers() as running:
        for broker, (broker_host, broker_port) in running.items():
            for delay in delays:
                with delayed(broker_host, broker_port, delay) as (host, port):
                    bare: list[float] = []
                    moved: list[float] = []
                    p50s: list[float] = []
                    p99s: list[float] = []
                    for _ in range(slices):
                        bare_slice = await bare_round_trips(host, port, moves, qos=0)
                        move_slice = await move_round_trips_in_processes(host, port, moves, bots=1)
                        bare += bare_slice
                        moved += move_slice
                        p50s.append(percentile(move_slice, 0.5) / percentile(bare_slice, 0.5))
                        p99s.append(percentile(move_slice, 0.99) / percentile(bare_slice, 0.99))
                figures = against_bare(moved, bare, p50s, p99s)
                rows.append([broker, f"{delay:g}", f"{len(moved):,}", *figures])
    headers = [
        "broker",
        "link delay ms (each way)",
        "moves",
        "move p50 ms",
        "move p99 ms",
        "bare p50 ms",
        "bare p99 ms",
        "p50 ratio",
        "p99 ratio",
    ]
    return table(
        "replicated move (3 voters, seats in own processes) vs bare round trip, "
        "every link through a delaying relay, interleaved slices",
        headers,
        rows,
    )


def run(*, quick: bool) -> str:
    """As `make bench BENCH_ARGS=net` runs it (bench/net.py)."""
    return asyncio.run(_measure(2, 40, DELAYS_MS) if quick else _measure(4, 100, DELAYS_MS))


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench.net_lan")
    parser.add_argument("--slices", type=int, default=4)
    parser.add_argument("--moves", type=int, default=100)
    parser.add_argument("--delays", default=",".join(f"{d:g}" for d in DELAYS_MS))
    args = parser.parse_args()
    delays = tuple(float(each) for each in args.delays.split(","))
    print(asyncio.run(_measure(args.slices, args.moves, delays)))


if __name__ == "__main__":
    main()
