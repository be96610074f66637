"""The floor's pit view over real HTTP: nothing without the supervisor's credential (HTTP
Basic), a wrong user or password refused, the right one served, and guessing backs off per
user and per address as the console's login does (controller/web/floor_web.py)."""

from __future__ import annotations

import base64
import http.client
import json
from collections.abc import Iterator

import pytest

from controller.floor.floor_view import FloorView
from controller.web.auth import LoginBackoff
from controller.web.credentials import hash_password
from controller.web.floor_web import floor_app
from controller.web.server import WebServer
from tests.support.clock import FakeClock

PASSWORD = "floor-secret-0815"


@pytest.fixture
def port() -> Iterator[int]:
    server = WebServer(floor_app(FloorView(), "supervisor", hash_password(PASSWORD)),
                       ("127.0.0.1", 0), "floor view")
    server.start()
    try:
        yield server.port
    finally:
        server.stop()


def get(port: int, path: str, authorization: str | None) -> tuple[int, str, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Authorization": authorization} if authorization else {})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, response.getheader("WWW-Authenticate") or "", body


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.parametrize("authorization", [
    None, basic("supervisor", "wrong"), basic("dealer", PASSWORD), "Bearer " + PASSWORD,
    "Basic not-base64!", "Basic " + base64.b64encode(b"\xff\xfe").decode()])
@pytest.mark.parametrize("path", ["/", "/api/floor"])
def test_the_floor_view_refuses_anyone_without_the_credential(
        port: int, path: str, authorization: str | None) -> None:
    status, challenge, body = get(port, path, authorization)
    assert (status, challenge) == (401, 'Basic realm="shoectl floor"')
    assert b"tables" not in body


def test_the_floor_view_serves_the_supervisor(port: int) -> None:
    status, _, body = get(port, "/api/floor", basic("supervisor", PASSWORD))
    assert status == 200
    assert "tables" in json.loads(body)
    status, _, page = get(port, "/", basic("supervisor", PASSWORD))
    assert status == 200
    assert b"<html" in page.lower()


@pytest.fixture
def clocked() -> Iterator[tuple[int, FakeClock]]:
    clock = FakeClock(1000.0)
    server = WebServer(floor_app(FloorView(), "supervisor", hash_password(PASSWORD),
                                 backoff=LoginBackoff(clock)), ("127.0.0.1", 0), "floor view")
    server.start()
    try:
        yield server.port, clock
    finally:
        server.stop()


def get_retry(port: int, authorization: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/api/floor", headers={"Authorization": authorization})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response.status, response.getheader("Retry-After") or ""


def test_failed_logins_back_off_and_the_right_password_waits_too(
        clocked: tuple[int, FakeClock], caplog: pytest.LogCaptureFixture) -> None:
    port, clock = clocked
    caplog.set_level("WARNING", logger="controller.web.floor_web")
    statuses = [get_retry(port, basic("supervisor", f"guess-{n}"))[0] for n in range(8)]
    assert statuses == [401] * 5 + [429] * 3  # refused unchecked once locked
    assert get_retry(port, basic("supervisor", PASSWORD)) == (429, "1")  # right, but locked
    clock.advance(1.0)
    assert get_retry(port, basic("supervisor", "guess-again"))[0] == 401
    assert get_retry(port, basic("supervisor", PASSWORD)) == (429, "2")  # doubled
    clock.advance(2.0)
    assert get_retry(port, basic("supervisor", PASSWORD))[0] == 200
    assert "floor view: login locked for user:supervisor after 5 failures: 1.0 s" in caplog.text
    assert "login locked for address:127.0.0.1 after 6 failures: 2.0 s" in caplog.text


def test_guesses_at_other_names_lock_the_address(clocked: tuple[int, FakeClock]) -> None:
    port, _clock = clocked
    for n in range(5):
        assert get_retry(port, basic(f"nobody-{n}", PASSWORD))[0] == 401
    assert get_retry(port, basic("supervisor", PASSWORD)) == (429, "1")


def test_a_wrong_user_name_costs_the_same_scrypt_as_a_wrong_password(
        port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from controller.web import accounts, auth

    calls: list[str] = []
    real = auth.check_password

    def counted(credential: str, password: str) -> bool:
        calls.append(credential.rsplit("$", 2)[0])  # the parameters, not the salt
        return real(credential, password)
    monkeypatch.setattr(auth, "check_password", counted)
    monkeypatch.setattr(accounts, "check_password", counted)
    assert get(port, "/api/floor", basic("dealer", "guess-1"))[0] == 401
    assert get(port, "/api/floor", basic("supervisor", "guess-1"))[0] == 401
    assert len(calls) == 2
    assert calls[0] == calls[1]
