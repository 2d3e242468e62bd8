"""The Passe fashion table: a game played through key presses only to its
end at 80x24 (continued from a save in round 4), every decision by keyboard
(bid FA-7, who plays FA-9, take two FA-10, collection FA-11, rule change
FA-13, end), selections explained before they are sent, keys at the wrong
moment explained, no hidden information reaching the screen, and snapshots
mid-game in the default and colour-blind themes."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Group
from rich.table import Table as RichTable
from textual.app import App
from textual.pilot import Pilot

from core.engine import Event, View
from core.fashion.bots import HeuristicBot
from core.fashion.model import (
    CARD_ATTRS,
    CODE,
    MUST,
    NUMBER,
    SYMBOL,
    VALUE_NAMES,
    BidPlaced,
    Collect,
    has_feature,
    parse_card,
)
from core.fashion.state import FashionConfig, FashionState, FashionView, collection_problem
from net.authority.table import Listener, SeatSpec, Table, TableUpdate
from net.peer.client import LocalClient, TableClient
from tests.tui.conftest import (
    SIZE,
    SpyApp,
    continue_game,
    footer_keys,
    help_fits,
    make_app,
    resize,
    save_when,
)
from themes import CARD_VARIABLES
from tui.app import PasseApp
from tui.games.fashion.card import SYMBOLS, slot_features
from tui.games.fashion.hand import FashionHand
from tui.games.fashion.table import FashionTableScreen
from tui.screens.choice import ChoiceScreen
from tui.screens.game_over import GameOverScreen
from tui.screens.home import HomeScreen
from tui.screens.round_end import RoundEndScreen
from tui.session import seat_names
from tui.widgets.chooser import Chooser
from tui.widgets.status_line import StatusLine

THEMES = ["passe", "passe-okabe-ito"]
CODES = set(CODE)


def notices(app: App[None]) -> list[str]:
    return [str(notification.message) for notification in app._notifications]


async def choose_fashion(pilot: Pilot[Any], players: int = 4) -> None:
    """On the home screen, by keys: the game chooser to Passe fashion, the
    player count to ``players``, then Enter."""
    app = pilot.app
    await pilot.pause()
    assert isinstance(app.screen, HomeScreen)
    game = app.screen.query_one("#game", Chooser)
    for _ in range(len(game.options)):
        if game.value == "fashion":
            break
        await pilot.press("right")
    assert game.value == "fashion"
    await pilot.press("down")  # to the player count
    count = app.screen.query_one("#players", Chooser)
    for _ in range(len(count.options)):
        if count.value == players:
            break
        await pilot.press("right")
    assert count.value == players
    await pilot.press("enter")
    await pilot.pause()


def my_view(screen: FashionTableScreen) -> FashionView | None:
    view = screen.fa_view
    if view is None or view.is_over or view.seat not in view.to_act:
        return None
    return view


async def move_hand_to(pilot: Pilot[Any], screen: FashionTableScreen, index: int) -> None:
    hand = screen.query_one(FashionHand)
    step = "down" if index > hand.cursor else "up"
    while hand.cursor != index:
        await pilot.press(step)


class Tally:
    def __init__(self) -> None:
        self.bids = self.takes = self.collections = self.changes = self.ends = 0
        self.choices: list[str] = []
        self.round_ends = 0
        self.explained: list[str] = []
        self.round_end_status: list[str] = []  # the status line behind each summary


async def play_turn(pilot: Pilot[Any], screen: FashionTableScreen, tally: Tally) -> bool:
    """Make the human seat's current decision by keys; False if not ours."""
    view = my_view(screen)
    if view is None:
        return False
    if view.phase == "auction":
        tally.bids += 1
        if tally.bids % 2:
            await pilot.press(str(min(len(view.hand), 9)))  # a digit bids the Nth card
        else:
            await pilot.press("down", "enter")
    elif view.phase == "take":
        tally.takes += 1
        await pilot.press("space", "down", "space", "enter")
    elif view.phase == "action":
        collections = [a for a in view.legal if isinstance(a, Collect)]
        if collections:
            cards = max(collections, key=lambda a: len(a.cards)).cards
            if not tally.explained:
                # A first card alone, one with the MUST feature: only its
                # size is wrong (FA-11), explained before anything is sent.
                must = slot_features(view.slots)[MUST]
                alone = next(card for card in cards if has_feature(card, must))
                await move_hand_to(pilot, screen, view.hand.index(CODE[alone]))
                await pilot.press("space", "c")
                tally.explained.append(notices(pilot.app)[-1])
                await pilot.press("space")  # unselect it again
            for card in cards:
                await move_hand_to(pilot, screen, view.hand.index(CODE[card]))
                await pilot.press("space")
            tally.collections += 1
            await pilot.press("c")
        elif len(view.hand) >= 8 and tally.changes < 3:
            tally.changes += 1
            await pilot.press("x", "enter", "down", "enter")  # A, then B
            for _ in range(20):
                await pilot.pause()
                if isinstance(pilot.app.screen, ChoiceScreen):
                    break
            assert isinstance(pilot.app.screen, ChoiceScreen)
            tally.choices.append(pilot.app.screen.kind)
            await pilot.press("2")  # B's cut
        else:
            tally.ends += 1
            await pilot.press("e")
    return True


