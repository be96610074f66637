"""No client can stop the table: every request bounded before the table sees it.

Over real HTTP against the live table (controller/web/guard.py, controller/web/limits.py,
controller/web/server.py): a foreign `Host` (DNS rebinding), a body that is not JSON by its
type, a 256 MiB body (refused before it is read, the server's memory unchanged), JSON nested
100,000 deep (400, no traceback), a flood of commands (429), idle sockets (cut at the header
timeout; past the caps, 503 at once), and the security headers on every answer.
"""

from __future__ import annotations

import http.client
import json
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.web import server
from controller.web.guard import GuardSettings, Rate
from controller.web.limits import MAX_BODY, json_depth
from controller.web.server import BoundedH11, RateLimitedLog
from tests.support.clock import FakeClock

from .live import KIOSK_AUTH, EventStream, LiveTable, start


@pytest.fixture
def table(tmp_path: Path) -> Iterator[LiveTable]:
    live = start(tmp_path)
    live.attach()
    try:
        yield live
    finally:
        live.close()


def raw(port: int, method: str, path: str, body: bytes | None = None,
        headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    text = response.read().decode()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, text


def rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1])


def test_a_foreign_host_is_refused(table: LiveTable) -> None:
    status, _, text = raw(table.server.port, "GET", "/api/table",
                          headers={**KIOSK_AUTH, "Host": "rebound.example:8420"})
    assert (status, json.loads(text)) == (400, {
        "error": "this server does not answer to the host 'rebound.example:8420'"})
    for host in ("localhost:8420", "127.0.0.1", "LOCALHOST"):
        assert raw(table.server.port, "GET", "/api/table",
                   headers={**KIOSK_AUTH, "Host": host})[0] == 200, host


def test_a_command_must_say_it_is_json(table: LiveTable) -> None:
    for kind in ("text/plain", "application/x-www-form-urlencoded", ""):
        status, _, text = raw(table.server.port, "POST", "/api/command",
                              b'{"command": "shuffle_done"}',
                              {**KIOSK_AUTH, "Content-Type": kind})
        assert status == 415, kind
        assert json.loads(text) == {
            "error": "the body must be sent as Content-Type: application/json"}
    assert table.get()[1]["phase"] == "shoe_loading"


def test_every_answer_carries_the_security_headers(table: LiveTable) -> None:
    for path in ("/", "/console.js", "/api/table", "/nowhere"):
        _, headers, _ = raw(table.server.port, "GET", path, headers=KIOSK_AUTH)
        assert headers["content-security-policy"] == "default-src 'self'; frame-ancestors 'none'"
        assert headers["x-content-type-options"] == "nosniff"
    _, headers, _ = raw(table.pit.port, "GET", "/login")
    assert headers["content-security-policy"] == "default-src 'self'; frame-ancestors 'none'"


def test_a_256_mib_body_is_refused_before_it_is_read(table: LiveTable) -> None:
    before = rss_kib()
    with socket.create_connection(("127.0.0.1", table.server.port), timeout=30) as sock:
        sock.sendall(b"POST /api/command HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Authorization: " + KIOSK_AUTH["Authorization"].encode() + b"\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 268435456\r\n\r\n")
        answer = sock.recv(4096)  # answered without a byte of the body sent
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert rss_kib() - before < 16 * 1024
    for path in ("/api/logout", "/nowhere"):  # refused at the door, whoever would read it
        with socket.create_connection(("127.0.0.1", table.server.port), timeout=30) as sock:
            sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                         "application/json\r\nContent-Length: 268435456\r\n\r\n".encode())
            assert sock.recv(4096).startswith(b"HTTP/1.1 413 "), path
    chunked = b"x" * (MAX_BODY + 1)  # no length said: cut as it arrives
    status, _, text = raw(table.server.port, "POST", "/api/command", iter([chunked]),
                          {**KIOSK_AUTH, "Content-Type": "application/json"})
    assert (status, json.loads(text)) == (413, {"error": f"the body is over {MAX_BODY} bytes"})


