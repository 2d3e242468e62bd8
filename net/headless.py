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
from typing import Any

from core.engine import Bot
from core.registry import get_game
from net.remote import RemoteTable
from net.table import TableUpdate


def emit(event: str, **fields: Any) -> None:
    """One JSON line on stdout, flushed at once."""
    sys.stdout.write(json.dumps({"event": event, **fields}) + "\n")
    sys.stdout.flush()


async def play_with_bot(table: RemoteTable, level: str, *, seed: int | None = None) -> None:
    """Play the seat with a bot until the game is over."""
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

    # The table moved to another machine (issue 20): scripts and tests see it.
    table.on_moved(lambda term: emit("moved", term=term, here=table.runs_the_table))
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
        if view.legal and not table.action_pending:
            # A search bot thinks in a thread: the link keeps being served.
            action = await asyncio.to_thread(bot.choose, view) if bot.slow else bot.choose(view)
            await table.submit(action)
            emit("acted", seq=table.seq, action=str(action))


__all__ = ["emit", "play_with_bot"]