async def play_fashion(pilot: Pilot[Any], *, max_steps: int = 3000) -> Tally:
    app = pilot.app
    tally = Tally()
    for _ in range(max_steps):
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, GameOverScreen):
            return tally
        if isinstance(screen, RoundEndScreen):
            tally.round_ends += 1
            behind = app.screen_stack[-2]
            tally.round_end_status.append(str(behind.query_one(StatusLine).render()))
            await pilot.press("enter")
            continue
        if isinstance(screen, ChoiceScreen):
            tally.choices.append(screen.kind)
            await pilot.press("1")
            continue
        assert isinstance(screen, FashionTableScreen), screen
        if not await play_turn(pilot, screen, tally):
            await pilot.pause(0.005)
    raise AssertionError(f"the game did not end in {max_steps} steps")


RESUMED_ROUND = 4


def resumed_round_opens(view: View) -> bool:
    assert isinstance(view, FashionView)
    return view.round == RESUMED_ROUND and view.phase == "auction"


def last_rounds_open(view: View) -> bool:
    """An auction opens near the end: the deck ran out once and holds few
    cards (FA-14: the game ends with the round that empties it again)."""
    assert isinstance(view, FashionView)
    return view.phase == "auction" and view.exhaustions == 1 and view.deck_size <= 8


@pytest.mark.long
async def test_game_by_keys_to_the_end_screen(private_config: Path) -> None:
    # Rounds 1-3 are played in core (fast) and saved; the app continues the
    # save and rounds 4 to the end are played by keys. In them you win
    # auctions and change a rule (the save is the first seed's, fixed).
    save_when(private_config, "fashion", resumed_round_opens)
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        table = await continue_game(pilot)
        assert isinstance(table, FashionTableScreen)
        tally = await play_fashion(pilot)
        over = app.screen
        assert isinstance(over, GameOverScreen)
        view = table.fa_view
        assert view is not None and view.is_over and view.result is not None
        assert tally.bids >= 3 and tally.takes >= 3 and tally.round_ends >= 2
        # Behind each summary the status line says it is open, not whose turn
        # it is in the next round (the play-test's "Waiting for Cleo…").
        assert tally.round_end_status == [
            f"End of round {n}: read the summary, Enter goes on."
            for n in range(RESUMED_ROUND, RESUMED_ROUND + tally.round_ends)
        ]
        assert "player" in tally.choices  # won at least one auction: chose who plays
        assert tally.collections >= 1 and "feature" in tally.choices  # a rule change
        assert tally.explained and "collection needs at least three" in tally.explained[0]
        lines = table.game_log.lines_written
        # (The log's wording is the engine's: only its facts are checked.)
        assert any(line.startswith("Game over") for line in lines)
        assert any(line.startswith("You") and " a collection: " in line for line in lines)
        assert any(line.startswith("You") and " and discarding " in line for line in lines)
        sheet = over.scores
        assert isinstance(sheet, Group)
        totals, *rounds = sheet.renderables
        assert isinstance(totals, RichTable)
        headers = [str(c.header) for c in totals.columns]
        assert headers[:4] == ["Designer", "Pile", "Season", "Total"]
        # The whole game round by round: every round a column, and each
        # designer's points per round add up to their point pile (FA-12).
        tables = [part for part in rounds if isinstance(part, RichTable)]
        numbers = [str(c.header) for t in tables for c in t.columns[1:]]
        assert numbers == [str(n) for n in range(1, view.round + 1)]
        for seat in range(view.players):
            cells = [str(list(c.cells)[seat]) for t in tables for c in t.columns[1:]]
            assert sum(int(cell) for cell in cells if cell != "·") == view.points[seat]
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


# -- a hand-built position: every step of a turn, checked --------------------

