"""The fair deal, checked for real (issue 20): in memory, for each game.

A faithful authority is simulated here as net/authority/authority.py sends: after each
move (``seq``), the seat's view and the events it may see, encoded by the
game's codec and decoded as net/peer/remote.py decodes them. A cheating one swaps a
card between two hands mid-game, or shows a seat a hand the deal did not give
it. :func:`net.peer.dealcheck.check_shown` must pass the honest game (no false
alarm) and name the first mismatch of each cheat. Before issue 20 the peer
checked only the seed against its commitment, which every one of these
cheats passes (the revealed seed is the committed one, the record the
authority's own): these tests fail without the replay check.
The same with real processes: tests/net/test_cheating_authority.py.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import msgspec
import pytest

from core.engine import AnyGame, AnyState, Event, GameRecord, View
from core.registry import get_game
from net.authority.authority import paged
from net.identity import Identity
from net.peer import dealcheck
from net.peer.dealcheck import ShownLog, check_shown
from net.peer.remote import RemoteTable
from net.protocol.codec import codec_for
from net.protocol.codes import new_code
from net.protocol.text import clean_tree
from net.protocol.wire import RoomState, Update

GAMES = [("passpass", 3), ("dominoes", 3), ("fashion", 3)]
NAMES = ("Ana", "Ben", "Cleo")
SEED = 20


@dataclass
class Received:
    """What one seat received, as a RemoteTable keeps it."""

    shown: ShownLog = field(default_factory=ShownLog)
    log: list[Event] = field(default_factory=list)


# A cheat: called after each move (0: the deal) with the state and the move;
# it may change the state (the authority's real game) before views go out.
Cheat = Callable[[AnyState, int], None]
# A lie to one seat: the view it is sent instead of its real one.
Lie = Callable[[AnyState, int, View], View]


def play(
    game_id: str,
    players: int,
    *,
    cheat: Cheat | None = None,
    lie: tuple[int, Lie] | None = None,
    seed: int = SEED,
) -> tuple[GameRecord, list[Received], list[list[tuple[int, View]]]]:
    """A whole game between random players, every seat sent its view and
    events after each move as the authority sends them; the record is the
    game's (its seed and actions, as the authority reveals them)."""
    game = get_game(game_id)
    codec = codec_for(game)
    state = game.new_game(game.make_config(players=players), seed)
    rng = random.Random(seed)
    received = [Received() for _ in range(players)]
    views: list[list[tuple[int, View]]] = [[] for _ in range(players)]
    events: list[Event] = list(state.opening_events)
    move = 0
    while True:
        if cheat is not None:
            cheat(state, move)
        for seat in range(players):
            view = state.view(seat)
            views[seat].append((move, view))
            if lie is not None and lie[0] == seat:
                view = lie[1](state, move, view)
            send(codec, received[seat], seat, move, view, events)
        if state.is_over:
            break
        seat = rng.choice(state.to_act)
        events = list(state.apply(seat, rng.choice(state.legal_actions(seat))))
        move += 1
    return state.record(), received, views


def send(
    codec: Any, received: Received, seat: int, seq: int, view: View, events: list[Event]
) -> None:
    """One update, through the wire's encoding and the peer's decoding."""
    view_data = clean_tree(codec.encode_view(view))
    assert codec.decode_view(view_data) == view
    received.shown.saw_view(seq, view_data)
    for event in events:
        shown = event.for_seat(seat)
        if shown is not None:
            received.log.append(codec.decode_event(clean_tree(codec.encode_event(shown))))
    received.shown.saw_events(len(received.log))


def check(game_id: str, record: GameRecord, seat: int, received: Received) -> Any:
    game = get_game(game_id)
    return check_shown(game, codec_for(game), record, seat, received.shown, received.log, NAMES)


def swap_cards(first: int, second: int, at: int) -> Cheat:
    """After move ``at``, the first piece of seat ``first``'s hand and of
    seat ``second``'s change hands (every game keeps hands as lists of piece
    ids, sorted)."""

    def cheat(state: AnyState, move: int) -> None:
        if move != at:
            return
        hands: list[list[int]] = cast(Any, state).hands  # every game's state has hands
        hands[first][0], hands[second][0] = hands[second][0], hands[first][0]
        hands[first].sort()
        hands[second].sort()

    return cheat


