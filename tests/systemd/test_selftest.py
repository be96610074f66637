"""The start-of-day self-test (R2) against the drivers' in-process fakes."""

from __future__ import annotations

import io
import os
import sqlite3
from pathlib import Path

import pytest

from controller.appliance import integrity, selftest
from controller.appliance.selftest import Answer, FloorAction, Rig, SelftestPlan
from controller.appliance.selftest_floors import AutoFloor, ConsoleFloor
from controller.journal.store import JournalStore
from drivers.config import parse_device
from drivers.errors import DeviceUnavailableError
from drivers.interfaces import LampMode, ShoeState
from tests.support.fakes import FakeLayout, FakeShoe, FakeSign

LAYOUT = {
    "kind": "emulated-gpio",
    "lamps": {"seat1.blazing7s": 5, "seat2.blazing7s": 6, "fault": 7},
    "bet_sensors": {"seat1.blazing7s": 12, "seat2.blazing7s": 13},
    "buttons": {"no_more_bets": 16},
    "key_switches": {"supervisor": 20},
}
KINDS = {"seat1.blazing7s": "sensor", "seat2.blazing7s": "sensor", "no_more_bets": "button",
         "supervisor": "key switch"}


class DeadLampLayout(FakeLayout):
    """A layout whose seat 2 lamp never lights (a blown bulb)."""

    def set_lamp(self, lamp: str, state: LampMode) -> None:
        if lamp == "seat2.blazing7s":
            return
        super().set_lamp(lamp, state)


def _rig(layout_class: type[FakeLayout] = FakeLayout) -> tuple[Rig, FakeShoe, FakeLayout, FakeSign]:
    rig = Rig()
    config = parse_device("layout", LAYOUT, allow_emulated=True)
    layout = layout_class(config, rig.sink)  # type: ignore[arg-type]
    shoe, sign = FakeShoe("shoe", rig.sink), FakeSign("sign", rig.sink)
    rig.shoe, rig.lamps, rig.inputs, rig.sign = shoe, layout, layout, sign
    return rig, shoe, layout, sign


def _auto(layout: FakeLayout, sign: FakeSign, broken_input: str = "") -> AutoFloor:
    def stimulate(action: FloorAction, name: str) -> None:
        if name == broken_input:
            return  # the wire to this input is cut: nothing reaches the driver
        {FloorAction.PLACE_CHIP: layout.place_chip, FloorAction.REMOVE_CHIP: layout.remove_chip,
         FloorAction.PRESS: layout.press, FloorAction.TURN_KEY: layout.turn_key,
         FloorAction.TURN_KEY_BACK: lambda _name: layout.turn_key("normal")}[action](name)

    def sign_amount() -> int | None:
        amounts = [fields[0] for _, what, fields in sign.shown if what == "amount"]
        return int(amounts[-1]) if amounts else None

    return AutoFloor(stimulate, layout.lamps.get, sign_amount, settle_s=0.05)


def _run(rig: Rig, floor, state_dir: Path, **plan) -> selftest.Report:
    plan.setdefault("journal", lambda: selftest.journal_check(state_dir))
    plan.setdefault("input_timeout_s", 0.2)
    return selftest.run(rig, SelftestPlan(meter_cents=1_234_567, lamp_on_s=0, **plan), floor,
                        operator="J. Floor", mode="auto", input_kinds=KINDS)


def test_healthy_rig_passes_every_item(tmp_path: Path) -> None:
    rig, _shoe, layout, sign = _rig()
    report = _run(rig, _auto(layout, sign), tmp_path)
    assert report.passed, report.lines()
    items = [(c.device, c.item) for c in report.checks]
    assert ("journal", "chain") in items
    assert ("shoe", "state") in items
    for lamp in LAYOUT["lamps"]:
        assert ("layout", f"lamp {lamp}") in items
    assert ("layout", "sensor seat1.blazing7s (place_chip)") in items
    assert ("layout", "sensor seat1.blazing7s (remove_chip)") in items
    assert ("layout", "button no_more_bets (press)") in items
    assert ("layout", "key switch supervisor (turn_key)") in items
    assert ("layout", "key switch supervisor (turn_key_back)") in items
    assert ("sign", "shows $12,345.67") in items
    assert all(state is LampMode.OFF for state in layout.lamps.values())  # left dark
    assert [lamp for _, lamp, state in layout.timeline if state is LampMode.ON] == list(
        LAYOUT["lamps"])  # each lamp lit in turn


def test_blown_lamp_and_cut_sensor_are_named(tmp_path: Path) -> None:
    rig, _shoe, layout, sign = _rig(DeadLampLayout)
    report = _run(rig, _auto(layout, sign, broken_input="seat1.blazing7s"), tmp_path)
    assert not report.passed
    failed = [f"{c.device}: {c.item}" for c in report.failures]
    assert failed == ["layout: lamp seat2.blazing7s",
                      "layout: sensor seat1.blazing7s (place_chip)",
                      "layout: sensor seat1.blazing7s (remove_chip)"]
    assert report.failed_devices() == ("layout",)
    assert "no signal within 0.2 s" in report.failures[1].detail
    assert report.lines()[-1] == "self-test FAILED: layout"


