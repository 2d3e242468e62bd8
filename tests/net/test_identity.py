"""A player's key on disk: made on first use, read back the same, a damaged
file kept aside and replaced, each said in one notice; a guest of
``passe serve`` is told without the server's paths."""

from __future__ import annotations

from pathlib import Path

from net.identity import load_identity


def test_made_once_then_read_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "identity.key"
    made = load_identity(path)
    assert made.notice == f"made a new key in {path}"
    again = load_identity(path)
    assert again.notice is None
    assert again.identity.public_key == made.identity.public_key


def test_a_damaged_key_is_kept_aside_and_replaced(tmp_path: Path) -> None:
    path = tmp_path / "identity.key"
    path.write_text("passe-identity-v1 not-hex\n", encoding="ascii")
    loaded = load_identity(path)
    assert loaded.notice == (
        f"your key file {path} was damaged: kept as identity.key.corrupt, made a new key"
    )
    assert (tmp_path / "identity.key.corrupt").read_text() == "passe-identity-v1 not-hex\n"
    assert load_identity(path).identity.public_key == loaded.identity.public_key


def test_a_served_guest_is_told_without_the_servers_paths(tmp_path: Path) -> None:
    path = tmp_path / "guests" / "a1b2" / "identity.key"
    assert load_identity(path, show_path=False).notice == "made a new key"
    path.write_bytes(b"\xff\xfe not ascii")
    notice = load_identity(path, show_path=False).notice
    assert notice == "your key file was damaged: kept as identity.key.corrupt, made a new key"


def test_a_key_that_cannot_be_read_is_never_replaced(tmp_path: Path) -> None:
    path = tmp_path / "identity.key"
    path.mkdir()  # unreadable as a file (root reads any file whatever its mode)
    loaded = load_identity(path)
    assert loaded.notice is not None
    assert loaded.notice.startswith(f"could not read your key {path} (")
    assert loaded.notice.endswith("): using a key for this session only")
    assert path.is_dir() and not (tmp_path / "identity.key.corrupt").exists()
    served = load_identity(path, show_path=False).notice
    assert served == "could not read your key (Is a directory): using a key for this session only"
