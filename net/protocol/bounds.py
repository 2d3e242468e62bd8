"""What a sender can make a process spend, bounded (issue 19 items 4, 6, 8).

Plain classes, no I/O and no clock of their own: every method takes ``now``
(seconds, any monotonic origin), so the tests drive them with made-up times
and the MQTT shell (net/authority/authority.py, net/peer/remote.py, net/lan/transport.py) only
passes ``time.monotonic()``. ``docs/protocol.md`` ("Bounds") lists every
limit and what happens past it.

- :class:`TokenBucket`: a rate with a burst (messages or bytes per second).
- :class:`SenderLimits`: one bucket pair per sender and one for everyone,
  with a bounded number of senders remembered (the least recently seen is
  forgotten first), so a flood of fresh keys costs a bounded table.
- :class:`Gate`: at most one of something per key per interval (the answer
  with the whole log to a stale request, say).
- :class:`FloodLog`: a kind of dropped message logged once, then at most
  once per interval with the count since, never once per message.
"""

from __future__ import annotations

import logging
from collections import OrderedDict, deque
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Final


def _refill(tokens: float, then: float, rate: float, burst: float, now: float) -> float:
    """A token bucket's tokens at ``now``: ``tokens`` (negative: never used,
    full at first use) counted at ``then``, ``rate`` a second up to ``burst``."""
    if tokens < 0:
        return burst
    return min(burst, tokens + max(0.0, now - then) * rate)


@dataclass
class TokenBucket:
    """``rate`` tokens a second, up to ``burst`` saved up."""

    rate: float
    burst: float
    tokens: float = -1.0  # full at first use
    at: float = 0.0

    def take(self, now: float, cost: float = 1.0) -> bool:
        """Spend ``cost`` tokens if there are that many (then True)."""
        self.tokens, self.at = _refill(self.tokens, self.at, self.rate, self.burst, now), now
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False


# A message bucket and a byte bucket, each (tokens, when counted), never used.
Budget = tuple[float, float, float, float]
FRESH: Final[Budget] = (-1.0, 0.0, -1.0, 0.0)


@dataclass(frozen=True)
class Rate:
    """Messages and bytes a second, each with its burst."""

    messages: float
    message_burst: float
    bytes: float
    byte_burst: float

    def take(self, budget: Budget, size: int, now: float) -> tuple[bool, Budget]:
        """One message of ``size`` bytes from ``budget``: whether both of its
        buckets had room, and the budget after (a message refused for its
        bytes still spent its message token)."""
        messages = _refill(budget[0], budget[1], self.messages, self.message_burst, now)
        if messages < 1.0:
            return False, (messages, now, budget[2], budget[3])
        volume = _refill(budget[2], budget[3], self.bytes, self.byte_burst, now)
        if volume < size:
            return False, (messages - 1.0, now, volume, now)
        return True, (messages - 1.0, now, volume - size, now)


@dataclass
class SenderLimits:
    """Per-sender and total budgets of messages and bytes.

    ``allow(sender, size, now)`` is False past either bound; the refused
    message is counted in ``refused`` (per reason) and costs nothing more.
    At most ``max_senders`` senders are remembered: a sender forgotten (the
    least recently seen) starts again with a full bucket, which a flood of
    fresh keys gets anyway; the total bucket is what bounds them."""

    per_sender: Rate
    total: Rate
    max_senders: int = 1024
    # Each sender's budget as a tuple of four floats, which the garbage
    # collector stops tracking at its first pass. A room keeps a few of
    # these tables; as two TokenBuckets and a pair per sender they were a
    # fifth of what a dealer's full collection walked per room
    # (bench/dealer.py, BENCH_DEALER_CENSUS).
    _senders: OrderedDict[Hashable, Budget] = field(default_factory=OrderedDict)
    _total: Budget = FRESH
    refused: dict[str, int] = field(default_factory=dict)

    def allow(self, sender: Hashable, size: int, now: float) -> bool:
        budget = self._senders.get(sender)
        if budget is None:
            budget = FRESH
            self._senders[sender] = budget
            while len(self._senders) > self.max_senders:
                self._senders.popitem(last=False)
        else:
            self._senders.move_to_end(sender)
        allowed, self._senders[sender] = self.per_sender.take(budget, size, now)
        if not allowed:
            self._count("sender")
            return False
        allowed, self._total = self.total.take(self._total, size, now)
        if not allowed:
            self._count("total")
            return False
        return True

    def forget(self, sender: Hashable) -> None:
        self._senders.pop(sender, None)

    @property
    def senders(self) -> int:
        return len(self._senders)

    def _count(self, reason: str) -> None:
        self.refused[reason] = self.refused.get(reason, 0) + 1


@dataclass
class Gate:
    """At most one passage per key per ``interval`` seconds; at most
    ``max_keys`` keys remembered (the oldest forgotten first)."""

    interval: float
    max_keys: int = 1024
    _last: OrderedDict[Hashable, float] = field(default_factory=OrderedDict)
    refused: int = 0

    def allow(self, key: Hashable, now: float) -> bool:
        last = self._last.get(key)
        if last is not None and now - last < self.interval:
            self.refused += 1
            return False
        self._last[key] = now
        self._last.move_to_end(key)
        while len(self._last) > self.max_keys:
            self._last.popitem(last=False)
        return True


FLOOD_INTERVAL: Final = 10.0  # seconds between two log lines of one kind


