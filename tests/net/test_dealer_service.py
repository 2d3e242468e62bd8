"""A dealer (net/dealer/service.py) driven in this process, with no broker:
what arrives on its inbox and topics is sealed with real keys and handed to
its handlers, and what it publishes is read back from a recording link
(tests/net/rooms_in_process.py ``MemoryLink``) and opened as its recipient
would. The rooms it opens, the voters of the rooms it holds and the tables
it hands over are small recording stand-ins: each rule of the module is
said here, where a mutation shows (docs/testing.md, "The score"); the real
processes are tests/net/test_dealers.py's."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import msgspec
import pytest

from core.engine import ConfigError
from core.registry import get_game
from net.authority.authority import Authority, SeatSlot
from net.authority.host import RoomMoved
from net.authority.replication import encode_room_config, make_room_config, maker_vote_path
from net.authority.rooms import (
    BrokerChoice,
    RoomBusy,
    RoomStore,
    SavedRoom,
    SavedSeat,
    room_path,
    write_room,
)
from net.authority.table import HUMAN
from net.dealer import service
from net.dealer.kept import (
    KEPT_VERSION,
    KeptRoom,
    decode_kept,
    encode_kept,
    keep,
    kept_path,
    read_kept,
)
from net.dealer.messages import (
    MAX_DEALER_PAYLOAD,
    PRESENCES,
    Deal,
    DealerPresence,
    Dealt,
    Hold,
    Release,
    inbox_decoder,
    inbox_topic,
    presence_decoder,
    presence_topic,
)
from net.dealer.service import (
    ANSWERS_KEPT,
    LOBBIES_PER_ASKER,
    STATUS_FILE,
    Dealer,
    DealtRoom,
    HeldRoom,
    OtherDealer,
    _someone_sat,
)
from net.election.driver import Announce, FileStorage, authority_topic, first_persisted
from net.election.messages import Config
from net.identity import Identity, fingerprint, peer_id
from net.lan.transport import LastWill
from net.peer.failover import voter_file
from net.protocol.codes import format_code, new_code
from net.protocol.text import clean_text
from net.protocol.wire import open_body, open_envelope, seal
from tests.net.rooms_in_process import MemoryLink

CODE = "ABC123"
HOST, PORT = "127.0.0.1", 1883


# -- stand-ins and helpers ---------------------------------------------------


class Events:
    """A dealer's events (its ``on_event``), in order."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, kind: str, **fields: Any) -> None:
        self.seen.append((kind, fields))


class Driver:
    def __init__(self) -> None:
        self.in_step = asyncio.Event()


class VoterReplica:
    """A held room's replica, as far as the dealer reads one."""

    def __init__(self, term: int = 1) -> None:
        self.term = term
        self.authority_known = asyncio.Event()
        self.driver = Driver()


class Voter:
    """A held room's voter (net/peer/failover.py SeatVoter), as far as the
    dealer drives one: how it was made, and each call."""

    def __init__(
        self,
        identity: Identity,
        code: str,
        config: Config,
        election: bytes,
        host: str,
        port: int,
        **options: Any,
    ) -> None:
        self.identity, self.code, self.config, self.election = identity, code, config, election
        self.host, self.port = host, port
        self.options = options
        self.replica = VoterReplica()
        self.former_host = ""
        self.calls: list[str] = []

    async def start(self) -> None:
        self.calls.append("start")

    async def close(self) -> None:
        self.calls.append("close")


class Hosted:
    """A room the dealer opened (net/authority/host.py HostedRoom), as far as
    the dealer uses one: each close noted with its ``keep``."""

    def __init__(self, authority: Any, lan: str = "192.168.1.5") -> None:
        self.authority = authority
        self.join_hint = f"{format_code(authority.code)}@{lan}:{PORT}"
        self.closed: list[bool] = []

    @property
    def code(self) -> str:
        return str(self.authority.code)

    async def close(self, *, keep: bool = False) -> None:
        self.closed.append(keep)


class Node:
    def __init__(self, caught_up: set[bytes]) -> None:
        self.caught = caught_up
        self.asked: set[bytes] = set()
        self.questions = 0
        self.later: bytes | None = None  # caught up once the loop has turned, after asked

    def caught_up(self, key: bytes) -> bool:
        self.asked.add(key)
        self.questions += 1
        if key == self.later:
            asyncio.get_running_loop().call_soon(self.caught.add, key)
            self.later = None
        return key in self.caught


class HandingDriver:
    def __init__(self, replica: HandingReplica, node: Node) -> None:
        self.replica, self.node = replica, node
        self.abdicated: Callable[[], object] = lambda: None  # what follows an abdication

    def abdicate(self) -> None:
        self.replica.calls.append("abdicate")
        if self.replica.successor:
            self.replica.term += 1
        self.abdicated()


class HandingReplica:
    """A table's replica as a handing-over dealer drives it (``successor``:
    another dealer wins the election it lets happen)."""

    def __init__(self, term: int, caught_up: set[bytes], successor: bool) -> None:
        self.term = term
        self.successor = successor
        self.calls: list[str] = []
        self.driver = HandingDriver(self, Node(caught_up))

    async def close(self) -> None:
        self.calls.append("close")


class Table:
    """A room's authority as a stopping dealer hands it over or closes it."""

    def __init__(
        self, code: str, phase: str, replica: HandingReplica | None, election: bytes = b""
    ) -> None:
        self.code, self.phase, self.replica, self.election = code, phase, replica, election
        self.calls: list[str] = []

    def hand_over(self) -> None:
        self.calls.append("hand_over")

    async def close(self, *, keep: bool = False) -> None:
        self.calls.append(f"close keep={keep}")


def a_dealer(state_dir: Path | None = None, **options: Any) -> tuple[Dealer, MemoryLink]:
    """Dealer D of a fresh key on a broker it never reaches: what it
    publishes is kept by the MemoryLink returned."""
    options.setdefault("advertise", False)
    dealer = Dealer(Identity.generate(), "D", HOST, PORT, state_dir=state_dir, **options)
    link = MemoryLink(HOST, PORT)
    dealer._link = link  # type: ignore[assignment]
    return dealer, link


def table(code: str = CODE, game: str = "dominoes", players: int = 2) -> Authority:
    """A room's authority in its lobby, with no link."""
    config = get_game(game).make_config(players=players)
    return Authority(Identity.generate(), code, game, config, "Host", HOST, PORT, seed=1)


def to_inbox(dealer: Dealer, sender: Identity, message: msgspec.Struct) -> bytes:
    """``message`` from ``sender`` on the dealer's inbox, as a client seals it."""
    return seal(sender, dealer.inbox, message, dealer.identity.public_key)


def sent_to(dealer: Dealer, link: MemoryLink, to: Identity) -> list[Any]:
    """What the dealer published on ``to``'s inbox, opened as ``to`` does
    (each checked: signed by the dealer, sealed to ``to``, not retained)."""
    topic = inbox_topic(to.peer_id)
    opened = []
    for published, payload, retain in link.published:
        if published == topic:
            assert not retain
            envelope = open_envelope(
                topic, payload, identity=to, expect_key=dealer.identity.public_key
            )
            opened.append(open_body(envelope, inbox_decoder, to))
    return opened


def presences(dealer: Dealer, link: MemoryLink) -> list[tuple[DealerPresence, bool]]:
    """The dealer's own presences it published, opened, with their retain."""
    topic = presence_topic(dealer.identity.peer_id)
    opened = []
    for published, payload, retain in link.published:
        if published == topic and payload:
            envelope = open_envelope(topic, payload, expect_id=dealer.identity.peer_id)
            opened.append((open_body(envelope, presence_decoder), retain))
    return opened


def presence_of(
    other: Identity, *, online: bool = True, epoch: int = 5, name: str = "DX", free: int = 3
) -> tuple[str, bytes]:
    topic = presence_topic(other.peer_id)
    presence = DealerPresence(online=online, epoch=epoch, name=name, rooms=1, free=free)
    return topic, seal(other, topic, presence)


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The dealer's log lines, each as ``LEVEL message``."""
    return [
        f"{record.levelname} {record.getMessage()}"
        for record in caplog.records
        if record.name == "passe.dealer"
    ]


async def settle(turns: int = 20) -> None:
    """A few turns of the loop: what the dealer spawned (a publish on the
    MemoryLink, a scheduled status write) has run. No wall-clock wait."""
    for _ in range(turns):
        await asyncio.sleep(0)


def room_config(
    maker: Identity, dealer: Dealer, *others: bytes, me_a_dealer: bool = True
) -> tuple[Config, bytes]:
    """A room's config made by ``maker`` (a dealer), naming ``dealer`` (as a
    dealer unless ``me_a_dealer`` is False), then ``others`` (players)."""
    me = dealer.identity.public_key
    dealers = {maker.public_key, me} if me_a_dealer else {maker.public_key}
    config, _ = make_room_config(maker, [maker.public_key, me, *others], dealers=dealers)
    return config, encode_room_config(config)


def voter_of(held: HeldRoom) -> Voter:
    return cast(Voter, held.voter)


@pytest.fixture(autouse=True)
def dealer_log(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """The dealer's log at INFO; and no task the dealer spawned failed."""
    caplog.set_level(logging.INFO, logger="passe.dealer")
    yield
    failed = [r.getMessage() for r in caplog.records if " failed: " in r.getMessage()]
    assert failed == []


@pytest.fixture
def voters(monkeypatch: pytest.MonkeyPatch) -> list[Voter]:
    """Every voter the dealer makes for a room it holds: a :class:`Voter`."""
    made: list[Voter] = []

    def make(*args: Any, **options: Any) -> Voter:
        voter = Voter(*args, **options)
        made.append(voter)
        return voter

    monkeypatch.setattr(service, "SeatVoter", make)
    return made


def hold_for(
    dealer: Dealer, maker: Identity, code: str = CODE, broker: str = "10.0.0.7:1884"
) -> tuple[Hold, Config]:
    player = Identity.generate().public_key
    config, election = room_config(maker, dealer, player)
    dealer.trusted |= {maker.peer_id}  # a dealer this one shares rooms with (--trust)
    return Hold(code, election, broker, Identity.generate().public_key), config


def held_again(dealer: Dealer, maker: Identity, code: str = CODE) -> HeldRoom:
    """Room ``code`` held as after a restart (resume_held): no Hold came,
    nothing waits for its authority yet."""
    hold, config = hold_for(dealer, maker, code)
    held = dealer._hold(code, config, hold.election, (HOST, PORT), b"")
    assert held is not None
    return held


async def held_by(dealer: Dealer, maker: Identity, code: str = CODE) -> HeldRoom:
    """Room ``code`` held by ``dealer`` for ``maker`` (a Hold it accepted),
    its voter started."""
    hold, _ = hold_for(dealer, maker, code)
    dealer._on_hold(maker.public_key, hold, 1.0)
    await settle()
    return dealer.held[code]


# -- what arrives on the inbox -----------------------------------------------


async def test_a_message_larger_than_a_dealer_takes_is_dropped_unopened(
    caplog: pytest.LogCaptureFixture,
) -> None:
    dealer, link = a_dealer()
    dealer._on_inbox(b"\x00" * (MAX_DEALER_PAYLOAD + 1), 1.0)
    assert said(caplog) == [f"WARNING dropped a message of {MAX_DEALER_PAYLOAD + 1} bytes"]
    assert dealer._floods.counts == {"inbox-size": 1}
    # At the limit, it is opened (and found to be no message).
    dealer._on_inbox(b"\x00" * MAX_DEALER_PAYLOAD, 1.0)
    assert said(caplog)[1:] == [
        "WARNING dropped a message: not a Passe message (malformed envelope)"
    ]
    assert dealer._floods.counts == {"inbox-size": 1, "inbox-bad": 1}
    assert dealer._limits.senders == 0
    await settle()
    assert link.published == [] and dealer.rooms == {} and dealer.held == {}


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("sealed for another topic", "sealed for another topic"),
        ("public", "a public message where a sealed one was expected"),
        ("sealed to another key", "cannot decrypt: not sealed to this peer"),
        ("not a dealer's message", "malformed message: "),
    ],
)
async def test_a_message_that_does_not_open_is_dropped_with_its_reason(
    caplog: pytest.LogCaptureFixture, how: str, reason: str
) -> None:
    dealer, link = a_dealer()
    asker = Identity.generate()
    deal = Deal(1, "dominoes", 2, "Eve")
    me = dealer.identity.public_key
    payload = {
        "sealed for another topic": seal(asker, inbox_topic("0" * 16), deal, me),
        "public": seal(asker, dealer.inbox, deal),
        "sealed to another key": seal(asker, dealer.inbox, deal, Identity.generate().public_key),
        "not a dealer's message": seal(asker, dealer.inbox, Announce(term=1), me),
    }[how]
    dealer._on_inbox(payload, 1.0)
    (line,) = said(caplog)
    assert line.startswith(f"WARNING dropped a message: {reason}")
    assert dealer._floods.counts == {"inbox-bad": 1}
    await settle()
    assert dealer._answers == {} and dealer._lobbies == {}
    if how in ("not a dealer's message", "public"):
        # Sealed to this dealer, or signed: its sender is known, and told in
        # words (nonce 0, not kept), not left to take the silence for a
        # dealer gone.
        (answer,) = sent_to(dealer, link, asker)
        assert answer.nonce == 0 and answer.code == "" and answer.join == ""
        assert answer.refused.startswith(f"request not understood: {reason}")
    else:
        assert link.published == []


async def test_a_deal_that_does_not_decode_is_answered_in_words_within_the_bound() -> None:
    """A Deal whose nonce is bytes (a client written from docs/protocol.md
    alone sent one and took the silence for a dealer gone) is answered in
    words; a refusal that names an asker's long options is cut to what the
    asker's decoder keeps."""
    dealer, link = a_dealer()
    asker = Identity.generate()
    me = dealer.identity.public_key
    topic = dealer.inbox
    bytes_nonce = {"t": "deal", "nonce": b"16 random bytes.", "game": "dominoes", "players": 2}
    raw = msgspec.Raw(msgspec.msgpack.encode({**bytes_nonce, "name": "A"}))
    dealer._on_inbox(seal(asker, topic, raw, me), 1.0)  # type: ignore[arg-type]
    # Sixteen unknown options of 32 characters: the refusal names them all.
    options = {f"{n:02d}" + "x" * 30: "1" for n in range(16)}
    dealer._on_inbox(to_inbox(dealer, asker, Deal(2, "dominoes", 2, "A", options=options)), 1.0)
    await settle()
    answers = sent_to(dealer, link, asker)
    assert [answer.nonce for answer in answers] == [0, 2]
    assert "Expected `int`" in answers[0].refused and "nonce" in answers[0].refused
    assert answers[1].refused.startswith("unknown options: ") and len(answers[1].refused) <= 400
    assert dealer._answers == {(asker.public_key, 2): answers[1]}
    # Whatever words an answer carries (a room that could not open quotes
    # its error), they are held to the bound.
    dealer._answer(asker.public_key, Dealt(3, refused="could not open a room: " + "e" * 1000))
    await settle()
    long = sent_to(dealer, link, asker)[-1]
    assert long.nonce == 3 and len(long.refused) == 400 and long.refused.endswith("…")


