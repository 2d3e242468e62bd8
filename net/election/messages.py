"""The messages of the election and replication core (protocol v2 draft).

msgspec Structs with every field bounded, so a decoder refuses an oversized
or malformed message in one pass before the core sees it (docs/election.md,
"Messages"). They travel inside protocol v1's signed envelopes, sealed to
their one recipient: the envelope's verified sender key is who sent them,
so no message names its own sender.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec
from msgspec import Meta, Struct

from net.identity import PUBLIC_KEY_SIZE

# Bounds: a room has at most 16 seats plus a few dealers; one Append carries
# at most MAX_BATCH entries of at most MAX_ENTRY_DATA bytes, so a message
# stays well under protocol v1's 256 KiB payload limit (net/protocol/wire.py).
MAX_VOTERS: Final = 24
MAX_BATCH: Final = 16
MAX_ENTRY_DATA: Final = 8 * 1024
MAX_SEALED_SHARE: Final = 128  # 40 bytes of box nonce and tag + a 32-byte share

Term = Annotated[int, Meta(ge=0, le=2**53)]
Index = Annotated[int, Meta(ge=0, le=2**53)]
Nonce = Annotated[int, Meta(ge=0, le=2**53)]
Key = Annotated[bytes, Meta(min_length=PUBLIC_KEY_SIZE, max_length=PUBLIC_KEY_SIZE)]
EntryData = Annotated[bytes, Meta(max_length=MAX_ENTRY_DATA)]
SealedBytes = Annotated[bytes, Meta(min_length=1, max_length=MAX_SEALED_SHARE)]
ShareIndex = Annotated[int, Meta(ge=1, le=MAX_VOTERS)]

# What a log entry is: the room's set-up (voters and their sealed shares),
# the first entry of an authority's term (the table moved), or an action.
EntryKind = Literal["config", "term", "action"]


class Entry(Struct, frozen=True, forbid_unknown_fields=True):
    """One entry of the replicated log. ``data`` is opaque to every voter but
    the authority: an action's ciphertext under the room key, or an encoded
    :class:`Config`. ``sender`` and ``nonce`` name the request it answers
    (a ``term`` entry names the new authority, nonce 0)."""

    term: Term
    kind: EntryKind
    sender: Key
    nonce: Nonce
    data: EntryData


class Voter(Struct, frozen=True, forbid_unknown_fields=True):
    key: Key
    dealer: bool  # a non-playing authority (`passe dealer`), preferred


class SealedShare(Struct, frozen=True, forbid_unknown_fields=True):
    """Share number ``index`` of the room secret, sealed (NaCl Box) from the
    config's ``sealer`` to ``holder``."""

    holder: Key
    index: ShareIndex
    sealed: SealedBytes


class Config(Struct, frozen=True, forbid_unknown_fields=True):
    """The replicated set-up of a room: who votes, who holds shares (the
    dealers if any, else every voter), how many shares rebuild the secret,
    and a check value that tells a rebuilt secret from a wrong one."""

    voters: Annotated[list[Voter], Meta(min_length=1, max_length=MAX_VOTERS)]
    sealer: Key
    threshold: ShareIndex
    shares: Annotated[list[SealedShare], Meta(min_length=1, max_length=MAX_VOTERS)]
    check: Annotated[bytes, Meta(min_length=32, max_length=32)]


# --------------------------------------------------------------------------
# Between voters.


class PreVote(Struct, frozen=True, forbid_unknown_fields=True, tag="pre_vote"):
    """Raft's pre-vote (thesis 9.6): "would you vote for me in ``term``?",
    asked before standing. Nobody persists or adopts anything for it, so a
    voter cut off for a while (or a broker blip) cannot raise the term and
    unseat a live authority: it stands only once a majority, none of which
    has heard the authority lately, says it would vote for it."""

    term: Term  # the term the sender would stand for: its own + 1
    last_index: Index
    last_term: Term


class PreVoteReply(Struct, frozen=True, forbid_unknown_fields=True, tag="pre_vote_reply"):
    """``granted``: ``term`` is the asked one. Refused: the voter's own term
    (a higher one tells the asker to move to it, as any message does)."""

    term: Term
    granted: bool


class RequestVote(Struct, frozen=True, forbid_unknown_fields=True, tag="request_vote"):
    term: Term
    last_index: Index
    last_term: Term


class ShareForCandidate(Struct, frozen=True, forbid_unknown_fields=True):
    """The voter's share re-sealed from the voter to the candidate, with the
    config entry it belongs to (shares of two splits never combine)."""

    config_index: Index
    config_term: Term
    index: ShareIndex
    sealed: SealedBytes


class Vote(Struct, frozen=True, forbid_unknown_fields=True, tag="vote"):
    term: Term
    granted: bool
    share: ShareForCandidate | None = None


class Notify(Struct, frozen=True, forbid_unknown_fields=True):
    """Who waits for entry ``index``: the voter of the seat whose action it
    holds (docs/election.md section 12). A voter that holds the entry tells
    it so (:class:`Held`)."""

    key: Key
    index: Index


class Append(Struct, frozen=True, forbid_unknown_fields=True, tag="append"):
    """Raft's AppendEntries: also the authority's heartbeat (no entries).
    ``notify`` is added by the authority's driver, never by the core."""

    term: Term
    prev_index: Index
    prev_term: Term
    entries: Annotated[list[Entry], Meta(max_length=MAX_BATCH)]
    commit: Index
    notify: Notify | None = None


class Held(Struct, frozen=True, forbid_unknown_fields=True, tag="held"):
    """ "My log holds entry ``index`` of ``term``, on disk": from a voter to
    the voter named by an ``Append``'s ``notify``, so that the seat that
    acted counts a majority itself, a broker hop before the authority's
    commit could reach it (docs/election.md section 12). Never for the core:
    the drivers carry it."""

    term: Term
    index: Index


class AppendReply(Struct, frozen=True, forbid_unknown_fields=True, tag="append_reply"):
    """``match`` is the last index known to agree when ``success``; else the
    voter's last index, from which the authority backs up."""

    term: Term
    success: bool
    match: Index


# --------------------------------------------------------------------------
# Between a seated person's process (a client) and the authority.


class Request(Struct, frozen=True, forbid_unknown_fields=True, tag="request"):
    """An action, as the core takes it: ``data`` is the entry's ciphertext
    under the room secret. On the wire a person's process seals its action
    to the authority's key (protocol v1's ``Act``); the authority's driver
    opens it, checks it with the engine, encrypts it under the room secret
    and hands this to its node (docs/election.md, "Clients"). Re-sent with
    the same nonce until answered, to whoever is authority then."""

    nonce: Nonce
    data: EntryData


class Answer(Struct, frozen=True, forbid_unknown_fields=True, tag="answer"):
    """``acknowledged``: the request is entry ``index``, committed (durable on
    a majority). ``not_authority``: ask ``authority`` (if known) instead.
    A duplicate request gets the same answer as the first."""

    nonce: Nonce
    status: Literal["acknowledged", "not_authority"]
    term: Term
    index: Index = 0
    authority: Key | None = None


Message = PreVote | PreVoteReply | RequestVote | Vote | Append | AppendReply | Request | Answer

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Message)
_config_decoder = msgspec.msgpack.Decoder(Config)


def encode(message: Message | Config) -> bytes:
    return _encoder.encode(message)


def decode(payload: bytes) -> Message:
    """A message, or msgspec.ValidationError / DecodeError for anything else."""
    return _decoder.decode(payload)


def decode_config(data: bytes) -> Config:
    return _config_decoder.decode(data)
