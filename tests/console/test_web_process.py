"""The web server's own process (controller/web/worker.py, bridge.py): it serves the table
it is told about, its commands reach the table's loop and are journalled there, its journal
records too, and a web process that dies is started again with the table as it is now."""

from __future__ import annotations

import functools
import http.client
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.service.loop import EventLoop
from controller.service.runtime import RuntimeCall, TableRuntime
from controller.web.settings import ConsoleSettings
from controller.web.table_web import TableWeb, start_web
from tests.controller.helpers import runtime

from .live import KIOSK_AUTH, table_credentials

WAIT_S = 60.0
"""A limit for a process that does not start, not a speed."""


class Served:
    def __init__(self, tmp: Path) -> None:
        self.runtime = runtime(tmp, "blackjack", return_to_betting=True)
        self.loop = EventLoop(self.runtime.handle)
        self.web: TableWeb = start_web(
            ConsoleSettings(listen=("127.0.0.1", 0), pit_listen=("127.0.0.1", 0)),
            self.loop.post, credentials=table_credentials(tmp))
        self.web.attach(self.runtime)  # the loop has not started: this thread may touch it
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def request(self, method: str, path: str, body: object = None,
                headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """One request, tried again while the web process is (re)starting."""
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.web.servers[0].port,
                                                  timeout=30)
                conn.request(method, path, None if body is None else json.dumps(body),
                             {"Content-Type": "application/json", **KIOSK_AUTH,
                              **(headers or {})})
                response = conn.getresponse()
                text = response.read().decode()
                conn.close()
                if response.status != 503:
                    return response.status, json.loads(text)
            except (OSError, http.client.HTTPException):
                pass
            assert time.monotonic() < deadline, f"{path}: no answer"
            time.sleep(0.2)

    def journalled(self, kind: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        done = threading.Event()

        def read(rt: TableRuntime) -> None:
            found.extend(e.data for e in rt.journal.entries() if e.kind == kind)
            done.set()
        self.loop.post(RuntimeCall(read))
        assert done.wait(WAIT_S)
        return found

    def close(self) -> None:
        self.web.stop()
        self.loop.stop()
        self.thread.join(10)
        self.runtime.journal.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    table = Served(tmp_path)
    try:
        yield table
    finally:
        table.close()


def test_commands_cross_to_the_table_and_are_journalled_there(served: Served) -> None:
    assert served.request("GET", "/api/table")[1]["phase"] == "shoe_loading"
    status, table = served.request("POST", "/api/command", {"command": "shuffle_done"})
    assert (status, table["phase"]) == (200, "betting")
    assert served.journalled("console:command") == [{"by": "kiosk",
                                                      "command": "shuffle_done"}]
    refused = served.request("POST", "/api/command", {"command": "stand"})
    assert refused[0] == 409  # the table's own refusal, carried back
    for n in range(5):  # failed logins: the lock-out is journalled by the table
        assert served.request("POST", "/api/login", {"user": "D17", "password": f"x{n}"},
                              headers={"Authorization": ""})[0] == 401
    deadline = time.monotonic() + WAIT_S
    while not served.journalled("console:login_locked"):
        assert time.monotonic() < deadline, "the lock-out was never journalled"
        time.sleep(0.2)


def test_a_web_process_that_dies_is_started_again(served: Served) -> None:
    assert served.request("POST", "/api/command", {"command": "shuffle_done"})[0] == 200
    process = served.web.process
    assert process is not None
    assert process.process is not None
    first = process.process
    first.kill()
    first.wait(WAIT_S)
    status, table = served.request("GET", "/api/table")  # tried until the new one answers
    assert (status, table["phase"]) == (200, "betting")  # the table as it is now
    assert process.process is not first


def test_a_station_s_seq_outlives_the_web_process(tmp_path: Path) -> None:
    """`shoectl run`'s path: the web process keeps each station's last seq in the state
    directory, so a station command captured before a restart is refused after it."""
    from controller.console.station_feed import StationFeed
    from controller.journal.store import JournalStore
    from controller.procedure.community import CommunityModel
    from controller.procedure.shared.setup import Setup
    from controller.service.runtime import RecordingOutputs
    from controller.web.routes import SEQ_FILE
    from tests.controller.community_helpers import community_config

    from .live import station_auth

    rt = TableRuntime(Setup(community_config(), burn=False),
                      JournalStore(tmp_path, clock=time.monotonic), RecordingOutputs(),
                      functools.partial(CommunityModel, stations=3), "test")
    served = Served.__new__(Served)
    served.runtime, served.loop = rt, EventLoop(rt.handle)
    served.web = start_web(ConsoleSettings(listen=("127.0.0.1", 0)), served.loop.post,
                           stations=3, credentials=table_credentials(tmp_path),
                           state_dir=tmp_path)
    assert isinstance(served.web.stations, StationFeed)
    served.web.attach(rt)
    served.thread = threading.Thread(target=served.loop.run_forever, daemon=True)
    served.thread.start()
    try:
        wager = {"command": "wager", "spot": 1, "cents": 500, "seq": 5}
        first = served.request("POST", "/api/station/1/command", wager, station_auth(1))
        assert "seq" not in first[1]  # taken (the table may refuse it: no credits yet)
        assert json.loads((tmp_path / SEQ_FILE).read_text()) == {"station:1": 5}
        process = served.web.process
        assert process is not None
        assert process.process is not None
        old = process.process
        old.kill()
        old.wait(WAIT_S)
        status, body = served.request("POST", "/api/station/1/command", wager, station_auth(1))
        assert (status, body.get("seq")) == (409, 5)
        assert process.process is not old
    finally:
        served.close()