# STAR red (colour of RDS), MUST wool (material of KJW), BANNED coat (cut of
# UCS), MONEY blue (colour of UDS). You hold the only blue card: you win the
# first auction with it (FA-7).
SLOTS = [("RDS", 0), ("KJW", 2), ("UCS", 1), ("UDS", 0)]
MINE = ["RDW", "RJS", "RTS", "RTO", "RCS", "UTL"]
THEIRS = ["KDS", "KJS", "KTS", "WDS", "WJS"]
OFFER = ["WTS", "KCO", "WCO"]


def rigged_state() -> FashionState:
    used = set(MINE + THEIRS + OFFER) | {code for code, _ in SLOTS}
    rest = [card for card in range(64) if CODE[card] not in used]
    return FashionState.from_position(
        FashionConfig(players=2),
        hands=[[parse_card(c) for c in MINE], [parse_card(c) for c in THEIRS]],
        offer=[parse_card(c) for c in OFFER],
        deck=rest,
        discard=[],
        slots=[(parse_card(c), a) for c, a in SLOTS],
        prev_order=[1, 0],
    )


class RiggedApp(PasseApp):
    def make_client(self, game_id: str, **options: Any) -> TableClient:
        names = seat_names(options["name"], 2)
        seats = [SeatSpec(names[0]), SeatSpec(names[1], "heuristic")]
        return LocalClient(Table.around(rigged_state(), seats, bot_delay=0), 0)


async def start_rigged(pilot: Pilot[Any]) -> FashionTableScreen:
    await choose_fashion(pilot, players=2)
    table = pilot.app.screen
    assert isinstance(table, FashionTableScreen)
    view = table.fa_view
    assert view is not None and view.phase == "auction"
    await pilot.press(str(view.hand.index("UTL") + 1))  # bid the currency card
    for _ in range(50):
        await pilot.pause()
        if isinstance(pilot.app.screen, ChoiceScreen):
            break
    choice = pilot.app.screen
    assert isinstance(choice, ChoiceScreen) and choice.kind == "player"
    assert choice.options[0].startswith("You (you)")
    await pilot.press("1")  # you play first
    await pilot.pause()
    view = table.fa_view
    assert view is not None and view.phase == "take" and view.current == 0
    await pilot.press("space", "down", "space", "enter")  # take the first two
    await pilot.pause()
    view = table.fa_view
    assert view is not None and view.phase == "action"
    assert "WTS" in view.hand and "KCO" in view.hand
    return table


async def select(pilot: Pilot[Any], table: FashionTableScreen, *codes: str) -> None:
    view = table.fa_view
    assert view is not None
    for code in codes:
        await move_hand_to(pilot, table, view.hand.index(code))
        await pilot.press("space")


def hint(table: FashionTableScreen) -> str:
    return table.query_one(FashionHand).hint


async def test_selections_are_explained_before_they_are_sent(private_config: Path) -> None:
    app = RiggedApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        table = await start_rigged(pilot)
        received = table.updates_received
        await select(pilot, table, "RJS", "RTS", "RTO")
        assert hint(table) == "3 selected: needs a card with the MUST feature: wool."
        await pilot.press("c")
        await pilot.pause()
        assert notices(app)[-1] == "needs a card with the MUST feature: wool."
        assert table.updates_received == received  # nothing was sent
        await select(pilot, table, "RCS")
        assert "RCS has the BANNED feature coat: it is passé" in hint(table)
        await select(pilot, table, "RCS", "RDW")  # unselect RCS, add the wool card
        assert hint(table).startswith("Valid collection of 4: 4 points for STAR red")
        await select(pilot, table, "RTO", "RTS", "RJS", "WTS")
        assert "share a colour, a cut or a material" in hint(table)  # RDW and WTS
        await select(pilot, table, "WTS", "RJS", "RTS")
        assert hint(table).startswith("Valid collection of 3: 3 points")
        await pilot.press("enter")  # Enter announces too
        await pilot.pause()
        view = table.fa_view
        assert view is not None and view.points[0] == 3  # all red: STAR (FA-12)
        assert "RDW" not in view.hand and view.phase != "action"


