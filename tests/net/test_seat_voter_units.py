"""A seat's voter (net/peer/failover.py) in process: its standby broker,
its voter file, what it tells the table it runs, and what it closes.

The real thing runs in tests/net/test_failover.py and the chaos scenarios,
as processes of their own that mutmut cannot see into; these pin each rule
of the module where a mutation shows (docs/testing.md, "The score")."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import msgspec
import pytest

from net.authority.authority import Authority
from net.authority.replication import (
    NO_KEY,
    BaseEntry,
    ReplicaError,
    _entry_encoder,
    encode_room_config,
    make_room_config,
    rebuild,
)
from net.authority.rooms import BrokerChoice, SavedRoom
from net.election.messages import Config
from net.identity import Identity
from net.lan.discovery import RoomAdvert
from net.peer import failover
from net.peer.failover import (
    STAND_IN_AFTER,
    SeatVoter,
    start_standby,
    start_standby_broker,
    stop_standby,
    stored_election,
    voter_file,
    votes_dir,
)
from tests.net.rooms_in_process import CODE, listen, room, seat_voter, seated

LAN = ("127.0.0.1", "192.168.1.5", "10.0.0.2")


class Broker:
    """A started standby broker, as far as the voter uses one."""

    def __init__(self, port: int = 40_001) -> None:
        self.port = port
        self.stopped = False

    async def stop(self) -> None:
        self.stopped = True


class Advertiser:
    """The room's mDNS advert, as far as the voter uses one: each update noted."""

    def __init__(self, fails: bool = False, phase: str = "playing") -> None:
        self.fails = fails
        self.closed = False
        self.advert: RoomAdvert | None = RoomAdvert(
            CODE, "passpass", "Ann", 0, 1, 1883, phase=phase
        )
        self.updates: list[tuple[int, str | None]] = []

    async def update(self, *, free_seats: int, phase: str | None = None) -> None:
        self.updates.append((free_seats, phase))
        assert self.advert is not None
        self.advert = dataclasses.replace(self.advert, free_seats=free_seats, phase=phase or "")

    async def close(self) -> None:
        self.closed = True
        if self.fails:
            raise OSError("the interface went away")


class TableRunHere:
    """The table a voter runs once it won, as far as the voter drives it:
    each call noted in order."""

    def __init__(self, phase: str = "playing") -> None:
        self.phase = phase
        self.free_seats = 0
        self.on_change: list[Callable[[], None]] = []
        self.calls: list[tuple[str, object]] = []
        self.stepped_down: int | None = None

    def changed(self) -> None:
        for callback in list(self.on_change):
            callback()

    async def start(self, *, timeout: float | None) -> None:
        self.calls.append(("start", timeout))

    def watch_away(self, after: float) -> None:
        self.calls.append(("watch_away", after))

    async def close(self, *, keep: bool) -> None:
        self.calls.append(("close", keep))

    def follow_brokers(self, succession: list[tuple[str, int]]) -> None:
        self.calls.append(("follow_brokers", succession))

    def voter_brokers_changed(self) -> None:
        self.calls.append(("voter_brokers_changed", None))

    def step_down(self, term: int) -> None:
        self.calls.append(("step_down", term))
        self.stepped_down = term


def config_with(me: Identity) -> Config:
    """A room of three voters, made by another key, ``me`` the second."""
    maker = Identity.generate()
    keys = [maker.public_key, me.public_key, Identity.generate().public_key]
    config, _ = make_room_config(maker, keys)
    return config


def a_voter(tmp_path: Path, **options: Any) -> tuple[SeatVoter, Identity]:
    me = Identity.generate()
    return seat_voter(me, config_with(me), tmp_path, **options), me


def run_here(voter: SeatVoter, table: TableRunHere) -> None:
    voter.authority = table  # type: ignore[assignment]


def patch_standby_broker(monkeypatch: pytest.MonkeyPatch, started: list[Broker]) -> None:
    """Each standby broker started is a :class:`Broker` at 10.0.0.2 (noted)."""

    async def start(port: int = 0) -> tuple[Broker, str]:
        broker = Broker()
        started.append(broker)
        return broker, "10.0.0.2"

    monkeypatch.setattr(failover, "start_standby_broker", start)


