"""The HTTP routes of the dealer's console and of the pit view (Starlette applications).

Console (`[console] listen`): `/` the page, `GET /api/table`, `POST /api/command`,
`GET /api/events` (Server-Sent Events); on the same server the result board of a roulette
table (the marquee display): `/board`, `GET /api/board`, `GET /api/board/events`; and at a
community table a page per player station: `/station/N`, `GET /api/station/N`,
`POST /api/station/N/command`, `GET /api/station/N/events`. Pit view (`[console] pit_listen`):
`/login` (the form), `/` the page, `GET /api/pit`, `GET /api/pit/events`,
`POST /api/pit/progressive/settle` (a linked hit the progressive controller rejected, settled
by hand), and at a community table `POST /api/pit/station/N/credits`. Both servers:
`POST /api/login`, `POST /api/logout`, `GET /api/session`.

Every `/api/...` route but the login needs a credential (`controller.web.auth`: 401 without
one) and the right to it (`may_*` below: 403 without, a refused command journalled); pages
and their scripts hold no table data and are served to anyone. `controller/console/API.md`
and `controller/console/STATIONS.md` are the contract. Every handler reads the table only
through the hub: the loop thread publishes it, commands go back to the loop thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import tempfile
import threading
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from controller.console import commands, credit_commands, hit_commands, station_commands
from controller.console.commands import CommandError
from controller.console.hub import Hub, Published
from controller.console.views.common import JsonObject
from controller.web.accounts import Accounts, Principal
from controller.web.auth import (
    Gate,
    JournalRecorder,
    LoginBackoff,
    Refusal,
    Session,
    Sessions,
    client_address,
)
from controller.web.guard import DEFAULT_GUARD, GuardSettings
from controller.web.limits import BodyError, capped_body, json_body
from controller.web.pit_session import (
    CONSOLE_COOKIE,
    SESSION_COOKIE,
    cookie_header,
    expired_cookie_header,
    login_fields,
)

_LOG = logging.getLogger(__name__)

COMMAND_TIMEOUT_S: Final = 10.0
"""How long a command waits for the loop thread before the client is told it is busy."""
EVENT_QUEUE: Final = 256
"""Publications a slow event-stream client may fall behind before its stream is closed."""
KEEPALIVE_S: Final = 15.0
"""An event-stream comment this often keeps proxies from closing a quiet stream."""
MAX_STREAMS: Final = 64
"""Event streams one server keeps open at once (503 beyond)."""

RouteHandler = Callable[[Request], Awaitable[Response]]
AccessRule = Callable[[Principal, Request], str]
"""Why `principal` may not do what the request asks ("" when it may)."""

CONSOLE_READERS: Final = frozenset({"dealer", "supervisor", "surveillance", "kiosk"})
DEALERS: Final = frozenset({"dealer", "kiosk"})
PIT_READERS: Final = frozenset({"supervisor", "attendant", "surveillance"})
ATTENDANTS: Final = frozenset({"supervisor", "attendant"})
DEVICE_ROLES: Final = frozenset({"kiosk", "board", "station"})


def error(status: int, text: str, **more: object) -> JSONResponse:
    """One JSON line: `{"error": text, ...}`."""
    return JSONResponse({"error": text, **more}, status_code=status)


def refused(refusal: Refusal) -> JSONResponse:
    """A refused request or login, with `Retry-After` when it says so."""
    answer = error(refusal.status, refusal.error)
    if refusal.retry_after:
        answer.headers["Retry-After"] = str(refusal.retry_after)
    return answer


def _page(name: str) -> RouteHandler:
    async def page(request: Request) -> Response:
        text = resources.files("controller.web").joinpath(f"static/{name}").read_text("utf-8")
        media = {"html": "text/html", "js": "text/javascript",
                 "css": "text/css"}[name.rpartition(".")[2]]
        return Response(text, media_type=f"{media}; charset=utf-8",
                        headers={"Cache-Control": "no-store"})
    return page


def _latest(hub: Hub) -> RouteHandler:
    async def latest(request: Request) -> Response:
        published = hub.latest
        if published is None:
            return error(503, "starting")
        return Response(published.text, media_type="application/json")
    return latest


# ---------------------------------------------------------------------- who may do what
def role_in(roles: frozenset[str], what: str) -> AccessRule:
    """Anyone of `roles` may; the refusal names `what`."""
    def rule(principal: Principal, _request: Request) -> str:
        return "" if principal.role in roles else f"{principal.by} may not {what}"
    return rule


def anyone(_principal: Principal, _request: Request) -> str:
    """Any holder of a credential may (the result board: what the players see)."""
    return ""


def station_reader(principal: Principal, request: Request) -> str:
    """The station itself, and the console's readers, may follow a station."""
    number = int(request.path_params["station"])
    if principal.role == "station" and principal.station == number:
        return ""
    if principal.role in CONSOLE_READERS:
        return ""
    return f"{principal.by} may not follow station {number}"


