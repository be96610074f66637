"""The HTTP routes of the dealer's console and of the pit view (Starlette applications).

Console (`[console] listen`): `/` the page, `GET /api/table`, `POST /api/command`,
`GET /api/events` (Server-Sent Events); on the same server the result board of a roulette
table (the marquee display): `/board`, `GET /api/board`, `GET /api/board/events`; and at a
community table a page per player station: `/station/N`, `GET /api/station/N`,
`POST /api/station/N/command`, `GET /api/station/N/events`. Pit view (`[console] pit_listen`,
the supervisor's credential by the login form, `/login`, or HTTP Basic): `/` the page,
`GET /api/pit`, `GET /api/pit/events`, `POST /api/pit/progressive/settle` (a linked hit
the progressive controller rejected, settled by hand), and at a community table
`POST /api/pit/station/N/credits`. `controller/console/API.md` and
`controller/console/STATIONS.md` are the contract. Every handler reads the
table only through the hub: the loop thread publishes it, commands go back to the loop thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import weakref
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from controller.console import credit_commands, hit_commands, station_commands
from controller.console.commands import CommandError, parse
from controller.console.hub import ConsoleHub, Executor, Published
from controller.web.credentials import basic_authorised, check_password
from controller.web.pit_session import (
    SESSION_COOKIE,
    PitSessions,
    cookie_header,
    expired_cookie_header,
    login_fields,
    same_origin,
)

COMMAND_TIMEOUT_S: Final = 10.0
"""How long a command waits for the loop thread before the client is told it is busy."""
EVENT_QUEUE: Final = 256
"""Publications a slow event-stream client may fall behind before its stream is closed."""
KEEPALIVE_S: Final = 15.0
"""An event-stream comment this often keeps proxies from closing a quiet stream."""

RouteHandler = Callable[[Request], Awaitable[Response]]


def _page(name: str) -> RouteHandler:
    async def page(request: Request) -> Response:
        text = resources.files("controller.web").joinpath(f"static/{name}").read_text("utf-8")
        media = {"html": "text/html", "js": "text/javascript",
                 "css": "text/css"}[name.rpartition(".")[2]]
        return Response(text, media_type=f"{media}; charset=utf-8",
                        headers={"Cache-Control": "no-store"})
    return page


def _latest(hub: ConsoleHub) -> RouteHandler:
    async def latest(request: Request) -> Response:
        published = hub.latest
        if published is None:
            return JSONResponse({"error": "starting"}, status_code=503)
        return Response(published.text, media_type="application/json")
    return latest


Parser = Callable[[object, Request], dict[str, Any]]
"""Checks a request's JSON body (and its path) into a command; raises `CommandError`."""


def _command(hub: ConsoleHub, check: Parser = lambda body, _request: parse(body),
             carry_out: Executor | None = None,
             source: Callable[[Request], str] = lambda _request: "console") -> RouteHandler:
    async def command(request: Request) -> Response:
        if hub.latest is None:
            return JSONResponse({"error": "starting"}, status_code=503)
        try:
            body = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"error": "the body is not JSON"}, status_code=400)
        try:
            parsed = check(body, request)
        except CommandError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        future = (hub.submit(parsed, source(request)) if carry_out is None
                  else hub.submit(parsed, source(request), carry_out))
        try:
            reply = await asyncio.wait_for(asyncio.wrap_future(future), COMMAND_TIMEOUT_S)
        except TimeoutError:
            return JSONResponse({"error": "the table did not answer in time",
                                 "what_to_do": "try again"}, status_code=503)
        return JSONResponse(reply.body, status_code=reply.status)
    return command


def _station_command(body: object, request: Request) -> dict[str, Any]:
    station = int(request.path_params["station"])
    if isinstance(body, dict) and body.get("station", station) != station:
        raise CommandError(f"the body names station {body.get('station')!r}, the path "
                           f"station {station}")
    return station_commands.parse({**body, "station": station} if isinstance(body, dict)
                                  else body)


def _credits_command(body: object, request: Request) -> dict[str, Any]:
    return credit_commands.parse(body, int(request.path_params["station"]))


