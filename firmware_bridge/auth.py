"""Pairing keys, session keys and frame tags: the authentication of protocol version 2.

A board and the host share a 32-byte **pairing key**. Each session derives two **session
keys** (one per direction) from it and the two 16-byte nonces of the session's RESET and
RESET_ACK, and every frame carries a **tag**: HMAC-SHA256 over the frame's header, payload
and frame counter, truncated to 8 bytes. A board without a key (auth mode `none`, bench
rigs only) uses the all-zero key: the same computation, but no secret. PROTOCOL.md,
"Authentication", is the normative description; this module is pure (the key-file helpers
excepted) and uses only the standard library's `hmac`, `hashlib` and `secrets`.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import Final

from firmware_bridge.errors import KeyFileError

KEY_SIZE: Final = 32
NONCE_SIZE: Final = 16
TAG_SIZE: Final = 8
COUNTER_SIZE: Final = 4
MAX_COUNTER: Final = 0xFFFF_FFFF
NO_KEY: Final = bytes(KEY_SIZE)
"""The key of auth mode `none`: the tags are computed, but anyone can compute them."""
KEY_ID_LABEL: Final = b"firmware_bridge v2 key id"
HOST_TO_BOARD_LABEL: Final = b"firmware_bridge v2 host->board"
BOARD_TO_HOST_LABEL: Final = b"firmware_bridge v2 board->host"
_KEY_TEXT_LEN: Final = 2 * KEY_SIZE


class AuthMode(IntEnum):
    """How an end authenticates (the first payload byte of RESET, RESET_ACK, NO_SESSION)."""

    NONE = 0
    PAIRED = 1


@dataclass(frozen=True, slots=True)
class PairingKey:
    """The secret a board and the host share (never shown: `repr` and logs give `key_id`).

    Attributes:
        secret: the 32 key bytes.

    Raises:
        ValueError: if `secret` is not 32 bytes or is all zeros (that is auth mode `none`).
    """

    secret: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.secret) != KEY_SIZE:
            raise ValueError(f"a pairing key is {KEY_SIZE} bytes, not {len(self.secret)}")
        if self.secret == NO_KEY:
            raise ValueError("the all-zero key is auth mode 'none', not a pairing key")

    @classmethod
    def generate(cls) -> PairingKey:
        """A fresh random key from the operating system's generator."""
        while True:
            secret = secrets.token_bytes(KEY_SIZE)
            if secret != NO_KEY:
                return cls(secret)

    @classmethod
    def from_text(cls, text: str) -> PairingKey:
        """Parse the key-file text: 64 hexadecimal digits (surrounding whitespace ignored).

        Raises:
            ValueError: the text is not 64 hex digits of a usable key.
        """
        digits = text.strip()
        if len(digits) != _KEY_TEXT_LEN:
            raise ValueError(f"expected {_KEY_TEXT_LEN} hex digits, found {len(digits)} "
                             "characters")
        try:
            secret = bytes.fromhex(digits)
        except ValueError:
            raise ValueError(f"expected {_KEY_TEXT_LEN} hex digits, found other "
                             "characters") from None
        return cls(secret)

    def to_text(self) -> str:
        """The key-file text: 64 lower-case hex digits and a newline."""
        return self.secret.hex() + "\n"

    @property
    def key_id(self) -> str:
        """A public name of the key: 16 hex digits of HMAC(key, "firmware_bridge v2 key id")."""
        return hmac.new(self.secret, KEY_ID_LABEL, hashlib.sha256).digest()[:8].hex()


def mode_of(key: PairingKey | None) -> AuthMode:
    """PAIRED for a key, NONE for no key."""
    return AuthMode.NONE if key is None else AuthMode.PAIRED


def auth_status(key: PairingKey | None) -> str:
    """One line for status lines and logs: `paired (key <id>)` or `none (UNAUTHENTICATED)`."""
    return "none (UNAUTHENTICATED)" if key is None else f"paired (key {key.key_id})"


def secret_of(key: PairingKey | None) -> bytes:
    """The bytes the tags of RESET and NO_SESSION are computed with."""
    return NO_KEY if key is None else key.secret


@dataclass(frozen=True, slots=True)
class SessionKeys:
    """The two keys of one session, derived from the pairing key and both nonces."""

    host_to_board: bytes = field(repr=False)
    board_to_host: bytes = field(repr=False)


def derive_session_keys(key: PairingKey | None, host_nonce: bytes,
                        board_nonce: bytes) -> SessionKeys:
    """HMAC-SHA256(pairing key, label || host nonce || board nonce), once per direction."""
    secret, nonces = secret_of(key), host_nonce + board_nonce
    return SessionKeys(
        hmac.new(secret, HOST_TO_BOARD_LABEL + nonces, hashlib.sha256).digest(),
        hmac.new(secret, BOARD_TO_HOST_LABEL + nonces, hashlib.sha256).digest(),
    )


def frame_tag(key: bytes, covered: bytes) -> bytes:
    """The 8-byte tag of a frame: HMAC-SHA256(key, covered bytes), first 8 bytes."""
    return hmac.new(key, covered, hashlib.sha256).digest()[:TAG_SIZE]


def tag_matches(key: bytes, covered: bytes, tag: bytes) -> bool:
    """True when `tag` is the tag of `covered` under `key` (constant-time comparison)."""
    return hmac.compare_digest(frame_tag(key, covered), tag)


def new_nonce() -> bytes:
    """A fresh 16-byte nonce from the operating system's generator (never all zeros)."""
    while True:
        nonce = secrets.token_bytes(NONCE_SIZE)
        if any(nonce):
            return nonce


# ---------------------------------------------------------------- key files


def read_key_file(path: Path) -> PairingKey:
    """Read a pairing key file (64 hex digits), refusing one that other users may read.

    Raises:
        KeyFileError: naming the file and what is wrong with it.
    """
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise KeyFileError(f"{path}: cannot read the pairing key ({reason})") from None
    if mode & (stat.S_IROTH | stat.S_IWOTH):
        raise KeyFileError(
            f"{path}: the pairing key is readable by every user (mode {stat.S_IMODE(mode):04o});"
            " allow only its owner and group (chmod 0640)")
    try:
        return PairingKey.from_text(text)
    except ValueError as error:
        raise KeyFileError(f"{path}: not a pairing key: {error}") from None


def write_key_file(path: Path, key: PairingKey, *, group: int | None = None) -> None:
    """Create `path` holding `key`, readable by its owner (and `group`, when given) only.

    Raises:
        KeyFileError: the file exists already or cannot be written (naming it).
    """
    mode = 0o640 if group is not None else 0o600
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise KeyFileError(f"{path}: a pairing key is there already (the board it "
                                  "belongs to would be refused if it were replaced)") from None
    except OSError as error:
        raise KeyFileError(f"{path}: cannot write the pairing key "
                                  f"({error.strerror or error})") from None
    try:
        if group is not None:
            os.fchown(fd, -1, group)
        os.fchmod(fd, mode)
        os.write(fd, key.to_text().encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
