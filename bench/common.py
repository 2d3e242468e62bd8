"""Shared pieces of the benchmarks: interleaved timing slices, robust
statistics and plain-text tables.

The machines we run on are shared and noisy, so a benchmark never times one
workload for a long stretch and then the next: :func:`interleave` runs every
workload for a short slice in turn, several rounds over, and each figure is the
median over its slices. Ratios between workloads are taken per round (both
measured within the same few hundred milliseconds), then the median.
"""

from __future__ import annotations

import gc
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

# One unit of work (typically one whole game). Returns counters that the
# slice sums, e.g. {"games": 1, "actions": 64, "chance": 53}.
Work = Callable[[], Mapping[str, int]]


@dataclass
class Workload:
    """A named unit of work, repeated for a slice of time."""

    name: str
    work: Work
    group: str = ""  # "ours" or "peer", for the tables
    players: str = ""
    note: str = ""
    rates: list[dict[str, float]] = field(default_factory=list)  # one per slice

    def run_slice(self, seconds: float) -> dict[str, float]:
        """Repeat the work for at least ``seconds`` (whole units only);
        return the counters per second, appended to :attr:`rates`."""
        totals: dict[str, int] = {}
        gc.collect()
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            for key, value in self.work().items():
                totals[key] = totals.get(key, 0) + value
            now = time.perf_counter()
            if now >= deadline:
                break
        elapsed = now - start
        rates = {key: value / elapsed for key, value in totals.items()}
        self.rates.append(rates)
        return rates

    def median(self, key: str) -> float:
        values = [r.get(key, 0.0) for r in self.rates]
        return statistics.median(values) if values else math.nan

    def spread(self, key: str) -> float:
        """Half the range of the middle slices over the median: a rough
        +/- fraction (the min and max slice are dropped when there are 5+)."""
        values = sorted(r.get(key, 0.0) for r in self.rates)
        if len(values) >= 5:
            values = values[1:-1]
        mid = statistics.median(values) if values else 0.0
        if not values or mid == 0:
            return math.nan
        return (values[-1] - values[0]) / 2 / mid


def interleave(
    workloads: Sequence[Workload],
    *,
    rounds: int,
    seconds: float,
    progress: bool = True,
) -> None:
    """Warm every workload up (one unit), then run ``rounds`` rounds in
    which each workload gets one slice of ``seconds``, in turn."""
    for workload in workloads:
        workload.work()
    for index in range(rounds):
        if progress:
            print(f"  round {index + 1}/{rounds}", end="\r", file=sys.stderr, flush=True)
        for workload in workloads:
            workload.run_slice(seconds)
    if progress:
        print(" " * 30, end="\r", file=sys.stderr, flush=True)


def paired_ratio(a: Workload, a_key: str, b: Workload, b_key: str) -> float:
    """Median over rounds of a's rate / b's rate (slices of the same round)."""
    ratios = [
        ra.get(a_key, 0.0) / rb[b_key]
        for ra, rb in zip(a.rates, b.rates, strict=True)
        if rb.get(b_key)
    ]
    return statistics.median(ratios) if ratios else math.nan


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile by the nearest-rank method (p99: 0.99)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def fmt_rate(value: float) -> str:
    """A rate with three significant figures and a thousands separator."""
    if math.isnan(value):
        return "-"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def fmt_ms(seconds: float) -> str:
    if math.isnan(seconds):
        return "-"
    ms = seconds * 1000
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:.0f}"


def fmt_pct(fraction: float) -> str:
    return "-" if math.isnan(fraction) else f"±{fraction * 100:.0f}%"


def verdict(value: float, target: float, *, at_least: bool = True) -> str:
    """'met' or 'MISSED by N%' against a target (at least / at most)."""
    if math.isnan(value):
        return "n/a"
    if at_least:
        return "met" if value >= target else f"MISSED by {(1 - value / target) * 100:.0f}%"
    return "met" if value <= target else f"MISSED by {(value / target - 1) * 100:.0f}%"


def table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown-compatible table (numbers right-aligned), with a title."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def numeric(cell: str) -> bool:
        stripped = cell.replace(",", "").replace(".", "").replace("x", "").lstrip("±-")
        return stripped.rstrip("%").isdigit()

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.rjust(widths[i]) if numeric(cell) else cell.ljust(widths[i])
            for i, cell in enumerate(cells)
        ]
        return "| " + " | ".join(parts) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    out = [f"### {title}", "", line(headers), rule]
    out.extend(line(row) for row in rows)
    return "\n".join(out) + "\n"


def machine() -> str:
    """One line about the machine: cores, CPU model, Python."""
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for entry in info:
                if entry.startswith("model name"):
                    cpu = entry.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (
        f"nproc {os.cpu_count()}, {cpu}, Python {platform.python_version()} "
        f"({platform.python_implementation()}), {platform.system()} {platform.release()}"
    )
