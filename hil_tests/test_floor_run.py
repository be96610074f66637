"""Linked tables live: `shoectl run` with `[progressive] link`, a real Mosquitto, the controller.

Two `shoectl run` processes (emulated shoe, layout board and sign over ptys) and `shoectl
progressive serve` in processes of their own: both tables run linked, see the controller
killed with SIGKILL (its last will: each table journals the floor link down) and restarted
(each journals it back), and stop in order on SIGTERM. Then one table over ptys deals a
scripted round with a 100% hit while the controller lies killed: the hit waits, the
controller restarts, and the table settles it once with the controller's amount; the
controller's meter equals what the table's journal says, read from a private copy of it
(`open_existing`), and `shoectl progressive verify` passes.

Nothing waits on the clock for correctness: every wait is for a fact, with a ceiling that
only ends a stuck test.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli import simulate_command
from controller.journal.errors import JournalError
from controller.journal.store import open_existing
from controller.service.app import TableApp, build_app
from controller.service.runtime import ControllerEvent
from controller.service.tableconfig import TableFile, default_table_text
from controller.sim import rig
from drivers.registry import BuildOptions
from tests.support.floor_rig import (
    GROUP,
    INCREMENT,
    RESET,
    Controller,
    expected_figures,
    wait_for,
)
from tests.support.mosquitto import Mosquitto

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")
WAIT = 90.0  # an upper bound for a loaded machine, never a speed requirement

DEVICES = """
[devices.shoe]
kind = "emulated"
decks = 6
seed = 3

[devices.layout]
kind = "emulated"
lamps = { fault = 0, no_more_bets = 1, blackjack = 2, seat1 = { turn = 3, blazing7s = 4 } }
bet_sensors = { seat1 = { blazing7s = 0 } }
buttons = { no_more_bets = 0, shuffle = 1 }

