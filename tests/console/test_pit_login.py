"""The pit view's login over real HTTP: the credential typed into the form (a POST body,
never a URL), a session cookie after it, 303 to the login page or 401 without, the session's
end (log out, its life), a cross-origin POST refused, HTTP Basic still taken for scripts, and
the password in no log line (controller/web/pit_session.py, controller/web/auth.py). The
deprecated `pit_user` / `pit_credential` logs in as before; the users of the credentials file
log in by role (supervisor, attendant, surveillance; a dealer is refused)."""

from __future__ import annotations

import base64
import http.client
import logging
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from controller.console.hub import ConsoleHub
from controller.web.accounts import Accounts
from controller.web.auth import Sessions
from controller.web.credentials import hash_password
from controller.web.pit_session import SESSION_COOKIE
from controller.web.routes import pit_app
from controller.web.server import WebServer
from tests.support.clock import FakeClock

from .live import TEST_GUARD

PASSWORD = "pit-secret-4711"
ANNA = "anna-supervises-9"


class Pit:
    """The pit view served on loopback, its sessions on a clock the test moves."""

    def __init__(self) -> None:
        self.clock = FakeClock(100.0)
        hub = ConsoleHub(lambda _event: None)
        hub.publish({"table": "CC-01", "stations": []})
        self.sessions = Sessions(self.clock, lifetime=60.0)
        accounts = Accounts.of({"ANNA": ("supervisor", hash_password(ANNA)),
                                "D17": ("dealer", hash_password(ANNA))}, {})
        self.server = WebServer(pit_app(hub, accounts, legacy=("supervisor",
                                                               hash_password(PASSWORD)),
                                        stations=True, sessions=self.sessions,
                                        guard=TEST_GUARD),
                                ("127.0.0.1", 0), "pit view")
        self.server.start()

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=30)
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        response.read()
        conn.close()
        return response

    def log_in(self, password: str = PASSWORD, user: str = "supervisor"
               ) -> http.client.HTTPResponse:
        return self.request("POST", "/login", urlencode({"user": user, "password": password})
                            .encode(), {"Content-Type": "application/x-www-form-urlencoded"})


@pytest.fixture
def pit() -> Iterator[Pit]:
    served = Pit()
    try:
        yield served
    finally:
        served.server.stop()


def cookie_of(response: http.client.HTTPResponse) -> str:
    header = response.getheader("Set-Cookie") or ""
    return header.split(";")[0]


def test_without_a_session_the_page_goes_to_the_login_and_the_api_is_401(pit: Pit) -> None:
    page = pit.request("GET", "/")
    assert (page.status, page.getheader("Location")) == (303, "/login")
    api = pit.request("GET", "/api/pit")
    assert api.status == 401
    assert api.getheader("WWW-Authenticate") is None  # no browser prompt for the credential
    assert pit.request("GET", "/login").status == 200


def test_the_form_logs_in_with_a_session_cookie_and_never_a_url(
        pit: Pit, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = pit.log_in("guess")
    assert (wrong.status, wrong.getheader("Location")) == (303, "/login?failed=1")
    assert wrong.getheader("Set-Cookie") is None
    assert pit.log_in(PASSWORD, user="root").getheader("Location") == "/login?failed=1"
    right = pit.log_in()
    assert (right.status, right.getheader("Location")) == (303, "/")
    flags = [f.strip() for f in (right.getheader("Set-Cookie") or "").split(";")]
    assert flags[0].startswith(f"{SESSION_COOKIE}=")
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= set(flags)
    cookie = cookie_of(right)
    assert PASSWORD not in cookie
    assert pit.request("GET", "/api/pit", headers={"Cookie": cookie}).status == 200
    assert pit.request("GET", "/", headers={"Cookie": cookie}).status == 200
    assert pit.request("GET", "/api/pit", headers={"Cookie": cookie + "x"}).status == 401
    assert PASSWORD not in caplog.text


def test_log_out_and_the_session_s_life_end_it(pit: Pit) -> None:
    cookie = cookie_of(pit.log_in())
    out = pit.request("POST", "/logout", headers={"Cookie": cookie})
    assert (out.status, out.getheader("Location")) == (303, "/login")
    assert "Max-Age=0" in (out.getheader("Set-Cookie") or "")
    assert pit.request("GET", "/api/pit", headers={"Cookie": cookie}).status == 401
    cookie = cookie_of(pit.log_in())
    pit.clock.advance(59.0)
    assert pit.request("GET", "/api/pit", headers={"Cookie": cookie}).status == 200
    pit.clock.advance(1.0)
    assert pit.request("GET", "/api/pit", headers={"Cookie": cookie}).status == 401


def test_the_users_of_the_credentials_file_log_in_by_role(pit: Pit) -> None:
    anna = pit.log_in(ANNA, user="ANNA")
    assert (anna.status, anna.getheader("Location")) == (303, "/")
    assert pit.request("GET", "/api/pit", headers={"Cookie": cookie_of(anna)}).status == 200
    dealer = pit.log_in(ANNA, user="D17")  # the right password, the wrong role
    assert dealer.getheader("Location") == "/login?failed=1"
    assert dealer.getheader("Set-Cookie") is None


def test_a_post_from_another_origin_is_refused_even_with_the_cookie(pit: Pit) -> None:
    cookie = cookie_of(pit.log_in())
    refused = pit.request("POST", "/api/pit/station/1/credits", b'{"action": "in", "cents": 1}',
                          {"Cookie": cookie, "Origin": "http://elsewhere.example",
                           "Content-Type": "application/json"})
    assert refused.status == 403


def test_http_basic_is_still_taken_for_scripts(pit: Pit) -> None:
    auth = base64.b64encode(f"supervisor:{PASSWORD}".encode()).decode()
    assert pit.request("GET", "/api/pit", headers={"Authorization": f"Basic {auth}"}).status \
        == 200
    bad = base64.b64encode(b"supervisor:nope").decode()
    assert pit.request("GET", "/api/pit", headers={"Authorization": f"Basic {bad}"}).status \
        == 401


def test_a_malformed_login_form_is_refused_as_a_wrong_one(pit: Pit) -> None:
    for body in (b"", b"user=supervisor", b"\xff\xfe", b"password=a&password=b&user=x",
                 b"x" * 5000):
        answer = pit.request("POST", "/login", body,
                             {"Content-Type": "application/x-www-form-urlencoded"})
        assert (answer.status, answer.getheader("Location")) == (303, "/login?failed=1")
