"""The floor's pit view, served by the floor process (`shoectl floor serve`, `[view]`).

One page for every table of the floor: status, game, round, faults, link state (from the
MQTT last wills), the journal's state on the floor, and each link group's meter with its last
25 hits. Read-only, behind HTTP Basic authentication as the table's pit view is. The page polls
`GET /api/floor` (docs/floor-protocol.md "The floor's pit view"). Who may see it: the
`[view]` user (a supervisor) and the users of role supervisor or attendant of the floor's
credentials file (`shoectl console user add NAME --role ROLE --config FLOOR_CONFIG`).

Surveillance's page, `/surveillance`, polls `GET /api/surveillance`: the advantage-play
alerts (docs/reference/metrics.md), for users of role surveillance alone; every other
credential gets 403 there, and a surveillance user gets 403 on the pit pages (decision 050).

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
from collections.abc import Callable
from importlib import resources
from typing import Any, Final

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


PIT_ROLES: Final = frozenset({"supervisor", "attendant"})
SURVEILLANCE_ROLES: Final = frozenset({"surveillance"})
ANY_ROLE: Final = PIT_ROLES | SURVEILLANCE_ROLES


def floor_app(view: FloorView, user: str, credential: str,
              backoff: LoginBackoff | None = None, *, accounts: Accounts | None = None,
              alerts: Callable[[], list[dict[str, Any]]] = list) -> Starlette:
    """The floor view's application.

    Args:
        view: The floor's tables and meters.
        user: The `[view]` user (a supervisor).
        credential: Its scrypt credential.
        backoff: The failed logins (a test's, on its clock).
        accounts: The floor's credentials file's users (None: the `[view]` user alone).
        alerts: Surveillance's alerts, newest first.

    Raises:
        ConfigError: `credential` is not one `shoectl console hash-password` made.
    """
    parse_credential("view", "credential", credential)
    gate = Gate(accounts or Accounts(None), _NO_COOKIE, _lock_log(),
                legacy=(user, credential), backoff=backoff)

    async def refusal(request: Request, roles: frozenset[str]) -> Response | None:
        return await _refusal(gate, request, roles)

    def static(name: str, media: str, roles: frozenset[str]) -> Route:
        async def page(request: Request) -> Response:
            refused = await refusal(request, roles)
            if refused is not None:
                return refused
            text = resources.files("controller.web").joinpath(f"static/{name}").read_text(
                "utf-8")
            return Response(text, media_type=f"{media}; charset=utf-8",
                            headers={"Cache-Control": "no-store"})
        path = {"floor.html": "/", "surveillance.html": "/surveillance"}.get(name, f"/{name}")
        return Route(path, page)

    async def state(request: Request) -> Response:
        refused = await refusal(request, PIT_ROLES)
        if refused is not None:
            return refused
        return JSONResponse(view.snapshot(), headers={"Cache-Control": "no-store"})

    async def surveillance(request: Request) -> Response:
        refused = await refusal(request, SURVEILLANCE_ROLES)
        if refused is not None:
            return refused
        return JSONResponse({"alerts": alerts()}, headers={"Cache-Control": "no-store"})

    return Starlette(routes=[static("floor.html", "text/html", PIT_ROLES),
                             static("floor.js", "text/javascript", PIT_ROLES),
                             static("hours_chart.js", "text/javascript", PIT_ROLES),
                             static("surveillance.html", "text/html", SURVEILLANCE_ROLES),
                             static("surveillance.js", "text/javascript", SURVEILLANCE_ROLES),
                             static("console.css", "text/css", ANY_ROLE),
                             Route("/api/floor", state),
                             Route("/api/surveillance", surveillance)])


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


async def _refusal(gate: Gate, request: Request, roles: frozenset[str]) -> Response | None:
    """None when the request carries the credential of a user of one of `roles`."""
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
    if found is None:
        return _challenge()
    if found.role not in roles:
        return JSONResponse({"error": f"{found.role} may not see this page"}, status_code=403)
    return None


def _too_many(refused: Refusal) -> Response:
    return JSONResponse({"error": refused.error}, status_code=429,
                        headers={"Retry-After": str(refused.retry_after)})
