"""The Pass Pass table: your hand, the trick, every player's public colour
counts (PP-8), the score sheet and the log. Every decision by keyboard: play
a card (PP-7), the first winner's pick (PP-13), the second winner's choice
among tied lowest cards (PP-14), the team representative (PP-23)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical

from core.engine import Action, Event, Names, View, acts, plural
from core.passpass.model import (
    PASS_PASS_TO_WIN,
    Card,
    CardPlayed,
    Colour,
    PassPassChecked,
    Pick,
    Play,
    Represent,
    RoundScored,
    Take,
    TrickResolved,
)
from core.passpass.state import PassPassView, TrickSummary
from tui.games.passpass.card import diamond_marks
from tui.games.passpass.card_row import SlotData
from tui.games.passpass.hand import HandView
from tui.games.passpass.opponents import OpponentsPanel
from tui.games.passpass.score_sheet import ScoreSheet, render_sheet, team_label
from tui.games.passpass.trick import TrickView
from tui.games.passpass.won_cards import WonCardsPanel
from tui.messages import CardChosen
from tui.plain import cells, plain
from tui.screens.choice import ChoiceScreen
from tui.screens.info import InfoScreen
from tui.screens.table import SPECTATOR_HAND, TableScreen, number_keys
from tui.widgets.footer import PasseFooter
from tui.widgets.game_log import GameLog
from tui.widgets.status_line import StatusLine

PLAY, PICK, TAKE, REPRESENT, OVER = "play", "pick", "take", "represent", "over"
TRICK_SUMMARY_LINES = 2  # under the trick's cards (TrickView's height)
NOBODY = "—"  # under a card nobody got: the game ended first (PP-19)


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(map(str, cards)) if cards else "nothing"


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six")


def number_word(count: int) -> str:
    return NUMBER_WORDS[count] if 0 <= count < len(NUMBER_WORDS) else str(count)


def ordinal(count: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(count, f"{count}th")


def highest_cards(plays: Sequence[tuple[int, Card]]) -> dict[Colour, Card]:
    """Each colour's highest card in a trick."""
    best: dict[Colour, Card] = {}
    for _, card in plays:
        if card.colour not in best or card.value > best[card.colour].value:
            best[card.colour] = card
    return best


def tie_break(
    strengths: Sequence[tuple[Colour, int]],
    plays: Sequence[tuple[int, Card]],
    rank: int = 0,
    *,
    brief: bool = False,
) -> str:
    """How the colour ranked ``rank`` beat the colours of equal strength
    ranked below it (PP-10: the higher single card, then the one played
    first), in words; "" when no colour had its strength. Issue 18: "Yellow
    wins (sums: yellow 11, violet 11)" said nothing of why yellow."""
    if rank >= len(strengths):
        return ""
    winner, strength = strengths[rank]
    rivals = [colour for colour, other in strengths[rank + 1 :] if other == strength]
    highest = highest_cards(plays)
    if not rivals or winner not in highest or any(c not in highest for c in rivals):
        return ""
    # The engine ranked the colours (PP-10); here it is only said why.
    card = highest[winner]
    level = [highest[c] for c in rivals if highest[c].value == card.value]
    lower = [highest[c] for c in rivals if highest[c].value < card.value]
    if brief:
        how = f"{card} played first" if level else f"higher card {card}"
        return f"tie at {strength}; {how}, PP-10"
    if not level:
        beaten = ", ".join(map(str, lower))
        return f"the sums tie, and the higher card breaks it: {card} over {beaten} (PP-10)"
    equal = " and ".join(map(str, [card, *level]))
    above = f" (above {', '.join(map(str, lower))})" if lower else ""
    return (
        f"the sums tie, and so do the highest cards {equal}{above}: {card} was played first (PP-10)"
    )


