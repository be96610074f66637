"""The pit view's credential: a password stored as a salted scrypt hash, never in clear.

`hash_password` makes the `[console] pit_credential` value (`shoectl console hash-password`);
`check_password` compares a given password in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Final

from controller.rules.errors import ConfigError

_N: Final = 2**14
_R: Final = 8
_P: Final = 1
_SALT_BYTES: Final = 16
_KEY_BYTES: Final = 32


def hash_password(password: str, salt: bytes | None = None) -> str:
    """`scrypt$N$r$p$<salt hex>$<hash hex>` for `password`."""
    salt = salt if salt is not None else secrets.token_bytes(_SALT_BYTES)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=_KEY_BYTES)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def parse_credential(section: str, key: str, text: str) -> tuple[int, int, int, bytes, bytes]:
    """The parameters, salt and hash of a credential.

    Raises:
        ConfigError: Not a credential made by `hash_password`, naming section and key.
    """
    parts = text.split("$")
    try:
        if len(parts) != 6 or parts[0] != "scrypt":
            raise ValueError("not six $-separated fields starting with scrypt")
        n, r, p = (int(x) for x in parts[1:4])
        salt, digest = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
        if n < 2**10 or r < 1 or p < 1 or not salt or len(digest) < 16:
            raise ValueError("parameters too weak")
    except ValueError as exc:
        raise ConfigError(f"[{section}] {key}: not a credential from `shoectl console "
                          f"hash-password` ({exc})") from None
    return n, r, p, salt, digest


def check_password(credential: str, password: str) -> bool:
    """True when `password` is the one `credential` was made from."""
    n, r, p, salt, digest = parse_credential("console", "pit_credential", credential)
    given = hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, dklen=len(digest),
                           maxmem=256 * 1024 * 1024)
    return hmac.compare_digest(given, digest)
