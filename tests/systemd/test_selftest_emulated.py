"""`--auto` self-test of the real drivers against the byte-level emulators over real ptys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.appliance import selftest, selftest_floors
from controller.appliance.selftest import Rig, SelftestPlan
from drivers.board import LinkOptions, link_timing
from drivers.config import parse_device
from drivers.emulated.board import table_catalogue
from drivers.emulated.layout import LayoutEmulator
from drivers.emulated.shoe import ShoeEmulator
from drivers.emulated.sign import SignEmulator
from drivers.layout import BridgeLayout
from drivers.shoe import BridgeShoe
from drivers.sign import BridgeSign

LAYOUT = {"kind": "emulated", "lamps": {"seat1.blazing7s": 1, "seat2.blazing7s": 2, "fault": 3},
          "bet_sensors": {"seat1.blazing7s": 1, "seat2.blazing7s": 2},
          "buttons": {"no_more_bets": 4}}


@pytest.fixture
def emulated(tmp_path: Path) -> Iterator[tuple[Rig, selftest_floors.AutoFloor, SignEmulator, dict]]:
    shoe_emu = ShoeEmulator(link_dir=tmp_path).start()
    layout_emu = LayoutEmulator(link_dir=tmp_path).start()
    sign_emu = SignEmulator(link_dir=tmp_path).start()
    layout_config = parse_device("layout", LAYOUT, allow_emulated=True)
    sign_config = parse_device("sign", {"kind": "emulated"}, allow_emulated=True)
    catalogue = table_catalogue()

    def link(path: str) -> LinkOptions:
        return LinkOptions(url=path, catalogue=catalogue, timing=link_timing(1000))

    rig = Rig()
    layout = BridgeLayout(layout_config, link(layout_emu.path), rig.sink)  # type: ignore[arg-type]
    rig.shoe = BridgeShoe("shoe", link(shoe_emu.path), rig.sink, emulated=True)
    rig.lamps = rig.inputs = layout
    rig.sign = BridgeSign(sign_config, link(sign_emu.path), rig.sink)  # type: ignore[arg-type]
    floor = selftest_floors.board_floor(layout_config, layout_emu, sign_emu)  # type: ignore[arg-type]
    kinds = selftest_floors.input_kinds(layout_config)  # type: ignore[arg-type]
    try:
        yield rig, floor, sign_emu, kinds
    finally:
        for emulator in (shoe_emu, layout_emu, sign_emu):
            emulator.close()


def test_auto_selftest_passes_on_the_emulated_rig(emulated, tmp_path: Path) -> None:
    rig, floor, _sign, kinds = emulated
    report = selftest.run(rig, SelftestPlan(journal=lambda: selftest.journal_check(tmp_path),
                                    meter_cents=1_000_000, input_timeout_s=5, lamp_on_s=0),
                          floor, operator="auto", mode="auto", input_kinds=kinds)
    assert report.passed, "\n".join(report.lines())
    items = [c.item for c in report.checks if c.device == "layout"]
    assert "lamp fault" in items
    assert "sensor seat2.blazing7s (remove_chip)" in items
    assert "button no_more_bets (press)" in items
    assert "key switch supervisor (turn_key)" in items  # the board's fixed key positions
    assert ("sign", "shows $10,000.00") in [(c.device, c.item) for c in report.checks]


def test_auto_selftest_names_a_sign_that_shows_nothing(emulated, tmp_path: Path) -> None:
    rig, floor, sign_emu, kinds = emulated
    sign_emu.faults.go_silent()
    report = selftest.run(rig, SelftestPlan(meter_cents=500, input_timeout_s=5, lamp_on_s=0),
                          floor, operator="auto", mode="auto", input_kinds=kinds)
    assert report.failed_devices() == ("sign",)
