"""Your name at a networked table, asked once when none is known (issue 18
item 6): the home screen's default, "You", would read as each reader
themself on the others' screens, and the OS login is the server's account
for an SSH guest (or a stranger's short name). What is typed is kept."""

from __future__ import annotations

import re

from net.protocol.codes import CodeError, normalize_code
from tui.screens.input_dialog import InputDialog
from tui.settings import NAME_LENGTH, clean_name

# A code as the lobby shows it, "K3F-9QX": with a digit, so that a name
# such as "Max-Leo" is still a name.
_SHOWN_CODE = re.compile(r"[A-Za-z0-9]{3}-[A-Za-z0-9]{3}")


def looks_like_a_code(text: str) -> bool:
    """Whether ``text`` is a room code rather than a name: typed here by
    someone who went to join by code (found by hand: the name became
    "ZZZ-999@127.0.0.")."""
    text = text.strip()
    if "@" in text:
        # Its code alone: the field keeps a name's length, so a whole
        # CODE@HOST:PORT arrives cut short.
        try:
            normalize_code(text.split("@", 1)[0])
        except CodeError:
            return False
        return True
    return bool(_SHOWN_CODE.fullmatch(text)) and any(char.isdigit() for char in text)


def is_unnamed(name: str) -> bool:
    """Whether ``name`` is no name for the others: empty or "You"."""
    return name.strip().casefold() in ("", "you")


class AskNameScreen(InputDialog):
    """Dismisses with the name typed (cleaned), or ``None`` (Escape)."""

    TITLE = "Your name at the table?"
    EXPLANATION = (
        "The others see this name beside your seat. It is kept for\n"
        "next time (the home screen's name field changes it).\n"
    )
    PLACEHOLDER = "your name"
    MAX_LENGTH = NAME_LENGTH

    def accept(self, text: str) -> str:
        if looks_like_a_code(text):
            raise ValueError("That is a room code: type your name here; the code comes next.")
        name = clean_name(text)
        if is_unnamed(name):
            raise ValueError('Type a name the others will know you by (not "You").')
        return name
