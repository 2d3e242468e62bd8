"""The Passe fashion table: the four rule slots, the offer with the deck, your
hand, every designer's public information and the log. Every decision by
keyboard: the secret bid (FA-7), the auction winner's choice of the first
and next player (FA-9), taking two of the three offer cards (FA-10), then
announcing a collection (FA-11), changing a rule (FA-13) or ending the turn.

Selections are checked against the view's legal actions before they are
sent; when one is not legal the screen says why in the words of FA-11 and
the slots in force (e.g. "needs a card with the MUST feature: wool")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical

from core.engine import Action, Event, View, plural
from core.fashion.model import (
    ATTRIBUTES,
    BANNED,
    CARD_ATTRS,
    CODE,
    MONEY,
    MUST,
    STAR,
    SYMBOL,
    VALUE_NAMES,
    AuctionOpened,
    Bid,
    BidsRevealed,
    Card,
    CardsTaken,
    Change,
    Choose,
    Collect,
    CollectionAnnounced,
    End,
    Feature,
    PlayerChosen,
    RuleChanged,
    Take,
    TurnEnded,
    feature_name,
    has_feature,
)
from core.fashion.state import FashionView, collection_problem
from tui.games.fashion.card import (
    SLOT_WORDS,
    SYMBOLS,
    card_id,
    card_short,
    card_tags,
    slot_features,
)
from tui.games.fashion.card_row import CardItem, FashionCardRow
from tui.games.fashion.hand import FashionHand
from tui.games.fashion.offer import FashionOffer
from tui.games.fashion.players import FashionPlayers
from tui.games.fashion.slots import FashionSlots
from tui.messages import CardChosen
from tui.plain import cells, plain
from tui.screens.choice import ChoiceScreen
from tui.screens.table import SPECTATOR_HAND, TableScreen, number_keys, points
from tui.widgets.footer import PasseFooter
from tui.widgets.game_log import GameLog
from tui.widgets.status_line import StatusLine

AUCTION, CHOOSE, TAKE, ACTION, OVER = "auction", "choose", "take", "action", "over"
ROUNDS_PER_TABLE = 18  # 10 + 18 * 3 columns: the end-of-game dialog at 80 columns


def current_round(events: Sequence[Event]) -> Sequence[Event]:
    """The events since the latest round opened (its auction, FA-6)."""
    starts = [index for index, event in enumerate(events) if isinstance(event, AuctionOpened)]
    return events[starts[-1] :] if starts else events


def points_before(points: tuple[int, ...], events: Sequence[Event]) -> tuple[int, ...]:
    """Each designer's points before ``events``: every card of a collection
    scored in them is one point (FA-12)."""
    before = list(points)
    for event in events:
        if isinstance(event, CollectionAnnounced):
            before[event.seat] -= len(event.scored)
    return tuple(before)


class FashionTableScreen(TableScreen):
    DEFAULT_CSS = """
    FashionTableScreen #fa-top { height: 6; }
    FashionTableScreen #fa-main { height: 1fr; }
    FashionTableScreen #fa-right { width: 30; }
    FashionTableScreen #fa-left { width: 1fr; }
    FashionTableScreen FashionHand.-spectator { height: 7; }
    /* From 120 columns (the base's -wide class) the log and players widen. */
    FashionTableScreen.-wide #fa-right { width: 48; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "collect", "Collect"),
        Binding("x", "change", "New rule"),
        Binding("e", "end", "End turn"),
        Binding("p", "player", "Who plays"),
        # The same keys at the wrong moment say why they do nothing now.
        Binding("c,x,e,p", "explain", "Explain", show=False),
    ]
    TITLE_IN_HELP = "Passe fashion table"
    GUIDE = (
        "A card reads: its symbol (★ STAR, ! MUST, ⊘ BANNED, $ MONEY: the slot\n"
        "it changes as card A), its code, its number, then its colour, cut and\n"
        "material in words. The code repeats them: colour R U K W, cut D J T C,\n"
        "material S W O L (W is white first, wool last). Tags on the right: pt\n"
        "= would score (STAR), must, passé (BANNED), cash (MONEY: currency);\n"
        "where a row is narrow, passé reads ban and cash reads $.\n"
        "Auction: ↑/↓ to a card, Enter bids it (or its number).\n"
        "Auction won: a list asks who plays first, then next (p reopens it).\n"
        "Your turn: in the offer, space selects two cards, Enter takes them.\n"
        "Then space selects hand cards and c (or Enter) announces them; or x\n"
        "changes a rule: card A (its symbol names the slot), card B, then\n"
        "B's feature; esc steps back. Or e ends the turn.\n"
        "r: rules, q/Escape: leave (asks first), ctrl+p: palette (themes)."
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.choice_open = False
        self.selection: list[Card] = []  # hand cards for a collection, in order
        self.offer_pick: list[Card] = []  # offer cards to take
        self.changing = False  # picking cards A and B of a rule change
        self.change_a: Card | None = None
        self.round_seen: int | None = None
        self.round_events: list[Event] = []
        self.round_points: tuple[int, ...] = ()
        # Points each designer scored in each round (FA-12), for the end of
        # the game: from the whole story, so a resumed game has every round.
        self.round_gains: dict[int, list[int]] = {}
        self.gains_round = 1

    def compose_table(self) -> ComposeResult:
        yield StatusLine(id="status")
        with Horizontal(id="fa-top"):
            yield FashionSlots(id="slots")
            yield FashionOffer(id="offer")
        with Horizontal(id="fa-main"):
            if self.client.seat is None:
                # A spectator (a watcher, a seatless replay) holds no hand:
                # the log takes the hand's room (watching eight designers
                # at 80x24, the log beside them had two rows).
                with Vertical(id="fa-left"):
                    yield FashionHand(id="hand", classes="-spectator")
                    yield GameLog(id="log")
                with Vertical(id="fa-right"):
                    yield FashionPlayers(id="players")
            else:
                yield FashionHand(id="hand")
                with Vertical(id="fa-right"):
                    yield FashionPlayers(id="players")
                    yield GameLog(id="log")
        yield PasseFooter(compact=True)  # five decision keys besides the frame's own

    # -- the view ------------------------------------------------------------

    @property
    def fa_view(self) -> FashionView | None:
        return self.view if isinstance(self.view, FashionView) else None

    def _mine(self, view: FashionView | None = None) -> bool:
        view = view or self.fa_view
        return bool(self.PLAYS and view and not view.is_over and view.seat in view.to_act)

    def _legal(self, kind: type[Action]) -> list[Action]:
        view = self.fa_view
        return [a for a in view.legal if isinstance(a, kind)] if view else []

    def _is_legal(self, action: Action) -> bool:
        view = self.fa_view
        return view is not None and action in view.legal

    def features(self) -> list[Feature]:
        view = self.fa_view
        return slot_features(view.slots) if view else []

    # -- rendering -----------------------------------------------------------

    def show_view(self, view: View, events: Sequence[Event]) -> None:
        assert isinstance(view, FashionView)
        mine = self._mine(view)
        hand = {card_id(code) for code in view.hand}
        if not (mine and view.phase == ACTION):
            self.selection = []
            self.changing, self.change_a = False, None
        self.selection = [card for card in self.selection if card in hand]
        if self.change_a is not None and self.change_a not in hand:
            self.change_a = None
        offer = {card_id(code) for code in view.offer}
        if not (mine and view.phase == TAKE):
            self.offer_pick = []
        self.offer_pick = [card for card in self.offer_pick if card in offer]
        self.query_one(FashionSlots).show(view.slots)
        self.query_one(FashionPlayers).show(view, self.panel_names())
        self._render_cards()
        self.refocus()
        self._count_gains(view, events)
        self._track_round(view, events)
        # FA-9: the auction's winner chooses who plays, once per turn.
        moment = (view.round, len(view.order), view.phase)
        if mine and view.phase == CHOOSE and not self.choice_open and self.first_offer(moment):
            self.action_player()

    def _render_cards(self) -> None:
        """The hand, the offer, their hints and the status line."""
        view = self.fa_view
        if view is None:
            return
        mine = self._mine(view)
        features = slot_features(view.slots)
        offer = self.query_one(FashionOffer)
        last = " · LAST" if view.last_round else ""  # FA-14: the game ends after it
        offer.border_title = f"Offer: take 2 · round {view.round}{last}"
        offer.set_items(
            tuple(
                CardItem(card, "✓" if card in self.offer_pick else " ", card_tags(card, features))
                for card in map(card_id, view.offer)
            )
        )
        info = f"Deck {view.deck_size} · discard {view.discard_size} · ran out {view.exhaustions}/2"
        offer.set_hint(info)
        offer.mode = "select" if mine and view.phase == TAKE else ""
        hand = self.query_one(FashionHand)
        # A spectator's view (seat None: a watcher's, a replay's) has no hand
        # of its own: every hand is face down, its size under Designers.
        if view.seat is None:
            hand.border_title = SPECTATOR_HAND
            hand.empty = "Every hand is face down: their sizes are under Designers (#)."
        else:
            hand.border_title = plain(
                f"{self.hand_title(view.seat)}: {plural(len(view.hand), 'card')}"
            )  # a name: text (issue 19)
            hand.empty = FashionHand.EMPTY
        items = []
        for card in map(card_id, view.hand):
            mark = " "
            if card in self.selection:
                mark = "✓"
            elif card == self.change_a:
                mark = "A"
            elif view.my_bid is not None and CODE[card] == view.my_bid:
                mark = "•"
            items.append(CardItem(card, mark, card_tags(card, features)))
        hand.set_items(tuple(items))
        if mine and view.phase == AUCTION:
            hand.mode = "bid"
        elif mine and view.phase == ACTION:
            hand.mode = "pick" if self.changing else "select"
        else:
            hand.mode = ""
        hand.set_hint(self._hand_hint(view))
        self.say_status(self._status(view), your_turn=mine)  # the base notes a summary

    def refocus(self) -> None:
        """The offer has the keys when you take from it, the hand otherwise."""
        view = self.fa_view
        if view is None:
            # Before the first update (a resumed game's screen resumes before
            # its view arrives) there is no telling where the keys belong: a
            # guess here would land after the real choice and steal its focus.
            return
        offer, hand = self.query_one(FashionOffer), self.query_one(FashionHand)
        target: FashionCardRow = offer if self._mine(view) and view.phase == TAKE else hand
        if self.focused is not target:
            # At once, not deferred (``Widget.focus``): a deferred focus would
            # run after Textual's own auto-focus of the first widget (the
            # offer) and any other pending one, in any order.
            self.set_focus(target)

    def on_screen_resume(self) -> None:
        self.refocus()

    def _names(self, seats: Sequence[int]) -> str:
        return ", ".join(self.names[seat] for seat in seats) or "nobody"

    def _status(self, view: FashionView) -> str:
        where = f"R{view.round}{' (last)' if view.last_round else ''} · "
        mine = self._mine(view)
        if view.is_over:
            return "Game over."
        if view.phase == AUCTION:
            if mine:
                keys = number_keys(len(view.hand))
                return where + f"Auction: bid a card from your hand (↑↓ and Enter, or {keys})."
            if view.my_bid is not None:
                return where + f"You bid {view.my_bid}; waiting for {self._names(view.to_act)}…"
            return where + f"Auction: waiting for {self._names(view.to_act)} to bid…"
        if view.phase == CHOOSE:
            if mine:
                return where + "You won the auction: choose who plays (p)."
            return where + self._who(view.auction_winner, "chooses") + " who plays next…"
        if view.phase == TAKE:
            if mine:
                return where + "Your turn: select two offer cards (space), Enter takes them."
            return where + self._who(view.current, "takes") + " two cards from the offer…"
        if view.phase == ACTION:
            if mine:
                if self.changing:
                    return where + "Rule change: pick card A, then card B (Enter; esc back)."
                return where + "Collect (space, c), change a rule (x) or end the turn (e)."
            return where + self._who(view.current, "may") + " collect or change a rule…"
        return where

    def _who(self, seat: int | None, verb: str) -> str:
        """``seat`` as the subject of ``verb`` ("Ada takes", "You take")."""
        return self.acts(seat, verb) if seat is not None else f"? {verb}"

    def _current(self, view: FashionView) -> str:
        return self.names[view.current] if view.current is not None else "?"

    def _hand_hint(self, view: FashionView) -> str:
        mine = self._mine(view)
        features = slot_features(view.slots)
        hand = self.query_one(FashionHand)
        under = hand.card_under_cursor
        if view.is_over:
            return ""
        if view.phase == AUCTION:
            if mine and under is not None:
                money = feature_name(features[MONEY])
                if has_feature(under, features[MONEY]):
                    return (
                        f"{card_short(CODE[under])} is currency ({money}): the best currency "
                        "bid wins and is paid (FA-7, FA-8)."
                    )
                return (
                    f"{card_short(CODE[under])} is no currency ({money} is): it wins only "
                    "if nobody bids currency (FA-7)."
                )
            if view.my_bid is not None:
                return (
                    f"• You bid {card_short(view.my_bid)}. Bids stay hidden until everyone has bid."
                )
            return "The auction: each designer bids one card in secret (FA-7)."
        if not mine:
            if view.phase == CHOOSE or view.current is None:
                return ""
            return f"Order so far: {self._names(view.order)}; still to play: " + (
                self._names([s for s in view.waiting if s != view.current])
            )
        if view.phase == CHOOSE:
            return "Choose who plays (p opens the list)."
        if view.phase == TAKE:
            return "Take two of the three offer cards above (FA-10)."
        if self.changing:
            return self._change_hint(features, under)
        return self._selection_hint(features)

    def _selection_hint(self, features: list[Feature]) -> str:
        if not self.selection:
            return "space: select cards for a collection (c announces) · x: change a rule · e: end"
        chosen = sorted(self.selection)
        star = features[STAR]
        scoring = [card for card in chosen if has_feature(card, star)]
        if self._is_legal(Collect(tuple(chosen))):
            return (
                f"Valid collection of {len(chosen)}: {points(len(scoring))} for STAR "
                f"{feature_name(star)}; c announces it."
            )
        reason = collection_problem(chosen, features) or "not a legal collection"
        return f"{len(chosen)} selected: {reason}."

    def _change_hint(self, features: list[Feature], under: Card | None) -> str:
        a = self.change_a
        if a is None:
            if under is None:
                return "Pick card A: its symbol names the slot to change."
            slot = SYMBOL[under]
            return (
                f"A = {card_short(CODE[under])}: changes {SLOT_WORDS[slot]} (now "
                f"{feature_name(features[slot])}). Enter picks A (FA-13)."
            )
        slot = SYMBOL[a]
        if under is None or under == a:
            return f"A = {CODE[a]} changes {SLOT_WORDS[slot]}. Now pick card B (another card)."
        options = " / ".join(VALUE_NAMES[i][CARD_ATTRS[under][i]] for i in range(3))
        return (
            f"A = {CODE[a]} changes {SLOT_WORDS[slot]}; B = {CODE[under]}: it could "
            f"become {options}. Enter picks B."
        )

    # -- rounds ------------------------------------------------------------

    def _count_gains(self, view: FashionView, events: Sequence[Event]) -> None:
        for event in events:
            if isinstance(event, AuctionOpened):
                self.gains_round = event.round
            elif isinstance(event, CollectionAnnounced):
                gains = self.round_gains.setdefault(self.gains_round, [0] * view.players)
                gains[event.seat] += len(event.scored)

    def _track_round(self, view: FashionView, events: Sequence[Event]) -> None:
        if self.round_seen is None:
            # The first update carries the whole story so far (a resumed game
            # gets every earlier round too): only the current round's part,
            # from its auction's opening (FA-6), belongs in its summary.
            events = current_round(events)
            self.round_seen = view.round
            self.round_points = points_before(view.points, events)
        self.round_events.extend(events)
        if view.round > self.round_seen and not view.is_over:
            finished = self.round_seen
            body = self._round_summary(view, self.round_events)
            self.round_seen = view.round
            self.round_events = []
            self.round_points = view.points
            # Bots wait while it is read; the status line says it is open;
            # it waits for the palette or help to close (the base's dialog).
            self.show_round_end(f"End of round {finished}", body)

    def _round_summary(self, view: FashionView, events: Sequence[Event]) -> RenderableType:
        table = Table(box=None, padding=(0, 1, 0, 0))
        table.add_column("Designer", no_wrap=True, max_width=10)
        table.add_column("Bid", no_wrap=True)
        table.add_column("Took", no_wrap=True)
        table.add_column("Then", no_wrap=True, max_width=26)
        table.add_column("Pts", justify="right", no_wrap=True)
        bids: dict[int, str] = {}
        took: dict[int, str] = {}
        then: dict[int, str] = {}
        order: list[int] = []
        winner: int | None = None
        for event in events:
            if isinstance(event, BidsRevealed):
                bids = {s: CODE[c] for s, c in enumerate(event.bids) if c is not None}
                winner = event.winner
            elif isinstance(event, PlayerChosen):
                order.append(event.seat)
            elif isinstance(event, CardsTaken):
                took[event.seat] = " ".join(CODE[c] for c in event.cards) or "-"
            elif isinstance(event, CollectionAnnounced):
                then[event.seat] = f"collected {len(event.cards)} (+{len(event.scored)})"
            elif isinstance(event, RuleChanged):
                then[event.seat] = f"{SLOT_WORDS[event.slot]} → {feature_name(event.feature)}"
            elif isinstance(event, TurnEnded):
                then.setdefault(event.seat, "ended")
        seats = order + [s for s in range(view.players) if s not in order]
        for seat in seats:
            gained = view.points[seat] - (
                self.round_points[seat] if seat < len(self.round_points) else 0
            )
            name = self.names[seat] + ("*" if seat == winner else "")
            table.add_row(
                *cells(
                    name,
                    bids.get(seat, "-"),
                    took.get(seat, "-"),
                    then.get(seat, "-"),
                    f"{view.points[seat]}" + (f" (+{gained})" if gained else ""),
                )
            )
        features = slot_features(view.slots)
        rules = "  ".join(f"{SYMBOLS[slot]} {feature_name(features[slot])}" for slot in range(4))
        foot = Text(
            f"\n* won the auction.\nRules now: {rules}\n"
            f"Deck {view.deck_size} · ran out {view.exhaustions}/2"
            + (" · the next round is the last." if view.last_round else ".")
        )
        return Group(table, foot)

    # -- decisions -------------------------------------------------------------

    async def on_card_chosen(self, message: CardChosen) -> None:
        view = self.fa_view
        if view is None or message.source != "hand" or not self._mine(view):
            self.notify(self.explain(), title="Not now")
            return
        if not 0 <= message.index < len(view.hand):
            return
        card = card_id(view.hand[message.index])
        if view.phase == AUCTION:
            action = Bid(card)
            if self._is_legal(action):
                self.query_one(FashionHand).mode = ""
                # Through play: "Confirm" on asks first (a play-test's bids
                # went at once though the help promised a question).
                await self.play(action, f"bid {CODE[card]}")
            else:
                self.notify(f"You cannot bid {CODE[card]} now.", title="Not allowed")
            return
        if view.phase == ACTION and self.changing:
            self._pick_for_change(card)
            return
        self.notify(self.explain(), title="Not now")

    def on_fashion_card_row_toggle(self, message: FashionCardRow.Toggle) -> None:
        view = self.fa_view
        if view is None or not self._mine(view):
            return
        if message.source == "offer" and view.phase == TAKE:
            if not 0 <= message.index < len(view.offer):
                return
            card = card_id(view.offer[message.index])
            if card in self.offer_pick:
                self.offer_pick.remove(card)
            elif len(self.offer_pick) >= 2:
                self.notify(
                    "You take exactly two cards (FA-10): unselect one first (space on a ✓).",
                    title="Two already selected",
                )
                return
            else:
                self.offer_pick.append(card)
        elif message.source == "hand" and view.phase == ACTION and not self.changing:
            if not 0 <= message.index < len(view.hand):
                return
            card = card_id(view.hand[message.index])
            if card in self.selection:
                self.selection.remove(card)
            else:
                self.selection.append(card)
        self._render_cards()

    async def on_fashion_card_row_confirm(self, message: FashionCardRow.Confirm) -> None:
        if message.source == "offer":
            await self._take()
        else:
            await self.action_collect()

    def on_fashion_card_row_moved(self, message: FashionCardRow.Moved) -> None:
        view = self.fa_view
        if view is not None and message.source == "hand":
            self.query_one(FashionHand).set_hint(self._hand_hint(view))

    def on_fashion_card_row_cancel(self, message: FashionCardRow.Cancel) -> None:
        if self.change_a is not None:
            self.change_a = None
        else:
            self.changing = False
        self._render_cards()
        self.refresh_bindings()

    async def _take(self) -> None:
        view = self.fa_view
        if view is None or view.phase != TAKE or not self._mine(view):
            self.notify(self.explain(), title="Not now")
            return
        if len(self.offer_pick) != 2:
            self.notify(
                f"Select two offer cards with space first ({len(self.offer_pick)} selected).",
                title="Take two cards",
            )
            return
        one, two = sorted(self.offer_pick)
        action = Take((one, two))
        if not self._is_legal(action):
            self.notify("Those cards cannot be taken now.", title="Not allowed")
            return
        self.offer_pick = []
        self.query_one(FashionOffer).mode = ""
        await self.play(action, f"take {CODE[one]} and {CODE[two]}")

    def _pick_for_change(self, card: Card) -> None:
        if self.change_a is None:
            self.change_a = card
            self._render_cards()
            return
        if card == self.change_a:
            self.notify("Card B must be another card than A.", title="Rule change")
            return
        self._ask_feature(self.change_a, card)

    def _ask_feature(self, a: Card, b: Card) -> None:
        """Which of B's three features the slot named by A takes (FA-13)."""
        features = self.features()
        slot = SYMBOL[a]
        options: list[Change] = []
        labels: list[str] = []
        for attribute in range(3):
            action = Change(a, b, attribute)
            if not self._is_legal(action):
                continue
            feature = (attribute, CARD_ATTRS[b][attribute])
            label = f"{ATTRIBUTES[attribute]}: {feature_name(feature)}"
            other = {MUST: BANNED, BANNED: MUST}.get(slot)
            if feature == features[slot]:
                label += " (no change)"
            elif other is not None and feature == features[other]:
                label += " (= " + SLOT_WORDS[other] + ": no collection valid!)"
            options.append(action)
            labels.append(label)
        if not options:
            self.notify(f"{CODE[a]} and {CODE[b]} cannot change a rule now.", title="Not allowed")
            return
        body = Text(
            f"A = {card_short(CODE[a])}: its symbol {SYMBOLS[slot]} names the "
            f"{SLOT_WORDS[slot]} slot, now {feature_name(features[slot])}.\n"
            f"B = {card_short(CODE[b])} lies on the slot; A and the slot's old card go "
            "to the discard pile. Which of B's features does the slot take?\n"
        )
        self.choice_open = True
        self.refresh_bindings()

        def chosen(index: int | None) -> None:
            self.choice_open = False
            self.refresh_bindings()
            if index is None or not self._is_legal(options[index]):
                return
            self.changing, self.change_a = False, None
            attribute = options[index].attribute
            feature = feature_name((attribute, CARD_ATTRS[b][attribute]))
            change = f"give the {SLOT_WORDS[slot]} slot {feature}"
            self.run_worker(self.play(options[index], change), exclusive=False)

        title = f"Rule change: the {SLOT_WORDS[slot]} slot (FA-13)"
        self.app.push_screen(ChoiceScreen(title, body, labels, kind="feature"), chosen)

    def bindings_state(self) -> object:
        return (
            super().bindings_state(),
            *(self.check_action(name, ()) for name in ("collect", "change", "end", "player")),
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.fa_view
        if action in ("collect", "change", "end"):
            # Hidden during a rule change: only its own keys work then (and
            # the footer keeps room for F1 Help at 80 columns).
            return bool(
                view
                and self._mine(view)
                and view.phase == ACTION
                and not self.choice_open
                and not self.changing
            )
        if action == "player":
            return bool(view and self._mine(view) and view.phase == CHOOSE and not self.choice_open)
        return super().check_action(action, parameters)

    async def action_collect(self) -> None:
        view = self.fa_view
        if view is None or view.phase != ACTION or not self._mine(view):
            self.notify(self.explain(), title="Not now")
            return
        if self.changing:
            self.notify("Finish or cancel (esc) the rule change first.", title="Rule change")
            return
        if not self.selection:
            self.notify(
                "Select the cards of the collection with space first (FA-11).", title="Collection"
            )
            return
        action = Collect(tuple(sorted(self.selection)))
        if not self._is_legal(action):
            reason = collection_problem(sorted(self.selection), self.features()) or ""
            self.notify(
                (reason or "not a legal collection") + ".",
                title="Not a valid collection",
                severity="warning",
            )
            return
        self.selection = []
        self.query_one(FashionHand).mode = ""
        await self.play(action, "announce " + " ".join(CODE[card] for card in action.cards))

    def action_change(self) -> None:
        view = self.fa_view
        if view is None or view.phase != ACTION or not self._mine(view):
            self.notify(self.explain(), title="Not now")
            return
        self.selection = []
        self.changing, self.change_a = True, None
        self._render_cards()
        self.refresh_bindings()

    async def action_end(self) -> None:
        if not self._is_legal(End()):
            self.notify(self.explain(), title="Not now")
            return
        self.query_one(FashionHand).mode = ""
        await self.play(End(), "end your turn")

    def action_player(self) -> None:
        view = self.fa_view
        if view is None or view.phase != CHOOSE or not self._mine(view):
            self.notify(self.explain(), title="Not now")
            return
        options = [a for a in self._legal(Choose) if isinstance(a, Choose)]
        if not options:
            return
        first = options[0].first
        labels = []
        for action in options:
            seat = action.seat
            you = " (you)" if seat == view.seat else ""
            labels.append(
                f"{self.names[seat]}{you}: {plural(view.hand_sizes[seat], 'card')}, "
                f"{points(view.points[seat])}"
            )
        played = self._names(view.order) if view.order else "nobody yet"
        body = Text(
            f"You won the auction (FA-9): choose who plays {'first' if first else 'next'}. "
            "Everyone plays once this round; you may choose yourself at any point. "
            f"Played so far: {played}.\n"
            f"Offer: {', '.join(card_short(code) for code in view.offer)}\n"
        )
        self.choice_open = True
        self.refresh_bindings()

        def chosen(index: int | None) -> None:
            self.choice_open = False
            self.refresh_bindings()
            current = self.fa_view
            if index is None or current is None or not self._is_legal(options[index]):
                return
            seat = options[index].seat
            who = "yourself" if seat == current.seat else self.names[seat]
            order = "first" if first else "next"
            self.run_worker(self.play(options[index], f"let {who} play {order}"), exclusive=False)

        title = f"Who plays {'first' if first else 'next'}?"
        self.app.push_screen(ChoiceScreen(title, body, labels, kind="player"), chosen)

    # -- the end -----------------------------------------------------------

    def final_scores(self, view: View) -> RenderableType:
        assert isinstance(view, FashionView) and view.result is not None
        table = Table(box=None, padding=(0, 1, 0, 0))
        table.add_column("Designer", no_wrap=True, max_width=10)
        table.add_column("Pile", justify="right")
        table.add_column("Season", justify="right")
        table.add_column("Total", justify="right")
        # Wrapped, never cut: a long collection ended in "…" (a play-test).
        table.add_column("Season collection (FA-15)", max_width=40)
        season = view.season_points or (0,) * view.players
        hands = view.season_hands or ((),) * view.players
        for seat in range(view.players):
            table.add_row(
                *cells(
                    self.names[seat],
                    str(view.points[seat]),
                    str(season[seat]),
                    Text(str(view.result.scores[seat]), style="bold"),
                    " ".join(hands[seat]) or "-",
                )
            )
        return Group(table, *self._rounds_tables(view))

    def _rounds_tables(self, view: FashionView) -> list[RenderableType]:
        """The points each designer scored round by round (FA-12), in tables
        of at most :data:`ROUNDS_PER_TABLE` rounds (80 columns)."""
        rounds = list(range(1, view.round + 1))
        parts: list[RenderableType] = [Text("\nPoints scored round by round (FA-12):")]
        for start in range(0, len(rounds), ROUNDS_PER_TABLE):
            chunk = rounds[start : start + ROUNDS_PER_TABLE]
            table = Table(box=None, padding=(0, 1, 0, 0))
            table.add_column("Round", no_wrap=True, max_width=10)
            for number in chunk:
                table.add_column(str(number), justify="right", no_wrap=True)
            for seat in range(view.players):
                gains = [self.round_gains.get(number, [0] * view.players)[seat] for number in chunk]
                table.add_row(*cells(self.names[seat], *(str(g) if g else "·" for g in gains)))
            parts.append(table)
        return parts

    def explain(self) -> str:
        view = self.fa_view
        if view is None:
            return "The table is still being set up."
        if view.is_over:
            return "The game is over."
        mine = self._mine(view)
        if view.phase == AUCTION:
            if mine:
                return "Bid one card: ↑/↓ to it and Enter, or its number (FA-7)."
            if view.my_bid is not None:
                return f"You have bid {view.my_bid}; waiting for {self._names(view.to_act)} to bid."
            return f"The auction is on: waiting for {self._names(view.to_act)} to bid."
        if view.phase == CHOOSE:
            if mine:
                return "Press p to choose who plays (FA-9)."
            winner = self._who(view.auction_winner, "won")
            return f"{winner} the auction and chooses who plays next; wait."
        if view.phase == TAKE:
            if mine:
                return "Select two offer cards with space, then Enter takes them (FA-10)."
            return f"It is {self._current(view)}'s turn to take cards; wait."
        if view.phase == ACTION:
            if mine:
                if self.changing:
                    return "Pick card A, then card B with Enter; esc steps back."
                return "Space selects cards, c announces; x changes a rule; e ends the turn."
            return f"It is {self._current(view)}'s turn; wait."
        return "Nothing to choose right now."
