"""The sans-I/O parts of admission and room-key trust (issue 19 items 2
and 5): the authority's seats fed Hellos and presences directly, the pin
file, the --admit rule."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from core.engine import IllegalAction
from net.authority import authority as authority_module
from net.identity import Identity, fingerprint
from net.peer.pins import RoomPins
from net.protocol.bounds import Rate
from net.protocol.wire import presence_topic
from tests.net.rooms_in_process import CODE, hello, holders, presence, room
from tui.network_cli import _admission


def test_a_hello_alone_takes_no_seat_until_its_live_presence_comes() -> None:
    """issue 19 seats item 1: a new key's Hello waits for its live presence (then
    it sits, present at once); a Hello alone holds nothing."""
    authority = room()
    ana = Identity.generate()
    hello(authority, ana)
    assert holders(authority) == [None, None, None]
    assert ana.public_key in authority._candidates
    assert presence_topic(CODE, ana.peer_id) in authority._presence_topics()  # followed
    presence(authority, ana, online=True)
    assert holders(authority)[0] == ana.public_key
    assert authority.seats[0].present and authority.room_state().seats[0].present
    assert not authority._candidates
    presence(authority, ana, online=False, epoch=6)
    assert not authority.seats[0].present


def test_fresh_keys_without_presence_never_sit_and_are_followed_within_a_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    many = Rate(1000, 1000, 2**40, 2**40)
    monkeypatch.setattr(authority_module, "NEW_CANDIDATES", many)
    authority = room()
    squatters = [Identity.generate() for _ in range(authority_module.MAX_CANDIDATES + 5)]
    for key in squatters:
        hello(authority, key)
    assert holders(authority) == [None, None, None]
    # The oldest waiting keys are forgotten: a bounded number is followed.
    assert len(authority._candidates) == authority_module.MAX_CANDIDATES
    assert squatters[0].public_key not in authority._candidates
    assert len(authority._presence_topics()) == authority_module.MAX_CANDIDATES
    honest = Identity.generate()
    hello(authority, honest, name="Bea")
    presence(authority, honest, online=True)
    assert holders(authority)[0] == honest.public_key
    # A forgotten squatter's late presence seats nobody (its Hello is gone).
    presence(authority, squatters[0], online=True)
    assert squatters[0].public_key not in holders(authority)


def test_keys_heard_once_are_followed_at_a_bounded_rate_and_a_key_asking_again_always() -> None:
    """issue 19 seats item 1: a flood of fresh keys makes at most a burst of
    subscriptions (then NEW_CANDIDATES a second); a key heard twice (an
    honest joiner sending its Hello again) is followed whatever the flood."""
    authority = room()
    # A fixed clock: on the wall clock a loaded machine (-n 2 beside other
    # suites) took long enough over the flood for the bucket to refill.
    authority.clock = lambda: 100.0
    burst = int(authority_module.NEW_CANDIDATES.message_burst)
    for _ in range(burst + 10):
        hello(authority, Identity.generate())
    assert len(authority._candidates) == burst
    honest = Identity.generate()
    authority._heard[honest.peer_id] = 2  # as _within_bounds counts its messages
    hello(authority, honest, name="Bea")
    assert honest.public_key in authority._candidates
    presence(authority, honest, online=True)
    assert holders(authority)[0] == honest.public_key


def test_a_squatters_seat_goes_to_someone_who_asks_once_the_room_is_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seats held by keys never seen present (a resumed room's, whose
    holders have not come back) go to someone present who asks."""
    monkeypatch.setattr(authority_module, "PROVISIONAL_GRACE", 0.0)
    authority = room()
    squatters = [Identity.generate() for _ in range(2)]
    for seat, key in enumerate(squatters):
        authority.seats[seat] = authority_module.SeatSlot("Old", "human", key=key.public_key)
    honest = Identity.generate()
    presence(authority, honest, online=True)
    hello(authority, honest, name="Bea")
    # Seat 3 was free; then Cy takes a squatter's seat (never present).
    cy = Identity.generate()
    presence(authority, cy, online=True)
    hello(authority, cy, name="Cy")
    assert honest.public_key in holders(authority) and cy.public_key in holders(authority)
    assert "without showing up" in authority.room_state().notice
    # A seat whose holder was seen present is never taken so.
    dan = Identity.generate()
    presence(authority, dan, online=True)
    hello(authority, dan, name="Dan")
    assert squatters[1].public_key not in holders(authority)  # a squatter's went
    assert {honest.public_key, cy.public_key} <= set(holders(authority))


