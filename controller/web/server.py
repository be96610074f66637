"""The web server's thread: uvicorn serving the console (and the pit view) beside the table.

`WebServer.start` binds the address before returning (a port in use is a clear error at
start-up, not a thread dying later) and serves on a daemon thread with its own asyncio loop;
`stop` shuts it down. The table's loop never waits for it.

No client holds the server: a connection must send its request's headers within
`HEADER_TIMEOUT_S` (from its opening, or from the end of its last answer), the server keeps
at most `MAX_CONNECTIONS` (`MAX_PER_CLIENT` from one address): beyond, a new connection takes
the place of the oldest one that has sent nothing yet, or is answered 503 and closed when
every place is busy; headers are at most `MAX_HEADER_BYTES`, and the server's log lines are
rate-limited (`RateLimitedLog`): a flood of bad requests cannot fill the system log.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from typing import Any, ClassVar, Final

import h11
import uvicorn
from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

from controller.web.settings import Address

_LOG = logging.getLogger(__name__)

STOP_TIMEOUT_S: Final = 5.0
HEADER_TIMEOUT_S: Final = 10.0
"""A connection's time to send a request's headers (opened, or idle after an answer)."""
KEEP_ALIVE_S: Final = 5
MAX_CONNECTIONS: Final = 512
"""Connections one server keeps open (a file descriptor each; the unit's LimitNOFILE)."""
MAX_PER_CLIENT: Final = 128
"""Connections one client address keeps open."""
MAX_HEADER_BYTES: Final = 16 * 1024
SILENT_GRACE_S: Final = 0.1
"""A connection silent this long may give its place to a new one. A client that means to ask
sends its headers at once; but the server accepts connections in batches, so one just
accepted (its headers not read yet) is not taken for an idle one. An attacker would need
over 1,280 new connections a second to keep 128 places all younger than this."""
LOG_LINES: Final = 5
"""Lines of one kind a server logs a minute (more are counted, said with the next one)."""
_BUSY: Final = (b'HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n'
                b'connection: close\r\ncontent-length: 45\r\n\r\n'
                b'{"error": "too many connections: try again"}\n')


class BoundedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a header timeout and caps on connections."""

    header_timeout_s: ClassVar[float] = HEADER_TIMEOUT_S
    max_connections: ClassVar[int] = MAX_CONNECTIONS
    max_per_client: ClassVar[int] = MAX_PER_CLIENT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._turned_away = False
        self.address = ""
        self.silent_since: float | None = None
        """Since when the connection waits for a request's headers (None: it is busy)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Count the connection; over a cap, close the oldest one still silent, else 503.

        A connection that has sent no request's headers for `SILENT_GRACE_S` holds a place
        for nothing: a new one takes the place of the oldest such (of its own address when
        that address is over its share), so 1,000 idle sockets cannot keep the kiosk out.
        Only when no place is held that way is the new one turned away.
        """
        super().connection_made(transport)
        self.address = self.client[0] if self.client else ""
        mine = [c for c in self.connections
                if isinstance(c, BoundedH11) and c.address == self.address]
        crowded = (mine if len(mine) > self.max_per_client
                   else list(self.connections) if len(self.connections) > self.max_connections
                   else None)
        if crowded is not None and not self._evict_from(crowded):
            self._turned_away = True
            _LOG.warning("too many connections (%d, %d from %s): turned away",
                         len(self.connections), len(mine), self.address)
            transport.write(_BUSY)
            transport.close()
            return
        self._arm()

    def _evict_from(self, crowded: list[Any]) -> bool:
        quiet_before = self.loop.time() - SILENT_GRACE_S
        silent = [(c.silent_since, id(c), c) for c in crowded
                  if isinstance(c, BoundedH11) and c is not self
                  and c.silent_since is not None and c.silent_since <= quiet_before
                  and not c.transport.is_closing()]
        if not silent:
            return False
        min(silent)[2].transport.close()
        return True

    def data_received(self, data: bytes) -> None:
        """Take the bytes (none from a connection turned away)."""
        if not self._turned_away:
            super().data_received(data)

    def handle_events(self) -> None:
        """Parse; once a request's headers are in, its header timer stops."""
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:
            self._disarm()

    def on_response_complete(self) -> None:
        """The answer is out: the next request's headers are timed from now."""
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        """Gone: its timer with it."""
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.header_timeout_s, self._too_slow)
        self.silent_since = self.loop.time()

    def _disarm(self) -> None:
        self.silent_since = None
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        self.silent_since = None
        if not self.transport.is_closing():
            self.transport.close()


