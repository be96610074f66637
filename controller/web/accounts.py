"""Who may act at the table: the console's users and device tokens, stored beside the config.

`shoectl console user add|list|remove` and `shoectl console token kiosk|board|station N`
keep one JSON file beside the table's configuration (`credentials_path`: `config.toml` ->
`config.credentials.json`), mode 0600, owned by the owner of its directory (the service
user's `/etc/shoectl`):

    {"users": {"D17": {"role": "dealer", "credential": "scrypt$16384$8$1$<salt>$<hash>"}},
     "tokens": {"kiosk": "<sha256 hex>", "station:3": "<sha256 hex>"}}

A password is kept as a salted scrypt hash (`controller.web.credentials`); a token is 256
random bits printed once and kept as its SHA-256 (a token has no dictionary to guess from, so
a slow hash buys nothing). `Accounts.password` costs one scrypt whether the user exists or
not, so the time of a refusal does not tell a wrong user name from a wrong password.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from controller.rules.errors import ConfigError
from controller.web.credentials import check_password, hash_password, parse_credential

_LOG = logging.getLogger(__name__)

ROLES: Final = ("dealer", "supervisor", "attendant", "surveillance")
"""The people's roles (API.md "Authentication" says what each may do)."""
DEVICES: Final = ("kiosk", "board")
"""Device tokens besides the stations': the dealer's screen and the result board."""
NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
"""A user name: 1-32 letters, digits, `.`, `_`, `-` (it appears in journal records)."""
TOKEN_PATTERN: Final = re.compile(r"[A-Za-z0-9_-]{43}")
"""A token as `new_token` makes it (256 bits, URL-safe base64, no padding)."""
_DUMMY_CREDENTIAL: Final = hash_password("no such user: the same work as a real one")


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request acts for.

    Attributes:
        role: `dealer`, `supervisor`, `attendant`, `surveillance` (people), `kiosk`,
            `board` or `station` (devices).
        name: The user name; the device's name for a token (`kiosk`, `board`, `3`).
        station: The station number of a station token (0 otherwise).
        legacy: The pit view's deprecated `pit_user` / `pit_credential` (a supervisor).
    """

    role: str
    name: str
    station: int = 0
    legacy: bool = False

    @property
    def by(self) -> str:
        """How the journal names it: `dealer:D17`, `station:3`, `kiosk` (`pit:NAME`: legacy)."""
        if self.legacy:
            return f"pit:{self.name}"
        if self.role == "station":
            return f"station:{self.station}"
        if self.role in DEVICES:
            return self.role
        return f"{self.role}:{self.name}"


def credentials_path(config: Path) -> Path:
    """The credentials file of the table configured by `config`."""
    return config.with_name(f"{config.stem}.credentials.json")


def new_token() -> str:
    """A fresh device token."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What the file keeps of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def device_key(device: str, station: int = 0) -> str:
    """The file's key of a device token: `kiosk`, `board`, `station:N`."""
    return f"station:{station}" if device == "station" else device


