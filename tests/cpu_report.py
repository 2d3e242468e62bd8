"""``make test``'s last line: the suite's wall time, the CPU seconds it and
every process it started spent, and this machine's speed at that moment.

The issue's line is "under 5 minutes on 2 cores", and on this machine kind
the same code has taken 4:16 one day and 8:04 another (docs/benchmarks.md;
Makefile, beside ``TEST_WORKERS``): the machine's speed moves by a quarter
within minutes. The CPU seconds, read beside a fixed loop's time taken
before and after the suite, say whether the suite grew or the machine
slowed.

    python -m tests.cpu_report COMMAND [ARG ...]

runs COMMAND, prints the line, and exits with COMMAND's status.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time

LOOP_STEPS = 30_000_000


def loop_seconds() -> float:
    """A fixed pure-Python loop's time on one core: this machine's speed."""
    started = time.perf_counter()
    total = 0
    for step in range(LOOP_STEPS):
        total += step & 7
    return time.perf_counter() - started


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m tests.cpu_report COMMAND [ARG ...]", file=sys.stderr)
        return 2
    before = loop_seconds()
    started = time.monotonic()
    try:
        status = subprocess.call(argv)
    except KeyboardInterrupt:
        return 130
    wall = time.monotonic() - started
    after = loop_seconds()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    minutes, seconds = divmod(round(wall), 60)
    print(
        f"suite: {minutes}:{seconds:02d} wall, {used.ru_utime:.0f} user + {used.ru_stime:.0f} "
        f"system CPU-s (every process it started); this machine's speed: a "
        f"{LOOP_STEPS // 1_000_000}-million-step loop took {before:.2f} s before, "
        f"{after:.2f} s after",
        flush=True,
    )
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