def station_itself(principal: Principal, request: Request) -> str:
    """Only the station's own token acts for it."""
    number = int(request.path_params["station"])
    if principal.role == "station" and principal.station == number:
        return ""
    return f"{principal.by} may not act for station {number}"


def bearer_device(gate: Gate) -> AccessRule:
    """Only a device's own token, sent as `Authorization: Bearer`, may.

    Not a session: a one-time code stands for the token, so only the token's holder asks.
    """
    def rule(principal: Principal, request: Request) -> str:
        if principal.role in DEVICE_ROLES and gate.bearer(request) == principal:
            return ""
        return f"{principal.by} may not ask for a login code (a device's bearer token may)"
    return rule


@dataclass
class Allowed:
    """A request let through: who, by which session, and how its event streams end."""

    principal: Principal
    gate: Gate
    token: str | None = None
    session: Session | None = None
    closers: list[Callable[[], None]] = field(default_factory=list)

    def on_end(self, close: Callable[[], None]) -> None:
        """Call `close` when the credential ends (a logout, the session's end)."""
        if self.session is not None:
            self.session.closers.add(close)

    def forget(self, close: Callable[[], None]) -> None:
        """The stream ended by itself."""
        if self.session is not None:
            self.session.closers.discard(close)

    def wait_s(self, most: float) -> float:
        """How long a stream may wait before looking at its credential again."""
        if self.session is None:
            return most
        return max(0.0, min(most, self.session.ends - self.gate.sessions.clock()))

    def still(self) -> bool:
        """Whether the credential still holds (the session lives, the token is current)."""
        if self.session is not None:
            return self.gate.sessions.get(self.token) is not None \
                and (self.principal.legacy or self.gate.accounts.valid(self.principal))
        return self.principal.legacy or self.gate.accounts.valid(self.principal)


def guarded(gate: Gate, rule: AccessRule, handler: RouteHandler, *, page: str = "") -> RouteHandler:
    """`handler` for a request with a credential that `rule` lets through.

    401 without a credential (a page: 303 to `page`), 403 when `rule` refuses (a refused
    change is journalled: who, what, where).
    """
    async def check(request: Request) -> Response:
        principal, refusal = await gate.principal(request)
        if refusal is not None:
            return refused(refusal)
        if principal is None:
            if page:
                return RedirectResponse(page, status_code=303)
            return error(401, gate.hint)
        why = rule(principal, request)
        if why:
            if request.method == "POST":
                gate.journal("console:refused", {"by": principal.by,
                                                 "path": request.url.path, "why": why})
            return error(403, why)
        kept = gate.session_of(request)
        request.state.allowed = Allowed(principal, gate, *(kept or (None, None)))
        return await handler(request)
    return check


# ---------------------------------------------------------------------- logging in
def _login_routes(gate: Gate, about: Callable[[Principal], JsonObject]) -> list[Route]:
    """`POST /api/login`, `POST /api/logout`, `GET /api/session`."""
    async def login(request: Request) -> Response:
        try:
            body = await json_body(request)
        except BodyError as exc:
            return error(exc.status, str(exc))
        address = client_address(request)
        if isinstance(body, dict) and set(body) == {"token"} and isinstance(body["token"], str):
            principal, refusal = await gate.token_login(body["token"], address)
        elif isinstance(body, dict) and set(body) == {"code"} and isinstance(body["code"], str):
            principal, refusal = await gate.code_login(body["code"], address)
        elif isinstance(body, dict) and set(body) == {"user", "password"} \
                and isinstance(body["user"], str) and isinstance(body["password"], str):
            principal, refusal = await gate.login(body["user"], body["password"], address)
        else:
            return error(400, "a login is {\"user\": NAME, \"password\": PW}, "
                              "{\"token\": TOKEN} or {\"code\": CODE}")
        if refusal is not None or principal is None:
            return refused(refusal or Refusal(401, "refused"))
        answer = JSONResponse(about(principal))
        path = f"/api/station/{principal.station}" if principal.role == "station" else "/"
        answer.headers["Set-Cookie"] = cookie_header(gate.cookie, gate.sessions.open(principal),
                                                     request, path)
        return answer

    async def login_code(request: Request) -> Response:
        return JSONResponse({"code": gate.codes.issue(request.state.allowed.principal),
                             "expires_in": int(gate.codes.lifetime)})

    async def logout(request: Request) -> Response:
        gate.sessions.close(request.cookies.get(gate.cookie))
        answer = JSONResponse({"logged_out": True})
        answer.headers["Set-Cookie"] = expired_cookie_header(gate.cookie)
        return answer

    async def session(request: Request) -> Response:
        return JSONResponse(about(request.state.allowed.principal))

    return [Route("/api/login", login, methods=["POST"]),
            Route("/api/login/code", guarded(gate, bearer_device(gate), login_code),
                  methods=["POST"]),
            Route("/api/logout", logout, methods=["POST"]),
            Route("/api/session", guarded(gate, anyone, session)),
            Route("/api/station/{station:int}/session", guarded(gate, station_reader, session))]


