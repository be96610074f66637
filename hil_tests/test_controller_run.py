"""`shoectl run`: the service on emulated devices (explicit flag), stopped by SIGTERM."""

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.journal.store import JournalError, open_existing
from controller.service.tableconfig import default_table_text
from drivers.emulated.layout import LayoutEmulator
from drivers.emulated.shoe import ShoeEmulator
from drivers.emulated.sign import SignEmulator
from firmware_bridge import PairingKey, write_key_file
from tests.support.journal_read import journal_kinds, journal_records

from .rig import EMULATED_TABLE_DEVICES

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")
REPO = Path(__file__).resolve().parents[1]



def table_file(tmp_path: Path) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(default_table_text() + EMULATED_TABLE_DEVICES
                    + f'\n[journal]\nstate_dir = "{tmp_path / "state"}"\n'
                    + '\n[console]\nlisten = "127.0.0.1:0"\n')
    return path


def shoectl(*args: str) -> list[str]:
    return [sys.executable, "-m", "controller", *args]


def status_when_ready(tmp_path: Path, *args: str) -> tuple[str, str]:
    """Run `shoectl ARGS` (in `tmp_path`) under a service manager's socket until READY=1;
    stop it; the STATUS it sent with READY, and its stderr."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as manager:
        manager.bind(str(tmp_path / "notify"))
        manager.settimeout(120)  # a limit for a stuck run, not a speed
        process = subprocess.Popen(
            shoectl(*args), cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, env={**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify")})
        try:
            message = ""
            while "READY=1" not in message:
                message = manager.recv(4096).decode()
        finally:
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=60)
    return dict(line.split("=", 1) for line in message.splitlines())["STATUS"], err


def test_emulated_devices_need_the_explicit_flag(tmp_path: Path) -> None:
    done = subprocess.run(shoectl("run", "--config", str(table_file(tmp_path))),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert "--allow-emulated" in done.stderr


@pytest.mark.parametrize(("table", "misspelt", "line"), [
    ("bet_sensors = { seat1 = { blazing7s = 0 } }",
     'bet_sensors = { seat1 = { blazing7s = 0 }, "seat1.mian" = 1 }',
     "bet_sensors.seat1.mian: not a bet sensor of a blackjack table with 7 seats; "
     "nearest: seat1.main"),
    ("buttons = { no_more_bets = 0, shuffle = 1 }",
     "buttons = { no_more_bets = 0, shuffle = 1, stnd = 13 }",
     "buttons.stnd: not a button of a blackjack table with 7 seats; nearest: stand"),
    ("lamps = { fault = 0,", "lamps = { no_more_bet = 9, fault = 0,",
     "lamps.no_more_bet: not a lamp of a blackjack table with 7 seats; "
     "nearest: no_more_bets"),
], ids=["sensor", "button", "lamp"])
def test_a_misspelt_layout_name_stops_the_start_in_one_line(
        tmp_path: Path, table: str, misspelt: str, line: str) -> None:
    """Finding: `seat1.mian`, `stnd` and `no_more_bet` started and dealt, and never worked."""
    path = table_file(tmp_path)
    text = path.read_text()
    assert table in text
    path.write_text(text.replace(table, misspelt, 1))
    done = subprocess.run(shoectl("run", "--allow-emulated", "--unverified-software",
                                  "--config", str(path)),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"shoectl run: {path}: [devices.layout] {line}"]
    assert not (tmp_path / "state").exists()  # refused before the journal or a device


def test_emulated_devices_do_not_waive_the_software_check(tmp_path: Path) -> None:
    done = subprocess.run(shoectl("run", "--allow-emulated", "--config",
                                  str(table_file(tmp_path))),
                          capture_output=True, text=True, timeout=60, check=False,
                          env={k: v for k, v in os.environ.items() if k != "SHOECTL_MANIFEST"})
    assert done.returncode == 3, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "shoectl run: software integrity refused: SHOECTL_MANIFEST is not set: this "
        "installation cannot be authenticated (a development tree runs with "
        "--unverified-software)")
    kinds = journal_kinds(tmp_path / "state")
    assert kinds == ["system:software-mismatch"]  # no power:on


def test_the_status_line_names_emulated_unauthenticated_and_unverified(tmp_path: Path) -> None:
    path = table_file(tmp_path)
    path.write_text(path.read_text().replace('[devices.sign]\nkind = "emulated"\n',
                                             '[devices.sign]\nkind = "emulated"\nauth = "none"\n'))
    status, err = status_when_ready(
        tmp_path, "run", "--allow-emulated", "--unverified-software", "--config", str(path))
    # READY is sent as the start ends, before the loop handles anything the boards reported:
    # a fresh table is still loading its shoe.
    assert status == ("table BJ-01: shoe_loading - EMULATED shoe, layout, sign - "
                      "UNAUTHENTICATED sign - UNVERIFIED software")
    assert "UNAUTHENTICATED boards (auth = \"none\"): sign" in err


def test_run_starts_journals_power_on_and_stops_on_sigterm(tmp_path: Path) -> None:
    process = subprocess.Popen(shoectl("run", "--allow-emulated", "--unverified-software",
                                       "--config",
                                       str(table_file(tmp_path))),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120  # a limit for a stuck run, not a speed
        kinds: list[str] = []
        while not {"power:on", "system:software-unverified"} <= set(kinds):
            assert time.monotonic() < deadline, "the table never powered on"
            time.sleep(0.1)
            kinds = journalled_so_far(tmp_path / "state")[0]
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "EMULATED" in err
    kinds = journal_kinds(tmp_path / "state")
    assert kinds[0] == "power:on"
    assert "system:software-unverified" in kinds
    assert kinds[-1] == "power:off"


def test_run_on_emulators_leaves_no_pairing_key_behind(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    process = subprocess.Popen(shoectl("run", "--allow-emulated", "--unverified-software",
                                       "--config", str(table_file(tmp_path))),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "TMPDIR": str(scratch)})
    try:
        deadline = time.monotonic() + 120  # a limit for a stuck run, not a speed
        while "power:on" not in journalled_so_far(tmp_path / "state")[0]:
            assert time.monotonic() < deadline, "the table never powered on"
            time.sleep(0.1)
        (made,) = scratch.glob("shoectl-emulated-*")
        assert sorted(key.name for key in made.glob("*.key")) == [
            "layout.key", "shoe.key", "sign.key"]
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert list(scratch.iterdir()) == []  # the emulators' folder and keys went with them


def test_three_paired_boards_are_never_called_unauthenticated(tmp_path: Path) -> None:
    """The boards' keys are read from their key files: nothing is known before the handshakes."""
    boards = {}
    for role, emulator in (("shoe", ShoeEmulator), ("layout", LayoutEmulator),
                           ("sign", SignEmulator)):
        key = PairingKey.generate()
        write_key_file(tmp_path / f"{role}.key", key)
        boards[role] = emulator(link_dir=tmp_path, name=role, pairing=key).start()
    config = tmp_path / "table.toml"
    config.write_text((REPO / "docs/examples/emulated-table.toml").read_text().replace(
        'listen = "127.0.0.1:8420"', 'listen = "127.0.0.1:0"'))
    try:
        status, err = status_when_ready(
            tmp_path, "run", "--unverified-software", "--config", str(config), "--state-dir",
            str(tmp_path / "state"))
    finally:
        for board in boards.values():
            board.close()
    assert status == "table BJ-DEMO: shoe_loading - UNVERIFIED software"
    assert "UNAUTHENTICATED" not in err
    for role, board in boards.items():
        assert f"{role}: link up (" in err
        assert f"auth=paired (key {board.pairing.key_id})" in err


