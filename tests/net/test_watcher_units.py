"""The spectator's side of watching (net/peer/watch.py ``Watcher``), in
process: its link stood for (tests/net/rooms_in_process.py ``BrokerLink``,
``MemoryLink``), the authority's answers sealed with real keys and handed
to it as its link would. The authority's side is tests/net/test_watch_units.py;
whole games watched through real brokers are tests/net/test_watch.py."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import msgspec
import pytest

from core.engine import IllegalAction
from core.registry import get_game
from net.authority.authority import Authority
from net.authority.replication import encode_room_config, make_room_config
from net.election.driver import voter_presence_topic
from net.identity import Identity
from net.peer import remote as remote_module
from net.peer import watch as watch_module
from net.peer.pins import RoomPins
from net.peer.remote import JoinError
from net.peer.watch import WATCHER_NAME, Watcher
from net.protocol.codec import codec_for
from net.protocol.codes import format_code
from net.protocol.wire import Refused as RefusedReply
from net.protocol.wire import (
    Reply,
    Update,
    Watch,
    Watched,
    Welcome,
    open_body,
    open_envelope,
    peer_message_decoder,
    room_topic,
    seal,
    to_authority_topic,
    to_peer_topic,
)
from tests.net.peers import until
from tests.net.rooms_in_process import (
    CODE,
    BrokerLink,
    MemoryLink,
    joining_on,
    listen,
    presence,
    request,
    room,
    seated,
    within_turns,
)
from tests.net.test_remote_units import a_finished_game

# Each test takes well under a second; a mutant that loses a deadline fails
# after 15 s instead of mutmut's own limit of minutes (docs/testing.md).
pytestmark = pytest.mark.timeout(15)


def watches_sent(link: MemoryLink, watcher: Watcher, authority: Authority) -> list[Watch]:
    """The watch requests ``watcher`` published on ``link``, opened as the
    authority opens them."""
    topic = to_authority_topic(CODE, watcher.identity.peer_id)
    opened = [
        open_body(
            open_envelope(t, payload, identity=authority.identity),
            peer_message_decoder,
            authority.identity,
        )
        for t, payload, _ in link.published
        if t == topic
    ]
    assert all(isinstance(message, Watch) for message in opened)
    return opened  # type: ignore[return-value]


async def answer(authority: Authority, watcher: Watcher, reply: Reply | Update) -> None:
    """``reply`` from the authority, sealed to the watcher, handed to it."""
    topic = to_peer_topic(CODE, watcher.identity.peer_id)
    sealed = seal(authority.identity, topic, reply, watcher.identity.public_key)
    await watcher._on_message(topic, sealed)


def a_room(monkeypatch: pytest.MonkeyPatch, **state: Any) -> Authority:
    """A room in its lobby whose state the watcher's broker holds (its
    fields changed by ``state``)."""
    authority = room()
    listen(authority)
    payload = authority._room_payload()
    if state:
        topic = room_topic(CODE)
        changed = msgspec.structs.replace(authority.room_state(), **state)
        payload = seal(authority.identity, topic, changed)
    joining_on(monkeypatch, {room_topic(CODE): payload})
    return authority


async def asked(watcher: Watcher, count: int = 1) -> MemoryLink:
    """The watcher's link, once its watch requests number ``count``."""
    await until(lambda: bool(BrokerLink.made) and len(watch_topics()) >= count, timeout=5)
    return BrokerLink.made[0]


def watch_topics() -> list[str]:
    link = BrokerLink.made[0]
    return [t for t, _, _ in link.published if t.startswith(to_authority_topic(CODE, ""))]


