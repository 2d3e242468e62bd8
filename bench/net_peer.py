"""One seat's process for the move benchmark with peers in their own
processes (bench/net.py, ``move_round_trips_in_processes``): a room's seat
on its own event loop, as on a player's machine, its voter (when the room
fails over) with it.

    python -m bench.net_peer --host H --port P --code CODE --seed S

It joins, plays with a random bot as soon as the view offers it a legal
action (its own turns, and every simultaneous phase), and times each of its
moves from the submission to its own update showing the move (the same
measure as bench/net.py's in-process moves). It prints ``joined``, then one
line ``move SECONDS`` per move, and ends at the game's end or when its
standard input closes.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time


async def _play(args: argparse.Namespace) -> None:
    from core.registry import get_game
    from net.identity import Identity
    from net.peer.remote import RemoteTable

    table = RemoteTable(Identity.generate(), args.code, args.host, args.port, f"P{args.seed}")
    changed = asyncio.Event()
    await table.join()
    await table.connect(lambda update: changed.set())
    print("joined", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_reader(sys.stdin.fileno(), lambda: stop.set() if not sys.stdin.read(1) else None)
    bot = get_game(table.game_id).make_bot("random", args.seed)
    try:
        await table.wait_started()
        while not stop.is_set():
            view = table.view
            if view is not None and view.is_over:
                break
            if view is None or not view.legal or table.action_pending:
                changed.clear()
                waiting = [
                    asyncio.ensure_future(changed.wait()),
                    asyncio.ensure_future(stop.wait()),
                ]
                await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                for task in waiting:
                    task.cancel()
                continue
            seq = table.seq
            action = bot.choose(view)
            start = time.perf_counter()
            await table.submit(action)
            while (table.action_pending or table.seq <= seq) and not stop.is_set():
                changed.clear()
                await changed.wait()
            print(f"move {time.perf_counter() - start:.9f}", flush=True)
    finally:
        loop.remove_reader(sys.stdin.fileno())
        await table.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench.net_peer")
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--code", required=True)
    parser.add_argument("--seed", type=int, default=0)
    asyncio.run(_play(parser.parse_args()))


if __name__ == "__main__":
    main()
