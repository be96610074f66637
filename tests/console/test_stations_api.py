"""The player stations' API over real HTTP: the contract in controller/console/STATIONS.md.

A live community table (its loop on its own thread, its timers on a clock the test moves, the
console and the pit view served by uvicorn on loopback) with three stations: pages, views,
commands, event streams, the attendant's credits, REPEAT and AUTO REPEAT, a timer expiry.
"""

from __future__ import annotations

import base64
import functools
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.console import station_commands
from controller.console.hub import ConsoleHub
from controller.console.pit_state import pit_state
from controller.console.station_feed import StationFeed
from controller.console.station_view import CHIPS
from controller.journal.store import JournalStore
from controller.procedure.community import CommunityModel
from controller.procedure.shared.setup import Setup
from controller.service.loop import EventLoop
from controller.service.runtime import RecordingOutputs, RuntimeCall, TableRuntime
from controller.web.credentials import hash_password
from controller.web.routes import SEQ_FILE, Stations, StationSeqs, console_app, pit_app
from controller.web.server import WebServer
from tests.controller.community_helpers import community_config
from tests.support.clock import FakeClock

from .live import (
    PIT_PASSWORD,
    TEST_GUARD,
    EventStream,
    LiveTable,
    scripts_of,
    station_auth,
    table_accounts,
)

AUTH = {"Authorization": "Basic " + base64.b64encode(f"supervisor:{PIT_PASSWORD}".encode())
        .decode()}
NO_PEEK = ["5H", "6D", "8S", "9C", "TH", "7D", "QS", "7C"]
"""Starting cards: spots 5H TH / 6D 7D / 8S QS, dealer 9C up (7C in the hole: no blackjack)."""


