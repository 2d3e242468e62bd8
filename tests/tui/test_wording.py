"""Sentences of the table screens read right for the seat reading them:
"You lead", never "You leads" (the same helpers as the log)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from rich.console import Console

from core.passpass.model import Card, Colour
from core.passpass.state import PassPassView, TrickSummary
from tests.tui.conftest import SIZE, make_app, on_top, passpass_seed
from tui.games.passpass.table import PassPassTableScreen
from tui.games.passpass.trick import TrickView


async def test_you_lead_the_first_trick(private_config: Path) -> None:
    app = make_app(private_config, seed=passpass_seed(you_lead=True), bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        assert table.query_one(TrickView).summary == "You lead the first trick."
        assert table.acts(0, "picks") == "You pick"
        assert table.acts(0, "is", start=False) == "you are"
        assert table.acts(1, "takes") == f"{table.names[1]} takes"


async def test_a_resolved_trick_says_who_got_each_card(private_config: Path) -> None:
    app = make_app(private_config, seed=passpass_seed(you_lead=True), bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        cards = [Card(Colour.VIOLET, v) for v in (3, 5, 7, 9)]
        res = TrickSummary(
            plays=tuple(enumerate(cards)),
            majority=Colour.VIOLET,
            strengths=((Colour.VIOLET, 24),),
            first_winner=0,
            second_winner=2,
            picked=cards[3],
            taken=(cards[0], cards[1]),
            discarded=(cards[2],),
        )
        tags = [table._went_to(res, card) for card in cards]
        # The whole name: the card row shortens it (with "…") only where it
        # has no room (a play-tester's "→Bru…" at 80 columns, 30 free).
        second = "→" + table.names[2]
        assert len(table.names[2]) > 4 and tags == [second, second, "out", "→you"]
        # The majority in plain words (PP-9/PP-10), not "V24", which reads like a card.
        assert table._majority_text(res) == "Violet wins (sum: violet 24)"
        assert table._resolved_text(res).startswith("Violet won. ")
        # Mid-sentence, after "1st:", "you" is not capitalised (a play-tester).
        from tui.games.passpass.table import PICK

        assert isinstance(table.view, PassPassView)
        picking = table._resolving_text(dataclasses.replace(table.view, phase=PICK), res)
        assert picking.endswith(f"1st: you pick a card; 2nd: {table.names[2]} takes two.")
        flipped = dataclasses.replace(res, first_winner=2, second_winner=0)
        picking = table._resolving_text(dataclasses.replace(table.view, phase=PICK), flipped)
        assert picking.endswith(f"1st: {table.names[2]} picks a card; 2nd: you take two.")


async def test_long_names_are_shortened_with_an_ellipsis_only_where_they_do_not_fit(
    private_config: Path,
) -> None:
    from tests.tui.conftest import write_settings
    from tui.games.passpass.trick import TrickView
    from tui.widgets.fit import fit

    assert fit("Dmitri", 5) == "Dmit…" and fit("Ada", 5) == "Ada" and fit("Ema", 3) == "Ema"
    write_settings(private_config, name="Dmitrievna")
    app = make_app(private_config, seed=passpass_seed(you_lead=True), bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("1")  # your card goes to the trick, under your name
        await pilot.pause()
        # A card is five columns, the trick's row forty-seven: the name is
        # whole over it (shortened names: tests/tui/test_passpass_trick.py).
        above = app.screen.query_one(TrickView).render_cards()[0].plain
        assert "Dmitrievna" in above and "…" not in above


async def test_tied_cards_read_plainly(private_config: Path) -> None:
    app = make_app(private_config, seed=passpass_seed(you_lead=True), bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        view = table.pp_view
        assert view is not None
        none = next(v for v in range(1, 13) if view.diamonds[v - 1] == 0)
        one = next(v for v in range(1, 13) if view.diamonds[v - 1] == 1)
        assert table._card_label(view, Card(Colour.VIOLET, none)) == f"V{none} (no ◆)"
        assert table._card_label(view, Card(Colour.BLUE, one)) == f"B{one} ◆"
        body = str(table._take_body(view))
        assert "·" not in body and "and\n" not in body


def test_digit_ranges_read_right_for_one_item() -> None:
    from tui.screens.table import number_keys

    assert number_keys(1) == "1"
    assert number_keys(6) == "1-6"
    assert number_keys(12) == "1-9"
    assert number_keys(10, "1234567890") == "1-0"


async def test_home_lists_no_developer_status(private_config: Path) -> None:
    from tui.screens.home import HomeScreen

    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        home = app.screen
        assert isinstance(home, HomeScreen)
        text = str(home.query_one("#games").render())
        assert "ready" not in text
        # Every game is playable now: nothing is listed as coming.
        assert all(entry.playable for entry in home.entries) and text.strip() == ""


@pytest.mark.long
async def test_the_last_trick_can_be_seen_again_and_the_newest_card_is_marked(
    private_config: Path,
) -> None:
    from tui.games.passpass.trick import TrickView
    from tui.screens.info import InfoScreen

    app = make_app(private_config, seed=passpass_seed(you_lead=True), bot_delay=30)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        assert not table.check_action("last_trick", ())  # no trick yet: t is not offered
        trick = table.query_one(TrickView)
        authority = table.client.table  # type: ignore[attr-defined]
        await pilot.press("1")  # you lead
        await pilot.pause()
        assert trick.render_cards()[3].plain.split() == ["new"]
        authority.step_bot()  # Ada follows: now her card is the newest
        await pilot.pause()
        assert trick.render_cards()[3].plain.split() == ["new"]
        assert trick.items[-1].below == "new" and trick.items[0].below == ""
        for _ in range(50):  # the bots (moved by hand) and you, until the trick is done
            if table.last_trick is not None:
                break
            view = table.pp_view
            assert view is not None
            if on_top(app) is not table:
                await pilot.press("1")  # a tie choice: the first option
            elif view.seat in view.to_act:
                await pilot.press("1" if view.phase in ("play", "pick") else "c")
            else:
                authority.step_bot()
            await pilot.pause()
        res = table.last_trick
        assert res is not None
        await pilot.press("t")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, InfoScreen) and dialog.info_title == "The last trick"
        text = Console(width=70, record=True, color_system=None)
        text.print(dialog.body)
        shown = text.export_text()
        for _, card in res.plays:
            assert str(card) in shown
        assert "1st winner's pick" in shown and "wins (sum" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is table


def test_the_game_over_line_agrees_with_you() -> None:
    from core.engine import Names
    from core.passpass.model import GameEnded

    names = Names(["Me", "Ada", "Bo"], you=0)
    assert GameEnded((0,), "most points").describe(names) == "Game over: you win (most points)."
    assert GameEnded((1,), "most points").describe(names) == "Game over: Ada wins (most points)."
    assert GameEnded((0, 2), "a tie").describe(names) == "Game over: you and Bo win (a tie)."


def test_choosing_who_plays_reads_well_when_the_winner_picks_themselves() -> None:
    from core.engine import Names
    from core.fashion.model import PlayerChosen

    names = Names(["Me", "Ada", "Bo"], you=0)
    # FA-9: the auction's winner may choose any designer still to play, themselves included.
    assert PlayerChosen(0, 0, False).describe(names) == "You choose to play next."
    assert PlayerChosen(1, 1, False).describe(names) == "Ada chooses to play next."
    assert PlayerChosen(1, 0, False).describe(names) == "Ada chooses you to play."
    assert PlayerChosen(0, 2, False).describe(names) == "You choose Bo to play."
    assert PlayerChosen(1, 2, True).describe(names) == "Bo plays next (the only one left)."


def test_what_a_bot_did_for_you_reads_your_bot_in_the_third_person() -> None:
    """A networked table's stand-in played for you while you were away:
    those events read "your bot", its verbs in the third person (a play-test
    read "You play Y5" of the bot's move, 5 December)."""
    from core.engine import Names, possessive
    from core.fashion.model import PlayerChosen
    from core.passpass.model import GameEnded

    names = Names(["Me", "Ada", "Bo"], stand_in=0)
    assert names.you is None and names[0] == "your bot" and names[1] == "Ada"
    assert possessive(names, 0) == "your bot's"
    assert PlayerChosen(0, 0, False).describe(names) == "Your bot chooses to play next."
    assert PlayerChosen(1, 0, False).describe(names) == "Ada chooses your bot to play."
    assert PlayerChosen(0, 2, False).describe(names) == "Your bot chooses Bo to play."
    ended = GameEnded((0,), "most points").describe(names)
    assert ended == "Game over: your bot wins (most points)."


def test_a_pass_pass_checked_is_a_sentence_of_its_own() -> None:
    """The engine's line (a replay's log, ``passe replay --step``) read
    "Pass Pass! you check one" (a play-test): after "!", a new sentence."""
    from core.engine import Names
    from core.passpass.model import PassPassChecked

    names = Names(["Me", "Ada", "Bo"], you=0)
    assert PassPassChecked(0, 1, 2).describe(names) == "Pass Pass! You check one (2 in all)."
    assert PassPassChecked(1, 1, 1).describe(names) == "Pass Pass! Ada checks one (1 in all)."
    bot = Names(["Me", "Ada"], stand_in=0)
    assert PassPassChecked(0, 1, 1).describe(bot) == "Pass Pass! Your bot checks one (1 in all)."
