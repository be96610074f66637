"""Nobody acts at the table without a name: authentication, authorisation, attribution.

Over real HTTP against the live table (controller/web/auth.py, controller/web/routes.py):
every API path refuses a request without a credential (401) or without the right (403), each
in one JSON line; the dealer's commands are journalled with who gave them; a station's token
acts for its own station only, and a replayed station command is refused; a login backs off
and costs the same work for a wrong user name as for a wrong password; a logout closes the
session's event streams.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.web import accounts as accounts_module
from controller.web import routes
from controller.web.auth import LoginBackoff, Sessions
from tests.support.clock import FakeClock

from .live import (
    BOARD,
    DEALER_PASSWORD,
    KIOSK,
    EventStream,
    LiveTable,
    start,
)


class Clocked(LiveTable):
    clock: FakeClock


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Clocked]:
    clock = FakeClock(1000.0)
    live = start(tmp_path, sessions=Sessions(clock, lifetime=600.0), backoff=LoginBackoff(clock))
    live.__class__ = Clocked
    assert isinstance(live, Clocked)
    live.clock = clock
    live.attach()
    try:
        yield live
    finally:
        live.close()


NOBODY = {"Authorization": ""}


def raw(port: int, method: str, path: str, body: bytes | None = None,
        headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    """One request exactly as given: status, headers (lower-case names), text."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    text = response.read().decode()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, text


def log_in(table: LiveTable, body: dict[str, str], port: int | None = None
           ) -> tuple[int, dict[str, str], Any]:
    status, headers, text = raw(port or table.server.port, "POST", "/api/login",
                                json.dumps(body).encode(),
                                {"Content-Type": "application/json"})
    return status, headers, json.loads(text)


def cookie(headers: dict[str, str]) -> str:
    return headers["set-cookie"].split(";")[0]


def origin(table: LiveTable) -> dict[str, str]:
    return {"Origin": f"http://127.0.0.1:{table.server.port}"}


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/api/table"), ("POST", "/api/command"), ("GET", "/api/events"),
    ("GET", "/api/board"), ("GET", "/api/board/events"), ("GET", "/api/session"),
])
def test_every_console_api_path_needs_a_credential(table: LiveTable, method: str,
                                                   path: str) -> None:
    body = b'{"command": "shuffle_done"}' if method == "POST" else None
    status, _, text = raw(table.server.port, method, path, body,
                          {"Content-Type": "application/json"})
    assert status == 401
    assert "\n" not in text.strip()
    assert "log in first" in json.loads(text)["error"]


@pytest.mark.parametrize("path", ["/api/pit", "/api/pit/events"])
def test_every_pit_api_path_needs_a_credential(table: LiveTable, path: str) -> None:
    assert raw(table.pit.port, "GET", path)[0] == 401


def test_an_unknown_token_is_401_and_a_token_without_the_right_403(table: LiveTable) -> None:
    status, _, text = raw(table.server.port, "POST", "/api/command",
                          b'{"command": "shuffle_done"}',
                          {"Content-Type": "application/json",
                           "Authorization": "Bearer " + "x" * 43})
    assert (status, json.loads(text)) == (401, {"error": "unknown token"})
    board = {"Authorization": f"Bearer {BOARD}"}
    assert table.request("GET", "/api/board", headers=board)[0] == 200  # what players see
    status, body = table.request("POST", "/api/command", {"command": "shuffle_done"},
                                 headers=board)
    assert (status, body) == (403, {"error": "board may not give the dealer's commands"})
    assert table.kinds("console:refused")[-1] == {
        "by": "board", "path": "/api/command", "why": "board may not give the dealer's commands"}
    assert table.get()[1]["phase"] == "shoe_loading"  # nothing happened


def test_a_dealer_logs_in_and_the_journal_names_them(table: LiveTable) -> None:
    assert log_in(table, {"user": "D17", "password": "wrong"})[0] == 401
    status, headers, about = log_in(table, {"user": "D17", "password": DEALER_PASSWORD})
    assert (status, about) == (200, {"by": "dealer:D17", "role": "dealer"})
    flags = {f.strip() for f in headers["set-cookie"].split(";")}
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= flags
    assert "Secure" not in flags  # served without TLS
    session = {"Cookie": cookie(headers), "Authorization": ""}
    assert table.request("GET", "/api/session", headers=session) == (
        200, {"by": "dealer:D17", "role": "dealer"})
    status, _ = table.request("POST", "/api/command", {"command": "shuffle_done"},
                              headers={**session, **origin(table)})
    assert status == 200
    assert table.command("seat", seat=2, in_play=True, main=500)[0] == 200  # the kiosk
    assert table.kinds("console:command") == [
        {"by": "dealer:D17", "command": "shuffle_done"},
        {"by": "kiosk", "command": "seat", "seat": 2, "in_play": True, "main": 500}]