def majority_text(
    strengths: Sequence[tuple[Colour, int]],
    plays: Sequence[tuple[int, Card]],
    *,
    brief: bool = False,
) -> str:
    """ "Blue wins (sums: blue 23, violet 2)": colour names and the sum of
    the values played in each (PP-9, PP-10), not "B23", which reads like a
    card; after a tie, how it was broken. ``brief`` (two lines of the trick
    panel): "Yellow wins (tie at 11; higher card Y8, PP-10)"."""
    majority = strengths[0][0].label.capitalize()
    tie = tie_break(strengths, plays, brief=brief)
    if brief and tie:
        return f"{majority} wins ({tie})"
    sums = ", ".join(f"{colour.label} {strength}" for colour, strength in strengths)
    label = "sum" if len(strengths) == 1 else "sums"
    text = f"{majority} wins ({label}: {sums})"
    return f"{text}: {tie}" if tie else text


def ended_before_taking(res: TrickSummary) -> bool:
    """Whether a resolved trick ended the game at the first winner's pick:
    the card kept made a third Pass Pass, which wins the game at once
    (PP-19; a team's, PP-24), before the second winner takes (PP-14). Its
    other cards went to nobody, and were not put out either (PP-15 comes
    after the take). Only for a trick whose sharing is over: one still
    being shared has taken nothing yet."""
    return res.picked is not None and not res.taken


def won_at_once_rule(teams: bool) -> str:
    """The rule of the immediate victory: a player's (PP-19), a team's (PP-24)."""
    return "PP-24" if teams else "PP-19"


def second_place_text(res: TrickSummary) -> str:
    """When the majority colour had one card, the second winner played the
    second-ranked colour's highest card (PP-12): if that colour tied on
    strength, how the tie was broken (the rulebook's third example)."""
    if sum(1 for _, card in res.plays if card.colour == res.majority) != 1:
        return ""
    tie = tie_break(res.strengths, res.plays, rank=1)
    if not tie:
        return ""
    second = res.strengths[1][0].label.capitalize()
    return f"{second} ranks second, so its highest card is the second winner's (PP-12): {tie}."


