"""Text shown as text, never as markup (issue 19, item 1).

Names, notices and reasons come from the network (cleaned of escapes by
``net/protocol/text.py``) and may read ``[/]`` or ``[bold red]x``: a Rich table cell,
a Textual ``Static``, a border title or a notification given a plain ``str``
parses it as markup (a ``MarkupError`` crashed screens). Passe itself writes
no markup, so every such place gets a ``Text``/``Content`` instead, through
these helpers. (No escape function: Textual's markup has no way to write a
backslash before a tag, so "x\\" escaped and followed by "[/b]" would eat the
tag; and ``textual.markup.escape`` leaves ``[$accent]`` and ``[Bold]``, which
Textual reads as styles. Content is assembled instead: ``Content(name)``.)
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.content import Content


def cells(*values: RenderableType) -> list[RenderableType]:
    """A Rich table row with each ``str`` as literal text."""
    return [Text(value) if isinstance(value, str) else value for value in values]


def plain(text: str) -> Content:
    """``text`` for a Textual ``Static``, title or label, as written."""
    return Content(text)


def literal(value: RenderableType) -> RenderableType | Content:
    """For a ``Static``: a ``str`` as written, any other renderable as is."""
    return Content(value) if isinstance(value, str) else value


def sentence(text: str) -> str:
    """Words from elsewhere (a refusal's, an error's) as a sentence: a
    capital, a full stop (a play-test's toast read "seat 1 is taken.")."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?", ")")) else f"{text}."


__all__ = ["cells", "literal", "plain", "sentence"]
