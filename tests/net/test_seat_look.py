"""What a broker's retained messages say of a room we sat in
(net/peer/rejoin.py ``SeatLook``), fed one message at a time, in-process:
anyone may write on a room's topics, so only the room's state signed by the
key pinned for its code (or one a voter of the room announced since) and
that key's presence count. tests/net/test_rejoin.py runs the same through a
real broker and a real room."""

from __future__ import annotations

from typing import Any

import pytest

from net.election.topics import Announce, authority_topic
from net.identity import Identity
from net.peer.pins import SatIn
from net.peer.rejoin import MAX_FOREIGN, EndedAway, HeldSeat, RoomEnded, SeatLook
from net.protocol.wire import Presence, RoomState, SeatState, presence_topic, room_topic, seal

CODE = "ABC123"
BROKER = ("10.0.0.2", 1883)
ME = Identity.generate()
TABLE = Identity.generate()  # the room's key, pinned when we sat


def a_state(
    *,
    code: str = CODE,
    phase: str = "playing",
    seats: list[SeatState] | None = None,
    record: dict[str, Any] | None = None,
    host: str = "Hugo",
) -> RoomState:
    if seats is None:
        seats = [
            SeatState("Ann", "human", peer="0" * 16),
            SeatState("Tess", "human", peer=ME.peer_id),
        ]
    return RoomState(code, "passpass", {}, host, phase, seats, 3, 7, record=record)


def state_from(signer: Identity, state: RoomState) -> tuple[str, bytes]:
    topic = room_topic(CODE)
    return topic, seal(signer, topic, state)


def presence_from(
    signer: Identity, *, online: bool = True, code: str = CODE, on: Identity | None = None
) -> tuple[str, bytes]:
    """``signer``'s presence, on the presence topic of ``on`` (its own by default)."""
    topic = presence_topic(CODE, (on or signer).peer_id)
    return topic, seal(signer, topic, Presence(code, 1, online))


def announce_from(voter: Identity, key: bytes, term: int = 2) -> tuple[str, bytes]:
    topic = authority_topic(CODE)
    return topic, seal(voter, topic, Announce(term, key))


def a_look(voters: frozenset[bytes] = frozenset()) -> SeatLook:
    return SeatLook(ME, SatIn(CODE, TABLE.public_key, BROKER, 0), voters)


def test_a_seat_still_ours_at_a_present_table_is_offered_its_words_cleaned() -> None:
    look = a_look()
    assert look.topics == [room_topic(CODE), presence_topic(CODE, TABLE.peer_id)]
    seats = [
        SeatState("[b]Ann[/b]", "human", peer="0" * 16),
        SeatState("Tess\x1b[2J", "human", peer=ME.peer_id),
    ]
    assert look.read(*state_from(TABLE, a_state(seats=seats, host="Hu\x07go"))) is None
    assert not look.complete and look.answer() is None  # its table not seen present yet
    assert look.read(*presence_from(TABLE)) is None
    assert look.complete
    assert look.answer() == HeldSeat(
        CODE, "10.0.0.2", 1883, "passpass", "Hugo", 1, "playing", "Tess"
    )


def test_a_table_not_present_or_gone_since_offers_nothing() -> None:
    look = a_look()
    look.read(*presence_from(TABLE, online=True))
    assert look.answer() is None  # no state yet
    look.read(*state_from(TABLE, a_state()))
    look.read(*presence_from(TABLE, online=False))  # its will came after
    assert look.complete and look.answer() is None


@pytest.mark.parametrize(
    "seats",
    [
        [
            SeatState("Tess", "bot", "random", peer=ME.peer_id)
        ],  # a bot process's seat: not a person's
        [SeatState("Tess", "human", peer="f" * 16)],  # someone else's
        [SeatState("Tess", "open")],
    ],
)
def test_a_room_where_no_person_s_seat_is_ours_offers_nothing(seats: list[SeatState]) -> None:
    look = a_look()
    look.read(*state_from(TABLE, a_state(seats=seats)))
    look.read(*presence_from(TABLE))
    assert look.complete and look.answer() is None


def test_what_anyone_else_writes_on_the_room_s_topics_counts_for_nothing() -> None:
    stranger = Identity.generate()
    look = a_look()
    # A state signed by another key, one of another room signed by the
    # table, a presence of the table's topic signed by someone else, the
    # table's presence for another room, and bytes that are no envelope.
    look.read(*state_from(stranger, a_state()))
    look.read(*state_from(TABLE, a_state(code="XYZ789")))
    look.read(*presence_from(stranger, on=TABLE))
    look.read(*presence_from(TABLE, code="XYZ789"))
    for topic in (room_topic(CODE), presence_topic(CODE, TABLE.peer_id), authority_topic(CODE)):
        look.read(topic, b"\x93not an envelope")
        look.read(topic, b"")
    # An announcement where the room has no voters: not even read as one.
    look.read(*announce_from(stranger, stranger.public_key))
    assert not look.states and not look.online and look.foreign == {}
    assert look.signer == TABLE.public_key and not look.complete and look.answer() is None
    # The state signed by the table but unreadable as a room state.
    topic = room_topic(CODE)
    look.read(topic, seal(TABLE, topic, Presence(CODE, 1, True)))
    assert not look.states


