"""The fair deal, checked for real (issue 20; docs/protocol.md section 5,
"The deal, checked for real").

The seed's commitment proves the deal was fixed before the first move; it
does not prove that the authority *played* that deal. So a peer keeps what
it was shown during the game (:class:`ShownLog`: each view it received, at
the move it was for, and how many events of its log came from the
authority), and at the end replays the revealed record step by step through
the engine (:func:`check_shown`): at each move it compares the view a
faithful authority would have sent this seat with every view the seat
received for that move, and the events this seat may see with the events it
received, and names the first mismatch in words.

A peer compares only what it received: views lost on the way, or sent
before it (re)joined, are counted and said ("in part"), never guessed.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from core.engine import (
    Action,
    AnyGame,
    ConfigError,
    Event,
    GameRecord,
    IllegalAction,
    Piece,
    View,
    seat_name,
)
from net.protocol.codec import CodecError, GameCodec
from net.protocol.text import clean_tree

# The most bytes of received views kept whole (a long game of dominoes to a
# high target is ~1000 moves of ~1.5 KiB views): past it, a view is kept as
# its digest alone, which still catches a mismatch but cannot say what it
# was. Memory stays bounded by 32 bytes per move beyond it.
VIEW_BYTES_KEPT = 4 * 1024 * 1024
# Distinct views kept for one seq: a faithful authority sends one (the
# state after that many moves), so a second already proves a lie; more are
# not kept (a flood of them would only take memory).
SAME_SEQ_KEPT = 2
# The longest value quoted in a mismatch (a whole hand, a train of tiles).
WORDS_MOST = 120
# Seconds a peer waits, after its last view, for the final room state that
# reveals the record before it says the deal is not checked (yet).
DEAL_CHECK_WAIT = 10.0

# Maps with sorted keys: equal data, equal bytes (as net/protocol/codec.py compares).
_canonical = msgspec.msgpack.Encoder(order="sorted")
_plain = msgspec.msgpack.Decoder()


@dataclass(slots=True)
class _Shown:
    """One view received: the move it was for, its digest, and its bytes
    (canonical msgpack of the cleaned view data) while within the budget."""

    seq: int
    digest: bytes
    data: bytes | None


@dataclass
class ShownLog:
    """What one seat was shown during a game, to check at the end."""

    views: list[_Shown] = field(default_factory=list)
    kept_bytes: int = 0
    events: int = 0  # how many events of the seat's log came from the authority

    def saw_view(self, seq: int, view_data: Any) -> None:
        """A view (as decoded from the wire and cleaned) received for move
        ``seq``. The same view again for the same move (an update's pages, a
        Sync's answer) is kept once."""
        data = _canonical.encode(view_data)
        digest = hashlib.sha256(data).digest()
        # Accepted updates never go back in seq (net/peer/remote.py): the views
        # kept for this seq are the last ones.
        same = [shown for shown in self.views[-SAME_SEQ_KEPT:] if shown.seq == seq]
        if any(shown.digest == digest for shown in same) or len(same) >= SAME_SEQ_KEPT:
            return
        keep = self.kept_bytes + len(data) <= VIEW_BYTES_KEPT
        if keep:
            self.kept_bytes += len(data)
        self.views.append(_Shown(seq, digest, data if keep else None))

    def saw_events(self, total: int) -> None:
        """The seat's log now holds ``total`` events received from the authority."""
        self.events = max(self.events, total)


@dataclass(frozen=True)
class DealVerdict:
    """The check's outcome: ``ok``, and one line for a person."""

    ok: bool
    text: str
    moves: int = 0  # in the revealed record
    views_compared: int = 0  # moments (the deal, after each move) compared
    events_compared: int = 0
    complete: bool = False  # a view at every moment and every event compared


def check_shown(
    game: AnyGame,
    codec: GameCodec,
    record: GameRecord,
    seat: int | None,
    shown: ShownLog,
    log: Sequence[Event],
    names: Sequence[str],
) -> DealVerdict:
    """Replay ``record`` move by move and compare, for ``seat``, every view
    in ``shown`` and the first ``shown.events`` events of ``log`` with what a
    faithful authority would have sent; the first mismatch is named."""
    if record.game != game.id:
        return _failed("", f"the revealed record is of {record.game[:20]!r}, not {game.id}")
    try:
        state = game.new_game(game.config_from_data(record.config), record.seed)
    except ConfigError as error:
        return _failed("", f"the revealed record's settings are not valid ({error})")
    if seat is not None and not 0 <= seat < state.players:
        return _failed("", f"the revealed record has no seat {seat + 1}")
    by_seq: dict[int, list[_Shown]] = {}
    for view in shown.views:
        by_seq.setdefault(view.seq, []).append(view)
    moves = len(record.actions)
    received = min(shown.events, len(log))
    expected: list[tuple[int, Event]] = []  # (move, event as this seat may see it)

    def add_events(move: int, events: Sequence[Event]) -> None:
        expected.extend(
            (move, seen) for event in events if (seen := event.for_seat(seat)) is not None
        )

    add_events(0, state.opening_events)
    compared_events = 0
    for move in range(moves + 1):
        where = _where(move, record, names)
        if move > 0:
            actor, notation = record.actions[move - 1]
            try:
                add_events(move, state.apply(actor, game.parse_action(notation)))
            except IllegalAction as error:
                return _failed(where, f"that move does not replay on the revealed deal (“{error}”)")
        # The events this move made that the seat received, in order.
        while compared_events < min(received, len(expected)):
            event_move, faithful_event = expected[compared_events]
            if _event_data(codec, faithful_event) != _event_data(codec, log[compared_events]):
                return _failed(
                    _where(event_move, record, names),
                    f"you were shown “{_describe(log[compared_events], names)}” where the "
                    f"revealed deal has “{_describe(faithful_event, names)}”",
                )
            compared_events += 1
        faithful = state.view(seat)
        faithful_data = clean_tree(codec.encode_view(faithful))
        digest = hashlib.sha256(_canonical.encode(faithful_data)).digest()
        for view in by_seq.get(move, ()):
            if view.digest != digest:
                return _failed(where, _view_difference(codec, view, faithful, faithful_data))
    later = [seq for seq in by_seq if seq > moves or seq < 0]
    if later:
        return _failed(
            "",
            f"you were shown the table after move {max(later)}, "
            f"but the revealed record ends at move {moves}",
        )
    if received > len(expected):
        return _failed(
            "",
            f"you were shown {received} events, but the revealed deal makes only {len(expected)}",
        )
    if not state.is_over:
        return _failed(
            "", f"the revealed record does not finish the game (it ends at move {moves})"
        )
    moments = moves + 1
    compared_views = sum(1 for seq in by_seq if 0 <= seq <= moves)
    complete = compared_views == moments and received == len(expected)
    if complete:
        text = (
            f"Deal verified: all {moves} moves, replayed from the revealed deal, match "
            f"everything you were shown (every view and all {received} events)."
        )
    elif not by_seq and not received:
        text = (
            "Deal matched the host's commitment; this seat was shown nothing of the game "
            "to check it against."
        )
    else:
        first = min(by_seq) if by_seq else moves
        # Not "never reached you": a machine back after a crash was shown
        # the start of the game by the process that died (a play-tester
        # read that the moves it had played never reached it).
        text = (
            f"Deal verified for what this Passe was shown: your view at {compared_views} "
            f"of {moments} moments (from {_moment(first)} on) and {received} of "
            f"{len(expected)} events match the revealed deal; what it did not see came "
            "while it was not running or not connected."
        )
    return DealVerdict(True, text, moves, compared_views, received, complete)


def _failed(where: str, what: str) -> DealVerdict:
    return DealVerdict(False, f"Deal check FAILED{' ' + where if where else ''}: {what}.")


def _moment(move: int) -> str:
    return "the deal" if move == 0 else f"move {move}"


def _where(move: int, record: GameRecord, names: Sequence[str]) -> str:
    """``at the deal`` or ``after move 12 (Ana: V7)``."""
    if move == 0:
        return "at the deal"
    actor, notation = record.actions[move - 1]
    return f"after move {move} ({seat_name(names, actor)}: {notation[:40]})"


def _event_data(codec: GameCodec, event: Event) -> bytes:
    # A received event was cleaned before it was decoded (net/peer/remote.py):
    # the faithful one is cleaned alike, so an honest text is equal.
    return _canonical.encode(clean_tree(codec.encode_event(event)))


def _describe(event: Event, names: Sequence[str]) -> str:
    return _clip(event.describe(names))


def _view_difference(codec: GameCodec, shown: _Shown, faithful: View, faithful_data: Any) -> str:
    """The first field of the received view that differs from the faithful
    one, in words; the hand first (what a cheat changes)."""
    if shown.data is None:
        return "your view differed from the revealed deal's (its details were not kept)"
    shown_data = _plain.decode(shown.data)
    try:
        received = codec.decode_view(shown_data)
    except CodecError:  # it decoded when it came: not expected
        return "your view differed from the revealed deal's"
    names = [field.name for field in dataclasses.fields(faithful)]
    if "hand" in names:
        names.remove("hand")
        names.insert(0, "hand")
    for name in names:
        if not isinstance(shown_data, dict) or shown_data.get(name) == faithful_data.get(name):
            continue
        mine, theirs = getattr(received, name, None), getattr(faithful, name)
        if name == "hand":
            return _hand_difference(mine, theirs)
        label = f"your view's {name.replace('_', ' ')}"
        if (
            isinstance(mine, tuple)
            and isinstance(theirs, tuple)
            and len(mine) == len(theirs)
            and mine
        ):
            index = next(i for i, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a != b)
            label, mine, theirs = f"{label} (item {index + 1})", mine[index], theirs[index]
        return f"{label} showed {_words(mine)} where the revealed deal has {_words(theirs)}"
    return "your view differed from the revealed deal's"


def _hand_difference(mine: Any, theirs: Any) -> str:
    if not isinstance(mine, tuple) or not isinstance(theirs, tuple):
        return f"your hand showed {_words(mine)} where the revealed deal has {_words(theirs)}"
    extra = list((Counter(mine) - Counter(theirs)).elements())
    missing = list((Counter(theirs) - Counter(mine)).elements())
    if extra and missing:
        return f"your hand showed {_words(tuple(extra))} where the revealed deal has " + _words(
            tuple(missing)
        )
    if extra:
        return f"your hand showed {_words(tuple(extra))}, which the revealed deal does not give you"
    if missing:
        return f"your hand lacked {_words(tuple(missing))}, which the revealed deal gives you"
    return "your hand was shown in another order than the revealed deal's"


def _words(value: Any) -> str:
    """A value of a view in a few words: pieces and actions by their
    notation, tuples as lists, nothing as ``nothing``."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (Piece, Action, str, int)):
        return _clip(str(value))
    if isinstance(value, (tuple, list)):
        return _clip(", ".join(_words(item) for item in value) if value else "none")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = (
            f"{f.name.replace('_', ' ')} {_words(getattr(value, f.name))}"
            for f in dataclasses.fields(value)
        )
        return _clip("; ".join(parts))
    return _clip(str(value))


def _clip(text: str) -> str:
    return text if len(text) <= WORDS_MOST else text[: WORDS_MOST - 1] + "…"


__all__ = ["VIEW_BYTES_KEPT", "DealVerdict", "ShownLog", "check_shown"]
