"""`shoectl emulate`: a separate process a running controller can be pointed at."""

import subprocess
import sys
from pathlib import Path

from drivers.board import LinkOptions, link_timing, table_catalogue
from drivers.config import DevicesConfig, parse_device
from drivers.events import (
    BetSensorChanged,
    ButtonPressed,
    CardDrawn,
    KeySwitchTurned,
    LinkUp,
    ShoeFault,
    ShoeFaultKind,
)
from drivers.registry import build_devices
from drivers.shoe import BridgeShoe

from .conftest import Recorder


def test_emulate_shoe_prints_its_port_and_deals_on_command(tmp_path: Path):
    script = tmp_path / "shoe.txt"
    script.write_text("AS KH 7D\n")
    with subprocess.Popen(
        [sys.executable, "-m", "controller", "emulate", "shoe", "--shoe-file", str(script),
         "--link-dir", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    ) as process:
        try:
            talk_to(process, tmp_path)
        finally:
            process.kill()


def talk_to(process: subprocess.Popen, tmp_path: Path) -> None:
    assert process.stdout is not None
    assert process.stdin is not None
    path = process.stdout.readline().strip()
    assert path == str(tmp_path / "shoe")
    recorder = Recorder()
    link = LinkOptions(path, table_catalogue(), link_timing(750),
                       firmware_versions=frozenset({"emulated-1.0"}),
                       key_file=tmp_path / "shoe.key")  # the key the emulator made
    shoe = BridgeShoe("shoe", link, recorder)
    shoe.start()
    recorder.wait_for(LinkUp)
    process.stdin.write("draw 3\n")
    process.stdin.flush()
    assert process.stdout.readline().strip() == "3 drawn, 0 left"
    drawn = recorder.wait_for(CardDrawn, 3)
    assert [card.code for card in drawn] == ["AS", "KH", "7D"]
    process.stdin.write("restart\n")  # a power cut: the driver sees a new boot
    process.stdin.flush()
    assert process.stdout.readline().strip() == "ok"
    (restarted,) = [fault for fault in recorder.wait_for(ShoeFault, 2)  # shoe_empty first
                    if fault.kind is ShoeFaultKind.RESTARTED]
    assert restarted.count == 3
    shoe.close()
    process.stdin.write("quit\n")
    process.stdin.flush()
    assert process.wait(timeout=10) == 0


def test_emulate_layout_takes_the_documented_commands(tmp_path: Path):
    # drivers/DEVICES.md, "shoectl emulate": chip N, unchip N, press N, key POSITION, lamps.
    with subprocess.Popen(
        [sys.executable, "-m", "controller", "emulate", "layout", "--link-dir", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    ) as process:
        try:
            drive_layout(process, tmp_path)
        finally:
            process.kill()


def drive_layout(process: subprocess.Popen, tmp_path: Path) -> None:
    assert process.stdout is not None
    assert process.stdin is not None
    path = process.stdout.readline().strip()
    config = parse_device("layout", {"kind": "serial", "url": path,
                                     "key_file": str(tmp_path / "layout.key"),
                                     "firmware": ["emulated-1.0"],
                                     "lamps": {"fault": 0, "seat1": 1},
                                     "bet_sensors": {"seat3": 3}, "buttons": {"deal": 0}},
                          allow_emulated=False)
    recorder = Recorder()
    devices = build_devices(DevicesConfig(layout=config), recorder, allow_emulated=False)
    devices.start()
    try:
        recorder.wait_for(LinkUp)
        (start,) = recorder.wait_for(BetSensorChanged)  # every spot as it is when the link comes up
        assert (start.sensor, start.occupied) == ("seat3", False)
        recorder.clear()
        replies = []
        for command in ("chip 3", "press 0", "key supervisor", "unchip 3", "key normal",
                        "lamps"):
            process.stdin.write(command + "\n")
            process.stdin.flush()
            replies.append(process.stdout.readline().strip())
        sensors = recorder.wait_for(BetSensorChanged, 2)
        (pressed,) = recorder.wait_for(ButtonPressed)
        keys = recorder.wait_for(KeySwitchTurned, 2)
    finally:
        devices.close()
    assert replies[:5] == ["ok"] * 5
    assert replies[5] == " ".join(f"{n}:off" for n in range(8))  # lamp id:shown mode, 0-7
    assert [(s.sensor, s.occupied) for s in sensors] == [("seat3", True), ("seat3", False)]
    assert pressed.button == "deal"
    assert [k.position for k in keys] == ["supervisor", "normal"]
    process.stdin.write("quit\n")
    process.stdin.flush()
    assert process.wait(timeout=10) == 0


def test_lamps_shows_named_lamps_and_any_other_that_is_lit(tmp_path: Path):
    from drivers.emulated.cli import ChannelNames, _layout_commands
    from drivers.emulated.layout import LayoutEmulator

    with LayoutEmulator(link_dir=tmp_path) as layout:
        layout.pattern = "none"  # as after the host's set-up: each lamp shows its own mode
        layout.modes[9], layout.modes[3] = "on", "blink_slow"
        unnamed = _layout_commands(layout, ChannelNames())["lamps"]([])
        named = _layout_commands(layout, ChannelNames({"blackjack": 8, "fault": 10}, {}, {}))
        assert unnamed == " ".join([*(f"{n}:off" for n in range(3)), "3:blink_slow",
                                    *(f"{n}:off" for n in range(4, 8)), "9:on"])
        assert named["lamps"]([]) == "blackjack:off fault:off 3:blink_slow 9:on"
