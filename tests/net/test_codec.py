"""net.protocol.codec: every view and event survives the trip to plain data and back,
and hostile plain data is refused with CodecError, never anything else."""

from __future__ import annotations

import contextlib
import dataclasses
import random
import sys
from typing import Any, Generic, TypeVar

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import Event, IllegalAction
from core.passpass.model import Play, RoundStarted
from core.registry import get_game
from net.protocol.codec import CodecError, _action_fields, _event_types, _view_type, codec_for
from net.protocol.text import clean_tree

TABLES = [
    ("passpass", {"players": 3}),
    ("passpass", {"players": 4, "teams": True}),
    ("passpass", {"players": 5}),
    ("dominoes", {"players": 2}),
    ("dominoes", {"players": 4, "teams": True}),
    ("fashion", {"players": 2}),
    ("fashion", {"players": 8}),
]


@pytest.mark.parametrize(("game_id", "options"), TABLES)
def test_views_and_events_round_trip(game_id: str, options: dict[str, Any]) -> None:
    game = get_game(game_id)
    codec = codec_for(game)
    checked = 0
    for seed in range(3):
        state = game.new_game(game.make_config(**options), seed)
        rng = random.Random(seed)
        events: list[Event] = list(state.opening_events)
        while not state.is_over:
            seat = rng.choice(state.to_act)
            events.extend(state.apply(seat, rng.choice(state.legal_actions(seat))))
            viewer = rng.choice([*range(state.players), None])
            view = state.view(viewer)
            assert codec.decode_view(codec.encode_view(view)) == view
            checked += 1
        for event in events:
            for viewer in (*range(state.players), None):
                shown = event.for_seat(viewer)
                if shown is not None:
                    assert codec.decode_event(codec.encode_event(shown)) == shown
    assert checked > 50


def test_every_event_class_is_known() -> None:
    """The codec finds each game's events by looking; a game whose events it
    could not see would fail here, not on the wire."""
    for game_id, names in {
        "passpass": {"CardPlayed", "TrickResolved", "RoundScored", "GameEnded"},
        "dominoes": {"Placed", "Drew", "Passed", "RoundEnded"},
        "fashion": {"BidPlaced", "BidsRevealed", "RuleChanged", "GameEnded"},
    }.items():
        assert names <= set(codec_for(get_game(game_id)).event_types)


def _sample_view_data(game_id: str) -> dict[str, Any]:
    game = get_game(game_id)
    state = game.new_game(game.make_config(players=game.info.min_players), 1)
    return codec_for(game).encode_view(state.view(0))


@pytest.mark.parametrize("game_id", ["passpass", "dominoes", "fashion"])
def test_hostile_views_are_refused(game_id: str) -> None:
    codec = codec_for(get_game(game_id))
    good = _sample_view_data(game_id)
    bad_cases: list[Any] = [
        None,
        3,
        "view",
        [],
        {**good, "surprise": 1},
        {k: v for k, v in good.items() if k != "hand"},
        {**good, "players": "four"},
        {**good, "players": True},
        {**good, "legal": ["not an action"]},
        {**good, "legal": [{"card": 3}]},
        {**good, "hand": "all of them"},
        {**good, "game": "chess"},
        {**good, "to_act": [None]},
    ]
    for data in bad_cases:
        with pytest.raises(CodecError):
            codec.decode_view(data)