async def test_a_standby_broker_listens_where_the_room_s_would_and_is_shown_at_a_lan_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On the addresses the room's own broker would (the LAN's and
    loopback), on a free port, and named by the first that is not loopback,
    which other machines can reach; loopback only where there is nothing
    else. Kills start_standby_broker's mutants (no test reached it)."""
    import net.lan.broker

    binds: list[tuple[str, ...]] = [LAN]
    asked: list[tuple[object, object, object]] = []
    broker = Broker()

    async def start(
        bind: str | Sequence[str] = "0.0.0.0", port: int = 1883, *, tries: int = 20
    ) -> Broker:
        asked.append((bind, port, tries))
        return broker

    monkeypatch.setattr(failover, "broker_binds", lambda bind: binds[0] if bind is None else ())
    monkeypatch.setattr(net.lan.broker, "start_embedded_broker", start)
    # The fake broker comes back: compared as an object (it is no EmbeddedBroker).
    assert cast(object, await start_standby_broker()) == (broker, "192.168.1.5")
    assert asked == [(LAN, 0, 1)]
    binds[0] = ("127.0.0.1",)
    assert cast(object, await start_standby_broker()) == (broker, "127.0.0.1")
    # Or on the port it had, exactly (a machine back from the dead).
    assert cast(object, await start_standby_broker(40_123)) == (broker, "127.0.0.1")
    assert asked[-1] == (("127.0.0.1",), 40_123, 1)


async def test_a_standby_start_is_named_for_its_room_and_its_broker_stopped_once_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The start runs as a task named for its room (what asyncio says of it
    if it is ever left behind); stopping it waits for the broker, then
    stops it. Kills start_standby's and stop_standby's mutants."""
    started: list[Broker] = []
    patch_standby_broker(monkeypatch, started)
    start = start_standby("ABC123")
    assert start.get_name() == "room ABC123: a standby broker"
    await stop_standby(start)
    assert [broker.stopped for broker in started] == [True]


async def test_stopping_a_standby_start_that_failed_or_hangs_returns_quietly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A start that failed leaves nothing to stop and raises nothing at
    close; one that never ends is waited for STANDBY_START_WAIT at most.
    Kills stop_standby's mutants (its suppress, its wait)."""

    async def fails(port: int = 0) -> tuple[Broker, str]:
        raise OSError("no free port")

    monkeypatch.setattr(failover, "start_standby_broker", fails)
    await stop_standby(start_standby(CODE))
    never = asyncio.Event()

    async def hangs(port: int = 0) -> tuple[Broker, str]:
        await never.wait()
        raise AssertionError("unreachable")

    monkeypatch.setattr(failover, "start_standby_broker", hangs)
    monkeypatch.setattr(failover, "STANDBY_START_WAIT", 0.01)
    hanging = start_standby(CODE)
    try:
        await asyncio.wait_for(stop_standby(hanging), 5.0)
    finally:
        hanging.cancel()


def test_voter_files_live_in_the_data_directory_s_votes_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a restarted process (of this version or a later one) looks
    for its voter files. Kills votes_dir's mutants."""
    monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path))
    me = Identity.generate()
    assert votes_dir() == tmp_path / "votes"
    assert voter_file(CODE, me) == tmp_path / "votes" / f"{CODE}-{me.peer_id}.vote"


def test_a_restarted_seat_reads_the_election_of_its_own_voter_file_or_says_why_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """stored_election reads the file in the directory it is given (the
    votes folder by default): the room's election config; none where
    there is no file; a damaged one is named in the log and not used.
    Kills stored_election's mutants."""
    from net.election.driver import FileStorage, StorageError

    monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path / "elsewhere"))
    me = Identity.generate()
    config = config_with(me)
    seat_voter(me, config, tmp_path)  # makes its voter file
    assert stored_election(CODE, me, tmp_path) == encode_room_config(config)
    assert stored_election(CODE, me) is None  # not in the default folder
    path = voter_file(CODE, me, tmp_path)
    path.write_bytes(b"\x93damaged")
    with pytest.raises(StorageError) as damage:
        FileStorage(path).load()
    with caplog.at_level(logging.WARNING, logger="passe.failover"):
        assert stored_election(CODE, me, tmp_path) is None
    assert caplog.messages == [f"room {CODE}: this seat's voter file is not read: {damage.value}"]


