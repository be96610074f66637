"""What a board must prove (PROTOCOL.md sections 4 and 7), byte for byte over real ptys.

The attacks of protocol version 1, rerun against the real drivers and the byte-level
emulators: a forged layout board (one without this Pi's key), a second program opening the
live shoe port, a board running a firmware version nobody approved, and a bench board
without a key, which is accepted only where its section says so and is then marked.
"""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers import console
from drivers.config import parse_device
from drivers.emulated.layout import LayoutEmulator
from drivers.emulated.sign import SignEmulator
from drivers.errors import DeviceUnavailableError, HandshakeError
from drivers.events import CardDrawn, DeviceFault, KeySwitchTurned, LinkDown, LinkUp
from drivers.layout import BridgeLayout
from drivers.registry import BuildOptions, build_devices
from drivers.sign import BridgeSign
from firmware_bridge import DeviceIdentity, PairingKey, read_key_file, write_key_file

from .conftest import FAST, Recorder

LAMPS = {"fault": 0, "seat1": {"bet": 1}}


def serial_section(path: str, key_file: Path | None, **extra: object) -> dict[str, object]:
    section: dict[str, object] = {"kind": "serial", "url": path, "firmware": ["emulated-1.0"],
                                  **extra}
    if key_file is None:
        section["auth"] = "none"
    else:
        section["key_file"] = str(key_file)
    return section


@pytest.fixture
def paired(tmp_path: Path) -> Iterator[tuple[LayoutEmulator, Path]]:
    key = PairingKey.generate()
    key_file = tmp_path / "layout.key"
    write_key_file(key_file, key)
    with LayoutEmulator(link_dir=tmp_path, pairing=key) as board:
        yield board, key_file


def layout_driver(path: str, key_file: Path | None, sink: Recorder,
                  **extra: object) -> BridgeLayout:
    devices = build_devices({"layout": {**serial_section(path, key_file, **extra),
                                        "lamps": LAMPS}}, sink, allow_emulated=False,
                            options=BuildOptions(timing=FAST))
    assert isinstance(devices.layout, BridgeLayout)
    return devices.layout


def test_a_forged_layout_board_is_refused_and_its_key_turns_never_reach_the_table(
    tmp_path: Path,
) -> None:
    key_file = tmp_path / "layout.key"
    write_key_file(key_file, PairingKey.generate())  # this Pi's key for its layout board
    with LayoutEmulator(link_dir=tmp_path, pairing=PairingKey.generate()) as forged:
        sink = Recorder()
        layout = layout_driver(forged.path, key_file, sink)
        with pytest.raises(HandshakeError) as refused:
            layout.start()
        forged.turn_key("reset")  # what moved the meter in version 1
        forged.send_now()
    message = str(refused.value)
    assert message.startswith(f"[devices.layout] {forged.path}: board refused: ")
    assert "failed authentication: it is not paired with this host's key" in message
    assert forged.stats().link.sessions == 0  # it never opened a session with the host
    assert forged.failsafe
    assert sink.of(KeySwitchTurned) == []
    assert sink.of(LinkUp) == []


def test_a_board_swapped_for_a_forged_one_is_a_device_fault_after_the_reconnect(
    paired: tuple[LayoutEmulator, Path], tmp_path: Path,
) -> None:
    board, key_file = paired
    sink = Recorder()
    layout = layout_driver(board.path, key_file, sink)
    layout.start()
    try:
        board.close()  # the genuine board is taken away ...
        forged = LayoutEmulator(link_dir=tmp_path, pairing=PairingKey.generate())
        with forged:  # ... and another, with the same port name, put in its place
            (fault,) = sink.wait_for(DeviceFault, timeout=30.0)  # a 3 s handshake wait, or more
            forged.turn_key("reset")
            forged.send_now()
            assert "failed authentication" in fault.reason
            assert forged.stats().link.sessions == 0
    finally:
        layout.close()
    turns = sink.of(KeySwitchTurned)
    assert [turn.key for turn in turns if turn.position == "reset"] == []


