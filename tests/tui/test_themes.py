"""In a 16-colour terminal (TERM=xterm) the four Pass Pass card colours and
the four fashion colour words stay distinct, as Rich maps them down to the
ANSI colours."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.color import Color, ColorSystem
from rich.console import Console

from themes import ANSI_CARD_VARIABLES, MONO, THEMES, themes_for
from tui.app import PasseApp

# The ANSI colour indexes of each hue (normal and bright), in Rich's order.
HUES = {
    "pp-violet": {5, 13},
    "pp-blue": {4, 12},
    "pp-green": {2, 10},
    "pp-yellow": {3, 11},
    "fa-red": {1, 9},
    "fa-blue": {4, 12},
    "fa-black": {8},  # grey: black itself would not show on the background
    "fa-white": {15},
}
CARDS = tuple(HUES)


@pytest.mark.parametrize("system", [ColorSystem.STANDARD, ColorSystem.WINDOWS])
@pytest.mark.parametrize("theme", [t for t in themes_for("standard") if t.name != MONO.name])
def test_sixteen_colour_cards_keep_their_hue(theme: object, system: ColorSystem) -> None:
    variables = theme.variables  # type: ignore[attr-defined]
    for card in CARDS:
        number = Color.parse(variables[card]).downgrade(system).number
        assert number in HUES[card], (card, variables[card], number)


def test_the_truecolour_themes_were_the_problem_and_are_kept() -> None:
    # The reason for the 16-colour values: the true-colour ones collapse.
    def ansi(card: str) -> int | None:
        return Color.parse(THEMES[0].variables[card]).downgrade(ColorSystem.STANDARD).number

    assert ansi("pp-violet") == ansi("pp-blue")
    assert themes_for("truecolor") == THEMES and themes_for("256") == THEMES
    assert MONO in themes_for("standard")  # monochrome stays grey


def test_the_app_takes_the_sixteen_colour_cards_in_such_a_terminal(tmp_path: Path) -> None:
    app = PasseApp(config_path=tmp_path / "settings.json")
    passe = app.get_theme("passe")
    assert passe is not None
    assert passe.variables["pp-violet"] == THEMES[0].variables["pp-violet"]
    app.console = Console(color_system="standard", force_terminal=True, file=io.StringIO())
    app.match_terminal_colours()
    violet = app.get_theme("passe").variables["pp-violet"]  # type: ignore[union-attr]
    assert violet == ANSI_CARD_VARIABLES["pp-violet"]
