"""A dealer in this process (net/dealer/service.py) on a real broker: what
it spends on rooms nobody comes to, and on its status file."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from net.dealer import service
from net.dealer.client import RoomDealt, ask_dealer
from net.dealer.messages import Deal
from net.dealer.service import STATUS_FILE, Dealer
from net.identity import Identity, fingerprint
from net.peer.remote import RemoteTable
from tests.net.brokers import broker_at

DEADLINE = 20.0


class Events:
    """A dealer's events as they come, and a wait for one."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.changed = asyncio.Event()

    def __call__(self, kind: str, **fields: Any) -> None:
        self.seen.append((kind, fields))
        self.changed.set()

    async def until(self, kind: str, **fields: Any) -> dict[str, Any]:
        async with asyncio.timeout(DEADLINE):
            while True:
                for seen_kind, seen in self.seen:
                    if seen_kind == kind and all(seen.get(k) == v for k, v in fields.items()):
                        return seen
                self.changed.clear()
                await self.changed.wait()


async def test_a_room_nobody_sits_in_closes_long_before_the_lobby_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An asker that never takes its seat (it gave up, or never had the
    answer): the room closes after FIRST_SEAT_WAIT, says why, and gives the
    asker's lobby back, instead of holding its place for LOBBY_TIMEOUT."""
    monkeypatch.setattr(service, "FIRST_SEAT_WAIT", 0.5)
    events = Events()
    async with broker_at("mosquitto") as (host, port):
        dealer = Dealer(
            Identity.generate(),
            "D",
            host,
            port,
            advertise=False,
            state_dir=tmp_path,
            on_event=events,
        )
        await dealer.start()
        try:
            asker = Identity.generate()
            dealt = await ask_dealer(asker, host, port, Deal(1, "dominoes", 2, "Eve"))
            closed = await events.until("closed", code=dealt.code)
            assert closed["why"].startswith("nobody sat in ")
            assert dealt.code not in dealer.rooms
            assert dealer._lobbies == {}  # the asker may ask again
        finally:
            await dealer.stop()


