"""The authority's answers to each request, in-process (issue 23: found by
``make mutation``): real keys and signed envelopes, no broker; each test
reads exactly what was refused (code, whole sentence, the request's n),
the seats after each step, and what was sent to whom. Each docstring names
the mutations of net/authority/authority.py it kills. The last tests start it on the
machine's Mosquitto (what ``start`` puts there and listens to), in the
test's process, so that mutmut sees them."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Sequence
from pathlib import Path

import msgspec
import pytest

from core.engine import IllegalAction
from core.registry import get_game
from net.authority import authority as authority_module
from net.authority.authority import Authority, SeatSlot
from net.authority.rooms import BrokerChoice, RoomStore
from net.authority.table import BOT_NAMES, Table
from net.election.driver import announce_decoder, authority_topic
from net.identity import Identity, fingerprint, peer_id
from net.lan.transport import BrokerUnreachable
from net.protocol.codes import format_code, new_code
from net.protocol.wire import (
    MAX_PAYLOAD,
    Act,
    Envelope,
    Hello,
    Leave,
    NextRoom,
    Presence,
    Refused,
    RoomState,
    SeatState,
    Sync,
    Update,
    Welcome,
    next_topic,
    open_body,
    open_envelope,
    presence_decoder,
    presence_topic,
    proven_dealer,
    room_topic,
    seal,
    to_authority_topic,
    to_peer_topic,
)
from tests.net.peers import RawClient, clear_room, room_state_of, until
from tests.net.procs import need_mosquitto
from tests.net.rooms_in_process import (
    CODE,
    MemoryLink,
    as_sent,
    hello,
    holders,
    listen,
    presence,
    replicas_reach_no_broker,
    request,
    room,
    seated,
    sent,
    to,
    within_turns,
)

# What a key that finds no seat reads (net/authority/authority.py _full).
FULL = f"room {format_code(CODE)} is full: you can still watch it."


def unroomed(message: str) -> str:
    """An authority's log line without the room code it starts with (a
    dealer's log mixes many rooms: net/authority/authority.py RoomLog)."""
    assert message.startswith("room "), message
    return message.split(": ", 1)[1]


def refusal(reason: str, code: str, n: int = 0) -> Refused:
    return Refused(room=CODE, reason=reason, code=code, n=n)


async def in_play(authority: Authority, ana: Identity) -> None:
    """Ana in seat 1, bots in seats 2 and 3, the game started; its bots
    stopped (the test moves them), Ana's first update read."""
    seated(authority, ana)
    authority.set_bot(1, "heuristic")
    authority.set_bot(2, "heuristic")
    listen(authority)
    authority.start_game()
    assert authority.table is not None
    await authority.table.stop()
    sent(authority, ana)


def act(authority: Authority, key: Identity, n: int, **fields: object) -> None:
    table = authority.table
    assert table is not None
    legal = str(table.state.view(0).legal[0]) if table.state.view(0).legal else "pass"
    values: dict[str, object] = {"seat": 0, "action": legal, "at": authority.seq}
    values.update(fields)
    request(authority, key, Act(room=CODE, epoch=1, n=n, **values))  # type: ignore[arg-type]


async def at_her_turn() -> tuple[Authority, Identity]:
    """A room in play at Ana's turn (seat 0), what it sent her read."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    assert authority.table is not None
    while authority.table.state.to_act[0] != 0:
        authority.table.step_bot()
    sent(authority, ana)
    return authority, ana


# -- Act ----------------------------------------------------------------------


def test_an_act_from_a_key_without_a_seat_is_refused_in_words() -> None:
    """Kills _on_act's mutants of the unseated refusal (its words, code, n)."""
    authority = room()
    eve = Identity.generate()
    listen(authority)
    request(authority, eve, Act(room=CODE, epoch=1, n=4, seat=0, action="x", at=0))
    assert to(authority, eve) == [refusal("you have no seat at this table", "unseated", 4)]


async def test_an_act_for_another_seat_is_refused_and_resynchronised() -> None:
    """Kills _on_act's mutants of the other-seat refusal (words with both
    seat numbers, code, n) and of its re-synchronisation (base 0)."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    act(authority, ana, 2, seat=2)
    refused, update = to(authority, ana)
    assert refused == refusal("you sit in seat 1: you cannot act for seat 3", "seat", 2)
    assert isinstance(update, Update) and update.base == 0
    assert update.events == as_sent(authority._logs[0]) and update.rejected is None
    assert update.ack == 2
    # Kept for the whole game, each event is one object the garbage
    # collector does not walk (msgpack bytes), not lists and maps it does.
    assert authority._logs[0] and not any(gc.is_tracked(event) for event in authority._logs[0])


def test_an_act_in_the_lobby_or_after_the_end_is_refused_in_words() -> None:
    """Kills _on_act's mutants of the phase check (the two sentences, the
    code "illegal", n)."""
    authority = room()
    ana = Identity.generate()
    seated(authority, ana)
    listen(authority)
    request(authority, ana, Act(room=CODE, epoch=1, n=2, seat=0, action="x", at=0))
    assert to(authority, ana) == [refusal("the game has not started", "illegal", 2)]
    authority.phase = "over"
    request(authority, ana, Act(room=CODE, epoch=1, n=3, seat=0, action="x", at=0))
    assert to(authority, ana) == [refusal("the game is over", "illegal", 3)]


async def test_an_act_for_a_state_not_yet_sent_is_refused_and_resynchronised() -> None:
    """Kills _on_act's mutants of ``act.at > self.seq`` (at the edge: at ==
    seq is played) and of its refusal's words, code and n."""
    authority, ana = await at_her_turn()
    seq = authority.seq
    act(authority, ana, 2, at=seq + 1)
    refused, update = to(authority, ana)
    assert refused == refusal("an action for a state that does not exist yet", "bad", 2)
    assert isinstance(update, Update) and update.base == 0 and authority.seq == seq
    act(authority, ana, 3, at=seq)  # the state she saw: played
    assert authority.seq == seq + 1


async def test_an_illegal_act_is_answered_with_the_seats_view_and_the_reason() -> None:
    """Kills _on_act's mutants of the IllegalAction answer (its base, the
    reason carried in ``rejected``)."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    assert authority.table is not None
    while authority.table.state.to_act[0] == 0:
        authority.table.step_bot() if False else authority.table.submit(
            0, authority.table.state.view(0).legal[0]
        )
    sent(authority, ana)
    seq = authority.seq
    act(authority, ana, 2, action="pass")
    (update,) = to(authority, ana)
    assert isinstance(update, Update)
    assert update.rejected and update.events == [] and authority.seq == seq
    assert update.base == len(authority._logs[0])


async def test_a_reason_that_quotes_a_long_action_is_cut_to_the_bound_its_reader_keeps() -> None:
    """An illegal action of 400 characters (the most an Act carries) came
    back quoted in ``rejected``, past the 400 that a reader's decoder
    allows: the whole update was refused there (found by a client written
    from docs/protocol.md alone). A refusal's reason is held to it too."""
    authority, ana = await at_her_turn()
    act(authority, ana, 2, action="x" * 400)
    (update,) = to(authority, ana)  # opened with the peer's own decoder
    assert isinstance(update, Update) and update.rejected is not None
    assert len(update.rejected) == 400 and update.rejected.endswith("…")
    authority._refuse(ana.public_key, "why " * 200, "bad", 3)
    (refused,) = to(authority, ana)
    assert refused == refusal(("why " * 200)[:399] + "…", "bad", 3)


# -- Sync ---------------------------------------------------------------------


async def test_a_sync_is_answered_by_seat_welcome_or_log() -> None:
    """Kills _on_sync's mutants: the unseated refusal (words, code, n), the
    lobby's Welcome (room, seat) and the log from ``have``."""
    authority = room()
    ana, eve = Identity.generate(), Identity.generate()
    seated(authority, ana)
    listen(authority)
    request(authority, eve, Sync(room=CODE, epoch=1, n=7))
    assert to(authority, eve) == [refusal("you have no seat at this table", "unseated", 7)]
    request(authority, ana, Sync(room=CODE, epoch=1, n=2))
    assert to(authority, ana) == [Welcome(room=CODE, seat=0)]
    authority.set_bot(1, "heuristic")
    authority.set_bot(2, "heuristic")
    authority.start_game()
    assert authority.table is not None
    await authority.table.stop()
    sent(authority, ana)
    have = len(authority._logs[0]) - 1
    request(authority, ana, Sync(room=CODE, epoch=1, n=3, have=have))
    (update,) = to(authority, ana)
    assert isinstance(update, Update)
    assert update.base == have and update.events == as_sent(authority._logs[0][have:])
    assert update.ack == 3 and update.seq == authority.seq


# -- Leave --------------------------------------------------------------------


def test_leaving_the_lobby_frees_the_seat_and_unbinds_the_key() -> None:
    """Kills _on_leave's lobby mutants (the seat emptied with its name, the
    notice) and the unseated early return."""
    authority = room()
    ana, eve = Identity.generate(), Identity.generate()
    seated(authority, ana)
    listen(authority)
    request(authority, eve, Leave(room=CODE, epoch=1, n=1))  # nobody: nothing
    assert sent(authority, ana, eve) == []
    request(authority, ana, Leave(room=CODE, epoch=1, n=2))
    assert authority.seats[0] == SeatSlot("Seat 1")
    (what,) = sent(authority, ana)
    assert what[0] == "room" and what[1].notice == "Ana left"
    assert what[1].seats[0].kind == "open"


async def test_leaving_mid_game_hands_the_seat_to_a_bot_for_good(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _on_leave's mid-game mutants: the replacing bot's slot (name,
    kind, level, present, replaced), the seat's log dropped, the notice
    (logged)."""
    import logging

    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    assert authority.table is not None
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        request(authority, ana, Leave(room=CODE, epoch=1, n=2))
    assert "Ana left the game; a bot plays for them" in [
        unroomed(r.getMessage()) for r in caplog.records
    ]
    assert authority.seats[0] == SeatSlot(
        "Ana", "bot", authority_module.REPLACEMENT_BOT, present=True, replaced=True
    )
    assert 0 not in authority._logs
    assert authority.table.seats[0].is_bot
    ((where, state),) = sent(authority, ana)
    assert where == "room" and state.notice == "Ana left the game; a bot plays for them"
    # Said in the room state, for players who never saw Ana sit (a
    # returning one read "Ana plays" for the bot), and kept across a resume
    # or a failover (the room's snapshot).
    assert state.seats[0].replaced and not state.seats[1].replaced
    again = Authority.restore(authority.snapshot(BrokerChoice(False, "127.0.0.1", 1)), "h", 1)
    assert again.seats[0].replaced and again.room_state().seats[0].replaced
    # The next game's seats: hers is free, not her stand-in's.
    assert authority.next_seats()[0] == SeatSlot("Seat 1")


async def test_leaving_after_the_end_marks_the_person_away() -> None:
    """Kills _on_leave's mutants of the game-over branch (present False,
    the seat kept, the notice; no stand-in once over, its table there)."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    authority.phase = "over"
    request(authority, ana, Leave(room=CODE, epoch=1, n=2))
    assert authority.seats[0].key == ana.public_key and not authority.seats[0].present
    assert authority.seats[0].kind == "human" and 0 in authority._logs
    ((where, state),) = sent(authority, ana)
    assert where == "room" and state.notice == "Ana left"


# -- the host's answers to knocks -----------------------------------------------


def test_refusing_or_admitting_nobody_waiting_is_an_error() -> None:
    """Kills refuse's and admit's mutants of the missing knock (the error
    and its words)."""
    authority = room(admission="ask")
    with pytest.raises(IllegalAction, match=r"^nobody with that key is waiting$"):
        authority.refuse(Identity.generate().public_key)
    with pytest.raises(IllegalAction, match=r"^nobody with that key is waiting$"):
        authority.admit(Identity.generate().public_key)


def test_a_refused_knock_is_told_in_words_and_the_room_says_so() -> None:
    """Kills refuse's mutants (the bar, the refusal's words, code and the
    knock's n, the notice, the room published) and _admission's knock
    refusal (words, code "knock", n)."""
    authority = room(admission="ask")
    eve = Identity.generate()
    presence(authority, eve, online=True)
    listen(authority)
    hello(authority, eve, n=3, name="Eve", seat=1)
    assert to(authority, eve) == [
        refusal(f"the host of room {format_code(CODE)} is asked to let you in", "knock", 3)
    ]
    knock = authority.knocks[eve.public_key]
    assert (knock.name, knock.seat, knock.n, knock.bot) == ("Eve", 1, 3, False)
    authority.refuse(eve.public_key)
    assert sent(authority, eve)[0] == (
        eve.peer_id,
        refusal(authority._turned_away(eve.public_key), "denied", 3),
    )
    assert eve.public_key in authority.barred and not authority.knocks
    assert authority._turned_away(eve.public_key) == (  # what to do, not only what happened
        f"the host of room {format_code(CODE)} did not let you in. If it was a mistake, "
        f"read your key, {fingerprint(eve.public_key)}, to the host: i on their lobby lets "
        "it in; then join again. You can still watch it."
    )
    assert authority.room_state().notice == "the host turned someone away"
    hello(authority, eve, n=4, name="Eve")
    assert to(authority, eve) == [refusal(authority._turned_away(eve.public_key), "denied", 4)]


def test_an_admitted_knock_takes_its_seat_or_any_or_hears_the_game_started() -> None:
    """Kills admit's mutants: the key let in (admitted, not barred), the
    Hello rebuilt from the knock (name, seat, n, bot), the fallback to a
    free seat, and the refusal once the game started (words, code, n)."""
    authority = room(admission="ask")
    ana, bea = Identity.generate(), Identity.generate()
    for key, name in ((ana, "Ana"), (bea, "Bea")):
        presence(authority, key, online=True)
        hello(authority, key, n=5, name=name, seat=2, bot=key is bea)
    listen(authority)
    authority.admit(ana.public_key)
    assert holders(authority)[2] == ana.public_key and authority.seats[2].name == "Ana"
    assert ana.public_key in authority.admitted and ana.public_key not in authority.barred
    authority.admit(bea.public_key)  # seat 3 is taken: the first free one
    assert holders(authority)[0] == bea.public_key
    assert authority.seats[0].plays == authority_module.REPLACEMENT_BOT
    eve = Identity.generate()
    presence(authority, eve, online=True)
    hello(authority, eve, n=6, name="Eve")
    authority.phase = "playing"
    sent(authority, ana, bea, eve)
    authority.admit(eve.public_key)
    assert to(authority, eve) == [
        refusal(f"the game in room {format_code(CODE)} has started", "started", 6)
    ]
    assert eve.public_key in authority.admitted


# -- moving seats in the lobby ------------------------------------------------


def test_a_seated_person_moves_to_a_free_seat_only() -> None:
    """Kills _move_seat's mutants: no such seat (words, code, n), a taken
    seat (words, code, n), and the move (the new slot's name, key,
    presence, plays and since; the old seat emptied; the Welcome; the room
    published)."""
    authority = room()
    ana, bea = Identity.generate(), Identity.generate()
    seated(authority, ana, bot=True)
    seated(authority, bea, name="Bea")
    before = authority.seats[0]
    listen(authority)
    hello(authority, ana, n=3, seat=3)
    assert to(authority, ana) == [refusal("there is no seat 4", "bad", 3)]
    hello(authority, ana, n=4, seat=1)
    assert to(authority, ana) == [refusal("seat 2 is taken", "taken", 4)]
    assert holders(authority) == [ana.public_key, bea.public_key, None]
    hello(authority, ana, n=5, seat=2)
    assert authority.seats[0] == SeatSlot("Seat 1")
    assert authority.seats[2] == SeatSlot(
        "Ana",
        "human",
        key=ana.public_key,
        present=True,
        plays=authority_module.REPLACEMENT_BOT,
        since=before.since,
    )
    ((_, welcome), (where, state)) = sent(authority, ana)
    assert welcome == Welcome(room=CODE, seat=2)
    assert where == "room" and [seat.peer for seat in state.seats] == [
        "",
        bea.peer_id,
        ana.peer_id,
    ]


def test_a_moved_seat_of_a_key_gone_quiet_is_not_present() -> None:
    """Kills _move_seat's mutant that keeps the old slot's presence instead
    of the key's live one."""
    authority = room(presence_timeout=5.0)
    now = [100.0]
    authority.clock = lambda: now[0]
    ana = Identity.generate()
    seated(authority, ana)
    assert authority.seats[0].present
    now[0] += 60  # not heard since: her record is stale
    hello(authority, ana, n=2, seat=1)  # a request: heard again
    assert authority.seats[1].present
    now[0] += 60
    authority.seats[1].present = True  # as the screen last showed it
    authority._peers[ana.public_key].heard = now[0] - 60
    authority._move_seat(ana.public_key, 1, Hello(CODE, 1, 9, "Ana", seat=2))
    assert authority.seats[2].key == ana.public_key and not authority.seats[2].present


# -- freeing lobby seats ------------------------------------------------------


def test_seats_without_a_live_presence_are_freed_each_with_its_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills free_absent's and _free_seat's mutants: only lobby seats of
    people not present are freed (the list returned), each holder told in
    words (code "removed"), the seat emptied, and the notice of each case
    (a bot process gone, a squatter, a person away)."""
    authority = room(players=4)
    ana, robo, bea = Identity.generate(), Identity.generate(), Identity.generate()
    squatter = Identity.generate()
    seated(authority, ana)
    seated(authority, robo, name="Robo", bot=True)
    seated(authority, bea, name="Bea")
    authority.seats[3] = SeatSlot("Old", "human", key=squatter.public_key)
    presence(authority, ana, online=False, epoch=6)
    presence(authority, robo, online=False, epoch=6)
    listen(authority)
    notices: list[str] = []  # each room state published (the outbox keeps the last)
    authority.on_change.append(lambda: notices.append(authority.room_state().notice))
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        assert authority.free_absent() == [0, 1, 3]
    assert holders(authority) == [None, None, bea.public_key, None]
    assert [seat.name for seat in authority.seats] == ["Seat 1", "Seat 2", "Bea", "Seat 4"]
    messages = sent(authority, ana, robo, bea, squatter)
    told = [(who, message) for who, message in messages if who != "room"]
    assert told == [
        (
            ana.peer_id,
            refusal(
                f"your seat in room {format_code(CODE)} was freed: no live presence", "removed"
            ),
        ),
        (
            robo.peer_id,
            refusal(
                f"your seat in room {format_code(CODE)} was freed: no live presence", "removed"
            ),
        ),
        (
            squatter.peer_id,
            refusal(
                f"your seat in room {format_code(CODE)} was freed: no live presence", "removed"
            ),
        ),
    ]
    assert notices == [
        "Ana was away too long: seat 1 is free",
        "the bot Robo went away: seat 2 is free",
        f"someone (key {fingerprint(squatter.public_key)}) took seat 4 without showing up: "
        "it is free again",
    ]
    assert "Ana was away too long: seat 1 is free" in [
        unroomed(r.getMessage()) for r in caplog.records
    ]
    authority.phase = "playing"
    presence(authority, bea, online=False, epoch=6)
    assert authority.free_absent() == [] and holders(authority)[2] == bea.public_key


async def test_freeing_a_seat_stops_its_clock() -> None:
    """Kills _free_seat's mutants of the seat's lobby clock (popped and
    cancelled) and _lobby_presence_changed's clock (its delay, callback)."""
    authority = room(free_away_after=30.0)
    ana = Identity.generate()
    seated(authority, ana)
    presence(authority, ana, online=False, epoch=6)
    timer = authority._lobby_timers[0]
    loop_now = __import__("asyncio").get_running_loop().time()
    assert 29.0 < timer.when() - loop_now <= 30.0
    assert authority.free_absent() == [0]
    assert timer.cancelled() and authority._lobby_timers == {}


def test_a_lobby_clock_frees_the_seat_only_if_its_holder_is_still_away() -> None:
    """Kills _free_if_absent's mutants: the timer entry dropped, each
    condition (lobby, a person, the same key, still away) and the reason
    with the delay in it."""
    authority = room(free_away_after=2.5)
    ana, bea = Identity.generate(), Identity.generate()
    seated(authority, ana)
    listen(authority)
    authority._lobby_timers[0] = None  # type: ignore[assignment]
    authority._free_if_absent(0, ana.public_key)  # present: kept
    assert holders(authority)[0] == ana.public_key and 0 not in authority._lobby_timers
    presence(authority, ana, online=False, epoch=6)
    authority._free_if_absent(0, bea.public_key)  # another key's clock: kept
    assert holders(authority)[0] == ana.public_key
    authority.phase = "playing"
    authority._free_if_absent(0, ana.public_key)
    assert holders(authority)[0] == ana.public_key
    authority.phase = "lobby"
    sent(authority, ana)
    authority._free_if_absent(0, ana.public_key)
    assert holders(authority)[0] is None
    assert to(authority, ana) == [
        refusal(
            f"your seat in room {format_code(CODE)} was freed: no live presence for 2.5 s",
            "removed",
        )
    ]
    authority.set_bot(1, "heuristic")
    authority._free_if_absent(1, None)  # a bot's seat: not a person's
    assert authority.seats[1].kind == "bot"


