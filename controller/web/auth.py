"""Who is asking, and whether they may: sessions, logins that back off, the request's principal.

A request is authenticated by a session cookie (`POST /api/login` with a user's password or
a device token; the pit view's form too), by `Authorization: Bearer TOKEN` (a device token),
or at the pit view by HTTP Basic (a user's password, or the deprecated `pit_user` /
`pit_credential`). `Gate.principal` says who it is (None: nobody, 401); the routes say what
each principal may do (403). A state-changing request carried by a cookie must come from a
page of the same origin (`Origin` names the host the request was sent to); a bearer token is
not sent by browsers on their own, so it needs no `Origin`.

A device's launcher (the kiosk's: `shoectl console kiosk`) trades its token for a one-time
login code (`LoginCodes`: 256 random bits, good once, for `CODE_S`), so that the page is
opened with the code in its address and the token is on no command line.

Failed logins back off (`LoginBackoff`) per user name and per client address: after
`FREE_FAILURES` failures every attempt is refused unchecked with 429 and `Retry-After` for a
time that doubles with each further failure, capped at `MAX_LOCK_S`; the start of each lock is
journalled. A wrong user name costs the same scrypt as a wrong password
(`Accounts.password`). Logging out, or a session's end, closes its event streams.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from starlette.requests import Request

from controller.web.accounts import Accounts, Principal
from controller.web.credentials import check_password

SESSION_S: Final = 12 * 3600
"""A session's life from its login (a shift)."""
MAX_SESSIONS: Final = 256
FREE_FAILURES: Final = 5
"""Failed logins of a user, or from an address, before the backoff starts."""
FIRST_LOCK_S: Final = 1.0
MAX_LOCK_S: Final = 15 * 60.0
MAX_TRACKED: Final = 4096
"""User names and addresses whose failures are remembered (the oldest forgotten first)."""
SCRYPT_AT_ONCE: Final = 2
"""Password checks running together (each takes 16 MiB and a core for tens of ms)."""

JournalRecorder = Callable[[str, dict[str, object]], None]
"""Appends one record to the table's journal (from the web loop; it posts to the table)."""


@dataclass
class Session:
    """One logged-in client: who, until when, and what to close when it ends."""

    principal: Principal
    ends: float
    closers: set[Callable[[], None]] = field(default_factory=set)

    def end(self) -> None:
        """Close every event stream of the session (web loop)."""
        for close in list(self.closers):
            close()
        self.closers.clear()


