"""net/authority/host.py's pieces that decide what a host is told and where
its room is shown, checked one by one in-process (no broker, no LAN traffic:
probes go to loopback ports of the test's own). The rooms opened, resumed
and closed through real brokers are tests/net/test_reach.py's,
test_room_files.py's and the networked games'."""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

from net.authority import host
from net.authority.host import HostedRoom
from net.authority.replication import maker_vote_path
from net.authority.rooms import BrokerChoice, load_room, room_path, write_room
from net.lan import discovery
from net.lan.broker import EmbeddedBroker
from net.protocol.wire import PROTOCOL_VERSION
from tests.net.rooms_in_process import CODE, room
from tests.net.test_room_files import a_room_in_play

pytestmark = pytest.mark.timeout(15)


def hosted(
    lan_address: str = "10.0.0.5",
    addresses: tuple[str, ...] = (),
    *,
    embedded: bool = False,
    moved_from: int | None = None,
) -> HostedRoom:
    broker = cast(EmbeddedBroker, object()) if embedded else None
    return HostedRoom(
        room(),
        "127.0.0.1",
        1884,
        lan_address,
        broker,
        moved_from=moved_from,
        addresses=addresses,
    )


def test_a_room_reachable_only_here_says_so_and_how_to_open_it_up() -> None:
    """``local_only``: every address it answers at is loopback (the shown
    one when none was found); ``reach_note`` then says how others could
    reach it, for the embedded broker (--bind) or a broker given (its own
    listener)."""
    assert hosted("127.0.0.1").local_only
    assert not hosted("10.0.0.5").local_only
    assert hosted("10.0.0.5", ("127.0.0.1", "::1", "localhost")).local_only
    assert not hosted("127.0.0.1", ("10.0.0.5", "127.0.0.1")).local_only
    assert hosted("10.0.0.5").reach_note == ""
    assert hosted("127.0.0.1", embedded=True).reach_note == (
        "the room's broker (127.0.0.1:1884) answers only on this machine: players on other "
        "machines cannot join (host with --bind one of this machine's LAN addresses)"
    )
    assert hosted("127.0.0.1").reach_note == (
        "the room's broker (127.0.0.1:1884) answers only on this machine: players on other "
        "machines cannot join (make that broker listen on the LAN too, e.g. Mosquitto's "
        "`listener 1883`)"
    )


def test_a_resumed_room_on_another_port_says_where_and_how_to_join_again() -> None:
    assert hosted().moved_note == ""
    assert hosted(moved_from=1883).moved_note == (
        "port 1883 was taken: the room's broker is on port 1884 now; the others' Passe "
        "looks for it on the LAN, else they join again with ABC-123@10.0.0.5:1884"
    )
    assert hosted().join_hint == "ABC-123@10.0.0.5:1884"
    assert hosted("fd00::5").join_hint == "ABC-123@[fd00::5]:1884"
    assert hosted().code == CODE


def test_loopback_is_read_from_the_address_or_the_name_localhost() -> None:
    for address in ("127.0.0.1", "127.8.9.10", "::1", "localhost"):
        assert host._is_loopback(address), address
    for address in ("10.0.0.5", "::", "fe80::1", "localhost.example", "not an address", ""):
        assert not host._is_loopback(address), address
    assert host._ipv4("10.0.0.5") and host._ipv4("127.0.0.1")
    for address in ("::1", "10.0.0", "10.0.0.256", "host", ""):
        assert not host._ipv4(address), address


@dataclass
class Lan:
    """This machine's addresses as discovery would list them (set by the
    test), and the interfaces each look asked for (None: every one)."""

    addresses: list[str] = field(default_factory=list)
    asked: list[object] = field(default_factory=list)


@pytest.fixture
def lan(monkeypatch: pytest.MonkeyPatch) -> Lan:
    seen = Lan()

    def local_addresses(interfaces: object = None) -> list[str]:
        seen.asked.append(interfaces)
        return list(seen.addresses)

    monkeypatch.setattr(discovery, "local_addresses", local_addresses)
    monkeypatch.setattr(discovery, "mdns_interfaces", lambda: ["lo"])
    return seen