def test_a_table_file_s_relative_paths_are_read_from_its_folder(tmp_path: Path) -> None:
    """Finding: started in another folder, `shoectl run` could not read the pairing key.

    The ports, the pairing keys (`./layout.key`) and the state directory (`state`) are named
    relative to the table file; the service starts in an empty folder elsewhere.
    """
    folder, elsewhere = tmp_path / "table", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    boards = {}
    for role, emulator in (("shoe", ShoeEmulator), ("layout", LayoutEmulator),
                           ("sign", SignEmulator)):
        key = PairingKey.generate()
        write_key_file(folder / f"{role}.key", key)
        boards[role] = emulator(link_dir=folder, name=role, pairing=key).start()
    config = folder / "table.toml"
    example = (REPO / "docs/examples/emulated-table.toml").read_text()
    config.write_text(example.replace('listen = "127.0.0.1:8420"', 'listen = "127.0.0.1:0"')
                      + '\n[journal]\nstate_dir = "state"\n')
    try:
        status, err = status_when_ready(elsewhere, "run", "--unverified-software", "--config",
                                        str(config))
    finally:
        for board in boards.values():
            board.close()
    assert status == "table BJ-DEMO: shoe_loading - UNVERIFIED software", err
    for board in boards.values():
        assert f"auth=paired (key {board.pairing.key_id})" in err
    assert journal_kinds(folder / "state")[0] == "power:on"
    assert sorted(path.name for path in elsewhere.iterdir()) == ["notify"]  # nothing else


