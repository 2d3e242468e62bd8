"""Your won cards this round, grouped by colour with a count per colour, and
what your next Pass Pass needs (PP-18: one won card of each of the four
colours per Pass Pass; PP-19/PP-24: the third wins the game at once).

Issue 18: the players panel gave only a total of won cards, so a person could
not follow their Pass Pass progress. The panel takes the room left at the
bottom of the side column: with room for it, one line per colour with the
cards ("violet 2  V3 V8"); where there is less (six players in teams at
80x24), the counts on one line ("V2 B0 G3 Y1"), so nothing is cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.text import Text
from textual.widget import Widget

from core.passpass.model import COLOURS, PASS_PASS_TO_WIN, Card, Colour
from core.passpass.state import PassPassView
from tui.games.passpass.card import COLOUR_COMPONENTS

LABEL_WIDTH = max(len(colour.label) for colour in COLOURS)  # "yellow", "violet"


@dataclass(frozen=True)
class WonCards:
    """What the panel shows: one seat's won cards and its Pass Pass figures."""

    cards: tuple[Card, ...]
    pass_pass: int  # checked this round (PP-18)
    recorded: int  # the Pass Pass of earlier rounds that count toward 3 (PP-19/PP-24)
    over: bool = False  # the game is over: no next Pass Pass to speak of

    @classmethod
    def of(cls, view: PassPassView) -> WonCards | None:
        """The reader's own won cards; ``None`` for a spectator."""
        seat = view.seat
        if seat is None:
            return None
        # Individual: the seat's own record; teams: the team's (PP-24 adds
        # one player's count this round to the team's earlier rounds).
        recorded = view.pass_pass_totals[view.team_of[seat]]
        return cls(view.won[seat], view.pass_pass_round[seat], recorded, view.is_over)

    def by_colour(self) -> list[tuple[Colour, list[Card]]]:
        return [
            (colour, sorted((c for c in self.cards if c.colour == colour), key=lambda c: c.value))
            for colour in COLOURS
        ]

    def missing(self) -> list[Colour]:
        """The colours the next Pass Pass still needs a card of: those with
        the fewest won cards (PP-18: the count is the least colour count)."""
        counts = [len(cards) for _, cards in self.by_colour()]
        return [
            colour for colour, count in zip(COLOURS, counts, strict=True) if count == min(counts)
        ]

    @property
    def next_wins(self) -> bool:
        """The next Pass Pass would be the third: an immediate win (PP-19/PP-24)."""
        return self.recorded + self.pass_pass + 1 >= PASS_PASS_TO_WIN

    def need_text(self, *, letters: bool = False, brief: bool = False) -> str:
        """What the next Pass Pass needs: "Next Pass Pass needs blue, yellow";
        at the start of a round "Next Pass Pass: one of each colour"; with
        ``letters``, colour letters ("Next Pass Pass needs B Y"), for a
        narrow line, and with ``brief`` too "PP" for a border ("Next PP needs
        B Y"). Said when the next one would win the game (PP-19/PP-24)."""
        missing = self.missing()
        if letters:
            name = "PP" if brief else "Pass Pass"
            what = f"Winning {name}" if self.next_wins else f"Next {name}"
            return f"{what} needs {' '.join(colour.letter for colour in missing)}"
        what = "Next Pass Pass wins the game" if self.next_wins else "Next Pass Pass"
        if len(missing) == len(COLOURS):
            more = "one" if self.pass_pass == 0 else "one more"
            return f"{what}: {more} of each colour"
        join = "; needs" if self.next_wins else " needs"
        return f"{what}{join} {', '.join(colour.label for colour in missing)}"

    def short_need(self) -> str:
        """The need in a few cells, after the counts: "needs B Y"."""
        head = "wins, " if self.next_wins else ""
        return f"{head}needs {' '.join(colour.letter for colour in self.missing())}"


