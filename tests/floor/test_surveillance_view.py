"""The floor view's surveillance page: the alerts for role surveillance, and for nobody else.

Every role a floor's credentials file can hold, and the `[view]` supervisor, tried on every
page of the floor view over real HTTP (decision 050): only surveillance reads the alerts,
and surveillance does not read the pit's pages.
"""

from __future__ import annotations

import base64
import http.client
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.floor.floor_view import FloorView
from controller.floor.surveillance import SurveillanceWatch
from controller.journal.chain import Entry
from controller.web.accounts import Accounts
from controller.web.credentials import hash_password
from controller.web.floor_web import floor_app
from controller.web.server import WebServer

PASSWORD = "floor-secret-0815"
USERS = {"sue": "surveillance", "ann": "attendant", "sam": "supervisor", "dan": "dealer"}
PIT_PAGES = ("/", "/floor.js", "/api/floor")
SURVEILLANCE_PAGES = ("/surveillance", "/surveillance.js", "/api/surveillance")


def counter_rows() -> list[Entry]:
    """A seat betting 1 unit at a low count and 8 at a high one, 40 rounds."""
    rows = [("shoe:shuffled", {"decks": 6})]
    for number in range(1, 41):
        high = number % 2 == 0
        rows.append(("round:no_more_bets", {"round": number,
                                            "bets": [[2, 8000 if high else 1000, {}]]}))
        rows.extend(("card:dealt", {"round": number, "to": [2, 0, False], "card": card})
                    for card in (("KH", "KS") if high else ("2H", "3S")))  # the count swings
    return [Entry(seq, "", 0.0, kind, data, "", "") for seq, (kind, data) in
            enumerate(rows, 1)]


@pytest.fixture
def port(tmp_path: Path) -> Iterator[int]:
    path = tmp_path / "floor.credentials.json"
    path.write_text(json.dumps({"users": {name: {"role": role,
                                                 "credential": hash_password(PASSWORD)}
                                          for name, role in USERS.items()},
                                "tokens": {}}), encoding="utf-8")
    watch = SurveillanceWatch()
    assert watch.stored("T1", counter_rows()), "the rows make an alert"
    server = WebServer(floor_app(FloorView(), "supervisor", hash_password(PASSWORD),
                                 accounts=Accounts(path), alerts=watch.alerts),
                       ("127.0.0.1", 0), "floor view")
    server.start()
    try:
        yield server.port
    finally:
        server.stop()


def get(port: int, path: str, user: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    token = base64.b64encode(f"{user}:{PASSWORD}".encode()).decode()
    conn.request("GET", path, headers={"Authorization": f"Basic {token}"})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, body


def test_surveillance_reads_the_alerts_and_not_the_pit(port: int) -> None:
    status, body = get(port, "/api/surveillance", "sue")
    assert status == 200
    (alert,) = json.loads(body)["alerts"]
    assert (alert["table"], alert["seat"], alert["statistic"]) == ("T1", 2, "spearman_rho")
    for path in SURVEILLANCE_PAGES:
        assert get(port, path, "sue")[0] == 200, path
    for path in PIT_PAGES:
        assert get(port, path, "sue")[0] == 403, path


@pytest.mark.parametrize("user", ["ann", "sam", "supervisor"])
def test_the_pit_reads_the_floor_and_never_an_alert(port: int, user: str) -> None:
    for path in SURVEILLANCE_PAGES:
        status, body = get(port, path, user)
        assert status == 403, (user, path)
        assert b"spearman" not in body
    for path in PIT_PAGES:
        status, body = get(port, path, user)
        assert status == 200, (user, path)
        assert b"spearman" not in body
        assert b"alerts" not in body or path != "/api/floor"


def test_a_dealer_of_the_floor_file_reads_nothing(port: int) -> None:
    for path in (*PIT_PAGES, *SURVEILLANCE_PAGES):
        assert get(port, path, "dan")[0] == 403, path
