"""Recent settings (game, players, teams, options, bots, bot speed, name,
theme), remembered as a
JSON file in the user's config directory. An unreadable or corrupt file is
ignored with a notice: it never stops the game from starting."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from platformdirs import user_config_path

from net.text import NAME_CELLS
from net.text import clean_name as _clean_name
from themes import DEFAULT_THEME

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
MAX_BOT_DELAY = 60.0
MAX_SEATS = 8
# The name field takes as many characters as a name may have cells (net/text.py).
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
        """Build from parsed JSON; raise ``ValueError`` naming the bad field."""
        if not isinstance(data, dict):
            raise ValueError("the file does not hold a settings object")
        settings = cls()
        game = data.get("game", settings.game)
        if not isinstance(game, str):
            raise ValueError("game must be text")
        settings.game = game
        players = data.get("players", {})
        if not isinstance(players, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
            for k, v in players.items()
        ):
            raise ValueError("players must map game ids to numbers")
        settings.players = dict(players)
        teams = data.get("teams", {})
        if not isinstance(teams, dict) or not all(
            isinstance(k, str) and isinstance(v, bool) for k, v in teams.items()
        ):
            raise ValueError("teams must map game ids to true/false")
        settings.teams = dict(teams)
        options = data.get("options", {})
        if not isinstance(options, dict) or not all(
            isinstance(k, str) and isinstance(v, dict) and all(isinstance(n, str) for n in v)
            for k, v in options.items()
        ):
            raise ValueError("options must map game ids to {option: value}")
        # Values are checked against what the home screen offers when it opens.
        settings.options = {game_id: dict(values) for game_id, values in options.items()}
        delay = data.get("bot_delay", settings.bot_delay)
        if (
            isinstance(delay, bool)
            or not isinstance(delay, (int, float))
            or not 0 <= delay <= MAX_BOT_DELAY
        ):
            raise ValueError(f"bot_delay must be seconds from 0 to {MAX_BOT_DELAY:g}")
        settings.bot_delay = float(delay)
        bots = data.get("bots", settings.bots)
        if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
            raise ValueError("bots must be a list of bot names")
        bots = [OLD_LEVEL_NAMES.get(b, b) for b in bots]
        settings.bots = [b if b in BOT_LEVELS else BOT_LEVELS[0] for b in bots][: MAX_SEATS - 1]
        settings.bots += [BOT_LEVELS[0]] * (MAX_SEATS - 1 - len(settings.bots))
        name = data.get("name", settings.name)
        if not isinstance(name, str):
            raise ValueError("name must be text")
        settings.name = clean_name(name)
        theme = data.get("theme", settings.theme)
        if not isinstance(theme, str):
            raise ValueError("theme must be text")
        settings.theme = theme
        confirm_plays = data.get("confirm_plays", settings.confirm_plays)
        if not isinstance(confirm_plays, bool):
            raise ValueError("confirm_plays must be true or false")
        settings.confirm_plays = confirm_plays
        return settings


def clean_name(name: str) -> str:
    """The one name cleaner (net.text.clean_name); an empty name is "You"."""
    return _clean_name(name, default="You")


def load_settings(path: Path) -> tuple[Settings, str | None]:
    """The saved settings, or the defaults and a notice saying why not."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings(), None
    except (OSError, UnicodeDecodeError) as error:
        return Settings(), f"Could not read {path} ({error}); using default settings."
    try:
        return Settings.from_data(json.loads(text)), None
    except (ValueError, RecursionError) as error:
        return Settings(), f"Ignored corrupt settings file {path} ({error}); using defaults."


def save_settings(path: Path, settings: Settings) -> str | None:
    """Write the settings; return a notice if that failed (never raise)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(settings.to_data(), indent=2), encoding="utf-8")
        tmp.replace(path)
    except OSError as error:
        return f"Could not save settings to {path} ({error})."
    return None