def test_json_nested_deep_is_400_without_a_traceback(table: LiveTable,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    depth = 30_000  # 60,000 bytes: under the body's cap
    status, _, text = raw(table.server.port, "POST", "/api/command",
                          b"[" * depth + b"]" * depth,
                          {**KIOSK_AUTH, "Content-Type": "application/json"})
    assert (status, json.loads(text)) == (400, {"error": "the JSON is nested more than 32 deep"})
    assert "Traceback" not in caplog.text
    assert json_depth(b'{"a": "[[[[", "b": [{"c": "\\"]]"}]}') == 3  # strings skipped


def test_a_flood_of_commands_is_slowed_to_its_rate(tmp_path: Path) -> None:
    clock = FakeClock(0.0)
    live = start(tmp_path, guard=GuardSettings(commands=Rate(2.0, 5.0), clock=clock))
    try:
        live.attach()
        statuses = [live.command("no_more_bets")[0] for _ in range(8)]  # 429s held 1 s
        assert statuses[:5] == [409] * 5  # taken (refused by the table: not betting)
        assert statuses[5:] == [429] * 3  # refused at the door
        started = time.monotonic()
        status, headers, _ = raw(live.server.port, "POST", "/api/command", b"{}",
                                 {**KIOSK_AUTH, "Content-Type": "application/json"})
        assert (status, headers["retry-after"]) == (429, "1")
        assert time.monotonic() - started >= 0.9  # held back: one answer a second
        assert live.get()[0] == 200  # reads have their own rate
        clock.advance(1.0)
        assert live.command("shuffle_done")[0] == 200
    finally:
        live.close()


def test_idle_sockets_are_cut_and_give_way(table: LiveTable,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Silent sockets hold nothing: a new connection takes the place of the oldest one, and
    the server cuts each at the header timeout."""
    monkeypatch.setattr(BoundedH11, "header_timeout_s", 2.0)
    monkeypatch.setattr(BoundedH11, "max_per_client", 20)
    monkeypatch.setattr(server, "SILENT_GRACE_S", 0.0)  # silent from the start
    idle = [socket.create_connection(("127.0.0.1", table.server.port)) for _ in range(20)]
    try:
        assert raw(table.server.port, "GET", "/api/table", headers=KIOSK_AUTH)[0] == 200
        idle[0].settimeout(30)
        assert idle[0].recv(1) == b""  # the oldest silent one gave way
        for sock in idle[1:]:  # no request's headers: closed by the server
            sock.settimeout(30)
            assert sock.recv(1) == b""
        assert raw(table.server.port, "GET", "/api/table", headers=KIOSK_AUTH)[0] == 200
    finally:
        for sock in idle:
            sock.close()


def test_past_the_cap_with_every_place_busy_a_connection_is_503(
        table: LiveTable, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BoundedH11, "max_per_client", 2)
    streams = [EventStream(table.server.port) for _ in range(2)]  # busy: not silent
    try:
        for stream in streams:
            stream.next()
        extra = socket.create_connection(("127.0.0.1", table.server.port), timeout=30)
        assert extra.recv(4096).startswith(b"HTTP/1.1 503 ")
        extra.close()
        other = socket.socket()
        other.bind(("127.0.0.2", 0))  # another client address: its own share
        other.connect(("127.0.0.1", table.server.port))
        other.sendall(b"GET /api/table HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
                      + KIOSK_AUTH["Authorization"].encode() + b"\r\n\r\n")
        other.settimeout(30)
        assert other.recv(4096).startswith(b"HTTP/1.1 200 ")
        other.close()
    finally:
        for stream in streams:
            stream.close()


def test_a_slow_header_is_cut_too(table: LiveTable, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BoundedH11, "header_timeout_s", 0.5)
    with socket.create_connection(("127.0.0.1", table.server.port), timeout=30) as sock:
        started = time.monotonic()
        sock.sendall(b"GET /api/table HTTP/1.1\r\n")
        while True:  # one header line at a time, never the blank line that ends them
            try:
                sock.sendall(b"X-Slow: 1\r\n")
            except (BrokenPipeError, ConnectionResetError):
                break
            sock.settimeout(0.1)
            try:
                if sock.recv(1) == b"":
                    break
            except TimeoutError:
                pass
            except ConnectionResetError:
                break
            assert time.monotonic() - started < 30, "the slow header was never cut"


def test_log_lines_of_one_kind_are_rate_limited() -> None:
    clock = FakeClock(0.0)
    limit = RateLimitedLog(clock)
    record = logging.LogRecord("uvicorn.error", logging.WARNING, "", 0, "Invalid HTTP request",
                               None, None)
    passed = [limit.filter(record) for _ in range(1000)]
    assert passed.count(True) == 5
    clock.advance(60.0)
    assert limit.filter(record)
    assert record.msg == "Invalid HTTP request (995 more like it left out)"