def test_the_embedded_broker_listens_where_the_room_is_advertised(lan: Lan) -> None:
    """``broker_binds``: an address or several as given; by default the
    addresses mDNS advertises on (issue 19.7), only those a socket can bind
    now (one going down would stop the whole broker), else loopback."""
    assert host.broker_binds("10.0.0.5") == ("10.0.0.5",)
    assert host.broker_binds(["10.0.0.5", "127.0.0.1"]) == ("10.0.0.5", "127.0.0.1")
    assert host.broker_binds(()) == ()
    # 192.0.2.1 (TEST-NET-1) is on no interface here: binding it fails.
    lan.addresses[:] = ["192.0.2.1", "127.0.0.1", "127.0.0.2"]
    assert host.broker_binds(None) == ("127.0.0.1", "127.0.0.2")
    assert lan.asked[-1] == ["lo"]  # the interfaces mDNS advertises on
    lan.addresses[:] = ["192.0.2.1"]
    assert host.broker_binds(None) == ("127.0.0.1",)
    lan.addresses[:] = []
    assert host.broker_binds(None) == ("127.0.0.1",)
    assert host._bindable("127.0.0.1") and not host._bindable("192.0.2.1")
    assert host._bindable("::1")  # an IPv6 address, on an IPv6 socket
    # The address is probed, not a port: with a low port taken (root here
    # may take one; elsewhere the probe of port 0 needs no privilege).
    with socket.socket() as taken:
        try:
            taken.bind(("127.0.0.1", 1))
        except OSError:
            pass  # not ours to take here: the probe's port is not checked
        else:
            assert host._bindable("127.0.0.1")
    assert not host._bindable("not an address")


def test_others_are_shown_an_address_the_broker_listens_at(
    lan: Lan, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``shown_address``: this machine's LAN address for a broker on every
    interface, else the first bound that is not loopback, else the fallback
    (a dealer bound to 127.0.0.1 showed a LAN address it did not listen on)."""
    lan.addresses[:] = ["10.0.0.7", "127.0.0.1"]
    assert host.lan_address() == "10.0.0.7"
    for everywhere in ("", "0.0.0.0", "::"):
        assert host.shown_address(["127.0.0.1", everywhere], "127.0.0.1") == "10.0.0.7"
    assert host.shown_address(["127.0.0.1", "10.0.0.5", "10.0.0.6"], "x") == "10.0.0.5"
    assert host.shown_address(["127.0.0.1", "::1"], "fallback") == "fallback"
    assert host.shown_address([], "fallback") == "fallback"


@pytest.fixture
async def listening() -> Any:
    """A port of 127.0.0.1 that accepts connections, and one that does not
    (bound, not listening): (open, closed)."""
    server = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        yield server.sockets[0].getsockname()[1], holder.getsockname()[1]
    server.close()
    await server.wait_closed()


async def test_a_probe_says_whether_something_answers_there(listening: tuple[int, int]) -> None:
    open_port, closed_port = listening
    assert await host.answers("127.0.0.1", open_port)
    assert not await host.answers("127.0.0.1", closed_port)
    assert not await host.answers("127.0.0.2", open_port)  # that address, not another


async def test_a_broker_is_shown_where_it_answers_loopback_last(
    lan: Lan, listening: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``reachable_addresses`` (issue 18.5): the IPv4 addresses where the
    broker answers, loopback last. Asked: an embedded broker's own binds;
    this machine's addresses for one on every interface or a broker given
    on loopback; a broker given elsewhere at its name's addresses. Probes
    here reach loopback only: a LAN address is answered by the test."""
    open_port, _ = listening
    answering = {"127.0.0.1", "192.168.1.5", "10.0.0.6"}
    probed: list[str] = []

    async def answers(address: str, port: int, timeout: float = 1.0) -> bool:
        probed.append(address)
        assert port == open_port
        return address in answering

    monkeypatch.setattr(host, "answers", answers)

    class Embedded:
        def __init__(self, *binds: str) -> None:
            self.binds = binds

    def embedded(*binds: str) -> EmbeddedBroker:
        return cast(EmbeddedBroker, Embedded(*binds))

    lan.addresses[:] = ["127.0.0.1", "192.168.1.5", "::1", "10.0.0.9", "192.168.1.5"]
    # An embedded broker bound where it was told: there only.
    found = await host.reachable_addresses(
        "127.0.0.1", open_port, embedded("127.0.0.1", "10.0.0.6")
    )
    assert found == ("10.0.0.6", "127.0.0.1") and probed == ["10.0.0.6", "127.0.0.1"]
    # On every interface, or a broker given on loopback: this machine's
    # addresses, each once, IPv4 only, loopback last.
    for broker in (embedded("0.0.0.0"), embedded("", "::"), None):
        probed.clear()
        found = await host.reachable_addresses("127.0.0.1", open_port, broker)
        assert found == ("192.168.1.5", "127.0.0.1")
        assert probed == ["192.168.1.5", "10.0.0.9", "127.0.0.1"]
    probed.clear()
    assert await host.reachable_addresses("localhost", open_port, None) == (
        "192.168.1.5",
        "127.0.0.1",
    )
    # A broker given elsewhere: at its own address (or its name's).
    probed.clear()
    assert await host.reachable_addresses("10.0.0.6", open_port, None) == ("10.0.0.6",)
    assert probed == ["10.0.0.6"]

    async def getaddrinfo(name: str, port: int, **kinds: object) -> list[Any]:
        assert kinds == {"family": socket.AF_INET, "type": socket.SOCK_STREAM}
        assert port == open_port
        if name == "broker.lan":
            return [
                (socket.AF_INET, 1, 6, "", (address, port)) for address in ("10.0.0.6", "10.0.0.8")
            ]
        raise socket.gaierror(-2, "Name or service not known")

    loop = asyncio.get_running_loop()
    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)
    assert await host._ipv4_of("broker.lan", open_port) == ["10.0.0.6", "10.0.0.8"]
    assert await host._ipv4_of("10.0.0.3", open_port) == ["10.0.0.3"]  # no lookup
    assert await host._ipv4_of("nowhere.lan", open_port) == []
    probed.clear()
    assert await host.reachable_addresses("broker.lan", open_port, None) == ("10.0.0.6",)
    assert probed == ["10.0.0.6", "10.0.0.8"]