async def test_a_watch_asks_with_its_epoch_and_log_and_is_answered_watched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The request names the room, this process's epoch, a fresh n and the
    events already held; unanswered, it is sent again with the next n; a
    Watched answer makes it a watcher, counted."""
    monkeypatch.setattr(remote_module, "HELLO_RESEND_FIRST", 0.01)
    authority = a_room(monkeypatch)
    watcher = Watcher(CODE, "127.0.0.1", 1)
    assert (watcher.name, watcher.watching_room) == (WATCHER_NAME, False)
    watching = asyncio.create_task(watcher.watch(timeout=2))
    link = await asked(watcher, 2)
    first, again = watches_sent(link, watcher, authority)[:2]
    assert first == Watch(room=CODE, epoch=watcher._epoch, n=first.n, have=0)
    assert again == Watch(room=CODE, epoch=watcher._epoch, n=first.n + 1, have=0)
    await answer(authority, watcher, Watched(room=CODE, watchers=3))
    await asyncio.wait_for(watching, 2)
    assert watcher.watching_room is True and watcher.watching == 3
    await watcher.close()


@pytest.mark.parametrize(
    ("refusal", "said", "code"),
    [
        (
            RefusedReply(room=CODE, reason="malformed request: unknown tag", code="bad", n=1),
            "the host of room {code} runs an older Passe (passe 0.0.9) that cannot be watched",
            "version",
        ),
        (
            RefusedReply(room=CODE, reason="no such seat", code="bad", n=1),
            "no such seat",
            "bad",
        ),
        (
            RefusedReply(room=CODE, reason="malformed, it says", code="full", n=1),
            "malformed, it says",
            "full",
        ),
        (
            RefusedReply(room=CODE, reason="[b]8 watch\x1b[2J already", code="full\x07", n=1),
            "[b]8 watch already",
            "full",
        ),
        (Welcome(room=CODE, seat=1), "the host answered a watch as a join", "bad"),
    ],
)
async def test_a_watch_refused_says_why_in_one_clean_line_and_watches_nothing(
    monkeypatch: pytest.MonkeyPatch, refusal: Reply, said: str, code: str
) -> None:
    """An earlier host refuses the unknown request as malformed (code bad):
    its app is named when its room state says it; any other refusal is its
    own words, cleaned of terminal controls; a Welcome is a host's mistake."""
    authority = a_room(monkeypatch, app="passe 0.0.9")
    watcher = Watcher(CODE, "127.0.0.1", 1)
    watching = asyncio.create_task(watcher.watch(timeout=2))
    await asked(watcher)
    await answer(authority, watcher, refusal)
    with pytest.raises(JoinError) as error:
        await asyncio.wait_for(watching, 2)
    assert (str(error.value), error.value.code) == (said.format(code=format_code(CODE)), code)
    assert watcher.watching_room is False
    # It left the link, its presence "gone" then cleared: nobody waits for it.
    final = BrokerLink.made[0].final
    assert final is not None and [payload == b"" for _, payload in final] == [False, True]


async def test_an_earlier_host_of_unknown_app_is_not_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    authority = a_room(monkeypatch, app="")
    watcher = Watcher(CODE, "127.0.0.1", 1)
    watching = asyncio.create_task(watcher.watch(timeout=2))
    await asked(watcher)
    refusal = RefusedReply(room=CODE, reason="malformed request", code="bad", n=1)
    await answer(authority, watcher, refusal)
    with pytest.raises(JoinError) as error:
        await asyncio.wait_for(watching, 2)
    assert str(error.value) == (
        f"the host of room {format_code(CODE)} runs an older Passe that cannot be watched"
    )


async def test_a_watch_nobody_answers_says_the_host_did_not_let_us_watch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(remote_module, "REPLY_WAIT", 0.1)
    a_room(monkeypatch)
    watcher = Watcher(CODE, "127.0.0.1", 1)
    watcher.host_present = True  # its presence says it is there
    with pytest.raises(JoinError) as error:
        await asyncio.wait_for(watcher.watch(timeout=2), 5)
    assert (str(error.value), error.value.code) == (
        f"the host of room {format_code(CODE)} did not let you watch: it may have left",
        "timeout",
    )


async def test_a_watch_finds_no_room_within_its_own_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    joining_on(monkeypatch, {})
    watcher = Watcher(CODE, "127.0.0.1", 1)
    with pytest.raises(JoinError) as error:
        await asyncio.wait_for(watcher.watch(timeout=0.05), 2)
    assert error.value.code == "no-room"


def test_a_watcher_believes_the_key_and_voters_its_person_pinned_and_pins_nothing() -> None:
    """A fresh key per watch, the pinned host key and voters of that code
    (a squatter on the code is not believed); nothing written back."""
    pins = RoomPins(None)
    host, voter = Identity.generate(), Identity.generate()
    pins.remember(CODE, host.public_key)
    pins.remember_voters(CODE, frozenset({voter.public_key}))
    pins.remember_voters("XYZ789", frozenset({host.public_key}))
    watcher = Watcher(CODE, "127.0.0.1", 1, pins=pins)
    assert watcher.authority_key == host.public_key
    assert watcher._voters == frozenset({voter.public_key})
    other = Watcher(CODE, "127.0.0.1", 1)
    assert other.authority_key is None and other.identity != watcher.identity
    watcher._pin()  # a room watched is never remembered
    assert pins.get(CODE) == host.public_key and watcher._presence_needed() is False