def test_a_knock_waits_for_the_host_then_admit_or_refuse() -> None:
    authority = room(admission="ask")
    ana, eve = Identity.generate(), Identity.generate()
    for key in (ana, eve):
        presence(authority, key, online=True)
    hello(authority, ana, seat=2)
    hello(authority, eve, name="Eve")
    assert holders(authority) == [None, None, None]
    assert [knock.name for knock in authority.knocks.values()] == ["Ana", "Eve"]
    authority.admit(ana.public_key)
    assert holders(authority)[2] == ana.public_key  # the seat she asked for
    authority.refuse(eve.public_key)
    assert not authority.knocks and eve.public_key in authority.barred
    hello(authority, eve, n=2, name="Eve")  # refused again, no new knock
    assert not authority.knocks
    # Turned away by mistake: the host types the start of Eve's key (i), and
    # her next Hello sits (a bar that only a new room lifted, by hand).
    assert authority.expect(fingerprint(eve.public_key)[:9]) is None
    assert eve.public_key not in authority.barred
    hello(authority, eve, n=3, name="Eve")
    assert eve.public_key in holders(authority) and not authority.knocks
    # A key let in (or seated) never knocks again: a reconnection.
    hello(authority, ana, n=2, seat=2)
    assert holders(authority)[2] == ana.public_key and not authority.knocks


def test_a_knock_goes_when_its_presence_does() -> None:
    authority = room(admission="ask")
    ana = Identity.generate()
    presence(authority, ana, online=True)
    hello(authority, ana)
    assert authority.knocks
    presence(authority, ana, online=False, epoch=6)
    assert not authority.knocks


def test_a_keys_rule_lets_in_only_the_listed_keys() -> None:
    ana, eve = Identity.generate(), Identity.generate()
    authority = room(admission="keys", allowed_keys=frozenset({ana.peer_id}))
    hello(authority, eve, name="Eve")
    assert eve.public_key not in authority._candidates  # refused at once, not followed
    presence(authority, ana, online=True)
    hello(authority, ana)
    assert holders(authority) == [ana.public_key, None, None]
    assert not authority.knocks


def test_the_host_may_give_any_seat_away() -> None:
    authority = room()
    ana = Identity.generate()
    presence(authority, ana, online=True)
    hello(authority, ana)
    assert authority.seats[0].present
    authority.set_bot(0, "normal")
    assert authority.seats[0].kind == "bot" and authority.seats[0].key is None
    # Under "any", her next Hello would undo the host's choice: she is barred.
    hello(authority, ana, n=2)
    assert ana.public_key not in holders(authority)


def test_a_bot_process_is_listed_as_a_bot() -> None:
    authority = room()
    robo = Identity.generate()
    presence(authority, robo, online=True)
    hello(authority, robo, name="Robo", bot=True)
    seat = authority.room_state().seats[0]
    assert (seat.kind, seat.level, seat.peer, seat.present) == (
        "bot",
        "heuristic",
        robo.peer_id,
        True,
    )
    assert authority.seats[0].kind == "human"  # bound to its key, sent its views


def test_pins_remember_a_rooms_key_and_survive_a_damaged_file(tmp_path: Path) -> None:
    path = tmp_path / "room_keys.json"
    key = Identity.generate().public_key
    pins = RoomPins(path)
    assert pins.get(CODE) is None
    pins.remember(CODE, key)
    assert RoomPins(path).get(CODE) == key  # a new process reads it back
    assert json.loads(path.read_text())["version"] == 1
    path.write_text("{not json")
    damaged = RoomPins(path)
    assert damaged.get(CODE) is None  # trusted anew, never fatal
    assert damaged.notice is not None and "damaged" in damaged.notice
    assert (tmp_path / "room_keys.json.corrupt").exists()
    damaged.remember(CODE, key)
    assert RoomPins(path).get(CODE) == key
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".room_keys.")]


