"""The USB shoe's transport on the real libusb, with umockdev faking the device tree.

umockdev (an LD_PRELOAD library, no root or kernel module) makes libusb enumerate a device
described by sysfs attributes and raw descriptors. It cannot carry a live protocol (bulk
transfers replay only recorded traffic), so this checks what it is good for: discovery by
VID:PID through real libusb, reading the configuration from sysfs, claiming the interface,
and a failing transfer becoming a `TransportError` handed to the reader's error callback
(which the driver turns into LinkDown and reconnection). The protocol itself runs over the
pyusb backend in `test_usb_shoe.py`.
"""

import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).resolve().parent / "umockdev_probe.py"
VID, PID = 0x1209, 0x5353


def shoe_tree() -> str:
    device = struct.pack("<BBHBBBBHHHBBBB", 18, 1, 0x0200, 0, 0, 0, 64, VID, PID, 0x0100,
                         1, 2, 3, 1)
    config = struct.pack("<BBHBBBBB", 9, 2, 32, 1, 1, 0, 0x80, 50)
    interface = struct.pack("<BBBBBBBBB", 9, 4, 0, 0, 2, 0xFF, 0, 0, 0)
    bulk_out = struct.pack("<BBBBHB", 7, 5, 0x01, 2, 64, 0)
    bulk_in = struct.pack("<BBBBHB", 7, 5, 0x81, 2, 64, 0)
    descriptors = (device + config + interface + bulk_out + bulk_in).hex()
    return "\n".join([
        "P: /devices/pci0000:00/0000:00:14.0/usb1/1-1", "N: bus/usb/001/002",
        "E: DEVNAME=/dev/bus/usb/001/002", "E: DEVTYPE=usb_device", "E: DRIVER=usb",
        f"E: PRODUCT={VID:x}/{PID:x}/100", "E: BUSNUM=001", "E: DEVNUM=002",
        "E: SUBSYSTEM=usb", "A: busnum=1", "A: devnum=2", f"A: idVendor={VID:04x}",
        f"A: idProduct={PID:04x}", "A: speed=12", "A: bConfigurationValue=1",
        "A: bNumConfigurations=1", "A: serial=SHOE0001", f"H: descriptors={descriptors}", "",
    ])


def run_probe(tree: Path, vid: int, pid: int) -> dict:
    done = subprocess.run(
        ["umockdev-run", "-d", str(tree), "--", sys.executable, str(PROBE), f"{vid:x}",
         f"{pid:x}"], capture_output=True, text=True, timeout=60, check=False,
        cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    if shutil.which("umockdev-run") is None:
        pytest.skip("umockdev-run is not installed on this machine (Debian package umockdev)")
    path = tmp_path / "shoe.umockdev"
    path.write_text(shoe_tree())
    return path


@pytest.mark.needs("usb", "emulated")
def test_real_libusb_finds_claims_and_reports_a_dead_transfer(tree: Path):
    result = run_probe(tree, VID, PID)
    assert result["url"] == "usb:1209:5353"
    assert result.get("opened") is True, result
    assert len(result["reader_errors"]) == 1
    assert result["reader_errors"][0].startswith("TransportError('usb:1209:5353: read failed")


@pytest.mark.needs("usb", "emulated")
def test_a_missing_device_is_a_clear_transport_error(tree: Path):
    result = run_probe(tree, VID, 0x9999)
    assert result["open_error"] == "usb:1209:9999: cannot open: no such device is plugged in"
