"""net.protocol.wire: what a peer or the authority accepts from the network.

Everything that is not a well-formed message of this protocol version,
correctly signed (public) or sealed to the reader (private), for the topic
it came on, is refused with a WireError and a reason: never another
exception.
"""

from __future__ import annotations

import time

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.public import Box

from net.identity import Identity, box_public_key, verify
from net.protocol import wire
from net.protocol.wire import (
    MAX_PAYLOAD,
    SHORT_TEXT,
    Act,
    Envelope,
    NextRoom,
    Presence,
    RoomState,
    SeatState,
    WireError,
    next_presence_epoch,
    next_room_decoder,
    next_topic,
    open_body,
    open_envelope,
    peer_message_decoder,
    presence_decoder,
    presence_topic,
    room_state_decoder,
    room_topic,
    seal,
    sealed_presence,
    sender_id,
    short_text,
    to_authority_topic,
    to_peer_topic,
    topic_peer,
    watchers_topic,
)
from tests.net.peers import forged

HOST = Identity.generate()
PEER = Identity.generate()
OTHER = Identity.generate()
TOPIC = to_authority_topic("ABC123", PEER.peer_id)


def act(**changes: object) -> Act:
    fields: dict[str, object] = {
        "room": "ABC123",
        "epoch": 1,
        "n": 1,
        "seat": 0,
        "action": "V10",
        "at": 0,
    }
    fields.update(changes)
    return Act(**fields)  # type: ignore[arg-type]


def test_sealed_message_opens_for_its_recipient_only() -> None:
    payload = seal(PEER, TOPIC, act(), HOST.public_key)
    envelope = open_envelope(TOPIC, payload, identity=HOST)
    assert open_body(envelope, peer_message_decoder, HOST) == act()
    with pytest.raises(WireError) as refused:
        open_envelope(TOPIC, payload, identity=OTHER)
    assert refused.value.code == "sealed"
    # Who it claims to be from goes with the refusal, unproven (a table
    # that moved tells the topic's peer so: net/authority/authority.py).
    assert refused.value.sender == PEER.public_key
    # The bid, card or tile inside is not in the payload in clear.
    assert b"V10" not in payload


def test_moved_tampered_or_turned_back_sealed_messages_do_not_open() -> None:
    """A sealed body is authenticated by its seal (protocol version 2): only
    its sender and its reader hold the key, and its topic is inside. Here
    the authority's answers to a peer (``p/``), which are not signed."""
    answers = to_peer_topic("ABC123", PEER.peer_id)
    payload = seal(HOST, answers, act(), PEER.public_key)
    envelope = msgspec.msgpack.decode(payload, type=Envelope)
    assert envelope.sig == b""
    assert open_body(open_envelope(answers, payload, identity=PEER), peer_message_decoder, PEER)
    moved = to_peer_topic("ABC124", PEER.peer_id)
    assert refusal(lambda: open_envelope(moved, payload, identity=PEER)) == (
        "signature",
        "sealed for another topic",
    )
    flipped = bytearray(envelope.body)
    flipped[-1] ^= 1
    tampered = msgspec.msgpack.encode(msgspec.structs.replace(envelope, body=bytes(flipped)))
    assert refusal(lambda: open_envelope(answers, tampered, identity=PEER))[0] == "sealed"
    # Someone else's key in front of the same seal.
    stolen = msgspec.msgpack.encode(msgspec.structs.replace(envelope, sender=OTHER.public_key))
    assert refusal(lambda: open_envelope(answers, stolen, identity=PEER))[0] == "sealed"
    # Turned back: the peer's own message to the host, sealed with the key
    # the two share, put on the peer's answer topic as if the host sent it.
    # It opens there, but names another topic.
    asked = msgspec.msgpack.decode(
        seal(PEER, to_peer_topic("ABC123", HOST.peer_id), act(), HOST.public_key), type=Envelope
    )
    turned = msgspec.msgpack.encode(msgspec.structs.replace(asked, sender=HOST.public_key))
    assert refusal(
        lambda: open_envelope(answers, turned, identity=PEER, expect_key=HOST.public_key)
    ) == ("signature", "sealed for another topic")
    # A signature beside a body sealed there: not this version's envelope.
    signed = msgspec.msgpack.encode(msgspec.structs.replace(envelope, sig=b"\0" * 64))
    assert refusal(lambda: open_envelope(answers, signed, identity=PEER)) == (
        "bad",
        "not a Passe message (malformed envelope)",
    )


