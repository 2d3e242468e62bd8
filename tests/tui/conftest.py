"""Shared helpers for the TUI tests: an app with a private config file, and
a driver that plays a whole game through key presses only."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen

from core.engine import View
from core.passpass.state import PassPassView
from core.registry import get_game
from net.authority.table import HUMAN, Listener, SavedTable, SeatSpec, Table, TableUpdate
from net.peer.client import LocalClient, TableClient
from tui.app import PasseApp
from tui.games.passpass.table import PassPassTableScreen
from tui.saves import save_path, write_save
from tui.screens.choice import ChoiceScreen
from tui.screens.game_over import GameOverScreen
from tui.screens.round_end import RoundEndScreen
from tui.screens.table import TableScreen
from tui.widgets.too_small import MIN_HEIGHT, MIN_WIDTH

SIZE = (80, 24)
NAMES = ("You", "Ada", "Bruno", "Cleo")
SpyT = TypeVar("SpyT", bound=TableClient)
RecordingT = TypeVar("RecordingT", bound="RecordingClient")


@pytest.fixture(autouse=True)
def private_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never read or write the real user's settings, nor another test's
    data: a home screen whose data directory held the pins of an earlier
    networked test looked for a seat to rejoin on the network (the data
    directory was one per test process)."""
    directory = tmp_path / "config"
    monkeypatch.setenv("PASSE_CONFIG_DIR", str(directory))
    monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return directory / "settings.json"


def write_settings(path: Path, **data: object) -> None:
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


class RecordingClient(LocalClient):
    """Records every update the screen receives, with what was hidden from
    this seat at that moment (read from the authority's state, which the UI
    itself never sees): subclasses say what is hidden in :meth:`hidden_now`."""

    def __init__(self, client: LocalClient) -> None:
        super().__init__(client.table, client.seat)
        self.seen: list[tuple[TableUpdate, set[str]]] = []
        self.connected_at: int | None = None  # len(seen) when the screen connected

    def hidden_now(self) -> set[str]:
        raise NotImplementedError

    def note(self, update: TableUpdate) -> None:
        # Not "record": that is every client's game record (TableClient.record),
        # which the table screen asks for at the end of the game.
        self.seen.append((update, self.hidden_now()))

    async def connect(self, listener: Listener) -> None:
        def noted(update: TableUpdate) -> None:
            self.note(update)
            listener(update)

        self.connected_at = len(self.seen)
        await super().connect(noted)

    def on_screen(self) -> list[TableUpdate]:
        """The updates the screen received (not those recorded in core before)."""
        assert self.connected_at is not None
        return [update for update, _ in self.seen[self.connected_at :]]

    def check_screen_saw(self, kinds: Sequence[type], at_least: int) -> None:
        """The screen's first update holds the log so far (the events checked
        in core), and then it received events of each of ``kinds``; at
        least ``at_least`` updates were checked in all."""
        log_so_far, *played = self.on_screen()
        assert log_so_far.events == tuple(
            event for update, _ in self.seen[: self.connected_at] for event in update.events
        )
        on_screen = [type(event) for update in played for event in update.events]
        for kind in kinds:
            assert kind in on_screen, kind
        assert len(self.seen) > at_least


