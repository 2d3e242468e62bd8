"""settings.json and saved-game.json are checked by msgspec (issue 23): a
wrong field is named where it is, and the file is never fatal (settings:
defaults and a notice; saved game: a notice, set aside as .corrupt)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.saves import load_save
from tui.settings import DEFAULT_BOT_DELAY, Settings, load_settings

RECORD = {"game": "passpass", "config": {"players": 3}, "seed": 1, "actions": []}
SEATS = [{"name": "You", "kind": "human"}, {"name": "B", "kind": "random"}]
SEATS += [{"name": "C", "kind": "random"}]


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ({"bot_delay": -1}, "bot_delay: expected `float` >= 0.0"),
        ({"bot_delay": 61}, "bot_delay: expected `float` <= 60.0"),
        ({"bot_delay": True}, "bot_delay: expected `float`, got `bool`"),
        ({"players": {"passpass": True}}, "players[...]: expected `int`, got `bool`"),
        ({"teams": {"fashion": 1}}, "teams[...]: expected `bool`, got `int`"),
        ({"options": {"passpass": [1]}}, "options[...]: expected `object`, got `array`"),
        ({"bots": "hard"}, "bots: expected `array`, got `str`"),
        ({"bots": ["hard", 3]}, "bots[1]: expected `str`, got `int`"),
        ({"name": 7}, "name: expected `str`, got `int`"),
        ({"confirm_plays": "yes"}, "confirm_plays: expected `bool`, got `str`"),
        ([1, 2], "expected `object`, got `array`"),
    ],
)
def test_a_wrong_setting_is_named_and_the_defaults_are_used(
    tmp_path: Path, content: object, named: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    settings, notice = load_settings(path)
    assert settings == Settings()
    assert notice == (
        f"Ignored corrupt settings file {path} ({named}); "
        "it was kept as settings.corrupt; using defaults."
    )


def test_good_settings_keep_their_meaning(tmp_path: Path) -> None:
    """What the old hand-written checks did stays: absent fields keep their
    defaults, unknown ones are ignored, old bot names are mapped, unknown
    bots become the default, whole seconds are seconds, names are cleaned."""
    path = tmp_path / "settings.json"
    content = {
        "bot_delay": 2,
        "bots": ["heuristic", "nobody"],
        "name": "  Ana   Lee ",
        "players": {"passpass": 4},
        "from_a_newer_version": {"x": 1},
    }
    path.write_text(json.dumps(content), encoding="utf-8")
    settings, notice = load_settings(path)
    assert notice is None
    assert settings.bot_delay == 2.0 and isinstance(settings.bot_delay, float)
    assert settings.bots[:3] == ["normal", "normal", "normal"] and len(settings.bots) == 7
    assert (settings.name, settings.players, settings.game) == (
        "Ana Lee",
        {"passpass": 4},
        "passpass",
    )
    assert Settings.from_data({}).bot_delay == DEFAULT_BOT_DELAY


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ({"seats": SEATS, "seat": 0}, "object missing required field `record`"),
        (
            {"record": RECORD, "seats": [{"name": "You", "kind": 1}], "seat": 0},
            "seats[0].kind: expected `str`, got `int`",
        ),
        ({"record": RECORD, "seats": SEATS, "seat": True}, "seat: expected `int`, got `bool`"),
        (
            {"record": RECORD, "seats": SEATS, "seat": 3},
            "a saved game's seat must be one of its seats",
        ),
        ({"record": [1], "seats": SEATS, "seat": 0}, "record: expected `object`, got `array`"),
    ],
)
def test_a_wrong_saved_game_is_named_and_set_aside(
    tmp_path: Path, content: object, named: str
) -> None:
    path = tmp_path / "saved-game.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    saved, notice = load_save(path)
    assert saved is None and notice is not None
    assert f"could not be read ({named})" in notice
    assert not path.exists() and (tmp_path / "saved-game.corrupt").exists()


def test_a_good_saved_game_loads(tmp_path: Path) -> None:
    path = tmp_path / "saved-game.json"
    path.write_text(json.dumps({"record": RECORD, "seats": SEATS, "seat": 0}), encoding="utf-8")
    saved, notice = load_save(path)
    assert notice is None and saved is not None
    assert (saved.seat, saved.seats[1].kind, saved.record.seed) == (0, "random", 1)
