"""The SSH server's parts that need no connection: the host key, player
names from hostile user names, commands, player directories, ``--help``."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import asyncssh
import pytest

from tests.ssh.conftest import passe_command
from tui.cli import main
from tui.serve.host_key import describe_host_key, fingerprint, load_or_create_host_key
from tui.serve.identity import Identity, player_name
from tui.serve.server import Hub, ServeOptions
from tui.serve.session import Request


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_host_key_is_made_once_private_and_kept(private_data_dir: Path) -> None:
    path = private_data_dir / "ssh_host_ed25519_key"
    assert "none yet" in describe_host_key()
    key = load_or_create_host_key()
    assert path.stat().st_mode & 0o777 == 0o600
    again = load_or_create_host_key()
    assert fingerprint(again) == fingerprint(key)
    assert describe_host_key() == f"Host key: {fingerprint(key)} ({path})."


def test_corrupt_host_key_is_reported_kept_aside_and_replaced(
    private_data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = private_data_dir / "ssh_host_ed25519_key"
    path.parent.mkdir(parents=True)
    path.write_text("not a key\n")
    assert "unusable" in describe_host_key()
    with caplog.at_level(logging.WARNING, logger="passe.serve"):
        key = load_or_create_host_key()
    assert "is unusable" in caplog.text and "new key replaces it" in caplog.text
    (aside,) = private_data_dir.glob("ssh_host_ed25519_key.corrupt-*")
    assert aside.read_text() == "not a key\n"
    assert fingerprint(asyncssh.read_private_key(path)) == fingerprint(key)


def test_help_shows_the_host_key_fingerprint(private_data_dir: Path) -> None:
    key = load_or_create_host_key()
    env = {**os.environ, "PASSE_DATA_DIR": str(private_data_dir)}
    shown = subprocess.run(
        [*passe_command(), "serve", "--ssh", "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert "--max-sessions" in shown and "--idle-timeout" in shown
    assert f"Host key: {fingerprint(key)}" in shown.splitlines()[-1]


def test_serve_without_a_protocol_is_a_usage_error() -> None:
    done = subprocess.run([*passe_command(), "serve"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == "passe: serve needs a protocol: passe serve --ssh or --web\n"


@pytest.mark.parametrize(
    ("user", "name"),
    [
        ("alice", "alice"),
        ("\x1b[2J\x1b]0;pwned\x07evil", "2J0pwnedevil"),  # escapes: gone
        ("[bold red]x[/]", "boldredx"),  # markup: gone
        ("  \n\t ", "Guest"),
        ("", "Guest"),
        ("Émile.d_o-e", "Émile.d_o-e"),
        ("a" * 200, "a" * 32),  # the app shortens it to its name length
    ],
)
def test_player_names_from_hostile_user_names(user: str, name: str) -> None:
    assert player_name(user) == name


def _hub(**options: object) -> Hub:
    return Hub(ServeOptions(**options), None)  # type: ignore[arg-type]


def test_commands_become_passe_arguments() -> None:
    hub = _hub(bot_delay=0.0, seed=4)
    assert hub.plan(None, "ann") == (
        ["play", "--name", "ann", "--bot-delay", "0.0", "--seed", "4"],
        "play",
    )
    assert hub.plan("play", "ann") == hub.plan("", "ann")
    for command in ("join", "join a b", "join ../x", "join $(reboot)", "watch " + "A" * 33):
        refusal = hub.plan(command, "ann")
        assert isinstance(refusal, str) and "CODE" in refusal, command
    # The room's broker may follow the code, as `passe join` takes it (where
    # LAN discovery cannot find the room); only host-name characters pass.
    for target in ("abc-123@127.0.0.1:1883", "ABC123@passe-host.lan", "ABC123@[::1]:1883"):
        assert hub.plan(f"join {target}", "ann") == (
            ["join", target, "--name", "ann"],
            f"join {target}",
        )
    for command in ("join ABC123@$(id)", "join ABC123@a;b", "join ../x@host", "join ABC@a b"):
        refusal = hub.plan(command, "ann")
        assert isinstance(refusal, str) and "CODE@HOST:PORT" in refusal, command
    assert "unknown command" in str(hub.plan("sh -c id", "ann"))


def test_a_command_this_installation_lacks_is_refused_in_words() -> None:
    """`passe serve` hands the server its own commands (ServeOptions.commands);
    a guest asking for one it lacks is told so, never runs a missing one."""
    hub = _hub(commands=frozenset({"play"}))
    assert hub.plan("join ABC-123", "ann") == (
        "Passe: joining rooms is not available on this server yet; "
        "connect without a command to play against bots."
    )
    assert "watching rooms is not available" in str(hub.plan("watch ABC-123", "ann"))
    assert hub.plan(None, "ann") == (["play", "--name", "ann"], "play")


def test_a_guest_app_gets_the_operators_broker_but_no_client_may_choose_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PASSE_BROKER", "127.0.0.1:1883")
    monkeypatch.setenv("SECRET_TOKEN", "not for guests")
    request = Request(
        term_type="xterm-kitty",
        environment={"PASSE_BROKER": "evil.example:1", "NO_COLOR": "1", "LD_PRELOAD": "/x.so"},
    )
    env = _hub().environment(request, Identity("ann", "SHA256:k", "127.0.0.1"), tmp_path)
    assert env["PASSE_BROKER"] == "127.0.0.1:1883"  # the operator's, not the client's
    assert env["NO_COLOR"] == "1" and env["TERM"] == "xterm-kitty"
    assert env["PASSE_PLAYER_KEY"] == "SHA256:k"
    assert env["PASSE_CONFIG_DIR"] == env["PASSE_DATA_DIR"] == str(tmp_path)
    assert env["PASSE_SERVED"] == "1"  # its messages name no path on this server
    assert "SECRET_TOKEN" not in env and "LD_PRELOAD" not in env
    # Without the operator's broker, a client's still does not pass.
    monkeypatch.delenv("PASSE_BROKER")
    request.term_type = "bad term;"
    env = _hub().environment(request, Identity("ann", None, "127.0.0.1"), tmp_path)
    assert "PASSE_BROKER" not in env and "PASSE_PLAYER_KEY" not in env
    assert env["TERM"] == "xterm-256color"


def test_a_player_directory_is_never_shared_by_two_live_sessions() -> None:
    hub = _hub()
    keyed = Identity("ann", "SHA256:abc/def+", "127.0.0.1")
    first, throw_away = hub.claim_directory(keyed)
    assert not throw_away and first.name.startswith("key-") and "/" not in first.name[4:]
    second, throw_away_too = hub.claim_directory(keyed)
    assert throw_away_too and second != first and second.parent == hub.guests
    # The second session's app is told, and says so on its home screen (a
    # play-test's game played there was gone without a word).
    assert hub.environment(Request(), keyed, second)["PASSE_SECOND_SESSION"] == "1"
    assert "PASSE_SECOND_SESSION" not in hub.environment(Request(), keyed, first)
    hub.release_directory(second, throw_away_too)
    assert not second.exists()
    hub.release_directory(first, throw_away)
    assert hub.claim_directory(keyed) == (first, False)
    # Without a key the user name chooses; a hostile one cannot leave the folder.
    sneaky = Identity("../../etc", None, "127.0.0.1")
    directory, _ = hub.claim_directory(sneaky)
    assert directory.parent == hub.players
    assert directory.name.startswith("user-....etc-")


@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        (["--port", "70000"], "a port is between 0 and 65535"),
        (["--max-sessions", "0"], "choose 1 or more"),
        (["--idle-timeout", "-1"], "choose 0 (never) or more seconds"),
        (["--idle-timeout", "inf"], "choose 0 (never) or more seconds"),
        (["--bot-delay", "99"], "choose between 0 and 60"),
    ],
)
def test_bad_serve_options_are_one_line_usage_errors(
    arguments: list[str], complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--ssh", *arguments])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert complaint in error and error.count("\n") == 1


def test_the_server_does_not_load_textual() -> None:
    """It only copies bytes: Textual's memory belongs to the sessions."""
    code = "import sys, tui.serve.server, tui.cli; print('textual' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_guests_rooms_brokers_listen_where_the_server_does(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`passe serve --ssh --bind 127.0.0.1`: the embedded brokers of rooms
    its guests host listen on 127.0.0.1 too (issue 18), never on every
    interface; a client cannot choose otherwise."""
    from tui.netplay import NetworkOptions

    request = Request(term_type="xterm", environment={"PASSE_BIND": "0.0.0.0"})
    env = _hub(bind="127.0.0.1").environment(request, Identity("ann", None, "::1"), tmp_path)
    assert env["PASSE_BIND"] == "127.0.0.1"
    monkeypatch.setenv("PASSE_BIND", env["PASSE_BIND"])
    assert NetworkOptions.from_env().bind == ("127.0.0.1",)
    # A server on every address leaves guests' brokers on the LAN interfaces.
    env = _hub(bind="").environment(request, Identity("ann", None, "::1"), tmp_path)
    assert "PASSE_BIND" not in env


def test_a_guest_s_friends_are_told_the_server_s_address_the_guest_reached() -> None:
    """A guest's lobby said `ssh -t -p 2299 SERVER join ...` (a play-test):
    the server passes the address the guest's connection reached, so the
    lobby names it; a client cannot choose it."""
    from tui.serve.session import reached_at

    assert reached_at(("127.0.0.1", 2299)) == "127.0.0.1"
    assert reached_at(("10.0.0.5", 2299)) == "10.0.0.5"
    assert reached_at(("::ffff:10.0.0.5", 2299, 0, 0)) == "10.0.0.5"
    assert reached_at(("2001:db8::7", 2299, 0, 0)) == "2001:db8::7"
    # What a friend could not type after `ssh`: nothing there, every
    # address, an address that needs the friend's own interface name.
    for sockname in (None, (), ("",), ("0.0.0.0", 22), ("::", 22), ("fe80::1%eth0", 22, 0, 2)):
        assert reached_at(sockname) == ""
    hub = _hub()
    hub.port = 2299
    request = Request(term_type="xterm", environment={"PASSE_SSH_HOST": "evil.example"})
    env = hub.environment(request, Identity("ann", None, "10.0.0.9"), hub.players)
    assert "PASSE_SSH_HOST" not in env and env["PASSE_SSH_PORT"] == "2299"
    request.server_address = "10.0.0.5"
    env = hub.environment(request, Identity("ann", None, "10.0.0.9"), hub.players)
    assert env["PASSE_SSH_HOST"] == "10.0.0.5"