class Sessions:
    """The open sessions: token -> `Session` (web loop only).

    Args:
        clock: Monotonic seconds (injected in tests).
        lifetime: A session's life from its login.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 lifetime: float = SESSION_S) -> None:
        self.clock = clock
        self.lifetime = lifetime
        self._open: OrderedDict[str, Session] = OrderedDict()

    def open(self, principal: Principal) -> str:
        """A new session; its token (the cookie's value)."""
        token = secrets.token_urlsafe(32)
        self._open[token] = Session(principal, self.clock() + self.lifetime)
        while len(self._open) > MAX_SESSIONS:
            self._open.popitem(last=False)[1].end()
        return token

    def get(self, token: str | None) -> Session | None:
        """The live session of `token` (None: none, or it ended: its streams are closed)."""
        if not token:
            return None
        session = self._open.get(token)
        if session is None:
            return None
        if self.clock() >= session.ends:
            del self._open[token]
            session.end()
            return None
        return session

    def close(self, token: str | None) -> None:
        """End a session and its streams (idempotent)."""
        session = self._open.pop(token, None) if token else None
        if session is not None:
            session.end()

    def user_of(self, token: str | None) -> str | None:
        """The user name of a live session (None without one)."""
        session = self.get(token)
        return session.principal.name if session is not None else None


CODE_S: Final = 30.0
"""How long a one-time login code is good for (a launcher opens its page at once)."""
MAX_CODES: Final = 16
"""One-time codes not yet used that one server keeps (the oldest forgotten first)."""


class LoginCodes:
    """One-time login codes: each logs in once as the device that asked for it (web loop).

    A code is kept as its SHA-256, so looking it up says nothing of codes by its timing.

    Args:
        clock: Monotonic seconds (the sessions').
        lifetime: How long a code is good for.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 lifetime: float = CODE_S) -> None:
        self.clock = clock
        self.lifetime = lifetime
        self._open: OrderedDict[bytes, tuple[Principal, float]] = OrderedDict()

    def issue(self, principal: Principal) -> str:
        """A new code that logs in as `principal` once, within `lifetime`."""
        code = secrets.token_urlsafe(32)
        self._open[hashlib.sha256(code.encode()).digest()] = (principal,
                                                              self.clock() + self.lifetime)
        while len(self._open) > MAX_CODES:
            self._open.popitem(last=False)
        return code

    def redeem(self, code: str) -> Principal | None:
        """Who `code` logs in as (None: unknown, used already, or expired); used up now."""
        kept = self._open.pop(hashlib.sha256(code.encode()).digest(), None)
        if kept is None or self.clock() >= kept[1]:
            return None
        return kept[0]


class LoginBackoff:
    """Failed logins per key (`user:NAME`, `address:IP`) and the lock they earn.

    Args:
        clock: Monotonic seconds.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()

    def wait_s(self, *keys: str) -> float:
        """Seconds before any of `keys` may try again (0: now)."""
        now = self.clock()
        return max((self._until(key) - now for key in keys), default=0.0) if keys else 0.0

    def _until(self, key: str) -> float:
        count, last = self._failures.get(key, (0, 0.0))
        return last + lock_s(count) if count >= FREE_FAILURES else 0.0

    def failed(self, *keys: str) -> list[tuple[str, int, float]]:
        """Count a failure for each key; each key whose lock starts: (key, failures, s)."""
        now, locked = self.clock(), []
        for key in keys:
            count = self._failures.pop(key, (0, 0.0))[0] + 1
            self._failures[key] = (count, now)
            if count >= FREE_FAILURES:
                locked.append((key, count, lock_s(count)))
        while len(self._failures) > MAX_TRACKED:
            self._failures.popitem(last=False)
        return locked

    def succeeded(self, *keys: str) -> None:
        """Forget the failures of `keys`."""
        for key in keys:
            self._failures.pop(key, None)


def lock_s(failures: int) -> float:
    """The lock after `failures` failures: 1 s after the fifth, doubling, at most 15 min."""
    if failures < FREE_FAILURES:
        return 0.0
    return min(MAX_LOCK_S, FIRST_LOCK_S * 2.0 ** min(failures - FREE_FAILURES, 30))


@dataclass(frozen=True, slots=True)
class Refusal:
    """A request or a login refused: the status, its one-line reason, `Retry-After`."""

    status: int
    error: str
    retry_after: int = 0


class Gate:
    """The credentials one server checks.

    Args:
        accounts: The users and device tokens.
        cookie: The session cookie's name (the console's, the pit view's).
        journal: Appends a journal record (lock-outs, refusals).
        legacy: The pit view's deprecated `(pit_user, pit_credential)`, or None.
        sessions: The open sessions (a test's, on its clock).
        backoff: The failed logins (a test's, on its clock).
        hint: The 401's error: how to log in here.
    """

    def __init__(self, accounts: Accounts, cookie: str, journal: JournalRecorder, *,
                 legacy: tuple[str, str] | None = None, sessions: Sessions | None = None,
                 backoff: LoginBackoff | None = None, hint: str = "") -> None:
        self.accounts = accounts
        self.cookie = cookie
        self.hint = hint or ("log in first: POST /api/login with a user and password or a "
                             "token, or send Authorization: Bearer TOKEN")
        self.journal = journal
        self.legacy = legacy
        self.sessions = sessions or Sessions()
        self.backoff = backoff or LoginBackoff(self.sessions.clock)
        self.codes = LoginCodes(self.sessions.clock)
        self._scrypt = asyncio.Semaphore(SCRYPT_AT_ONCE)

    # ------------------------------------------------------------------ who is asking
    def session_of(self, request: Request) -> tuple[str, Session] | None:
        """The request's session cookie and its live session (None: none)."""
        token = request.cookies.get(self.cookie)
        session = self.sessions.get(token)
        if token is None or session is None:
            return None
        if not self.accounts.valid(session.principal) and not session.principal.legacy:
            self.sessions.close(token)  # the user was removed or the token replaced
            return None
        return token, session

    async def principal(self, request: Request) -> tuple[Principal | None, Refusal | None]:
        """Who the request acts for, or why it is refused (None, None: no credential).

        A cookie-carried request that changes something must come from the same origin.
        """
        header = request.headers.get("authorization", "")
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer":
            found = self.accounts.token(value.strip())
            return (found, None) if found else (None, Refusal(401, "unknown token"))
        if scheme.lower() == "basic" and self.legacy is not None:
            return await self._basic(request, value)
        kept = self.session_of(request)
        if kept is None:
            return None, None
        if request.method not in ("GET", "HEAD") and not same_origin(request, required=True):
            return None, Refusal(403, "refused: a change must come from a page of this "
                                      "origin (or carry a bearer token)")
        return kept[1].principal, None

    async def _basic(self, request: Request, value: str
                     ) -> tuple[Principal | None, Refusal | None]:
        try:
            name, _, password = base64.b64decode(value).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return None, Refusal(401, "malformed Basic credential")
        found, refusal = await self.login(name, password, client_address(request))
        if refusal is not None and refusal.status == 401:
            return None, None  # answered as no credential: log in first
        return found, refusal

    # ------------------------------------------------------------------ logging in
    async def login(self, name: str, password: str, address: str
                    ) -> tuple[Principal | None, Refusal | None]:
        """Check a user's password, backing off per user and per address.

        The legacy pit credential is checked too where it is configured (same cost).
        """
        keys = (f"user:{name}", f"address:{address}")
        wait = self.backoff.wait_s(*keys)
        if wait > 0:
            return None, Refusal(429, "too many failed logins: try again later",
                                 math.ceil(wait))
        async with self._scrypt:
            found = await asyncio.to_thread(self._check, name, password)
        if found is None:
            for key, failures, seconds in self.backoff.failed(*keys):
                self.journal("console:login_locked", {"key": key, "failures": failures,
                                                      "seconds": seconds})
            return None, Refusal(401, "wrong user or password")
        self.backoff.succeeded(*keys)
        return found, None

    def _check(self, name: str, password: str) -> Principal | None:
        if self.legacy is not None and hmac.compare_digest(name.encode(),
                                                           self.legacy[0].encode()):
            if check_password(self.legacy[1], password):
                return Principal("supervisor", name, legacy=True)
            return None
        return self.accounts.password(name, password)

    async def token_login(self, token: str, address: str
                          ) -> tuple[Principal | None, Refusal | None]:
        """Check a device token, backing off per address.

        Tokens cannot be guessed, but a client trying them is refused all the same.
        """
        return self._device_login(self.accounts.token, token, address, "unknown token")

    async def code_login(self, code: str, address: str
                         ) -> tuple[Principal | None, Refusal | None]:
        """Redeem a one-time login code, backing off per address as a token does.

        The code's device must still hold its token (one replaced since is refused).
        """
        def redeem(given: str) -> Principal | None:
            found = self.codes.redeem(given)
            return found if found is not None and self.accounts.valid(found) else None
        return self._device_login(redeem, code, address,
                                  "unknown, used or expired login code")

    def _device_login(self, check: Callable[[str], Principal | None], given: str,
                      address: str, unknown: str) -> tuple[Principal | None, Refusal | None]:
        key = f"address:{address}"
        wait = self.backoff.wait_s(key)
        if wait > 0:
            return None, Refusal(429, "too many failed logins: try again later",
                                 math.ceil(wait))
        found = check(given)
        if found is None:
            for locked, failures, seconds in self.backoff.failed(key):
                self.journal("console:login_locked", {"key": locked, "failures": failures,
                                                      "seconds": seconds})
            return None, Refusal(401, unknown)
        return found, None

    def bearer(self, request: Request) -> Principal | None:
        """The device whose token the request carries as a bearer token (None: none)."""
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        return self.accounts.token(value.strip()) if scheme.lower() == "bearer" else None


def client_address(request: Request) -> str:
    """The client's IP address ("" when the server does not know it)."""
    return request.client.host if request.client is not None else ""


def same_origin(request: Request, *, required: bool = False) -> bool:
    """Whether the request's `Origin` names the host it was sent to.

    Without an `Origin` header: `not required` (a browser sends it with every POST).
    """
    origin = request.headers.get("origin")
    if origin is None:
        return not required
    return urlsplit(origin).netloc == request.headers.get("host", "")
