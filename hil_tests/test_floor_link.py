"""A linked table over ptys and a real Mosquitto: `[progressive] link` in the table file.

The whole table (shoe, layout board and sign emulators over ptys) and `shoectl progressive
serve` in its own process: the table sends its accepted Blazing 7's contribution, its sign
shows the group's meter, and when the controller is gone the table refuses progressive
wagers and its sign says PROGRESSIVE OFF (the lost sign's path, device `floor`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.service.app import TableApp
from controller.service.runtime import ControllerEvent
from controller.sim import rig
from tests.support.floor_rig import INCREMENT, RESET, Controller, broker_and_controller

from .floor_run_rig import linked_rig_table

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")
WAIT = 60.0  # an upper bound for a loaded machine, never a speed requirement


@pytest.fixture
def floor(tmp_path: Path) -> Iterator[tuple[TableApp, Controller]]:
    with broker_and_controller(tmp_path) as (broker, controller):
        app = linked_rig_table(tmp_path, broker.url)
        rig.wait_for_links(app)
        try:
            yield app, controller
        finally:
            app.close()


def _until(app: TableApp, fact: Callable[[], object]) -> bool:
    """Run the loop until `fact` holds; it may change off the loop (the sign's emulator)."""
    end = time.monotonic() + WAIT
    while not fact():
        if time.monotonic() > end:
            return False
        app.loop.run_until(lambda: bool(fact()), 0.05)
    return True


def _records(app: TableApp, kind: str) -> list[dict[str, Any]]:
    assert app.runtime is not None
    return [entry.data for entry in app.runtime.journal.entries([kind])]


def _lock_out_with_blazing7s(app: TableApp) -> dict[str, Any]:
    layout = app.devices.emulators["layout"]
    assert app.runtime is not None
    before = len(_records(app, "bet:lock_out"))
    layout.place_chip(0)  # seat 1's Blazing 7's spot
    assert app.loop.run_until(
        lambda: app.runtime is not None
        and app.runtime.model.wagers.sensors.get("seat1.blazing7s"), WAIT)
    app.loop.post(ControllerEvent("wager", {"seat": 1, "bet": "main", "cents": 1000}))
    layout.click(rig.BUTTON_NUMBERS["no_more_bets"])
    assert app.loop.run_until(lambda: len(_records(app, "bet:lock_out")) > before, WAIT)
    return _records(app, "bet:lock_out")[-1]


def test_a_linked_table_sends_its_contribution_and_goes_off_without_the_controller(
        floor: tuple[TableApp, Controller]) -> None:
    app, controller = floor
    assert app.runtime is not None
    model, sign = app.runtime.model, app.devices.emulators["sign"]
    assert app.loop.run_until(lambda: "floor" not in model.progressive.links_down, WAIT)
    sim = rig.PtySimulation(app, rig.RigPlan(3, 1, {"main": 1000}, None, 1))  # type: ignore[arg-type]
    sim.step()  # shuffle done: betting
    lock_out = _lock_out_with_blazing7s(app)
    assert lock_out["accepted_progressive"] == [1]
    # the boot's announcement, then the contribution
    assert app.loop.run_until(lambda: len(_records(app, "floor:confirmed")) == 2, WAIT)
    assert [s["message"]["type"] for s in _records(app, "floor:send")] == ["boot",
                                                                          "contribution"]
    assert _records(app, "floor:send")[1]["message"]["seat"] == 1
    assert controller.show()["progressive_in"] == 1
    linked = RESET + INCREMENT
    assert _until(app, lambda: sign.display()[1:] == (linked, ""))
    controller.stop()  # its status goes offline: the link is down
    assert app.loop.run_until(lambda: "floor" in model.progressive.links_down, WAIT)
    assert _until(app, lambda: sign.display()[2] == "PROGRESSIVE OFF")
    assert not model.progressive.is_open()