class Accounts:
    """The users and tokens of one credentials file, read again when the file changes.

    Args:
        path: The file (None: nobody; every credential is refused).

    Raises:
        ConfigError: The file is not a credentials file (at start-up; a file broken later
            is logged and the credentials read before are kept).
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._users: dict[str, tuple[str, str]] = {}
        self._tokens: dict[str, Principal] = {}
        self._reload()

    @classmethod
    def of(cls, users: dict[str, tuple[str, str]], tokens: dict[str, str]) -> Accounts:
        """Accounts held in memory: name -> (role, credential); device key -> token."""
        accounts = cls(None)
        accounts._users = dict(users)
        accounts._tokens = {token_digest(token): _device(key) for key, token in tokens.items()}
        return accounts

    def _reload(self) -> None:
        if self.path is None:
            return
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._users, self._tokens, self._stamp = {}, {}, None
            return
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp == self._stamp:
            return
        try:
            data = read_file(self.path)
        except ConfigError as exc:
            if self._stamp is None and not self._users and not self._tokens:
                raise  # at start-up: the service does not start on a broken file
            _LOG.error("%s; the credentials read before are kept", exc)
            self._stamp = stamp
            return
        self._users = {name: (entry["role"], entry["credential"])
                       for name, entry in data["users"].items()}
        self._tokens = {digest: _device(key) for key, digest in data["tokens"].items()}
        self._stamp = stamp

    def password(self, name: str, password: str) -> Principal | None:
        """The user `name` if `password` is theirs (one scrypt either way; any thread)."""
        with self._lock:
            self._reload()
            kept = self._users.get(name)
        role, credential = kept if kept is not None else ("", _DUMMY_CREDENTIAL)
        right = check_password(credential, password)
        return Principal(role, name) if right and kept is not None else None

    def token(self, token: str) -> Principal | None:
        """The device whose token this is (None: no such token)."""
        digest = token_digest(token)
        with self._lock:
            self._reload()
            for kept, principal in self._tokens.items():
                if hmac.compare_digest(kept, digest):
                    return principal
        return None

    def valid(self, principal: Principal) -> bool:
        """Whether `principal` still holds its credential (a removed user, a token replaced)."""
        with self._lock:
            self._reload()
            if principal.role in ROLES:
                kept = self._users.get(principal.name)
                return kept is not None and kept[0] == principal.role
            return principal in self._tokens.values()


def _device(key: str) -> Principal:
    if key.startswith("station:"):
        number = int(key.partition(":")[2])
        return Principal("station", str(number), number)
    return Principal(key, key)


def read_file(path: Path) -> dict[str, Any]:
    """The file's users and tokens, checked.

    Raises:
        ConfigError: Not such a file, naming it and what is wrong.
    """
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return {"users": {}, "tokens": {}}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: not a credentials file ({exc})") from None
    if not isinstance(data, dict) or set(data) != {"users", "tokens"}:
        raise ConfigError(f"{path}: expected an object with \"users\" and \"tokens\"")
    users, tokens = data["users"], data["tokens"]
    if not isinstance(users, dict) or not isinstance(tokens, dict):
        raise ConfigError(f"{path}: \"users\" and \"tokens\" must be objects")
    for name, entry in users.items():
        if not NAME_PATTERN.fullmatch(name) or not isinstance(entry, dict) \
                or entry.get("role") not in ROLES or not isinstance(entry.get("credential"), str):
            raise ConfigError(f"{path}: user {name!r}: expected a name, a role "
                              f"({', '.join(ROLES)}) and a credential")
        parse_credential(f"{path} user {name}", "credential", entry["credential"])
    for key, digest in tokens.items():
        if not (key in DEVICES or re.fullmatch(r"station:[1-9][0-9]{0,2}", key)) \
                or not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise ConfigError(f"{path}: token {key!r}: expected kiosk, board or station:N "
                              "and a SHA-256 digest")
    return data


def write_file(path: Path, data: dict[str, Any], owner: tuple[int, int] | None = None) -> None:
    """Replace the file atomically, mode 0600.

    Run as root, the file keeps the owner it had (the installer makes it the service
    user's), else it gets `owner` (uid, gid), else its directory's.
    """
    directory = path.parent
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), 0o600)
            if os.geteuid() == 0:
                os.fchown(out.fileno(), *_owner_of(path, owner))
            json.dump(data, out, indent=1, sort_keys=True)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _owner_of(path: Path, owner: tuple[int, int] | None) -> tuple[int, int]:
    try:
        kept = path.stat()
    except FileNotFoundError:
        if owner is not None:
            return owner
        kept = path.parent.stat()
    return kept.st_uid, kept.st_gid


def issue_token(config: Path, device: str, station: int = 0,
                owner: tuple[int, int] | None = None) -> str:
    """Make a fresh token for a device of the table configured by `config`; return it.

    The credentials file keeps its digest (replacing the device's old token, whose
    sessions end); `owner` is the file's owner if it is made now (`write_file`).

    Raises:
        ConfigError: The credentials file is not one.
    """
    path = credentials_path(config)
    data = read_file(path)
    token = new_token()
    data["tokens"][device_key(device, station)] = token_digest(token)
    write_file(path, data, owner)
    return token


def holds_token(config: Path, device: str, token: str, station: int = 0) -> bool:
    """Whether `token` is the current token of the device (False: replaced, or none).

    Raises:
        ConfigError: The credentials file is not one.
    """
    kept = read_file(credentials_path(config))["tokens"].get(device_key(device, station))
    return isinstance(kept, str) and hmac.compare_digest(kept, token_digest(token))


def has_token(config: Path, device: str, station: int = 0) -> bool:
    """Whether the device has a token at all.

    Raises:
        ConfigError: The credentials file is not one.
    """
    return device_key(device, station) in read_file(credentials_path(config))["tokens"]