def test_pins_keep_where_each_rooms_broker_was_newest_first(tmp_path: Path) -> None:
    """Issue 18: the rooms sat in, with their brokers, for the home screen's
    offer to rejoin one (net/peer/rejoin.py). An older file's entries (no broker)
    are pins still; a broker that is not one makes the file damaged."""
    path = tmp_path / "room_keys.json"
    old_key, key = Identity.generate().public_key, Identity.generate().public_key
    path.write_text(
        json.dumps({"version": 1, "rooms": {"OLD111": {"key": old_key.hex(), "at": 5}}})
    )
    pins = RoomPins(path)
    assert pins.get("OLD111") == old_key and pins.recent(5) == []  # no broker: no offer
    pins.remember(CODE, key, ("10.0.0.7", 1884))
    pins.remember("NEW222", key, ("127.0.0.1", 1883))
    again = RoomPins(path)
    assert again.get("OLD111") == old_key  # kept as it was
    recent = again.recent(5)
    assert {room.code for room in recent} == {CODE, "NEW222"}
    assert recent[0].at >= recent[1].at
    assert {room.code: room.broker for room in recent}[CODE] == ("10.0.0.7", 1884)
    assert again.recent(1, since=recent[0].at + 1) == []
    for bad in (["10.0.0.7"], ["10.0.0.7", 0], ["10.0.0.7", True], ["\x1b[2J", 1883], "x:1"):
        data = {"version": 1, "rooms": {CODE: {"key": key.hex(), "at": 5, "broker": bad}}}
        path.write_text(json.dumps(data))
        damaged = RoomPins(path)
        assert damaged.recent(5) == [] and damaged.notice is not None, bad


def test_the_admit_rule_reads_a_key_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ana = Identity.generate()
    listed = tmp_path / "keys"
    listed.write_text(f"# friends\n{fingerprint(ana.public_key)}  # Ana\n\n")
    assert _admission(argparse.Namespace(admit=["keys", str(listed)])) == (
        "keys",
        frozenset({ana.peer_id}),
    )
    assert _admission(argparse.Namespace(admit=None)) == ("any", frozenset())
    listed.write_text("not a key\n")
    assert _admission(argparse.Namespace(admit=["keys", str(listed)])) == 2
    assert "line 1: not a key" in capsys.readouterr().err
    assert _admission(argparse.Namespace(admit=["everyone"])) == 2


def test_a_bot_joiner_stays_a_bot_at_the_next_game_and_keys_let_in_stay_let_in() -> None:
    authority = room(admission="ask")
    robo, ana = Identity.generate(), Identity.generate()
    authority.admitted.update({robo.public_key, ana.public_key})
    for key in (robo, ana):
        presence(authority, key, online=True)
    hello(authority, robo, name="Robo", bot=True)
    hello(authority, ana)
    seats = authority.next_seats()
    assert [(seat.key, seat.plays) for seat in seats[:2]] == [
        (robo.public_key, "heuristic"),
        (ana.public_key, ""),
    ]