def hand_of(view: View) -> tuple[Any, ...]:
    hand = view.hand  # type: ignore[attr-defined]
    assert isinstance(hand, tuple)
    return hand


def words(pieces: set[Any]) -> str:
    return ", ".join(str(piece) for piece in pieces)


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_an_honest_game_verifies_for_every_seat(game_id: str, players: int) -> None:
    record, received, _ = play(game_id, players)
    for seat in range(players):
        verdict = check(game_id, record, seat, received[seat])
        assert verdict.ok, verdict.text
        assert verdict.complete
        assert verdict.moves == len(record.actions) > 0
        assert verdict.views_compared == len(record.actions) + 1
        assert verdict.text.startswith("Deal verified: all ")


def first_move_with_hands(game_id: str, players: int, seats: tuple[int, int]) -> int:
    """A move after which both seats hold at least one piece and the game
    goes on, past the start (mid-game)."""
    game = get_game(game_id)
    state = game.new_game(game.make_config(players=players), SEED)
    rng = random.Random(SEED)
    move = 0
    while not state.is_over:
        if move >= 5 and all(state.hands[seat] for seat in seats):
            return move
        seat = rng.choice(state.to_act)
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        move += 1
    raise AssertionError("no move with both hands held")


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_a_card_swapped_mid_game_is_named_by_both_seats(game_id: str, players: int) -> None:
    """Seats 0 and 1 exchange a piece after move ``at``: each is shown a
    hand the revealed deal does not give it, from that move on."""
    at = first_move_with_hands(game_id, players, (0, 1))
    record, received, views = play(game_id, players, cheat=swap_cards(0, 1, at))
    honest = play(game_id, players)[2]  # the same moves up to ``at``
    for seat in (0, 1):
        verdict = check(game_id, record, seat, received[seat])
        assert not verdict.ok
        # What the deal gives (the views of an honest run) against what was shown.
        _, dealt = honest[seat][at]
        shown = views[seat][at][1]
        extra = set(hand_of(shown)) - set(hand_of(dealt))
        missing = set(hand_of(dealt)) - set(hand_of(shown))
        assert len(extra) == len(missing) == 1
        actor, notation = record.actions[at - 1]
        assert verdict.text == (
            f"Deal check FAILED after move {at} ({NAMES[actor]}: {notation}): "
            f"your hand showed {words(extra)} where the revealed deal has {words(missing)}."
        )


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_a_seat_shown_a_different_hand_names_it_at_the_deal(game_id: str, players: int) -> None:
    """Seat 1 is shown, from the deal on, a hand with one piece of seat 2's
    in place of its first: the lie is named at the deal, the other seats
    (shown the truth) verify."""

    def lie(state: AnyState, move: int, view: View) -> View:
        other = hand_of(state.view(2))
        mine = hand_of(view)
        if not other or not mine:
            return view
        return dataclasses.replace(view, hand=(other[0], *mine[1:]))  # type: ignore[call-arg]

    record, received, views = play(game_id, players, lie=(1, lie))
    verdict = check(game_id, record, 1, received[1])
    real = hand_of(views[1][0][1])
    stolen = hand_of(views[2][0][1])[0]
    assert verdict.text == (
        f"Deal check FAILED at the deal: your hand showed {stolen} "
        f"where the revealed deal has {real[0]}."
    )
    for seat in (0, 2):
        assert check(game_id, record, seat, received[seat]).ok


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_a_different_deal_for_one_seat_is_caught_by_every_seat(game_id: str, players: int) -> None:
    """The authority deals seat 0 one of seat 2's pieces (and seat 2 one of
    seat 0's) and plays that game, revealing the honest seed: seat 0 sees it
    in its hand at the deal; seat 1, shown only public facts, catches it when
    the record stops replaying (a piece played that its seat was never
    dealt) or when a public fact differs."""
    record, received, _ = play(game_id, players, cheat=swap_cards(0, 2, 0))
    first = check(game_id, record, 0, received[0])
    assert first.text.startswith("Deal check FAILED at the deal: your hand showed ")
    other = check(game_id, record, 1, received[1])
    assert not other.ok, other.text
    assert other.text.startswith("Deal check FAILED ")


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_a_peer_that_came_late_checks_what_it_was_shown(game_id: str, players: int) -> None:
    """A peer restarted mid-game never received the early views (its log
    came whole, in a Sync's answer): it checks what it has and says so."""
    record, received, _ = play(game_id, players)
    late = Received(log=received[0].log)
    late.shown.events = received[0].shown.events
    late.shown.views = [view for view in received[0].shown.views if view.seq >= 5]
    verdict = check(game_id, record, 0, late)
    assert verdict.ok
    assert not verdict.complete
    moments = len(record.actions) + 1
    assert verdict.text.startswith(
        f"Deal verified for what this Passe was shown: your view at {moments - 5} of {moments} "
        "moments (from move 5 on)"
    )