class RateLimitedLog(logging.Filter):
    """At most `LOG_LINES` lines of one kind (logger and message) a minute."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        super().__init__()
        self._clock = clock
        self._seen: dict[tuple[str, object], tuple[float, int, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        """Let the line through unless its kind is over its rate."""
        key, now = (record.name, record.msg), self._clock()
        start, said, left_out = self._seen.get(key, (now, 0, 0))
        if now - start >= 60.0:
            start, said = now, 0
        if said >= LOG_LINES:
            self._seen[key] = (start, said, left_out + 1)
            return False
        if left_out:
            record.msg = f"{record.msg} ({left_out} more like it left out)"
        self._seen[key] = (start, said + 1, 0)
        if len(self._seen) > 1024:
            self._seen.clear()
        return True


_LIMITED = RateLimitedLog()
for _name in ("uvicorn.error", "uvicorn", __name__):
    logging.getLogger(_name).addFilter(_LIMITED)


class WebServerError(RuntimeError):
    """The server cannot listen where it was told (the address is named)."""


class WebServer:
    """One Starlette application served on one address.

    Args:
        app: The application.
        address: (host, port); port 0 picks a free port (tests), see `port`.
        name: What it serves, for log lines ("console", "pit view").
    """

    def __init__(self, app: Starlette, address: Address, name: str) -> None:
        self.name = name
        self._address = address
        self._socket = _bind(address, name)
        self.port: int = self._socket.getsockname()[1]
        self._server = uvicorn.Server(bounded_config(app))
        self._thread = threading.Thread(target=self._serve, name=f"web-{name}", daemon=True)

    @property
    def url(self) -> str:
        """Where a browser reaches it."""
        host = self._address[0]
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        return f"http://{shown}:{self.port}/"

    def start(self) -> None:
        """Serve on the thread; the address is already bound."""
        self._thread.start()
        _LOG.info("%s listening on %s", self.name, self.url)

    def _serve(self) -> None:
        asyncio.run(self._server.serve(sockets=[self._socket]))

    def stop(self) -> None:
        """Stop serving and close the socket (idempotent)."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(STOP_TIMEOUT_S)
        self._socket.close()


def bounded_config(app: Starlette) -> uvicorn.Config:
    """Uvicorn's settings for one of the table's servers (the bounds above)."""
    return uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                          timeout_graceful_shutdown=1, http=BoundedH11,
                          timeout_keep_alive=KEEP_ALIVE_S,
                          h11_max_incomplete_event_size=MAX_HEADER_BYTES)


async def serve(served: list[tuple[Starlette, socket.socket, str]],
                closed: threading.Event) -> None:
    """Serve each application on its bound socket until `closed` is set."""
    servers = [uvicorn.Server(bounded_config(app)) for app, _sock, _name in served]

    async def watch() -> None:
        await asyncio.to_thread(closed.wait)
        for server in servers:
            server.should_exit = True
    watcher = asyncio.ensure_future(watch())
    await asyncio.gather(*(server.serve(sockets=[sock])
                           for server, (_app, sock, _name) in zip(servers, served, strict=True)))
    watcher.cancel()


class Listener:
    """An address bound in the table's process, served by the web process.

    Args:
        address: (host, port); port 0 picks a free port (tests), see `port`.
        name: What it serves, for log lines and errors.

    Raises:
        WebServerError: The address cannot be listened on (named).
    """

    def __init__(self, address: Address, name: str) -> None:
        self.name = name
        self._address = address
        self.socket = _bind(address, name)
        self.port: int = self.socket.getsockname()[1]
        _LOG.info("%s listening on %s", name, self.url)

    @property
    def url(self) -> str:
        """Where a browser reaches it."""
        host = self._address[0]
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        return f"http://{shown}:{self.port}/"

    def stop(self) -> None:
        """Close the socket (idempotent)."""
        self.socket.close()


def _bind(address: Address, name: str) -> socket.socket:
    host, port = address
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise WebServerError(f"{name}: cannot listen on {host}:{port}: "
                             f"{exc.strerror or exc}") from None
    sock.listen(MAX_CONNECTIONS)
    sock.setblocking(False)
    return sock