def test_dead_shoe_and_silent_sign_fail_by_name(tmp_path: Path) -> None:
    rig, shoe, layout, sign = _rig()

    def refuse() -> None:
        raise DeviceUnavailableError("shoe", "cannot open /dev/shoe-scanner")

    shoe.start = refuse  # type: ignore[method-assign]
    original = sign.show_amount

    def show_then_fall_silent(cents: int) -> None:
        original(cents)
        sign.go_silent()

    sign.show_amount = show_then_fall_silent  # type: ignore[method-assign]
    report = _run(rig, _auto(layout, sign), tmp_path)
    assert report.failed_devices() == ("shoe", "sign")
    assert "cannot open /dev/shoe-scanner" in report.failures[0].detail
    assert [c.item for c in report.failures] == ["handshake", "answering"]


def test_jammed_shoe_fails(tmp_path: Path) -> None:
    rig, shoe, layout, sign = _rig()
    shoe.state = ShoeState(3, lid_open=True, jammed=True, empty=False)
    report = _run(rig, _auto(layout, sign), tmp_path)
    assert [(c.device, c.item, c.detail) for c in report.failures] == [
        ("shoe", "state", "lid open, jammed")]


def test_tampered_software_and_broken_journal_fail(tmp_path: Path) -> None:
    target = tmp_path / "app.py"
    target.write_text("pass\n")
    manifest = tmp_path / "manifest.sha256"
    manifest.write_text(integrity.build_manifest([], [str(target)]))
    target.write_text("rigged = True\n")
    state = tmp_path / "state"
    store = JournalStore(state, clock=lambda: 1.0)
    store.commit([selftest.JournalRecord("power:on", {})], None)
    store.close()

    db = sqlite3.connect(state / "journal.sqlite3")
    db.execute("DROP TRIGGER journal_no_update")
    db.execute("UPDATE journal SET data = '{\"x\":1}' WHERE seq = 1")
    db.commit()
    db.close()
    rig, _shoe, layout, sign = _rig()
    report = _run(rig, _auto(layout, sign), state,
                  software=lambda: selftest.software_check(manifest, required=True))
    assert report.failed_devices() == ("software", "journal")
    assert report.failures[0].detail == f"changed: {target}"
    assert "chain broken at record 1" in report.failures[1].detail


def test_software_check_without_a_manifest() -> None:
    assert selftest.software_check(None, required=False) is None
    check = selftest.software_check(None, required=True)
    assert check is not None
    assert not check.passed
    assert "not an installed appliance" in check.detail


def test_result_is_recorded_with_who_and_when(tmp_path: Path) -> None:
    rig, _shoe, layout, sign = _rig(DeadLampLayout)
    report = _run(rig, _auto(layout, sign), tmp_path)
    seq = selftest.record_result(tmp_path, report)
    store = JournalStore(tmp_path, clock=lambda: 0.0)
    [entry] = list(store.entries(["selftest:result"]))
    store.close()
    assert entry.seq == seq
    assert entry.data["operator"] == "J. Floor"
    assert entry.data["passed"] is False
    assert entry.data["failed_devices"] == ["layout"]
    assert entry.data["failures"] == ["layout: lamp seat2.blazing7s: not seen lit (no)"]
    assert entry.data["started"] <= entry.data["finished"]
    assert selftest.journal_check(tmp_path).passed


def test_console_floor_reads_answers_and_times_out() -> None:
    out = io.StringIO()
    floor = ConsoleFloor(io.StringIO("maybe\ny\nNO\n"), out, timeout_s=1)
    assert floor.lamp_lit("fault") is Answer.YES
    assert floor.sign_shows("$1.00", 100) is Answer.NO
    assert floor.lamp_lit("shuffle") is Answer.NO_ANSWER  # end of input
    floor.act(FloorAction.PLACE_CHIP, "seat1.blazing7s")
    text = out.getvalue()
    assert "Is lamp 'fault' lit, and no other? [y/n]" in text
    assert "please answer y or n" in text
    assert ">>> place a chip on bet sensor 'seat1.blazing7s' (within 1 s)" in text


def test_console_floor_gives_up_after_the_timeout() -> None:

    read_end, write_end = os.pipe()
    with os.fdopen(read_end) as stdin, os.fdopen(write_end, "w"):
        floor = ConsoleFloor(stdin, io.StringIO(), timeout_s=0.1)
        assert floor.lamp_lit("fault") is Answer.NO_ANSWER


@pytest.mark.parametrize(("cents", "text"), [(0, "$0.00"), (1_234_567, "$12,345.67"),
                                              (5, "$0.05")])
def test_dollars(cents: int, text: str) -> None:
    assert selftest.dollars(cents) == text
