"""docs/views.md kept true: its tables name, for each game, exactly the view
fields, the maps inside them and the event kinds and fields that the
authority puts on the wire, in that order, and each type column allows the
msgpack kinds seen there.

What is on the wire is read two ways: the views an in-process authority
(net/authority/authority.py) sends a seat and a watcher at the start, as
they decode from its sealed updates; and seeded games played through the
engine, each view and event encoded as the authority encodes them
(net/protocol/codec.py) and decoded from msgpack. The classes say the rest
(an event or a map no game happened to show)."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import random
import re
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from core.engine import Action, AnyGame, Event, View
from core.registry import game_ids, get_game
from net.identity import Identity
from net.protocol.codec import GameCodec, codec_for
from net.protocol.wire import Update, Watch
from tests.net.rooms_in_process import CODE, listen, presence, request, room, seated, sent

DOC = Path(__file__).resolve().parents[2] / "docs" / "views.md"

# The tables the doc marks: "<!-- table: GAME view -->", "<!-- table: GAME
# events -->", "<!-- table: GAME map NAME -->" (GAME "common": every game's).
MARKER = re.compile(r"<!-- table: (\w+) (view|events|map \w+) -->")
NAME = re.compile(r"`(\w+)`")
KINDS = ("int", "str", "bool", "nil", "list", "map")
# Seeded tables each game is played at: alone and, where it has them, in teams.
TABLES: dict[str, list[dict[str, Any]]] = {
    "passpass": [{"players": 3}, {"players": 4, "teams": True}],
    "dominoes": [{"players": 2}, {"players": 4, "teams": True}],
    "fashion": [{"players": 3}],
}


# -- what the doc says ---------------------------------------------------------


Row = tuple[str, str]  # a field's name and its type column


def tables(text: str) -> dict[str, list[list[str]]]:
    """Each marked table's rows (header and rule left out), cells stripped."""
    lines = text.splitlines()
    found: dict[str, list[list[str]]] = {}
    for number, line in enumerate(lines):
        marker = MARKER.fullmatch(line.strip())
        if marker is None:
            continue
        rows: list[list[str]] = []
        for below in lines[number + 1 :]:
            if not below.startswith("|"):
                break
            rows.append([cell.strip() for cell in below.strip().strip("|").split("|")])
        found[f"{marker[1]} {marker[2]}"] = rows[2:]
    return found


def name_of(cell: str) -> str:
    named = NAME.fullmatch(cell)
    return named[1] if named else f"?{cell}"


def field_rows(rows: list[list[str]]) -> list[Row]:
    """``| `field` | type | meaning |`` rows."""
    return [(name_of(row[0]), row[1]) for row in rows if len(row) >= 2]


def event_rows(rows: list[list[str]]) -> dict[str, list[Row]]:
    """``| `Event` | `field` | type | meaning |`` rows, an empty first cell
    going on with the event above."""
    events: dict[str, list[Row]] = {}
    current = "?"
    for row in rows:
        if len(row) < 3:
            continue
        if row[0]:
            current = name_of(row[0])
            events.setdefault(current, [])
        events.setdefault(current, []).append((name_of(row[1]), row[2]))
    return events


@dataclass
class Documented:
    """One game's tables: its view's fields (every view's first), its maps
    (with every view's), its events."""

    view: list[Row]
    maps: dict[str, list[Row]]
    events: dict[str, list[Row]]


def documented(text: str, game_id: str) -> tuple[Documented, list[str]]:
    found = tables(text)
    missing = [
        f"docs/views.md: no table {key!r}"
        for key in ("common view", f"{game_id} view", f"{game_id} events")
        if key not in found
    ]
    maps = {
        key.split()[-1]: field_rows(rows)
        for key, rows in found.items()
        if key.startswith((f"{game_id} map ", "common map "))
    }
    view = field_rows(found.get("common view", [])) + field_rows(found.get(f"{game_id} view", []))
    return Documented(view, maps, event_rows(found.get(f"{game_id} events", []))), missing


# -- what the code sends -------------------------------------------------------


@dataclass
class Sent:
    """One game's views and events as they go out, and its classes."""

    view_fields: list[str]  # the View class's fields
    seat_view: dict[str, Any]  # an authority's update to a seat, decoded
    watcher_view: dict[str, Any]  # and to a watcher
    maps: dict[str, list[str]]  # every map class a view or an event holds
    events: dict[str, list[str]]  # every event class
    keys: dict[str, set[tuple[str, ...]]] = field(default_factory=dict)  # per owner, as seen
    kinds: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (owner, field)