async def test_a_resumed_room_waits_for_its_port_as_long_as_it_is_in_use(
    listening: tuple[int, int],
) -> None:
    """``_wait_until_free``: a port in use is waited for up to the timeout
    (the dead host's broker lets it go when it notices); a free one, at
    once; one that cannot be had for another reason is not waited for."""
    open_port, _ = listening
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    assert await host._wait_until_free(["127.0.0.1"], port, 0.0)
    start = asyncio.get_running_loop().time()
    assert not await host._wait_until_free(["127.0.0.1"], open_port, 0.3)
    assert asyncio.get_running_loop().time() - start >= 0.3
    start = asyncio.get_running_loop().time()
    assert not await host._wait_until_free(["192.0.2.1"], port, 5.0)  # EADDRNOTAVAIL
    assert asyncio.get_running_loop().time() - start < 1.0
    # IPv6 addresses on IPv6 sockets.
    with socket.socket(socket.AF_INET6) as free6:
        free6.bind(("::1", 0))
        port6 = free6.getsockname()[1]
    assert await host._wait_until_free(["::1"], port6, 0.0)
    # Every address of the list: one in use is enough to wait.
    assert not await host._wait_until_free(["127.0.0.2", "127.0.0.1"], open_port, 0.0)


def test_a_room_is_advertised_with_its_host_s_name_cleaned_and_its_phase() -> None:
    """``room_advert``: the host's name as the room state carries it (an
    escape in --name made every receiver drop the advert), or "passe";
    the free seats, this protocol, the broker's port and addresses, and the
    phase as adverts say it (a closed room reads as over until withdrawn)."""
    room_ = hosted("10.0.0.5", ("10.0.0.5", "127.0.0.1"))
    advert = host.room_advert(room_, "passpass", "\x1b[31mAnn\u202e")
    assert advert == discovery.RoomAdvert(
        code=CODE,
        game="passpass",
        host_name="Ann",
        free_seats=room_.authority.free_seats,
        version=PROTOCOL_VERSION,
        port=1884,
        addresses=("10.0.0.5", "127.0.0.1"),
        phase="lobby",
    )
    discovery.check_advert(advert)  # what every receiver checks
    assert host.room_advert(room_, "passpass", "\x1b").host_name == "passe"
    room_.authority.phase = "over"
    assert host.room_advert(room_, "passpass", "Ann").phase == "over"
    long = host.room_advert(room_, "passpass", "A" * 200).host_name
    assert long == "A" * discovery.MAX_HOST_NAME
    for phase in discovery.PHASES:
        assert host.advert_phase(phase) == phase
    assert host.advert_phase("closed") == "over"
    assert host.advert_phase("") == "over"


