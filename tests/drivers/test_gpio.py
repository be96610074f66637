"""The GPIO layout driver on an injected RPi.GPIO module that records every call.

And the loader: which `RPi.GPIO` the board gets (a Pi 5: rpi-lgpio from the venv's side
folder; any other board: the plain import), on fake model files and fake modules.
"""

import importlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.config import parse_device
from drivers.emulated.gpio import EmulatedGpio
from drivers.errors import DeviceClosedError, DeviceConfigError, DeviceUnavailableError, DriverError
from drivers.events import BetSensorChanged, ButtonPressed, KeySwitchTurned
from drivers.gpio import GpioLayout, PinReservations, lgpio_workdir, load_rpi_gpio
from drivers.interfaces import LampMode
from drivers.raspberry_pi import board_model, is_pi5
from tests.support.timing import ManualScheduler

LAYOUT = {
    "kind": "gpio",
    "lamps": {"seat1": {"bet": 17}, "no_more_bets": 27},
    "bet_sensors": {"seat1": 5},
    "buttons": {"deal": 13},
    "key_switches": {"supervisor": 19, "reset": 26},
    "debounce_ms": 20,
}


@pytest.fixture
def clock() -> ManualScheduler:
    return ManualScheduler()


@pytest.fixture
def gpio(clock: ManualScheduler) -> EmulatedGpio:
    return EmulatedGpio(clock)


@pytest.fixture
def events() -> list:
    return []


@pytest.fixture
def layout(gpio, clock, events):
    config = parse_device("layout", LAYOUT, allow_emulated=False)
    device = started(GpioLayout(config, events.append, gpio=gpio, scheduler=clock), events)
    yield device
    device.close()


def started(device: GpioLayout, events: list) -> GpioLayout:
    """Start `device`, check it told each bet sensor's state (all clear), forget that."""
    device.start()
    assert events == [BetSensorChanged("layout", "seat1", False, 0.0)]
    events.clear()
    return device


def test_start_sets_up_pins_in_bcm_mode_with_lamps_off(layout, gpio):
    assert gpio.calls[:2] == [("setwarnings", (False,)), ("setmode", (gpio.BCM,))]
    setups = [args for name, args in gpio.calls if name == "setup"]
    assert (17, gpio.OUT, gpio.PUD_OFF, gpio.LOW) in setups
    assert (5, gpio.IN, gpio.PUD_UP, -1) in setups
    assert all(gpio.callbacks(pin) == 1 for pin in (5, 13, 19, 26))
    assert gpio.level(17) == gpio.LOW
    assert layout.input_states() == {"seat1": False, "deal": False, "supervisor": False,
                                     "reset": False}


def test_a_bouncing_button_is_reported_once_after_the_quiet_time(layout, gpio, clock, events):
    gpio.bounce(13, [0, 1, 0, 1, 0])  # pulled up: 0 = pressed
    clock.advance(0.019)
    assert events == []
    clock.advance(0.002)
    assert events == [ButtonPressed("layout", "deal", pytest.approx(0.02))]
    gpio.bounce(13, [1, 0, 1])  # release with bounce: no event for a button release
    clock.advance(0.05)
    assert len(events) == 1


def test_a_glitch_shorter_than_the_debounce_is_not_reported(layout, gpio, clock, events):
    gpio.drive(5, 0)
    clock.advance(0.005)
    gpio.drive(5, 1)
    clock.advance(0.1)
    assert events == []
    assert layout.input_states()["seat1"] is False


def test_each_new_edge_restarts_the_quiet_time(layout, gpio, clock, events):
    for _ in range(5):
        gpio.drive(5, 0)
        clock.advance(0.015)
        gpio.drive(5, 1)
        clock.advance(0.015)
    gpio.drive(5, 0)
    clock.advance(0.015)
    assert events == []
    clock.advance(0.006)
    assert events == [BetSensorChanged("layout", "seat1", True, pytest.approx(0.17))]
    gpio.drive(5, 1)
    clock.advance(0.03)
    assert events[-1].occupied is False


def test_key_switch_reports_each_position(layout, gpio, clock, events):
    gpio.drive(19, 0)
    clock.advance(0.03)
    gpio.drive(19, 1)
    clock.advance(0.03)
    gpio.drive(26, 0)
    clock.advance(0.03)
    assert [e.position for e in events if isinstance(e, KeySwitchTurned)] == [
        "supervisor", "normal", "reset"]


def test_pull_down_inputs_are_active_high(gpio, clock, events):
    config = parse_device("layout", {**LAYOUT, "pull": "down"}, allow_emulated=False)
    device = started(GpioLayout(config, events.append, gpio=gpio, scheduler=clock), events)
    gpio.drive(13, 1)
    clock.advance(0.03)
    assert events == [ButtonPressed("layout", "deal", pytest.approx(0.02))]
    device.close()