def kind(value: Any) -> str:
    """A decoded msgpack value's kind, in the doc's words."""
    if value is None:
        return "nil"
    for python, word in ((bool, "bool"), (int, "int"), (str, "str"), (list, "list"), (dict, "map")):
        if isinstance(value, python):
            return word
    return type(value).__name__  # not a kind the doc knows: fails


def owner(value: Any) -> str:
    if isinstance(value, View):
        return "view"
    if isinstance(value, Event):
        return f"event {type(value).__name__}"
    return f"map {type(value).__name__}"


def walk(value: Any, data: Any, into: Sent) -> None:
    """Note the keys and kinds of every map in ``data``, the wire's form of
    ``value``, by the engine's class each one is."""
    if isinstance(value, Action):
        return  # its notation: a str
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        assert isinstance(data, dict), (value, data)
        who = owner(value)
        into.keys.setdefault(who, set()).add(tuple(data))
        for name, item in data.items():
            into.kinds.setdefault((who, name), set()).add(kind(item))
            if hasattr(value, name):
                walk(getattr(value, name), item, into)
    elif isinstance(value, (tuple, list)) and isinstance(data, list):
        for part, item in zip(value, data, strict=False):
            walk(part, item, into)


def map_classes(hint: Any, found: dict[str, list[str]]) -> None:
    """Every dataclass (a map on the wire) that ``hint`` may hold."""
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if issubclass(hint, Action) or hint.__name__ in found:
            return
        found[hint.__name__] = [each.name for each in dataclasses.fields(hint)]
        for inner in typing.get_type_hints(hint).values():
            map_classes(inner, found)
        return
    for arg in typing.get_args(hint):
        map_classes(arg, found)