def test_a_host_s_name_is_its_machine_s_or_passe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "gethostname", lambda: "laptop")
    assert host.default_host_name() == "laptop"
    monkeypatch.setattr(socket, "gethostname", lambda: "x" * 80)
    assert host.default_host_name() == "x" * 64
    monkeypatch.setattr(socket, "gethostname", lambda: "")
    assert host.default_host_name() == "passe"


async def test_a_room_whose_table_moved_is_claimed_only_by_one_process(tmp_path: Path) -> None:
    """``table_moved``: a game in play whose host's process voted (its maker's
    vote file) went on elsewhere; a lobby, or a room without that file, did
    not. ``claim_moved_room`` locks such a room's files for this process,
    and finds none for another code, a file it cannot read, a file of
    another room, a room that did not move, or one another Passe holds."""
    authority = await a_room_in_play("WB1VJ7")
    broker = BrokerChoice(embedded=True, host="", port=1883)
    path = room_path("WB1VJ7", tmp_path)
    write_room(path, authority.snapshot(broker), durable=False)
    saved = load_room(path)
    assert saved.phase == "playing" and not host.table_moved(saved, tmp_path)
    assert host.claim_moved_room("WB1VJ7", tmp_path) is None  # it did not move
    vote = maker_vote_path("WB1VJ7", authority.identity, tmp_path)
    vote.parent.mkdir(parents=True, exist_ok=True)
    vote.write_bytes(b"")
    assert host.table_moved(saved, tmp_path)
    claimed = host.claim_moved_room("WB1VJ7", tmp_path)
    assert claimed is not None and claimed[1].code == "WB1VJ7"
    assert claimed[0].path == path  # its own file, locked here
    assert host.claim_moved_room("WB1VJ7", tmp_path) is None  # held by this one
    claimed[0].release()
    again = host.claim_moved_room("WB1VJ7", tmp_path)
    assert again is not None
    again[0].release()
    assert host.claim_moved_room("XYZ789", tmp_path) is None  # no such file
    other = room_path("XYZ789", tmp_path)
    other.write_bytes(path.read_bytes())  # another room's file under this code
    assert host.claim_moved_room("XYZ789", tmp_path) is None
    other.write_bytes(b"not a room")
    assert host.claim_moved_room("XYZ789", tmp_path) is None
    # In its lobby, its maker's vote file or not: nothing moved.
    lobby = room()
    lobby_path = room_path(lobby.code, tmp_path)
    write_room(lobby_path, lobby.snapshot(broker), durable=False)
    maker_vote_path(lobby.code, lobby.identity, tmp_path).write_bytes(b"")
    assert not host.table_moved(load_room(lobby_path), tmp_path)


async def test_a_probe_gives_up_on_an_address_that_does_not_answer() -> None:
    """``answers`` waits ``timeout`` for a connection, no longer: a port
    whose queue of connections is full (on loopback: nothing leaves this
    machine) drops the probe's SYN, as a firewall that drops would."""
    with socket.socket() as full:
        full.bind(("127.0.0.1", 0))
        full.listen(0)
        port = full.getsockname()[1]
        fillers = []
        try:
            for _ in range(3):  # more than the queue holds
                filler = socket.socket()
                filler.setblocking(False)
                filler.connect_ex(("127.0.0.1", port))
                fillers.append(filler)
            assert not await asyncio.wait_for(host.answers("127.0.0.1", port, timeout=0.3), 10)
        finally:
            for filler in fillers:
                filler.close()
