"""The ``passe`` command line: version, simulate, and one-line errors (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tui.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_version() -> None:
    done = run("--version")
    assert done.returncode == 0
    assert done.stdout.startswith("passe ")


def test_simulate_prints_one_json_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "simulate",
            "passpass",
            "--players",
            "4",
            "--games",
            "5",
            "--seed",
            "1",
            "--bots",
            "heuristic,random,random,random",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    for key in (
        "game",
        "players",
        "teams",
        "games",
        "wins",
        "shared",
        "mean_scores",
        "mean_actions",
        "immediate_victories",
        "seconds",
    ):
        assert key in data
    assert data["games"] == 5 and len(data["wins"]) == 4 and len(data["mean_scores"]) == 4
    assert sum(data["wins"]) >= 5


def test_simulate_into_a_reader_that_left_ends_without_a_traceback() -> None:
    """`passe simulate ... | head -c 100`: the reader closed its end before
    the summary came (found by hand: a BrokenPipeError traceback)."""
    args = ["simulate", "dominoes", "--players", "2", "--games", "3", "--seed", "1"]
    process = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    process.stdout.close()  # before anything was written: the write fails
    _, errors = process.communicate(timeout=120)
    assert process.returncode == 0 and errors == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "chess", "--players", "4"], "unknown game 'chess'"),
        (["simulate", "passpass", "--players", "2"], "3 to 5 players, or 4 or 6 in teams"),
        (["simulate", "passpass", "--players", "7"], "3 to 5 players, or 4 or 6 in teams"),
        (["simulate", "dominoes", "--players", "5"], "2 to 4 players, or 4 in teams"),
        (["simulate", "fashion", "--players", "9"], "for 2 to 8 players"),
        (["simulate", "passpass", "--players", "6"], "teams only"),
        (
            ["simulate", "passpass", "--players", "4", "--bots", "foo,random,random,random"],
            "unknown bot 'foo'",
        ),
        (["simulate", "passpass", "--players", "4", "--bots", "random,random"], "one per seat"),
        (["simulate", "passpass", "--players", "five"], "invalid int value"),
        (["simulate", "passpass", "--players", "3", "--teams"], "4 or 6 players"),
        (["bogus"], "invalid choice"),
        (["simulate", "fashion", "--players", "3", "--option", "payment=all"], "payment"),
        (["simulate", "fashion", "--players", "3", "--option", "colour"], "KEY=VALUE"),
        (
            ["simulate", "dominoes", "--players", "3", "--option", "speed=2"],
            "unknown option: speed; the options are: target",
        ),
        (
            ["simulate", "passpass", "--players", "4", "--option", "diamonds=x"],
            "separated by commas (e.g. diamonds=1,2,3)",
        ),
        (
            ["simulate", "passpass", "--players", "4", "--option", "diamonds=1,2"],
            "12 whole numbers",
        ),
        (
            ["join", "ABC-DEF@127.0.0.1:1", "--bot", "random", "--bot-delay", "-1"],
            "--bot-delay: -1 seconds: choose between 0 and 60",
        ),
        (
            ["join", "ABC-DEF@127.0.0.1:1", "--bot", "random", "--bot-delay", "nan"],
            "--bot-delay: nan seconds: choose between 0 and 60",
        ),
        # Found by hand (5 December): a host took these, then failed its
        # link four times with msgpack's words, or played at once (nan).
        (["host", "passpass", "--headless", "--bot-delay", "nan"], "nan seconds: choose"),
        (["host", "passpass", "--headless", "--bot-delay", "-1"], "-1 seconds: choose"),
        (["play", "--bot-delay", "inf"], "inf seconds: choose between 0 and 60"),
        (
            ["host", "passpass", "--headless", "--seed", "9" * 30],
            "a seed is a whole number from 0 to 9223372036854775807",
        ),
        (["simulate", "passpass", "--players", "3", "--seed", "-1"], "a seed is a whole number"),
        (["join", "ABC-DEF@127.0.0.1:1", "--bot", "random", "--seed", "x"], "'x' is not a whole"),
        (
            ["simulate", "dominoes", "--players", "2", "--option", "target=100000"],
            "the target must be a whole number of points from 1 to 10000, not 100000",
        ),
        (
            ["host", "dominoes", "--headless", "--option", "target=" + "9" * 23],
            "the target must be a whole number of points from 1 to 10000",
        ),
    ],
)
def test_bad_arguments_print_one_line_and_exit_2(args: list[str], message: str) -> None:
    done = run(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert message in lines[0]
    assert "Traceback" not in done.stderr


def test_simulate_passes_game_options(capsys: pytest.CaptureFixture[str]) -> None:
    """``--option target=10`` reaches the games: they end at 10 points, not
    at the rules' 101 (DO-13), so they are shorter than without it, and
    someone reached 10 in each (issue 23: a lone ``>= 10/3`` held without
    the option too, with means of 87.7 and 94.3)."""

    def simulate(*option: str) -> dict[str, Any]:
        base = ["simulate", "dominoes", "--players", "2", "--games", "3", "--seed", "1"]
        assert main([*base, *option]) == 0
        data: dict[str, Any] = json.loads(capsys.readouterr().out)
        assert data["games"] == 3
        return data

    lowered, default = simulate("--option", "target=10"), simulate()
    # Each game's scores add up to at least the winner's, at least 10.
    assert sum(lowered["mean_scores"]) >= 10
    assert lowered["rounds_per_game"] < default["rounds_per_game"]
    assert max(lowered["mean_scores"]) < 101 <= sum(default["mean_scores"])


def test_list_options_are_written_with_commas(capsys: pytest.CaptureFixture[str]) -> None:
    # From the play-test: --option diamonds=3,2,... failed with "expected a list".
    def scores(*option: str) -> list[float]:
        base = ["simulate", "passpass", "--players", "3", "--games", "3", "--seed", "2"]
        assert main([*base, *option]) == 0
        return list(json.loads(capsys.readouterr().out)["mean_scores"])

    flat = [0] * 12  # no diamonds at all: a point per card only (PP-20)
    commas = scores("--option", "diamonds=" + ",".join(map(str, flat)))
    assert commas == scores("--option", f"diamonds={json.dumps(flat)}")
    assert commas != scores()


@pytest.mark.parametrize(
    "command",
    [
        ["play"],
        ["join", "ABC123@127.0.0.1:1"],
        ["host", "passpass"],
        ["watch", "ABC123@127.0.0.1:1"],
    ],
)
def test_a_log_file_that_cannot_be_written_is_said_in_one_line(
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    """PASSE_LOG_FILE (the app on screen logs there, for `passe host`, `join`
    and `watch` too: found by hand, only `passe play` read it): a path that
    cannot be written is refused before any screen opens, in one line, exit 2."""
    import tui.app

    monkeypatch.setattr(tui.app, "run", lambda **kwargs: 0)  # no screen, if it got that far
    monkeypatch.setenv("PASSE_LOG_FILE", str(tmp_path / "no such folder" / "passe.log"))
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.startswith("passe: cannot write the log file ") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("given", "expected"),
    [((), None), (("--bot-delay", "2.5"), 2.5), (("--bot-delay", "0"), 0.0)],
)
def test_join_and_host_on_screen_keep_the_remembered_bot_speed_unless_given(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
    given: tuple[str, ...],
    expected: float | None,
) -> None:
    """Found by hand (5 December): `passe join` on screen set the home
    screen's bots to "instant" (join's --bot-delay defaults to 0 for
    --bot), and `passe host` to 0.8 s whatever speed was chosen at home.
    Only a speed given on the command line is this run's."""
    import tui.app
    from tui.settings import Settings, save_settings

    monkeypatch.setenv("PASSE_CONFIG_DIR", str(tmp_path))
    save_settings(tmp_path / "settings.json", Settings(bot_delay=3.0))
    started: list[dict[str, Any]] = []

    def run(**kwargs: Any) -> int:
        started.append(kwargs)
        return 0

    monkeypatch.setattr(tui.app, "run", run)
    assert main(["join", "ABC123@127.0.0.1:1", "--name", "Jo", *given]) == 0
    assert started[-1]["bot_delay"] == expected
    assert main(["host", "passpass", "--players", "3", "--port", "0", *given]) == 0
    assert started[-1]["bot_delay"] == expected
    lobby = started[-1]["opening"]()
    assert lobby.plan.bot_delay == (3.0 if expected is None else expected)


