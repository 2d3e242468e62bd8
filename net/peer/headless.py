"""Seats without a screen: a bot that joins a room from its own process.

``passe join CODE --bot LEVEL`` fills a seat from another machine (or a test)
with a bot that plays from its own view, exactly as a person would through the
table screen: the view arrives over the network, the bot picks one of its
legal actions, the authority validates it. Progress is printed as JSON lines
so that scripts and tests can follow it without sleeping.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.engine import Bot
from core.registry import get_game
from net.authority.authority import Authority
from net.authority.host import HostedRoom
from net.authority.table import TableUpdate
from net.lan.transport import first_of
from net.peer.remote import RemoteTable
from net.protocol.wire import RoomState


def emit(event: str, **fields: Any) -> None:
    """One JSON line on stdout, flushed at once."""
    sys.stdout.write(json.dumps({"event": event, **fields}) + "\n")
    sys.stdout.flush()


async def play_with_bot(
    table: RemoteTable, level: str, *, seed: int | None = None, delay: float = 0.0
) -> None:
    """Play the seat with a bot until the game is over; ``delay``: seconds
    it waits before each move, as a person would."""
    # The table moved to another machine (issue 20): scripts and tests see
    # it, from before the game's first view (a table whose maker died as the
    # game started moves before it: CI, 6 December, a dealer's).
    table.on_moved(lambda term: emit("moved", term=term, here=table.runs_the_table))
    # The table's machine (its presence) comes and goes: said, as the
    # screens' bar says "the host is away" (scripts and tests read it);
    # from before the first view too: a seat slow to get it, whose table
    # moved meanwhile, never said that the new one was there (CI, 6
    # December: test_the_last_dealer_stopped_after_a_takeover_...).
    table.on_host(lambda up: emit("table", present=up))
    await table.wait_started()
    bot: Bot = get_game(table.game_id).make_bot(level, seed)
    over = asyncio.Event()
    wake = asyncio.Event()

    def on_update(update: TableUpdate) -> None:
        if update.rejected is not None:
            emit("refused", reason=update.rejected)
        if update.view.is_over:
            over.set()
        wake.set()

    # What the table screen shows of each new room notice ("The table moved
    # to Bob's machine ..."), each once.
    notices: list[str] = []

    def on_room(room: RoomState) -> None:
        if room.notice and room.notice not in notices[-1:]:
            notices.append(room.notice)
            emit("notice", text=room.notice)

    table.on_room(on_room)
    await table.connect(on_update)
    # What a (re)started peer got back: its view and its log so far.
    emit("synced", seq=table.seq, events=len(table.log))
    while not over.is_set():
        await wake.wait()
        wake.clear()
        view = table.view
        if view is None or view.is_over:
            continue
        # Act when the authority has answered our last action (the update
        # acknowledging it shows the table after it): in simultaneous phases
        # other seats' updates arrive meanwhile. An action lost with a link
        # (a broker restart) is answered by the re-synchronisation, which
        # shows the same turn again: then the bot simply acts again.
        if view.legal and not table.action_pending and delay > 0:
            await asyncio.sleep(delay)
            view = table.view  # what came meanwhile (another update wakes the loop)
            if view is None or view.is_over or not view.legal or table.action_pending:
                continue
        if view.legal and not table.action_pending:
            # A search bot thinks in a thread: the link keeps being served.
            action = await asyncio.to_thread(bot.choose, view) if bot.slow else bot.choose(view)
            await table.submit(action)
            emit("acted", seq=table.seq, action=str(action))


async def fill_and_start(
    room: HostedRoom,
    wanted: int,
    bots: str | None,
    emit: Callable[..., None] = emit,
    *,
    before_start: Callable[[], None] | None = None,
    start_now: asyncio.Event | None = None,
) -> None:
    """In the lobby, with nobody to decide (a headless host, a dealer):
    wait for ``wanted`` people present (or for ``start_now``: a dealer's
    room's owner said so), seat ``bots`` in the open seats, start. ``emit``
    hears who sat and who left (``seated``, ``unseated``) and the start
    (``started``)."""
    authority = room.authority
    joined = asyncio.Event()
    seen: set[int] = set()

    def on_change() -> None:
        # Only a seat with a live presence counts (issue 19 item 2): a
        # Hello alone from a key nobody runs holds the room up no more.
        present = {
            seat
            for seat, slot in enumerate(authority.seats)
            if slot.kind == "human" and slot.present
        }
        for seat in sorted(present - seen):
            emit("seated", seat=seat, name=authority.seats[seat].name)
        for seat in sorted(seen - present):
            emit("unseated", seat=seat)
        seen.clear()
        seen.update(present)
        if len(seen) >= wanted:
            joined.set()
        else:
            joined.clear()
        asyncio.get_running_loop().create_task(room.update_advert())

    # It stays: who leaves and comes back mid-game is said too.
    authority.on_change.append(on_change)
    on_change()
    told = start_now if start_now is not None else asyncio.Event()
    while True:
        await first_of(joined.wait(), told.wait())
        # Everyone's standby broker first (Authority.wait_standby), unless
        # someone left meanwhile.
        await authority.wait_standby()
        if joined.is_set() or told.is_set():
            break
    authority.free_absent()  # seats held by nobody present get bots instead
    for seat, slot in enumerate(authority.seats):
        if slot.kind == "open":
            authority.set_bot(seat, bots)
    if before_start is not None:
        before_start()
    authority.start_game()
    emit("started", seed_hash=authority.seed_hash().hex())


async def over_or_stepped_down(authority: Authority) -> bool:
    """Wait for the game's end (False) or this authority's step-down (True)."""
    over = asyncio.ensure_future(authority.wait_over())
    stepped = asyncio.ensure_future(authority.wait_stepped_down())
    try:
        await asyncio.wait((over, stepped), return_when=asyncio.FIRST_COMPLETED)
        return not over.done()
    finally:
        over.cancel()
        stepped.cancel()


# Seconds a stepped-down host's spectator waits for the final record that
# its deal check needs (as `passe watch` does).
FOLLOW_CHECK_WAIT = 10.0


async def follow_to_end(authority: Authority) -> dict[str, Any] | None:
    """A table that moved away from ``authority`` (it stepped down: another
    machine runs it now), followed as a spectator of its own room to the
    end, so that a headless host learns the end as its players do: the
    result and the spectator's deal check (``winners``, ``scores``,
    ``reason``, ``deal_verified``, ``deal_report``), or ``gone`` when the
    room had ended and been cleared before this host was back; None if
    the room would not let it watch (its voter then votes on until
    stopped).

    The spectator believes only this room's key and, after it, a key that
    one of the room's voters announces for a higher term (net/peer/pins.py), as
    a seat that sat here would: a stranger on the code cannot end it."""
    from net.authority.replication import decode_room_config
    from net.peer.pins import RoomPins
    from net.peer.remote import JoinError
    from net.peer.watch import Watcher

    config = decode_room_config(authority.election) if authority.election else None
    if config is None:
        return None
    with tempfile.TemporaryDirectory(prefix="passe-follow-") as directory:
        pins = RoomPins(Path(directory) / "pins.json")
        pins.remember(authority.code, authority.identity.public_key)
        pins.remember_voters(authority.code, frozenset(voter.key for voter in config.voters))
        host, port = authority.link_address
        watcher = Watcher(
            authority.code, host, port, pins=pins, alternates=authority.broker_alternates
        )
        done = asyncio.Event()
        try:
            try:
                await watcher.watch()
            except JoinError as error:
                if error.code in ("no-room", "closed"):
                    # Ended there and cleared (or closed) before this host
                    # was back: nothing is left to vote in, or to learn.
                    return {"winners": [], "scores": [], "reason": str(error), "gone": True}
                print(f"passe: cannot follow the table to its end: {error}", file=sys.stderr)
                return None
            watcher.on_room(lambda room: done.set() if room.phase in ("over", "closed") else None)
            await watcher.connect(lambda update: done.set() if update.view.is_over else None)
            await done.wait()
            view = watcher.view
            result = view.result if view is not None else None
            return {
                "winners": list(result.winners) if result else [],
                "scores": list(result.scores) if result else [],
                "reason": result.reason if result else "the room was closed",
                "deal_verified": await watcher.deal_check(FOLLOW_CHECK_WAIT),
                "deal_report": watcher.deal_report,
            }
        finally:
            await watcher.close()


__all__ = ["emit", "fill_and_start", "follow_to_end", "over_or_stepped_down", "play_with_bot"]
