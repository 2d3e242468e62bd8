"""A room's voters as drivers in this process, with no link: what they send
waits in their outboxes, for a test to carry by hand (tests that look at the
driver's own rules: the seat's early update, where a voter goes when the
room's broker dies; an election that moves a room's replica), and a
network that carries it (:class:`Network`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from net.election import shares
from net.election.driver import FileStorage, VoterDriver, first_persisted
from net.election.messages import Voter
from net.identity import Identity

CODE = "EAR123"


def voter_drivers(
    tmp_path: Path, count: int, dealers: int = 0, cluster: Sequence[tuple[str, int]] = ()
) -> list[VoterDriver]:
    """A room's voters, the first (a dealer if there are any) its maker and
    authority of term 1; no links: what they send waits in their outboxes.
    ``cluster``: the other nodes of the room's broker's cluster."""
    identities = [Identity.generate() for _ in range(count)]
    voters = [
        Voter(identity.public_key, dealer=n < dealers) for n, identity in enumerate(identities)
    ]
    config, secret = shares.make_config(identities[0], voters)
    drivers = [
        VoterDriver(
            identity,
            CODE,
            FileStorage.create(
                tmp_path / f"{n}.voter", first_persisted(config, identities[0].public_key)
            ),
            "127.0.0.1",
            1,
            cluster=cluster,
        )
        for n, identity in enumerate(identities)
    ]
    drivers[0].lead_first_term(secret)
    return drivers


class Network:
    """Carries what the drivers send, by hand: to some of them, the rest
    held back until a later call lets it through (the announcement, for
    no voter, is dropped)."""

    def __init__(self, drivers: list[VoterDriver]) -> None:
        self.drivers = drivers
        self.waiting: list[tuple[str, bytes]] = []

    def _to(self, topic: str) -> int | None:
        return next((n for n, d in enumerate(self.drivers) if d.topic == topic), None)

    async def carry(self, only: set[int] | None = None) -> None:
        while True:
            for driver in self.drivers:
                while not driver._outbox.empty():
                    topic, sealed, _ = driver._outbox.get_nowait()
                    if self._to(topic) is not None:  # not the announcement
                        # Sealed as the send loop seals one put off (an
                        # Append after the seat's update: OTHERS_AFTER_UPDATE).
                        payload = sealed if isinstance(sealed, bytes) else sealed()
                        self.waiting.append((topic, payload))
            going = [m for m in self.waiting if only is None or self._to(m[0]) in only]
            if not going:
                return
            self.waiting = [m for m in self.waiting if m not in going]
            for topic, payload in going:
                number = self._to(topic)
                assert number is not None
                await self.drivers[number]._on_message(topic, payload)
