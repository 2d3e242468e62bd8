"""The saved game: written after every change of a local game, so that
nothing is lost when the terminal or the SSH connection dies; removed when
the game ends. It lives beside the settings file."""

from __future__ import annotations

import json
import os
from pathlib import Path

from core.engine import ConfigError, RecordError
from core.registry import get_game
from net.authority.table import SavedTable
from net.files import write_atomic

SAVE_FILE = "saved-game.json"


def save_path(settings_path: Path) -> Path:
    return settings_path.with_name(SAVE_FILE)


def describe_saved(saved: SavedTable) -> str:
    """One line naming a saved game, as home and the discard question say it."""
    try:
        title = get_game(saved.record.game).info.title
    except ConfigError:
        title = saved.record.game
    return f"{title}, {len(saved.seats)} players, {len(saved.record.actions)} moves played"


def write_save(path: Path, saved: SavedTable) -> str | None:
    """Write atomically (a crash mid-write leaves the old save whole).
    Returns a notice when the file cannot be written."""
    try:
        write_atomic(path, json.dumps(saved.to_data()))
    except OSError as error:
        return f"Could not save the game to {path}: {error.strerror or error}"
    return None


def load_save(path: Path) -> tuple[SavedTable | None, str | None]:
    """The saved game, or ``None`` with a notice saying why not. A corrupt
    file is moved aside (``.corrupt``), never silently deleted."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except OSError as error:
        return None, f"Could not read the saved game {path}: {error.strerror or error}"
    try:
        return SavedTable.from_data(json.loads(text)), None
    except (ValueError, RecordError, RecursionError) as error:  # "[[[[…" too deep
        aside = set_aside(path)
        return None, f"The saved game could not be read ({error}); it was kept as {aside.name}."


def set_aside(path: Path) -> Path:
    """Move a save that cannot be used out of the way, keeping it for a look
    (``.corrupt``), so that it is not offered again. Returns where it is."""
    aside = path.with_suffix(".corrupt")
    try:
        os.replace(path, aside)
    except OSError:
        return path
    return aside


def clear_save(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError:
        pass  # a save we cannot remove is replaced by the next one
