"""Layout lamps and inputs end to end over the layout board's serial link."""

import pytest

from drivers.events import BetSensorChanged, ButtonPressed, KeySwitchTurned, LinkDown, LinkUp
from drivers.interfaces import LampMode
from hil_tests.rig import WAIT_S


@pytest.mark.needs("layout", "emulated")
def test_lamp_commands_reach_the_board_and_are_logged(table):
    emulator, layout = table.emulator("layout"), table.layout
    start = len(emulator.lamp_log)
    layout.set_lamp("seat1.bet", LampMode.ON)
    layout.set_lamp("no_more_bets", LampMode.FLASH)
    layout.set_lamp("seat1.bet", LampMode.OFF)
    assert emulator.wait_until(lambda: len(emulator.lamp_log) >= start + 3)
    logged = [(lamp, mode) for _, lamp, mode in emulator.lamp_log[start:]]
    assert logged == [(1, "on"), (3, "blink_slow"), (1, "off")]
    times = [t for t, _, _ in emulator.lamp_log[start:]]
    assert times == sorted(times)
    assert emulator.shown(3) == "blink_slow"
    layout.all_safe()
    assert emulator.wait_until(lambda: all(emulator.lamp(n) == "off" for n in range(4)))


@pytest.mark.needs("layout", "emulated")
def test_sensor_button_and_key_events_reach_the_driver(table):
    emulator = table.emulator("layout")
    mark = table.events.mark()
    emulator.place_chip(1)
    emulator.click(0)
    emulator.turn_key("supervisor")
    emulator.remove_chip(1)
    emulator.turn_key("normal")
    table.events.wait_for(lambda events: len(events) >= 5, 5.0, mark)
    assert [(type(e).__name__, _what(e)) for e in table.events.since(mark)] == [
        ("BetSensorChanged", ("seat2", True)), ("ButtonPressed", "no_more_bets"),
        ("KeySwitchTurned", "supervisor"), ("BetSensorChanged", ("seat2", False)),
        ("KeySwitchTurned", "normal")]
    assert table.layout.input_states()["seat2"] is False


@pytest.mark.needs("layout", "fault_injection")
def test_board_goes_failsafe_when_unplugged_and_is_restored_on_replug(table):
    emulator, layout = table.emulator("layout"), table.layout
    layout.set_lamp("seat2.bet", LampMode.ON)
    assert emulator.wait_until(lambda: emulator.lamp(2) == "on")
    mark = table.events.mark()
    emulator.unplug()
    table.events.wait_for_event(LinkDown, WAIT_S, mark)
    assert emulator.wait_until(lambda: emulator.failsafe)
    assert emulator.shown(2) == "off"  # failsafe pattern: only the fault lamp, blinking
    assert emulator.shown(0) == "blink_fast"
    emulator.place_chip(0)  # a chip placed while the cable is out is still reported
    emulator.replug()
    table.events.wait_for_event(LinkUp, WAIT_S, mark)
    table.events.wait_for_event(BetSensorChanged, WAIT_S, mark)
    assert emulator.pattern == "none"
    assert emulator.shown(2) == "on"
    assert emulator.wait_until(lambda: not emulator.failsafe)  # released after reconciling
    assert [e.sensor for e in table.events.of(BetSensorChanged, mark)] == ["seat1"]
    emulator.remove_chip(0)


def _what(event):
    if isinstance(event, BetSensorChanged):
        return (event.sensor, event.occupied)
    if isinstance(event, ButtonPressed):
        return event.button
    assert isinstance(event, KeySwitchTurned)
    return event.position

