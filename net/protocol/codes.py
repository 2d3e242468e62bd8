"""Room codes: six characters of Crockford's base32, typed by people.

A room code is what a host reads aloud and a friend types, so it uses
Crockford's alphabet (digits and capital letters without I, L, O and U) and
forgives what people get wrong: case does not matter, ``O`` means ``0``,
``I`` and ``L`` mean ``1``, and spaces or hyphens are ignored. Codes are shown
split in two halves (``ABC-123``), which is easier to read aloud and copy than
six characters in a row; :func:`normalize_code` accepts that form back.

``CODE@HOST[:PORT]`` names a room on a given broker, for networks where
multicast discovery is blocked (:func:`parse_join_target`).
"""

from __future__ import annotations

import ipaddress
import random
import re
import secrets
from dataclasses import dataclass

from net.protocol.text import quote

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 6
DEFAULT_BROKER_PORT = 1883

# Characters people type for a code character, beyond the alphabet itself.
_READ_AS = {"O": "0", "I": "1", "L": "1"}
_IGNORED = frozenset(" -\t")
_RULE = f"room codes have {CODE_LENGTH} characters (letters and digits)"
# A host name as typed on a command line: labels of letters, digits, hyphens.
_HOST_NAME = re.compile(
    r"^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$"
)


class CodeError(ValueError):
    """A room code or join target that cannot be used; the message is one
    line meant for the person who typed it."""


@dataclass(frozen=True)
class JoinTarget:
    """Where to join: a room code, and the broker when given by hand
    (``host`` and ``port`` are None when the room is to be found on the LAN)."""

    code: str
    host: str | None = None
    port: int | None = None


def new_code(rng: random.Random | None = None) -> str:
    """A fresh room code; from ``secrets`` unless a seeded ``rng`` is given
    (tests), since a guessable code lets strangers find the room."""
    if rng is None:
        return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    return "".join(rng.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(text: str) -> str:
    """The canonical code (capitals and digits) for what a person typed.

    Raises :class:`CodeError` naming the first character that is never used,
    or saying how many characters were typed when there are not six.
    """
    out: list[str] = []
    for char in text:
        if char in _IGNORED:
            continue
        upper = char.upper() if char.isascii() else char
        upper = _READ_AS.get(upper, upper)
        if upper not in ALPHABET:
            if upper == "U":
                raise CodeError(f"{_RULE}; 'U' is never used")
            if char.isascii() and char.isprintable():
                raise CodeError(f"{_RULE}; {char!r} is not a letter or digit")
            # As typed where printable ("'á'", not "'\\xe1'": issue 18).
            raise CodeError(f"{_RULE}; {quote(char)} is not one of them")
        out.append(upper)
    if len(out) != CODE_LENGTH:
        if not out:
            raise CodeError(f"{_RULE}; none were typed")
        raise CodeError(f"{_RULE}; {''.join(out)!r} has {len(out)}")
    return "".join(out)


def format_code(code: str) -> str:
    """A code as shown to people: two halves of three, ``ABC-123``."""
    canonical = normalize_code(code)
    half = CODE_LENGTH // 2
    return f"{canonical[:half]}-{canonical[half:]}"


def parse_join_target(text: str) -> JoinTarget:
    """``CODE``, ``CODE@HOST``, ``CODE@HOST:PORT`` or ``CODE@[IPv6]:PORT``.

    The port defaults to 1883 when a host is given. Raises :class:`CodeError`
    with a one-line reason for anything else.
    """
    stripped = text.strip()
    code_text, at, where = stripped.partition("@")
    code = normalize_code(code_text)
    if not at:
        return JoinTarget(code)
    host, port = _parse_host_port(where.strip())
    return JoinTarget(code, host, port)


def _parse_host_port(where: str) -> tuple[str, int]:
    if not where:
        raise CodeError("no host after '@': use CODE@HOST or CODE@HOST:PORT")
    port_text: str | None = None
    if where.startswith("["):
        host, bracket, rest = where[1:].partition("]")
        if not bracket:
            raise CodeError(f"{where!r}: an IPv6 address in brackets needs its closing ']'")
        if rest:
            if not rest.startswith(":"):
                raise CodeError(f"{where!r}: only ':PORT' may follow ']'")
            port_text = rest[1:]
        _check_ipv6(host, where)
    elif where.count(":") > 1:
        # A bare IPv6 address: no port can follow it unambiguously.
        host = where
        _check_ipv6(host, where)
    else:
        host, colon, rest = where.partition(":")
        if colon:
            port_text = rest
        if not _HOST_NAME.match(host):
            raise CodeError(f"{host!r} is not a host name or address")
        if all(label.isdigit() for label in host.rstrip(".").split(".")):
            _check_ipv4(host)
    if port_text is None:
        return host, DEFAULT_BROKER_PORT
    if not (port_text.isascii() and port_text.isdigit()) or not 1 <= int(port_text) <= 65535:
        raise CodeError(f"{port_text!r} is not a port (a number from 1 to 65535)")
    return host, int(port_text)


def _check_ipv4(host: str) -> None:
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        raise CodeError(f"{host!r} is not an IPv4 address") from None


def _check_ipv6(host: str, where: str) -> None:
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        raise CodeError(f"{where!r}: {host!r} is not an IPv6 address") from None