async def test_a_watcher_cannot_act_and_leaving_closes_it() -> None:
    watcher = Watcher(CODE, "127.0.0.1", 1)
    link = MemoryLink()
    watcher._link = link  # type: ignore[assignment]
    with pytest.raises(IllegalAction, match=r"^you are watching: you have no seat at this table$"):
        await watcher.submit(object())  # type: ignore[arg-type]
    await watcher.leave()
    assert watcher._closed and link.final is not None


async def test_back_after_a_drop_it_watches_again_until_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its link back (or the table moved), a watcher sends its watch again,
    and again each RESEAT_WAIT while unanswered and connected; not once
    answered, nor when the room is over or closed, nor while the link is
    down, nor before it watched, nor once closed."""
    monkeypatch.setattr(watch_module, "RESEAT_WAIT", 0.02)
    authority = room()
    listen(authority)
    watcher = Watcher(CODE, "127.0.0.1", 1)
    link = MemoryLink()
    watcher._link = link  # type: ignore[assignment]
    watcher.authority_key = authority.identity.public_key
    watcher._rejoin()  # not watching yet: nothing
    await asyncio.sleep(0)
    assert watches_sent(link, watcher, authority) == []
    watcher.watching_room = True
    watcher._rejoin()
    await until(lambda: len(watches_sent(link, watcher, authority)) >= 3, timeout=5)
    sent = watches_sent(link, watcher, authority)
    assert [m.n for m in sent[:3]] == [sent[0].n, sent[0].n + 1, sent[0].n + 2]
    await answer(authority, watcher, Watched(room=CODE, watchers=1))
    count = len(watches_sent(link, watcher, authority))
    watcher._rewatch_if_unanswered(time.monotonic() - 1)  # answered since: no more
    # Nor the checks already due: each was of a watch sent before the answer.
    await asyncio.sleep(0.05)
    assert len(watches_sent(link, watcher, authority)) == count
    # Unanswered since: sent again only while connected and the room goes on.
    later = time.monotonic() + 1
    link.connected = False
    watcher._rewatch_if_unanswered(later)
    link.connected = True
    for phase in ("over", "closed"):
        watcher.room = msgspec.structs.replace(authority.room_state(), phase=phase)
        watcher._rewatch_if_unanswered(later)
    await asyncio.sleep(0)
    assert len(watches_sent(link, watcher, authority)) == count
    watcher.room = authority.room_state()
    watcher._rewatch_if_unanswered(later)
    await within_turns(lambda: len(watches_sent(link, watcher, authority)) == count + 1)
    await watcher.close()
    watcher._rejoin()  # closed: nothing
    watcher._rewatch_if_unanswered(later)
    await asyncio.sleep(0)
    assert len(watches_sent(link, watcher, authority)) == count + 1


async def test_every_update_reaches_the_raw_listeners_until_they_stop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``passe watch --headless`` and the tests read each update as it came
    (decrypted), and the table takes it as well."""
    authority = room(players=3)
    listen(authority)
    ana = Identity.generate()
    seated(authority, ana)
    for seat in range(1, 3):
        authority.set_bot(seat, "heuristic")
    authority.start_game()
    assert authority.table is not None
    await authority.table.stop()
    watcher = Watcher(CODE, "127.0.0.1", 1)
    link = MemoryLink()
    watcher._link = link  # type: ignore[assignment]
    await watcher._on_message(room_topic(CODE), authority._room_payload())
    presence(authority, watcher.identity, online=True)
    seen: list[Update] = []
    stop = watcher.on_raw(seen.append)
    request(authority, watcher.identity, Watch(room=CODE, epoch=1, n=1, have=0))
    outbox = authority._outbox
    assert outbox is not None
    mine = to_peer_topic(CODE, watcher.identity.peer_id)
    while (message := outbox.pop()) is not None:
        if message[0] == mine:
            await watcher._on_message(message[0], message[1])
    assert len(seen) == 1 and seen[0].base == 0
    assert watcher.view is not None and watcher.view.seat is None  # the table took it too
    stop()
    assert watcher._raw_listeners == []


