"""A connection to an MQTT broker that comes back by itself.

aiomqtt (the maintained successor of asyncio-mqtt) connects once; a dropped
link ends its message iterator. :class:`MqttLink` wraps it: it reconnects
with capped exponential backoff and jitter, subscribes again, sets the last
will, sets TCP_NODELAY (without it each small message can wait tens of
milliseconds for Nagle's algorithm), and drops any payload over the size limit
or on a topic it did not subscribe to (amqtt hands retained messages of other
topics to new clients) before it reaches the handler.

It may be given several brokers, the nodes of one cluster (issue 20, e.g.
NATS's MQTT gateways, docs/scale.md): each reconnection goes down the list
from its first address and stays on the first that answers, so a peer whose
node dies goes on through the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import random
import socket
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import aiomqtt
import paho.mqtt.client as paho

from net.protocol.bounds import FloodLog
from net.protocol.wire import MAX_PAYLOAD

log = logging.getLogger("passe.net")

MessageHandler = Callable[[str, bytes], Awaitable[None]]
ConnectHook = Callable[[], Awaitable[None]]
StateHook = Callable[[bool], None]

NODELAY = (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
BACKOFF_FIRST = 0.2
BACKOFF_MAX = 5.0
# Seconds aiomqtt waits for the broker (its publish, subscribe, disconnect).
CLIENT_TIMEOUT = 5
# QoS 0 packets paho may hold unwritten before a publish waits for its own
# write (MqttLink.publish): far more than a move's burst, few enough that a
# broker reading slowly costs a link a bounded queue.
MAX_UNWRITTEN = 256


class _LateAcknowledgement(logging.Filter):
    """aiomqtt logs a traceback ("Unexpected message ID") at ERROR for an
    acknowledgement that comes after its wait was given up (a subscription
    cut short by a reconnection or a close): nothing is wrong, and the
    user's log showed a traceback for it (a play-test, 5 December). Said at
    debug, without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and str(record.msg).startswith("Unexpected message ID"):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            record.exc_info = record.exc_text = None
            # The handlers check their own level only, not the loggers'.
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


# aiomqtt's own logger (its default, and paho's through it).
logging.getLogger("mqtt").addFilter(_LateAcknowledgement())


class BrokerUnreachable(ConnectionError):
    """The broker could not be reached; the message says where and why."""


# Why a connection failed, in words for a person (a play-test read "([Errno
# 111] Connection refused)"), by errno, whether aiomqtt wrapped the OSError
# or only quoted it.
_WHY_BY_ERRNO = {
    errno.ECONNREFUSED: "nothing answers on that port",
    errno.EHOSTUNREACH: "that address cannot be reached from here",
    errno.ENETUNREACH: "that network cannot be reached from here",
    errno.ETIMEDOUT: "no answer in time",
    errno.ECONNRESET: "the connection was cut",
}


def why_unreachable(error: BaseException) -> str:
    """A failed connection's reason in words (the error's own text where
    none is known)."""
    for cause in (error, error.__cause__, error.__context__):
        if isinstance(cause, OSError) and cause.errno in _WHY_BY_ERRNO:
            return _WHY_BY_ERRNO[cause.errno]
        if isinstance(cause, socket.gaierror):
            return "no such host name"
    text = str(error)
    for number, words in _WHY_BY_ERRNO.items():
        if f"[Errno {number}]" in text:
            return words
    if isinstance(error, TimeoutError) or not text:
        return "no answer in time" if isinstance(error, TimeoutError) else type(error).__name__
    return text


