"""The end of a game: winners (or a shared victory), why, the scores (the
whole round-by-round table: it scrolls with ↑/↓ where it is longer than the
dialog); play again with the same settings (at a networked table: the next
game, same seats), or go home.

The keys and the deal check are docked at the dialog's bottom, so they
always show whole; where everything does not fit, the dialog takes its
full height and the scores the rows left, scrolling (issue 18: at 80x24 a
host's keys line and the deal check fell below the box, and with them its
word that the scores scroll)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.console import RenderableType
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.widgets import Static

from core.engine import Result
from tui.plain import literal, plain
from tui.screens.base import PasseModal
from tui.widgets.footer import PasseFooter

AGAIN = "again"
HOME = "home"
# What "again" means: the same settings here, or the next game at a networked
# table (its host opens it; the others join it once invited).
LOCAL, HOSTING, GUEST = "local", "hosting", "guest"
# Each fits the dialog's 72 columns with SCROLL_HINT after it (one line).
KEYS_HINT = "a / Enter: play again · h / Esc: home · q: quit"
HOST_KEYS_HINT = "a / Enter: next game, same table · h / Esc: home · q: quit"
GUEST_KEYS_HINT = "h / Esc: home · q: quit (the host may open a next game)"
INVITED_KEYS_HINT = "a / Enter: join the next game · h / Esc: home · q: quit"
HOST_GONE_KEYS_HINT = "h / Esc: home · q: quit (the host has left the table)"
# The table moved to a player's machine (issue 20): that person may open one.
MOVED_KEYS_HINT = "h / Esc: home · q: quit (the table's new host may open a next game)"
# A dealer's room (passe dealer): the person who asked for it asks its
# dealer for the next game (a); the others are invited once it is open.
DEALT_KEYS_HINT = "h / Esc: home · q: quit (its asker may open a next game)"
ASKING_KEYS_HINT = "Asking the dealer for the next game… · h / Esc: home"
DEALER_GONE_KEYS_HINT = "h / Esc: home · q: quit (the dealer closed this table)"
SCROLL_HINT = " · ↑↓ scroll"


class ScoresScroll(VerticalScroll):
    """The final scores: ↑↓ scroll them, and the footer says so while
    there is more than the dialog shows (issue 18)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "scroll_up", "Scroll", key_display="↑↓"),
        Binding("down", "scroll_down", "Scroll", show=False),
    ]

    class Changed(Message):
        """Whether the scores scroll may have changed: their box's size or
        their own (the hint said nothing of ↑↓ where the scores grew after
        the last look: CI, 6 December)."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("scroll_up", "scroll_down"):
            return self.max_scroll_y > 0
        return super().check_action(action, parameters)

    def watch_virtual_size(self, size: Size) -> None:
        self.post_message(self.Changed())

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Changed())


def verdict(result: Result, names: Sequence[str], seat: int | None) -> str:
    # "A, B and C" (a play-test read "A and B and C").
    listed = [names[s] for s in result.winners]
    winners = " and ".join([", ".join(listed[:-1]), listed[-1]] if len(listed) > 2 else listed)
    if result.shared:
        headline = f"Shared victory: {winners}!"
    elif seat is not None and seat in result.winners:
        headline = "You win!" if len(result.winners) == 1 else f"Your team wins: {winners}!"
    else:
        headline = f"{winners} win{'s' if len(result.winners) == 1 else ''}."
    return f"{headline}\nWhy: {result.reason}."


class GameOverScreen(PasseModal[str]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a,enter", "again", "Play again", key_display="a"),
        Binding("h,escape", "home", "Home", key_display="h"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(
        self,
        result: Result,
        names: Sequence[str],
        seat: int | None,
        scores: RenderableType,
        *,
        table: str = LOCAL,
        invited: bool = False,
        moved: bool = False,
        dealt: bool = False,
        ask_next: Callable[[], bool] | None = None,
        deal_check: str = "",
    ) -> None:
        super().__init__()
        # A networked game's fair-deal check, said on every game-over screen
        # (issue 18: it was a 5-second toast, on joiners only).
        self.deal_check = deal_check
        self.table = table  # LOCAL, HOSTING or GUEST
        # A guest plays again once the host has opened the next game.
        self.invited = invited
        self.host_gone = False  # a guest's host left without opening one
        # The table moved from its host's machine to a player's: no host is
        # left to open a next game (found by hand: the screens said one may).
        self.moved = moved
        self.dealt = dealt  # a dealer's room: its dealer opens the next game
        # The owner of a dealer's room asks its dealer for the next game
        # (a), and joins it once it is open: ``asking`` meanwhile.
        self.ask_next = ask_next
        self.asking = False
        self.result = result
        self.names = tuple(names)
        self.seat = seat
        self.scores = scores

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="game-over-box"):
            yield Static("Game over", classes="dialog-title")
            # Winners' names and the reason come from the table: text (issue 19).
            yield Static(plain(verdict(self.result, self.names, self.seat)), id="verdict")
            with Vertical(id="game-over-keys"):
                if self.deal_check:
                    yield Static(plain(self.deal_check), id="deal-check")
                yield Static(self.keys_hint, id="game-over-hint")
            with ScoresScroll(id="final-scroll"):
                yield Static(literal(self.scores), id="final-scores")
        yield PasseFooter()

    def say_deal_check(self, text: str) -> None:
        """The check's outcome, once the final record has come."""
        self.deal_check = text
        self._show_deal_check()

    def _show_deal_check(self) -> None:
        """The deal check's line as :attr:`deal_check` says it now. Before
        the dialog's parts are mounted there is nothing to update, and
        ``on_mount`` shows it: an outcome that came between ``compose``
        (which wrote "checking…") and the mount was lost, and the screen
        said "checking" for good (a play-test, one joiner of two)."""
        shown = self.query("#deal-check")
        if shown and self.deal_check:
            shown.first(Static).update(plain(self.deal_check))
            self.call_after_refresh(self._hint_scrolling)  # it may take more rows

    @property
    def again(self) -> bool:
        asks = self.ask_next is not None and not self.asking and not self.host_gone
        return self.table != GUEST or self.invited or asks

    @property
    def keys_hint(self) -> str:
        if self.table == GUEST:
            if self.invited:
                return INVITED_KEYS_HINT
            if self.asking:
                return ASKING_KEYS_HINT
            if self.dealt and self.host_gone:
                return DEALER_GONE_KEYS_HINT
            if self.ask_next is not None:
                return HOST_KEYS_HINT
            if self.dealt:
                return DEALT_KEYS_HINT
            if self.moved:
                return MOVED_KEYS_HINT
            return HOST_GONE_KEYS_HINT if self.host_gone else GUEST_KEYS_HINT
        return HOST_KEYS_HINT if self.table == HOSTING else KEYS_HINT

    def invite(self) -> None:
        """The host opened the next game at this table: a joins it (at once
        for the owner of a dealer's room who asked for it)."""
        self.invited = True
        if self.asking:
            self.dismiss(AGAIN)
            return
        self._hint_scrolling()
        self.refresh_bindings()

    def next_refused(self) -> None:
        """The dealer refused the next game (said in a toast): a may ask again."""
        self.asking = False
        self._hint_scrolling()

    def host_left(self) -> None:
        """A guest's host went away without opening a next game (a dealer
        asked for one, too: nothing is coming from it now)."""
        if not self.invited:
            self.host_gone = True
            self.asking = False
            self._hint_scrolling()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "again" and not self.again:
            return False
        return super().check_action(action, parameters)

    def on_mount(self) -> object:
        self._show_deal_check()
        self.call_after_refresh(self._hint_scrolling)
        return super().on_mount()

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        self.call_after_refresh(self._hint_scrolling)  # more or fewer rows now

    @on(ScoresScroll.Changed)
    def _scores_changed(self) -> None:
        self.call_after_refresh(self._hint_scrolling)

    def _hint_scrolling(self) -> None:
        """Fit the scores to the dialog, and say that they scroll, when they
        do, in the dialog and the footer."""
        boxes, hints, scrolls = (
            self.query(part) for part in ("#game-over-box", "#game-over-hint", ScoresScroll)
        )
        if not (boxes and hints and scrolls):
            # Being taken down (the person quit) as the host left or opened
            # the next game: nothing left to fit (CI, 4 December: a guest's
            # app ended with NoMatches as it quit).
            return
        box = boxes.first()
        if box.max_scroll_y > 0 and not box.has_class("-long"):
            # More than the dialog holds (no CSS height alone both shrinks
            # to short scores and leaves long ones the rows left beside
            # the docked keys): full height, the scores in the rest.
            box.add_class("-long")
            self.call_after_refresh(self._hint_scrolling)
            return
        more = scrolls.first().max_scroll_y > 0
        hints.first(Static).update(self.keys_hint + (SCROLL_HINT if more else ""))
        self.refresh_bindings()

    def action_again(self) -> None:
        if self.table == GUEST and not self.invited and self.ask_next is not None:
            # The dealer opens it; its notice invites us, and we join then.
            self.asking = self.ask_next()
            if not self.asking:
                self.notify(
                    "Not connected to the room just now: a asks again.",
                    title="Next game",
                    severity="warning",
                )
            self._hint_scrolling()
            return
        self.dismiss(AGAIN)

    def action_home(self) -> None:
        self.dismiss(HOME)
