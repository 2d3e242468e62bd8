"""Pass Pass: the trick-taking card game of majority colours (PP-1..PP-25)."""

from core.passpass.game import GAME, PassPassGame
from core.passpass.model import CARDS, Card, Colour, Pick, Play, Represent, Take
from core.passpass.state import PassPassConfig, PassPassState, PassPassView, Phase

__all__ = [
    "CARDS",
    "GAME",
    "Card",
    "Colour",
    "PassPassConfig",
    "PassPassGame",
    "PassPassState",
    "PassPassView",
    "Phase",
    "Pick",
    "Play",
    "Represent",
    "Take",
]
