"""Who an SSH guest is: the user name they gave, the key they logged in
with, where they connect from (shared by the server and its sessions)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

GUEST_NAME = "Guest"
# Longest name passed on; the app shortens it to its own name length
# (tui.settings.clean_name). Not imported from there: the server stays free of
# Textual, which tui.settings pulls in through the themes.
NAME_CHARACTERS = 32


def player_name(user: str) -> str:
    """The SSH user name as a player name: letters, digits, ``.``, ``_``
    and ``-`` only (a user name is hostile input: no escapes, no markup, no
    path separators), at most :data:`NAME_CHARACTERS`."""
    kept = "".join(ch for ch in user if ch.isalnum() or ch in "._-")[:NAME_CHARACTERS]
    return kept or GUEST_NAME


def shown(text: str, limit: int = 40) -> str:
    """Client-chosen text for the log: quoted, escapes visible, short."""
    return repr(text[:limit])


@dataclass(frozen=True)
class Identity:
    user: str
    key: str | None  # fingerprint of the key the client logged in with
    peer: str

    @property
    def directory_name(self) -> str:
        """Stable name of the player's directory: by key when there is one
        (only its holder gets it), else by user name (anyone may claim it,
        as anyone may type it: see docs/ssh.md)."""
        if self.key:
            return "key-" + hashlib.sha256(self.key.encode()).hexdigest()[:24]
        digest = hashlib.sha256(self.user.encode("utf-8", "replace")).hexdigest()[:12]
        return f"user-{player_name(self.user)}-{digest}"

    def describe(self) -> str:
        return f"user {shown(self.user)} key {self.key or 'none'} from {self.peer}"


__all__ = ["GUEST_NAME", "NAME_CHARACTERS", "Identity", "player_name", "shown"]
