"""Issue 18's confusing list: the log re-wraps after a resize and keeps its
newest line in sight when a bar takes a row; footers show the keys that
work now, F1 Help included."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from tui.widgets.game_log import GameLog

LINE = "Ada plays V7 and takes the trick with the most violet cards so far " * 2


class LogApp(App[None]):
    CSS = "#bar { dock: top; height: 1; display: none; } #bar.-shown { display: block; }"

    def compose(self) -> ComposeResult:
        yield Static("⚠ Ada is away", id="bar")
        yield GameLog(id="log")


async def test_log_lines_rewrap_after_a_resize() -> None:
    app = LogApp()
    async with app.run_test(size=(60, 20)) as pilot:
        log = app.query_one(GameLog)
        for n in range(3):
            log.add(f"{n}: {LINE}")
        await pilot.pause()
        narrow = len(log.lines)
        await pilot.resize_terminal(120, 20)
        await pilot.pause()
        await pilot.pause()
        assert len(log.lines) < narrow  # fewer, longer rows: written again
        assert log.lines_written[-1].startswith("2:")


async def test_the_newest_log_line_stays_in_sight_when_a_bar_takes_a_row() -> None:
    app = LogApp()
    async with app.run_test(size=(60, 12)) as pilot:
        log = app.query_one(GameLog)
        for n in range(30):
            log.add(f"line {n}")
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y
        app.query_one("#bar").add_class("-shown")
        await pilot.pause()
        await pilot.pause()
        assert log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y