async def stop_task(task: asyncio.Task[None], again_after: float = 1.0) -> None:
    """Cancel ``task`` and wait for its end, cancelling it again every
    ``again_after`` seconds while it runs on (its own exception, if any, is
    raised here). On Python 3.11, ``asyncio.wait_for``, through which
    aiomqtt's publish and subscribe wait, returns its future's result when
    the cancellation comes as that future completes, and the cancellation
    is lost (CPython gh-86296, fixed in 3.12): a loop that then awaits its
    next message never ends, and whoever awaited its end waited for ever (a
    voter's send loop, cancelled while it published a vote at the end of a
    game: the failover soak test)."""
    while not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=again_after)
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def first_of(*waits: Awaitable[object]) -> None:
    """Wait until one of ``waits`` is done; the others are cancelled."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


@dataclass(frozen=True)
class LastWill:
    topic: str
    payload: bytes
    retain: bool = True


def _matches(pattern: str, topic: str) -> bool:
    """MQTT topic filter matching (``+`` one level, ``#`` the rest)."""
    parts = pattern.split("/")
    levels = topic.split("/")
    for index, part in enumerate(parts):
        if part == "#":
            return True
        if index >= len(levels):
            return False
        if part not in ("+", levels[index]):
            return False
    return len(parts) == len(levels)


class MqttLink:
    """One broker connection for one peer or authority, kept alive until
    :meth:`close`. ``on_message`` runs for each accepted message, in order;
    ``on_connect`` after every (re)connection and subscription."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        subscriptions: Sequence[str],
        on_message: MessageHandler,
        on_connect: ConnectHook | None = None,
        on_state: StateHook | None = None,
        will: LastWill | Callable[[], LastWill] | None = None,
        client_id: str | None = None,
        keepalive: int = 5,
        empty_topics: Sequence[str] = (),
        alternates: Sequence[tuple[str, int]] = (),
    ) -> None:
        # Where to connect, in order (issue 20): (host, port) first, then the
        # other nodes of its cluster; host and port say where it is now.
        self.brokers = [(host, port), *(b for b in alternates if b != (host, port))]
        self.host = host
        self.port = port
        self.subscriptions = list(subscriptions)
        self.on_message = on_message
        self.on_connect = on_connect
        self.on_state = on_state
        self.will = will
        self.client_id = client_id or _new_client_id()
        # Where client_id last connected: moving to another node of a
        # cluster takes a new one (see _run).
        self._id_used_at: tuple[str, int] | None = None
        self._ever_up = False  # connected and subscribed at least once
        self.keepalive = keepalive
        # Topics whose empty message (a retained one cleared) is passed on:
        # the authority answers one on its own room topic (issue 19 item 5).
        self.empty_topics = frozenset(empty_topics)
        self._client: aiomqtt.Client | None = None
        self._connected = asyncio.Event()
        self._closing = False
        # Set when set_alternates(rejoin_earlier=True) changed the list while
        # the link was not up: its reconnection loop starts from the top.
        self._new_list = False
        self._tried: list[tuple[str, int]] = []  # the list of the current pass
        # The broker of the last session that was up: tried first again when
        # it ends, then the list from its top (a link that blips goes back to
        # the broker its table is on, which may not be the first one alive:
        # a machine back from the dead brings its broker back at its old
        # place in everyone's list). None: from the top (rejoin, a new list).
        self._sticky: tuple[str, int] | None = None
        # Where move_to sends the link: tried first in the next pass.
        self._move_target: tuple[str, int] | None = None
        # A retained message (topic, payload) sent as this link leaves a
        # broker of its own will (move_to, rejoin: no will is sent then),
        # made when it leaves: a voter's "gone", so that nobody surveying
        # that broker later counts it there (net/election/survey.py).
        self.farewell: Callable[[], tuple[str, bytes]] | None = None
        # Set by close(): a wait for the link to come back ends there too.
        self._closed = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None
        self._last_error: str = ""
        self._floods = FloodLog(log)  # oversized messages, once per interval
        # Subscription changes go to the broker one at a time, each after the
        # previous one's acknowledgement: amqtt handles a client's packets
        # concurrently, so an UNSUBSCRIBE sent just before a SUBSCRIBE of the
        # same topic could be applied after it and leave the topic unfollowed
        # (a bot's "gone" presence then never reached its host).
        self._subscribing = asyncio.Lock()

    def set_alternates(
        self, alternates: Sequence[tuple[str, int]], *, rejoin_earlier: bool = False
    ) -> None:
        """Where to go, after the first broker, from the next reconnection
        on (a room's standby brokers, learnt once the game starts).
        ``rejoin_earlier``: on an alternate now, and one new to the list
        comes before it: go down the list again at once (a voter that knew
        only its own standby broker when the room's died, and learnt the
        others' later, went where nobody else was: issue 20, the chaos
        soak's seed 27). The session ends without its will: nobody is
        told this link died."""
        first, before = self.brokers[0], self.brokers
        self.brokers = [first, *dict.fromkeys(b for b in alternates if b != first)]
        if not rejoin_earlier or self.brokers == before:
            return
        if not self.connected:
            self._new_list = True  # tried from its top (_run), even mid-pass
            return
        if self._after_a_new_one(before):
            self.rejoin()

    def _after_a_new_one(self, before: Sequence[tuple[str, int]]) -> bool:
        """Whether this link is on an alternate that comes after one not in
        ``before`` (a broker learnt since this session began)."""
        here = (self.host, self.port)
        if here == self.brokers[0] or here not in self.brokers:
            return False
        earlier = self.brokers[1 : self.brokers.index(here)]
        if any(broker not in before for broker in earlier):
            log.info("a broker before %s:%s in the list: going down it again", *here)
            return True
        return False

    def start_at(self, broker: tuple[str, int]) -> None:
        """Try ``broker`` first when the link starts, then its list from
        the top, as after a session there: a table taken over starts where
        its voters elected it, not at the top of the list, where a broker
        back from the dead may be that nobody else is on."""
        self._sticky = broker

    def move_to(self, broker: tuple[str, int]) -> None:
        """End the session now (a clean disconnection: no will) and go to
        ``broker``, then, if it is gone, down the list from its top (a
        survey found the room's voters there: net/election/survey.py)."""
        if broker == (self.host, self.port) and self.connected:
            return
        if broker not in self.brokers:
            self.brokers.append(broker)
        self._sticky = self._move_target = broker
        self._leave()

    def rejoin(self) -> None:
        """End the session now (a clean disconnection: no will), and go down
        the list of brokers from its first again."""
        self._sticky = None
        self._leave()

    def _leave(self) -> None:
        """End the session cleanly, after the farewell if there is one
        (paho sends its packets in order: the farewell goes first)."""
        client = self._client
        if client is None:
            return
        if self.farewell is not None and self.connected:
            try:
                topic, payload = self.farewell()
                client._client.publish(topic, payload, qos=0, retain=True)
            except Exception:  # the link leaves all the same: it was told to
                log.exception("the farewell of a link leaving %s:%s failed", self.host, self.port)
        with contextlib.suppress(Exception):  # gone already: nothing to end
            client._client.disconnect()

    # -- life cycle ----------------------------------------------------------

    async def start(self, timeout: float | None = 5.0) -> None:
        """Connect (raising :class:`BrokerUnreachable` after ``timeout``),
        then keep the link up in the background. ``timeout`` None: until it
        is up, however long the brokers take (BrokerUnreachable only if the
        link is closed meanwhile)."""
        self._runner = asyncio.get_running_loop().create_task(self._run())
        if timeout is None:
            if not await self.wait_connected_or_closed():
                raise BrokerUnreachable("the link was closed before it was up")
            return
        try:
            await asyncio.wait_for(self._connected.wait(), timeout)
        except asyncio.CancelledError:
            # Cancelled while connecting (a home screen closed as it looked
            # for a seat to rejoin): the link goes with it. Left alone, its
            # reconnection loop ran on, and on Python 3.11 a cancellation
            # lost in aiomqtt's waits (see stop_task) kept it running when
            # the loop ended, which waited for it for ever (a test's
            # teardown, 300 s).
            await self.close(graceful=False)
            raise
        except TimeoutError:
            await self.close(graceful=False)
            where = ", ".join(f"{host}:{port}" for host, port in self.brokers)
            which = "the broker" if len(self.brokers) == 1 else "any of the brokers"
            raise BrokerUnreachable(
                f"cannot reach {which} at {where}"
                + (f" ({self._last_error})" if self._last_error else "")
            ) from None

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    async def wait_connected(self) -> None:
        await self._connected.wait()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called: it never connects again."""
        return self._closed.is_set()

    async def wait_connected_or_closed(self) -> bool:
        """Until the link is up (``True``) or closed for good (``False``):
        a closed link never comes back, so nothing is gained waiting on."""
        if not self._connected.is_set() and not self._closed.is_set():
            await first_of(self._connected.wait(), self._closed.wait())
        return self._connected.is_set() and not self._closed.is_set()

    async def close(
        self, *, graceful: bool = True, final: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        """Publish ``final`` messages (retained) if connected, then disconnect.
        ``graceful=False`` skips them."""
        self._closing = True
        self._closed.set()
        client = self._client
        if graceful and client is not None and self.connected:
            for topic, payload in final:
                with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
                    await client.publish(topic, payload, qos=1, retain=True, timeout=2)
        if self._runner is not None:
            # Its disconnection from the broker may take aiomqtt's timeout.
            with contextlib.suppress(Exception):
                await stop_task(self._runner, again_after=CLIENT_TIMEOUT + 1)
            self._runner = None

    def subscribe(self, pattern: str) -> None:
        """Subscribe to ``pattern`` from now on (and after every reconnection)."""
        if pattern in self.subscriptions:
            return
        self.subscriptions.append(pattern)
        client = self._client
        if client is not None and self.connected:
            task = asyncio.get_running_loop().create_task(self._subscribe(client, pattern))
            task.add_done_callback(_retrieve_task)

    def unsubscribe(self, pattern: str) -> None:
        """No more messages on ``pattern`` (they are dropped from now on)."""
        if pattern not in self.subscriptions:
            return
        self.subscriptions.remove(pattern)
        client = self._client
        if client is not None and self.connected:
            task = asyncio.get_running_loop().create_task(self._unsubscribe(client, pattern))
            task.add_done_callback(_retrieve_task)

    async def _subscribe(self, client: aiomqtt.Client, pattern: str) -> None:
        async with self._subscribing:
            delay = BACKOFF_FIRST
            # A refused subscription is asked again while it is wanted on
            # this connection (a new one subscribes to everything anyway).
            while pattern in self.subscriptions and client is self._client:
                try:
                    await _subscribed(client, pattern)
                    return
                except (aiomqtt.MqttError, TimeoutError) as error:
                    if not self.connected:
                        return
                    log.warning("%s; asking again", error)
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF_MAX)

    async def _unsubscribe(self, client: aiomqtt.Client, pattern: str) -> None:
        async with self._subscribing:
            with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
                await client.unsubscribe(pattern)

    async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> bool:
        """Send now if connected; ``False`` if the link is down (the protocol
        recovers by re-synchronising after the reconnection).

        A QoS 0 message goes into paho's queue without waiting for its write:
        aiomqtt's wait costs loop turns per message, and a send loop waiting
        on each paid them in turn for every Append, reply and update of a
        replicated move (issue 20: through Mosquitto, measured in interleaved
        slices, a replicated move's p50 went from 5.7 to 4.8 ms, its p99 from
        10.5 to 7.4). paho writes its queue in order, several packets to a
        write. Past MAX_UNWRITTEN packets not yet written, a message waits for
        its own write, so what a link holds stays bounded. Retained messages
        go at QoS 1 and wait for the broker's acknowledgement."""
        client = self._client
        if client is None or not self.connected or self._closing:
            return False  # closing: its final messages are its last word
        try:
            if not retain and _unwritten(client) < MAX_UNWRITTEN:
                return _publish_unwaited(client, topic, payload)
            await client.publish(topic, payload, qos=1 if retain else 0, retain=retain)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a link going down fails in several ways
            log.debug("publish to %s failed: %r", topic, error)
            return False
        return True

    def publish_now(self, topic: str, payload: bytes) -> bool:
        """A QoS 0 message written to the socket now, before this call
        returns, rather than at the loop's next turn: whether it went (not
        when the link is down, or holds MAX_UNWRITTEN packets already: then
        the caller queues it as :meth:`publish` would). A replicated move's
        Appends left only after the authority had sealed every seat's update
        in the same turn (issue 20: docs/benchmarks.md, 4 December)."""
        client = self._client
        if client is None or not self.connected or self._closing or _unwritten(client) > 0:
            return False  # down, closing, or after what waits: in order
        paho_client = client._client
        # paho would have aiomqtt watch the socket for this packet (a wake-up
        # through a pipe, a watch added, then removed, a loop turn each): the
        # write is done here instead, and the watch asked for only for what
        # the socket did not take.
        paho_client._registered_write = True
        try:
            if not _publish_unwaited(client, topic, payload):
                return False
            paho_client.loop_write()
        except Exception as error:  # a link going down fails in several ways
            log.debug("publish to %s failed: %r", topic, error)
            return False
        finally:
            paho_client._registered_write = False
            if paho_client.want_write():
                paho_client._call_socket_register_write()
        return True

    # -- the loop ------------------------------------------------------------

    async def _run(self) -> None:
        delay = BACKOFF_FIRST
        while not self._closing:
            # Down the list of brokers, at once from one to the next, until
            # one is up (issue 20): a cluster's next node when one is dead.
            was_up = False
            sticky = None if self._new_list else self._sticky
            if self._move_target is not None:
                sticky, self._move_target = self._move_target, None
            self._new_list = False
            tried = list(self.brokers)
            if sticky in tried:
                # First in each pass until a session is up elsewhere: a
                # broker that restarts takes longer than one backoff.
                tried.remove(sticky)
                tried.insert(0, sticky)
            self._tried = tried
            for host, port in tried:
                self.host, self.port = host, port
                if self._id_used_at not in (None, (host, port)):
                    # A new session on another node: NATS keeps the session
                    # of a client id whose node died in the cluster, and
                    # refused every subscription made under that id through
                    # the other nodes for minutes (issue 20, docs/scale.md).
                    self.client_id, self._id_used_at = _new_client_id(), None
                was_up = await self._attempt()
                if self._closing:
                    return
                if was_up or self._new_list:
                    break
            if self._new_list and not was_up:
                continue  # a new list came during the pass: from its top, at once
            if was_up:
                delay = BACKOFF_FIRST  # it was up: start again quickly
            # Jitter spreads the reconnections of a whole table after a restart.
            await asyncio.sleep(delay * random.uniform(0.7, 1.3))
            delay = min(delay * 2, BACKOFF_MAX)

    async def _attempt(self) -> bool:
        """One session with the broker at ``self.host:self.port``, to its end:
        whether it was up (connected and subscribed) at all."""
        try:
            await self._session()
        except asyncio.CancelledError:
            raise
        except (aiomqtt.MqttError, OSError, TimeoutError) as error:
            self._last_error = why_unreachable(error)
            # Said at info once the link had been up: why it is not back
            # (PASSE_LOG=info); at most one line per broker of the list per
            # pass, and passes wait a backoff (at least BACKOFF_FIRST).
            level = logging.INFO if self._ever_up else logging.DEBUG
            log.log(level, "broker %s:%s: %s", self.host, self.port, self._last_error)
        except Exception as error:  # a bug must not end the reconnections
            self._last_error = str(error) or type(error).__name__
            log.warning("link to %s:%s failed: %r", self.host, self.port, error)
        finally:
            was_up = self._connected.is_set()
            if was_up:
                self._connected.clear()
                if self.on_state is not None:
                    self.on_state(False)
            self._client = None
        return was_up

    async def _session(self) -> None:
        # A will may be made afresh for each connection (a new presence epoch).
        spec = self.will() if callable(self.will) else self.will
        will = (
            aiomqtt.Will(spec.topic, spec.payload, qos=1, retain=spec.retain)
            if spec is not None
            else None
        )
        client = aiomqtt.Client(
            self.host,
            self.port,
            identifier=self.client_id,
            will=will,
            keepalive=self.keepalive,
            timeout=CLIENT_TIMEOUT,
            clean_session=True,
            socket_options=[NODELAY],
            max_queued_incoming_messages=10_000,
        )
        # aiomqtt sets this future's exception on an abrupt disconnection and
        # may not await it when its task is cancelled; retrieving it here
        # keeps "Future exception was never retrieved" off the user's terminal.
        client._disconnected.add_done_callback(_retrieve)
        _watch_writes_safely(client)
        _disconnect_safely(client)
        async with client:
            self._id_used_at = (self.host, self.port)
            self._client = client
            for pattern in self.subscriptions:
                await _subscribed(client, pattern)
            if self._closing:
                # Closed as it connected, the cancellation lost in aiomqtt's
                # waits on Python 3.11 (see stop_task): up now, it would run
                # on_connect, which published a table's "online" after its
                # close had found it down and said nothing (the record then
                # showed a table that had gone for ever: the double-loss
                # tests, 5 runs in 21).
                return
            self._connected.set()
            self._ever_up = True
            self._sticky = (self.host, self.port)
            if self._new_list:
                # The list changed while this connection was made: a broker
                # learnt meanwhile may come before this one.
                self._new_list = False
                if self._after_a_new_one(self._tried):
                    self.rejoin()
            log.debug("connected to %s:%s as %s", self.host, self.port, self.client_id)
            if self.on_connect is not None:
                await self.on_connect()
                if self._closing:
                    return  # closed meanwhile, its cancellation lost (as above)
            if self.on_state is not None:
                self.on_state(True)
            async for message in client.messages:
                topic = message.topic.value
                payload = message.payload
                if not isinstance(payload, (bytes, bytearray)):
                    continue
                if not payload and topic not in self.empty_topics:
                    # Empty: a retained message being cleared (a room that
                    # nobody needs any more, docs/protocol.md): nothing to read.
                    continue
                if len(payload) > MAX_PAYLOAD:
                    self._floods.note(
                        "size",
                        f"dropped {len(payload)} bytes on {topic}: over the size limit",
                        asyncio.get_running_loop().time(),
                    )
                    continue
                if not any(_matches(pattern, topic) for pattern in self.subscriptions):
                    continue
                try:
                    await self.on_message(topic, bytes(payload))
                except asyncio.CancelledError:
                    raise
                except Exception:  # a handler bug must not take the link down
                    log.exception("handling a message on %s failed", topic)


def _unwritten(client: aiomqtt.Client) -> int:
    """Packets paho holds that the socket has not taken yet."""
    return len(client._client._out_packet)


def _publish_unwaited(client: aiomqtt.Client, topic: str, payload: bytes) -> bool:
    """A QoS 0 message into paho's queue, in order after those before it:
    whether paho took it (not when the link is already gone)."""
    info = client._client.publish(topic, payload, 0, False)
    return info.rc == paho.MQTT_ERR_SUCCESS


def _new_client_id() -> str:
    return f"passe-{uuid.uuid4().hex[:12]}"


async def _subscribed(client: aiomqtt.Client, pattern: str) -> None:
    """Subscribe to ``pattern``; raises ``MqttError`` when the broker refuses
    (SUBACK 0x80). Unchecked, a refused subscription left the link deaf on that
    topic for the whole connection: NATS refused one whose JetStream consumer
    it could not create while its cluster elected new leaders after losing a
    node (issue 20; a peer's Hello was then never answered).

    At QoS 0: NATS makes a replicated JetStream consumer for each QoS 1
    subscription, and a cluster that lost a node refused them for minutes
    (a peer whose node died came back 20-240 s later, or not within the
    soak's deadline); with none, within seconds (docs/scale.md). Sessions
    are clean, so a QoS 1 delivery gained nothing: what a connection had
    unacknowledged went with it, and the re-synchronisation covers it."""
    granted = await client.subscribe(pattern, qos=0)
    # Reason codes (paho 2) compare with numbers as plain codes do.
    if any(code >= 0x80 for code in granted):
        raise aiomqtt.MqttError(f"the broker refused the subscription to {pattern}")


def _watch_writes_safely(client: aiomqtt.Client) -> None:
    """aiomqtt has the loop watch paho's socket for writing at its next turn,
    with the descriptor read now: a socket closed in between (the session
    ending as paho queued a packet) made that turn fail with EBADF, a
    traceback on the person's terminal (CI, a peer at its game's end), and
    a descriptor reused meanwhile would be watched for another file. Here
    the descriptor is read when the watch is added, and none is added for a
    socket that is closed or no longer paho's."""
    loop = client._loop
    paho_client = client._client

    def register(_paho: paho.Client, _userdata: object, sock: object) -> None:
        def write() -> None:
            # As aiomqtt's: a failed write is the connection breaking.
            try:
                paho_client.loop_write()
            except Exception as error:
                if not client._disconnected.done():
                    client._disconnected.set_exception(error)

        def watch() -> None:
            fileno = sock.fileno()  # type: ignore[attr-defined]
            if fileno >= 0 and paho_client.socket() is sock:
                loop.add_writer(fileno, write)

        loop.call_soon_threadsafe(watch)

    paho_client.on_socket_register_write = register


def _disconnect_safely(client: aiomqtt.Client) -> None:
    """aiomqtt's disconnection callback asks its connection's future for
    its exception: a future cancelled (the link closed as it connected)
    raises CancelledError there, inside paho's read callback, and asyncio
    logged it as a traceback (a play-test, leaving a game's end). Such a
    connection never came up: aiomqtt itself returns early for one."""
    paho_client = client._client
    aiomqtt_on_disconnect = paho_client.on_disconnect
    assert aiomqtt_on_disconnect is not None  # set by aiomqtt.Client

    def on_disconnect(*arguments: Any) -> None:
        if client._connected.cancelled():
            return
        aiomqtt_on_disconnect(*arguments)

    paho_client.on_disconnect = on_disconnect


def _retrieve(future: asyncio.Future[None]) -> None:
    if not future.cancelled():
        future.exception()


def _retrieve_task(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()


__all__ = ["BrokerUnreachable", "LastWill", "MqttLink", "first_of", "stop_task"]
