"""Argument types shared by the commands (``passe play``, ``host``, ``join``,
``serve``, ``simulate``): each refuses a bad value in one line, and argparse
exits with 2, before anything starts (a seed too large for the wire once
failed the link four times, then the host, with msgpack's words)."""

from __future__ import annotations

import argparse
import math

# Seeds travel in records, saves and msgpack messages as 64-bit integers.
MAX_SEED = 2**63 - 1
# The longest pause between bot moves (the settings file's bound too).
MAX_BOT_DELAY = 60.0


def number_of_seconds(text: str, least: float, most: float, range_words: str) -> float:
    """``text`` as seconds from ``least`` to ``most`` (NaN and infinities
    refused), or argparse's refusal in words."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and least <= value <= most):
        raise argparse.ArgumentTypeError(f"{text}{range_words}")
    return value


def whole_number(
    text: str, least: int, what: str, range_words: str, most: int | None = None
) -> int:
    """``text`` as an int from ``least`` (to ``most``), or argparse's
    refusal in words."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if value < least or (most is not None and value > most):
        raise argparse.ArgumentTypeError(f"{text}: {range_words}")
    return value


def seconds(text: str) -> float:
    """Seconds between bot moves: 0 to 60."""
    words = f" seconds: choose between 0 and {MAX_BOT_DELAY:g}"
    return number_of_seconds(text, 0.0, MAX_BOT_DELAY, words)


def timeout(text: str) -> float:
    """A timeout in seconds: 0 (never) or more."""
    return number_of_seconds(text, 0.0, 1e9, ": choose 0 (never) or more seconds")


def seed(text: str) -> int:
    """A game's (or a run's) seed: a whole number from 0 to 2^63 - 1."""
    words = f"a seed is a whole number from 0 to {MAX_SEED}"
    return whole_number(text, 0, "a whole number", words, MAX_SEED)


def count(text: str) -> int:
    """How many (guests, games...): 1 or more."""
    return whole_number(text, 1, "a whole number", "choose 1 or more")


def step(text: str) -> int:
    """A replay's moment: how many moves in, 0 (the deal) or more."""
    return whole_number(text, 0, "a whole number of moves", "0 (the deal) or more moves")
