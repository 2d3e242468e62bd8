"""The test helpers' own guarantees (tests/net/procs.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.net.procs import PasseProcess

# A child that logs more than a pipe holds before it says anything: the
# chaos tests' PASSE_LOG=debug recipe writes that much.
LOUD = (
    "import sys\n"
    "sys.stderr.write('x' * 1_000_000 + 'end of log\\n'); sys.stderr.flush()\n"
    'print(\'{"event": "ready"}\', flush=True)\n'
)


async def test_a_child_that_logs_a_lot_is_never_blocked(tmp_path: Path) -> None:
    """Its stderr is read as it comes, not only at its exit: unread, a full
    pipe (~64 KiB) blocks the child's next write, and its event never came."""
    # ``wrap`` runs this script instead of passe (passe's own arguments are
    # its ignored sys.argv).
    loud = PasseProcess("loud", tmp_path, wrap=(sys.executable, "-c", LOUD))
    try:
        await loud.start()
        await loud.expect("ready", timeout=30)
        assert await loud.finish() == 0
        assert loud.stderr.endswith(b"end of log\n") and len(loud.stderr) > 1_000_000
    finally:
        await loud.stop()
