"""A spectator's side of a networked room (issue 21): ``passe watch CODE``.

A :class:`Watcher` is a :class:`~net.peer.remote.RemoteTable` that holds no seat:
it sends ``watch`` where a player sends ``hello``, and receives, sealed to
its own key like any update, the table's public view (``view(None)``: hands
face down with their sizes, bids hidden until revealed) and the public log.
Nothing it shows comes from the broker in clear but the room state.

Watching binds no key to the room: each watch uses a fresh key (never the
person's identity key, so the room learns nothing linking it to them), is
never seated and never knocks. The authority bounds the watchers per room
(net/authority/authority.py ``MAX_WATCHERS``); a watcher keeps its place while its
presence is online and beats (net/peer/remote.py ``PRESENCE_BEAT``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from core.engine import Action, GameRecord, IllegalAction, PasseError, RecordError
from net.authority.replication import decode_room_config
from net.election.driver import VoterPresences
from net.identity import Identity
from net.peer.dealcheck import check_shown
from net.peer.pins import RoomPins
from net.peer.remote import RESEAT_WAIT, ROOM_WAIT, JoinError, RemoteTable
from net.protocol.text import clean_text
from net.protocol.wire import RoomState, Update, Watch, Watched, Welcome

WATCHER_NAME = "Watcher"  # the name in a watcher's presence: no person's name


class Watcher(RemoteTable):
    """A spectator at the table of room ``code`` (see :meth:`watch`)."""

    def __init__(
        self,
        code: str,
        broker_host: str,
        broker_port: int,
        *,
        pins: RoomPins | None = None,
        alternates: Sequence[tuple[str, int]] = (),
        identity: Identity | None = None,
        authority_key: bytes | None = None,
    ) -> None:
        # A fresh key per watch (issue 21): nothing links it to the person.
        # The pins are read, never written: the host's key is the one the
        # person's seat pinned for this code, if they sat there (a squatter
        # on a code they know is not believed); nothing is remembered of a
        # room watched.
        super().__init__(
            identity or Identity.generate(),
            code,
            broker_host,
            broker_port,
            WATCHER_NAME,
            authority_key=authority_key or (pins.get(code) if pins is not None else None),
            alternates=alternates,
        )
        if pins is not None:
            # And the voters of that room, if it fails over: a table that
            # moved is believed where one of them announces it (a host whose
            # table moved follows its own room so: net/peer/headless.py).
            self._voters = pins.voters(code)
        self.watching_room = False  # the host has let us watch
        self._watched_at = -1.0  # when the host last answered a watch (monotonic)
        # Every update received, as decrypted (for `passe watch --headless`
        # and the tests: what a watcher was sent).
        self._raw_listeners: list[Callable[[Update], None]] = []
        # The voters' presences (their standby brokers), once the room says
        # its broker dies with its host; the voters in the config's order.
        self._standby_presences: VoterPresences | None = None
        self._standby_order: list[bytes] = []

    async def watch(self, *, timeout: float = ROOM_WAIT) -> None:
        """Connect, find the room, ask to watch; raises :class:`JoinError`
        (in one line: no room, closed, full of watchers, an older host)."""
        await self._find_room(timeout)
        try:
            reply = await self._request(self._watch_request(), resend=self._watch_request)
        except JoinError as error:
            message = str(error).replace("did not answer", "did not let you watch")
            raise JoinError(message, error.code) from None
        if isinstance(reply, Watched):
            self.watching_room = True
            return
        await self._abandon()
        if isinstance(reply, Welcome):  # a host's mistake: no seat was asked for
            raise JoinError("the host answered a watch as a join", "bad")
        if reply.code == "bad" and "malformed" in reply.reason:
            app = self.room.app if self.room is not None else ""
            raise JoinError(
                f"the host of room {self.shown_code} runs an older Passe"
                f"{f' ({app})' if app else ''} that cannot be watched",
                "version",
            )
        raise JoinError(clean_text(reply.reason), clean_text(reply.code))

    def next_watcher(self) -> Watcher:
        """A watcher, not yet watching, of the next game at this table (its
        host opened it: :attr:`next_code`): a fresh key again, the same
        brokers as a seat's next table, and this room's authority key, whose
        notice named that room (the table's next game is run by the same
        key). Raises :class:`JoinError` before any next game."""
        seat = self.next_table()  # where it is, as a player's seat would go
        return Watcher(
            seat.code,
            seat.broker_host,
            seat.broker_port,
            alternates=seat.broker_alternates,
            authority_key=self.authority_key,
        )

    def _watch_request(self) -> Watch:
        return Watch(room=self.code, epoch=self._epoch, n=self._next_n(), have=len(self.log))

    def on_raw(self, listener: Callable[[Update], None]) -> Callable[[], None]:
        """Call ``listener(update)`` with every update received."""
        self._raw_listeners.append(listener)
        return lambda: self._raw_listeners.remove(listener)

    # -- back after a drop (ours or the host's) ---------------------------------

    def _rejoin(self) -> None:
        if not self.watching_room or self._closed:
            return
        sent = time.monotonic()
        self._send(self._watch_request())
        asyncio.get_running_loop().call_later(RESEAT_WAIT, self._rewatch_if_unanswered, sent)

    def _rewatch_if_unanswered(self, sent: float) -> None:
        link = self._link
        if self._closed or self._watched_at >= sent:
            return
        if self.room is not None and self.room.phase in ("over", "closed"):
            return
        if link is not None and link.connected:
            self._rejoin()

    def _on_watched(self, message: Watched) -> None:
        self._watched_at = time.monotonic()
        super()._on_watched(message)

    def _on_update(self, update: Update) -> None:
        for listener in list(self._raw_listeners):
            listener(update)
        super()._on_update(update)

    # -- the room's standby brokers (issue 20) ----------------------------------

    def _follow_config(self, election: bytes, *, vote: bool, standby: bool = False) -> None:
        """A watcher never votes; where the room's broker dies with its host
        (``standby``), it follows the voters' presences, which name their
        standby brokers, so that its link goes down the same succession list
        as the seats' (without it, a watcher of a room on the embedded
        broker said "reconnecting" for good once the table moved)."""
        super()._follow_config(election, vote=False, standby=standby)
        if not standby or self._standby_presences is not None:
            return
        config = decode_room_config(election)
        if config is None:
            return
        self._standby_order = [voter.key for voter in config.voters]
        self._standby_presences = VoterPresences(self.code, self._standby_order, self._floods)
        if self._link is not None:
            for topic in self._standby_presences.topics:
                self._link.subscribe(topic)

    async def _on_message(self, topic: str, payload: bytes) -> None:
        presences = self._standby_presences
        if presences is not None and topic in presences.topics:
            presences.gone(topic, payload, time.monotonic())  # notes "online" brokers
            known = presences.brokers
            self._follow_brokers([known[key] for key in self._standby_order if key in known])
            return
        await super()._on_message(topic, payload)

    # -- what a seat does, and a watcher does not -------------------------------

    async def submit(self, action: Action) -> None:
        raise IllegalAction("you are watching: you have no seat at this table")

    async def leave(self, *, keep_vote: bool = False) -> bool:
        """Stop watching: our presence says gone, which frees our place (a
        watcher has no vote to keep)."""
        await self.close()
        return False

    def _pin(self) -> None:
        """Nothing is remembered of a room watched (net/peer/pins.py is for rooms
        sat in: a watcher never comes back with this key)."""
        return

    def _presence_needed(self) -> bool:
        # Nobody waits for a watcher to come back (its key is never used
        # again): its record is cleared as it goes, not left on the broker.
        return False

    def _replay_check(self, room: RoomState) -> tuple[bool, str]:
        """The spectator's check: every public view and event received,
        against the revealed record replayed (view(None), issue 20's check)."""
        assert room.record is not None
        try:
            record = GameRecord.from_data(room.record)
        except RecordError as error:
            return False, f"Deal check FAILED: the revealed record is not readable ({error})."
        if self.codec is None:
            return True, "Deal matched the host's commitment."
        try:
            verdict = check_shown(
                self.codec.game, self.codec, record, None, self._shown, self.log, self.names
            )
        except (PasseError, ValueError) as error:
            return False, f"Deal check FAILED: the revealed record does not replay ({error})."
        return verdict.ok, verdict.text


__all__ = ["WATCHER_NAME", "Watcher"]
