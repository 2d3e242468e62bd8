"""net/transport.py's MqttLink against real brokers (the embedded one and a
Mosquitto of the test's own)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiomqtt
import pytest

from net.transport import MqttLink
from tests.net.brokers import broker_at

DEADLINE = 10.0


@pytest.fixture(params=["embedded", "mosquitto"])
async def address(request: pytest.FixtureRequest) -> AsyncIterator[tuple[str, int]]:
    async with broker_at(request.param) as where:
        yield where


async def test_a_topic_unfollowed_and_followed_again_at_once_stays_followed(
    address: tuple[str, int],
) -> None:
    """The authority stops following a waiting key's presence and follows it
    again as a seat in one go (an unsubscription and a subscription in a
    row). amqtt handles a client's packets concurrently, so when the link
    sent both without waiting for the first's acknowledgement, the
    UNSUBSCRIBE could be applied last and the seat's "gone" never came (a
    SIGTERMed bot kept its lobby seat: CI on 3.13, about 1 run in 4 under
    load). Fails without the link's one-at-a-time subscription changes."""
    host, port = address
    received: list[str] = []
    arrived = asyncio.Event()

    async def on_message(topic: str, payload: bytes) -> None:
        received.append(topic)
        arrived.set()

    topics = [f"order/{n}" for n in range(100)]
    link = MqttLink(host, port, subscriptions=topics, on_message=on_message)
    await link.start()
    try:
        for topic in topics:
            link.unsubscribe(topic)
            link.subscribe(topic)
        # A last subscription, acknowledged after every change before it.
        link.subscribe("order/done")
        async with aiomqtt.Client(host, port) as sender:
            await sender.publish("order/done", b"x", qos=1, retain=True)
            async with asyncio.timeout(DEADLINE):
                while "order/done" not in received:
                    arrived.clear()
                    await arrived.wait()
            for topic in topics:
                await sender.publish(topic, b"x", qos=1)
            async with asyncio.timeout(DEADLINE):
                while not set(topics) <= set(received):
                    arrived.clear()
                    await arrived.wait()
            await sender.publish("order/done", b"", qos=1, retain=True)
    finally:
        await link.close(graceful=False)
