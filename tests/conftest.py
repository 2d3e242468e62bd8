"""Settings for the whole suite."""

from __future__ import annotations

import gc
import itertools
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

# mDNS stays on loopback in tests, so that no test multicasts on the
# machine's real network (tests/net/netns.py lifts this inside the network
# namespaces a LAN test makes). Every process a test starts inherits it.
os.environ.setdefault("PASSE_MDNS_INTERFACES", "127.0.0.1")
# Keys made by tests never land in the user's data directory.
os.environ.setdefault("PASSE_DATA_DIR", tempfile.mkdtemp(prefix="passe-test-data-"))


def share_parsed_css() -> None:
    """Each app a test starts parses the same CSS (every widget's
    DEFAULT_CSS and tui/app.tcss): 45 ms of CPU of the 180 an app cost to
    start and stop at 80x24 (interleaved runs, 6 December), over the
    suite's hundreds of apps. Textual keeps its parses per app
    (``Stylesheet._parse_cache``, keyed by the text and where it is from,
    cleared when the theme's variables change) and reuses the rule sets
    across that app's reparses; here one process reuses them across apps,
    keyed by the variables too. The first app of each theme parses all of
    it, so a CSS error still fails its tests."""
    from textual.css.stylesheet import Stylesheet

    parse_rules = Stylesheet._parse_rules
    shared: dict[tuple[object, ...], Any] = {}

    def parse_rules_once(
        self: Stylesheet,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> Any:
        variables = tuple(sorted(self._variables.items()))
        key = (css, read_from, is_default_rules, tie_breaker, scope, variables)
        rules = shared.get(key)
        if rules is None:
            rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            shared[key] = rules
        return rules

    Stylesheet._parse_rules = parse_rules_once  # type: ignore[method-assign]


share_parsed_css()


def long_first(items: list[Any], workers: int) -> list[Any]:
    """``items`` with the ``long`` ones first in each worker's share.
    pytest-xdist's worksteal gives worker k the k-th contiguous block of the
    collection (each ``left // workers_left`` items) and idle workers steal
    from the end of a queue: all the long tests first in the collection
    were worker 0's block, run one after the other, and 30 s whole games
    started in the suite's last minute (a per-test timeline, 6 December).
    Each block now starts with its share of them, dealt in turn."""
    longs = [item for item in items if item.get_closest_marker("long") is not None]
    shorts = iter(item for item in items if item.get_closest_marker("long") is None)
    workers = max(1, workers)
    dealt = [longs[worker::workers] for worker in range(workers)]
    ordered: list[Any] = []
    left = len(items)
    for worker in range(workers):
        size = left // (workers - worker)
        left -= size
        ordered += dealt[worker] + list(itertools.islice(shorts, max(0, size - len(dealt[worker]))))
    return ordered + list(shorts)  # none left unless a block holds only long tests


def skip_soak(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Soak tests run only when asked for with ``-m soak`` (``make soak``).
    Here, for every item: in tests/ssh/conftest.py this ran only when that
    folder was collected, and ``pytest tests/tui/test_monkey.py`` ran its
    186 soak seeds (ten minutes)."""
    if "soak" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="soak test: run with `make soak`")
    for item in items:
        if item.get_closest_marker("soak"):
            item.add_marker(skip)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """The cyclic garbage collector cost a quarter of each worker's CPU
    (7 December, whole runs, CPU time between the collector's callbacks:
    63 of the six workers' 247 CPU-s, 22 to 50 full collections each, each
    walking 360,000 to 500,000 objects). And at the end, pytest's own
    collections took longer than execnet's 5 s wait for a worker, which
    then interrupted itself (SIGINT: the KeyboardInterrupt warnings after
    the last test of some CI runs).

    What collection imported (the games, net/, tui/, Textual, Rich, the
    tests) lives as long as the worker: frozen out of the collector's reach.
    Garbage is collected less often: a worker is short-lived and has memory
    to spare. Measured: the collector 20 CPU-s in all (from 63), the suite
    370 CPU-s (from 438 with the freeze alone, 483 with neither), 3:43 wall
    (from 4:13, 4:34). The processes tests start are untouched."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(2000, 20, 20)  # Python's default: 700, 10, 10


def pytest_collection_modifyitems(config: pytest.Config, items: list[Any]) -> None:
    """Soak tests skipped unless asked for (:func:`skip_soak`). Under
    mutmut (``make mutation``, issue 23): the fastest tests first, by the
    durations mutmut recorded, so that a mutant dies at its cheapest
    failing test (mutmut runs with -x) instead of after a networked test
    waited out its deadline (measured: 0.1-0.3 mutants/s before, the tests
    coming in no particular order). Otherwise the long tests first in
    each worker's share (:func:`long_first`)."""
    skip_soak(config, items)
    if not os.environ.get("MUTANT_UNDER_TEST"):
        # The longest tests first (marked ``long``): under xdist each worker
        # starts on one at once and the short ones fill in around them,
        # instead of a 40 s whole game starting last and running alone.
        items[:] = long_first(items, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
        return
    stats = Path("mutmut-stats.json")  # mutmut runs the tests from mutants/
    if not stats.exists():
        return
    try:
        durations: dict[str, float] = json.loads(stats.read_text())["duration_by_test"]
    except (OSError, ValueError, KeyError):
        return
    items.sort(key=lambda item: durations.get(item.nodeid.removeprefix("mutants/"), 60.0))
