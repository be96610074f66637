"""Linked tables live: `shoectl run` with `[progressive] link`, a real Mosquitto, the controller.

Two `shoectl run` processes (emulated shoe, layout board and sign over ptys) and `shoectl
progressive serve` in processes of their own: both tables run linked, see the controller
killed with SIGKILL (its last will: each table journals the floor link down) and restarted
(each journals it back), and stop in order on SIGTERM. One table over ptys deals a scripted
round with a 100% hit while the controller lies killed: the hit waits, the controller
restarts, and the table settles it once with the controller's amount.

Then the tables as they run on the floor: two `shoectl run` processes, each over the ptys of
three `shoectl emulate` boards of its own (typed commands: chips, buttons, cards), dealt
through their consoles' HTTP API: two 100% hits at the two tables in the same second (paid
in the order the controller received them, the second from the reseed), the controller
killed with SIGKILL and restarted while a hit waits (the console says which wager waits),
and a table's power cut (SIGKILL) with its contribution unanswered (T2 reaches the broker
through a TCP proxy of the tests' own, which drops the answers meanwhile: holding the
controller still instead would let the broker drop it after one and a half keepalives, and
its last will would close every table's betting). After each, the controller's meter
equals the seed plus every accepted contribution minus every payment (plus each reseed),
counted from the tables' journals read from private copies (`open_existing`), and
`shoectl progressive verify` passes.

Nothing waits on the clock for correctness: every wait is for a fact, with a ceiling that
only ends a stuck test.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.service.app import TableApp
from controller.service.runtime import ControllerEvent
from controller.service.tableconfig import default_table_text
from controller.sim import rig
from tests.support.floor_rig import GROUP, INCREMENT, RESET, Controller, expected_figures, wait_for
from tests.support.mosquitto import Mosquitto
from tests.support.tcp_proxy import TcpProxy

from .floor_run_rig import HIT, WAIT, JournalCopy, RunTable, exact, linked_rig_table, waits
from .rig import EMULATED_TABLE_DEVICES

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")



def table_file(tmp_path: Path, name: str, broker: Mosquitto) -> tuple[Path, JournalCopy]:
    state = tmp_path / name / "state"
    text = default_table_text().replace('name = "BJ-01"', f'name = "{name}"', 1)
    text = text.replace("[progressive]               # Blazing 7's meter, cents\n",
                        f'[progressive]\nlink = "{broker.url}"\ngroup = "{GROUP}"\n', 1)
    assert f'name = "{name}"' in text
    assert "link = " in text
    path = tmp_path / name / "table.toml"
    path.parent.mkdir(parents=True)
    path.write_text(text + EMULATED_TABLE_DEVICES + f'\n[journal]\nstate_dir = "{state}"\n'
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
    script = ["7D", "7D", "7D", "TD", "5C", "5H", "5S", "5D"]  # seat 1: 7D 7D under a 7D
    app = linked_rig_table(tmp_path, broker.url, seats=1, script=script)
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


def test_tables_as_processes_settle_hits_exactly_through_kills(
        tmp_path: Path, floor: tuple[Mosquitto, Controller]) -> None:
    broker, controller = floor
    t1 = RunTable(tmp_path, "T1", broker.url, ["2C", *HIT, *HIT])
    proxy = TcpProxy(broker.port)
    t2 = RunTable(tmp_path, "T2", f"mqtt://127.0.0.1:{proxy.port}",
                  ["2C", *HIT, "TC", "9C", "TH", "8C", "5C", "5H", "5S", "5D"])  # not empty
    tables = [t1, t2]
    try:
        for table in tables:
            table.start()
            table.open_shoe()
            wait_for(lambda t=table: t.journal.floor_links()[-1:] == ["up"],
                     f"{table.name}'s floor link up", WAIT)
        # Two 100% hits at two tables in the same second.
        for table in tables:
            assert table.lock_out()["accepted_progressive"] == [1]
        exact(controller, tables)
        for table in tables:
            table.shoe.say("draw 4")
            table.phase("players")
        for table in tables:  # back to back: the controller orders them
            table.command(command="stand", seat=1)
        for table in tables:
            wait_for(lambda t=table: t.count("meter:linked_paid") == 1,
                     f"{table.name}'s hit settled", WAIT)
        paid = sorted(t.journal.records("meter:linked_paid")[0]["paid"] for t in tables)
        assert paid == [RESET, RESET + 2 * INCREMENT]  # the second from the reseed
        assert exact(controller, tables)["hits"] == 2
        # The controller killed (SIGKILL) and restarted while T1's hit waits.
        assert t1.lock_out()["accepted_progressive"] == [1]
        exact(controller, tables)
        controller.kill()
        t1.deal_and_stand()
        wait_for(lambda: waits(t1), "T1's console says the hit waits", WAIT)
        assert t1.count("meter:linked_paid") == 1  # only the first round's
        controller.start()
        wait_for(lambda: t1.count("meter:linked_paid") == 2, "T1's second hit settled", WAIT)
        assert t1.journal.records("meter:linked_paid")[1]["paid"] == RESET + INCREMENT
        wait_for(lambda: waits(t1) is False, "T1's console no longer says the hit waits",
                 WAIT)
        exact(controller, tables)
        # T2 power-cut (SIGKILL) with its contribution unanswered.
        wait_for(lambda: t2.journal.floor_links()[-1:] == ["up"], "T2's link back", WAIT)
        t2.lock_out(progressive=False)  # the betting in which the link came back is closed
        t2.deal_and_stand()
        t2.place_bets(progressive=True)
        sent = t2.count("floor:send")
        proxy.mute_answers()  # the contribution goes up; no answer comes back
        assert t2.no_more_bets()["accepted_progressive"] == [1]
        wait_for(lambda: t2.count("floor:send") > sent, "T2 journals its send", WAIT)
        t2.kill()
        assert not t2.all_confirmed()
        t2.start()
        figures = exact(controller, tables)
        assert figures["progressive_in"] == 4  # T1 2, T2 2 (the closed betting took none)
        assert [t.stop() for t in tables] == [0, 0]
    finally:
        for table in tables:
            table.close()
        proxy.close()
