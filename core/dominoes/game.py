"""The Passe dominoes game description, found through :mod:`core.registry`."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import ClassVar

from core.engine import Bot, Game, RandomBot
from core.registry import game_info

from .bots import EasyBot, ExpertBot, HardBot, HeuristicBot, NormalBot
from .model import DominoAction, parse_action
from .state import DominoesConfig, DominoesState


class DominoesGame(Game[DominoesConfig, DominoesState]):
    """Passe dominoes (DO-1..DO-14)."""

    info = game_info("dominoes")
    config_type = DominoesConfig
    bots: ClassVar[Mapping[str, type[Bot]]] = {
        "random": RandomBot,
        "easy": EasyBot,
        "normal": NormalBot,
        "hard": HardBot,
        "expert": ExpertBot,
        # The name of "normal" before the levels: saved games and scripts use it.
        "heuristic": HeuristicBot,
    }

    def new_game(self, config: DominoesConfig, seed: int) -> DominoesState:
        return DominoesState(config, seed)

    def parse_action(self, text: str) -> DominoAction:
        return parse_action(text)

    def rules_text(self) -> str:
        return resources.files(__package__).joinpath("rules.md").read_text(encoding="utf-8")


GAME = DominoesGame()