def test_a_seat_voter_by_default_runs_no_standby_broker_and_advertises_a_table_it_takes(
    tmp_path: Path,
) -> None:
    """Without options: no standby broker (a broker that outlives hosts),
    the room advertised on the LAN once taken over, a person's voter (not
    a dealer's); its file in the directory given; the broker's other
    nodes handed to its driver. Kills __init__'s mutants."""
    voter, me = a_voter(tmp_path)
    assert voter.standby is False and voter.advertise is True and voter.dealer is False
    assert voter.advertiser is None and voter.broker is None and voter.failed is None
    assert voter.replica.driver.storage.path == voter_file(CODE, me, tmp_path)
    assert voter_file(CODE, me, tmp_path).exists()
    clustered, _ = a_voter(tmp_path / "cluster", cluster=[("10.0.0.9", 1883)])
    assert clustered.replica.driver.cluster == (("10.0.0.9", 1883),)


def test_the_replica_s_win_and_step_down_reach_the_seat_s_voter(tmp_path: Path) -> None:
    """The replica tells this voter of a term it won (it takes the table:
    here its log is damaged, so it says why) and of a term that made it
    step down (the table it runs steps down; with none, nothing). Kills
    __init__'s wiring mutants and _stepped_down's (no test reached it)."""
    voter, me = a_voter(tmp_path)

    def damaged() -> SavedRoom:
        raise ReplicaError("entry 2 does not decode")

    voter.replica.rebuild = damaged  # type: ignore[method-assign]
    voter.replica._on_authority(2, me.public_key)
    assert voter.failed == "entry 2 does not decode"
    voter.replica._on_stepped_down(3)  # no table here yet: nothing to tell
    table = TableRunHere()
    run_here(voter, table)
    voter.replica._on_stepped_down(4)
    assert table.calls == [("step_down", 4)]


def test_new_standby_brokers_reach_the_table_run_here_and_the_seat(tmp_path: Path) -> None:
    """The succession of standby brokers changed: the table this voter runs
    follows it and tells the seats, and the seat's process hears it too.
    Kills _brokers_changed's mutants."""
    heard: list[list[tuple[str, int]]] = []
    voter, _ = a_voter(tmp_path, on_brokers=heard.append)
    succession = [("10.0.0.5", 1884), ("10.0.0.6", 1884)]
    voter._brokers_changed(succession)  # no table here yet: the seat only
    table = TableRunHere()
    run_here(voter, table)
    voter._brokers_changed(succession)
    assert table.calls == [("follow_brokers", succession), ("voter_brokers_changed", None)]
    assert heard == [succession, succession]


async def test_a_table_taken_over_waits_for_its_broker_watches_the_away_and_is_advertised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """_run: the table starts however long its broker takes, a bot comes
    for whoever stays away STAND_IN_AFTER, and the room is advertised on
    the LAN where its broker is now (this voter's standby broker); a voter
    told not to advertise does not. Kills _run's mutants."""
    advertised: list[tuple[object, object]] = []
    advert = Advertiser()

    async def advertise(authority: object, broker: object, *, again: bool) -> Advertiser:
        advertised.append((authority, broker))
        assert not again  # the first time: a failure would be logged at warning
        return advert

    monkeypatch.setattr(failover, "advertise_taken_over", advertise)
    voter, _ = a_voter(tmp_path)
    standby = Broker()
    voter.broker = standby  # type: ignore[assignment]
    table = TableRunHere()
    await voter._run(table)  # type: ignore[arg-type]
    assert table.calls == [("start", None), ("watch_away", STAND_IN_AFTER)]
    assert advertised == [(table, standby)] and cast(object, voter.advertiser) is advert
    quiet, _ = a_voter(tmp_path / "quiet", advertise=False)
    await quiet._run(TableRunHere())  # type: ignore[arg-type]
    assert advertised == [(table, standby)] and quiet.advertiser is None


