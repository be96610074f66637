"""Harnesses for the contract suites: each interface's implementations behind one stimulus API.

Every harness exposes the device under test plus the few stimulus/observation verbs its
contract needs, so one suite runs against the in-process fake, the real driver on a
byte-level emulator behind a real pty (and USB backend), and the GPIO driver on the emulated
RPi.GPIO module: the gpiozero/transitions technique.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from drivers.config import parse_device
from drivers.emulated.gpio import EmulatedGpio
from drivers.emulated.shoe_model import ShoeContents
from drivers.events import BetSensorChanged, DriverEvent
from drivers.gpio import GpioLayout
from drivers.registry import BuildOptions, build_devices
from firmware_bridge import LinkTiming
from tests.support.fakes import FakeLayout, FakeShoe, FakeSign
from tests.support.timing import ManualScheduler

FAST = LinkTiming(retransmit_timeout=0.01, max_retransmit_timeout=0.08)


class Recorder:
    """A thread-safe event sink with waiting."""

    def __init__(self) -> None:
        self.events: list[DriverEvent] = []
        self._changed = threading.Condition()

    def __call__(self, event: DriverEvent) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    def clear(self) -> None:
        """Forget the events recorded so far."""
        with self._changed:
            self.events.clear()

    def of(self, kind: type) -> list[Any]:
        with self._changed:
            return [event for event in self.events if isinstance(event, kind)]

    def wait_for(self, kind: type, count: int = 1, timeout: float = 5.0) -> list[Any]:
        with self._changed:
            self._changed.wait_for(lambda: len(self.of(kind)) >= count, timeout)
        found = self.of(kind)
        assert len(found) >= count, f"{len(found)} of {count} {kind.__name__}: {self.events}"
        return found


# ---------------------------------------------------------------- shoe


class ShoeHarness:
    def __init__(self, device: Any, recorder: Recorder, load: Callable[[list[str]], None],
                 draw: Callable[[bool], None], close: Callable[[], None]) -> None:
        self.device, self.recorder = device, recorder
        self.load, self.draw, self._close = load, draw, close


def _fake_shoe(recorder: Recorder, tmp_path: Path) -> ShoeHarness:
    shoe = FakeShoe("shoe", recorder)
    codes: list[str] = []

    def load(new: list[str]) -> None:
        codes[:] = new
        shoe.load()

    def draw(unreadable: bool) -> None:
        code = codes.pop(0)
        shoe.draw(None if unreadable else code)

    return ShoeHarness(shoe, recorder, load, draw, lambda: None)


def _emulated_shoe(transport: str) -> Callable[[Recorder, Path], ShoeHarness]:
    def build(recorder: Recorder, tmp_path: Path) -> ShoeHarness:
        section = {"shoe": {"kind": "emulated", "transport": transport, "script": []}}
        devices = build_devices(section, recorder, allow_emulated=True,
                                options=BuildOptions(timing=FAST, workdir=tmp_path))
        emulator = devices.emulators["shoe"]

        def draw(unreadable: bool) -> None:
            if unreadable:
                emulator.unreadable_next()
            emulator.draw()

        return ShoeHarness(devices.shoe, recorder,
                           lambda codes: emulator.load(ShoeContents.scripted(codes)), draw,
                           devices.close)
    return build


SHOES = {"fake": _fake_shoe, "emulated-pty": _emulated_shoe("serial"),
         "emulated-usb": _emulated_shoe("usb")}


@pytest.fixture(params=sorted(SHOES))
def shoe_harness(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ShoeHarness]:
    harness = SHOES[request.param](Recorder(), tmp_path)
    yield harness
    harness.device.close()
    harness._close()


# ---------------------------------------------------------------- layout

LAMPS = ("seat1.bet", "no_more_bets")
GPIO_LAYOUT = {"kind": "emulated-gpio", "lamps": {"seat1": {"bet": 17}, "no_more_bets": 27},
               "bet_sensors": {"seat1": 5}, "buttons": {"deal": 13},
               "key_switches": {"supervisor": 19, "reset": 26}, "debounce_ms": 10}
BOARD_LAYOUT = {"kind": "emulated", "lamps": {"seat1": {"bet": 1}, "no_more_bets": 2},
                "bet_sensors": {"seat1": 4}, "buttons": {"deal": 3}}


class LayoutHarness:
    """`lamp(name)` -> "off" | "on" | "flash"; `chip`, `press`, `key` stimuli; `settle()`."""

    def __init__(self, device: Any, recorder: Recorder) -> None:
        self.device, self.recorder = device, recorder
        self.started: list[BetSensorChanged] = []
        """What the device reported of its bet sensors when it started."""

    def settle(self) -> None:
        """Let the stimulus take effect (debounce time, board round trip)."""

    def close(self) -> None:
        self.device.close()


class FakeLayoutHarness(LayoutHarness):
    def lamp(self, name: str) -> str:
        return self.device.lamps[name].value

    def chip(self, on: bool) -> None:
        (self.device.place_chip if on else self.device.remove_chip)("seat1")

    def press(self) -> None:
        self.device.press("deal")

    def key(self, position: str) -> None:
        self.device.turn_key(position)


class GpioLayoutHarness(LayoutHarness):
    def __init__(self, recorder: Recorder) -> None:
        self.clock = ManualScheduler()
        self.gpio = EmulatedGpio(self.clock)
        config = parse_device("layout", GPIO_LAYOUT, allow_emulated=True)
        super().__init__(GpioLayout(config, recorder, gpio=self.gpio, scheduler=self.clock),
                         recorder)
        self.pins = dict(config.lamps)

    def lamp(self, name: str) -> str:
        history = [level for _, level in self.gpio.history(self.pins[name])]
        self.clock.advance(2.0)  # a flashing lamp toggles; a steady one does not
        after = [level for _, level in self.gpio.history(self.pins[name])]
        if len(after) > len(history) + 1:
            return "flash"
        return "on" if after[-1] else "off"

    def chip(self, on: bool) -> None:
        self.gpio.drive(5, not on)  # pulled up, active low

    def press(self) -> None:
        self.gpio.drive(13, 0)
        self.clock.advance(0.05)
        self.gpio.drive(13, 1)

    def key(self, position: str) -> None:
        self.gpio.drive(19, position != "supervisor")
        self.gpio.drive(26, position != "reset")

    def settle(self) -> None:
        self.clock.advance(0.05)


class BoardLayoutHarness(LayoutHarness):
    MODES: ClassVar[dict[str, str]] = {"off": "off", "on": "on", "blink_slow": "flash"}

    def __init__(self, recorder: Recorder, tmp_path: Path) -> None:
        self.devices = build_devices({"layout": BOARD_LAYOUT}, recorder, allow_emulated=True,
                                     options=BuildOptions(timing=FAST, workdir=tmp_path))
        self.emulator = self.devices.emulators["layout"]
        super().__init__(self.devices.layout, recorder)

    def lamp(self, name: str) -> str:
        lamp_id = BOARD_LAYOUT["lamps"]["seat1"]["bet"] if name == "seat1.bet" else 2
        delivered(self.device, self.emulator)
        return self.MODES[self.emulator.lamp(lamp_id)]

    def chip(self, on: bool) -> None:
        (self.emulator.place_chip if on else self.emulator.remove_chip)(4)

    def press(self) -> None:
        self.emulator.click(3)

    def key(self, position: str) -> None:
        self.emulator.turn_key(position)

    def close(self) -> None:
        self.devices.close()


def delivered(device: Any, emulator: Any) -> None:
    """Wait until the board has acknowledged (so handled) every command the host sent."""
    def idle() -> bool:
        stats = device.connection.stats()
        return stats is not None and stats.link.in_flight == 0 and stats.link.queued == 0

    assert emulator.wait_until(idle, 2.0), "the board did not acknowledge the commands"


LAYOUT_KINDS = ("fake", "emulated-gpio", "emulated-board")


def unstarted_layout(kind: str, tmp_path: Path) -> LayoutHarness:
    """A layout harness of `kind` (one of `LAYOUT_KINDS`) whose device is not started."""
    recorder = Recorder()
    if kind == "fake":
        config = parse_device("layout", {**GPIO_LAYOUT, "kind": "emulated-gpio"},
                              allow_emulated=True)
        return FakeLayoutHarness(FakeLayout(config, recorder), recorder)
    if kind == "emulated-gpio":
        return GpioLayoutHarness(recorder)
    return BoardLayoutHarness(recorder, tmp_path)


@pytest.fixture(params=LAYOUT_KINDS)
def layout_harness(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LayoutHarness]:
    harness = unstarted_layout(request.param, tmp_path)
    harness.device.start()
    harness.settle()
    harness.started = harness.recorder.wait_for(BetSensorChanged, 1)
    harness.recorder.clear()  # the contract's tests each see what their stimulus reports
    yield harness
    harness.close()


# ---------------------------------------------------------------- sign


class SignHarness:
    def __init__(self, device: Any, recorder: Recorder, shown: Callable[[], list[tuple]],
                 silence: Callable[[], None], close: Callable[[], None]) -> None:
        self.device, self.recorder = device, recorder
        self.shown, self.silence, self._close = shown, silence, close


def _fake_sign(recorder: Recorder, tmp_path: Path) -> SignHarness:
    sign = FakeSign("sign", recorder)

    def shown() -> list[tuple]:
        # The fake records the hold time too; the emulated sign's display does not show it.
        return [(what, *fields[:2]) for _, what, fields in sign.shown]

    return SignHarness(sign, recorder, shown, sign.go_silent, lambda: None)


def _emulated_sign(recorder: Recorder, tmp_path: Path) -> SignHarness:
    devices = build_devices({"sign": {"kind": "emulated", "timeout_ms": 300}}, recorder,
                            allow_emulated=True,
                            options=BuildOptions(timing=FAST, workdir=tmp_path))
    emulator = devices.emulators["sign"]
    names = {"amount": "amount", "win": "win", "fault": "fault"}

    def shown() -> list[tuple]:
        delivered(devices.sign, emulator)
        entries = [entry for entry in emulator.log if entry[1] in names]
        result: list[tuple] = []
        for _, mode, amount, text in entries:
            if mode == "amount" and not text:
                result.append(("amount", amount))
            elif mode == "win":
                result.append(("win", int(text.rsplit(" ", 1)[-1]), amount))
            else:
                result.append(("fault", text))
        return result

    return SignHarness(devices.sign, recorder, shown, emulator.go_silent, devices.close)


SIGNS = {"fake": _fake_sign, "emulated-pty": _emulated_sign}


@pytest.fixture(params=sorted(SIGNS))
def sign_harness(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SignHarness]:
    harness = SIGNS[request.param](Recorder(), tmp_path)
    harness.device.start()
    yield harness
    harness.device.close()
    harness._close()