def test_zero_debounce_reports_at_once(gpio, clock, events):
    config = parse_device("layout", {**LAYOUT, "debounce_ms": 0}, allow_emulated=False)
    device = started(GpioLayout(config, events.append, gpio=gpio, scheduler=clock), events)
    gpio.drive(5, 0)
    assert events == [BetSensorChanged("layout", "seat1", True, 0.0)]
    device.close()


def test_lamps_on_off_and_all_safe(layout, gpio):
    layout.set_lamp("seat1.bet", LampMode.ON)
    assert gpio.level(17) == gpio.HIGH
    layout.set_lamp("no_more_bets", LampMode.ON)
    layout.all_safe()
    assert gpio.level(17) == gpio.LOW
    assert gpio.level(27) == gpio.LOW
    assert [level for _, level in gpio.history(17)] == [0, 1, 0]


def test_active_low_lamps_are_dark_high_from_set_up_to_release(gpio, clock, events):
    config = parse_device("layout", {**LAYOUT, "lamps_active": "low"}, allow_emulated=False)
    device = GpioLayout(config, events.append, gpio=gpio, scheduler=clock)
    device.start()
    assert gpio.level(17) == gpio.level(27) == gpio.HIGH  # set up dark: never a lit blip
    device.set_lamp("seat1.bet", LampMode.ON)
    assert gpio.level(17) == gpio.LOW
    device.set_lamp("no_more_bets", LampMode.FLASH)
    clock.advance(0.5)
    assert [level for _, level in gpio.history(27)] == [1, 1, 0, 1]  # dark, then lit at 0.25 s
    device.all_safe()
    assert gpio.level(17) == gpio.level(27) == gpio.HIGH
    device.set_lamp("seat1.bet", LampMode.ON)
    device.close()
    assert [level for _, level in gpio.history(17)] == [1, 0, 1, 0, 1]


def test_lamp_polarity_is_checked_and_named(gpio):
    with pytest.raises(DeviceConfigError, match=r"\[devices.layout\] lamps_active"):
        parse_device("layout", {**LAYOUT, "lamps_active": "inverted"}, allow_emulated=False)


def test_flashing_lamp_toggles_at_the_blink_rate(layout, gpio, clock):
    layout.set_lamp("no_more_bets", LampMode.FLASH)
    clock.advance(1.0)  # 2 Hz: a change every 0.25 s
    times = [t for t, _ in gpio.history(27)]
    assert times == pytest.approx([0.0, 0.0, 0.25, 0.5, 0.75, 1.0])
    layout.set_lamp("no_more_bets", LampMode.OFF)
    clock.advance(1.0)
    assert gpio.level(27) == gpio.LOW
    assert clock.pending == 0


def test_unknown_lamp_names_the_device(layout):
    with pytest.raises(DriverError, match=r"^\[devices.layout\] lamps: no lamp named 'seat9'"):
        layout.set_lamp("seat9", LampMode.ON)


def test_close_is_idempotent_releases_pins_and_refuses_commands(layout, gpio, clock, events):
    layout.set_lamp("seat1.bet", LampMode.ON)
    gpio.drive(5, 0)  # an edge whose debounce timer is still pending
    layout.close()
    layout.close()
    clock.advance(1.0)
    assert events == []
    assert gpio.level(17) == gpio.LOW
    assert not any(gpio.is_setup(pin) for pin in (17, 27, 5, 13, 19, 26))
    assert [name for name in gpio.names() if name == "cleanup"] == ["cleanup"]
    with pytest.raises(DeviceClosedError):
        layout.set_lamp("seat1.bet", LampMode.ON)


def test_pin_conflicts_between_devices_are_refused_at_construction(gpio, clock):
    reservations = PinReservations()
    config = parse_device("layout", LAYOUT, allow_emulated=False)
    first = GpioLayout(config, print, gpio=gpio, scheduler=clock, reservations=reservations)
    used = r"GPIO pin 17 is already used by \[devices.layout\]"
    with pytest.raises(DeviceConfigError, match=used):
        GpioLayout(config, print, gpio=gpio, scheduler=clock, reservations=reservations)
    first.close()
    GpioLayout(config, print, gpio=gpio, scheduler=clock, reservations=reservations).close()


def test_commands_before_start_are_refused(gpio, clock):
    config = parse_device("layout", LAYOUT, allow_emulated=False)
    device = GpioLayout(config, print, gpio=gpio, scheduler=clock)
    with pytest.raises(DriverError, match="not started"):
        device.set_lamp("seat1.bet", LampMode.ON)
    device.close()