class SpyApp(PasseApp, Generic[SpyT]):
    """An app whose new games' clients are wrapped by ``spy_type``, to watch
    exactly what a table screen receives (the spies are kept in ``spies``).
    With ``continued``, the new game is that spy's table, played on in core
    so far (see :func:`spy_until`), instead of a fresh deal."""

    def __init__(
        self,
        spy_type: Callable[[LocalClient], SpyT],
        *,
        continued: SpyT | None = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.spy_type = spy_type
        self.continued = continued
        self.spies: list[SpyT] = []

    def make_client(self, game_id: str, **options: Any) -> TableClient:
        if self.continued is not None:
            assert self.continued.game_id == game_id
            self.spies.append(self.continued)
            return self.continued
        client = super().make_client(game_id, **options)
        assert isinstance(client, LocalClient)
        spy = self.spy_type(client)
        self.spies.append(spy)
        return spy


def footer_keys(app: PasseApp) -> list[tuple[str, int]]:
    """The current screen's footer keys: description and right edge (cells)."""
    from textual.widgets._footer import FooterKey

    return [(key.description, key.region.right) for key in app.screen.query(FooterKey)]


def shown_keys(app: PasseApp) -> list[tuple[str, str]]:
    """The current screen's footer: each key as shown, with its description."""
    from textual.widgets._footer import FooterKey

    return [(key.key_display, key.description) for key in app.screen.query(FooterKey)]


def help_fits(app: PasseApp) -> bool:
    """The footer shows F1 Help within the terminal's width."""
    return any(
        description == "Help" and right <= app.size.width for description, right in footer_keys(app)
    )


def footer_fits(app: PasseApp) -> bool:
    """Every footer key shows whole within the terminal's width, none
    hidden under the command palette's entry (docked at the right), and F1
    Help is among them."""
    from textual.widgets._footer import FooterKey

    keys = list(app.screen.query(FooterKey))
    palette = [key for key in keys if key.has_class("-command-palette")]
    right = min((key.region.x for key in palette), default=app.size.width)
    others = [key for key in keys if key not in palette]
    return help_fits(app) and all(key.region.right <= right for key in others)


def passpass_seed(*, you_lead: bool) -> int:
    """A seed of a 4-player Pass Pass game whose first trick is led by you
    (seat 0) or, with ``you_lead=False``, by a bot (so it is not your turn)."""
    from core.registry import get_game

    game = get_game("passpass")
    config = game.make_config(players=4)
    return next(
        s for s in range(100) if (game.new_game(config, s).view(None).leader == 0) == you_lead
    )


async def resize(pilot: Pilot[Any], width: int, height: int) -> None:
    """The terminal resized to ``width`` x ``height``, and the screen on top
    sized to it, its too-small guard as that size asks: the resize reaches
    the screen as a message of its own, and one pause was not always
    enough under load (test_no_key_acts_behind_the_too_small_message, a
    full run with random order, 6 December)."""
    await pilot.resize_terminal(width, height)
    small = width < MIN_WIDTH or height < MIN_HEIGHT
    deadline = time.monotonic() + 30

    def sized() -> bool:
        screen = pilot.app.screen
        return tuple(screen.size) == (width, height) and screen.has_class("-too-small") == small

    while not sized():
        if time.monotonic() > deadline:
            raise AssertionError(f"the screen never took the size {width}x{height}")
        await pilot.pause(0.01)


def make_app(config: Path, *, seed: int = 7, bot_delay: float | None = 0.0) -> PasseApp:
    return PasseApp(config_path=config, bot_delay=bot_delay, seed=seed)


def save_when(
    config: Path,
    game_id: str,
    wanted: Callable[[View], bool],
    *,
    players: int = 4,
    options: dict[str, Any] | None = None,
) -> SavedTable:
    """Play games in core, fast (you: random legal moves; bots: heuristic),
    until it is your turn in a position ``wanted`` accepts, and save it as
    the app does: the home screen then offers to continue it."""
    for seed in range(1, 50):
        saved = _play_until(game_id, wanted, seed, players, options or {})
        if saved is not None:
            assert write_save(save_path(config), saved) is None
            return saved
    raise AssertionError("the wanted position never came")


def _play_until(
    game_id: str,
    wanted: Callable[[View], bool],
    seed: int,
    players: int,
    options: dict[str, Any],
) -> SavedTable | None:
    table = _core_table(game_id, seed, players, options)
    if _play_in_core(table, wanted, random.Random(seed)):
        return SavedTable(table.record(), table.seats, 0)
    return None


def spy_until(
    spy_type: Callable[[LocalClient], RecordingT],
    game_id: str,
    wanted: Callable[[View], bool],
    *,
    players: int = 4,
    options: dict[str, Any] | None = None,
) -> RecordingT:
    """Like :func:`save_when`, but the table itself is kept, in a spy that
    recorded every update your seat was sent in core (with what was hidden
    then): pass it to :class:`SpyApp` as ``continued`` to play on through
    the screen."""
    for seed in range(1, 50):
        table = _core_table(game_id, seed, players, options or {})
        spy = spy_type(LocalClient(table, 0))
        stop = table.subscribe(0, spy.note)
        found = _play_in_core(table, wanted, random.Random(seed))
        stop()
        if found:
            return spy
    raise AssertionError("the wanted position never came")


def _core_table(game_id: str, seed: int, players: int, options: dict[str, Any]) -> Table:
    seats = [SeatSpec(NAMES[0], HUMAN)] + [SeatSpec(name, "heuristic") for name in NAMES[1:players]]
    config = get_game(game_id).make_config(players=players, **options)
    return Table.new(game_id, config, seed, seats, bot_delay=0)


def _play_in_core(table: Table, wanted: Callable[[View], bool], moves: random.Random) -> bool:
    """Play fast (you: random legal moves; bots: heuristic) until it is your
    turn in a position ``wanted`` accepts (True) or the game is over (False)."""
    while not table.state.is_over:
        state = table.state
        if 0 in state.to_act:
            if wanted(state.view(0)):
                return True
            table.submit(0, moves.choice(state.legal_actions(0)))
        else:
            table.step_bot()
    return False


async def continue_game(pilot: Pilot[Any]) -> TableScreen:
    await pilot.press("c")
    await pilot.pause()
    table = pilot.app.screen
    if isinstance(table, ChoiceScreen):  # fashion's "who plays?" opens by itself
        table = pilot.app.screen_stack[-2]
    assert isinstance(table, TableScreen)
    return table


@dataclass
class GameLog:
    """What happened while the driver played."""

    choices: list[str] = field(default_factory=list)  # kinds of choice dialogs
    picks: int = 0  # first-winner picks made in the trick widget
    plays: int = 0
    round_ends: int = 0
    keys: list[str] = field(default_factory=list)


async def press(pilot: Pilot[None], log: GameLog, *keys: str) -> None:
    log.keys.extend(keys)
    await pilot.press(*keys)


def my_turn(screen: PassPassTableScreen) -> PassPassView | None:
    view = screen.pp_view
    if view is None or view.is_over or view.seat not in view.to_act:
        return None
    return view


async def play_to_end(
    pilot: Pilot[None],
    *,
    max_steps: int = 4000,
    choose: Callable[[ChoiceScreen], str] = lambda screen: "1",
) -> tuple[GameOverScreen, GameLog]:
    """Play the human seat with keys only until the end-of-game screen:
    cards with digits or arrows + Enter, picks in the trick, choices in
    their dialogs, Enter on end-of-round summaries."""
    over, log = await play_rounds(pilot, None, max_steps=max_steps, choose=choose)
    assert isinstance(over, GameOverScreen)
    return over, log


async def play_rounds(
    pilot: Pilot[None],
    rounds: int | None,
    *,
    max_steps: int = 4000,
    choose: Callable[[ChoiceScreen], str] = lambda screen: "1",
) -> tuple[Screen[Any], GameLog]:
    """``play_to_end``, or only until the summary of round ``rounds`` is
    open (that screen is returned)."""
    app = pilot.app
    log = GameLog()
    for _step in range(max_steps):
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, GameOverScreen):
            return screen, log
        if isinstance(screen, RoundEndScreen) and log.round_ends + 1 == rounds:
            return screen, log
        if isinstance(screen, RoundEndScreen):
            log.round_ends += 1
            await press(pilot, log, "enter")
            continue
        if isinstance(screen, ChoiceScreen):
            log.choices.append(screen.kind)
            await press(pilot, log, choose(screen))
            continue
        if not isinstance(screen, PassPassTableScreen):
            raise AssertionError(f"unexpected screen {screen!r}")
        view = my_turn(screen)
        if view is None:
            await pilot.pause(0.005)
            continue
        if view.phase == "play":
            log.plays += 1
            # Alternate the two ways to play: a digit, or arrows then Enter.
            # By the count of plays, not of loop turns (those depend on how
            # fast the bots answer): the same seed plays the same game.
            if log.plays % 2:
                await press(pilot, log, str(len(view.hand)))
            else:
                await press(pilot, log, "right", "enter")
        elif view.phase == "pick":
            log.picks += 1
            await press(pilot, log, "left", "space")
        elif view.phase in ("take", "represent"):
            await press(pilot, log, "c")
    raise AssertionError(f"the game did not end in {max_steps} steps")


def on_top(app: App[Any]) -> object:
    """``app.screen`` as ``object``, for a check on the screen on top now:
    mypy keeps no earlier ``isinstance(app.screen, ...)`` across the awaits
    that change the screen, and ``is`` does not narrow the screen compared
    to ``Screen[object]``."""
    return app.screen
