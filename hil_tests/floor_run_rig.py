"""Linked tables as `shoectl run` processes, for the floor's HIL tests.

A `RunTable` is one table: `shoectl run` over the ptys of three `shoectl emulate` boards of
its own (typed commands: chips, buttons, cards, what the sign shows), dealt through its
console's HTTP API, its journal read from private copies (`JournalCopy`). `exact` checks the
controller's meter against the tables' journals alone, once every send is answered. The
`floor` fixture is a real Mosquitto and `shoectl progressive serve` in processes of their
own (`hil_tests/conftest.py` offers it to every HIL test).
"""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli import simulate_command
from controller.journal.errors import JournalError
from controller.journal.store import open_existing
from controller.service.app import TableApp, build_app
from controller.service.tableconfig import TableFile, default_table_text
from controller.sim import rig
from drivers.emulated.board import FIRMWARE_VERSION
from drivers.registry import BuildOptions
from tests.support.floor_rig import (
    GROUP,
    Controller,
    broker_and_controller,
    expected_figures,
    wait_for,
)
from tests.support.mosquitto import Mosquitto, free_port

WAIT = 90.0  # an upper bound for a loaded machine, never a speed requirement


@pytest.fixture
def floor(tmp_path: Path) -> Iterator[tuple[Mosquitto, Controller]]:
    """A real Mosquitto and `shoectl progressive serve`, each in a process of its own."""
    with broker_and_controller(tmp_path) as started:
        yield started


def linked_rig_table(tmp_path: Path, broker_url: str, seats: int = 3,
                     script: list[str] | None = None) -> TableApp:
    """The emulated rig's table linked to the group `GROUP` at `broker_url`, started.

    Args:
        tmp_path: Folder for its ports and journal (`ports`, `state`).
        broker_url: The progressive link's broker.
        seats: Seats the rig's devices serve.
        script: The shoe's cards in order (None: a shuffled shoe).
    """
    config = simulate_command.parse_options([]).config
    devices: dict[str, Any] = rig.rig_devices(config.table, seats, 1, script)
    (tmp_path / "ports").mkdir()
    document = {"devices": devices, "progressive": {"link": broker_url, "group": GROUP}}
    app = build_app(TableFile(str(tmp_path / "table.toml"), config, document),
                    allow_emulated=True, state_dir=tmp_path / "state", devices=devices,
                    burn=False, options=BuildOptions(workdir=tmp_path / "ports"))
    app.start()
    return app


class JournalCopy:
    """A table's journal, read from a private copy each time (the table keeps writing it)."""

    def __init__(self, name: str, state_dir: Path) -> None:
        self.name = name
        self.state_dir = state_dir

    def records(self, kind: str) -> list[dict[str, Any]]:
        """Every record of `kind` so far ([] while the journal is not there yet)."""
        try:
            with open_existing(self.state_dir) as store:
                return [e.data for e in store.entries((kind,))]
        except JournalError:
            return []

    def floor_links(self) -> list[str]:
        """"down"/"up" for each journalled change of the floor link, in order."""
        try:
            with open_existing(self.state_dir) as store:
                return [e.kind.removeprefix("link:")
                        for e in store.entries(("link:down", "link:up"))
                        if e.data["device"] == "floor"]
        except JournalError:
            return []



class Emulator:
    """`shoectl emulate BOARD` in a process of its own, answering typed commands."""

    def __init__(self, board: str, ports: Path, log: Path, *extra: str) -> None:
        self.log = log.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "controller", "emulate", board, "--link-dir", str(ports),
             "--name", board, *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log, text=True, bufsize=1)
        assert self.process.stdout is not None
        self.path = self.process.stdout.readline().strip()
        assert self.path, f"shoectl emulate {board} did not start (see {log})"

    def say(self, line: str) -> str:
        """Type one command; its one-line reply."""
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline().strip()

    def close(self) -> None:
        """Stop the emulator."""
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=WAIT)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        self.log.close()