def _per_station(stations: list[ConsoleHub],
                 handler: Callable[[ConsoleHub], RouteHandler]) -> RouteHandler:
    """The route of station N (from the path) on its own hub; 404 for no such station."""
    handlers = [handler(hub) for hub in stations]

    async def route(request: Request) -> Response:
        number = int(request.path_params["station"])
        if not 1 <= number <= len(handlers):
            return JSONResponse({"error": f"no station {number} (stations 1 to "
                                          f"{len(handlers)})"}, status_code=404)
        return await handlers[number - 1](request)
    return route


def station_routes(stations: list[ConsoleHub]) -> list[Route]:
    """The player stations' pages, views, commands and event streams (STATIONS.md)."""
    page = _page("station.html")

    def station_page(_hub: ConsoleHub) -> RouteHandler:
        return page

    def command(hub: ConsoleHub) -> RouteHandler:
        return _command(hub, _station_command, station_commands.execute,
                        lambda _request: "station")
    return [
        Route("/station/{station:int}", _per_station(stations, station_page)),
        Route("/station.js", _page("station.js")),
        Route("/station.css", _page("station.css")),
        Route("/api/station/{station:int}", _per_station(stations, _latest)),
        Route("/api/station/{station:int}/command", _per_station(stations, command),
              methods=["POST"]),
        Route("/api/station/{station:int}/events", _per_station(stations, _events)),
    ]


def _events(hub: ConsoleHub) -> RouteHandler:
    async def events(request: Request) -> Response:
        return StreamingResponse(_stream(hub, request), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})
    return events


class _Follower:
    """One event-stream client's publications not yet written (web loop only)."""

    def __init__(self) -> None:
        self.pending: deque[Published] = deque()
        self.wake = asyncio.Event()
        self.overflowed = False

    def offer(self, published: Published) -> None:
        """Queue a publication; past `EVENT_QUEUE` unwritten ones the stream is closed."""
        if len(self.pending) >= EVENT_QUEUE:
            self.pending.clear()
            self.overflowed = True
        elif not self.overflowed:
            self.pending.append(published)
        self.wake.set()


