"""Settings for the whole suite."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

# mDNS stays on loopback in tests, so that no test multicasts on the
# machine's real network (tests/net/netns.py lifts this inside the network
# namespaces a LAN test makes). Every process a test starts inherits it.
os.environ.setdefault("PASSE_MDNS_INTERFACES", "127.0.0.1")
# Keys made by tests never land in the user's data directory.
os.environ.setdefault("PASSE_DATA_DIR", tempfile.mkdtemp(prefix="passe-test-data-"))


def pytest_collection_modifyitems(config: object, items: list[Any]) -> None:
    """Under mutmut (``make mutation``, issue 23): the fastest tests first,
    by the durations mutmut recorded, so that a mutant dies at its cheapest
    failing test (mutmut runs with -x) instead of after a networked test
    waited out its deadline (measured: 0.1-0.3 mutants/s before, the tests
    coming in no particular order). Nothing changes outside mutmut."""
    if not os.environ.get("MUTANT_UNDER_TEST"):
        # The longest tests first (marked ``long``): under xdist each worker
        # starts on one at once and the short ones fill in around them,
        # instead of a 40 s whole game starting last and running alone.
        items.sort(key=lambda item: item.get_closest_marker("long") is None)
        return
    stats = Path("mutmut-stats.json")  # mutmut runs the tests from mutants/
    if not stats.exists():
        return
    try:
        durations: dict[str, float] = json.loads(stats.read_text())["duration_by_test"]
    except (OSError, ValueError, KeyError):
        return
    items.sort(key=lambda item: durations.get(item.nodeid.removeprefix("mutants/"), 60.0))
