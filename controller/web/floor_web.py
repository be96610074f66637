"""The floor's pit view, served by the floor process (`shoectl floor serve`, `[view]`).

One page for every table of the floor: status, game, round, faults, link state (from the
MQTT last wills), the journal's state on the floor, and each link group's meter with its last
25 hits. Read-only, behind HTTP Basic authentication as the table's pit view is. The page polls
`GET /api/floor` (docs/floor-protocol.md "The floor's pit view").
"""

from __future__ import annotations

import asyncio
from importlib import resources

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.floor.floor_view import FloorView
from controller.web.credentials import basic_authorised, parse_credential


async def _authorised(request: Request, user: str, credential: str) -> bool:
    # scrypt takes tens of milliseconds: off the web loop
    return await asyncio.to_thread(basic_authorised, request.headers.get("authorization", ""),
                                   user, credential)


def floor_app(view: FloorView, user: str, credential: str) -> Starlette:
    """The floor view's application.

    Raises:
        ConfigError: `credential` is not one `shoectl console hash-password` made.
    """
    parse_credential("view", "credential", credential)

    def refused() -> Response:
        return Response("credential required\n", status_code=401,
                        headers={"WWW-Authenticate": 'Basic realm="shoectl floor"'})

    def static(name: str, media: str) -> Route:
        async def page(request: Request) -> Response:
            if not await _authorised(request, user, credential):
                return refused()
            text = resources.files("controller.web").joinpath(f"static/{name}").read_text(
                "utf-8")
            return Response(text, media_type=f"{media}; charset=utf-8",
                            headers={"Cache-Control": "no-store"})
        return Route(f"/{name}" if name != "floor.html" else "/", page)

    async def state(request: Request) -> Response:
        if not await _authorised(request, user, credential):
            return refused()
        return JSONResponse(view.snapshot(), headers={"Cache-Control": "no-store"})

    return Starlette(routes=[static("floor.html", "text/html"),
                             static("floor.js", "text/javascript"),
                             static("console.css", "text/css"),
                             Route("/api/floor", state)])