async def test_the_status_file_is_written_at_most_once_an_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thousand changes in a row (seats taken in many rooms at once): one
    write at once, then one more with all of them, not a thousand writes of
    a file that names every room."""
    writes: list[float] = []
    real_write = Dealer._write_status

    def counted(self: Dealer, *, running: bool = True) -> None:
        writes.append(asyncio.get_running_loop().time())
        real_write(self, running=running)

    monkeypatch.setattr(Dealer, "_write_status", counted)
    dealer = Dealer(Identity.generate(), "D", "127.0.0.1", 1, advertise=False, state_dir=tmp_path)
    for _ in range(1000):
        dealer._status_soon()
    await asyncio.sleep(0)  # the first write: at once, after a quiet while
    assert len(writes) == 1
    dealer.max_rooms = 7  # a change after that write
    dealer._status_soon()
    async with asyncio.timeout(DEADLINE):
        while len(writes) < 2:
            await asyncio.sleep(service.STATUS_INTERVAL / 5)
    assert writes[1] - writes[0] >= service.STATUS_INTERVAL * 0.99
    assert json.loads((tmp_path / STATUS_FILE).read_text())["max_rooms"] == 7
    for _ in range(5):  # and nothing more is pending
        await asyncio.sleep(service.STATUS_INTERVAL / 2)
    assert len(writes) == 2


async def crashed_with_a_lobby(tmp_path: Path, host: str, port: int) -> tuple[Dealer, RoomDealt]:
    """A dealer with its files in ``tmp_path`` that dealt a room and went
    away leaving it on disk, as a SIGKILL does (its room's file and record);
    the dealer (stopped) and what it dealt."""
    first = Dealer(Identity.generate(), "D", host, port, advertise=False, state_dir=tmp_path)
    await first.start()
    try:
        dealt = await ask_dealer(Identity.generate(), host, port, Deal(1, "dominoes", 2, "Eve"))
        room = first.rooms.pop(dealt.code)
        assert room.hosted is not None and room.task is not None
        room.task.cancel()
        await room.hosted.close(keep=True)  # what a SIGKILL leaves on disk
    finally:
        await first.stop()
    return first, dealt


@contextlib.asynccontextmanager
async def started_again(
    first: Dealer, host: str, port: int, state_dir: Path, events: Events
) -> AsyncIterator[Dealer]:
    """``first``'s dealer started again on the files it left, its kept rooms
    taken up (resume_kept); stopped at the end."""
    again = Dealer(
        first.identity, "D", host, port, advertise=False, state_dir=state_dir, on_event=events
    )
    await again.start()
    try:
        await again.resume_kept()
        yield again
    finally:
        await again.stop()


async def test_a_lobby_left_by_a_dealer_s_crash_is_closed_when_it_starts_again(
    tmp_path: Path,
) -> None:
    """A dealer's process ended with a room in its lobby (its files left as
    a crash leaves them): started again with the same files, it does not
    run the lobby (its asker's wait is gone) but closes it, telling anyone
    who sat, and removes its files; the room file was in the dealer's own
    directory, never among the person's rooms."""
    events = Events()
    async with broker_at("mosquitto") as (host, port):
        first, dealt = await crashed_with_a_lobby(tmp_path, host, port)
        rooms = tmp_path / "rooms"
        assert (rooms / f"{dealt.code}.room").exists() and (rooms / f"{dealt.code}.deal").exists()
        async with started_again(first, host, port, tmp_path, events) as again:
            closed = await events.until("closed", code=dealt.code)
            assert "lobby" in closed["why"]
            assert dealt.code not in again.rooms
            async with asyncio.timeout(DEADLINE):
                while list(rooms.glob(f"{dealt.code}.*")):
                    await asyncio.sleep(0.05)  # the close tells those who sat, then removes


def test_a_damaged_or_foreign_kept_record_is_set_aside_with_a_reason(tmp_path: Path) -> None:
    from net.dealer.kept import KEPT_VERSION, KeptRoom, keep, kept_rooms

    keep(tmp_path, KeptRoom(KEPT_VERSION, "ABCDEF", "Eve", ["a" * 16], 30.0))
    (tmp_path / "BROKEN.deal").write_bytes(b"\x00not json")
    (tmp_path / "OTHER1.deal").write_text(
        '{"version": 1, "code": "../../x", "asker": "M", "admit": [], "stand_in_after": 0}'
    )
    (tmp_path / "HUGE01.deal").write_bytes(b" " * (1 << 20))
    (tmp_path / "FUTURE.deal").write_text(
        '{"version": 9, "code": "FUTURE", "asker": "M", "admit": [], "stand_in_after": 0}'
    )
    rooms, problems = kept_rooms(tmp_path)
    assert [room.code for room in rooms] == ["ABCDEF"] and rooms[0].admit == ["a" * 16]
    assert len(problems) == 4, problems
    assert any("names room '../../x'" in p for p in problems)
    assert any("version 9" in p for p in problems)
    assert sorted(path.name for path in tmp_path.glob("*.bad")) == [
        "BROKEN.deal.bad",
        "FUTURE.deal.bad",
        "HUGE01.deal.bad",
        "OTHER1.deal.bad",
    ]


async def test_the_asker_of_a_dealer_s_room_lets_people_in_from_their_seat(
    tmp_path: Path,
) -> None:
    """On screen, `passe host --dealer` names the person's player key as the
    room's owner (issue 20; docs/protocol.md section 14): through a real
    broker, the owner sits at once, a stranger knocks, the owner is told
    and lets them in from their seat; the one they turn away never sits."""
    from net.peer.remote import JoinError

    async with broker_at("mosquitto") as (host, port):
        dealer = Dealer(Identity.generate(), "D", host, port, advertise=False, state_dir=tmp_path)
        await dealer.start()
        ana, ben, eve = Identity.generate(), Identity.generate(), Identity.generate()
        tables: list[RemoteTable] = []
        try:
            deal = Deal(1, "dominoes", 3, "Ana", owner=ana.public_key)
            dealt = await ask_dealer(Identity.generate(), host, port, deal)
            tables = tables_of(dealt.code, host, port, (ana, "Ana"), (ben, "Ben"), (eve, "Eve"))
            owner, bens, eves = tables
            assert await owner.join() == 0  # no knock for the owner
            knocking: list[list[str]] = []
            changed = asyncio.Event()

            def told(knocks: list[Any]) -> None:
                knocking.append([knock.name for knock in knocks])
                changed.set()

            owner.on_waiting(told)
            ben_joins = asyncio.create_task(bens.join())
            async with asyncio.timeout(DEADLINE):
                while ["Ben"] not in knocking:
                    changed.clear()
                    await changed.wait()
            owner.admit(ben.public_key, yes=True)
            assert await asyncio.wait_for(ben_joins, DEADLINE) in (1, 2)
            eve_joins = asyncio.create_task(eves.join())
            async with asyncio.timeout(DEADLINE):
                while not (knocking and knocking[-1] == ["Eve"]):
                    changed.clear()
                    await changed.wait()
            owner.admit(eve.public_key, yes=False)
            with pytest.raises(JoinError, match="did not let you in"):
                await asyncio.wait_for(eve_joins, DEADLINE)
            assert eve.public_key not in [
                slot.key for slot in dealer.rooms[dealt.code].authority.seats
            ]
        finally:
            for table in tables:
                await table.close()
            await dealer.stop()


async def test_the_asker_leaving_their_lobby_closes_the_room_and_its_knocks_hear_it(
    tmp_path: Path,
) -> None:
    """By hand (6 December): the asker of a dealer's room left its lobby
    (q); the room stayed open, and a knock on it waited for the lobby's
    timeout (fifteen minutes) with nobody left to answer it. Now the room
    closes, as a hosted room does when its host leaves: the knocking join
    is refused at once, the final state says why, the dealer lets it go."""
    from net.peer.remote import JoinError, RemoteTable

    async with broker_at("mosquitto") as (host, port):
        dealer = Dealer(Identity.generate(), "D", host, port, advertise=False, state_dir=tmp_path)
        await dealer.start()
        ana, ben = Identity.generate(), Identity.generate()
        tables: list[RemoteTable] = []
        try:
            dealt = await ask_dealer(
                Identity.generate(), host, port, Deal(1, "dominoes", 3, "Ana", owner=ana.public_key)
            )
            owner, bens = tables = [
                RemoteTable(ana, dealt.code, host, port, "Ana"),
                RemoteTable(ben, dealt.code, host, port, "Ben"),
            ]
            assert await owner.join() == 0
            knocked = asyncio.Event()
            owner.on_waiting(lambda knocks: knocked.set() if knocks else None)
            ben_joins = asyncio.create_task(bens.join())
            await asyncio.wait_for(knocked.wait(), DEADLINE)
            assert owner.owns_room and not bens.owns_room  # the leave dialog's words
            await owner.leave()
            with pytest.raises(JoinError, match="closed"):
                await asyncio.wait_for(ben_joins, DEADLINE)
            assert bens.room is not None and bens.room.phase == "closed"
            assert bens.room.notice == "Ana, who asked for this room, left: it is closed"
            async with asyncio.timeout(DEADLINE):
                while dealt.code in dealer.rooms:
                    await asyncio.sleep(0.05)
        finally:
            for table in tables:
                await table.close()
            await dealer.stop()


async def test_a_room_whose_voter_file_says_it_fails_over_is_never_resumed(
    tmp_path: Path,
) -> None:
    """A dealer killed between its game's start (its voter file made: other
    dealers hold the room) and its record saying so: started again, it
    must not run that table a second time."""
    import msgspec

    from core.registry import get_game
    from net.authority.replication import maker_vote_path
    from net.authority.rooms import SavedSeat, load_room, write_room

    events = Events()
    async with broker_at("mosquitto") as (host, port):
        first, dealt = await crashed_with_a_lobby(tmp_path, host, port)
        rooms = tmp_path / "rooms"
        path = rooms / f"{dealt.code}.room"
        level = sorted(get_game("dominoes").bots)[0]
        bots = [SavedSeat(f"Bot {n}", "bot", level, None) for n in (1, 2)]
        write_room(path, msgspec.structs.replace(load_room(path), phase="playing", seats=bots))
        vote = maker_vote_path(dealt.code, first.identity, rooms)
        vote.write_bytes(b"a voter file")
        async with started_again(first, host, port, tmp_path, events) as again:
            closed = await events.until("closed", code=dealt.code)
            assert "other dealers hold it" in closed["why"]
            assert dealt.code not in again.rooms
            assert not list(rooms.glob(f"{dealt.code}*"))
            # Its voter file is kept among the rooms it holds: it votes and
            # stands there again (resume_held), never runs its old table.
            assert (tmp_path / "held" / vote.name).read_bytes() == b"a voter file"


async def test_a_held_room_whose_game_ended_meanwhile_is_let_go_and_strange_files_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started again, a dealer votes again in the rooms it held for others
    and in those it made whose tables moved (its voter files in its own
    directory). One whose authority is never heard (its game ended while
    this dealer was away, its release sent then) is let go after
    REHOLD_WAIT, its file removed; a voter file that is not one of a room
    held here (damaged, a bad code, a config that does not name this
    dealer) is removed at once."""
    from net.election.driver import FileStorage, first_persisted
    from net.election.messages import Voter
    from net.election.shares import make_config
    from net.peer.failover import voter_file
    from net.protocol.codes import new_code

    monkeypatch.setattr(service, "REHOLD_WAIT", 0.5)
    me, maker, player = Identity.generate(), Identity.generate(), Identity.generate()
    held_dir = tmp_path / "held"
    held_dir.mkdir()

    def voter_file_for(config_maker: Identity, voters: list[Voter], term: int = 1) -> Path:
        config, _ = make_config(config_maker, voters)
        path = voter_file(new_code(), me, held_dir)
        first = first_persisted(config, config_maker.public_key)
        FileStorage.create(path, dataclasses.replace(first, term=term, voted_for=None))
        return path

    dealers = [Voter(me.public_key, True), Voter(maker.public_key, True)]
    # Its file's term (5): the voter runs on from that file, not a new one
    # (a new one would forget its vote in the term: a second vote in it).
    ended = voter_file_for(maker, [*dealers, Voter(player.public_key, False)], term=5)
    not_named = voter_file_for(maker, [dealers[1], Voter(player.public_key, False)])
    made_here = voter_file_for(me, dealers)
    damaged = voter_file(new_code(), me, held_dir)
    damaged.write_bytes(b"\x00not a voter file")
    bad_code = held_dir / f"A+#B/C-{me.peer_id}.vote".replace("/", "")
    bad_code.write_bytes(ended.read_bytes())
    someone_else_s = voter_file(new_code(), player, held_dir)
    someone_else_s.write_bytes(ended.read_bytes())
    code, made_code = ended.name.split("-")[0], made_here.name.split("-")[0]
    events = Events()
    async with broker_at("mosquitto") as (host, port):
        dealer = Dealer(me, "D", host, port, advertise=False, state_dir=tmp_path, on_event=events)
        await dealer.start()
        try:
            await dealer.resume_held()
            assert set(dealer.held) == {code, made_code}
            # Its status names the dealer each room is held for (found by
            # hand: nothing did); one never seen online, by its key.
            held_for = {room["code"]: room.get("for") for room in dealer.status()["rooms"]}
            assert held_for == {
                code: f"dealer {fingerprint(maker.public_key)}",
                made_code: "dealer D",
            }
            assert (await events.until("holds_again", code=code))["term"] == 5
            for path in (not_named, damaged, bad_code):
                assert not path.exists(), path
            assert someone_else_s.exists()  # not this dealer's: not read
            let_go = await events.until("let_go", code=code)
            assert "no authority was heard" in let_go["why"]
            await events.until("let_go", code=made_code)
            assert dealer.held == {} and not ended.exists() and not made_here.exists()
        finally:
            await dealer.stop()


def test_the_status_says_each_room_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`passe dealer --status` of a running dealer: a room it holds for
    another dealer names that dealer (it said "holds playing term 1 for",
    the line cut short), and counts are words ("1 room", not "1 room(s)").
    Found by hand."""
    import os

    from tui.dealer_cli import print_status

    monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path))
    (tmp_path / "dealer").mkdir()
    status: dict[str, Any] = {
        "pid": os.getpid(),  # a live process: "running"
        "running": True,
        "name": "DY",
        "key": "e755-3935-75ca-25bf",
        "broker": "127.0.0.1:1883",
        "since": 0,
        "max_rooms": 200,
        "dealers": ["DX"],
        "rooms": [
            {"code": "NJ3842", "role": "holds", "term": 1, "phase": "playing", "for": "dealer DX"}
        ],
    }
    (tmp_path / "dealer" / STATUS_FILE).write_text(json.dumps(status), encoding="utf-8")
    assert print_status(as_json=False) == 0
    out = capsys.readouterr().out
    assert "1 room of at most 200" in out, out
    assert "NJ3842  holds  playing  term 1  for dealer DX" in out, out
    assert "Shares its rooms" not in out and "Trusts no" not in out  # a status of before
    for trusts, said in (
        (0, "Trusts no other dealer (--trust): its rooms wait for it if it stops"),
        (2, "Shares its rooms with 2 trusted dealers (--trust)"),
    ):
        (tmp_path / "dealer" / STATUS_FILE).write_text(
            json.dumps({**status, "trusts": trusts}), encoding="utf-8"
        )
        print_status(as_json=False)
        assert said in capsys.readouterr().out
    status["rooms"] *= 2
    (tmp_path / "dealer" / STATUS_FILE).write_text(json.dumps(status), encoding="utf-8")
    print_status(as_json=False)
    out = capsys.readouterr().out
    assert "2 rooms of at most 200" in out and "(s)" not in out, out
    assert not any(line.rstrip().endswith(" for") for line in out.splitlines()), out
    # Stopped: what it held and ran is its last word, said as such.
    status["running"] = False
    (tmp_path / "dealer" / STATUS_FILE).write_text(json.dumps(status), encoding="utf-8")
    assert print_status(as_json=False) == 1
    out = capsys.readouterr().out
    assert "not running" in out and "When it stopped: 2 rooms of at most 200" in out, out


