"""A live table for the console tests: the runtime on its own loop thread, the real web server.

The loop thread runs `EventLoop.run_forever` with the runtime as its handler (as `shoectl run`
does); cards arrive as `CardDrawn` events, as the shoe's driver posts them; the console is the
real Starlette application served by uvicorn on a free loopback port.
"""

from __future__ import annotations

import http.client
import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.console.hub import ConsoleHub
from controller.console.pit_state import PitView
from controller.console.views import board_state
from controller.service.loop import EventLoop
from controller.service.runtime import RuntimeCall, TableRuntime
from controller.web.accounts import Accounts, credentials_path, token_digest, write_file
from controller.web.credentials import hash_password
from controller.web.guard import GuardSettings, Rate
from controller.web.routes import console_app, pit_app
from controller.web.server import WebServer
from drivers import events as ev
from tests.controller.helpers import runtime

PIT_PASSWORD = "floor-secret"
DEALER_PASSWORD = "dealer-secret-17"
ATTENDANT_PASSWORD = "attendant-secret-3"
KIOSK = "k" * 43
BOARD = "b" * 43
STATION_TOKENS = {n: f"station{n}".ljust(43, "s") for n in range(1, 4)}
"""Device tokens of the test tables (43 URL-safe characters, as `new_token` makes)."""
KIOSK_AUTH = {"Authorization": f"Bearer {KIOSK}"}
TEST_GUARD = GuardSettings(commands=Rate(10_000.0, 10_000.0), reads=Rate(10_000.0, 10_000.0))
"""The tests send commands as fast as the table answers: no rate limit in the way."""


def _users() -> dict[str, tuple[str, str]]:
    return {"D17": ("dealer", hash_password(DEALER_PASSWORD)),
            "A3": ("attendant", hash_password(ATTENDANT_PASSWORD))}


_TOKENS = {"kiosk": KIOSK, "board": BOARD,
           **{f"station:{n}": token for n, token in STATION_TOKENS.items()}}


def table_accounts() -> Accounts:
    """A dealer D17, an attendant A3, the kiosk, the board and stations 1-3."""
    return Accounts.of(_users(), _TOKENS)


def table_credentials(directory: Path) -> Path:
    """The same users and tokens as a credentials file in `directory` (its path)."""
    path = credentials_path(directory / "table.toml")
    write_file(path, {
        "users": {name: {"role": role, "credential": credential}
                  for name, (role, credential) in _users().items()},
        "tokens": {key: token_digest(token) for key, token in _TOKENS.items()}})
    return path


def kiosk_beside(config: Path) -> dict[str, str]:
    """The kiosk's token written beside the table file `config` (as `shoectl console token
    kiosk` does); the header that carries it."""
    write_file(credentials_path(config), {"users": {}, "tokens": {"kiosk": token_digest(KIOSK)}})
    return dict(KIOSK_AUTH)


def station_auth(n: int) -> dict[str, str]:
    """The header of station `n`'s token."""
    return {"Authorization": f"Bearer {STATION_TOKENS[n]}"}