plain_data = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)  # what msgpack can carry
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
# Everything else msgpack carries: floats (nan too), bytes, and maps keyed by
# numbers, bytes or arrays (decoded to tuples: hashable).
msgpack_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.binary(max_size=4)
    | st.text(max_size=8)
)
msgpack_keys = st.recursive(
    msgpack_scalars, lambda children: st.lists(children, max_size=3).map(tuple), max_leaves=4
)
msgpack_data = st.recursive(
    msgpack_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(msgpack_keys, children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(data=plain_data, game_id=st.sampled_from(["passpass", "dominoes", "fashion"]))
def test_random_data_never_crashes_the_decoder(data: Any, game_id: str) -> None:
    codec = codec_for(get_game(game_id))
    for decode in (codec.decode_view, codec.decode_event):
        with contextlib.suppress(CodecError):
            decode(data)


@settings(max_examples=300, deadline=None)
@given(
    data=msgpack_data,
    top=st.dictionaries(st.text(max_size=8), msgpack_data, max_size=4),
    game_id=st.sampled_from(["passpass", "dominoes", "fashion"]),
)
def test_anything_msgpack_carries_is_cleaned_and_decoded_or_refused(
    data: Any, top: dict[str, Any], game_id: str
) -> None:
    """What a peer does with a view or an event as it arrives (net/peer/
    remote.py): decoded from msgpack, its text cleaned, then decoded by the
    game's codec, with a CodecError the only refusal (a map keyed by an
    array was a TypeError: found by mutation testing, 5 December)."""
    codec = codec_for(get_game(game_id))
    for value in (data, top, {**_sample_view_data(game_id), **top}):
        arrived = clean_tree(msgspec.msgpack.decode(msgspec.msgpack.encode(value)))
        for decode in (codec.decode_view, codec.decode_event):
            with contextlib.suppress(CodecError):
                decode(arrived)


@settings(max_examples=200, deadline=None)
@given(field=st.sampled_from(["hand", "legal", "to_act", "result", "seat"]), value=plain_data)
def test_one_bad_field_is_refused(field: str, value: Any) -> None:
    codec = codec_for(get_game("passpass"))
    data = {**_sample_view_data("passpass"), field: value}
    try:
        view = codec.decode_view(data)
    except CodecError:
        return
    # Accepted only when the value really is valid: it encodes back the same.
    # (tuples and lists alike, as msgpack sees them)
    assert msgspec.msgpack.encode(codec.encode_view(view)[field]) == msgspec.msgpack.encode(value)


# -- the shapes the codec reads, and what each refusal says. Found by
# `make mutation` (docs/testing.md): no game has an action field that is not
# a tuple of actions, so mutants of those branches survived the tests above.


class Holder:
    """Not a dataclass: the codec does not look inside (msgspec would not)."""

    inner: Play


@dataclasses.dataclass(frozen=True)
class Shapes:
    one: Play
    maybe: Play | None
    many: tuple[Play, ...]
    maybe_many: tuple[Play, ...] | None
    number: int
    pair: tuple[int, int]
    either: int | str
    holder: Holder


@dataclasses.dataclass(frozen=True)
class InAList:
    deep: list[Play]


@dataclasses.dataclass(frozen=True)
class InAPair:
    deep: tuple[Play, int]


@dataclasses.dataclass(frozen=True)
class InAnother:
    deep: InAList


@dataclasses.dataclass(frozen=True)
class OrAnother:
    deep: int | Play


@dataclasses.dataclass(frozen=True)
class OrMany:
    deep: tuple[Play, ...] | int


def test_action_fields_are_found_at_the_top_level_only() -> None:
    assert _action_fields(Shapes) == (
        ("one", False),
        ("maybe", False),
        ("many", True),
        ("maybe_many", True),
    )
    for cls in (InAList, InAPair, InAnother, OrAnother, OrMany):
        with pytest.raises(TypeError, match=rf"^{cls.__name__}\.deep: actions only at the top"):
            _action_fields(cls)


def test_every_event_class_of_a_game_and_only_those() -> None:
    """The codec's events are exactly the Event classes the game's modules
    define (found another way here: by the modules' names)."""
    for game_id in ("passpass", "dominoes", "fashion"):
        codec = codec_for(get_game(game_id))  # the game's modules imported
        package = f"core.{game_id}"
        defined = {
            name
            for module_name, module in list(sys.modules.items())
            if module_name.startswith(package + ".")
            for name, value in vars(module).items()
            if isinstance(value, type)
            and issubclass(value, Event)
            and value.__module__ == module_name
        }
        assert set(codec.event_types) == defined != set()
        assert codec.view_type.__module__ == f"{package}.state"


def test_each_refusal_says_what_is_wrong() -> None:
    game = get_game("passpass")
    codec = codec_for(game)
    view = _sample_view_data("passpass")
    started = codec.encode_event(RoundStarted(1, 0))

    def refused(decode: Any, data: Any) -> str:
        with pytest.raises(CodecError) as error:
            decode(data)
        return str(error.value)

    assert refused(codec.decode_view, [1]) == "a PassPassView must be a map of its fields"
    assert refused(codec.decode_view, {**view, "surprise": 1}) == (
        "a PassPassView with fields it does not have"
    )
    dominoes = _sample_view_data("dominoes")
    assert "expected a PassPassView" not in refused(codec.decode_view, dominoes)
    assert refused(codec.decode_view, {**view, "game": "dominoes"}) == (
        "a view of 'dominoes', expected 'passpass'"
    )
    for shape in ("RoundStarted", ["RoundStarted"], [1, {}], ["RoundStarted", {}, 3]):
        assert refused(codec.decode_event, shape) == "an event must be [type name, fields]"
    assert refused(codec.decode_event, ["Nope" * 20, {}]) == (
        f"passpass has no event {('Nope' * 20)[:40]!r}"
    )
    assert codec.decode_event(started) == RoundStarted(1, 0)
    assert refused(codec.decode_event, [started[0], [1, 0]]) == (
        "a RoundStarted must be a map of its fields"
    )
    legal = view["legal"][0]
    for bad, words in [
        (3, "an action must be its notation, as text"),
        (legal + " " * 200, "an action must be its notation, as text"),
        ("zz", game_reason(game, "zz")),
    ]:
        reason = refused(codec.decode_view, {**view, "legal": [legal, bad]})
        assert reason.startswith("PassPassView: ") and words in reason, (bad, reason)
        assert len(reason) <= len("PassPassView: ") + 300
    # Found by make mutation: the words were matched inside the reason (a
    # word added around them passed), and the notation's length bound (200
    # characters) was not tried at its edge.
    at_the_edge, past_it = "z" * 200, "z" * 201
    for bad, words in [
        (3, "an action must be its notation, as text"),
        (past_it, "an action must be its notation, as text"),
        (at_the_edge, game_reason(game, at_the_edge)),
    ]:
        reason = refused(codec.decode_view, {**view, "legal": [legal, bad]})
        assert reason == f"PassPassView: {words} - at `$.legal[1]`"[: len("PassPassView: ") + 300]


def game_reason(game: Any, text: str) -> str:
    with pytest.raises(IllegalAction) as error:
        game.parse_action(text)
    return str(error.value.reason)


A = TypeVar("A")
B = TypeVar("B")


class Two(Generic[A, B]):
    id = "fake"


class PlainState:
    pass


class TwoArgState(Two[int, str]):
    pass


class PlainGame(Two[int, PlainState]):
    pass


class PairGame(Two[int, TwoArgState]):
    pass


@pytest.mark.parametrize(
    "game",
    [
        type("NotGeneric", (), {"id": "fake"})(),  # no generic bases at all
        Two(),  # no generic bases of its own
        PlainGame(),  # a state without generic bases
        PairGame(),  # a state of two arguments
    ],
    ids=["not-generic", "no-bases", "plain-state", "two-argument-state"],
)
def test_a_game_whose_view_type_cannot_be_read_is_refused_in_words(game: Any) -> None:
    with pytest.raises(TypeError) as refused:
        _view_type(game)
    assert str(refused.value) == "cannot find the view type of fake"


def test_a_game_with_two_events_of_one_name_is_refused() -> None:
    """Events travel by class name: two of one name in a game's package
    could not be told apart."""
    import types

    for number in (1, 2):
        module = types.ModuleType(f"tests.net.twins.events{number}")
        module.Twin = type("Twin", (Event,), {"__module__": module.__name__})  # type: ignore[attr-defined]
        sys.modules[module.__name__] = module
    game = type("TwinGame", (), {"__module__": "tests.net.twins.game", "id": "twins"})()
    try:
        with pytest.raises(TypeError) as refused:
            _event_types(game)
        assert str(refused.value) == "twins has two events named ['Twin']"
    finally:
        for number in (1, 2):
            del sys.modules[f"tests.net.twins.events{number}"]


@dataclasses.dataclass(frozen=True)
class NoneFirst:
    maybe: Play | None
    many: tuple[Play, ...]


def test_an_action_field_left_empty_does_not_stop_the_next_from_being_written() -> None:
    """Found by make mutation: ``break`` for ``continue`` after an empty
    optional action field passed, as no game has one before another."""
    game = get_game("passpass")
    codec = codec_for(game)
    play = game.parse_action("V10")
    assert isinstance(play, Play)
    codec._action_fields[NoneFirst] = _action_fields(NoneFirst)
    try:
        assert codec._encode(NoneFirst(None, (play,))) == {"maybe": None, "many": ["V10"]}
        assert codec._encode(NoneFirst(play, ())) == {"maybe": "V10", "many": []}
    finally:
        del codec._action_fields[NoneFirst]  # the codec is shared (codec_for's cache)


def test_an_action_of_another_kind_or_a_type_the_codec_does_not_know() -> None:
    """A field typed with one kind of action refuses a notation of another
    kind, in words; a type that is neither an action nor one msgspec reads
    is a programming error, raised as such (found by make mutation: no game
    has either, so the words and the test for an action type passed)."""
    from core.dominoes.model import Place

    dominoes = codec_for(get_game("dominoes"))
    with pytest.raises(ValueError) as refused:
        dominoes._dec_hook(Place, "draw")
    assert str(refused.value) == "'draw' is not a Place"
    passpass = codec_for(get_game("passpass"))
    with pytest.raises(NotImplementedError) as unknown:
        passpass._decode({"inner": "V10"}, Holder)
    assert str(unknown.value) == f"cannot decode {Holder!r}"


def test_a_number_sent_as_text_is_refused_as_such() -> None:
    """Strict decoding: "3" where a number is expected is refused by msgspec
    with its reason, not converted and caught later as a field the view does
    not have (found by make mutation: ``strict=True`` removed passed)."""
    codec = codec_for(get_game("passpass"))
    view = _sample_view_data("passpass")
    name = next(
        key for key, value in view.items() if isinstance(value, int) and not isinstance(value, bool)
    )
    with pytest.raises(CodecError) as refused:
        codec.decode_view({**view, name: str(view[name])})
    reason = str(refused.value)  # `int` or `int | null`, as the field is typed
    assert reason.startswith("PassPassView: Expected `int"), reason
    assert reason.endswith(f"`, got `str` - at `$.{name}`"), reason


def test_a_games_codec_is_built_once() -> None:
    """Building one reads every event class and type hint of the game: it is
    done once per game, then shared (found by make mutation: a cache never
    read passed)."""
    for game_id in ("passpass", "dominoes", "fashion"):
        assert codec_for(get_game(game_id)) is codec_for(get_game(game_id))
    assert codec_for(get_game("passpass")) is not codec_for(get_game("dominoes"))
