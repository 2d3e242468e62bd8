"""Fitting names into narrow columns: shortened with "…", never cut silently
("Dmitri" in five cells reads "Dmit…", not "Dmitr")."""

from __future__ import annotations

ELLIPSIS = "…"


def fit(text: str, width: int) -> str:
    """``text`` if it fits in ``width`` cells, else its start and "…"."""
    if len(text) <= width:
        return text
    if width <= 0:
        return ""
    return text[: width - 1] + ELLIPSIS
