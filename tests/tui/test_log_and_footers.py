"""Issue 18's confusing list: the log re-wraps after a resize and keeps its
newest line in sight when a bar takes a row; footers show the keys that
work now, F1 Help included."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from tests.tui.conftest import on_top
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


async def test_home_footer_shows_every_key_that_works_with_f1(tmp_path: Path) -> None:
    # Issue 18: with an interrupted room, u and x were in no footer, o and j
    # only in a border; every key that works now is in the footer, F1 too.
    from tests.tui.conftest import footer_keys, help_fits
    from tui.app import PasseApp
    from tui.screens.home import HomeScreen

    app = PasseApp(config_path=tmp_path / "settings.json", bot_delay=0, seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        home = app.screen
        assert isinstance(home, HomeScreen)
        app.save_path.parent.mkdir(parents=True, exist_ok=True)
        app.save_path.write_text("{}", encoding="utf-8")  # "c" is offered
        home.hosted = object()  # type: ignore[assignment]  # an interrupted room
        home.refresh_bindings()
        await pilot.pause()
        shown = [description for description, _ in footer_keys(app)]
        for wanted in ("Start", "Rules", "Continue", "Host", "Join", "Resume", "End", "Quit"):
            assert wanted in shown, shown
        assert help_fits(app), footer_keys(app)


def test_an_ssh_guest_is_told_what_to_tell_a_friend(monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 18: an SSH guest's lobby said to type `passe join CODE@HOST:PORT`,
    # which cannot be run in an SSH session.
    from tui.netplay import SERVED_ENV, SSH_HOST_ENV, SSH_PORT_ENV
    from tui.screens.lobby import join_lines, key_notice

    monkeypatch.delenv(SSH_HOST_ENV, raising=False)
    monkeypatch.delenv(SERVED_ENV, raising=False)
    monkeypatch.delenv(SSH_PORT_ENV, raising=False)
    assert join_lines("ABC-123@10.0.0.2:1883").endswith("passe join ABC-123@10.0.0.2:1883")
    monkeypatch.setenv(SERVED_ENV, "1")
    lines = join_lines("ABC-123@10.0.0.2:1883")
    assert lines.startswith("Tell the others:\npasse join ABC-123@10.0.0.2:1883\n")
    assert "ssh -t SERVER join ABC-123@10.0.0.2:1883" in lines
    # The lobby's Game box holds 47 columns of text at 80x24.
    assert all(len(line) <= 47 for line in lines.split("\n"))
    # The SSH form carries the server's port (found by hand: friends typed
    # `ssh -t SERVER ...` and reached no Passe), and a guest's room whose
    # broker answers only on the server is joined over SSH, not `passe join`.
    monkeypatch.setenv(SSH_PORT_ENV, "2299")
    lines = join_lines("ABC-123@127.0.0.1:1884", local_only=True)
    assert lines == (
        "Others join over SSH to this server:\n"
        "ssh -t -p 2299 SERVER \\\n  join ABC-123@127.0.0.1:1884"
    )
    assert "ssh -t -p 2299 SERVER join ABC-123" in join_lines("ABC-123")
    # The address the guest reached the server at, when the server knows it
    # (a play-test); what is no IP address is not shown.
    monkeypatch.setenv(SSH_HOST_ENV, "10.0.0.5")
    assert "\nssh -t -p 2299 10.0.0.5 join ABC-123" in join_lines("ABC-123")
    monkeypatch.setenv(SSH_HOST_ENV, "10.0.0.5; reboot")
    assert "\nssh -t -p 2299 SERVER join ABC-123" in join_lines("ABC-123")
    # Longer than the box, a command broke at a space where the box
    # wrapped it, and its first line pasted alone ran `ssh ... join` (a
    # play-test): it goes on two lines a shell reads as one, and the
    # `passe join` one on its own line.
    monkeypatch.setenv(SSH_HOST_ENV, "192.168.100.123")
    lines = join_lines("QAX-VR1@192.168.100.123:1884")
    assert lines == (
        "Tell the others:\npasse join QAX-VR1@192.168.100.123:1884\n"
        "or, over SSH to this server:\n"
        "ssh -t -p 2299 192.168.100.123 \\\n  join QAX-VR1@192.168.100.123:1884"
    )
    assert all(len(line) <= 47 for line in lines.split("\n"))
    local = join_lines("QAX-VR1@127.0.0.1:1884", local_only=True)
    assert local.endswith("\nssh -t -p 2299 192.168.100.123 \\\n  join QAX-VR1@127.0.0.1:1884")
    said = key_notice("made a new key")
    assert said == "New player key made: it gets you your seat back after a dropped connection."
    said = key_notice("your key file /k was damaged: kept as k.corrupt, made a new key")
    assert said.startswith("Your key file /k was damaged: kept as k.corrupt, made a new key. ")


def test_points_read_as_words() -> None:
    from tui.screens.table import points

    assert (points(0), points(1), points(3)) == ("0 points", "1 point", "3 points")


async def test_a_won_tricks_cards_show_the_numbers_that_pick_them(tmp_path: Path) -> None:
    # Issue 18: "1-4" picked the cards of a won trick, which showed no numbers.
    from tests.tui.conftest import make_app, passpass_seed
    from tui.games.passpass.table import PassPassTableScreen
    from tui.games.passpass.trick import TrickView

    app = make_app(tmp_path / "settings.json", seed=passpass_seed(you_lead=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        table = app.screen
        assert isinstance(table, PassPassTableScreen)
        for _ in range(400):
            await pilot.pause()
            view = table.pp_view
            assert view is not None and not view.is_over
            if view.seat in view.to_act and view.phase == "pick":
                break
            if view.seat in view.to_act and view.phase == "play":
                await pilot.press("1")
            elif on_top(app) is not table:
                await pilot.press("enter")  # a summary or a choice: go on
        else:
            raise AssertionError("never picked from a won trick")
        items = table.query_one(TrickView).items
        assert [item.above.split()[0] for item in items] == [
            str(n) for n in range(1, len(items) + 1)
        ]


async def test_a_focused_name_field_is_not_told_that_q_quits(tmp_path: Path) -> None:
    # Issue 18: with the name field focused, q types a letter; the footer
    # still said "q Quit" (escape's key shown as q). There it offers Escape,
    # which leaves the field (Escape never quits from home: found by hand),
    # and q goes on meaning Quit elsewhere.
    from textual.widgets import Input

    from tests.tui.conftest import make_app, shown_keys

    app = make_app(tmp_path / "settings.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert ("q", "Quit") in shown_keys(app)
        name = app.screen.query_one("#name", Input)
        name.focus()
        await pilot.pause()
        await pilot.press("end", "q")
        await pilot.pause()
        assert name.value.endswith("q")  # q typed a letter
        shown = shown_keys(app)
        assert ("esc", "Done") in shown and ("q", "Quit") not in shown, shown
        await pilot.press("escape")
        await pilot.pause()
        assert not name.has_focus and app.is_running
        shown = shown_keys(app)
        assert ("q", "Quit") in shown and ("esc", "Done") not in shown, shown