def test_the_status_of_no_dealer_as_json_is_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A play-test (6 December): `passe dealer --status --json` where no
    dealer ever ran printed a sentence, which a script cannot read."""
    from tui.dealer_cli import print_status

    monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path))
    assert print_status(as_json=True) == 1
    assert json.loads(capsys.readouterr().out) == {"running": False, "rooms": [], "kept": []}
    assert print_status(as_json=False) == 1
    assert capsys.readouterr().out.startswith("No dealer has run with this data directory")


async def owner_lets_in(owner: RemoteTable, guest: RemoteTable) -> int:
    """The owner of a dealer's room sits (no knock for them), the guest
    knocks and the owner lets them in: the guest's seat."""
    from tests.net.peers import until

    assert await owner.join() == 0
    joining = asyncio.create_task(guest.join())
    await until(lambda: any(knock.name == guest.name for knock in owner.waiting))
    owner.admit(guest.identity.public_key, yes=True)
    return await asyncio.wait_for(joining, DEADLINE)


def tables_of(code: str, host: str, port: int, *people: tuple[Identity, str]) -> list[RemoteTable]:
    """Each person's table in room ``code``, not joined yet."""
    return [RemoteTable(key, code, host, port, name) for key, name in people]


async def play_out(*tables: RemoteTable, seed: int = 1) -> None:
    """Every table's seat played by a random bot to the game's end."""
    from net.peer.headless import play_with_bot

    plays = (play_with_bot(table, "random", seed=seed + n) for n, table in enumerate(tables))
    await asyncio.wait_for(asyncio.gather(*plays), DEADLINE * 3)


