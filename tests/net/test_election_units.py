"""The election core's pieces, one rule at a time (issue 20; the whole is
checked by tests/net/test_election_model.py)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

import msgspec
import pytest
from nacl.signing import SigningKey

from net.election import messages, shares
from net.election.driver import first_persisted
from net.election.messages import (
    MAX_BATCH,
    MAX_ENTRY_DATA,
    Answer,
    Append,
    AppendReply,
    Entry,
    PreVote,
    PreVoteReply,
    Request,
    RequestVote,
    Vote,
    Voter,
)
from net.election.node import (
    START_GRACE,
    AuthorityKnown,
    Node,
    Persisted,
    PersistEntries,
    PersistState,
    Role,
    Send,
    SteppedDown,
    persist,
)
from net.identity import Identity

T = TypeVar("T")


def _identities(count: int, seed: int = 1) -> list[Identity]:
    rng = random.Random(seed)
    return [Identity(SigningKey(rng.randbytes(32))) for _ in range(count)]


def _room(count: int, dealers: int = 0) -> tuple[list[Identity], list[Node], bytes]:
    identities = _identities(count)
    voters = [Voter(i.public_key, dealer=n < dealers) for n, i in enumerate(identities)]
    config, secret = shares.make_config(identities[0], voters)
    first = Entry(0, "config", identities[0].public_key, 0, messages.encode(config))
    nodes = [
        Node(identity, Persisted(0, None, (first,)), now=0.0, rng=random.Random(n))
        for n, identity in enumerate(identities)
    ]
    return identities, nodes, secret


def _role(node: Node) -> Role:
    """The node's role now: a call, so that mypy keeps no narrowing of an
    earlier check across the node's methods that change it."""
    return node.role


def _sends(effects: Sequence[object]) -> list[Send]:
    return [effect for effect in effects if isinstance(effect, Send)]


# A node that never stops answering (a mutant's livelock: an Append always
# refused and sent again) fails the test at once rather than spinning until
# mutmut's CPU limit (tests/mutation.py).
MAX_MESSAGES = 10_000


def _drain(queue: list[T], pick: Callable[[int], int] = lambda size: 0) -> Iterator[T]:
    """Take the queue's messages (the first, or the one ``pick`` chooses of
    ``size``) until it is empty, the replies it grows by included."""
    for _ in range(MAX_MESSAGES):
        if not queue:
            return
        yield queue.pop(pick(len(queue)))
    raise AssertionError(f"still talking after {MAX_MESSAGES} messages")


def _elect(nodes: list[Node], candidate: int = 0) -> None:
    """Run an election to its end over a perfect network."""
    queue = [(nodes[candidate].key, s) for s in _sends(nodes[candidate].suspect(0.0))]
    by_key = {node.key: node for node in nodes}
    for sender, send in _drain(queue):
        if send.to in by_key:
            effects = by_key[send.to].receive(sender, send.message, 0.0)
            queue += [(send.to, s) for s in _sends(effects)]


# ----------------------------------------------------------------- shares


def test_a_majority_of_shares_rebuilds_the_secret_and_fewer_do_not() -> None:
    identities = _identities(5)
    voters = [Voter(identity.public_key, dealer=False) for identity in identities]
    config, secret = shares.make_config(identities[0], voters)
    assert config.threshold == 3
    held = {}
    for identity in identities:
        mine = shares.own_share(identity, config)
        assert mine is not None
        held[mine[0]] = mine[1]
    assert shares.combine(config, dict(list(held.items())[:3])) == secret
    assert shares.combine(config, dict(list(held.items())[2:])) == secret
    assert shares.combine(config, dict(list(held.items())[:2])) is None
    wrong = dict(list(held.items())[:3])
    wrong[1] = bytes(32)
    assert shares.combine(config, wrong) is None  # the check value refuses it


def test_a_share_opens_only_for_its_holder_and_its_candidate() -> None:
    alice, bob, carol = _identities(3)
    voters = [Voter(i.public_key, dealer=False) for i in (alice, bob, carol)]
    config, _ = shares.make_config(alice, voters)
    assert shares.own_share(bob, config) is not None
    mine = shares.own_share(carol, config)
    assert mine is not None
    sealed = shares.reseal(carol, bob.public_key, mine[1])
    assert shares.open_from(bob, carol.public_key, sealed) == mine[1]
    assert shares.open_from(alice, carol.public_key, sealed) is None


def test_with_dealers_only_dealers_hold_shares_and_stand() -> None:
    identities, nodes, _ = _room(5, dealers=2)
    config = nodes[0].config
    assert {share.holder for share in config.shares} == {i.public_key for i in identities[:2]}
    assert [node.can_stand for node in nodes] == [True, True, False, False, False]
    assert nodes[3].suspect(0.0) == []  # a player never stands here
    assert shares.own_share(identities[3], config) is None


def test_the_threshold_is_a_majority_of_holders_and_half_of_dealers_rounded_up() -> None:
    # docs/election.md section 5: two dealers, one; three, two; four, two.
    assert [shares.threshold_for(n) for n in range(1, 7)] == [1, 2, 2, 3, 3, 4]
    dealt = [shares.threshold_for(n, dealers=True) for n in range(1, 7)]
    assert dealt == [1, 1, 2, 2, 3, 3]


def test_a_given_secret_is_the_one_shared_and_its_check_is_the_documented_hash() -> None:
    """Another implementation must compute the same check value
    (docs/election.md section 5): BLAKE2b, 32 bytes, personalised."""
    identities = _identities(3)
    voters = [Voter(identity.public_key, dealer=False) for identity in identities]
    given = bytes(range(32))
    config, secret = shares.make_config(identities[0], voters, given)
    assert secret == given
    assert (
        config.check == hashlib.blake2b(given, digest_size=32, person=b"passe-elect-chk").digest()
    )
    held = dict(
        mine for identity in identities if (mine := shares.own_share(identity, config)) is not None
    )
    assert sorted(held) == [1, 2, 3] and shares.combine(config, held) == given


def test_a_config_that_cannot_be_shared_is_refused_in_words() -> None:
    identities = _identities(2)
    voters = [Voter(identity.public_key, dealer=False) for identity in identities]
    with pytest.raises(ValueError, match=r"^the room secret is 32 bytes$"):
        shares.make_config(identities[0], voters, bytes(31))
    with pytest.raises(ValueError, match=r"^somebody must stand: every share holder declined$"):
        shares.make_config(identities[0], voters, declined={v.key for v in voters})


def test_a_share_that_does_not_open_to_32_bytes_from_the_config_s_sealer_is_none() -> None:
    """A share sealed by another key than the config's maker, or opening to
    anything but 32 bytes (a forged config), is no share."""
    maker, me, forger = _identities(3)
    voters = [Voter(i.public_key, dealer=False) for i in (maker, me)]
    config, _ = shares.make_config(maker, voters)

    def mine_sealed(sealer: Identity, body: bytes) -> messages.Config:
        sealed = bytes(sealer.box_with(me.public_key).encrypt(body))
        return msgspec.structs.replace(
            config,
            shares=[
                msgspec.structs.replace(share, sealed=sealed)
                if share.holder == me.public_key
                else share
                for share in config.shares
            ],
        )

    assert shares.own_share(me, mine_sealed(maker, bytes(32))) is not None
    assert shares.own_share(me, mine_sealed(forger, bytes(32))) is None
    assert shares.own_share(me, mine_sealed(maker, bytes(31))) is None
    assert shares.own_share(me, mine_sealed(maker, bytes(33))) is None


