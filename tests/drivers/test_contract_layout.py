"""The `LayoutLamps` and `LayoutInputs` contracts, run against every implementation here."""

import pytest

from drivers.errors import DriverError
from drivers.events import IN_PROCESS_KEY, BetSensorChanged, ButtonPressed, KeySwitchTurned
from drivers.interfaces import LampMode, LayoutInputs, LayoutLamps

from .conftest import unstarted_layout


def test_is_lamps_and_inputs(layout_harness):
    device = layout_harness.device
    assert isinstance(device, LayoutLamps)
    assert isinstance(device, LayoutInputs)
    assert device.lamp_names == ("seat1.bet", "no_more_bets")
    assert {"seat1", "deal", "supervisor"} <= set(device.input_names)
    assert device.link_up


def test_lamps_show_what_they_are_set_to(layout_harness):
    device = layout_harness.device
    device.set_lamp("seat1.bet", LampMode.ON)
    device.set_lamp("no_more_bets", LampMode.FLASH)
    assert layout_harness.lamp("seat1.bet") == "on"
    assert layout_harness.lamp("no_more_bets") == "flash"
    device.set_lamp("seat1.bet", LampMode.OFF)
    assert layout_harness.lamp("seat1.bet") == "off"


def test_all_safe_darkens_every_lamp(layout_harness):
    device = layout_harness.device
    for lamp in device.lamp_names:
        device.set_lamp(lamp, LampMode.ON)
    device.all_safe()
    assert [layout_harness.lamp(lamp) for lamp in device.lamp_names] == ["off", "off"]


def test_an_unknown_lamp_is_refused_naming_the_device(layout_harness):
    with pytest.raises(DriverError, match=r"^\[devices.layout\] lamps: no lamp named 'seat9'"):
        layout_harness.device.set_lamp("seat9", LampMode.ON)


def test_every_bet_sensor_is_reported_when_the_device_starts(layout_harness):
    """So the table knows a spot's chips (or their absence) from before it started."""
    assert [(e.sensor, e.occupied) for e in layout_harness.started] == [("seat1", False)]


def test_a_chip_on_a_bet_sensor_is_reported_both_ways(layout_harness):
    layout_harness.chip(True)
    layout_harness.settle()
    layout_harness.recorder.wait_for(BetSensorChanged, 1)
    assert layout_harness.device.input_states()["seat1"] is True
    layout_harness.chip(False)
    layout_harness.settle()
    changes = layout_harness.recorder.wait_for(BetSensorChanged, 2)
    assert [(e.sensor, e.occupied) for e in changes] == [("seat1", True), ("seat1", False)]
    assert layout_harness.device.input_states()["seat1"] is False


def test_a_button_press_is_reported_once(layout_harness):
    layout_harness.press()
    layout_harness.settle()
    (pressed,) = layout_harness.recorder.wait_for(ButtonPressed, 1)
    assert pressed.button == "deal"
    assert pressed.device == "layout"


def test_the_key_switch_reports_its_position(layout_harness):
    layout_harness.key("supervisor")
    layout_harness.settle()
    layout_harness.key("normal")
    layout_harness.settle()
    turns = layout_harness.recorder.wait_for(KeySwitchTurned, 2)
    assert [turn.position for turn in turns] == ["supervisor", "normal"]
    # Every switch names itself for the journal, and the table's own are authenticated.
    assert all(turn.authenticated for turn in turns)
    assert all(turn.key != IN_PROCESS_KEY for turn in turns)


def test_close_is_idempotent(layout_harness):
    layout_harness.device.close()
    layout_harness.device.close()
    assert not layout_harness.device.link_up


@pytest.mark.parametrize("kind", ["emulated-gpio", "emulated-board"])
def test_chips_lying_on_a_spot_before_the_device_starts_are_reported_at_start(kind, tmp_path):
    """A table restarted with chips on a spot learns of them without waiting for them to move."""
    harness = unstarted_layout(kind, tmp_path)
    try:
        harness.chip(True)
        harness.device.start()
        harness.settle()
        started = harness.recorder.wait_for(BetSensorChanged, 1)
        assert [(e.sensor, e.occupied) for e in started] == [("seat1", True)]
        assert harness.device.input_states()["seat1"] is True
    finally:
        harness.close()
