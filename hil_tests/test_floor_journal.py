"""A linked table's journal on the floor: the whole table over ptys, a real Mosquitto, the
progressive controller and the floor process (`shoectl floor serve`, SQLite store).

The table deals rounds with its bots; the floor ends up holding the table's journal row for
row, the secured records of every card (the hole card's included) among them, and
`shoectl floor verify --state-dir` agrees with the card's journal.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.rules.strategy import BasicStrategyPolicy
from controller.service.app import TableApp
from controller.sim import rig
from tests.support.floor_rig import broker_and_controller
from tests.support.floor_store_rig import FloorProcess
from tests.support.mosquitto import wait_for

from .floor_run_rig import linked_rig_table

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")


@pytest.fixture
def linked(tmp_path: Path) -> Iterator[tuple[TableApp, FloorProcess]]:
    with broker_and_controller(tmp_path) as (broker, _):
        floor = FloorProcess(tmp_path, broker.url, f"sqlite:{tmp_path / 'floor.sqlite3'}")
        floor.start()
        app = linked_rig_table(tmp_path, broker.url)
        rig.wait_for_links(app)
        try:
            yield app, floor
        finally:
            app.close()
            floor.stop()


def test_a_dealing_tables_journal_reaches_the_floor_row_for_row(
        linked: tuple[TableApp, FloorProcess]) -> None:
    app, floor = linked
    assert app.runtime is not None
    journal = app.runtime.journal
    plan = rig.RigPlan(3, 2, {"main": 1000}, BasicStrategyPolicy(), 7)
    settled = list(rig.PtySimulation(app, plan).run())
    assert len(settled) == 2
    app.loop.run_until_idle()
    wait_for(lambda: len(floor.held(app.table.game.table.name)) == journal.records,
             "the floor holds every record of the table")
    held = floor.held(app.table.game.table.name)
    assert held == list(journal.entries())
    kinds = {entry.kind for entry in held}
    assert {"power:on", "bet:lock_out", "card:dealt"} <= kinds
    # Every card dealt to the dealer (position 0), the hole card (the second) included: the
    # secured records travel to the equally secured floor store like every other.
    dealer = [e for e in held if e.kind == "card:dealt" and e.data["to"][0] == 0]
    assert len(dealer) >= 2 * len(settled)
    done = floor.shoectl("verify", "--table", app.table.game.table.name, "--state-dir",
                         str(journal.path.parent))
    assert done.returncode == 0, done.stdout + done.stderr
