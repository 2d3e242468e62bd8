"""The end-of-game screen shows the whole game round by round (dominoes:
every round, not only the last), and scrolls where that is longer than the
dialog at 80x24."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest
from rich.console import Console
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Static

from core.dominoes import DominoesView
from core.dominoes.model import RoundSummary
from core.engine import View
from net.peer import dealcheck
from net.peer.remote import RemoteTable
from net.protocol.wire import RoomState, Update
from tests.tui.conftest import SIZE, continue_game, make_app, save_when
from tests.tui.test_dominoes_table import Driver
from tests.tui.test_network import wait_until
from tui.games.dominoes.scores import render_rounds
from tui.games.dominoes.table import DominoesTableScreen
from tui.screens.game_over import GameOverScreen


def text_of(renderable: object, width: int = 72) -> str:
    stream = io.StringIO()
    Console(file=stream, width=width, color_system=None).print(renderable)
    return stream.getvalue()


def summary(number: int, winner: int, points: int, scores: tuple[int, ...]) -> RoundSummary:
    return RoundSummary(
        number=number,
        reason="domino",
        domino=winner,
        hands=((), (), ()),
        counts=(0, 5, 7),
        team_counts=None,
        winners=(winner,),
        points=points,
        scores=scores,
    )


def test_the_rounds_table_lists_every_round_in_order_with_running_totals() -> None:
    # Out of order (a resumed game learns its last round first): shown in order.
    history = [
        summary(3, 2, 9, (20, 0, 19)),
        summary(1, 0, 12, (12, 0, 0)),
        summary(2, 0, 8, (20, 0, 10)),
    ]
    history[2] = summary(2, 2, 10, (12, 0, 10))
    lines = text_of(render_rounds(history, ("You", "Ada", "Bruno"), teams=False, target=61))
    rows = [line.split() for line in lines.splitlines()]
    assert "target 61" in lines
    assert rows[1][:3] == ["Rnd", "Ended", "Scored"] and rows[1][3:] == ["You", "Ada", "Bruno"]
    assert [row[0] for row in rows[2:5]] == ["1", "2", "3"]
    assert rows[2][-3:] == ["12", "0", "0"] and rows[4][-3:] == ["20", "0", "19"]
    assert rows[3][2:4] == ["Bruno", "+10"]


def near_the_end(view: View) -> bool:
    """Round 3 or later, someone close to the target of 101 (DO-13) and a bot
    down to two tiles: the game ends within a few of your moves."""
    assert isinstance(view, DominoesView)
    return view.round >= 3 and max(view.scores) >= 85 and min(view.hand_sizes[1:]) <= 2


async def test_dominoes_game_over_shows_every_round(private_config: Path) -> None:
    # A long game (target 101 at 3 players, an option of the home screen):
    # the rounds and the last round in full are more than the dialog's lines.
    # Its early rounds are played in core and saved (fast); the app continues
    # the save and its last moves are played by keys up to the end screen.
    save_when(private_config, "dominoes", near_the_end, players=3, options={"target": 101})
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        table = await continue_game(pilot)
        assert isinstance(table, DominoesTableScreen)
        counts = await Driver(pilot).play()
        assert counts["place"] + counts["draw"] + counts["pass"] >= 1, counts
        over = app.screen
        assert isinstance(over, GameOverScreen)
        view = table.do_view
        assert view is not None and view.target == 101 and view.rounds_played >= 3
        final = text_of(over.scores)
        numbers = [
            line.split()[0]
            for line in final.splitlines()
            if line.split()[1:2] in (["domino"], ["blocked"], ["all"])
        ]
        assert numbers == [str(n) for n in range(1, view.rounds_played + 1)], final
        assert "Pips" in final  # and the last round in full below
        await pilot.pause()
        scroll = over.query_one("#final-scroll", VerticalScroll)
        dialog = over.query_one(".dialog")
        assert dialog.region.bottom <= SIZE[1] - 1  # above the footer
        assert scroll.max_scroll_y > 0
        # Said once the screen has looked at the scores' size as it is now
        # (a look after the last layout: CI, 6 December).
        hint = over.query_one("#game-over-hint", Static)
        await wait_until(pilot, lambda: "↑↓ scroll" in str(hint.render()), "the scroll hint")
        assert app.focused is scroll
        await pilot.press("down")
        assert scroll.scroll_y > 0


async def test_a_hosts_long_game_over_box_fits_with_its_keys_and_says_it_scrolls(
    private_config: Path,
) -> None:
    # Issue 18: at 80x24 the dominoes game-over box was cut off (a host's
    # keys line and the deal check took more rows than the box had) and its
    # "↑↓: more scores" was in the cut-off part. Now the keys and the deal
    # check always show, the scores take the rows left and scroll, and the
    # box and the footer say so; ↑↓ scroll them.
    from core.engine import Result
    from tests.tui.conftest import shown_keys
    from tui.games.dominoes.scores import render_game
    from tui.screens.game_over import HOSTING

    names = ("You", "Ada", "Bruno")
    rounds = [summary(n, n % 3, 10, (10 * n, 0, 0)) for n in range(1, 9)]
    scores = render_game(rounds, names, teams=False, target=61, you=0)
    result = Result(winners=(0,), shared=False, scores=(80, 0, 0), reason="reached 61 points")
    deal_check = (
        "Deal check: you host this table; the others check this deal against the "
        "commitment you published at the start."
    )
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        over = GameOverScreen(result, names, 0, scores, table=HOSTING, deal_check=deal_check)
        app.push_screen(over)
        await pilot.pause()
        await pilot.pause()
        dialog = over.query_one(".dialog").content_region
        for part in ("#verdict", "#deal-check", "#game-over-hint"):
            region = over.query_one(part).region
            assert region.height >= 1 and dialog.contains_region(region), (part, region, dialog)
        hint = str(over.query_one("#game-over-hint", Static).render())
        assert "a / Enter: next game" in hint and "↑↓ scroll" in hint, hint
        assert ("↑↓", "Scroll") in shown_keys(app), shown_keys(app)
        scroll = over.query_one("#final-scroll", VerticalScroll)
        assert scroll.max_scroll_y > 0 and dialog.contains_region(scroll.region)
        await pilot.press("down", "down")
        assert scroll.scroll_y == 2
        await pilot.press("up")
        assert scroll.scroll_y == 1


async def test_a_guest_quitting_as_the_host_leaves_or_invites_ends_cleanly(
    private_config: Path,
) -> None:
    # CI, 4 December: a guest pressed q on the game-over screen as the host
    # quit too; the host's leaving reached the screen while its widgets were
    # being removed, and the app ended with NoMatches ('#game-over-hint').
    from core.engine import Result
    from tui.screens.game_over import GUEST

    names = ("You", "Ada")
    result = Result(winners=(1,), shared=False, scores=(3, 9), reason="reached 9 points")
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        over = GameOverScreen(result, names, 0, "scores", table=GUEST)
        app.push_screen(over)
        await pilot.pause()
        await over.query_one("#game-over-keys").remove()  # as a quitting app takes it down
        over.host_left()
        over.invite()
        over.say_deal_check("Deal verified")
        await pilot.pause()
        assert over.host_gone and over.invited


async def test_the_deal_check_that_comes_as_the_dialog_mounts_is_shown(
    private_config: Path,
) -> None:
    """A play-test (7 December, three people's dominoes): one joiner's
    game-over screen said "checking the deal…" for good while the other's
    said "Deal verified"; both checks had passed. The final room state
    came 46 ms after the last update, after the dialog's compose wrote
    "checking" and before its parts were mounted, where there was nothing
    to update. Here it comes exactly there."""
    from core.engine import Result
    from tui.screens.game_over import GUEST

    verified = "Deal verified: all 52 moves, replayed from the revealed deal, match."

    class CheckedWhileMounting(GameOverScreen):
        def compose(self) -> ComposeResult:
            yield from super().compose()
            self.say_deal_check(verified)  # the room state's arrival, in between

    result = Result(winners=(1,), shared=False, scores=(3, 9), reason="reached 9 points")
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        checking = "Fair deal: checking the deal against everything you were shown…"
        over = CheckedWhileMounting(
            result, ("You", "Ada"), 0, "scores", table=GUEST, deal_check=checking
        )
        app.push_screen(over)
        await pilot.pause()
        await pilot.pause()
        assert str(over.query_one("#deal-check", Static).render()) == verified


async def test_a_guest_whose_table_moved_is_not_told_the_host_may_open_a_next_game(
    private_config: Path,
) -> None:
    """Found by hand (issue 20): after the table moved to a player's machine,
    every game-over screen said "(the host may open a next game)"; no host
    is left to open one. It says the table moved; an invitation (a headless
    host that follows its moved table may still open one) says so instead."""
    from core.engine import Result
    from tui.screens.game_over import (
        DEALT_KEYS_HINT,
        GUEST,
        GUEST_KEYS_HINT,
        INVITED_KEYS_HINT,
        MOVED_KEYS_HINT,
    )

    names = ("You", "Ada")
    result = Result(winners=(1,), shared=False, scores=(3, 9), reason="reached 9 points")
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        over = GameOverScreen(result, names, 0, "scores", table=GUEST, moved=True)
        app.push_screen(over)
        await pilot.pause()
        hint = str(over.query_one("#game-over-hint", Static).render())
        assert hint.startswith(MOVED_KEYS_HINT) and GUEST_KEYS_HINT not in hint, hint
        over.invite()
        await pilot.pause()
        hint = str(over.query_one("#game-over-hint", Static).render())
        assert hint.startswith(INVITED_KEYS_HINT), hint
        # A dealer's room, moved or not: no dealer opens a next game (a
        # play-test read that "the table's new host", a dealer, might).
        dealt = GameOverScreen(result, names, 0, "scores", table=GUEST, moved=True, dealt=True)
        await app.push_screen(dealt)
        await pilot.pause()
        hint = str(dealt.query_one("#game-over-hint", Static).render())
        assert hint.startswith(DEALT_KEYS_HINT) and "host" not in hint, hint


async def test_the_owner_of_a_dealer_s_room_asks_its_dealer_for_the_next_game_and_joins_it(
    private_config: Path,
) -> None:
    """Found by hand: a dealer's room had no next game. Its owner's a asks
    the dealer (the screen stays, saying so), a refusal lets them ask
    again, and the next room's invitation takes them there at once; the
    others read that its asker may open one, then are invited."""
    from core.engine import Result
    from tui.screens.game_over import (
        AGAIN,
        ASKING_KEYS_HINT,
        DEALER_GONE_KEYS_HINT,
        DEALT_KEYS_HINT,
        GUEST,
        HOST_KEYS_HINT,
    )

    names = ("You", "Ada")
    result = Result(winners=(1,), shared=False, scores=(3, 9), reason="reached 9 points")
    asked: list[bool] = []
    connected = True

    def ask_next() -> bool:
        asked.append(connected)
        return connected

    def hint_of(screen: GameOverScreen) -> str:
        return str(screen.query_one("#game-over-hint", Static).render())

    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        other = GameOverScreen(result, names, 0, "scores", table=GUEST, dealt=True)
        await app.push_screen(other)
        await pilot.pause()
        assert hint_of(other).startswith(DEALT_KEYS_HINT)
        await pilot.press("a")  # not theirs to ask: nothing happens
        assert app.screen is other and asked == []
        other.dismiss(None)
        await pilot.pause()
        chosen: list[str | None] = []
        owner = GameOverScreen(
            result, names, 0, "scores", table=GUEST, dealt=True, ask_next=ask_next
        )
        await app.push_screen(owner, chosen.append)
        await pilot.pause()
        assert hint_of(owner).startswith(HOST_KEYS_HINT)
        await pilot.press("a")
        await pilot.pause()
        assert asked == [True] and app.screen is owner
        assert hint_of(owner).startswith(ASKING_KEYS_HINT)
        await pilot.press("a")  # asked already: not again while it is asked
        assert asked == [True]
        owner.next_refused()
        await pilot.pause()
        assert hint_of(owner).startswith(HOST_KEYS_HINT)
        connected = False  # the seat's link down: nothing sent, and it says so
        await pilot.press("a")
        await pilot.pause()
        assert not owner.asking and hint_of(owner).startswith(HOST_KEYS_HINT)
        assert any("Not connected" in n.message for n in app._notifications)
        connected = True
        await pilot.press("a")
        await pilot.pause()
        assert asked == [True, False, True]
        owner.invite()  # the dealer opened it: the owner goes there at once
        await pilot.pause()
        assert chosen == [AGAIN]
        # The dealer closed the table (nobody asked within NEXT_GAME_WAIT):
        # nothing left to ask, and every screen says so.
        for ask in (ask_next, None):
            late = GameOverScreen(result, names, 0, "scores", table=GUEST, dealt=True, ask_next=ask)
            await app.push_screen(late)
            await pilot.pause()
            if ask is not None:
                await pilot.press("a")  # asked: then the dealer goes
                await pilot.pause()
                assert late.asking
            late.host_left()
            await pilot.pause()
            assert hint_of(late).startswith(DEALER_GONE_KEYS_HINT) and not late.asking
            before = len(asked)
            await pilot.press("a")
            assert app.screen is late and len(asked) == before
            late.dismiss(None)
            await pilot.pause()


@dataclass
class EndComing:
    """A joiner's dominoes table (a RemoteTable fed a faithful authority's
    updates, tests/net/test_dealcheck.py), open on the game so far: its
    last updates and its final room state (which reveals the record) are
    still to come."""

    remote: RemoteTable
    table: DominoesTableScreen
    last: list[Update]
    room: RoomState

    def deliver_last(self) -> None:
        from tests.net.test_dealcheck import deliver

        for update in self.last:
            deliver(self.remote, update)


async def end_coming(pilot: Pilot[None]) -> EndComing:
    from tests.net.test_dealcheck import deliver, final_room, peer_at_table, updates_for_seat

    remote, game = peer_at_table("dominoes", 2)
    record, updates = updates_for_seat("dominoes", 2, 0)
    last = [update for update in updates if update.seq == len(record.actions)]
    # The game so far before the table opens (one update of it all, as a
    # rejoin's: a move at a time takes seconds on a busy machine).
    for update in updates[: len(updates) - len(last)]:
        deliver(remote, update)
    table = DominoesTableScreen(remote)
    pilot.app.push_screen(table)
    await pilot.pause()
    return EndComing(remote, table, last, final_room(remote, record, game))


async def _networked_game_over(private_config: Path, final_room_first: bool) -> list[str]:
    """A joiner's dominoes table (a RemoteTable fed a faithful authority's
    updates, tests/net/test_dealcheck.py) at the end of a game: the final
    room state, which reveals the record, comes before or after the last
    update (two topics: MQTT orders neither against the other). What the
    game-over screen's deal check reads, step by step."""
    said: list[str] = []
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        end = await end_coming(pilot)
        remote, table, room = end.remote, end.table, end.room

        def room_comes() -> None:
            # As RemoteTable._on_room_message takes a room state that
            # reveals the record: checked, the end taken from it, then told.
            remote.room = room
            remote._check_deal(room)
            remote._finish_from_record(room)
            for listener in list(remote._room_listeners):
                listener(room)

        for step in ("room", "last") if final_room_first else ("last", "late", "room"):
            if step == "room":
                room_comes()
            elif step == "last":
                end.deliver_last()
            else:
                # DEAL_CHECK_WAIT (an hour here: a run's pace decides
                # nothing) passes with no room state.
                assert table.deal_check_timer is not None
                table._deal_check_late()
            await pilot.pause()
            await pilot.pause()
            # Shown, or waiting behind the rounds' summaries.
            waiting = [dialog for dialog, _ in table.deferred]
            over = next(s for s in [*app.screen_stack, *waiting] if isinstance(s, GameOverScreen))
            said.append(over.deal_check)
        while not isinstance(app.screen, GameOverScreen):
            await pilot.press("enter")  # the rounds' summaries read
        shown = str(app.screen.query_one("#deal-check", Static).render())
        assert shown == said[-1]
    return said