[devices.sign]
kind = "emulated"
"""


@pytest.fixture
def floor(tmp_path: Path) -> Iterator[tuple[Mosquitto, Controller]]:
    broker = Mosquitto(tmp_path / "broker")
    broker.start()
    controller = Controller(tmp_path, broker.url)
    controller.start()
    try:
        yield broker, controller
    finally:
        controller.stop()
        broker.stop()


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


def table_file(tmp_path: Path, name: str, broker: Mosquitto) -> tuple[Path, JournalCopy]:
    state = tmp_path / name / "state"
    text = default_table_text().replace('name = "BJ-01"', f'name = "{name}"', 1)
    text = text.replace("[progressive]               # Blazing 7's meter, cents\n",
                        f'[progressive]\nlink = "{broker.url}"\ngroup = "{GROUP}"\n', 1)
    assert f'name = "{name}"' in text
    assert "link = " in text
    path = tmp_path / name / "table.toml"
    path.parent.mkdir(parents=True)
    path.write_text(text + DEVICES + f'\n[journal]\nstate_dir = "{state}"\n'
                    + '\n[console]\nlisten = "127.0.0.1:0"\n', encoding="utf-8")
    return path, JournalCopy(name, state)


def retained_status(broker: Mosquitto, table: str) -> dict[str, Any]:
    done = subprocess.run(["mosquitto_sub", "-p", str(broker.port), "-h", "127.0.0.1",
                           "-t", f"shoectl/floor/{GROUP}/table/{table}/status", "-C", "1",
                           "-W", "10"], capture_output=True, text=True, check=False,
                          timeout=WAIT)
    return json.loads(done.stdout) if done.returncode == 0 else {}


def test_two_linked_tables_run_live_through_a_controller_kill(
        tmp_path: Path, floor: tuple[Mosquitto, Controller]) -> None:
    broker, controller = floor
    tables = [table_file(tmp_path, name, broker) for name in ("T1", "T2")]
    logs = [(tmp_path / f"{journal.name}.log").open("wb") for _, journal in tables]
    processes = [subprocess.Popen(
        [sys.executable, "-m", "controller", "run", "--config", str(path), "--allow-emulated",
         "--unverified-software"], stdout=subprocess.DEVNULL, stderr=log)
        for (path, _), log in zip(tables, logs, strict=True)]
    try:
        for _, journal in tables:
            wait_for(lambda j=journal: j.floor_links()[-1:] == ["up"],
                     f"{journal.name} journals its floor link up", WAIT)
            assert retained_status(broker, journal.name) == {"state": "online"}
        controller.kill()  # SIGKILL: the broker publishes its last will
        for _, journal in tables:
            wait_for(lambda j=journal: j.floor_links()[-1:] == ["down"],
                     f"{journal.name} journals the floor link down", WAIT)
        controller.start()
        for _, journal in tables:
            wait_for(lambda j=journal: j.floor_links()[-2:] == ["down", "up"],
                     f"{journal.name} journals the floor link back", WAIT)
        for process in processes:
            process.send_signal(signal.SIGTERM)
        assert [p.wait(timeout=WAIT) for p in processes] == [0, 0]
        for _, journal in tables:
            assert journal.records("power:off")[-1]["reason"] == "service stopped"
            assert retained_status(broker, journal.name) == {"state": "offline"}
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=WAIT)
        for log in logs:
            log.close()


def _until(app: TableApp, fact: Callable[[], object],
           seen: Callable[[], object] = lambda: "") -> None:
    """Run the table's loop until `fact` holds (it may change off the loop).

    On a stuck test, the message names `seen()`: what there was instead.
    """
    end = time.monotonic() + WAIT
    while not fact():
        assert time.monotonic() < end, f"never happened; instead: {seen()}"
        app.loop.run_until(lambda: bool(fact()), 0.05)


def test_a_hit_over_ptys_waits_through_a_controller_kill_and_is_paid_once(
        tmp_path: Path, floor: tuple[Mosquitto, Controller]) -> None:
    broker, controller = floor
    config = simulate_command.parse_options([]).config
    script = ["7D", "7D", "7D", "TD", "5C", "5H", "5S", "5D"]  # seat 1: 7D 7D under a 7D
    devices: dict[str, Any] = rig.rig_devices(config.table, 1, 1, script)
    (tmp_path / "ports").mkdir()
    document = {"devices": devices, "progressive": {"link": broker.url, "group": GROUP}}
    app = build_app(TableFile(str(tmp_path / "table.toml"), config, document),
                    allow_emulated=True, state_dir=tmp_path / "state", devices=devices,
                    burn=False, options=BuildOptions(workdir=tmp_path / "ports"))
    app.start()
    try:
        rig.wait_for_links(app)
        assert app.runtime is not None
        model, journal = app.runtime.model, JournalCopy("T1", tmp_path / "state")
        _until(app, lambda: "floor" not in model.progressive.links_down)
        sim = rig.PtySimulation(app, rig.RigPlan(1, 1, {"main": 1000}, None, 1,  # type: ignore[arg-type]
                                                 scripted=True))
        sim.step()  # shuffle done: betting
        layout = app.devices.emulators["layout"]
        layout.place_chip(0)  # seat 1's Blazing 7's spot
        _until(app, lambda: model.wagers.sensors.get("seat1.blazing7s"))
        app.loop.post(ControllerEvent("wager", {"seat": 1, "bet": "main", "cents": 1000}))
        layout.click(rig.BUTTON_NUMBERS["no_more_bets"])
        _until(app, lambda: journal.records("floor:confirmed"))  # the contribution
        controller.kill()
        _until(app, lambda: model.state == "players" or not sim.step())
        app.loop.post(ControllerEvent("stand", {}))
        _until(app, lambda: model.results)  # settled (a live table goes on to betting)
        assert [h["seat"] for h in model.progressive.waiting] == [1]
        assert journal.records("meter:linked_paid") == []  # no controller to answer
        controller.start()
        _until(app, lambda: journal.records("meter:linked_paid"))
        [paid] = journal.records("meter:linked_paid")
        assert (paid["seat"], paid["kind"], paid["paid"]) == (1, "100%", RESET + INCREMENT)
        assert model.progressive.waiting == []
        _until(app, lambda: len(journal.records("floor:confirmed"))
               == len(journal.records("floor:send")))  # the paid notice too
        assert controller.show() == expected_figures([journal])
        verified = controller.shoectl("verify")
        assert verified.returncode == 0, verified.stdout + verified.stderr
    finally:
        app.close()