class StationsTable(LiveTable):
    """A live community table with its station hubs and its test clock."""

    stations: list[ConsoleHub]
    feed: StationFeed
    clock: FakeClock

    seq: int = 0

    def station(self, n: int, name: str, **fields: Any) -> tuple[int, Any]:
        """Station `n`'s command, with its token and the next `seq`."""
        self.seq += 1
        return self.request("POST", f"/api/station/{n}/command",
                            {"command": name, "seq": self.seq, **fields},
                            headers=station_auth(n))

    def press(self, n: int, spot: int, cents: int) -> tuple[int, Any]:
        """Station `n` presses spot `spot` with chips adding to `cents` (largest first)."""
        answer: tuple[int, Any] = (0, None)
        for chip in sorted(CHIPS, reverse=True):
            while cents >= chip:
                cents -= chip
                answer = self.station(n, "wager", spot=spot, cents=chip)
                assert answer[0] == 200, answer
        assert cents == 0
        return answer

    def credits(self, n: int, body: object, auth: bool = True) -> tuple[int, Any]:
        return self.request("POST", f"/api/pit/station/{n}/credits", body,
                            port=self.pit.port, headers=AUTH if auth else {"Authorization": ""})

    def wait(self, seconds: float) -> None:
        """Let `seconds` pass on the loop's clock; what falls due runs before this returns."""
        self.clock.advance(seconds)
        self.call(lambda rt: None)

    @property
    def model(self) -> CommunityModel:
        model = self.runtime.model
        assert isinstance(model, CommunityModel)
        return model

    def kinds(self, kind: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        self.call(lambda rt: found.extend(e.data for e in rt.journal.entries()
                                          if e.kind == kind))
        return found


@pytest.fixture
def table(tmp_path: Path) -> Iterator[StationsTable]:
    clock = FakeClock(1000.0)
    factory = functools.partial(CommunityModel, stations=3)
    rt = TableRuntime(Setup(community_config(), burn=False),
                      JournalStore(tmp_path, clock=time.monotonic), RecordingOutputs(),
                      factory, "test")
    rt.return_to_betting = True
    loop = EventLoop(rt.handle, clock)
    model = rt.model
    assert isinstance(model, CommunityModel)
    model.timers.attach(loop, rt.fire, rt.fire_together)
    hub = ConsoleHub(loop.post)
    stations = [ConsoleHub(loop.post) for _ in (1, 2, 3)]
    pit_hub = ConsoleHub(loop.post, view=pit_state)
    accounts = table_accounts()
    seqs = StationSeqs(tmp_path / SEQ_FILE)
    server = WebServer(console_app(hub, None, Stations(stations, seqs), accounts=accounts,
                                   guard=TEST_GUARD), ("127.0.0.1", 0), "console")
    pit = WebServer(pit_app(pit_hub, accounts,
                            legacy=("supervisor", hash_password(PIT_PASSWORD)), stations=True,
                            guard=TEST_GUARD), ("127.0.0.1", 0), "pit view")
    server.start()
    pit.start()
    thread = threading.Thread(target=loop.run_forever, name="table-loop", daemon=True)
    thread.start()
    live = StationsTable(rt, loop, hub, server, pit, pit_hub, thread)
    live.stations, live.clock, live.feed = stations, clock, StationFeed(stations)
    try:
        yield live
    finally:
        live.close()


def opened(table: StationsTable, credits: int = 100_000) -> StationsTable:
    table.call(lambda rt: [h.attach(rt) for h in (table.hub, table.pit_hub, table.feed)])
    for n in (1, 2, 3):
        assert table.credits(n, {"action": "in", "cents": credits})[0] == 200
    assert table.command("shuffle_done")[0] == 200
    return table


def test_each_station_has_its_page_view_and_a_404_beyond(table: StationsTable) -> None:
    assert table.get("/api/station/1") == (503, {"error": "starting"})
    opened(table)
    status, page = table.get("/station/2")
    assert status == 200
    assert scripts_of(page) == ["/common.js", "/station.js"]
    for script in ("/common.js", "/station.js"):
        assert table.request("GET", script)[0] == 200, script
    status, view = table.get("/api/station/2")
    assert status == 200
    assert (view["station"], view["state"], view["message"]) == (2, "betting", "BETS PLEASE")
    assert view["credits"] == 100_000
    assert view["limits"] == {"min": 500, "max": 500_000}
    for path in ("/api/station/4", "/api/station/0", "/station/9"):
        status, body = table.get(path)
        assert status == 404
        assert "stations 1 to 3" in body["error"]


@pytest.mark.parametrize(("body", "why"), [
    ({"command": "wager", "spot": 1}, "'cents' must be an integer"),
    ({"command": "wager", "spot": "1", "cents": 500}, "'spot' must be an integer"),
    ({"command": "fold"}, "unknown station command"),
    ({"command": "auto_repeat", "on": 1}, "'on' must be true or false"),
    ({"command": "clear_all", "station": 3}, "the body names station 3"),
    ([1], "a JSON object"),
])
def test_malformed_station_commands_are_400(table: StationsTable, body: object,
                                            why: str) -> None:
    opened(table)
    status, reply = table.request("POST", "/api/station/1/command", body,
                                  headers=station_auth(1))
    assert status == 400
    assert why in reply["error"]


def test_credits_need_the_credential_and_bound_every_wager(table: StationsTable) -> None:
    opened(table, credits=1000)
    assert table.credits(1, {"action": "in", "cents": 500}, auth=False)[0] == 401
    assert table.credits(1, {"action": "in", "cents": "5"})[0] == 400
    assert table.credits(1, {"action": "in", "cents": 0})[0] == 409
    assert table.press(1, 1, 800)[0] == 200
    status, body = table.station(1, "wager", spot=2, cents=500)
    assert status == 409
    assert "over its credits (200 cents available)" in body["error"]
    status, body = table.credits(1, {"action": "out"})
    assert status == 409
    assert "has wagers on the table" in body["error"]
    assert table.station(1, "clear_all")[0] == 200
    status, body = table.credits(1, {"action": "out"})
    assert status == 200
    assert body["credits"] == 0
    assert body["meters"]["credits_in"] == 1000
    assert body["meters"]["credits_out"] == 1000
    status, pit = table.request("GET", "/api/pit", port=table.pit.port, headers=AUTH)
    assert status == 200
    assert pit["stations"][0] == {"station": 1, "credits": 0, "at_stake": 0, "meters": {
        "credits_in": 1000, "credits_out": 1000, "wagered": 0, "won": 0, "games_played": 0}}
    assert [s["credits"] for s in pit["stations"][1:]] == [1000, 1000]
    records = table.kinds("station:credits_out")
    assert records[-1]["who"] == "pit:supervisor"
    assert records[-1]["cents"] == 1000


def play_round_standing(table: StationsTable) -> None:
    """No more bets, the eight starting cards, every wagered hand stands, the dealer's draw."""
    assert table.command("no_more_bets")[0] == 200
    table.draw(*NO_PEEK)
    for n in (1, 2, 3):
        view = table.get(f"/api/station/{n}")[1]
        for spot in view["spots"]:
            if "stand" in spot["open"]:
                assert table.station(n, "stand", spot=spot["spot"])[0] == 200
    table.draw("2S")  # the dealer: 9C 7C 2S = 18


def test_a_round_through_the_stations_settles_credits_and_meters(table: StationsTable) -> None:
    opened(table)
    stream = EventStream(table.server.port, "/api/station/2/events")
    assert stream.status == 200
    assert stream.next()["table"]["state"] == "betting"
    assert table.press(1, 1, 1000)[0] == 200  # 15 v 18: loses
    assert table.station(2, "wager", spot=3, cents=500)[0] == 200   # 18 v 18: pushes
    assert table.station(2, "wager", spot=2, cents=500)[0] == 200   # 13 v 18: loses
    play_round_standing(table)
    seen = []
    while True:
        event = stream.next()["table"]
        seen.append(event)
        if event["state"] == "betting" and event["last_round"]:
            break
    assert any(e["shared"] == ["5H", "6D", "8S", "TH", "7D", "QS"] for e in seen)
    in_play = [e for e in seen if e["state"] in ("dealing", "decisions")]
    assert in_play
    assert all(e["dealer"]["cards"] in ([], ["9C"]) for e in in_play)  # the hole card hidden
    stream.close()
    view = table.get("/api/station/2")[1]
    assert view["last_round"]["net"] == -500
    assert view["credits"] == 100_000 - 500
    assert view["repeat"] == {"2": 500, "3": 500}
    one = table.credits(1, {"action": "in", "cents": 1})[1]
    assert one["meters"] == {"credits_in": 100_001, "credits_out": 0, "wagered": 1000,
                             "won": 0, "games_played": 1}
    assert one["credits"] == 100_001 - 1000
    m = table.kinds("station:settled")
    assert {r["station"]: (r["wagered"], r["won"]) for r in m} == {1: (1000, 0), 2: (1000, 500)}


def test_repeat_and_auto_repeat_place_the_last_wagers(table: StationsTable) -> None:
    opened(table)
    status, body = table.station(1, "repeat")
    assert status == 409
    assert "no last wager" in body["error"]
    assert table.station(1, "wager", spot=1, cents=500)[0] == 200
    assert table.station(1, "wager", spot=1, cents=500)[0] == 200
    assert table.station(2, "wager", spot=2, cents=2500)[0] == 200
    assert table.station(2, "auto_repeat", on=True)[1]["auto_repeat"] is True
    play_round_standing(table)
    view = table.get("/api/station/2")[1]
    assert view["wagers"] == {"2": 2500}  # placed again as betting opened
    assert table.get("/api/station/1")[1]["wagers"] == {}
    status, body = table.station(1, "repeat")
    assert status == 200
    assert body["wagers"] == {"1": 1000}
    sources = [r["source"] for r in table.kinds("bet:wager")][-2:]
    assert sources == ["auto_repeat", "station"]
    assert table.station(2, "auto_repeat", on=False)[1]["auto_repeat"] is False


def test_a_station_away_when_its_time_runs_out_stands(table: StationsTable) -> None:
    opened(table)
    assert table.press(1, 1, 1000)[0] == 200
    assert table.press(3, 1, 1000)[0] == 200
    assert table.command("no_more_bets")[0] == 200
    table.draw(*NO_PEEK)
    assert table.station(3, "hit", spot=1)[0] == 200
    view = table.get("/api/station/1")[1]
    assert view["message"] == "MAKE YOUR DECISION"
    assert view["timer"] == {"limit": 15.0, "left": 15.0}
    table.wait(14.9)
    assert table.get("/api/station/1")[1]["phase"] == "deciding"
    table.wait(0.2)  # station 1 never answered: its hands stand; the card goes to station 3
    view = table.get("/api/station/1")[1]
    assert view["phase"] == "finished"
    assert view["message"] == "ALL HANDS STAND"
    table.draw("4C")
    assert table.get("/api/station/3")[1]["spots"][0]["hands"][0]["cards"] == ["5H", "TH", "4C"]
    assert [r["station"] for r in table.kinds("station:timer_expired")] == [1]


def test_the_console_shows_who_decides_and_where_each_card_goes(table: StationsTable) -> None:
    opened(table)
    assert table.press(1, 1, 1000)[0] == 200
    assert table.press(1, 2, 1000)[0] == 200
    assert table.press(2, 3, 1000)[0] == 200
    assert table.press(3, 2, 1000)[0] == 200
    status, body = table.command("last_bets")
    assert status == 200
    assert body["community"]["last_call"] is True
    assert table.get("/api/station/3")[1]["message"] == "LAST BETS PLEASE"
    assert table.command("no_more_bets")[0] == 200
    table.draw(*NO_PEEK)
    body = table.get()[1]
    assert body["prompt"] == "stations 1, 2, 3 deciding (do not draw)"
    assert body["community"]["dealer"] == ["9C"]
    assert table.station(1, "stand", spot=1)[0] == 200
    assert table.station(1, "hit", spot=2)[0] == 200
    assert table.station(2, "stand", spot=3)[0] == 200  # station 2 is finished: a burn
    assert table.station(3, "double", spot=2)[0] == 200
    body = table.get()[1]
    assert body["prompt"] == ("draw a community card: station 1 spot 2 hand 1; "
                              "station 3 spot 2 hand 1")
    playing = {p["station"]: p for p in body["community"]["playing"]}
    assert playing[1]["next_card"] == {"spot": 2, "hand": 1}
    assert playing[2]["phase"] == "finished"
    assert body["community"]["burn_for"] == [2]
    assert body["community"]["card_due"] == "community"
    assert "TABLE" not in body["display"]
    table.draw("4H")
    body = table.get()[1]
    assert body["prompt"] == "station 1 deciding (do not draw)"  # 6D 7D 4H: station 1 again
    assert {p["station"]: p["seconds_left"] for p in body["community"]["playing"]} == {
        1: 15.0, 2: None, 3: None}


def test_a_command_the_client_gave_up_on_is_not_carried_out(table: StationsTable) -> None:
    opened(table)
    gate = threading.Event()
    table.loop.post(RuntimeCall(lambda rt: gate.wait(30)))  # the loop is busy
    future = table.stations[0].submit(station_commands.parse(
        {"command": "wager", "station": 1, "spot": 1, "cents": 500}), "station",
        station_commands.execute)
    assert future.cancel()  # the web server stopped waiting (503 "try again")
    gate.set()
    table.call(lambda rt: None)
    assert table.get("/api/station/1")[1]["wagers"] == {}
    assert table.get()[0] == 200  # the loop goes on


def test_a_station_s_token_acts_for_its_own_station_only(table: StationsTable) -> None:
    opened(table)
    status, body = table.request("POST", "/api/station/2/command",
                                 {"command": "wager", "spot": 1, "cents": 500, "seq": 1},
                                 headers=station_auth(1))
    assert (status, body) == (403, {"error": "station:1 may not act for station 2"})
    assert table.request("GET", "/api/station/2", headers=station_auth(1))[0] == 403
    assert table.kinds("console:refused") == [{
        "by": "station:1", "path": "/api/station/2/command",
        "why": "station:1 may not act for station 2"}]
    assert table.model.wagers.spots == {}
    assert table.station(2, "wager", spot=1, cents=500)[0] == 200
    assert table.kinds("console:command")[-1] == {
        "by": "station:2", "command": "wager", "station": 2, "spot": 1, "cents": 500}


def test_a_replayed_or_reordered_station_command_is_refused(table: StationsTable) -> None:
    opened(table)
    wager = {"command": "wager", "spot": 1, "cents": 500, "seq": 7}
    assert table.request("POST", "/api/station/1/command", wager,
                         headers=station_auth(1))[0] == 200
    for seq in (7, 6):  # the same command again, an older one
        status, body = table.request("POST", "/api/station/1/command", {**wager, "seq": seq},
                                     headers=station_auth(1))
        assert (status, body["seq"]) == (409, 7)
    assert table.model.wagers.spots[1] == {1: 500}  # taken once
    status, body = table.request("POST", "/api/station/1/command",
                                 {"command": "clear_all"}, headers=station_auth(1))
    assert status == 400
    assert "seq" in body["error"]
    _, about = table.request("GET", "/api/session", headers=station_auth(1))
    assert about == {"by": "station:1", "role": "station", "station": 1, "seq": 7}


def restarted(table: StationsTable, state_dir: Path) -> WebServer:
    """The console's server again, as a restart makes it: a new application, new counts
    read from the same state directory (the old server stopped)."""
    table.server.stop()
    server = WebServer(console_app(table.hub, None, Stations(table.stations,
                                                             StationSeqs(state_dir / SEQ_FILE)),
                                   accounts=table_accounts(), guard=TEST_GUARD),
                       ("127.0.0.1", 0), "console")
    server.start()
    table.server = server
    return server


def test_a_station_command_replayed_after_a_restart_is_refused(table: StationsTable,
                                                                tmp_path: Path) -> None:
    opened(table)
    wager = {"command": "wager", "spot": 1, "cents": 500, "seq": 5}
    assert table.request("POST", "/api/station/1/command", wager,
                         headers=station_auth(1))[0] == 200
    assert json.loads((tmp_path / SEQ_FILE).read_text()) == {"station:1": 5}
    restarted(table, tmp_path)
    status, body = table.request("POST", "/api/station/1/command", wager,
                                 headers=station_auth(1))
    assert (status, body["seq"]) == (409, 5)
    assert table.model.wagers.spots[1] == {1: 500}  # taken once, restart or not
    _, about = table.request("GET", "/api/session", headers=station_auth(1))
    assert about["seq"] == 5  # the page counts on from here
    assert table.request("POST", "/api/station/1/command", {**wager, "seq": 6},
                         headers=station_auth(1))[0] == 200
    assert table.request("POST", "/api/station/2/command", {**wager, "seq": 1},
                         headers=station_auth(2))[0] == 200  # each station its own count
    assert json.loads((tmp_path / SEQ_FILE).read_text()) == {"station:1": 6, "station:2": 1}


@pytest.mark.parametrize("text", ["{\"station:1\": 5", "[5]", "{\"station:1\": \"5\"}",
                                  "{\"kiosk\": 5}"])
def test_an_unreadable_seq_file_refuses_station_commands_saying_why(
        table: StationsTable, tmp_path: Path, text: str, caplog: pytest.LogCaptureFixture) -> None:
    opened(table)
    (tmp_path / SEQ_FILE).write_text(text)
    restarted(table, tmp_path)
    status, body = table.request("POST", "/api/station/1/command",
                                 {"command": "wager", "spot": 1, "cents": 500, "seq": 99},
                                 headers=station_auth(1))
    assert status == 503
    assert f"{tmp_path / SEQ_FILE}: the stations' last seq" in body["error"]
    assert table.model.wagers.spots == {}
    assert "station commands are refused until it is removed" in caplog.text


def test_the_station_server_takes_only_the_posted_chips(table: StationsTable) -> None:
    """A 1-cent main wager (once the ticket to a 100.00 side wager) is refused at the door."""
    opened(table)
    status, body = table.station(1, "wager", spot=1, cents=1)  # no chip is one cent
    assert (status, body) == (409, {"error": "station 1: 1 cents is not a chip of this table "
                                             "(1.00, 5.00, 25.00, 100.00, 500.00)"})
    assert table.station(1, "wager", spot=1, cents=700)[0] == 409
    assert table.station(1, "wager", spot=1, cents=100_000)[0] == 409
    assert table.model.wagers.spots == {}
    assert table.station(1, "wager", spot=1, cents=500)[0] == 200
    assert table.model.wagers.spots == {1: {1: 500}}