def _about(principal: Principal) -> JsonObject:
    return {"by": principal.by, "role": principal.role}


# ---------------------------------------------------------------------- commands
Parser = Callable[[object, Request], dict[str, Any]]
"""Checks a request's JSON body (and its path) into a command; raises `CommandError`."""


class ConflictError(CommandError):
    """A well-formed command the station server refuses (409)."""

    def answer(self) -> JSONResponse:
        """The 409."""
        return error(409, str(self))


class UnavailableError(ConflictError):
    """A command the station server cannot take now (503)."""

    def answer(self) -> JSONResponse:
        """The 503."""
        return error(503, str(self))


class ReplayedError(ConflictError):
    """A station command whose `seq` is not above the last one taken (409)."""

    def __init__(self, last: int) -> None:
        super().__init__(f"seq must increase: the last command taken had seq {last} "
                         "(a replayed or reordered command is refused)")
        self.last = last

    def answer(self) -> JSONResponse:
        """The 409, with the last `seq` taken (a page that lost count starts above it)."""
        return error(409, str(self), seq=self.last)


def _command(hub: Hub, check: Parser, executor: str,
             source: Callable[[Request], str]) -> RouteHandler:
    """POST a command: checked here, carried out by the hub's `executor` (`EXECUTORS`)."""
    async def command(request: Request) -> Response:
        if hub.latest is None:
            return error(503, "starting")
        try:
            body = await json_body(request)
            parsed = check(body, request)
        except BodyError as exc:
            return error(exc.status, str(exc))
        except ConflictError as exc:
            return exc.answer()
        except CommandError as exc:
            return error(400, str(exc))
        future = hub.submit_as(executor, parsed, source(request),
                               request.state.allowed.principal.by)
        try:
            reply = await asyncio.wait_for(asyncio.wrap_future(future), COMMAND_TIMEOUT_S)
        except TimeoutError:
            return error(503, "the table did not answer in time", what_to_do="try again")
        return JSONResponse(reply.body, status_code=reply.status)
    return command


def _console_command(body: object, _request: Request) -> dict[str, Any]:
    return commands.parse(body)


SEQ_FILE: Final = "station-seqs.json"
"""The last `seq` taken from each station, in the table's state directory."""


