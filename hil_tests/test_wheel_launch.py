"""A wheel in user-start mode (`launch = "host"`), at the byte level: the real serial driver
writes the start command `*u 1` on a real pty and the wheel emulator, which holds each game in
place your bets until it reads one, answers `*u OK` and plays the game out.

No test here measures time: the emulator's pace is short, and every wait is for a fact.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import serial

from drivers.config import WheelConfig, WheelEmulation, parse_device
from drivers.emulated.wheel import WheelEmulator, WheelPlay
from drivers.errors import DeviceConfigError
from drivers.events import WheelPhase, WheelResult, WheelStatus
from drivers.wheel import SerialWheel

from .test_wheel import WAIT_S, Facts

pytestmark = pytest.mark.needs("emulated")


def wait_until(what: str, check: Any) -> None:
    done = threading.Event()
    for _ in range(int(WAIT_S / 0.01)):
        if check():
            return
        done.wait(0.01)
    pytest.fail(f"not within {WAIT_S} s: {what}")


def test_a_host_launched_wheel_waits_in_place_your_bets_until_the_driver_launches(
        tmp_path: Path) -> None:
    emulation = WheelEmulation(seed=3, pace_ms=5, faults=False, nmb_lines=3, spins=2,
                               bets_lines=2, wait_lines=1)
    emulator = WheelEmulator.from_config(emulation, link_dir=tmp_path, launch_by_host=True)
    config = parse_device("wheel", {"kind": "serial", "url": "placeholder", "launch": "host"},
                          allow_emulated=False)
    assert isinstance(config, WheelConfig)
    sink = Facts()
    with emulator:
        wheel = SerialWheel(config, sink, url=emulator.path)
        wheel.start()
        try:
            wait_until("game 1 waits for its launch", lambda: emulator.awaiting_launch)
            held_from = emulator.lines_sent
            wait_until("20 more lines", lambda: emulator.lines_sent >= held_from + 20)
            phases = [(f.phase, f.game) for f in sink.of(WheelStatus)]
            assert phases[-1] == (WheelPhase.PLACE_BETS, 1)  # held: no ball in the rim yet
            assert sink.of(WheelResult) == []
            wheel.launch()
            (first,) = sink.wait_for(WheelResult)
            wait_until("the plan's first game", lambda: emulator.expected)
            assert (first.game, first.number) == (1, emulator.expected[0].number)
            wait_until("game 2 waits for its launch", lambda: emulator.awaiting_launch)
            assert len(sink.of(WheelResult)) == 1
            wheel.launch()
            sink.wait_for(WheelResult, 2)
            assert emulator.launches == 2
        finally:
            wheel.close()


def test_the_wheel_answers_a_start_command_with_ok_only_when_a_game_waits(
        tmp_path: Path) -> None:
    play = WheelPlay(seed=1, spins=1, faults=False, launch_by_host=True)
    with WheelEmulator(play.lines(), link_dir=tmp_path, play=play) as emulator, \
            serial.serial_for_url(emulator.path, timeout=WAIT_S) as port:
        port.write(b"*u 1\r\n")  # nothing is waiting: the wheel is not paced
        assert port.readline() == b"*u NO\r\n"
        port.write(b"*K\r\n*S\r\n")  # *S is not a start command: ignored
        assert port.readline() == b"*K NO\r\n"
        assert emulator.launches == 0


def test_an_arcade_wheel_is_never_sent_a_launch(tmp_path: Path) -> None:
    config = WheelConfig("wheel", "serial", str(tmp_path / "no-port"))
    wheel = SerialWheel(config, Facts())
    with pytest.raises(DeviceConfigError, match=r"\[devices.wheel\] launch: the wheel "
                                                r"launches each game itself"):
        wheel.launch()