async def test_confirm_asks_before_each_decision_and_no_sends_nothing(
    private_config: Path,
) -> None:
    """A play-test (7 December): with "Confirm" on, a bid and a take went at
    once, though the table's help promised a question (only Pass Pass and
    dominoes asked). Each decision now asks; "No" sends nothing."""
    from tests.tui.conftest import write_settings
    from tui.screens.table import CONFIRM_CHOICE

    write_settings(private_config, confirm_plays=True)
    app = RiggedApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_fashion(pilot, players=2)
        table = app.screen
        assert isinstance(table, FashionTableScreen) and table.confirm_plays
        view = table.fa_view
        assert view is not None and view.phase == "auction"

        async def asked(title: str, answer: str) -> None:
            for _ in range(50):
                await pilot.pause()
                if isinstance(app.screen, ChoiceScreen) and app.screen.kind == CONFIRM_CHOICE:
                    break
            dialog = app.screen
            assert isinstance(dialog, ChoiceScreen) and dialog.kind == CONFIRM_CHOICE, dialog
            assert dialog.choice_title == title
            await pilot.press(answer)
            await pilot.pause()

        await pilot.press(str(view.hand.index("UTL") + 1))
        await asked("Bid UTL?", "2")  # no: nothing bid
        view = table.fa_view
        assert view is not None and view.phase == "auction" and view.my_bid is None
        await pilot.press(str(view.hand.index("UTL") + 1))
        await asked("Bid UTL?", "1")
        for _ in range(50):
            await pilot.pause()
            if isinstance(app.screen, ChoiceScreen):
                break
        await pilot.press("1")  # you play first...
        await asked("Let yourself play first?", "1")
        await pilot.press("space", "down", "space", "enter")  # take the first two
        await asked("Take KCO and WTS?", "1")
        view = table.fa_view
        assert view is not None and view.phase == "action" and "WTS" in view.hand