SERIAL = """
[devices.shoe]
kind = "serial"
url = "{shoe}"
key_file = "{ports}/shoe.key"
firmware = ["{firmware}"]

[devices.layout]
kind = "serial"
url = "{layout}"
key_file = "{ports}/layout.key"
firmware = ["{firmware}"]
lamps = {{ fault = 0, no_more_bets = 1, blackjack = 2, seat1 = {{ turn = 3, blazing7s = 4 }} }}
bet_sensors = {{ seat1 = {{ blazing7s = 0 }} }}
buttons = {{ no_more_bets = 0, shuffle = 1 }}

[devices.sign]
kind = "serial"
url = "{sign}"
key_file = "{ports}/sign.key"
firmware = ["{firmware}"]
"""


class RunTable:
    """One table: `shoectl run` over the ptys of three `shoectl emulate` boards.

    The boards outlive the table's process (a power cut at the Pi leaves them powered).
    """

    def __init__(self, tmp_path: Path, name: str, link: str, cards: list[str]) -> None:
        """`link` is the broker's address as the table reaches it (its `[progressive] link`)."""
        self.name = name
        self.dir = tmp_path / name
        ports = self.dir / "ports"
        ports.mkdir(parents=True)
        self.log = self.dir / "run.log"
        shoe_file = self.dir / "shoe.txt"
        shoe_file.write_text(" ".join(cards) + "\n", encoding="utf-8")
        boards = self.dir / "boards.log"
        self.shoe = Emulator("shoe", ports, boards, "--shoe-file", str(shoe_file))
        self.layout = Emulator("layout", ports, boards)
        self.sign = Emulator("sign", ports, boards)
        self.port = free_port()
        text = default_table_text().replace('name = "BJ-01"', f'name = "{name}"', 1)
        text = text.replace("[progressive]               # Blazing 7's meter, cents\n",
                            f'[progressive]\nlink = "{link}"\ngroup = "{GROUP}"\n', 1)
        self.config = self.dir / "table.toml"
        self.config.write_text(
            text + SERIAL.format(shoe=self.shoe.path, layout=self.layout.path,
                                 sign=self.sign.path, ports=ports, firmware=FIRMWARE_VERSION)
            + f'\n[journal]\nstate_dir = "{self.dir / "state"}"\n'
            + f'\n[console]\nlisten = "127.0.0.1:{self.port}"\n', encoding="utf-8")
        self.journal = JournalCopy(name, self.dir / "state")
        self.process: subprocess.Popen[bytes] | None = None
        # The console answers only with a credential: the kiosk's token, as the dealer's
        # screen logs in (`shoectl console token kiosk`).
        self.token = subprocess.run(
            [sys.executable, "-m", "controller", "console", "token", "kiosk", "--config",
             str(self.config)], capture_output=True, text=True, check=True).stdout.strip()

    def start(self) -> None:
        """Start the table's service; wait until its console answers."""
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "controller", "run", "--config", str(self.config),
                 "--unverified-software"], stdout=subprocess.DEVNULL, stderr=log)
        process = self.process
        wait_for(lambda: process.poll() is not None or self.table().get("phase"),
                 f"{self.name}'s console answers", WAIT)
        assert process.poll() is None, self.log.read_text(encoding="utf-8")[-2000:]

    def kill(self) -> None:
        """A power cut: SIGKILL."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=WAIT)

    def stop(self) -> int:
        """SIGTERM; the exit status."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=WAIT)

    def table(self) -> dict[str, Any]:
        """`GET /api/table` ({} while the console does not answer)."""
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            connection.request("GET", "/api/table",
                               headers={"Authorization": f"Bearer {self.token}"})
            response = connection.getresponse()
            body = response.read()
            connection.close()
        except OSError:
            return {}
        return json.loads(body) if response.status == 200 else {}

    def command(self, **body: Any) -> None:
        """`POST /api/command`; the table must carry it out."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request("POST", "/api/command", json.dumps(body),
                           {"Content-Type": "application/json",
                            "Authorization": f"Bearer {self.token}"})
        response = connection.getresponse()
        reply = response.read()
        connection.close()
        assert response.status == 200, (body, reply)

    def phase(self, wanted: str) -> None:
        """Wait for the procedure's state."""
        wait_for(lambda: self.table().get("phase") == wanted, f"{self.name} in {wanted}", WAIT)

    def sign_shows(self) -> tuple[str, int, str]:
        """What the table's sign emulator shows: its mode, amount (cents) and text."""
        mode, amount, *text = self.sign.say("show").split(" ", 2)
        return mode, int(amount), " ".join(text)

    def link_up(self) -> bool:
        """The table's last journalled change of its floor link says up."""
        return self.journal.floor_links()[-1:] == ["up"]

    def count(self, kind: str) -> int:
        """Records of `kind` in the table's journal so far."""
        return len(self.journal.records(kind))

    def open_shoe(self) -> None:
        """Shuffle done, and the burn card."""
        self.phase("shoe_loading")
        self.command(command="shuffle_done")
        wait_for(lambda: self.table().get("phase") in ("burn", "betting"),
                 f"{self.name} after the shuffle", WAIT)
        if self.table()["phase"] == "burn":
            self.shoe.say("draw 1")
        self.phase("betting")

    def lock_out(self, progressive: bool = True) -> dict[str, Any]:
        """Seat 1 bets main (and Blazing 7's); no more bets; the lock-out record."""
        self.place_bets(progressive)
        return self.no_more_bets()

    def place_bets(self, progressive: bool) -> None:
        """Seat 1's main wager, and its Blazing 7's chip on the sensor."""
        self.phase("betting")
        if progressive:  # the chip is placed anew each round (the last one was collected)
            sensed = self.count("bet:sensor")
            self.layout.say("unchip 0")
            self.layout.say("chip 0")
            wait_for(lambda: self.count("bet:sensor") > sensed and self.table_sensed(),
                     f"{self.name} senses the chip", WAIT)
        self.command(command="wager", seat=1, bet="main", cents=1000)

    def no_more_bets(self) -> dict[str, Any]:
        """Press NO MORE BETS; the lock-out record."""
        locked = self.count("bet:lock_out")
        self.layout.say("press 0")
        wait_for(lambda: self.count("bet:lock_out") > locked, f"{self.name} locked out", WAIT)
        return self.journal.records("bet:lock_out")[-1]

    def table_sensed(self) -> bool:
        sensors = self.journal.records("bet:sensor")
        return bool(sensors) and bool(sensors[-1]["occupied"])

    def deal_and_stand(self) -> None:
        """Four cards, seat 1 stands: the round settles."""
        self.shoe.say("draw 4")
        self.phase("players")
        settled = self.count("round:settled")
        self.command(command="stand", seat=1)
        wait_for(lambda: self.count("round:settled") > settled, f"{self.name} settled", WAIT)

    def all_confirmed(self) -> bool:
        """Every send in the table's journal has its answer journalled."""
        sent = {(d["boot"], d["seq"]) for d in self.journal.records("floor:send")}
        done = {(d["boot"], d["seq"]) for d in self.journal.records("floor:confirmed")}
        return sent == done

    def close(self) -> None:
        """Stop the service if it runs, and the boards."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=WAIT)
        for board in (self.shoe, self.layout, self.sign):
            board.close()


def exact(controller: Controller, tables: list[RunTable]) -> dict[str, int]:
    """Once every table's sends are answered: the meter from the tables' journals alone."""
    for table in tables:
        wait_for(table.all_confirmed, f"{table.name}: every send answered", WAIT)
    figures, journals = controller.show(), expected_figures([t.journal for t in tables])
    assert figures == journals, f"the controller's {figures}, the tables' journals' {journals}"
    verified = controller.shoectl("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    return figures


def waits(table: RunTable) -> bool | None:
    """The console lists a progressive_waiting fault (None while it does not answer)."""
    faults = table.table().get("faults")
    if faults is None:
        return None
    return any(f["kind"] == "progressive_waiting" for f in faults)


HIT = ["7D", "7D", "7D", "TD"]  # seat 1: 7D 7D under the dealer's 7D: the 100% line


