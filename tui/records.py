"""The records of finished games (issue 21): one file per game in Passe
game notation (docs/notation.md), kept in ``<data dir>/records`` (the data
directory of net/paths.py: ``$PASSE_DATA_DIR`` overrides it), newest last
by name. Written atomically at the end of every game, local or networked;
at most :data:`MAX_RECORDS` are kept (the oldest go first). Read back for
the "Past games" list and ``passe replay``, as hostile files: bounded in
size, and refused in one line naming what and where."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from core.engine import ConfigError, GameRecord, Result
from core.notation import (
    MAX_FILE_BYTES,
    SUFFIX,
    GameFile,
    GameFileError,
    Outcome,
    decode,
    names_or_seats,
    parse,
    write,
)
from core.registry import game_info
from core.replay import Replay
from net.files import write_atomic
from net.paths import records_dir
from net.protocol.text import clean_name, clean_text

MAX_RECORDS = 300


def game_file(
    record: GameRecord,
    names: Sequence[str],
    *,
    viewer: int | None,
    result: Result | None,
    deal_check: str = "",
    ended: datetime | None = None,
) -> GameFile:
    """A finished game's record with what a person wants to know of it."""
    when = (ended or datetime.now(UTC)).astimezone(UTC)
    return GameFile(
        record,
        names=tuple(names),
        date=when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        viewer=viewer,
        outcome=None if result is None else Outcome.of(result),
        deal_check=deal_check,
    )


def save_record(directory: Path, game: GameFile) -> tuple[Path | None, str | None]:
    """Write ``game`` as a new file in ``directory`` (atomically), then let
    only the newest :data:`MAX_RECORDS` stay. Returns the file, or a notice
    saying why it could not be written (never raises)."""
    try:
        text = write(game)
    except GameFileError as error:
        return None, f"This game's record could not be kept: {error}"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    stamp = game.date.replace("-", "").replace(":", "").replace("T", "-").removesuffix("Z")
    path = directory / f"{stamp}-{game.record.game}-{digest}{SUFFIX}"
    try:
        write_atomic(path, text)
    except OSError as error:
        return None, f"Could not keep this game's record in {directory}: {error.strerror or error}"
    prune(directory)
    return path, None


def keep_game(
    record: GameRecord,
    names: Sequence[str],
    *,
    viewer: int | None,
    result: Result | None,
    deal_check: str = "",
    directory: Path | None = None,
) -> tuple[Path | None, str | None]:
    """Keep a finished game (issue 21): the one way every process does it,
    the app at the end of a local or networked game, a headless host and a
    `passe join --bot` at the end of theirs. ``directory``: the user's
    records directory by default. The file, or a notice (never raises)."""
    kept = game_file(record, names, viewer=viewer, result=result, deal_check=deal_check)
    try:
        where = directory if directory is not None else records_dir()
    except OSError as error:
        return None, f"This game's record could not be kept: {error}"
    return save_record(where, kept)


def record_paths(directory: Path) -> list[Path]:
    """The record files in ``directory``, newest first (their names begin
    with the date they ended)."""
    try:
        found = [path for path in directory.glob(f"*{SUFFIX}") if not path.name.startswith(".")]
    except OSError:
        return []
    return sorted(found, key=lambda path: path.name, reverse=True)


def prune(directory: Path, keep: int = MAX_RECORDS) -> None:
    """Remove all but the newest ``keep`` records."""
    for old in record_paths(directory)[keep:]:
        with contextlib.suppress(OSError):  # if not now, at the next game's end
            old.unlink()


def read_game_file(path: Path, *, tags_only: bool = False) -> GameFile:
    """The game in the file at ``path``; :class:`GameFileError` says in one
    line what is wrong (not a file, too large, damaged: what and where)."""
    try:
        if not path.is_file():
            raise GameFileError("no such file" if not path.exists() else "not a regular file")
        with path.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise GameFileError(f"cannot be read: {error.strerror or error}") from None
    return parse(decode(data), tags_only=tags_only)


def load_replay(path: Path) -> Replay:
    """The replay of the game in ``path``, checked move by move."""
    return Replay(read_game_file(path))


def shown_names(game: GameFile) -> tuple[str, ...]:
    """The players' names as screens show them: text from a file is
    cleaned like text from the network (net/protocol/text.py)."""
    return tuple(clean_name(name) for name in names_or_seats(game))


def winners_words(winners: Sequence[int], names: Sequence[str], viewer: int | None) -> str:
    """Who won, in words: the viewer is "you" among the winners too, and
    last ("Ada and you"): a play-test read "Ada won (you 29)", Ada being
    them."""
    seats = sorted((seat for seat in winners if seat < len(names)), key=lambda s: s == viewer)
    return " and ".join("you" if seat == viewer else names[seat] for seat in seats)


@dataclass(frozen=True)
class PastGame:
    """One entry of the "Past games" list: a record file and what it says
    of its game, or why it cannot be read (``problem``)."""

    path: Path
    game: GameFile | None
    problem: str = ""

    def describe(self) -> str:
        """One line: when, which game, who won."""
        if self.game is None:
            return clean_text(f"{self.path.name}: cannot be read ({self.problem})")
        game = self.game
        try:
            title = game_info(game.record.game).title
        except ConfigError:
            title = game.record.game
        when = game.date.replace("T", " ")[:16] if game.date else "date unknown"
        names = shown_names(game)
        line = f"{when} · {title}, {game.players} players"
        outcome = game.outcome
        if outcome is not None:
            viewer = game.viewer if game.viewer is not None else -1
            line += f": {winners_words(outcome.winners, names, viewer)} won"
            if 0 <= viewer < len(outcome.scores):
                line += f" (your score {outcome.scores[viewer]})"
        else:
            line += ", unfinished"
        return clean_text(line)


def past_games(directory: Path, limit: int = MAX_RECORDS) -> list[PastGame]:
    """The records in ``directory``, newest first, each read up to its
    moves (fast: the moves are checked when it is opened)."""
    games: list[PastGame] = []
    for path in record_paths(directory)[:limit]:
        try:
            games.append(PastGame(path, read_game_file(path, tags_only=True)))
        except GameFileError as error:
            games.append(PastGame(path, None, str(error)))
    return games


__all__ = [
    "MAX_RECORDS",
    "PastGame",
    "game_file",
    "keep_game",
    "load_replay",
    "past_games",
    "prune",
    "read_game_file",
    "record_paths",
    "records_dir",
    "save_record",
    "shown_names",
    "winners_words",
]
