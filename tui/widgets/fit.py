"""Fitting names into narrow columns: shortened with "…", never cut silently
("Dmitri" in five cells reads "Dmit…", not "Dmitr"). Widths are terminal
cells (Rich's cell widths), not characters: a CJK character or an emoji takes
two, so "漢字漢字" fills eight cells (issue 23)."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

ELLIPSIS = "…"


def fit(text: str, width: int) -> str:
    """``text`` if it fits in ``width`` cells, else its start and "…"."""
    if cell_len(text) <= width:
        return text
    if width <= 0:
        return ""
    # set_cell_size pads with a space where a wide character would be cut.
    return set_cell_size(text, width - 1).rstrip(" ") + ELLIPSIS


def pad(text: str, width: int, align: str = "<") -> str:
    """``text`` fitted (:func:`fit`) and padded to exactly ``width`` cells,
    on the left (``"<"``), right (``">"``) or centred (``"^"``) as in
    ``format``, whose own padding counts characters, not cells."""
    shown = fit(text, width)
    room = max(0, width - cell_len(shown))
    if align == ">":
        return " " * room + shown
    if align == "^":
        return " " * (room // 2) + shown + " " * (room - room // 2)
    return shown + " " * room