def test_a_cookie_carried_change_needs_its_own_origin(table: LiveTable) -> None:
    _, headers, _ = log_in(table, {"user": "D17", "password": DEALER_PASSWORD})
    session = {"Cookie": cookie(headers), "Authorization": ""}
    for other in ({"Origin": "http://evil.example"}, {}):  # another origin, or none said
        status, _body = table.request("POST", "/api/command", {"command": "shuffle_done"},
                                     headers={**session, **other})
        assert status == 403, other
    assert table.get()[1]["phase"] == "shoe_loading"


def test_a_change_from_another_origin_is_refused_whatever_it_carries(table: LiveTable) -> None:
    status, body = table.request("POST", "/api/command", {"command": "shuffle_done"},
                                 headers={"Origin": "http://evil.example"})  # the kiosk's token
    assert (status, body) == (403, {"error": "refused: sent from a page of another origin"})
    assert table.get()[1]["phase"] == "shoe_loading"


def test_a_logout_closes_the_session_s_event_streams(table: Clocked,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(routes, "KEEPALIVE_S", 600.0)  # closed by the logout, not a timer
    _, headers, _ = log_in(table, {"user": "D17", "password": DEALER_PASSWORD})
    session = {"Cookie": cookie(headers)}
    stream = EventStream(table.server.port, headers=session)
    try:
        assert stream.status == 200
        stream.next()
        out = raw(table.server.port, "POST", "/api/logout", b"{}",
                  {**session, **origin(table), "Content-Type": "application/json"})
        assert out[0] == 200
        assert "Max-Age=0" in out[1]["set-cookie"]
        with pytest.raises(EOFError):
            stream.next()  # closed by the server, at once
        assert raw(table.server.port, "GET", "/api/table", headers=session)[0] == 401
    finally:
        stream.close()


def test_a_session_s_end_closes_its_streams(table: Clocked,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(routes, "KEEPALIVE_S", 600.0)
    _, headers, _ = log_in(table, {"user": "D17", "password": DEALER_PASSWORD})
    session = {"Cookie": cookie(headers)}
    stream = EventStream(table.server.port, headers=session)
    try:
        stream.next()
        table.clock.advance(601.0)
        assert raw(table.server.port, "GET", "/api/table", headers=session)[0] == 401
        with pytest.raises(EOFError):
            stream.next()
    finally:
        stream.close()


def test_failed_logins_back_off_and_are_journalled(table: Clocked) -> None:
    statuses = [log_in(table, {"user": "D17", "password": f"guess-{n}"})[0]
                for n in range(200)]
    assert statuses[:5] == [401] * 5
    assert set(statuses[5:]) == {429}  # refused unchecked while the lock runs
    status, headers, _body = log_in(table, {"user": "D17", "password": DEALER_PASSWORD})
    assert status == 429  # the right password too, while backing off
    assert headers["retry-after"] == "1"
    table.clock.advance(1.0)
    assert log_in(table, {"user": "D17", "password": "guess-again"})[0] == 401
    status, headers, _ = log_in(table, {"user": "D17", "password": DEALER_PASSWORD})
    assert (status, headers["retry-after"]) == (429, "2")  # doubled
    table.clock.advance(2.0)
    assert log_in(table, {"user": "D17", "password": DEALER_PASSWORD})[0] == 200
    locked = table.kinds("console:login_locked")
    assert {"key": "user:D17", "failures": 5, "seconds": 1.0} in locked
    assert {"key": "address:127.0.0.1", "failures": 6, "seconds": 2.0} in locked


def test_the_lock_doubles_up_to_fifteen_minutes() -> None:
    clock = FakeClock(0.0)
    backoff = LoginBackoff(clock)
    waits = []
    for _ in range(20):
        backoff.failed("user:x")
        waits.append(backoff.wait_s("user:x"))
    assert waits[:4] == [0.0] * 4
    assert waits[4:9] == [1.0, 2.0, 4.0, 8.0, 16.0]
    assert max(waits) == 900.0
    assert waits[-1] == 900.0


def test_a_wrong_user_name_costs_the_same_scrypt_as_a_wrong_password(
        table: LiveTable, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = accounts_module.check_password

    def counted(credential: str, password: str) -> bool:
        calls.append(credential.rsplit("$", 2)[0])  # the parameters, not the salt
        return real(credential, password)
    monkeypatch.setattr(accounts_module, "check_password", counted)
    assert log_in(table, {"user": "nobody", "password": "guess-1"})[0] == 401
    assert log_in(table, {"user": "D17", "password": "guess-1"})[0] == 401
    assert len(calls) == 2
    assert calls[0] == calls[1]


def test_a_device_logs_in_with_its_token(table: LiveTable) -> None:
    assert log_in(table, {"token": "y" * 43})[0] == 401
    status, headers, about = log_in(table, {"token": KIOSK})
    assert (status, about) == (200, {"by": "kiosk", "role": "kiosk"})
    assert table.request("GET", "/api/table", headers={"Cookie": cookie(headers),
                                                      "Authorization": ""})[0] == 200
    for malformed in ({}, {"token": 5}, {"user": "D17"}, {"user": "D17", "password": "x",
                                                          "token": KIOSK}):
        assert log_in(table, malformed)[0] == 400  # type: ignore[arg-type]


def ask_code(table: LiveTable, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    status, _, text = raw(table.server.port, "POST", "/api/login/code", b"{}",
                          {"Content-Type": "application/json", **headers})
    return status, json.loads(text)


def test_a_one_time_code_logs_the_kiosk_in_once(table: Clocked) -> None:
    status, given = ask_code(table, {"Authorization": f"Bearer {KIOSK}"})
    assert status == 200
    assert given["expires_in"] == 30
    assert KIOSK not in given["code"]
    status, headers, about = log_in(table, {"code": given["code"]})
    assert (status, about) == (200, {"by": "kiosk", "role": "kiosk"})
    assert table.request("GET", "/api/table", headers={"Cookie": cookie(headers),
                                                      "Authorization": ""})[0] == 200
    status, _, body = log_in(table, {"code": given["code"]})  # not twice
    assert (status, body) == (401, {"error": "unknown, used or expired login code"})


def test_a_one_time_code_expires_after_thirty_seconds(table: Clocked) -> None:
    late = ask_code(table, {"Authorization": f"Bearer {KIOSK}"})[1]["code"]
    in_time = ask_code(table, {"Authorization": f"Bearer {KIOSK}"})[1]["code"]
    table.clock.advance(29.9)
    assert log_in(table, {"code": in_time})[0] == 200
    table.clock.advance(0.1)
    assert log_in(table, {"code": late})[0] == 401
    assert log_in(table, {"code": "z" * 43})[0] == 401  # never issued


def test_only_a_device_s_bearer_token_asks_for_a_code(table: Clocked) -> None:
    assert ask_code(table, NOBODY)[0] == 401
    _, headers, _ = log_in(table, {"user": "D17", "password": DEALER_PASSWORD})
    dealer = {"Cookie": cookie(headers), "Authorization": "", **origin(table)}
    assert ask_code(table, dealer)[0] == 403
    _, headers, _ = log_in(table, {"token": KIOSK})
    kiosk_session = {"Cookie": cookie(headers), "Authorization": "", **origin(table)}
    assert ask_code(table, kiosk_session)[0] == 403  # a session cannot mint a new one
    status, given = ask_code(table, {"Authorization": f"Bearer {BOARD}"})
    assert status == 200
    assert log_in(table, {"code": given["code"]})[2] == {"by": "board", "role": "board"}


def test_guessed_codes_back_off_like_tokens(table: Clocked) -> None:
    statuses = [log_in(table, {"code": f"guess-{n}".ljust(43, "x")})[0] for n in range(8)]
    assert statuses == [401] * 5 + [429] * 3
    code = ask_code(table, {"Authorization": f"Bearer {KIOSK}"})[1]["code"]
    assert log_in(table, {"code": code})[0] == 429  # the right code too, while locked