@pytest.mark.parametrize("swapped_key", ["another", "none"])
def test_a_board_swapped_on_a_running_link_is_refused_and_the_genuine_one_taken_back(
    paired: tuple[LayoutEmulator, Path], swapped_key: str,
) -> None:
    board, key_file = paired
    genuine = board.pairing
    sink = Recorder()
    layout = layout_driver(board.path, key_file, sink)
    layout.start()
    try:
        sink.wait_for(LinkUp)
        identity = layout.connection.identity
        assert identity is not None
        # The port stays open: another board on the same line (or this one re-flashed).
        board.swap(PairingKey.generate() if swapped_key == "another" else None)
        (fault,) = sink.wait_for(DeviceFault, timeout=30.0)
        board.turn_key("reset")
        board.send_now()
        sink.wait_for(LinkDown)
        assert board.stats().link.sessions == 0  # it never opened a session with the host
        board.turn_key("normal")
        board.swap(genuine)  # the paired board is put back: its link comes up again
        sink.wait_for(LinkUp, count=2, timeout=30.0)
    finally:
        layout.close()
    assert fault.reason.startswith("board refused: ")
    frames = int(fault.reason.split("board refused: ")[1].split(" ")[0])
    assert frames >= 3
    announced = "paired" if swapped_key == "another" else "none"
    assert f"failed authentication since its link went down (it announces auth mode " \
           f"'{announced}')" in fault.reason
    assert f"not paired with this host's key {read_key_file(key_file).key_id}" in fault.reason
    assert fault.reason.endswith(f"the board last authenticated here: {identity.describe()}")
    assert len(sink.of(DeviceFault)) == 1  # once per outage, not every RESET
    assert [turn for turn in sink.of(KeySwitchTurned) if turn.position == "reset"] == []


def test_a_paired_board_connects_and_its_key_turns_name_the_key(
    paired: tuple[LayoutEmulator, Path],
) -> None:
    board, key_file = paired
    sink = Recorder()
    layout = layout_driver(board.path, key_file, sink)
    layout.start()
    try:
        (up,) = sink.wait_for(LinkUp)
        key_id = read_key_file(key_file).key_id
        assert up.detail.endswith(f"auth=paired (key {key_id})")
        board.turn_key("supervisor")
        (turn,) = sink.wait_for(KeySwitchTurned)
    finally:
        layout.close()
    assert turn.authenticated
    assert turn.key == f"layout board key switch, key {key_id}"


def test_a_board_without_a_key_is_accepted_only_as_configured_and_marked(
    tmp_path: Path,
) -> None:
    with LayoutEmulator(link_dir=tmp_path) as bench:  # a bench board, no key
        key_file = tmp_path / "layout.key"
        write_key_file(key_file, PairingKey.generate())
        with pytest.raises(HandshakeError, match="the board has no pairing key"):
            layout_driver(bench.path, key_file, Recorder()).start()
        sink = Recorder()
        layout = layout_driver(bench.path, None, sink)  # auth = "none"
        layout.start()
        try:
            (up,) = sink.wait_for(LinkUp)
            bench.turn_key("supervisor")
            (turn,) = sink.wait_for(KeySwitchTurned)
        finally:
            layout.close()
    assert up.detail.endswith("auth=none (UNAUTHENTICATED)")
    assert not layout.authenticated
    assert turn.authenticated is False  # the controller refuses supervisor actions from it
    assert turn.key == "layout board key switch, UNAUTHENTICATED"


