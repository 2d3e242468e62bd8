"""``python -m bench [family ...] [--quick]``: run benchmark families and
print their tables. With no family named, every one runs, in order.

The registry below maps a family name to its module; every module exposes
``run(*, quick: bool) -> str``. Network benchmarks slot in as one more line.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Sequence

from bench.common import machine

# name -> (module, one line for --help)
REGISTRY: dict[str, tuple[str, str]] = {
    "engines": ("bench.engines", "random playouts per second vs OpenSpiel and `dominoes`"),
    "bots": ("bench.bots", "heuristic bot decision time on views from real games"),
    "search": ("bench.search", "search bots: playouts per second, decision time per level"),
    "startup": ("bench.startup", "`passe` start-up and memory vs a bare Textual app"),
    "ui": ("bench.ui", "key press to updated table in a Pilot session"),
    "net": ("bench.net", "MQTT request/reply round trip via the embedded broker and Mosquitto"),
    "election": ("bench.election", "elected authority: SIGKILL to the next acknowledged request"),
    "failover": ("bench.failover", "a game's host SIGKILLed to its next acknowledged action"),
    "ssh": ("bench.ssh", "SSH connect to first screen and memory per session vs sshd"),
    "web": ("bench.web", "browser connect to first screen and memory per session vs SSH"),
    "dealer": ("bench.dealer", "rooms one dealer holds: move p99, dealer CPU and RSS per room"),
}


def main(argv: Sequence[str] | None = None) -> int:
    families = "\n".join(f"  {name:8} {text}" for name, (_, text) in REGISTRY.items())
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Passe benchmarks: tables of rates and ratios against peers.",
        epilog="families:\n" + families,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("family", nargs="*", help="families to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="fewer, shorter measurements")
    args = parser.parse_args(argv)
    unknown = [name for name in args.family if name not in REGISTRY]
    if unknown:
        parser.error(f"unknown family {', '.join(unknown)}; known: {', '.join(REGISTRY)}")
    print(f"# Passe benchmarks\n\nMachine: {machine()}\n", flush=True)
    for name in args.family or list(REGISTRY):
        module = importlib.import_module(REGISTRY[name][0])
        start = time.perf_counter()
        print(f"## {name}\n", flush=True)
        print(module.run(quick=args.quick), flush=True)
        print(f"({name}: {time.perf_counter() - start:.0f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
