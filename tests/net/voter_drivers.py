"""A room's voters as drivers in this process, with no link: what they send
waits in their outboxes, for a test to carry by hand (tests that look at the
driver's own rules: the seat's early update, where a voter goes when the
room's broker dies)."""

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