def test_an_altered_event_is_named() -> None:
    """A public play shown as another card: the event is named, not the view."""
    record, received, _ = play("passpass", 3)
    game = get_game("passpass")
    codec = codec_for(game)
    index = next(
        i for i, event in enumerate(received[0].log) if type(event).__name__ == "CardPlayed"
    )
    honest = received[0].log[index]
    data = codec.encode_event(honest)
    card = data[1]["card"]
    data[1]["card"] = {**card, "value": card["value"] % 12 + 1}
    received[0].log[index] = codec.decode_event(data)
    verdict = check("passpass", record, 0, received[0])
    assert not verdict.ok
    assert f"you were shown “{received[0].log[index].describe(NAMES)}”" in verdict.text
    assert f"where the revealed deal has “{honest.describe(NAMES)}”" in verdict.text


def test_a_view_past_the_records_end_fails() -> None:
    record, received, _ = play("dominoes", 2)
    shorter = dataclasses.replace(record, actions=record.actions[:-1])
    verdict = check("dominoes", shorter, 0, received[0])
    assert not verdict.ok


def test_views_past_the_budget_keep_their_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory stays bounded: past VIEW_BYTES_KEPT only a digest is kept,
    which still catches a lie, without its details."""
    monkeypatch.setattr(dealcheck, "VIEW_BYTES_KEPT", 0)

    def lie(state: AnyState, move: int, view: View) -> View:
        mine = hand_of(view)
        return dataclasses.replace(view, hand=mine[1:]) if mine else view  # type: ignore[call-arg]

    record, received, _ = play("fashion", 3, lie=(0, lie))
    assert all(view.data is None for view in received[0].shown.views)
    verdict = check("fashion", record, 0, received[0])
    assert verdict.text == (
        "Deal check FAILED at the deal: your view differed from the revealed deal's "
        "(its details were not kept)."
    )


# -- the peer's side: what RemoteTable keeps from the updates it accepts -----


def peer_at_table(game_id: str, players: int) -> tuple[RemoteTable, AnyGame]:
    game = get_game(game_id)
    table = RemoteTable(Identity.generate(), new_code(random.Random(1)), "127.0.0.1", 1, "Ana")
    table.codec = codec_for(game)
    table.game_id = game_id
    table.seat = 0
    table.names = NAMES[:players]
    return table, game


def updates_for_seat(
    game_id: str, players: int, seat: int, lie: Lie | None = None
) -> tuple[GameRecord, list[Update]]:
    """Every update a faithful authority sends ``seat`` in a whole game,
    in pages when long (net/authority/authority.py ``paged``), as it sends them."""
    game = get_game(game_id)
    codec = codec_for(game)
    state = game.new_game(game.make_config(players=players), SEED)
    rng = random.Random(SEED)
    seat_log: list[Any] = []
    fresh: list[Event] = list(state.opening_events)
    updates: list[Update] = []
    move = 0
    while True:
        base = len(seat_log)
        seat_log += [codec.encode_event(e) for ev in fresh if (e := ev.for_seat(seat)) is not None]
        view = state.view(seat) if lie is None else lie(state, move, state.view(seat))
        update = Update(
            room="X", seq=move, view=codec.encode_view(view), base=base, events=seat_log[base:]
        )
        updates += paged(update, 400)  # small pages: several per long update
        if state.is_over:
            return state.record(), updates
        actor = rng.choice(state.to_act)
        fresh = list(state.apply(actor, rng.choice(state.legal_actions(actor))))
        move += 1


def final_room(table: RemoteTable, record: GameRecord, game: AnyGame) -> RoomState:
    salt = b"s" * 16
    seed_hash = hashlib.sha256(salt + record.seed.to_bytes(8, "big")).digest()
    table._first_seed_hash = seed_hash  # as the first room state published it
    return RoomState(
        room=table.code,
        game=game.id,
        config=dict(record.config),
        host="Host",
        phase="over",
        seats=[],
        seq=len(record.actions),
        stamp=1,
        seed_hash=seed_hash,
        record=record.to_data(),
        salt=salt,
    )


def deliver(table: RemoteTable, update: Update) -> None:
    table._on_update(msgspec.structs.replace(update, room=table.code))


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_a_peer_checks_pages_and_resent_logs_without_a_false_alarm(
    game_id: str, players: int
) -> None:
    """Pages of one update, the same update again (a Sync's answer, from
    base 0): kept once, and the honest game verifies in full."""
    table, game = peer_at_table(game_id, players)
    record, updates = updates_for_seat(game_id, players, 0)
    assert any(a.seq == b.seq for a, b in itertools.pairwise(updates))  # pages came
    for update in updates:
        deliver(table, update)
        deliver(table, update)  # again: a duplicate on the broker
    last = updates[-1]
    deliver(table, msgspec.structs.replace(last, base=0, events=[]))  # a Sync's answer
    table._check_deal(final_room(table, record, game))
    assert table.verified is True, table.deal_report
    assert table.deal_report.startswith("Deal verified: all ")
    assert len(table._shown.views) == len(record.actions) + 1


def test_a_peer_that_missed_the_end_checks_the_rest_when_it_comes() -> None:
    """The last updates lost: the end comes from the record (section 6),
    whose events are not counted as received; the check says "in part".
    The final update, late, is checked too, and completes it."""
    table, game = peer_at_table("dominoes", 2)
    record, updates = updates_for_seat("dominoes", 2, 0)
    final = [update for update in updates if update.seq == len(record.actions)]
    for update in updates[: len(updates) - len(final)]:
        deliver(table, update)
    room = final_room(table, record, game)
    table.room = room
    table._check_deal(room)
    table._finish_from_record(room)
    assert table.view is not None and table.view.is_over
    assert table.verified is True
    assert table.deal_report.startswith("Deal verified for what this Passe was shown: ")
    for update in final:
        deliver(table, update)
    assert table.verified is True
    assert table.deal_report.startswith("Deal verified: all "), table.deal_report


def test_a_peer_shown_another_hand_reports_it() -> None:
    def lie(state: AnyState, move: int, view: View) -> View:
        mine = hand_of(view)
        if move != 7 or not mine:
            return view
        return dataclasses.replace(view, hand=mine[1:])  # type: ignore[call-arg]

    table, game = peer_at_table("passpass", 3)
    record, updates = updates_for_seat("passpass", 3, 0, lie)
    for update in updates:
        deliver(table, update)
    table._check_deal(final_room(table, record, game))
    assert table.verified is False
    actor, notation = record.actions[6]
    assert table.deal_report.startswith(
        f"Deal check FAILED after move 7 ({NAMES[actor]}: {notation}): your hand lacked "
    )


def test_a_hostile_record_fails_the_check_without_an_error() -> None:
    """The record is network data: another game's, bad settings, a move
    that is no notation, all fail the check (never raise)."""
    record, received, _ = play("passpass", 3)
    garbled = dataclasses.replace(record, actions=((0, "not a card"), *record.actions[1:]))
    verdict = check("passpass", garbled, 0, received[0])
    assert verdict.text.startswith("Deal check FAILED after move 1 (Ana: not a card): ")
    assert not check("passpass", dataclasses.replace(record, game="fashion"), 0, received[0]).ok
    bad_config = dataclasses.replace(record, config={**record.config, "players": 99})
    assert check("passpass", bad_config, 0, received[0]).text.startswith(
        "Deal check FAILED: the revealed record's settings are not valid"
    )


# -- what each verdict says (the mutation run of net/peer/dealcheck.py,
# 5 December: docs/testing.md). A peer reads these words on its game-over
# screen; each test pins them, and each fails on the mutants it names.


def test_a_watcher_checks_the_public_game() -> None:
    """A watcher (no seat) checks every public view and event: an honest
    game verifies, and the verdict counts what it compared. Mutants: the
    seat test turned so that no seat crashes, the event count lost."""
    record, _, _ = play("passpass", 3)
    game = get_game("passpass")
    codec = codec_for(game)
    state = game.new_game(game.config_from_data(record.config), record.seed)
    watcher = Received()
    send(codec, watcher, None, 0, state.view(None), list(state.opening_events))  # type: ignore[arg-type]
    for move, (actor, notation) in enumerate(record.actions, start=1):
        events = list(state.apply(actor, game.parse_action(notation)))
        send(codec, watcher, None, move, state.view(None), events)  # type: ignore[arg-type]
    verdict = check_shown(game, codec, record, None, watcher.shown, watcher.log, NAMES)
    assert verdict.ok and verdict.complete, verdict.text
    assert verdict.events_compared == len(watcher.log) > 0


def test_a_record_that_is_not_this_game_s_says_what_it_is() -> None:
    """Another game's record (its id quoted, cut at 20 characters: network
    text), a seat the record has not (seats are said from 1), settings the
    game refuses: each is one line, with no place in the game. Mutants:
    the words or the place changed, the bound one off."""
    record, received, _ = play("passpass", 3)
    other = dataclasses.replace(record, game="x" * 30)
    assert check("passpass", other, 0, received[0]).text == (
        f"Deal check FAILED: the revealed record is of {'x' * 20!r}, not passpass."
    )
    for seat in (3, 7):
        assert check("passpass", record, seat, received[0]).text == (
            f"Deal check FAILED: the revealed record has no seat {seat + 1}."
        )
    bad = dataclasses.replace(record, config={**record.config, "players": 99})
    assert check("passpass", bad, 0, received[0]).text.startswith(
        "Deal check FAILED: the revealed record's settings are not valid ("
    )


def test_a_move_that_does_not_replay_is_named_by_its_place_and_words() -> None:
    """A notation longer than 40 characters is quoted cut at 40 in the
    place it is named by. Mutants: the cut one off, the reason lost."""
    record, received, _ = play("passpass", 3)
    long = "n" * 50
    garbled = dataclasses.replace(record, actions=((0, long), *record.actions[1:]))
    text = check("passpass", garbled, 0, received[0]).text
    assert text.startswith(
        f"Deal check FAILED after move 1 (Ana: {'n' * 40}): that move does not replay "
        "on the revealed deal (“"
    )


def test_views_after_the_record_s_end_or_before_the_deal_fail_in_words() -> None:
    """A view for a move the record never reaches, or for a move before
    the deal (hostile numbers), fails; the words name the furthest and the
    record's end. Mutants: either bound dropped, the words lost."""
    record, received, _ = play("dominoes", 2)
    moves = len(record.actions)
    shorter = dataclasses.replace(record, actions=record.actions[:-1])
    assert check("dominoes", shorter, 0, received[0]).text == (
        f"Deal check FAILED: you were shown the table after move {moves}, "
        f"but the revealed record ends at move {moves - 1}."
    )
    before = Received(log=received[0].log)
    before.shown.views = [*received[0].shown.views]
    before.shown.events = received[0].shown.events
    before.shown.views.append(dataclasses.replace(received[0].shown.views[0], seq=-1))
    assert check("dominoes", record, 0, before).text == (
        f"Deal check FAILED: you were shown the table after move -1, "
        f"but the revealed record ends at move {moves}."
    )