def test_a_key_read_aloud_gets_in_past_a_knock_queue_strangers_filled() -> None:
    """Found by hand (issue 19): eight fresh keys' knocks filled the queue and
    the person the host waited for was refused "too many people are waiting"
    for five minutes. Their refusal names their key; the host types its start
    (i in the lobby, Authority.expect) and their next Hello is let in."""
    from net.authority.authority import MAX_KNOCKS, key_prefix
    from net.protocol.wire import Knocks, Refused, Update, Watched, Welcome

    authority = room(admission="ask")
    said: list[tuple[bytes, Welcome | Refused | Update | Watched | Knocks]] = []
    authority._to_peer = lambda key, message: said.append((key, message))  # type: ignore[method-assign]
    for n in range(MAX_KNOCKS):
        stranger = Identity.generate()
        presence(authority, stranger, online=True)  # nobody knocks without one
        hello(authority, stranger, name=f"[/]{n}")
    cy = Identity.generate()
    presence(authority, cy, online=True)
    hello(authority, cy, name="Cy")
    key, refusal = said[-1]
    assert isinstance(refusal, Refused)
    assert key == cy.public_key and refusal.code == "full"
    assert fingerprint(cy.public_key) in refusal.reason and "i on" in refusal.reason
    assert cy.public_key not in authority.knocks and holders(authority) == [None, None, None]
    # As Cy reads it: upper case, a space instead of the dash, two groups.
    read = fingerprint(cy.public_key)[:9].upper().replace("-", " ")
    assert authority.expect(read) is None  # not waiting: let in when it comes
    hello(authority, cy, n=2, name="Cy")
    assert holders(authority)[0] == cy.public_key
    assert len(authority.knocks) == MAX_KNOCKS  # the strangers still wait
    # Once: another key with the same start would knock again.
    assert not authority.expected
    # A knock already waiting is let in at once.
    knock = next(iter(authority.knocks.values()))
    assert authority.expect(knock.fingerprint) == knock
    assert holders(authority)[1] == knock.key
    for typed in ("8ef4", "8ef4-36cz", "", "0123456789abcdef0"):
        with pytest.raises(ValueError, match="first 8 characters"):
            key_prefix(typed)


def test_the_host_removes_a_present_person_who_must_be_let_in_again() -> None:
    """issue 19 seats item 3, the authority's side of the lobby's x."""
    for admission in ("any", "ask"):
        authority = room(admission=admission)
        ana = Identity.generate()
        authority.admitted.add(ana.public_key)
        presence(authority, ana, online=True)
        hello(authority, ana)
        assert authority.seats[0].present
        authority.remove(0)
        assert authority.seats[0].kind == "open" and authority.seats[0].key is None
        assert "took Ana out of seat 1" in authority.room_state().notice
        assert ana.public_key not in authority.admitted
        hello(authority, ana, n=2)  # under "any" barred; under "ask" she knocks
        assert ana.public_key not in holders(authority)
        assert (ana.public_key in authority.knocks) == (admission == "ask")
        with pytest.raises(IllegalAction):
            authority.remove(1)  # nobody there


async def test_a_seat_unheard_past_the_bound_is_away_until_its_next_beat() -> None:
    """issue 19 seats item 5, by the authority's clock: a seated key whose
    presence stops coming is away after presence_timeout; the same
    record again (a beat) or a request makes it present again."""
    now = [100.0]
    authority = room(clock=lambda: now[0])
    ana, ghost = Identity.generate(), Identity.generate()
    for n, key in enumerate((ana, ghost)):
        presence(authority, key, online=True)
        hello(authority, key, name=f"P{n}")
    authority.watch_presence(10.0)
    assert [slot.present for slot in authority.seats[:2]] == [True, True]
    now[0] += 6
    presence(authority, ana, online=True)  # a beat: same epoch, same record
    now[0] += 6
    authority._check_presences()
    assert [slot.present for slot in authority.seats[:2]] == [True, False]
    assert not authority.room_state().seats[1].present
    now[0] += 20
    authority._check_presences()
    assert not authority.seats[0].present  # Ana's beats stopped too
    hello(authority, ana, n=2, name="P0")  # a request: alive
    assert authority.seats[0].present
    presence(authority, ghost, online=True)  # its beat
    assert authority.seats[1].present
    authority.watch_presence(None)