@dataclass
class FloodLog:
    """Log lines for dropped messages, one kind at a time: the first is
    logged at once, later ones are counted and summed up in at most one line
    per ``interval`` ("... 312 more in the last 10 s"). ``logger`` and
    ``level`` say where."""

    logger: logging.Logger
    level: int = logging.WARNING
    interval: float = FLOOD_INTERVAL
    max_kinds: int = 64
    _kinds: OrderedDict[str, tuple[float, int]] = field(default_factory=OrderedDict)
    counts: dict[str, int] = field(default_factory=dict)  # every one, per kind

    def note(self, kind: str, message: str, now: float, level: int | None = None) -> bool:
        """One dropped message of ``kind`` (``message`` says what, plain
        text); True when a line was written for it. ``level`` overrides
        the default for this kind."""
        level = self.level if level is None else level
        self.counts[kind] = self.counts.get(kind, 0) + 1
        entry = self._kinds.get(kind)
        if entry is None:
            self._remember(kind, now, 0)
            self.logger.log(level, "%s", message)
            return True
        since, suppressed = entry
        if now - since < self.interval:
            self._kinds[kind] = (since, suppressed + 1)
            return False
        self._remember(kind, now, 0)
        if suppressed:
            self.logger.log(
                level,
                "%s (and %d more like it in the last %.0f s)",
                message,
                suppressed,
                now - since,
            )
        else:
            self.logger.log(level, "%s", message)
        return True

    def _remember(self, kind: str, now: float, suppressed: int) -> None:
        self._kinds[kind] = (now, suppressed)
        self._kinds.move_to_end(kind)
        while len(self._kinds) > self.max_kinds:
            self._kinds.popitem(last=False)
        if len(self.counts) > 4 * self.max_kinds:
            self.counts.clear()


@dataclass
class Outbox:
    """The authority's messages waiting for the broker, bounded: at most
    ``max_messages`` and ``max_bytes``. Past either, a private message (an
    update, a refusal: a peer that misses one asks again) is dropped and
    counted; a retained one (the room state) is always kept, and replaces
    the one still waiting on its topic, since only the newest counts, unless
    that one may leave earlier (a lower ``barrier``): it is then kept too,
    at most one such per topic (see :meth:`push`)."""

    max_messages: int = 2048
    max_bytes: int = 32 * 1024 * 1024
    # (topic, payload, retain, barrier): a message may not leave before the
    # replicated log has committed its ``barrier`` index (net/authority/replication.py).
    _queue: deque[tuple[str, bytes, bool, int]] = field(default_factory=deque)
    _bytes: int = 0
    dropped: int = 0

    def push(self, topic: str, payload: bytes, retain: bool, barrier: int = 0) -> bool:
        if retain:
            waiting = [
                index
                for index, (queued, _, kept, _) in enumerate(self._queue)
                if kept and queued == topic
            ]
            if waiting and self._queue[waiting[0]][3] < barrier:
                # The first one may leave before this one's barrier is
                # committed: replaced, it would wait for it too, and what it
                # says may be what that commit needs (the first room state of
                # a failover game names the voters who must hold the entry
                # that the next state waits for: net/authority/authority.py's
                # start_game). It stays; any later one is replaced.
                waiting = waiting[1:]
            if waiting and any(later[3] > barrier for later in list(self._queue)[waiting[0] + 1 :]):
                # At the end it would wait behind messages held for the log
                # that it need not wait for: it takes the place of the one
                # it replaces instead (a room state in play is never held;
                # the updates queued after it may be).
                first = waiting[0]
                self._bytes += len(payload) - len(self._queue[first][1])
                self._queue[first] = (topic, payload, retain, barrier)
                for index in reversed(waiting[1:]):
                    self._bytes -= len(self._queue[index][1])
                    del self._queue[index]
                return True
            for index in reversed(waiting):
                self._bytes -= len(self._queue[index][1])
                del self._queue[index]
        elif len(self._queue) >= self.max_messages or self._bytes + len(payload) > self.max_bytes:
            self.dropped += 1
            return False
        self._queue.append((topic, payload, retain, barrier))
        self._bytes += len(payload)
        return True

    def pop(self, committed: int | None = None) -> tuple[str, bytes, bool] | None:
        """The next message that may leave: the first, when the log has
        ``committed`` its barrier (None: no log, all may leave in order);
        else the first retained message whose barrier is committed, ahead
        of those held. The room state in play and the watchers' count say
        nothing the log must hold first, and are the news while the log
        cannot commit: a room that lost its majority showed nobody away,
        its state queued behind the move that waited for those very
        machines (a play-test, 6 December). The order of the messages on
        one topic is kept: at most one that may leave waits per topic."""
        if not self._queue:
            return None
        index = 0
        if committed is not None and self._queue[0][3] > committed:
            index = next(
                (
                    at
                    for at, (_, _, retain, barrier) in enumerate(self._queue)
                    if retain and barrier <= committed
                ),
                -1,
            )
            if index < 0:
                return None
        topic, payload, retain, _ = self._queue[index]
        del self._queue[index]
        self._bytes -= len(payload)
        return topic, payload, retain

    def barrier(self) -> int:
        """The log index the next message waits for (0: none, or empty)."""
        return self._queue[0][3] if self._queue else 0

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def size(self) -> int:
        return self._bytes


__all__ = [
    "FLOOD_INTERVAL",
    "FloodLog",
    "Gate",
    "Outbox",
    "Rate",
    "SenderLimits",
    "TokenBucket",
]
