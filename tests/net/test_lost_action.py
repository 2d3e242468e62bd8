"""An action lost on its way (sent on a link that had dropped unnoticed, so
no reconnection re-synchronises it) is not waited for forever: after a few
seconds the seat asks the authority where the table stands, and plays on.
A real host process, a real broker."""

from __future__ import annotations

from pathlib import Path

import pytest

import net.peer.remote
from core.registry import get_game
from tests.net.peers import WatchedTable
from tests.net.procs import PasseProcess, host_args, need_mosquitto

BROKER = ("127.0.0.1", 1883)


async def test_an_unanswered_action_is_followed_by_a_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need_mosquitto()
    monkeypatch.setattr(net.peer.remote, "ACT_WAIT", 0.2)
    host = PasseProcess("host", tmp_path)
    await host.start(
        *host_args("passpass", 3, wait_for=1, bot_delay=0, seed=5, broker="127.0.0.1:1883")
    )
    try:
        code = (await host.expect("room"))["code"]
        ana = await WatchedTable.join(code, *BROKER, "Ana")
        await host.expect("started")
        ready = await ana.until(lambda u: bool(u.view.legal))
        table = ana.table
        link = table._link
        assert link is not None
        send = link.publish
        dropped: list[str] = []

        async def lose_one(topic: str, payload: bytes, *, retain: bool = False) -> bool:
            if not dropped:
                dropped.append(topic)  # "sent": the link said yes, nothing left
                return True
            return await send(topic, payload, retain=retain)

        link.publish = lose_one  # type: ignore[method-assign]
        seq = table.seq
        action = get_game("passpass").parse_action(str(ready.view.legal[0]))
        mark = ana.mark()
        await table.submit(action)
        assert table.action_pending
        # The Sync's answer acknowledges it: the same turn, shown again.
        again = await ana.until(lambda u: not table.action_pending, mark)
        assert dropped and table.seq == seq and action in again.view.legal
        mark = ana.mark()
        await table.submit(action)  # this time it arrives
        await ana.until(lambda u: table.seq > seq and not table.action_pending, mark)
        await table.close()
    finally:
        await host.stop()


def test_a_burst_of_updates_past_a_gap_asks_for_the_log_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A restarted peer receives the updates already on their way to its key
    before its Hello is answered: each starts past its empty log. It asks for
    the log once, not once per update (each answer is the whole log)."""
    from net.identity import Identity
    from net.peer.remote import RemoteTable
    from net.protocol.codec import codec_for
    from net.protocol.wire import Sync, Update

    table = RemoteTable(Identity.generate(), "ABC234", "127.0.0.1", 1, "Ana")
    table.codec = codec_for(get_game("passpass"))
    table.seat = 0
    sent: list[object] = []

    def send(message: object) -> bool:
        sent.append(message)
        return True

    monkeypatch.setattr(table, "_send", send)
    for seq in range(10, 20):
        update = Update(room="ABC234", seq=seq, view={}, base=40 + seq, events=[], ack=0)
        table._on_update(update)
    assert [type(message) for message in sent] == [Sync]
    monkeypatch.setattr(net.peer.remote, "RESYNC_WAIT", 0.0)  # unanswered a while: ask again
    table._on_update(Update(room="ABC234", seq=21, view={}, base=61, events=[], ack=0))
    assert [type(message) for message in sent] == [Sync, Sync]