def test_host_with_a_dealer_on_screen_joins_only_the_room_that_dealer_signs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """`passe host --dealer` on screen opens the join screen on the code
    its dealer answered with, told that dealer's key (RemoteTable.dealt_by:
    the code is public, and a state anyone wrote under it is refused), and
    says which dealer dealt it."""
    import net.dealer.client
    import tui.app
    from net.dealer.client import RoomDealt

    monkeypatch.setenv("PASSE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path / "data"))
    dealt = RoomDealt("QKRJSX", "QKRJSX@127.0.0.1:1883", "Pi", "0123456789abcdef")

    async def ask(*args: Any, **kwargs: Any) -> RoomDealt:
        return dealt

    monkeypatch.setattr(net.dealer.client, "ask_dealer", ask)
    started: list[dict[str, Any]] = []

    def run(**kwargs: Any) -> int:
        started.append(kwargs)
        return 0

    monkeypatch.setattr(tui.app, "run", run)
    args = ["host", "dominoes", "--dealer", "--broker", "127.0.0.1", "--name", "Jo"]
    assert main(args) == 0
    screen = started[-1]["opening"]()
    assert (screen.dealt_code, screen.dealer) == ("QKRJSX", "0123456789abcdef")
    assert screen.notice.startswith("Room QKR-JSX dealt by Pi (key 0123-4567-89ab-cdef")


def test_an_option_nested_past_the_parser_s_depth_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--option target=[[[[…`` raised RecursionError out of the option's
    JSON reading: a traceback, where any other bad value is one line and
    exit 2. It is taken as text, which the game then refuses."""
    deep = "[" * 100_000 + "]" * 100_000
    assert main(["simulate", "dominoes", "--players", "2", "--option", f"target={deep}"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") <= 3, err[:300]


def test_a_dealer_s_list_of_trusted_dealers_is_read_as_a_list_of_keys(tmp_path: Path) -> None:
    """`passe dealer --trust FILE` (the dealers it shares rooms with, each
    of whom can read the deck): one peer id or fingerprint a line; anything
    else refused in one line naming it, before the dealer starts."""
    from tui.arguments import MAX_KEY_FILE, read_key_list

    good = tmp_path / "trust"
    good.write_text("# the others\nAB12-cd34-ef56-7890\n0123 4567 89ab cdef  # Pi\n\n")
    assert read_key_list(str(good)) == {"ab12cd34ef567890", "0123456789abcdef"}
    bad = tmp_path / "bad"
    bad.write_text("ab12-cd34-ef56-7890\nnot a key\n")
    huge = tmp_path / "huge"
    huge.write_bytes(b"#" * (MAX_KEY_FILE + 1))
    cases = [
        (bad, "line 2: not a key's peer id or fingerprint (16 hex digits"),
        (tmp_path / "missing", "cannot read it"),
        (huge, "larger than a list of keys (64 KiB at most)"),
    ]
    for path, words in cases:
        done = run("dealer", "--trust", str(path))
        assert done.returncode == 2
        (line,) = done.stderr.strip().splitlines()
        assert f"--trust: {path}: {words}" in line and "Traceback" not in done.stderr