# -- a bot for a person who is away ---------------------------------------------


async def test_a_bot_stands_in_only_for_a_person_away_mid_game(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills stand_in's mutants: each refusal (lobby, no such seat, a bot's
    seat, a person here) in its words, the level given to the seat and the
    table, the notice, the room published, and no second stand-in."""
    authority = room()
    ana = Identity.generate()
    with pytest.raises(IllegalAction, match=r"^only during a game$"):
        authority.stand_in(0)
    await in_play(authority, ana)
    with pytest.raises(IllegalAction, match=r"^no person sits in seat 4$"):
        authority.stand_in(3)
    with pytest.raises(IllegalAction, match=r"^no person sits in seat 0$"):
        authority.stand_in(-1)
    with pytest.raises(IllegalAction, match=r"^no person sits in seat 2$"):
        authority.stand_in(1)
    with pytest.raises(IllegalAction, match=r"^Ana is here$"):
        authority.stand_in(0)
    presence(authority, ana, online=False, epoch=6)
    sent(authority, ana)
    with pytest.raises(Exception, match="nosuchlevel"):
        authority.stand_in(0, "nosuchlevel")
    assert authority.seats[0].level == ""
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        authority.stand_in(0, "random")
    assert "Ana is away: a bot plays for them until they are back" in [
        unroomed(r.getMessage()) for r in caplog.records
    ]
    assert authority.seats[0].level == "random"
    assert authority.table is not None and authority.table.seats[0].kind == "random"
    ((where, state),) = sent(authority, ana)
    assert where == "room"
    assert state.notice == "Ana is away: a bot plays for them until they are back"
    assert state.seats[0].level == "random"
    authority.stand_in(0)  # already: nothing changes, nothing is sent
    assert authority.seats[0].level == "random" and sent(authority, ana) == []
    # Back: her seat is hers again.
    presence(authority, ana, online=True, epoch=7)
    hello(authority, ana, n=2)
    assert authority.seats[0].level == "" and not authority.table.seats[0].is_bot
    assert authority.room_state().notice == "Ana is back and plays again"


async def test_a_person_whose_going_was_not_said_comes_back_unsaid() -> None:
    """A table taken over counts everyone away until their presence
    reaches it, and says nothing of it (watch_away): nobody is "back"
    then, or every seat's arrival would be news."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    presence(authority, ana, online=False, epoch=6)
    authority._notice = ""
    authority.watch_away(30.0)  # its clocks start unsaid
    assert 0 in authority._away_timers and authority._said_away == set()
    presence(authority, ana, online=True, epoch=7)
    assert 0 not in authority._away_timers and authority._notice == ""


async def test_the_away_clock_stands_a_bot_in_only_for_someone_still_away() -> None:
    """Kills _stand_in_if_away's mutants (the timer entry dropped, each
    condition, the default level) and _away_changed's clock."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    authority.watch_away(30.0)
    assert authority._away_timers == {}  # she is here
    listen(authority)
    presence(authority, ana, online=False, epoch=6)
    timer = authority._away_timers[0]
    assert not timer.cancelled()
    # Said before it happens (found in a play-test: a bot came unannounced).
    ((where, state),) = sent(authority, ana)
    assert where == "room" and not state.seats[0].present
    assert state.notice == "Ana is away: a bot plays for them in 30 s unless they are back"
    # Her seat says so too, for every bar (it said "the game waits").
    assert state.bot_due == [0]
    authority._stand_in_if_away(0)
    assert 0 not in authority._away_timers
    assert authority.seats[0].level == authority_module.REPLACEMENT_BOT
    assert authority.room_state().bot_due == []
    # Present again: no stand-in; said once, as her Hello takes her seat
    # back ("Ana is back and plays again"), not also at her presence (a
    # play-test read both lines).
    authority._notice = ""
    presence(authority, ana, online=True, epoch=7)
    assert authority._notice == ""
    hello(authority, ana, n=2)
    assert authority._notice == "Ana is back and plays again"
    assert authority.seats[0].level == ""
    # A Hello before its presence (a table taken over gets them so) starts
    # the clock unsaid: it is a person coming (a play-tester read "Joe is
    # away: a bot plays for them in 30 s" of Joe, present, at most moves).
    presence(authority, ana, online=False, epoch=8)  # gone: said (a will)
    assert authority._notice.startswith("Ana is away: a bot plays for them in ")
    authority._notice = ""
    hello(authority, ana, n=3)  # her Hello, her presence not yet here
    assert not authority.seats[0].present
    assert 0 in authority._away_timers and authority._notice == ""
    presence(authority, ana, online=True, epoch=9)
    assert 0 not in authority._away_timers
    # Back before the bot came: said, as her going was (a play-test's last
    # line said she was away for the rest of the game); said once.
    assert authority._notice == "Ana is back" and authority._said_away == set()
    authority._notice = ""
    authority._away_changed(0)
    assert authority._notice == ""
    authority._stand_in_if_away(0)
    assert authority.seats[0].level == ""
    presence(authority, ana, online=False, epoch=8)
    authority.phase = "over"
    authority._stand_in_if_away(0)
    assert authority.seats[0].level == ""
    authority.phase = "playing"
    authority._stand_in_if_away(1)  # a bot's seat
    assert authority.seats[1].level == "heuristic"
    authority.phase = "over"  # its table still there
    with pytest.raises(IllegalAction, match=r"^only during a game$"):
        authority.stand_in(0)


# -- the next game --------------------------------------------------------------


async def test_the_next_game_is_announced_signed_and_retained_only_once_over() -> None:
    """Kills announce_next's mutants (the phase check and its words, the
    code kept, the notice's fields, its topic, retained)."""
    authority = room()
    listen(authority)
    with pytest.raises(IllegalAction, match=r"^the game is not over$"):
        authority.announce_next("XYZ789")
    authority.phase = "over"
    assert authority._outbox is not None
    authority.announce_next("XYZ789")
    assert [retain for _, _, retain, _ in authority._outbox._queue] == [True]
    assert sent(authority) == [("next", NextRoom(room=CODE, next="XYZ789"))]
    assert authority._next_code == "XYZ789"


def test_the_next_game_keeps_people_and_bots_and_frees_stand_ins() -> None:
    """Kills next_seats's mutants: a person's seat (name, key, plays; away,
    no level), a bot's (name, level), a stand-in's and an open seat
    emptied with their numbers."""
    authority = room(players=4)
    ana, robo = Identity.generate(), Identity.generate()
    authority.seats = [
        SeatSlot("Ana", "human", "random", key=ana.public_key, present=True, since=5.0),
        SeatSlot("Robo", "human", key=robo.public_key, plays="heuristic"),
        SeatSlot("Cy", "bot", "heuristic", present=True),
        SeatSlot("Bea", "bot", "heuristic", present=True, replaced=True),
    ]
    assert authority.next_seats() == [
        SeatSlot("Ana", "human", key=ana.public_key),
        SeatSlot("Robo", "human", key=robo.public_key, plays="heuristic"),
        SeatSlot("Cy", "bot", "heuristic"),
        SeatSlot("Seat 4"),
    ]
    authority.seats[2] = SeatSlot("Seat 3")
    assert authority.next_seats()[2] == SeatSlot("Seat 3")


# -- what stays on the broker ---------------------------------------------------


def test_retained_topics_are_the_rooms_the_hosts_and_each_key_heard() -> None:
    """Kills retained_topics's mutants: the room and next topics, then the
    presences of the host, the seated keys and the keys whose presence was
    heard (not those only heard from by requests), each once, at most
    1 + 16 + 64."""
    from net.protocol.wire import next_topic, presence_topic, room_topic

    authority = room()
    ana, eve, bob = Identity.generate(), Identity.generate(), Identity.generate()
    seated(authority, ana)
    presence(authority, eve, online=False)
    hello(authority, bob, name="Bob")  # a request, no presence: not kept
    host = authority.identity.peer_id
    assert authority.retained_topics() == [
        room_topic(CODE),
        next_topic(CODE),
        presence_topic(CODE, host),
        presence_topic(CODE, ana.peer_id),
        presence_topic(CODE, eve.peer_id),
    ]
    many = [Identity.generate() for _ in range(90)]
    for key in many:
        authority._peer_record(key.public_key).presence_epoch = 0
    topics = authority.retained_topics()
    assert len(topics) == 2 + 1 + 16 + 64
    assert topics[-1] == presence_topic(CODE, many[64 + 16 - 3].peer_id)


async def test_a_failover_room_clears_its_announcement_and_voters_presences_too(
    tmp_path: Path,
) -> None:
    """A room whose game fails over also retains its authority's
    announcement and each voter's presence (net/election/driver.py): they
    are cleared with the rest. Left behind, a host back after its table
    moved and the game ended there found an announcement and no room, and
    waited MOVE_WAIT (20 s: tests/net/test_recovery.py's slow mode); and a
    shared Mosquitto kept them for ever."""
    from net.election.driver import voter_presence_topic

    authority = room(players=3, failover=True, voter_dir=tmp_path)
    people = [Identity.generate() for _ in range(3)]
    for number, person in enumerate(people):
        seated(authority, person, name=f"P{number}", seat=number)
    assert authority_topic(CODE) not in authority.retained_topics()  # no election yet
    authority.start_game()
    assert authority.replica is not None and authority.table is not None
    await authority.table.stop()
    voters = authority.replica.driver.node.voters
    assert len(voters) == 4
    assert authority.retained_topics()[-5:] == [
        authority_topic(CODE),
        *(voter_presence_topic(CODE, peer_id(voter)) for voter in voters),
    ]
    await authority.close(keep=True)


def test_each_refusal_is_logged_by_its_code_and_words(caplog: pytest.LogCaptureFixture) -> None:
    """Kills _refuse's mutants of the flood log (its kind by code, its line,
    logged at INFO)."""
    import logging

    authority = room()
    eve = Identity.generate()
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        request(authority, eve, Sync(room=CODE, epoch=1, n=1))
    assert authority._floods.counts == {"refused-unseated": 1}
    assert [
        (r.levelno, unroomed(r.getMessage())) for r in caplog.records if r.name == "passe.authority"
    ] == [(logging.INFO, f"refused {eve.peer_id}: you have no seat at this table")]


async def test_a_request_that_does_not_open_is_refused_only_when_sealed_to_another_key() -> None:
    """A seat's request is signed and sealed (protocol version 2 signs only
    these among sealed bodies: they carry actions). One signed by the
    topic's peer but sealed to another key (a table's former holder's, by a
    seat that has not heard it moved) is answered "cannot decrypt", so that
    it seals again; one signed for another room, or the authority's own
    unsigned answer turned back at it as the peer's, is dropped, nobody
    told (no one to answer safely)."""
    authority = room()
    ana = Identity.generate()
    listen(authority)
    topic = to_authority_topic(CODE, ana.peer_id)
    sync = Sync(room=CODE, epoch=1, n=1)
    former = Identity.generate()
    await authority._on_message(topic, seal(ana, topic, sync, former.public_key))
    assert to(authority, ana) == [refusal("cannot decrypt: not sealed to this peer", "sealed")]
    assert authority._floods.counts == {"refused-sealed": 1}
    me = authority.identity
    moved = seal(ana, to_authority_topic("XYZ789", ana.peer_id), sync, me.public_key)
    await authority._on_message(topic, moved)
    answer = msgspec.msgpack.decode(
        seal(me, to_peer_topic(CODE, ana.peer_id), sync, ana.public_key), type=Envelope
    )
    turned = msgspec.msgpack.encode(msgspec.structs.replace(answer, sender=ana.public_key))
    await authority._on_message(topic, turned)
    assert to(authority, ana) == []
    assert authority._floods.counts == {
        "refused-sealed": 1,
        "dropped-signature": 1,
        "dropped-bad": 1,
    }
    # The genuine one is answered (a Sync from a key with no seat).
    await authority._on_message(topic, seal(ana, topic, sync, me.public_key))
    assert to(authority, ana) == [refusal("you have no seat at this table", "unseated", 1)]


def test_the_host_takes_a_person_out_in_words(caplog: pytest.LogCaptureFixture) -> None:
    """Kills remove's mutants: the errors (started; nobody in an open, a
    bot's or no such seat) in their words, the person told (words with the
    seat's number, code "removed"), the seat emptied with its number, the
    notice, logged."""
    import logging

    authority = room()
    ana = Identity.generate()
    seated(authority, ana, seat=1)
    authority.set_bot(2, "heuristic")
    for seat in (-1, 0, 2, 3):
        with pytest.raises(IllegalAction) as error:
            authority.remove(seat)
        assert str(error.value) == f"nobody sits in seat {seat + 1}"
    listen(authority)
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        authority.remove(1)
    assert to(authority, ana) == [
        refusal(f"the host of room {format_code(CODE)} took you out of seat 2", "removed")
    ]
    assert authority.seats[1] == SeatSlot("Seat 2")
    assert authority.room_state().notice == "the host took Ana out of seat 2"
    assert "the host took Ana out of seat 2" in [unroomed(r.getMessage()) for r in caplog.records]
    assert ana.public_key in authority.barred
    authority.phase = "playing"
    with pytest.raises(IllegalAction, match=r"^the game has started$"):
        authority.remove(1)


def test_the_presence_watch_stops_without_a_bound_or_when_closing() -> None:
    """Kills _check_presences's mutants of its first lines (the watch
    forgotten, either reason to stop)."""
    authority = room()
    authority._presence_watch = "pending"  # type: ignore[assignment]
    authority._check_presences()  # no bound: stops, no loop needed
    assert authority._presence_watch is None
    authority.presence_timeout = 1.0
    authority._closing = True
    authority._check_presences()
    assert authority._presence_watch is None


def test_an_away_clock_in_a_game_gone_does_nothing() -> None:
    """Kills _stand_in_if_away's mutant that no longer suppresses stand_in's
    IllegalAction (a clock firing when no table is there)."""
    authority = room()
    ana = Identity.generate()
    seated(authority, ana)
    presence(authority, ana, online=False, epoch=6)
    authority.phase = "playing"  # and no table
    authority._stand_in_if_away(0)
    assert authority.seats[0].level == ""


async def test_a_key_unheard_past_the_bound_is_away_and_the_watch_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _check_presences's mutants: the log line (words, name, bound),
    and the next check (a quarter of the bound, at least 0.05 s, itself)."""
    import asyncio
    import logging

    now = [100.0]
    authority = room(presence_timeout=4.0)
    authority.clock = lambda: now[0]
    ana = Identity.generate()
    seated(authority, ana)
    now[0] += 5
    loop = asyncio.get_running_loop()
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        authority._check_presences()
    assert not authority.seats[0].present
    assert "Ana was not heard for 4 s: away" in [unroomed(r.getMessage()) for r in caplog.records]
    watch = authority._presence_watch
    assert watch is not None and watch._callback == authority._check_presences  # type: ignore[attr-defined]
    assert 0.9 < watch.when() - loop.time() <= 1.0
    watch.cancel()
    authority.presence_timeout = 0.1
    authority._check_presences()
    watch = authority._presence_watch
    assert watch is not None and 0.04 < watch.when() - loop.time() <= 0.05
    watch.cancel()


def test_seats_held_without_ever_showing_up_past_the_grace_are_provisional(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _provisional's mutants: every seat looked at (an open one
    first), a seat taken within the grace (at its edge) kept, a holder seen
    online once kept."""
    import types

    grace = authority_module.PROVISIONAL_GRACE
    authority = room(players=4)
    clock = types.SimpleNamespace(monotonic=lambda: 100.0)
    monkeypatch.setattr(authority_module, "time", clock)
    keys = [Identity.generate().public_key for _ in range(3)]
    authority.seats[1] = SeatSlot("Old", "human", key=keys[0], since=100.0 - grace - 0.5)
    authority.seats[2] = SeatSlot("New", "human", key=keys[1], since=100.0 - grace + 0.5)
    authority.seats[3] = SeatSlot("Was", "human", key=keys[2], since=0.0)
    authority._peer_record(keys[2]).ever_online = True
    assert authority._provisional() == [1]
    authority.seats[2].since = 100.0 - grace  # held the whole grace: at its edge
    assert authority._provisional() == [1, 2]


def test_a_key_start_is_refused_in_words_unless_8_to_16_hex_digits() -> None:
    """Kills key_prefix's mutants of its refusal's words."""
    words = "type at least the first 8 characters of their key (0-9 and a-f, e.g. 8ef4-36c2)"
    for typed in ("8ef4-36c", "8ef4-36c2-f69d-1234-5", "8ef4-36cg"):
        with pytest.raises(ValueError) as error:
            authority_module.key_prefix(typed)
        assert str(error.value) == words
    assert authority_module.key_prefix("8EF4 36C2-f69d") == "8ef436c2f69d"


def test_a_knock_let_in_to_a_full_room_is_told_so_and_unbarred() -> None:
    """Kills admit's mutants: the bar lifted (the host's word overrides an
    earlier refusal), and the knock's n carried to the refusal of a room
    that filled meanwhile."""
    authority = room(admission="ask")
    eve = Identity.generate()
    presence(authority, eve, online=True)
    hello(authority, eve, n=8, name="Eve")
    for seat in range(3):
        authority.set_bot(seat, "heuristic")
    authority.barred.add(eve.public_key)
    listen(authority)
    authority.admit(eve.public_key)
    assert eve.public_key not in authority.barred
    assert to(authority, eve) == [refusal(FULL, "full", 8)]


def play_past_a_long_log(authority: Authority) -> Table:
    """Seat 1's first legal move and the bots' until its log is longer than
    an answer may carry more than once per interval (LOG_ANSWER_EVENTS)."""
    table = authority.table
    assert table is not None
    while len(authority._logs[0]) <= authority_module.LOG_ANSWER_EVENTS:
        if table.state.to_act[0] == 0:
            table.submit(0, table.state.view(0).legal[0])
        else:
            table.step_bot()
    return table


async def test_a_long_log_is_answered_to_a_sync_once_per_interval() -> None:
    """Kills _on_sync's mutants of ``answer=True`` (a Sync's answer of a
    long log goes at most once per LOG_ANSWER_INTERVAL)."""
    authority = room()
    now = [100.0]
    authority.clock = lambda: now[0]
    ana = Identity.generate()
    await in_play(authority, ana)
    table = play_past_a_long_log(authority)
    assert not table.state.is_over
    sent(authority, ana)
    request(authority, ana, Sync(room=CODE, epoch=1, n=2))
    request(authority, ana, Sync(room=CODE, epoch=1, n=3))
    (update,) = to(authority, ana)
    assert isinstance(update, Update) and update.base == 0
    assert len(update.events) == len(authority._logs[0])
    assert authority._floods.counts["log-answer"] == 1
    now[0] += authority_module.LOG_ANSWER_INTERVAL
    request(authority, ana, Sync(room=CODE, epoch=1, n=4))
    assert [type(message) for message in to(authority, ana)] == [Update]


def test_a_key_the_host_expected_stays_let_in_after_leaving() -> None:
    """Kills _expected_key's mutant that lets in nobody (the key typed by
    the host is admitted for the room: back after leaving, it sits)."""
    authority = room(admission="ask")
    ana = Identity.generate()
    assert authority.expect(ana.peer_id[:8]) is None
    seated(authority, ana)
    assert holders(authority)[0] == ana.public_key and not authority.expected
    request(authority, ana, Leave(room=CODE, epoch=1, n=2))
    hello(authority, ana, n=3)
    assert holders(authority)[0] == ana.public_key and not authority.knocks


