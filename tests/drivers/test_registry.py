"""The registry: kinds chosen by configuration only, never a silent fallback."""

import tempfile

import pytest

from drivers.board import link_timing
from drivers.camera import CAMERA_KINDS
from drivers.config import Role
from drivers.errors import DeviceConfigError, DeviceUnavailableError, PairingError
from drivers.registry import BuildOptions, build_devices, kinds
from firmware_bridge import PairingKey, read_key_file, write_key_file


def test_every_role_has_its_kinds():
    assert set(kinds(Role.SHOE)) == {"serial", "usb", "emulated"}
    assert set(kinds(Role.LAYOUT)) == {"gpio", "serial", "emulated", "emulated-gpio"}
    assert set(kinds(Role.SIGN)) == {"serial", "emulated"}
    assert set(kinds(Role.CAMERA)) == set(CAMERA_KINDS)


def test_an_emulated_camera_is_refused_without_the_flag():
    with pytest.raises(DeviceConfigError, match=r"^\[devices.camera\] kind: 'emulated' needs"):
        build_devices({"camera": {"kind": "emulated"}}, print, allow_emulated=False)


def test_emulated_kinds_are_refused_without_the_flag():
    with pytest.raises(DeviceConfigError, match=r"^\[devices.sign\] kind: 'emulated' needs"):
        build_devices({"sign": {"kind": "emulated"}}, print, allow_emulated=False)


def test_a_real_gpio_layout_off_a_pi_fails_naming_the_device_not_falling_back():
    layout = {"kind": "gpio", "lamps": {"a": 4}}
    with pytest.raises(DeviceUnavailableError, match=r"^\[devices.layout\] kind: 'gpio' needs"):
        build_devices({"layout": layout}, print, allow_emulated=True)


def test_a_missing_serial_port_fails_at_start_naming_device_and_url(tmp_path):
    devices = build_devices({"sign": {"kind": "serial", "url": str(tmp_path / "nothing"),
                                      "auth": "none"}}, print, allow_emulated=False)
    assert devices.emulated == ()
    assert devices.unauthenticated == ()  # decided by a handshake, and none passed
    with pytest.raises(DeviceUnavailableError, match=r"^\[devices.sign\] url: .*nothing"):
        devices.start()
    assert devices.unauthenticated == ()
    devices.close()


def test_a_board_whose_key_file_is_missing_or_public_is_not_started(tmp_path):
    key = tmp_path / "sign.key"
    sign = {"sign": {"kind": "serial", "url": str(tmp_path / "port"), "key_file": str(key)}}
    devices = build_devices(sign, print, allow_emulated=False)
    with pytest.raises(PairingError, match=(
            r"^\[devices.sign\] key_file: .*sign.key: cannot read the pairing key \(No such "
            r"file or directory\); pair the board \(shoectl bridge pair sign\)")):
        devices.start()
    write_key_file(key, PairingKey.generate())
    key.chmod(0o644)
    devices = build_devices(sign, print, allow_emulated=False)
    with pytest.raises(PairingError, match="readable by every user"):
        devices.start()


def test_emulated_devices_are_named_and_their_emulators_reachable(tmp_path):
    events = []
    devices = build_devices(
        {"shoe": {"kind": "emulated", "seed": 5},
         "layout": {"kind": "emulated-gpio", "lamps": {"a": 4}}},
        events.append, allow_emulated=True, options=BuildOptions(workdir=tmp_path))
    try:
        assert devices.emulated == ("shoe", "layout")
        assert set(devices.emulators) == {"shoe", "layout"}
        assert (tmp_path / "shoe").is_symlink()
        # An emulated board is paired with a fresh key, also left for a second program.
        assert read_key_file(tmp_path / "shoe.key") == devices.emulators["shoe"].pairing
        devices.start()
        assert all(device.link_up for device in devices.all())
        assert devices.unauthenticated == ()
    finally:
        devices.close()
    assert not (tmp_path / "shoe").exists()
    assert not (tmp_path / "shoe.key").exists()  # no pairing key outlives the run


def test_a_temporary_folder_made_for_emulators_is_removed_with_its_keys(
        tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    tempfile.tempdir = None  # read TMPDIR again
    try:
        devices = build_devices({"shoe": {"kind": "emulated", "seed": 5}, "sign": {
            "kind": "emulated"}}, print, allow_emulated=True)
        (made,) = tmp_path.glob("shoectl-emulated-*")
        assert sorted(p.name for p in made.glob("*.key")) == ["shoe.key", "sign.key"]
        devices.start()
        devices.close()
        assert list(tmp_path.glob("shoectl-emulated-*")) == []
        with pytest.raises(DeviceUnavailableError):  # refused after the shoe's emulator
            build_devices({"shoe": {"kind": "emulated"},
                           "layout": {"kind": "gpio", "lamps": {"a": 4}}},
                          print, allow_emulated=True)
        assert list(tmp_path.glob("shoectl-emulated-*")) == []
    finally:
        tempfile.tempdir = None


def test_the_host_link_timeout_is_the_sections_and_its_timers_keep_the_board_content():
    # PROTOCOL.md 5.5: the board's timings are fixed (750 ms, 200 ms heartbeat); the host's
    # link timeout is `timeout_ms`, and its heartbeat and retransmission timeouts scale down
    # with it, so the board never times the host out.
    def timers(ms: int) -> tuple[float, ...]:
        timing = link_timing(ms)
        return tuple(round(value, 6) for value in (
            timing.link_timeout, timing.heartbeat_interval, timing.retransmit_timeout,
            timing.max_retransmit_timeout))

    assert timers(300) == (0.3, 0.1, 0.075, 0.15)
    assert timers(750) == (0.75, 0.2, 0.1, 0.375)
    assert timers(2000) == (2.0, 0.2, 0.1, 0.4)
    devices = build_devices({"sign": {"kind": "serial", "url": "/dev/x", "auth": "none",
                                      "timeout_ms": 300}}, print, allow_emulated=False)
    assert devices.sign.connection.timing.link_timeout == 0.3  # type: ignore[union-attr]
