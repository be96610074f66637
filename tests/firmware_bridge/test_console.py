"""The bridge console against a board behind a real pty: generic and as `shoectl bridge`."""

import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import shoectl
from drivers import console as table_console
from firmware_bridge import (
    BridgeClient,
    Catalogue,
    DeviceEndpoint,
    DeviceIdentity,
    DeviceRunner,
    Expectation,
    FdPort,
    PairingKey,
    open_pty,
    write_key_file,
)
from firmware_bridge import console as generic_console
from firmware_bridge.clock import monotonic
from firmware_bridge.codec import Message

from .helpers import TABLE_CATALOGUE

SIGN_KEY = PairingKey(bytes(range(100, 132)))


class SignBoard:
    def __init__(self, catalogue: Catalogue, key: PairingKey | None = SIGN_KEY) -> None:
        self.pty = open_pty()
        self.endpoint = DeviceEndpoint(catalogue.board("sign"), DeviceIdentity("3.1.4"),
                                       monotonic, pairing=key)
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


@pytest.fixture
def key_file(tmp_path: Path) -> str:
    path = tmp_path / "sign.key"
    write_key_file(path, SIGN_KEY)
    return str(path)


def test_console_shows_traffic_and_statistics_and_sends(sign: SignBoard, key_file: str) -> None:
    out = io.StringIO()
    status = generic_console.main([
        sign.pty.slave_path, "--catalogue", str(TABLE_CATALOGUE), "--board", "sign",
        "--key-file", key_file,
        "--send", "show_amount", "update=1", "amount_cents=500",
        "--send", "get_sign_state", "--duration", "0.4",
    ], out=out)
    text = out.getvalue()
    assert status == 0, text
    assert "handshake passed: board=sign firmware=3.1.4" in text
    assert "-> show_amount update=1 amount_cents=500" in text
    assert '<- sign_state update=1 mode=amount amount_cents=12345 fault_text="" ' in text
    assert f"stats: state=closed auth=paired (key {SIGN_KEY.key_id}) bad_macs=0" in text
    first = text.splitlines()[0]
    assert first[2] == ":" and first[5] == ":" and first[8] == "."  # noqa: PT018 - HH:MM:SS.mmm
    assert sign.shown == [Message("show_amount", {"update": 1, "amount_cents": 500})]


def test_shoectl_bridge_console_uses_the_table_catalogue(sign: SignBoard, key_file: str,
                                                        capsys) -> None:
    status = shoectl.main(["bridge", "console", sign.pty.slave_path, "--duration", "0.2",
                           "--key-file", key_file, "--send", "set_brightness", "level=40"])
    text = capsys.readouterr().out
    assert status == 0, text
    assert "-> set_brightness level=40" in text
    assert table_console.CATALOGUE == TABLE_CATALOGUE


def test_console_reports_a_bad_message_naming_the_field(sign: SignBoard, key_file: str) -> None:
    out = io.StringIO()
    status = generic_console.main([
        sign.pty.slave_path, "--catalogue", str(TABLE_CATALOGUE), "--duration", "0.1",
        "--key-file", key_file,
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
            "--no-auth",
        ], out=out)
    finally:
        pty.close()
    assert status == 1
    assert "error: " in out.getvalue()
    assert "no session and handshake within 0.3 s" in out.getvalue()


def test_console_refuses_a_missing_catalogue(tmp_path) -> None:
    out = io.StringIO()
    status = generic_console.main(["loop://", "--catalogue", str(tmp_path / "none.toml"),
                                   "--no-auth"], out=out)
    assert status == 1
    assert "cannot read catalogue" in out.getvalue()


def test_generic_console_needs_an_explicit_catalogue(capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        generic_console.main(["loop://", "--no-auth"])
    assert caught.value.code == 2
    assert "--catalogue" in capsys.readouterr().err


def test_the_console_needs_a_key_or_an_explicit_no_auth(capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        generic_console.main(["loop://", "--catalogue", str(TABLE_CATALOGUE)])
    assert caught.value.code == 2
    assert "one of the arguments --key-file --no-auth is required" in capsys.readouterr().err


def test_a_second_opener_of_a_held_port_is_refused_naming_the_holder(
    sign: SignBoard, table_catalogue: Catalogue, key_file: str,
) -> None:
    with BridgeClient(sign.pty.slave_path, table_catalogue, Expectation("sign"),
                      pairing=SIGN_KEY) as table:
        table.connect()
        out = io.StringIO()
        status = generic_console.main([sign.pty.slave_path, "--catalogue",
                                       str(TABLE_CATALOGUE), "--key-file", key_file,
                                       "--send", "show_amount", "update=9",
                                       "amount_cents=1"], out=out)
        assert table.stats().link.state == "up"  # the table's session went on untouched
    assert status == 1
    assert (f"{sign.pty.slave_path}: cannot open: the port is in use by this process "
            f"(pid {os.getpid()})") in out.getvalue()
    assert sign.shown == []  # nothing of the console reached the board


def test_a_console_with_another_key_is_refused_and_the_board_stays_failsafe(
    sign: SignBoard, tmp_path: Path,
) -> None:
    wrong = tmp_path / "wrong.key"
    write_key_file(wrong, PairingKey(bytes(range(32, 64))))
    out = io.StringIO()
    status = generic_console.main([sign.pty.slave_path, "--catalogue", str(TABLE_CATALOGUE),
                                   "--key-file", str(wrong), "--connect-timeout", "0.5"],
                                  out=out)
    assert status == 1
    assert "board refused: " in out.getvalue()
    assert "failed authentication: it is not paired with this host's key" in out.getvalue()
    assert sign.endpoint.failsafe
    assert sign.endpoint.stats().link.bad_macs > 0  # the board refused the console's RESETs


def test_no_auth_reaches_an_unpaired_board_and_says_so(table_catalogue: Catalogue) -> None:
    board = SignBoard(table_catalogue, key=None)
    out = io.StringIO()
    try:
        status = generic_console.main([board.pty.slave_path, "--catalogue",
                                       str(TABLE_CATALOGUE), "--no-auth", "--duration", "0.1"],
                                      out=out)
    finally:
        board.close()
    assert status == 0, out.getvalue()
    assert "WARNING: the board is reached UNAUTHENTICATED (--no-auth)" in out.getvalue()
    assert "stats: state=closed auth=none (UNAUTHENTICATED)" in out.getvalue()


def test_show_secret_prints_a_warning(table_catalogue: Catalogue) -> None:
    pty = open_pty()
    endpoint = DeviceEndpoint(table_catalogue.board("shoe"), DeviceIdentity("1"), monotonic)
    runner = DeviceRunner(endpoint, FdPort(pty.master_fd)).start()
    endpoint.emit("card_read", card_no=1, code="AS", quality=99)
    out, masked = io.StringIO(), io.StringIO()
    try:
        generic_console.main([pty.slave_path, "--catalogue", str(TABLE_CATALOGUE),
                              "--duration", "0.3", "--no-auth"], out=masked)
        endpoint.emit("card_read", card_no=2, code="KD", quality=99)
        generic_console.main([pty.slave_path, "--catalogue", str(TABLE_CATALOGUE),
                              "--duration", "0.3", "--show-secret", "--no-auth"], out=out)
    finally:
        runner.stop()
        pty.close()
    assert "code=***" in masked.getvalue()
    assert "AS" not in masked.getvalue()
    assert "WARNING: secret fields are shown" in out.getvalue()
    assert 'code="KD"' in out.getvalue()
