"""The room secret under Shamir's threshold scheme (issue 20.3).

The secret (32 bytes: the key that opens the log's actions, under which the
seed, salt and pending secret choices travel) is split with pycryptodome's
Shamir over GF(2^128), which shares 16-byte secrets: the two halves are split
alike, and share *i* is the pair of the halves' shares *i* (32 bytes). Each
share is sealed (NaCl Box, net/identity.py) from the splitter to its holder.
A voter re-seals its share to the candidate it votes for, so only a
candidate holding ``threshold`` shares (a majority of holders' votes) can
rebuild the secret; ``check`` tells a rebuilt secret from a wrong one
(a bad or stale share) without saying anything about it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection

import nacl.utils
from Crypto.Protocol.SecretSharing import Shamir
from nacl.exceptions import CryptoError

from net.election.messages import Config, SealedShare, Voter
from net.identity import Identity

SECRET_SIZE = 32
_HALF = 16


def holders(voters: list[Voter]) -> list[Voter]:
    """Who holds shares: the dealers when there is one (then no player's
    process ever holds a share, DESIGN "Trust model"), else every voter."""
    dealers = [voter for voter in voters if voter.dealer]
    return dealers or list(voters)


def threshold_for(holder_count: int, *, dealers: bool = False) -> int:
    """A majority of the holders: fewer learn nothing (Shamir). Among
    dealers, half of them rounded up: a dealer never plays, so what the
    threshold guards among them is that the deck outlives the loss of any
    minority of dealers and the authority among them (two dealers: either
    alone; docs/election.md section 5). Players never hold a share there."""
    if dealers:
        return (holder_count + 1) // 2
    return holder_count // 2 + 1


def check_value(secret: bytes) -> bytes:
    # A keyed hash of a 32-byte random key reveals nothing usable about it.
    return hashlib.blake2b(secret, digest_size=32, person=b"passe-elect-chk").digest()


def make_config(
    splitter: Identity,
    voters: list[Voter],
    secret: bytes | None = None,
    *,
    declined: Collection[bytes] = (),
) -> tuple[Config, bytes]:
    """A new room's set-up and its secret (random unless given). A voter in
    ``declined`` (a person who declined to stand, issue 20) votes but holds
    no share, so it can never be elected (``Node.can_stand``); the
    threshold is a majority of those who hold one."""
    secret = nacl.utils.random(SECRET_SIZE) if secret is None else secret
    if len(secret) != SECRET_SIZE:
        raise ValueError("the room secret is 32 bytes")
    sharing = [voter for voter in holders(voters) if voter.key not in declined]
    if not sharing:
        raise ValueError("somebody must stand: every share holder declined")
    threshold = threshold_for(len(sharing), dealers=any(voter.dealer for voter in sharing))
    first = Shamir.split(threshold, len(sharing), secret[:_HALF])
    second = Shamir.split(threshold, len(sharing), secret[_HALF:])
    shares = [
        SealedShare(
            holder=voter.key,
            index=index,
            sealed=bytes(splitter.box_with(voter.key).encrypt(low + high)),
        )
        for voter, (index, low), (_, high) in zip(sharing, first, second, strict=True)
    ]
    config = Config(list(voters), splitter.public_key, threshold, shares, check_value(secret))
    return config, secret


def own_share(identity: Identity, config: Config) -> tuple[int, bytes] | None:
    """This process's share of ``config`` (index, 32 bytes), if it holds one."""
    for share in config.shares:
        if share.holder == identity.public_key:
            opened = _open(identity, config.sealer, share.sealed)
            return None if opened is None else (share.index, opened)
    return None


def reseal(identity: Identity, candidate: bytes, share: bytes) -> bytes:
    """``share`` sealed from this voter to ``candidate`` (for a Vote)."""
    return bytes(identity.box_with(candidate).encrypt(share))


def open_from(identity: Identity, voter: bytes, sealed: bytes) -> bytes | None:
    """A share a voter sealed to this process, or None if it does not open."""
    return _open(identity, voter, sealed)


def combine(config: Config, shares: dict[int, bytes]) -> bytes | None:
    """The secret from ``threshold`` shares (index -> 32 bytes), or None when
    there are too few or they rebuild something else than the config's."""
    if len(shares) < config.threshold:
        return None
    # pycryptodome: "pass exactly as many shares as they are required".
    chosen = sorted(shares.items())[: config.threshold]
    try:
        low = Shamir.combine([(index, share[:_HALF]) for index, share in chosen])
        high = Shamir.combine([(index, share[_HALF:]) for index, share in chosen])
    except ValueError:
        return None
    secret = low + high
    return secret if check_value(secret) == config.check else None


def _open(identity: Identity, sender: bytes, sealed: bytes) -> bytes | None:
    try:
        opened = bytes(identity.box_with(sender).decrypt(sealed))
    except (CryptoError, ValueError):
        return None
    return opened if len(opened) == SECRET_SIZE else None