@pytest.mark.parametrize(("listed", "expected"), [
    (["1.2.0"], "firmware version: expected '1.2.0', got '1.1.0'"),
    (None, "firmware version: expected a listed version (none is listed), got '1.1.0'"),
])
def test_a_firmware_version_not_listed_is_refused_naming_board_field_and_values(
    tmp_path: Path, listed: list[str] | None, expected: str,
) -> None:
    with SignEmulator(link_dir=tmp_path, identity=DeviceIdentity("1.1.0")) as sign:
        section = {"kind": "serial", "url": sign.path, "auth": "none"}
        if listed is not None:
            section["firmware"] = listed
        config = parse_device("sign", section, allow_emulated=False)
        devices = build_devices({"sign": section}, Recorder(), allow_emulated=False,
                                options=BuildOptions(timing=FAST))
        assert isinstance(devices.sign, BridgeSign)
        assert config.trust.firmware == (tuple(listed) if listed else None)
        with pytest.raises(HandshakeError) as refused:
            devices.sign.start()
        assert sign.failsafe
    assert str(refused.value) == f"[devices.sign] {sign.path}: board refused: {expected}"


def test_the_board_kind_is_the_section_name(tmp_path: Path) -> None:
    with LayoutEmulator(link_dir=tmp_path) as layout_board:
        devices = build_devices({"sign": {"kind": "serial", "url": layout_board.path,
                                          "auth": "none", "firmware": ["emulated-1.0"]}},
                                Recorder(), allow_emulated=False,
                                options=BuildOptions(timing=FAST))
        with pytest.raises(HandshakeError, match="board kind: expected 'sign', got 'layout'"):
            devices.all()[0].start()


def test_a_second_program_cannot_open_the_live_shoe_port(tmp_path: Path) -> None:
    sink = Recorder()
    devices = build_devices({"shoe": {"kind": "emulated", "script": ["4C", "9H"]}}, sink,
                            allow_emulated=True, options=BuildOptions(timing=FAST,
                                                                      workdir=tmp_path))
    emulator = devices.emulators["shoe"]
    devices.start()
    try:
        # The attack of version 1: a console beside the running table, with the key.
        command = [sys.executable, "-m", "controller", "bridge", "console", emulator.path,
                   "--key-file", str(tmp_path / "shoe.key"), "--duration", "0.5",
                   "--send", "event_ack", "count=99"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60,
                              check=False, cwd=Path(__file__).resolve().parents[2])
        emulator.load()
        emulator.draw()
        (card,) = sink.wait_for(CardDrawn)
    finally:
        devices.close()
    assert done.returncode == 1, done.stdout
    assert (f"{emulator.path}: cannot open: the port is in use by pid {os.getpid()} "
            in done.stdout)
    assert card.count == 1  # the table's session went on and took the card itself


def test_a_second_table_on_the_same_port_fails_to_start_naming_the_holder(
    paired: tuple[LayoutEmulator, Path],
) -> None:
    board, key_file = paired
    first = layout_driver(board.path, key_file, Recorder())
    first.start()
    try:
        with pytest.raises(DeviceUnavailableError, match=(
                r"^\[devices.layout\] url: .*: cannot open: the port is in use by this "
                rf"process \(pid {os.getpid()}\)")):
            layout_driver(board.path, key_file, Recorder()).start()
        assert first.link_up
    finally:
        first.close()


def test_shoectl_bridge_pair_writes_a_private_key_once(tmp_path: Path) -> None:
    out = io.StringIO()
    assert console.main(["pair", "shoe", "--key-dir", str(tmp_path)], out=out) == 0
    key = read_key_file(tmp_path / "shoe.key")
    assert stat.S_IMODE((tmp_path / "shoe.key").stat().st_mode) in (0o600, 0o640)
    text = out.getvalue()
    assert f"pairing key {key.key_id} for [devices.shoe]" in text
    assert key.secret.hex() in text  # once, for the board's programming tool
    again = io.StringIO()
    assert console.main(["pair", "shoe", "--key-dir", str(tmp_path)], out=again) == 1
    assert "a pairing key is there already" in again.getvalue()
    assert read_key_file(tmp_path / "shoe.key") == key