async def next_game(owner: RemoteTable, *others: RemoteTable) -> str:
    """The owner asks for the next game at the table: its code, once every
    table heard of it (the same for all)."""
    from tests.net.peers import until

    owner.ask_next_game()
    await until(lambda: all(table.next_code is not None for table in (owner, *others)))
    code = owner.next_code
    assert code is not None and all(table.next_code == code for table in others)
    return code


@dataclasses.dataclass
class OwnedRoom:
    """A dealer's room asked for on screen by Ana (its owner), with Ana's
    and Ben's tables (not joined yet); ``tables`` are closed at the end."""

    dealer: Dealer
    code: str
    owner: RemoteTable
    other: RemoteTable
    tables: list[RemoteTable]


@contextlib.asynccontextmanager
async def owned_room(tmp_path: Path, players: int, **deal: Any) -> AsyncIterator[OwnedRoom]:
    """A dealer on a Mosquitto of its own (its bots play at once) deals
    dominoes for ``players`` as ``deal`` says, owned by Ana."""
    async with broker_at("mosquitto") as (host, port):
        dealer = Dealer(
            Identity.generate(), "D", host, port, advertise=False, state_dir=tmp_path, bot_delay=0
        )
        await dealer.start()
        ana, ben = Identity.generate(), Identity.generate()
        tables: list[RemoteTable] = []
        try:
            asked = Deal(1, "dominoes", players, "Ana", owner=ana.public_key, **deal)
            dealt = await ask_dealer(Identity.generate(), host, port, asked)
            tables += tables_of(dealt.code, host, port, (ana, "Ana"), (ben, "Ben"))
            owner, other = tables
            yield OwnedRoom(dealer, dealt.code, owner, other, tables=tables)
        finally:
            for table in tables:
                await table.close()
            await dealer.stop()