def test_a_seats_requests_are_signed_as_well_as_sealed() -> None:
    """The design card: "actions are signed". On ``a/<peer id>`` a sealed
    body also carries the sender's signature of ``"passe/1\\0" + topic +
    "\\1" + sealed body`` (as in version 1), checked before the seal is
    opened: one without, or with another's, is refused."""
    payload = seal(PEER, TOPIC, act(), HOST.public_key)
    envelope = msgspec.msgpack.decode(payload, type=Envelope)
    signed = b"passe/1\x00" + TOPIC.encode() + b"\x01" + envelope.body
    assert envelope.sealed and verify(PEER.public_key, signed, envelope.sig)
    unsigned = msgspec.msgpack.encode(msgspec.structs.replace(envelope, sig=b""))
    assert refusal(lambda: open_envelope(TOPIC, unsigned, identity=HOST)) == (
        "bad",
        "not a Passe message (malformed envelope)",
    )
    forged = msgspec.msgpack.encode(msgspec.structs.replace(envelope, sig=OTHER.sign(signed)))
    assert refusal(lambda: open_envelope(TOPIC, forged, identity=HOST)) == (
        "signature",
        "bad signature",
    )
    moved = to_authority_topic("ABC124", PEER.peer_id)
    assert refusal(lambda: open_envelope(moved, payload, identity=HOST)) == (
        "signature",
        "bad signature",
    )
    # Signed by its sender but sealed to another key (a table's former
    # holder's): refused as undecryptable, with its (proven) sender.
    elsewhere = seal(PEER, TOPIC, act(), OTHER.public_key)
    with pytest.raises(WireError) as refused:
        open_envelope(TOPIC, elsewhere, identity=HOST)
    assert (refused.value.code, refused.value.sender) == ("sealed", PEER.public_key)
    assert open_body(open_envelope(TOPIC, payload, identity=HOST), peer_message_decoder, HOST)


PUBLIC: list[tuple[str, msgspec.Struct, msgspec.msgpack.Decoder[object]]] = [
    (
        room_topic("ABC123"),
        RoomState(
            room="ABC123",
            game="passpass",
            config={},
            host="Hostess",
            phase="lobby",
            seats=[SeatState("Ana", "human", peer=PEER.peer_id, present=True)],
            seq=0,
            stamp=1,
        ),
        room_state_decoder,  # type: ignore[list-item]
    ),
    (
        presence_topic("ABC123", HOST.peer_id),
        Presence(room="ABC123", epoch=2, online=False),
        presence_decoder,  # type: ignore[list-item]
    ),
    (next_topic("ABC123"), NextRoom(room="ABC123", next="EVE123"), next_room_decoder),  # type: ignore[list-item]
]


@pytest.mark.parametrize("topic, message, decoder", PUBLIC, ids=["room", "presence", "next"])
def test_public_messages_are_checked_against_their_signature(
    topic: str, message: msgspec.Struct, decoder: msgspec.msgpack.Decoder[object]
) -> None:
    """Mutation (issue 23): ``open_envelope`` checking the signature only when
    the body is sealed. A room state, presence or next-game notice claiming
    the host's key but not signed by it, or changed after it was signed, is
    refused; the genuine one opens."""
    genuine = seal(HOST, topic, message)
    assert open_body(open_envelope(topic, genuine), decoder) == message
    with pytest.raises(WireError) as refused:
        open_envelope(topic, forged(HOST.public_key, topic, message))
    assert (refused.value.code, refused.value.reason) == ("signature", "bad signature")
    envelope = msgspec.msgpack.decode(genuine, type=Envelope)
    changed = msgspec.msgpack.encode(msgspec.structs.replace(message, room="ABC124"))
    tampered = msgspec.msgpack.encode(msgspec.structs.replace(envelope, body=changed))
    with pytest.raises(WireError) as refused:
        open_envelope(topic, tampered)
    assert refused.value.code == "signature"
    # Marked sealed after signing: a sealed body carries no signature.
    flagged = msgspec.msgpack.encode(msgspec.structs.replace(envelope, sealed=True))
    assert refusal(lambda: open_envelope(topic, flagged, identity=HOST)) == (
        "bad",
        "not a Passe message (malformed envelope)",
    )
    # And a public body without its signature is no envelope of ours.
    unsigned = msgspec.msgpack.encode(msgspec.structs.replace(envelope, sig=b""))
    assert refusal(lambda: open_envelope(topic, unsigned)) == (
        "bad",
        "not a Passe message (malformed envelope)",
    )