async def test_a_table_taken_over_s_advert_follows_its_phase_while_it_is_the_voter_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The LAN advert of a table taken over says when its game ends (it read
    "in play" for good: found by hand), once per change, and a closed
    room reads as over; once the advert is not this voter's (handed on,
    stepped down), the table's changes no longer touch it."""
    advert = Advertiser()

    async def advertise(authority: object, broker: object, *, again: bool) -> Advertiser:
        return advert

    monkeypatch.setattr(failover, "advertise_taken_over", advertise)
    voter, _ = a_voter(tmp_path)
    table = TableRunHere()
    run_here(voter, table)
    await voter._run(table)  # type: ignore[arg-type]
    assert advert.updates == [] and len(table.on_change) == 1  # nothing changed yet

    async def settled() -> None:
        while voter._advert_update is not None and not voter._advert_update.done():
            await asyncio.sleep(0)

    table.changed()  # a move: the advert says the same
    await settled()
    assert advert.updates == []
    table.phase = "over"
    table.changed()
    table.changed()
    await settled()
    assert advert.updates == [(0, "over")]
    table.phase = "closed"  # withdrawn later; meanwhile "over", as said
    table.changed()
    await settled()
    assert advert.updates == [(0, "over")]
    voter.advertiser = None  # handed on with the table (hand_over_table)
    table.phase, table.free_seats = "lobby", 2
    table.changed()
    await settled()
    assert advert.updates == [(0, "over")] and table.on_change == []


async def test_a_voter_closed_while_its_table_is_advertised_leaves_no_advert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """close() as the table taken over is still being advertised (mDNS
    probes for a second or more) cancels the advertising: left to finish,
    the advert of a closed table answered for the room's code for the
    process's life, and the next table's advert was refused (CI, 6
    December: the seats found the dead table on the LAN and not the live
    one). Kills the cancel in close."""
    asking = asyncio.Event()
    cancelled: list[bool] = []

    async def advertise(authority: object, broker: object, *, again: bool) -> Advertiser:
        asking.set()
        try:
            await asyncio.Event().wait()  # probing, for as long as it takes
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        raise AssertionError("never reached")

    monkeypatch.setattr(failover, "advertise_taken_over", advertise)
    voter, _ = a_voter(tmp_path)
    table = TableRunHere()
    run_here(voter, table)
    voter._running = asyncio.get_running_loop().create_task(voter._run(table))  # type: ignore[arg-type]
    await asking.wait()
    await voter.close()
    assert cancelled == [True] and voter.advertiser is None and voter._running is None