class WonCardsPanel(Widget):
    """The reader's won cards by colour (PP-18); attributes down: :meth:`show`."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {*COLOUR_COMPONENTS, "won--label", "won--need"}
    DEFAULT_CSS = """
    WonCardsPanel {
        border: round $primary 50%;
        border-title-color: $text;
        height: 1fr;
        min-height: 3;
        padding: 0 0;
    }
    WonCardsPanel > .card--violet {
        background: $pp-violet; color: $pp-violet-text; text-style: bold;
    }
    WonCardsPanel > .card--blue {
        background: $pp-blue; color: $pp-blue-text; text-style: bold;
    }
    WonCardsPanel > .card--green {
        background: $pp-green; color: $pp-green-text; text-style: bold;
    }
    WonCardsPanel > .card--yellow {
        background: $pp-yellow; color: $pp-yellow-text; text-style: bold;
    }
    WonCardsPanel > .won--label { color: $text-muted; }
    WonCardsPanel > .won--need { color: $accent; text-style: bold; }
    """

    won: WonCards | None = None
    lines: tuple[Text, ...] = ()

    def on_mount(self) -> None:
        self.border_title = "Your won cards"

    def show(self, view: PassPassView) -> None:
        won = WonCards.of(view)
        self.display = won is not None
        if won != self.won:
            self.won = won
            self.lay_out()

    def on_resize(self) -> None:
        self.lay_out()  # the layout depends on the room the panel has

    def lay_out(self) -> None:
        """Choose the lines for the room there is now (in :meth:`render`
        nothing may change the border)."""
        won = self.won
        lines: list[Text] = []
        subtitle = ""
        if won is not None:
            size = self.content_size
            lines, subtitle = self.layout_lines(won, size.width, size.height)
        self.lines = tuple(lines)
        self.border_subtitle = subtitle
        self.refresh()

    def render(self) -> RenderableType:
        return Group(*self.lines)

    def layout_lines(self, won: WonCards, width: int, height: int) -> tuple[list[Text], str]:
        """The fullest layout that fits ``height`` lines, and the bottom
        border's text: the cards per colour with the need below, in words or
        in letters; the cards per colour with the need in the border; the
        counts on one line with the need below; both on one line."""
        colours = self.colour_lines(won, width)
        if won.over:
            return (colours, "") if len(colours) <= height else ([self.counts_line(won)], "")
        need_style = self.get_component_rich_style("won--need")
        in_words = list(Text(won.need_text(), need_style).wrap(self.app.console, max(width, 1)))
        for line in in_words:
            line.rstrip()  # a wrapped line keeps the space it broke at
        in_letters = Text(won.need_text(letters=True), need_style, overflow="ellipsis")
        need = list(in_words) if len(in_words) == 1 else [in_letters]
        if len(colours) + len(in_words) <= height:
            return [*colours, *in_words], ""
        if len(colours) + 1 <= height:
            return [*colours, *need], ""
        if len(colours) <= height:
            return colours, won.need_text(letters=True, brief=True)
        counts = self.counts_line(won)
        if height >= 2:
            return [counts, *need], ""
        counts.append(" · ")
        counts.append(won.short_need(), need_style)
        return [counts], ""

    def colour_lines(self, won: WonCards, width: int) -> list[Text]:
        """One line per colour, "green   3  G3 G5 G10"; a colour whose cards
        do not fit in ``width`` shows their values ("green   7  1 2 3 5 …")."""
        label = self.get_component_rich_style("won--label")
        lines: list[Text] = []
        for colour, cards in won.by_colour():
            line = Text(no_wrap=True, overflow="ellipsis")
            line.append(f"{colour.label:<{LABEL_WIDTH}} {len(cards):>2}", label)
            words = [str(card) for card in cards]
            if cell_len(line.plain) + 1 + sum(len(word) + 1 for word in words) > width:
                words = [str(card.value) for card in cards]  # the line names the colour
            style = self.get_component_rich_style(COLOUR_COMPONENTS[colour])
            for index, word in enumerate(words):
                line.append("  " if index == 0 else " ")
                line.append(word, style)
            lines.append(line)
        return lines

    def counts_line(self, won: WonCards) -> Text:
        """ "V2 B0 G3 Y1": each colour's letter, in its colour, and count."""
        line = Text(no_wrap=True, overflow="ellipsis")
        for index, (colour, cards) in enumerate(won.by_colour()):
            if index:
                line.append(" ")
            line.append(
                f"{colour.letter}{len(cards)}",
                self.get_component_rich_style(COLOUR_COMPONENTS[colour]),
            )
        return line