async def test_a_watcher_that_holds_a_voter_s_key_never_votes_and_follows_standbys_once() -> None:
    """A watcher given a voter's key (its person's, on the room's machine)
    still never votes; it follows the voters' presences once, in the
    config's order, only where the room's broker dies with its host."""
    voters = [Identity.generate() for _ in range(3)]
    config, _ = make_room_config(voters[0], [voter.public_key for voter in voters])
    election = encode_room_config(config)
    watcher = Watcher(CODE, "127.0.0.1", 1, identity=voters[1])
    link = MemoryLink()
    watcher._link = link  # type: ignore[assignment]
    watcher._follow_config(election, vote=True)  # not standby: no presences
    assert watcher.voter is None and watcher._standby_presences is None
    assert watcher._voters == frozenset(voter.public_key for voter in voters)
    watcher._follow_config(election, vote=True, standby=True)
    assert watcher.voter is None
    presences = watcher._standby_presences
    assert presences is not None and watcher._standby_order == [v.public_key for v in voters]
    watcher._follow_config(election, vote=True, standby=True)
    assert watcher._standby_presences is presences  # followed once
    await watcher.close()


def test_the_deal_check_of_a_watcher_says_what_it_found() -> None:
    """Unreadable record: failed, in words; no game known: the commitment
    only."""
    authority = room()
    watcher = Watcher(CODE, "127.0.0.1", 1)
    state = msgspec.structs.replace(authority.room_state(), record={"game": 3})
    ok, text = watcher._replay_check(state)
    assert ok is False
    assert text.startswith("Deal check FAILED: the revealed record is not readable (")
    watcher.codec = None
    record = msgspec.structs.replace(authority.room_state(), record=_a_record())
    assert watcher._replay_check(record) == (True, "Deal matched the host's commitment.")


async def test_the_deal_check_replays_the_record_against_what_the_watcher_was_shown() -> None:
    """With the game known: the record replayed through check_shown with
    the spectator's seat (None), what it was shown and its log; a record of
    another game, or whose moves do not replay, failed in words."""
    authority = await a_finished_game()
    watcher = Watcher(CODE, "127.0.0.1", 1)
    watcher.codec = codec_for(get_game("passpass"))
    state = authority.room_state()
    assert state.record is not None
    assert watcher._replay_check(state) == (
        True,
        "Deal matched the host's commitment; this seat was shown nothing of the game to "
        "check it against.",
    )
    other = msgspec.structs.replace(state, record={**state.record, "game": "dominoes"})
    assert watcher._replay_check(other) == (
        False,
        "Deal check FAILED: the revealed record is of 'dominoes', not passpass.",
    )
    first = state.record["actions"][0]
    twice = [first, [first[0], first[1]], *state.record["actions"][2:]]
    replayed = msgspec.structs.replace(state, record={**state.record, "actions": twice})
    ok, text = watcher._replay_check(replayed)
    assert ok is False and text.startswith("Deal check FAILED after move 2 (seat 1: ")


def test_a_watcher_goes_where_it_is_told_and_asks_from_the_events_it_holds() -> None:
    watcher = Watcher(CODE, "127.0.0.1", 1, alternates=[("127.0.0.2", 2)])
    assert watcher.broker_alternates == (("127.0.0.2", 2),)
    watcher.log.extend(["an event", "another"])  # type: ignore[list-item]
    request = watcher._watch_request()
    assert (request.room, request.have) == (CODE, 2)


async def test_damaged_voter_presences_are_counted_not_raised() -> None:
    """Where the room's broker dies with its host, a watcher reads the
    voters' presences: each damaged one is dropped and counted, the first
    and the next alike (the flood log's clock is the watcher's)."""
    voters = [Identity.generate() for _ in range(3)]
    config, _ = make_room_config(voters[0], [voter.public_key for voter in voters])
    watcher = Watcher(CODE, "127.0.0.1", 1)
    watcher._link = MemoryLink()  # type: ignore[assignment]
    watcher._follow_config(encode_room_config(config), vote=False, standby=True)
    topic = voter_presence_topic(CODE, voters[1].peer_id)
    for _ in range(2):
        await watcher._on_message(topic, b"not a presence")
    assert watcher._floods.counts == {"election-bad": 2}
    assert watcher.broker_alternates == ()
    await watcher.close()


def _a_record() -> dict[str, Any]:
    from core.engine import GameRecord

    game = get_game("passpass")
    config = msgspec.to_builtins(game.make_config(players=3))
    return GameRecord(game.id, config, 1).to_data()
