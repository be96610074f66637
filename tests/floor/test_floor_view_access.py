"""The floor's pit view over real HTTP: nothing without the supervisor's credential (HTTP
Basic), a wrong user or password refused, the right one served (controller/web/floor_web.py)."""

from __future__ import annotations

import base64
import http.client
import json
from collections.abc import Iterator

import pytest

from controller.floor.floor_view import FloorView
from controller.web.credentials import hash_password
from controller.web.floor_web import floor_app
from controller.web.server import WebServer

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
