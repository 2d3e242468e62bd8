"""One voter of a room as a process of its own, for the election's
real-process tests (tests/net/test_election_processes.py): the core
(net/election/node.py) through its MQTT driver (net/election/driver.py)
over a real broker, nothing of a game yet.

    python -m tests.net.election_voter --code CODE --broker HOST:PORT \\
        --key KEYFILE --storage FILE

``KEYFILE`` holds the voter's 32-byte signing seed in hex; ``FILE`` is its
storage (made by the test with ``FileStorage.create``, then the voter's own).
It prints one JSON line per event: ``ready``, ``authority`` (term, key),
``applied`` (index, kind, sender, nonce, and the action's plaintext where
this process can read it: the authority only), ``holds_deck`` (on winning:
how many of the log's actions it can read) and ``stepped_down`` (term), and
runs until killed.

SIGUSR1 makes it claim the next term at once, as a candidate, with no
pre-vote and whatever it knows (``claimed``: the term): the forced race of
test_election_processes.py, two voters signalled together claiming the
same term. A test's lever only: a real voter stands by its own rules.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
from pathlib import Path

from nacl.signing import SigningKey

from net.election.driver import FileStorage, VoterDriver
from net.election.messages import Entry
from net.identity import Identity


def _say(event: str, **fields: object) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


async def _main(args: argparse.Namespace) -> None:
    host, _, port = args.broker.rpartition(":")
    identity = Identity(SigningKey(bytes.fromhex(Path(args.key).read_text().strip())))

    def applied(index: int, entry: Entry, plain: bytes | None) -> None:
        _say(
            "applied",
            index=index,
            kind=entry.kind,
            sender=entry.sender.hex(),
            nonce=entry.nonce,
            plain=None if plain is None else plain.decode(errors="replace"),
        )

    def authority(term: int, key: bytes) -> None:
        _say("authority", term=term, key=key.hex())
        if key == identity.public_key:
            # Won: the secret rebuilt from a majority's shares opens the
            # whole log, what came before this term included.
            actions = [entry for entry in driver.node.log if entry.kind == "action"]
            readable = [entry for entry in actions if driver.read(entry) is not None]
            _say("holds_deck", term=term, actions=len(actions), readable=len(readable))

    driver = VoterDriver(
        identity,
        args.code,
        FileStorage(Path(args.storage)),
        host,
        int(port),
        on_apply=applied,
        on_authority=authority,
        on_stepped_down=lambda term: _say("stepped_down", term=term),
    )
    await driver.start()

    def claim() -> None:
        effects = driver.node._start_election(driver.clock())
        _say("claimed", term=driver.node.term, role=driver.node.role)
        driver._carry_out(effects)

    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, claim)
    _say("ready", key=identity.public_key.hex())
    await asyncio.Event().wait()  # until killed


def main() -> None:
    parser = argparse.ArgumentParser(prog="election_voter")
    for name in ("--code", "--broker", "--key", "--storage"):
        parser.add_argument(name, required=True)
    # PASSE_LOG=info or debug, as for `passe host --headless`.
    level = os.environ.get("PASSE_LOG", "warning").upper()
    logging.basicConfig(level=getattr(logging, level, logging.WARNING), stream=sys.stderr)
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
