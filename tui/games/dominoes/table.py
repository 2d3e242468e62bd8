"""The Passe dominoes table: the train, your hand, every player's public
information (tile counts, boneyard, DO-4), the score sheet against the target
(DO-13, DO-14) and the log. Every decision by keyboard: lead with any tile
(DO-6), place a tile at the left or right end, draw (only while the boneyard
holds more than two tiles, DO-4) or pass (always allowed, DO-7)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical

from core.dominoes import DRAW, PASS, DominoesView, Place, Tile
from core.dominoes.model import Drew, Passed, Placed, RoundEnded, RoundStarted, RoundSummary
from core.engine import Event, View, plural
from tui.games.dominoes.hand import DominoHand, HandTile, tile_keys
from tui.games.dominoes.players import DominoPlayers
from tui.games.dominoes.scores import (
    DominoScores,
    render_game,
    render_round,
    side_label,
    side_score,
    sides,
)
from tui.games.dominoes.tile import end_words, tile_text
from tui.games.dominoes.train import DominoTrain
from tui.messages import TileChosen
from tui.plain import plain
from tui.screens.choice import ChoiceScreen
from tui.screens.table import SPECTATOR_HAND, TableScreen
from tui.widgets.footer import PasseFooter
from tui.widgets.game_log import GameLog
from tui.widgets.status_line import StatusLine

END_CHOICE = "end"


class DominoesTableScreen(TableScreen):
    DEFAULT_CSS = """
    DominoesTableScreen #dominoes-main { height: 1fr; }
    DominoesTableScreen #dominoes-left { width: 1fr; }
    DominoesTableScreen #dominoes-right { width: 34; }
    DominoesTableScreen.-wide #dominoes-right { width: 44; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # d and p are bound in the hand (DominoHand) to this screen's draw and
        # pass; when those are not allowed now, the same keys explain why.
        Binding("d", "why('draw')", "Explain", show=False),
        Binding("p", "why('pass')", "Explain", show=False),
        Binding("0,left_square_bracket,right_square_bracket", "explain", "Explain", show=False),
    ]
    TITLE_IN_HELP = "Passe dominoes table"
    GUIDE = (
        "Tiles read [3|5]; a double has a double bar, [5║5] (laid crosswise, DO-8).\n"
        "The train reads left to right over as many lines as it needs; its open\n"
        "ends are labelled on the top line: ◀ left end 3 … right end 5 ▶.\n"
        "Your hand: a key number above each tile (1-9, 0 for the tenth) and the\n"
        "ends it fits below it (L, R or L R). With more than ten tiles they read\n"
        "1-19: tiles 10 and up take two digits (1 then 2 for tile 12; 1 then\n"
        "Enter for tile 1). ←/→ (or h/l) move, Enter or space place the tile\n"
        "(a choice opens when it fits two different ends), [ and ] place it at\n"
        "the left or right end, a digit places that tile. To lead a round, any\n"
        "tile goes (DO-6). d draws one tile, which ends your turn; only while the\n"
        "boneyard holds more than two tiles (DO-4). p passes: always allowed\n"
        "(DO-7). A round ends on a domino, when blocked (DO-10) or after a full\n"
        "circle of passes (DO-11: a pass that would end it asks for p again);\n"
        "the lowest pip count scores the others' pips minus its own (DO-12,\n"
        "teams DO-14). r: rules, q/Escape: leave."
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.choice_open = False
        self.history: list[RoundSummary] = []
        self.last_moves: dict[int, str] = {}
        self.last_text = ""
        self.pass_warned = -1  # the update at which a round-ending pass was warned of

    def compose_table(self) -> ComposeResult:
        yield StatusLine(id="status")
        yield DominoTrain(id="train")
        with Horizontal(id="dominoes-main"):
            with Vertical(id="dominoes-left"):
                yield DominoHand(id="hand")
                yield GameLog(id="log")
            with Vertical(id="dominoes-right"):
                yield DominoPlayers(id="players")
                yield DominoScores(id="scores")
        # Compact, and the palette (ctrl+p, in the help) left out: with d
        # Draw, p Pass and the host's b Stand-in, F1 Help fell off the row
        # at 80 columns, under the palette's entry (issue 18).
        yield PasseFooter(compact=True, show_command_palette=False)

    # -- rendering ---------------------------------------------------------

    @property
    def do_view(self) -> DominoesView | None:
        return self.view if isinstance(self.view, DominoesView) else None

    def mine(self, view: DominoesView) -> bool:
        return self.PLAYS and view.seat is not None and view.turn == view.seat and not view.is_over

    def show_view(self, view: View, events: Sequence[Event]) -> None:
        assert isinstance(view, DominoesView)
        self._follow(view, events)
        mine = self.mine(view)
        leading = view.ends is None
        train = self.query_one(DominoTrain)
        train.border_title = f"Train · round {view.round}"
        train.border_subtitle = plain(self.last_text)  # names: text (issue 19)
        train.show(view.train, view.ends, self._empty_text(view))
        hand = self.query_one(DominoHand)
        # A spectator's view (seat None: a watcher's, a replay's) has no hand
        # of its own: every hand is face down, its size under Players (Tiles).
        if view.seat is None:
            hand.border_title = SPECTATOR_HAND
            hand.empty = "Every hand is face down: their sizes are under Players (Tiles)."
        else:
            counts = f"{plural(len(view.hand), 'tile')}, {plural(self._pips(view), 'pip')}"
            hand.border_title = plain(f"{self.hand_title(view.seat)}: {counts}")
            hand.empty = DominoHand.EMPTY
        hand.set_items(tuple(HandTile(t, self._fits(view, t)) for t in view.hand), leading=leading)
        hand.active = mine and not self.choice_open
        self.query_one(DominoPlayers).show(view, self.panel_names(), self.last_moves)
        self.query_one(DominoScores).show(view, self.names, self.history)
        self.say_status(self._status(view, mine), your_turn=mine)
        self.refocus()
        ended = [event for event in events if isinstance(event, RoundEnded)]
        if ended and not view.is_over and not self.catching_up:
            self._show_round_end(view, ended[-1].summary)

    def _follow(self, view: DominoesView, events: Sequence[Event]) -> None:
        """Keep what the views do not: each player's last move this round,
        the last move in words, and the finished rounds for the sheet."""
        if not self.history and view.last_round is not None:
            self.history.append(view.last_round)  # a resumed game
        for event in events:
            if isinstance(event, RoundStarted):
                self.last_moves = {}
            elif isinstance(event, Placed):
                self.last_moves[event.seat] = f"{event.tile}{event.end or ''}"
            elif isinstance(event, Drew):
                self.last_moves[event.seat] = "drew"
            elif isinstance(event, Passed):
                self.last_moves[event.seat] = "pass"
            elif isinstance(event, RoundEnded) and all(
                s.number != event.summary.number for s in self.history
            ):
                self.history.append(event.summary)
            if isinstance(event, RoundStarted):
                self.last_text = event.describe(self.log_names)
            elif isinstance(event, (Placed, Drew, Passed)):
                self.last_text = "Last: " + self.logged_line(event)

    def refocus(self) -> None:
        hand = self.query_one(DominoHand)
        if not hand.has_focus:
            hand.focus()

    @staticmethod
    def _pips(view: DominoesView) -> int:
        return sum(t.pips for t in view.hand)

    def _fits(self, view: DominoesView, tile: Tile) -> str:
        """The ends a tile fits now (shown under it in the hand): none once
        the game is over (a replay's end showed them, a play-test)."""
        if view.is_over:
            return ""
        if view.ends is None:
            return "any"  # DO-6: any tile leads
        left, right = view.ends
        ends = [name for name, pip in (("L", left), ("R", right)) if tile.has(pip)]
        return " ".join(ends)

    def _empty_text(self, view: DominoesView) -> str:
        if view.is_over:
            return "The game is over."
        leader = view.turn if view.turn is not None else view.leader
        if leader == view.seat:
            return f"Round {view.round}: the train is empty. You lead with any tile (DO-6)."
        return f"Round {view.round}: the train is empty. {self.acts(leader, 'leads')} (DO-6)."

    def _status(self, view: DominoesView, mine: bool) -> str:
        where = f"Round {view.round} · "
        if view.is_over:
            return "Game over."
        if not mine:
            if view.turn is None:
                return where
            return where + f"Waiting for {self.names[view.turn]}…"
        keys = tile_keys(len(view.hand))
        if view.ends is None:
            return where + f"You lead: place any tile (←→ and Enter, or {keys})."
        if self.pass_ends_round(view):
            # Draw too, whenever drawing is allowed (DO-4): issue 18.
            draw = ", draw (d)" if view.can_draw else ""
            return (
                where + f"Your turn: place a tile{draw} or pass (p): a pass ends the round (DO-11)."
            )
        if view.can_draw:
            return where + "Your turn: place a tile (⏎ or [ ]), draw (d) or pass (p)."
        return where + "Your turn: place a tile (⏎ or [ ]) or pass (p); no drawing."

    @staticmethod
    def pass_ends_round(view: DominoesView) -> bool:
        """DO-11: everyone else has passed since the last tile placed or
        drawn, so one more pass ends the round (as blocked)."""
        return view.ends is not None and view.passes == view.players - 1

    # -- decisions ---------------------------------------------------------

    def _places(self, view: DominoesView, tile: Tile) -> list[Place]:
        return [a for a in view.legal if isinstance(a, Place) and a.tile == tile]

    async def on_tile_chosen(self, message: TileChosen) -> None:
        view = self.do_view
        if view is None or not self.mine(view) or message.index >= len(view.hand):
            self.notify(self.explain(), title="Not now")
            return
        tile = view.hand[message.index]
        places = self._places(view, tile)
        if message.end is not None:
            wanted = [p for p in places if p.end == message.end]
            if wanted:
                await self._place(wanted[0])
            else:
                self.notify(self._no_fit(view, tile, message.end), title="Does not fit")
            return
        if len(places) == 1 or (len(places) > 1 and self._ends_alike(view)):
            await self._place(places[0])
        elif len(places) > 1:
            self._ask_end(view, tile, places)
        else:
            self.notify(self._no_fit(view, tile, None), title="Does not fit")

    @staticmethod
    def _ends_alike(view: DominoesView) -> bool:
        """Both open ends show the same number: a tile that fits one fits the
        other the same way, and either end gives the same train (mirrored),
        so there is nothing to ask."""
        return view.ends is not None and view.ends[0] == view.ends[1]

    async def _place(self, action: Place) -> None:
        self.query_one(DominoHand).active = False
        view = self.do_view
        where = ""
        if view is not None and view.ends is not None and action.end is not None:
            where = f" at the {end_words(action.end)} end"
        await self.play(action, f"place {tile_text(action.tile)}{where}")

    def _no_fit(self, view: DominoesView, tile: Tile, end: str | None) -> str:
        if view.ends is None:
            return "You lead: press Enter or the tile's number (no end yet, DO-6)."
        left, right = view.ends
        face = tile_text(tile)
        if end is not None:
            pip = left if end == "L" else right
            return f"{face} does not fit the {end_words(end)} end ({pip}): it needs a {pip}."
        draw = ", draw (d)" if view.can_draw else ""
        return (
            f"{face} fits neither end (left {left}, right {right}). Choose a tile "
            f"marked L or R{draw} or pass (p)."
        )

    def _ask_end(self, view: DominoesView, tile: Tile, places: list[Place]) -> None:
        assert view.ends is not None
        left, right = view.ends
        labels = [
            f"Left end ({left})   — or press [ in the hand"
            if p.end == "L"
            else f"Right end ({right})  — or press ] in the hand"
            for p in places
        ]
        body = Text(f"{tile_text(tile)} fits both open ends of the train.\n")
        self.choice_open = True
        self.query_one(DominoHand).active = False
        self.refresh_bindings()
        round_number = view.round

        def chosen(index: int | None) -> None:
            self.choice_open = False
            current = self.do_view
            if current is not None:
                self.query_one(DominoHand).active = self.mine(current)
            self.refresh_bindings()
            if index is None or current is None or current.round != round_number:
                return
            if places[index] in current.legal:
                self.run_worker(self._place(places[index]), exclusive=False)

        title = f"Place {tile_text(tile)} at which end?"
        self.push_dialog(ChoiceScreen(title, body, labels, kind=END_CHOICE), chosen)

    def bindings_state(self) -> object:
        return (
            super().bindings_state(),
            self.check_action("draw", ()),
            self.check_action("pass", ()),
            self.choice_open,
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.do_view
        if action == "draw":
            # DO-4: only while the boneyard holds more than two tiles.
            return bool(view and self.mine(view) and DRAW in view.legal and not self.choice_open)
        if action == "pass":
            # DO-7: always allowed once the train is started.
            return bool(view and self.mine(view) and PASS in view.legal and not self.choice_open)
        return super().check_action(action, parameters)

    async def action_draw(self) -> None:
        self.query_one(DominoHand).active = False
        await self.submit(DRAW)

    async def action_pass(self) -> None:
        view = self.do_view
        if (
            view is not None
            and self.pass_ends_round(view)
            and self.pass_warned != self.updates_received
        ):
            # DO-11: a round ending on a pass surprised players; the first p
            # says so, a second p (with nothing in between) passes.
            self.pass_warned = self.updates_received
            self.notify(
                "Everyone else has passed since the last tile: your pass ends the round "
                "(DO-11) and the lowest pip count scores. Press p again to pass.",
                title="A pass now ends the round",
                severity="warning",
            )
            return
        self.query_one(DominoHand).active = False
        await self.submit(PASS)

    def action_why(self, what: str) -> None:
        self.notify(self.why_not(what), title="Not now", severity="information")

    def why_not(self, what: str) -> str:
        """Why drawing or passing is not possible now (DO-4, DO-6)."""
        view = self.do_view
        if view is None or view.is_over or not self.mine(view) or self.choice_open:
            return self.explain()
        if view.ends is None:
            return f"You lead round {view.round}: start the train with any tile first (DO-6)."
        if what == "draw" and not view.can_draw:
            left = f"holds only {plural(view.boneyard, 'tile')}" if view.boneyard else "is empty"
            return (
                f"The boneyard {left}: the last two can never be drawn (DO-4). "
                "Place a tile or pass (p)."
            )
        return self.explain()

    def explain(self) -> str:
        view = self.do_view
        if view is None:
            return "The table is still being set up."
        if view.is_over:
            return "The game is over."
        if self.choice_open:
            return "Choose the end for your tile first."
        if not self.mine(view):
            if view.turn is None:
                return "Nothing to choose right now."
            return f"It is not your turn: {self.acts(view.turn, 'plays', start=False)} now."
        if view.ends is None:
            return (
                f"You lead: place any of your tiles (DO-6): {tile_keys(len(view.hand))}, "
                "or ←/→ and Enter."
            )
        draw = ", draw (d)" if view.can_draw else ""
        return (
            "Your turn: place a tile that fits an end (marked L or R under it) with "
            f"Enter, [ or ]{draw}, or pass (p)."
        )

    # -- summaries ---------------------------------------------------------

    def _show_round_end(self, view: DominoesView, summary: RoundSummary) -> None:
        body = render_round(
            summary, self.names, teams=view.teams, target=view.target, you=view.seat
        )
        self.show_round_end(f"End of round {summary.number}", body)

    def final_scores(self, view: View) -> RenderableType:
        assert isinstance(view, DominoesView)
        if view.last_round is not None:
            rounds = self.history or [view.last_round]
            return render_game(
                rounds, self.names, teams=view.teams, target=view.target, you=view.seat
            )
        return Text(
            " · ".join(
                f"{side_label(self.names, side, view.teams, short=True)} {side_score(view, side)}"
                for side in sides(view)
            )
        )
