"""What a process holds of a room's secrets, for tests that look for them
elsewhere (issue 20, "Secrecy": every player's process "inspected through a
test hook (what it holds in memory and on disk)").

With ``PASSE_TEST_HOOKS=1`` in its environment, a headless Passe process
(``passe host --headless``, ``passe join --bot``, ``passe dealer``) answers
SIGUSR2 with one JSON line on its stdout, ``{"event": "holds", ...}``: the
secrets its own live objects hold (found by walking the garbage
collector's objects, so nothing has to register): each authority's
commitment salt and seed, each voter's room secret (the authority's, or a
successor's rebuilt one) and its own opened share; and the salts it was
told in the open (``revealed``: each room's at its end, with the record,
for every seat to check the deal). A test then searches
the *other* processes' memory (``/proc/PID/mem``) and files for those
bytes: a player's process that held another's share, the salt or the room
secret could read the deck. Without the variable nothing is installed:
the line goes to the process's own stdout only, never to the network.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
from typing import Any

ENV = "PASSE_TEST_HOOKS"


def enabled() -> bool:
    return os.environ.get(ENV, "") == "1"


def install(loop: asyncio.AbstractEventLoop) -> None:
    """SIGUSR2 prints what this process holds, when the hooks are on."""
    if enabled():
        loop.add_signal_handler(signal.SIGUSR2, _report)


def _report() -> None:
    from net.peer.headless import emit

    emit("holds", pid=os.getpid(), **holdings())


def holdings() -> dict[str, Any]:
    """The salts, seeds, room secrets and own shares this process's live
    objects hold (hex; seeds as numbers)."""
    from net.authority.authority import Authority
    from net.election.node import Node
    from net.election.shares import own_share
    from net.peer.remote import RemoteTable

    salts: set[str] = set()
    seeds: set[int] = set()
    secrets: set[str] = set()
    shares: set[str] = set()
    revealed: set[str] = set()
    for thing in gc.get_objects():
        if isinstance(thing, Authority):
            salts.add(thing._salt.hex())
            seeds.add(thing.seed)
        elif isinstance(thing, Node):
            if thing.secret is not None:
                secrets.add(thing.secret.hex())
            mine = own_share(thing.identity, thing.config)
            if mine is not None:
                shares.add(mine[1].hex())
        elif isinstance(thing, RemoteTable) and thing.room is not None and thing.room.salt:
            revealed.add(thing.room.salt.hex())
    return {
        "salts": sorted(salts),
        "seeds": sorted(seeds),
        "secrets": sorted(secrets),
        "shares": sorted(shares),
        "revealed": sorted(revealed),
    }


__all__ = ["ENV", "enabled", "holdings", "install"]