def test_more_events_than_the_deal_makes_fail_in_words() -> None:
    """Mutants: the words or their place lost."""
    record, received, _ = play("passpass", 3)
    extra = Received(log=[*received[0].log, received[0].log[-1]])
    extra.shown.views = received[0].shown.views
    extra.shown.saw_events(len(extra.log))
    made = len(received[0].log)
    assert check("passpass", record, 0, extra).text == (
        f"Deal check FAILED: you were shown {made + 1} events, "
        f"but the revealed deal makes only {made}."
    )


def test_a_record_that_does_not_finish_the_game_fails_in_words() -> None:
    """A seat shown nothing (it came after the end) still checks that the
    revealed record finishes the game. Mutants: the words or place lost."""
    record, _, _ = play("passpass", 3)
    shorter = dataclasses.replace(record, actions=record.actions[:-1])
    assert check("passpass", shorter, 0, Received()).text == (
        "Deal check FAILED: the revealed record does not finish the game "
        f"(it ends at move {len(record.actions) - 1})."
    )


def test_the_first_event_is_compared_and_named_at_the_deal() -> None:
    """The deal's own events (the first of the log) are compared like any
    other, and a lie there is placed "at the deal". Mutants: the count
    started at 1 (the first event never compared), the deal's events
    placed after move 1, or placed nowhere."""
    record, received, _ = play("passpass", 3)
    lied = Received(log=[*received[0].log])
    lied.shown.views = received[0].shown.views
    lied.shown.events = received[0].shown.events
    first = lied.log[0]
    lied.log[0] = next(e for e in lied.log if type(e) is not type(first))
    text = check("passpass", record, 0, lied).text
    assert text.startswith("Deal check FAILED at the deal: you were shown “"), text


