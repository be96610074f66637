"""The journal key: the per-table HMAC-SHA256 secret that the journal file does not hold.

Key file format (one line of ASCII): `shoectl-journal-key 1 <64 hex digits>` and a newline;
the 32 bytes are the HMAC-SHA256 key. The file must be readable by its owner alone (mode
0400 or 0600): a key readable by group or others is refused.

Where the key is (`key_file_for`): `$SHOECTL_JOURNAL_KEY` when set; else, for the
appliance's state directory `/var/lib/shoectl`, `/etc/shoectl/journal.key` (made by
`shoectl install`, owned by the service user, mode 0400, in a root-owned directory the
service cannot write); else (development trees, tests, `shoectl simulate`) the file
`<state dir>.journal-key` beside the state directory, created when a new journal is
started there. Only a key outside the appliance's default is ever created on first start:
the appliance's key comes from the installer, and a missing one refuses the start.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from controller.journal.errors import JournalKeyError
from controller.journal.statedir import DEFAULT_STATE_DIR, sync_directory

KEY_ENV: Final = "SHOECTL_JOURNAL_KEY"
APPLIANCE_KEY_FILE: Final = Path("/etc/shoectl/journal.key")
KEY_SUFFIX: Final = ".journal-key"
_MAGIC: Final = "shoectl-journal-key 1 "
_KEY_BYTES: Final = 32


@dataclass(frozen=True, slots=True)
class JournalKey:
    """A loaded journal key.

    Attributes:
        path: The key file it came from.
        secret: The 32-byte HMAC key (kept out of `repr`).
    """

    path: Path
    secret: bytes = field(repr=False)

    @property
    def key_id(self) -> str:
        """A public name of the key (16 hex digits), which reveals nothing of it."""
        return self.mac("key-id")[:16]

    def mac(self, text: str) -> str:
        """HMAC-SHA256 of `text` (UTF-8) under this key, as hex."""
        return hmac.new(self.secret, text.encode(), hashlib.sha256).hexdigest()


def key_file_for(state_dir: Path) -> Path:
    """Where the key of the journal in `state_dir` is (see the module docstring)."""
    explicit = os.environ.get(KEY_ENV)
    if explicit:
        return Path(explicit)
    if state_dir.absolute() == DEFAULT_STATE_DIR:
        return APPLIANCE_KEY_FILE
    return state_dir.parent / (state_dir.name + KEY_SUFFIX)


def may_create_on_first_start(path: Path) -> bool:
    """True when a missing key at `path` may be made for a new journal.

    Never the appliance's key, nor one named by `$SHOECTL_JOURNAL_KEY`: those are made on
    purpose (by `shoectl install`, or by whoever set the variable), never on a start.
    """
    return path.name.endswith(KEY_SUFFIX) and not os.environ.get(KEY_ENV)


def load_key(path: Path) -> JournalKey:
    """Read the key file at `path`.

    Raises:
        JournalKeyError: the file is missing, unreadable, readable by others, or not a key.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise JournalKeyError(f"journal key {path}: missing (the appliance's is made by "
                              "`shoectl install`; without it no journal can be checked)"
                              ) from None
    except OSError as exc:
        raise JournalKeyError(f"journal key {path}: cannot open: {exc.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise JournalKeyError(f"journal key {path}: not a regular file")
        if mode & 0o077:
            raise JournalKeyError(f"journal key {path}: mode {stat.S_IMODE(mode):04o} lets "
                                    "others read it (it must be 0400 or 0600)")
        raw = os.read(fd, 256)
    except OSError as exc:
        raise JournalKeyError(f"journal key {path}: cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    return JournalKey(path, _parse(path, raw))


def _parse(path: Path, raw: bytes) -> bytes:
    text = raw.decode("ascii", errors="replace")
    digits = text[len(_MAGIC):].rstrip("\n") if text.startswith(_MAGIC) else ""
    try:
        secret = bytes.fromhex(digits)
    except ValueError:
        secret = b""
    if len(secret) != _KEY_BYTES or not text.endswith("\n") or text.count("\n") != 1:
        raise JournalKeyError(f"journal key {path}: not a journal key file (expected one "
                                f"line `{_MAGIC}<64 hex digits>`)")
    return secret


def create_key(path: Path, owner: tuple[int, int] | None = None) -> JournalKey:
    """Make a new random key file at `path` (mode 0400, whatever the umask); never replaces one.

    Args:
        path: The key file to create (its directory must exist).
        owner: (uid, gid) to give the file, when run as root for the service user.

    Raises:
        JournalKeyError: a file is already there, or it cannot be written.
    """
    secret = secrets.token_bytes(_KEY_BYTES)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o400)
    except FileExistsError:
        raise JournalKeyError(f"journal key {path}: already exists (never replaced: the "
                                "journal written under it could no longer be checked)") from None
    except OSError as exc:
        raise JournalKeyError(f"journal key {path}: cannot create: {exc.strerror}") from None
    try:
        os.fchmod(fd, 0o400)
        if owner is not None:
            os.fchown(fd, *owner)
        os.write(fd, f"{_MAGIC}{secret.hex()}\n".encode())
        os.fsync(fd)
    except OSError as exc:
        os.close(fd)
        path.unlink(missing_ok=True)
        raise JournalKeyError(f"journal key {path}: cannot write: {exc.strerror}") from None
    os.close(fd)
    sync_directory(path.parent)
    return JournalKey(path, secret)

