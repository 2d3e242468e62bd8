"""The Pass Pass game description, as the registry exposes it."""

from __future__ import annotations

from collections.abc import Mapping
from importlib.resources import files
from types import MappingProxyType
from typing import ClassVar

from core.engine import Action, Bot, Game, RandomBot
from core.passpass.bots import EasyBot, ExpertBot, HardBot, HeuristicBot, NormalBot
from core.passpass.model import parse_action
from core.passpass.state import PassPassConfig, PassPassState
from core.registry import game_info


class PassPassGame(Game[PassPassConfig, PassPassState]):
    info = game_info("passpass")
    config_type = PassPassConfig
    bots: ClassVar[Mapping[str, type[Bot]]] = MappingProxyType(
        {
            "random": RandomBot,
            "easy": EasyBot,
            "normal": NormalBot,
            "hard": HardBot,
            "expert": ExpertBot,
            # The name of "normal" before the levels: saved games and scripts use it.
            "heuristic": HeuristicBot,
        }
    )

    def new_game(self, config: PassPassConfig, seed: int) -> PassPassState:
        return PassPassState(config, seed)

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def rules_text(self) -> str:
        return files("core.passpass").joinpath("rules.md").read_text(encoding="utf-8")


GAME = PassPassGame()