class PassPassTableScreen(TableScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "decide", "Choose", key_display="c"),
        Binding("t", "last_trick", "Last trick", key_display="t"),
    ]
    TITLE_IN_HELP = "Pass Pass table"
    GUIDE = (
        "Play a card: ←/→ (or h/l) then Enter or space, or its number.\n"
        "If you win a trick (first winner), pick one of its cards the same way.\n"
        "If you are second winner and the lowest cards tie, or at the end of a\n"
        "team round, a choice opens: ↑/↓ and Enter, or its number; c reopens it.\n"
        "Cards show their colour letter (V violet, B blue, G green, Y yellow),\n"
        "value and diamonds (◆, one point each). The players panel shows every\n"
        "player's colour counts (public, PP-8): # cards, V B G Y, Won, Pt, PP.\n"
        "Your won cards are listed by colour, with what your next Pass Pass\n"
        "needs (a won card of each colour, PP-18); the sheet's 'So far' counts\n"
        "the round in progress.\n"
        "The card played last is marked 'new' under it; t shows the last trick\n"
        "again (who played what, who got each card, and why).\n"
        "r: rules, q/Escape: leave (asks first), ctrl+p: command palette (themes)."
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.choice_open = False
        self.trick_items: tuple[SlotData, ...] = ()
        self.last_trick: TrickSummary | None = None  # the last resolved trick
        # The cards of the trick being played, as the log tells it: the log
        # line of its resolution says how a tie was broken (PP-10).
        self.logged_plays: list[tuple[int, Card]] = []
        # The names the trick's lead was logged with: "Your bot led this
        # trick" when a stand-in led it for this person (or "Hana's bot"
        # for another's), as the log says it.
        self.lead_names: Names | None = None

    # -- the log -----------------------------------------------------------

    def describe(self, event: Event) -> str:
        if isinstance(event, CardPlayed):
            if not self.logged_plays:
                self.lead_names = self.log_names
            self.logged_plays.append((event.seat, event.card))
        elif isinstance(event, TrickResolved):
            plays, self.logged_plays = self.logged_plays, []
            # Only the whole trick tells the tie-break: a log that begins
            # in the middle of a trick (a story cut in pages) says no more.
            if sum(card.value for _, card in plays) == sum(s for _, s in event.strengths):
                tie = tie_break(event.strengths, plays)
                if tie:
                    return f"{event.describe(self.log_names)} {tie[:1].upper()}{tie[1:]}."
        elif isinstance(event, PassPassChecked):
            return self.pass_pass_text(event)
        return super().describe(event)

    def _lead_text(self, view: PassPassView) -> str:
        """Who led the trick in play, named as the log named its lead (a
        stand-in's lead is the bot's); a trick whose lead the log never
        told (a story joined mid-trick) is named as usual."""
        names = self.log_names
        lead = self.logged_plays[0] if self.logged_plays else None
        if self.lead_names is not None and view.trick and lead == view.trick[0]:
            names = self.lead_names
        return acts(names, view.leader, "led") + " this trick."

    def pass_pass_text(self, event: PassPassChecked) -> str:
        """Issue 18: "Pass Pass! you check one" read as an order to do
        something. Said instead: what happened, that the table checks it
        on the sheet by itself (PP-18: nothing to do), and how near the
        immediate victory it is (PP-19; in teams PP-24 counts the team's
        earlier rounds, as ``total`` does)."""
        names = self.log_names
        sets = "a card" if event.round_count == 1 else f"{number_word(event.round_count)} cards"
        who = "you" if event.seat == names.you else names[event.seat]
        text = (
            f"Pass Pass! {self.acts(event.seat, 'has')} won {sets} of each colour, "
            f"so one is checked for {who} on the sheet"
        )
        if event.total >= PASS_PASS_TO_WIN:
            return text + f": the {ordinal(event.total)}, which wins the game at once."
        return text + f" ({event.total} of {PASS_PASS_TO_WIN}; the third wins the game)."

    def compose_table(self) -> ComposeResult:
        yield StatusLine(id="status")
        with Horizontal(id="table-main"):
            with Vertical(id="table-left"):
                yield TrickView(id="trick")
                yield HandView(id="hand")
                yield GameLog(id="log")
            with Vertical(id="table-right"):
                yield OpponentsPanel(id="players")
                yield ScoreSheet(id="sheet")
                yield WonCardsPanel(id="won")
        # Without the palette's entry (ctrl+p, in the help): at the table
        # that runs the room, with b (a stand-in) shown, it cut "F1 Help"
        # at 80 columns (a play-test, 5 December).
        yield PasseFooter(show_command_palette=False)

    # -- rendering ---------------------------------------------------------

    def show_view(self, view: View, events: Sequence[Event]) -> None:
        assert isinstance(view, PassPassView)
        me = view.seat
        mine = self.PLAYS and me is not None and me in view.to_act and not view.is_over
        self._show_hand(view, mine)
        self._show_trick(view, mine)
        self.query_one(OpponentsPanel).show(view, self.panel_names())
        self.query_one(ScoreSheet).show(view, self.names)
        won = self.query_one(WonCardsPanel)
        if view.seat is not None:  # a spectator's view has none (the panel hides)
            owner = "Your" if self.reads_own(view.seat) else f"{self.names[view.seat]}'s"
            won.border_title = plain(f"{owner} won cards")  # a name: text (issue 19)
        won.show(view)
        self._say_status()
        self.refocus()
        scored = [event for event in events if isinstance(event, RoundScored)]
        if scored and not view.is_over and not self.catching_up:
            self._show_round_end(view, scored[-1])
        # PP-14, PP-23: a second winner's tie, a team's scorer, once each.
        moment = (view.round, view.trick_number, view.phase)
        deciding = mine and view.phase in (TAKE, REPRESENT) and not self.choice_open
        if deciding and self.first_offer(moment):
            self.action_decide()

    def _say_status(self) -> None:
        view = self.pp_view
        if view is None:
            return
        mine = self.PLAYS and view.seat is not None and view.seat in view.to_act
        mine = mine and not view.is_over
        self.say_status(self._status(view, mine), your_turn=mine)

    def refocus(self) -> None:
        """The trick has the keys when you pick from it, the hand otherwise."""
        hand, trick = self.query_one(HandView), self.query_one(TrickView)
        if trick.active:
            if not trick.has_focus:
                trick.focus()
        elif not hand.has_focus:
            hand.focus()

    def _show_hand(self, view: PassPassView, mine: bool) -> None:
        hand = self.query_one(HandView)
        # A spectator's view (seat None: a watcher's, a replay's) has no hand
        # of its own: every hand is face down, its size under Players (#).
        if view.seat is None:
            hand.border_title = SPECTATOR_HAND
            hand.empty = "Every hand is face down: their sizes are under Players (#)."
        else:
            # A name: text (issue 19).
            hand.border_title = plain(self.hand_title(view.seat))
            hand.empty = ""
        # PP-2: the UI says the diamond table is the default assumption. Under
        # the hand, not in the side column: that room is the won cards' (issue 18).
        note = "◆ = 1 point"
        hand.border_subtitle = note + (" · default ◆ table (PP-2)" if view.default_diamonds else "")
        hand.set_items(
            tuple(
                SlotData(card, view.diamonds[card.value - 1], above=str(n))
                for n, card in enumerate(view.hand, start=1)
            )
        )
        hand.active = mine and view.phase == PLAY

    def _show_trick(self, view: PassPassView, mine: bool) -> None:
        trick = self.query_one(TrickView)
        trick.border_title = f"Round {view.round}/3 · trick {view.trick_number}/8"
        res = view.resolution
        diamonds = view.diamonds
        items: list[SlotData] = []
        summary = ""
        resolving = view.phase in (PICK, TAKE) and res is not None
        if res is not None and not resolving:
            self.last_trick = res  # kept for t while the next one is resolved
        # PP-19/PP-24: a game won at the first winner's pick ends with the
        # rest of its trick on the table: the whole trick is shown as
        # resolved, the kept card with the others, not as a trick in play.
        ended = view.is_over and res is not None and ended_before_taking(res)
        if view.trick and not ended:
            newest = len(view.trick) - 1
            for index, (seat, card) in enumerate(view.trick):
                tag = ""
                if resolving and res is not None:
                    tag = "1st" if seat == res.first_winner else ""
                    tag = "2nd" if seat == res.second_winner else tag
                elif index == newest:
                    tag = "new"  # the last move, readable until the next one
                above = self.names[seat]
                if mine and view.phase == PICK:
                    # The number that picks it, as above the hand's cards
                    # (issue 18: "1-4" picked cards that showed none).
                    above = f"{index + 1} {above}"
                items.append(SlotData(card, diamonds[card.value - 1], above, tag))
            if resolving and res is not None:
                summary = self._resolving_text(view, res)
            elif res is not None:
                summary = "Last trick: " + self._resolved_text(res)
            else:
                summary = self._lead_text(view)
        elif res is not None:
            for seat, card in res.plays:
                tag = self._went_to(res, card)
                items.append(SlotData(card, diamonds[card.value - 1], self.names[seat], tag))
            summary = self._last_trick_text(res, teams=view.teams)
        elif view.is_over:
            summary = "The game is over."
        else:
            summary = self.acts(view.leader, "leads") + " the first trick."
        self.trick_items = tuple(items)
        trick.set_items(self.trick_items)
        trick.set_summary(summary)
        trick.active = mine and view.phase == PICK

    def _went_to(self, res: TrickSummary, card: Card) -> str:
        """Under a resolved trick's card: who got it ("→Ada", "→you"),
        "out" when it was discarded (PP-15), or "—" (nobody) when the game
        ended at the first winner's pick, before the second winner took
        (PP-19). The whole name: the card row shortens it only where the
        row has no room for it."""
        if card == res.picked:
            seat = res.first_winner
        elif card in res.taken:
            seat = res.second_winner
        elif ended_before_taking(res):
            return NOBODY
        else:
            return "out"
        return "→" + self.log_names[seat]

    def _majority_text(self, res: TrickSummary, *, brief: bool = False) -> str:
        return majority_text(res.strengths, res.plays, brief=brief)

    def _resolving_text(self, view: PassPassView, res: TrickSummary) -> str:
        """The trick panel's words while a trick is shared out. The panel
        has two lines for them: the majority's sums and tie-break (PP-10)
        are said when they fit, else only who won (t tells it all)."""
        first, second = res.first_winner, res.second_winner
        if view.phase == PICK:
            rest = (
                # Mid-sentence: "1st: you pick", never "1st: You pick" (play-test).
                f"1st: {self.acts(first, 'picks', start=False)} a card; "
                f"2nd: {self.acts(second, 'takes', start=False)} two."
            )
        else:
            rest = (
                f"{self.acts(first, 'picked')} {res.picked}; "
                f"{self.acts(second, 'chooses', start=False)} among the tied lowest cards."
            )
        brief = f"{self._majority_text(res, brief=True)}. {rest}"
        if self._fits_under_trick(brief):
            return brief
        return f"{res.majority.label.capitalize()} wins. {rest}"

    def _fits_under_trick(self, text: str) -> bool:
        """Whether ``text`` fits the trick panel's lines under the cards
        (yes while the panel has no width yet)."""
        width = self.query_one(TrickView).content_size.width
        return not width or len(Text(text).wrap(self.app.console, width)) <= TRICK_SUMMARY_LINES

    def _last_trick_text(self, res: TrickSummary, *, teams: bool = False) -> str:
        """The trick panel's words under a resolved trick: "Last trick: "
        and :meth:`_resolved_text`. A game won at the first winner's pick
        (PP-19, PP-24) also says why the second winner took nothing, as
        fully as the panel's two lines allow: without "Last trick: ", then
        without who won the trick, then in the fewest words (t tells it
        all)."""
        whole = "Last trick: " + self._resolved_text(res, teams=teams)
        if not ended_before_taking(res) or self._fits_under_trick(whole):
            return whole
        shorter = [
            "Last trick: " + self._resolved_text(res, teams=teams, brief=True),
            self._resolved_text(res, teams=teams, brief=True),
            self._resolved_text(res, teams=teams, brief=True, said_who_won=True),
        ]
        fewest = (
            f"{self.acts(res.first_winner, 'kept')} {res.picked}: "
            f"a third Pass Pass, won at once ({won_at_once_rule(teams)})."
        )
        return next((text for text in shorter if self._fits_under_trick(text)), fewest)

    def _resolved_text(
        self,
        res: TrickSummary,
        *,
        said_who_won: bool = False,
        teams: bool = False,
        brief: bool = False,
    ) -> str:
        """ "Blue won. Ada kept B9; you took V2 G3; out: Y4." Without "Blue
        won." where the sentence before said it (the t dialog).

        A game won at the first winner's pick (:func:`ended_before_taking`)
        ended before the second winner took (PP-19: the third Pass Pass wins
        the game at once; PP-24 in teams): "Ada kept V1, a third Pass Pass,
        which wins the game at once (PP-19): the game ended before Bruno
        took any card." ``brief`` (the trick panel's two lines): "Ada kept
        V1; Bruno took nothing: a third Pass Pass won the game at once
        (PP-19)." """
        first = self.acts(res.first_winner, "kept")
        second = self.acts(res.second_winner, "took", start=False)
        won = "" if said_who_won else f"{res.majority.label.capitalize()} won. "
        if ended_before_taking(res):  # PP-19, PP-24
            rule = won_at_once_rule(teams)
            if brief:
                return (
                    f"{won}{first} {res.picked}; {second} nothing: "
                    f"a third Pass Pass won the game at once ({rule})."
                )
            return (
                f"{won}{first} {res.picked}, a third Pass Pass, which wins the game at once "
                f"({rule}): the game ended before {second} any card."
            )
        text = f"{won}{first} {res.picked}; {second} "
        text += cards_text(res.taken)
        if res.discarded:
            text += f"; out: {cards_text(res.discarded)}"
        return text + "."

    def _status(self, view: PassPassView, mine: bool) -> str:
        where = f"R{view.round} T{view.trick_number} · "
        if view.is_over:
            return "Game over."
        res = view.resolution
        if view.phase == PLAY:
            if mine:
                keys = f"←/→ and Enter, or {number_keys(len(view.hand))}"
                return where + f"Your turn: play a card ({keys})."
            return where + f"Waiting for {self._acting(view)} to play…"
        if view.phase == PICK and res is not None:
            if mine:
                keys = f"←/→ and Enter, or {number_keys(len(view.trick))}"
                return where + f"You won the trick: pick a card to keep ({keys})."
            return where + self.acts(res.first_winner, "is") + " picking a card (1st)…"
        key = "in the dialog" if self.choice_open else "press c"
        if view.phase == TAKE and res is not None:
            if mine:
                return where + f"Choose which tied lowest cards to take ({key})."
            return where + self.acts(res.second_winner, "is") + " choosing (2nd)…"
        if view.phase == REPRESENT:
            if mine:
                return where + f"Choose who scores for your team this round ({key})."
            return where + "Teams are choosing who scores for them…"
        return where

    def _acting(self, view: PassPassView) -> str:
        return ", ".join(self.names[seat] for seat in view.to_act) or "nobody"

    # -- decisions ---------------------------------------------------------

    @property
    def pp_view(self) -> PassPassView | None:
        return self.view if isinstance(self.view, PassPassView) else None

    def _legal(self, kind: type[Action]) -> list[Action]:
        view = self.pp_view
        return [a for a in view.legal if isinstance(a, kind)] if view else []

    async def on_card_chosen(self, message: CardChosen) -> None:
        view = self.pp_view
        if view is None:
            return
        action: Action | None = None
        what = ""
        if message.source == "hand" and message.index < len(view.hand):
            card = view.hand[message.index]
            action = next((a for a in self._legal(Play) if getattr(a, "card", None) == card), None)
            what = f"play {self._card_label(view, card)}"
            if action is not None:
                self.query_one(HandView).active = False
        elif message.source == "trick" and message.index < len(self.trick_items):
            card = self.trick_items[message.index].card
            action = next((a for a in self._legal(Pick) if getattr(a, "card", None) == card), None)
            what = f"keep {self._card_label(view, card)}"
            if action is not None:
                self.query_one(TrickView).active = False
        if action is None:
            self.notify(self.explain(), title="Not now")
            return
        await self.play(action, what)

    def bindings_state(self) -> object:
        return (
            super().bindings_state(),
            self.check_action("decide", ()),
            self.last_trick is not None,
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "last_trick":
            return self.last_trick is not None and super().check_action(action, parameters)
        if action == "decide":
            view = self.pp_view
            return bool(
                view
                and view.phase in (TAKE, REPRESENT)
                and view.seat in view.to_act
                and not self.choice_open
            )
        return super().check_action(action, parameters)

    def action_decide(self) -> None:
        view = self.pp_view
        if view is None or view.seat not in view.to_act:
            self.notify(self.explain(), title="Not now")
            return
        if view.phase == TAKE:
            options = self._legal(Take)
            labels = [" + ".join(self._card_label(view, c) for c in a.cards) for a in options]  # type: ignore[attr-defined]
            title = "Second winner: choose your two cards (PP-14)"
            body = self._take_body(view)
        elif view.phase == REPRESENT:
            options = self._legal(Represent)
            labels = [
                self.names[a.seat] + (" (you)" if a.seat == view.seat else "")  # type: ignore[attr-defined]
                for a in options
            ]
            title = "Who scores for your team this round? (PP-23)"
            body = self._represent_body(view, [a.seat for a in options])  # type: ignore[attr-defined]
        else:
            return
        if not options:
            return
        self.choice_open = True
        self.refresh_bindings()
        self._say_status()
        kind = view.phase

        def chosen(index: int | None) -> None:
            self.choice_open = False
            self.refresh_bindings()
            self._say_status()
            current = self.pp_view
            if index is None or current is None or current.phase != kind:
                return
            self.run_worker(self.submit(options[index]), exclusive=False)

        self.push_dialog(ChoiceScreen(title, body, labels, kind=kind), chosen)

    def action_last_trick(self) -> None:
        """A look back at the last resolved trick: who played which card,
        who got it, and why (PP-9 to PP-15)."""
        view, res = self.pp_view, self.last_trick
        if view is None or res is None:
            return
        table = Table(box=None, padding=(0, 2, 0, 0))
        table.add_column("Player")
        table.add_column("Card")
        table.add_column("Went to")

        def who(seat: int) -> str:  # a table cell: "You", not "you"
            name = self.log_names[seat]
            return name[:1].upper() + name[1:]

        rule = won_at_once_rule(view.teams)
        for seat, card in res.plays:
            if card == res.picked:
                went = who(res.first_winner) + " (1st winner's pick)"
            elif card in res.taken:
                went = who(res.second_winner) + " (2nd winner)"
            elif ended_before_taking(res):
                went = f"nobody: the game ended first ({rule})"
            else:
                went = "out for the round (PP-15)"
            table.add_row(*cells(who(seat), self._card_label(view, card), went))
        # Issue 18: "Yellow wins (sums: yellow 11, violet 11). Yellow won."
        # said who won twice and never why: the tie-break is said instead.
        words = [f"{self._majority_text(res)}.", second_place_text(res)]
        words.append(self._resolved_text(res, said_who_won=True, teams=view.teams))
        body = Group(table, Text("\n" + " ".join(word for word in words if word)))
        self.push_dialog(InfoScreen("The last trick", body))

    def _card_label(self, view: PassPassView, card: Card) -> str:
        """``"B5 ◆"``, ``"V6 (no ◆)"``: a card and its diamonds, in words
        where a lone dot would read like a separator."""
        diamonds = view.diamonds[card.value - 1]
        return f"{card} {diamond_marks(diamonds)}" if diamonds else f"{card} (no ◆)"

    def _take_body(self, view: PassPassView) -> RenderableType:
        remaining = ", ".join(self._card_label(view, card) for _, card in view.trick)
        return Text(
            "You are the second winner: you take the two lowest remaining cards, "
            "and their values tie, so you choose which two. "
            f"Remaining cards: {remaining}.\n"
        )

    def _represent_body(self, view: PassPassView, seats: list[int]) -> RenderableType:
        table = Table(box=None, padding=(0, 2, 0, 0))
        table.add_column("This round")
        for seat in seats:
            table.add_column(Text(self.names[seat]), justify="right")
        table.add_row("Points", *[str(view.round_points[s]) for s in seats])
        table.add_row("Pass Pass", *[str(view.pass_pass_round[s]) for s in seats])
        table.add_row("Won cards", *[str(len(view.won[s])) for s in seats])
        team = view.team_of[seats[0]]
        note = Text(
            f"\nThe team scores the chosen player's points and Pass Pass "
            f"(team so far: {plural(view.totals[team], 'point')}, "
            f"{view.pass_pass_totals[team]} PP).\n"
        )
        return Group(table, note)

    def _show_round_end(self, view: PassPassView, scored: RoundScored) -> None:
        row = next((r for r in view.sheet if r.round == scored.round), None)
        table = Table(box=None, padding=(0, 2, 0, 0))
        table.add_column("")
        table.add_column("Points", justify="right")
        table.add_column("Pass Pass", justify="right")
        table.add_column("Total", justify="right")
        if row is not None:
            for team in range(len(view.totals)):
                label = team_label(view, self.names, team)
                if view.teams and row.representatives:
                    label += f" (scored by {self.names[row.representatives[team]]})"
                table.add_row(
                    *cells(
                        label,
                        str(row.points[team]),
                        str(row.pass_pass[team]),
                        f"{view.totals[team]}/{view.pass_pass_totals[team]}",
                    )
                )
        self.show_round_end(f"End of round {scored.round}", table)

    def final_scores(self, view: View) -> RenderableType:
        assert isinstance(view, PassPassView)
        return render_sheet(view, self.names)

    def explain(self) -> str:
        view = self.pp_view
        if view is None:
            return "The table is still being set up."
        if view.is_over:
            return "The game is over."
        mine = view.seat in view.to_act
        res = view.resolution
        if view.phase == PLAY:
            if mine:
                count = len(view.hand)
                return f"Play one of your {count} cards: {number_keys(count)}, or ←/→ and Enter."
            return f"It is not your turn: {self._acting(view)} plays now."
        if view.phase == PICK and res is not None:
            if mine:
                count = len(view.trick)
                keys = number_keys(count)
                return f"Pick one of the {count} cards of the trick: {keys}, or ←/→ and Enter."
            return self.acts(res.first_winner, "won") + " this trick and is picking a card; wait."
        if view.phase == TAKE and res is not None:
            if mine:
                return "Press c to choose which tied cards you take."
            return self.acts(res.second_winner, "is") + " choosing which cards to take; wait."
        if view.phase == REPRESENT:
            if mine:
                return "Press c to choose who scores for your team."
            return "The other teams are choosing their representatives; wait."
        return "Nothing to choose right now."