async def both_follow(
    owner: RemoteTable, other: RemoteTable, other_seat: int, tables: list[RemoteTable]
) -> None:
    """The owner and the other person follow the table to its next room, by
    the keys that hold their seats (no knock), and its game starts (added
    to ``tables``, to close)."""
    again_owner, again_other = owner.next_table(), other.next_table()
    tables += [again_owner, again_other]
    assert await asyncio.wait_for(again_other.join(), DEADLINE) == other_seat
    assert await asyncio.wait_for(again_owner.join(), DEADLINE) == 0
    await asyncio.wait_for(again_owner.wait_started(), DEADLINE)


async def test_the_owner_of_a_dealer_s_room_opens_the_next_game_at_its_table(
    tmp_path: Path,
) -> None:
    """A dealer's room has a next game as a host's does (it had none: found
    by hand): once its game is over, its owner's ``Again`` has the dealer
    open it, announced on the old room, with the same room key and seats;
    the others follow by the key that holds their seat, without knocking.
    An ``Again`` before the end, or from anyone but the owner, is refused
    in words and opens nothing."""
    from net.authority.table import TableUpdate
    from tests.net.peers import until

    async with owned_room(tmp_path, 3, wait_for=2, bots="random") as room:
        owner, bens = room.owner, room.other
        ben_seat = await owner_lets_in(owner, bens)
        await owner.wait_started()
        refusals: list[str] = []

        def heard(update: TableUpdate) -> None:
            if update.rejected is not None:
                refusals.append(update.rejected)

        await bens.connect(heard)
        bens.ask_next_game()  # not the owner
        await until(lambda: len(refusals) == 1)
        assert "only the person who asked for room" in refusals[0]
        await owner.connect(heard)
        owner.ask_next_game()  # the owner, but the game is on
        await until(lambda: len(refusals) == 2)
        assert refusals[1] == "the game is not over"
        await play_out(owner, bens)
        await bens.connect(heard)
        bens.ask_next_game()  # still not the owner, the game over
        await until(lambda: len(refusals) == 3)
        assert "only the person who asked" in refusals[2] and bens.next_code is None
        old = room.dealer.rooms[room.code].authority
        code = await next_game(owner, bens)
        assert code != room.code
        await until(lambda: code in room.dealer.rooms)  # announced as it opens
        following = room.dealer.rooms[code].authority
        # The same room key (pinned by its people), the same seats and owner.
        assert following.identity.public_key == old.identity.public_key
        assert following.owner == owner.identity.public_key
        assert [slot.kind for slot in following.seats] == [slot.kind for slot in old.seats]
        await both_follow(owner, bens, ben_seat, room.tables)  # filled as the first: 2 and a bot
        # Its dealer named, and signed for the new code (the key is the same).
        for table in room.tables[-2:]:
            assert table.room is not None and table.room.dealer == "D"
            assert table.room.dealer_key == room.dealer.identity.public_key
            assert table.unproven_dealer == ""
        await until(lambda: room.code not in room.dealer.rooms)  # the old room goes


