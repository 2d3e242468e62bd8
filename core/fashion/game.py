"""The Passe fashion game description, found through core.registry."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import ClassVar

from core.engine import Bot, Config, Game, GameInfo, RandomBot
from core.fashion.bots import EasyBot, ExpertBot, HardBot, HeuristicBot, NormalBot
from core.fashion.model import FashionAction, parse_action
from core.fashion.state import FashionConfig, FashionState
from core.registry import game_info


class FashionGame(Game[FashionConfig, FashionState]):
    info: ClassVar[GameInfo] = game_info("fashion")
    config_type: ClassVar[type[Config]] = FashionConfig
    bots: ClassVar[Mapping[str, type[Bot]]] = {
        "random": RandomBot,
        "easy": EasyBot,
        "normal": NormalBot,
        "hard": HardBot,
        "expert": ExpertBot,
        # The name of "normal" before the levels: saved games and scripts use it.
        "heuristic": HeuristicBot,
    }

    def new_game(self, config: FashionConfig, seed: int) -> FashionState:
        return FashionState(config, seed)

    def parse_action(self, text: str) -> FashionAction:
        return parse_action(text)

    def rules_text(self) -> str:
        return resources.files("core.fashion").joinpath("rules.md").read_text(encoding="utf-8")


GAME = FashionGame()