def test_oversized_and_other_versions_are_refused_before_decoding() -> None:
    with pytest.raises(WireError) as refused:
        open_envelope(TOPIC, b"\x00" * (MAX_PAYLOAD + 1))
    assert refused.value.code == "size"
    future = msgspec.msgpack.encode([3, PEER.public_key, False, b"", b"\0" * 64, "more"])
    with pytest.raises(WireError) as refused:
        open_envelope(TOPIC, future)
    assert refused.value.code == "version"
    assert "version 3" in refused.value.reason


def test_public_and_sealed_cannot_be_swapped() -> None:
    public = seal(PEER, TOPIC, Presence(room="ABC123", epoch=1, online=True))
    with pytest.raises(WireError):
        open_body(open_envelope(TOPIC, public, identity=HOST), presence_decoder, HOST)
    sealed = seal(PEER, TOPIC, Presence(room="ABC123", epoch=1, online=True), HOST.public_key)
    with pytest.raises(WireError):
        open_body(open_envelope(TOPIC, sealed), presence_decoder)


@pytest.mark.parametrize(
    "bad",
    [
        act(seat=99),
        act(n=-1),
        act(room="ABC"),
        act(action="x" * 1000),
        RoomState(
            room="ABC123",
            game="passpass",
            config={},
            host="h",
            phase="lobby",
            seats=[],
            seq=0,
            stamp=0,
        ),
    ],
)
def test_fields_out_of_bounds_or_wrong_type_are_refused(bad: msgspec.Struct) -> None:
    payload = seal(PEER, TOPIC, bad, HOST.public_key)
    with pytest.raises(WireError, match="malformed"):
        open_body(open_envelope(TOPIC, payload, identity=HOST), peer_message_decoder, HOST)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=600))
def test_random_bytes_are_refused_cleanly(payload: bytes) -> None:
    with pytest.raises(WireError):
        open_envelope(TOPIC, payload)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**63), max_value=2**64 - 1)
        | st.binary(max_size=70)
        | st.text(max_size=8),
        lambda children: (
            st.lists(children, max_size=6)
            | st.dictionaries(st.text(max_size=6), children, max_size=4)
        ),
        max_leaves=12,
    )
)
def test_random_msgpack_bodies_are_refused_cleanly(body: object) -> None:
    """A correctly signed and sealed envelope around any msgpack body."""
    head = b"passe/2 sealed\0" + TOPIC.encode() + b"\0"
    sealed = bytes(
        Box(PEER.box_key, box_public_key(HOST.public_key)).encrypt(
            head + msgspec.msgpack.encode(body)
        )
    )
    payload = msgspec.msgpack.encode(Envelope(2, PEER.public_key, True, sealed, b""))
    try:
        message = open_body(
            open_envelope(TOPIC, payload, identity=HOST), peer_message_decoder, HOST
        )
    except WireError:
        return
    assert message.room  # only a complete, valid request gets through


# -- what each refusal says, and the exact bytes signed (docs/protocol.md §2).
# Found by `make mutation` (docs/testing.md): mutants of these reasons, codes
# and bounds survived every test above.


def refusal(call: object, *args: object) -> tuple[str, str]:
    with pytest.raises(WireError) as refused:
        call(*args)  # type: ignore[operator]
    return refused.value.code, refused.value.reason


def test_the_envelope_of_a_sealed_message_is_documented_exactly() -> None:
    """docs/protocol.md section 4: a sealed body is ``crypto_box`` of
    ``"passe/2 sealed\\0" + topic + "\\0" + body`` from the sender's key to
    the reader's, beside an empty signature (but on a seat's request topic):
    another implementation must be able to make one and to open ours."""
    answers = to_peer_topic("ABC123", PEER.peer_id)
    payload = seal(HOST, answers, act(), PEER.public_key)
    v, sender, sealed, body, sig = msgspec.msgpack.decode(payload)
    assert (v, sender, sealed, sig) == (2, HOST.public_key, True, b"")
    plain = Box(PEER.box_key, box_public_key(HOST.public_key)).decrypt(body)
    assert plain == b"passe/2 sealed\0" + answers.encode() + b"\0" + msgspec.msgpack.encode(act())
    opened = open_envelope(answers, payload, identity=PEER)
    assert opened.body == msgspec.msgpack.encode(act()) and opened.sealed