class StationSeqs:
    """The last `seq` taken from each station's credential (web loop only).

    With `path` (the state directory's `SEQ_FILE`), each `seq` taken is written there,
    atomically and synced, before its command goes to the table, and read back at start: a
    command captured before a restart is still a replay after it. A file that cannot be read
    is said in one line and every station command is refused (503) until an engineer removes
    it: starting the count again would let a captured command through.

    Args:
        path: Where the counts are kept (None: in memory only).
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.last: dict[str, int] = {}
        self.broken = ""
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            self.broken = f"{path}: the stations' last seq cannot be read ({exc})"
        else:
            if isinstance(data, dict) and all(
                    re.fullmatch(r"station:[1-9][0-9]{0,2}", key) and type(value) is int
                    and 0 < value < 2**53 for key, value in data.items()):
                self.last = dict(data)
            else:
                self.broken = (f"{path}: the stations' last seq: expected "
                               "{\"station:N\": SEQ, ...}")
        if self.broken:
            _LOG.error("%s; station commands are refused until it is removed", self.broken)

    def take(self, by: str, seq: object) -> None:
        """Accept `seq` from `by` if it is above the last one (kept before this returns).

        Raises:
            CommandError: No integer `seq`.
            ReplayedError: Not above the last one taken.
            UnavailableError: The counts cannot be read or written.
        """
        if self.broken:
            raise UnavailableError(self.broken)
        if not isinstance(seq, int) or isinstance(seq, bool) or not 0 < seq < 2**53:
            raise CommandError("a station command carries \"seq\", an integer from 1 that "
                               "increases with each command")
        last = self.last.get(by, 0)
        if seq <= last:
            raise ReplayedError(last)
        if self.path is not None:
            try:
                _write_atomically(self.path, json.dumps({**self.last, by: seq},
                                                        sort_keys=True))
            except OSError as exc:
                raise UnavailableError(f"{self.path}: the station's seq cannot be kept "
                                       f"({exc.strerror}); the command was not taken") from None
        self.last[by] = seq


def _write_atomically(path: Path, text: str) -> None:
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _station_command(seqs: StationSeqs) -> Parser:
    def check(body: object, request: Request) -> dict[str, Any]:
        station = int(request.path_params["station"])
        if not isinstance(body, dict):
            raise CommandError("a station command is a JSON object")
        fields = {k: v for k, v in body.items() if k != "seq"}
        if fields.get("station", station) != station:
            raise CommandError(f"the body names station {fields.get('station')!r}, the path "
                               f"station {station}")
        parsed = station_commands.parse({**fields, "station": station})
        seqs.take(request.state.allowed.principal.by, body.get("seq"))
        not_a_chip = station_commands.chip_refusal(parsed)
        if not_a_chip:
            raise ConflictError(not_a_chip)
        return parsed
    return check


def _credits_command(body: object, request: Request) -> dict[str, Any]:
    return credit_commands.parse(body, int(request.path_params["station"]))


def _hit_command(body: object, _request: Request) -> dict[str, Any]:
    return hit_commands.parse(body)


def _per_station(stations: Sequence[Hub],
                 handler: Callable[[Hub], RouteHandler]) -> RouteHandler:
    """The route of station N (from the path) on its own hub; 404 for no such station."""
    handlers = [handler(hub) for hub in stations]

    async def route(request: Request) -> Response:
        number = int(request.path_params["station"])
        if not 1 <= number <= len(handlers):
            return error(404, f"no station {number} (stations 1 to {len(handlers)})")
        return await handlers[number - 1](request)
    return route


def station_routes(stations: Sequence[Hub], gate: Gate, streams: StreamCount,
                   seqs: StationSeqs) -> list[Route]:
    """The player stations' pages, views, commands and event streams (STATIONS.md)."""
    page = _page("station.html")
    parse = _station_command(seqs)

    def station_page(_hub: Hub) -> RouteHandler:
        return page

    def view(hub: Hub) -> RouteHandler:
        return guarded(gate, station_reader, _latest(hub))

    def events(hub: Hub) -> RouteHandler:
        return guarded(gate, station_reader, _events(hub, streams))

    def command(hub: Hub) -> RouteHandler:
        return guarded(gate, station_itself, _command(hub, parse, "station",
                                                      lambda _request: "station"))
    return [
        Route("/station/{station:int}", _per_station(stations, station_page)),
        Route("/station.js", _page("station.js")),
        Route("/station.css", _page("station.css")),
        Route("/api/station/{station:int}", _per_station(stations, view)),
        Route("/api/station/{station:int}/command", _per_station(stations, command),
              methods=["POST"]),
        Route("/api/station/{station:int}/events", _per_station(stations, events)),
    ]


def _events(hub: Hub, streams: StreamCount) -> RouteHandler:
    async def events(request: Request) -> Response:
        if streams.full():
            return error(503, f"too many event streams (at most {streams.limit}): try again "
                              "later")
        return StreamingResponse(_stream(hub, request, streams),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})
    return events


class StreamCount:
    """The event streams a server has open, and its cap (web loop only)."""

    def __init__(self, limit: int = MAX_STREAMS) -> None:
        self.limit = limit
        self.open = 0

    def full(self) -> bool:
        """No stream more may open."""
        return self.open >= self.limit

    def opened(self) -> None:
        """A stream started (counted from its first write to its end)."""
        self.open += 1

    def give_back(self) -> None:
        """A stream ended."""
        self.open -= 1


