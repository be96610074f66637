"""The pit view's login: the supervisor's credential typed into a form, a session cookie after.

`POST /login` (the login page's form, `application/x-www-form-urlencoded`: `user`,
`password`) checks the credential (`controller.web.credentials.check_password`) and answers
303 to `/` with a session cookie (`shoectl_pit`: 256 random bits, `HttpOnly`,
`SameSite=Strict`, `Path=/`, for `SESSION_S`), or 303 to `/login?failed=1` (nothing else
said). The credential travels only in that POST's body: never in a URL, never in a log line
(the server keeps no access log; nothing here logs the body). `POST /logout` ends the session.

Sessions live in memory only (a restart of `shoectl run` logs everyone out) and end
`SESSION_S` after the login; at most `MAX_SESSIONS` are open (the oldest goes first). A page
asked for without a session is answered 303 to `/login`; an API path 401. A POST carried by
the cookie from a page of another origin (its `Origin` header names another host) is refused
(403): the cookie's `SameSite=Strict` already keeps browsers from sending it, this is the
second lock. HTTP Basic (`curl -u`) is still accepted on every path for scripts.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Final
from urllib.parse import parse_qs, urlsplit

from starlette.requests import Request

SESSION_COOKIE: Final = "shoectl_pit"
SESSION_S: Final = 12 * 3600
"""A session's life from its login (a shift)."""
MAX_SESSIONS: Final = 64
MAX_FORM_BYTES: Final = 4096
"""A login form larger than this is refused unread (a user name and a password)."""


class PitSessions:
    """The open sessions: token -> (user, end on the clock).

    Args:
        clock: Monotonic seconds (injected in tests).
        lifetime: A session's life from its login.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 lifetime: float = SESSION_S) -> None:
        self._clock = clock
        self._lifetime = lifetime
        self._open: OrderedDict[str, tuple[str, float]] = OrderedDict()

    def open(self, user: str) -> str:
        """A new session for `user`; its token (the cookie's value)."""
        token = secrets.token_urlsafe(32)
        self._open[token] = (user, self._clock() + self._lifetime)
        while len(self._open) > MAX_SESSIONS:
            self._open.popitem(last=False)
        return token

    def user_of(self, token: str | None) -> str | None:
        """The user of a live session (None: no such session, or it ended)."""
        if not token:
            return None
        kept = self._open.get(token)
        if kept is None:
            return None
        if self._clock() >= kept[1]:
            del self._open[token]
            return None
        return kept[0]

    def close(self, token: str | None) -> None:
        """End a session (idempotent)."""
        if token:
            self._open.pop(token, None)

    def of(self, request: Request) -> str | None:
        """The user of the request's session cookie (None without a live one)."""
        return self.user_of(request.cookies.get(SESSION_COOKIE))


def login_fields(body: bytes) -> tuple[str, str] | None:
    """`user` and `password` of a login form's body (None: not such a form)."""
    if len(body) > MAX_FORM_BYTES:
        return None
    try:
        fields = parse_qs(body.decode("utf-8"), strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        return None
    user, password = fields.get("user", [""]), fields.get("password", [""])
    if len(user) != 1 or len(password) != 1:
        return None
    return user[0], password[0]


def cookie_header(token: str) -> str:
    """The `Set-Cookie` value of a new session."""
    return (f"{SESSION_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; "
            f"Max-Age={SESSION_S}")


def expired_cookie_header() -> str:
    """The `Set-Cookie` value that ends the browser's session cookie."""
    return f"{SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"


def same_origin(request: Request) -> bool:
    """False when the request's `Origin` names another host than the one it was sent to."""
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not sent by a page of another origin (a browser would say so)
    return urlsplit(origin).netloc == request.headers.get("host", "")