def test_what_reached_a_peer_in_part_is_said_in_part() -> None:
    """Views but no event (a log that never came), events but no view, or
    nothing: each verdict says what was compared, from which moment.
    Mutants: the "shown nothing" words for a peer shown views, the first
    moment taken from no view (a crash), "the deal" said of move 1."""
    record, received, _ = play("passpass", 3)
    moves = len(record.actions)
    views_only = Received()
    views_only.shown.views = received[0].shown.views
    events_only = Received(log=received[0].log)
    events_only.shown.events = received[0].shown.events
    for partial, begins in (
        (views_only, f"{moves + 1} of {moves + 1} moments (from the deal on) and 0 of "),
        (events_only, f"0 of {moves + 1} moments (from move {moves} on)"),
    ):
        text = check("passpass", record, 0, partial).text
        assert text.startswith(
            f"Deal verified for what this Passe was shown: your view at {begins}"
        ), text
    from_one = Received()
    from_one.shown.views = [v for v in received[0].shown.views if v.seq >= 1]
    assert "(from move 1 on)" in check("passpass", record, 0, from_one).text
    assert check("passpass", record, 0, Received()).text == (
        "Deal matched the host's commitment; this seat was shown nothing of the game "
        "to check it against."
    )


def test_the_views_kept_are_bounded_per_move_and_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two distinct views for one move at most (a second already proves a
    lie), and whole bytes kept while they fit the budget exactly, the
    budget counting every view kept. Mutants: a third kept, the budget's
    last byte refused, the count replaced or lowered."""
    shown = ShownLog()
    for value in range(3):
        shown.saw_view(4, {"value": value})
    assert [view.seq for view in shown.views] == [4, 4]
    size = len(msgspec.msgpack.Encoder(order="sorted").encode({"value": 10}))
    monkeypatch.setattr(dealcheck, "VIEW_BYTES_KEPT", size * 5 // 2)
    kept = ShownLog()
    for seq in range(3):
        kept.saw_view(seq, {"value": 10 + seq})
    assert [view.data is not None for view in kept.views] == [True, True, False]
    assert kept.kept_bytes == 2 * size
    monkeypatch.setattr(dealcheck, "VIEW_BYTES_KEPT", size)
    exact = ShownLog()
    exact.saw_view(0, {"value": 10})
    assert exact.views[0].data is not None


def _lied_at_the_deal(change: Callable[[View], View]) -> str:
    """Ana (seat 0) shown, at the deal only, her view changed by
    ``change``: her verdict's words."""

    def lie(state: AnyState, move: int, view: View) -> View:
        return change(view) if move == 0 else view

    record, received, _ = play("passpass", 3, lie=(0, lie))
    return str(check("passpass", record, 0, received[0]).text)