async def test_a_room_restored_keeps_its_delay_unless_told_and_its_version() -> None:
    """Kills restore's mutants of the bot delay (the saved one by default,
    the one given otherwise, also the table's) and of the version given."""
    from net.authority.rooms import BrokerChoice

    authority = room(bot_delay=0.25)
    ana = Identity.generate()
    await in_play(authority, ana)
    assert authority.table is not None and authority.table.bot_delay == 0.25  # start_game's
    saved = authority.snapshot(BrokerChoice(False, "127.0.0.1", 1))
    again = Authority.restore(saved, "10.0.0.7", 1884)
    assert again.bot_delay == 0.25 and again.table is not None
    assert again.table.bot_delay == 0.25
    assert (again.broker_host, again.broker_port) == ("10.0.0.7", 1884)
    assert again.app_version == authority_module.passe_version()
    told = Authority.restore(saved, "h", 1, bot_delay=0.0, app_version="9.9")
    assert told.bot_delay == 0.0 and told.table is not None and told.table.bot_delay == 0.0
    assert told.app_version == "9.9"


async def test_a_restored_room_has_its_store_phase_epoch_marks_observer_and_logs(
    tmp_path: Path,
) -> None:
    """Kills restore's mutants: the store given, the phase, the presence
    epoch (never below the saved one), the nonce marks (a former key's kept
    among the former, a seated key's not), the table observed, each
    person's log as that seat sees it."""
    from net.authority.rooms import BrokerChoice, RoomStore

    authority = room("dominoes")
    ana, bob = Identity.generate(), Identity.generate()
    await in_play(authority, ana)
    table = authority.table
    assert table is not None
    while authority._seat_events(0, table.events) == authority._seat_events(None, table.events):
        move(authority)  # until Ana draws a tile only she may see
    authority._peer_record(bob.public_key).last_nonce = (3, 4)
    authority._former[bob.public_key] = None
    where = BrokerChoice(False, "127.0.0.1", 1)
    saved = authority.snapshot(where)
    store = RoomStore(tmp_path / "room", where)
    again = Authority.restore(saved, "127.0.0.1", 1, store=store)
    assert again.store is store and again.phase == "playing"
    assert again._epoch >= saved.epoch
    assert again._peers[ana.public_key].last_nonce == authority._peers[ana.public_key].last_nonce
    assert again._peers[bob.public_key].last_nonce == (3, 4)
    assert again._former == {bob.public_key: None}
    assert again._logs == authority._logs and set(again._logs) == {0}
    assert again.table is not None and again.table.observers == [again._on_table_change]
    future = Authority.restore(msgspec.structs.replace(saved, epoch=2**50), "h", 1)
    assert future._epoch == 2**50


async def test_a_wrong_act_resynchronises_a_long_log_once_per_interval() -> None:
    """Kills _on_act's mutants of ``answer=True`` in its two re-synchronising
    refusals (another seat's act, an act for a state not yet sent), and of
    the phase check once over with the table still there."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    play_past_a_long_log(authority)
    now = [100.0]
    authority.clock = lambda: now[0]
    sent(authority, ana)
    act(authority, ana, 2, seat=1)
    act(authority, ana, 3, seat=1)
    act(authority, ana, 4, at=authority.seq + 1)
    assert [type(message) for message in to(authority, ana)] == [Refused, Update, Refused, Refused]
    authority.phase = "over"
    act(authority, ana, 5)
    assert to(authority, ana) == [refusal("the game is over", "illegal", 5)]


async def test_the_room_is_published_again_at_once_or_one_gap_after_the_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _schedule_republish's mutants: at once when the gap since the
    last has passed (at its edge too), else once, REPUBLISH_GAP after the
    last; the retained room state on its topic; nothing once closing."""
    import asyncio
    import time
    import types

    now = [50.0]
    authority = room()
    clock = types.SimpleNamespace(monotonic=lambda: now[0], time_ns=time.time_ns)
    monkeypatch.setattr(authority_module, "time", clock)
    listen(authority)
    assert authority._outbox is not None
    authority._schedule_republish()
    assert [(topic, retain) for topic, _, retain, _ in authority._outbox._queue] == [
        (f"passe/v1/{CODE}/room", True)
    ]
    assert [where for where, _ in sent(authority)] == ["room"]
    assert authority._republish is None and authority._last_republish == 50.0
    now[0] = 50.5
    authority._schedule_republish()
    later = authority._republish
    assert later is not None and sent(authority) == []
    loop = asyncio.get_running_loop()
    assert 0.4 < later.when() - loop.time() <= 0.5
    authority._schedule_republish()  # one is waiting already
    assert authority._republish is later
    again = later._callback
    later.cancel()
    now[0] = 52.0
    again()  # as the loop runs it
    assert authority._republish is None and authority._last_republish == 52.0
    assert [where for where, _ in sent(authority)] == ["room"]
    now[0] = 53.0  # exactly the gap since
    authority._schedule_republish()
    assert [where for where, _ in sent(authority)] == ["room"]
    authority._closing = True
    now[0] = 60.0
    authority._schedule_republish()
    assert sent(authority) == [] and authority._last_republish == 60.0


async def test_each_move_is_kept_through_a_crash_and_sent_to_each_person(
    tmp_path: Path,
) -> None:
    """Kills _on_table_change's mutants: the save of each move not flushed
    (durable=False), and every person's seat updated past a bot's seat."""
    from net.authority.rooms import BrokerChoice, RoomStore

    authority = room("dominoes")  # a draw is shown only to its seat
    ana = Identity.generate()
    presence(authority, ana, online=True)
    hello(authority, ana, seat=1)
    authority.set_bot(0, "heuristic")
    authority.set_bot(2, "heuristic")
    listen(authority)
    authority.start_game()
    table = authority.table
    assert table is not None
    await table.stop()
    store = RoomStore(tmp_path / "room", BrokerChoice(False, "127.0.0.1", 1))
    authority.store, authority._live = store, True
    durable: list[object] = []
    save = store.save

    def spy(room: object, **options: object) -> None:
        durable.append(options.get("durable"))
        save(room, **options)  # type: ignore[arg-type]

    store.save = spy  # type: ignore[method-assign]
    sent(authority, ana)
    move(authority)
    assert durable == [False]
    assert [type(message) for message in to(authority, ana)] == [Update]
    while authority._seat_events(0, table.events) == authority._seat_events(1, table.events):
        move(authority)  # until a draw she may not see
    # Her log is every event as her seat may see it (others' draws hidden).
    assert authority._logs[1] == authority._seat_events(1, table.events)
    assert authority._logs[1] != authority._seat_events(0, table.events)


def move(authority: Authority) -> None:
    table = authority.table
    assert table is not None
    seat = table.state.to_act[0]
    if table.seats[seat].is_bot:
        table.step_bot()
    else:
        table.submit(seat, table.state.view(seat).legal[0])


def test_nonce_marks_from_epoch_0_and_n_0_are_saved() -> None:
    """Kills snapshot's mutants of the saved marks' bound (a request of
    epoch 0 and n 0 is one; only the default (-1, -1) is none)."""
    from net.authority.rooms import BrokerChoice, NonceMark
    from net.protocol.wire import Hello

    authority = room()
    ana = Identity.generate()
    presence(authority, ana, online=True)
    request(authority, ana, Hello(room=CODE, epoch=0, n=0, name="Ana"))
    where = BrokerChoice(False, "127.0.0.1", 1)
    assert authority.snapshot(where).nonces == [NonceMark(ana.public_key, 0, 0)]
    request(authority, ana, Sync(room=CODE, epoch=0, n=5))
    assert authority.snapshot(where).nonces == [NonceMark(ana.public_key, 0, 5)]


