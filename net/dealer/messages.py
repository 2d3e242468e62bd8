"""The dealers' protocol (issue 20, "Dealers"; docs/protocol.md section 14).

A dealer (``passe dealer``) is a non-playing authority that serves rooms on
request. Its messages travel in protocol v1's envelope (net/protocol/wire.py): signed
by the sender over the topic, and sealed to the one recipient except the
dealer's presence, which is public. Every field is bounded here, decoded in
one pass by msgspec: nothing unchecked reaches a dealer.

- ``passe/v1/dealers/p/PEER``, retained: :class:`DealerPresence`, public,
  from dealer PEER about itself (its will: ``online`` false);
- ``passe/v1/dealers/i/PEER``: the inbox of PEER, sealed to it: a
  :class:`Deal` from anyone, a :class:`Hold` or :class:`Release` from a
  dealer, to dealer PEER; a :class:`Dealt` from a dealer to whoever asked.
"""

from __future__ import annotations

from typing import Annotated, Final

import msgspec
from msgspec import Meta, Struct

from net.protocol.wire import TOPIC_ROOT, Code, Count, Name, ShortText

DEALERS_ROOT: Final = f"{TOPIC_ROOT}/dealers"
# A Deal's options are a game's few settings; a Hold's config is a room's
# election config (at most 24 voters, each with a sealed share).
MAX_OPTIONS: Final = 16
MAX_ADMITTED: Final = 64
MAX_CONFIG: Final = 16 * 1024
MAX_DEALER_PAYLOAD: Final = 24 * 1024

OptionName = Annotated[str, Meta(min_length=1, max_length=32)]
OptionValue = Annotated[str, Meta(max_length=64)]
GameId = Annotated[str, Meta(min_length=1, max_length=32)]
Level = Annotated[str, Meta(min_length=1, max_length=16)]
PeerId = Annotated[str, Meta(min_length=16, max_length=16, pattern="^[0-9a-f]{16}$")]
Seconds = Annotated[float, Meta(ge=0, le=86_400)]
Broker = Annotated[str, Meta(max_length=300)]


def presence_topic(peer: str) -> str:
    """Where dealer ``peer`` says it is online (retained; its will: gone)."""
    return f"{DEALERS_ROOT}/p/{peer}"


PRESENCES: Final = f"{DEALERS_ROOT}/p/+"


def inbox_topic(peer: str) -> str:
    """Where ``peer`` (a dealer, or someone waiting for a dealer's answer)
    receives the dealers' sealed messages."""
    return f"{DEALERS_ROOT}/i/{peer}"


class DealerPresence(Struct, tag_field="t", tag="dealer", forbid_unknown_fields=True):
    """A dealer's public word about itself: ``online`` with the epoch of its
    connection (milliseconds; a will of an older connection is a late one),
    its name, how many rooms it serves and how many more it takes."""

    online: bool
    epoch: Count
    name: Name
    rooms: Count = 0
    free: Count = 0
    broker: Broker = ""  # where its rooms are reached (host:port), as shown to people


class Deal(Struct, tag_field="t", tag="deal", forbid_unknown_fields=True, omit_defaults=True):
    """ "Deal a room for me": what ``passe host --headless`` would open. The
    dealer answers with :class:`Dealt`; the same ``nonce`` again gets the
    same answer (a request re-sent after a lost reply opens no second room).
    ``admit``: the peer ids that may sit (empty: anyone, as ``--admit any``).
    ``owner``: the player key of the person who decides who sits, from their
    seat, as a host does at their screen (wire.Knocks, wire.Admit); the
    owner sits without asking. The game starts once ``wait_for`` people
    sit; open seats get ``bots``. Fields at their defaults are left out:
    without an owner, a Deal is what an earlier Passe sends."""

    nonce: Count
    game: GameId
    players: Annotated[int, Meta(ge=1, le=16)]
    name: Name  # who asks, as the dealer's log and the room's host line say
    teams: bool = False
    options: Annotated[dict[OptionName, OptionValue], Meta(max_length=MAX_OPTIONS)] = {}
    wait_for: Annotated[int, Meta(ge=0, le=16)] = 0
    bots: Level = "normal"
    admit: Annotated[list[PeerId], Meta(max_length=MAX_ADMITTED)] = []
    stand_in_after: Seconds = 30.0
    failover: bool = True
    owner: Annotated[bytes, Meta(max_length=32)] = b""


class Dealt(Struct, tag_field="t", tag="dealt", forbid_unknown_fields=True):
    """A dealer's answer to :class:`Deal` ``nonce``: the room's ``code`` and
    how to join it, or ``refused`` (plain text, shown as text)."""

    nonce: Count
    code: str = ""
    join: ShortText = ""
    refused: ShortText = ""


class Hold(Struct, tag_field="t", tag="hold", forbid_unknown_fields=True):
    """From the dealer that made room ``code``'s election config (its
    ``sealer``) to another dealer the config names: vote in the room and
    stand for it (docs/election.md, section 1)."""

    code: Code
    election: Annotated[bytes, Meta(max_length=MAX_CONFIG)]
    broker: Broker
    room_key: Annotated[bytes, Meta(min_length=32, max_length=32)]  # signs the room now


class Release(Struct, tag_field="t", tag="release", forbid_unknown_fields=True):
    """Room ``code`` is over: its voters among the dealers let it go."""

    code: Code


presence_decoder: Final = msgspec.msgpack.Decoder(DealerPresence)
inbox_decoder: Final = msgspec.msgpack.Decoder(Deal | Hold | Release | Dealt)

__all__ = [
    "DEALERS_ROOT",
    "MAX_DEALER_PAYLOAD",
    "PRESENCES",
    "Deal",
    "DealerPresence",
    "Dealt",
    "Hold",
    "Release",
    "inbox_decoder",
    "inbox_topic",
    "presence_decoder",
    "presence_topic",
]
