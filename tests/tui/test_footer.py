"""The key bar keeps nothing it no longer shows (tui/widgets/footer.py):
Textual's own Footer kept every key it had ever built (Textualize/textual#6666),
hundreds of MB of a host's memory after an evening at a table."""

from __future__ import annotations

import gc
from pathlib import Path
from weakref import WeakSet

from textual.widgets._footer import FooterKey

from tests.tui.conftest import SIZE, make_app, play_rounds
from tests.tui.test_network import wait_until
from tui.games.passpass.table import PassPassTableScreen
from tui.screens.round_end import RoundEndScreen
from tui.widgets.footer import PasseFooter

ROUNDS_OF_KEYS = 40


def _watchers(footer: PasseFooter) -> int:
    return sum(len(entries) for entries in getattr(footer, "__watchers", {}).values())


async def test_the_key_bar_forgets_the_keys_it_rebuilt(private_config: Path) -> None:
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        footer = app.screen.query_one(PasseFooter)
        # Once composed: one pause was not always enough on a loaded machine
        # (CI, a clean clone: no key yet).
        await wait_until(pilot, lambda: len(footer.query(FooterKey)) > 0, "the keys")
        shown = len(footer.query(FooterKey))
        for _ in range(ROUNDS_OF_KEYS):  # as a table's keys change at each view
            app.screen.refresh_bindings()
            await pilot.pause()
        await wait_until(pilot, lambda: len(footer.query(FooterKey)) == shown, "the same keys")
        # One watcher per key shown, and not one per key ever built (there
        # were ROUNDS_OF_KEYS times as many).
        assert _watchers(footer) <= 2 * shown, _watchers(footer)


async def test_a_round_leaves_no_trail_of_keys(private_config: Path) -> None:
    """From a game's first view to its first round's summary, the keys that
    stay alive are those of the screens open then, give or take the last
    ones being taken down (400 more after a game of two rounds before the
    fix: about 200 a round; a round, not the whole game, keeps the suite
    short)."""
    app = make_app(private_config, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")  # the home screen's Start
        await pilot.pause()
        assert isinstance(app.screen, PassPassTableScreen)
        gc.collect()
        # Only the keys built from here on: those of the home screen below,
        # or of earlier tests' apps not collected yet, are not the game's.
        earlier = WeakSet(key for key in gc.get_objects() if isinstance(key, FooterKey))
        summary, _ = await play_rounds(pilot, 1)
        assert isinstance(summary, RoundEndScreen)
        gc.collect()
        alive = [
            key for key in gc.get_objects() if isinstance(key, FooterKey) and key not in earlier
        ]
        shown = sum(len(screen.query(FooterKey)) for screen in app.screen_stack)
        assert len(alive) <= 2 * shown, (len(alive), shown)
