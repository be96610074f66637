"""The web server's thread: uvicorn serving the console (and the pit view) beside the table.

`WebServer.start` binds the address before returning (a port in use is a clear error at
start-up, not a thread dying later) and serves on a daemon thread with its own asyncio loop;
`stop` shuts it down. The table's loop never waits for it.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from typing import Final

import uvicorn
from starlette.applications import Starlette

from controller.web.settings import Address

_LOG = logging.getLogger(__name__)

STOP_TIMEOUT_S: Final = 5.0


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
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                                timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
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
    sock.listen(128)
    sock.setblocking(False)
    return sock
