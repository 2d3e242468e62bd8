"""Fixtures shared by every test directory."""

from __future__ import annotations

import os
import socket

import pytest

MOSQUITTO = ("127.0.0.1", 1883)


@pytest.fixture
def mosquitto() -> tuple[str, int]:
    """The machine's Mosquitto on 127.0.0.1:1883. Tests that need it skip
    with the reason when it is unreachable, except in CI (``CI=true``),
    where its absence is a failure."""
    try:
        with socket.create_connection(MOSQUITTO, timeout=1.0):
            pass
    except OSError as error:
        reason = f"no MQTT broker at {MOSQUITTO[0]}:{MOSQUITTO[1]} ({error}): start Mosquitto"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return MOSQUITTO