async def test_a_sender_past_its_message_budget_is_dropped_and_others_are_not(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """40 messages at once from one key (its burst), then nothing more from
    it; another key is still heard."""
    dealer, link = a_dealer()
    flooder, other = Identity.generate(), Identity.generate()
    release = to_inbox(dealer, flooder, Release(CODE))  # of no room held: nothing to do
    for _ in range(40):
        dealer._on_inbox(release, 1.0)
    assert said(caplog) == []
    dealer._on_inbox(release, 1.0)
    assert said(caplog) == ["WARNING dropped messages past a sender's budget"]
    assert dealer._floods.counts == {"inbox-flood": 1}
    dealer._on_inbox(to_inbox(dealer, other, Deal(9, "nope", 2, "Ben")), 1.0)
    assert dealer._floods.counts == {"inbox-flood": 1, "refused": 1}
    await settle()
    assert [answer.nonce for answer in sent_to(dealer, link, other)] == [9]


async def test_a_sender_past_its_byte_budget_is_dropped() -> None:
    """Large messages spend the sender's bytes (128 KiB at once): fewer of
    them pass than the 40 small ones."""
    dealer, _ = a_dealer()
    sender = Identity.generate()
    hold = Hold(CODE, b"\x01" * 16_000, "", Identity.generate().public_key)
    payload = to_inbox(dealer, sender, hold)
    fit = (128 << 10) // len(payload)
    assert fit < 40
    for _ in range(fit + 1):
        dealer._on_inbox(payload, 1.0)
    # Each one that passed was opened (and ignored: its config is none).
    assert dealer._floods.counts == {"hold-bad": fit, "inbox-flood": 1}


async def test_an_answer_in_a_dealer_s_inbox_is_ignored(caplog: pytest.LogCaptureFixture) -> None:
    dealer, link = a_dealer()
    dealer._on_inbox(to_inbox(dealer, Identity.generate(), Dealt(1, code=CODE)), 1.0)
    await settle()
    assert said(caplog) == [] and link.published == [] and dealer._answers == {}


async def test_each_topic_goes_to_its_handler(voters: list[Voter]) -> None:
    """The inbox, a dealer's presence, a held room's authority; a topic that
    only begins like the presences' is nobody's."""
    dealer, link = a_dealer()
    other = Identity.generate()
    await dealer._on_message(dealer.inbox, b"\x00" * (MAX_DEALER_PAYLOAD + 1))
    assert dealer._floods.counts == {"inbox-size": 1}
    await dealer._on_message(*presence_of(other))
    assert [d.name for d in dealer.dealers.values()] == ["DX"]
    held = await held_by(dealer, other)
    topic = authority_topic(CODE)
    key = Identity.generate().public_key
    await dealer._on_message(topic, seal(other, topic, Announce(term=2, room_key=key)))
    assert (held.term, held.room_key) == (2, key)
    stranger = f"{PRESENCES[:-3]}pq/{other.peer_id}"
    await dealer._on_message(stranger, presence_of(other)[1])
    assert dealer._floods.counts == {"inbox-size": 1}
    # Each on the clock: a sender's budget is counted in it.
    asker = Identity.generate()
    for nonce in (1, 2):
        deal = Deal(nonce, "nope", 2, "Eve")
        await dealer._on_message(dealer.inbox, to_inbox(dealer, asker, deal))
    await settle()
    assert [answer.nonce for answer in sent_to(dealer, link, asker)] == [1, 2]


# -- deals ----------------------------------------------------------------------


def test_a_good_deal_has_no_problem() -> None:
    dealer, _ = a_dealer()
    asker = Identity.generate().public_key
    deal = Deal(1, "dominoes", 4, "Eve", teams=True, wait_for=4, bots="hard", owner=asker)
    assert dealer._deal_problem(asker, deal, 1.0) is None
    assert dealer._deal_problem(asker, Deal(2, "dominoes", 2, "Eve", admit=["a" * 16]), 1.0) is None


def test_a_deal_s_options_are_read_as_the_command_line_wrote_them() -> None:
    """`passe host --dealer --option target=30`: every option that is not
    text was refused ("option target: '30' is not a valid value": found by
    hand). The asker writes each as text the dealer reads back typed."""
    from core.engine import option_to_text

    dealer, _ = a_dealer()
    asker = Identity.generate().public_key
    for options, expected in (
        ({"target": 30}, {"target": 30}),
        (
            {"diamonds": [0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3]},
            {"diamonds": (0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3)},
        ),
    ):
        game = "dominoes" if "target" in options else "passpass"
        texts = {name: option_to_text(value) for name, value in options.items()}
        deal = Deal(1, game, 4, "Eve", options=texts)
        assert dealer._deal_problem(asker, deal, 1.0) is None
        config = get_game(game).make_config(players=4, teams=False, **service._options(deal))
        assert {name: getattr(config, name) for name in expected} == expected


@pytest.mark.parametrize(
    ("deal", "reason"),
    [
        (
            Deal(1, "nope", 2, "E"),
            "unknown game 'nope'; the games are: passpass, dominoes, fashion",
        ),
        (Deal(1, "dominoes", 9, "E"), "9 players: this game is for 2 to 4 players, or 4 in teams"),
        (
            Deal(1, "dominoes", 2, "E", options={"colour": "red"}),
            "unknown option: colour; the options are: target",
        ),
        (
            Deal(1, "dominoes", 2, "E", bots="godlike"),
            "bots 'godlike': this game has easy, expert, hard, heuristic, normal, random",
        ),
        (Deal(1, "dominoes", 2, "E", owner=b"k" * 31), "the owner named is no player key"),
        (
            Deal(1, "dominoes", 2, "E", owner=b"k" * 32, admit=["a" * 16]),
            "a room either lists who may sit or has an owner who decides, not both",
        ),
        (Deal(1, "dominoes", 2, "E", wait_for=3), "wait for 3 people: the room has 2 seats"),
    ],
)
def test_a_deal_that_cannot_be_dealt_says_why(deal: Deal, reason: str) -> None:
    dealer, _ = a_dealer()
    assert dealer._deal_problem(Identity.generate().public_key, deal, 1.0) == reason
    # Refusals spend none of the dealer's deals.
    assert dealer._deals.tokens == -1.0


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (KeyError("x"), "'x'"),
        (TypeError("takes no options"), "takes no options"),
        (ValueError(""), "this game or these settings do not exist"),
        (ConfigError("a" * 400), clean_text("a" * 400, 300)),
    ],
)
def test_a_game_that_will_not_be_made_is_refused_in_its_own_words(
    monkeypatch: pytest.MonkeyPatch, error: Exception, reason: str
) -> None:
    def broken(game: str) -> Any:
        raise error

    monkeypatch.setattr(service, "get_game", broken)
    dealer, _ = a_dealer()
    assert dealer._deal_problem(b"k" * 32, Deal(1, "dominoes", 2, "E"), 1.0) == reason


def test_a_full_stopping_or_crowded_dealer_refuses_a_deal() -> None:
    dealer, _ = a_dealer(max_rooms=2)
    asker = Identity.generate().public_key
    deal = Deal(1, "dominoes", 2, "E")
    dealer.rooms["AAAAAA"] = DealtRoom("AAAAAA", "dominoes", "E", table("AAAAAA"))
    assert dealer._deal_problem(asker, deal, 1.0) is None
    dealer.held["BBBBBB"] = cast(HeldRoom, None)
    assert dealer._deal_problem(asker, deal, 1.0) == (
        "this dealer serves 2 rooms, its most: ask another"
    )
    dealer.max_rooms = 3
    dealer._lobbies[asker] = LOBBIES_PER_ASKER - 1
    assert dealer._deal_problem(asker, deal, 1.0) is None
    dealer._lobbies[asker] = LOBBIES_PER_ASKER
    assert dealer._deal_problem(asker, deal, 1.0) == (
        "you have 4 rooms waiting for players here already"
    )
    assert dealer._deal_problem(Identity.generate().public_key, deal, 1.0) is None
    dealer._stopping = True
    assert dealer._deal_problem(asker, deal, 1.0) == "this dealer is stopping: ask another"


def test_rooms_nobody_sits_in_from_fresh_keys_cannot_fill_a_dealer() -> None:
    """A key is free: the limit per asker stops nobody who makes a new key
    for every Deal. Rooms nobody has sat in yet (and those being opened)
    are MAX_EMPTY_LOBBIES at most, all askers together; a room someone
    sits in, or whose game started, leaves room for another."""
    dealer, _ = a_dealer()
    deal = Deal(1, "dominoes", 2, "E")
    for n in range(service.MAX_EMPTY_LOBBIES - 1):
        code = f"EMPT{n:02d}"
        dealer.rooms[code] = DealtRoom(code, "dominoes", "E", table(code))
    dealer._opening.add((b"k" * 32, 9))  # one more being opened
    full = (
        f"this dealer has {service.MAX_EMPTY_LOBBIES} rooms nobody sits in yet: "
        "ask again in a few minutes"
    )
    assert dealer._deal_problem(Identity.generate().public_key, deal, 1.0) == full
    # Someone sits in one room, another's game started: two more may come.
    sat = dealer.rooms["EMPT00"].authority
    sat.set_bot(1, "random")
    assert (
        dealer._deal_problem(Identity.generate().public_key, deal, 1.0) == full
    )  # a bot is nobody
    sat.seats[0].kind = "human"
    assert dealer._deal_problem(Identity.generate().public_key, deal, 1.0) is None
    dealer.rooms["EMPT01"].authority.phase = "playing"
    dealer._opening.add((b"j" * 32, 9))
    assert dealer._deal_problem(Identity.generate().public_key, deal, 1.0) is None
    dealer._opening.add((b"i" * 32, 9))
    assert dealer._deal_problem(Identity.generate().public_key, deal, 1.0) == full


def test_a_dealer_deals_twenty_rooms_at_once_then_five_a_second() -> None:
    dealer, _ = a_dealer()
    deal = Deal(1, "dominoes", 2, "E")
    for _ in range(20):
        assert dealer._deal_problem(Identity.generate().public_key, deal, 10.0) is None
    refused = "this dealer is dealing many rooms at once: ask again in a moment"
    assert dealer._deal_problem(Identity.generate().public_key, deal, 10.0) == refused
    # Half a second later: two and a half more.
    assert dealer._deal_problem(Identity.generate().public_key, deal, 10.5) is None
    assert dealer._deal_problem(Identity.generate().public_key, deal, 10.5) is None
    assert dealer._deal_problem(Identity.generate().public_key, deal, 10.5) == refused


async def test_a_refused_deal_is_answered_logged_and_given_again_for_its_nonce(
    caplog: pytest.LogCaptureFixture,
) -> None:
    dealer, link = a_dealer()
    asker = Identity.generate()
    dealer._on_inbox(to_inbox(dealer, asker, Deal(7, "dominoes", 9, "Eve")), 1.0)
    reason = "9 players: this game is for 2 to 4 players, or 4 in teams"
    await settle()
    assert sent_to(dealer, link, asker) == [Dealt(7, refused=reason)]
    assert said(caplog) == [f"WARNING refused a deal to {fingerprint(asker.public_key)}: {reason}"]
    assert dealer._floods.counts == {"refused": 1}
    assert dealer._lobbies == {} and dealer._opening == set()
    # The same nonce again: the same answer, not weighed again (the dealer
    # stops meanwhile: it would say so to a new deal).
    dealer._stopping = True
    dealer._on_inbox(to_inbox(dealer, asker, Deal(7, "dominoes", 9, "Eve")), 2.0)
    await settle()
    assert sent_to(dealer, link, asker) == [Dealt(7, refused=reason)] * 2


def test_the_dealer_keeps_its_last_answers_only(caplog: pytest.LogCaptureFixture) -> None:
    dealer, _ = a_dealer()
    dealer._link = None
    asker = Identity.generate().public_key
    for nonce in range(ANSWERS_KEPT + 1):
        dealer._answer(asker, Dealt(nonce, code=CODE))
    assert len(dealer._answers) == ANSWERS_KEPT
    assert (asker, 0) not in dealer._answers
    assert dealer._answers[(asker, 1)] == Dealt(1, code=CODE)
    assert dealer._answers[(asker, ANSWERS_KEPT)] == Dealt(ANSWERS_KEPT, code=CODE)
    assert said(caplog) == [] and dealer._floods.counts == {}


async def test_a_deal_being_opened_is_not_answered_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    dealer, link = a_dealer()
    asker = Identity.generate()
    opening = asyncio.Event()
    opened: list[int] = []

    async def slow_open(self: Dealer, sender: bytes, deal: Deal) -> None:
        opened.append(deal.nonce)
        await opening.wait()

    monkeypatch.setattr(Dealer, "_open", slow_open)
    payload = to_inbox(dealer, asker, Deal(3, "dominoes", 2, "Eve"))
    dealer._on_inbox(payload, 1.0)
    dealer._on_inbox(payload, 1.0)
    await settle()
    assert opened == [3]
    assert dealer._opening == {(asker.public_key, 3)}
    assert dealer._lobbies == {asker.public_key: 1}
    assert sent_to(dealer, link, asker) == []
    dealer._on_inbox(to_inbox(dealer, asker, Deal(4, "dominoes", 2, "Eve")), 1.0)
    await settle()
    assert opened == [3, 4] and dealer._lobbies == {asker.public_key: 2}
    opening.set()