async def test_rule_change_picks_a_then_b_then_the_feature(private_config: Path) -> None:
    app = RiggedApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        table = await start_rigged(pilot)
        view = table.fa_view
        assert view is not None
        await pilot.press("space", "x")  # a selection is dropped when the change starts
        assert not table.selection and table.changing
        # RJS: symbol (0 + 1 + 0) mod 4 = 1, MUST (FA-1); B = RTO (cotton).
        await move_hand_to(pilot, table, view.hand.index("RJS"))
        assert hint(table).startswith("A = ! RJS 2: changes MUST (now wool)")
        await pilot.press("enter", "escape")  # esc steps back: A is unpicked
        assert table.change_a is None and table.changing
        await pilot.press("enter")
        assert table.change_a == parse_card("RJS")
        await move_hand_to(pilot, table, view.hand.index("RTO"))
        assert "it could become red / trousers / cotton" in hint(table)
        await pilot.press("enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen) and dialog.kind == "feature"
        assert dialog.options == ["colour: red", "cut: trousers", "material: cotton"]
        await pilot.press("3")
        await pilot.pause()
        view = table.fa_view
        assert view is not None
        must = view.slots[1]
        assert (must.slot, must.attribute, must.value, must.card) == (
            "must",
            "material",
            "cotton",
            "RTO",
        )
        lines = table.game_log.lines_written
        assert any(line.startswith("You") and "MUST to cotton" in line for line in lines)


async def test_keys_at_the_wrong_moment_explain_themselves(private_config: Path) -> None:
    app = make_app(private_config, seed=4, bot_delay=30)  # bots are slow: nothing moves
    async with app.run_test(size=SIZE) as pilot:
        await choose_fashion(pilot, players=3)
        table = app.screen
        assert isinstance(table, FashionTableScreen)
        view = table.fa_view
        assert view is not None and view.phase == "auction" and 0 in view.to_act
        await pilot.press("e")  # end turn in the auction
        await pilot.pause()
        assert notices(app)[-1] == "Bid one card: ↑/↓ to it and Enter, or its number (FA-7)."
        await pilot.press("1")  # bid the first card
        await pilot.pause()
        view = table.fa_view
        assert view is not None and view.my_bid == view.hand[0]
        assert table.query_one(FashionHand).mode == ""
        await pilot.press("enter")
        await pilot.pause()
        assert notices(app)[-1].startswith(f"You have bid {view.my_bid}; waiting for Ada")
        await pilot.press("c")
        await pilot.pause()
        assert notices(app)[-1].startswith("You have bid")


def test_collection_reasons_follow_fa_11() -> None:
    features = slot_features(rigged_state().view(0).slots)
    cards = [parse_card(code) for code in ("RJS", "RTS")]
    assert collection_problem(cards, features) == "needs a card with the MUST feature: wool"
    cards.append(parse_card("RDW"))
    assert collection_problem(cards, features) is None


# -- hidden information ---------------------------------------------------------


CARD_FIELDS = ("card", "cards", "bids", "paid", "hands", "a", "b", "replaced", "scored")


def codes_in(data: Any) -> set[str]:
    """Every card code in plain data (``RDS``, ``bid RDS``, ``(RDS).``)."""
    found: set[str] = set()
    if isinstance(data, str):
        found.update(word for word in re.findall(r"[A-Z]{3}", data) if word in CODES)
    elif isinstance(data, dict):
        for value in data.values():
            found |= codes_in(value)
    elif isinstance(data, (list, tuple)):
        for value in data:
            found |= codes_in(value)
    return found


def event_codes(event: Event) -> set[str]:
    """The cards an event names (events hold card ids, not codes)."""

    def flat(value: Any) -> list[int]:
        if isinstance(value, int) and not isinstance(value, bool):
            return [value]
        if isinstance(value, (list, tuple)):
            return [card for item in value for card in flat(item)]
        return []

    found = codes_in(event.describe(tuple(f"p{seat}" for seat in range(8))))
    for field in dataclasses.fields(event):
        if field.name in CARD_FIELDS:
            found.update(CODE[card] for card in flat(getattr(event, field.name)))
    return found


class SpyingClient(LocalClient):
    """Checks every update the screen gets against what a spectator of the
    same table has learnt so far: another seat's card may reach the screen
    only once it has been public (in the offer, a revealed bid, a slot...)."""

    def __init__(self, client: LocalClient) -> None:
        super().__init__(client.table, client.seat)
        self.public: set[str] = set()
        self.checked = 0
        self.pending_bids_seen = 0

    async def connect(self, listener: Listener) -> None:
        def spectate(update: TableUpdate) -> None:
            self.public |= codes_in(update.view.to_data())
            for event in update.events:
                self.public |= event_codes(event)

        def spy(update: TableUpdate) -> None:
            state: Any = self.table.state
            hidden = {
                CODE[card]
                for seat, hand in enumerate(state.hands)
                if seat != self.seat
                for card in hand
            } - self.public
            shown = codes_in(update.view.to_data())
            for event in update.events:
                shown |= event_codes(event)
                if isinstance(event, BidPlaced) and event.seat != self.seat:
                    assert event.card is None, "another seat's bid reached the UI"
            leaked = shown & hidden
            assert not leaked, f"another seat's cards reached the UI: {sorted(leaked)}"
            view = update.view
            assert isinstance(view, FashionView) and view.seat == self.seat
            own = state.bids[self.seat]
            assert view.my_bid == (CODE[own] if own is not None else None)
            self.pending_bids_seen += sum(
                1 for seat, bid in enumerate(state.bids) if seat != self.seat and bid is not None
            )
            self.checked += 1
            listener(update)

        self.table.subscribe(None, spectate)  # first: the public learns first
        await super().connect(spy)


async def test_the_screen_never_receives_hidden_cards_or_bids(private_config: Path) -> None:
    """8 designers; the person's moves are a heuristic bot's, sent through
    the screen (keys are tested above), so that many updates are seen fast."""
    app = SpyApp(SpyingClient, config_path=private_config, bot_delay=0, seed=9)
    me = HeuristicBot(5)
    async with app.run_test(size=SIZE) as pilot:
        await choose_fashion(pilot, players=8)
        table = app.screen
        assert isinstance(table, FashionTableScreen)
        for _ in range(2000):
            await pilot.pause()
            screen = app.screen
            if isinstance(screen, GameOverScreen):
                break
            if isinstance(screen, (RoundEndScreen, ChoiceScreen)):
                await pilot.press("enter")
                continue
            view = my_view(table)
            if view is None:
                await pilot.pause(0.005)
                continue
            await table.submit(me.choose(view))
        assert isinstance(app.screen, GameOverScreen)
    (spy,) = app.spies
    assert spy.checked > 30
    assert spy.pending_bids_seen > 0  # bots' secret bids existed while we looked


# -- snapshots --------------------------------------------------------------------


async def mid_game(pilot: Pilot[Any]) -> None:
    """Fashion with 8 designers (the most that fit), by keys until your
    action in round 2, with two cards selected (the hint explains them)."""
    await choose_fashion(pilot, players=8)
    app = pilot.app
    tally = Tally()
    for _ in range(500):
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, RoundEndScreen):
            await pilot.press("enter")
            continue
        if isinstance(screen, ChoiceScreen):
            await pilot.press("1")
            continue
        assert isinstance(screen, FashionTableScreen)
        view = my_view(screen)
        if view is None:
            await pilot.pause(0.005)
            continue
        if view.phase == "action" and view.round >= 2:
            await pilot.press("space", "down", "down", "space")
            return
        if view.phase == "action":
            await pilot.press("e")
        else:
            await play_turn(pilot, screen, tally)
    raise AssertionError("never reached round 2")


