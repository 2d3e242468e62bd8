"""Replaying a finished game (issue 21), at its game's own table.

The replay screen *is* the game's table screen (tui/games/<game>/table.py),
taught to step through the moves instead of playing them: for each game a
class ``Replay<GameTableScreen>`` (made once, by :func:`replay_screen`)
puts :class:`ReplayTableScreen` before it. Each moment is shown as a
resumed game's first update shows it: the screen forgets what earlier
updates taught it (it is as new), then gets the view of the chosen seat
after that many moves and every event that seat was shown so far (a
``TableUpdate``, from core/replay.py). Hands, trick or train, players,
score sheet and log are then the game's own widgets, as at that moment.

Nothing is played: the game's keys are off (only stepping, ``v``, the
rules, the game's look-back keys and leaving act), the screen keeps the
keys (no widget has the focus), and no dialog opens on its own (no choice,
no end-of-round summary, no end of game: the table shows it all).
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from core.replay import Replay
from net.authority.table import TableUpdate
from tui.messages import QuitRequested, TableUpdated
from tui.replay_client import ReplayClient
from tui.screens.base import PasseScreen
from tui.screens.read_only_table import ReadOnlyTableScreen, over_game_table
from tui.widgets.footer import PasseFooter
from tui.widgets.status_line import StatusLine

# What acts in a replay: stepping, whose view, reading (rules, help, the
# last trick) and leaving. Every other key of the game's table is off.
REPLAY_ACTIONS = frozenset(
    {
        "step",
        "to_start",
        "to_end",
        "round",
        "cycle_view",
        "leave",
        "rules",
        "help",
        "quit",
        "last_trick",
        "log_page",  # PgUp/PgDn (End goes to the game's end here)
    }
)
# What a table screen keeps that is no moment's own: never forgotten (the
# footer's keys as last shown: rebuilding the footer at every step took
# most of a step's time).
KEPT = frozenset({"client", "names", "host_controls", "_bindings_state"})
REPLAY_GUIDE = (
    "A replay: the game as it was played, move by move, at its own table.\n"
    "←/→ one move back or on; ↑ or Home: the deal, before the first move;\n"
    "↓ or End: the end of the game. [ and ]: the start of this round (or the\n"
    "one before), the start of the next round.\n"
    "v: whose view is shown: each seat's in turn (their hand, what they were\n"
    "told), then the spectator's (what everyone saw). The game is over, so\n"
    "every hand may be looked at. The log and the scores are as at that moment\n"
    "(PgUp/PgDn page the log).\n"
    "The bar above the table says where you are: the move, the round, whose\n"
    "view, and the move just made (seat numbers as in the file, from 1).\n"
    "r: the rules; q/Escape: leave the replay."
)

_screen_attributes: frozenset[str] | None = None


def _plain_screen_attributes() -> frozenset[str]:
    """What every Passe screen holds from Textual, which a replay never resets."""
    global _screen_attributes
    if _screen_attributes is None:
        _screen_attributes = frozenset(vars(PasseScreen()))
    return _screen_attributes


class ReplayTableScreen(ReadOnlyTableScreen):
    """Put before a game's table screen (see :func:`replay_screen`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the game's widgets bind some of these keys (the hands'
        # arrows, dominoes' [ and ]); in a replay they all step.
        # Each pair's twin says the pair too: the help lists whichever of
        # the two it meets first (it read "end  Ends" beside the footer's
        # "↑↓ Ends": a play-test).
        Binding("left", "step(-1)", "Move", key_display="←→", priority=True),
        Binding("right", "step(1)", "Move", key_display="←→", show=False, priority=True),
        Binding("up,home", "to_start", "Ends", key_display="↑↓", priority=True),
        Binding("down,end", "to_end", "Ends", key_display="↑↓", show=False, priority=True),
        Binding("left_square_bracket", "round(-1)", "Round", key_display="[]", priority=True),
        Binding(
            "right_square_bracket", "round(1)", "Round", key_display="[]", show=False, priority=True
        ),
        Binding("v", "cycle_view", "View", tooltip="Whose view: each seat's, then the spectator's"),
        Binding("q,escape", "leave", "Back", key_display="q", tooltip="Leave the replay"),
    ]
    TITLE_IN_HELP = "Replay"

    def __init__(
        self,
        replay: Replay,
        names: tuple[str, ...],
        *,
        seat: int | None = None,
        step: int = 0,
        exits: bool = False,
    ) -> None:
        super().__init__(ReplayClient(replay, names, seat))
        self.replay = replay
        self.step = max(0, min(step, replay.steps))
        self.viewer = seat
        # Opened by `passe replay FILE`: leaving ends Passe (as it began).
        self.exits = exits
        self._keys_acting: tuple[object, ...] = ()  # see refresh_bindings
        # The table screen's state as new (its own, the game's, the base's):
        # each moment starts from it, as a resumed game's screen does.
        self._as_new = {
            name: value
            for name, value in vars(self).items()
            if name not in _plain_screen_attributes() and name not in KEPT
        }
        # This class's own fields are the replay's, not the moment's.
        for name in ("replay", "step", "viewer", "exits", "_keys_acting"):
            self._as_new.pop(name, None)

    # -- showing a moment ------------------------------------------------------

    async def on_mount(self) -> None:
        # Textual calls the table screen's on_mount too (after this one): it
        # connects the client, which sends nothing. Shown again once laid
        # out: some words fit themselves to their panel's width (Pass Pass's
        # trick), which is not known before.
        self.show_moment()
        self.call_after_refresh(self.show_moment)
        # Compact, and without the palette's entry (ctrl+p, in the help): at
        # 80 columns the replay's keys and a game's own (Pass Pass's t)
        # pushed F1 Help under it.
        for footer in self.query(PasseFooter):
            footer.compact = True
            footer.show_command_palette = False

    def show_moment(self) -> None:
        """The table after :attr:`step` moves, from :attr:`viewer`'s seat."""
        moment = self.replay.moment(self.step, self.viewer)
        # The client's seat is whose view is shown: the table screen's log
        # names (TableScreen.log_names) make it "you", as that seat read the
        # log; the spectator's has no "you". The record's keeper is named.
        self.client.seat = self.viewer
        self._forget()
        log = self.game_log
        log.start_over()
        with log.in_one_write():
            self.on_table_updated(TableUpdated(TableUpdate(moment.view, moment.events)))
        # The log ends at this moment's last line (written all at once, it
        # scrolls once laid out).
        self.call_after_refresh(self.game_log.scroll_end, animate=False)

    def _forget(self) -> None:
        """Back to the state of a new screen (what earlier moments taught it,
        e.g. the last trick or the rounds seen, belongs to them)."""
        for name, value in self._as_new.items():
            setattr(self, name, value.copy() if isinstance(value, (list, dict, set)) else value)

    def go_to(self, step: int) -> None:
        step = max(0, min(step, self.replay.steps))
        if step == self.step:
            self.app.bell()  # at the deal or the end already
            return
        self.step = step
        self.show_moment()

    @property
    def viewer_label(self) -> str:
        return "spectator" if self.viewer is None else self.names[self.viewer]

    def status_text(self) -> str:
        """Where the replay is: the move, the round, whose view, the last move."""
        replay = self.replay
        parts = [f"Replay · move {self.step}/{replay.steps}"]
        round_number = replay.round_at(self.step)
        if round_number is not None:
            parts.append(f"round {round_number}")
        parts.append(f"view: {self.viewer_label}")
        move = replay.move(self.step)
        if self.step == replay.steps and replay.result is not None:
            parts.append("game over")
        if move is None:
            parts.append("the deal")
        else:
            seat, text = move
            parts.append(f"{self.names[seat]}: {text}")
        return " · ".join(parts)

    # -- what the table screen does otherwise, and a replay does not ----------

    def say_status(self, text: str, *, your_turn: bool) -> None:
        # The game's words speak to the player at its seat ("Your turn: play
        # a card"): in a replay the line says where the replay is instead.
        self.query_one(StatusLine).say(self.status_text(), your_turn=False)

    def show_game_over(self, view: Any) -> None:
        """Nothing opens: the last move's table shows the result."""

    def help_notes(self) -> str:
        return REPLAY_GUIDE

    def refresh_bindings(self) -> None:
        # The footer is rebuilt only when the keys that act change (t once
        # there is a last trick, all but q while too small): the game's
        # widgets ask at each step (a hand turned active when its seat is to
        # play), and each rebuild took 30 ms of a step's time.
        # (And when the focus moves: a widget that had it a moment showed its keys.)
        acting = (
            self.focused,
            *(self.check_action(action, ()) for action in sorted(REPLAY_ACTIONS)),
        )
        if acting != self._keys_acting:
            self._keys_acting = acting
            super().refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action not in REPLAY_ACTIONS:
            return False
        return super().check_action(action, parameters)

    # -- keys ------------------------------------------------------------------

    def action_step(self, moves: int) -> None:
        self.go_to(self.step + moves)

    def action_to_start(self) -> None:
        self.go_to(0)

    def action_to_end(self) -> None:
        self.go_to(self.replay.steps)

    def action_round(self, direction: int) -> None:
        replay = self.replay
        step = replay.next_round(self.step) if direction > 0 else replay.previous_round(self.step)
        self.go_to(step)

    def action_cycle_view(self) -> None:
        views = self.replay.seats()
        self.viewer = views[(views.index(self.viewer) + 1) % len(views)]
        self.show_moment()

    def action_leave(self) -> None:
        if self.exits:
            self.post_message(QuitRequested())
        else:
            self.app.pop_screen()


_replay_types: dict[str, type[ReplayTableScreen]] = {}


def replay_screen(
    replay: Replay,
    names: tuple[str, ...],
    *,
    seat: int | None = None,
    step: int = 0,
    exits: bool = False,
) -> ReplayTableScreen:
    """The replay screen of ``replay``'s game, at ``step`` from ``seat``'s
    view. Raises ``LookupError`` or ``ImportError`` if the game has no table
    screen here."""
    title = f"Replay of a {replay.title} game"
    screen_type = over_game_table(ReplayTableScreen, replay.game.id, "Replay", title, _replay_types)
    return screen_type(replay, names, seat=seat, step=step, exits=exits)


__all__ = ["REPLAY_ACTIONS", "ReplayTableScreen", "replay_screen"]
