"""Passe game notation: a whole game as plain text (docs/notation.md).

Like chess's PGN: tag lines first (``[Name value]``, each value one JSON
value), then one numbered move per line with the seat that made it and the
action in the engine's own notation (``Action.notation()``)::

    [Format "passe/1"]
    [Game "passpass"]
    [Seed "1234567"]
    [Config {"players": 4, "teams": false}]
    [Moves 2]

    1. 2: V6   ; the first card of the game
    2. 3: B3

Comments (``; to the end of the line`` and ``{ ... }``, which may span
lines) are for people: the reader skips them, so a file written again
loses them. Everything else round-trips exactly: ``write(parse(text)) ==
text`` for any text :func:`write` made, and ``parse(write(game)) == game``.

The file is hostile until read: :func:`parse` bounds its size, line length,
tag count and move count, and refuses anything malformed with a
:class:`GameFileError` that says what is wrong and on which line. It checks
the form only; whether the moves replay is :mod:`core.replay`'s to say.
Pure: no I/O (the caller reads the bytes, at most :data:`MAX_FILE_BYTES`).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.engine import GameRecord, RecordError, Result

FORMAT = "passe/1"
SUFFIX = ".passe"
# Bounds of a file (a real game's record is a few kilobytes: a long dominoes
# game has about 400 moves of a dozen bytes).
MAX_FILE_BYTES = 512 * 1024
MAX_LINE_CHARS = 2000
MAX_TAGS = 64
MAX_MOVES = 10_000
MAX_NAME_CHARS = 100
MAX_PLAYERS = 16
MAX_SEED = 2**64  # seeds are whole numbers in [0, 2**64)
MAX_DEPTH = 32  # lists and objects in a tag's value

_TAG = re.compile(r"\[([A-Za-z][A-Za-z0-9_]{0,31}) (.*)\]")
_MOVE = re.compile(r"(\d{1,6})\. +(\d{1,2}): +(\S.*)")
_DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
# Characters a terminal would act on or draw misleadingly (controls, bidi
# and zero-width format characters, surrogates, private use): refused in
# every text of a file, so nothing read from one can reach a terminal as
# anything but text.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co"})
# Tags this module reads into fields, in the order they are written.
KNOWN_TAGS = (
    "Format",
    "Game",
    "Date",
    "Seed",
    "Config",
    "Players",
    "Viewer",
    "Moves",
    "Winners",
    "Scores",
    "Ending",
    "DealCheck",
)
_REQUIRED = ("Format", "Game", "Seed", "Config", "Moves")
_OUTCOME = ("Winners", "Scores", "Ending")


class GameFileError(RecordError):
    """A file that is not a readable Passe game record. ``line`` is where
    (1-based; ``None`` for the file as a whole); the message says what and
    where in one line, e.g. "line 12: move 8 expected, not 9"."""

    def __init__(self, what: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {what}" if line is not None else what)
        self.what = what
        self.line = line


@dataclass(frozen=True)
class Outcome:
    """How the recorded game ended, as the file says it: the winning seats
    (0-based here, 1-based in the file), every seat's score and why."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    ending: str

    @classmethod
    def of(cls, result: Result) -> Outcome:
        return cls(tuple(result.winners), tuple(result.scores), result.reason)


@dataclass(frozen=True)
class GameFile:
    """A game record with what a person wants to know about it.

    ``record`` is the game itself (its seats 0-based, as the engines count);
    ``names`` the players by seat (empty: not given); ``date`` when it ended
    (ISO 8601 UTC, "" if not given); ``viewer`` the seat of whoever saved it
    (replays open on its view); ``outcome`` how it ended (``None`` for an
    unfinished game); ``deal_check`` the networked deal check's words;
    ``extra`` any other tags, in order, kept as read. ``lines`` says where
    each tag and move was read (not compared: a file's layout is not the game).
    """

    record: GameRecord
    names: tuple[str, ...] = ()
    date: str = ""
    viewer: int | None = None
    outcome: Outcome | None = None
    deal_check: str = ""
    extra: tuple[tuple[str, Any], ...] = ()
    lines: FileLines | None = field(default=None, compare=False, repr=False)

    def line_of_tag(self, name: str) -> int | None:
        return self.lines.tags.get(name) if self.lines is not None else None

    def line_of_move(self, index: int) -> int | None:
        """The line of move ``index`` (0-based), if the game was read from a file."""
        if self.lines is None or not 0 <= index < len(self.lines.moves):
            return None
        return self.lines.moves[index]

    @property
    def players(self) -> int:
        players = self.record.config.get("players")
        return players if isinstance(players, int) and not isinstance(players, bool) else 0

    def name(self, seat: int) -> str:
        """Seat ``seat``'s player's name, or "seat N" when none was given."""
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat + 1}"