class _Courier:
    """Hands publications from the table's loop thread to one web loop, one wake-up a burst.

    A commit publishes to every subscriber in turn (at a community table, one a station);
    waking the web loop for each costs a system call and a turn of the loop apiece. The
    courier queues them and wakes the loop once; the loop then hands each to its stream, in
    the order they were published.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._queued: list[tuple[_Follower, Published]] = []

    def send(self, follower: _Follower, published: Published) -> None:
        """Queue `published` for `follower` (any thread)."""
        with self._lock:
            self._queued.append((follower, published))
            if len(self._queued) > 1:
                return  # the loop is already woken for this burst
        with contextlib.suppress(RuntimeError):  # the web loop closed: nobody is listening
            self._loop.call_soon_threadsafe(self._deliver)

    def _deliver(self) -> None:
        with self._lock:
            queued, self._queued = self._queued, []
        for follower, published in queued:
            follower.offer(published)


_COURIERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Courier] = (
    weakref.WeakKeyDictionary())


def _courier() -> _Courier:
    loop = asyncio.get_running_loop()
    courier = _COURIERS.get(loop)
    if courier is None:
        courier = _COURIERS[loop] = _Courier(loop)
    return courier


async def _stream(hub: ConsoleHub, request: Request) -> AsyncIterator[str]:
    """Every publication from now on, as Server-Sent Events (the current one first).

    Publications that arrived together are written together (one write, each its own
    event); each is encoded once however many clients follow it. The response ends when the
    client disconnects (Starlette cancels the stream) or falls `EVENT_QUEUE` behind.
    """
    courier, follower = _courier(), _Follower()

    def hand_over(published: Published) -> None:
        courier.send(follower, published)

    current = hub.subscribe(hand_over)
    try:
        if current is not None:
            yield current.sse()
        while not await request.is_disconnected():
            try:
                async with asyncio.timeout(KEEPALIVE_S):
                    await follower.wake.wait()
            except TimeoutError:
                yield ": keepalive\n\n"
                continue
            follower.wake.clear()
            if follower.overflowed:
                return  # fell too far behind: the client reconnects and starts afresh
            batch = "".join(published.sse() for published in follower.pending)
            follower.pending.clear()
            yield batch
    finally:
        hub.unsubscribe(hand_over)


def console_app(hub: ConsoleHub, board: ConsoleHub | None = None,
                stations: list[ConsoleHub] | None = None) -> Starlette:
    """The dealer's console, and the result board or the player stations beside it.

    With `board`: the result board of a roulette table; with `stations` (one hub a station):
    the player stations of a community table.
    """
    routes = [
        Route("/", _page("console.html")),
        Route("/console.js", _page("console.js")),
        Route("/common.js", _page("common.js")),
        Route("/console.css", _page("console.css")),
        Route("/holdem.js", _page("holdem.js")),
        Route("/api/table", _latest(hub)),
        Route("/api/command", _command(hub), methods=["POST"]),
        Route("/api/events", _events(hub)),
    ]
    if board is not None:
        routes += [
            Route("/board", _page("board.html")),
            Route("/board.js", _page("board.js")),
            Route("/board.css", _page("board.css")),
            Route("/api/board", _latest(board)),
            Route("/api/board/events", _events(board)),
        ]
    if stations:
        routes += station_routes(stations)
    return Starlette(routes=routes)


def pit_app(hub: ConsoleHub, user: str, credential: str, *,
            stations: bool = False, sessions: PitSessions | None = None) -> Starlette:
    """The supervisor's pit view, behind a login (`controller.web.pit_session`).

    Read-only, but the supervisor settles by hand a linked hit the progressive controller
    rejected (`POST /api/pit/progressive/settle`), and at a community table (`stations`) the
    attendant adds and cashes out the stations' credits here
    (`POST /api/pit/station/N/credits`); both are journalled as `pit:<user>`.
    """
    kept = sessions if sessions is not None else PitSessions()

    def guarded(handler: RouteHandler, *, page: bool = False) -> RouteHandler:
        async def check(request: Request) -> Response:
            by_cookie = kept.of(request) is not None
            # scrypt takes tens of milliseconds: off the web loop, which serves the streams
            if not by_cookie and not await asyncio.to_thread(
                    basic_authorised, request.headers.get("authorization", ""), user,
                    credential):
                if page:
                    return RedirectResponse("/login", status_code=303)
                return JSONResponse({"error": "log in first: the supervisor's credential at "
                                              "/login"}, status_code=401)
            if by_cookie and request.method == "POST" and not same_origin(request):
                return JSONResponse({"error": "refused: sent from a page of another origin"},
                                    status_code=403)
            return await handler(request)
        return check

    async def login(request: Request) -> Response:
        given = login_fields(await request.body())
        if given is None or given[0] != user or not await asyncio.to_thread(
                check_password, credential, given[1]):
            return RedirectResponse("/login?failed=1", status_code=303)
        answer = RedirectResponse("/", status_code=303)
        answer.headers["Set-Cookie"] = cookie_header(kept.open(user))
        return answer

    async def logout(request: Request) -> Response:
        kept.close(request.cookies.get(SESSION_COOKIE))
        answer = RedirectResponse("/login", status_code=303)
        answer.headers["Set-Cookie"] = expired_cookie_header()
        return answer

    return Starlette(routes=[
        Route("/login", _page("login.html")),
        Route("/login", login, methods=["POST"]),
        Route("/login.js", _page("login.js")),
        Route("/logout", logout, methods=["POST"]),
        Route("/", guarded(_page("pit.html"), page=True)),
        Route("/pit.js", guarded(_page("pit.js"))),
        Route("/common.js", _page("common.js")),
        Route("/console.css", _page("console.css")),
        Route("/api/pit", guarded(_latest(hub))),
        Route("/api/pit/events", guarded(_events(hub))),
        Route("/api/pit/progressive/settle",
              guarded(_command(hub, lambda body, _request: hit_commands.parse(body),
                               hit_commands.execute, lambda _request: f"pit:{user}")),
              methods=["POST"]),
        *([Route("/api/pit/station/{station:int}/credits",
                 guarded(_command(hub, _credits_command, credit_commands.execute,
                                  lambda _request: f"pit:{user}")), methods=["POST"])]
          if stations else []),
    ])

