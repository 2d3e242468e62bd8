"""Passe fashion: designers bid, take cards, announce collections and change
what is in fashion (rules: FA-1..FA-16 in rules.md)."""

from core.fashion.game import GAME, FashionGame
from core.fashion.state import FashionConfig, FashionState, FashionView

__all__ = ["GAME", "FashionConfig", "FashionGame", "FashionState", "FashionView"]