@dataclass(frozen=True)
class FileLines:
    """Where a file's tags (by name) and moves (by index) were read."""

    tags: Mapping[str, int]
    moves: tuple[int, ...]


# --------------------------------------------------------------------------
# Writing


def write(game: GameFile) -> str:
    """The notation of ``game``: tags in a fixed order, a blank line, one
    move per line, a final line break. Raises :class:`GameFileError` for a
    game that has no notation (e.g. an action whose text holds a line break
    or a comment mark, or more than :data:`MAX_MOVES` moves)."""
    record = game.record
    players = game.players
    _check_writable(game, players)
    lines = [
        _tag("Format", FORMAT),
        _tag("Game", record.game),
    ]
    if game.date:
        lines.append(_tag("Date", game.date))
    lines.append(_tag("Seed", str(record.seed)))
    lines.append(_tag("Config", dict(record.config)))
    if game.names:
        lines.append(_tag("Players", list(game.names)))
    if game.viewer is not None:
        lines.append(_tag("Viewer", game.viewer + 1))
    lines.append(_tag("Moves", len(record.actions)))
    if game.outcome is not None:
        lines.append(_tag("Winners", [seat + 1 for seat in game.outcome.winners]))
        lines.append(_tag("Scores", list(game.outcome.scores)))
        lines.append(_tag("Ending", game.outcome.ending))
    if game.deal_check:
        lines.append(_tag("DealCheck", game.deal_check))
    lines.extend(_tag(name, value) for name, value in game.extra)
    lines.append("")
    lines.extend(
        f"{number}. {seat + 1}: {text}"
        for number, (seat, text) in enumerate(record.actions, start=1)
    )
    text = "\n".join(lines) + "\n"
    if len(text.encode("utf-8")) > MAX_FILE_BYTES:
        raise GameFileError(f"the record is larger than {MAX_FILE_BYTES // 1024} KiB")
    return text


def _check_writable(game: GameFile, players: int) -> None:
    """What :func:`parse` would refuse is never written."""
    record = game.record
    if not isinstance(record.seed, int) or not 0 <= record.seed < MAX_SEED:
        raise GameFileError(f"seed {record.seed!r} is not a whole number in [0, 2**64)")
    if not 1 <= players <= MAX_PLAYERS:
        raise GameFileError("the config must give the number of players")
    if len(record.actions) > MAX_MOVES:
        raise GameFileError(f"more than {MAX_MOVES} moves")
    for number, (seat, text) in enumerate(record.actions, start=1):
        if not 0 <= seat < players:
            raise GameFileError(f"move {number}: no seat {seat + 1} among {players}")
        _check_action_text(text, f"move {number}")
    if game.names and len(game.names) != players:
        raise GameFileError(f"{len(game.names)} names for {players} players")
    for name in game.names:
        _check_text(name, "a player's name", MAX_NAME_CHARS)
    if game.viewer is not None and not 0 <= game.viewer < players:
        raise GameFileError(f"no seat {game.viewer + 1} to view from")
    if game.date and not _DATE.fullmatch(game.date):
        raise GameFileError(f"date {game.date!r} is not YYYY-MM-DDTHH:MM:SSZ")
    if game.outcome is not None:
        _check_outcome(game.outcome, players, None)
    _check_text(game.deal_check, "the deal check", MAX_LINE_CHARS)
    for name, _ in game.extra:
        if name in KNOWN_TAGS or not _TAG.fullmatch(f"[{name} 0]"):
            raise GameFileError(f"{name!r} cannot be an extra tag")


def _tag(name: str, value: Any) -> str:
    _check_tree(value, f"tag {name}", None)
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    except (TypeError, ValueError) as error:
        raise GameFileError(f"tag {name}: {error}") from None
    line = f"[{name} {text}]"
    if "\n" in line or len(line) > MAX_LINE_CHARS:
        raise GameFileError(f"tag {name} is longer than {MAX_LINE_CHARS} characters")
    _check_text(line, f"tag {name}", MAX_LINE_CHARS)
    return line


