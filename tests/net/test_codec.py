"""net.codec: every view and event survives the trip to plain data and back,
and hostile plain data is refused with CodecError, never anything else."""

from __future__ import annotations

import contextlib
import random
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import Event
from core.registry import get_game
from net.codec import CodecError, codec_for

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


@settings(max_examples=300, deadline=None)
@given(data=plain_data, game_id=st.sampled_from(["passpass", "dominoes", "fashion"]))
def test_random_data_never_crashes_the_decoder(data: Any, game_id: str) -> None:
    codec = codec_for(get_game(game_id))
    for decode in (codec.decode_view, codec.decode_event):
        with contextlib.suppress(CodecError):
            decode(data)


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