async def test_a_person_back_without_a_stand_in_changes_nothing_else(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _back_from_stand_in's mutants: a person coming back whom no bot
    stood in for gets no notice; one who had a bot is told back (logged)."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    presence(authority, ana, online=False, epoch=6)
    presence(authority, ana, online=True, epoch=7)
    hello(authority, ana, n=2)
    assert authority.room_state().notice == ""
    presence(authority, ana, online=False, epoch=8)
    authority.stand_in(0)
    presence(authority, ana, online=True, epoch=9)
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        hello(authority, ana, n=3)
    assert "Ana is back and plays again" in [unroomed(r.getMessage()) for r in caplog.records]


# -- each request's common checks (handle) ----------------------------------------


def test_a_request_for_another_room_or_an_old_one_is_refused_in_words() -> None:
    """Kills handle's mutants: another room's request refused (words with
    both codes, code "bad", n); a replayed or older one refused (words,
    "stale", n) and its seated sender re-synchronised; a fresh one taken
    (its nonce kept)."""
    from net.protocol.wire import Hello

    authority = room()
    now = [100.0]
    authority.clock = lambda: now[0]
    ana = Identity.generate()
    seated(authority, ana)
    listen(authority)
    request(authority, ana, Sync(room="XYZ789", epoch=1, n=9))
    assert to(authority, ana) == [
        refusal(f"this is room {format_code(CODE)}, not XYZ789", "bad", 9)
    ]
    assert authority._peers[ana.public_key].last_nonce == (1, 1)
    request(authority, ana, Hello(room=CODE, epoch=1, n=1, name="Ana"))
    assert to(authority, ana) == [refusal("an old or repeated request was ignored", "stale", 1)]
    request(authority, ana, Sync(room=CODE, epoch=0, n=50))
    assert to(authority, ana) == []  # answered once per interval
    assert authority._floods.counts["stale"] == 2
    now[0] += authority_module.LOG_ANSWER_INTERVAL
    request(authority, ana, Sync(room=CODE, epoch=0, n=50))
    assert to(authority, ana) == [refusal("an old or repeated request was ignored", "stale", 50)]
    request(authority, ana, Sync(room=CODE, epoch=2, n=0))  # a new epoch: fresh
    assert to(authority, ana) == [Welcome(room=CODE, seat=0)]
    assert authority._peers[ana.public_key].last_nonce == (2, 0)


async def test_a_stale_request_of_a_seated_person_mid_game_resends_the_log() -> None:
    """Kills handle's mutants of the stale answer's re-synchronisation (the
    seat's whole log, base 0)."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    request(authority, ana, Sync(room=CODE, epoch=1, n=0))
    refused, update = to(authority, ana)
    assert refused == refusal("an old or repeated request was ignored", "stale", 0)
    assert isinstance(update, Update) and update.base == 0
    assert len(update.events) == len(authority._logs[0])


async def _ana_to_act() -> tuple[Authority, Identity, Act]:
    """A game in play where Ana (seat 0) is to act, nothing sent yet, and
    her next request: her first legal action, nonce 2."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    table = authority.table
    assert table is not None
    while table.state.to_act[0] != 0:
        table.step_bot()
    sent(authority, ana)
    legal = str(table.state.view(0).legal[0])
    return authority, ana, Act(room=CODE, epoch=1, n=2, seat=0, action=legal, at=authority.seq)


async def test_the_latest_request_again_mid_game_gets_its_answer_and_is_not_handled_again() -> None:
    """Issue 20 ("a duplicate gets the original answer, never a second
    application"): a seat re-sends its unanswered action, with its nonce,
    to the authority the table moved to. This one had handled it (its
    nonce is the latest of that key): the answer is the seat's view,
    acknowledging that n, with no refusal, and the action is not applied a
    second time. Fails if the repeat is refused as stale (the person would
    read "an old or repeated request was ignored" for a move that counted)
    or handled again."""
    authority, ana, first = await _ana_to_act()
    table = authority.table
    assert table is not None
    request(authority, ana, first)
    played = len(table.record().actions)
    (answer,) = to(authority, ana)
    assert isinstance(answer, Update) and answer.ack == 2 and answer.rejected is None
    request(authority, ana, first)  # again, as after a failover
    (again,) = to(authority, ana)
    assert isinstance(again, Update) and again.ack == 2 and again.rejected is None
    assert again.view == answer.view and len(table.record().actions) == played


async def test_a_stale_answer_does_not_use_up_the_answer_to_the_latest_request() -> None:
    """Each kind of answer to a repeat has its own once-an-interval bound
    (issue 20): an old nonce replayed (refused as stale, with the view) must
    not keep the seat's own latest action, sent again after a failover,
    from its answer in the same interval, nor the other way round. Kills
    handle mutmut_49 (every repeat in the "stale" bucket) and mutmut_50
    (every one in the "latest" bucket)."""
    authority, ana, latest = await _ana_to_act()
    request(authority, ana, latest)
    to(authority, ana)
    request(authority, ana, Sync(room=CODE, epoch=1, n=0))  # a replay: stale
    refused, _ = to(authority, ana)
    assert refused == refusal("an old or repeated request was ignored", "stale", 0)
    request(authority, ana, latest)  # the same interval: still answered
    (again,) = to(authority, ana)
    assert isinstance(again, Update) and again.ack == 2


def test_requests_past_the_rate_are_dropped_unanswered_and_counted() -> None:
    """Kills handle's mutants of the request and Hello budgets (each
    request costs one, a Hello one more of its own)."""
    from net.protocol.wire import Hello

    authority = room()
    now = [100.0]
    authority.clock = lambda: now[0]
    ana = Identity.generate()
    seated(authority, ana)
    listen(authority)
    burst = int(authority_module.HELLO_RATE.message_burst)
    for n in range(2, 2 + burst + 3):
        request(authority, ana, Hello(room=CODE, epoch=1, n=n, name="Ana"))
    welcomes = [m for m in to(authority, ana) if isinstance(m, Welcome)]
    assert len(welcomes) == burst - 1  # her first Hello took one
    assert authority._floods.counts["requests"] == 4


def test_a_person_who_leaves_is_kept_among_the_former_the_latest_16() -> None:
    """Kills handle's mutants of the former keys: one who gave up a seat is
    remembered (newest last), at most MAX_FORMER; one who never sat not."""
    authority = room()
    leavers = [Identity.generate() for _ in range(authority_module.MAX_FORMER + 2)]
    for n, key in enumerate(leavers):
        seated(authority, key, name=f"P{n}")
        request(authority, key, Leave(room=CODE, epoch=1, n=2))
    request(authority, Identity.generate(), Leave(room=CODE, epoch=1, n=2))
    assert list(authority._former) == [key.public_key for key in leavers[2:]]
    again = leavers[5]
    seated(authority, again, name="Back", n=5)
    assert authority._seat_of(again.public_key) == 0
    request(authority, again, Leave(room=CODE, epoch=1, n=9))
    assert list(authority._former)[-1] == again.public_key
    assert len(authority._former) == authority_module.MAX_FORMER


# -- a Hello ----------------------------------------------------------------------


def test_a_hello_once_started_or_for_no_such_seat_is_refused_in_words() -> None:
    """Kills _on_hello's mutants of its refusals: a new key once the game
    started or is over (words, "started", n), a seat past the table's
    (words with the seat's number, "bad", n)."""
    authority = room()
    eve = Identity.generate()
    presence(authority, eve, online=True)
    listen(authority)
    hello(authority, eve, n=2, seat=3)
    assert to(authority, eve) == [refusal("there is no seat 4", "bad", 2)]
    authority.phase = "playing"
    hello(authority, eve, n=3)
    assert to(authority, eve) == [
        refusal(f"the game in room {format_code(CODE)} has already started", "started", 3)
    ]
    # A key that gave up its seat in this game is told that, not "started"
    # (a play-test's player, back from a call).
    authority._former[eve.public_key] = None
    hello(authority, eve, n=4)
    assert to(authority, eve) == [
        refusal(
            f"you left the game in room {format_code(CODE)}, and a bot plays on in your "
            "place: a seat left is not taken back",
            "started",
            4,
        )
    ]
    authority.phase = "over"
    hello(authority, eve, n=5)
    assert to(authority, eve) == [
        refusal(f"the game in room {format_code(CODE)} is over", "started", 5)
    ]
    authority.phase = "closed"  # not "has already started" (a dealer's lobby that closed)
    hello(authority, eve, n=6)
    assert to(authority, eve) == [refusal(f"room {format_code(CODE)} is closed", "started", 6)]


def test_a_reconnecting_person_is_welcomed_present_and_the_room_published() -> None:
    """Kills _on_hello's reconnection mutants: present from the live
    presence, a bot process's Hello in the lobby makes it one, the Welcome,
    the room published."""
    authority = room()
    ana = Identity.generate()
    seated(authority, ana)
    presence(authority, ana, online=False, epoch=6)
    listen(authority)
    hello(authority, ana, n=2, seat=0)
    assert not authority.seats[0].present
    presence(authority, ana, online=True, epoch=7)
    sent(authority, ana)
    hello(authority, ana, n=3, bot=True)
    assert authority.seats[0].present
    assert authority.seats[0].plays == authority_module.REPLACEMENT_BOT
    welcome, (where, state) = sent(authority, ana)
    assert welcome == (ana.peer_id, Welcome(room=CODE, seat=0))
    assert where == "room" and state.seats[0].kind == "bot"
    authority.seats[0].plays = "random"
    hello(authority, ana, n=4, bot=True)  # kept as it was
    assert authority.seats[0].plays == "random"


async def test_a_reconnecting_person_mid_game_gets_the_log_from_what_they_hold() -> None:
    """Kills _on_hello's mutants of the update sent on reconnection (from
    the Hello's ``have``)."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    have = len(authority._logs[0]) - 1
    hello(authority, ana, n=2, have=have)
    welcome, update = to(authority, ana)
    assert welcome == Welcome(room=CODE, seat=0)
    assert isinstance(update, Update) and update.base == have and len(update.events) == 1


# -- seating a new key ------------------------------------------------------------


def test_a_seat_asked_for_is_given_or_refused_and_names_stay_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _seat_new's mutants: the seat asked for (free), taken (words,
    "taken", n), any free one, a full room (words, "full", n), a squatter's
    seat given away (its holder told, the notice); _unique_name's numbers;
    a bot renamed for a person of its name."""
    monkeypatch.setattr(authority_module, "PROVISIONAL_GRACE", 0.0)
    authority = room(players=4)
    ana, bea, cy, dan, eve = (Identity.generate() for _ in range(5))
    authority.set_bot(3, "heuristic")
    bot = authority.seats[3].name
    listen(authority)
    seated(authority, ana, seat=2)
    assert holders(authority)[2] == ana.public_key
    assert to(authority, ana) == [Welcome(room=CODE, seat=2)]
    presence(authority, bea, online=True)
    hello(authority, bea, n=4, seat=2, name="ana")
    assert to(authority, bea) == [refusal("seat 3 is taken", "taken", 4)]
    hello(authority, bea, n=5, name="ana")
    assert holders(authority)[0] == bea.public_key and authority.seats[0].name == "ana 2"
    seated(authority, cy, name=bot)
    assert authority.seats[1].name == bot and authority.seats[3].name != bot
    assert authority.seats[3].kind == "bot"
    squatter = authority.seats[1]
    authority._peers[cy.public_key].ever_online = False
    authority._peers[cy.public_key].online = False
    sent(authority, ana, bea, cy)
    seated(authority, dan, name="Dan")
    assert holders(authority)[1] == dan.public_key
    assert to(authority, cy) == [refusal("seat 2 went to someone present", "removed")]
    assert authority.room_state().notice == (
        f"someone (key {fingerprint(squatter.key)}) took seat 2 without showing up: "  # type: ignore[arg-type]
        "it went to the next person who asked"
    )
    presence(authority, eve, online=True)
    hello(authority, eve, n=6, name="Eve")
    assert to(authority, eve) == [refusal(FULL, "full", 6)]


def test_a_name_taken_ten_times_over_is_numbered_then_kept() -> None:
    """Kills _unique_name's mutants: numbers from 2, compared as read, the
    name itself once 2 to 19 are taken."""
    authority = room()
    authority.seats = [
        SeatSlot("Bo" if seat == 0 else f"bo {seat + 1}", "human", key=bytes([seat]) * 32)
        for seat in range(16)
    ]
    assert authority._unique_name("Bo", 0) == "Bo"  # its own seat does not count
    authority.seats[15] = SeatSlot("Seat 16")
    assert authority._unique_name("BO", 15) == "BO 16"
    authority.seats[14] = SeatSlot("Cy", "bot", "heuristic")
    assert authority._unique_name("bo", 15) == "bo 15"
    long = "x" * 40
    authority.seats[0].name = long
    assert authority._unique_name(long, 15) == f"{'x' * 13} 2"  # NAME_CELLS - 3
    authority.seats = [SeatSlot("Bo", "human", key=b"b" * 32)] + [
        SeatSlot(f"Bo {n}", "human", key=bytes([n]) * 32) for n in range(2, 20)
    ]
    assert authority._unique_name("bo", 19) == "bo"  # 2 to 19 taken: as it is


# -- admission's refusals ---------------------------------------------------------


def test_admission_refuses_in_words_a_key_not_listed_and_a_flood_of_knocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _admission's mutants of its refusals: a key a "keys" rule does
    not list (words with its fingerprint, "denied", n), too many knocks
    (words with the key, "full"), a full room under "ask" (words, "full",
    n); an old knock forgotten after KNOCK_TTL."""
    eve = Identity.generate()
    listed = room(admission="keys", allowed_keys=frozenset())
    listen(listed)
    hello(listed, eve, n=3)
    assert to(listed, eve) == [
        refusal(
            f"room {format_code(CODE)} lets in only the keys its host listed; yours is "
            f"{fingerprint(eve.public_key)}: ask the host to add it",
            "denied",
            3,
        )
    ]
    authority = room(admission="ask")
    listen(authority)
    knockers = [Identity.generate() for _ in range(authority_module.MAX_KNOCKS)]
    for key in knockers:
        presence(authority, key, online=True)
        hello(authority, key)
    presence(authority, eve, online=True)
    sent(authority, *knockers, eve)
    hello(authority, eve, n=4)
    assert to(authority, eve) == [
        refusal(
            f"too many people are knocking at room {format_code(CODE)} "
            "(someone may be flooding it): "
            f"read your key, {fingerprint(eve.public_key)}, to the host: i on their "
            "lobby lets it in; then join again",
            "full",
            4,  # the hello's n, as every other refusal of a hello
        )
    ]
    hello(authority, knockers[0], n=2)  # a knock already waiting asks again
    assert len(authority.knocks) == authority_module.MAX_KNOCKS
    for knock in authority.knocks.values():
        knock.at -= authority_module.KNOCK_TTL + 1
    hello(authority, eve, n=5)
    assert list(authority.knocks) == [eve.public_key]
    for seat in range(3):
        authority.set_bot(seat, "heuristic")
    bea = Identity.generate()
    presence(authority, bea, online=True)
    sent(authority, eve)
    hello(authority, bea, n=6)
    assert to(authority, bea) == [refusal(FULL, "full", 6)]


def test_a_knock_asked_again_keeps_when_it_came() -> None:
    """Kills _admission's mutants of a knock asked again (the same time,
    the newest Hello's fields)."""
    authority = room(admission="ask")
    eve = Identity.generate()
    presence(authority, eve, online=True)
    hello(authority, eve, n=2, name="Eve")
    first = authority.knocks[eve.public_key]
    first.at -= 50
    hello(authority, eve, n=3, name="Eva", seat=1)
    knock = authority.knocks[eve.public_key]
    assert (knock.name, knock.seat, knock.n, knock.at) == ("Eva", 1, 3, first.at)


def test_a_knock_waits_its_whole_ttl_and_no_longer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kills _admission's mutant 48 (``>=`` for ``>``: a knock exactly
    KNOCK_TTL old expired): the knock is kept at its edge and dropped just
    past it, when another Hello makes the room look at its knocks."""
    import types

    now = [1000.0]
    clock = types.SimpleNamespace(monotonic=lambda: now[0], time_ns=lambda: 0)
    authority = room(admission="ask")
    monkeypatch.setattr(authority_module, "time", clock)
    eve, dan, cy = Identity.generate(), Identity.generate(), Identity.generate()
    for key in (eve, dan, cy):
        presence(authority, key, online=True)
    hello(authority, eve, n=2, name="Eve")
    now[0] += authority_module.KNOCK_TTL  # at its edge
    hello(authority, dan, n=2, name="Dan")
    assert eve.public_key in authority.knocks
    now[0] += 0.001  # past it
    hello(authority, cy, n=2, name="Cy")
    assert eve.public_key not in authority.knocks and dan.public_key in authority.knocks


def test_a_knock_asked_again_once_the_table_is_full_is_still_a_knock() -> None:
    """Found under load (test_a_knock_at_a_full_table_waits_for_a_free_seat
    failed 2 runs of 3): the joiner's Hello, sent again while its first
    answer was slow, came after the table had filled, and was refused as
    full: the knocker gave up and the host's lobby lost the knock. A knock
    stays when the table fills; only a new one is refused as full."""
    authority = room(admission="ask")
    eve, dan = Identity.generate(), Identity.generate()
    for key in (eve, dan):
        presence(authority, key, online=True)
    hello(authority, eve, n=2, name="Eve")
    for seat in range(3):
        authority.set_bot(seat, "heuristic")
    assert not authority.seat_to_give()
    listen(authority)
    hello(authority, eve, n=3, name="Eve")
    assert to(authority, eve) == [
        refusal(f"the host of room {format_code(CODE)} is asked to let you in", "knock", 3)
    ]
    assert eve.public_key in authority.knocks
    hello(authority, dan, n=2, name="Dan")
    assert to(authority, dan) == [refusal(FULL, "full", 2)]
    assert dan.public_key not in authority.knocks


# -- on a real broker ---------------------------------------------------------------


BROKER = ("127.0.0.1", 1883)


def an_authority(code: str, **options: object) -> Authority:
    return Authority(
        Identity.generate(),
        code,
        "passpass",
        get_game("passpass").make_config(players=3),
        "host",
        *BROKER,
        bot_delay=0,
        **options,  # type: ignore[arg-type]
    )


def presence_of(payload: bytes, topic: str) -> Presence | None:
    if not payload:
        return None
    return open_body(open_envelope(topic, payload), presence_decoder)


async def test_a_started_room_is_on_the_broker_and_hears_its_own_topics(
    tmp_path: Path,
) -> None:
    """Kills start's mutants: the room state and presence out (retained),
    the room and next topics followed (an empty state and another key's
    notice are warned about), the store written once live, the presence
    bound watched, its will; and close's discarding of a live room's file.
    (The will as the broker sends it is tested with a SIGKILLed host
    process: test_presence, test_recovery.)"""
    need_mosquitto()
    code = new_code()
    store = RoomStore(tmp_path / "room", BrokerChoice(False, *BROKER))
    alternate = ("127.0.0.1", 9)  # tried only if the first broker is gone
    authority = an_authority(
        code, store=store, presence_timeout=30.0, broker_alternates=(alternate,)
    )
    own = presence_topic(code, authority.identity.peer_id)
    try:
        async with RawClient(*BROKER, [room_topic(code), own]) as spy:
            await authority.start()
            await spy.until(lambda t, p: (s := room_state_of(t, p)) is not None and s.room == code)
            online = await spy.until(lambda t, p: t == own and bool(p))
            first = presence_of(online[1], own)
            assert first is not None and first.online
            assert authority._live and authority._presence_watch is not None
            assert authority._link is not None
            assert authority._link.brokers == [BROKER, alternate]  # start__mutmut_21
            # What the broker says if this process dies (start__mutmut_11
            # left the link without a will): "gone", retained, on its
            # presence topic, of a later epoch than the connection's.
            assert authority._link is not None and callable(authority._link.will)
            will = authority._link.will()
            gone = presence_of(will.payload, own)
            assert will.topic == own and will.retain and gone is not None
            assert not gone.online and gone.epoch > first.epoch
            assert store.path.exists()
            await spy.publish(room_topic(code), b"", retain=True)
            await until(lambda: len(authority.warnings) == 1)
            assert authority.warnings[0] == (
                "someone cleared or garbled a room state of room "
                f"{format_code(code)} on the broker: "
                "the room was published again"
            )
            squatter = Identity.generate()
            notice = seal(squatter, next_topic(code), NextRoom(room=code, next="XYZ789"))
            await spy.publish(next_topic(code), notice)
            await until(lambda: len(authority.warnings) == 2)
            assert authority.warnings[1].startswith("another key (")
            assert "published a next-game notice on room code" in authority.warnings[1]
        await authority.close()
        assert not store.path.exists()  # closed for good: nothing to resume
    finally:
        await authority.close()
        await clear_room(code)


async def test_the_last_room_state_is_made_after_everything_before_it_went_out() -> None:
    """A room state published while closing (a presence came during the
    drain: a player's "gone" at the end) left before the final one, which
    had been made before the drain with an older stamp: the state retained
    last went back in time (found by a client written from
    docs/protocol.md alone: "present" again after "away", the stamp lower).
    The final state is made once the sender has stopped."""
    need_mosquitto()
    code = new_code()
    authority = an_authority(code)
    published: list[int] = []
    finals: list[list[tuple[str, bytes]]] = []
    try:
        await authority.start()
        link = authority._link
        assert link is not None
        drain = authority._drain
        close = link.close

        async def drain_while_news_comes() -> None:
            authority._publish_room()  # as a presence changing now does
            published.append(authority._stamp)
            await drain()

        async def closed(*, graceful: bool = True, final: Sequence[tuple[str, bytes]] = ()) -> None:
            finals.append(list(final))
            await close(graceful=graceful, final=final)

        authority._drain = drain_while_news_comes  # type: ignore[method-assign]
        link.close = closed  # type: ignore[method-assign]
        await authority.close()
    finally:
        await authority.close()
        await clear_room(code)
    [final] = finals[:1]
    # The last state (beside the host's "gone", then the topics cleared).
    states = [room_state_of(topic, payload) for topic, payload in final]
    [state] = [state for state in states if state is not None]
    assert published
    assert state.stamp > published[0]


async def test_a_room_whose_broker_is_not_there_says_so_within_its_timeout() -> None:
    """Kills start's mutant that waits for the broker with no timeout."""
    authority = Authority(
        Identity.generate(),
        new_code(),
        "passpass",
        get_game("passpass").make_config(players=3),
        "host",
        "127.0.0.1",
        9,  # discard: nothing listens
    )
    async with asyncio.timeout(30):  # a bound on a hang, not a timing claim
        with pytest.raises(BrokerUnreachable):
            await authority.start(timeout=0.2)
    await authority.close()


async def test_a_room_closing_warns_of_nothing_more() -> None:
    """Kills close's mutants of ``_closing`` (once closing, another key's
    room state is neither warned about nor answered)."""
    authority = room()
    await authority.close(keep=True)
    squatter = Identity.generate()
    topic = room_topic(CODE)
    listen(authority)
    authority._on_own_topic(topic, seal(squatter, topic, authority.room_state()))
    authority._on_own_topic(topic, b"")
    assert authority.warnings == [] and sent(authority) == []


async def test_closing_says_who_closed_it_and_who_had_not_heard() -> None:
    """Kills close's mutants: closed for good by default (phase, the notice
    with the host's name cut at 64 characters), those away then are the
    ones who missed it, only going away (keep) changes nothing; a game's
    table stopped; a game over stays over, its missed seats as they were."""
    authority = room()
    authority.host_name = "H" * 70
    ana, bea = Identity.generate(), Identity.generate()
    seated(authority, ana)
    seated(authority, bea, name="Bea")
    presence(authority, bea, online=False, epoch=6)
    await authority.close(keep=True)
    assert authority.phase == "lobby" and authority._missed is None
    assert authority.room_state().notice == ""
    await authority.close()
    assert authority.phase == "closed" and authority._missed == {1}
    assert authority.room_state().notice == f"{'H' * 64} closed the room"
    assert authority.unreached == ["Bea"] and authority.reached == ["Ana"]

    over = room()
    await in_play(over, ana)
    assert over.table is not None
    over.table.start()
    runner = over.table._runner
    assert runner is not None
    over.phase = "over"
    over._missed = set()
    await over.close()
    assert runner.done() and over.table._runner is None
    assert over.phase == "over" and over._missed == set()
    assert over.room_state().notice == ""
    late = room()
    await in_play(late, ana)
    late.phase = "over"
    presence(late, ana, online=False, epoch=6)
    await late.close()
    assert late._missed == {0}


# -- the host's lobby controls and the room state ----------------------------------


def test_the_game_starts_only_with_every_seat_filled_said_in_words() -> None:
    """Kills can_start's mutants (each sentence: one seat, several, started)
    and set_bot's refusals (started, no such seat)."""
    authority = room(players=4)
    assert authority.can_start() == (
        "seats 1, 2, 3 and 4 are still empty: wait for players or add bots"
    )
    authority.set_bot(0, "heuristic")
    authority.set_bot(2, "heuristic")
    assert authority.can_start() == "seats 2 and 4 are still empty: wait for players or add bots"
    authority.set_bot(3, "heuristic")
    assert authority.can_start() == "seat 2 is still empty: wait for players or add bots"
    with pytest.raises(IllegalAction) as refused:
        authority.start_game()
    assert str(refused.value) == "seat 2 is still empty: wait for players or add bots"
    for seat in (-1, 4):
        with pytest.raises(IllegalAction) as error:
            authority.set_bot(seat, "heuristic")
        assert str(error.value) == f"there is no seat {seat + 1}"
    authority.set_bot(1, "heuristic")
    assert authority.can_start() is None and authority.free_seats == 0
    authority.set_bot(1, None)
    assert authority.seats[1] == SeatSlot("Seat 2") and authority.free_seats == 1
    authority.phase = "playing"
    assert authority.can_start() == "the game has already started"
    with pytest.raises(IllegalAction, match=r"^the game has started$"):
        authority.set_bot(1, "heuristic")


def test_a_bot_put_in_a_persons_seat_takes_them_out_in_words() -> None:
    """Kills set_bot's mutants of a person replaced (told in words with the
    seat and room, code "removed"; the notice) and the bots' names (each
    seat's own, never one taken, as read)."""
    authority = room()
    ana = Identity.generate()
    seated(authority, ana, name="Ana")
    listen(authority)
    authority.set_bot(0, "heuristic")
    assert to(authority, ana) == [
        refusal(f"the host gave seat 1 of room {format_code(CODE)} away", "removed")
    ]
    assert authority.room_state().notice == "the host took Ana out of seat 1"
    authority.set_bot(1, "heuristic")
    authority.set_bot(2, "heuristic")
    names = [seat.name for seat in authority.seats]
    assert names == ["Gaia", "Ada", "Bruno"]  # each seat's own (BOT_NAMES)
    assert all(seat.kind == "bot" for seat in authority.seats)


def test_bot_names_are_the_tables_own_per_seat_and_never_taken() -> None:
    """Kills _bot_name's mutants: the name for each seat (from the seat's
    place in the list), skipping names taken (as read, other seats only),
    "Bot n" when all are."""
    names = BOT_NAMES
    seats = [SeatSlot("Seat 1"), SeatSlot("Seat 2"), SeatSlot("Seat 3")]
    assert authority_module._bot_name(1, seats) == names[0]
    assert authority_module._bot_name(2, seats) == names[1]
    assert authority_module._bot_name(0, seats) == names[-1]
    seats[0] = SeatSlot(names[0].upper(), "human")
    assert authority_module._bot_name(1, seats) == names[1]
    seats[1] = SeatSlot(names[0], "bot", "heuristic")
    assert authority_module._bot_name(1, seats) == names[1]  # its own seat does not count
    everyone = [SeatSlot(name, "human") for name in names] + [SeatSlot("Seat")]
    assert authority_module._bot_name(len(names), everyone) == f"Bot {len(names) + 1}"


def test_the_room_state_says_everything_public() -> None:
    """Kills room_state's mutants (each field; the host's name cleaned and
    cut at 64, the version at 40; no record nor salt before the end) and
    SeatSlot.public's (a person, a bot process listed as a bot, a bot)."""
    authority = room(app_version="v" * 50)
    authority.host_name = "\x1b[1m" + "H" * 70
    ana, robo = Identity.generate(), Identity.generate()
    seated(authority, ana)
    seated(authority, robo, name="Robo", bot=True)
    presence(authority, robo, online=False, epoch=6)
    authority.set_bot(2, "random")
    state = authority.room_state()
    assert state == RoomState(
        room=CODE,
        game="passpass",
        config=authority.config.to_data(),
        host="H" * 64,
        phase="lobby",
        seats=[
            SeatState("Ana", "human", "", ana.peer_id, True),
            SeatState("Robo", "bot", "heuristic", robo.peer_id, False),
            SeatState(authority.seats[2].name, "bot", "random", "", True),
        ],
        seq=0,
        stamp=authority._stamp,
        app="v" * 40,
        seed_hash=authority.seed_hash(),
        record=None,
        salt=b"",
        notice="",
        failover="on",  # three voters: this process, Ana's and Robo's, both standing
    )
    assert authority.room_state().stamp > state.stamp  # each one newer
    authority.set_failover(False)
    assert authority.room_state().failover == "off"
    authority.set_failover(True)
    authority.declined.add(robo.public_key)
    assert authority.room_state().failover == "short"  # Robo may stand after all
    assert authority.failover_outlook() == ("short", 1)
    # Robo's seat a bot's: no free seat, one person: never enough machines.
    authority.set_bot(1, "random")
    assert authority.failover_outlook() == ("never", 1)
    authority.set_bot(2, None)  # a free seat: someone may still come
    assert authority.failover_outlook() == ("short", 1)


async def test_the_room_state_reveals_the_record_and_salt_only_at_the_end() -> None:
    """Kills room_state's mutants of the record and salt (once over)."""
    ana = Identity.generate()
    playing = room()
    await in_play(playing, ana)
    assert playing.room_state().record is None and playing.room_state().salt == b""
    playing.phase = "over"
    over = playing.room_state()
    assert playing.table is not None
    assert over.record == playing.table.record().to_data() and over.salt == playing._salt


async def test_an_update_carries_the_seats_view_its_log_from_a_base_and_its_ack() -> None:
    """Kills _send_update's mutants: nothing for a seat without a person or
    before the game; the base never past the log; the ack of the key's
    latest request (0 for none)."""
    authority = room()
    ana = Identity.generate()
    seated(authority, ana)
    listen(authority)
    authority._send_update(0, base=0)
    assert sent(authority, ana) == []
    await in_play(authority, ana)
    log = authority._logs[0]
    authority._send_update(0, base=len(log) + 5, rejected="no")
    (update,) = to(authority, ana)
    assert update == Update(
        room=CODE,
        seq=authority.seq,
        view=msgspec.msgpack.decode(
            msgspec.msgpack.encode(authority.codec.encode_view(authority.table.state.view(0)))  # type: ignore[union-attr]
        ),
        base=len(log),
        events=[],
        rejected="no",
        ack=1,
    )
    authority._send_update(1, base=0)  # a bot's seat
    del authority._peers[ana.public_key]
    authority._send_update(0, base=1)
    (update,) = to(authority, ana)
    assert update.ack == 0 and update.base == 1 and len(update.events) == len(log) - 1


def test_closing_clears_what_everyone_had_and_earlier_rooms_topics() -> None:
    """Kills clears's and absent_seats's mutants: this room's retained
    topics only when nobody missed the end (and clear_on_close), earlier
    rooms' always, each once; a person away but told otherwise is not
    absent; bots never are."""
    authority = room(also_clear=["a", "b", "a"])
    ana, bea = Identity.generate(), Identity.generate()
    seated(authority, ana)
    seated(authority, bea, name="Bea")
    authority.set_bot(2, "heuristic")
    presence(authority, bea, online=False, epoch=6)
    assert authority.absent_seats() == {1}
    authority.told_keys.add(bea.public_key)
    assert authority.absent_seats() == set()
    authority._missed = set()
    assert authority.clears() == [*authority.retained_topics(), "a", "b"]
    authority._missed = {1}
    assert authority.clears() == ["a", "b"]
    authority._missed = set()
    authority.clear_on_close = False
    assert authority.clears() == ["a", "b"]


# -- its own retained topics, and the budgets of what comes in ----------------------


async def test_another_keys_state_on_the_rooms_topics_is_warned_about_once_and_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _on_own_topic's mutants: its own echo ignored; another key's
    room state or notice warned about (words with both fingerprints, to
    the callbacks), once per key, at most MAX_WARNED; an empty or garbled
    one (words); the room published again; the next-game notice again
    once over."""
    monkeypatch.setattr(authority_module, "MAX_WARNED", 2)
    authority = room()
    listen(authority)
    heard: list[str] = []
    authority.on_warning.append(heard.append)
    topic, notices = room_topic(CODE), next_topic(CODE)
    authority._on_own_topic(topic, authority._room_payload())
    assert heard == [] and sent(authority) == []
    squatter = Identity.generate()
    authority._on_own_topic(topic, seal(squatter, topic, authority.room_state()))
    assert heard == [
        f"another key ({fingerprint(squatter.public_key)}) published a room state on room "
        f"code {format_code(CODE)}: someone may pose as this room. It was published again; players "
        f"should check that their lobby shows this host's key "
        f"{fingerprint(authority.identity.public_key)}"
    ]
    assert authority.warnings == heard
    assert [where for where, _ in sent(authority)] == ["room"]
    authority._republish = None  # as if the gap had passed
    authority._last_republish = -1e9
    authority._on_own_topic(topic, seal(squatter, topic, authority.room_state()))
    assert len(heard) == 1 and [where for where, _ in sent(authority)] == ["room"]
    authority._last_republish = -1e9
    authority._on_own_topic(topic, b"\x93garbled")
    assert heard[1] == (
        f"someone cleared or garbled a room state of room {format_code(CODE)} on the broker: "
        "the room was published again"
    )
    third = Identity.generate()  # a third key: past MAX_WARNED, not warned
    authority._on_own_topic(topic, seal(third, topic, authority.room_state()))
    assert len(heard) == 2 and len(authority.warnings) == 2
    authority.phase = "over"
    sent(authority)
    authority._on_own_topic(notices, seal(squatter, notices, NextRoom(room=CODE, next="QQQ111")))
    assert sent(authority) == []  # no next game announced: nothing to answer with
    authority.announce_next("XYZ789")
    sent(authority)
    authority._on_own_topic(notices, seal(squatter, notices, NextRoom(room=CODE, next="QQQ111")))
    assert sent(authority) == [("next", NextRoom(room=CODE, next="XYZ789"))]


def test_messages_past_their_budget_are_dropped_and_noted_by_who_sent_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _within_bounds's and _remember_heard's mutants: a seated key's
    budget (its own note's kind and words), a stranger's (kind and words),
    strangers heard before getting a budget of their own."""
    authority = room()
    now = [100.0]
    authority.clock = lambda: now[0]
    ana = Identity.generate()
    seated(authority, ana)
    with caplog.at_level(logging.WARNING, logger="passe.authority"):
        allowed = sum(
            authority._within_bounds("request", ana.peer_id, b"x")
            for _ in range(int(authority_module.SEATED_RATE.message_burst) + 1)
        )
        assert allowed == int(authority_module.SEATED_RATE.message_burst)
        stranger = Identity.generate().peer_id
        burst = int(authority_module.STRANGER_RATE.message_burst)
        assert all(authority._within_bounds("request", stranger, b"x") for _ in range(burst))
        # Past its budget, heard before: the returning budget's burst more.
        again = int(authority_module.RETURNING_RATE.message_burst)
        assert all(authority._within_bounds("request", stranger, b"x") for _ in range(again))
        assert not authority._within_bounds("request", stranger, b"x")
    assert authority._floods.counts == {
        "flood-request-seated": 1,
        "flood-request-strangers": 1,
    }
    lines = [unroomed(r.getMessage()) for r in caplog.records if r.name == "passe.authority"]
    assert lines == [
        "dropped messages past the rate limit (request from a seated key's topic; "
        f"latest on {ana.peer_id})",
        "dropped messages past the rate limit (request from keys without a seat; "
        f"latest on {stranger})",
    ]
    assert authority._heard[stranger] == burst + again + 1
    authority._remember_heard("someone", "room")  # only requests and presences count
    assert "someone" not in authority._heard


def test_a_hello_that_waited_too_long_for_its_presence_is_dropped() -> None:
    """Kills _candidate_present's mutant that handles a Hello kept past
    CANDIDATE_WAIT."""
    import time

    from net.protocol.wire import Hello

    authority = room()
    ana = Identity.generate()
    hello(authority, ana)
    (waiting,) = authority._candidates.values()
    authority._candidates[ana.public_key] = (
        waiting[0],
        time.monotonic() - authority_module.CANDIDATE_WAIT - 1,
    )
    presence(authority, ana, online=True)
    assert holders(authority) == [None, None, None] and not authority._candidates
    assert isinstance(waiting[0], Hello)


def test_keys_waiting_for_their_presence_are_bounded_kept_and_forgotten_in_order(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Kills _await_presence's and _candidate_present's mutants: a Hello
    waits CANDIDATE_WAIT (at its edge too) from its first asking; past
    MAX_CANDIDATES the oldest key heard once goes first, one asking again
    is kept; past the burst of new keys, noted in words."""
    import types

    now = [1000.0]
    clock = types.SimpleNamespace(monotonic=lambda: now[0], time_ns=lambda: 0)
    monkeypatch.setattr(authority_module, "MAX_CANDIDATES", 2)
    authority = room()
    monkeypatch.setattr(authority_module, "time", clock)
    ana, bea, cy = Identity.generate(), Identity.generate(), Identity.generate()
    hello(authority, ana)
    now[0] += 5
    hello(authority, ana, n=2)  # asking again: still since 1000
    assert authority._candidates[ana.public_key][1] == 1000.0
    authority._heard[ana.peer_id] = 2  # as _within_bounds counts her messages
    hello(authority, bea)
    authority._heard[bea.peer_id] = 1
    hello(authority, cy)  # a third: the oldest heard once (Bea) goes
    assert list(authority._candidates) == [ana.public_key, cy.public_key]
    dan = Identity.generate()
    authority._heard[cy.peer_id] = authority._heard[dan.peer_id] = 2
    hello(authority, dan)  # all asked again: the oldest of all (Ana) goes
    assert list(authority._candidates) == [cy.public_key, dan.public_key]
    hello(authority, ana, n=3)  # back, asking again
    assert list(authority._candidates) == [dan.public_key, ana.public_key]
    authority._candidates[ana.public_key] = (authority._candidates[ana.public_key][0], 1000.0)
    now[0] = 1000.0 + authority_module.CANDIDATE_WAIT  # Ana's Hello at its edge
    hello(authority, Identity.generate())  # old Hellos are dropped now: not hers
    assert ana.public_key in authority._candidates
    presence(authority, ana, online=True)
    assert holders(authority)[0] == ana.public_key
    # Past the burst of new keys: not followed, noted once in words.
    fresh = room()
    fresh.clock = lambda: now[0]  # no refill while the burst is sent (a loaded machine)
    burst = int(authority_module.NEW_CANDIDATES.message_burst)
    with caplog.at_level(logging.WARNING, logger="passe.authority"):
        for _ in range(burst + 2):
            hello(fresh, Identity.generate())
    assert len(fresh._candidates) == 2 and fresh._floods.counts["candidates"] == 2
    assert [unroomed(r.getMessage()) for r in caplog.records if r.name == "passe.authority"] == [
        "did not follow the presence of more new keys so soon (too many asked at once)"
    ]


# -- presences ------------------------------------------------------------------------


def test_a_presence_counts_only_from_its_own_key_for_this_room_newest_epoch_first() -> None:
    """Kills _on_presence's mutants: another key's record on a peer's topic,
    another room's, a garbled one ignored; an older epoch and a same-epoch
    "online" after its will ignored; each change of presence published;
    a beat (the same record again) marks the key heard; a seat back after
    the end no longer missed it."""
    authority = room()
    now = [100.0]
    authority.clock = lambda: now[0]
    ana, eve = Identity.generate(), Identity.generate()
    seated(authority, ana)
    changes: list[bool] = []
    authority.on_change.append(lambda: changes.append(authority.seats[0].present))
    topic = presence_topic(CODE, ana.peer_id)
    forged = seal(eve, topic, Presence(room=CODE, epoch=50, online=False))
    authority._on_presence(topic, ana.peer_id, forged)
    other_room = seal(ana, topic, Presence(room="XYZ789", epoch=50, online=False))
    authority._on_presence(topic, ana.peer_id, other_room)
    authority._on_presence(topic, ana.peer_id, b"\x93garbled")
    assert authority.seats[0].present and changes == []
    presence(authority, ana, online=False, epoch=6)
    assert not authority.seats[0].present and changes == [False]
    presence(authority, ana, online=True, epoch=4)  # older
    presence(authority, ana, online=True, epoch=6)  # its will came: stale
    assert not authority.seats[0].present and changes == [False]
    presence(authority, ana, online=True, epoch=7)
    assert authority.seats[0].present and changes == [False, True]
    record = authority._peers[ana.public_key]
    assert (record.presence_epoch, record.online, record.ever_online) == (7, True, True)
    now[0] = 150.0
    presence(authority, ana, online=True, epoch=7)  # a beat
    assert record.heard == 150.0 and changes == [False, True]
    authority._missed = {0, 1}
    presence(authority, ana, online=True, epoch=8)
    assert authority._missed == {1}


def test_a_knocking_or_waiting_key_that_goes_is_forgotten() -> None:
    """Kills _on_presence's mutants of a key gone while waiting: its knock
    dropped (the host's lobby told), its Hello no longer waiting."""
    authority = room(admission="ask")
    ana, bea = Identity.generate(), Identity.generate()
    presence(authority, ana, online=True)
    hello(authority, ana)
    hello(authority, bea, name="Bea")
    told: list[int] = []
    authority.on_change.append(lambda: told.append(len(authority.knocks)))
    assert ana.public_key in authority.knocks and bea.public_key in authority._candidates
    presence(authority, ana, online=False, epoch=6)
    presence(authority, bea, online=False, epoch=6)
    assert not authority.knocks and not authority._candidates and told == [0]


def test_a_presence_is_live_only_online_and_heard_within_the_bound() -> None:
    """Kills _live_presence's and _heard_from's mutants: no record or
    offline is not live; with a bound, heard within it (at its edge too);
    a request of a seat marked away makes it present again."""
    authority = room()
    now = [100.0]
    authority.clock = lambda: now[0]
    ana = Identity.generate()
    assert not authority._live_presence(ana.public_key)
    seated(authority, ana)
    assert authority._live_presence(ana.public_key)
    authority.presence_timeout = 5.0
    now[0] = 105.0
    assert authority._live_presence(ana.public_key)  # at the edge
    now[0] = 105.5
    assert not authority._live_presence(ana.public_key)
    authority.seats[0].present = False
    request(authority, ana, Sync(room=CODE, epoch=1, n=2))
    assert authority.seats[0].present and authority._peers[ana.public_key].heard == 105.5
    presence(authority, ana, online=False, epoch=6)
    authority._heard_from(ana.public_key)
    assert not authority.seats[0].present  # offline: heard, not present
    authority._heard_from(Identity.generate().public_key)  # no record: nothing


def test_the_presences_followed_are_the_seated_knocking_and_waiting_keys_only() -> None:
    """Kills _follow_presences's and _presence_topics's mutants: each seated
    person's, knock's and waiting Hello's presence followed, once; any
    other presence unfollowed; other topics left alone."""
    authority = room(admission="ask")
    link = MemoryLink()
    link.subscriptions = [f"{authority.prefix}/a/+", presence_topic(CODE, "0123456789abcdef")]
    authority._link = link  # type: ignore[assignment]
    ana, eve, bob = Identity.generate(), Identity.generate(), Identity.generate()
    authority.seats[0] = SeatSlot("Ana", "human", key=ana.public_key)
    presence(authority, eve, online=True)
    hello(authority, eve, name="Eve")  # knocks
    hello(authority, bob, name="Bob")  # waits for its presence
    assert link.subscriptions == [
        f"{authority.prefix}/a/+",
        presence_topic(CODE, ana.peer_id),
        presence_topic(CODE, eve.peer_id),
        presence_topic(CODE, bob.peer_id),
    ]
    assert authority._followed_ids() == {eve.peer_id, bob.peer_id}


async def test_what_comes_in_is_bounded_opened_and_answered_by_its_topic() -> None:
    """Kills _on_message's mutants: a request on its sender's topic handled;
    one signed by another key dropped (noted by its code); one sealed for
    someone else refused with the reason and code of its error; a presence
    read; the room's own topics read; other topics ignored."""
    from net.protocol.wire import Hello, WireError, peer_message_decoder, to_authority_topic

    authority = room()
    listen(authority)
    ana, eve = Identity.generate(), Identity.generate()
    await authority._on_message(
        presence_topic(CODE, ana.peer_id),
        seal(ana, presence_topic(CODE, ana.peer_id), Presence(room=CODE, epoch=5, online=True)),
    )
    assert authority._live_presence(ana.public_key)
    topic = to_authority_topic(CODE, ana.peer_id)
    message = Hello(room=CODE, epoch=1, n=1, name="Ana")
    await authority._on_message(topic, seal(eve, topic, message, authority.identity.public_key))
    assert authority._floods.counts == {"dropped-sender": 1} and sent(authority, ana) == []
    misdirected = seal(ana, topic, message, eve.public_key)
    with pytest.raises(WireError) as error:
        open_body(
            open_envelope(topic, misdirected, identity=authority.identity),
            peer_message_decoder,
            authority.identity,
        )
    await authority._on_message(topic, misdirected)
    assert to(authority, ana) == [refusal(error.value.reason, error.value.code)]
    await authority._on_message(topic, seal(ana, topic, message, authority.identity.public_key))
    assert holders(authority)[0] == ana.public_key
    await authority._on_message(f"{authority.prefix}/elsewhere/x", b"x")
    await authority._on_message(room_topic(CODE), b"")
    assert len(authority.warnings) == 1


async def test_away_clocks_start_for_people_already_away_and_from_the_start() -> None:
    """Kills watch_away's and start_game's mutants of the away clocks (a
    person away when the bound is set, or when the game starts, gets one),
    and _seat_specs's seat names given to the table."""
    authority = room(stand_in_after=30.0)
    ana = Identity.generate()
    seated(authority, ana)
    presence(authority, ana, online=False, epoch=6)
    authority.set_bot(1, "heuristic")
    authority.set_bot(2, "heuristic")
    authority.start_game()
    table = authority.table
    assert table is not None
    await table.stop()
    assert table.names == tuple(seat.name for seat in authority.seats)
    assert list(authority._away_timers) == [0]
    authority.watch_away(None)
    assert authority._away_timers == {}
    listen(authority)
    authority.watch_away(90.0)
    assert list(authority._away_timers) == [0]
    # The table taken over sets the clocks of those already away, and says
    # whose bots come once the presences had time to arrive (at once, it
    # named everyone, the person at its own screen too: a play-tester).
    assert sent(authority, ana) == []
    settle = authority._away_settle
    assert settle is not None
    loop = asyncio.get_running_loop()
    assert settle.when() - loop.time() == pytest.approx(authority_module.AWAY_SETTLE, abs=0.1)
    authority._say_who_is_away()
    ((where, state),) = sent(authority, ana)
    assert where == "room" and authority._away_settle is None
    assert state.notice == "Ana is away: a bot plays for them in 1 min 30 s unless they are back"
    for timer in authority._away_timers.values():
        timer.cancel()
    authority.watch_away(None)
    assert sent(authority, ana) == [] and authority._away_settle is None  # no clock: nothing
    # Back before it was said: nothing to say.
    authority.watch_away(30.0)
    authority._away_timers.pop(0).cancel()
    authority._say_who_is_away()
    assert sent(authority, ana) == []
    authority.watch_away(None)


def test_a_long_update_is_cut_into_pages_exactly_at_the_budget() -> None:
    """Kills paged's mutants: pages filled up to the room a page has left
    (an exact fit is one page), each new page counted from nothing, an
    event larger than a page alone and never after an empty page, two
    events too large for one page split, ``rejected`` on the last page only."""
    from net.authority.authority import paged

    def update(events: list[object], rejected: str | None = "no") -> Update:
        return Update(room=CODE, seq=1, view={}, base=10, events=events, rejected=rejected)

    six: list[object] = [b"a" * 10] * 6  # 12 bytes each
    fixed = len(msgspec.msgpack.encode(update([], None)))
    pages = paged(update(six), fixed + 36)
    assert [(page.base, len(page.events), page.rejected) for page in pages] == [
        (10, 3, None),
        (13, 3, "no"),
    ]
    large: list[object] = [b"a" * 50, b"b" * 10]
    pages = paged(update(large), fixed + 36)
    assert [(page.base, page.events) for page in pages] == [(10, [large[0]]), (11, [large[1]])]
    two: list[object] = [b"a" * 50, b"b" * 50]
    assert [len(page.events) for page in paged(update(two), fixed + 36)] == [1, 1]
    ones: list[object] = [1, 2, 3, 4]  # 1 byte each, and a budget below the fixed part
    assert [len(page.events) for page in paged(update(ones), 5)] == [1, 1, 1, 1]


async def test_the_end_is_missed_only_by_those_away_when_it_came() -> None:
    """Kills _check_over's mutant that forgets who was there at the end."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    while authority.phase != "over":
        move(authority)
    assert authority._missed == set()
    presence(authority, ana, online=False, epoch=6)  # gone after the end
    assert authority.unreached == [] and authority.reached == ["Ana"]


async def test_a_reconnected_link_sends_each_person_their_whole_log_every_time() -> None:
    """Kills _send_update's mutant whose default is an answer (held to once
    per interval): after every reconnection each seat gets its log."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    while len(authority._logs[0]) <= authority_module.LOG_ANSWER_EVENTS:
        move(authority)
    authority._link = MemoryLink()  # type: ignore[assignment]
    sent(authority, ana)
    for _ in range(2):
        await authority._on_connect()
        updates = [m for m in to(authority, ana) if isinstance(m, Update)]
        assert updates and updates[0].base == 0


async def test_a_bots_seat_bound_to_a_key_is_no_persons(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A room file may bind a bot's seat to a key (load_room does not refuse
    it): that seat is still nobody's. Kills remove's, _provisional's and
    _send_update's mutants that would take such a seat for a person's."""
    monkeypatch.setattr(authority_module, "PROVISIONAL_GRACE", 0.0)
    authority = room()
    stray = Identity.generate()
    authority.seats[2] = SeatSlot("Cy", "bot", "heuristic", key=stray.public_key)
    with pytest.raises(IllegalAction, match=r"^nobody sits in seat 3$"):
        authority.remove(2)
    assert authority._provisional() == []
    ana = Identity.generate()
    seated(authority, ana)
    authority.set_bot(1, "heuristic")
    listen(authority)
    authority.start_game()
    assert authority.table is not None
    await authority.table.stop()
    authority._send_update(2, base=0)
    assert [who for who, _ in sent(authority, ana, stray) if who != "room"] == [ana.peer_id]


async def test_the_log_answer_bound_is_per_key_and_only_past_64_missing_events(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _send_update's mutants of the answer bound: per key (two
    people asking at once both get their logs), only for more than
    LOG_ANSWER_EVENTS missing (64 exactly, or a few after a long log held,
    always go), its note in words with the seat's number."""
    authority = room()
    now = [100.0]
    authority.clock = lambda: now[0]
    ana, bea = Identity.generate(), Identity.generate()
    seated(authority, ana)
    seated(authority, bea, name="Bea")
    authority.set_bot(2, "heuristic")
    listen(authority)
    authority.start_game()
    table = authority.table
    assert table is not None
    await table.stop()
    bound = authority_module.LOG_ANSWER_EVENTS
    while len(authority._logs[0]) <= bound + 2:
        move(authority)
    size = len(authority._logs[0])
    sent(authority, ana, bea)

    def updates(*syncs: tuple[Identity, int, int]) -> list[str]:
        for key, n, have in syncs:
            request(authority, key, Sync(room=CODE, epoch=1, n=n, have=have))
        return [who for who, message in sent(authority, ana, bea) if isinstance(message, Update)]

    assert updates((ana, 10, 0), (bea, 10, 0)) == [ana.peer_id, bea.peer_id]
    now[0] += 5
    assert updates((ana, 11, size - bound), (ana, 12, size - bound)) == [ana.peer_id] * 2
    assert updates((ana, 13, size - 1), (ana, 14, size - 1)) == [ana.peer_id] * 2
    with caplog.at_level(logging.WARNING, logger="passe.authority"):
        assert updates((bea, 15, 0), (bea, 16, 0)) == [bea.peer_id]
    assert "did not send seat 2 its log again so soon (asked too often)" in [
        unroomed(r.getMessage()) for r in caplog.records
    ]


def test_watching_presences_without_a_loop_waits_for_start() -> None:
    """Kills watch_presence's mutant that checks at once with no loop (the
    bound is kept for start)."""
    authority = room()
    authority.watch_presence(5.0)
    assert authority.presence_timeout == 5.0 and authority._presence_watch is None


async def test_the_presence_watch_stops_when_the_bound_is_lifted() -> None:
    """Kills watch_presence's mutants of the watch stopped (cancelled and
    forgotten: closing after it stays clean)."""
    authority = room()
    authority.watch_presence(5.0)
    watch = authority._presence_watch
    assert watch is not None
    authority.watch_presence(None)
    assert watch.cancelled() and authority._presence_watch is None
    await authority.close()


async def test_each_update_sent_is_logged_for_debugging(caplog: pytest.LogCaptureFixture) -> None:
    """Kills _send_update's mutants of its debug line (words and values)."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    with caplog.at_level(logging.DEBUG, logger="passe.authority"):
        authority._send_update(0, base=1)
    size = len(authority._logs[0])
    assert f"to seat 0: seq {authority.seq}, base 1, {size - 1} events, ack 1" in [
        unroomed(r.getMessage()) for r in caplog.records
    ]


async def test_each_key_posing_as_the_room_is_warned_about_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _on_own_topic's mutants of the warning's marker (each signer
    its own) and its log line."""
    authority = room()
    topic = room_topic(CODE)
    one, two = Identity.generate(), Identity.generate()
    with caplog.at_level(logging.WARNING, logger="passe.authority"):
        for key in (one, two):
            authority._on_own_topic(topic, seal(key, topic, authority.room_state()))
    assert fingerprint(one.public_key) in authority.warnings[0]
    assert fingerprint(two.public_key) in authority.warnings[1]
    assert [unroomed(r.getMessage()) for r in caplog.records if r.name == "passe.authority"] == (
        authority.warnings
    )


async def test_floods_on_each_topic_are_bounded_by_kind_and_sender(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _on_message's, _within_bounds's and _seated_ids's mutants of
    the budgets: the room's own topics (one budget, noted as "room"; past
    it the room state is published again, not for the next-game topic nor
    once closing), presences (noted as "presence", by their peer id), a
    followed key's presence not counted as heard, its requests counted;
    requests (noted as "request", by sender); seated keys each their own
    budget; a bot's seat bound to a key is no seated key's; a forged
    request dropped and logged in words."""
    from net.protocol.wire import Hello, to_authority_topic

    authority = room(admission="ask")
    now = [100.0]
    authority.clock = lambda: now[0]
    listen(authority)
    burst = int(authority_module.STRANGER_RATE.message_burst)
    for _ in range(burst):
        await authority._on_message(room_topic(CODE), authority._room_payload())
    sent(authority)
    await authority._on_message(next_topic(CODE), b"x")  # past the budget: not republished
    assert sent(authority) == []
    await authority._on_message(room_topic(CODE), b"x")
    assert [where for where, _ in sent(authority)] == ["room"]
    lines = [unroomed(r.getMessage()) for r in caplog.records if r.name == "passe.authority"]
    assert lines[-1] == (
        "dropped messages past the rate limit (room from keys without a seat; latest on own-topics)"
    )
    assert authority._floods.counts["flood-room-strangers"] == 2
    authority._closing = True
    authority._last_republish = -1e9
    await authority._on_message(room_topic(CODE), b"x")
    assert sent(authority) == []
    authority._closing = False
    # A knocking key: its presence within its own budget, not "heard".
    eve = Identity.generate()
    presence(authority, eve, online=True)
    hello(authority, eve, name="Eve")
    heard = authority._heard.get(eve.peer_id, 0)
    eve_topic = presence_topic(CODE, eve.peer_id)
    eve_presence = seal(eve, eve_topic, Presence(room=CODE, epoch=5, online=True))
    followed = int(authority_module.FOLLOWED_RATE.message_burst)
    for _ in range(followed + 1):
        await authority._on_message(eve_topic, eve_presence)
    assert authority._heard.get(eve.peer_id, 0) == heard
    assert authority._floods.counts["flood-presence-strangers"] == 1
    assert lines != [
        unroomed(r.getMessage()) for r in caplog.records if r.name == "passe.authority"
    ]
    assert [unroomed(r.getMessage()) for r in caplog.records][-1] == (
        "dropped messages past the rate limit (presence from keys without a seat; "
        f"latest on {eve.peer_id})"
    )
    assert authority._within_bounds("request", eve.peer_id, b"x")
    assert authority._heard[eve.peer_id] == heard + 1  # her requests are counted
    # Another knocking key has a budget of its own; a stranger's presence is heard.
    fay = Identity.generate()
    presence(authority, fay, online=True)
    hello(authority, fay, name="Fay")
    assert all(authority._within_bounds("presence", fay.peer_id, b"x") for _ in range(followed))
    stranger = Identity.generate().peer_id
    assert authority._within_bounds("presence", stranger, b"x")
    assert authority._heard[stranger] == 1
    # Requests of a stranger: by sender, noted as such.
    bob = Identity.generate()
    topic = to_authority_topic(CODE, bob.peer_id)
    hello_payload = seal(bob, topic, Hello(room=CODE, epoch=1, n=1, name="Bob"))
    again = int(authority_module.RETURNING_RATE.message_burst)
    for _ in range(burst + again + 1):
        await authority._on_message(topic, hello_payload)
    assert [unroomed(r.getMessage()) for r in caplog.records][-1] == (
        "dropped messages past the rate limit (request from keys without a seat; "
        f"latest on {bob.peer_id})"
    )
    # A forged request: dropped, logged in words.
    forged = seal(eve, topic, Hello(room=CODE, epoch=1, n=1, name="Bob"))
    now[0] += 1000
    await authority._on_message(topic, forged)
    assert f"dropped a message on {topic}: signed by another peer" in [
        unroomed(r.getMessage()) for r in caplog.records
    ]
    now[0] += 1000
    await authority._on_message(topic, forged)
    # Seated keys: each its own budget.
    seated_room = room()
    ana, bea, stray = Identity.generate(), Identity.generate(), Identity.generate()
    seated(seated_room, ana)
    seated(seated_room, bea, name="Bea")
    seated_room.seats[2] = SeatSlot("Cy", "bot", "heuristic", key=stray.public_key)
    seated_room.clock = lambda: 100.0
    budget = int(authority_module.SEATED_RATE.message_burst)
    for key in (ana, bea):
        assert all(seated_room._within_bounds("request", key.peer_id, b"x") for _ in range(budget))
    assert sum(seated_room._within_bounds("request", stray.peer_id, b"x") for _ in range(50)) < 50


def test_strangers_heard_are_counted_each_on_its_own_the_latest_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kills _remember_heard's mutants (requests and presences counted, at
    most MAX_HEARD, the oldest forgotten first) and _within_bounds's of the
    strangers' and returning budgets (each sender its own; two drops in a
    row noted)."""
    monkeypatch.setattr(authority_module, "MAX_HEARD", 3)
    authority = room()
    authority.clock = lambda: 100.0
    for name in ("a", "b", "c"):
        authority._remember_heard(name, "presence")
    assert list(authority._heard) == ["a", "b", "c"]
    authority._remember_heard("a", "request")
    authority._remember_heard("d", "request")
    assert list(authority._heard) == ["c", "a", "d"]
    burst = int(authority_module.STRANGER_RATE.message_burst)
    again = int(authority_module.RETURNING_RATE.message_burst)
    for sender in ("s1", "s2"):
        assert all(authority._within_bounds("request", sender, b"x") for _ in range(burst + again))
    assert not authority._within_bounds("request", "s2", b"x")
    assert not authority._within_bounds("request", "s2", b"x")
    assert authority._floods.counts["flood-request-strangers"] == 2


def test_each_connection_has_a_newer_epoch_and_its_own_will() -> None:
    """Kills _will's mutants: the epoch one above the last (or the clock,
    if later), the will on the host's presence topic saying gone."""
    authority = room()
    authority._epoch = 2**50
    will = authority._will()
    assert authority._epoch == 2**50 + 1
    topic = presence_topic(CODE, authority.identity.peer_id)
    assert will.topic == topic
    gone = open_body(open_envelope(topic, will.payload), presence_decoder)
    assert gone == Presence(room=CODE, epoch=2**50 + 1, online=False, name="host")
    authority._epoch = 0
    import time

    before = time.time_ns() // 1_000_000
    authority._will()
    assert before <= authority._epoch <= time.time_ns() // 1_000_000


async def test_the_send_loop_publishes_in_order_survives_a_failure_and_drains_on_close(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _send_loop's mutants (each message published with its retain
    flag; a failed one logged with its topic, the next still sent) and
    _drain's (closing waits until the queue is out)."""
    import asyncio

    from net.protocol.bounds import Outbox

    class Failing(MemoryLink):
        async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
            if payload == b"boom":
                raise OSError("broken")
            await super().publish(topic, payload, retain=retain)

    authority = room()
    link = Failing()
    authority._link = link  # type: ignore[assignment]
    authority._outbox = Outbox()
    authority._sender = asyncio.get_running_loop().create_task(authority._send_loop())
    authority._enqueue("t/1", b"boom")
    authority._enqueue("t/2", b"two", retain=True)
    authority._enqueue("t/3", b"three")
    await authority.close(keep=True)
    assert link.published[:2] == [("t/2", b"two", True), ("t/3", b"three", False)]
    assert "sending on t/1 failed" in [unroomed(r.getMessage()) for r in caplog.records]


async def test_the_send_loop_lets_a_room_state_out_while_a_move_waits_for_the_log() -> None:
    """A replicated room whose majority is gone: the move's update waits
    for a commit that does not come, and the room state saying who is away
    leaves anyway, at once (it waited behind the move: a play-test, 6
    December); the update leaves once the log commits it."""
    import asyncio

    from net.protocol.bounds import Outbox

    class Log:
        committed = 3

        def __init__(self) -> None:
            self.changed = asyncio.Event()

        async def wait_committed(self, index: int) -> None:
            while self.committed < index:
                self.changed.clear()
                await self.changed.wait()

    authority = room()
    link = MemoryLink()
    log = Log()
    authority._link = link  # type: ignore[assignment]
    authority.replica = log  # type: ignore[assignment]
    authority._outbox = Outbox()
    authority._sender = asyncio.get_running_loop().create_task(authority._send_loop())
    authority._enqueue("p/1", b"move", barrier=4)
    await asyncio.sleep(0.01)
    assert link.published == []  # held for the log
    authority._enqueue("room", b"Ana is away", retain=True, barrier=0)
    await until(lambda: link.published == [("room", b"Ana is away", True)])
    log.committed = 4
    log.changed.set()
    await until(lambda: ("p/1", b"move", False) in link.published)
    authority.replica = None
    await authority.close(keep=True)


def test_a_key_seated_under_any_rule_stays_let_in_and_its_knock_goes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _seat_new's mutants: the key seated is let in for the room
    (back after leaving under a stricter rule, it sits), its knock dropped,
    the seat logged; and _presence_topics's of a bot's seat bound to a key
    (not followed)."""
    authority = room()
    ana, eve = Identity.generate(), Identity.generate()
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        seated(authority, ana)
    assert "'Ana' took seat 1" in [unroomed(r.getMessage()) for r in caplog.records]
    authority.admission = "ask"
    request(authority, ana, Leave(room=CODE, epoch=1, n=2))
    hello(authority, ana, n=3)
    assert holders(authority)[0] == ana.public_key and not authority.knocks
    presence(authority, eve, online=True)
    hello(authority, eve, name="Eve")
    assert eve.public_key in authority.knocks
    authority.admission = "any"
    hello(authority, eve, n=2, name="Eve")
    assert eve.public_key in holders(authority) and not authority.knocks
    stray = Identity.generate()
    authority.seats[2] = SeatSlot("Cy", "bot", "heuristic", key=stray.public_key)
    assert presence_topic(CODE, stray.peer_id) not in authority._presence_topics()


async def test_knocks_and_presences_are_logged_and_away_clocks_replaced(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Kills _admission's and _on_presence's mutants of their log lines and
    _away_changed's of the seat's clock (the old one cancelled, the new one
    calling _stand_in_if_away for that seat; none for a person here)."""
    authority = room(admission="ask")
    ana, eve = Identity.generate(), Identity.generate()
    with caplog.at_level(logging.DEBUG, logger="passe.authority"):
        presence(authority, eve, online=True)
        hello(authority, eve, name="Eve")
        presence(authority, eve, online=False, epoch=6)
    lines = [unroomed(r.getMessage()) for r in caplog.records]
    assert f"Eve (key {fingerprint(eve.public_key)}) knocks" in lines
    assert f"presence of {eve.peer_id}: epoch 5, online" in lines
    assert f"presence of {eve.peer_id}: epoch 6, gone" in lines
    playing = room(stand_in_after=30.0)
    await in_play(playing, ana)
    presence(playing, ana, online=False, epoch=6)
    first = playing._away_timers[0]
    playing._away_changed(0)
    second = playing._away_timers[0]
    assert first.cancelled() and second is not first and not second.cancelled()
    assert second._callback == playing._stand_in_if_away and second._args == (0,)  # type: ignore[attr-defined]
    presence(playing, ana, online=True, epoch=7)
    assert second.cancelled() and 0 not in playing._away_timers
    playing.seats[0].level = "heuristic"
    presence(playing, ana, online=False, epoch=8)
    assert 0 not in playing._away_timers  # a bot plays for her already


# -- failover wiring (issue 20), found by make mutation on 3 December ----------


def test_the_broker_a_replicated_save_names() -> None:
    """The broker a save replicated to the voters names: the room file's
    when there is one, else the link's own, not embedded (kills
    _broker_choice__mutmut_1 to _8)."""
    authority = room()
    assert authority._broker_choice() == BrokerChoice(False, "127.0.0.1", 1)
    assert authority._broker_choice().embedded is False
    stored = room()
    stored.store = RoomStore(Path("unused-room-file"), BrokerChoice(True, "10.0.0.9", 1884))
    assert stored._broker_choice() == BrokerChoice(True, "10.0.0.9", 1884)


def test_the_brokers_to_follow_reach_the_link() -> None:
    """The standby brokers, in order, kept for a link made later and handed
    to the link there is (kills follow_brokers__mutmut_1 to _4)."""
    from net.lan.transport import MqttLink

    succession = [("10.0.0.2", 1883), ("10.0.0.3", 1884)]
    authority = room()
    authority.follow_brokers(succession)  # no link yet
    assert authority.broker_alternates == (("10.0.0.2", 1883), ("10.0.0.3", 1884))

    async def ignore(topic: str, payload: bytes) -> None:
        del topic, payload

    linked_room = room()
    link = MqttLink("127.0.0.1", 1, subscriptions=[], on_message=ignore)
    linked_room._link = link
    linked_room.follow_brokers(succession)
    assert link.brokers == [("127.0.0.1", 1), ("10.0.0.2", 1883), ("10.0.0.3", 1884)]
    assert linked_room.broker_alternates == tuple(succession)


def test_a_notice_said_is_in_the_next_room_state() -> None:
    """Kills say__mutmut_1 (the notice dropped)."""
    authority = room()
    authority.say("the table moved to this machine")
    assert authority.room_state().notice == "the table moved to this machine"


def test_stepping_down_drops_what_waits_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    """A higher term's authority exists: what waited to be sent is dropped
    (the outbox emptied, not gone), the save is no longer replicated, the
    host is told in words and the log says which term (kills
    step_down__mutmut_1 to _8, _10 to _17)."""
    authority = room()
    ana = Identity.generate()
    listen(authority)
    seated(authority, ana)
    assert sent(authority, ana)  # the Welcome and the room state were waiting
    hello(authority, ana, n=2)
    told: list[str] = []
    authority.on_warning.append(told.append)
    authority._replicating = True
    with caplog.at_level(logging.WARNING, logger="passe.authority"):
        authority.step_down(7)
    # Each line names its room: a dealer's log mixes many.
    assert [r.getMessage() for r in caplog.records] == [
        f"room {CODE}: term 7 has another authority: this one steps down"
    ]
    assert sent(authority, ana) == []
    assert not authority._replicating
    assert told == ["The table moved to another machine: this one no longer runs it."]
    quiet = room()  # no outbox (never started): nothing to drop
    quiet.step_down(2)
    assert quiet._outbox is None


async def test_a_replica_adopted_is_replicated_to_from_the_first_save_in_play(
    tmp_path: Path,
) -> None:
    """A room taken over replicates through the voter it is given: its
    config in the room state, its barrier at least the voter's last index
    (never lowered), and its saves recorded in play, not in the lobby
    (kills adopt_replica__mutmut_1 to _9)."""
    maker = room(players=4, failover=True, voter_dir=tmp_path)
    people = [Identity.generate() for _ in range(3)]
    for number, person in enumerate(people):
        seated(maker, person, name=f"P{number}", seat=number + 1)
    maker.set_bot(0, "heuristic")
    listen(maker)
    maker.start_game()  # its voter's link to no broker: nothing commits
    assert maker.table is not None
    await maker.table.stop()
    replica = maker.replica
    assert replica is not None
    last = replica.driver.node.last_index
    assert last > 0

    lobby = room(players=4)
    lobby.adopt_replica(replica, b"config")
    assert lobby.replica is replica and lobby.room_state().election == b"config"
    assert lobby._barrier == last
    lobby._save()
    assert replica.driver.node.last_index == last  # not in play: nothing recorded

    playing = room(players=4)
    ana = Identity.generate()
    seated(playing, ana)
    for seat in (1, 2, 3):
        playing.set_bot(seat, "heuristic")
    playing.start_game()
    assert playing.table is not None
    await playing.table.stop()
    playing._barrier = last + 1000
    playing.adopt_replica(replica, b"config")
    assert playing._barrier == last + 1000
    playing._save()
    assert replica.driver.node.last_index > last
    await maker.close(keep=True)


async def test_a_failover_game_s_voters_are_the_host_and_each_other_person(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A failover game of the host's own person, two other persons and a bot:
    the voters are this process and the two others' (not the host's person,
    who is this process, nor the bot): exactly MIN_VOTERS, so it replicates.
    Its voter: this room's, under this key, on this broker, its file where
    asked, leading term 1 for this room key, its step-down ours, its
    failure to start logged in words; the game's first save replicated.
    Kills _make_replica__mutmut_1 to _50, start_game__mutmut_27 to _29."""
    from net.authority.replication import MIN_VOTERS, RoomReplica, decode_room_config
    from net.election.driver import FileStorage, first_persisted

    async def no_broker(self: RoomReplica) -> None:
        del self
        raise RuntimeError("no broker here")

    monkeypatch.setattr(RoomReplica, "start", no_broker)
    authority = room(players=4, failover=True, voter_dir=tmp_path)
    host, ana, bo = (Identity.generate() for _ in range(3))
    authority.told_keys.add(host.public_key)
    seated(authority, host, name="Host", seat=0)
    seated(authority, ana, name="Ana", seat=1)
    seated(authority, bo, name="Bo", seat=2)
    authority.set_bot(3, "heuristic")
    listen(authority)
    with caplog.at_level(logging.WARNING, logger="passe.replication"):
        authority.start_game()
        assert authority.table is not None
        await authority.table.stop()
        await within_turns(lambda: bool(caplog.records))
    assert [r.getMessage() for r in caplog.records] == ["the room's voter failed: no broker here"]
    replica = authority.replica
    assert replica is not None
    voters = [authority.identity.public_key, ana.public_key, bo.public_key]
    assert len(voters) == MIN_VOTERS
    config = decode_room_config(authority.room_state().election)
    assert config is not None and [voter.key for voter in config.voters] == voters
    assert replica.config == config and replica.code == CODE
    assert replica.identity is authority.identity
    driver = replica.driver
    assert (driver.host, driver.port) == ("127.0.0.1", 1)
    assert replica.on_stepped_down == authority.step_down
    assert driver.room_key == authority.identity.public_key
    assert replica.is_authority and replica.term == 1
    path = tmp_path / f"{CODE}-{authority.identity.peer_id}.vote"
    assert driver.storage.path == path
    persisted = FileStorage(path).load()
    assert persisted.log[0] == first_persisted(config, authority.identity.public_key).log[0]
    assert persisted.voted_for == authority.identity.public_key
    # The game's first save, under the room's secret (start_game__mutmut_27
    # to _29 left it out).
    saved = replica.rebuild()
    assert [seat.name for seat in saved.seats] == ["Host", "Ana", "Bo", authority.seats[3].name]
    assert saved.phase == "playing"
    await authority.close(keep=True)


async def test_no_voters_without_failover_or_with_too_few(tmp_path: Path) -> None:
    """Without failover, or with fewer than MIN_VOTERS voters (the bot's seat
    and the host's own person do not vote), no replica and no election in
    the room state (kills _make_replica__mutmut_8 and _10)."""
    plain = room(players=4, failover=False, voter_dir=tmp_path)
    for seat, name in enumerate(("Ana", "Bo", "Cy")):
        seated(plain, Identity.generate(), name=name, seat=seat)
    plain.set_bot(3, "heuristic")
    few = room(players=4, failover=True, voter_dir=tmp_path)
    host = Identity.generate()
    few.told_keys.add(host.public_key)
    seated(few, host, name="Host", seat=0)
    seated(few, Identity.generate(), name="Ana", seat=1)
    few.set_bot(2, "heuristic")
    few.set_bot(3, "heuristic")
    for authority in (plain, few):
        authority.start_game()
        assert authority.table is not None
        await authority.table.stop()
        assert authority.replica is None and authority.room_state().election == b""
        await authority.close(keep=True)


def test_a_full_room_with_a_squatter_s_seat_takes_a_knock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every seat held, one by a key never seen present: there is a seat to
    give, so a stranger's Hello knocks instead of being told the room is
    full (kills seat_to_give__mutmut_4)."""
    monkeypatch.setattr(authority_module, "PROVISIONAL_GRACE", 0.0)
    authority = room(admission="ask")
    squatter, ana, bea = (Identity.generate() for _ in range(3))
    authority.seats[0] = SeatSlot("Old", "human", key=squatter.public_key)
    for seat, key in ((1, ana), (2, bea)):
        authority.seats[seat] = SeatSlot(f"P{seat}", "human", key=key.public_key)
        presence(authority, key, online=True)
    assert authority.seat_to_give()
    eve = Identity.generate()
    listen(authority)
    presence(authority, eve, online=True)
    hello(authority, eve, name="Eve", n=3)
    assert to(authority, eve) == [
        refusal(f"the host of room {format_code(CODE)} is asked to let you in", "knock", 3)
    ]


async def _a_failover_game_in_play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Authority:
    """A room that fails over, in play: three people and a bot, its voters
    reaching no broker, its bots stopped, what it sends kept (listen)."""
    replicas_reach_no_broker(monkeypatch)
    authority = room(players=4, failover=True, voter_dir=tmp_path)
    for seat, name in enumerate(("Ana", "Bo", "Cy")):
        seated(authority, Identity.generate(), name=name, seat=seat)
    authority.set_bot(3, "heuristic")
    listen(authority)
    authority.start_game()
    assert authority.table is not None
    await authority.table.stop()
    return authority


async def test_a_failover_room_reconnected_waits_for_its_log_then_knows_its_echo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a (re)connection a failover room publishes nothing before its
    log has committed what it holds (a table taken over), then its state
    and presence; the state's echo from the broker is known as its own, so
    a burst of echoes past a stranger's budget is neither a flood nor a
    reason to publish again (kills _on_connect__mutmut_3 and _7)."""

    authority = await _a_failover_game_in_play(tmp_path, monkeypatch)
    assert authority.table is not None and authority.replica is not None
    barrier = authority._barrier
    assert barrier > authority.replica.committed
    link = MemoryLink()
    authority._link = link  # type: ignore[assignment]
    connecting = asyncio.create_task(authority._on_connect())
    for _ in range(20):
        await asyncio.sleep(0)
    assert not connecting.done() and link.published == []
    authority.replica._on_apply(barrier, None, None)  # type: ignore[arg-type]
    await within_turns(connecting.done)
    await connecting
    topics = [topic for topic, _, _ in link.published]
    # And its voter's announcement, beside the state (the voter's own link
    # may be on another broker: a pinned peer found the state alone and
    # refused it, found by hand, 5 December).
    # The announcement first: an old authority back from a freeze sends it
    # before its state, which its successor answers with both of its own.
    assert topics == [
        authority_topic(CODE),
        room_topic(CODE),
        presence_topic(CODE, authority.identity.peer_id),
    ]
    assert all(retain for _, _, retain in link.published)
    announced = link.published[0][1]
    assert announced == authority.replica.driver.announcement()
    voter_key = authority.replica.driver.identity.public_key
    envelope = open_envelope(authority_topic(CODE), announced, expect_key=voter_key)
    assert open_body(envelope, announce_decoder).term == authority.replica.term
    state = link.published[1][1]
    sent(authority)
    burst = int(authority_module.STRANGER_RATE.message_burst)
    for _ in range(burst + 2):
        await authority._on_message(room_topic(CODE), state)
    assert authority._floods.counts.get("flood-room-strangers", 0) == 0
    assert authority._republish is None and sent(authority) == []
    await authority.close(keep=True)


async def test_a_taken_over_table_s_state_replaced_goes_out_again_with_its_announcement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An old authority back from a freeze publishes its room state, and its
    term's announcement, once before it learns of the higher term: both
    retained, over the new table's. The table that sees another key's state
    on its topic publishes its own again, and its voter's announcement with
    it: without that, a peer pinned to the old key found only the old
    term's announcement and could never follow the table. Mutation: the
    announcement not sent again."""
    authority = await _a_failover_game_in_play(tmp_path, monkeypatch)
    assert authority.table is not None and authority.replica is not None
    sent(authority)
    stale = Identity.generate()
    authority.predecessors.add(stale.public_key)  # the table it took over from
    payload = seal(stale, room_topic(CODE), authority.room_state())
    await authority._on_message(room_topic(CODE), payload)
    assert authority._outbox is not None
    topics = [message[0] for message in authority._outbox._queue]
    assert topics == [room_topic(CODE), authority_topic(CODE)]
    announced = authority._outbox._queue[1][1]
    assert announced == authority.replica.driver.announcement() is not None
    assert all(message[2] for message in authority._outbox._queue)  # retained
    # A room that does not fail over has no announcement to send.
    plain = room(players=3)
    listen(plain)
    plain._schedule_republish()
    assert plain._outbox is not None
    assert [message[0] for message in plain._outbox._queue] == [room_topic(CODE)]
    await authority.close(keep=True)


class _DownLink(MemoryLink):
    """A MemoryLink whose connection is down until the test brings it back
    (close waits for it to publish the result)."""

    def __init__(self) -> None:
        super().__init__()
        self.connected = False
        self.back = asyncio.Event()

    async def wait_connected_or_closed(self) -> None:
        await self.back.wait()


async def _turns(count: int = 20) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


async def test_closing_a_finished_room_waits_a_while_for_its_link(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A room over, its link down: closing waits for the link to come back
    (the result must reach the peers), for FINAL_WAIT at most; a room not
    over does not wait (kills close__mutmut_6, _9 to _16)."""
    from net.authority.authority import OVER

    monkeypatch.setattr(authority_module, "FINAL_WAIT", 30.0)
    over = room()
    over.phase, over._live = OVER, True
    link = _DownLink()
    over._link = link  # type: ignore[assignment]
    closing = asyncio.create_task(over.close())
    await _turns()
    assert not closing.done() and link.final is None
    link.back.set()
    await within_turns(closing.done)
    await closing
    assert link.final is not None and link.final[0][0] == room_topic(CODE)

    monkeypatch.setattr(authority_module, "FINAL_WAIT", 0.05)
    never = room()
    never.phase, never._live = OVER, True
    never._link = _DownLink()
    async with asyncio.timeout(10):  # a bound on a hang, not a timing claim
        await never.close()
    assert never._link.final is not None

    monkeypatch.setattr(authority_module, "FINAL_WAIT", 30.0)
    playing = room()
    ana = Identity.generate()
    await in_play(playing, ana)
    playing._live = True
    playing._link = _DownLink()
    closing = asyncio.create_task(playing.close())
    await within_turns(closing.done)
    await closing


async def test_closing_says_gone_then_clears_only_when_closed_for_good() -> None:
    """Closing for good: the final room state, the host's presence "gone",
    then every retained topic cleared; only going away (keep): "gone" alone.
    Those who missed a game's end stay named when it closes (kills
    close__mutmut_20, _32 to _34, _37, _38, _42, _43)."""
    from net.authority.authority import OVER

    authority = room(also_clear=[room_topic("OLD123")])
    ana = Identity.generate()
    seated(authority, ana)
    link = MemoryLink()
    authority._link = link  # type: ignore[assignment]
    await authority.close()
    own = presence_topic(CODE, authority.identity.peer_id)
    assert link.final is not None
    topics = [topic for topic, _ in link.final]
    assert topics[:2] == [room_topic(CODE), own]
    assert set(topics[2:]) == {*authority.retained_topics(), room_topic("OLD123")}
    assert all(payload == b"" for _, payload in link.final[2:])
    gone = presence_of(link.final[1][1], own)
    assert gone is not None and not gone.online

    away = room(also_clear=[room_topic("OLD123")])
    away_link = MemoryLink()
    away._link = away_link  # type: ignore[assignment]
    await away.close(keep=True)
    assert away_link.final is not None
    assert [topic for topic, _ in away_link.final] == [presence_topic(CODE, away.identity.peer_id)]

    ended = room()
    seated(ended, ana)
    ended.phase = OVER
    ended._missed = {holders(ended).index(ana.public_key)}  # away when it ended
    await ended.close()
    assert ended.unreached == ["Ana"]


async def test_closing_waits_at_most_a_while_for_what_is_left_to_send() -> None:
    """The link is up but a publication never returns: closing gives up on
    the queue after its 3 s and closes all the same (kills _drain__mutmut_5
    and _7)."""

    class StuckLink(MemoryLink):
        async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
            await asyncio.Event().wait()

    authority = room()
    link = StuckLink()
    authority._link = link  # type: ignore[assignment]
    listen(authority)
    authority._sender = asyncio.create_task(authority._send_loop())
    authority._publish_room()
    await _turns()
    async with asyncio.timeout(20):  # a bound on a hang, not a timing claim
        await authority.close()
    assert link.final is not None and authority._sender.done()


# A mutant that waits again for what is committed already spins without a
# turn of the loop (_send_loop__mutmut_6): only pytest-timeout's signal ends it.
@pytest.mark.timeout(15)
async def test_a_failover_room_sends_each_message_once_its_log_holds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The send loop lets out what needs no commit (the game's first room
    state), holds each update until the log has committed its save, then
    sends it (kills _send_loop__mutmut_3, _6 to _8)."""

    replicas_reach_no_broker(monkeypatch)
    authority = room(players=4, failover=True, voter_dir=tmp_path)
    people = [Identity.generate() for _ in range(3)]
    for seat, (person, name) in enumerate(zip(people, ("Ana", "Bo", "Cy"), strict=True)):
        seated(authority, person, name=name, seat=seat)
    authority.set_bot(3, "heuristic")
    link = MemoryLink()
    authority._link = link  # type: ignore[assignment]
    listen(authority)
    authority.start_game()
    assert authority.table is not None and authority.replica is not None
    await authority.table.stop()
    barrier = authority._barrier
    assert barrier > authority.replica.committed
    authority._sender = asyncio.create_task(authority._send_loop())
    try:
        await _turns()
        assert [topic for topic, _, _ in link.published] == [room_topic(CODE)]
        authority.replica._on_apply(barrier, None, None)  # type: ignore[arg-type]
        async with asyncio.timeout(10):  # a bound on a hang, not a timing claim
            await until(lambda: len(link.published) == 4)
        # Each person's first update, held for the game's first save.
        assert {topic for topic, _, _ in link.published[1:]} == {
            to_peer_topic(CODE, person.peer_id) for person in people
        }
    finally:
        authority._sender.cancel()
        await asyncio.gather(authority._sender, return_exceptions=True)
        await authority.close(keep=True)


async def test_a_long_log_is_answered_to_a_hello_or_a_stale_request_once_per_interval() -> None:
    """A reconnection's Hello and a stale request's re-synchronisation are
    answers too: a long log goes to a key at most once per
    LOG_ANSWER_INTERVAL (kills _on_hello__mutmut_37, _40, _41 and
    handle__mutmut_60, _63, _65)."""
    from net.protocol.wire import Hello

    authority = room()
    now = [100.0]
    authority.clock = lambda: now[0]
    ana = Identity.generate()
    await in_play(authority, ana)
    play_past_a_long_log(authority)
    sent(authority, ana)
    request(authority, ana, Hello(room=CODE, epoch=1, n=2, name="Ana"))
    welcome, update = to(authority, ana)
    assert welcome == Welcome(room=CODE, seat=0) and isinstance(update, Update)
    request(authority, ana, Hello(room=CODE, epoch=1, n=3, name="Ana"))
    assert to(authority, ana) == [Welcome(room=CODE, seat=0)]
    assert authority._floods.counts["log-answer"] == 1
    now[0] += authority_module.LOG_ANSWER_INTERVAL
    request(authority, ana, Sync(room=CODE, epoch=1, n=4))
    assert [type(message) for message in to(authority, ana)] == [Update]
    request(authority, ana, Sync(room=CODE, epoch=1, n=1))  # stale
    assert to(authority, ana) == [refusal("an old or repeated request was ignored", "stale", 1)]
    assert authority._floods.counts["log-answer"] == 2


def test_each_key_has_its_own_request_budget_and_stale_answers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One key past its request budget, or answered stale just now, leaves
    another's untouched; each drop and each request is logged in words with
    the sender (kills handle__mutmut_3, _4, _8, _28, _69, _86)."""
    authority = room()
    now = [100.0]
    authority.clock = lambda: now[0]
    ana, bea = Identity.generate(), Identity.generate()
    seated(authority, ana, name="Ana")
    seated(authority, bea, name="Bea")
    listen(authority)
    burst = int(authority_module.REQUEST_RATE.message_burst)
    with caplog.at_level(logging.DEBUG, logger="passe.authority"):
        for n in range(2, 1 + burst):  # her Hello was the first of the burst
            request(authority, ana, Sync(room=CODE, epoch=1, n=n))
        assert authority._floods.counts.get("requests", 0) == 0
        request(authority, ana, Sync(room=CODE, epoch=1, n=1 + burst))
        assert authority._floods.counts["requests"] == 1
        request(authority, bea, Sync(room=CODE, epoch=1, n=2))
        assert authority._floods.counts["requests"] == 1
        sent(authority)
        request(authority, ana, Sync(room=CODE, epoch=1, n=1))
        request(authority, bea, Sync(room=CODE, epoch=1, n=1))
    assert authority._floods.counts["stale"] == 2
    lines = [unroomed(r.getMessage()) for r in caplog.records]
    assert f"dropped requests of {ana.peer_id} past the rate limit" in lines
    assert f"refused old or repeated requests of {ana.peer_id}" in lines
    assert f"from {bea.peer_id}: {Sync(room=CODE, epoch=1, n=2)!r}" in lines


def test_a_stale_request_of_each_key_is_answered() -> None:
    """Two keys' stale requests at the same moment: each is answered (one
    gate per key; kills handle__mutmut_37)."""
    authority = room()
    authority.clock = lambda: 100.0
    ana, bea = Identity.generate(), Identity.generate()
    seated(authority, ana, name="Ana")
    seated(authority, bea, name="Bea")
    listen(authority)
    request(authority, ana, Sync(room=CODE, epoch=1, n=1))
    request(authority, bea, Sync(room=CODE, epoch=1, n=1))
    stale = refusal("an old or repeated request was ignored", "stale", 1)
    messages = sent(authority, ana, bea)
    assert (ana.peer_id, stale) in messages and (bea.peer_id, stale) in messages


def test_a_knock_that_goes_away_is_dropped_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A knocking key whose presence says gone: its knock goes, in words in
    the log (kills _on_presence__mutmut_59, _60, _64)."""
    authority = room(admission="ask")
    eve = Identity.generate()
    presence(authority, eve, online=True)
    hello(authority, eve, name="Eve")
    assert eve.public_key in authority.knocks
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        presence(authority, eve, online=False, epoch=6)
    assert eve.public_key not in authority.knocks
    assert f"Eve (key {fingerprint(eve.public_key)}) stopped knocking: gone" in [
        unroomed(r.getMessage()) for r in caplog.records
    ]


async def test_a_room_taken_over_starts_while_its_log_has_not_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table taken over publishes nothing before its log commits (its
    _on_connect waits): start still returns after its timeout, live,
    rather than raising or waiting for ever (kills start__mutmut_26, _28)."""

    need_mosquitto()
    replicas_reach_no_broker(monkeypatch)
    maker = room(players=4, failover=True, voter_dir=tmp_path)
    for seat, name in enumerate(("Ana", "Bo", "Cy")):
        seated(maker, Identity.generate(), name=name, seat=seat)
    maker.set_bot(3, "heuristic")
    maker.start_game()
    assert maker.table is not None and maker.replica is not None
    await maker.table.stop()
    code = new_code()
    successor = an_authority(code)
    successor.adopt_replica(maker.replica, b"")
    assert successor._barrier > maker.replica.committed
    try:
        async with asyncio.timeout(20):  # a bound on a hang, not a timing claim
            await successor.start(timeout=0.3)
        assert successor._live and not successor._announced.is_set()
    finally:
        await successor.close(keep=True)
        await maker.close(keep=True)
        await clear_room(code)


async def test_no_away_clock_in_the_lobby() -> None:
    """A person gone in the lobby starts no stand-in clock: those start with
    the game (kills _away_changed__mutmut_7)."""
    authority = room(stand_in_after=30.0)
    ana = Identity.generate()
    seated(authority, ana)
    presence(authority, ana, online=False, epoch=6)
    authority._away_changed(holders(authority).index(ana.public_key))
    assert authority._away_timers == {}


def test_a_bot_seat_bound_to_a_key_is_given_away_without_telling_the_key() -> None:
    """A room file may bind a bot's seat to a key: setting that seat tells
    nobody they were taken out (kills set_bot__mutmut_15)."""
    authority = room()
    stray = Identity.generate()
    authority.seats[1] = SeatSlot("Cy", "bot", "heuristic", key=stray.public_key)
    listen(authority)
    authority.set_bot(1, None)
    assert to(authority, stray) == []
    assert authority.room_state().notice == ""


def test_a_person_back_in_the_lobby_without_a_bot_gets_none() -> None:
    """A reconnecting person's Hello in the lobby gives their seat a bot to
    play while away only if it asks for one (kills _on_hello__mutmut_19)."""
    authority = room()
    ana, bea = Identity.generate(), Identity.generate()
    seated(authority, ana)
    hello(authority, ana, n=2)
    assert authority.seats[holders(authority).index(ana.public_key)].plays == ""
    seated(authority, bea, name="Bea")
    hello(authority, bea, n=2, name="Bea", bot=True)
    assert authority.seats[holders(authority).index(bea.public_key)].plays != ""


def test_a_squatter_s_seat_taken_keeps_the_name_asked_and_is_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A full room, one seat held by a key never seen present under the
    name the newcomer asks for: the newcomer takes that seat under that very
    name (its own seat is not a rival), and the log says what happened
    (kills _seat_new__mutmut_58, _61)."""
    monkeypatch.setattr(authority_module, "PROVISIONAL_GRACE", 0.0)
    authority = room()
    squatter, bea, cy = (Identity.generate() for _ in range(3))
    authority.seats[0] = SeatSlot("Ana", "human", key=squatter.public_key)
    for seat, key in ((1, bea), (2, cy)):
        authority.seats[seat] = SeatSlot(f"P{seat}", "human", key=key.public_key)
        presence(authority, key, online=True)
    ana = Identity.generate()
    with caplog.at_level(logging.WARNING, logger="passe.authority"):
        seated(authority, ana, name="Ana")
    assert holders(authority)[0] == ana.public_key and authority.seats[0].name == "Ana"
    assert authority.room_state().notice in [unroomed(r.getMessage()) for r in caplog.records]


def test_records_of_keys_without_a_seat_are_bounded_sparing_seats_and_former() -> None:
    """At most MAX_STRANGERS records of keys without a seat beside one per
    seat; past it the oldest stranger's goes, never a seated or former
    key's, nor the new one's (kills _peer_record__mutmut_8, _10, _11, _13,
    _14)."""
    authority = room()
    ana, former = Identity.generate(), Identity.generate()
    seated(authority, ana)
    authority._former[former.public_key] = None
    authority._peer_record(former.public_key)
    bound = authority_module.MAX_STRANGERS + len(authority.seats)
    strangers = [bytes([1, n // 256, n % 256]) + bytes(29) for n in range(bound)]
    fill = bound - len(authority._peers)
    for key in strangers[:fill]:
        authority._peer_record(key)
    assert len(authority._peers) == bound  # at the bound: nobody forgotten
    authority._peer_record(strangers[fill])
    assert len(authority._peers) == bound
    assert strangers[0] not in authority._peers and strangers[1] in authority._peers
    assert strangers[fill] in authority._peers
    assert ana.public_key in authority._peers and former.public_key in authority._peers


async def _marked_away_with_a_stand_in(authority: Authority, ana: Identity) -> int:
    """Ana in play, her seat marked away by the presence bound (her link up
    all along) and a bot standing in: her seat."""
    await in_play(authority, ana)
    seat = holders(authority).index(ana.public_key)
    authority.seats[seat].present = False  # as _check_presences marks it
    authority.stand_in(seat)
    assert authority.seats[seat].level
    return seat


async def test_a_seat_marked_away_is_played_again_when_its_person_is_heard() -> None:
    """A request, or the same connection's presence again (a beat), from
    a person whose seat the bound marked away: the seat is theirs again at
    once, the stand-in gone (kills _heard_from__mutmut_15, _16 and
    _on_presence__mutmut_38, _41)."""
    for heard in ("request", "beat"):
        authority = room()
        ana = Identity.generate()
        seat = await _marked_away_with_a_stand_in(authority, ana)
        if heard == "request":
            request(authority, ana, Sync(room=CODE, epoch=1, n=2))
        else:
            presence(authority, ana, online=True)  # epoch 5 again: a beat
        assert authority.seats[seat].present, heard
        assert authority.seats[seat].level == "", heard
        assert authority.room_state().notice == "Ana is back and plays again"


def test_a_will_of_the_same_epoch_marks_the_seat_away() -> None:
    """The broker's will for the connection whose presence we hold (same
    epoch, "gone"): the person is away (kills _on_presence__mutmut_40)."""
    authority = room()
    ana = Identity.generate()
    seated(authority, ana)  # her presence: epoch 5, online
    seat = holders(authority).index(ana.public_key)
    assert authority.seats[seat].present
    presence(authority, ana, online=False)  # epoch 5: that connection's will
    assert not authority.seats[seat].present


def test_a_key_waiting_to_sit_that_goes_is_no_longer_followed() -> None:
    """A Hello waits for its key's presence, followed meanwhile; that
    presence says gone: it is followed no more (kills
    _on_presence__mutmut_56)."""
    authority = room()
    link = MemoryLink()
    authority._link = link  # type: ignore[assignment]
    eve = Identity.generate()
    hello(authority, eve, name="Eve")  # no presence yet: she waits
    topic = presence_topic(CODE, eve.peer_id)
    assert topic in link.subscriptions
    presence(authority, eve, online=False)
    assert topic not in link.subscriptions


async def test_a_failover_room_s_final_state_waits_for_the_log_and_its_voter_file_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The final room state (the record) leaves only once the log holds
    every action in it; closing for good removes this process's voter
    file, going away keeps it; a state in play waits for nothing (kills
    _publish_room__mutmut_2, _3 and close__mutmut_58, _61)."""
    from net.authority.authority import OVER
    from net.authority.replication import RoomReplica

    replicas_reach_no_broker(monkeypatch)
    closed: list[RoomReplica] = []
    close = RoomReplica.close

    async def closing(self: RoomReplica) -> None:
        closed.append(self)
        await close(self)

    monkeypatch.setattr(RoomReplica, "close", closing)
    rooms: list[Authority] = []
    for _ in range(2):
        authority = room(players=4, failover=True, voter_dir=tmp_path / str(len(rooms)))
        for seat, name in enumerate(("Ana", "Bo", "Cy")):
            seated(authority, Identity.generate(), name=name, seat=seat)
        authority.set_bot(3, "heuristic")
        listen(authority)
        authority.start_game()
        assert authority.table is not None and authority.replica is not None
        await authority.table.stop()
        rooms.append(authority)
    over, kept = rooms
    assert over._outbox is not None
    sent(over)
    over._publish_room()  # in play: a state shows no action, waits for nothing
    assert over._barrier > 1 and over._outbox.barrier() == 0
    sent(over)
    over.phase = OVER
    over._publish_room()
    assert over._barrier > 1 and over._outbox.barrier() == over._barrier
    path = over.replica.driver.storage.path  # type: ignore[union-attr]
    assert path.exists()
    await over.close()
    assert not path.exists()
    kept_path = kept.replica.driver.storage.path  # type: ignore[union-attr]
    await kept.close(keep=True)
    assert kept_path.exists()
    assert closed == [over.replica, kept.replica]  # each voter closed with its room


def test_a_request_that_seats_a_key_is_saved_and_a_stranger_s_is_not(tmp_path: Path) -> None:
    """A Hello that seats a key: its nonce mark is on disk at once (a replay
    after a crash is refused); a key without a seat writes nothing (kills
    handle__mutmut_127 to _130)."""
    from net.authority.rooms import load_room, room_path

    authority = room()
    store = RoomStore(room_path(CODE, tmp_path), BrokerChoice(False, "127.0.0.1", 1))
    authority.store, authority._live = store, True
    authority._save()
    ana = Identity.generate()
    seated(authority, ana)
    marks = {mark.key: (mark.epoch, mark.n) for mark in load_room(store.path).nonces}
    assert marks.get(ana.public_key) == (1, 1)
    files = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    stranger = Identity.generate()
    request(authority, stranger, Sync(room=CODE, epoch=1, n=1))
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == files


def test_a_seated_person_s_request_keeps_who_left_before() -> None:
    """The keys that gave up their seat are kept (their nonce marks too,
    MAX_FORMER at most): a seated person's request is not one of them
    (kills handle__mutmut_118)."""
    authority = room()
    ana = Identity.generate()
    seated(authority, ana)
    formers = [bytes([2, n]) + bytes(30) for n in range(authority_module.MAX_FORMER)]
    for key in formers:
        authority._former[key] = None
    request(authority, ana, Sync(room=CODE, epoch=1, n=2))
    assert list(authority._former) == formers


async def test_a_lobby_seat_whose_bot_process_goes_is_freed_at_once() -> None:
    """A seat played by a person's bot process (its Hello asked for one):
    when that process is gone, in the lobby, the seat is free at once and
    the key told why (kills _lobby_presence_changed__mutmut_13 to _17, _20
    to _26)."""
    authority = room(free_away_after=30.0)
    bot = Identity.generate()
    seated(authority, bot, name="Robo", bot=True)
    seat = holders(authority).index(bot.public_key)
    assert authority.seats[seat].plays
    listen(authority)
    presence(authority, bot, online=False, epoch=6)
    assert holders(authority)[seat] is None and authority._lobby_timers == {}
    assert to(authority, bot) == [
        refusal(f"your seat in room {format_code(CODE)} was freed: its bot went away", "removed")
    ]
    assert authority.room_state().notice == f"the bot Robo went away: seat {seat + 1} is free"


async def test_a_lobby_clock_is_for_a_person_away_in_the_lobby_only() -> None:
    """The lobby clock of a person gone calls _free_if_absent for that seat
    and key, and stops when they are back; no clock for an open seat nor
    in play (kills _lobby_presence_changed__mutmut_2, _8, _9, _31 to _33,
    _35 to _37)."""
    authority = room(free_away_after=30.0)
    ana = Identity.generate()
    seated(authority, ana)
    seat = holders(authority).index(ana.public_key)
    presence(authority, ana, online=False, epoch=6)
    timer = authority._lobby_timers[seat]
    assert timer._callback == authority._free_if_absent  # type: ignore[attr-defined]
    assert timer._args == (seat, ana.public_key)
    presence(authority, ana, online=True, epoch=7)
    assert timer.cancelled() and authority._lobby_timers == {}
    open_seat = holders(authority).index(None)
    authority._lobby_presence_changed(open_seat)
    assert authority._lobby_timers == {}
    playing = room(free_away_after=30.0)
    await in_play(playing, ana)
    presence(playing, ana, online=False, epoch=6)
    assert playing._lobby_timers == {}


def test_a_message_past_a_full_outbox_is_dropped_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The outbox full (the broker slow): a private message past it is
    dropped, counted and logged in words with its topic and the queue's
    length (kills _enqueue__mutmut_17 to _26)."""
    from net.protocol.bounds import Outbox

    authority = room()
    authority.clock = lambda: 100.0
    authority._outbox = Outbox(max_messages=2)
    topic = to_peer_topic(CODE, "0123456789abcdef")
    with caplog.at_level(logging.WARNING, logger="passe.authority"):
        for n in range(4):
            authority._enqueue(topic, bytes([n]))
    assert len(authority._outbox) == 2
    assert authority._floods.counts == {"outbox": 2}  # the second one not logged
    assert [unroomed(r.getMessage()) for r in caplog.records] == [
        f"dropped a message to {topic}: 2 messages are waiting for the broker already"
    ]


def test_a_lobby_change_is_saved_as_a_durable_snapshot(tmp_path: Path) -> None:
    """A save by default is a snapshot flushed to the disk, not a journal
    entry (kills _save__mutmut_1)."""
    from net.authority.rooms import room_path

    authority = room()
    store = RoomStore(room_path(CODE, tmp_path), BrokerChoice(False, "127.0.0.1", 1))
    authority.store, authority._live = store, True
    authority._save()
    authority.set_bot(1, "heuristic")  # published, so saved
    assert store.journal_path.stat().st_size == 0


def test_a_room_code_not_as_normalize_code_writes_it_is_a_programming_error() -> None:
    """Kills __post_init__'s mutant of its words."""
    with pytest.raises(ValueError) as raised:
        Authority(
            Identity.generate(),
            "abc123",  # a valid code, not written as normalize_code writes it
            "passpass",
            get_game("passpass").make_config(players=3),
            "Host",
            "127.0.0.1",
            1,
        )
    assert str(raised.value) == "'abc123' is not a room code as normalize_code writes it"


def test_room_state_stamps_follow_the_wall_clock_and_each_other_by_one() -> None:
    """A fresh room's stamp is the wall clock in milliseconds; a stamp ahead
    of the clock (a resumed room's) goes up by exactly one (kills
    _next_stamp__mutmut_7, _9)."""
    import time

    authority = room()
    now = time.time_ns() // 1_000_000
    assert 0 <= authority.room_state().stamp - now < 60_000
    authority._stamp = now + 10**9
    first = authority.room_state().stamp
    assert authority.room_state().stamp == first + 1


def test_a_room_state_says_standby_with_an_election_or_in_a_lobby_that_fails_over() -> None:
    """``standby`` (the voters run standby brokers) is said where the room
    has an election config, and in the lobby of a room that would fail over
    (its seats start theirs there); never where its broker outlives hosts
    (kills room_state__mutmut_34, _47, _48)."""
    both = room(standby=True)
    both._election = b"config"
    assert both.room_state().standby is True
    assert room(standby=True).room_state().standby is True  # its lobby
    # A lobby whose game never could: the host's own person and one other
    # (told keys are no voters), or one person and bots.
    hosts_own = room(players=3, standby=True)
    own = Identity.generate()
    hosts_own.told_keys.add(own.public_key)
    seated(hosts_own, own, name="Host", seat=0)
    hosts_own.set_bot(1, "heuristic")
    assert hosts_own.room_state().standby is False
    with_bots = room(players=3, standby=True)
    with_bots.set_bot(1, "heuristic")
    assert with_bots.room_state().standby is True  # the host's process and two people
    with_bots.set_bot(2, "heuristic")
    assert with_bots.room_state().standby is False
    assert room(standby=True, failover=False).room_state().standby is False
    assert room(standby=True, dealers=()).room_state().standby is False  # a dealer's
    playing = room(standby=True)
    playing.phase = "playing"  # too few people's processes: no election
    assert playing.room_state().standby is False
    elected = room()
    elected._election = b"config"
    assert elected.room_state().standby is False


def sealed_request(authority: Authority, key: Identity, message: Sync | Act) -> tuple[str, bytes]:
    """``message`` from ``key`` as it comes off the broker: (topic, payload)."""
    topic = to_authority_topic(authority.code, key.peer_id)
    return topic, seal(key, topic, message, authority.identity.public_key)


async def test_exact_replays_of_a_seated_key_do_not_spend_its_budget() -> None:
    """Issue 19, the mixed flood: a passive replay flood of a seated key's
    own requests, past its whole budget (SEATED_RATE's burst), is answered
    as stale once per interval and leaves the budget to its owner, whose
    next request is answered. Fails without the digests of known requests
    (the copies took every token: the fresh Sync was dropped unanswered)."""
    authority = room()
    now = [100.0]
    authority.clock = lambda: now[0]
    ana = Identity.generate()
    await in_play(authority, ana)
    captured = sealed_request(authority, ana, Sync(room=CODE, epoch=1, n=2))
    await authority._on_message(*captured)
    assert [type(message) for message in to(authority, ana)] == [Update]
    copies = int(authority_module.SEATED_RATE.message_burst) + 100
    for _ in range(copies):
        await authority._on_message(*captured)
    # Copies of the key's latest request: answered once for the whole flood
    # (this interval), with the seat's view and no refusal (issue 20: the
    # latest request again gets its answer).
    assert [type(message) for message in to(authority, ana)] == [Update]
    assert authority._floods.counts["stale"] == copies
    await authority._on_message(*sealed_request(authority, ana, Sync(room=CODE, epoch=1, n=3)))
    assert [type(message) for message in to(authority, ana)] == [Update]


async def test_the_watchers_count_of_a_failover_room_waits_for_no_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """How many watch is no change of the room: in a room that replicates,
    its count goes at once, not after the log commits the last save (a
    state in play likewise). Kills _publish_watchers' mutants 15, 19 and
    27 (its barrier None: the last save's, or 1)."""
    authority = await _a_failover_game_in_play(tmp_path, monkeypatch)
    assert authority.table is not None and authority.replica is not None
    assert authority._outbox is not None
    sent(authority)
    assert authority._barrier > 1
    authority._publish_watchers()
    assert authority._outbox.barrier() == 0
    await authority.close()


async def test_a_seated_key_s_known_requests_are_its_latest_and_forgotten_when_unseated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """_remember_request keeps the last KNOWN_REQUESTS requests of each
    seated key (the oldest forgotten first) and forgets a key no longer
    seated. Kills its mutants 3 (the seated ones forgotten instead), 10
    (`>=`: one fewer kept) and 12 (the newest dropped)."""
    monkeypatch.setattr(authority_module, "KNOWN_REQUESTS", 3)
    authority = room()
    listen(authority)
    ana, bob = Identity.generate(), Identity.generate()
    seated(authority, ana)
    seated(authority, bob, name="Bob")
    requests = [sealed_request(authority, ana, Sync(room=CODE, epoch=1, n=n)) for n in (2, 3, 4, 5)]
    for captured in requests:
        await authority._on_message(*captured)
    known = authority._known_requests[ana.peer_id]
    assert list(known) == [authority_module._digest(payload) for _, payload in requests[1:]]
    request(authority, ana, Leave(room=CODE, epoch=1, n=6))  # her seat freed
    assert authority._seat_of(ana.public_key) is None
    await authority._on_message(*sealed_request(authority, bob, Sync(room=CODE, epoch=1, n=2)))
    assert list(authority._known_requests) == [bob.peer_id]


async def test_a_presence_of_exactly_the_request_bound_is_not_oversized(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """MAX_REQUEST_PAYLOAD bytes on a presence topic are read; one more is
    dropped as oversized, said in words (and a request alike). Kills
    _on_message's mutants 32 (`>=`), 34 and 65 (the notes' words)."""
    authority = room()
    listen(authority)
    topic = presence_topic(CODE, Identity.generate().peer_id)
    bound = authority_module.MAX_REQUEST_PAYLOAD
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        await authority._on_message(topic, b"\x00" * bound)
        assert "oversize" not in authority._floods.counts
        await authority._on_message(topic, b"\x00" * (bound + 1))
    assert authority._floods.counts["oversize"] == 1
    said = [unroomed(r.getMessage()) for r in caplog.records if r.name == "passe.authority"]
    assert f"dropped oversized messages on {topic}" in said
    # A request one byte past it, said in its words too (mutmut_65), by a
    # room that has said nothing yet (a kind is said once per interval).
    authority = room()
    requests = to_authority_topic(CODE, Identity.generate().peer_id)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="passe.authority"):
        await authority._on_message(requests, b"\x00" * (bound + 1))
    said = [unroomed(r.getMessage()) for r in caplog.records if r.name == "passe.authority"]
    assert said == [f"dropped oversized messages on {requests}"]


async def test_oversized_messages_on_a_seated_key_s_topics_spend_nothing() -> None:
    """Issue 19, the mixed flood: 256 KiB bombs on a seated key's request
    and presence topics are dropped before any budget (no request comes near
    MAX_REQUEST_PAYLOAD); its owner's next request is answered. Fails
    without the size check (two bombs spent the key's bytes for a second)."""
    authority = room()
    now = [100.0]
    authority.clock = lambda: now[0]
    ana = Identity.generate()
    await in_play(authority, ana)
    bomb = msgspec.msgpack.encode([[]] * (MAX_PAYLOAD - 8))
    topic = to_authority_topic(authority.code, ana.peer_id)
    for _ in range(20):
        await authority._on_message(topic, bomb)
        await authority._on_message(presence_topic(CODE, ana.peer_id), bomb)
    assert authority._floods.counts["oversize"] == 40
    await authority._on_message(*sealed_request(authority, ana, Sync(room=CODE, epoch=1, n=2)))
    assert [type(message) for message in to(authority, ana)] == [Update]
    just_under = b"\x00" * authority_module.MAX_REQUEST_PAYLOAD
    await authority._on_message(topic, just_under)
    assert authority._floods.counts["oversize"] == 40  # not oversized: judged as usual


async def test_the_seat_that_acted_gets_its_update_first() -> None:
    """Each accepted action's updates go out with the actor's first: it
    waits for its answer, the others only learn of the move (issue 20,
    where a move's time goes: the mover's own update came after the
    others' seals)."""
    authority = room()
    people = [Identity.generate() for _ in range(3)]
    for key, name in zip(people, ("Ana", "Bo", "Cy"), strict=True):
        seated(authority, key, name=name)
    listen(authority)
    authority.start_game()
    table = authority.table
    assert table is not None
    by_seat = {holders(authority).index(key.public_key): key for key in people}
    actors = []
    for n in range(2, 8):
        sent(authority, *people)  # what came before this move
        seat = table.state.to_act[0]
        view = table.state.view(seat)
        request(
            authority,
            by_seat[seat],
            Act(room=CODE, epoch=1, n=n, seat=seat, action=str(view.legal[0]), at=authority.seq),
        )
        updates = [who for who, message in sent(authority, *people) if isinstance(message, Update)]
        assert sorted(updates) == sorted(key.peer_id for key in people), updates
        assert updates[0] == by_seat[seat].peer_id, (seat, updates)
        actors.append(seat)
    assert len(set(actors)) > 1, actors  # not only the first seat in order


def test_a_stand_in_s_delay_is_said_in_minutes_and_seconds() -> None:
    from net.authority.authority import _duration

    assert [_duration(s) for s in (0, 0.4, 30, 60, 90, 120, 125.6, -3)] == [
        "0 s",
        "0 s",
        "30 s",
        "1 min",
        "1 min 30 s",
        "2 min",
        "2 min 6 s",
        "0 s",
    ]


async def test_a_dealer_named_once_the_room_runs_is_said_at_once() -> None:
    """A play-test (6 December): a dealer that resumed its room named
    itself after the room's first state was out, and that state, naming no
    dealer, stayed retained: at the dealer's next stop every screen read
    "the host (Lea) is away". Kills name_dealer's mutants: the name said
    with the dealer's signature of it for this room's key, said again only
    when the name or the dealer changes."""
    ana, dealer, other = Identity.generate(), Identity.generate(), Identity.generate()
    authority = room()
    await in_play(authority, ana)
    sent(authority, ana)
    authority.name_dealer("D1", dealer)
    assert authority.dealer_name == "D1"
    await within_turns(lambda: bool(authority._outbox))
    ((_, state),) = [m for m in sent(authority, ana) if m[0] == "room"]
    assert state.dealer == "D1" and state.dealer_key == dealer.public_key
    assert proven_dealer(state, authority.identity.public_key)
    authority.name_dealer("D1", dealer)  # the same name: nothing to say again
    await asyncio.sleep(0)
    assert [m for m in sent(authority, ana) if m[0] == "room"] == []
    # Another dealer under the same name (a table taken over): its own.
    # (published again after REPUBLISH_GAP: the state it would say now)
    authority.name_dealer("D1", other)
    assert authority._republish is not None
    state = authority.room_state()
    assert state.dealer_key == other.public_key
    assert proven_dealer(state, authority.identity.public_key)
    # The name signed is the one the state says, cleaned.
    authority.name_dealer("D\x1b[31m2", other)
    state = authority.room_state()
    assert state.dealer == "D2" and proven_dealer(state, authority.identity.public_key)
    # Before the room runs (no outbox yet): only kept, for its first state.
    fresh = room()
    fresh.name_dealer("D2", dealer)
    assert fresh.dealer_name == "D2" and fresh.room_state().dealer == "D2"
    assert proven_dealer(fresh.room_state(), fresh.identity.public_key)
    # A host's room names no dealer, and carries no key or proof.
    plain = room().room_state()
    assert (plain.dealer, plain.dealer_key, plain.dealer_proof) == ("", b"", b"")