async def test_the_game_over_screen_says_the_deal_check_whatever_comes_last(
    private_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A play-test (6 December): a rejoined player's game-over screen stayed
    on "checking the deal…" while the kept record said "Deal verified". The
    screen said the check once, at a room state only: a check completed by
    an update that came after the room state (or the record before the last
    view) never reached it."""
    room_then_last = await _networked_game_over(private_config, final_room_first=True)
    assert room_then_last[0].startswith("Deal verified for what this Passe was shown: ")
    assert room_then_last[1].startswith("Deal verified: all "), room_then_last
    # The record late (its broker gone with the table's machine, say): not
    # "checking…" for ever, and checked when it comes after all.
    monkeypatch.setattr(dealcheck, "DEAL_CHECK_WAIT", 3600.0)
    last_then_room = await _networked_game_over(private_config, final_room_first=False)
    assert last_then_room[0].startswith("Fair deal: checking"), last_then_room
    assert last_then_room[1].startswith("Fair deal: not checked: the revealed deal has not come")
    assert last_then_room[2].startswith("Deal verified: all "), last_then_room


@pytest.mark.parametrize(("size", "scrolls"), [((80, 24), True), ((130, 45), False)])
async def test_a_taller_terminal_shows_more_of_the_final_scores(
    private_config: Path, size: tuple[int, int], scrolls: bool
) -> None:
    """A play-test (7 December) at 130x45 read a 21-row game-over dialog
    that still scrolled its scores: the dialog now takes nine tenths of the
    terminal's height (21 rows at 80x24, as before)."""
    from rich.text import Text

    from core.engine import Result

    scores = Text("\n".join(f"row {n}" for n in range(28)))
    result = Result(winners=(0,), shared=False, scores=(9, 3), reason="reached 9 points")
    app = make_app(private_config)
    async with app.run_test(size=size) as pilot:
        over = GameOverScreen(result, ("You", "Ada"), 0, scores, deal_check="Fair deal: checked.")
        await app.push_screen(over)
        for _ in range(3):
            await pilot.pause()
        box = over.query_one("#game-over-box")
        assert (over.query_one(VerticalScroll).max_scroll_y > 0) is scrolls
        assert box.region.height == (21 if scrolls else box.region.height)
        assert box.region.height <= size[1] - 2


async def test_the_game_over_screen_is_not_covered_by_toasts(private_config: Path) -> None:
    """A play-test (7 December): Enter pressed as the last trick ended left
    a "Not now … is picking a card; wait" toast on the game-over screen, and
    the "Fair deal" toast covered the deal check's own line and the keys.
    The game's toasts go with it; the deal check is said by the screen."""
    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        end = await end_coming(pilot)
        remote, table, room = end.remote, end.table, end.room
        table.notify("Ada is playing; wait.", title="Not now")
        # Shown before the end comes, as a key pressed during the last
        # trick's was (a notify is a message: it raced the update on 3.13).
        await wait_until(pilot, lambda: bool(list(app._notifications)), "the toast")
        end.deliver_last()
        remote.room = room
        remote._check_deal(room)
        for listener in list(remote._room_listeners):
            listener(room)
        for _ in range(3):
            await pilot.pause()
        while not isinstance(app.screen, GameOverScreen):
            await pilot.press("enter")  # the rounds' summaries read
        assert [n.title for n in app._notifications] == [], list(app._notifications)
        assert app.screen.deal_check.startswith("Deal verified")
        # Keys that would have explained a turn say nothing now.
        table.action_explain()
        assert not list(app._notifications)


def test_three_winners_read_as_a_list() -> None:
    """A play-test (7 December) read "Shared victory: A and B and C!"."""
    from core.engine import Result
    from tui.screens.game_over import verdict

    three = Result(winners=(0, 1, 2), shared=True, scores=(5, 5, 5), reason="a tie")
    assert verdict(three, ("Ana", "Bo", "Cy"), None).startswith("Shared victory: Ana, Bo and Cy!")
    two = Result(winners=(0, 2), shared=True, scores=(5, 1, 5), reason="a tie")
    assert verdict(two, ("Ana", "Bo", "Cy"), None).startswith("Shared victory: Ana and Cy!")


async def test_a_seat_whose_person_left_is_named_its_bot_at_the_end(
    private_config: Path,
) -> None:
    """A play-test (7 December): Lee left the game, his bot played on and
    won; the log said "Game over: Lee's bot wins", the game-over screen
    "Lee wins.". The screen names the bot too."""
    from net.protocol.wire import SeatState
    from tui.messages import RoomChanged

    app = make_app(private_config)
    async with app.run_test(size=SIZE) as pilot:
        end = await end_coming(pilot)
        table = end.table
        playing = msgspec.structs.replace(
            end.room,
            phase="playing",
            record=None,
            seats=[
                SeatState("You", "human", "", "0123456789abcdef", True),
                SeatState("Lee", "bot", "heuristic", "fedcba9876543210", True, True),
            ],
        )
        table.post_message(RoomChanged(playing))
        await pilot.pause()
        end.deliver_last()
        for _ in range(3):
            await pilot.pause()
        waiting = [dialog for dialog, _ in table.deferred]
        over = next(s for s in [*app.screen_stack, *waiting] if isinstance(s, GameOverScreen))
        assert over.names[1] == f"{table.names[1]}'s bot" and over.names[0] == table.names[0]
