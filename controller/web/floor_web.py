"""The floor's pit view, served by the floor process (`shoectl floor serve`, `[view]`).

One page for every table of the floor: status, game, round, faults, link state (from the
MQTT last wills), the journal's state on the floor, and each link group's meter with its last
25 hits. Read-only, behind HTTP Basic authentication as the table's pit view is. The page polls
`GET /api/floor` (docs/floor-protocol.md "The floor's pit view").

Guessing is slow and blind, as at the console's login (`controller.web.auth.Gate`): failed
logins back off per user name and per client address (after 5 failures every attempt is
refused unchecked, 429 with `Retry-After`, for a time that doubles up to 15 minutes), each
lock is logged (at most `routes.JOURNAL_BURST` lines a minute), and a wrong user name costs
the same scrypt as a wrong password.
"""

from __future__ import annotations

import base64
import binascii
import logging
from importlib import resources

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.floor.floor_view import FloorView
from controller.web.accounts import Accounts
from controller.web.auth import Gate, JournalRecorder, LoginBackoff, Refusal, client_address
from controller.web.credentials import parse_credential
from controller.web.routes import RecordLimiter

_LOG = logging.getLogger(__name__)
_NO_COOKIE = "shoectl_floor"  # the Gate's cookie: unused, every request carries Basic


def floor_app(view: FloorView, user: str, credential: str,
              backoff: LoginBackoff | None = None) -> Starlette:
    """The floor view's application (`backoff`: the failed logins, a test's on its clock).

    Raises:
        ConfigError: `credential` is not one `shoectl console hash-password` made.
    """
    parse_credential("view", "credential", credential)
    gate = Gate(Accounts(None), _NO_COOKIE, _lock_log(), legacy=(user, credential),
                backoff=backoff)

    async def refusal(request: Request) -> Response | None:
        return await _refusal(gate, request)

    def static(name: str, media: str) -> Route:
        async def page(request: Request) -> Response:
            refused = await refusal(request)
            if refused is not None:
                return refused
            text = resources.files("controller.web").joinpath(f"static/{name}").read_text(
                "utf-8")
            return Response(text, media_type=f"{media}; charset=utf-8",
                            headers={"Cache-Control": "no-store"})
        return Route(f"/{name}" if name != "floor.html" else "/", page)

    async def state(request: Request) -> Response:
        refused = await refusal(request)
        if refused is not None:
            return refused
        return JSONResponse(view.snapshot(), headers={"Cache-Control": "no-store"})

    return Starlette(routes=[static("floor.html", "text/html"),
                             static("floor.js", "text/javascript"),
                             static("console.css", "text/css"),
                             Route("/api/floor", state)])


def _lock_log() -> JournalRecorder:
    """Logs each lock's start, at most `JOURNAL_BURST` lines a minute."""
    limiter = RecordLimiter()

    def record(_kind: str, data: dict[str, object]) -> None:
        left_out = limiter.admit()
        if left_out is None:
            return
        more = f" ({left_out} more not logged)" if left_out else ""
        _LOG.warning("floor view: login locked for %s after %s failures: %s s%s",
                     data.get("key"), data.get("failures"), data.get("seconds"), more)
    return record


def _challenge() -> Response:
    return Response("credential required\n", status_code=401,
                    headers={"WWW-Authenticate": 'Basic realm="shoectl floor"'})


async def _refusal(gate: Gate, request: Request) -> Response | None:
    """None when the request carries the supervisor's credential, else the answer."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return _challenge()
    try:
        name, _, password = base64.b64decode(value, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return _challenge()
    found, refused = await gate.login(name, password, client_address(request))
    if refused is not None and refused.status == 429:
        return _too_many(refused)
    return None if found is not None else _challenge()


def _too_many(refused: Refusal) -> Response:
    return JSONResponse({"error": refused.error}, status_code=429,
                        headers={"Retry-After": str(refused.retry_after)})