def test_each_refusal_says_what_was_wrong_with_its_code() -> None:
    assert WireError("why").code == "bad"
    too_big = b"\x00" * (MAX_PAYLOAD + 1)
    assert refusal(open_envelope, TOPIC, too_big) == (
        "size",
        f"message of {MAX_PAYLOAD + 1} bytes: the limit is {MAX_PAYLOAD}",
    )
    # At the limit exactly: not refused for its size (but not a message).
    assert refusal(open_envelope, TOPIC, b"\x00" * MAX_PAYLOAD)[0] == "bad"
    # An array whose first item is no version number (a string here; an
    # integer first would be read as another version: wire._version_of).
    assert refusal(open_envelope, TOPIC, b"\x93\xa3abc\xc0\xc0") == (
        "bad",
        "not a Passe message (malformed envelope)",
    )
    # Of this version but malformed: malformed, not "another version".
    this_version = msgspec.msgpack.encode([2, PEER.public_key, False, b"", b"\0" * 64, "more"])
    assert refusal(open_envelope, TOPIC, this_version)[0] == "bad"
    # A well-formed envelope of another version, newer or older.
    signed = msgspec.msgpack.decode(seal(PEER, TOPIC, act()), type=Envelope)
    for version in (3, 1):
        other = msgspec.msgpack.encode(msgspec.structs.replace(signed, v=version))
        assert refusal(open_envelope, TOPIC, other) == (
            "version",
            f"protocol version {version}; this Passe speaks version 2",
        )
    public = open_envelope(TOPIC, seal(PEER, TOPIC, act()))
    sealed_payload = seal(PEER, TOPIC, act(), HOST.public_key)
    sealed = open_envelope(TOPIC, sealed_payload, identity=HOST)
    assert refusal(open_body, public, peer_message_decoder, HOST) == (
        "bad",
        "a public message where a sealed one was expected",
    )
    assert refusal(open_body, sealed, peer_message_decoder) == (
        "bad",
        "a sealed message where a public one was expected",
    )
    assert refusal(open_envelope, TOPIC, sealed_payload) == (
        "bad",
        "a sealed message where a public one was expected",
    )
    assert refusal(lambda: open_envelope(TOPIC, sealed_payload, identity=OTHER)) == (
        "sealed",
        "cannot decrypt: not sealed to this peer",
    )


def test_a_malformed_body_is_named_by_msgspec_in_at_most_200_characters() -> None:
    body = {"t": "x" * 300}  # an unknown tag: msgspec names it, all 300 letters
    with pytest.raises(msgspec.ValidationError) as checked:
        peer_message_decoder.decode(msgspec.msgpack.encode(body))
    assert len(str(checked.value)) > 200
    # A body no message type has: sealed raw, to be refused when opened.
    raw = msgspec.Raw(msgspec.msgpack.encode(body))
    payload = seal(PEER, TOPIC, raw, HOST.public_key)  # type: ignore[arg-type]
    envelope = open_envelope(TOPIC, payload, identity=HOST)
    assert refusal(open_body, envelope, peer_message_decoder, HOST) == (
        "bad",
        f"malformed message: {str(checked.value)[:200]}",
    )


def test_the_signature_covers_exactly_the_documented_bytes() -> None:
    """``"passe/1\\0" + topic + "\\0" + body``, signed by the sender of a
    public body: another implementation of the protocol must be able to
    check it."""
    envelope = open_envelope(TOPIC, seal(PEER, TOPIC, act()))
    signed = b"passe/1\x00" + TOPIC.encode() + b"\x00" + envelope.body
    assert verify(PEER.public_key, signed, envelope.sig)
    assert not envelope.sealed


def test_the_watchers_topic_is_the_documented_one() -> None:
    """docs/protocol.md's topic of how many watch (issue 21), written out.
    Kills net.protocol.wire.x_watchers_topic__mutmut_1 (the room's prefix of None:
    the tests that subscribe compared it with itself)."""
    assert watchers_topic("ABC123") == "passe/v1/ABC123/watchers"


def test_topics_are_the_documented_ones() -> None:
    peer = PEER.peer_id
    assert room_topic("ABC123") == "passe/v1/ABC123/room"
    assert next_topic("ABC123") == "passe/v1/ABC123/next"
    assert presence_topic("ABC123", peer) == f"passe/v1/ABC123/presence/{peer}"
    assert to_authority_topic("ABC123", peer) == f"passe/v1/ABC123/a/{peer}"
    assert to_peer_topic("ABC123", peer) == f"passe/v1/ABC123/p/{peer}"
    prefix = "passe/v1/ABC123/a"
    assert topic_peer(f"{prefix}/{peer}", prefix) == peer
    for other in (
        f"{prefix}{peer}",  # no slash
        f"passe/v1/ABC124/a/{peer}",  # another room
        f"{prefix}/{peer[:-1]}",  # too short
        f"{prefix}/{peer}0",  # too long
        f"{prefix}/{peer[:-1]}G",  # not hex
        f"{prefix}/{peer[:-1]}X",
        f"{prefix}/{peer.upper()}" if peer.upper() != peer else f"{prefix}/x",
    ):
        assert topic_peer(other, prefix) is None, other
    envelope = open_envelope(TOPIC, seal(PEER, TOPIC, act()))
    assert sender_id(envelope) == peer


