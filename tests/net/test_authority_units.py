"""The authority's answers to each request, in-process (issue 23: found by
``make mutation``): real keys and signed envelopes, no broker; each test
reads exactly what was refused (code, whole sentence, the request's n),
the seats after each step, and what was sent to whom. Each docstring names
the mutations of net/authority.py it kills."""

from __future__ import annotations

import pytest

from core.engine import IllegalAction
from net import authority as authority_module
from net.authority import Authority, SeatSlot
from net.identity import Identity
from net.wire import Act, Leave, Refused, Sync, Update, Welcome
from tests.net.rooms_in_process import (
    CODE,
    hello,
    holders,
    listen,
    presence,
    request,
    room,
    seated,
    sent,
    to,
)


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
    assert update.events == authority._logs[0] and update.rejected is None
    assert update.ack == 2


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
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    assert authority.table is not None
    while authority.table.state.to_act[0] != 0:
        authority.table.step_bot()
    sent(authority, ana)
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
    assert update.base == have and update.events == authority._logs[0][have:]
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


async def test_leaving_mid_game_hands_the_seat_to_a_bot_for_good() -> None:
    """Kills _on_leave's mid-game mutants: the replacing bot's slot (name,
    kind, level, present, replaced), the seat's log dropped, the notice."""
    authority = room()
    ana = Identity.generate()
    await in_play(authority, ana)
    assert authority.table is not None
    request(authority, ana, Leave(room=CODE, epoch=1, n=2))
    assert authority.seats[0] == SeatSlot(
        "Ana", "bot", authority_module.REPLACEMENT_BOT, present=True, replaced=True
    )
    assert 0 not in authority._logs
    assert authority.table.seats[0].is_bot
    ((where, state),) = sent(authority, ana)
    assert where == "room" and state.notice == "Ana left the game; a bot plays for them"
    # The next game's seats: hers is free, not her stand-in's.
    assert authority.next_seats()[0] == SeatSlot("Seat 1")


def test_leaving_after_the_end_marks_the_person_away() -> None:
    """Kills _on_leave's mutants of the game-over branch (present False,
    the seat kept, the notice)."""
    authority = room()
    ana = Identity.generate()
    seated(authority, ana)
    authority.phase = "over"
    listen(authority)
    request(authority, ana, Leave(room=CODE, epoch=1, n=2))
    assert authority.seats[0].key == ana.public_key and not authority.seats[0].present
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
        refusal(f"the host of room {CODE} is asked to let you in", "knock", 3)
    ]
    knock = authority.knocks[eve.public_key]
    assert (knock.name, knock.seat, knock.n, knock.bot) == ("Eve", 1, 3, False)
    authority.refuse(eve.public_key)
    assert sent(authority, eve)[0] == (
        eve.peer_id,
        refusal(f"the host of room {CODE} did not let you in", "denied", 3),
    )
    assert eve.public_key in authority.barred and not authority.knocks
    assert authority.room_state().notice == "the host turned someone away"
    hello(authority, eve, n=4, name="Eve")
    assert to(authority, eve) == [
        refusal(f"the host of room {CODE} did not let you in", "denied", 4)
    ]


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
    assert to(authority, eve) == [refusal(f"the game in room {CODE} has started", "started", 6)]
    assert eve.public_key in authority.admitted
