"""The host lets someone in by their key, as they read it aloud (issue 19,
found by hand): strangers' fresh keys can fill the knock queue, and the
person the host is waiting for is then refused "too many people are
knocking". Their join screen shows their key; the host types its start here
and the room lets that key in when it knocks (Authority.expect)."""

from __future__ import annotations

from net.authority.authority import EXPECT_DIGITS, key_prefix
from tui.screens.input_dialog import InputDialog


class ExpectKeyScreen(InputDialog):
    """Dismisses with the key's start as typed (checked), or ``None``."""

    TITLE = "Let someone in by their key"
    EXPLANATION = (
        "Ask them to read the key their join screen shows, and type\n"
        f"at least its first {EXPECT_DIGITS} characters (dashes do not matter).\n"
        "Their key is let in as soon as it knocks, however many\n"
        "others are waiting, and even if n turned it away before.\n"
    )
    PLACEHOLDER = "e.g. 8ef4-36c2"
    MAX_LENGTH = 24

    def accept(self, text: str) -> str:
        try:
            key_prefix(text)
        except ValueError as error:
            raise ValueError(f"{str(error).capitalize()}.") from None
        return text