# --------------------------------------------------------------- messages


def test_messages_are_bounded() -> None:
    key = bytes(32)
    entry = Entry(1, "action", key, 1, b"x")
    append = Append(1, 0, 0, [entry] * MAX_BATCH, 0)
    assert messages.decode(messages.encode(append)) == append
    with pytest.raises(msgspec.ValidationError):
        messages.decode(messages.encode(Append(1, 0, 0, [entry] * (MAX_BATCH + 1), 0)))
    with pytest.raises(msgspec.ValidationError):
        messages.decode(messages.encode(Request(1, b"x" * (MAX_ENTRY_DATA + 1))))
    with pytest.raises(msgspec.ValidationError):
        messages.decode(messages.encode(RequestVote(-1, 0, 0)))


# ------------------------------------------------------------------ nodes


def test_a_vote_is_persisted_before_it_is_sent_and_given_once_per_term() -> None:
    _, nodes, _ = _room(3)
    alice, bob, carol = nodes
    effects = bob.receive(alice.key, RequestVote(1, 1, 0), 0.0)
    assert isinstance(effects[-2], PersistState) and effects[-2].voted_for == alice.key
    vote = effects[-1]
    assert isinstance(vote, Send) and isinstance(vote.message, Vote) and vote.message.granted
    assert vote.message.share is not None  # its share, sealed to alice
    again = bob.receive(carol.key, RequestVote(1, 1, 0), 0.0)
    assert [s.message for s in _sends(again)] == [Vote(1, False)]


def test_a_candidate_with_an_older_log_gets_no_vote() -> None:
    _, nodes, _ = _room(3)
    alice, bob, _ = nodes
    bob.log.append(Entry(1, "term", alice.key, 0, b""))
    effects = bob.receive(alice.key, RequestVote(2, 1, 0), 0.0)
    assert [s.message for s in _sends(effects)] == [Vote(2, False)]


def test_hopeless_candidates_do_not_keep_the_only_electable_voter_from_standing() -> None:
    """Only a voter whose log is the most up to date can win; candidates
    with older logs (their votes refused) only raise the term. Seeing a
    higher term reset a follower's election timer, so while the others
    stood again and again, more often than its shortest timeout, the one
    voter that could win never stood (the repeated-kill soak test: a
    restarted runner, ahead of the two others, and no authority for 20 s).
    Raft's rule, and section 3's table: the timer restarts on the current
    authority's Append and on a vote granted, not on a higher term."""
    _, nodes, _ = _room(4)
    ahead, behind = nodes[1], nodes[2]
    ahead.log.append(Entry(1, "term", nodes[0].key, 0, b""))  # an entry the others lack
    stood_at = None
    for step in range(200):  # 10 s
        now = step * 0.05
        if step % 18 == 0:  # a hopeless candidate stands every 0.9 s
            ask = RequestVote(ahead.term + 1, 1, 0)
            refusal = [s.message for s in _sends(ahead.receive(behind.key, ask, now))]
            assert refusal == [Vote(ask.term, False)]
        if any(isinstance(s.message, PreVote) for s in _sends(ahead.tick(now))):
            stood_at = now
            break
    assert stood_at is not None and stood_at < 2.0 + 0.05  # its first timeout, 1-2 s


def test_the_winner_rebuilds_the_secret_and_steps_down_at_a_higher_term() -> None:
    _, nodes, secret = _room(3)
    _elect(nodes)
    alice, bob, carol = nodes
    assert alice.role == "authority" and alice.secret == secret
    assert bob.secret is None and carol.secret is None
    assert bob.authority == alice.key
    effects = alice.receive(bob.key, RequestVote(alice.term + 1, 1, 0), 0.0)
    assert any(isinstance(effect, SteppedDown) for effect in effects)
    assert _role(alice) == "follower" and alice.secret is None


def test_silence_alone_starts_an_election_and_votes_decide_it() -> None:
    _, nodes, _ = _room(3)
    alice, bob, _ = nodes
    assert alice.tick(0.5) == []  # within the timeout
    effects = alice.tick(5.0)
    # It asks first (pre-vote): nothing persisted, no term raised.
    assert {type(s.message) for s in _sends(effects)} == {PreVote}
    assert len(effects) == 2 and alice.role == "follower" and alice.term == 0
    effects = alice.receive(bob.key, PreVoteReply(1, True), 5.0)
    assert _role(alice) == "candidate"  # started, not decided: no votes yet
    assert isinstance(effects[0], PersistState) and effects[0].voted_for == alice.key
    assert not any(isinstance(effect, AuthorityKnown) for effect in effects)


def test_a_duplicate_request_gets_the_original_answer() -> None:
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, _ = nodes
    client = _identities(1, seed=9)[0].public_key
    effects = alice.receive(client, Request(7, b"cipher"), 0.0)
    assert sum(isinstance(effect, PersistEntries) for effect in effects) == 1
    index = alice.last_index
    assert not any(isinstance(s.message, Answer) for s in _sends(effects))  # not committed
    assert alice.receive(client, Request(7, b"cipher"), 0.0) == []  # no second entry
    assert alice.last_index == index
    acked = alice.receive(bob.key, AppendReply(alice.term, True, index), 0.0)
    answers = [s.message for s in _sends(acked) if isinstance(s.message, Answer)]
    assert answers == [Answer(7, "acknowledged", alice.term, index, alice.key)]
    again = alice.receive(client, Request(7, b"cipher"), 0.0)
    assert [s.message for s in _sends(again)] == answers
    assert alice.last_index == index


def test_only_voters_take_part() -> None:
    _, nodes, _ = _room(3)
    stranger = _identities(1, seed=5)[0].public_key
    assert nodes[1].receive(stranger, RequestVote(5, 9, 9), 0.0) == []
    assert nodes[1].term == 0


def test_a_reply_claiming_more_than_the_log_is_held_to_the_log() -> None:
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, _ = nodes
    alice.receive(bob.key, AppendReply(alice.term, True, 10**6), 0.0)
    effects = alice.tick(10.0)  # the next heartbeat to bob: from its real log
    sent = [s.message for s in _sends(effects) if s.to == bob.key]
    assert len(sent) == 1 and isinstance(sent[0], Append)
    assert sent[0].prev_index == alice.last_index


def _stand(candidate: Node, granting: list[Node]) -> list[Send]:
    """``candidate`` asks (pre-vote), is told yes by enough of ``granting``,
    and stands: what it sends."""
    sent = _sends(candidate.suspect(0.0))
    for voter in granting:
        if candidate.role == "candidate":
            break
        sent += _sends(candidate.receive(voter.key, PreVoteReply(candidate.term + 1, True), 0.0))
    assert candidate.role == "candidate"
    return sent