async def test_the_owner_of_a_dealer_s_room_starts_it_before_everyone_came(
    tmp_path: Path,
) -> None:
    """A dealer's room waits for every seat's person unless asked with
    --wait-for; its owner now starts it sooner, as a host's s does: bots
    take the empty seats. Anyone else's StartNow is refused and starts
    nothing."""
    from tests.net.peers import until

    async with owned_room(tmp_path, 4, bots="random") as room:
        owner, bens = room.owner, room.other
        await owner_lets_in(owner, bens)
        # Ben's StartNow: refused (in the lobby a seat has no view to
        # carry the words: the authority's count of its refusals says it).
        authority = room.dealer.rooms[room.code].authority
        bens.ask_start()
        await until(lambda: authority._floods.counts.get("refused-denied", 0) >= 1)
        assert authority.phase == "lobby"
        owner.ask_start()
        await asyncio.wait_for(owner.wait_started(), DEADLINE)
        kinds = [slot.kind for slot in authority.seats]
        assert kinds.count("human") == 2 and kinds.count("bot") == 2
        owner.ask_start()  # started already: nothing changes
        await asyncio.wait_for(bens.wait_started(), DEADLINE)
        assert [slot.kind for slot in authority.seats] == kinds


async def test_a_dealer_s_room_over_waits_for_its_owner_a_while_then_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A room whose game is over stays for its owner's Again at most
    NEXT_GAME_WAIT, then closes: its people see its table go, and its place
    at the dealer is given back."""
    from net.peer.headless import play_with_bot
    from tests.net.peers import until

    monkeypatch.setattr(service, "NEXT_GAME_WAIT", 0.5)
    async with broker_at("mosquitto") as (host, port):
        dealer = Dealer(
            Identity.generate(), "D", host, port, advertise=False, state_dir=tmp_path, bot_delay=0
        )
        await dealer.start()
        ana = Identity.generate()
        table: RemoteTable | None = None
        try:
            deal = Deal(1, "dominoes", 2, "Ana", wait_for=1, bots="random", owner=ana.public_key)
            dealt = await ask_dealer(Identity.generate(), host, port, deal)
            table = RemoteTable(ana, dealt.code, host, port, "Ana")
            assert await table.join() == 0
            await asyncio.wait_for(play_with_bot(table, "random", seed=4), DEADLINE)
            assert dealt.code in dealer.rooms  # over, and waiting for Ana's word
            await until(lambda: dealt.code not in dealer.rooms)
            # Its table goes: the seats' game-over screens say so.
            await until(lambda: table is not None and not table.host_present)
            assert dealer.busy == 0
        finally:
            if table is not None:
                await table.close()
            await dealer.stop()


async def test_the_owner_opens_the_next_game_at_a_table_another_dealer_took_over(
    tmp_path: Path,
) -> None:
    """A dealer's room whose table moved to another dealer (the first one
    stopped mid-game and handed it on) still has its owner: how the room
    was asked for travels in its replicated log, so the owner's ``Again``
    has the new dealer open the next game, with the same room key, the
    same rule for who sits and the same owner. Before, the dealer that
    took the table over knew no owner and refused every next game."""
    from tests.net.peers import until

    async with broker_at("mosquitto") as (host, port):
        keys = [Identity.generate(), Identity.generate()]
        first, second = (
            Dealer(
                key,
                name,
                host,
                port,
                advertise=False,
                state_dir=tmp_path / name,
                bot_delay=0,
                # Each trusts the other (--trust): they share rooms.
                trusted=frozenset({other.peer_id}),
            )
            for key, other, name in ((keys[0], keys[1], "D1"), (keys[1], keys[0], "D2"))
        )
        await first.start()
        await second.start()
        stopped: list[Dealer] = []
        ana, ben = Identity.generate(), Identity.generate()
        tables: list[RemoteTable] = []
        try:
            # The first dealer names the second a holder of its rooms once it
            # has seen it online.
            await until(lambda: second.identity.public_key in first.dealers)
            deal = Deal(1, "dominoes", 3, "Ana", wait_for=2, bots="random", owner=ana.public_key)
            dealt = await ask_dealer(Identity.generate(), host, port, deal)
            tables = tables_of(dealt.code, host, port, (ana, "Ana"), (ben, "Ben"))
            owner, bens = tables
            ben_seat = await owner_lets_in(owner, bens)
            await owner.wait_started()
            await until(lambda: dealt.code in second.held)
            await first.stop()  # hands the table to the second dealer
            stopped.append(first)
            await until(lambda: dealt.code in second.rooms)
            taken = second.rooms[dealt.code]
            assert taken.taken and taken.authority.owner == ana.public_key
            assert taken.authority.admission == "ask"
            key = taken.authority.identity.public_key  # this term's: its people follow it
            await play_out(owner, bens)
            code = await next_game(owner, bens)
            assert code != dealt.code
            await until(lambda: code in second.rooms)
            following = second.rooms[code].authority
            assert following.identity.public_key == key
            assert following.owner == ana.public_key and following.admission == "ask"
            await both_follow(owner, bens, ben_seat, tables)  # filled as the first: 2 and a bot
            await until(lambda: dealt.code not in second.rooms)  # the old room goes
        finally:
            for table in tables:
                await table.close()
            for dealer in (first, second):
                if dealer not in stopped:
                    await dealer.stop()


async def test_a_next_game_after_an_early_start_waits_only_for_its_people(
    tmp_path: Path,
) -> None:
    """A room asked for every seat's person, started early by its owner (a
    bot took the seat nobody came for): its next game keeps that bot and
    starts once its two people are back. It waited for a third person, who
    had no seat to take (found by hand: "D2 starts the game when enough
    people sit", with everyone there)."""

    async with owned_room(tmp_path, 3, bots="random") as room:
        owner, bens = room.owner, room.other
        ben_seat = await owner_lets_in(owner, bens)
        owner.ask_start()
        await asyncio.wait_for(owner.wait_started(), DEADLINE)
        await play_out(owner, bens, seed=3)
        code = await next_game(owner, bens)
        await both_follow(owner, bens, ben_seat, room.tables)  # nobody said start
        kinds = [slot.kind for slot in room.dealer.rooms[code].authority.seats]
        assert sorted(kinds) == ["bot", "human", "human"]
