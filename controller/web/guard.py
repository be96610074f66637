"""The checks every request passes before a route sees it (an ASGI middleware).

- `Host` must name one of the server's hosts (`[console] hosts` and the defaults): else 400.
  A page of another site that rebinds its DNS name to this address is refused by name.
- A request that changes something (not GET/HEAD/OPTIONS) whose `Origin` names another
  origin is 403, whatever it carries; one carried by a cookie must also send an `Origin`
  (`controller.web.auth`).
- A `Content-Length` over `MAX_BODY` is 413 at once, before any of the body is read.
- Each client address may send 20 changes a second (`COMMAND_RATE`, 40 at once) and 50
  reads (`READ_RATE`): beyond, 429 with `Retry-After`, held back `TARPIT_S` so that a
  flooding connection costs one answer a second.
- Every answer carries `Content-Security-Policy: default-src 'self'; frame-ancestors 'none'`
  and `X-Content-Type-Options: nosniff` (no page of this server runs another site's script,
  none is framed by another site, and no answer is taken for another type than it says).

Every refusal is one JSON line `{"error": "..."}`.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from controller.web.limits import MAX_BODY
from controller.web.settings import DEFAULT_HOSTS

SECURITY_HEADERS: Final = (
    (b"content-security-policy", b"default-src 'self'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
)
"""(No `Referrer-Policy: no-referrer`: under it Chromium sends a form's POST with
`Origin: null`, which the origin check must refuse.)"""
TARPIT_S: Final = 1.0
"""How long an answer 429 is held back: a connection over its rate is slowed, not served."""
MAX_CLIENTS: Final = 4096
"""Client addresses whose rates are remembered (the least recent forgotten first)."""
_SAFE: Final = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True, slots=True)
class Rate:
    """A token bucket's refill (per second) and size."""

    per_s: float
    burst: float


COMMAND_RATE: Final = Rate(20.0, 40.0)
"""Changes (commands, logins) an address may send: 20 a second, 40 at once."""
READ_RATE: Final = Rate(50.0, 200.0)
"""Reads (pages, views, streams) an address may ask for: 50 a second, 200 at once."""


@dataclass(frozen=True)
class GuardSettings:
    """What `Guard` checks: the hosts, each address's rates."""

    hosts: frozenset[str] = frozenset(DEFAULT_HOSTS)
    commands: Rate = COMMAND_RATE
    reads: Rate = READ_RATE
    clock: Callable[[], float] = time.monotonic

    def middleware(self) -> Middleware:
        """The middleware with these settings."""
        return Middleware(Guard, settings=self)


DEFAULT_GUARD: Final = GuardSettings()


class Buckets:
    """One token bucket per client address (a command or a read costs one token).

    Args:
        rate: Refill and size.
        clock: Monotonic seconds.
    """

    def __init__(self, rate: Rate, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self._clock = clock
        self._held: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, client: str) -> float:
        """Take a token for `client`: 0 when taken, else the seconds until one is there."""
        now = self._clock()
        tokens, then = self._held.pop(client, (self.rate.burst, now))
        tokens = min(self.rate.burst, tokens + (now - then) * self.rate.per_s)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.rate.per_s
        self._held[client] = (tokens, now)
        while len(self._held) > MAX_CLIENTS:
            self._held.popitem(last=False)
        return wait


class Guard:
    """The middleware (see the module's docstring).

    Args:
        app: The application behind it.
        settings: The hosts (lower case, without a port) and each address's rates.
    """

    def __init__(self, app: ASGIApp, settings: GuardSettings) -> None:
        self.app = app
        self.hosts = settings.hosts
        self.commands = Buckets(settings.commands, settings.clock)
        self.reads = Buckets(settings.reads, settings.clock)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the request, then hand it on with the security headers added."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            status, text, retry = refusal
            if status == 429:  # a client over its rate waits for its answer: a flooding
                await asyncio.sleep(TARPIT_S)  # connection sends one request a second
            await _answer(send, status, text, retry)
            return

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)
        await self.app(scope, receive, secured)

    def _refusal(self, scope: Scope) -> tuple[int, str, int] | None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        name = urlsplit(f"//{host}").hostname if host else None
        if name is None or name.lower() not in self.hosts:
            return 400, f"this server does not answer to the host {host!r}", 0
        changing = scope["method"] not in _SAFE
        origin = headers.get("origin")
        if changing and origin is not None and urlsplit(origin).netloc != host:
            return 403, "refused: sent from a page of another origin", 0
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return 413, f"the body is over {MAX_BODY} bytes (or its length is not a number)", 0
        client = scope["client"][0] if scope.get("client") else ""
        wait = (self.commands if changing else self.reads).take(client)
        if wait > 0:
            return 429, "too many requests from this address: slow down", math.ceil(wait)
        return None


async def _answer(send: Send, status: int, text: str, retry_after: int) -> None:
    body = json.dumps({"error": text}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode()), (b"connection", b"close"),
               *SECURITY_HEADERS]
    if retry_after:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
