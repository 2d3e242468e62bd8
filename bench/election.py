"""Failover time of the elected authority (issue 20): from the authority's
process SIGKILLed to the next request acknowledged by its successor.

Three voters (``tests/net/election_voter.py``, each a process of its own
with its synced file) on a Mosquitto of this benchmark's own; a seat in this
process submits requests back to back through
:class:`tests.net.seat_client.SeatClient`. Each round kills the authority the
seat last heard from, times until the next acknowledgement (the election
killed process's will, sent by the broker as its connection dies, makes the
others stand after a random delay of at most 0.3 s instead of an election
timeout of 1-2 s; the seat hears the will too and asks every voter), then
restarts the killed voter from its file and waits until all three follow
one authority again before the next kill. No game yet: this is the election's
own cost, which a move will pay once it rides on it.

Run alone: ``python -m bench election [--quick]``.
"""

from __future__ import annotations

import asyncio
import functools
import random
import tempfile
import time
from pathlib import Path

from nacl.signing import SigningKey

from bench.common import fmt_ms, percentile, table

KILLS = 50
QUICK_KILLS = 8


async def _failovers(kills: int) -> tuple[list[float], list[float]]:
    from net.identity import Identity
    from tests.net.brokers import start_mosquitto
    from tests.net.election_procs import CODE, VOTER, Lines, authority_of, make_voters
    from tests.net.seat_client import SeatClient

    failovers: list[float] = []
    steady: list[float] = []  # acknowledgement times with every voter up
    with start_mosquitto() as mosquitto, tempfile.TemporaryDirectory() as home:
        rng = random.Random(20)
        address = f"127.0.0.1:{mosquitto.port}"
        identities, voters, arguments = make_voters(Path(home), 3, rng, address)
        by_key = {identity.public_key: n for n, identity in enumerate(identities)}
        lines = Lines()
        seat = SeatClient(
            Identity(SigningKey(rng.randbytes(32))),
            CODE,
            [identity.public_key for identity in identities],
            "127.0.0.1",
            mosquitto.port,
        )
        await seat.start()
        nonce = 0

        async def acknowledged() -> float:
            nonlocal nonce
            nonce += 1
            start = time.perf_counter()
            await seat.submit(nonce, b"move", timeout=60)
            return time.perf_counter() - start

        try:
            for voter, args in zip(voters, arguments, strict=True):
                await voter.start(*args, module=VOTER)
                lines.follow(voter)
            await lines.until(functools.partial(authority_of, voters, 0), "an authority")
            for _ in range(20):
                steady.append(await acknowledged())
            term = 0
            for _ in range(kills):
                # Every voter up and following the same authority: a kill
                # while a restarted voter is still starting is two failures
                # at once, not one.
                steady_now = functools.partial(authority_of, voters, term)
                term, key = await lines.until(steady_now, "steady")
                assert seat.authority is not None and seat.authority.hex() == key
                fallen = by_key[seat.authority]
                await lines.forget(voters[fallen])
                killed = time.perf_counter()
                voters[fallen].kill()
                await acknowledged()
                failovers.append(time.perf_counter() - killed)
                await voters[fallen].finish()
                await voters[fallen].start(*arguments[fallen], module=VOTER)
                lines.follow(voters[fallen])
                for _ in range(5):
                    steady.append(await acknowledged())
        finally:
            await seat.close()
            for voter in voters:
                await lines.forget(voter)
                await voter.stop()
    return failovers, steady


def run(*, quick: bool) -> str:
    kills = QUICK_KILLS if quick else KILLS
    failovers, steady = asyncio.run(_failovers(kills))
    rows = [
        [
            "kill -> next acknowledged request",
            f"{len(failovers)}",
            fmt_ms(percentile(failovers, 0.5)),
            fmt_ms(percentile(failovers, 0.99)),
            fmt_ms(max(failovers)),
            "p99 < 5 s",
        ],
        [
            "request acknowledged, all voters up",
            f"{len(steady)}",
            fmt_ms(percentile(steady, 0.5)),
            fmt_ms(percentile(steady, 0.99)),
            fmt_ms(max(steady)),
            "",
        ],
    ]
    rows[0][5] += f" ({'met' if percentile(failovers, 0.99) < 5 else 'not met'})"
    headers = ["what", "count", "p50 ms", "p99 ms", "max ms", "target (issue 20)"]
    return table(
        "elected authority: failover (3 voters as processes, Mosquitto, SIGKILL)", headers, rows
    )


if __name__ == "__main__":
    print(run(quick=False))
