"""What one request may cost: its body's size, its JSON's depth, its content type.

`json_body` reads a request's body up to `MAX_BODY` bytes (a larger `Content-Length` is
refused before a byte of the body is read: 413), requires `Content-Type: application/json`
(415), and parses it only when its nesting is at most `MAX_DEPTH` deep (400): a body of
100,000 `[` is refused by a scan of its brackets, never by a `RecursionError` in the parser.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Final

from starlette.requests import Request

MAX_BODY: Final = 64 * 1024
"""The largest request body taken (bytes)."""
BODY_TIMEOUT_S: Final = 10.0
"""The longest a body may take to arrive (a client sending a byte a second is cut off)."""
MAX_DEPTH: Final = 32
"""The deepest nesting of arrays and objects taken in a JSON body."""
_STRINGS: Final = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS: Final = bytes.maketrans(b"", b"")
_NOT_BRACKETS: Final = bytes(c for c in range(256) if c not in b"[]{}")


class BodyError(ValueError):
    """A body refused: its HTTP status and the reason in one line."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


def json_depth(text: bytes) -> int:
    """The deepest nesting of arrays and objects in `text` (strings skipped)."""
    brackets = _STRINGS.sub(b"", text).translate(_BRACKETS, _NOT_BRACKETS)
    depth = deepest = 0
    for byte in brackets:
        if byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def declared_length(request: Request) -> int | None:
    """The request's `Content-Length` (None: not given).

    Raises:
        BodyError: Not a number (400), or over `MAX_BODY` (413).
    """
    given = request.headers.get("content-length")
    if given is None:
        return None
    if not given.isdigit():
        raise BodyError(400, "Content-Length is not a number")
    if int(given) > MAX_BODY:
        raise BodyError(413, f"the body is over {MAX_BODY} bytes")
    return int(given)


async def capped_body(request: Request) -> bytes:
    """The body, read up to `MAX_BODY` bytes.

    Raises:
        BodyError: Over `MAX_BODY` (413: declared, before anything is read; or as read),
            or slower than `BODY_TIMEOUT_S` (408).
    """
    declared_length(request)
    parts, size = [], 0
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY:
                    raise BodyError(413, f"the body is over {MAX_BODY} bytes")
                parts.append(chunk)
    except TimeoutError:
        raise BodyError(408, f"the body took over {BODY_TIMEOUT_S:.0f} s to arrive") from None
    return b"".join(parts)


async def json_body(request: Request) -> object:
    """The request's JSON body, checked for type, size and depth.

    Raises:
        BodyError: 415 not `application/json`; 413 too large; 400 not JSON or too deep.
    """
    media = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media != "application/json":
        raise BodyError(415, "the body must be sent as Content-Type: application/json")
    raw = await capped_body(request)
    if json_depth(raw) > MAX_DEPTH:
        raise BodyError(400, f"the JSON is nested more than {MAX_DEPTH} deep")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise BodyError(400, "the body is not JSON") from None