def test_real_rpi_gpio_off_a_pi_is_a_clear_device_error(tmp_path):
    # RPi.GPIO is not installed on this machine, or refuses to import off a Pi: either way
    # the driver reports which device and which setting, not an ImportError.
    with pytest.raises(DeviceUnavailableError, match=r"^\[devices.layout\] kind: 'gpio' needs"):
        load_rpi_gpio("layout", tmp_path / "no-model")


# ---------------------------------------------------------------- which library the board gets

PI5 = "Raspberry Pi 5 Model B Rev 1.0"
PI4 = "Raspberry Pi 4 Model B Rev 1.5"


def _fake_rpi_gpio(folder: Path, library: str) -> None:
    """An `RPi.GPIO` module in `folder` that says which library it stands for."""
    (folder / "RPi").mkdir(parents=True)
    (folder / "RPi/__init__.py").write_text("")
    (folder / "RPi/GPIO.py").write_text(f"LIBRARY = {library!r}\nBCM = 11\n")


def _rpi_names() -> list[str]:
    return [name for name in sys.modules if name == "RPi" or name.startswith("RPi.")]


@pytest.fixture
def board(tmp_path, monkeypatch) -> Iterator[Path]:
    """A venv at a fake `sys.prefix` and a site folder on `sys.path`, each with an RPi.GPIO.

    Yields the model file to write the board's name in. `sys.path` and the `RPi` modules
    are put back afterwards, so nothing imported here leaks into other tests.
    """
    venv = tmp_path / "venv"
    pi5_folder = venv / "lib/pi5-gpio"
    _fake_rpi_gpio(pi5_folder, "rpi-lgpio")
    site = tmp_path / "site-packages"
    _fake_rpi_gpio(site, "RPi.GPIO")
    monkeypatch.setattr(sys, "prefix", str(venv))
    monkeypatch.setattr(sys, "path", [str(site), *sys.path])
    saved = {name: sys.modules.pop(name) for name in _rpi_names()}
    importlib.invalidate_caches()
    yield tmp_path / "model"
    for name in _rpi_names():
        del sys.modules[name]
    sys.modules.update(saved)


def test_a_pi5_gets_rpi_lgpio_from_the_venvs_side_folder(board, caplog):
    board.write_text(PI5 + "\x00")  # the device tree's string ends in a NUL
    caplog.set_level(logging.INFO, logger="drivers.gpio")
    gpio = load_rpi_gpio("layout", board)
    folder = Path(sys.prefix) / "lib/pi5-gpio"
    assert gpio.LIBRARY == "rpi-lgpio"
    assert Path(gpio.__file__) == folder / "RPi/GPIO.py"
    assert sys.path[0] == str(folder)
    assert [r.getMessage() for r in caplog.records] == [
        f"layout: GPIO library rpi-lgpio from {folder} (board: {PI5!r}, a Raspberry Pi 5)"]
    assert load_rpi_gpio("layout", board) is gpio  # a second layout: same module
    assert sys.path.count(str(folder)) == 1


def test_a_pi4_gets_the_plain_import(board, caplog):
    board.write_text("Raspberry Pi 4 Model B Rev 1.5\x00")
    caplog.set_level(logging.INFO, logger="drivers.gpio")
    gpio = load_rpi_gpio("layout", board)
    assert gpio.LIBRARY == "RPi.GPIO"
    assert gpio is importlib.import_module("RPi.GPIO")
    assert str(Path(sys.prefix) / "lib/pi5-gpio") not in sys.path
    message = caplog.records[-1].getMessage()
    assert message.startswith("layout: GPIO library RPi.GPIO from ")
    assert message.endswith(f"(board: {PI4!r}, not a Raspberry Pi 5)")


def test_a_pi5_without_the_side_folder_is_one_line_naming_it_and_the_remedy(board):
    board.write_text(PI5)
    folder = Path(sys.prefix) / "lib/pi5-gpio"
    shutil.rmtree(folder)
    with pytest.raises(DeviceUnavailableError) as caught:
        load_rpi_gpio("layout", board)
    text = str(caught.value)
    assert text == (
        f"[devices.layout] kind: 'gpio' on a {PI5} needs rpi-lgpio from {folder}, which does "
        f"not exist: reinstall shoectl (`sudo systemd/install.sh`, which puts it there on "
        f"arm64) or run `{sys.prefix}/bin/python -m pip install --target {folder} "
        f"'rpi-lgpio>=0.6,<1'`")
    assert "RPi" not in sys.modules  # RPi.GPIO was not imported instead