# --------------------------------------------------------------------------
# Reading


def decode(data: bytes) -> str:
    """The file's text: UTF-8 (a leading byte-order mark is skipped), at
    most :data:`MAX_FILE_BYTES` bytes."""
    if len(data) > MAX_FILE_BYTES:
        raise GameFileError(f"larger than {MAX_FILE_BYTES // 1024} KiB: not a Passe game record")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise GameFileError("not UTF-8 text", line) from None


def parse(text: str, *, tags_only: bool = False) -> GameFile:
    """Read a game from its notation; :class:`GameFileError` names what is
    wrong and where. ``tags_only`` stops at the first move (for listing
    files quickly): the moves are then not read nor counted."""
    if len(text) > MAX_FILE_BYTES:
        raise GameFileError(f"larger than {MAX_FILE_BYTES // 1024} KiB: not a Passe game record")
    if text and not text.endswith("\n"):
        last = text.count("\n") + 1
        raise GameFileError("the file ends in the middle of a line: it may be cut short", last)
    reader = _Reader(tags_only=tags_only)
    for number, line in enumerate(text.split("\n")[:-1], start=1):
        reader.feed(number, line.removesuffix("\r"))
        if reader.done:
            break
    return reader.finish(text.count("\n"))


class _Reader:
    """Reads a file line by line: the tags, then the moves."""

    def __init__(self, *, tags_only: bool) -> None:
        self.tags_only = tags_only
        self.done = False
        self.tags: dict[str, Any] = {}
        self.tag_lines: dict[str, int] = {}
        self.extra: list[tuple[str, Any]] = []
        self.actions: list[tuple[int, str]] = []
        self.move_lines: list[int] = []
        self.comment_from: int | None = None  # the line where an open { began
        self.players = 0

    def feed(self, number: int, line: str) -> None:
        if len(line) > MAX_LINE_CHARS:
            raise GameFileError(f"longer than {MAX_LINE_CHARS} characters", number)
        # A tab is whitespace to the reader (an editor may indent with one).
        _check_text(line.replace("\t", " "), "this line", MAX_LINE_CHARS, number)
        if self.comment_from is None and line.lstrip().startswith("["):
            self._tag(number, line.strip())  # no comments on a tag's line: JSON has { and ;
            return
        text = self._without_comments(number, line).strip()
        if text:
            self._move(number, text)

    def _without_comments(self, number: int, line: str) -> str:
        """``line`` without its comments: ``;`` to the end of the line, and
        ``{ ... }``, which may go on over the next lines."""
        kept: list[str] = []
        at = 0
        while at < len(line):
            if self.comment_from is not None:
                end = line.find("}", at)
                if end < 0:
                    break
                self.comment_from = None
                at = end + 1
                continue
            marks = [i for i in (line.find(";", at), line.find("{", at)) if i >= 0]
            cut = min(marks, default=len(line))
            kept.append(line[at:cut])
            if cut < len(line) and line[cut] == "{":
                self.comment_from = number
            if cut == len(line) or line[cut] == ";":
                break
            at = cut + 1
        text = "".join(kept)
        if "}" in text:
            raise GameFileError("a } that closes no { comment", number)
        return text

    def _tag(self, number: int, line: str) -> None:
        if self.actions:
            raise GameFileError("a tag after the moves: tags come first", number)
        found = _TAG.fullmatch(line)
        if found is None:
            raise GameFileError('a tag must read [Name value], e.g. [Game "passpass"]', number)
        name, raw = found.groups()
        if name in self.tags or any(name == other for other, _ in self.extra):
            raise GameFileError(f"a second {name} tag", number)
        if len(self.tags) + len(self.extra) >= MAX_TAGS:
            raise GameFileError(f"more than {MAX_TAGS} tags", number)
        try:
            value = json.loads(raw, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            raise GameFileError(f"tag {name}: its value is not one JSON value", number) from None
        _check_tree(value, f"tag {name}", number)
        self.tag_lines[name] = number
        if name in KNOWN_TAGS:
            self.tags[name] = value
            self._check_tag(name, value, number)
        else:
            self.extra.append((name, value))

    def _check_tag(self, name: str, value: Any, number: int) -> None:
        if name == "Format":
            if value != FORMAT:
                raise GameFileError(
                    f"format {_quote(value)} is not {FORMAT!r}: "
                    "not a Passe game record, or one from a newer Passe",
                    number,
                )
        elif name in ("Game", "Ending", "DealCheck", "Date"):
            if not isinstance(value, str):
                raise GameFileError(f"tag {name}: expected text in quotes", number)
            if name == "Game" and not value:
                raise GameFileError("tag Game: empty", number)
            if name == "Date" and not _DATE.fullmatch(value):
                raise GameFileError(
                    f"tag Date: {_quote(value)} is not YYYY-MM-DDTHH:MM:SSZ", number
                )
        elif name == "Seed":
            if not isinstance(value, str) or not re.fullmatch(r"\d{1,20}", value):
                raise GameFileError('tag Seed: expected a whole number in quotes ("1234")', number)
            if int(value) >= MAX_SEED or str(int(value)) != value:
                raise GameFileError(f"tag Seed: {value} is not a seed (0 to 2**64-1)", number)
        elif name == "Config":
            self._check_config(value, number)
        elif name == "Players":
            if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
                raise GameFileError('tag Players: expected a list of names ["Ada", ...]', number)
            for item in value:
                if len(item) > MAX_NAME_CHARS:
                    raise GameFileError(
                        f"tag Players: a name longer than {MAX_NAME_CHARS} characters", number
                    )
        elif name in ("Moves", "Viewer"):
            if not _whole(value) or value < 0:
                raise GameFileError(f"tag {name}: expected a whole number", number)
        elif name in ("Winners", "Scores") and (
            not isinstance(value, list) or not all(_whole(item) for item in value)
        ):
            raise GameFileError(f"tag {name}: expected a list of whole numbers", number)

    def _check_config(self, value: Any, number: int) -> None:
        if not isinstance(value, dict):
            raise GameFileError('tag Config: expected an object {"players": 4, ...}', number)
        players: Any = value.get("players")
        if not _whole(players) or not 1 <= players <= MAX_PLAYERS:
            raise GameFileError(
                f"tag Config: players must be a whole number from 1 to {MAX_PLAYERS}", number
            )
        self.players = players

    def _move(self, number: int, line: str) -> None:
        if self.tags_only:
            self.done = True
            return
        if not self.tags and not self.extra:
            raise GameFileError(
                f'not a Passe game record: one begins with [Format "{FORMAT}"]', number
            )
        if "Config" not in self.tags:
            missing = ", ".join(name for name in _REQUIRED if name not in self.tags)
            raise GameFileError(f"a move before the tags {missing}", number)
        found = _MOVE.fullmatch(line)
        if found is None:
            raise GameFileError(
                f"{_quote(line)} is not a move: a move reads N. SEAT: ACTION, e.g. 12. 3: V6",
                number,
            )
        move, seat, action = int(found[1]), int(found[2]), found[3].strip()
        expected = len(self.actions) + 1
        if move != expected:
            raise GameFileError(f"move {expected} expected, not {move}", number)
        if expected > MAX_MOVES:
            raise GameFileError(f"more than {MAX_MOVES} moves", number)
        if not 1 <= seat <= self.players:
            raise GameFileError(
                f"move {move}: there is no seat {seat} among {self.players} players", number
            )
        self.actions.append((seat - 1, action))
        self.move_lines.append(number)

    def finish(self, last_line: int) -> GameFile:
        if self.comment_from is not None:
            raise GameFileError("a { comment is never closed }", self.comment_from)
        if not self.tags and not self.extra:
            raise GameFileError(
                f'not a Passe game record: no tags (it begins with [Format "{FORMAT}"])'
            )
        if "Format" not in self.tags:
            raise GameFileError(f'not a Passe game record: no [Format "{FORMAT}"] tag')
        missing = [name for name in _REQUIRED if name not in self.tags]
        if missing:
            raise GameFileError(f"the tag{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
        tags, lines = self.tags, self.tag_lines
        moves = tags["Moves"]
        if not self.tags_only and moves != len(self.actions):
            raise GameFileError(
                f"tag Moves says {moves} moves, the file has {len(self.actions)}"
                + (": it may be cut short" if moves > len(self.actions) else ""),
                lines["Moves"] if moves < len(self.actions) else last_line,
            )
        names = tuple(tags.get("Players", ()))
        if names and len(names) != self.players:
            raise GameFileError(
                f"tag Players: {len(names)} names for {self.players} players", lines["Players"]
            )
        viewer = tags.get("Viewer")
        if viewer is not None and not 1 <= viewer <= self.players:
            raise GameFileError(
                f"tag Viewer: no seat {viewer} among {self.players}", lines["Viewer"]
            )
        outcome = self._outcome()
        record = GameRecord(
            tags["Game"], dict(tags["Config"]), int(tags["Seed"]), tuple(self.actions)
        )
        return GameFile(
            record,
            names=names,
            date=tags.get("Date", ""),
            viewer=None if viewer is None else viewer - 1,
            outcome=outcome,
            deal_check=tags.get("DealCheck", ""),
            extra=tuple(self.extra),
            lines=FileLines(dict(lines), tuple(self.move_lines)),
        )

    def _outcome(self) -> Outcome | None:
        given = [name for name in _OUTCOME if name in self.tags]
        if not given:
            return None
        if len(given) < len(_OUTCOME):
            missing = next(name for name in _OUTCOME if name not in self.tags)
            raise GameFileError(
                f"tag {missing} is missing: Winners, Scores and Ending go together",
                self.tag_lines[given[0]],
            )
        outcome = Outcome(
            tuple(seat - 1 for seat in self.tags["Winners"]),
            tuple(self.tags["Scores"]),
            self.tags["Ending"],
        )
        _check_outcome(outcome, self.players, self.tag_lines)
        return outcome


def _check_outcome(outcome: Outcome, players: int, lines: Mapping[str, int] | None) -> None:
    def where(name: str) -> int | None:
        return lines.get(name) if lines is not None else None

    if not outcome.winners or any(not 0 <= seat < players for seat in outcome.winners):
        raise GameFileError(
            f"tag Winners: seats from 1 to {players}, at least one", where("Winners")
        )
    if len(set(outcome.winners)) != len(outcome.winners):
        raise GameFileError("tag Winners: a seat twice", where("Winners"))
    if len(outcome.scores) != players:
        raise GameFileError(
            f"tag Scores: {len(outcome.scores)} scores for {players} players", where("Scores")
        )
    _check_text(outcome.ending, "tag Ending", MAX_LINE_CHARS, where("Ending"))


def _check_action_text(text: str, where: str) -> None:
    if (
        not text
        or text != text.strip()
        or any(mark in text for mark in ";{}\n\r")
        or len(text) > MAX_LINE_CHARS // 2
    ):
        raise GameFileError(f"{where}: the action {text!r} has no notation in a file")
    _check_text(text, where, MAX_LINE_CHARS)


def _check_text(text: str, what: str, limit: int, line: int | None = None) -> None:
    if len(text) > limit:
        raise GameFileError(f"{what}: longer than {limit} characters", line)
    if not text.isprintable() and any(
        unicodedata.category(char) in _UNSAFE_CATEGORIES for char in text
    ):
        char = next(c for c in text if unicodedata.category(c) in _UNSAFE_CATEGORIES)
        raise GameFileError(f"{what} holds a control or format character (U+{ord(char):04X})", line)


def _check_tree(value: Any, what: str, line: int | None) -> None:
    """Every text inside a JSON value is safe to show (see :func:`_check_text`),
    and it nests at most :data:`MAX_DEPTH` deep (looked at without recursion:
    a line of 2000 brackets must not exhaust the stack)."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise GameFileError(f"{what}: nested more than {MAX_DEPTH} deep", line)
        if isinstance(item, str):
            _check_text(item, what, MAX_LINE_CHARS, line)
        elif isinstance(item, list):
            pending.extend((inner, depth + 1) for inner in item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                _check_text(key, what, MAX_LINE_CHARS, line)
                pending.append((inner, depth + 1))


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _quote(value: Any) -> str:
    """A value from the file, quoted for a message: short, and every
    character that is not printable escaped (``repr``)."""
    text = value if isinstance(value, str) else json.dumps(value)
    return repr(text[:40] + ("…" if len(text) > 40 else ""))


def names_or_seats(game: GameFile) -> tuple[str, ...]:
    """The players' names, or "Seat 1", "Seat 2"... where the file gives none."""
    if game.names:
        return game.names
    return tuple(f"Seat {seat + 1}" for seat in range(game.players))


__all__ = [
    "FORMAT",
    "MAX_FILE_BYTES",
    "MAX_LINE_CHARS",
    "MAX_MOVES",
    "MAX_TAGS",
    "SUFFIX",
    "FileLines",
    "GameFile",
    "GameFileError",
    "Outcome",
    "decode",
    "names_or_seats",
    "parse",
    "write",
]