def test_two_candidates_of_one_term_make_one_authority_at_most() -> None:
    """The forced race, in the core: two voters stand in the same term at
    once; over many orders of delivery, at most one of them wins."""
    for seed in range(100):
        rng = random.Random(seed)
        _, nodes, _ = _room(rng.choice([3, 4, 5]))
        by_key = {node.key: node for node in nodes}
        queue = [(nodes[0].key, s) for s in _stand(nodes[0], nodes[2:])]
        queue += [(nodes[1].key, s) for s in _stand(nodes[1], nodes[2:])]
        assert nodes[0].term == nodes[1].term == 1
        for sender, send in _drain(queue, rng.randrange):
            effects = by_key[send.to].receive(sender, send.message, 0.0)
            queue += [(send.to, s) for s in _sends(effects)]
        winners = [node for node in nodes if node.role == "authority"]
        assert len(winners) <= 1, seed
        assert all(node.term == 1 for node in nodes)


def test_a_late_will_starts_nothing_while_the_authority_is_heard() -> None:
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, _ = nodes
    heartbeat = next(s for s in _sends(alice.tick(0.3)) if s.to == bob.key)
    bob.receive(alice.key, heartbeat.message, 0.3)
    assert bob.suspect(0.5) == []  # heard 0.2 s ago: the will is a late one
    assert bob.role == "follower" and bob.term == alice.term
    asks = _sends(bob.suspect(1.4))  # silent for longer: the will starts one
    assert {type(s.message) for s in asks} == {PreVote} and len(asks) == 2


