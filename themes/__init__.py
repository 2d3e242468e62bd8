"""Passe's Textual themes.

Every theme defines the card colours as theme variables: Pass Pass
(``$pp-violet``, ``$pp-violet-text``, ...) and Passe fashion (``$fa-red``,
``$fa-blue``, ``$fa-black``, ``$fa-white``: the colour word of a card), which
the card widgets use, so a theme change recolours the cards. Colour is never
the only signal: cards always carry their letter (V, B, G, Y) and value, and
fashion cards their colour in words.

* ``passe`` -- the default, dark.
* ``passe-okabe-ito`` -- colour-blind safe: the four card colours are Okabe-Ito
  hues (reddish purple, blue, bluish green, yellow), distinguishable with the
  common colour-vision deficiencies.
* ``passe-mono`` -- high-contrast monochrome: black, white and greys only.

In a 16-colour terminal (``TERM=xterm``) Rich maps every colour to the
nearest of the 16 ANSI colours (``rich.palette.Palette.match``): the themes'
violet and blue would both become bright blue, and green grey (Okabe-Ito's
blue and bluish green both cyan). :func:`themes_for` gives the card colours
the ANSI colours themselves there, one distinct hue per card colour.
"""

from __future__ import annotations

from dataclasses import replace

from textual.theme import Theme

# The card colour variables every Passe theme defines; also the defaults used
# when a built-in Textual theme is chosen from the command palette.
CARD_VARIABLES: dict[str, str] = {
    "pp-violet": "#8e5bd9",
    "pp-violet-text": "#ffffff",
    "pp-blue": "#3b7dd8",
    "pp-blue-text": "#ffffff",
    "pp-green": "#3fa34d",
    "pp-green-text": "#000000",
    "pp-yellow": "#e0b82e",
    "pp-yellow-text": "#000000",
    "pp-cursor": "#ffffff",
    "fa-red": "#e05252",
    "fa-blue": "#4f9fd8",
    "fa-black": "#9aa0a8",
    "fa-white": "#ffffff",
}

PASSE = Theme(
    name="passe",
    primary="#4f9fd8",
    secondary="#8e5bd9",
    accent="#e0b82e",
    warning="#e0b82e",
    error="#e05252",
    success="#3fa34d",
    foreground="#e6e6e6",
    background="#14181f",
    surface="#1c222b",
    panel="#26303b",
    dark=True,
    variables=dict(CARD_VARIABLES),
)

# Okabe & Ito (2008): orange E69F00, sky blue 56B4E9, bluish green 009E73,
# yellow F0E442, blue 0072B2, vermillion D55E00, reddish purple CC79A7.
OKABE_ITO = Theme(
    name="passe-okabe-ito",
    primary="#56b4e9",
    secondary="#cc79a7",
    accent="#e69f00",
    warning="#e69f00",
    error="#d55e00",
    success="#009e73",
    foreground="#f0f0f0",
    background="#101010",
    surface="#1a1a1a",
    panel="#2a2a2a",
    dark=True,
    variables={
        "pp-violet": "#cc79a7",
        "pp-violet-text": "#000000",
        "pp-blue": "#0072b2",
        "pp-blue-text": "#ffffff",
        "pp-green": "#009e73",
        "pp-green-text": "#000000",
        "pp-yellow": "#f0e442",
        "pp-yellow-text": "#000000",
        "pp-cursor": "#e69f00",
        "fa-red": "#d55e00",
        "fa-blue": "#56b4e9",
        "fa-black": "#a0a0a0",
        "fa-white": "#ffffff",
    },
)

MONO = Theme(
    name="passe-mono",
    primary="#ffffff",
    secondary="#c0c0c0",
    accent="#ffffff",
    warning="#ffffff",
    error="#ffffff",
    success="#ffffff",
    foreground="#ffffff",
    background="#000000",
    surface="#000000",
    panel="#303030",
    boost="#202020",
    dark=True,
    variables={
        "pp-violet": "#ffffff",
        "pp-violet-text": "#000000",
        "pp-blue": "#c0c0c0",
        "pp-blue-text": "#000000",
        "pp-green": "#ffffff",
        "pp-green-text": "#000000",
        "pp-yellow": "#c0c0c0",
        "pp-yellow-text": "#000000",
        "pp-cursor": "#ffffff",
        "fa-red": "#ffffff",
        "fa-blue": "#ffffff",
        "fa-black": "#a0a0a0",
        "fa-white": "#ffffff",
        "footer-key-foreground": "#ffffff",
        "block-cursor-background": "#ffffff",
        "block-cursor-foreground": "#000000",
    },
)

THEMES: tuple[Theme, ...] = (PASSE, OKABE_ITO, MONO)
DEFAULT_THEME = PASSE.name

# Rich's colour systems with 16 colours (the standard ANSI and the Windows
# console palettes).
SIXTEEN_COLOUR_SYSTEMS = frozenset({"standard", "windows"})
# Colours that both Rich palettes (standard ANSI and Windows console) map to
# magenta, blue, green and yellow: four hues whatever the terminal's palette
# (tests/tui/test_themes.py); the letter on each card remains the first signal.
ANSI_CARD_VARIABLES: dict[str, str] = {
    "pp-violet": "#dc3cdc",
    "pp-violet-text": "#000000",
    "pp-blue": "#5555ff",
    "pp-blue-text": "#ffffff",
    "pp-green": "#55ff55",
    "pp-green-text": "#000000",
    "pp-yellow": "#ffff55",
    "pp-yellow-text": "#000000",
    # Fashion colour words (text on the dark background): red, blue, grey
    # for black and bright white; the themes' black and white both became
    # ANSI white (37 and 97) before.
    "fa-red": "#ff5555",
    "fa-blue": "#5555ff",
    "fa-black": "#555555",
    "fa-white": "#ffffff",
}


def themes_for(color_system: str | None) -> tuple[Theme, ...]:
    """The themes to register for a terminal with Rich's ``color_system``:
    in 16 colours the card colours are ANSI ones (monochrome stays grey)."""
    if color_system not in SIXTEEN_COLOUR_SYSTEMS:
        return THEMES
    return tuple(
        theme
        if theme is MONO
        else replace(theme, variables={**theme.variables, **ANSI_CARD_VARIABLES})
        for theme in THEMES
    )


THEME_DESCRIPTIONS: dict[str, str] = {
    PASSE.name: "Passe default (dark)",
    OKABE_ITO.name: "Colour-blind safe (Okabe-Ito palette)",
    MONO.name: "High-contrast monochrome",
}

__all__ = ["CARD_VARIABLES", "DEFAULT_THEME", "THEMES", "THEME_DESCRIPTIONS", "themes_for"]
