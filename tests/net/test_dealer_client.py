"""Asking a dealer for a room (net/dealer/client.py), against dealers of the
test's own on a real broker: which dealer is asked, what is ignored on the
way, and what an answer must be before a screen shows it. Anyone on the LAN
may run a dealer or write to an asker's inbox (issue 20, "Dealers")."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import msgspec
import pytest

from net.dealer import client
from net.dealer.client import (
    DealerError,
    KnownDealers,
    RoomDealt,
    ask_dealer,
    new_deal_nonce,
)
from net.dealer.messages import (
    Deal,
    DealerPresence,
    Dealt,
    inbox_decoder,
    inbox_topic,
    presence_topic,
)
from net.identity import Identity, fingerprint, peer_id
from net.lan.transport import MqttLink
from net.protocol.wire import open_body, open_envelope, seal
from tests.net.brokers import broker_at

DEAL = Deal(7, "dominoes", 2, "Eve")
ROOM = Dealt(7, code="ABC123", join="ABC-123@127.0.0.1:1884")

# What a dealer says to each Deal, in order: (who signs it, None for the
# dealer itself; the answer).
Answers = Callable[[Deal], list[tuple[Identity | None, Dealt]]]


@dataclass
class FakeDealer:
    """A dealer's presence and inbox, answering as told."""

    host: str
    port: int
    name: str = "Dee"
    free: int = 3
    online: bool = True
    answers: Answers | None = None
    identity: Identity = field(default_factory=Identity.generate)
    deals: list[Deal] = field(default_factory=list)
    payloads: list[bytes] = field(default_factory=list)
    link: MqttLink | None = None

    @property
    def peer(self) -> str:
        return self.identity.peer_id

    async def _on_message(self, topic: str, payload: bytes) -> None:
        self.payloads.append(payload)
        envelope = open_envelope(topic, payload, identity=self.identity)
        deal = open_body(envelope, inbox_decoder, self.identity)
        assert isinstance(deal, Deal)
        self.deals.append(deal)
        if self.answers is None or self.link is None:
            return
        to = inbox_topic(peer_id(envelope.sender))
        for signer, reply in self.answers(deal):
            signed_by = self.identity if signer is None else signer
            await self.link.publish(to, seal(signed_by, to, reply, envelope.sender))

    async def start(self) -> None:
        self.link = MqttLink(
            self.host,
            self.port,
            subscriptions=[inbox_topic(self.peer)],
            on_message=self._on_message,
        )
        await self.link.start()
        presence = DealerPresence(self.online, 1, self.name, 0, self.free, "127.0.0.1:1884")
        topic = presence_topic(self.peer)
        await self.link.publish(topic, seal(self.identity, topic, presence), retain=True)


@contextlib.asynccontextmanager
async def dealers(*made: FakeDealer) -> AsyncIterator[None]:
    try:
        for dealer in made:
            await dealer.start()
        yield
    finally:
        for dealer in made:
            if dealer.link is not None:
                # Gone as a dealer goes: its retained presence cleared.
                await dealer.link.close(final=[(presence_topic(dealer.peer), b"")])


def answer(*answers: Dealt) -> Answers:
    """The dealer's own answers to every Deal."""
    return lambda deal: [(None, reply) for reply in answers]


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    # No dealer's presence within FIRST: none is online; the same Deal again
    # every ASK_AGAIN. Shortened so that a test's waits are a second or two
    # (FIRST still long enough for a retained presence on a loaded machine).
    monkeypatch.setattr(client, "FIRST", 1.5)
    monkeypatch.setattr(client, "ASK_AGAIN", 0.25)


def keys_in_order() -> tuple[Identity, Identity]:
    """Two keys, the first the greater: a choice by key rather than by room
    to spare would pick it."""
    one, two = Identity.generate(), Identity.generate()
    return (one, two) if one.public_key > two.public_key else (two, one)


async def test_the_dealer_with_most_room_is_asked_and_its_answer_read_as_a_typed_join() -> None:
    busy_key, roomy_key = keys_in_order()
    async with broker_at("mosquitto") as (host, port):
        busy = FakeDealer(host, port, "Busy", free=1, answers=answer(ROOM), identity=busy_key)
        lower = Dealt(7, code="abc123", join="abc-123@127.0.0.1:1884")
        roomy = FakeDealer(
            host, port, "[b]Roomy[/b]\x1b[31m", free=5, answers=answer(lower), identity=roomy_key
        )
        async with dealers(busy, roomy):
            dealt = await ask_dealer(Identity.generate(), host, port, DEAL)
    # The code as every screen reads it; the name as text, its escape gone.
    assert dealt == RoomDealt(
        "ABC123", "abc-123@127.0.0.1:1884", "[b]Roomy[/b]", roomy.peer, known=False
    )
    assert busy.deals == [] and roomy.deals == [DEAL]