class _Follower:
    """One event-stream client's publications not yet written (web loop only)."""

    def __init__(self) -> None:
        self.pending: deque[Published] = deque()
        self.wake = asyncio.Event()
        self.overflowed = False
        self.ended = False

    def end(self) -> None:
        """The session ended: the stream closes at once."""
        self.ended = True
        self.wake.set()

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


async def _stream(hub: Hub, request: Request, streams: StreamCount
                  ) -> AsyncIterator[str]:
    """Every publication from now on, as Server-Sent Events (the current one first).

    Publications that arrived together are written together (one write, each its own
    event); each is encoded once however many clients follow it. The response ends when the
    client disconnects (Starlette cancels the stream), falls `EVENT_QUEUE` behind, or its
    credential ends (a logout, the session's end, a user removed or a token replaced).
    """
    courier, follower = _courier(), _Follower()
    allowed: Allowed = request.state.allowed

    def hand_over(published: Published) -> None:
        courier.send(follower, published)

    allowed.on_end(follower.end)
    streams.opened()
    current = hub.subscribe(hand_over)
    try:
        if current is not None:
            yield current.sse()
        while not follower.ended and not await request.is_disconnected():
            try:
                async with asyncio.timeout(allowed.wait_s(KEEPALIVE_S)):
                    await follower.wake.wait()
            except TimeoutError:
                if not allowed.still():
                    return
                yield ": keepalive\n\n"
                continue
            follower.wake.clear()
            if follower.overflowed or follower.ended:
                return  # fell too far behind (it reconnects afresh), or logged out
            batch = "".join(published.sse() for published in follower.pending)
            follower.pending.clear()
            yield batch
    finally:
        hub.unsubscribe(hand_over)
        allowed.forget(follower.end)
        streams.give_back()




@dataclass(frozen=True)
class Stations:
    """A community table's player stations: one hub each, and their last `seq`s."""

    hubs: Sequence[Hub]
    seqs: StationSeqs = field(default_factory=StationSeqs)


def console_app(hub: Hub, board: Hub | None = None,
                stations: Stations | None = None, *, accounts: Accounts,
                sessions: Sessions | None = None, backoff: LoginBackoff | None = None,
                journal: JournalRecorder | None = None, guard: GuardSettings = DEFAULT_GUARD
                ) -> Starlette:
    """The dealer's console, and the result board or the player stations beside it.

    With `board`: the result board of a roulette table; with `stations`: the player
    stations of a community table (their `seq`s kept in the state directory by
    `shoectl run`). `accounts` holds who may log in; `journal`
    records lock-outs and refusals (by default through the hub, at most `JOURNAL_BURST` a
    minute); `guard` the hosts and rates every request is checked against.
    """
    gate = Gate(accounts, CONSOLE_COOKIE, journal or hub_journal(hub), sessions=sessions,
                backoff=backoff)
    streams = StreamCount()
    seqs = stations.seqs if stations is not None else StationSeqs()

    def about(principal: Principal) -> JsonObject:
        told = _about(principal)
        if principal.role == "station":
            told |= {"station": principal.station, "seq": seqs.last.get(principal.by, 0)}
        return told

    reader = role_in(CONSOLE_READERS, "follow the console")
    routes = [
        Route("/", _page("console.html")),
        Route("/console.js", _page("console.js")),
        Route("/common.js", _page("common.js")),
        Route("/console.css", _page("console.css")),
        Route("/holdem.js", _page("holdem.js")),
        *_login_routes(gate, about),
        Route("/api/table", guarded(gate, reader, _latest(hub))),
        Route("/api/command", guarded(gate, role_in(DEALERS, "give the dealer's commands"),
                                      _command(hub, _console_command, "console",
                                               lambda _request: "console")),
              methods=["POST"]),
        Route("/api/events", guarded(gate, reader, _events(hub, streams))),
    ]
    if board is not None:
        routes += [
            Route("/board", _page("board.html")),
            Route("/board.js", _page("board.js")),
            Route("/board.css", _page("board.css")),
            Route("/api/board", guarded(gate, anyone, _latest(board))),
            Route("/api/board/events", guarded(gate, anyone, _events(board, streams))),
        ]
    if stations is not None and stations.hubs:
        routes += station_routes(stations.hubs, gate, streams, seqs)
    return Starlette(routes=routes, middleware=[guard.middleware()])