@dataclass
class LiveTable:
    """A table serving its console (and pit view) on loopback."""

    runtime: TableRuntime
    loop: EventLoop
    hub: ConsoleHub
    server: WebServer
    pit: WebServer
    pit_hub: ConsoleHub
    thread: threading.Thread
    board_hub: ConsoleHub | None = None
    cards: int = 0
    seen: list[str] = field(default_factory=list)

    def attach(self) -> None:
        """The table is up: the hubs publish from now on."""
        board = self.board_hub
        self.call(lambda rt: (self.hub.attach(rt), self.pit_hub.attach(rt),
                              board.attach(rt) if board is not None else None))

    def post(self, *facts: object) -> None:
        """Device facts (a wheel's, say), in order, each handled before this returns."""
        for fact in facts:
            self.loop.post(fact)
        self.call(lambda rt: None)

    def call(self, fn: Any) -> None:
        """Run `fn(runtime)` on the loop thread and wait for it."""
        done = threading.Event()

        def run(rt: TableRuntime) -> None:
            try:
                fn(rt)
            finally:
                done.set()
        self.loop.post(RuntimeCall(run))
        assert done.wait(30), "the loop did not answer"

    def draw(self, *codes: str) -> None:
        """Cards out of the shoe, in order, each handled before this returns."""
        for code in codes:
            self.cards += 1
            self.loop.post(ev.CardDrawn("shoe", self.cards, code, 100, 0.0))
        self.call(lambda rt: None)

    def request(self, method: str, path: str, body: object = None, *, port: int | None = None,
                headers: dict[str, str] | None = None, raw: bytes | None = None
                ) -> tuple[int, Any]:
        """One HTTP request; the status and the decoded JSON (every text kept in `seen`).

        Sent with the kiosk's token unless `headers` names another `Authorization`.
        """
        conn = http.client.HTTPConnection("127.0.0.1", port or self.server.port, timeout=30)
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        conn.request(method, path, body=data, headers={"Content-Type": "application/json",
                                                       **KIOSK_AUTH, **(headers or {})})
        response = conn.getresponse()
        text = response.read().decode()
        conn.close()
        self.seen.append(text)
        return response.status, json.loads(text) if text.startswith(("{", "[")) else text

    def kinds(self, kind: str) -> list[dict[str, Any]]:
        """The data of every journal record of `kind`, in order."""
        found: list[dict[str, Any]] = []
        self.call(lambda rt: found.extend(e.data for e in rt.journal.entries()
                                          if e.kind == kind))
        return found

    def get(self, path: str = "/api/table") -> tuple[int, Any]:
        return self.request("GET", path)

    def command(self, name: str, **fields: Any) -> tuple[int, Any]:
        return self.request("POST", "/api/command", {"command": name, **fields})

    def close(self) -> None:
        self.server.stop()
        self.pit.stop()
        self.loop.stop()
        self.thread.join(10)
        self.runtime.journal.close()


def start(tmp: Path, game: str = "blackjack", **options: Any) -> LiveTable:
    """A started table (not yet attached: the console answers 503 until `attach`).

    `options` go to both applications (`sessions`, `backoff`, `guard`, `journal`).
    """
    rt = runtime(tmp, game, return_to_betting=True)
    loop = EventLoop(rt.handle)
    hub = ConsoleHub(loop.post)
    pit_hub = ConsoleHub(loop.post, view=PitView())
    board_hub = ConsoleHub(loop.post, view=board_state)
    accounts = table_accounts()
    options = {"guard": TEST_GUARD, **options}
    server = WebServer(console_app(hub, board_hub, accounts=accounts, **options),
                       ("127.0.0.1", 0), "console")
    pit = WebServer(pit_app(pit_hub, accounts, legacy=("supervisor", hash_password(PIT_PASSWORD)),
                            **options), ("127.0.0.1", 0), "pit view")
    server.start()
    pit.start()
    thread = threading.Thread(target=loop.run_forever, name="table-loop", daemon=True)
    thread.start()
    return LiveTable(rt, loop, hub, server, pit, pit_hub, thread, board_hub)


class EventStream:
    """A client of `/api/events` (or the pit's stream), reading one event at a time."""

    def __init__(self, port: int, path: str = "/api/events",
                 headers: dict[str, str] | None = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.conn.request("GET", path, headers=headers if headers is not None else KIOSK_AUTH)
        self.response = self.conn.getresponse()
        self.status = self.response.status

    def next(self) -> dict[str, Any]:
        """The next event's data (keepalive comments skipped)."""
        data = ""
        while True:
            line = self.response.readline().decode()
            if line == "":
                raise EOFError("the stream ended")
            line = line.rstrip("\n")
            if line.startswith("data: "):
                data += line[len("data: "):]
            elif line == "" and data:
                return json.loads(data)

    def close(self) -> None:
        self.conn.close()


def scripts_of(page: str) -> list[str]:
    """The `src` of every script a served page loads, in order."""
    return re.findall(r'<script src="([^"]+)"></script>', page)
