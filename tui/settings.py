"""Recent settings (game, players, teams, options, bots, bot speed, name,
theme), remembered as a
JSON file in the user's config directory. An unreadable or corrupt file is
ignored with a notice: it never stops the game from starting."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import UnsetType
from platformdirs import user_config_path

from net.files import validation_message, write_atomic
from net.protocol.text import NAME_CELLS
from net.protocol.text import clean_name as _clean_name
from themes import DEFAULT_THEME
from tui.arguments import MAX_BOT_DELAY

SETTINGS_FILE = "settings.json"
# Every game's bot levels (core registers them all), strongest search last but
# one; "heuristic" in older settings files is today's "normal".
BOT_LEVELS: tuple[str, ...] = ("normal", "hard", "expert", "easy", "random")
OLD_LEVEL_NAMES = {"heuristic": "normal"}
# Seconds between bot moves (``passe play --bot-delay`` overrides it for a run).
BOT_SPEEDS: tuple[tuple[str, float], ...] = (
    ("normal (0.8 s)", 0.8),
    ("slow (1.5 s)", 1.5),
    ("fast (0.3 s)", 0.3),
    ("instant", 0.0),
)
DEFAULT_BOT_DELAY = BOT_SPEEDS[0][1]
MAX_SEATS = 8
# The name field takes as many characters as a name may have cells (net/protocol/text.py).
NAME_LENGTH = NAME_CELLS


def default_path() -> Path:
    """``$PASSE_CONFIG_DIR/settings.json`` if set, else the platform's
    per-user config directory."""
    override = os.environ.get("PASSE_CONFIG_DIR")
    base = Path(override) if override else user_config_path("passe", appauthor=False)
    return base / SETTINGS_FILE


@dataclass
class Settings:
    game: str = "passpass"
    players: dict[str, int] = field(default_factory=dict)  # per game id
    teams: dict[str, bool] = field(default_factory=dict)  # per game id
    # Per game id: config options (tui/options.py) that differ from the default.
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    bot_delay: float = DEFAULT_BOT_DELAY
    bots: list[str] = field(default_factory=lambda: ["normal"] * (MAX_SEATS - 1))
    name: str = "You"
    theme: str = DEFAULT_THEME
    confirm_plays: bool = False  # ask before a card or tile is played (no undo)

    def bot_level(self, seat: int) -> str:
        """Bot level of ``seat`` (1-based index into the bot seats)."""
        index = seat - 1
        return self.bots[index] if 0 <= index < len(self.bots) else BOT_LEVELS[0]

    def to_data(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_data(cls, data: Any) -> Settings:
        """Build from parsed JSON; raise ``ValueError`` naming the bad field
        (e.g. "bot_delay: expected `float` <= 60.0"). A field that is absent
        keeps its default; unknown fields are ignored (a newer version's)."""
        try:
            given = msgspec.convert(data, SettingsFile)
        except msgspec.ValidationError as error:
            raise ValueError(validation_message(error)) from None
        settings = cls()
        for name in SettingsFile.__struct_fields__:
            value = getattr(given, name)
            if value is not msgspec.UNSET:
                setattr(settings, name, value)
        # Values are checked against what the home screen offers when it opens.
        settings.options = {game_id: dict(values) for game_id, values in settings.options.items()}
        settings.bot_delay = float(settings.bot_delay)
        bots = [OLD_LEVEL_NAMES.get(b, b) for b in settings.bots]
        settings.bots = [b if b in BOT_LEVELS else BOT_LEVELS[0] for b in bots][: MAX_SEATS - 1]
        settings.bots += [BOT_LEVELS[0]] * (MAX_SEATS - 1 - len(settings.bots))
        settings.name = clean_name(settings.name)
        return settings


class SettingsFile(msgspec.Struct):
    """What settings.json may hold, field by field (UNSET: absent, so the
    default stays). msgspec checks the types, bool apart from numbers."""

    game: str | UnsetType = msgspec.UNSET
    players: dict[str, int] | UnsetType = msgspec.UNSET  # per game id
    teams: dict[str, bool] | UnsetType = msgspec.UNSET
    options: dict[str, dict[str, Any]] | UnsetType = msgspec.UNSET  # {game: {option: value}}
    bot_delay: Annotated[float, msgspec.Meta(ge=0, le=MAX_BOT_DELAY)] | UnsetType = msgspec.UNSET
    bots: list[str] | UnsetType = msgspec.UNSET
    name: str | UnsetType = msgspec.UNSET
    theme: str | UnsetType = msgspec.UNSET
    confirm_plays: bool | UnsetType = msgspec.UNSET


def login_name() -> str:
    """The OS login, capitalised, as a suggestion for one's name ("" if
    none). A guest of ``passe serve`` has no login here: the server's own
    (``root``, ``passe``) is not theirs, and is not shown to them."""
    import getpass
    import os

    if os.environ.get("PASSE_SERVED"):  # tui.netplay.SERVED_ENV (not imported: start-up)
        return ""
    try:
        login = getpass.getuser()
    except Exception:  # no login name in this environment
        return ""
    return clean_name(login.capitalize()) if login else ""


def clean_name(name: str) -> str:
    """The one name cleaner (net.protocol.text.clean_name); an empty name is "You"."""
    return _clean_name(name, default="You")


def load_settings(path: Path) -> tuple[Settings, str | None]:
    """The saved settings, or the defaults and a notice saying why not."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Settings(), None
    except OSError as error:
        return Settings(), f"Could not read {path} ({error}); using default settings."
    try:
        return Settings.from_data(json.loads(data.decode("utf-8"))), None
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        # Kept for a look, as a damaged save is (README): the next save
        # would otherwise overwrite it without a trace.
        from tui.saves import set_aside

        aside = set_aside(path)
        kept = f"; it was kept as {aside.name}" if aside != path else ""
        return Settings(), f"Ignored corrupt settings file {path} ({error}){kept}; using defaults."


def save_settings(path: Path, settings: Settings) -> str | None:
    """Write the settings; return a notice if that failed (never raise)."""
    try:
        # A temporary of its own per write (two Passe processes may save at
        # once: a fixed settings.tmp raced), and durable.
        write_atomic(path, json.dumps(settings.to_data(), indent=2))
    except OSError as error:
        return f"Could not save settings to {path} ({error})."
    return None
