"""The election core's pieces, one rule at a time (issue 20; the whole is
checked by tests/net/test_election_model.py)."""

from __future__ import annotations

import random
from collections.abc import Callable

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
    AuthorityKnown,
    Node,
    Persisted,
    PersistEntries,
    PersistState,
    Send,
    SteppedDown,
)
from net.identity import Identity


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


def _sends(effects: list[object]) -> list[Send]:
    return [effect for effect in effects if isinstance(effect, Send)]


def _elect(nodes: list[Node], candidate: int = 0) -> None:
    """Run an election to its end over a perfect network."""
    queue = [(nodes[candidate].key, s) for s in _sends(nodes[candidate].suspect(0.0))]
    by_key = {node.key: node for node in nodes}
    while queue:
        sender, send = queue.pop(0)
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
    assert alice.role == "follower" and alice.secret is None


def test_silence_alone_starts_an_election_and_votes_decide_it() -> None:
    _, nodes, _ = _room(3)
    alice, bob, _ = nodes
    assert alice.tick(0.5) == []  # within the timeout
    effects = alice.tick(5.0)
    # It asks first (pre-vote): nothing persisted, no term raised.
    assert {type(s.message) for s in _sends(effects)} == {PreVote}
    assert len(effects) == 2 and alice.role == "follower" and alice.term == 0
    effects = alice.receive(bob.key, PreVoteReply(1, True), 5.0)
    assert alice.role == "candidate"  # started, not decided: no votes yet
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
        while queue:
            sender, send = queue.pop(rng.randrange(len(queue)))
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
    while queue:
        sender, send = queue.pop(0)
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
    assert alice.role == "follower" and alice.secret is None and not alice.can_stand
    assert alice.tick(100.0) == []  # silent: no heartbeat, no pre-vote
    queue = [(bob.key, s) for s in _sends(bob.tick(100.0))]  # bob's deadline long past
    by_key = {node.key: node for node in nodes}
    while queue:
        sender, send = queue.pop(0)
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
    effects: list[object],
    now: float,
    dropped: Callable[[bytes, bytes], bool],
) -> None:
    """Every message of ``effects``, and of the replies they bring, to its
    end in order; lost: those ``dropped(source, to)`` says, and those to a
    node no longer in ``by_key`` (a dead one)."""
    queue = [(sender, send) for send in _sends(effects)]
    while queue:
        source, send = queue.pop(0)
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

    def deliver(sender: bytes, effects: list[object], now: float, held: bytes | None) -> None:
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

    def deliver(sender: bytes, effects: list[object], now: float) -> None:
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
