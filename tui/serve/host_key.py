"""The SSH server's host key: made on first run in the data directory, read
on later runs; a corrupt file is reported, kept aside and replaced."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import asyncssh

from net.files import write_atomic
from net.paths import data_dir

HOST_KEY_FILE = "ssh_host_ed25519_key"
log = logging.getLogger("passe.serve")


def host_key_path() -> Path:
    return data_dir() / HOST_KEY_FILE


def fingerprint(key: asyncssh.SSHKey) -> str:
    """What OpenSSH prints for the key, e.g. ``SHA256:...``."""
    return str(key.get_fingerprint("sha256"))


def load_or_create_host_key(path: Path | None = None) -> asyncssh.SSHKey:
    """The key at ``path``; a new one (written with mode 0600) if the file is
    missing; if it is unreadable or corrupt, it is renamed to
    ``*.corrupt-<time>`` with a warning and a new key replaces it (guests
    will then see a changed host key, which the warning says)."""
    path = host_key_path() if path is None else path
    try:
        return asyncssh.read_private_key(path)
    except FileNotFoundError:
        pass
    except (OSError, ValueError, asyncssh.KeyImportError) as error:
        aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            path.replace(aside)
            kept = f"kept as {aside}"
        except OSError as move_error:
            kept = f"could not be moved aside ({move_error})"
        log.warning(
            "host key %s is unusable (%s); it was %s and a new key replaces it: "
            "guests who knew the old key will be warned that it changed",
            path,
            error,
            kept,
        )
    key = asyncssh.generate_private_key("ssh-ed25519")
    # Created 0600 from the start (the private key is never world-readable),
    # atomically: a crash mid-write no longer leaves a truncated key that the
    # next start would call corrupt and replace.
    write_atomic(path, key.export_private_key())
    log.info("new host key %s written to %s", fingerprint(key), path)
    return key


def describe_host_key(path: Path | None = None) -> str:
    """For ``--help``: the fingerprint, without creating a key."""
    path = host_key_path() if path is None else path
    try:
        key = asyncssh.read_private_key(path)
    except FileNotFoundError:
        return f"Host key: none yet; the first start creates {path}."
    except (OSError, ValueError, asyncssh.KeyImportError) as error:
        return f"Host key: {path} is unusable ({error}); the next start replaces it."
    return f"Host key: {fingerprint(key)} ({path})."
