"""One voter of a room: Raft's election and replication, sans-I/O.

A :class:`Node` never touches a socket, a file or a clock. The driver (later:
the authority and peer processes over MQTT) hands it what arrived
(:meth:`Node.receive`), the time (:meth:`Node.tick`) and suspicions
(:meth:`Node.suspect`: a will, a silence), and carries out the effects it
returns, **in order**: a ``PersistState`` or ``PersistEntries`` must be
durable (through a :class:`Storage`) before the next effect runs, which is
how a vote is on disk before it is sent (issue 20.1) and an entry before it
is acknowledged (20.2). The rules are docs/election.md's; section names in
comments refer to it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from net.election import shares
from net.election.messages import (
    MAX_BATCH,
    Answer,
    Append,
    AppendReply,
    Config,
    Entry,
    Message,
    PreVote,
    PreVoteReply,
    Request,
    RequestVote,
    ShareForCandidate,
    Vote,
    decode_config,
)
from net.identity import Identity

Role = Literal["follower", "candidate", "authority"]


# --------------------------------------------------------------------------
# Storage and effects.


@dataclass(frozen=True)
class Persisted:
    """What survives a crash: the term, the vote in it, the log."""

    term: int
    voted_for: bytes | None
    log: tuple[Entry, ...]


class Storage(Protocol):
    """Durable storage the driver writes effects through (fsync'd, like
    net/authority/rooms.py's journal). A node is rebuilt from :meth:`load` alone."""

    def load(self) -> Persisted: ...
    def save_state(self, term: int, voted_for: bytes | None) -> None: ...
    def save_entries(self, first: int, entries: Sequence[Entry]) -> None:
        """Keep entries before index ``first`` (1-based), then ``entries``."""
        ...


@dataclass(frozen=True)
class PersistState:
    term: int
    voted_for: bytes | None


@dataclass(frozen=True)
class PersistEntries:
    first: int
    entries: tuple[Entry, ...]


@dataclass(frozen=True)
class Send:
    to: bytes
    message: Message


@dataclass(frozen=True)
class Apply:
    """Entry ``index`` is committed: apply it (in index order, each once per
    process lifetime; a restarted process applies its log again from 1)."""

    index: int
    entry: Entry


@dataclass(frozen=True)
class AuthorityKnown:
    """The highest established term seen and whose it is: peers act on, and
    show, only what this authority signs ("the table moved to ...")."""

    term: int
    authority: bytes


@dataclass(frozen=True)
class SteppedDown:
    """This process was the authority and saw a higher term: it forgot the
    secret and rejoins as a player."""

    term: int


Effect = PersistState | PersistEntries | Send | Apply | AuthorityKnown | SteppedDown


def persist(storage: Storage, effect: Effect) -> bool:
    """Carry out ``effect`` if it is a storage one; whether it was."""
    if isinstance(effect, PersistState):
        storage.save_state(effect.term, effect.voted_for)
        return True
    if isinstance(effect, PersistEntries):
        storage.save_entries(effect.first, effect.entries)
        return True
    return False


@dataclass(frozen=True)
class Timing:
    """Seconds. A silence longer than a random election timeout in
    ``election`` starts an election (random: split votes are rare)."""

    heartbeat: float = 0.25
    election: tuple[float, float] = (1.0, 2.0)


def majority(count: int) -> int:
    return count // 2 + 1


# --------------------------------------------------------------------------
# The node.


@dataclass
class _Leading:
    """An authority's view of each other voter's log (Raft's nextIndex and
    matchIndex), volatile."""

    next_index: dict[bytes, int]
    match: dict[bytes, int]
    heartbeat_due: float
    since: float = 0.0  # when this term's office began
    heard: dict[bytes, float] = field(default_factory=dict)  # last AppendReply of each


# A term's first authority (the room's maker) waits this long at most for
# another share holder it never heard from before it commits without one
# (``Node._successor_holds``): every holder was just chosen as online.
START_GRACE = 5.0


@dataclass
class _Campaign:
    votes: set[bytes] = field(default_factory=set)
    shares: dict[int, bytes] = field(default_factory=dict)  # share index -> share


class Node:
    """A voter. Build it from storage (:class:`Persisted`) after a start or a
    crash: everything else is volatile."""

    def __init__(
        self,
        identity: Identity,
        persisted: Persisted,
        *,
        now: float,
        rng: random.Random,
        timing: Timing | None = None,
    ) -> None:
        if not persisted.log or persisted.log[0].kind != "config":
            raise ValueError("a room's log starts with its config entry")
        self.identity = identity
        self.key = identity.public_key
        self.term = persisted.term
        self.voted_for = persisted.voted_for
        self.log: list[Entry] = list(persisted.log)
        self.timing = timing or Timing()
        self._rng = rng
        self.role: Role = "follower"
        self.authority: bytes | None = None  # of ``term``, once known
        # The room's config entry (index 1: the voter set is fixed in this
        # first version, docs/election.md "Not yet"), committed at creation.
        self.config: Config = decode_config(self.log[0].data)
        self.voters = [voter.key for voter in self.config.voters]
        self.commit = 1
        self.secret: bytes | None = None  # the whole room secret: authority only
        # Who else could be elected (share holders): what commits wait for.
        self._other_holders = [
            share.holder
            for share in self.config.shares
            if share.holder != self.key and share.holder in self.voters
        ]
        self._now = now
        # False once the owner cannot run the table again (``retire``).
        self.stands = True
        self._requests: dict[tuple[bytes, int], int] = {}
        self._index_requests(1)
        self._leading: _Leading | None = None
        self._campaign: _Campaign | None = None
        # Pre-votes granted to this follower for term + 1 (itself included),
        # while it asks whether it could win before standing (PreVote).
        self._pre_votes: set[bytes] | None = None
        self._election_due = 0.0
        self._heard_at = now  # the last Append of the current authority
        # Until then this voter refuses pre-votes: it heard the authority
        # lately, or its link just came back (``came_up``). Raft's "leader
        # stickiness" (thesis 9.6): a voter that heard the authority does
        # not help anyone unseat it.
        self._lease_until = now
        self._reset_election_timer(now)

    # ------------------------------------------------------------------ API

    @property
    def last_index(self) -> int:
        return len(self.log)

    @property
    def last_term(self) -> int:
        return self.log[-1].term

    @property
    def can_stand(self) -> bool:
        """Only share holders stand: with a dealer in the room, only dealers
        (the simpler rule for "dealers preferred", docs/election.md); and
        not a voter retired from standing."""
        return self.stands and any(share.holder == self.key for share in self.config.shares)

    def retire(self) -> None:
        """Never stand again (this voter still votes and keeps the log): its
        owner stepped down and has no way to run the table a second time
        (the room's maker: docs/election.md section 4). Raft may re-elect a
        stepped-down leader; here that authority would hold the deck and
        run nothing, and the whole table would wait (CI, stop 28)."""
        self.stands = False

    def caught_up(self, voter: bytes) -> bool:
        """At the authority: whether ``voter`` is known to hold its whole
        log (a dealer handing its rooms over waits for the next one to be:
        net/dealer/)."""
        leading = self._leading
        if self.role != "authority" or leading is None:
            return False
        return voter == self.key or leading.match.get(voter, 0) >= self.last_index

    def known_request(self, sender: bytes, nonce: int) -> int | None:
        """The log index of ``sender``'s request ``nonce``, if it is in the log:
        the driver asks before validating a request with the engine, so that a
        re-sent action gets its original answer rather than a refusal."""
        return self._requests.get((sender, nonce))

    def tick(self, now: float) -> list[Effect]:
        self._now = now
        if self.role == "authority":
            assert self._leading is not None
            # A successor silent past the shortest timeout holds commits up
            # no more (_successor_holds).
            effects = self._advance_commit()
            if now < self._leading.heartbeat_due:
                return effects
            return effects + self._broadcast(now)
        if now >= self._election_due:
            return self._ask_before_standing(now)
        return []

    def suspect(self, now: float, *, current: bool = False) -> list[Effect]:
        """The authority's will or silence was seen: start an election (which
        decides nothing by itself: only votes do). A will that arrives while
        the authority was heard from within the shortest election timeout is
        a late one (the classic MQTT failure): ignored, unless the driver
        knows it is ``current`` (the will of the authority's newest
        connection, by its epoch: the connection that just died). Safety
        never rests on this: a needless election only costs a term."""
        if self.role == "authority":
            return []
        recent = self.authority is not None and now - self._heard_at < self.timing.election[0]
        if recent and not current:
            return []
        if current:
            self.authority_gone(now)
        return self._ask_before_standing(now)

    def authority_gone(self, now: float) -> None:
        """The authority's current connection is known gone (its will, seen
        while this voter's own link is up): from now on this voter grants
        pre-votes, so that whoever stands first can win at once."""
        if self.role != "authority":
            self._lease_until = now

    def abdicate(self, now: float) -> None:
        """Stop being the authority, and never stand again: its owner won
        but cannot run the table (no game rebuilds from the log it holds).
        Holding the term and the deck while running nothing, it kept the
        whole table waiting; silent now, the others' deadlines pass and
        they elect another (it votes as any follower, its term unchanged)."""
        self.retire()
        if self.role == "authority":
            self._become_follower()
            self.authority = None
            self._lease_until = now
            self._reset_election_timer(now)

    def receive(self, sender: bytes, message: Message, now: float) -> list[Effect]:
        """``sender`` is the envelope's verified key (net/protocol/wire.py)."""
        self._now = now
        if isinstance(message, Request):
            return self._on_request(sender, message)
        if isinstance(message, Answer) or sender not in self.voters or sender == self.key:
            return []
        # A pre-vote, and a pre-vote granted, carry a term nobody is in yet:
        # never a reason to move to it (that is their whole point).
        if isinstance(message, PreVote):
            return self._on_pre_vote(sender, message, now)
        if isinstance(message, PreVoteReply) and message.granted:
            return self._on_pre_vote_granted(sender, message, now)
        effects: list[Effect] = []
        if message.term > self.term:
            # Fencing: a higher term wins at once (an old authority steps down).
            effects += self._follow(message.term, now)
        if isinstance(message, RequestVote):
            return effects + self._on_request_vote(sender, message, now)
        if message.term < self.term:
            if isinstance(message, Append):  # tell the stale authority the term
                return [Send(sender, AppendReply(self.term, False, self.last_index))]
            return effects
        if isinstance(message, Vote):
            return effects + self._on_vote(sender, message, now)
        if isinstance(message, Append):
            return effects + self._on_append(sender, message, now)
        if isinstance(message, AppendReply):
            return effects + self._on_append_reply(sender, message, now)
        return effects  # a pre-vote refused: its term, if higher, was taken above

    # ------------------------------------------------------------ elections

    def _reset_election_timer(self, now: float) -> None:
        low, high = self.timing.election
        self._election_due = now + self._rng.uniform(low, high)

    def _follow(self, term: int, now: float) -> list[Effect]:
        """Move to a higher ``term`` as a follower (its vote not yet cast).
        Its election timer runs on (Raft's rule: only the authority's Append
        and a vote granted restart it): candidates with older logs, which
        only raise the term, must not keep the voter that can win from ever
        standing. An authority stepping down starts one."""
        effects: list[Effect] = []
        if self.role == "authority":
            effects.append(SteppedDown(term))
            self._reset_election_timer(now)
        self._become_follower()
        self.term = term
        self.voted_for = None
        self.authority = None
        return [PersistState(term, None), *effects]

    def _become_follower(self) -> None:
        self.role = "follower"
        self.secret = None  # held whole by the authority only (issue 20.3)
        self._leading = None
        self._campaign = None
        self._pre_votes = None

    def hears_authority(self, now: float) -> bool:
        """Whether this follower heard its term's authority within the
        shortest election timeout (its link is where the table is)."""
        return (
            self.role == "follower"
            and self.authority is not None
            and now - self._heard_at < self.timing.election[0]
        )

    def _in_lease(self, now: float) -> bool:
        return self.role == "authority" or now < self._lease_until

    def _ask_before_standing(self, now: float) -> list[Effect]:
        """Pre-vote (thesis 9.6): ask every voter whether it would vote for
        this one in the next term; stand only with a majority's yes. Until
        then nothing is persisted and no term raised: a voter whose link was
        down while the authority lived, once back, is told no by voters that
        hear the authority, and follows again at its next Append."""
        self._reset_election_timer(now)
        if not self.can_stand:
            return []
        self._become_follower()  # a candidate whose term found no winner asks again
        self._pre_votes = {self.key}
        ask = PreVote(self.term + 1, self.last_index, self.last_term)
        effects: list[Effect] = [Send(voter, ask) for voter in self.voters if voter != self.key]
        if len(self._pre_votes) >= majority(len(self.voters)):
            return self._start_election(now)
        return effects

    def _on_pre_vote(self, sender: bytes, ask: PreVote, now: float) -> list[Effect]:
        """Yes when this voter would vote for ``sender`` in ``ask.term``: the
        term is ahead of its own, it has not heard the authority lately, and
        the asker's log is at least as up to date. Nothing changes here: no
        term, no vote, no timer."""
        grant = (
            ask.term > self.term
            and not self._in_lease(now)
            and self._log_is_current(ask.last_index, ask.last_term)
        )
        return [Send(sender, PreVoteReply(ask.term if grant else self.term, grant))]

    def _on_pre_vote_granted(self, sender: bytes, reply: PreVoteReply, now: float) -> list[Effect]:
        if self._pre_votes is None or self.role != "follower" or reply.term != self.term + 1:
            return []  # not asking, or a reply to an earlier question
        self._pre_votes.add(sender)
        if len(self._pre_votes) < majority(len(self.voters)):
            return []
        return self._start_election(now)

    def _start_election(self, now: float) -> list[Effect]:
        """Stand (after a majority's pre-votes): the term is raised here."""
        self._reset_election_timer(now)
        if not self.can_stand:
            return []
        self._become_follower()
        self.role = "candidate"
        self.term += 1
        self.voted_for = self.key
        self.authority = None
        campaign = self._campaign = _Campaign(votes={self.key})
        mine = shares.own_share(self.identity, self.config)
        if mine is not None:
            campaign.shares[mine[0]] = mine[1]
        ask = RequestVote(self.term, self.last_index, self.last_term)
        # The vote for itself is durable before anyone is asked (20.1).
        effects: list[Effect] = [PersistState(self.term, self.key)]
        effects += [Send(voter, ask) for voter in self.voters if voter != self.key]
        return effects + self._try_to_win(now)

    def _log_is_current(self, last_index: int, last_term: int) -> bool:
        """Raft's rule: the candidate's log is at least as up to date."""
        return (last_term, last_index) >= (self.last_term, self.last_index)

    def _on_request_vote(self, sender: bytes, ask: RequestVote, now: float) -> list[Effect]:
        grant = (
            ask.term == self.term
            and self.role == "follower"
            and self.voted_for in (None, sender)
            and self._log_is_current(ask.last_index, ask.last_term)
        )
        if not grant:
            return [Send(sender, Vote(self.term, False))]
        self.voted_for = sender
        self._reset_election_timer(now)
        return self._grant(sender)

    def _grant(self, candidate: bytes) -> list[Effect]:
        """The vote is persisted, then sent (20.1: at most one per term, across
        a crash too), with this voter's share re-sealed to the candidate."""
        return [PersistState(self.term, candidate), Send(candidate, self._vote(candidate))]

    def _vote(self, candidate: bytes) -> Vote:
        mine = shares.own_share(self.identity, self.config)
        if mine is None:  # a player in a room with dealers: no share
            return Vote(self.term, True)
        index, share = mine
        sealed = shares.reseal(self.identity, candidate, share)
        return Vote(self.term, True, ShareForCandidate(1, self.log[0].term, index, sealed))

    def _on_vote(self, sender: bytes, vote: Vote, now: float) -> list[Effect]:
        campaign = self._campaign
        if self.role != "candidate" or campaign is None or not vote.granted:
            return []
        campaign.votes.add(sender)
        share = vote.share
        if (
            share is not None
            and (share.config_index, share.config_term) == (1, self.log[0].term)
            and any(s.holder == sender and s.index == share.index for s in self.config.shares)
        ):
            opened = shares.open_from(self.identity, sender, share.sealed)
            if opened is not None:
                campaign.shares[share.index] = opened
        return self._try_to_win(now)

    def _try_to_win(self, now: float) -> list[Effect]:
        """Authority with a majority of the voters' votes and the secret
        rebuilt from their shares; votes alone are not enough (20.3)."""
        campaign = self._campaign
        assert campaign is not None
        if len(campaign.votes) < majority(len(self.voters)):
            return []
        secret = shares.combine(self.config, campaign.shares)
        if secret is None:
            return []
        return self._take_office(secret, now)

    def came_up(self, now: float, *, grace: float = 0.0) -> None:
        """The driver's link is up now: a follower gives the authority a
        whole election timeout from here to reach it (time spent starting,
        e.g. a standby broker, must not make it stand at once), and
        ``grace`` seconds more (back on the same broker after a blip, the
        authority's own link may come back up to a reconnection backoff
        later than this one's)."""
        if self.role == "follower":
            self._reset_election_timer(now)
            self._election_due += grace
            # And no pre-vote for anyone meanwhile: the others' links came
            # back on their own schedules, the authority's among them.
            self._lease_until = max(self._lease_until, now + self.timing.election[0] + grace)

    def lead_first_term(self, secret: bytes, now: float) -> list[Effect]:
        """The room's maker takes term 1 without a campaign: every voter's
        storage was created with term 1 and its vote in it given to the
        maker (:func:`first_persisted`), so no other authority of term 1 can
        exist (election safety), and the maker made the secret, so it learns
        nothing by holding it. Commitment still needs a majority's copies,
        as in any term."""
        if (
            self.term != 1
            or self.voted_for != self.key
            or self.role != "follower"
            or self.last_index != 1
            or shares.check_value(secret) != self.config.check
        ):
            raise ValueError("only the room's maker, with its secret, leads term 1 of a new log")
        return self._take_office(secret, now)

    def _take_office(self, secret: bytes, now: float) -> list[Effect]:
        self.role = "authority"
        self.authority = self.key
        self.secret = secret
        self._campaign = None
        others = [voter for voter in self.voters if voter != self.key]
        self._now = now
        self._leading = _Leading(
            next_index={voter: self.last_index + 1 for voter in others},
            match={voter: 0 for voter in others},
            heartbeat_due=now,
            since=now,
        )
        # The term's first entry: commits every earlier entry with it (Raft
        # section 8) and tells every screen where the table is now.
        first = Entry(self.term, "term", self.key, 0, b"")
        effects: list[Effect] = [AuthorityKnown(self.term, self.key)]
        effects += self._append(first)
        return effects + self._broadcast(now) + self._advance_commit()

    # ---------------------------------------------------------- replication

    def _index_requests(self, first: int) -> None:
        for index in range(first, self.last_index + 1):
            entry = self.log[index - 1]
            if entry.kind == "action":
                self._requests[entry.sender, entry.nonce] = index

    def _append(self, entry: Entry) -> list[Effect]:
        self.log.append(entry)
        self._index_requests(self.last_index)
        return [PersistEntries(self.last_index, (entry,))]

    def _on_request(self, sender: bytes, request: Request) -> list[Effect]:
        if self.role != "authority":
            answer = Answer(request.nonce, "not_authority", self.term, authority=self.authority)
            return [Send(sender, answer)]
        index = self._requests.get((sender, request.nonce))
        if index is not None:
            # A duplicate (a re-send after a lost answer or a failover): the
            # original answer, never a second entry (20.2). Not yet committed:
            # the answer goes out when it is.
            if index <= self.commit:
                return [Send(sender, self._acknowledgement(index))]
            return []
        entry = Entry(self.term, "action", sender, request.nonce, request.data)
        persist = self._append(entry)
        assert self._leading is not None
        # A voter that could take the table next gets the new entry now even
        # while its reply to the last one is on its way (a batch from its
        # next index, the new entry last): were only the others to hold it
        # when this authority dies, they would refuse it their votes, and in
        # a dealer's room nobody else stands (a restarted dealer in step
        # 7 ms before the runner was killed: CI, 4 December). The others get
        # it once their reply comes, as in Raft.
        # The Appends first, then this node's own write (Raft thesis 10.2.1:
        # the leader's write in parallel with its followers'): it counts its
        # own copy only when a reply comes, after this whole list, its write
        # included, is carried out (section 6, "The authority's own copy").
        sends: list[Effect] = [
            self._append_to(voter)
            for voter, next_index in self._leading.next_index.items()
            if next_index <= self._sendable(voter)
            and (
                next_index == self.last_index  # caught up: send the new entry now
                or (
                    voter in self._other_holders
                    and self.last_index - next_index < MAX_BATCH
                    and not self._silent(voter)  # a dead one's batch each move: _probe
                )
            )
        ]
        return sends + persist + self._advance_commit()

    def append_own(self, nonce: int, data: bytes) -> tuple[int, list[Effect]]:
        """The authority's own entry (its game's state, under the secret:
        net/authority/replication.py): its index, and the effects of appending it;
        index 0 when this node is not the authority."""
        if self.role != "authority":
            return 0, []
        effects = self._on_request(self.key, Request(nonce, data))
        index = self._requests.get((self.key, nonce), 0)
        return index, effects

    def _acknowledgement(self, index: int) -> Answer:
        entry = self.log[index - 1]
        return Answer(entry.nonce, "acknowledged", self.term, index=index, authority=self.key)

    def _append_to(self, voter: bytes) -> Send:
        assert self._leading is not None
        next_index = self._leading.next_index[voter]
        prev_index = next_index - 1
        prev_term = self.log[prev_index - 1].term if prev_index else 0
        batch = self.log[prev_index : min(prev_index + MAX_BATCH, self._sendable(voter))]
        return Send(voter, Append(self.term, prev_index, prev_term, batch, self.commit))

    def _sendable(self, voter: bytes) -> int:
        """The last index ``voter`` may be sent: the whole log to one that
        could take the table next (a share holder); to one that never
        stands, no further than a live holder holds. Were such voters
        ahead of every holder when this authority died, they would refuse
        each holder their votes (Raft's up-to-date rule) and none of them
        may stand: the table waited for good (a dealer killed 90 ms into
        its game while the other dealer's voter was still subscribing:
        the NATS cluster soak, 5 December). Only the order of delivery
        changes, which Raft leaves free: safety is untouched."""
        return self.last_index if voter in self._other_holders else self._gate()

    def _broadcast(self, now: float) -> list[Effect]:
        assert self._leading is not None
        self._leading.heartbeat_due = now + self.timing.heartbeat
        return [
            self._probe(voter) if self._silent(voter) else self._append_to(voter)
            for voter in self._leading.next_index
        ]

    def _silent(self, voter: bytes) -> bool:
        """Whether ``voter`` has not answered this authority for the longest
        election timeout (since this term's office began, if ever)."""
        leading = self._leading
        assert leading is not None
        heard = leading.heard.get(voter, leading.since)
        return self._now - heard >= self.timing.election[1]

    def _probe(self, voter: bytes) -> Send:
        """A heartbeat without entries for a silent voter, as etcd's probe
        state: a dead voter's machine got the same batch of up to MAX_BATCH
        entries (9 KB) four times a second for as long as the game lasted
        (found in a play-test, 5 December). Its first answer (a reply says
        how far its log matches) brings the entries again.

        It asks about the end of this log, not the voter's next index: an
        empty Append to a share holder then always means "this is where my
        log ends", and a voter that matches one holds the authority's whole
        log (the driver's ``in_step``). Asked at its next index, a dealer
        started again matched the probe and said it was in step while the
        players held an entry it lacked; the runner killed then, no
        election could win (test_dealers, 6 December). A voter behind
        refuses it with how far it holds (its hint), and the batch from
        there follows, as before."""
        assert self._leading is not None
        prev_index = self.last_index
        prev_term = self.log[prev_index - 1].term if prev_index else 0
        return Send(voter, Append(self.term, prev_index, prev_term, [], self.commit))

    def _on_append(self, sender: bytes, append: Append, now: float) -> list[Effect]:
        effects: list[Effect] = []
        if self.role == "authority":  # impossible (one authority per term): ignore
            return []
        if self.role == "candidate":
            self._become_follower()
        self._pre_votes = None  # the authority of this term is alive
        self._reset_election_timer(now)
        self._heard_at = now
        self._lease_until = max(self._lease_until, now + self.timing.election[0])
        if self.authority != sender:
            self.authority = sender
            effects.append(AuthorityKnown(self.term, sender))
        prev = append.prev_index
        if prev > self.last_index or (prev and self.log[prev - 1].term != append.prev_term):
            hint = min(self.last_index, prev - 1)
            return [*effects, Send(sender, AppendReply(self.term, False, hint))]
        new: list[Entry] = []
        for offset, entry in enumerate(append.entries):
            index = prev + 1 + offset
            if index <= self.last_index and self.log[index - 1].term == entry.term:
                continue  # already here (log matching: the same entry)
            if index <= 1:  # the config entry is never replaced: a bad Append
                return effects
            new = list(append.entries[offset:])
            del self.log[index - 1 :]
            self._requests = {}
            self._index_requests(1)
            self.log.extend(new)
            self._index_requests(index)
            effects.append(PersistEntries(index, tuple(new)))
            break
        last_new = prev + len(append.entries)
        if append.commit > self.commit:
            effects += self._commit_to(min(append.commit, last_new))
        return [*effects, Send(sender, AppendReply(self.term, True, last_new))]

    def _on_append_reply(self, sender: bytes, reply: AppendReply, now: float) -> list[Effect]:
        leading = self._leading
        if self.role != "authority" or leading is None:
            return []
        match = leading.match[sender]
        leading.heard[sender] = now
        if reply.success:
            gate = self._gate()
            # Never past its own log, whatever a reply claims (hostile bytes).
            leading.match[sender] = max(match, min(reply.match, self.last_index))
            leading.next_index[sender] = leading.match[sender] + 1
            effects = self._advance_commit()
            if leading.next_index[sender] <= self._sendable(sender):
                effects.append(self._append_to(sender))
            if sender in self._other_holders:
                effects += self._through_the_gate(gate)
            return effects
        back = min(leading.next_index[sender] - 1, reply.match + 1)
        leading.next_index[sender] = max(match + 1, back, 1)
        return [self._append_to(sender)]

    def _gate(self) -> int:
        """What a voter that never stands may be sent now (_sendable): as
        far as a live holder holds; everything when none is live (nobody
        else could stand: nothing to wait for)."""
        live = self._live_holders()
        assert self._leading is not None
        return max((self._leading.match[holder] for holder in live), default=self.last_index)

    def _through_the_gate(self, before: int) -> list[Effect]:
        """A holder's reply moved the gate from ``before``: the voters that
        never stand and were waiting at it (they hold all it let through)
        get what it lets through now; the others get it with their reply."""
        leading = self._leading
        assert leading is not None
        now_open = self._gate()
        return [
            self._append_to(voter)
            for voter, next_index in leading.next_index.items()
            if voter not in self._other_holders and before < next_index <= now_open
        ]

    def _replicated_on_majority(self, index: int) -> bool:
        assert self._leading is not None
        holding = 1 + sum(1 for match in self._leading.match.values() if match >= index)
        return holding >= majority(len(self.voters)) and self._successor_holds(index)

    def _successor_holds(self, index: int) -> bool:
        """Whether a voter that could take the table next holds ``index``,
        if one is live: another share holder heard within the shortest
        election timeout (or, in the room's first term, not heard yet
        within START_GRACE). Raft commits on any majority; but a successor
        must hold every committed entry to win (the others refuse a log
        less up to date than theirs), and in a dealer's room the majority
        can be the players' processes alone, which never stand: a dealer
        killed while its only other dealer lagged left nobody who could
        win (the NATS cluster test, 3 December). Stricter than Raft, so
        safe; a holder silent that long holds nothing up."""
        leading = self._leading
        assert leading is not None
        live = self._live_holders()
        return not live or any(leading.match[holder] >= index for holder in live)

    def _live_holders(self) -> list[bytes]:
        """The other share holders heard within the shortest election
        timeout (or, in the room's first term, not heard yet within
        START_GRACE): those that could take the table next."""
        leading = self._leading
        assert leading is not None
        now = self._now
        live = []
        for holder in self._other_holders:
            heard = leading.heard.get(holder)
            if heard is None:
                if self.term == 1 and now - leading.since < START_GRACE:
                    live.append(holder)
            elif now - heard < self.timing.election[0]:
                live.append(holder)
        return live

    def _advance_commit(self) -> list[Effect]:
        """Commit the newest entry of this term held by a majority (only
        this term's: Raft's Figure 8), and everything before it."""
        for index in range(self.last_index, self.commit, -1):
            if self.log[index - 1].term != self.term:
                break
            if self._replicated_on_majority(index):
                return self._commit_to(index)
        return []

    def _commit_to(self, index: int) -> list[Effect]:
        effects: list[Effect] = []
        for applied in range(self.commit + 1, index + 1):
            entry = self.log[applied - 1]
            effects.append(Apply(applied, entry))
            if self.role == "authority" and entry.kind == "action" and entry.sender != self.key:
                effects.append(Send(entry.sender, self._acknowledgement(applied)))
        self.commit = max(self.commit, index)
        return effects
