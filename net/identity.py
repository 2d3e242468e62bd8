"""A peer's long-lived key pair: who this process is at every table.

One Ed25519 signing key (PyNaCl) per user, stored in the user's data
directory. Its public half names the peer; the same key, converted to
Curve25519, receives what is encrypted to the peer's seat. A seat is bound to
the key that took it, so a player who restarts (same key on disk) gets their
seat back. A missing key is created; a corrupt one is reported, set aside and
replaced, never fatal.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

from nacl.exceptions import CryptoError
from nacl.public import Box, PrivateKey, PublicKey
from nacl.signing import SigningKey, VerifyKey

from net.files import write_atomic
from net.paths import data_dir

KEY_FILE = "identity.key"
_HEADER = "passe-ed25519-seed-v1"
PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64


def peer_id(public_key: bytes) -> str:
    """A short, topic-safe name for a public key (16 hex digits of its hash)."""
    return hashlib.blake2b(public_key, digest_size=8).hexdigest()


def fingerprint(public_key: bytes) -> str:
    """What a person compares: ``ab12-cd34-ef56-7890``."""
    return peer_fingerprint(peer_id(public_key))


def is_peer_id(text: str) -> bool:
    """Whether ``text`` is written as :func:`peer_id` writes one (16
    lower-case hex digits)."""
    return len(text) == 16 and all(c in "0123456789abcdef" for c in text)


def peer_fingerprint(peer: str) -> str:
    """A peer id as a person compares it: ``ab12-cd34-ef56-7890``."""
    return "-".join(peer[i : i + 4] for i in range(0, len(peer), 4))


@dataclass(frozen=True)
class Identity:
    """A signing key and what derives from it."""

    signing_key: SigningKey

    @classmethod
    def generate(cls) -> Identity:
        return cls(SigningKey.generate())

    @property
    def public_key(self) -> bytes:
        return bytes(self.signing_key.verify_key)

    @property
    def peer_id(self) -> str:
        return peer_id(self.public_key)

    @functools.cached_property
    def box_key(self) -> PrivateKey:
        """The Curve25519 private key for what is encrypted to this peer."""
        return self.signing_key.to_curve25519_private_key()

    def box_with(self, public_key: bytes) -> Box:
        """The NaCl box between this key and ``public_key`` (ValueError for a
        bad key). Kept: computing the shared key costs more than sealing."""
        boxes: dict[bytes, Box] = self.__dict__.setdefault("_boxes", {})
        box = boxes.get(public_key)
        if box is None:
            if len(boxes) > 1024:  # bounded: keys come from the network
                boxes.clear()
            box = boxes[public_key] = Box(self.box_key, box_public_key(public_key))
        return box

    def sign(self, message: bytes) -> bytes:
        """The 64-byte detached signature of ``message``."""
        return self.signing_key.sign(message).signature


def box_public_key(public_key: bytes) -> PublicKey:
    """The Curve25519 public key matching an Ed25519 one (raises ValueError)."""
    try:
        return VerifyKey(public_key).to_curve25519_public_key()
    except Exception as error:  # nacl raises several types for a bad point
        raise ValueError("not a valid public key") from error


def verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``public_key``'s signature of ``message``:
    never for a key or signature of the wrong size or type (PyNaCl raises a
    CryptoError subclass, ValueError or TypeError for those)."""
    try:
        VerifyKey(public_key).verify(message, signature)
    except (CryptoError, ValueError, TypeError):
        return False
    return True


@dataclass(frozen=True)
class LoadedIdentity:
    identity: Identity
    notice: str | None  # set when the key was created or replaced


def load_identity(path: Path | None = None, *, show_path: bool = True) -> LoadedIdentity:
    """The identity stored at ``path`` (default: the data directory's), made on
    first use. A corrupt file is renamed ``identity.key.corrupt`` and replaced;
    the notice says so, naming the file unless ``show_path`` is false (a guest
    of ``passe serve``, to whom the server's paths mean nothing)."""
    path = path or data_dir() / KEY_FILE
    named = f" {path}" if show_path else ""
    try:
        text: str | None = path.read_text(encoding="ascii")
    except FileNotFoundError:
        text = None
    except UnicodeDecodeError:
        text = ""  # not a key file: damaged, below
    except OSError as error:
        # Never replace a key that could not be read (it may be fine): a key
        # for this session only. The error's own text names the file too.
        why = str(error) if show_path else _reason(error)
        return LoadedIdentity(
            Identity.generate(),
            f"could not read your key{named} ({why}): using a key for this session only",
        )
    if text is not None:
        lines = text.split()
        if len(lines) == 2 and lines[0] == _HEADER:
            try:
                seed = bytes.fromhex(lines[1])
            except ValueError:
                seed = b""
            if len(seed) == 32:
                return LoadedIdentity(Identity(SigningKey(seed)), None)
        corrupt = path.with_name(path.name + ".corrupt")
        try:
            path.replace(corrupt)
        except OSError as error:
            # Said as it is: the damaged file is written over, not kept.
            notice = (
                f"your key file{named} was damaged and could not be kept aside ({_reason(error)}): "
                "made a new key"
            )
        else:
            notice = f"your key file{named} was damaged: kept as {corrupt.name}, made a new key"
    else:
        notice = f"made a new key in {path}" if show_path else "made a new key"
    identity = Identity.generate()
    _write_key(path, identity)
    return LoadedIdentity(identity, notice)


def _reason(error: OSError) -> str:
    """An error's words without its path: its reason, else its kind."""
    return error.strerror or type(error).__name__


def _write_key(path: Path, identity: Identity) -> None:
    seed = bytes(identity.signing_key).hex()
    # Private (mode 0600), atomic and durable: a key lost to a power cut
    # loses its seats in every room.
    write_atomic(path, f"{_HEADER}\n{seed}\n")


__all__ = [
    "Identity",
    "LoadedIdentity",
    "box_public_key",
    "data_dir",
    "fingerprint",
    "is_peer_id",
    "load_identity",
    "peer_fingerprint",
    "peer_id",
    "verify",
]