def test_a_field_other_than_the_hand_is_named_by_its_words_and_item() -> None:
    """The first field that differs, in words (underscores as spaces); in a
    list of the same length, the first item that differs, counted from 1;
    a list of another length whole, an empty one as "none". Mutants: the
    label, the item, the values, or the search stopped at the first field
    that agrees."""
    sizes = _lied_at_the_deal(lambda v: dataclasses.replace(v, hand_sizes=(8, 9, 8)))  # type: ignore[call-arg]
    assert sizes == (
        "Deal check FAILED at the deal: your view's hand sizes (item 2) showed 9 "
        "where the revealed deal has 8."
    )
    aside = _lied_at_the_deal(lambda v: dataclasses.replace(v, set_aside=23))  # type: ignore[call-arg]
    assert aside == (
        "Deal check FAILED at the deal: your view's set aside showed 23 "
        "where the revealed deal has 24."
    )
    sheet = _lied_at_the_deal(lambda v: dataclasses.replace(v, discarded=(v.hand[0],)))  # type: ignore[attr-defined,call-arg]
    assert sheet.endswith("where the revealed deal has none.")
    over = _lied_at_the_deal(lambda v: dataclasses.replace(v, default_diamonds=False))  # type: ignore[call-arg]
    assert over.endswith("your view's default diamonds showed no where the revealed deal has yes.")


