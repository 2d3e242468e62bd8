"""A seat's process for the election's real-process tests: it submits
requests one after another through :class:`tests.net.seat_client.SeatClient`
(to whoever is authority, re-sent with the same nonce until acknowledged)
and prints one JSON line per acknowledgement, until killed.

    python -m tests.net.election_seat --code CODE --broker HOST:PORT \\
        --key KEYFILE --voters HEX,HEX,... [--pace SECONDS]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path

from nacl.signing import SigningKey

from net.identity import Identity
from tests.net.seat_client import SeatClient


async def _main(args: argparse.Namespace) -> None:
    host, _, port = args.broker.rpartition(":")
    identity = Identity(SigningKey(bytes.fromhex(Path(args.key).read_text().strip())))
    voters = [bytes.fromhex(key) for key in args.voters.split(",")]
    client = SeatClient(identity, args.code, voters, host, int(port))
    await client.start()
    print(json.dumps({"event": "ready"}), flush=True)
    nonce = 0
    while True:
        nonce += 1
        answer = await client.submit(nonce, f"move {nonce}".encode(), timeout=120)
        assert answer.authority is not None
        line = {"nonce": nonce, "index": answer.index, "term": answer.term}
        print(json.dumps({"event": "acknowledged", **line, "authority": answer.authority.hex()}))
        sys.stdout.flush()
        await asyncio.sleep(args.pace)  # a person's pace, not a flood


def main() -> None:
    parser = argparse.ArgumentParser(prog="election_seat")
    for name in ("--code", "--broker", "--key", "--voters"):
        parser.add_argument(name, required=True)
    parser.add_argument("--pace", type=float, default=0.1)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