# Every way msgpack writes an integer, for each width's edges (positive
# fixint, uint 8-64, negative fixint, int 8-64).
VERSIONS = [0, 1, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x10000, 2**32 - 1, 2**32, 2**64 - 1]
VERSIONS += [-1, -32, -33, -128, -129, -(2**15), -(2**15) - 1, -(2**31), -(2**31) - 1, -(2**63)]
# Array headers of each kind: fixarray (1 and 15 items), array 16, array 32.
HEADERS = [b"\x91", b"\x9f", b"\xdc\x00\x10", b"\xdc\xff\xff", b"\xdd\x00\x01\x00\x00"]


@pytest.mark.parametrize("header", HEADERS)
def test_the_version_is_read_from_any_envelope_header(header: bytes) -> None:
    """``_version_of`` reads the first integer of any non-empty array, in
    every encoding msgpack has, and nothing past it (found by make
    mutation: 44 changes to its bounds, widths and signs passed, as the
    tests only read version 1 and 2 in a fixarray)."""
    from net.protocol.wire import _version_of

    for version in VERSIONS:
        encoded = msgspec.msgpack.encode(version)
        assert _version_of(header + encoded) == version, (header, version)
        assert _version_of(header + encoded + b"\xc1rest") == version
        if len(encoded) > 1:  # an integer cut short is no version
            assert _version_of(header + encoded[:-1]) is None, (header, version)
    assert _version_of(header) is None  # the array's header, then nothing
    for not_an_integer in (b"\x80", b"\xc0", b"\xc2", b"\xa1v", b"\x90", b"\xca\x00\x00\x00\x00"):
        assert _version_of(header + not_an_integer) is None


def test_an_empty_array_or_no_array_has_no_version() -> None:
    from net.protocol.wire import _version_of

    for payload in (b"", b"\x90", b"\xdc\x00\x00\x01", b"\xdd\x00\x00\x00\x00\x01", b"\xdc\x00"):
        assert _version_of(payload) is None, payload
    for not_an_array in (
        b"\x01",
        b"\x81\x01\x01",
        b"\xa1v",
        b"\xc0",
        b"\xa0\x01",
        b"\xde\x00\x01\x01",
    ):
        assert _version_of(not_an_array) is None, not_an_array
    assert _version_of(b"\xdd\x00\x00\x00") is None  # an array 32 header cut short


def test_a_message_from_another_sender_is_refused_naming_the_claimed_key() -> None:
    """Where one sender is expected (a topic's peer id, the room's host key),
    another key is refused before its signature is checked, with its reason,
    the code ``sender`` and the key it claims (the authority tells "another
    key" from there): found by make mutation, the words and the claimed key
    were unread once the real-process refusal test left the selection."""
    payload = seal(OTHER, TOPIC, act())
    with pytest.raises(WireError) as by_peer:
        open_envelope(TOPIC, payload, expect_id=PEER.peer_id)
    with pytest.raises(WireError) as by_host:
        open_envelope(TOPIC, payload, expect_key=HOST.public_key)
    for refused, reason in (
        (by_peer, "signed by another peer"),
        (by_host, "not from this room's host"),
    ):
        assert (refused.value.code, refused.value.reason) == ("sender", reason)
        assert str(refused.value) == reason
        assert refused.value.sender == OTHER.public_key
    # The expected sender passes both checks.
    assert open_envelope(TOPIC, seal(PEER, TOPIC, act()), expect_id=PEER.peer_id)
    assert open_envelope(TOPIC, seal(HOST, TOPIC, act()), expect_key=HOST.public_key)


def test_a_presence_epoch_grows_past_the_last_and_the_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each connection's epoch is above the one before, even when the clock
    went back (a late will never hides a newer "online"), and at least the
    clock's milliseconds, so it grows across restarts too."""
    monkeypatch.setattr(time, "time_ns", lambda: 5_000_000_000)  # the clock wire.py reads
    assert next_presence_epoch(0) == 5_000
    assert next_presence_epoch(4_999) == 5_000
    assert next_presence_epoch(5_000) == 5_001
    assert next_presence_epoch(9_000) == 9_001  # the clock went back


