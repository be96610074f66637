"""The session cookies and the pit view's login form.

`POST /login` (the pit view's form, `application/x-www-form-urlencoded`: `user`, `password`)
and `POST /api/login` (JSON, both servers) answer a session cookie: 256 random bits,
`HttpOnly`, `SameSite=Strict`, `Path=/`, `Secure` when the page came over TLS, for the
session's life (`controller.web.auth`). The credential travels only in that POST's body:
never in a URL, never in a log line (the server keeps no access log; nothing here logs the
body).
"""

from __future__ import annotations

from typing import Final
from urllib.parse import parse_qs

from starlette.requests import Request

from controller.web.auth import SESSION_S

CONSOLE_COOKIE: Final = "shoectl_session"
SESSION_COOKIE: Final = "shoectl_pit"
"""The pit view's cookie."""
MAX_FORM_BYTES: Final = 4096
"""A login form larger than this is refused unread (a user name and a password)."""


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


def cookie_header(name: str, token: str, request: Request, path: str = "/") -> str:
    """The `Set-Cookie` value of a new session (`Secure` over TLS).

    A station's session is sent only with its own paths (`/api/station/N`): a browser
    holding several stations' pages keeps each page's session apart.
    """
    secure = "; Secure" if request.url.scheme == "https" else ""
    return (f"{name}={token}; HttpOnly; SameSite=Strict; Path={path}; Max-Age={SESSION_S}"
            f"{secure}")


def expired_cookie_header(name: str) -> str:
    """The `Set-Cookie` value that ends the browser's session cookie."""
    return f"{name}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"