def pit_app(hub: Hub, accounts: Accounts, *, legacy: tuple[str, str] | None = None,
            stations: bool = False, sessions: Sessions | None = None,
            backoff: LoginBackoff | None = None, journal: JournalRecorder | None = None,
            guard: GuardSettings = DEFAULT_GUARD) -> Starlette:
    """The pit view, behind a login: supervisors, attendants and surveillance.

    Read-only, but a supervisor settles by hand a linked hit the progressive controller
    rejected (`POST /api/pit/progressive/settle`), and at a community table (`stations`) a
    supervisor or an attendant adds and cashes out the stations' credits here
    (`POST /api/pit/station/N/credits`); both are journalled with `who` (`supervisor:ANNA`).
    `legacy` is the deprecated `(pit_user, pit_credential)`, a supervisor (`pit:<user>`).
    """
    gate = Gate(accounts, SESSION_COOKIE, journal or hub_journal(hub), legacy=legacy,
                sessions=sessions, backoff=backoff,
                hint="log in first: the supervisor's credential at /login")
    streams = StreamCount()
    reader = role_in(PIT_READERS, "follow the pit view")

    async def login(request: Request) -> Response:
        try:
            given = login_fields(await capped_body(request))
        except BodyError:
            given = None
        if given is None:
            return RedirectResponse("/login?failed=1", status_code=303)
        principal, refusal = await gate.login(*given, client_address(request))
        if refusal is not None and refusal.status == 429:
            return RedirectResponse(f"/login?failed=1&wait={refusal.retry_after}",
                                    status_code=303)
        if principal is None or principal.role not in PIT_READERS:
            return RedirectResponse("/login?failed=1", status_code=303)
        answer = RedirectResponse("/", status_code=303)
        answer.headers["Set-Cookie"] = cookie_header(gate.cookie, gate.sessions.open(principal),
                                                     request)
        return answer

    async def logout(request: Request) -> Response:
        gate.sessions.close(request.cookies.get(gate.cookie))
        answer = RedirectResponse("/login", status_code=303)
        answer.headers["Set-Cookie"] = expired_cookie_header(gate.cookie)
        return answer

    def command(check: Parser, executor: str) -> RouteHandler:
        return _command(hub, check, executor, lambda _request: "pit")

    return Starlette(routes=[
        Route("/login", _page("login.html")),
        Route("/login", login, methods=["POST"]),
        Route("/login.js", _page("login.js")),
        Route("/logout", logout, methods=["POST"]),
        *_login_routes(gate, _about),
        Route("/", guarded(gate, reader, _page("pit.html"), page="/login")),
        Route("/pit.js", _page("pit.js")),
        Route("/hours_chart.js", _page("hours_chart.js")),
        Route("/common.js", _page("common.js")),
        Route("/console.css", _page("console.css")),
        Route("/api/pit", guarded(gate, reader, _latest(hub))),
        Route("/api/pit/events", guarded(gate, reader, _events(hub, streams))),
        Route("/api/pit/progressive/settle",
              guarded(gate, role_in(frozenset({"supervisor"}), "settle a hit by hand"),
                      command(_hit_command, "hit")), methods=["POST"]),
        *([Route("/api/pit/station/{station:int}/credits",
                 guarded(gate, role_in(ATTENDANTS, "add or cash out credits"),
                         command(_credits_command, "credits")),
                 methods=["POST"])]
          if stations else []),
    ], middleware=[guard.middleware()])


def hub_journal(hub: Hub) -> JournalRecorder:
    """JournalRecorder through the hub's table, at most `JOURNAL_BURST` records a minute.

    Beyond that the records are counted, not written; the next record written says how many
    were left out (`"left_out": n`), so a flood of refusals cannot fill the journal.
    """
    limiter = RecordLimiter()

    def record(kind: str, data: dict[str, object]) -> None:
        kept = limiter.admit()
        if kept is not None:
            hub.record(kind, {**data, "left_out": kept} if kept else data)
    return record


JOURNAL_BURST: Final = 30
"""Lock-out and refusal records journalled a minute (more are counted, not written)."""


class RecordLimiter:
    """At most `JOURNAL_BURST` records a minute (web loop only)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._window = 0.0
        self._written = 0
        self._left_out = 0

    def admit(self) -> int | None:
        """None: leave this record out; else write it, with the count left out before it."""
        now = self._clock()
        if now - self._window >= 60.0:
            self._window, self._written = now, 0
        if self._written >= JOURNAL_BURST:
            self._left_out += 1
            return None
        self._written += 1
        left_out, self._left_out = self._left_out, 0
        return left_out