def test_a_hand_is_named_by_what_it_has_too_many_of_too_few_of_or_its_order() -> None:
    """Mutants: each of the four sentences' values or words."""
    extra = _lied_at_the_deal(lambda v: dataclasses.replace(v, hand=(*v.hand, v.hand[0])))  # type: ignore[attr-defined,call-arg]
    fewer = _lied_at_the_deal(lambda v: dataclasses.replace(v, hand=v.hand[1:]))  # type: ignore[attr-defined,call-arg]
    order = _lied_at_the_deal(lambda v: dataclasses.replace(v, hand=v.hand[::-1]))  # type: ignore[attr-defined,call-arg]
    _, _, views = play("passpass", 3)
    first = hand_of(views[0][0][1])[0]
    assert extra == (
        f"Deal check FAILED at the deal: your hand showed {first}, which the revealed "
        "deal does not give you."
    )
    assert fewer == (
        f"Deal check FAILED at the deal: your hand lacked {first}, "
        "which the revealed deal gives you."
    )
    assert order == (
        "Deal check FAILED at the deal: your hand was shown in another order than the "
        "revealed deal's."
    )
    assert dealcheck._hand_difference(None, (first,)) == (
        f"your hand showed nothing where the revealed deal has {first}"
    )
    assert dealcheck._hand_difference((first,), None) == (
        f"your hand showed {first} where the revealed deal has nothing"
    )


@dataclass(frozen=True)
class _Seen:
    first_card: Any
    how_many: int


def test_values_are_put_in_few_words_and_cut_at_words_most() -> None:
    """Nothing, yes and no, lists joined (an empty one "none"), a record's
    fields by name (underscores as spaces), anything else as text; past
    WORDS_MOST characters, cut with an ellipsis at exactly that length.
    Mutants: each word, the joins, the cut's bound and length."""
    words_of = dealcheck._words
    assert words_of(None) == "nothing"
    assert (words_of(True), words_of(False)) == ("yes", "no")
    assert words_of((1, (2, 3), ())) == "1, 2, 3, none"
    assert words_of(_Seen(first_card="V3", how_many=2)) == "first card V3; how many 2"
    assert words_of(_Seen) == str(_Seen)  # a class is not a record
    assert words_of(2.5) == "2.5"
    most = dealcheck.WORDS_MOST
    assert words_of("x" * most) == "x" * most
    cut = words_of("x" * (most + 1))
    assert cut == "x" * (most - 1) + "…" and len(cut) == most