def test_a_pi5_whose_side_folder_holds_no_rpi_gpio_is_refused_not_served_rpi_gpio(board):
    board.write_text(PI5)
    shutil.rmtree(Path(sys.prefix) / "lib/pi5-gpio/RPi")
    with pytest.raises(DeviceUnavailableError, match=(
            rf"^\[devices.layout\] kind: 'gpio' on a {PI5} needs rpi-lgpio from .*pi5-gpio, "
            r"which holds no RPi.GPIO \(it was imported from .*site-packages/RPi/GPIO.py "
            r"instead\): reinstall shoectl")) as caught:
        load_rpi_gpio("layout", board)
    assert len(str(caught.value).splitlines()) == 1


def test_rpi_lgpio_refusing_the_machine_is_one_line_without_a_reinstall_remedy(board):
    board.write_text(PI5)
    (Path(sys.prefix) / "lib/pi5-gpio/RPi/GPIO.py").write_text(
        "raise RuntimeError('This module can only be run on a Raspberry Pi!')\n")
    with pytest.raises(DeviceUnavailableError) as caught:
        load_rpi_gpio("layout", board)
    assert str(caught.value) == (
        f"[devices.layout] kind: 'gpio' on a {PI5} needs rpi-lgpio from "
        f"{Path(sys.prefix) / 'lib/pi5-gpio'}: This module can only be run on a Raspberry Pi!")


def test_rpi_already_imported_from_site_packages_on_a_pi5_is_said(board):
    importlib.import_module("RPi.GPIO")  # as if something imported it before the layout
    board.write_text(PI5)
    with pytest.raises(DeviceUnavailableError, match=(
            r"needs rpi-lgpio from .*pi5-gpio, but RPi was already imported from "
            r".*site-packages/RPi/__init__.py \(RPi.GPIO cannot drive a Pi 5's GPIO\)")):
        load_rpi_gpio("layout", board)


@pytest.mark.parametrize(("model", "expected"), [
    ("Raspberry Pi 5 Model B Rev 1.0\x00", True),
    ("Raspberry Pi 500 Rev 1.0\x00", True),
    ("Raspberry Pi Compute Module 5 Rev 1.0\x00", True),
    ("Raspberry Pi 4 Model B Rev 1.5\x00", False),
    ("Raspberry Pi Compute Module 4 Rev 1.0\x00", False),
    (None, False),  # no device tree: not a Pi
])
def test_the_board_is_read_from_the_device_tree_model(tmp_path, model, expected):
    model_file = tmp_path / "model"
    if model is not None:
        model_file.write_text(model, encoding="utf-8")
    assert board_model(model_file) == (model or "").rstrip("\x00")
    assert is_pi5(board_model(model_file)) is expected


def test_lgpios_own_error_at_set_up_is_one_line_naming_the_device(gpio, clock, monkeypatch):
    """rpi-lgpio on a Pi 5 lets lgpio's `error` (a plain Exception) through: a busy pin or a
    chip it may not open must still be the device's one line, not a traceback."""
    import types

    from drivers.errors import DeviceUnavailableError

    lgpio = types.ModuleType("lgpio")

    class error(Exception):  # noqa: N801, N818 (lgpio's own name)
        pass

    lgpio.error = error  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lgpio", lgpio)

    def busy(*args, **kwargs):
        raise error("GPIO busy")

    monkeypatch.setattr(gpio, "setup", busy)
    config = parse_device("layout", LAYOUT, allow_emulated=False)
    device = GpioLayout(config, [].append, gpio=gpio, scheduler=clock)
    with pytest.raises(DeviceUnavailableError) as caught:
        device.start()
    assert str(caught.value).endswith("kind: GPIO set-up failed: GPIO busy")
    assert "layout" in str(caught.value)
    device.close()


def test_lgpio_makes_its_pipes_in_the_runtime_folder_not_the_working_one(board, monkeypatch):
    """lgpio makes `.lgd-nfy*` pipes where LG_WD says, else in the working folder, which
    on a card sealed read-only may refuse the write: a Pi 5 points it at a writable one."""
    monkeypatch.delenv("LG_WD", raising=False)
    monkeypatch.setenv("RUNTIME_DIRECTORY", "/run/shoectl")
    board.write_text(PI4)
    load_rpi_gpio("layout", board)
    assert "LG_WD" not in os.environ  # RPi.GPIO has no pipes
    for name in _rpi_names():
        sys.modules.pop(name)
    board.write_text(PI5)
    load_rpi_gpio("layout", board)
    assert os.environ["LG_WD"] == "/run/shoectl"
    monkeypatch.setenv("LG_WD", "/srv/lg")  # an engineer's own choice is kept
    load_rpi_gpio("layout", board)
    assert os.environ["LG_WD"] == "/srv/lg"
    monkeypatch.delenv("RUNTIME_DIRECTORY")  # a command run by hand, not the service
    assert lgpio_workdir() == tempfile.gettempdir()
