"""Hand-built Passe dominoes positions for the tests."""

from __future__ import annotations

from core.dominoes import DominoesConfig, DominoesState, Tile
from core.dominoes.model import TILES, parse_action
from core.engine import Event

REST = "rest"  # a hand given as REST gets every tile not placed elsewhere


def tiles(text: str) -> list[Tile]:
    """``"1-2 3-4"`` -> the tiles, low half first."""
    out = []
    for word in text.split():
        action = parse_action(word)
        assert hasattr(action, "tile"), word
        out.append(action.tile)
    return out


def rig(
    hands: list[str],
    *,
    train: str = "",
    boneyard: str | None = None,
    teams: bool = False,
    target: int | None = None,
    leader: int = 0,
    turn: int | None = None,
    scores: list[int] | None = None,
) -> DominoesState:
    """A position via :meth:`DominoesState.from_position`. One hand may be
    ``REST``: it receives every tile not in another hand, the train or the
    given boneyard (then the boneyard must be given)."""
    config = DominoesConfig(players=len(hands), teams=teams, target=target)
    placed = [parse_action(word) for word in train.split()]
    used = {t for hand in hands if hand != REST for t in tiles(hand)}
    used |= {p.tile for p in placed if hasattr(p, "tile")}
    if boneyard is not None:
        used |= set(tiles(boneyard))
    rest = [t for t in TILES if t not in used]
    built = [rest if hand == REST else tiles(hand) for hand in hands]
    return DominoesState.from_position(
        config,
        hands=built,
        train=train.split(),
        boneyard=None if boneyard is None else tiles(boneyard),
        leader=leader,
        turn=turn,
        scores=scores,
    )


def play(state: DominoesState, *moves: str) -> list[Event]:
    """Apply each notation for the seat in turn; return all events."""
    events: list[Event] = []
    for move in moves:
        (seat,) = state.to_act
        events.extend(state.apply(seat, parse_action(move)))
    return events
