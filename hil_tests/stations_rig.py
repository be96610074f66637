"""The emulated rig at a community table, its console and station pages served, for tests
that play at the stations like people.

The table runs on the byte-level emulators (shoe, layout board, sign behind real ptys) with
the real drivers, its loop on a thread of its own as under `shoectl run`, the console with
its three station pages and the pit view served by uvicorn on free loopback ports. The loop's
clock is the machine's monotonic clock plus an offset the test moves (`skip`): a decision
timer runs out when the test says so, however slow the machine is.
"""

from __future__ import annotations

import base64
import http.client
import json
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from controller.cli import simulate_command
from controller.service.app import TableApp
from controller.service.runtime import RuntimeCall, TableRuntime
from controller.sim.rig import RigSpec, start_rig_app
from controller.web.credentials import hash_password
from controller.web.settings import ConsoleSettings
from controller.web.table_web import TableWeb, start_web
from tests.console.live import KIOSK, STATION_TOKENS, table_credentials

PIT_PASSWORD = "attendant-secret"
STATIONS = 3


class SkewClock:
    """`time.monotonic()` plus an offset that only grows."""

    def __init__(self) -> None:
        self.offset = 0.0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return time.monotonic() + self.offset

    def skip(self, seconds: float) -> None:
        with self._lock:
            self.offset += seconds


@dataclass
class StationsRig:
    """A started community table on the emulated rig, its console, stations and pit view."""

    app: TableApp
    web: TableWeb
    thread: threading.Thread
    clock: SkewClock

    @property
    def url(self) -> str:
        return self.web.servers[0].url

    def station_url(self, station: int) -> str:
        """Station `station`'s page as its terminal opens it, with its token."""
        return f"{self.url}station/{station}#token={STATION_TOKENS[station]}"

    @property
    def shoe(self) -> Any:
        return self.app.devices.emulators["shoe"]

    def call(self, fn: Any) -> None:
        """Run `fn(runtime)` on the loop thread and wait for it."""
        done = threading.Event()

        def run(rt: TableRuntime) -> None:
            try:
                fn(rt)
            finally:
                done.set()
        self.app.loop.post(RuntimeCall(run))
        assert done.wait(60), "the loop did not answer"

    def skip(self, seconds: float) -> None:
        """Move the loop's clock on; what falls due runs before this returns."""
        self.clock.skip(seconds)
        self.call(lambda rt: None)

    def journal_records(self, kind: str) -> list[dict[str, Any]]:
        """The data of every journal record of `kind`, in order (read on the loop thread)."""
        found: list[dict[str, Any]] = []
        self.call(lambda rt: found.extend(e.data for e in rt.journal.entries()
                                          if e.kind == kind))
        return found

    def request(self, method: str, path: str, body: object = None, *,
                pit: bool = False) -> tuple[int, Any]:
        server = self.web.servers[1 if pit else 0]
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        auth = base64.b64encode(f"supervisor:{PIT_PASSWORD}".encode()).decode()
        conn.request(method, path, body=None if body is None else json.dumps(body).encode(),
                     headers={"Authorization": f"Basic {auth}" if pit else f"Bearer {KIOSK}",
                              "Content-Type": "application/json"})
        response = conn.getresponse()
        text = response.read().decode()
        conn.close()
        return response.status, json.loads(text)

    def close(self) -> None:
        self.web.stop()
        self.app.loop.stop()
        self.thread.join(10)
        self.app.close("test finished")


def start_stations_rig(tmp: Path, cards: list[str], decision_seconds: int) -> StationsRig:
    """The community table dealt from `cards` (a scripted shoe, no burn)."""
    config = simulate_command.parse_options(["--game", "community"]).config
    config = replace(config, community=replace(config.community, stations=STATIONS,
                                               decision_seconds=decision_seconds))
    app = start_rig_app("stations-test", config, RigSpec(STATIONS, 1, cards, burn=False),
                        state_dir=tmp / "state", ports=tmp / "ports")
    assert app.runtime is not None
    clock = SkewClock()
    app.loop.clock = clock  # no timer runs yet: the table is loading its shoe
    settings = ConsoleSettings(listen=("127.0.0.1", 0), pit_listen=("127.0.0.1", 0),
                               pit_user="supervisor",
                               pit_credential=hash_password(PIT_PASSWORD))
    web = start_web(settings, app.loop.post, stations=STATIONS, credentials=table_credentials(tmp))
    web.attach(app.runtime)  # the loop thread has not started: this thread may touch it
    thread = threading.Thread(target=app.loop.run_forever, name="table-loop", daemon=True)
    thread.start()
    return StationsRig(app, web, thread, clock)
