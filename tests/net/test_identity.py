"""A player's key on disk: made on first use, read back the same, a damaged
file kept aside and replaced, each said in one notice; a guest of
``passe serve`` is told without the server's paths."""

from __future__ import annotations

import hashlib
import re
import stat
from pathlib import Path

import pytest
from nacl.exceptions import CryptoError

from net.identity import Identity, box_public_key, fingerprint, load_identity, peer_id, verify


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


def test_a_key_whose_file_cannot_be_read_says_the_system_s_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notice names the error as the system gave it (with the path) to
    the person at the machine, its bare reason to a served guest, and the
    error's kind when it has no reason; the key made stands in for this
    session, and signs."""
    path = tmp_path / "identity.key"
    path.mkdir()
    loaded = load_identity(path)
    assert loaded.notice == (
        f"could not read your key {path} ([Errno 21] Is a directory: '{path}'): "
        "using a key for this session only"
    )
    assert verify(loaded.identity.public_key, b"m", loaded.identity.sign(b"m"))

    def no_reason(self: Path, encoding: str | None = None) -> str:
        raise OSError  # no errno, no strerror

    monkeypatch.setattr(Path, "read_text", no_reason)
    served = load_identity(tmp_path / "other.key", show_path=False).notice
    assert served == "could not read your key (OSError): using a key for this session only"


def test_a_key_file_with_its_header_and_bad_hex_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "identity.key"
    for text in ("passe-ed25519-seed-v1\nnot-hex\n", f"passe-ed25519-seed-v1\n{'ab' * 31}\n"):
        path.write_text(text, encoding="ascii")
        loaded = load_identity(path)
        assert loaded.notice == (
            f"your key file {path} was damaged: kept as identity.key.corrupt, made a new key"
        )
        assert (tmp_path / "identity.key.corrupt").read_text(encoding="ascii") == text


def test_a_damaged_key_that_cannot_be_set_aside_is_said_so(tmp_path: Path) -> None:
    """Its ``.corrupt`` name taken by a directory that is not empty: the
    rename fails, and the notice does not claim the file was kept."""
    path = tmp_path / "identity.key"
    path.write_text("damaged\n", encoding="ascii")
    (tmp_path / "identity.key.corrupt" / "inside").mkdir(parents=True)
    loaded = load_identity(path)
    assert loaded.notice == (
        f"your key file {path} was damaged and could not be kept aside (Is a directory): "
        "made a new key"
    )
    assert load_identity(path).identity.public_key == loaded.identity.public_key


def test_a_damaged_key_set_aside_without_a_reason_names_the_error_s_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "identity.key"
    path.write_text("damaged\n", encoding="ascii")

    def refused(self: Path, target: Path) -> Path:
        raise PermissionError  # no errno, no strerror

    monkeypatch.setattr(Path, "replace", refused)
    assert load_identity(path, show_path=False).notice == (
        "your key file was damaged and could not be kept aside (PermissionError): made a new key"
    )


def test_the_default_key_lives_in_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PASSE_DATA_DIR", str(tmp_path))
    made = load_identity()
    assert made.notice == f"made a new key in {tmp_path / 'identity.key'}"
    assert load_identity().identity.public_key == made.identity.public_key


def test_a_key_file_holds_its_seed_as_hex_under_a_header_private(tmp_path: Path) -> None:
    path = tmp_path / "identity.key"
    identity = load_identity(path).identity
    assert path.read_text(encoding="ascii") == (
        f"passe-ed25519-seed-v1\n{bytes(identity.signing_key).hex()}\n"
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_peer_is_named_by_sixteen_hex_digits_and_shown_in_four_groups() -> None:
    key = bytes(range(32))
    assert peer_id(key) == hashlib.blake2b(key, digest_size=8).hexdigest()
    assert re.fullmatch(r"[0-9a-f]{16}", peer_id(key))
    shown = fingerprint(key)
    assert re.fullmatch(r"[0-9a-f]{4}(-[0-9a-f]{4}){3}", shown)
    assert shown.replace("-", "") == peer_id(key)


def test_only_a_signature_of_the_key_over_the_same_bytes_verifies() -> None:
    """Every wrong shape is refused, never raised: a key or a signature of
    the wrong size or type, a key that is no curve point, another key,
    other bytes."""
    me, other = Identity.generate(), Identity.generate()
    signature = me.sign(b"message")
    assert verify(me.public_key, b"message", signature)
    assert not verify(other.public_key, b"message", signature)
    assert not verify(me.public_key, b"messagE", signature)
    assert not verify(me.public_key, b"message", other.sign(b"message"))
    assert not verify(me.public_key, b"message", signature[:63])
    assert not verify(me.public_key, b"message", signature + b"\0")
    assert not verify(me.public_key[:31], b"message", signature)
    assert not verify(me.public_key + b"\0", b"message", signature)
    assert not verify(b"\xff" * 32, b"message", signature)
    assert not verify(bytes(32), b"message", signature)
    assert not verify("k" * 32, b"message", signature)  # type: ignore[arg-type]


def test_a_box_opens_only_between_its_two_keys_and_a_bad_key_is_refused_in_words() -> None:
    ana, ben, cai = Identity.generate(), Identity.generate(), Identity.generate()
    sealed = ana.box_with(ben.public_key).encrypt(b"for ben")
    assert ben.box_with(ana.public_key).decrypt(sealed) == b"for ben"
    assert ana.box_with(ben.public_key) is ana.box_with(ben.public_key)  # kept
    with pytest.raises(CryptoError):
        cai.box_with(ana.public_key).decrypt(sealed)
    for bad in (b"\xff" * 32, b"short"):
        with pytest.raises(ValueError, match=r"^not a valid public key$"):
            box_public_key(bad)
        with pytest.raises(ValueError, match=r"^not a valid public key$"):
            ana.box_with(bad)


def test_the_kept_boxes_are_bounded() -> None:
    """Keys come from the network: past 1,024 kept boxes, they are dropped."""
    me = Identity.generate()
    keys = [Identity.generate().public_key for _ in range(1026)]
    for key in keys[:1025]:
        me.box_with(key)
    kept: dict[bytes, object] = me.__dict__["_boxes"]
    assert len(kept) == 1025 and keys[0] in kept
    me.box_with(keys[1025])
    assert list(kept) == [keys[1025]]
