"""`shoectl emulate wheel`: the wheel's result feed on a pty, as a process of its own."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import serial

from drivers.config import WheelConfig
from drivers.emulated.wheel import WheelPlay
from drivers.events import WheelPhase, WheelResult, WheelStatus, WheelVoid
from drivers.wheel import SerialWheel

from .conftest import Recorder


def emulate(tmp_path: Path, *options: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller", "emulate", "wheel", "--link-dir", str(tmp_path),
         "--pace", "0", *options],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def command(process: subprocess.Popen[str], line: str) -> str:
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(line + "\n")
    process.stdin.flush()
    return process.stdout.readline().strip()


def test_the_seeded_wheel_is_read_by_the_driver_as_planned(tmp_path: Path) -> None:
    with emulate(tmp_path, "--seed", "3", "--spins", "6") as process:
        try:
            assert process.stdout is not None
            path = process.stdout.readline().strip()
            assert path == str(tmp_path / "wheel")
            recorder = Recorder()
            wheel = SerialWheel(WheelConfig("wheel", "serial", path), recorder)
            wheel.start()
            assert command(process, "step 10000").endswith("; the stream is finished")
            play = WheelPlay(3, spins=6)
            list(play.lines())
            decided = recorder.wait_for(WheelResult, sum(not e.void for e in play.expected))
            voids = recorder.of(WheelVoid)
            assert [r.number for r in decided] == [e.number for e in play.expected
                                                   if not e.void]
            assert [v.game for v in voids] == [e.game for e in play.expected if e.void]
            wheel.close()
            assert command(process, "stats").startswith("{'sent': ")
            assert command(process, "quit") == ""
            assert process.wait(timeout=10) == 0
        finally:
            process.kill()


def test_a_user_start_wheel_plays_each_game_when_the_host_launches_it(tmp_path: Path) -> None:
    with subprocess.Popen(
            [sys.executable, "-m", "controller", "emulate", "wheel", "--link-dir", str(tmp_path),
             "--pace", "0.01", "--launch", "host", "--no-faults", "--spins", "1", "--seed", "2"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True) as process:
        try:
            assert process.stdout is not None
            path = process.stdout.readline().strip()
            recorder = Recorder()
            wheel = SerialWheel(WheelConfig("wheel", "serial", path, launch="host"), recorder)
            wheel.start()
            held = threading.Event()
            for _ in range(3000):  # a limit for a stuck emulator, not a speed
                if any(f.phase is WheelPhase.PLACE_BETS for f in recorder.of(WheelStatus)):
                    break
                held.wait(0.01)
            assert [f.game for f in recorder.of(WheelStatus)
                    if f.phase is WheelPhase.PLACE_BETS] == [1]
            wheel.launch()
            (decided,) = recorder.wait_for(WheelResult, 1, timeout=30)
            assert decided.game == 1
            wheel.close()
            assert command(process, "quit") == ""
            assert process.wait(timeout=10) == 0
        finally:
            process.kill()


def test_a_replay_is_put_on_the_pty_byte_for_byte(tmp_path: Path) -> None:
    recording = tmp_path / "recorded.bin"
    data = b"".join(WheelPlay(seed=1, spins=3).lines()) + b"*X;4;0"  # a cut-off last line
    recording.write_bytes(data)
    with emulate(tmp_path, "--replay", str(recording)) as process:
        try:
            assert process.stdout is not None
            path = process.stdout.readline().strip()
            port = serial.Serial(path, 9600, timeout=0.5)
            received = bytearray()

            def read_all() -> None:
                for _ in range(120):  # at most a minute of half-second reads
                    received.extend(port.read(len(data) - len(received)))
                    if len(received) >= len(data):
                        return

            reader = threading.Thread(target=read_all)
            reader.start()
            assert command(process, "step 100000").endswith("; the stream is finished")
            reader.join(30)
            port.close()
            assert bytes(received) == data
        finally:
            process.kill()


def test_a_replay_that_is_not_there_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "controller", "emulate", "wheel", "--replay",
                           str(tmp_path / "none.bin")], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr == f"shoectl emulate: --replay {tmp_path / 'none.bin'}: no such file\n"
