"""Fashion search bots decide from their view alone."""

from __future__ import annotations

import random

from core.engine import AnyState
from core.fashion import GAME, FashionConfig
from core.fashion.bots import ROLLOUT_MISTAKES, ExpertBot, HardBot, HeuristicBot
from core.fashion.model import FashionAction
from core.fashion.state import FashionState
from core.search import MAX_ARMS, heuristic_policy
from tests.core.sampler_checks import random_positions
from tests.core.search_checks import check_decides_from_view_only
from tests.engine_checks import examples
from tests.fashion.test_sampler import CONFIGS


def reshuffle(state: AnyState, seat: int, rng: random.Random) -> bool:
    """Swap the cards of other hands that no one has seen (not publicly
    known, not a pending bid) with each other and, before the deck was
    remade, with the deck; True if the hidden cards changed."""
    assert isinstance(state, FashionState)
    slots: list[tuple[list[int], int]] = []
    for other, hand in enumerate(state.hands):
        if other == seat:
            continue
        for index, card in enumerate(hand):
            if card not in state.known[other] and card != state.bids[other]:
                slots.append((hand, index))
    if not state.exhaustions:
        slots.extend((state.deck, index) for index in range(len(state.deck)))
    before = [place[index] for place, index in slots]
    cards = list(before)
    rng.shuffle(cards)
    for (place, index), card in zip(slots, cards, strict=True):
        place[index] = card
    return cards != before


def test_search_bot_reads_only_its_view() -> None:
    check_decides_from_view_only("fashion", CONFIGS, reshuffle, 12, 5)


def test_the_rollout_policy_plays_the_heuristic_on_the_view() -> None:
    """The search's playouts read the state, not a view per move; they must
    still choose what heuristic_policy chooses on the view, and draw the same
    random numbers (the search reproduces decisions from a seed). Positions:
    games of the heuristic with a third of random moves (every phase, config
    and stage of the game)."""
    searcher = GAME.make_bot("hard", 0)
    assert isinstance(searcher, HardBot)
    heuristic = HeuristicBot()
    rng = random.Random(7)
    positions = examples(4500)
    while positions > 0:
        config = FashionConfig(**rng.choice(CONFIGS))  # type: ignore[arg-type]
        state = GAME.new_game(config, rng.randrange(2**32))
        assert isinstance(state, FashionState)
        while not state.is_over and positions > 0:
            positions -= 1
            actor = state.to_act[0]
            choice = heuristic.choose(state.view(actor))
            assert heuristic.choose_in_sample(state, actor) == choice, state.record()
            fast_rng, slow_rng = random.Random(positions), random.Random(positions)
            fast = searcher.rollout_policy(fast_rng)(state, actor)
            slow = heuristic_policy(heuristic, slow_rng, ROLLOUT_MISTAKES)(state, actor)
            assert fast == slow and fast_rng.getstate() == slow_rng.getstate(), state.record()
            if rng.random() < 0.3:
                choice = rng.choice(state.legal_actions(actor))
            assert isinstance(choice, FashionAction)
            state.apply(actor, choice)


def test_expert_searches_the_heuristics_best_ranked_moves() -> None:
    """Where a turn has more actions than the search takes (the rule changes,
    FA-13), ``expert`` searches the heuristic's choice and the next best by
    the heuristic's own gain, not a random share: every ranked action is
    legal and listed once, the heuristic's choice comes first, and the
    candidates are the head of that ranking."""
    expert = GAME.make_bot("expert", 0)
    assert isinstance(expert, ExpertBot)
    heuristic = HeuristicBot()
    rng = random.Random(5)
    crowded = 0
    for state in random_positions("fashion", CONFIGS, examples(600), 5):
        view = state.view(state.to_act[0])
        ranked = heuristic.ranked_actions(view)
        assert set(ranked) <= set(view.legal) and len(set(ranked)) == len(ranked)
        if view.phase != "action":  # few choices: the legal actions as they are
            assert ranked == list(view.legal) and len(ranked) <= MAX_ARMS
        else:
            assert ranked[0] == heuristic.choose(view)
        if len(view.legal) <= MAX_ARMS:
            assert expert.candidates(view, rng) == list(view.legal)
            continue
        crowded += 1
        assert expert.candidates(view, rng) == ranked[:MAX_ARMS]
    assert crowded >= examples(600) // 20  # rule-change turns were met


def test_expert_looks_to_the_end_of_the_next_round() -> None:
    """``hard`` plays out to the end of the round; ``expert`` to the end of
    the next one (or of the game)."""
    hard, expert = GAME.make_bot("hard", 0), GAME.make_bot("expert", 0)
    assert isinstance(hard, HardBot) and isinstance(expert, ExpertBot)
    rng = random.Random(4)
    for state in random_positions("fashion", CONFIGS, examples(300), 4):
        assert isinstance(state, FashionState)
        now = state.round
        assert hard.horizon(state) == now + 1 and expert.horizon(state) == now + 2
        stop = expert.horizon(state)
        while not state.is_over and expert.progress(state) < stop:
            actor = state.to_act[0]
            state.apply(actor, rng.choice(state.legal_actions(actor)))
        assert state.is_over or state.round == now + 2
