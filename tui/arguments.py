"""Argument types shared by the commands (``passe play``, ``host``, ``join``,
``serve``, ``simulate``): each refuses a bad value in one line, and argparse
exits with 2, before anything starts (a seed too large for the wire once
failed the link four times, then the host, with msgpack's words)."""

from __future__ import annotations

import argparse
import math

from tui.settings import MAX_BOT_DELAY

# Seeds travel in records, saves and msgpack messages as 64-bit integers.
MAX_SEED = 2**63 - 1


def seconds(text: str) -> float:
    """Seconds between bot moves: 0 to 60 (NaN and infinities refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and 0 <= value <= MAX_BOT_DELAY):
        raise argparse.ArgumentTypeError(f"{text} seconds: choose between 0 and {MAX_BOT_DELAY:g}")
    return value


def seed(text: str) -> int:
    """A game's (or a run's) seed: a whole number from 0 to 2^63 - 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"{text}: a seed is a whole number from 0 to {MAX_SEED}")
    return value
