"""Where Passe keeps data that is not a setting: keys (the SSH server's host
key, a peer's networking key), hosted rooms (to resume them after a crash),
the records of finished games (tui/records.py) and per-player directories
of the SSH server.

``$PASSE_DATA_DIR`` overrides the platform's per-user data directory (tests
and servers with several instances use it), as ``$PASSE_CONFIG_DIR`` does
for settings (:func:`tui.settings.default_path`).
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_path

DATA_DIR_VARIABLE = "PASSE_DATA_DIR"
ROOM_SUFFIX = ".room"  # a hosted room's file (net/authority/rooms.py), in rooms_dir()


def data_dir() -> Path:
    """``$PASSE_DATA_DIR`` if set, else the platform's per-user data
    directory (``~/.local/share/passe`` on Linux). Not created here."""
    override = os.environ.get(DATA_DIR_VARIABLE)
    return Path(override) if override else user_data_path("passe", appauthor=False)


def rooms_dir() -> Path:
    """Where hosted rooms are kept, to be resumed after a crash (net/authority/rooms.py)."""
    return data_dir() / "rooms"


def records_dir() -> Path:
    """Where the records of finished games are kept (tui/records.py)."""
    return data_dir() / "records"