def test_the_will_of_the_authoritys_current_connection_starts_an_election_at_once() -> None:
    """The driver tells a current will (its epoch is the authority's newest
    connection's: that connection just died) from a late one: the current
    one starts an election even though the authority was heard a moment
    ago, so a killed authority is succeeded in a vote's time, not after an
    election timeout (bench/election.py)."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, _ = nodes
    heartbeat = next(s for s in _sends(alice.tick(0.3)) if s.to == bob.key)
    bob.receive(alice.key, heartbeat.message, 0.3)
    assert bob.suspect(0.31) == []
    asks = _sends(bob.suspect(0.31, current=True))
    assert {s.to for s in asks} == {alice.key, nodes[2].key}
    assert alice.suspect(0.31, current=True) == []  # the authority never stands against itself
    carol = nodes[2]
    ask = next(s.message for s in asks if s.to == carol.key)
    # Carol heard Alice 0.31 s ago: no, unless she saw the will too (the
    # driver tells every voter's node of it as it comes).
    assert _sends(carol.receive(bob.key, ask, 0.31))[0].message == PreVoteReply(1, False)
    carol.authority_gone(0.31)
    yes = _sends(carol.receive(bob.key, ask, 0.31))[0].message
    assert yes == PreVoteReply(alice.term + 1, True)
    bob.receive(carol.key, yes, 0.32)
    assert bob.role == "candidate" and bob.term == alice.term + 1


def test_a_follower_back_on_the_same_broker_waits_a_backoff_more_before_standing() -> None:
    """``came_up(now, grace)``: a whole election timeout from the moment the
    link is back, and ``grace`` more (the driver gives the longest
    reconnection backoff when the broker is the one it was on: a broker
    restart once moved a healthy table, every follower standing before the
    authority's link was back). Fails if grace is not added."""
    _, nodes, _ = _room(3)
    follower = nodes[1]
    low, high = follower.timing.election
    follower.came_up(100.0, grace=5.0)
    assert not follower.tick(100.0 + low + 4.99)  # the shortest timeout, then the grace
    assert _sends(follower.tick(100.0 + high + 5.0 + 0.01))  # stands: asks the others
    candidate = nodes[2]
    candidate.came_up(200.0)
    assert _sends(candidate.tick(200.0 + high + 0.01))


def test_a_voter_back_from_a_blip_does_not_unseat_a_live_authority() -> None:
    """Pre-vote (Raft thesis 9.6), the CI failure of 2 December: a voter
    whose link had been down, its election timer run out, stood for term 2
    once back, and the live authority stepped down at that term: the table
    moved for a broker blip. Now it only asks; the authority and a voter
    that heard it say no, and nobody's term moves. Fails without pre-vote
    (the voter's tick raises its term and sends RequestVote)."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, carol = nodes
    term = alice.term
    heartbeat = next(s for s in _sends(alice.tick(3.0)) if s.to == carol.key)
    carol.receive(alice.key, heartbeat.message, 3.0)  # Carol hears Alice; Bob did not
    asks = _sends(bob.tick(3.0))
    assert {type(s.message) for s in asks} == {PreVote}
    assert bob.term == term and bob.role == "follower"
    queue = [(bob.key, s) for s in asks]
    by_key = {node.key: node for node in nodes}
    for sender, send in _drain(queue):
        queue += [(send.to, s) for s in _sends(by_key[send.to].receive(sender, send.message, 3.1))]
    assert alice.role == "authority" and [n.term for n in nodes] == [term] * 3
    assert carol.voted_for == alice.key or carol.voted_for is None


def test_a_pre_vote_changes_nothing_and_a_refusal_of_a_higher_term_moves_the_asker() -> None:
    _, nodes, _ = _room(3)
    alice, bob, carol = nodes
    carol.term = 4
    effects = bob.receive(alice.key, PreVote(9, 1, 0), 0.0)
    assert effects == [Send(alice.key, PreVoteReply(9, True))]  # no PersistState, no timer
    assert bob.term == 0 and bob.voted_for is None
    ask = next(s.message for s in _sends(alice.tick(5.0)) if s.to == carol.key)
    refusal = _sends(carol.receive(alice.key, ask, 5.0))[0].message
    assert refusal == PreVoteReply(4, False)
    effects = alice.receive(carol.key, refusal, 5.0)
    assert alice.term == 4 and effects[0] == PersistState(4, None)


def test_a_voter_whose_link_just_came_back_refuses_pre_votes_for_its_grace() -> None:
    """``came_up`` gives the authority time to come back on its own backoff:
    meanwhile this voter helps nobody stand (fails if the lease is not set
    there: it would grant at once, having heard nobody)."""
    _, nodes, _ = _room(3)
    alice, bob, _ = nodes
    bob.came_up(10.0, grace=5.0)
    ask = PreVote(1, 1, 0)
    assert _sends(bob.receive(alice.key, ask, 15.9))[0].message == PreVoteReply(0, False)
    assert _sends(bob.receive(alice.key, ask, 16.01))[0].message == PreVoteReply(1, True)


def test_a_winner_that_cannot_run_the_table_stands_aside_and_another_is_elected() -> None:
    """A voter elected whose owner cannot rebuild the game from its log
    (net/peer/failover.py) abdicates: no longer the authority, it sends nothing
    more and never stands again; the others, unheard from, elect another,
    with its vote."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, carol = nodes
    assert alice.role == "authority"
    alice.abdicate(10.0)
    assert _role(alice) == "follower" and alice.secret is None and not alice.can_stand
    assert alice.tick(100.0) == []  # silent: no heartbeat, no pre-vote
    queue = [(bob.key, s) for s in _sends(bob.tick(100.0))]  # bob's deadline long past
    by_key = {node.key: node for node in nodes}
    for sender, send in _drain(queue):
        effects = by_key[send.to].receive(sender, send.message, 100.0)
        queue += [(send.to, s) for s in _sends(effects)]
    assert bob.role == "authority" and bob.term == alice.term and carol.authority == bob.key


def test_commits_wait_for_a_live_successor_and_not_for_a_silent_one() -> None:
    """A dealer's room (two dealers, two players): the players' copies and
    the authority's make a majority, but only the other dealer could be
    elected next, and it wins only with every committed entry (the others
    refuse a less up-to-date log). So an entry commits once a live
    successor holds it too; one silent past the shortest timeout holds
    nothing up. Without this, the NATS cluster test's dealer was killed
    while its other dealer lagged, and nobody could win."""
    identities = _identities(4)
    voters = [Voter(i.public_key, dealer=n < 2) for n, i in enumerate(identities)]
    config, secret = shares.make_config(identities[0], voters)
    assert config.threshold == 1  # two dealers: either alone rebuilds the deck
    stored = first_persisted(config, identities[0].public_key)
    dealer, other, *players = [
        Node(identity, stored, now=0.0, rng=random.Random(n))
        for n, identity in enumerate(identities)
    ]
    dealer.lead_first_term(secret, 0.0)
    client = _identities(1, seed=9)[0].public_key

    def request(nonce: int, now: float) -> int:
        dealer.receive(client, Request(nonce, b"cipher"), now)
        for player in players:
            dealer.receive(player.key, AppendReply(1, True, dealer.last_index), now)
        return dealer.last_index

    first = request(1, 0.1)
    assert dealer.commit < first  # a majority, but the successor not heard yet
    dealer.receive(other.key, AppendReply(1, True, first), 0.3)
    assert dealer.commit == first
    second = request(2, 0.4)
    assert dealer.commit < second  # the successor is live (heard at 0.3)
    assert dealer.tick(1.2) and dealer.commit < second
    dealer.tick(1.31)  # silent for the shortest election timeout: not waited for
    assert dealer.commit == second


def _dealers_room(*, people: int) -> tuple[list[Node], bytes, bytes]:
    """A dealer's room of two dealers and ``people`` players: its nodes
    (the dealer that leads first, the other dealer, the players), the room
    secret, and a client's key."""
    identities = _identities(2 + people)
    voters = [Voter(i.public_key, dealer=n < 2) for n, i in enumerate(identities)]
    config, secret = shares.make_config(identities[0], voters)
    stored = first_persisted(config, identities[0].public_key)
    nodes = [
        Node(identity, stored, now=0.0, rng=random.Random(n))
        for n, identity in enumerate(identities)
    ]
    return nodes, secret, _identities(1, seed=9)[0].public_key


def _carry(
    by_key: dict[bytes, Node],
    sender: bytes,
    effects: Sequence[object],
    now: float,
    dropped: Callable[[bytes, bytes], bool],
) -> None:
    """Every message of ``effects``, and of the replies they bring, to its
    end in order; lost: those ``dropped(source, to)`` says, and those to a
    node no longer in ``by_key`` (a dead one)."""
    queue = [(sender, send) for send in _sends(effects)]
    for source, send in _drain(queue):
        if send.to not in by_key or dropped(source, send.to):
            continue
        replies = by_key[send.to].receive(source, send.message, now)
        queue += [(send.to, reply) for reply in _sends(replies)]


def test_a_successor_gets_each_new_entry_at_once_even_while_its_reply_is_on_its_way() -> None:
    """A dealer's room (two dealers, three players). The other dealer's
    reply to the last entry is still on its way when the next entry comes:
    it gets the new entry at once all the same (a batch from its next
    index), not only the players. Else, the authority killed then, the
    players hold an entry it lacks and refuse it their votes, and nobody
    else stands: the table waited for ever (CI, 4 December: a restarted
    dealer in step 7 ms before the runner was killed)."""
    nodes, secret, client = _dealers_room(people=3)
    dealer, other, *players = nodes
    by_key = {node.key: node for node in nodes}

    def deliver(sender: bytes, effects: Sequence[object], now: float, held: bytes | None) -> None:
        """Every message to its end (in order), but none from ``held`` to
        the dealer (its replies on their way) and none to a dead dealer."""
        _carry(by_key, sender, effects, now, lambda source, to: source == held and to == dealer.key)

    deliver(dealer.key, dealer.lead_first_term(secret, 0.0), 0.0, held=None)
    for nonce in (1, 2, 3):  # the last two while the other dealer's replies are on their way
        held = other.key if nonce > 1 else None
        deliver(dealer.key, dealer.receive(client, Request(nonce, b"x"), 0.1 * nonce), 0.3, held)
    assert other.last_index == dealer.last_index  # it has the newest entry too
    # The players get no further than the other dealer is known to hold
    # (Node._sendable): its replies held, the last two wait for it.
    assert all(player.last_index == dealer.last_index - 2 for player in players)
    # The dealer dies; its will reaches everyone; the other dealer stands.
    del by_key[dealer.key]
    for player in players:
        player.authority_gone(5.0)
    deliver(other.key, other.suspect(5.0, current=True), 5.0, held=None)
    assert other.role == "authority" and other.term == 2


def test_voters_that_never_stand_are_never_ahead_of_every_one_that_could() -> None:
    """A dealer's room (two dealers, two players). The other dealer's
    voter misses the game's first entries (still subscribing, at QoS 0):
    the players get no entry it is not known to hold (Node._sendable), so
    that when the dealer dies the players still grant it their votes and
    it takes the table. Before, the players held entries it lacked,
    refused it (Raft's up-to-date rule), and nobody else stands: the table
    waited for good (a dealer killed 90 ms into its game: the NATS cluster
    soak, 5 December). Once it is back, what it acknowledges is let
    through to the players at once."""
    nodes, secret, client = _dealers_room(people=2)
    dealer, other, *players = nodes
    by_key = {node.key: node for node in nodes}
    deaf = [True]  # the other dealer hears nothing yet

    def deliver(sender: bytes, effects: Sequence[object], now: float) -> None:
        _carry(by_key, sender, effects, now, lambda source, to: deaf[0] and to == other.key)

    deliver(dealer.key, dealer.lead_first_term(secret, 0.0), 0.0)
    for nonce in (1, 2):
        deliver(dealer.key, dealer.receive(client, Request(nonce, b"x"), 0.1 * nonce), 0.3)
    assert other.last_index == 1  # the config alone
    assert all(player.last_index == 1 for player in players)  # held back for it
    assert dealer.commit == 1  # and nothing commits without it (_successor_holds)
    # It hears the next heartbeat: it catches up, and the players with it.
    deaf[0] = False
    deliver(dealer.key, dealer.tick(1.0), 1.0)
    assert other.last_index == dealer.last_index
    assert all(player.last_index == dealer.last_index for player in players)
    # Deaf again for one more entry; the dealer dies; the other dealer stands.
    deaf[0] = True
    deliver(dealer.key, dealer.receive(client, Request(3, b"x"), 1.1), 1.1)
    assert all(player.last_index == other.last_index for player in players)
    deaf[0] = False
    del by_key[dealer.key]
    for player in players:
        player.authority_gone(5.0)
    deliver(other.key, other.suspect(5.0, current=True), 5.0)
    assert other.role == "authority" and other.term == 2


# ------------------------------------------------- what mutation testing found
# Rules of net/election/node.py that no fast test held when mutmut first ran
# over it (5 December: `make mutation MUTATION_ARGS=net/election/node.py`;
# docs/testing.md). Each test below fails on the mutants it names.


class _Recording:
    """A storage that keeps what it was asked to write, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def load(self) -> Persisted:
        raise AssertionError("not read here")

    def save_state(self, term: int, voted_for: bytes | None) -> None:
        self.calls.append(("state", term, voted_for))

    def save_entries(self, first: int, entries: Sequence[Entry]) -> None:
        self.calls.append(("entries", first, tuple(entries)))


def test_persist_writes_the_storage_effects_whole_and_only_those() -> None:
    """The driver writes a node's storage effects through ``persist``, and
    sends nothing before the write of a vote or an entry (20.1): the term
    and the vote both, the entries from their index; anything else is not
    its business, and it says so. Mutants: a field dropped, True/False."""
    identities, _, _ = _room(1)
    key = identities[0].public_key
    entry = Entry(2, "action", key, 7, b"move")
    storage = _Recording()
    assert persist(storage, PersistState(3, key)) is True
    assert persist(storage, PersistEntries(4, (entry,))) is True
    assert persist(storage, Send(key, Vote(3, False))) is False
    assert storage.calls == [("state", 3, key), ("entries", 4, (entry,))]


def test_an_authority_ignores_an_append_of_its_own_term() -> None:
    """Hostile bytes: another voter claims to lead the authority's own term.
    One authority per term (election safety): it keeps its office and its
    log and answers nothing. Mutants: the check dropped (the authority
    would follow the forger and let it overwrite entries)."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, _ = nodes
    log = list(alice.log)
    forged = Append(
        alice.term, 1, alice.log[0].term, [Entry(alice.term, "action", bob.key, 1, b"x")], 0
    )
    assert alice.receive(bob.key, forged, 0.5) == []
    assert alice.role == "authority" and alice.authority == alice.key and alice.log == log


def test_a_candidate_that_hears_the_term_s_authority_follows_it_and_names_it() -> None:
    """Two stood in one term and Carol won; Bob, still a candidate of that
    term, gets her first Append: he follows her (no longer a candidate)
    and tells his driver who the authority is (``AuthorityKnown``, what
    the peers' screens say), once. Mutants: the candidate left as it is,
    the effect dropped or its term or key lost."""
    _, nodes, _ = _room(3)
    alice, bob, carol = nodes
    asks = _sends(bob.suspect(0.0))  # pre-votes; Alice and Carol say yes
    for send in asks:
        reply = nodes[[n.key for n in nodes].index(send.to)].receive(bob.key, send.message, 0.0)
        for answer in _sends(reply):
            bob.receive(send.to, answer.message, 0.0)
    assert bob.role == "candidate"
    term = bob.term
    # Carol stands in the same term, and Alice, who has not voted in it yet
    # (Bob's RequestVote never reached her), elects her.
    _elect([carol, alice], candidate=0)
    assert carol.role == "authority" and carol.term == term
    heartbeat = next(s for s in _sends(carol.tick(0.3)) if s.to == bob.key)
    effects = bob.receive(carol.key, heartbeat.message, 0.3)
    assert _role(bob) == "follower" and bob.authority == carol.key
    assert [e for e in effects if isinstance(e, AuthorityKnown)] == [
        AuthorityKnown(term, carol.key)
    ]
    again = next(s for s in _sends(carol.tick(0.6)) if s.to == bob.key)
    assert not [
        e for e in bob.receive(carol.key, again.message, 0.6) if isinstance(e, AuthorityKnown)
    ]


def test_a_heartbeat_goes_the_moment_it_is_due() -> None:
    """A tick at the very moment the authority's next heartbeat is due
    sends it to every other voter, not a tick later (their election timers
    wait for it). Mutant: ``<=`` for ``<``."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice = nodes[0]
    assert alice._leading is not None
    due = alice._leading.heartbeat_due
    assert {s.to for s in _sends(alice.tick(due))} == {nodes[1].key, nodes[2].key}


def test_a_follower_stands_the_moment_its_election_timeout_is_due() -> None:
    """Not a tick later. Mutant: ``>`` for ``>=``."""
    _, nodes, _ = _room(3)
    follower = nodes[1]
    due = follower._election_due
    assert not follower.tick(due - 0.001)
    assert {type(s.message) for s in _sends(follower.tick(due))} == {PreVote}


def test_an_authority_that_abdicates_knows_of_no_authority() -> None:
    """Its owner cannot run the table: it forgets that it was the authority
    (``None``: nobody), so that the next will or silence starts an
    election at once, as for any follower that knows of none. Mutant:
    ``""`` for ``None`` (a "known" authority that is nobody)."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice = nodes[0]
    alice.abdicate(0.5)
    assert alice.role == "follower" and alice.authority is None and not alice.stands


def test_only_the_room_s_maker_with_its_secret_leads_term_one() -> None:
    """Each condition alone refuses: a term other than 1, a vote in it not
    the maker's own, a node not a follower, a log beyond its config entry,
    a wrong secret. Mutants: any two conditions joined by ``and``, or the
    refusal's words lost."""
    identities = _identities(3)
    voters = [Voter(i.public_key, dealer=False) for i in identities]
    config, secret = shares.make_config(identities[0], voters)
    maker = identities[0]

    def node(term: int = 1, voted_for: bytes | None = maker.public_key) -> Node:
        persisted = first_persisted(config, maker.public_key)
        return Node(maker, Persisted(term, voted_for, persisted.log), now=0.0, rng=random.Random(0))

    refused = "only the room's maker, with its secret, leads term 1 of a new log"
    wrong: Callable[[], object]
    for wrong in (
        lambda: node(term=2).lead_first_term(secret, 0.0),
        lambda: node(voted_for=identities[1].public_key).lead_first_term(secret, 0.0),
        lambda: node().lead_first_term(bytes(32), 0.0),
    ):
        with pytest.raises(ValueError, match=f"^{refused}$"):
            wrong()
    leading = node()
    leading.lead_first_term(secret, 0.0)
    with pytest.raises(ValueError, match=f"^{refused}$"):  # no longer a follower
        leading.lead_first_term(secret, 0.0)
    longer = node()
    longer.log.append(Entry(1, "action", maker.public_key, 1, b"x"))
    with pytest.raises(ValueError, match=f"^{refused}$"):
        longer.lead_first_term(secret, 0.0)
    assert node().lead_first_term(secret, 0.0)  # all five hold: it leads


def test_only_the_authority_appends_its_own_entries() -> None:
    """A follower's ``append_own`` appends nothing and says index 0 (the
    driver reads 0 as "not the authority"). Mutant: index 1."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    assert nodes[1].append_own(1, b"state") == (0, [])
    index, effects = nodes[0].append_own(1, b"state")
    assert index == nodes[0].last_index > 1 and effects


def test_a_request_is_known_by_its_sender_and_nonce_and_a_voter_caught_up_by_its_match() -> None:
    """``known_request``: the index of a request already in the log (the
    driver answers a re-sent action with it), for that sender and nonce
    only. ``caught_up``: at the authority, whether a voter holds its whole
    log (a dealer hands a room over only to one that does); itself always,
    nobody at a follower. Mutants: no test reached either."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, carol = nodes
    index = _sends(alice.receive(bob.key, Request(5, b"move"), 0.1))
    assert index  # the Appends to Bob and Carol
    assert alice.known_request(bob.key, 5) == alice.last_index
    assert alice.known_request(bob.key, 6) is None
    assert alice.known_request(carol.key, 5) is None
    assert alice.caught_up(alice.key)
    assert not alice.caught_up(bob.key) and not alice.caught_up(carol.key)
    for send in index:
        if send.to == bob.key:
            for reply in _sends(bob.receive(alice.key, send.message, 0.1)):
                alice.receive(bob.key, reply.message, 0.1)
    assert alice.caught_up(bob.key) and not alice.caught_up(carol.key)
    assert not bob.caught_up(bob.key)  # a follower knows nobody's match


def test_a_share_counts_only_from_its_holder_and_for_this_config() -> None:
    """A vote's share is taken only when its sender holds that share number
    of this config: a share said to be another's, or of another split of
    the secret, is left aside (it would not combine, and it must not take
    the place of a good one, the candidate's own among them). Mutants: the
    two conditions joined by ``or``, the holder or the number alone."""
    _, nodes, secret = _room(3)
    alice, bob, carol = nodes

    def stand() -> None:
        for send in _sends(bob.suspect(0.0)):
            voter = alice if send.to == alice.key else carol
            for answer in _sends(voter.receive(bob.key, send.message, 0.0)):
                if isinstance(answer.message, PreVoteReply):
                    bob.receive(send.to, answer.message, 0.0)

    stand()
    assert bob.role == "candidate"
    (request,) = [
        s for s in _sends(alice.receive(bob.key, RequestVote(bob.term, 1, bob.log[0].term), 0.0))
    ]
    vote = request.message
    assert isinstance(vote, Vote) and vote.share is not None
    own = next(s.index for s in bob.config.shares if s.holder == bob.key)
    # Alice's share under Bob's own number, then under another split's:
    # neither counts, and Bob still lacks a second share to win with.
    for forged in (
        msgspec.structs.replace(vote.share, index=own),
        msgspec.structs.replace(vote.share, config_term=vote.share.config_term + 1),
    ):
        bob.receive(alice.key, msgspec.structs.replace(vote, share=forged), 0.0)
        assert bob.role == "candidate"
    # Carol's good vote: Bob's own share and hers rebuild the secret.
    (good,) = _sends(carol.receive(bob.key, RequestVote(bob.term, 1, bob.log[0].term), 0.0))[-1:]
    bob.receive(carol.key, good.message, 0.0)
    assert _role(bob) == "authority" and bob.secret == secret


def test_a_log_that_does_not_start_with_the_room_s_config_is_refused() -> None:
    """A node is rebuilt from its storage alone: an empty log, or one whose
    first entry is not the config (a damaged or forged voter file), is
    refused in words. Mutants: the conditions joined by ``and``, the words."""
    identity = _identities(1)[0]
    action = Entry(1, "action", identity.public_key, 1, b"x")
    for log in ((), (action,)):
        with pytest.raises(ValueError, match=r"^a room's log starts with its config entry$"):
            Node(identity, Persisted(1, None, log), now=0.0, rng=random.Random(0))


def test_a_room_of_one_voter_elects_it_at_once() -> None:
    """Its own pre-vote is a majority, and its own vote and share: it takes
    the office in the same call, and its heartbeat is due from then (a
    lone dealer's room: docs/election.md section 11). Mutants: ``>`` for
    ``>=``, the time lost on the way."""
    _, (alone,), secret = _room(1)
    alone.suspect(3.0)
    assert alone.role == "authority" and alone.secret == secret and alone.term == 1
    assert alone._leading is not None and alone._leading.since == 3.0
    assert alone.tick(3.0) == [] and alone._leading.heartbeat_due >= 3.0


def test_a_follower_missing_entries_says_so_and_the_authority_backs_off() -> None:
    """Log matching: Carol missed two entries; an Append after them gets a
    refusal whose hint is her last index, and the authority's next Append
    to her starts right after it (not before what she holds, nor past
    it), which she then takes. Mutants: a refusal that says success, the
    hint or the back-off moved by one."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, carol = nodes
    held = carol.last_index
    for nonce in (1, 2):
        for send in _sends(alice.receive(bob.key, Request(nonce, b"move"), 0.1)):
            if send.to == bob.key:
                for reply in _sends(bob.receive(alice.key, send.message, 0.1)):
                    alice.receive(bob.key, reply.message, 0.1)
    assert alice._leading is not None
    alice._leading.next_index[carol.key] = alice.last_index  # as if she had the first
    (append,) = [s for s in _sends(alice.tick(0.3)) if s.to == carol.key]
    assert isinstance(append.message, Append) and append.message.prev_index > held
    (refusal,) = _sends(carol.receive(alice.key, append.message, 0.3))
    assert refusal.message == AppendReply(alice.term, False, held)
    (again,) = _sends(alice.receive(carol.key, refusal.message, 0.3))
    assert isinstance(again.message, Append) and again.message.prev_index == held
    (taken,) = _sends(carol.receive(alice.key, again.message, 0.3))
    assert taken.message == AppendReply(alice.term, True, alice.last_index)
    assert carol.log == alice.log


def test_a_stale_authority_s_append_is_refused_with_the_newer_term() -> None:
    """An Append of an older term (an authority that has not heard it was
    replaced) changes nothing and gets the newer term back, so that it
    steps down. Mutant: the refusal said success."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, _ = nodes
    stale = Append(alice.term - 1, 1, alice.log[0].term, [], 0)
    log = list(bob.log)
    assert _sends(bob.receive(alice.key, stale, 0.5))[0].message == AppendReply(
        bob.term, False, bob.last_index
    )
    assert bob.log == log and bob.term == alice.term


def test_a_candidate_turned_follower_votes_for_nobody_else_in_its_term() -> None:
    """Bob stood in term T (his vote, to himself, is on disk), then heard
    Carol, elected in T: a third candidate of T gets no vote from him (at
    most one vote per term, 20.1). Mutant: the candidate's own vote not
    kept in memory."""
    _, nodes, _ = _room(3)
    alice, bob, carol = nodes
    for send in _sends(bob.suspect(0.0)):
        voter = alice if send.to == alice.key else carol
        for answer in _sends(voter.receive(bob.key, send.message, 0.0)):
            bob.receive(send.to, answer.message, 0.0)
    assert bob.role == "candidate" and bob.voted_for == bob.key
    term = bob.term
    assert _sends(bob.receive(alice.key, RequestVote(term, 9, 9), 0.1))[0].message == Vote(
        term, False
    )
    _elect([carol, alice], candidate=0)
    heartbeat = next(s for s in _sends(carol.tick(0.3)) if s.to == bob.key)
    bob.receive(carol.key, heartbeat.message, 0.3)
    assert _role(bob) == "follower" and bob.voted_for == bob.key
    assert _sends(bob.receive(alice.key, RequestVote(term, 9, 9), 0.4))[0].message == Vote(
        term, False
    )


def test_the_config_entry_is_never_replaced() -> None:
    """Hostile bytes: an Append from the term's authority that would put
    another entry at index 1 (the room's config) is ignored whole. Mutant:
    ``<`` for ``<=``."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, _ = nodes
    config = bob.log[0]
    forged = Append(alice.term, 0, 0, [Entry(alice.term, "config", alice.key, 0, b"x")], 0)
    bob.receive(alice.key, forged, 0.5)
    assert bob.log[0] == config


def test_a_pre_vote_granted_after_the_question_is_dropped_is_ignored() -> None:
    """Bob asked for pre-votes, then heard the authority (he asks nothing
    now): a yes that comes late changes nothing, nor one nobody asked for.
    Mutant: the question "dropped" as something that is not None (such a
    yes then failed)."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, carol = nodes
    asks = _sends(bob.suspect(5.0))  # long silent: he asks
    assert asks
    heartbeat = next(s for s in _sends(alice.tick(5.01)) if s.to == bob.key)
    bob.receive(alice.key, heartbeat.message, 5.01)  # the authority is alive
    late = PreVoteReply(bob.term + 1, True)
    assert bob.receive(carol.key, late, 5.02) == []
    assert bob.role == "follower" and bob.authority == alice.key
    # A yes nobody asked for (hostile bytes), after a move to a higher term.
    bob.receive(carol.key, RequestVote(bob.term + 1, 0, 0), 5.03)  # refused: an older log
    assert bob.role == "follower" and bob.term == alice.term + 1
    assert bob.receive(carol.key, PreVoteReply(bob.term + 1, True), 5.04) == []
    assert bob.role == "follower" and bob.term == alice.term + 1


def test_caught_up_knows_nothing_of_a_key_that_is_no_voter() -> None:
    """A dealer asks whether a key holds the room's whole log before handing
    the room over: a key that is not a voter never does. Mutants: the
    missing match read as None (a crash) or as the config entry."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    stranger = _identities(1, seed=7)[0].public_key
    assert not nodes[0].caught_up(stranger)


def test_the_first_term_s_grace_runs_from_the_office_s_start() -> None:
    """The room's maker waits START_GRACE at most, from when it took the
    office, for a share holder it never heard from before committing
    without it; at the grace's very end it waits no more. Mutants: the
    start lost, the difference turned to a sum, ``<=`` for ``<``."""
    (dealer, _, *players), secret, client = _dealers_room(people=2)
    dealer.lead_first_term(secret, 100.0)
    dealer.receive(client, Request(1, b"cipher"), 100.1)
    for player in players:
        dealer.receive(player.key, AppendReply(1, True, dealer.last_index), 100.1)
    assert dealer.commit < dealer.last_index  # the other dealer, never heard, may be live
    dealer.tick(100.0 + START_GRACE - 0.01)
    assert dealer.commit < dealer.last_index
    dealer.tick(100.0 + START_GRACE)
    assert dealer.commit == dealer.last_index


def test_in_a_later_term_a_holder_never_heard_holds_no_commit_up() -> None:
    """The grace is the first term's only (every holder was just chosen as
    online): an authority elected later commits without a holder that has
    said nothing in its term. Mutant: ``or`` for ``and``."""
    (dealer, other, *players), secret, client = _dealers_room(people=2)
    by_key = {node.key: node for node in (dealer, other, *players)}
    dealer.lead_first_term(secret, 0.0)
    # The other dealer stands (its timeout passed: it never heard the
    # first one), and the players elect it; the first dealer hears nothing.
    _carry(by_key, other.key, other.tick(10.0), 10.0, lambda _, to: to == dealer.key)
    assert other.role == "authority" and other.term == 2
    other.receive(client, Request(1, b"cipher"), 10.1)
    for player in players:
        other.receive(player.key, AppendReply(2, True, other.last_index), 10.1)
    assert other.commit == other.last_index


def test_a_new_entry_goes_at_once_to_whoever_may_have_it_and_no_further() -> None:
    """A dealer's room, everyone caught up. A new entry goes at once to the
    other dealer (it could take the table next), and to the players only
    as far as it is known to hold: not yet. Were the other dealer silent
    past the shortest timeout (nobody else could stand), the players get
    it at once too; one that lags does not. Mutants: the gate ignored for
    caught-up voters, caught-up voters skipped, lagging ones sent ahead."""
    nodes, secret, client = _dealers_room(people=2)
    dealer, other, *players = nodes
    by_key = {node.key: node for node in nodes}
    _carry(by_key, dealer.key, dealer.lead_first_term(secret, 0.0), 0.0, lambda _, to: False)
    _carry(by_key, dealer.key, dealer.tick(0.3), 0.3, lambda _, to: False)  # all caught up
    assert all(node.last_index == dealer.last_index for node in nodes)
    sent = {s.to for s in _sends(dealer.receive(client, Request(1, b"x"), 0.4))}
    assert sent == {other.key}
    # Silent since 0.3: past the shortest election timeout, it holds nobody back.
    for player in players:
        dealer.receive(player.key, AppendReply(1, True, dealer.last_index), 1.5)
    sent = {s.to for s in _sends(dealer.receive(client, Request(2, b"x"), 1.5))}
    assert sent == {other.key, *(player.key for player in players)}
    # One player answers, the other lags by an entry: it gets the next one
    # with its reply, as in Raft (only a share holder is sent ahead of it).
    dealer.receive(players[1].key, AppendReply(1, True, dealer.last_index), 1.6)
    sent = {s.to for s in _sends(dealer.receive(client, Request(3, b"x"), 1.6))}
    assert sent == {other.key, players[1].key}


def test_a_follower_behind_gets_the_rest_at_once() -> None:
    """Bob acknowledges the first of two new entries: the second goes to
    him in answer, not at the next heartbeat. Mutant: ``<`` for ``<=``."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, _ = nodes
    first = alice.last_index + 1
    alice.receive(bob.key, Request(1, b"a"), 0.1)
    alice.receive(bob.key, Request(2, b"b"), 0.1)
    assert alice.last_index == first + 1
    (rest,) = [
        s
        for s in _sends(alice.receive(bob.key, AppendReply(alice.term, True, first), 0.1))
        if s.to == bob.key and isinstance(s.message, Append)
    ]
    assert isinstance(rest.message, Append) and rest.message.prev_index == first
    assert [entry.nonce for entry in rest.message.entries] == [2]