def themed(theme: str, then: Callable[[Pilot[Any]], Awaitable[None]]) -> Any:
    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.theme = theme
        await then(pilot)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.long
def test_fashion_table_mid_game(snap_compare: Any, private_config: Path, theme: str) -> None:
    app = make_app(private_config, seed=2)
    assert snap_compare(app, terminal_size=SIZE, run_before=themed(theme, mid_game))


@pytest.mark.long
async def test_a_rule_change_shows_only_its_keys_and_help_fits(private_config: Path) -> None:
    app = RiggedApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        table = await start_rigged(pilot)
        await pilot.press("x")
        await pilot.pause()
        assert table.changing
        keys = footer_keys(app)
        shown = [description for description, _ in keys]
        assert not {"Collect", "New rule", "End turn"} & set(shown), shown
        assert help_fits(app), keys
        await pilot.press("e")  # does nothing but explain
        await pilot.pause()
        assert table.changing and table.fa_view is not None
        assert table.fa_view.phase == "action"


@pytest.mark.parametrize(("width", "short"), [(52, False), (46, True)])
async def test_offer_rows_show_every_word_and_tag(width: int, short: bool) -> None:
    # 52: the offer at 80x24. Narrower, the tags go short, never the code
    # or the words (issue 18: the code went, which the keys and log use).
    from textual.app import App, ComposeResult

    from tui.games.fashion.card_row import CardItem
    from tui.games.fashion.offer import FashionOffer

    class OfferApp(App[None]):
        CSS = f"FashionOffer {{ width: {width}; }}"

        def get_theme_variable_defaults(self) -> dict[str, str]:
            return {**super().get_theme_variable_defaults(), **CARD_VARIABLES}  # $fa-red...

        def compose(self) -> ComposeResult:
            yield FashionOffer(id="offer")

    app = OfferApp()
    async with app.run_test(size=SIZE) as pilot:
        offer = app.query_one(FashionOffer)
        tags = ("pt must cash", "passé cash", "")
        offer.set_items(
            tuple(
                CardItem(parse_card(code), tags=tag)
                for code, tag in zip(("KJS", "RTO", "WDL"), tags, strict=True)
            )
        )
        await pilot.pause()
        lines = [line.plain.rstrip() for line in offer.card_lines()]
        assert all(len(line) <= offer.content_region.width for line in lines), lines
        ends = ("pt must $", "ban $") if short else tags[:2]
        assert lines[0].endswith(ends[0]) and lines[1].endswith(ends[1]), lines
        # The symbol first and apart from the number (FA-1): "$ KJS 2", not "2$".
        kjs = parse_card("KJS")
        head = [SYMBOLS[SYMBOL[kjs]], "KJS", str(NUMBER[kjs])]
        assert lines[0].lstrip("▸ ").split()[: len(head)] == head, lines
        for line, words in zip(
            lines, ("black jacket silk", "red trousers cotton", "white dress leather"), strict=True
        ):
            assert " ".join(line.split()).find(words) > 0, line


@pytest.mark.long
async def test_help_names_every_digit_key(private_config: Path) -> None:
    from tui.screens.help import HelpScreen

    app = RiggedApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        table = await start_rigged(pilot)  # your action phase: select by number
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen) and table.fa_view is not None
        keys = dict((description, key) for key, description in help_screen.keys)
        # The keys that act now: one per card in the hand (issue 18 item 8).
        count = len(table.fa_view.hand)
        assert keys["Select by number"] == f"1-{count}", help_screen.keys


async def test_a_wide_terminal_widens_the_log_and_players(private_config: Path) -> None:
    # From the play-test: at 200x60 the log stayed 28 columns wide.
    app = make_app(private_config)
    async with app.run_test(size=(200, 60)) as pilot:
        await choose_fashion(pilot, players=4)
        table = app.screen
        assert isinstance(table, FashionTableScreen)
        await pilot.pause()
        assert table.has_class("-wide")
        assert table.query_one("#fa-right").size.width == 48
        assert table.game_log.size.width >= 44  # was 28


