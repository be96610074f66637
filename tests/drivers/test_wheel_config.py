"""`[devices.wheel]`: every key checked, one line naming the section and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.config import LineSettings, WheelConfig, WheelEmulation, parse_device, parse_devices
from drivers.errors import DeviceConfigError


def test_a_real_wheel_defaults_to_9600_8n1_without_flow_control() -> None:
    config = parse_device("wheel", {"kind": "serial", "url": "/dev/roulette-wheel"},
                          allow_emulated=False)
    assert config == WheelConfig("wheel", "serial", "/dev/roulette-wheel", LineSettings(),
                                 timeout_ms=3000, number_line=True, no_ball_lines=10,
                                 dialect="ss2", emulation=None)
    assert LineSettings() == LineSettings(9600, 8, "none", 1, "none")


def test_every_serial_setting_is_read() -> None:
    config = parse_device("wheel", {"kind": "serial", "url": "spy:///dev/ttyS1", "baud": 115200,
                                    "bytesize": 7, "parity": "even", "stopbits": 2,
                                    "flow": "rtscts", "timeout_ms": 1500,
                                    "number_line": False, "no_ball_lines": 20,
                                    "dialect": "mercury"}, allow_emulated=False)
    assert isinstance(config, WheelConfig)
    assert config.line == LineSettings(115200, 7, "even", 2, "rtscts")
    assert (config.timeout_ms, config.number_line, config.no_ball_lines, config.dialect) == (
        1500, False, 20, "mercury")


def test_an_emulated_wheel_reads_its_game_plan(tmp_path: Path) -> None:
    recording = tmp_path / "wheel.bin"
    recording.write_bytes(b"*X;6;000;  ;0;000;0\r\n")
    config = parse_devices({"wheel": {"kind": "emulated", "seed": 4, "pockets": 37,
                                      "pace_ms": 0, "faults": False, "nmb_lines": 12,
                                      "spins": 9, "replay": str(recording)}},
                           allow_emulated=True).wheel
    assert config is not None
    assert config.emulation == WheelEmulation(4, 37, 0, False, 12, 9, recording)
    assert parse_devices({}, allow_emulated=True).wheel is None


@pytest.mark.parametrize(("section", "message"), [
    ({"kind": "serial"}, "[devices.wheel] url: missing (required)"),
    ({"kind": "serial", "url": " "}, "[devices.wheel] url: empty"),
    ({"kind": "serial", "url": "/dev/x", "baud": 9601}, "[devices.wheel] baud: 9601 is not one"),
    ({"kind": "serial", "url": "/dev/x", "parity": "mark"},
     "[devices.wheel] parity: 'mark' is not one of none, even, odd"),
    ({"kind": "serial", "url": "/dev/x", "bytesize": 6}, "[devices.wheel] bytesize: 6 is not 7"),
    ({"kind": "serial", "url": "/dev/x", "stopbits": 3}, "[devices.wheel] stopbits: 3 is out"),
    ({"kind": "serial", "url": "/dev/x", "flow": "dtr"}, "[devices.wheel] flow: 'dtr'"),
    ({"kind": "serial", "url": "/dev/x", "timeout_ms": 10}, "[devices.wheel] timeout_ms: 10 is"),
    ({"kind": "serial", "url": "/dev/x", "dialect": "king"}, "[devices.wheel] dialect: 'king'"),
    ({"kind": "serial", "url": "/dev/x", "number_line": "yes"},
     "[devices.wheel] number_line: expected a boolean, got str"),
    ({"kind": "serial", "url": "/dev/x", "seed": 3}, "[devices.wheel] seed: unknown key"),
    ({"kind": "serial", "url": "/dev/x", "speed": 9600}, "[devices.wheel] speed: unknown key"),
    ({"kind": "emulated", "pockets": 39}, "[devices.wheel] pockets: 39 is out of range 37..38"),
    ({"kind": "serial", "url": "/dev/x", "launch": "croupier"},
     "[devices.wheel] launch: "),
    ({"kind": "emulated", "bets_lines": 0},
     "[devices.wheel] bets_lines: 0 is out of range 1..1000"),
    ({"kind": "emulated", "wait_lines": "long"}, "[devices.wheel] wait_lines:"),
    ({"kind": "emulated", "replay": "/no/such/recording"},
     "[devices.wheel] replay: no such file: /no/such/recording"),
    ({"kind": "emulated", "url": "/dev/x"}, "[devices.wheel] url: unknown key"),
    ({"kind": "usb"}, "[devices.wheel] kind: 'usb' is not one of serial, emulated"),
])
def test_a_bad_key_is_one_line_naming_section_and_key(section: dict[str, object],
                                                       message: str) -> None:
    with pytest.raises(DeviceConfigError) as err:
        parse_device("wheel", section, allow_emulated=True)
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)
