"""The authority refuses what it must, tells the sender only, and changes
nothing (issue 10): out of turn, for another seat, unseated, malformed,
oversized, replayed. A real host process, a real broker, real keys."""

from __future__ import annotations

from pathlib import Path

from core.registry import get_game
from net.identity import Identity
from net.protocol.wire import (
    Act,
    Refused,
    Sync,
    authority_message_decoder,
    open_body,
    open_envelope,
    seal,
    to_authority_topic,
    to_peer_topic,
)
from tests.net.peers import RawClient, WatchedTable
from tests.net.procs import PasseProcess, host_args, need_mosquitto

BROKER = ("127.0.0.1", 1883)


async def test_refusals_change_nothing(tmp_path: Path) -> None:
    need_mosquitto()
    host = PasseProcess("host", tmp_path)
    await host.start(
        *host_args("passpass", 3, wait_for=2, bot_delay=0, seed=5, broker="127.0.0.1:1883")
    )
    try:
        code = (await host.expect("room"))["code"]
        async with RawClient(*BROKER, [f"passe/v1/{code}/#"]) as spy:
            ana = await WatchedTable.join(code, *BROKER, "Ana")
            ben = await WatchedTable.join(code, *BROKER, "Ben")
            await host.expect("started")
            humans = {ana.table.seat, ben.table.seat}
            update = await ana.until(lambda u: bool(set(u.view.to_act) & humans))
            mover, idle = (ana, ben) if ana.table.seat in update.view.to_act else (ben, ana)
            await mover.until(lambda u: bool(u.view.legal))
            await idle.until(lambda u: u.view.to_act == update.view.to_act)
            seq = mover.table.seq
            game = get_game("passpass")
            assert idle.table.view is not None and mover.table.view is not None

            # Out of turn: the engine's reason, to that seat, nothing changes.
            mark = idle.mark()
            await idle.table.submit(game.parse_action(str(idle.table.view.hand[0])))  # type: ignore[attr-defined]
            refused = await idle.until(lambda u: u.rejected is not None, mark)
            assert refused.rejected is not None and "turn" in refused.rejected

            # For another seat: refused, even with a legal action of that seat.
            assert idle.table.authority_key is not None and idle.table.seat is not None
            idle_topic = to_authority_topic(code, idle.table.identity.peer_id)
            mark = idle.mark()
            stolen = Act(
                room=code,
                epoch=idle.table._epoch,
                n=idle.table._next_n(),
                seat=mover.table.seat or 0,
                action=str(mover.table.view.legal[0]),
                at=seq,
            )
            await spy.publish(
                idle_topic, seal(idle.table.identity, idle_topic, stolen, idle.table.authority_key)
            )
            refused = await idle.until(
                lambda u: u.rejected is not None and "cannot act for seat" in u.rejected, mark
            )

            # An unseated peer: refused on its own topic, and it learns nothing.
            stranger = Identity.generate()
            stranger_in = to_authority_topic(code, stranger.peer_id)
            stranger_out = to_peer_topic(code, stranger.peer_id)
            for request in (
                Act(room=code, epoch=1, n=1, seat=0, action="V10", at=0),
                Sync(room=code, epoch=1, n=2, have=0),
            ):
                await spy.publish(
                    stranger_in,
                    seal(stranger, stranger_in, request, idle.table.authority_key),
                )

                def refused_to_stranger(topic: str, payload: bytes, n: int = request.n) -> bool:
                    if topic != stranger_out:
                        return False
                    reply = open_body(
                        open_envelope(topic, payload, identity=stranger),
                        authority_message_decoder,
                        stranger,
                    )
                    return isinstance(reply, Refused) and reply.n == n

                _, payload = await spy.until(refused_to_stranger)
                reply = open_body(
                    open_envelope(stranger_out, payload, identity=stranger),
                    authority_message_decoder,
                    stranger,
                )
                assert isinstance(reply, Refused) and reply.code == "unseated"

            # Malformed and oversized payloads: dropped, the host lives on.
            await spy.publish(stranger_in, b"\x93garbage")
            await spy.publish(stranger_in, b"\x00" * (300 * 1024))
            await spy.publish(idle_topic, b"\xc1")

            # Nothing above changed the game.
            assert mover.table.seq == seq and idle.table.seq == seq

            # The mover's real action goes through: the authority still serves.
            action = mover.table.view.legal[0]
            mover_topic = to_authority_topic(code, mover.table.identity.peer_id)
            seen = len(spy.messages)
            await mover.table.submit(action)
            # The spy keeps that signed request, to replay it below.
            _, replayed = await spy.until(lambda topic, _: topic == mover_topic, seen)
            await mover.until(lambda u: mover.table.seq > seq)
            await idle.until(lambda u: idle.table.seq > seq)
            after = mover.table.seq

            # Replaying that exact signed payload, the key's latest request:
            # answered as it was (the seat's view, no refusal: issue 20, an
            # action sent again after the table moved), never applied twice.
            mark = mover.mark()
            await spy.publish(mover_topic, replayed)
            answered = await mover.until(lambda u: True, mark)
            assert answered.rejected is None and mover.table.seq == after
            # An older one (its join) is refused as stale.
            first = next(payload for topic, payload in spy.messages if topic == mover_topic)
            mark = mover.mark()
            await spy.publish(mover_topic, first)
            refused = await mover.until(
                lambda u: u.rejected is not None and "old or repeated" in u.rejected, mark
            )
            assert mover.table.seq == after
            await mover.table.close()
            await idle.table.close()
    finally:
        await host.stop()
