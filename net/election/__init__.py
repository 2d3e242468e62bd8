"""The elected authority (issue 20): election, replication and key shares.

A sans-I/O core (in the style of h11): :mod:`net.election.node` takes
messages, timer ticks and suspicions and returns messages to send and
effects to carry out (persist, apply, show who is authority); it owns no
socket, no file and no clock. :mod:`net.election.messages` is its wire format
(bounded msgspec Structs), :mod:`net.election.shares` the room secret under
Shamir's threshold scheme. docs/election.md states the protocol and its
safety argument; tests/net/test_election_model.py checks it over simulated
hostile networks. :mod:`net.election.driver` is the MQTT shell that the
authority (net/authority), a seat's voter (net/peer/failover.py) and a dealer
(net/dealer) each run.
"""