def test_a_dealer_s_room_owner_decides_who_sits_from_their_seat() -> None:
    """A dealer's room asked for on screen (issue 20): its asker, the
    owner, sits without asking, is told who knocks (sealed to them alone),
    and lets in or turns away by an Admit from their seat; nobody else's
    Admit counts."""
    from net.protocol.wire import Admit, Knocking, Knocks, Refused, Welcome
    from tests.net.rooms_in_process import listen, request, sent

    authority = room(admission="ask")
    owner, ben, eve = Identity.generate(), Identity.generate(), Identity.generate()
    authority.owner = owner.public_key
    authority.admitted.add(owner.public_key)
    listen(authority)
    inbox: dict[str, list[object]] = {key.peer_id: [] for key in (owner, ben, eve)}

    def read() -> None:
        for who, message in sent(authority, owner, ben, eve):
            inbox.setdefault(who, []).append(message)

    def knocks_told() -> list[Knocking]:
        read()
        return [m for m in inbox[owner.peer_id] if isinstance(m, Knocks)][-1].knocks

    def refusals(key: Identity) -> list[Refused]:
        read()
        return [m for m in inbox[key.peer_id] if isinstance(m, Refused)]

    for key in (owner, ben, eve):
        presence(authority, key, online=True)
    hello(authority, owner, name="Ana")
    assert holders(authority)[0] == owner.public_key  # no knock for the owner
    assert knocks_told() == []
    hello(authority, ben, name="Ben", seat=2)
    hello(authority, eve, name="Eve")
    assert knocks_told() == [Knocking(ben.public_key, "Ben", 2), Knocking(eve.public_key, "Eve")]
    assert [r.code for r in refusals(ben)] == ["knock"]
    # Eve cannot let herself in, nor turn Ben away.
    request(authority, eve, Admit(room=CODE, epoch=1, n=5, key=eve.public_key, yes=True))
    request(authority, eve, Admit(room=CODE, epoch=1, n=6, key=ben.public_key, yes=False))
    assert [r.code for r in refusals(eve)] == ["knock", "denied", "denied"]
    assert "only the person who asked" in refusals(eve)[-1].reason
    assert list(authority.knocks) == [ben.public_key, eve.public_key]
    # The owner lets Ben in (the seat he asked for) and turns Eve away.
    request(authority, owner, Admit(room=CODE, epoch=1, n=2, key=ben.public_key, yes=True))
    assert holders(authority)[2] == ben.public_key
    read()
    assert Welcome(room=CODE, seat=2) in inbox[ben.peer_id]
    request(authority, owner, Admit(room=CODE, epoch=1, n=3, key=eve.public_key, yes=False))
    assert eve.public_key in authority.barred and not authority.knocks
    assert [r.code for r in refusals(eve)][-1] == "denied"
    assert knocks_told() == []
    # An Admit for a key that no longer knocks changes nothing.
    request(authority, owner, Admit(room=CODE, epoch=1, n=4, key=eve.public_key, yes=True))
    assert eve.public_key in authority.barred and holders(authority)[1] is None


def test_only_a_dealer_s_room_owner_starts_it_early_or_asks_for_its_next_game() -> None:
    """StartNow and Again (a dealer's room asked for on screen): heeded from
    its owner only, and only where a runner acts on them (a host's room has
    none: its host does both on screen); each refusal says why."""
    from net.protocol.wire import Again, Refused, StartNow
    from tests.net.rooms_in_process import listen, request, sent

    authority = room(admission="ask")
    owner, ben = Identity.generate(), Identity.generate()
    listen(authority)

    def reasons(key: Identity) -> list[tuple[str, str]]:
        return [
            (m.code, m.reason)
            for who, m in sent(authority, owner, ben)
            if who == key.peer_id and isinstance(m, Refused)
        ]

    # A host's room: nobody starts it, nor opens its next game, from a seat.
    request(authority, ben, StartNow(room=CODE, epoch=1, n=1))
    request(authority, ben, Again(room=CODE, epoch=1, n=2))
    assert reasons(ben) == [
        ("bad", f"nobody starts room {authority.shown_code} from a seat"),
        ("bad", f"nobody opens a next game for room {authority.shown_code} from a seat"),
    ]
    started: list[str] = []
    authority.owner = owner.public_key
    authority.on_start_asked = lambda: started.append("start")
    authority.on_again = lambda: started.append("again")
    request(authority, ben, StartNow(room=CODE, epoch=1, n=3))
    request(authority, ben, Again(room=CODE, epoch=1, n=4))
    assert [code for code, _ in reasons(ben)] == ["denied", "denied"]
    request(authority, owner, Again(room=CODE, epoch=1, n=1))
    assert reasons(owner) == [("bad", "the game is not over")]
    request(authority, owner, StartNow(room=CODE, epoch=1, n=2))
    assert started == ["start"]
