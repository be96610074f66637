"""The wheel's result feed at the byte level: the real serial driver, pyserial and a real pty,
against the byte-level wheel emulator (drivers/emulated/wheel.py).

The emulator's hard games (warning flags that end in a normal game, misfire and no-ball
voids, a dropped winning-number line, a stuck sensor with the wheel powering down mid-game,
lines run together after a stall, LF CR line ends, echoes, the table closed between games)
must be read exactly as its game plan says: one result per game with the right number and
the wheel's own game number, the voids, the warnings, nothing more. A recording replayed
byte for byte must read the same. No test here measures time: waits are for facts.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from drivers.config import WheelConfig, parse_device
from drivers.emulated.wheel import SCENARIOS, WheelEmulator, WheelPlay
from drivers.errors import DeviceConfigError, DeviceUnavailableError
from drivers.events import (
    DeviceFault,
    LinkDown,
    LinkUp,
    WheelResult,
    WheelStatus,
    WheelVoid,
    WheelWarning,
)
from drivers.registry import BuildOptions, build_devices
from drivers.wheel import SerialWheel
from tests.support.timing import ManualScheduler

pytestmark = pytest.mark.needs("emulated")
WAIT_S = 30.0


class Facts:
    """A thread-safe sink that keeps every fact."""

    def __init__(self) -> None:
        self.facts: list[Any] = []
        self._changed = threading.Condition()

    def __call__(self, fact: Any) -> None:
        with self._changed:
            self.facts.append(fact)
            self._changed.notify_all()

    def of(self, kind: type) -> list[Any]:
        with self._changed:
            return [f for f in self.facts if isinstance(f, kind)]

    def wait_for(self, kind: type, count: int = 1) -> list[Any]:
        with self._changed:
            self._changed.wait_for(lambda: len([f for f in self.facts
                                                if isinstance(f, kind)]) >= count, WAIT_S)
        found = self.of(kind)
        assert len(found) >= count, f"{len(found)} of {count} {kind.__name__}: {self.facts}"
        return found

    def spins(self) -> list[tuple[int, str | None, bool, tuple[str, ...]]]:
        """Each game the driver decided or voided, with the warnings it gave it."""
        warnings: dict[int, list[str]] = defaultdict(list)
        spins = []
        for fact in list(self.facts):
            if isinstance(fact, WheelWarning):
                warnings[fact.game].append(fact.warning)
            elif isinstance(fact, WheelResult | WheelVoid):
                number = fact.number if isinstance(fact, WheelResult) else None
                spins.append((fact.game, number, number is None,
                              tuple(warnings.pop(fact.game, []))))
        return spins


def emulated(tmp_path: Path, sink: Facts, **emulation: Any) -> Any:
    section = {"wheel": {"kind": "emulated", "pace_ms": 0, **emulation}}
    devices = build_devices(section, sink, allow_emulated=True,
                            options=BuildOptions(workdir=tmp_path))
    devices.start()
    return devices


def play_out(emulator: WheelEmulator, wheel: Any) -> None:
    """Every step, each read before the next (as the simulation sends them)."""
    while emulator.send_step():
        assert wheel.wait_handled(emulator.sent, WAIT_S)
    assert emulator.stats()["dropped"] == 0


def expected(emulator: WheelEmulator) -> list[tuple[int, str | None, bool, tuple[str, ...]]]:
    return [(e.game, e.number, e.void, e.warnings) for e in emulator.expected]


@pytest.mark.parametrize(("seed", "pockets"), [(1, 38), (2, 37), (3, 38)])
def test_the_hard_games_are_read_exactly(tmp_path: Path, seed: int, pockets: int) -> None:
    sink = Facts()
    devices = emulated(tmp_path, sink, seed=seed, pockets=pockets, spins=120)
    try:
        emulator, wheel = devices.emulators["wheel"], devices.wheel
        play_out(emulator, wheel)
        assert sink.spins() == expected(emulator)
        assert len(expected(emulator)) == 120
        assert sink.of(DeviceFault) == []
        assert wheel.bytes_handled == emulator.sent
        statuses = [(s.state, s.game, s.flags) for s in sink.of(WheelStatus)]
        assert all(a != b for a, b in itertools.pairwise(statuses))  # no repeat
        pocket_names = {"0", *map(str, range(1, 37)), *(["00"] if pockets == 38 else [])}
        assert {r.number for r in sink.of(WheelResult)} <= pocket_names
    finally:
        devices.close()


def test_every_hard_game_is_among_those_read(tmp_path: Path) -> None:
    sink = Facts()
    devices = emulated(tmp_path, sink, seed=11, spins=400)
    try:
        emulator = devices.emulators["wheel"]
        play_out(emulator, devices.wheel)
        assert sink.spins() == expected(emulator)
        assert {e.scenario for e in emulator.expected} == {name for name, _ in SCENARIOS}
        voids = [e for e in emulator.expected if e.void]
        assert {e.scenario for e in voids} == {"misfire", "no_ball", "stuck_sensor"}
    finally:
        devices.close()


def test_a_recording_is_replayed_byte_for_byte_and_reads_the_same(tmp_path: Path) -> None:
    play = WheelPlay(seed=5, spins=60)
    recording = tmp_path / "wheel.bin"
    recording.write_bytes(b"".join(play.lines()))
    sink = Facts()
    devices = emulated(tmp_path, sink, replay=str(recording))
    try:
        emulator = devices.emulators["wheel"]
        play_out(emulator, devices.wheel)
        assert emulator.sent == recording.stat().st_size
        assert sink.spins() == [(e.game, e.number, e.void, e.warnings) for e in play.expected]
    finally:
        devices.close()


def test_the_serial_kind_reads_a_wheel_at_9600_8n1(tmp_path: Path) -> None:
    play = WheelPlay(seed=8, spins=20)
    with WheelEmulator(play.lines(), link_dir=tmp_path, name="wheel", play=play) as emulator:
        config = parse_device("wheel", {"kind": "serial", "url": emulator.path, "baud": 9600,
                                        "bytesize": 8, "parity": "none", "stopbits": 1},
                              allow_emulated=False)
        assert isinstance(config, WheelConfig)
        sink = Facts()
        wheel = SerialWheel(config, sink)
        wheel.start()
        try:
            assert not wheel.emulated
            play_out(emulator, wheel)
            assert sink.spins() == expected(emulator)
            assert sink.of(LinkUp)[0].detail == f"reading {emulator.path}"
        finally:
            wheel.close()


def test_link_up_with_the_first_line_and_down_after_silence(tmp_path: Path) -> None:
    clock = ManualScheduler()
    play = WheelPlay(seed=1, spins=2)
    with WheelEmulator(play.lines(), link_dir=tmp_path, play=play) as emulator:
        sink = Facts()
        config = WheelConfig("wheel", "serial", emulator.path, timeout_ms=2000)
        wheel = SerialWheel(config, sink, scheduler=clock)
        wheel.start()
        try:
            assert not wheel.link_up
            clock.advance(5.0)
            assert sink.of(LinkDown) == []  # never up: nothing to go down
            emulator.send_step()
            sink.wait_for(LinkUp)
            clock.advance(1.9)
            assert wheel.link_up
            clock.advance(0.6)
            (down,) = sink.wait_for(LinkDown)
            assert down.reason == "no line from the wheel for 2000 ms"
            emulator.send_step()
            assert len(sink.wait_for(LinkUp, 2)) == 2
        finally:
            wheel.close()


def test_a_pulled_cable_is_down_and_the_driver_reopens_the_port(tmp_path: Path) -> None:
    play = WheelPlay(seed=4, spins=10, faults=False)
    with WheelEmulator(play.lines(), link_dir=tmp_path, play=play) as emulator:
        sink = Facts()
        wheel = SerialWheel(WheelConfig("wheel", "serial", emulator.path), sink)
        wheel.start()
        try:
            for _ in range(20):
                emulator.send_step()
            sink.wait_for(LinkUp)
            emulator.unplug()
            (down,) = sink.wait_for(LinkDown)
            assert down.reason.startswith("the port failed")
            emulator.replug()
            results = len(sink.of(WheelResult))
            for _ in range(40):  # the port reopens by itself; lines sent meanwhile are lost
                emulator.send_step()
                if len(sink.of(LinkUp)) == 2:
                    break
                threading.Event().wait(0.2)
            sink.wait_for(LinkUp, 2)
            while emulator.send_step():
                pass
            sink.wait_for(WheelResult, results + 1)
        finally:
            wheel.close()


def test_garbage_is_one_log_line_naming_the_device_and_a_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    sink = Facts()
    devices = emulated(tmp_path, sink, seed=1, spins=1, faults=False)
    try:
        emulator, wheel = devices.emulators["wheel"], devices.wheel
        for _ in range(6):
            emulator.send_step()
        with caplog.at_level(logging.WARNING, logger="drivers.wheel"):
            emulator.send_raw(b"\x13\x37*X;4;0*X;;\r\n")
            assert wheel.wait_handled(emulator.sent, WAIT_S)
        lines = [r.getMessage() for r in caplog.records if r.name == "drivers.wheel"]
        assert len(lines) == 1
        assert lines[0].startswith("wheel: dropped a line that fits no grammar: ")
        assert [w.warning for w in sink.of(WheelWarning)] == ["garbled_line"]
        play_out(emulator, wheel)
        assert [r.number for r in sink.of(WheelResult)] == [e.number for e in emulator.expected]
    finally:
        devices.close()


def test_a_real_wheel_that_is_not_there_is_named_at_start(tmp_path: Path) -> None:
    config = parse_device("wheel", {"kind": "serial", "url": str(tmp_path / "no-wheel")},
                          allow_emulated=False)
    assert isinstance(config, WheelConfig)
    with pytest.raises(DeviceUnavailableError, match=r"^\[devices.wheel\] url: cannot open "):
        SerialWheel(config, Facts()).start()


def test_a_second_program_on_the_wheel_port_is_refused(tmp_path: Path) -> None:
    play = WheelPlay(seed=2, spins=1)
    with WheelEmulator(play.lines(), link_dir=tmp_path, play=play) as emulator:
        config = WheelConfig("wheel", "serial", emulator.path)
        first = SerialWheel(config, Facts())
        first.start()
        try:
            with pytest.raises(DeviceUnavailableError,
                               match=r"^\[devices.wheel\] url: .* is in use by this process"):
                SerialWheel(config, Facts()).start()
        finally:
            first.close()
        second = SerialWheel(config, Facts())
        second.start()  # the port is free once the first has closed it
        second.close()


def test_an_emulated_wheel_needs_the_explicit_flag() -> None:
    with pytest.raises(DeviceConfigError,
                       match=r"\[devices.wheel\] kind: 'emulated' needs the explicit "
                             r"--allow-emulated flag"):
        build_devices({"wheel": {"kind": "emulated"}}, Facts(), allow_emulated=False)


def test_a_recording_that_cannot_be_read_is_named(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    recording = tmp_path / "wheel.bin"
    recording.write_bytes(b"*X;6;000;  ;0;000;0\r\n")

    def refuse(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(DeviceConfigError, match=r"^\[devices.wheel\] replay: cannot read .*"
                                                r"wheel.bin: Permission denied$"):
        build_devices({"wheel": {"kind": "emulated", "replay": str(recording)}}, Facts(),
                      allow_emulated=True, options=BuildOptions(workdir=tmp_path))
