"""`shoectl run` with a roulette table: its wheel is required, real unless the flag says so,
and a table on the emulated wheel runs spin after spin, journalling each."""

from __future__ import annotations

import http.client
import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.cli import run_command
from tests.console.live import KIOSK_AUTH, kiosk_beside
from tests.support.journal_read import journal_records

TABLE = """
[table]
name = "RO-07"
game = "roulette"

[rules.roulette]
wheel = "single"
"""
WHEEL = """
[devices.wheel]
kind = "emulated"
seed = 5
pace_ms = 20
nmb_lines = 3
"""


def table_file(tmp_path: Path, devices: str, console: str = "127.0.0.1:0") -> Path:
    path = tmp_path / "table.toml"
    path.write_text(TABLE + devices + f'\n[journal]\nstate_dir = "{tmp_path / "state"}"\n'
                    f'\n[console]\nlisten = "{console}"\n', encoding="utf-8")
    return path


def test_a_roulette_table_without_its_wheel_is_refused_with_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = table_file(tmp_path, "")
    assert run_command.main(["--config", str(path), "--allow-emulated",
                             "--unverified-software"]) == 2
    assert capsys.readouterr().err == (
        f"shoectl run: {path}: [devices.wheel]: a roulette table needs its wheel's result "
        'feed (kind = "serial" with its url; drivers/WHEEL.md)\n')


def test_the_emulated_wheel_needs_the_flag(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command.main(["--config", str(table_file(tmp_path, WHEEL))]) == 2
    assert ("[devices.wheel] kind: 'emulated' needs the explicit --allow-emulated flag"
            in capsys.readouterr().err)


def test_a_wheel_that_is_not_there_stops_the_start_with_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    devices = f'[devices.wheel]\nkind = "serial"\nurl = "{tmp_path / "no-wheel"}"\n'
    assert run_command.main(["--config", str(table_file(tmp_path, devices)),
                             "--allow-emulated",
                                 "--unverified-software"]) == run_command.EXIT_DEVICE
    err = capsys.readouterr().err
    assert f"shoectl run: cannot start: [devices.wheel] url: cannot open {tmp_path}" in err


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def board(port: int, path: str = "/api/board") -> dict | None:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", path, headers=KIOSK_AUTH)
        response = conn.getresponse()
        body = response.read()
        conn.close()
    except OSError:
        return None
    return json.loads(body) if response.status == 200 else None


def test_the_table_runs_on_the_emulated_wheel_and_journals_each_spin(tmp_path: Path) -> None:
    port = free_port()
    path = table_file(tmp_path, WHEEL, f"127.0.0.1:{port}")
    kiosk_beside(path)
    with subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(path),
                           "--allow-emulated", "--unverified-software"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True) as process:
        try:
            deadline = time.monotonic() + 120  # a limit for a stuck run, not a speed
            seen = None
            while time.monotonic() < deadline:
                seen = board(port)
                if seen is not None and seen["spins"] >= 3:
                    break
                time.sleep(0.2)
            assert seen is not None
            assert seen["spins"] >= 3
            assert seen["wheel"] == "single"
            assert "00" not in [n["number"] for n in seen["last"]]
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=30)
            assert process.returncode == 0, err
            assert "EMULATED devices: wheel" in err
        finally:
            process.kill()
    records = journal_records(tmp_path / "state")
    results = [d for kind, d in records if kind == "spin:result"]
    assert len(results) >= 3
    assert all(isinstance(d["game"], int) and d["game"] >= 1 for d in results)
    assert records[-1][0] == "power:off"


def command(port: int, name: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("POST", "/api/command", json.dumps({"command": name}),
                 {**KIOSK_AUTH, "Content-Type": "application/json"})
    status = conn.getresponse().status
    conn.close()
    return status


def wait_board(port: int, what: str, check: Callable[[dict], bool],
               path: str = "/api/board") -> dict:
    deadline = time.monotonic() + 120  # a limit for a stuck run, not a speed
    while time.monotonic() < deadline:
        seen = board(port, path)
        if seen is not None and check(seen):
            return seen
        time.sleep(0.1)
    pytest.fail(f"the board never showed {what}")


def test_the_croupier_launches_each_game_of_a_user_start_wheel(tmp_path: Path) -> None:
    port = free_port()
    path = table_file(tmp_path, WHEEL + 'launch = "host"\nfaults = false\n',
                      f"127.0.0.1:{port}")
    kiosk_beside(path)
    with subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(path),
                           "--allow-emulated", "--unverified-software"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True) as process:
        try:
            for spins in (1, 2):
                wait_board(port, "SPIN", lambda t: "launch" in t["accepting"], "/api/table")
                assert board(port)["spins"] == spins - 1  # type: ignore[index]
                assert command(port, "launch") == 200
                wait_board(port, f"spin {spins}", lambda b, n=spins: b["spins"] >= n)
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=30)
            assert process.returncode == 0, err
        finally:
            process.kill()
    records = journal_records(tmp_path / "state")
    order = [(kind, d["game"]) for kind, d in records if kind in ("spin:launch", "spin:result")]
    assert order == [("spin:launch", 1), ("spin:result", 1), ("spin:launch", 2),
                     ("spin:result", 2)]