async def authority_views(game_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The views an authority sends a seat (0) and a watcher as its game
    starts, opened and decoded as each of them does."""
    players = get_game(game_id).info.min_players
    authority = room(game_id, players)
    ana, eve = Identity.generate(), Identity.generate()
    seated(authority, ana)
    for seat in range(1, players):
        authority.set_bot(seat, "random")
    presence(authority, eve, online=True)
    request(authority, eve, Watch(room=CODE, epoch=1, n=1))
    listen(authority)
    authority.start_game()
    assert authority.table is not None
    await authority.table.stop()
    first: dict[str, dict[str, Any]] = {}
    for who, message in sent(authority, ana, eve):
        if isinstance(message, Update):
            first.setdefault(who, message.view)
    return first[ana.peer_id], first[eve.peer_id]


def on_the_wire(codec: GameCodec, value: View | Event) -> Any:
    """``value`` encoded as the authority encodes it, then decoded."""
    if isinstance(value, Event):
        return msgspec.msgpack.decode(codec.encode_event_raw(value))
    return msgspec.msgpack.decode(msgspec.msgpack.encode(codec.encode_view(value)))


def play(game: AnyGame, codec: GameCodec, options: dict[str, Any], seed: int, into: Sent) -> None:
    """A seeded random game: every view (a seat's and a watcher's) and
    every event as each seat and a watcher see it, walked."""
    state = game.new_game(game.make_config(**options), seed)
    rng = random.Random(seed)
    events: list[Event] = list(state.opening_events)
    while True:
        for viewer in {*state.to_act[:1], None}:
            view = state.view(viewer)
            walk(view, on_the_wire(codec, view), into)
        for event in events:
            for viewer in (*range(state.players), None):
                shown = event.for_seat(viewer)
                if shown is not None:
                    name, data = on_the_wire(codec, shown)
                    assert name == type(shown).__name__
                    walk(shown, data, into)
        if state.is_over:
            return
        seat = rng.choice(state.to_act)
        events = list(state.apply(seat, rng.choice(state.legal_actions(seat))))


@functools.cache
def what_is_sent(game_id: str) -> Sent:
    game = get_game(game_id)
    codec = codec_for(game)
    seat_view, watcher_view = asyncio.run(authority_views(game_id))
    maps: dict[str, list[str]] = {}
    for cls in (codec.view_type, *codec.event_types.values()):
        for hint in typing.get_type_hints(cls).values():
            map_classes(hint, maps)
    sent_ = Sent(
        view_fields=[each.name for each in dataclasses.fields(codec.view_type)],
        seat_view=seat_view,
        watcher_view=watcher_view,
        maps=maps,
        events={
            name: [each.name for each in dataclasses.fields(cls)]
            for name, cls in codec.event_types.items()
        },
    )
    for options in TABLES[game_id]:
        for seed in (1, 2):
            play(game, codec, options, seed, sent_)
    return sent_


# -- the two compared ------------------------------------------------------------


def differ(what: str, doc: list[str], code: list[str]) -> list[str]:
    if doc == code:
        return []
    missing = [name for name in code if name not in doc]
    extra = [name for name in doc if name not in code]
    if missing or extra:
        return [f"{what}: the doc lacks {missing}, the code has no {extra}"]
    return [f"{what}: the doc's order {doc}, the code's {code}"]


def kinds_allowed(what: str, rows: list[Row], seen: dict[tuple[str, str], set[str]]) -> list[str]:
    found = []
    who = what.split(": ")[-1]
    for name, type_cell in rows:
        words = {word for word in KINDS if re.search(rf"\b{word}\b", type_cell)}
        unsaid = seen.get((who, name), set()) - words
        if unsaid:
            found.append(f"{what}.{name}: sent as {sorted(unsaid)}, its type says {type_cell!r}")
    return found


def problems(text: str, game_id: str) -> list[str]:
    """Where docs/views.md (its ``text``) and game ``game_id`` disagree."""
    doc, found = documented(text, game_id)
    wire = what_is_sent(game_id)
    view = [name for name, _ in doc.view]
    found += differ(f"{game_id} view (its class)", view, wire.view_fields)
    found += differ(f"{game_id} view sent to a seat", view, list(wire.seat_view))
    found += differ(f"{game_id} view sent to a watcher", view, list(wire.watcher_view))
    found += kinds_allowed(f"{game_id}: view", doc.view, wire.kinds)
    found += differ(f"{game_id} maps", sorted(doc.maps), sorted(wire.maps))
    found += differ(f"{game_id} events", sorted(doc.events), sorted(wire.events))
    owners = [("view", view)]
    for kind_of, said, classes in (
        ("map", doc.maps, wire.maps),
        ("event", doc.events, wire.events),
    ):
        for name in sorted(set(said) & set(classes)):
            names = [each for each, _ in said[name]]
            found += differ(f"{game_id} {kind_of} {name}", names, classes[name])
            found += kinds_allowed(f"{game_id}: {kind_of} {name}", said[name], wire.kinds)
            owners.append((f"{kind_of} {name}", names))
    for who, names in owners:
        for keys in sorted(wire.keys.get(who, set())):
            found += differ(f"{game_id} {who} as sent", names, list(keys))
    return found


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def test_the_doc_names_what_each_game_sends() -> None:
    text = doc_text()
    assert set(TABLES) == set(game_ids()), "a game to play here"
    assert [found for game_id in game_ids() for found in problems(text, game_id)] == []


def test_every_kind_of_map_and_event_was_seen_on_the_wire_but_a_few() -> None:
    """The seeded games show nearly everything as sent, not only as classes."""
    for game_id in game_ids():
        wire = what_is_sent(game_id)
        unseen = [
            who
            for who in [
                *(f"map {name}" for name in wire.maps),
                *(f"event {e}" for e in wire.events),
            ]
            if who not in wire.keys
        ]
        assert unseen in ([], ["event CollectionAnnounced"]), (game_id, unseen)


def test_a_watcher_s_view_holds_nothing_private() -> None:
    """docs/views.md section 4: seat nil, no hand, no legal actions."""
    for game_id in game_ids():
        wire = what_is_sent(game_id)
        assert wire.seat_view["seat"] == 0
        assert wire.watcher_view["seat"] is None
        assert wire.watcher_view["hand"] == [] and wire.watcher_view["legal"] == []
        assert wire.seat_view["hand"] != []


def test_a_changed_doc_fails() -> None:
    """The check has teeth: a field renamed, a row gone, an event renamed,
    a type that does not say what is sent."""
    text = doc_text()
    changes = {
        "dominoes": [
            ("| `boneyard` | int | tiles in the boneyard (DO-4) |", "| `bone_yard` | int | x |"),
            ("| `boneyard` | int | tiles in the boneyard (DO-4) |", "| `boneyard` | str | x |"),
            ("| `Drew` | `seat` |", "| `Drawn` | `seat` |"),
            ("| `low` | int | the lower half, 0-6 |\n", ""),
        ],
        "passpass": [
            ("| | `leader` | int | who leads its first trick |", "| | `lead` | int | x |"),
            ("| `seat` | int or nil |", "| `seat` | int |"),
        ],
        "fashion": [("| `deck_cards` |", "| `deck` |")],
    }
    for game_id, edits in changes.items():
        for old, new in edits:
            assert text.count(old) == 1, old
            assert problems(text.replace(old, new), game_id), (game_id, new)
