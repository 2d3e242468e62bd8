"""Model test of the election and replication core (issue 20.4).

One process, no broker, no clock: a seeded schedule drives the sans-I/O
:class:`net.election.node.Node` of every voter over a simulated network that
delays (messages wait in flight), reorders (any in-flight message may be
delivered next), duplicates and drops messages, and partitions the voters;
nodes crash (what they persisted survives, memory does not), also between
two effects of one step (after the vote is sent and before it is on disk,
for example), and restart. Clients send actions and re-send them with the
same nonce until answered. After every step the invariants are checked:

- at most one authority per term (election safety), and no voter grants
  two candidates in one term;
- no committed entry is ever contradicted: every process that applies index
  *i* applies the same entry (so no acknowledged action is lost: an
  acknowledgement names a committed index), and every authority of a term
  at or after an acknowledgement holds the acknowledged entry;
- no action is applied twice: a (sender, nonce) is at one committed index
  only, a process applies indices in order once each, and a re-sent request
  gets the original answer;
- the secret: a process holds it only as the authority of its term, after a
  majority of the voters sent it granted votes, and it is the room's secret;
- what a seat shows before the commit (docs/election.md section 12): an
  entry of term *t* that the authority of *t* and enough voters have each
  had on disk at some moment to make a majority, another share holder
  among them if there is one, is "counted" (a seat that hears of each of
  them by its ``Held`` shows the change); every authority of a term at or
  after *t* holds every counted entry, and no index is counted or
  committed as two entries.

Each schedule ends with a calm phase (the network heals, every node
restarts, nothing is lost): every action sent must then be acknowledged, so
a core that stops committing fails too.

``make test`` runs SEEDS_FAST schedules (200, about 5 s); ``make soak``
(``-m soak``) runs SEEDS_SOAK more (10,000, 5 to 7 minutes), in ten chunks
of seeds after the fast ones. A failure names its seed:
``PASSE_ELECTION_SEED=N pytest tests/net/test_election_model.py -k one``.

Bugs injected to show the test catches them (the subclasses below; each
``test_injected_bug_is_caught`` case runs the seeds that found it and
requires the right core to pass them and the bug to fail them), measured
with ``python -m tests.net.test_election_model NAME LIMIT``:

- ``VoteSentBeforePersisted``: the vote is sent, then persisted; a crash
  between the two lets the voter vote again in the same term. Seeds 414,
  507, 573 and 980 of 0-999: "a voter granted two candidates one term".
  With that per-voter check off (outcomes only), seed 1943 of 0-1999 ("two
  authorities in term 2").
- ``CommitBeforeMajority``: the authority commits and acknowledges an entry
  as soon as its own log has it. 5 of seeds 0-149, 26, 34, 53, 132 and 140:
  "committed index N contradicted" (a successor without the entry committed
  another there). (9 of 150 before the other share holders got each new
  entry at once, 4 December: the schedules changed with the messages.)

- ``VoteIgnoresLog``: a voter grants its vote whatever the candidate's log
  (Raft's election restriction gone). Seeds 2, 20, 28, 62 and 30 more of
  0-399: "counted entry N missing at the term-T authority" (a winner
  without an entry a seat counted and showed), before any commit was
  contradicted (5 December).

Since pre-vote (3 December, later) elections are rarer (a voter stands only
once a majority would vote for it), and so are the schedules that catch the
two bugs: before it, seeds 50, 66 and 130 of 0-149 caught the first, and 26
of 150 the third.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field

import pytest
from nacl.signing import SigningKey

from net.election import messages, shares
from net.election.messages import Answer, Config, Entry, Request, Voter
from net.election.node import (
    Apply,
    AuthorityKnown,
    Effect,
    Node,
    Persisted,
    PersistEntries,
    PersistState,
    Send,
    majority,
)
from net.identity import Identity
from tests.core.sampler_checks import skip_unless_soak

SEEDS_FAST = 200
SEEDS_SOAK = 10_000
SOAK_CHUNKS = 10
STEPS = 300
CALM_STEPS = 5000


class InvariantViolation(AssertionError):
    pass


# --------------------------------------------------------------------------
# Injected bugs (the test must catch each).


class VoteSentBeforePersisted(Node):
    def _grant(self, candidate: bytes) -> list[Effect]:
        return list(reversed(super()._grant(candidate)))


class CommitBeforeMajority(Node):
    def _replicated_on_majority(self, index: int) -> bool:
        return True


class VoteIgnoresLog(Node):
    def _log_is_current(self, last_index: int, last_term: int) -> bool:
        return True


@dataclass(frozen=True)
class InjectedBug:
    node_class: type[Node]
    check_grants: bool  # False: only the outcome invariants (two authorities...)
    seeds: tuple[int, ...]  # that found it, measured: python -m tests.net.test_election_model
    found: str  # what the invariant said


INJECTED_BUGS = {
    "vote sent before persisted": InjectedBug(
        VoteSentBeforePersisted, True, (414, 507, 573), "granted two candidates one term"
    ),
    "vote sent before persisted, outcome only": InjectedBug(
        VoteSentBeforePersisted, False, (1943,), "two authorities in term 2"
    ),
    "commit before majority": InjectedBug(
        CommitBeforeMajority, True, (26, 53, 132, 140), "contradicted"
    ),
    "vote ignores the log": InjectedBug(VoteIgnoresLog, True, (2, 20, 28, 62), "counted entry"),
}


# --------------------------------------------------------------------------
# The simulated world.


@dataclass
class MemoryStorage:
    """What survives a crash (as if fsync'd at each call)."""

    term: int
    voted_for: bytes | None
    log: list[Entry]

    def load(self) -> Persisted:
        return Persisted(self.term, self.voted_for, tuple(self.log))

    def save_state(self, term: int, voted_for: bytes | None) -> None:
        self.term, self.voted_for = term, voted_for

    def save_entries(self, first: int, entries: tuple[Entry, ...] | list[Entry]) -> None:
        del self.log[first - 1 :]
        self.log.extend(entries)


@dataclass
class Client:
    key: bytes
    machine: int  # the voter whose machine it runs on (for partitions)
    next_nonce: int = 1
    outstanding: dict[int, bytes] = field(default_factory=dict)
    answered: dict[int, int] = field(default_factory=dict)  # nonce -> index
    authority: bytes | None = None


@dataclass
class InFlight:
    sender: bytes
    to: bytes
    payload: bytes


class World:
    def __init__(self, seed: int, node_class: type[Node] = Node) -> None:
        self.rng = random.Random(seed)
        self.node_class = node_class
        rng = self.rng
        count = rng.choice([3, 3, 4, 5])
        dealers = rng.choice([0, 0, 0, 2, 3]) if count >= 4 else 0
        self.identities = [Identity(SigningKey(rng.randbytes(32))) for _ in range(count)]
        voters = [
            Voter(identity.public_key, dealer=index < dealers)
            for index, identity in enumerate(self.identities)
        ]
        self.keys = [identity.public_key for identity in self.identities]
        config, self.secret = shares.make_config(self.identities[-1], voters, rng.randbytes(32))
        self.config: Config = config
        first = Entry(0, "config", self.keys[-1], 0, messages.encode(config))
        self.storage = {key: MemoryStorage(0, None, [first]) for key in self.keys}
        self.now = 0.0
        self.nodes: dict[bytes, Node | None] = {}
        self.applied: dict[bytes, int] = {}
        for key in self.keys:
            self._start(key)
        self.clients = [
            Client(Identity(SigningKey(rng.randbytes(32))).public_key, machine=index % count)
            for index in range(rng.choice([1, 2, 3]))
        ]
        self.in_flight: list[InFlight] = []
        self.group = {key: 0 for key in self.keys}
        self.calm = False
        self.check_grants = True
        self.current_wills = False
        # What the invariants compare against.
        self.authorities: dict[int, bytes] = {}
        self.grants: dict[tuple[int, bytes], set[bytes]] = {}  # (term, voter) -> candidates
        self.committed: dict[int, Entry] = {}
        self.committed_request: dict[tuple[bytes, int], int] = {}
        self.acknowledged: list[tuple[bytes, int, int, int]] = []  # client, nonce, index, term
        # Who has ever had each (index, entry) on disk, and the entries a
        # seat may show as counted from that (section 12).
        self.ever_held: dict[tuple[int, Entry], set[bytes]] = {}
        self.counted: dict[int, Entry] = {}
        self.holders = {share.holder for share in config.shares}
        self.stats = {"authorities": 0, "acknowledged": 0}

    # ---------------------------------------------------------------- nodes

    def _start(self, key: bytes) -> None:
        identity = self.identities[self.keys.index(key)]
        persisted = self.storage[key].load()
        node_rng = random.Random(self.rng.random())
        self.nodes[key] = self.node_class(identity, persisted, now=self.now, rng=node_rng)
        self.applied[key] = 1  # the config entry: committed at creation

    def _crash(self, key: bytes) -> None:
        self.nodes[key] = None

    def _run(self, key: bytes, effects: list[Effect]) -> None:
        """Carry out a node's effects in order; outside the calm phase it may
        crash between two of them."""
        for effect in effects:
            if not self.calm and self.rng.random() < 0.03:
                self._crash(key)
                return
            self._carry_out(key, effect)

    def _carry_out(self, key: bytes, effect: Effect) -> None:
        storage = self.storage[key]
        if isinstance(effect, PersistState):
            storage.save_state(effect.term, effect.voted_for)
        elif isinstance(effect, PersistEntries):
            storage.save_entries(effect.first, effect.entries)
            for offset, entry in enumerate(effect.entries):
                self._held_on_disk(key, effect.first + offset, entry)
        elif isinstance(effect, Send):
            message = effect.message
            if isinstance(message, messages.Vote) and message.granted:
                granted = self.grants.setdefault((message.term, key), set())
                granted.add(effect.to)
                if self.check_grants:
                    self._require(len(granted) == 1, "a voter granted two candidates one term")
                if message.share is not None:  # a share goes to a holder only
                    holders = {share.holder for share in self.config.shares}
                    self._require(effect.to in holders, "a share sent to a non-holder")
            payload = messages.encode(message)
            self.in_flight.append(InFlight(key, effect.to, payload))
        elif isinstance(effect, Apply):
            self._on_apply(key, effect)
        elif isinstance(effect, AuthorityKnown) and effect.authority == key:
            known = self.authorities.setdefault(effect.term, key)
            self._require(known == key, f"two authorities in term {effect.term}")
            # Only votes make an authority (a will or a silence only starts).
            votes = 1 + sum(
                1 for (term, _), to in self.grants.items() if term == effect.term and key in to
            )
            self._require(votes >= majority(len(self.keys)), "an authority without a majority")
            self.stats["authorities"] += 1

    def _held_on_disk(self, key: bytes, index: int, entry: Entry) -> None:
        """``key`` has ``entry`` at ``index`` on disk: counted once the
        authority of its term and enough others have had it (a seat's rule,
        VoterDriver.majority_holds: a Held says what was on a disk then)."""
        holding = self.ever_held.setdefault((index, entry), set())
        holding.add(key)
        authority = self.authorities.get(entry.term)
        others = self.holders - {authority}
        if (
            index in self.counted
            or authority not in holding
            or len(holding) < majority(len(self.keys))
            or (others and not others & holding)
        ):
            return
        self.counted[index] = entry
        known = self.committed.get(index, entry)
        self._require(known == entry, f"index {index} counted as another than committed")

    def _on_apply(self, key: bytes, effect: Apply) -> None:
        self._require(effect.index == self.applied[key] + 1, "applied out of order or twice")
        self.applied[key] = effect.index
        entry = self.committed.setdefault(effect.index, effect.entry)
        self._require(entry == effect.entry, f"committed index {effect.index} contradicted")
        counted = self.counted.get(effect.index, entry)
        self._require(counted == entry, f"index {effect.index} committed as another than counted")
        if entry.kind == "action":
            where = self.committed_request.setdefault((entry.sender, entry.nonce), effect.index)
            self._require(where == effect.index, "one request committed at two indices")

    @staticmethod
    def _require(condition: bool, what: str) -> None:
        if not condition:
            raise InvariantViolation(what)

    # -------------------------------------------------------------- network

    def _deliver(self, item: InFlight) -> None:
        if not self.calm and self._group_of(item.sender) != self._group_of(item.to):
            return  # partitioned: lost
        message = messages.decode(item.payload)
        client = next((c for c in self.clients if c.key == item.to), None)
        if client is not None:
            assert isinstance(message, Answer)
            self._on_answer(client, message)
            return
        node = self.nodes[item.to]
        if node is not None:
            self._run(item.to, node.receive(item.sender, message, self.now))

    def _group_of(self, key: bytes) -> int:
        client = next((c for c in self.clients if c.key == key), None)
        return self.group[self.keys[client.machine] if client else key]

    def _on_answer(self, client: Client, answer: Answer) -> None:
        client.authority = answer.authority
        if answer.status != "acknowledged":
            return
        first = client.answered.setdefault(answer.nonce, answer.index)
        self._require(first == answer.index, "a re-sent request got another answer")
        if client.outstanding.pop(answer.nonce, None) is not None:
            self.acknowledged.append((client.key, answer.nonce, answer.index, answer.term))
            self.stats["acknowledged"] += 1
            self._require(answer.index in self.committed, "acknowledged before committed")

    def _send_request(self, client: Client, nonce: int) -> None:
        to = client.authority if client.authority in self.keys else self.rng.choice(self.keys)
        assert to is not None
        payload = messages.encode(Request(nonce, client.outstanding[nonce]))
        self.in_flight.append(InFlight(client.key, to, payload))

    # ------------------------------------------------------------- schedule

    def step(self) -> None:
        rng = self.rng
        choice = rng.choices(
            [
                "deliver",
                "time",
                "submit",
                "resend",
                "duplicate",
                "drop",
                "crash",
                "restart",
                "partition",
                "heal",
                "suspect",
            ],
            weights=[45, 15, 8, 5, 3, 3, 2, 4, 2, 3, 1],
        )[0]
        if choice == "deliver" and self.in_flight:
            self._deliver(self.in_flight.pop(rng.randrange(len(self.in_flight))))
        elif choice == "time":
            self._advance(rng.uniform(0.05, 0.6))
        elif choice == "submit":
            client = rng.choice(self.clients)
            if len(client.outstanding) < 3:
                nonce = client.next_nonce
                client.next_nonce += 1
                client.outstanding[nonce] = rng.randbytes(rng.randrange(1, 40))
                self._send_request(client, nonce)
        elif choice == "resend":
            client = rng.choice(self.clients)
            if client.outstanding:
                self._send_request(client, rng.choice(sorted(client.outstanding)))
        elif choice == "duplicate" and self.in_flight:
            self.in_flight.append(rng.choice(self.in_flight))
        elif choice == "drop" and self.in_flight:
            self.in_flight.pop(rng.randrange(len(self.in_flight)))
        elif choice == "crash":
            self._crash(rng.choice(self.keys))
        elif choice == "restart":
            down = [key for key in self.keys if self.nodes[key] is None]
            if down:
                self._start(rng.choice(down))
        elif choice == "partition":
            self.group = {key: rng.randrange(2) for key in self.keys}
        elif choice == "heal":
            self.group = {key: 0 for key in self.keys}
        elif choice == "suspect":
            key = rng.choice(self.keys)
            node = self.nodes[key]
            if rng.random() < 0.5:
                # A will reaches every voter whose link is up: each node is
                # told the authority is gone (the driver's authority_gone),
                # so all grant pre-votes, and candidates contend.
                for other in self.nodes.values():
                    if other is not None:
                        other.authority_gone(self.now)
            if node is not None:
                # current_wills: every will is one the driver dated as the
                # authority's newest connection's (net/election/driver.py),
                # which skips the late-will guard: as safe as any election.
                self._run(key, node.suspect(self.now, current=self.current_wills))
        self.check()

    def _advance(self, seconds: float) -> None:
        self.now += seconds
        for key in self.keys:
            node = self.nodes[key]
            if node is not None:
                self._run(key, node.tick(self.now))

    def calm_down(self) -> None:
        """Heal, restart everyone, stop losing anything: every action sent
        must then be acknowledged (liveness, and a test that is not vacuous)."""
        self.calm = True
        self.group = {key: 0 for key in self.keys}
        for key in self.keys:
            if self.nodes[key] is None:
                self._start(key)
        # Fine time steps, so that two candidates seldom time out in the same
        # step (Raft's liveness is by random timeouts, section 5.2); a client
        # re-sends what is unanswered once a simulated second.
        idle = 0
        for _ in range(CALM_STEPS):
            if not any(client.outstanding for client in self.clients):
                return
            if self.in_flight:
                self._deliver(self.in_flight.pop(0))
            else:
                self._advance(0.05)
                idle += 1
                if idle % 20 == 0:
                    for client in self.clients:
                        for nonce in sorted(client.outstanding):
                            self._send_request(client, nonce)
            self.check()
        stuck = {client.key.hex()[:8]: sorted(client.outstanding) for client in self.clients}
        raise InvariantViolation(f"actions never acknowledged once calm: {stuck}")

    # ----------------------------------------------------------- invariants

    def check(self) -> None:
        voters = len(self.keys)
        for key, node in self.nodes.items():
            if node is None:
                continue
            if node.secret is not None:
                granted = 1 + sum(
                    1 for (term, _), to in self.grants.items() if term == node.term and key in to
                )
                self._require(node.role == "authority", "a non-authority holds the secret")
                self._require(granted >= majority(voters), "the secret without a majority")
                self._require(node.secret == self.secret, "a wrong secret rebuilt")
            if node.role != "authority":
                continue
            self._require(node.can_stand, "a player authority in a room with dealers")
            for index, entry in self.counted.items():
                if node.term >= entry.term:
                    held = node.log[index - 1] if index <= node.last_index else None
                    self._require(
                        held == entry,
                        f"counted entry {index} missing at the term-{node.term} authority",
                    )
            for client, nonce, index, term in self.acknowledged:
                if node.term >= term:
                    held = node.log[index - 1] if index <= node.last_index else None
                    self._require(
                        held is not None and (held.sender, held.nonce) == (client, nonce),
                        f"acknowledged action {index} missing at the term-{node.term} authority",
                    )


def run_schedule(
    seed: int,
    node_class: type[Node] = Node,
    *,
    check_grants: bool = True,
    current_wills: bool = False,
) -> World:
    world = World(seed, node_class)
    world.check_grants = check_grants
    world.current_wills = current_wills
    for _ in range(STEPS):
        world.step()
    world.calm_down()
    return world


def _check_schedules(seeds: range, *, current_wills: bool = False) -> None:
    totals = {"authorities": 0, "acknowledged": 0, "failovers": 0}
    for seed in seeds:
        try:
            world = run_schedule(seed, current_wills=current_wills)
        except InvariantViolation as error:
            raise AssertionError(f"seed {seed}: {error}") from error
        totals["authorities"] += world.stats["authorities"]
        totals["acknowledged"] += world.stats["acknowledged"]
        totals["failovers"] += len(world.authorities) > 1
    # Not vacuous: elections, failovers and acknowledged actions happened.
    assert totals["acknowledged"] > len(seeds), totals
    assert totals["failovers"] > len(seeds) // 2, totals


# --------------------------------------------------------------------------
# Tests.


def test_schedules_keep_every_invariant() -> None:
    _check_schedules(range(SEEDS_FAST))


def test_schedules_keep_every_invariant_when_every_will_is_current() -> None:
    """The same schedules, every suspicion a will the driver dated as the
    authority's current connection's (no late-will guard): elections come
    sooner and more often, and nothing else may change."""
    _check_schedules(range(SEEDS_FAST), current_wills=True)


@pytest.mark.soak
@pytest.mark.parametrize("chunk", range(SOAK_CHUNKS))
def test_soak_schedules_keep_every_invariant(chunk: int, request: pytest.FixtureRequest) -> None:
    skip_unless_soak(request)
    size = SEEDS_SOAK // SOAK_CHUNKS
    first = SEEDS_FAST + chunk * size
    # Every other chunk with every will dated current (no late-will guard).
    _check_schedules(range(first, first + size), current_wills=chunk % 2 == 1)


def test_one_seed() -> None:
    """PASSE_ELECTION_SEED=N runs that schedule alone (default 0)."""
    run_schedule(int(os.environ.get("PASSE_ELECTION_SEED", "0")))


@pytest.mark.parametrize("name", sorted(INJECTED_BUGS))
def test_injected_bug_is_caught(name: str) -> None:
    bug = INJECTED_BUGS[name]
    for seed in bug.seeds:
        run_schedule(seed)  # the right core passes the same schedule
        with pytest.raises(InvariantViolation, match=bug.found):
            run_schedule(seed, bug.node_class, check_grants=bug.check_grants)


def _hunt(argv: list[str]) -> None:
    """``python -m tests.net.test_election_model BUG [LIMIT]``: the seeds
    below LIMIT whose schedules catch an injected bug (how INJECTED_BUGS'
    seeds were found)."""
    bug = INJECTED_BUGS[argv[0]]
    for seed in range(int(argv[1]) if len(argv) > 1 else SEEDS_FAST):
        try:
            run_schedule(seed, bug.node_class, check_grants=bug.check_grants)
        except InvariantViolation as error:
            print(f"seed {seed}: {error}")


if __name__ == "__main__":
    import sys

    _hunt(sys.argv[1:])
