"""`shoectl run` with a hold'em table on the emulated rig: a round dealt through the console's
HTTP API, every card keyed there, settled and journalled."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.console.live import KIOSK_AUTH, kiosk_beside
from tests.controller.test_roulette_run import free_port
from tests.support.journal_read import journal_records

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "holdem-table.toml"


def _call(port: int, method: str, path: str, body: dict[str, Any] | None = None
          ) -> tuple[int, dict[str, Any]] | None:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request(method, path, json.dumps(body) if body is not None else None,
                     {"Content-Type": "application/json", **KIOSK_AUTH})
        response = conn.getresponse()
        data = json.loads(response.read())
        conn.close()
    except (OSError, ValueError):
        return None
    return response.status, data


def _command(port: int, **command: Any) -> dict[str, Any]:
    answer = _call(port, "POST", "/api/command", command)
    assert answer is not None
    status, body = answer
    assert status == 200, (command, body)
    return body


def test_a_round_is_dealt_through_the_console_over_http(tmp_path: Path) -> None:
    port = free_port()
    text = EXAMPLE.read_text(encoding="utf-8").replace("127.0.0.1:8420", f"127.0.0.1:{port}")
    path = tmp_path / "table.toml"
    path.write_text(text + f'\n[journal]\nstate_dir = "{tmp_path / "state"}"\n',
                    encoding="utf-8")
    kiosk_beside(path)
    with subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(path),
                           "--allow-emulated", "--unverified-software"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True) as process:
        try:
            deadline = time.monotonic() + 120  # a limit for a stuck start, not a speed
            table = None
            while time.monotonic() < deadline and table is None:
                answer = _call(port, "GET", "/api/table")
                table = answer[1] if answer is not None and answer[0] == 200 else None
                time.sleep(0.2)
            assert table is not None
            assert (table["game"], table["phase"]) == ("holdem", "shuffling")
            _command(port, command="shuffle_done")
            _command(port, command="wager", seat=1, bet="ante", cents=1000)
            _command(port, command="wager", seat=1, bet="bonus", cents=500)
            _command(port, command="no_more_bets")
            shown = _command(port, command="hole_cards_dealt")
            assert shown["holdem"]["to_decide"] == [1]
            refused = _call(port, "POST", "/api/command", {"command": "check", "seat": 1})
            assert refused is not None
            assert refused[0] == 409
            assert refused[1]["error"] == "before the flop a seat bets or folds"
            _command(port, command="bet", seat=1)
            for code in ("AS", "KD", "7C"):
                shown = _command(port, command="key_card", card=code)
            assert shown["holdem"]["board"] == ["AS", "KD", "7C"]
            assert shown["holdem"]["dealer"] == []
            _command(port, command="bet", seat=1)
            _command(port, command="key_card", card="2H")
            _command(port, command="check", seat=1)
            shown = _command(port, command="key_card", card="9S")
            assert shown["prompt"] == "expose the dealer's two cards"
            _command(port, command="key_card", card="QH")
            _command(port, command="key_card", card="QS")
            _command(port, command="key_card", card="AH")
            shown = _command(port, command="key_card", card="AC")
            last = shown["last_round"]
            assert last["board"] == ["AS", "KD", "7C", "2H", "9S"]
            assert last["dealer"] == ["QH", "QS"]
            # Trip aces beat queens: flop and turn bets paid, ante pushes, bonus A-A paid.
            nets = last["seats"]["1"]["nets"]
            assert (nets["ante"], nets["flop"], nets["turn"], nets["river"]) == (0, 1000, 1000, 0)
            assert nets["bonus"] > 0
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=30)
            assert process.returncode == 0, err
            assert "EMULATED devices" in err
        finally:
            process.kill()
    records = journal_records(tmp_path / "state")
    reads = [d for kind, d in records if kind == "card:read"]
    assert len(reads) == 9
    assert {(d["by"], d["source"]) for d in reads} == {("keyed", "console")}
    assert next(d for kind, d in records if kind == "round:settled")["seats"]["1"]["net"] > 0
    assert records[-1][0] == "power:off"


def test_a_holdem_table_without_its_camera_is_refused_naming_it(tmp_path: Path) -> None:
    from controller.cli import run_command

    text = EXAMPLE.read_text(encoding="utf-8")
    start, end = text.index("[devices.camera]"), text.index("[vision]")
    path = tmp_path / "table.toml"
    path.write_text(text[:start] + text[end:] + f'\n[journal]\nstate_dir = "{tmp_path}/s"\n',
                    encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "controller", "run", "--config", str(path),
                           "--allow-emulated", "--unverified-software"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == run_command.EXIT_CONFIG
    assert done.stderr == (f"shoectl run: {path}: [devices.camera]: missing: a holdem table's "
                           "cards are read by its overhead camera (drivers/DEVICES.md)\n")