async def test_a_table_taken_over_asks_again_for_a_refused_advert_until_it_stops_being_the_room_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """_run: an advert refused (the room's code still answered for on the
    LAN) is asked for again, waiting longer each time, while the table is
    this voter's; a table closed meanwhile asks no more, and one that
    stepped down as its advert was made withdraws it."""
    waits: list[float] = []

    async def no_wait(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", no_wait)
    answers: list[Advertiser | None] = [None, None, None, Advertiser()]
    asked_again: list[bool] = []

    async def advertise(authority: object, broker: object, *, again: bool) -> Advertiser | None:
        asked_again.append(again)  # quietly logged after the first
        return answers.pop(0)

    monkeypatch.setattr(failover, "advertise_taken_over", advertise)
    voter, _ = a_voter(tmp_path)
    table = TableRunHere()
    run_here(voter, table)
    await voter._run(table)  # type: ignore[arg-type]
    assert answers == [] and voter.advertiser is not None
    first = failover.ADVERT_AGAIN_FIRST
    assert waits == [first, 2 * first, 4 * first]
    assert asked_again == [False, True, True, True]
    # Closed (no longer this voter's table): refused once, it stops there.
    waits.clear()
    answers[:] = [None, Advertiser()]
    gone, _ = a_voter(tmp_path / "gone")
    await gone._run(TableRunHere())  # type: ignore[arg-type]
    assert waits == [] and gone.advertiser is None and len(answers) == 1
    # Stepped down as it was advertised: the room is another table's.
    made = Advertiser()
    stepping = TableRunHere()

    async def advertise_as_it_steps_down(
        authority: object, broker: object, *, again: bool
    ) -> Advertiser:
        stepping.step_down(5)
        return made

    monkeypatch.setattr(failover, "advertise_taken_over", advertise_as_it_steps_down)
    late, _ = a_voter(tmp_path / "late")
    run_here(late, stepping)
    await late._run(stepping)  # type: ignore[arg-type]
    assert made.closed and late.advertiser is None


async def test_a_table_that_steps_down_withdraws_its_advert(tmp_path: Path) -> None:
    """Another table was elected: this one's advert goes (left, it answered
    for the room's code, and a person who came back was sent to a table
    that runs nothing). Kills _stepped_down's withdrawal."""
    voter, _ = a_voter(tmp_path)
    table = TableRunHere()
    run_here(voter, table)
    voter.advertiser = advert = Advertiser()  # type: ignore[assignment]
    voter._stepped_down(4)
    for _ in range(3):
        await asyncio.sleep(0)  # the withdrawal runs
    assert table.calls == [("step_down", 4)] and advert.closed and voter.advertiser is None


def logged_room() -> tuple[SavedRoom, SavedRoom]:
    """A game of three (Host, Ana, Bo) just dealt, and the room as a
    voter's log rebuilds it (no private key in it)."""
    game = room(players=3, bot_delay=0.0)
    for seat, name in enumerate(("Host", "Ana", "Bo")):
        seated(game, Identity.generate(), name=name, seat=seat)
    listen(game)
    game.start_game()
    saved = game.snapshot(BrokerChoice(False, "127.0.0.1", 1))
    base = BaseEntry(msgspec.structs.replace(saved, authority_key=NO_KEY))
    return saved, rebuild([_entry_encoder.encode(base)])


async def test_the_table_taken_over_runs_in_the_background_and_a_failure_there_is_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """_take_over hands the table it made to _run in a task of its own,
    whose failure is logged by name (never lost silently). Kills
    _take_over's spawn mutants."""
    _, logged = logged_room()
    ran: list[Authority] = []

    async def run(self: SeatVoter, authority: Authority) -> None:
        ran.append(authority)
        raise RuntimeError("no broker answers")

    monkeypatch.setattr(SeatVoter, "_run", run)
    voter, _ = a_voter(tmp_path, advertise=False)
    monkeypatch.setattr(voter.replica, "rebuild", lambda: logged)
    with caplog.at_level(logging.WARNING, logger="passe.replication"):
        voter._take_over(2)
        for _ in range(3):
            await asyncio.sleep(0)  # the task runs and fails
    assert voter.authority is not None and ran == [voter.authority]
    assert voter._running is not None and voter._running.done()  # kept, for close to cancel
    assert caplog.messages == ["the table taken over failed: no broker answers"]
    if voter.authority.table is not None:
        await voter.authority.table.stop()


async def test_a_voter_closes_the_table_it_runs_its_advert_and_its_standby_broker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """close(): mid-game the table it runs only goes away (kept: the others
    elect the next authority), its replica closes, its advert is withdrawn,
    and its standby broker stops, whether this voter started it or the
    seat's process did. Kills close's mutants."""
    started: list[Broker] = []
    patch_standby_broker(monkeypatch, started)
    for begun_by_the_seat in (False, True):
        standby_start = start_standby(CODE) if begun_by_the_seat else None
        voter, _ = a_voter(tmp_path / str(begun_by_the_seat), standby_start=standby_start)
        if not begun_by_the_seat:
            voter._standby = start_standby(CODE)
        closed: list[bool] = []

        async def close_replica(closed: list[bool] = closed) -> None:
            closed.append(True)

        monkeypatch.setattr(voter.replica, "close", close_replica)
        table = TableRunHere("playing")
        run_here(voter, table)
        voter.advertiser = advert = Advertiser()  # type: ignore[assignment]
        await voter.close()
        assert table.calls == [("close", True)] and closed == [True] and advert.closed
        assert voter.replica.driver.storage.path.exists()  # the game goes on elsewhere
    assert [broker.stopped for broker in started] == [True, True]


async def test_a_voter_closing_at_the_game_s_end_closes_the_room_and_drops_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the end the table closes as any host's does (not kept) and the
    voter file goes; an advert that fails to close stops nothing else.
    Kills close's mutants (keep's phase, the advert's suppress)."""
    started: list[Broker] = []
    patch_standby_broker(monkeypatch, started)
    voter, _ = a_voter(tmp_path, over=lambda: True)
    voter._standby = start_standby(CODE)
    table = TableRunHere("over")
    run_here(voter, table)
    voter.advertiser = Advertiser(fails=True)  # type: ignore[assignment]
    await voter.close()
    assert table.calls == [("close", False)]
    assert not voter.replica.driver.storage.path.exists()
    assert [broker.stopped for broker in started] == [True]


async def test_a_table_whose_game_is_over_is_handed_over_whole_and_the_voter_closes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """hand_over_table(): the table a voter ran, its game over, goes to its
    person's next game with its standby broker and advert (found in a
    play-test: after a failover nobody could open a next game). The voter
    then closes none of them, nor the replica (the table's next messages
    wait for its commits), nor its file; a table still in play, one that
    stepped down, or none at all is refused. Mutations: each condition, a
    part kept back, the voter closing any of them."""
    from core.engine import IllegalAction

    started: list[Broker] = []
    patch_standby_broker(monkeypatch, started)
    voter, _ = a_voter(tmp_path, over=lambda: True)
    with pytest.raises(IllegalAction, match=r"^this machine runs no table whose game is over$"):
        voter.hand_over_table()
    for phase, stepped_down in (("playing", None), ("over", 3)):
        refused = TableRunHere(phase)
        refused.stepped_down = stepped_down
        run_here(voter, refused)
        with pytest.raises(IllegalAction):
            voter.hand_over_table()
    voter._standby = start_standby(CODE)
    table = TableRunHere("over")
    table.stepped_down = None
    run_here(voter, table)
    voter.broker = broker = Broker()  # type: ignore[assignment]
    voter.advertiser = advert = Advertiser()  # type: ignore[assignment]
    closed: list[bool] = []

    async def close_replica() -> None:
        closed.append(True)

    monkeypatch.setattr(voter.replica, "close", close_replica)
    handed = voter.hand_over_table()
    handed_parts: tuple[object, ...] = (handed.authority, handed.broker, handed.advertiser)
    assert handed_parts == (table, broker, advert)  # the fakes, compared as objects
    assert voter.authority is None and voter.broker is None and voter.advertiser is None
    await voter.close()
    assert table.calls == [] and closed == [] and not advert.closed and not broker.stopped
    assert voter.replica.driver.storage.path.exists()  # the table's own, closed with it
    await asyncio.sleep(0)
    assert [b.stopped for b in started] == [False] * len(started)


async def test_a_standby_voter_starts_its_broker_beside_its_vote_and_names_it_once_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """start(): with a standby broker, its start (the one the seat's
    process began, else a new one named for the room) runs beside the
    voter's connection, and its address goes to the driver once up; a
    start that fails is logged by name. Kills start's mutants."""
    started: list[Broker] = []
    patch_standby_broker(monkeypatch, started)

    async def connected() -> None:
        return None

    voter, _ = a_voter(tmp_path, standby=True)
    monkeypatch.setattr(voter.replica, "start", connected)
    await voter.start()
    assert voter._standby is not None
    assert voter._standby.get_name() == f"room {CODE}: a standby broker"
    await voter._standby
    await asyncio.sleep(0)  # the announcement's turn
    assert cast(object, voter.broker) is started[0]
    assert voter.replica.driver.broker == ("10.0.0.2", 40_001)
    begun = start_standby(CODE)
    seat_s, _ = a_voter(tmp_path / "seat", standby=True, standby_start=begun)
    monkeypatch.setattr(seat_s.replica, "start", connected)
    await seat_s.start()
    assert seat_s._standby is begun

    async def fails(port: int = 0) -> tuple[Broker, str]:
        raise OSError("address in use")

    monkeypatch.setattr(failover, "start_standby_broker", fails)
    failing, _ = a_voter(tmp_path / "failing", standby=True)
    monkeypatch.setattr(failing.replica, "start", connected)
    with caplog.at_level(logging.WARNING, logger="passe.replication"):
        await failing.start()
        for _ in range(3):
            await asyncio.sleep(0)
    assert caplog.messages == ["this voter's standby broker failed: address in use"]
    for voter_started in (voter, seat_s, failing):
        await voter_started.close()


async def test_an_advert_asked_for_again_fails_quietly(caplog: pytest.LogCaptureFixture) -> None:
    """A table taken over asks again for a refused advert for as long as it
    runs: its first failure is a warning, the next ones debug lines (a
    machine whose multicast is blocked logged one a minute for a table's
    life otherwise)."""
    from types import SimpleNamespace

    from net.authority import host

    nowhere = SimpleNamespace(addresses=())
    with caplog.at_level(logging.DEBUG, logger="passe.host"):
        assert await host._advertise(nowhere, "passpass", "Ann") is None  # type: ignore[arg-type]
        assert await host._advertise(nowhere, "passpass", "Ann", again=True) is None  # type: ignore[arg-type]
    said = [(record.levelno, record.getMessage()) for record in caplog.records]
    assert said == [
        (logging.WARNING, "not advertised on the LAN: the broker answers at no IPv4 address"),
        (logging.DEBUG, "not advertised on the LAN: the broker answers at no IPv4 address"),
    ]
