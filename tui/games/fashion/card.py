"""How a Passe fashion card is written: bottom symbol, code, number and its
three features in words, e.g. ``★ RDS 5  red   dress    silk``.

The symbol comes first, apart from the number, as the slots panel writes it
(``★ STAR ...``): it names the slot the card changes as card A (FA-13), and
"5★" read like five stars. The features are always spelled out: they are
the card (the code's letters repeat them, and its W is white in first place
but wool in last). The colour word has the theme's colour for it, never the
only signal (FA-1). Slot symbols are the same four glyphs as the cards'
bottom symbols (FA-2): ★ STAR, ! MUST, ⊘ BANNED, $ MONEY.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text

from core.fashion.model import (
    ATTRIBUTES,
    BANNED,
    CARD_ATTRS,
    CODE,
    MONEY,
    MUST,
    NUMBER,
    STAR,
    SYMBOL,
    VALUE_NAMES,
    Card,
    Feature,
    has_feature,
    parse_card,
)
from core.fashion.state import SlotInfo

SYMBOLS = ("★", "!", "⊘", "$")
SLOT_WORDS = ("STAR", "MUST", "BANNED", "MONEY")
COLOUR_COMPONENTS: tuple[str, ...] = ("fcard--red", "fcard--blue", "fcard--black", "fcard--white")
WIDTHS = (5, 8, 7)  # longest colour, cut and material words
WORDS_WIDTH = sum(WIDTHS) + 2
# The width of a card written by card_text (without tags): "★ RDS 5  " + words.
CARD_TEXT_WIDTH = 9 + WORDS_WIDTH


def colour_css(widget: str) -> str:
    """The rules giving a widget's colour components their theme colours."""
    return f"""
    {widget} > .fcard--red {{ color: $fa-red; text-style: bold; }}
    {widget} > .fcard--blue {{ color: $fa-blue; text-style: bold; }}
    {widget} > .fcard--black {{ color: $fa-black; text-style: bold; }}
    {widget} > .fcard--white {{ color: $fa-white; text-style: bold; }}
    """


def card_id(code: str) -> Card:
    return parse_card(code)


def slot_features(slots: Sequence[SlotInfo]) -> list[Feature]:
    """The four slots of a view as (attribute, value) indexes (FA-2)."""
    out: list[Feature] = []
    for info in slots:
        attribute = ATTRIBUTES.index(info.attribute)
        out.append((attribute, VALUE_NAMES[attribute].index(info.value)))
    return out


def card_tags(card: Card, features: Sequence[Feature]) -> str:
    """What the rules in force make of this card: ``pt`` it would score
    (STAR, FA-12), ``must`` it has the MUST feature, ``passé`` it has the
    BANNED one (FA-11), ``cash`` it is a currency card in the auction (FA-7)."""
    tags = []
    if has_feature(card, features[STAR]):
        tags.append("pt")
    if has_feature(card, features[MUST]):
        tags.append("must")
    if has_feature(card, features[BANNED]):
        tags.append("passé")
    if has_feature(card, features[MONEY]):
        tags.append("cash")
    return " ".join(tags)


# Where a row is too narrow for the tags in full (a hand at 80 columns
# beside a card tagged four ways), each in short: the slot it answers to by
# that slot's own word or symbol (the slots panel above), so the code and
# the words stay whole (issue 18: "pt must passé cas", codes left out).
SHORT_TAGS = {"pt": "pt", "must": "must", "passé": "ban", "cash": "$"}


def short_tags(tags: str) -> str:
    """``card_tags`` in short: "pt must passé cash" reads "pt must ban $"."""
    return " ".join(SHORT_TAGS.get(tag, tag) for tag in tags.split())


def card_text(card: Card, colour_style: Style | str = "") -> Text:
    """``★ RDS 5  red   dress    silk``: the bottom symbol, the code and the
    number, then the three features in words, the colour word in
    ``colour_style``. All of it, always (issue 18: a narrow row once left
    the code out, which the keys and the log name cards by)."""
    c, k, m = CARD_ATTRS[card]
    text = Text(no_wrap=True, overflow="crop")
    text.append(f"{SYMBOLS[SYMBOL[card]]} ")
    text.append(f"{CODE[card]} ", style="bold")
    text.append(f"{NUMBER[card]}  ", style="bold")
    text.append(f"{VALUE_NAMES[0][c]:<{WIDTHS[0]}}", style=colour_style)
    text.append(f" {VALUE_NAMES[1][k]:<{WIDTHS[1]}} {VALUE_NAMES[2][m]:<{WIDTHS[2]}}")
    return text


def card_short(code: str) -> str:
    """``★ RDS 5``: the symbol, the code and the number, as a row starts."""
    card = card_id(code)
    return f"{SYMBOLS[SYMBOL[card]]} {code} {NUMBER[card]}"