def _carol_behind(holds: int) -> tuple[Node, Node]:
    """Alice, the authority, with four entries after her term's own; Carol,
    a follower, holding the first ``holds`` of the log (config and term
    entry included); and Alice knowing nothing of her yet, as a new
    authority does (next index after its own log, match 0)."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, carol = nodes
    for nonce in (1, 2, 3, 4):
        for send in _sends(alice.receive(bob.key, Request(nonce, b"move"), 0.1)):
            if send.to == carol.key and carol.last_index < holds:
                carol.receive(alice.key, send.message, 0.1)
    assert alice.last_index == 6 and carol.last_index == holds
    assert alice._leading is not None
    alice._leading.next_index[carol.key] = alice.last_index + 1
    alice._leading.match[carol.key] = 0
    return alice, carol


def _refusal_moves_next_to(alice: Node, carol: Node, refusal: AppendReply) -> int:
    """Alice's next index for Carol after ``refusal`` (the Append she sends
    in answer starts there)."""
    (again,) = [s for s in _sends(alice.receive(carol.key, refusal, 0.2)) if s.to == carol.key]
    assert isinstance(again.message, Append)
    return again.message.prev_index + 1


def test_a_refusal_takes_the_authority_back_to_just_after_what_the_follower_holds() -> None:
    """Raft's back-off with the follower's hint: the next Append starts
    right after the last entry the follower says it holds, never further
    back than needed, never forward. A refusal older than what the
    follower is known to hold moves nothing back; one that claims more
    than was sent moves back by one at most. Mutants: each term of
    ``min(next - 1, hint + 1)`` and ``max(match + 1, back, 1)`` moved."""
    for holds in (2, 5):
        alice, carol = _carol_behind(holds)
        (append,) = [s for s in _sends(alice.tick(0.3)) if s.to == carol.key]
        (refusal,) = _sends(carol.receive(alice.key, append.message, 0.2))
        assert refusal.message == AppendReply(alice.term, False, holds)
        assert _refusal_moves_next_to(alice, carol, refusal.message) == holds + 1
    # Carol takes the rest; a refusal from before, and a hostile one.
    alice, carol = _carol_behind(2)
    alice._leading.next_index[carol.key] = 3  # type: ignore[union-attr]
    (append,) = [s for s in _sends(alice.tick(0.3)) if s.to == carol.key]
    for reply in _sends(carol.receive(alice.key, append.message, 0.2)):
        alice.receive(carol.key, reply.message, 0.2)
    assert carol.log == alice.log
    assert _refusal_moves_next_to(alice, carol, AppendReply(alice.term, False, 0)) == 7
    assert _refusal_moves_next_to(alice, carol, AppendReply(alice.term, False, 100)) == 7


def test_a_follower_whose_entry_conflicts_hints_at_the_one_before() -> None:
    """Log matching: Carol holds an entry at the Append's previous index,
    but of another term (a deposed authority's, never committed): she
    refuses, hinting at the index before it, where the two logs may
    agree. Mutant: the hint one after."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, _, carol = nodes
    prev = carol.last_index
    assert prev == 2
    other_term = Append(alice.term, prev, carol.log[prev - 1].term + 7, [], 0)
    assert _sends(carol.receive(alice.key, other_term, 0.2))[0].message == AppendReply(
        alice.term, False, prev - 1
    )


def test_silence_of_exactly_the_shortest_timeout_counts_as_silence() -> None:
    """Both clocks that read "heard lately" end at the shortest election
    timeout, exclusive: a will that comes exactly that long after the
    authority was last heard starts an election, and a share holder
    silent exactly that long holds no commit up. Mutants: ``<=`` for
    ``<`` in either."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, _ = nodes
    shortest = bob.timing.election[0]
    heartbeat = next(s for s in _sends(alice.tick(0.5)) if s.to == bob.key)
    bob.receive(alice.key, heartbeat.message, 0.5)
    assert {type(s.message) for s in _sends(bob.suspect(0.5 + shortest))} == {PreVote}
    (dealer, other, *players), secret, client = _dealers_room(people=2)
    dealer.lead_first_term(secret, 0.0)
    dealer.receive(other.key, AppendReply(1, True, dealer.last_index), 0.5)  # heard at 0.5
    dealer.receive(client, Request(1, b"cipher"), 0.6)
    for player in players:
        dealer.receive(player.key, AppendReply(1, True, dealer.last_index), 0.6)
    assert dealer.commit < dealer.last_index
    dealer.tick(0.5 + shortest)
    assert dealer.commit == dealer.last_index


def test_a_silent_share_holder_is_sent_each_new_entry_while_less_than_a_batch_behind() -> None:
    """Bob, who could take the table next, answers nothing: each new entry
    still goes to him at once (a batch from his next index) while he is
    less than MAX_BATCH behind; further, it waits for his reply, as in
    Raft. Mutants: the bound's ``<`` or its difference changed."""
    _, nodes, _ = _room(3)
    _elect(nodes)
    alice, bob, carol = nodes
    assert alice._leading is not None
    behind = []
    for nonce in range(1, MAX_BATCH + 2):
        sends = _sends(alice.receive(carol.key, Request(nonce, b"x"), 0.1))
        behind.append(any(s.to == bob.key for s in sends))
        assert alice.last_index - alice._leading.next_index[bob.key] == nonce - 1
    assert behind == [True] * MAX_BATCH + [False]


def test_a_voter_silent_for_the_longest_timeout_gets_heartbeats_without_entries() -> None:
    """Bob's machine died: the authority went on sending him the same
    batch of up to MAX_BATCH entries (9 KB) at every heartbeat, four times
    a second, for the rest of the game (found in a play-test, 5 December).
    Silent for the longest election timeout, he gets an Append without
    entries at each heartbeat (a probe, as etcd's), and no new entry at
    once; his first reply brings the entries again. Carol, who answers,
    gets hers all along. The probe asks about the end of Alice's log, so
    Bob, behind, refuses it (a dealer started again that matched a probe
    at its next index said it was in step while lacking an entry the
    players held: test_dealers, 6 December). Mutations: the probe's
    entries, its prev index or term, the silence's bound or its clock."""
    _, nodes, _ = _room(3)
    _elect(nodes)  # at 0: Bob answered the first heartbeat
    alice, bob, carol = nodes
    leading = alice._leading
    assert leading is not None and leading.heard[bob.key] == 0.0
    longest = alice.timing.election[1]
    heard = 0.0
    for nonce in range(1, 6):  # Carol answers each; Bob nothing
        for send in _sends(alice.receive(carol.key, Request(nonce, b"x" * 100), 0.1)):
            if send.to == carol.key:
                carol_reply = _sends(carol.receive(alice.key, send.message, 0.1))
                alice.receive(carol.key, carol_reply[0].message, 0.1)
    behind = leading.next_index[bob.key]
    assert behind < alice.last_index
    # Before the longest timeout: the whole batch still, at each heartbeat.
    sends = {s.to: s.message for s in _sends(alice.tick(heard + longest - 0.3))}
    to_bob = sends[bob.key]
    assert isinstance(to_bob, Append) and to_bob.entries
    sends = {s.to: s.message for s in _sends(alice.tick(heard + longest))}
    probe = sends[bob.key]
    assert isinstance(probe, Append) and probe.entries == []
    # It asks about the end of Alice's log: matching it means holding it all.
    assert probe.prev_index == alice.last_index and probe.term == alice.term
    assert probe.prev_term == alice.last_term and probe.commit == alice.commit
    assert isinstance(sends[carol.key], Append)  # Carol's heartbeat (she is caught up)
    now = heard + longest + 0.1
    new = _sends(alice.receive(carol.key, Request(99, b"y"), now))
    assert bob.key not in {s.to for s in new}  # no batch at once for a dead holder
    # Bob's machine comes back: his reply to the probe brings his entries.
    reply = _sends(bob.receive(alice.key, probe, now))
    assert [type(s.message) for s in reply] == [AppendReply]
    refusal = reply[0].message
    assert isinstance(refusal, AppendReply)
    assert not refusal.success and refusal.match == behind - 1  # how far he holds
    after = _sends(alice.receive(bob.key, reply[0].message, now))
    [batch] = [s.message for s in after if s.to == bob.key]
    assert isinstance(batch, Append) and batch.entries and batch.prev_index == behind - 1
    sends = {s.to: s.message for s in _sends(alice.tick(now + alice.timing.heartbeat))}
    to_bob = sends[bob.key]
    assert isinstance(to_bob, Append) and to_bob.entries
