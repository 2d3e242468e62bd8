"""A bare client of the election's core, for its real-process tests and
the failover benchmark (tests/net/election_seat.py, bench/election.py): it
submits requests (the core's ``Request``, docs/election.md "Clients") and
waits for their acknowledgement, as a seat's process would if the table
were nothing but the replicated log. The product's seats send protocol
v1's ``Act`` through ``net.peer.remote.RemoteTable`` instead; this client
lives with the tests so that net/ holds only what the product runs."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

import msgspec

from net.election.driver import (
    TOPIC_RATE,
    VoterPresences,
    announce_decoder,
    authority_topic,
    election_topic,
)
from net.election.messages import Answer, Message, Request
from net.identity import Identity, peer_id
from net.lan.transport import MqttLink
from net.protocol.bounds import FloodLog, SenderLimits
from net.protocol.wire import WireError, open_body, open_envelope, seal

log = logging.getLogger(__name__)

# A seat sends an unanswered request again after this.
RESEND_AFTER = 1.0

_message_decoder = msgspec.msgpack.Decoder(Message)


class SeatClient:
    """A seat's process as the core's client (docs/election.md, "Clients").
    It sends each request to the authority only: the one that announced
    itself with the highest term (retained, signed), or the one a voter's
    ``not_authority`` answer names; never to a voter it does not know to be
    the authority, since an action may be secret (a fashion bid). It sends
    again, with the same nonce, when unanswered for RESEND_AFTER, at once
    when a newer authority is announced or the authority's will comes, and
    until the request is acknowledged (a duplicate gets its first answer:
    never a second entry). Only the room's voters are listened to."""

    def __init__(
        self,
        identity: Identity,
        code: str,
        voters: Sequence[bytes],
        host: str,
        port: int,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.identity = identity
        self.code = code
        self.voters = list(voters)
        self.clock = clock
        self.authority: bytes | None = None
        self.term = 0  # the highest term heard of
        # The voters' presence: the authority's will makes a waiting request
        # wait for the next authority at once, not after RESEND_AFTER.
        self._floods = FloodLog(log)
        self._presences = VoterPresences(code, self.voters, self._floods)
        self._changed = False  # the authority changed (or went) while we waited
        self.topic = election_topic(code, identity.peer_id)
        self._announcements = authority_topic(code)
        self._answers: dict[int, Answer] = {}
        self._arrived = asyncio.Event()
        self._limits = SenderLimits(per_sender=TOPIC_RATE, total=TOPIC_RATE, max_senders=64)
        self._link = MqttLink(
            host,
            port,
            subscriptions=[self.topic, self._announcements, *self._presences.topics],
            on_message=self._on_message,
        )

    async def start(self) -> None:
        await self._link.start()

    async def close(self) -> None:
        await self._link.close(graceful=False)

    async def submit(self, nonce: int, data: bytes, timeout: float) -> Answer:
        """Request ``nonce`` acknowledged (durable on a majority of the
        voters); raises ``TimeoutError`` after ``timeout`` seconds."""
        async with asyncio.timeout(timeout):
            while True:
                target = self.authority
                if target is None:
                    await self._wait(None, RESEND_AFTER)  # for an announcement
                    continue
                self._answers.pop(nonce, None)
                topic = election_topic(self.code, peer_id(target))
                request = Request(nonce=nonce, data=data)
                await self._link.publish(topic, seal(self.identity, topic, request, target))
                answer = await self._wait(nonce, RESEND_AFTER)
                if answer is None:
                    continue  # silence, or another authority: send again
                if answer.status == "acknowledged":
                    return answer
                # It is no longer the authority (it stepped down): the one it
                # names, if it knows a newer one; else wait for the next.
                if self.authority == target:
                    self._follow(answer.authority, answer.term, above=answer.term > self.term)

    def _follow(self, authority: bytes | None, term: int, *, above: bool) -> None:
        if above and authority is not None and authority in self.voters:
            self.authority, self.term = authority, term
        else:
            self.authority = None
        self._changed = True
        self._arrived.set()

    async def _wait(self, nonce: int | None, wait: float) -> Answer | None:
        """The answer to ``nonce`` (or, for None, an authority), None after
        ``wait`` seconds or at once when the authority changes."""
        self._changed = False
        try:
            async with asyncio.timeout(wait):
                while not self._changed and (nonce is None or nonce not in self._answers):
                    self._arrived.clear()
                    await self._arrived.wait()
        except TimeoutError:
            return None
        return None if nonce is None else self._answers.get(nonce)

    async def _on_message(self, topic: str, payload: bytes) -> None:
        now = self.clock()
        if not self._limits.allow(topic, len(payload), now):
            self._floods.note("answer-flood", "dropped answers past the rate", now)
            return
        if topic in self._presences.topics:
            gone = self._presences.gone(topic, payload, now)
            if gone is not None and gone == self.authority:
                self._follow(None, self.term, above=False)  # wait for the next
            return
        try:
            envelope = open_envelope(topic, payload, identity=self.identity)
            if envelope.sender not in self.voters:
                return
            if topic == self._announcements:
                announce = open_body(envelope, announce_decoder)
                if announce.term > self.term:
                    self._follow(envelope.sender, announce.term, above=True)
                return
            answer = open_body(envelope, _message_decoder, self.identity)
        except WireError as error:
            self._floods.note("answer-bad", f"dropped an answer: {error}", now)
            return
        if isinstance(answer, Answer):
            known = self._answers.get(answer.nonce)
            if known is None or known.status != "acknowledged":  # the best answer kept
                self._answers[answer.nonce] = answer
            self._arrived.set()
