"""``passe replay FILE [--seat N] [--step K]`` (issue 21): a moment printed
as text, and every record that does not replay refused in one line with
exit code 2, never a traceback."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.notation import GameFile, parse, write
from core.replay import Replay
from tests.core.notation_checks import played
from tui.cli import main
from tui.records import game_file


@pytest.fixture
def record(tmp_path: Path) -> Path:
    state = played("passpass", 4, False, 8)
    kept = game_file(
        state.record(), ("You", "Ada", "Bruno", "Cleo"), viewer=0, result=state.result()
    )
    path = tmp_path / "game.passe"
    path.write_text(write(kept), encoding="utf-8")
    return path


# A local game kept by Zed at seat 1 (its Viewer), as the play-tester's.
KEPT_BY_ZED = ("Zed", "Ada", "Bruno", "Cleo")
# "you", "You", "your": any word that speaks to the reader.
YOU = re.compile(r"\b(you|your)\b", re.IGNORECASE)


def kept_by_zed(tmp_path: Path, game_id: str, players: int) -> Path:
    """A finished ``game_id`` game whose record Zed (seat 1) kept."""
    state = played(game_id, players, False, 5)
    kept = game_file(state.record(), KEPT_BY_ZED[:players], viewer=0, result=state.result())
    path = tmp_path / f"{game_id}.passe"
    path.write_text(write(kept), encoding="utf-8")
    return path


def printed_log(capsys: pytest.CaptureFixture[str], path: Path, seat: str, step: int) -> str:
    """The "Log:" part of ``passe replay PATH --seat SEAT --step STEP``."""
    assert main(["replay", str(path), "--seat", seat, "--step", str(step)]) == 0
    text = capsys.readouterr().out
    return text.split("\nLog:\n", 1)[1].split("\n\nView:\n", 1)[0]


def refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """``passe replay ARGS`` exits with 2 and says why in one line on stderr."""
    assert main(["replay", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("passe: "), err
    return err


def test_a_moment_is_printed_as_text(record: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(record), "--seat", "2", "--step", "6"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Pass Pass, 4 players · step 6 of ")
    assert "seen by seat 2 (Ada)" in text.splitlines()[0]
    assert "\nLog:\n" in text and "\nView:\n" in text and "  hand: " in text
    assert "seats count from 0 here" in text  # beside "seat 2" counted from 1
    # The spectator at the end: the result, no hand of its own.
    assert main(["replay", str(record), "--seat", "spectator"]) == 0
    end = capsys.readouterr().out
    assert "seen by the spectator" in end and "Game over:" in end
    assert "  hand: []" in end
    # Only --step: the spectator's view at that step.
    assert main(["replay", str(record), "--step", "0"]) == 0
    assert "Last move: none (the deal)" in capsys.readouterr().out


@pytest.mark.parametrize(("game_id", "players"), [("passpass", 4), ("dominoes", 3), ("fashion", 4)])
def test_the_log_is_printed_as_the_seat_shown_read_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game_id: str, players: int
) -> None:
    """The rule: the log reads "you" for the seat shown and names every
    other seat, the record's keeper included; the spectator's log speaks
    to nobody ("you" nowhere). A play-tester's: seat 2's view of Zed's
    game read "You play 3-6 on the left." for Zed's move, and the
    spectator's "You placed a bid." and "Game over. Scores: you 5"."""
    path = kept_by_zed(tmp_path, game_id, players)
    steps = Replay(parse(path.read_text(encoding="utf-8"))).steps
    names = KEPT_BY_ZED[:players]
    for step in (steps // 2, steps):
        for seat in range(players):
            log = printed_log(capsys, path, str(seat + 1), step)
            # That seat read itself as "you", never by its name...
            assert YOU.search(log) and names[seat] not in log, (step, seat, log)
            # ...and everyone else by name: Zed too, in the others' views.
            for other in range(players):
                if other != seat:
                    assert names[other] in log, (step, seat, names[other], log)
        log = printed_log(capsys, path, "spectator", step)
        assert YOU.search(log) is None, (step, log)
        assert all(name in log for name in names), (step, log)


def test_bad_arguments_and_bad_files_are_one_line_and_exit_2(
    record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "no such file" in refused(capsys, str(tmp_path / "nothing.passe"))
    assert "not a regular file" in refused(capsys, str(tmp_path))
    assert "--seat 5: this game has seats 1 to 4" in refused(capsys, str(record), "--seat", "5")
    assert "a seat number" in refused(capsys, str(record), "--seat", "north")
    steps = Replay(GameFile(played("passpass", 4, False, 8).record())).steps
    assert f"this game has {steps} moves" in refused(capsys, str(record), "--step", str(steps + 1))
    with pytest.raises(SystemExit) as exited:
        main(["replay", str(record), "--step", "-1"])
    assert exited.value.code == 2
    assert "0 (the deal) or more" in capsys.readouterr().err
    text = record.read_text(encoding="utf-8")
    cases = {
        "wrong.passe": (text.replace('"passpass"', '"chess"', 1), "line 2: unknown game 'chess'"),
        "seat.passe": (text.replace("\n1. ", "\n1. 5: V1\n2. ", 1), "no seat 5 among 4"),
        "cut.passe": (text[: len(text) // 2], "line "),
        "escape.passe": (text.replace('"Ada"', '"\\u001b[2JAda"', 1), "control or format"),
        "big.passe": (text + ";" * 600_000, "larger than 512 KiB"),
    }
    for name, (content, what) in cases.items():
        path = tmp_path / name
        path.write_text(content, encoding="utf-8")
        said = refused(capsys, str(path))
        assert what in said, (name, said)
        assert said[:-1].isprintable()
    moves = text.split("\n\n", 1)[1].split("\n")
    first, second = moves[0].split(": ", 1)[1], moves[1].split(": ", 1)[1]
    swapped = text.replace(f": {first}\n", ": @@\n", 1).replace(f": {second}\n", f": {first}\n", 1)
    swapped = swapped.replace(": @@\n", f": {second}\n", 1)
    (tmp_path / "swapped.passe").write_text(swapped, encoding="utf-8")
    assert "move 1 (seat" in refused(capsys, str(tmp_path / "swapped.passe"))
    seat = moves[0].split(". ", 1)[1].split(":")[0]
    other = str(int(seat) % 4 + 1)
    turn = text.replace(f"\n1. {seat}: ", f"\n1. {other}: ", 1)
    (tmp_path / "turn.passe").write_text(turn, encoding="utf-8")
    said = refused(capsys, str(tmp_path / "turn.passe"))
    assert f"move 1 (seat {other}: " in said and f"it is not seat {other}'s turn" in said


def test_a_real_process_refuses_a_damaged_record_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "damaged.passe"
    path.write_bytes(b'[Format "passe/1"]\n[Game "passpass"]\n[Seed "1"]\n\xff\n')
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == f"passe: {path}: line 4: not UTF-8 text\n"
    assert done.stdout == ""
