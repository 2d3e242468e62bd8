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


# A file of keys (`--admit keys FILE`, `passe dealer --trust FILE`): one
# line a key, a few hundred at most; anything larger is no such list.
MAX_KEY_FILE = 64 * 1024
KEY_WORDS = "16 hex digits, e.g. ab12-cd34-ef56-7890"


def read_key_list(path: str) -> frozenset[str]:
    """The peer ids listed in the file at ``path``: one peer id or
    fingerprint a line (dashes and spaces ignored, ``#`` starts a comment).
    ValueError, in words naming the line, for anything else."""
    from pathlib import Path

    from net.identity import is_peer_id

    try:
        with Path(path).open("rb") as file:
            data = file.read(MAX_KEY_FILE + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read it ({error})") from None
    if len(data) > MAX_KEY_FILE:
        raise ValueError(f"larger than a list of keys ({MAX_KEY_FILE // 1024} KiB at most)")
    keys: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        entry = line.split("#", 1)[0].strip().replace("-", "").replace(" ", "").lower()
        if not entry:
            continue
        if not is_peer_id(entry):
            raise ValueError(f"line {number}: not a key's peer id or fingerprint ({KEY_WORDS})")
        keys.add(entry)
    return frozenset(keys)


def key_list(path: str) -> frozenset[str]:
    """argparse's type for a file of keys: its peer ids, or a refusal."""
    try:
        return read_key_list(path)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{path}: {error}") from None
