"""Where Passe keeps data that is not a setting: keys (the SSH server's host
key, a peer's networking key) and per-player directories of the SSH server.

``$PASSE_DATA_DIR`` overrides the platform's per-user data directory (tests
and servers with several instances use it), as ``$PASSE_CONFIG_DIR`` does
for settings (:func:`tui.settings.default_path`).
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_path

DATA_DIR_VARIABLE = "PASSE_DATA_DIR"


def data_dir() -> Path:
    """``$PASSE_DATA_DIR`` if set, else the platform's per-user data
    directory (``~/.local/share/passe`` on Linux). Not created here."""
    override = os.environ.get(DATA_DIR_VARIABLE)
    return Path(override) if override else user_data_path("passe", appauthor=False)
