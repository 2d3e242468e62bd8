"""Your name at a networked table, asked once when none is known (issue 18
item 6): the home screen's default, "You", would read as each reader
themself on the others' screens, and the OS login is the server's account
for an SSH guest (or a stranger's short name). What is typed is kept."""

from __future__ import annotations

from tui.screens.input_dialog import InputDialog
from tui.settings import NAME_LENGTH, clean_name


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
        name = clean_name(text)
        if is_unnamed(name):
            raise ValueError('Type a name the others will know you by (not "You").')
        return name
