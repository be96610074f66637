"""Paths in a table file are read from the file's folder, never the working folder.

`parse_devices(..., base=FOLDER)` reads every relative path of a `[devices.*]` section (a
board's `key_file`, a port's device path, the shoe's `script_file`, the wheel's `replay`, a
recorded camera's `path`) under FOLDER; absolute paths and pyserial URLs stay as written.
"""

from pathlib import Path

import pytest

from confkeys import Section
from drivers.camera import build_camera
from drivers.config import parse_device, parse_devices
from drivers.errors import DeviceConfigError


def test_a_relative_path_is_read_from_the_base_folder() -> None:
    section = Section("devices.layout", {"a": "keys/a.key", "b": "/etc/b.key"},
                      base="/etc/shoectl/")
    assert section.path("a") == "/etc/shoectl/keys/a.key"
    assert section.path("b") == "/etc/b.key"
    assert section.path("c") is None
    assert section.child("inner", {"d": "d.key"}).path("d") == "/etc/shoectl/d.key"


def test_without_a_base_a_path_stays_as_written() -> None:
    assert Section("journal", {"a": "state"}).path("a") == "state"


def test_an_empty_path_is_refused() -> None:
    with pytest.raises(ValueError, match=r"\[journal\] a: expected a path, got an empty"):
        Section("journal", {"a": " "}).path("a")


def test_a_boards_key_file_and_port_lie_beside_the_table_file(tmp_path: Path) -> None:
    layout = parse_device("layout", {"kind": "serial", "url": "./ports/layout",
                                     "key_file": "keys/layout.key", "lamps": {"fault": 0}},
                          allow_emulated=False, base=tmp_path)
    assert layout.trust.key_file == tmp_path / "keys/layout.key"
    assert layout.port is not None
    assert layout.port.url == str(tmp_path / "ports/layout")


def test_absolute_paths_and_serial_urls_are_kept(tmp_path: Path) -> None:
    config = parse_devices({
        "shoe": {"kind": "serial", "url": "socket://127.0.0.1:7000",
                 "key_file": "/etc/shoectl/keys/shoe.key"},
        "sign": {"kind": "serial", "url": "/dev/jackpot-sign"},
    }, allow_emulated=False, base=tmp_path)
    assert config.shoe is not None
    assert config.sign is not None
    assert config.shoe.port.url == "socket://127.0.0.1:7000"
    assert config.shoe.trust.key_file == Path("/etc/shoectl/keys/shoe.key")
    assert config.sign.port.url == "/dev/jackpot-sign"
    assert config.sign.trust.key_file == Path("/etc/shoectl/keys/sign.key")  # the default


def test_a_shoe_file_is_read_beside_the_table_file(tmp_path: Path) -> None:
    (tmp_path / "shoes").mkdir()
    (tmp_path / "shoes/short.txt").write_text("AS KD 5C\n")
    shoe = parse_device("shoe", {"kind": "emulated", "script_file": "shoes/short.txt"},
                        allow_emulated=True, base=tmp_path)
    assert shoe.emulation.script == ("AS", "KD", "5C")


def test_a_wheel_replay_is_read_beside_the_table_file(tmp_path: Path) -> None:
    (tmp_path / "spins.log").write_text("")
    wheel = parse_device("wheel", {"kind": "emulated", "replay": "spins.log"},
                         allow_emulated=True, base=tmp_path)
    assert wheel.emulation.replay == tmp_path / "spins.log"
    with pytest.raises(DeviceConfigError, match="no such file"):
        parse_device("wheel", {"kind": "emulated", "replay": "spins.log"},
                     allow_emulated=True, base=tmp_path / "elsewhere")


def test_a_recorded_cameras_path_is_read_beside_the_table_file(tmp_path: Path) -> None:
    config = parse_device("camera", {"kind": "folder", "path": "frames"}, allow_emulated=True,
                          camera_kinds=("folder",), base=tmp_path)
    camera = build_camera(config.name, config.kind, config.options,
                          base=config.base)
    assert Path(camera.folder) == tmp_path / "frames"