def test_a_community_table_runs_and_serves_its_station_pages(tmp_path: Path) -> None:
    port = _free_port()
    text = default_table_text().replace('game = "blackjack"', 'game = "community"', 1)
    text = text.replace('side_bets = ["perfect-pairs", "lucky-ladies", "match-the-dealer", '
                        '"blazing7s", "axman"]', "side_bets = []", 1)
    # A community table lights the shared lamps only: the blackjack rig's dealer and seat
    # lamps would be refused (decision 060).
    devices = EMULATED_TABLE_DEVICES.replace(
        "blackjack = 2, seat1 = { turn = 3, blazing7s = 4 } }", "shuffle = 2 }")
    path = tmp_path / "table.toml"
    path.write_text(text + devices
                    + f'\n[journal]\nstate_dir = "{tmp_path / "state"}"\n'
                    + f'\n[console]\nlisten = "127.0.0.1:{port}"\n')
    kiosk = subprocess.run(shoectl("console", "token", "kiosk", "--config", str(path)),
                           capture_output=True, text=True, check=True).stdout.strip()
    process = subprocess.Popen(shoectl("run", "--allow-emulated", "--unverified-software",
                                       "--config", str(path)),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert _get(port, "/api/station/3")[0] == 401  # no credential
        view = _get_json(port, "/api/station/3", kiosk)
        assert (view["station"], view["state"]) == (3, "shoe_loading")
        assert _get_json(port, "/api/table", kiosk)["community"]["stations"] == 3
        status, _ = _get(port, "/station/4")
        assert status == 404  # [rules.community] stations = 3
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(port: int, path: str, token: str = "") -> tuple[int, str]:
    deadline = time.monotonic() + 60
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token
                         else {})
            response = conn.getresponse()
            body = response.read().decode()
            conn.close()
            if response.status != 503:  # 503: the devices are not up yet
                return response.status, body
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"shoectl run did not answer {path}")
        time.sleep(0.3)


def _get_json(port: int, path: str, token: str = "") -> dict:
    status, body = _get(port, path, token)
    assert status == 200, body
    return json.loads(body)


def journalled_so_far(state_dir: Path) -> tuple[list[str], list[dict]]:
    """The kinds and holds a running table has journalled, read from a private copy (the
    table's own files are never opened for writing by the test); nothing while the journal
    does not exist yet or is caught between two writes."""
    try:
        with open_existing(state_dir) as store:
            return ([e.kind for e in store.entries()],
                    [e.data for e in store.entries(["procedure:hold"])])
    except JournalError:
        return [], []


@pytest.mark.parametrize(("policy", "held"), [("stop", True), ("warn", False)])
def test_a_camera_that_is_down_at_start_is_shown_and_handled_by_policy(
        tmp_path: Path, policy: str, held: bool) -> None:
    path = table_file(tmp_path)
    path.write_text(path.read_text() + f'\n[devices.camera]\nkind = "file"\n'
                    f'path = "{tmp_path / "no-camera.png"}"\n'
                    f'\n[vision]\non_camera_down = "{policy}"\n')
    process = subprocess.Popen(shoectl("run", "--allow-emulated", "--unverified-software",
                                       "--config", str(path)),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180  # a limit for a stuck run, not a speed
        kinds: list[str] = []
        holds: list[dict] = []
        while ("camera:down" not in kinds or (held and not holds)) and (
                time.monotonic() < deadline):
            time.sleep(0.2)
            kinds, holds = journalled_so_far(tmp_path / "state")
        time.sleep(0.5)  # a warning policy must not hold the table a moment later either
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "camera:down" in kinds
    assert "camera down" in err  # the operational log says so (no card is involved)
    holds = [data for _, data in journal_records(tmp_path / "state", ["procedure:hold"])]
    if held:
        assert holds
        assert holds[0]["reason"].startswith("camera down: ")
    else:
        assert not holds