def test_a_sealed_presence_is_signed_on_its_topic_with_a_bounded_name() -> None:
    topic = presence_topic("ABC123", PEER.peer_id)
    payload = sealed_presence(
        PEER, topic, "ABC123", 7, online=False, name="N" * 50, broker="10.0.0.2:1884"
    )
    envelope = open_envelope(topic, payload, expect_id=PEER.peer_id)
    presence = open_body(envelope, presence_decoder)
    assert presence == Presence(
        room="ABC123", epoch=7, online=False, name="N" * 40, broker="10.0.0.2:1884"
    )
    with pytest.raises(WireError):
        open_envelope(presence_topic("ABC123", HOST.peer_id), payload)
    # Nameless and brokerless by default (a voter's presence names nothing).
    bare = sealed_presence(PEER, topic, "ABC123", 8, online=True)
    assert open_body(open_envelope(topic, bare), presence_decoder) == Presence(
        room="ABC123", epoch=8, online=True
    )


def test_a_dealer_claim_holds_only_for_its_room_its_key_and_its_name() -> None:
    """RoomState.dealer_proof: a dealer's name in a room state counts only
    with that dealer's signature of the room's code, the key that signs the
    state and that name; any host can write a name (the trust boundary: its
    players would read "no player's machine holds the deck")."""
    dealer, room_key = Identity.generate(), HOST.public_key
    proof = wire.dealt_proof(dealer, "ABC123", room_key, "Dealer-One")
    state = RoomState(
        room="ABC123",
        game="passpass",
        config={},
        host="Ann",
        phase="lobby",
        seats=[],
        seq=0,
        stamp=1,
        dealer="Dealer-One",
        dealer_key=dealer.public_key,
        dealer_proof=proof,
    )
    assert wire.proven_dealer(state, room_key)
    # Through the wire as the authority sends it.
    topic = room_topic("ABC123")
    sent = open_body(open_envelope(topic, seal(HOST, topic, state)), room_state_decoder)
    assert wire.proven_dealer(sent, room_key)

    def claim(**changes: object) -> bool:
        return wire.proven_dealer(msgspec.structs.replace(state, **changes), room_key)

    assert not wire.proven_dealer(state, OTHER.public_key)  # another host's state
    assert not claim(room="XYZ789")  # another room's proof
    assert not claim(dealer="Dealer-Two")  # another name
    assert not claim(dealer="")  # no dealer named: nothing to prove
    assert not claim(dealer_key=OTHER.public_key)  # another dealer's key
    assert not claim(dealer_key=b"")
    assert not claim(dealer_proof=b"")  # a name alone, as any host could write
    assert not claim(dealer_proof=proof[:-1] + bytes([proof[-1] ^ 1]))
    # The host's own signature of the same bytes with its own key named:
    # a proof is the dealer key's, whoever claims it.
    assert not claim(dealer_key=HOST.public_key)
    # Its own domain: a signature the dealer made of anything else (an
    # envelope of its own with the same bytes after its header) is none.
    envelope = wire._signed_bytes("t", False, b"ABC123\0" + room_key + b"Dealer-One")
    assert not claim(dealer_proof=dealer.sign(envelope))
    assert verify(dealer.public_key, wire._dealt_bytes("ABC123", room_key, "Dealer-One"), proof)
    # The bytes docs/protocol.md section 7 names, for another implementation.
    documented = b"passe/dealt/1\0ABC123\0" + room_key + b"Dealer-One"
    assert verify(dealer.public_key, documented, proof)
    # A name outside ASCII is signed as sent (UTF-8).
    accented = wire.dealt_proof(dealer, "ABC123", room_key, "Donneuse Élise")
    assert claim(dealer="Donneuse Élise", dealer_proof=accented)


def test_a_text_made_here_is_cut_to_the_bound_a_reader_keeps() -> None:
    """``short_text``: untouched up to 400 characters, cut to 400 with an
    ellipsis past it (a reason quoting a peer's 400-character action)."""
    assert SHORT_TEXT == 400
    assert short_text("") == ""
    assert short_text("a" * 400) == "a" * 400
    assert short_text("a" * 401) == "a" * 399 + "…"
    assert short_text("é" * 1000) == "é" * 399 + "…"
