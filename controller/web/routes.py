"""The HTTP routes of the dealer's console and of the pit view (Starlette applications).

Console (`[console] listen`): `/` the page, `GET /api/table`, `POST /api/command`,
`GET /api/events` (Server-Sent Events); on the same server the result board of a roulette
table (the marquee display): `/board`, `GET /api/board`, `GET /api/board/events`. Pit view
(`[console] pit_listen`, HTTP Basic credential): `/` the page, `GET /api/pit`,
`GET /api/pit/events`. `controller/console/API.md` is the contract. Every handler reads the
table only through the hub: the loop thread publishes it, commands go back to the loop thread.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from controller.console.commands import CommandError, parse
from controller.console.hub import ConsoleHub, Published
from controller.web.credentials import check_password

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
        return JSONResponse(published.table)
    return latest


def _command(hub: ConsoleHub) -> RouteHandler:
    async def command(request: Request) -> Response:
        if hub.latest is None:
            return JSONResponse({"error": "starting"}, status_code=503)
        try:
            body = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"error": "the body is not JSON"}, status_code=400)
        try:
            parsed = parse(body)
        except CommandError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        try:
            reply = await asyncio.wait_for(asyncio.wrap_future(hub.submit(parsed)),
                                           COMMAND_TIMEOUT_S)
        except TimeoutError:
            return JSONResponse({"error": "the table did not answer in time",
                                 "what_to_do": "try again"}, status_code=503)
        return JSONResponse(reply.body, status_code=reply.status)
    return command


def _events(hub: ConsoleHub) -> RouteHandler:
    async def events(request: Request) -> Response:
        return StreamingResponse(_stream(hub, request), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})
    return events


async def _stream(hub: ConsoleHub, request: Request) -> AsyncIterator[str]:
    """Every publication from now on, as Server-Sent Events (the current one first)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Published | None] = asyncio.Queue(EVENT_QUEUE)

    def hand_over(published: Published) -> None:
        loop.call_soon_threadsafe(_offer, queue, published)

    current = hub.subscribe(hand_over)
    try:
        if current is not None:
            yield _sse(current)
        while not await request.is_disconnected():
            try:
                published = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
            except TimeoutError:
                yield ": keepalive\n\n"
                continue
            if published is None:
                return  # fell too far behind: the client reconnects and starts afresh
            yield _sse(published)
    finally:
        hub.unsubscribe(hand_over)


def _offer(queue: asyncio.Queue[Published | None], published: Published) -> None:
    try:
        queue.put_nowait(published)
    except asyncio.QueueFull:
        while not queue.empty():
            queue.get_nowait()
        queue.put_nowait(None)


def _sse(published: Published) -> str:
    return f"id: {published.seq}\ndata: {json.dumps(published.event())}\n\n"


def console_app(hub: ConsoleHub, board: ConsoleHub | None = None) -> Starlette:
    """The dealer's console, and (with `board`) the result board of a roulette table."""
    routes = [
        Route("/", _page("console.html")),
        Route("/console.js", _page("console.js")),
        Route("/console.css", _page("console.css")),
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
    return Starlette(routes=routes)


def pit_app(hub: ConsoleHub, user: str, credential: str) -> Starlette:
    """The supervisor's read-only pit view, behind HTTP Basic authentication."""
    def guarded(handler: RouteHandler) -> RouteHandler:
        async def check(request: Request) -> Response:
            if not _authorised(request, user, credential):
                return Response("credential required\n", status_code=401,
                                headers={"WWW-Authenticate": 'Basic realm="shoectl pit"'})
            return await handler(request)
        return check
    return Starlette(routes=[
        Route("/", guarded(_page("pit.html"))),
        Route("/pit.js", guarded(_page("pit.js"))),
        Route("/console.css", guarded(_page("console.css"))),
        Route("/api/pit", guarded(_latest(hub))),
        Route("/api/pit/events", guarded(_events(hub))),
    ])


def _authorised(request: Request, user: str, credential: str) -> bool:
    header = request.headers.get("authorization", "")
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        return False
    try:
        name, _, password = base64.b64decode(encoded).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return name == user and check_password(credential, password)