async def test_no_key_acts_behind_the_too_small_message(private_config: Path) -> None:
    # Issue 18 item 1: on your turn, shrunk to 60x20, e ended the turn
    # unseen; 1 in a dialog that was not visible chose "You".
    app = RiggedApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        table = await start_rigged(pilot)
        received = table.updates_received
        await resize(pilot, 60, 20)
        await pilot.pause()
        assert table.too_small
        await pilot.press("e", "c", "x", "space", "enter", "1", "tab")
        await pilot.pause()
        await resize(pilot, *SIZE)
        await pilot.pause()
        view = table.fa_view
        assert view is not None and view.phase == "action" and view.current == 0
        assert table.updates_received == received and not table.changing
        assert not table.selection


async def test_no_key_acts_in_a_dialog_behind_the_too_small_message(
    private_config: Path,
) -> None:
    # The auction won, "who plays first?" opens; while the terminal is too
    # small its 1 (and Enter) choose nothing (issue 18 item 1).
    app = RiggedApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_fashion(pilot, players=2)
        table = app.screen
        assert isinstance(table, FashionTableScreen)
        view = table.fa_view
        assert view is not None
        await pilot.press(str(view.hand.index("UTL") + 1))
        for _ in range(50):
            await pilot.pause()
            if isinstance(app.screen, ChoiceScreen):
                break
        dialog = app.screen
        assert isinstance(dialog, ChoiceScreen) and dialog.kind == "player"
        await resize(pilot, 60, 20)
        await pilot.pause()
        await pilot.press("1", "enter", "2", "escape")
        await pilot.pause()
        assert app.screen is dialog
        await resize(pilot, *SIZE)
        await pilot.pause()
        assert app.screen is dialog
        view = table.fa_view
        assert view is not None and view.phase == "choose"


# STAR red, MUST wool, BANNED coat and MONEY red (STAR's feature too): RCW
# is tagged all four ways, the widest row a hand can have.
SEVEN_SLOTS = [("RDS", 0), ("KJW", 2), ("UCS", 1), ("RJO", 0)]
SEVEN = ["RCW", "RCS", "KCW", "RDW", "UTL", "WJS", "KDO"]


class SevenCardsApp(PasseApp):
    mine: tuple[str, ...] = tuple(SEVEN)
    theirs: tuple[str, ...] = ("KDS", "KJS", "KTS", "WDS", "WTS")

    def make_client(self, game_id: str, **options: Any) -> TableClient:
        offer = ["WCO", "UDO", "KCO"]
        used = {*self.mine, *self.theirs, *offer} | {code for code, _ in SEVEN_SLOTS}
        state = FashionState.from_position(
            FashionConfig(players=2),
            hands=[[parse_card(c) for c in self.mine], [parse_card(c) for c in self.theirs]],
            offer=[parse_card(c) for c in offer],
            deck=[card for card in range(64) if CODE[card] not in used],
            discard=[],
            slots=[(parse_card(c), a) for c, a in SEVEN_SLOTS],
            prev_order=[1, 0],
        )
        names = seat_names(options["name"], 2)
        seats = [SeatSpec(names[0]), SeatSpec(names[1], "heuristic")]
        return LocalClient(Table.around(state, seats, bot_delay=0), 0)


async def test_a_hand_of_seven_reads_whole_at_80x24(private_config: Path) -> None:
    # Issue 18: with 7 cards at 80x24 the hand dropped the codes (which the
    # keys and the log name cards by) and still cut a tag ("pt must passé
    # cas"). Every row keeps its code and its words, and shows every tag
    # (in short where the full words do not fit), whole.
    from tui.games.fashion.card import card_tags, short_tags

    app = SevenCardsApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_fashion(pilot, players=2)
        table = app.screen
        assert isinstance(table, FashionTableScreen) and table.fa_view is not None
        hand = table.query_one(FashionHand)
        await pilot.pause()
        lines = [line.plain.rstrip() for line in hand.card_lines()]
        assert len(lines) == len(SEVEN), lines
        features = table.features()
        assert card_tags(parse_card("RCW"), features) == "pt must passé cash"
        for line, item in zip(lines, hand.items, strict=True):
            code = CODE[item.card]
            assert len(line) <= hand.content_region.width, line
            assert f" {code} {NUMBER[item.card]} " in line, line  # the code kept
            colour, cut, material = (VALUE_NAMES[n][v] for n, v in enumerate(CARD_ATTRS[item.card]))
            assert f"{colour} {cut} {material}" in " ".join(line.split()), line
            shown = item.tags if line.endswith(item.tags) else short_tags(item.tags)
            assert line.endswith(shown), (line, item.tags)
            assert len(shown.split()) == len(item.tags.split()), line


