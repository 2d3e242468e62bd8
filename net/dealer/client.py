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
from dataclasses import dataclass
from typing import Final

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
from net.identity import Identity, peer_id
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


async def ask_dealer(
    identity: Identity,
    host: str,
    port: int,
    deal: Deal,
    *,
    dealer: str | None = None,
    timeout: float = 15.0,
) -> RoomDealt:
    """A room dealt by a dealer on the broker at ``host:port`` (``dealer``:
    the peer id or fingerprint of the one to ask). Raises DealerError."""
    wanted = None if dealer is None else dealer.replace("-", "").lower()
    dealers: dict[bytes, DealerPresence] = {}
    first_seen = asyncio.Event()
    answers: asyncio.Queue[tuple[bytes, Dealt]] = asyncio.Queue()
    inbox = inbox_topic(identity.peer_id)

    async def on_message(topic: str, payload: bytes) -> None:
        try:
            if topic == inbox:
                envelope = open_envelope(topic, payload)
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
            _ask(link, identity, deal, dealers, first_seen, answers), timeout
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
) -> RoomDealt:
    try:
        await asyncio.wait_for(first_seen.wait(), FIRST)
    except TimeoutError:
        raise NoDealer from None
    await asyncio.sleep(GATHER)
    key, presence = max(dealers.items(), key=lambda item: item[1].free)
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
            return _room_dealt(answer, presence)


def _room_dealt(answer: Dealt, presence: DealerPresence) -> RoomDealt:
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
    return RoomDealt(code, answer.join, clean_name(presence.name))


def new_deal_nonce() -> int:
    return secrets.randbits(52)


__all__ = ["DealerError", "RoomDealt", "ask_dealer", "new_deal_nonce"]