@pytest.fixture
def opened_rooms(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Each room the dealer opens (open_room's arguments, and the Hosted
    returned as ``hosted``), its lobby not served (``served``: _serve's
    arguments)."""
    opened: list[dict[str, Any]] = []

    async def open_room(game_id: str, config: Any, **options: Any) -> Hosted:
        hosted = Hosted(table(new_code() if opened else CODE, game_id, config.players))
        opened.append({"game": game_id, "config": config, "hosted": hosted, **options})
        return hosted

    async def serve(self: Dealer, room: DealtRoom, asker: bytes, wanted: int, bots: str) -> None:
        opened[-1]["served"] = (room, asker, wanted, bots)

    monkeypatch.setattr(service, "open_room", open_room)
    monkeypatch.setattr(Dealer, "_serve", serve)
    return opened


async def test_a_deal_opens_a_room_as_asked_and_answers_where_to_join(
    tmp_path: Path, opened_rooms: list[dict[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    events = Events()
    dealer, link = a_dealer(
        tmp_path, bot_delay=0.25, alternates=(("10.0.0.9", 1885),), on_event=events
    )
    asker = Identity.generate()
    admitted = Identity.generate().peer_id
    deal = Deal(
        7,
        "dominoes",
        3,
        "Eve\x1b[2J",
        wait_for=2,
        bots="hard",
        admit=[admitted],
        stand_in_after=12.5,
        failover=False,
    )
    dealer._on_inbox(to_inbox(dealer, asker, deal), 1.0)
    await settle()
    (opened,) = opened_rooms
    hosted = opened["hosted"]
    assert opened["game"] == "dominoes" and opened["config"] == get_game("dominoes").make_config(
        players=3
    )
    identity = opened.pop("identity")
    assert isinstance(identity, Identity) and identity.public_key != dealer.identity.public_key
    assert {k: v for k, v in opened.items() if k not in ("game", "config", "hosted")} == {
        "host_name": "Eve",
        "broker": (HOST, PORT),
        "bot_delay": 0.25,
        "advertise": False,
        "admission": "keys",
        "failover": False,
        "alternates": (("10.0.0.9", 1885),),
        "rooms": tmp_path / "rooms",
        "served": (dealer.rooms[CODE], asker.public_key, 2, "hard"),
    }
    room = dealer.rooms[CODE]
    kept = KeptRoom(KEPT_VERSION, CODE, "Eve", [admitted], 12.5, wanted=2, bots="hard")
    assert (room.code, room.game, room.asker, room.hosted, room.taken) == (
        CODE,
        "dominoes",
        "Eve",
        hosted,
        False,
    )
    assert room.authority is hosted.authority and room.kept == kept
    assert read_kept(kept_path(tmp_path / "rooms", CODE)) == kept
    assert sent_to(dealer, link, asker) == [Dealt(7, code=CODE, join="ABC-123@192.168.1.5:1883")]
    assert dealer._opening == set() and dealer._lobbies == {asker.public_key: 1}
    assert said(caplog) == [
        f"INFO room {CODE}: dealt dominoes for 3 to Eve ({fingerprint(asker.public_key)})"
    ]
    assert events.seen == [("dealt", {"code": CODE, "game": "dominoes", "players": 3})]
    # Set up as this dealer's: its votes, its files, the asker's rule.
    authority = room.authority
    assert authority.voter_identity is dealer.identity
    assert authority.voter_dir == tmp_path / "rooms"
    assert authority.dealers == () and authority.dealer_name == "D"
    assert authority.allowed_keys == frozenset({admitted})
    assert authority.presence_timeout is None and authority.stand_in_after == 12.5
    assert authority.owner is None and authority.admitted == set()
    assert presences(dealer, link)[-1][0].rooms == 1
    assert json.loads((tmp_path / STATUS_FILE).read_text())["rooms"][0]["code"] == CODE


async def test_a_room_with_an_owner_seats_the_owner_and_lets_them_decide(
    opened_rooms: list[dict[str, Any]],
) -> None:
    dealer, link = a_dealer(shown="play.example:1883")
    asker, owner = Identity.generate(), Identity.generate().public_key
    dealer._on_inbox(to_inbox(dealer, asker, Deal(1, "dominoes", 2, "\x07", owner=owner)), 1.0)
    await settle()
    (opened,) = opened_rooms
    assert opened["admission"] == "ask" and opened["host_name"] == "someone"
    assert opened["failover"] is True and opened["rooms"] is None
    assert opened["served"][2:] == (2, "normal")  # wait for every seat: wait_for 0
    authority = dealer.rooms[CODE].authority
    assert authority.owner == owner and authority.admitted == {owner}
    assert authority.allowed_keys == frozenset() and authority.presence_timeout == 60.0
    assert authority.stand_in_after == 30.0
    # Joined where the dealer is shown, not where it reaches its broker.
    assert sent_to(dealer, link, asker) == [Dealt(1, code=CODE, join="ABC-123@play.example:1883")]
    dealer._on_inbox(to_inbox(dealer, asker, Deal(2, "dominoes", 2, "Eve")), 1.0)
    await settle()
    assert opened_rooms[1]["admission"] == "any"


async def test_a_room_never_stood_in_for_has_no_away_watch(
    opened_rooms: list[dict[str, Any]],
) -> None:
    dealer, _ = a_dealer()
    deal = Deal(1, "dominoes", 2, "Eve", stand_in_after=0.0)
    dealer._on_inbox(to_inbox(dealer, Identity.generate(), deal), 1.0)
    await settle()
    assert dealer.rooms[CODE].authority.stand_in_after is None


async def test_a_room_that_cannot_be_opened_is_refused_and_its_lobby_given_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async def no_broker(game_id: str, config: Any, **options: Any) -> Hosted:
        raise ConnectionError("the broker at 127.0.0.1:1883 cannot be reached")

    monkeypatch.setattr(service, "open_room", no_broker)
    dealer, link = a_dealer(tmp_path)
    asker = Identity.generate()
    dealer._lobbies[asker.public_key] = 1  # another room of its, waiting
    dealer._on_inbox(to_inbox(dealer, asker, Deal(5, "dominoes", 2, "Eve")), 1.0)
    await settle()
    reason = "could not open a room: the broker at 127.0.0.1:1883 cannot be reached"
    assert sent_to(dealer, link, asker) == [Dealt(5, refused=reason)]
    assert dealer._lobbies == {asker.public_key: 1} and dealer._opening == set()
    assert dealer.rooms == {} and list((tmp_path / "rooms").glob("*")) == []


def test_a_lobby_done_gives_one_back() -> None:
    dealer, _ = a_dealer()
    asker = b"k" * 32
    dealer._lobbies[asker] = 2
    dealer._lobby_done(asker)
    assert dealer._lobbies == {asker: 1}
    dealer._lobby_done(asker)
    assert dealer._lobbies == {}
    dealer._lobby_done(asker)
    assert dealer._lobbies == {}


# -- a lobby served, a game run to its end -------------------------------------


@pytest.fixture
def filling(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """fill_and_start stood in for: its arguments kept; it ends when
    ``done`` is set (then raises ``error`` if one is given), calling
    ``before_start`` first."""
    state: dict[str, Any] = {"done": asyncio.Event(), "error": None, "cancelled": False}

    async def fill_and_start(room: Any, wanted: int, bots: str, emit: Any, **options: Any) -> None:
        state["args"] = (room, wanted, bots, emit)
        try:
            await state["done"].wait()
        except asyncio.CancelledError:
            state["cancelled"] = True
            state["closed when cancelled"] = list(room.closed)
            raise
        if state["error"] is not None:
            raise state["error"]
        options["before_start"]()

    monkeypatch.setattr(service, "fill_and_start", fill_and_start)
    return state


class Waits:
    """The dealer's asyncio, its waits' timeouts noted."""

    def __init__(self) -> None:
        self.timeouts: list[float | None] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def wait(
        self, tasks: Any, *, timeout: float | None = None, return_when: str = asyncio.ALL_COMPLETED
    ) -> Any:
        self.timeouts.append(timeout)
        return await asyncio.wait(tasks, timeout=timeout, return_when=return_when)


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> Waits:
    noted = Waits()
    monkeypatch.setattr(service, "asyncio", noted)
    return noted


@pytest.fixture
def run_to_end(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The rooms whose game the dealer goes on to run (_run_to_end)."""
    ran: list[str] = []

    async def run(self: Dealer, room: DealtRoom) -> None:
        ran.append(room.code)

    monkeypatch.setattr(Dealer, "_run_to_end", run)
    return ran


def a_dealt_room(dealer: Dealer, code: str = CODE, *, kept: bool = True) -> DealtRoom:
    """Room ``code``, dealt here for Eve, in its lobby."""
    authority = table(code)
    record = KeptRoom(KEPT_VERSION, code, "Eve", [], 30.0) if kept else None
    room = DealtRoom(code, "dominoes", "Eve", authority, cast(Any, Hosted(authority)), kept=record)
    dealer.rooms[code] = room
    dealer._keep(room)
    return room


async def test_a_lobby_filled_starts_its_game_held_by_the_other_dealers(
    tmp_path: Path,
    filling: dict[str, Any],
    run_to_end: list[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    events = Events()
    dealer, link = a_dealer(tmp_path, on_event=events)
    other = Identity.generate()
    dealer.dealers[other.public_key] = OtherDealer("DX", 1, True, 5)
    dealer.trusted = frozenset({other.peer_id})
    asker = b"a" * 32
    dealer._lobbies[asker] = 1
    room = a_dealt_room(dealer)
    task = asyncio.create_task(dealer._serve(room, asker, 2, "hard"))
    await settle()
    hosted, wanted, bots, emit = filling["args"]
    assert (hosted, wanted, bots) == (room.hosted, 2, "hard")
    # What the lobby says is only a status change: the file says so.
    (tmp_path / STATUS_FILE).unlink(missing_ok=True)
    emit("seated", seat=0, name="Ana")
    await settle()
    assert (tmp_path / STATUS_FILE).exists()
    # Its election: made when the game starts, with the dealers chosen then.
    config, _ = make_room_config(
        room.authority.identity,
        [dealer.identity.public_key, other.public_key],
        dealers={dealer.identity.public_key, other.public_key},
    )
    room.authority._election = encode_room_config(config)
    filling["done"].set()
    await asyncio.wait_for(task, 5)
    assert room.authority.dealers == (other.public_key,)
    (hold,) = sent_to(dealer, link, other)
    assert hold == Hold(
        CODE, room.authority.election, f"{HOST}:{PORT}", room.authority.identity.public_key
    )
    assert dealer._lobbies == {}
    assert room.kept is not None and room.kept.replicated
    assert read_kept(kept_path(tmp_path / "rooms", CODE)).replicated
    assert said(caplog)[-1] == f"INFO room {CODE}: the game started (2 voters, held with DX)"
    assert events.seen == [("started", {"code": CODE, "fails_over": True})]
    assert run_to_end == [CODE]


async def test_a_game_nobody_else_holds_is_kept_for_a_restart_here(
    tmp_path: Path,
    filling: dict[str, Any],
    run_to_end: list[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    events = Events()
    dealer, link = a_dealer(tmp_path, on_event=events)
    room = a_dealt_room(dealer)
    filling["done"].set()
    await dealer._serve(room, b"a" * 32, 2, "normal")
    assert room.authority.dealers == ()
    assert room.kept is not None and not room.kept.replicated
    assert not read_kept(kept_path(tmp_path / "rooms", CODE)).replicated
    assert said(caplog) == [
        f"INFO room {CODE}: the game started "
        "(no other dealer holds it: it waits for this one if it stops)"
    ]
    assert events.seen == [("started", {"code": CODE, "fails_over": False})]
    assert run_to_end == [CODE]
    await settle()
    assert [topic for topic, _, _ in link.published] == [presence_topic(dealer.identity.peer_id)]


async def test_a_lobby_that_fails_to_fill_gives_its_asker_s_lobby_back(
    filling: dict[str, Any], run_to_end: list[str]
) -> None:
    dealer, _ = a_dealer()
    asker = b"a" * 32
    dealer._lobbies[asker] = 1
    room = a_dealt_room(dealer, kept=False)
    filling["error"] = RuntimeError("the table broke")
    filling["done"].set()
    with pytest.raises(RuntimeError, match="the table broke"):
        await dealer._serve(room, asker, 2, "normal")
    assert dealer._lobbies == {} and run_to_end == []


async def test_a_lobby_nobody_sits_in_closes_after_the_first_seat_wait(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    filling: dict[str, Any],
    run_to_end: list[str],
    waits: Waits,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(service, "FIRST_SEAT_WAIT", 0.03)
    monkeypatch.setattr(service, "LOBBY_TIMEOUT", 60.0)
    events = Events()
    dealer, _ = a_dealer(tmp_path, on_event=events)
    asker = b"a" * 32
    dealer._lobbies[asker] = 1
    room = a_dealt_room(dealer)
    await asyncio.wait_for(dealer._serve(room, asker, 2, "normal"), 5)
    why = "nobody sat in 0.0005 minutes"
    assert said(caplog) == [f"INFO room {CODE}: {why}: closed"]
    assert events.seen == [("closed", {"code": CODE, "why": why})]
    assert filling["cancelled"] and dealer._lobbies == {} and run_to_end == []
    assert waits.timeouts == [0.03]
    assert filling["closed when cancelled"] == []  # its lobby stopped, then the room closed
    assert dealer.rooms == {} and cast(Hosted, room.hosted).closed == [False]
    assert not kept_path(tmp_path / "rooms", CODE).exists()


async def test_a_lobby_someone_sat_in_waits_for_the_lobby_timeout(
    monkeypatch: pytest.MonkeyPatch,
    filling: dict[str, Any],
    run_to_end: list[str],
    waits: Waits,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(service, "FIRST_SEAT_WAIT", 0.03)
    monkeypatch.setattr(service, "LOBBY_TIMEOUT", 0.09)
    events = Events()
    dealer, _ = a_dealer(on_event=events)
    room = a_dealt_room(dealer)
    room.authority.seats[0] = SeatSlot("Ana", HUMAN, key=b"a" * 32, present=True)
    await asyncio.wait_for(dealer._serve(room, b"a" * 32, 2, "normal"), 5)
    why = "nobody came in 0.0015 minutes"
    assert said(caplog) == [f"INFO room {CODE}: {why}: closed"]
    assert events.seen == [("closed", {"code": CODE, "why": why})]
    assert filling["cancelled"] and dealer.rooms == {} and run_to_end == []
    assert waits.timeouts == [0.03, 0.09 - 0.03]


async def test_a_lobby_filled_after_the_first_seat_wait_still_starts(
    monkeypatch: pytest.MonkeyPatch, filling: dict[str, Any], run_to_end: list[str]
) -> None:
    monkeypatch.setattr(service, "FIRST_SEAT_WAIT", 0.0)
    dealer, _ = a_dealer()
    room = a_dealt_room(dealer)
    room.authority.seats[1] = SeatSlot("Ben", HUMAN, key=b"b" * 32, present=True)
    task = asyncio.create_task(dealer._serve(room, b"a" * 32, 2, "normal"))
    await settle()  # past the first wait: someone sat, it waits on
    assert not task.done()
    filling["done"].set()
    await asyncio.wait_for(task, 5)
    assert run_to_end == [CODE] and not filling["cancelled"]


async def test_a_lobby_served_no_more_stops_filling_and_gives_its_lobby_back(
    filling: dict[str, Any], run_to_end: list[str]
) -> None:
    """Its serving cancelled (the dealer stops): the lobby's filling stops
    with it, and its asker may ask again."""
    dealer, _ = a_dealer()
    asker = b"a" * 32
    dealer._lobbies[asker] = 1
    room = a_dealt_room(dealer)
    task = asyncio.create_task(dealer._serve(room, asker, 2, "normal"))
    await settle()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await settle()
    assert filling["cancelled"] and dealer._lobbies == {} and run_to_end == []


def test_someone_sat_only_when_a_person_holds_a_seat() -> None:
    authority = table(players=3)
    assert not _someone_sat(authority)
    authority.set_bot(0, "normal")
    assert not _someone_sat(authority)
    authority.seats[2] = SeatSlot("Ana", HUMAN, key=b"a" * 32)
    assert _someone_sat(authority)


def test_the_other_dealers_chosen_are_the_online_ones_with_most_room() -> None:
    dealer, _ = a_dealer()

    def chosen() -> tuple[bytes, ...] | None:
        authority = table()
        dealer._choose_dealers(authority)
        return authority.dealers

    keys = [bytes([n]) * 32 for n in range(8)]
    dealer.trusted = frozenset(peer_id(key) for key in keys[:6])
    dealer.dealers = {
        keys[0]: OtherDealer("A", 1, True, 3),
        keys[1]: OtherDealer("B", 1, True, 0),  # full
        keys[2]: OtherDealer("C", 1, True, 5),
        keys[3]: OtherDealer("E", 1, False, 9),  # offline
        keys[4]: OtherDealer("F", 1, True, 1),
        # Anyone may say "I am a dealer, with room for many": one this
        # dealer does not trust (--trust) never holds a share of its rooms.
        keys[6]: OtherDealer("Stranger", 1, True, 10**9),
        keys[7]: OtherDealer("Another", 1, True, 10**9),
    }
    assert chosen() == (keys[2], keys[0])
    dealer.dealers[keys[5]] = OtherDealer("G", 1, True, 5)  # a tie: by key, the greater first
    assert chosen() == (keys[5], keys[2])
    dealer.dealers = {keys[1]: OtherDealer("B", 1, True, 0), keys[4]: OtherDealer("F", 1, True, 1)}
    assert chosen() == (keys[4],)
    dealer.dealers = {}
    assert chosen() == ()
    dealer.dealers = {keys[6]: OtherDealer("Stranger", 1, True, 10**9)}
    dealer.trusted = frozenset()
    assert chosen() == ()


async def test_holds_from_a_dealer_not_trusted_are_ignored(
    voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    """A Hold gives a share of a room's secret; one from a dealer this one
    does not trust (--trust) is ignored, in words, and counted."""
    dealer, _ = a_dealer()
    maker = Identity.generate()
    hold, _ = hold_for(dealer, maker)
    dealer.trusted = frozenset({Identity.generate().peer_id})
    dealer._on_inbox(to_inbox(dealer, maker, hold), 1.0)
    await settle()
    assert dealer.held == {} and voters == []
    assert said(caplog)[-1] == (
        f"WARNING ignored a hold from {fingerprint(maker.public_key)}: not a dealer this one trusts"
    )
    assert dealer._floods.counts == {"hold-untrusted": 1}


def test_the_voting_line_names_the_other_dealers() -> None:
    dealer, _ = a_dealer()
    known, unknown, player = (Identity.generate() for _ in range(3))
    dealer.dealers[known.public_key] = OtherDealer("DX", 1, True, 2)
    authority = table()
    assert dealer._voting_line(authority) == (
        "no other dealer holds it: it waits for this one if it stops"
    )
    me = dealer.identity.public_key
    config, _ = make_room_config(
        authority.identity,
        [me, known.public_key, unknown.public_key, player.public_key],
        dealers={me, known.public_key, unknown.public_key},
    )
    authority._election = encode_room_config(config)
    assert dealer._voting_line(authority) == f"4 voters, held with DX, {unknown.peer_id}"


async def test_holds_and_releases_go_to_the_other_dealers_only() -> None:
    dealer, link = a_dealer()
    other, player = Identity.generate(), Identity.generate()
    authority = table()
    dealer._send_holds(authority)  # no election: nobody to tell
    dealer._send_releases(authority)
    me = dealer.identity.public_key
    config, _ = make_room_config(
        authority.identity,
        [me, other.public_key, player.public_key],
        dealers={me, other.public_key},
    )
    authority._election = encode_room_config(config)
    dealer._send_holds(authority)
    dealer._send_releases(authority)
    await settle()
    hold = Hold(CODE, authority.election, f"{HOST}:{PORT}", authority.identity.public_key)
    assert sent_to(dealer, link, other) == [hold, Release(CODE)]
    assert {topic for topic, _, _ in link.published} == {inbox_topic(other.peer_id)}
    dealer._link = None  # gone: nothing sent, nothing raised
    dealer._send_holds(authority)
    dealer._send_releases(authority)
    await settle()
    assert len(link.published) == 2


async def test_a_game_over_releases_its_holders_and_closes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def over(authority: Authority) -> bool:
        return False

    monkeypatch.setattr(service, "over_or_stepped_down", over)
    events = Events()
    dealer, link = a_dealer(tmp_path, on_event=events)
    other = Identity.generate()
    room = a_dealt_room(dealer)
    me = dealer.identity.public_key
    config, _ = make_room_config(
        room.authority.identity, [me, other.public_key], dealers={me, other.public_key}
    )
    room.authority._election = encode_room_config(config)
    await dealer._run_to_end(room)
    await settle()
    assert said(caplog) == [f"INFO room {CODE}: the game is over"]
    assert events.seen == [("over", {"code": CODE})]
    assert sent_to(dealer, link, other) == [Release(CODE)]
    assert dealer.rooms == {} and cast(Hosted, room.hosted).closed == [False]
    assert not kept_path(tmp_path / "rooms", CODE).exists()


@pytest.mark.parametrize("stopping", [False, True])
async def test_a_table_that_moved_away_is_forgotten_here(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    stopping: bool,
) -> None:
    async def stepped_down(authority: Authority) -> bool:
        return True

    monkeypatch.setattr(service, "over_or_stepped_down", stepped_down)
    events = Events()
    dealer, link = a_dealer(tmp_path, on_event=events)
    dealer._stopping = stopping
    room = a_dealt_room(dealer)
    room.authority.stepped_down = 4
    other = a_dealt_room(dealer, "XYZ789")
    other_task = asyncio.create_task(dealer._run_to_end(other))  # stepped_down None
    await dealer._run_to_end(room)
    await other_task
    await settle()
    moved = "INFO room {}: term {} runs elsewhere: this dealer no longer runs the table"
    expected = [moved.format("XYZ789", 0), moved.format(CODE, 4)]
    assert sorted(said(caplog)) == ([] if stopping else sorted(expected))
    assert sorted(events.seen, key=lambda e: e[1]["code"]) == [
        ("moved_away", {"code": CODE, "term": 4}),
        ("moved_away", {"code": "XYZ789", "term": 0}),
    ]
    assert dealer.rooms == {} and cast(Hosted, room.hosted).closed == []
    assert list((tmp_path / "rooms").glob("*.deal")) == []
    if not stopping:  # its presence says it runs none now (a stopping one says offline)
        assert presences(dealer, link)[-1][0].rooms == 0
    assert sent_to(dealer, link, Identity.generate()) == []


async def test_closing_a_room_closes_what_it_holds_too(tmp_path: Path, voters: list[Voter]) -> None:
    dealer, link = a_dealer(tmp_path)
    maker = Identity.generate()
    held = await held_by(dealer, maker)
    authority = Table(CODE, "playing", None)
    room = DealtRoom(CODE, "dominoes", "Eve", cast(Authority, authority), taken=True)
    dealer.rooms[CODE] = room
    keep(tmp_path / "rooms", KeptRoom(KEPT_VERSION, CODE, "Eve", [], 30.0))
    await dealer._close(room)
    assert authority.calls == ["close keep=False"]
    assert dealer.rooms == {} and dealer.held == {} and held.released
    assert voter_of(held).calls == ["start", "close"]
    assert not kept_path(tmp_path / "rooms", CODE).exists()
    await settle()
    assert presences(dealer, link)[-1][0].rooms == 0 and link.subscriptions == []


async def test_a_taken_over_game_over_no_longer_follows_its_authority(
    monkeypatch: pytest.MonkeyPatch, voters: list[Voter]
) -> None:
    """A room this dealer held, then took over, then ran to its end: its
    authority's topic is nothing to this dealer any more (it stayed
    subscribed, on this link and after every reconnection, for each room
    it ever took over; found by this file)."""

    async def over(authority: Authority) -> bool:
        return False

    monkeypatch.setattr(service, "over_or_stepped_down", over)
    dealer, link = a_dealer()
    held = await held_by(dealer, Identity.generate())
    assert link.subscriptions == [authority_topic(CODE)]
    voter_of(held).options["on_table"](table())
    room = dealer.rooms[CODE]
    assert room.task is not None
    await asyncio.wait_for(room.task, 5)
    assert dealer.rooms == {} and dealer.held == {} and held.released
    assert voter_of(held).calls == ["start", "close"]
    assert link.subscriptions == []


# -- rooms held for other dealers ----------------------------------------------


async def test_a_hold_from_the_room_s_maker_is_held_here(
    tmp_path: Path, voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    dealer, link = a_dealer(tmp_path, alternates=(("10.0.0.9", 1885),))
    maker = Identity.generate()
    dealer.dealers[maker.public_key] = OtherDealer("DX", 1, True, 3)
    # On another node of the dealer's own cluster: followed there.
    hold, config = hold_for(dealer, maker, broker="10.0.0.9:1885")
    dealer._on_inbox(to_inbox(dealer, maker, hold), 1.0)
    await settle()
    held = dealer.held[CODE]
    (voter,) = voters
    assert (held.code, held.config, voter_of(held), held.room_key) == (
        CODE,
        config,
        voter,
        hold.room_key,
    )
    assert (held.term, held.released) == (1, False)
    assert (voter.identity, voter.code, voter.config, voter.election) == (
        dealer.identity,
        CODE,
        config,
        hold.election,
    )
    assert (voter.host, voter.port) == ("10.0.0.9", 1885)
    options = dict(voter.options)
    assert options.pop("seat_name")() == "D"
    room_key, over = options.pop("room_key"), options.pop("over")
    options.pop("on_table")  # said by what it does: a table taken over is run here
    assert options == {
        "dealer": True,
        "advertise": False,
        "cluster": ((HOST, PORT), ("10.0.0.9", 1885)),
        "directory": tmp_path / "held",
    }
    assert room_key() == hold.room_key and over() is False
    assert voter.calls == ["start"]
    assert link.subscriptions == [authority_topic(CODE)]
    assert said(caplog) == [f"INFO room {CODE}: holds it for dealer DX"]
    assert presences(dealer, link)[-1][0].rooms == 1
    assert json.loads((tmp_path / STATUS_FILE).read_text())["rooms"] == [
        {"code": CODE, "role": "holds", "term": 1, "phase": "playing", "for": "dealer DX"}
    ]
    # Held once: the same hold again changes nothing.
    dealer._on_hold(maker.public_key, hold, 2.0)
    assert len(voters) == 1 and dealer.held[CODE] is held
    # Let go, it is over for its voter.
    del dealer.held[CODE]
    assert over() is True and room_key() is None


@pytest.mark.parametrize("broker", ["broker.example:1884", "10.0.0.7:1884", "", f"{HOST}:{PORT}"])
async def test_a_hold_is_held_on_the_dealer_s_own_broker_unless_it_names_another_of_its_cluster(
    voters: list[Voter], caplog: pytest.LogCaptureFixture, broker: str
) -> None:
    """Anyone may send a Hold: one naming an address outside the dealer's
    cluster (a name, another machine) is held where the dealer is, never
    followed (the dealer would connect wherever a stranger said)."""
    dealer, _ = a_dealer()
    maker = Identity.generate()
    hold, _ = hold_for(dealer, maker, broker=broker)
    dealer._on_hold(maker.public_key, hold, 1.0)
    (voter,) = voters
    assert (voter.host, voter.port) == (HOST, PORT)
    assert voter.options["directory"] is None
    assert said(caplog) == [f"INFO room {CODE}: holds it for dealer {maker.peer_id}"]


async def test_holds_from_fresh_keys_cannot_fill_the_dealer_with_rooms_nobody_plays(
    voters: list[Voter], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key is free: Holds of made-up rooms from fresh keys are held while
    few wait for their authority (MAX_UNHEARD_HOLDS), refused past that,
    and each let go when no authority is heard in REHOLD_WAIT; a room whose
    authority is heard stays held."""
    monkeypatch.setattr(service, "REHOLD_WAIT", 0.2)
    dealer, _ = a_dealer()
    codes = [f"HOLD{n:02d}" for n in range(service.MAX_UNHEARD_HOLDS + 3)]
    for code in codes:
        maker = Identity.generate()
        hold, _ = hold_for(dealer, maker, code)
        dealer._on_inbox(to_inbox(dealer, maker, hold), 1.0)
    await settle()
    assert sorted(dealer.held) == codes[: service.MAX_UNHEARD_HOLDS]
    assert dealer._floods.counts == {"hold-unheard": 3}
    waiting = f"{service.MAX_UNHEARD_HOLDS} rooms held wait for their authority"
    assert f"WARNING could not hold room {codes[-3]}: {waiting}" in said(caplog)
    # One room's authority is heard: it stays; a slot is free again.
    dealer.held[codes[0]].voter.replica.authority_known.set()
    maker = Identity.generate()
    hold, _ = hold_for(dealer, maker, codes[-1])
    dealer._on_inbox(to_inbox(dealer, maker, hold), 1.0)
    assert codes[-1] in dealer.held
    async with asyncio.timeout(5):
        while len(dealer.held) > 1:
            await asyncio.sleep(0.05)
    assert list(dealer.held) == [codes[0]]
    let_go = [line for line in said(caplog) if "no longer held here" in line]
    assert len(let_go) == service.MAX_UNHEARD_HOLDS, said(caplog)
    assert all(
        "no authority was heard in 0.2 s: no game is played there" in line for line in let_go
    )


@pytest.mark.parametrize(
    "how",
    [
        "no config",
        "sent by another key",
        "not naming this dealer",
        "naming this dealer as a player",
    ],
)
async def test_a_hold_not_made_for_this_dealer_is_ignored(
    voters: list[Voter], caplog: pytest.LogCaptureFixture, how: str
) -> None:
    dealer, link = a_dealer()
    maker = Identity.generate()
    key = Identity.generate().public_key
    sender = maker
    if how == "no config":
        election = b"\x01" * 100
    elif how == "sent by another key":
        election = room_config(maker, dealer)[1]
        sender = Identity.generate()
    elif how == "not naming this dealer":
        config, _ = make_room_config(
            maker, [maker.public_key, key], dealers={maker.public_key, key}
        )
        election = encode_room_config(config)
    else:
        election = room_config(maker, dealer, me_a_dealer=False)[1]
    dealer._on_inbox(to_inbox(dealer, sender, Hold(CODE, election, "", key)), 1.0)
    await settle()
    why = (
        "ignored a hold not made by its sender"
        if how in ("no config", "sent by another key")
        else "ignored a hold that does not name this dealer"
    )
    assert said(caplog) == [f"WARNING {why}"]
    assert dealer._floods.counts == {"hold-bad": 1}
    assert dealer.held == {} and voters == [] and link.published == []


async def test_a_full_or_stopping_dealer_holds_nothing_more(
    voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    dealer, _ = a_dealer(max_rooms=2)
    maker = Identity.generate()
    a_dealt_room(dealer, "AAAAAA")
    hold, _ = hold_for(dealer, maker)
    dealer._on_hold(maker.public_key, hold, 1.0)  # one room of two: held
    assert set(dealer.held) == {CODE}
    hold, _ = hold_for(dealer, maker, "BBBBBB")
    dealer._on_hold(maker.public_key, hold, 1.0)
    assert said(caplog)[-1] == "WARNING could not hold room BBBBBB: full"
    assert dealer._floods.counts == {"hold-full": 1}
    dealer.max_rooms = 3
    dealer._stopping = True
    dealer._on_hold(maker.public_key, hold, 100.0)
    assert said(caplog)[-1] == "WARNING could not hold room BBBBBB: full"
    assert dealer._floods.counts == {"hold-full": 2}
    assert set(dealer.held) == {CODE} and len(voters) == 1


async def test_a_hold_of_a_room_this_dealer_runs_is_a_copy(
    voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    dealer, _ = a_dealer()
    maker = Identity.generate()
    a_dealt_room(dealer)
    hold, _ = hold_for(dealer, maker)
    dealer._on_hold(maker.public_key, hold, 1.0)
    assert dealer.held == {} and voters == [] and said(caplog) == []
    assert dealer._floods.counts == {}


async def test_an_announcement_of_a_held_room_tells_its_room_key(
    voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    dealer, _ = a_dealer()
    maker, stranger = Identity.generate(), Identity.generate()
    held = await held_by(dealer, maker)
    first = held.room_key
    topic = authority_topic(CODE)
    key2, key3 = Identity.generate().public_key, Identity.generate().public_key

    def announce(by: Identity, term: int, key: bytes, on: str = topic) -> None:
        dealer._on_announce(on, seal(by, on, Announce(term=term, room_key=key)), 1.0)

    announce(maker, 1, key2)  # the same term: nothing new
    announce(stranger, 2, key2)  # no voter of the room
    announce(maker, 2, b"")  # a voter that runs no game
    announce(maker, 2, key2, f"passe/v1/{CODE}/e/other")  # another topic of the room
    announce(maker, 2, key2, authority_topic("XYZ789"))  # another room
    assert (held.term, held.room_key, dealer._held_key(CODE)) == (1, first, first)
    announce(maker, 3, key3)
    assert (held.term, held.room_key, dealer._held_key(CODE)) == (3, key3, key3)
    announce(maker, 2, key2)  # an older term: not taken back
    assert (held.term, held.room_key) == (3, key3)
    dealer._on_announce(topic, b"", 1.0)  # cleared: nothing said
    assert said(caplog)[1:] == []
    dealer._on_announce(topic, seal(maker, "elsewhere", Announce(term=4, room_key=key2)), 1.0)
    assert said(caplog)[1:] == ["WARNING ignored an announcement: bad signature"]
    assert dealer._floods.counts == {"announce-bad": 1}
    assert (held.term, held.room_key) == (3, key3)


def test_a_held_room_s_key_is_none_until_known() -> None:
    dealer, _ = a_dealer()
    assert dealer._held_key(CODE) is None
    voter = cast(Any, Voter(dealer.identity, CODE, cast(Config, None), b"", HOST, PORT))
    dealer.held[CODE] = HeldRoom(CODE, cast(Config, None), voter, b"")
    assert dealer._held_key(CODE) is None
    dealer.held[CODE].room_key = b"k" * 32
    assert dealer._held_key(CODE) == b"k" * 32


async def test_a_release_from_a_dealer_of_the_room_lets_it_go(
    tmp_path: Path, voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    dealer, link = a_dealer(tmp_path)
    maker, stranger = Identity.generate(), Identity.generate()
    held = await held_by(dealer, maker)
    player = next(v.key for v in held.config.voters if not v.dealer)
    assert player != maker.public_key
    dealer._on_release(stranger.public_key, Release(CODE))
    dealer._on_release(player, Release(CODE))
    dealer._on_release(maker.public_key, Release("XYZ789"))
    await settle()
    assert dealer.held == {CODE: held} and voter_of(held).calls == ["start"]
    dealer._on_inbox(to_inbox(dealer, maker, Release(CODE)), 1.0)
    await settle()
    assert dealer.held == {} and held.released
    assert voter_of(held).calls == ["start", "close"]
    assert link.subscriptions == []
    assert said(caplog)[-1] == f"INFO room {CODE}: no longer held here (its game is over)"
    assert presences(dealer, link)[-1][0].rooms == 0
    assert dealer.status()["rooms"] == []


async def test_a_room_let_go_that_this_dealer_runs_keeps_its_voter(
    voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    dealer, link = a_dealer()
    maker = Identity.generate()
    held = await held_by(dealer, maker)
    a_dealt_room(dealer)  # taken over: its voter runs the table
    await dealer._let_go(held, "its game is over")
    assert dealer.held == {} and held.released and link.subscriptions == []
    assert voter_of(held).calls == ["start"]
    assert said(caplog) == [f"INFO room {CODE}: holds it for dealer {maker.peer_id}"]
    await dealer._let_go(held, "again")  # let go already: nothing
    assert voter_of(held).calls == ["start"]


async def test_a_stopping_dealer_sets_its_held_rooms_aside_for_its_next_start(
    tmp_path: Path, voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    dealer, link = a_dealer(tmp_path)
    maker = Identity.generate()
    held = await held_by(dealer, maker)
    other = await held_by(dealer, maker, "XYZ789")
    a_dealt_room(dealer, "XYZ789")  # its table runs here: its voter is the table's
    await dealer._set_aside(held)
    await dealer._set_aside(other)
    assert dealer.held == {} and held.released and other.released
    assert voter_of(held).calls == ["start", "close"] and voter_of(other).calls == ["start"]
    assert link.subscriptions == []
    assert said(caplog)[2:] == [
        f"INFO room {CODE}: held again when this dealer starts again",
        "INFO room XYZ789: held again when this dealer starts again",
    ]
    replaced = await held_by(dealer, maker)
    await dealer._set_aside(held)  # no longer the one held: nothing
    assert dealer.held == {CODE: replaced} and not replaced.released


async def test_a_dealer_with_no_directory_lets_its_held_rooms_go_as_it_stops(
    voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    dealer, _ = a_dealer()
    held = await held_by(dealer, Identity.generate())
    await dealer._set_aside(held)
    assert dealer.held == {} and voter_of(held).calls == ["start", "close"]
    assert said(caplog)[-1] == f"INFO room {CODE}: no longer held here (this dealer stops)"


async def test_a_held_room_whose_table_this_dealer_won_is_run_here(
    voters: list[Voter], run_to_end: list[str]
) -> None:
    events = Events()
    dealer, link = a_dealer(on_event=events)
    held = await held_by(dealer, Identity.generate())
    voter = voter_of(held)
    voter.former_host = "Eve"
    voter.replica.term = 3
    authority = table()
    voter.options["on_table"](authority)
    await settle()
    room = dealer.rooms[CODE]
    assert (room.code, room.game, room.asker, room.authority, room.taken) == (
        CODE,
        "dominoes",
        "Eve",
        authority,
        True,
    )
    assert (room.hosted, room.kept) == (None, None)
    assert authority.dealer_name == "D" and authority.host_name == "Eve"
    assert events.seen == [("took_over", {"code": CODE, "term": 3})]
    assert presences(dealer, link)[-1][0].rooms == 2  # held, and run
    assert room.task is not None and run_to_end == [CODE]
    assert dealer.status()["rooms"][0]["role"] == "runs (taken over)"
    # Of a room not held (any more): its host stays, its term unknown.
    other = table("XYZ789")
    dealer._took_over("XYZ789", other)
    await settle()
    assert other.host_name == "Host" and dealer.rooms["XYZ789"].asker == "Host"
    assert events.seen[-1] == ("took_over", {"code": "XYZ789", "term": 0})
    # A voter that knew no former host leaves the authority's.
    again = await held_by(dealer, Identity.generate(), "QRS456")
    third = table("QRS456")
    voter_of(again).options["on_table"](third)
    assert third.host_name == "Host"


async def test_a_table_taken_over_keeps_the_owner_its_log_names(
    voters: list[Voter], run_to_end: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    """How a room was asked for travels in its saves (``dealt_as``): the
    dealer that takes its table over gives it the same owner, who opens its
    next game here, and the same rule for who sits. A log that says it
    unreadably, or of another room, leaves the room without an owner,
    said in the log."""
    dealer, _ = a_dealer()
    owner = Identity.generate().public_key
    kept = KeptRoom(KEPT_VERSION, CODE, "Eve", [], 30.0, owner=owner, wanted=2, bots="hard")
    authority = table()
    authority.dealt_as = encode_kept(kept)
    dealer._took_over(CODE, authority)
    await settle()
    room = dealer.rooms[CODE]
    assert room.kept == msgspec.structs.replace(kept, replicated=True)  # never resumed here
    assert authority.owner == owner and owner in authority.admitted
    assert authority.admission == "ask" and authority.on_again is not None
    # A room that lets listed keys in keeps that rule (and its list).
    listed = msgspec.structs.replace(kept, code="XYZ234", admit=["aaaa-bbbb"], owner=b"")
    keys_only = table("XYZ234")
    keys_only.dealt_as = encode_kept(listed)
    dealer._took_over("XYZ234", keys_only)
    assert keys_only.admission == "keys" and keys_only.allowed_keys == {"aaaa-bbbb"}
    assert keys_only.owner is None and keys_only.on_again is None
    # Damaged, or naming another room: no owner, and why.
    for code, data in (("QRS456", b"\x93not json"), ("TVW567", encode_kept(kept))):
        other = table(code)
        other.dealt_as = data
        dealer._took_over(code, other)
        assert other.owner is None and other.on_again is None and dealer.rooms[code].kept is None
    said = [
        r.getMessage() for r in caplog.records if "its owner is not known here" in r.getMessage()
    ]
    assert len(said) == 2 and "room TVW567's log: it names room" in said[1], said


def test_another_dealer_is_named_by_its_name_or_else_its_peer_id() -> None:
    dealer, _ = a_dealer()
    other = Identity.generate()
    assert dealer._dealer_name(other.public_key) == other.peer_id
    dealer.dealers[other.public_key] = OtherDealer("DX", 1, True, 0)
    assert dealer._dealer_name(other.public_key) == "DX"


# -- held again after a restart --------------------------------------------------


def a_voter_file(
    directory: Path, me: Identity, maker: Identity, voters: list[tuple[bytes, bool]]
) -> tuple[Path, str]:
    """A voter file of ``me`` in a room made by ``maker`` (``voters``: each
    key, and whether it is a dealer); the file and the room's code."""
    config, _ = make_room_config(
        maker, [key for key, _ in voters], dealers={key for key, dealer in voters if dealer}
    )
    code = new_code()
    path = voter_file(code, me, directory)
    FileStorage.create(path, first_persisted(config, maker.public_key))
    return path, code


async def test_the_rooms_held_before_a_restart_are_held_again(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    voters: list[Voter],
    caplog: pytest.LogCaptureFixture,
) -> None:
    heard: list[HeldRoom] = []

    async def until_heard(self: Dealer, held: HeldRoom, why: str) -> None:
        heard.append(held)

    monkeypatch.setattr(Dealer, "_until_heard", until_heard)
    events = Events()
    dealer, link = a_dealer(tmp_path, on_event=events)
    me, maker, player = dealer.identity, Identity.generate(), Identity.generate()
    held_dir = tmp_path / "held"
    held_dir.mkdir()
    dealers = [(maker.public_key, True), (me.public_key, True)]
    good, code = a_voter_file(held_dir, me, maker, [*dealers, (player.public_key, False)])
    as_player, _ = a_voter_file(held_dir, me, maker, [dealers[0], (me.public_key, False)])
    not_named, _ = a_voter_file(held_dir, me, maker, [dealers[0], (player.public_key, True)])
    damaged = voter_file(new_code(), me, held_dir)
    damaged.write_bytes(b"\x00not a voter file")
    bad_letters = held_dir / f"AB+#CD-{me.peer_id}.vote"
    too_long = held_dir / f"ABCDEFG-{me.peer_id}.vote"
    for path in (bad_letters, too_long):
        path.write_bytes(good.read_bytes())
    someone_else_s = voter_file(new_code(), player, held_dir)
    someone_else_s.write_bytes(good.read_bytes())
    await dealer.resume_held()
    await settle()
    assert set(dealer.held) == {code}
    assert heard == [dealer.held[code]]  # let go unless its authority is heard
    (voter,) = voters
    assert (voter.host, voter.port, dealer.held[code].room_key) == (HOST, PORT, b"")
    assert voter.options["directory"] == held_dir and voter.calls == ["start"]
    assert link.subscriptions == [authority_topic(code)]
    for path in (as_player, not_named, damaged, bad_letters, too_long):
        assert not path.exists(), path
    assert good.exists() and someone_else_s.exists()
    removed = "WARNING room {}: its voter file here is not one of a held room: removed"
    expected = [
        removed.format(path.name.split("-")[0])
        for path in (as_player, not_named, damaged, bad_letters, too_long)
    ]
    lines = said(caplog)
    assert f"INFO room {code}: holds it again (term 1 in its voter file)" in lines
    assert sorted(line for line in lines if "removed" in line) == sorted(expected)
    assert ("holds_again", {"code": code, "term": 1}) in events.seen


async def test_a_room_held_already_or_past_the_dealer_s_most_is_not_held_again(
    tmp_path: Path, voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    dealer, _ = a_dealer(tmp_path, max_rooms=1)
    me, maker = dealer.identity, Identity.generate()
    held_dir = tmp_path / "held"
    dealers = [(maker.public_key, True), (me.public_key, True)]
    held_dir.mkdir()
    first, code = a_voter_file(held_dir, me, maker, dealers)
    a_dealt_room(dealer, code)
    await dealer.resume_held()
    assert dealer.held == {} and first.exists() and said(caplog) == []
    del dealer.rooms[code]
    dealer.rooms["AAAAAA"] = DealtRoom("AAAAAA", "dominoes", "E", table("AAAAAA"))
    await dealer.resume_held()
    assert dealer.held == {} and first.exists()
    assert said(caplog) == [f"WARNING room {code}: not held again: this dealer is full"]
    dealer.max_rooms = 2
    await dealer.resume_held()
    assert set(dealer.held) == {code}
    await dealer.resume_held()  # held now: not twice
    assert len(voters) == 1


async def test_a_held_room_passed_over_never_stops_the_rest_being_looked_at(
    tmp_path: Path, voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    """The first file (in name order) of a room run here already is passed
    over and the next is held again; past the dealer's most, each is said."""
    for directory, most in ((tmp_path / "a", 2), (tmp_path / "b", 1)):
        dealer, _ = a_dealer(directory, max_rooms=most)
        me, maker = dealer.identity, Identity.generate()
        held_dir = directory / "held"
        held_dir.mkdir(parents=True)
        dealers = [(maker.public_key, True), (me.public_key, True)]
        made = [a_voter_file(held_dir, me, maker, dealers) for _ in range(2)]
        (_, first), (_, second) = sorted(made, key=lambda found: found[0].name)
        a_dealt_room(dealer, first)
        if most == 1:  # full: neither is held, both said
            del dealer.rooms[first]
            dealer.rooms["AAAAAA"] = DealtRoom("AAAAAA", "dominoes", "E", table("AAAAAA"))
        await dealer.resume_held()
        if most == 2:
            assert set(dealer.held) == {second}
        else:
            assert dealer.held == {}
            assert [line for line in said(caplog) if "full" in line] == [
                f"WARNING room {code}: not held again: this dealer is full"
                for code in (first, second)
            ]


async def test_a_dealer_with_no_held_directory_holds_nothing_again(
    tmp_path: Path, voters: list[Voter]
) -> None:
    dealer, _ = a_dealer()
    await dealer.resume_held()
    dealer, _ = a_dealer(tmp_path)  # its directory, with no held rooms yet
    await dealer.resume_held()
    assert dealer.held == {} and voters == []


async def test_a_room_held_again_is_let_go_when_no_authority_is_heard(
    monkeypatch: pytest.MonkeyPatch, voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(service, "REHOLD_WAIT", 0.01)
    events = Events()
    dealer, _ = a_dealer(on_event=events)
    held = held_again(dealer, Identity.generate())
    why = "no authority was heard in 0.01 s: its game is over"
    await asyncio.wait_for(dealer._until_heard(held, why), 5)
    assert dealer.held == {} and voter_of(held).calls == ["start", "close"]
    assert said(caplog)[-1] == f"INFO room {CODE}: no longer held here ({why})"
    assert events.seen == [("let_go", {"code": CODE, "why": why})]


async def test_a_room_held_again_whose_authority_is_heard_says_when_it_is_in_step(
    monkeypatch: pytest.MonkeyPatch, voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(service, "REHOLD_WAIT", 5.0)
    events = Events()
    dealer, _ = a_dealer(on_event=events)
    held = held_again(dealer, Identity.generate())
    replica = voter_of(held).replica
    replica.term = 4
    replica.authority_known.set()
    replica.driver.in_step.set()
    await asyncio.wait_for(dealer._until_heard(held, "unheard"), 5)
    assert dealer.held == {CODE: held}
    assert said(caplog)[-1] == f"INFO room {CODE}: this dealer's log is in step again"
    assert events.seen == [("in_step", {"code": CODE, "term": 4})]


async def test_a_room_held_again_that_never_catches_up_stays_held_quietly(
    monkeypatch: pytest.MonkeyPatch, voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(service, "REHOLD_WAIT", 0.01)
    events = Events()
    dealer, _ = a_dealer(on_event=events)
    held = held_again(dealer, Identity.generate())
    voter_of(held).replica.authority_known.set()
    await asyncio.wait_for(dealer._until_heard(held, "unheard"), 5)
    assert dealer.held == {CODE: held} and events.seen == []
    # A room let go meanwhile (released): nothing more is done for it.
    gone = held_again(dealer, Identity.generate(), "XYZ789")
    await settle()
    await dealer._let_go(gone, "its game is over")
    await asyncio.wait_for(dealer._until_heard(gone, "unheard"), 5)
    assert events.seen == [] and voter_of(gone).calls == ["start", "close"]


# -- rooms kept over a restart ---------------------------------------------------


def a_kept_room(
    dealer: Dealer, code: str, *, phase: str = "playing", replicated: bool = False
) -> Path:
    """Room ``code`` on disk as the dealer left it (its file and record)."""
    rooms = dealer.rooms_dir
    assert rooms is not None
    rooms.mkdir(parents=True, exist_ok=True)
    saved = table(code).snapshot(BrokerChoice(False, HOST, PORT))
    if phase != "lobby":
        bots = [SavedSeat(f"Bot {n}", "bot", "normal", None) for n in (1, 2)]
        saved = msgspec.structs.replace(saved, phase=phase, seats=bots, seq=9)
    path = room_path(code, rooms)
    write_room(path, saved)
    keep(rooms, KeptRoom(KEPT_VERSION, code, "Eve", [], 30.0, replicated=replicated))
    return path


@pytest.fixture
def resumed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[SavedRoom, dict[str, Any]]]:
    """Each room resume_room is asked for (it runs no broker: a Hosted)."""
    asked: list[tuple[SavedRoom, dict[str, Any]]] = []

    async def resume_room(saved: SavedRoom, **options: Any) -> Hosted:
        asked.append((saved, options))
        authority = table(saved.code)
        authority.presence_timeout = 5.0  # as the dealer's rule sets it, not as found
        return Hosted(authority)

    monkeypatch.setattr(service, "resume_room", resume_room)
    return asked


async def test_a_game_in_play_left_by_a_restart_goes_on_here(
    tmp_path: Path,
    resumed: list[tuple[SavedRoom, dict[str, Any]]],
    run_to_end: list[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    events = Events()
    dealer, link = a_dealer(tmp_path, bot_delay=0.25, alternates=(("10.0.0.9", 1885),))
    dealer.on_event = events
    a_kept_room(dealer, CODE)
    await dealer.resume_kept()
    await settle()
    ((saved, options),) = resumed
    assert saved.code == CODE and saved.phase == "playing"
    assert options == {
        "broker": (HOST, PORT),
        "bot_delay": 0.25,
        "advertise": False,
        "admission": "any",
        "alternates": (("10.0.0.9", 1885),),
        "rooms": tmp_path / "rooms",
    }
    room = dealer.rooms[CODE]
    assert (room.code, room.game, room.asker, room.taken) == (CODE, "dominoes", "Eve", False)
    assert room.kept == KeptRoom(KEPT_VERSION, CODE, "Eve", [], 30.0)
    assert room.authority.voter_identity is dealer.identity
    assert room.authority.dealer_name == "D" and room.authority.presence_timeout == 60.0
    assert said(caplog) == [f"INFO room {CODE}: resumed where it stopped (0 moves)"]
    assert events.seen == [("resumed", {"code": CODE, "moves": 0, "seq": 9})]
    assert run_to_end == [CODE]
    assert presences(dealer, link)[-1][0].rooms == 1
    # Started again with the room running: not resumed twice.
    await dealer.resume_kept()
    assert len(resumed) == 1


async def test_a_kept_room_that_lets_only_some_keys_in_is_resumed_so(
    tmp_path: Path, resumed: list[tuple[SavedRoom, dict[str, Any]]], run_to_end: list[str]
) -> None:
    dealer, _ = a_dealer(tmp_path)
    a_kept_room(dealer, CODE)
    keep(tmp_path / "rooms", KeptRoom(KEPT_VERSION, CODE, "Eve", ["a" * 16], 0.0))
    await dealer.resume_kept()
    assert resumed[0][1]["admission"] == "keys"
    authority = dealer.rooms[CODE].authority
    assert authority.allowed_keys == frozenset({"a" * 16})
    assert authority.presence_timeout is None and authority.stand_in_after is None


async def test_a_kept_room_asked_for_on_screen_keeps_its_owner_after_a_restart(
    tmp_path: Path, resumed: list[tuple[SavedRoom, dict[str, Any]]], run_to_end: list[str]
) -> None:
    """The person who asked for the room on screen is its owner again once
    the dealer restarts: their next game is opened (it was refused, "nobody
    opens a next game": the owner was not kept), and the next room fills as
    they asked."""
    dealer, _ = a_dealer(tmp_path)
    owner = Identity.generate().public_key
    a_kept_room(dealer, CODE)
    kept = KeptRoom(KEPT_VERSION, CODE, "Eve", [], 30.0, owner=owner, wanted=2, bots="hard")
    keep(tmp_path / "rooms", kept)
    await dealer.resume_kept()
    room = dealer.rooms[CODE]
    assert room.kept == kept and (room.kept.wanted, room.kept.bots) == (2, "hard")
    assert room.authority.owner == owner and owner in room.authority.admitted
    assert room.authority.on_again is not None
    # The owner decides who sits, as in the room they asked for (it was
    # "anyone" after a restart), and the room's saves say how it was asked
    # for, for a dealer that takes it over.
    assert resumed[-1][1]["admission"] == "ask"
    assert decode_kept(room.authority.dealt_as, CODE, where="its saves") == kept
    # A record of an earlier Passe, without these fields, reads as no owner.
    a_kept_room(dealer, "XYZ234")
    await dealer.resume_kept()
    assert dealer.rooms["XYZ234"].authority.owner is None
    assert resumed[-1][1]["admission"] == "any"


async def test_a_kept_room_held_by_others_is_not_resumed_and_its_vote_moves(
    tmp_path: Path,
    resumed: list[tuple[SavedRoom, dict[str, Any]]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    events = Events()
    dealer, _ = a_dealer(tmp_path, on_event=events)
    rooms = tmp_path / "rooms"
    a_kept_room(dealer, CODE, replicated=True)
    path = a_kept_room(dealer, "XYZ789")  # its record not yet marked: its voter file says
    vote = maker_vote_path("XYZ789", dealer.identity, rooms)
    vote.write_bytes(b"a voter file")
    (tmp_path / "held").mkdir()  # holding rooms already
    RoomStore(path, BrokerChoice(False, HOST, PORT)).journal_path.write_bytes(b"journal")
    await dealer.resume_kept()
    why = "other dealers hold it: its table moved to one of them"
    assert resumed == [] and dealer.rooms == {}
    assert sorted(said(caplog)) == [
        f"INFO room {CODE}: not resumed ({why})",
        f"INFO room XYZ789: not resumed ({why})",
    ]
    assert sorted(events.seen, key=lambda e: e[1]["code"]) == [
        ("closed", {"code": CODE, "why": why}),
        ("closed", {"code": "XYZ789", "why": why}),
    ]
    assert list(rooms.iterdir()) == []
    assert (tmp_path / "held" / vote.name).read_bytes() == b"a voter file"


async def test_a_kept_room_s_vote_that_cannot_be_moved_is_said(
    tmp_path: Path,
    resumed: list[tuple[SavedRoom, dict[str, Any]]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    dealer, _ = a_dealer(tmp_path)
    a_kept_room(dealer, CODE)
    maker_vote_path(CODE, dealer.identity, tmp_path / "rooms").write_bytes(b"a voter file")
    (tmp_path / "held").write_bytes(b"in the way")
    await dealer.resume_kept()
    assert said(caplog)[-1].startswith(
        f"WARNING room {CODE}: its voter file could not be kept: [Errno 17] File exists"
    )
    assert resumed == []


async def test_a_kept_room_whose_files_are_in_use_keeps_them(
    tmp_path: Path, resumed: list[tuple[SavedRoom, dict[str, Any]]]
) -> None:
    """Its files are another running process's (its lock held): left."""
    dealer, _ = a_dealer(tmp_path)
    path = a_kept_room(dealer, CODE, replicated=True)
    other = RoomStore(path, BrokerChoice(False, HOST, PORT))
    other.claim()
    try:
        await dealer.resume_kept()
        assert path.exists() and not kept_path(tmp_path / "rooms", CODE).exists()
    finally:
        other.release()


async def test_a_lobby_left_by_a_restart_is_closed_and_its_people_told(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    resumed: list[tuple[SavedRoom, dict[str, Any]]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    told: list[tuple[str, Path]] = []

    async def close_interrupted_room(saved: SavedRoom, *, rooms: Path) -> None:
        told.append((saved.code, rooms))
        if saved.code != CODE:
            raise ConnectionError("no broker")

    monkeypatch.setattr(service, "close_interrupted_room", close_interrupted_room)
    events = Events()
    dealer, _ = a_dealer(tmp_path, on_event=events)
    a_kept_room(dealer, CODE, phase="lobby")
    a_kept_room(dealer, "XYZ789", phase="lobby")
    await dealer.resume_kept()
    await settle()
    why = "it was in its lobby when this dealer stopped"
    assert sorted(said(caplog)) == [
        f"INFO room {CODE}: closed ({why})",
        f"INFO room XYZ789: closed ({why})",
    ]
    assert ("closed", {"code": CODE, "why": why}) in events.seen
    assert sorted(told) == [(CODE, tmp_path / "rooms"), ("XYZ789", tmp_path / "rooms")]
    assert resumed == [] and dealer.rooms == {}
    assert list((tmp_path / "rooms").glob("*.deal")) == []


async def test_a_kept_room_whose_file_is_gone_is_forgotten(
    tmp_path: Path,
    resumed: list[tuple[SavedRoom, dict[str, Any]]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    events = Events()
    dealer, _ = a_dealer(tmp_path, on_event=events)
    a_kept_room(dealer, CODE).unlink()
    await dealer.resume_kept()
    error = f"cannot read {CODE}.room: No such file or directory"
    assert said(caplog) == [f"WARNING room {CODE}: not resumed: {error}"]
    assert events.seen == [("closed", {"code": CODE, "why": f"its file cannot be read: {error}"})]
    assert not kept_path(tmp_path / "rooms", CODE).exists() and resumed == []


async def test_a_damaged_kept_record_is_set_aside_and_said(
    tmp_path: Path,
    resumed: list[tuple[SavedRoom, dict[str, Any]]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    dealer, _ = a_dealer(tmp_path)
    rooms = tmp_path / "rooms"
    rooms.mkdir()
    (rooms / "BROKEN.deal").write_bytes(b"\x00not json")
    await dealer.resume_kept()
    (line,) = said(caplog)
    assert line.startswith("WARNING a kept room cannot be read: BROKEN.deal: not a dealer's")
    assert line.endswith(": set aside as BROKEN.deal.bad")
    assert resumed == [] and (rooms / "BROKEN.deal.bad").exists()


@pytest.mark.parametrize(
    ("error", "closed"),
    [
        (RoomMoved("room ABC123 moved to another machine"), True),
        (RoomBusy("room ABC123 is hosted by another running Passe"), True),
        (ConnectionError("the broker cannot be reached"), False),
    ],
)
async def test_a_kept_room_that_cannot_be_resumed_now_says_why(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    error: Exception,
    closed: bool,
) -> None:
    async def resume_room(saved: SavedRoom, **options: Any) -> Hosted:
        raise error

    monkeypatch.setattr(service, "resume_room", resume_room)
    events = Events()
    dealer, _ = a_dealer(tmp_path, on_event=events)
    a_kept_room(dealer, CODE)
    await dealer.resume_kept()
    assert dealer.rooms == {}
    if closed:
        assert said(caplog) == [f"INFO room {CODE}: not resumed: {error}"]
        assert events.seen == [("closed", {"code": CODE, "why": str(error)})]
        assert not kept_path(tmp_path / "rooms", CODE).exists()
    else:  # kept for the next start
        assert said(caplog) == [f"WARNING room {CODE}: could not be resumed now: {error}"]
        assert events.seen == []
        assert kept_path(tmp_path / "rooms", CODE).exists()


async def test_a_dealer_with_no_directory_resumes_nothing(tmp_path: Path) -> None:
    dealer, _ = a_dealer()
    assert dealer.rooms_dir is None and dealer.held_dir is None
    await dealer.resume_kept()
    dealer, _ = a_dealer(tmp_path)
    assert dealer.rooms_dir == tmp_path / "rooms" and dealer.held_dir == tmp_path / "held"
    await dealer.resume_kept()
    assert dealer.rooms == {}


async def test_a_kept_room_running_or_held_here_is_left_alone(
    tmp_path: Path, resumed: list[tuple[SavedRoom, dict[str, Any]]], voters: list[Voter]
) -> None:
    dealer, _ = a_dealer(tmp_path)
    a_kept_room(dealer, CODE)
    await held_by(dealer, Identity.generate())
    await dealer.resume_kept()
    assert resumed == [] and kept_path(tmp_path / "rooms", CODE).exists()


def test_a_record_is_kept_only_in_a_dealer_s_own_directory(tmp_path: Path) -> None:
    dealer, _ = a_dealer()
    room = DealtRoom(CODE, "dominoes", "E", table(), kept=KeptRoom(KEPT_VERSION, CODE, "E", [], 0))
    dealer._keep(room)  # no directory: nothing, nowhere
    dealer._forget(CODE)
    dealer, _ = a_dealer(tmp_path)
    (tmp_path / "rooms").mkdir()
    dealer._keep(DealtRoom(CODE, "dominoes", "E", table()))  # taken over: no record
    assert list((tmp_path / "rooms").iterdir()) == []
    dealer._keep(room)
    assert read_kept(kept_path(tmp_path / "rooms", CODE)) == room.kept
    dealer._forget(CODE)
    assert list((tmp_path / "rooms").iterdir()) == []


# -- handing over ----------------------------------------------------------------


def a_handed_room(
    dealer: Dealer,
    *,
    phase: str = "playing",
    replica: HandingReplica | None = None,
    others: int = 1,
    kept: bool = True,
    online: bool = True,
) -> tuple[DealtRoom, Table, Hosted, list[bytes]]:
    """A room this dealer runs, stood in for; its other dealers' keys (seen
    online by this dealer, unless ``online`` is false)."""
    me = dealer.identity.public_key
    keys = [Identity.generate().public_key for _ in range(others)]
    if online:
        dealer.dealers.update({key: OtherDealer(f"D{n}", 1, True, 5) for n, key in enumerate(keys)})
    player = Identity.generate().public_key
    config, _ = make_room_config(dealer.identity, [me, *keys, player], dealers={me, *keys})
    authority = Table(CODE, phase, replica, encode_room_config(config))
    hosted = Hosted(authority)
    record = KeptRoom(KEPT_VERSION, CODE, "Eve", [], 30.0) if kept else None
    room = DealtRoom(CODE, "dominoes", "Eve", cast(Authority, authority), cast(Any, hosted))
    room.kept = record
    dealer.rooms[CODE] = room
    return room, authority, hosted, keys


async def test_a_table_is_handed_to_a_dealer_that_holds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Its log brought to another dealer, then the election it lets happen:
    both come while the loop turns (the dealer waits, it does not spin)."""
    monkeypatch.setattr(service, "HANDOVER_WAIT", 2.0)
    events = Events()
    dealer, _ = a_dealer(tmp_path, on_event=events)
    replica = HandingReplica(2, caught_up=set(), successor=False)
    room, authority, hosted, keys = a_handed_room(dealer, replica=replica, others=2)
    loop = asyncio.get_running_loop()
    replica.driver.node.later = keys[1]

    def elected() -> None:
        replica.term += 1

    replica.driver.abdicated = lambda: loop.call_soon(elected)
    room.task = asyncio.create_task(asyncio.Event().wait())
    await asyncio.wait_for(dealer._hand_over(room), 5)
    assert authority.calls == ["hand_over"]
    assert replica.driver.node.asked == set(keys)
    assert replica.driver.node.questions == 4  # twice each: before and after a pause
    assert replica.calls == ["abdicate", "close"] and replica.term == 3
    assert said(caplog) == [f"INFO room {CODE}: handed to term 3's dealer"]
    assert events.seen == [("handed", {"code": CODE, "term": 3})]
    assert dealer.rooms == {} and hosted.closed == [True]
    await settle()
    assert room.task.cancelled()


async def test_a_table_nobody_takes_in_time_is_left_to_its_voters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(service, "HANDOVER_WAIT", 0.06)
    events = Events()
    dealer, _ = a_dealer(tmp_path, on_event=events)
    replica = HandingReplica(2, caught_up=set(), successor=False)
    room, _, hosted, keys = a_handed_room(dealer, replica=replica)
    started = time.monotonic()
    await asyncio.wait_for(dealer._hand_over(room), 5)
    assert time.monotonic() - started >= 0.06
    assert replica.driver.node.asked == set(keys)  # the other dealer's, never a player's
    assert said(caplog) == [f"WARNING room {CODE}: no dealer took it within 0.06 s"]
    assert events.seen == []
    assert replica.calls == ["abdicate", "close"] and dealer.rooms == {}
    assert hosted.closed == [True]


@pytest.mark.parametrize("how", ["no other dealer", "no replica", "neither"])
async def test_a_game_nobody_else_holds_is_kept_on_disk_as_the_dealer_stops(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, how: str
) -> None:
    events = Events()
    dealer, _ = a_dealer(tmp_path, on_event=events)
    replica = HandingReplica(1, set(), successor=True) if how == "no other dealer" else None
    others = 1 if how == "no replica" else 0
    room, authority, hosted, _ = a_handed_room(dealer, replica=replica, others=others)
    room.task = asyncio.create_task(asyncio.Event().wait())
    await dealer._hand_over(room)
    assert said(caplog) == [
        f"INFO room {CODE}: kept as this dealer stops (no other dealer holds it): "
        "it goes on when this dealer starts again with the same data directory"
    ]
    assert events.seen == [("kept", {"code": CODE})]
    assert hosted.closed == [True] and authority.calls == [] and dealer.rooms == {}
    await settle()
    assert room.task.cancelled()


@pytest.mark.parametrize("taken", [True, False])
async def test_a_table_whose_other_dealers_are_gone_is_not_handed_to_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, taken: bool
) -> None:
    """A play-test (6 December): the dealer running a table it had taken
    over stopped with no other dealer online: it fell silent for a hand-over
    nobody could take, and its people were never told. Its own room is kept
    on disk as ever; a room taken over here waits for this dealer (its
    voter's file holds it) and its table goes saying "gone"."""
    events = Events()
    dealer, _ = a_dealer(tmp_path, on_event=events)
    replica = HandingReplica(2, caught_up=set(), successor=False)
    room, authority, hosted, _ = a_handed_room(dealer, replica=replica, online=False)
    room.taken = taken
    if taken:  # a table taken over runs in no room this dealer hosted
        room.hosted, room.kept = None, None
    room.task = asyncio.create_task(asyncio.Event().wait())
    await asyncio.wait_for(dealer._hand_over(room), 5)
    assert events.seen == [("kept", {"code": CODE})]
    assert replica.calls == [] and dealer.rooms == {}  # no hand-over, no abdication
    if taken:
        assert authority.calls == ["close keep=True"] and hosted.closed == []
        assert said(caplog) == [
            f"INFO room {CODE}: waits for it as this dealer stops (no other dealer online to "
            "take it): it goes on when this dealer starts again with the same data directory"
        ]
    else:
        assert authority.calls == [] and hosted.closed == [True]
    await settle()
    assert room.task.cancelled()


@pytest.mark.parametrize(
    ("how", "why"),
    [
        ("no replica, no directory", "no other dealer holds it"),
        ("no record", "no other dealer holds it"),
        ("in its lobby", "in its lobby"),
        ("in its lobby, held", "in its lobby"),
        ("over, held", "no other dealer holds it"),
    ],
)
async def test_a_room_nobody_can_take_is_closed_as_the_dealer_stops(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, how: str, why: str
) -> None:
    events = Events()
    dealer, _ = a_dealer(None if how == "no replica, no directory" else tmp_path, on_event=events)
    replica = HandingReplica(1, set(), successor=True) if "held" in how else None
    phase = "lobby" if "lobby" in how else "over" if "over" in how else "playing"
    room, authority, hosted, _ = a_handed_room(
        dealer, phase=phase, replica=replica, kept=how != "no record"
    )
    await dealer._hand_over(room)
    assert said(caplog) == [f"INFO room {CODE}: closed as this dealer stops ({why})"]
    assert events.seen == [("closed", {"code": CODE, "why": why})]
    assert hosted.closed == [False] and authority.calls == [] and dealer.rooms == {}
    assert replica is None or replica.calls == []


async def test_a_stopping_dealer_hands_over_lets_go_and_goes_offline(
    tmp_path: Path, voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    dealer, link = a_dealer(tmp_path)
    _, _, hosted, _ = a_handed_room(dealer, phase="lobby")
    held = await held_by(dealer, Identity.generate(), "XYZ789")
    await dealer.stop()
    assert dealer._stopping and dealer.rooms == {} and dealer.held == {}
    assert hosted.closed == [False] and voter_of(held).calls == ["start", "close"]
    topic = presence_topic(dealer.identity.peer_id)
    last, cleared = link.published[-2:]
    assert cleared == (topic, b"", True)
    assert last[0] == topic and not last[2]
    envelope = open_envelope(topic, last[1], expect_id=dealer.identity.peer_id)
    gone = open_body(envelope, presence_decoder)
    assert gone == DealerPresence(online=False, epoch=dealer._epoch, name="D", rooms=0, free=0)
    assert link.final == [] and not link.connected
    assert said(caplog)[-1] == "INFO dealer D stopped"
    status = json.loads((tmp_path / STATUS_FILE).read_text())
    assert status["running"] is False and status["rooms"] == []
    # Stopped: no presence says it is online again.
    count = len(link.published)
    await dealer._publish_presence()
    await settle()
    assert len(link.published) == count


async def test_a_table_that_fails_to_close_does_not_stop_the_dealer_stopping(
    tmp_path: Path, voters: list[Voter], caplog: pytest.LogCaptureFixture
) -> None:
    class Broken(Hosted):
        async def close(self, *, keep: bool = False) -> None:
            raise RuntimeError("its broker is gone")

    dealer, link = a_dealer(tmp_path)
    room, _, _, _ = a_handed_room(dealer, phase="lobby")
    room.hosted = cast(Any, Broken(room.authority))
    held = await held_by(dealer, Identity.generate(), "XYZ789")
    await dealer.stop()
    assert voter_of(held).calls == ["start", "close"]
    assert link.published[-1] == (presence_topic(dealer.identity.peer_id), b"", True)
    assert said(caplog)[-1] == "INFO dealer D stopped"


async def test_a_dealer_stopped_before_it_started_only_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    dealer, _ = a_dealer()
    dealer._link = None
    await dealer.stop()
    assert said(caplog) == ["INFO dealer D stopped"]


# -- presences of other dealers --------------------------------------------------


def test_another_dealer_online_is_known_with_its_room_to_spare(
    caplog: pytest.LogCaptureFixture,
) -> None:
    events = Events()
    dealer, _ = a_dealer(on_event=events)
    other = Identity.generate()
    dealer._on_presence(*presence_of(other, epoch=5, free=3), 1.0)
    assert dealer.dealers == {other.public_key: OtherDealer("DX", 5, True, 3)}
    # Its key as a person compares it, as the dealer says its own.
    assert said(caplog) == [f"INFO dealer DX ({fingerprint(other.public_key)}) is online"]
    assert events.seen == [("other_dealer", {"name": "DX", "key": other.peer_id, "online": True})]
    # Again, in the same connection: what it has to spare now, said once.
    dealer._on_presence(*presence_of(other, epoch=5, free=1), 2.0)
    assert dealer.dealers == {other.public_key: OtherDealer("DX", 5, True, 1)}
    assert len(said(caplog)) == 1 and len(events.seen) == 1
    # A late word of an older connection changes nothing.
    dealer._on_presence(*presence_of(other, epoch=4, free=9), 3.0)
    dealer._on_presence(*presence_of(other, online=False, epoch=4), 3.0)
    assert dealer.dealers == {other.public_key: OtherDealer("DX", 5, True, 1)}
    # Its will: gone, forgotten.
    dealer._on_presence(*presence_of(other, online=False, epoch=5), 4.0)
    assert dealer.dealers == {}
    assert said(caplog)[-1] == f"INFO dealer DX ({fingerprint(other.public_key)}) is gone"
    assert events.seen[-1] == (
        "other_dealer",
        {"name": "DX", "key": other.peer_id, "online": False},
    )
    # The will of a dealer never seen online: nobody to forget.
    dealer._on_presence(*presence_of(other, online=False, epoch=6), 5.0)
    assert dealer.dealers == {} and len(said(caplog)) == 2 and len(events.seen) == 2


def test_the_status_names_the_other_dealers_online_as_they_come_and_go(tmp_path: Path) -> None:
    """A play-test (6 December): `passe dealer --status` said "other
    dealers online: none" with one online, until a room started, and named
    one gone since."""
    dealer, _ = a_dealer(tmp_path)
    other = Identity.generate()

    def named() -> list[str]:
        return list(json.loads((tmp_path / STATUS_FILE).read_text())["dealers"])

    dealer._on_presence(*presence_of(other, epoch=5, free=3), 1.0)
    assert named() == [f"DX ({fingerprint(other.public_key)})"]
    # By its key (anyone may call itself DX), and whether it is trusted.
    dealer.trusted = frozenset({other.peer_id})
    dealer._write_status()
    assert named() == [f"DX ({fingerprint(other.public_key)}, trusted)"]
    dealer._on_presence(*presence_of(other, online=False, epoch=5), 2.0)
    assert named() == []


def test_a_dealer_s_name_is_cleaned_or_replaced() -> None:
    events = Events()
    dealer, _ = a_dealer(on_event=events)
    one, two = Identity.generate(), Identity.generate()
    dealer._on_presence(*presence_of(one, name="\x1b[2JDX"), 1.0)
    dealer._on_presence(*presence_of(two, name="\x07"), 1.0)
    assert dealer.dealers[one.public_key].name == "DX"
    assert dealer.dealers[two.public_key].name == "a dealer"


def test_presences_that_are_not_another_dealer_s_are_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    dealer, _ = a_dealer()
    me, other, forger = dealer.identity, Identity.generate(), Identity.generate()
    topic = presence_topic(me.peer_id)
    dealer._on_presence(topic, presence_of(me)[1], 1.0)  # its own
    dealer._on_presence(presence_topic(other.peer_id), b"", 1.0)  # a retained one cleared
    assert said(caplog) == [] and dealer._floods.counts == {}
    dealer._on_presence(presence_topic(other.peer_id), presence_of(forger)[1], 1.0)
    assert said(caplog) == ["WARNING ignored a dealer's presence: signed by another peer"]
    other_topic = presence_topic(other.peer_id)
    sealed = seal(other, other_topic, DealerPresence(True, 1, "DX"), me.public_key)
    dealer._on_presence(other_topic, sealed, 20.0)
    assert said(caplog)[-1] == (
        "WARNING ignored a dealer's presence: a sealed message where a public one was expected"
    )
    assert dealer._floods.counts == {"presence-bad": 2}
    assert dealer.dealers == {}


def test_at_most_64_other_dealers_are_known() -> None:
    dealer, _ = a_dealer()
    for n in range(63):
        dealer.dealers[bytes([n]) * 32] = OtherDealer(f"D{n}", 1, True, 1)
    known, late, later = Identity.generate(), Identity.generate(), Identity.generate()
    dealer.dealers[known.public_key] = OtherDealer("K", 1, True, 1)
    dealer._on_presence(*presence_of(late), 1.0)
    assert late.public_key not in dealer.dealers and len(dealer.dealers) == 64
    dealer._on_presence(*presence_of(known, free=7), 1.0)  # one known: heard still
    assert dealer.dealers[known.public_key] == OtherDealer("DX", 5, True, 7)
    del dealer.dealers[bytes([0]) * 32]
    dealer._on_presence(*presence_of(later), 1.0)
    assert later.public_key in dealer.dealers and len(dealer.dealers) == 64


# -- the dealer's own presence, start -------------------------------------------


async def test_the_dealer_says_it_is_online_with_its_room_to_spare(voters: list[Voter]) -> None:
    dealer, link = a_dealer(max_rooms=3, shown="play.example:1883")
    await dealer._on_connect()
    await held_by(dealer, Identity.generate())
    a_dealt_room(dealer, "XYZ789")
    await dealer._publish_presence()
    await settle()
    said_online = [presence for presence, _ in presences(dealer, link)]
    assert all(retain for _, retain in presences(dealer, link))
    assert said_online[0] == DealerPresence(True, dealer._epoch, "D", 0, 3, "play.example:1883")
    assert said_online[-1] == DealerPresence(True, dealer._epoch, "D", 2, 1, "play.example:1883")
    a_dealt_room(dealer, "QRS456")
    a_dealt_room(dealer, "MNP345")  # past its most (rooms held meanwhile): none to spare
    await dealer._publish_presence()
    assert presences(dealer, link)[-1][0].free == 0
    will = dealer._will()
    topic = presence_topic(dealer.identity.peer_id)
    assert will == LastWill(topic, will.payload)
    envelope = open_envelope(topic, will.payload, expect_id=dealer.identity.peer_id)
    assert open_body(envelope, presence_decoder) == DealerPresence(
        False, dealer._epoch, "D", 4, 0, "play.example:1883"
    )


async def test_a_dealer_starts_on_its_inbox_and_the_dealers_presences(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    made: list[tuple[str, int, dict[str, Any]]] = []

    class Link(MemoryLink):
        def __init__(self, host: str, port: int, **options: Any) -> None:
            super().__init__(host, port)
            made.append((host, port, options))
            self.started = False

        async def start(self) -> None:
            self.started = True

    monkeypatch.setattr(service, "MqttLink", Link)
    dealer = Dealer(
        Identity.generate(), "D", HOST, PORT, state_dir=tmp_path, alternates=(("10.0.0.9", 1),)
    )
    await dealer.start()
    ((host, port, options),) = made
    assert (host, port) == (HOST, PORT)
    assert options == {
        "subscriptions": [dealer.inbox, PRESENCES],
        "on_message": dealer._on_message,
        "on_connect": dealer._on_connect,
        "will": dealer._will,
        "alternates": (("10.0.0.9", 1),),
    }
    assert isinstance(dealer._link, Link) and dealer._link.started
    assert dealer.inbox == inbox_topic(dealer.identity.peer_id)
    assert said(caplog) == [
        f"INFO dealer D ({fingerprint(dealer.identity.public_key)}) serves rooms on "
        f"{HOST}:{PORT}, at most 200",
        "INFO dealer D trusts no other dealer (--trust FILE): its rooms wait for it if it stops",
    ]
    assert json.loads((tmp_path / STATUS_FILE).read_text())["running"] is True
    caplog.clear()
    trusting = Dealer(Identity.generate(), "T", HOST, PORT, trusted=frozenset({"0" * 16, "1" * 16}))
    await trusting.start()
    assert said(caplog)[-1] == (
        "INFO dealer T shares its rooms with 2 other dealers it trusts, when online"
    )


# -- status ------------------------------------------------------------------------


async def test_the_status_says_every_room_and_dealer_exactly(
    tmp_path: Path, voters: list[Voter]
) -> None:
    dealer, _ = a_dealer(tmp_path, shown="play.example:1883", max_rooms=9)
    known, unknown, gone = Identity.generate(), Identity.generate(), Identity.generate()
    dealer.dealers[known.public_key] = OtherDealer("DX", 1, True, 2)
    dealer.dealers[unknown.public_key + b""] = OtherDealer("AB", 1, True, 2)
    dealer.dealers[gone.public_key] = OtherDealer("ZZ", 1, False, 0)
    room = a_dealt_room(dealer)
    room.authority.seats[0] = SeatSlot("Ana", HUMAN, key=b"a" * 32)
    await held_by(dealer, known, "XYZ789")  # the room this dealer took over: listed once
    taken = a_dealt_room(dealer, "XYZ789")
    taken.taken = True
    taken.authority.replica = cast(Any, VoterReplica(term=6))
    await held_by(dealer, known, "QRS456")  # held for a dealer it knows
    made_here = await held_by(dealer, Identity.generate(), "MNP345")
    # Made here: its table moved away.
    made_here.config = msgspec.structs.replace(made_here.config, sealer=dealer.identity.public_key)
    stranger = Identity.generate()
    held = await held_by(dealer, stranger, "HJK234")  # by a dealer never seen
    voter_of(held).replica.term = 2
    dealer._floods.note("refused", "x", 1.0)
    dealer._floods.note("refused", "x", 1.0)
    assert dealer.busy == 6
    assert dealer.status(running=False) == {
        "pid": os.getpid(),
        "running": False,
        "name": "D",
        "key": fingerprint(dealer.identity.public_key),
        "broker": f"{HOST}:{PORT}",
        "shown": "play.example:1883",
        "since": dealer.started_at,
        "max_rooms": 9,
        # Online, by key; DX trusted (the rooms it holds for are from it).
        "dealers": [
            f"AB ({fingerprint(unknown.public_key)})",
            f"DX ({fingerprint(known.public_key)}, trusted)",
        ],
        "trusts": 3,
        "rooms": [
            {
                "code": CODE,
                "game": "dominoes",
                "for": "Eve",
                "phase": "lobby",
                "role": "runs",
                "seats": ["Ana", ""],
                "term": 0,
            },
            {
                "code": "XYZ789",
                "game": "dominoes",
                "for": "Eve",
                "phase": "lobby",
                "role": "runs (taken over)",
                "seats": ["", ""],
                "term": 6,
            },
            {"code": "QRS456", "role": "holds", "term": 1, "phase": "playing", "for": "dealer DX"},
            {"code": "MNP345", "role": "holds", "term": 1, "phase": "playing", "for": "dealer D"},
            {
                "code": "HJK234",
                "role": "holds",
                "term": 2,
                "phase": "playing",
                "for": f"dealer {fingerprint(stranger.public_key)}",
            },
        ],
        "refused": {"refused": 2},
    }
    assert dealer.status()["running"] is True


def test_the_status_file_holds_the_status_as_indented_json(tmp_path: Path) -> None:
    state = tmp_path / "a" / "b"
    dealer, _ = a_dealer(state)
    before = time.monotonic()
    dealer._write_status(running=False)
    assert dealer._status_written_at >= before
    text = (state / STATUS_FILE).read_text()
    encoded = msgspec.json.encode(dealer.status(running=False))
    assert text == msgspec.json.format(encoded, indent=1).decode()
    assert text.startswith('{\n "pid": ')
    assert [p.name for p in state.iterdir()] == [STATUS_FILE]


def test_a_status_file_that_cannot_be_written_is_no_failure(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("in the way")
    dealer, _ = a_dealer(blocked)
    dealer._write_status()
    dealer, _ = a_dealer()  # no directory: no file
    dealer._write_status()
    dealer._status_soon()
    assert dealer._status_written_at == -1e9
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


def test_without_a_loop_the_status_is_written_at_once(tmp_path: Path) -> None:
    dealer, _ = a_dealer(tmp_path)
    dealer._room_event(CODE)("seated", seat=0, name="Ana")
    assert json.loads((tmp_path / STATUS_FILE).read_text())["name"] == "D"
    assert not dealer._status_pending
    dealer._changed()  # no loop: no presence to send either
    assert not dealer._status_pending


async def test_the_status_is_written_soon_once_then_after_the_interval(tmp_path: Path) -> None:
    dealer, link = a_dealer(tmp_path)
    status = tmp_path / STATUS_FILE
    dealer._status_soon()
    assert dealer._status_pending and not status.exists()
    await settle(2)
    assert status.exists() and not dealer._status_pending
    status.unlink()
    dealer._changed()
    dealer._changed()
    assert dealer._status_pending
    await settle()
    assert not status.exists()  # the interval has not passed
    assert [p for p, _ in presences(dealer, link)] == [
        DealerPresence(True, dealer._epoch, "D", 0, 200)
    ] * 2
    # Due: written; a stopping dealer writes its last status itself.
    dealer._status_written_at -= service.STATUS_INTERVAL
    dealer._status_pending = False
    dealer._status_soon()
    dealer._stopping = True
    await settle(2)
    assert not status.exists() and not dealer._status_pending
    dealer._stopping = False
    dealer._pending_status()
    assert status.exists()


async def test_what_fails_in_the_background_is_said_with_what_it_was(
    monkeypatch: pytest.MonkeyPatch,
    opened_rooms: list[dict[str, Any]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A presence or an answer that cannot be sent, a lobby whose serving
    fails, a deal that fails to open: each is one line naming it."""

    class Down(MemoryLink):
        async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
            raise ConnectionError("the broker is gone")

    async def broken_serve(self: Dealer, *args: Any) -> None:
        raise RuntimeError("the lobby broke")

    monkeypatch.setattr(Dealer, "_serve", broken_serve)
    dealer, _ = a_dealer()
    asker = Identity.generate().public_key
    dealer._link = Down()  # type: ignore[assignment]
    dealer._changed()
    await settle()
    dealer._on_deal(asker, Deal(1, "nope", 2, "Eve"), 1.0)
    await settle()
    dealer._link = None
    dealer._on_deal(asker, Deal(2, "dominoes", 2, "Eve"), 1.0)
    await settle()

    async def broken_open(self: Dealer, *args: Any) -> None:
        raise RuntimeError("no room today")

    monkeypatch.setattr(Dealer, "_open", broken_open)
    dealer._on_deal(asker, Deal(3, "dominoes", 2, "Eve"), 1.0)
    await settle()
    dealer._link = Down()  # type: ignore[assignment]
    authority = table()
    me, other = dealer.identity.public_key, Identity.generate().public_key
    config, _ = make_room_config(authority.identity, [me, other], dealers={me, other})
    authority._election = encode_room_config(config)
    dealer._send_holds(authority)
    dealer._send_releases(authority)
    await settle()
    failed = [r.getMessage() for r in caplog.records if " failed: " in r.getMessage()]
    assert failed == [
        "the dealer's presence failed: the broker is gone",
        "an answer failed: the broker is gone",
        f"room {CODE} failed: the lobby broke",
        "a room dealt failed: no room today",
        "a hold failed: the broker is gone",
        "a release failed: the broker is gone",
    ]
    caplog.clear()  # said, as it should be


async def test_what_fails_in_a_held_room_s_background_is_said_with_its_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    class Failing(Voter):
        async def start(self) -> None:
            raise RuntimeError("its broker is gone")

        async def close(self) -> None:
            raise RuntimeError("its file is gone")

    async def broken(self: Dealer, *args: Any) -> None:
        raise RuntimeError("it broke")

    monkeypatch.setattr(service, "SeatVoter", Failing)
    monkeypatch.setattr(Dealer, "_run_to_end", broken)
    monkeypatch.setattr(Dealer, "_until_heard", broken)
    dealer, _ = a_dealer(tmp_path)
    maker = Identity.generate()
    hold, _ = hold_for(dealer, maker)
    dealer._on_hold(maker.public_key, hold, 1.0)
    await settle()
    dealer._on_release(maker.public_key, Release(CODE))
    await settle()
    dealer._took_over("XYZ789", table("XYZ789"))
    await settle()
    me = dealer.identity
    held_dir = tmp_path / "held"
    held_dir.mkdir()
    _, code = a_voter_file(held_dir, me, maker, [(maker.public_key, True), (me.public_key, True)])
    await dealer.resume_held()
    await settle()
    failed = [r.getMessage() for r in caplog.records if " failed: " in r.getMessage()]
    assert failed == [
        f"the voter of room {CODE} failed: its broker is gone",
        f"room {CODE}'s authority failed: it broke",
        f"room {CODE}'s release failed: its file is gone",
        "room XYZ789 failed: it broke",
        f"the voter of room {code} failed: its broker is gone",
        f"room {code}'s authority failed: it broke",
    ]
    caplog.clear()  # said, as it should be


async def test_changes_within_the_interval_are_written_once_when_it_has_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service, "STATUS_INTERVAL", 0.02)
    writes: list[dict[str, Any]] = []
    written = asyncio.Event()

    def write_atomic(path: Path, text: str, **options: Any) -> None:
        writes.append({"path": path, "max_rooms": json.loads(text)["max_rooms"], **options})
        written.set()

    monkeypatch.setattr(service, "write_atomic", write_atomic)
    dealer, _ = a_dealer(tmp_path)
    dealer._status_soon()
    dealer._status_soon()  # pending already: the same write
    await asyncio.wait_for(written.wait(), 5)
    await settle()
    # Not durable: a status file is rewritten at every change, never synced.
    assert writes == [{"path": tmp_path / STATUS_FILE, "max_rooms": 200, "durable": False}]
    written.clear()
    dealer.max_rooms = 7
    dealer._status_soon()
    dealer._status_soon()
    await settle()
    assert len(writes) == 1 and dealer._status_pending  # within the interval: later
    await asyncio.wait_for(written.wait(), 5)
    assert [write["max_rooms"] for write in writes] == [200, 7]
    assert not dealer._status_pending


def test_a_dealer_counts_the_rooms_it_runs_and_holds() -> None:
    dealer, _ = a_dealer()
    assert dealer.busy == 0
    a_dealt_room(dealer)
    dealer.held["XYZ789"] = cast(HeldRoom, None)
    dealer.held["QRS456"] = cast(HeldRoom, None)
    assert dealer.busy == 3


def test_events_go_to_whoever_follows_the_dealer() -> None:
    events = Events()
    dealer, _ = a_dealer(on_event=events)
    dealer._event("over", code=CODE)
    assert events.seen == [("over", {"code": CODE})]
    dealer, _ = a_dealer()
    dealer._event("over", code=CODE)  # nobody follows: nothing
