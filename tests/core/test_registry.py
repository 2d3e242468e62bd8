"""The registry's static game facts agree with each engine."""

from __future__ import annotations

import pytest

from core.engine import ConfigError
from core.registry import game_ids, game_info, get_game
from tui.settings import BOT_LEVELS


@pytest.mark.parametrize("game_id", game_ids())
def test_menu_facts_agree_with_the_engine(game_id: str) -> None:
    game = get_game(game_id)
    info = game_info(game_id)
    assert game.info is info and info.id == game_id
    for players in range(1, 10):
        for teams in (False, True):
            try:
                game.make_config(players=players, teams=teams)
                accepted = True
            except ConfigError:
                accepted = False
            assert info.allows(players, teams) == accepted, (players, teams)
            if accepted:
                assert info.min_players <= players <= info.max_players


@pytest.mark.parametrize("game_id", game_ids())
def test_every_game_ships_the_bot_levels_the_menu_offers(game_id: str) -> None:
    assert set(BOT_LEVELS) <= set(get_game(game_id).bots)


def test_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="passpass, dominoes, fashion"):
        game_info("chess")
    with pytest.raises(ConfigError, match="unknown game 'chess'"):
        get_game("chess")


@pytest.mark.parametrize("game_id", game_ids())
def test_rules_text_marks_house_rules(game_id: str) -> None:
    text = get_game(game_id).rules_text()
    assert text.startswith("# ") and "House rule" in text
