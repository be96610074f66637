"""The bridge console against a board behind a real pty: generic and as `shoectl bridge`."""

import io
from collections.abc import Iterator

import pytest

from controller.cli import shoectl
from drivers import console as table_console
from firmware_bridge import (
    Catalogue,
    DeviceEndpoint,
    DeviceIdentity,
    DeviceRunner,
    FdPort,
    open_pty,
)
from firmware_bridge import console as generic_console
from firmware_bridge.clock import monotonic
from firmware_bridge.codec import Message

from .helpers import TABLE_CATALOGUE


class SignBoard:
    def __init__(self, catalogue: Catalogue) -> None:
        self.pty = open_pty()
        self.endpoint = DeviceEndpoint(catalogue.board("sign"), DeviceIdentity("3.1.4"),
                                       monotonic)
        self.shown: list[Message] = []
        self.endpoint.on("show_amount", self.shown.append)
        self.endpoint.on("get_sign_state", lambda m: self.endpoint.send(
            "sign_state", update=1, mode="amount", amount_cents=12345, fault_text="",
            brightness=80, failsafe=self.endpoint.failsafe))
        self.runner = DeviceRunner(self.endpoint, FdPort(self.pty.master_fd)).start()

    def close(self) -> None:
        self.runner.stop()
        self.pty.close()


@pytest.fixture
def sign(table_catalogue: Catalogue) -> Iterator[SignBoard]:
    board = SignBoard(table_catalogue)
    yield board
    board.close()


def test_console_shows_traffic_and_statistics_and_sends(sign: SignBoard) -> None:
    out = io.StringIO()
    status = generic_console.main([
        sign.pty.slave_path, "--catalogue", str(TABLE_CATALOGUE), "--board", "sign",
        "--send", "show_amount", "update=1", "amount_cents=500",
        "--send", "get_sign_state", "--duration", "0.4",
    ], out=out)
    text = out.getvalue()
    assert status == 0, text
    assert "handshake passed: board=sign firmware=3.1.4" in text
    assert "-> show_amount update=1 amount_cents=500" in text
    assert '<- sign_state update=1 mode=amount amount_cents=12345 fault_text="" ' in text
    assert "stats: state=closed sent=" in text
    first = text.splitlines()[0]
    assert first[2] == ":" and first[5] == ":" and first[8] == "."  # noqa: PT018 - HH:MM:SS.mmm
    assert sign.shown == [Message("show_amount", {"update": 1, "amount_cents": 500})]


def test_shoectl_bridge_console_uses_the_table_catalogue(sign: SignBoard, capsys) -> None:
    status = shoectl.main(["bridge", "console", sign.pty.slave_path, "--duration", "0.2",
                       "--send", "set_brightness", "level=40"])
    text = capsys.readouterr().out
    assert status == 0, text
    assert "-> set_brightness level=40" in text
    assert table_console.CATALOGUE == TABLE_CATALOGUE


def test_console_reports_a_bad_message_naming_the_field(sign: SignBoard) -> None:
    out = io.StringIO()
    status = generic_console.main([
        sign.pty.slave_path, "--catalogue", str(TABLE_CATALOGUE), "--duration", "0.1",
        "--send", "set_brightness", "level=400",
    ], out=out)
    assert status == 1
    assert "error: cannot send set_brightness level=400:" in out.getvalue()
    assert "field 'level': 400 is outside 0..100" in out.getvalue()


def test_console_reports_an_unreachable_board(table_catalogue: Catalogue) -> None:
    pty = open_pty()
    out = io.StringIO()
    try:
        status = generic_console.main([
            pty.slave_path, "--catalogue", str(TABLE_CATALOGUE), "--connect-timeout", "0.3",
        ], out=out)
    finally:
        pty.close()
    assert status == 1
    assert "error: " in out.getvalue()
    assert "no session and handshake within 0.3 s" in out.getvalue()


def test_console_refuses_a_missing_catalogue(tmp_path) -> None:
    out = io.StringIO()
    status = generic_console.main(["loop://", "--catalogue", str(tmp_path / "none.toml")],
                                  out=out)
    assert status == 1
    assert "cannot read catalogue" in out.getvalue()


def test_generic_console_needs_an_explicit_catalogue(capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        generic_console.main(["loop://"])
    assert caught.value.code == 2
    assert "--catalogue" in capsys.readouterr().err


def test_show_secret_prints_a_warning(table_catalogue: Catalogue) -> None:
    pty = open_pty()
    endpoint = DeviceEndpoint(table_catalogue.board("shoe"), DeviceIdentity("1"), monotonic)
    runner = DeviceRunner(endpoint, FdPort(pty.master_fd)).start()
    endpoint.emit("card_read", card_no=1, code="AS", quality=99)
    out, masked = io.StringIO(), io.StringIO()
    try:
        generic_console.main([pty.slave_path, "--catalogue", str(TABLE_CATALOGUE),
                              "--duration", "0.3"], out=masked)
        endpoint.emit("card_read", card_no=2, code="KD", quality=99)
        generic_console.main([pty.slave_path, "--catalogue", str(TABLE_CATALOGUE),
                              "--duration", "0.3", "--show-secret"], out=out)
    finally:
        runner.stop()
        pty.close()
    assert "code=***" in masked.getvalue()
    assert "AS" not in masked.getvalue()
    assert "WARNING: secret fields are shown" in out.getvalue()
    assert 'code="KD"' in out.getvalue()