async def test_a_dealer_asked_before_is_asked_first_while_online() -> None:
    """Anyone may publish a presence with the most room to spare: a dealer
    this machine asked before (``known``) is asked while it is online, the
    one with most room among those first; else the most room of all."""
    async with broker_at("mosquitto") as (host, port):
        mine = FakeDealer(host, port, "Mine", free=1, answers=answer(ROOM))
        also_mine = FakeDealer(host, port, "Also", free=2, answers=answer(ROOM))
        claims = FakeDealer(host, port, "Claims", free=10**6, answers=answer(ROOM))
        async with dealers(mine, also_mine, claims):
            known = [mine.peer, also_mine.peer, "0" * 16]
            dealt = await ask_dealer(Identity.generate(), host, port, DEAL, known=known)
            stranger = await ask_dealer(Identity.generate(), host, port, DEAL)
    assert (dealt.dealer, dealt.dealer_id, dealt.known) == ("Also", also_mine.peer, True)
    assert (stranger.dealer, stranger.known) == ("Claims", False)
    assert mine.deals == [] and len(also_mine.deals) == 1 and len(claims.deals) == 1


def test_the_dealers_asked_before_are_kept_newest_first_and_bounded(tmp_path: Path) -> None:
    known = KnownDealers(tmp_path / "dealers.json")
    assert known.read() == []  # no file yet
    for n in range(20):
        known.remember(f"{n:016x}")
    known.remember(f"{3:016x}")  # again: first, once
    kept = known.read()
    assert kept[0] == f"{3:016x}" and len(kept) == 16 and len(set(kept)) == 16
    assert f"{0:016x}" not in kept  # the oldest went
    # What is not such a list reads as none: it only orders a choice.
    for damaged in (b"{not json", b'{"a": 1}', b"[1, 2]", b'["' + b"a" * 5000 + b'"]'):
        (tmp_path / "dealers.json").write_bytes(damaged)
        assert known.read() == []
    (tmp_path / "dealers.json").write_bytes(b'["0123456789abcdef", "../x", "ABCDEF0123456789"]')
    assert known.read() == ["0123456789abcdef"]
    known.remember("fedcba9876543210")
    assert known.read() == ["fedcba9876543210", "0123456789abcdef"]


async def test_a_dealer_named_by_its_fingerprint_is_asked_though_another_has_more_room() -> None:
    async with broker_at("mosquitto") as (host, port):
        chosen = FakeDealer(host, port, "Chosen", free=1, answers=answer(ROOM))
        other = FakeDealer(host, port, "Other", free=9, answers=answer(ROOM))
        async with dealers(chosen, other):
            named = fingerprint(chosen.identity.public_key).upper()
            dealt = await ask_dealer(Identity.generate(), host, port, DEAL, dealer=named)
    assert dealt.dealer == "Chosen"
    assert len(chosen.deals) == 1 and other.deals == []


async def test_no_dealer_online_is_said_in_words_naming_the_one_asked_for() -> None:
    async with broker_at("mosquitto") as (host, port):
        gone = FakeDealer(host, port, "Gone", online=False)
        async with dealers(gone, FakeDealer(host, port, "Other")):
            with pytest.raises(DealerError) as anyone:
                await ask_dealer(Identity.generate(), host, port, DEAL, dealer=gone.peer)
            assert str(anyone.value) == (
                f"no dealer {gone.peer} is online on {host}:{port} (start one with `passe dealer`)"
            )
        with pytest.raises(DealerError) as nobody:
            await ask_dealer(Identity.generate(), host, port, DEAL)
    assert str(nobody.value) == (
        f"no dealer is online on {host}:{port} (start one with `passe dealer`)"
    )
    assert gone.deals == []


async def test_a_presence_not_signed_by_the_dealer_its_topic_names_is_nobody_s() -> None:
    """Anyone may write under the dealers' presences: a presence signed by
    another key than the one its topic names, an empty (cleared) one, and
    bytes that are no envelope name no dealer."""
    async with broker_at("mosquitto") as (host, port):
        honest = FakeDealer(host, port, "Honest")
        forger = Identity.generate()
        writer = MqttLink(host, port, subscriptions=[], on_message=_nothing)
        await writer.start()
        try:
            topic = presence_topic(honest.peer)
            forged = DealerPresence(True, 1, "Forged", 0, 9)
            await writer.publish(topic, seal(forger, topic, forged), retain=True)
            for junk in (b"", b"\x93not an envelope"):
                await writer.publish(presence_topic("0" * 16), junk, retain=True)
            with pytest.raises(DealerError, match=r"^no dealer is online"):
                await ask_dealer(Identity.generate(), host, port, DEAL)
        finally:
            await writer.close()


async def test_a_full_dealer_is_not_asked_and_says_so() -> None:
    async with broker_at("mosquitto") as (host, port):
        full = FakeDealer(host, port, "Full\x07", free=0, answers=answer(ROOM))
        async with dealers(full):
            with pytest.raises(DealerError) as refused:
                await ask_dealer(Identity.generate(), host, port, DEAL)
    assert str(refused.value) == "dealer Full serves its most rooms already"
    assert full.deals == []


