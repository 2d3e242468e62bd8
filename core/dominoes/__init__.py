"""Passe dominoes: a double-six game where passing is always allowed.

Rules: DO-1..DO-14 in ``rules.md`` (the shared specification's ids).
"""

from .game import GAME, DominoesGame
from .model import DRAW, PASS, TILES, Draw, Pass, Place, Tile, TrainTile, tile
from .state import DominoesConfig, DominoesState, DominoesView

__all__ = [
    "DRAW",
    "GAME",
    "PASS",
    "TILES",
    "DominoesConfig",
    "DominoesGame",
    "DominoesState",
    "DominoesView",
    "Draw",
    "Pass",
    "Place",
    "Tile",
    "TrainTile",
    "tile",
]
