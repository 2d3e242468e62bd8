"""Asking a dealer for a room (``passe host --dealer``; net/dealer/service.py).

The asker listens on its own inbox and on the dealers' presences (retained:
every online dealer's arrives at once), picks the online dealer with the
most room to spare (or the one it was told to ask), sends it a sealed
:class:`~net.dealer.messages.Deal` and waits for the answer, sending the
same Deal again (same nonce: never a second room) while none comes.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import msgspec

from net.dealer.messages import (
    PRESENCES,
    Deal,
    DealerPresence,
    Dealt,
    inbox_decoder,
    inbox_topic,
    presence_decoder,
    presence_topic,
)
from net.files import write_atomic
from net.identity import Identity, is_peer_id, peer_id
from net.lan.transport import MqttLink
from net.protocol.codes import CodeError, normalize_code, parse_join_target
from net.protocol.text import clean_name, clean_text
from net.protocol.wire import WireError, open_body, open_envelope, seal

# Retained presences come at once after the subscription; more than one
# dealer's within this much of the first. None within FIRST: no dealer.
GATHER: Final = 0.3
FIRST: Final = 3.0
ASK_AGAIN: Final = 2.0


class DealerError(Exception):
    """No room from a dealer; the message says why, in words."""


class NoDealer(Exception):
    """No dealer's presence came."""


@dataclass(frozen=True)
class RoomDealt:
    code: str
    join: str  # CODE@HOST:PORT
    dealer: str  # the dealer's name
    dealer_id: str = ""  # the dealer's peer id (its key: what a person compares)
    known: bool = False  # a dealer this machine asked before


# The dealers this machine asked before, newest first: preferred while
# online, so that a presence claiming the most room to spare (anyone may
# publish one) does not take the next room (docs/protocol.md section 14).
KNOWN_FILE: Final = "dealers.json"
KNOWN_KEPT: Final = 16
MAX_KNOWN_FILE: Final = 4096


class KnownDealers:
    """The peer ids of the dealers asked before, kept in ``path``. A file
    that is damaged or too large reads as none (it only orders a choice)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> list[str]:
        try:
            with self.path.open("rb") as file:
                data = file.read(MAX_KNOWN_FILE + 1)
            listed = msgspec.json.decode(data, type=list[str])
        except (OSError, msgspec.MsgspecError):
            return []
        if len(data) > MAX_KNOWN_FILE:
            return []
        ids = [entry for entry in listed if is_peer_id(entry)]
        return list(dict.fromkeys(ids))[:KNOWN_KEPT]

    def remember(self, peer: str) -> None:
        """``peer`` first (an OSError is the caller's to say)."""
        kept = [peer, *(entry for entry in self.read() if entry != peer)][:KNOWN_KEPT]
        write_atomic(self.path, msgspec.json.encode(kept))


async def ask_dealer(
    identity: Identity,
    host: str,
    port: int,
    deal: Deal,
    *,
    dealer: str | None = None,
    known: Collection[str] = (),
    timeout: float = 15.0,
) -> RoomDealt:
    """A room dealt by a dealer on the broker at ``host:port`` (``dealer``:
    the peer id or fingerprint of the one to ask; else, of those online,
    one of ``known`` (peer ids: asked before) if any, the one with most
    room to spare among them). Raises DealerError."""
    wanted = None if dealer is None else dealer.replace("-", "").lower()
    dealers: dict[bytes, DealerPresence] = {}
    first_seen = asyncio.Event()
    answers: asyncio.Queue[tuple[bytes, Dealt]] = asyncio.Queue()
    inbox = inbox_topic(identity.peer_id)

    async def on_message(topic: str, payload: bytes) -> None:
        try:
            if topic == inbox:
                envelope = open_envelope(topic, payload, identity=identity)
                message = open_body(envelope, inbox_decoder, identity)
                if isinstance(message, Dealt):
                    answers.put_nowait((envelope.sender, message))
                return
            peer = topic.rsplit("/", 1)[-1]
            if not payload or topic != presence_topic(peer):
                return
            envelope = open_envelope(topic, payload, expect_id=peer)
            presence = open_body(envelope, presence_decoder)
        except WireError:
            return  # anyone may write there: what does not open is nobody's
        if presence.online and (wanted is None or wanted == peer):
            dealers[envelope.sender] = presence
            first_seen.set()

    link = MqttLink(host, port, subscriptions=[inbox, PRESENCES], on_message=on_message)
    await link.start()
    try:
        return await asyncio.wait_for(
            _ask(link, identity, deal, dealers, first_seen, answers, frozenset(known)), timeout
        )
    except NoDealer:
        where = "" if wanted is None else f" {dealer}"
        raise DealerError(
            f"no dealer{where} is online on {host}:{port} (start one with `passe dealer`)"
        ) from None
    except TimeoutError:
        raise DealerError("the dealer did not answer in time") from None
    finally:
        await link.close()


async def _ask(
    link: MqttLink,
    identity: Identity,
    deal: Deal,
    dealers: dict[bytes, DealerPresence],
    first_seen: asyncio.Event,
    answers: asyncio.Queue[tuple[bytes, Dealt]],
    known: frozenset[str],
) -> RoomDealt:
    try:
        await asyncio.wait_for(first_seen.wait(), FIRST)
    except TimeoutError:
        raise NoDealer from None
    await asyncio.sleep(GATHER)
    # A dealer asked before, online, first; then the most room to spare.
    key, presence = max(dealers.items(), key=lambda item: (peer_id(item[0]) in known, item[1].free))
    if presence.free == 0:
        raise DealerError(f"dealer {clean_name(presence.name)} serves its most rooms already")
    topic = inbox_topic(peer_id(key))
    payload = seal(identity, topic, deal, key)
    while True:
        await link.publish(topic, payload)
        deadline = time.monotonic() + ASK_AGAIN
        while (left := deadline - time.monotonic()) > 0:
            try:
                sender, answer = await asyncio.wait_for(answers.get(), left)
            except TimeoutError:
                break
            if sender != key or answer.nonce != deal.nonce:
                continue
            if answer.refused:
                raise DealerError(f"the dealer refused: {clean_text(answer.refused)}")
            return _room_dealt(answer, presence, peer_id(key), known)


def _room_dealt(
    answer: Dealt, presence: DealerPresence, dealer: str, known: frozenset[str]
) -> RoomDealt:
    """The room in a dealer's answer, read as a person's typed join would
    be: anyone may run a dealer, so its code and address are checked before
    a screen or a log line shows them."""
    try:
        code = normalize_code(answer.code)
        target = parse_join_target(answer.join)
    except CodeError as error:
        raise DealerError(f"the dealer's answer is not a room to join: {error}") from None
    if target.code != code or target.host is None:
        raise DealerError("the dealer's answer is not a room to join: its code and address differ")
    return RoomDealt(code, answer.join, clean_name(presence.name), dealer, dealer in known)


def new_deal_nonce() -> int:
    return secrets.randbits(52)


__all__ = ["DealerError", "KnownDealers", "RoomDealt", "ask_dealer", "new_deal_nonce"]