async def test_a_deal_unanswered_is_sent_again_unchanged_until_the_time_is_up() -> None:
    """The same bytes again (the same nonce: a dealer answers it once, never
    with a second room), then a refusal in words when the time is up."""
    async with broker_at("mosquitto") as (host, port):
        silent = FakeDealer(host, port, "Silent")
        async with dealers(silent):
            with pytest.raises(DealerError) as late:
                await ask_dealer(Identity.generate(), host, port, DEAL, timeout=2.0)
    assert str(late.value) == "the dealer did not answer in time"
    assert len(silent.payloads) >= 2  # sent again (about six times: 0.25 s apart)
    assert set(silent.payloads) == {silent.payloads[0]}
    assert all(deal == DEAL for deal in silent.deals)


class CountingLink(MqttLink):
    """The asker's link, counting what it publishes."""

    published: ClassVar[list[str]] = []

    async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> bool:
        CountingLink.published.append(topic)
        return await super().publish(topic, payload, retain=retain)


async def test_answers_for_another_deal_or_from_another_key_are_passed_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the asked dealer's answer to this Deal's nonce counts: another
    nonce's answer, the right nonce signed by someone else, and bytes that
    do not open are skipped, and the asker keeps waiting for the real one,
    without sending its Deal again."""
    stranger = Identity.generate()
    monkeypatch.setattr(client, "ASK_AGAIN", 60.0)  # never again within this test
    monkeypatch.setattr(client, "MqttLink", CountingLink)
    monkeypatch.setattr(CountingLink, "published", [])

    def answers(deal: Deal) -> list[tuple[Identity | None, Dealt]]:
        return [
            (None, Dealt(deal.nonce + 1, code="ZZZ999", join="ZZZ-999@127.0.0.1:1")),
            (stranger, Dealt(deal.nonce, code="ZZZ999", join="ZZZ-999@127.0.0.1:1")),
            (None, ROOM),
        ]

    async with broker_at("mosquitto") as (host, port):
        dealer = FakeDealer(host, port, "Dee", answers=answers)
        asker = Identity.generate()
        writer = MqttLink(host, port, subscriptions=[], on_message=_nothing)
        await writer.start()
        try:
            async with dealers(dealer):
                asking = asyncio.create_task(ask_dealer(asker, host, port, DEAL))
                while not dealer.deals:
                    await asyncio.sleep(0.01)
                await writer.publish(inbox_topic(asker.peer_id), b"\x93junk")
                dealt = await asking
        finally:
            await writer.close()
    assert dealt.code == "ABC123" and dealt.join == ROOM.join
    assert CountingLink.published == [inbox_topic(dealer.peer)]


def test_a_deal_s_nonce_is_random_and_fits_the_protocol_s_count() -> None:
    nonces = {new_deal_nonce() for _ in range(50)}
    assert len(nonces) == 50 and all(0 <= nonce < 2**52 for nonce in nonces)
    decoded = msgspec.msgpack.decode(msgspec.msgpack.encode(Deal(max(nonces), "dominoes", 2, "E")))
    assert decoded["nonce"] == max(nonces)


async def test_a_refusal_is_said_as_text() -> None:
    refusal = Dealt(7, refused="no room \x1b[2Jfor [b]you[/b]")
    async with (
        broker_at("mosquitto") as (host, port),
        dealers(FakeDealer(host, port, answers=answer(refusal))),
    ):
        with pytest.raises(DealerError) as refused:
            await ask_dealer(Identity.generate(), host, port, DEAL)
    assert str(refused.value) == "the dealer refused: no room for [b]you[/b]"


@pytest.mark.parametrize(
    ("code", "join", "why"),
    [
        ("ABC12\x1b", "ABC-12\x1b@127.0.0.1:1884", "is not one of them"),
        ("ABC123", "ABC-123", "its code and address differ"),  # no address
        ("ABC123", "XYZ-789@127.0.0.1:1884", "its code and address differ"),
        ("ABC123", "ABC-123@bad host:1884", ""),
        ("", "", "none were typed"),  # neither a room nor a refusal
    ],
)
async def test_an_answer_that_is_no_room_to_join_is_refused_in_words(
    code: str, join: str, why: str
) -> None:
    """Anyone may run a dealer: its room is read as a person's typed join
    would be before any screen or log line shows it."""
    dealt = Dealt(7, code=code, join=join)
    async with (
        broker_at("mosquitto") as (host, port),
        dealers(FakeDealer(host, port, answers=answer(dealt))),
    ):
        with pytest.raises(DealerError) as refused:
            await ask_dealer(Identity.generate(), host, port, DEAL)
    assert str(refused.value).startswith("the dealer's answer is not a room to join: ")
    assert why in str(refused.value)
    assert "\x1b" not in str(refused.value)


async def _nothing(topic: str, payload: bytes) -> None:
    return None