def test_a_room_over_or_closed_is_ended_whoever_is_online() -> None:
    record = {"game": "passpass", "seed": 1}
    look = a_look()
    look.read(*state_from(TABLE, a_state(phase="over", record=record, host="[i]Hugo")))
    assert not look.complete  # no presence: the answer is known all the same
    ended = look.answer()
    assert isinstance(ended, RoomEnded) and ended.code == CODE
    assert ended.ended == EndedAway(CODE, "passpass", "[i]Hugo", 1, ("Ann", "Tess"), record)
    assert ended.ended is not None and ended.ended.record == record
    # Closed, or over without its record, or over without a seat of ours:
    # ended, with no game to keep.
    for state in (
        a_state(phase="closed"),
        a_state(phase="over"),
        a_state(phase="over", record=record, seats=[SeatState("Ann", "human", peer="0" * 16)]),
    ):
        look = a_look()
        look.read(*state_from(TABLE, state))
        assert look.answer() == RoomEnded(CODE, None)


def test_a_seat_a_bot_plays_on_for_us_keeps_its_ended_game() -> None:
    record = {"game": "passpass"}
    look = a_look()
    seats = [SeatState("Tess", "bot", "random", peer=ME.peer_id, replaced=True)]
    look.read(*state_from(TABLE, a_state(phase="over", seats=seats, record=record)))
    answer = look.answer()
    assert isinstance(answer, RoomEnded) and answer.ended is not None and answer.ended.seat == 0


def test_the_key_a_voter_announces_signs_the_room_from_then_on() -> None:
    """The room's table moved (docs/election.md): its new key's state, kept
    while it was nobody's, counts once a voter names it; the new key's
    presence is asked for; the former key's words are the room's no more."""
    voter, successor, stranger = Identity.generate(), Identity.generate(), Identity.generate()
    look = a_look(frozenset({voter.public_key}))
    assert look.topics[-1] == authority_topic(CODE)
    look.read(*state_from(TABLE, a_state()))
    look.read(*presence_from(TABLE, online=False))
    look.read(*state_from(successor, a_state(host="Bo")))
    assert set(look.foreign) == {successor.public_key}
    # Named by someone not a voter, or a key of another length: nothing.
    assert look.read(*announce_from(stranger, successor.public_key)) is None
    assert look.read(*announce_from(voter, successor.public_key[:16])) is None
    assert look.signer == TABLE.public_key
    subscribe = look.read(*announce_from(voter, successor.public_key))
    assert subscribe == presence_topic(CODE, successor.peer_id)
    assert look.signer == successor.public_key and look.foreign == {}
    assert [state.host for state in look.states] == ["Bo"] and look.online == []
    # The same key again: nothing new to subscribe to, nothing cleared.
    assert look.read(*announce_from(voter, successor.public_key, term=3)) is None
    assert len(look.states) == 1
    look.read(*presence_from(TABLE))  # the former table's: not the room's now
    assert not look.complete
    look.read(*presence_from(successor))
    held = look.answer()
    assert isinstance(held, HeldSeat) and held.host_name == "Bo"


def test_other_keys_states_are_kept_a_few_at_most() -> None:
    voter = Identity.generate()
    look = a_look(frozenset({voter.public_key}))
    keys = [Identity.generate() for _ in range(MAX_FOREIGN + 2)]
    for key in keys:
        look.read(*state_from(key, a_state()))
    assert list(look.foreign) == [key.public_key for key in keys[:MAX_FOREIGN]]
    # Named later, a key whose state was not kept has none yet.
    look.read(*announce_from(voter, keys[-1].public_key))
    assert look.states == [] and look.signer == keys[-1].public_key


def test_a_seat_s_join_target_names_its_broker() -> None:
    held = HeldSeat(CODE, "::1", 1884, "dominoes", "Hugo", 0, "lobby")
    assert held.target == "ABC123@[::1]:1884"
    assert HeldSeat(CODE, "10.0.0.2", 1883, "dominoes", "Hugo", 0, "lobby").target == (
        "ABC123@10.0.0.2:1883"
    )


def test_names_that_clean_to_nothing_are_said_in_words() -> None:
    """A host or seat name of escapes or spaces only (anyone may name
    themselves so) is shown as "the host", "Seat N", or nothing for our own
    seat's name, never as an empty or a made-up word."""
    blank = "\x1b[2J  "
    seats = [SeatState(blank, "human", peer="0" * 16), SeatState(blank, "human", peer=ME.peer_id)]
    look = a_look()
    look.read(*state_from(TABLE, a_state(seats=seats, host=blank)))
    look.read(*presence_from(TABLE))
    held = look.answer()
    assert isinstance(held, HeldSeat)
    assert (held.host_name, held.seat_name) == ("the host", "")
    look = a_look()
    record = {"game": "passpass"}
    look.read(*state_from(TABLE, a_state(phase="over", seats=seats, host=blank, record=record)))
    ended = look.answer()
    assert isinstance(ended, RoomEnded) and ended.ended is not None
    assert (ended.ended.host_name, ended.ended.names) == ("the host", ("Seat 1", "Seat 2"))


def test_a_table_away_then_back_is_present() -> None:
    """Its will, then its presence again (a new connection): the last word
    counts."""
    look = a_look()
    look.read(*state_from(TABLE, a_state()))
    look.read(*presence_from(TABLE, online=False))
    look.read(*presence_from(TABLE, online=True))
    assert look.online == [False, True] and isinstance(look.answer(), HeldSeat)