async def test_the_log_names_every_card_by_its_code_and_its_name(private_config: Path) -> None:
    # Issue 18: the log named cards by code alone ("You take UTL KJS"). Each
    # card it names reads "red wool dress (RDW)": the words, and the code
    # the hand shows. Bids, payment, taking, refilling, a collection, the
    # bot's moves.
    from core.fashion.model import card_name

    app = RiggedApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        table = await start_rigged(pilot)  # bids, the payment, a take and a refill
        await select(pilot, table, "RDW", "RJS", "RTS")
        await pilot.press("c")  # a collection: 3 points
        for _ in range(100):  # then the bot's turn, to the next round's auction
            await pilot.pause()
            view = table.fa_view
            if view is not None and view.round == 2:
                break
            if isinstance(app.screen, RoundEndScreen):
                await pilot.press("enter")
        lines = table.game_log.lines_written
        assert any(line.startswith("You take ") for line in lines), lines
        assert any("collection" in line for line in lines), lines
        named = 0
        for line in lines:
            for code in re.findall(r"\b[RUKW][DJTC][SWOL]\b", line):
                assert f"{card_name(parse_card(code))}" in line, line
                named += 1
        assert named >= 8, lines


class OneCardApp(SevenCardsApp):
    """Each designer holds one card: yours, red, is currency (MONEY red)
    and wins the auction; Ada's comes back to her hand (FA-8)."""

    mine = ("RCW",)
    theirs = ("KDS",)


async def test_one_card_reads_one_card(private_config: Path) -> None:
    # Issue 18: "1 pts", "point(s)": counts agree with their nouns, in
    # fashion's every count of cards and points ("Ada: 1 cards" in the
    # who-plays list).
    app = OneCardApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_fashion(pilot, players=2)
        table = next(s for s in app.screen_stack if isinstance(s, FashionTableScreen))
        for _ in range(50):
            await pilot.pause()
            if isinstance(app.screen, ChoiceScreen):
                break
            view = table.fa_view
            if view is not None and view.phase == "auction" and table._mine(view):
                await pilot.press("1")
        choice = app.screen
        assert isinstance(choice, ChoiceScreen) and choice.kind == "player", choice
        assert "Ada: 1 card, 0 points" in choice.options, choice.options
        assert "You (you): 0 cards, 0 points" in choice.options, choice.options


def test_the_final_scores_show_a_whole_season_collection() -> None:
    """A play-test (6 December): a long season collection was cut with "…"
    on the game-over screen, with no way to read the rest."""
    import dataclasses
    import io

    from rich.console import Console

    from net.authority.table import SeatSpec, Table
    from net.peer.client import LocalClient
    from tests.core.notation_checks import played

    state = played("fashion", 4, False, 7)
    table = Table.around(
        state, [SeatSpec(name) for name in ("You", "Ada", "Bo", "Cy")], bot_delay=0.6
    )
    screen = FashionTableScreen(LocalClient(table, 0))
    view = state.view(0)
    long_hand = ("RDW", "RJS", "RTS", "UJS", "UJW", "UJO", "UTS", "UTL", "UCS", "UCL", "KDS", "KJS")
    view = dataclasses.replace(view, season_hands=(long_hand, (), (), ()))
    out = io.StringIO()
    Console(file=out, width=76, color_system=None).print(screen.final_scores(view))
    shown = out.getvalue()
    assert "…" not in shown and all(code in shown for code in long_hand), shown


async def test_a_long_hand_says_only_the_way_there_is_more(private_config: Path) -> None:
    """A play-test (7 December) read "↑ 0 more · ↓ 2 more (of 12)": at the
    top of a long hand only what is below is said, at the bottom only what
    is above, in between both."""
    from tui.games.fashion.card_row import CardItem

    app = SevenCardsApp(config_path=private_config, bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await choose_fashion(pilot, players=2)
        table = app.screen
        assert isinstance(table, FashionTableScreen)
        hand = table.query_one(FashionHand)
        hand.set_items(tuple(CardItem(card, " ", "") for card in range(20)))
        await pilot.pause()

        def last_line() -> str:
            return hand.card_lines()[-1].plain.strip()

        hand.cursor = 0
        assert last_line().startswith("↓ ") and last_line().endswith("(of 20)"), last_line()
        hand.cursor = 19
        assert last_line().startswith("↑ ") and "↓" not in last_line(), last_line()
        hand.top, hand.cursor = 0, 15  # scrolled down from the top: cards both ways
        assert "↑ " in last_line() and " · ↓ " in last_line(), last_line()
