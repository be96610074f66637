"""The udev rules give stable names by USB vendor, product and serial number.

Each case runs the real `udevadm test` against a fake sysfs device tree (umockdev) inside a
private mount namespace: tmpfs over /run, /dev and /etc/udev/rules.d, and a private copy
of /etc/group that knows the controller's groups. The host's real /dev is never touched.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "systemd" / "udev" / "70-shoectl.rules"
USB_PARENT = "/devices/pci0000:00/0000:00:14.0/usb1/1-1"
TTY = f"{USB_PARENT}/1-1:1.0/tty/ttyACM0"
GIDS = {"shoectl": 990, "gpio": 991}

# Run inside `unshare --mount`: isolate, install our rules, then run udevadm under umockdev.
_NAMESPACE_SCRIPT = r"""
set -eu
mount --make-rprivate /
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /dev
mkdir /dev/pts
mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts
ln -s pts/ptmx /dev/ptmx
mount -t tmpfs tmpfs /etc/udev/rules.d
cp "$RULES" /etc/udev/rules.d/
mount --bind "$GROUP_FILE" /etc/group
umockdev-run -d "$TREE" -- udevadm test --action=add "/sys$SYSPATH"
ls -l /dev > "$DEV_LISTING"
"""


def _namespace_prefix() -> list[str] | None:
    """The unshare command that works here (root, or an unprivileged user namespace)."""
    if not shutil.which("unshare"):
        return None
    for prefix in (["unshare", "--mount"], ["unshare", "--user", "--map-root-user", "--mount"]):
        probe = subprocess.run([*prefix, "true"], capture_output=True, check=False)
        if probe.returncode == 0:
            return prefix
    return None


def _missing_capability() -> str | None:
    for tool, package in (("udevadm", "udev"), ("umockdev-run", "umockdev")):
        if not shutil.which(tool):
            return f"{tool} is not installed (Debian package {package}; run .ci/sysdeps)"
    if _namespace_prefix() is None:
        return "this machine allows no private mount namespace (needs root or user namespaces)"
    return None


_MISSING = _missing_capability()
pytestmark = pytest.mark.skipif(_MISSING is not None, reason=str(_MISSING))


def _usb_tree(product: str, serial: str, with_tty: bool) -> str:
    usb = (
        f"P: {USB_PARENT}\nN: bus/usb/001/002\nE: DEVNAME=/dev/bus/usb/001/002\n"
        "E: DEVTYPE=usb_device\nE: DRIVER=usb\nE: SUBSYSTEM=usb\nE: BUSNUM=001\nE: DEVNUM=002\n"
        "E: MAJOR=189\nE: MINOR=1\nA: dev=189:1\n"
        f"A: idVendor=1209\nA: idProduct={product}\nA: serial={serial}\n"
        "A: manufacturer=shoectl-test\nA: product=device\nA: busnum=1\nA: devnum=2\n\n"
    )
    if not with_tty:
        return usb
    return usb + (
        f"P: {USB_PARENT}/1-1:1.0\nE: DEVTYPE=usb_interface\nE: DRIVER=cdc_acm\nE: SUBSYSTEM=usb\n"
        "A: bInterfaceClass=02\n\n"
        f"P: {TTY}\nN: ttyACM0\nE: DEVNAME=/dev/ttyACM0\nE: SUBSYSTEM=tty\nE: MAJOR=166\n"
        "E: MINOR=0\nA: dev=166:0\n"
    )


def _udevadm_test(tmp_path: Path, tree: str, syspath: str) -> tuple[str, str]:
    """Run `udevadm test` in the sandbox; return its output and the sandbox's `ls -l /dev`."""
    (tmp_path / "tree.umockdev").write_text(tree)
    group_file = tmp_path / "group"
    extra = "".join(f"{name}:x:{gid}:\n" for name, gid in GIDS.items())
    group_file.write_text(Path("/etc/group").read_text() + extra)
    env = {
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "RULES": str(RULES),
        "TREE": str(tmp_path / "tree.umockdev"), "SYSPATH": syspath,
        "GROUP_FILE": str(group_file), "DEV_LISTING": str(tmp_path / "dev.txt"),
    }
    prefix = _namespace_prefix()
    assert prefix is not None
    done = subprocess.run(
        [*prefix, "sh", "-c", _NAMESPACE_SCRIPT], env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output, (tmp_path / "dev.txt").read_text()


def _host_dev_names() -> set[str]:
    return {entry.name for entry in Path("/dev").iterdir()}


@pytest.mark.parametrize(
    ("product", "serial", "link"),
    [("5354", "SHOE-0001", "shoe-scanner"), ("5355", "TBL-0042", "table-board"),
     ("5356", "SIGN-7", "jackpot-sign")],
)
def test_usb_serial_device_gets_its_stable_name(tmp_path, product, serial, link) -> None:
    host_before = _host_dev_names()
    output, listing = _udevadm_test(tmp_path, _usb_tree(product, serial, with_tty=True), TTY)
    assert f"LINK '{link}'" in output
    assert f"Successfully created symlink '/dev/{link}' to '/dev/ttyACM0'" in output
    assert re.search(rf"70-shoectl\.rules:\d+ GROUP {GIDS['shoectl']}\b", output), output
    assert re.search(r"70-shoectl\.rules:\d+ MODE 0660", output), output
    assert re.search(rf"{link} -> /?(dev/)?ttyACM0", listing), listing
    assert _host_dev_names() == host_before, "udevadm test leaked into the host's /dev"


@pytest.mark.parametrize(
    ("product", "serial"),
    [("5354", "TBL-0001"), ("5355", "SHOE-0001"), ("5399", "SHOE-0001"), ("5356", ""),
     ("5353", "EMU-SHOE-1")],
)
def test_wrong_product_or_serial_gets_no_name(tmp_path, product, serial) -> None:
    output, listing = _udevadm_test(tmp_path, _usb_tree(product, serial, with_tty=True), TTY)
    for link in ("shoe-scanner", "table-board", "jackpot-sign"):
        assert f"LINK '{link}'" not in output
        assert link not in listing
    assert "70-shoectl.rules" in output  # the rules were read, and did not match


def test_raw_usb_shoe_gets_the_name_and_the_group(tmp_path) -> None:
    output, listing = _udevadm_test(tmp_path, _usb_tree("5353", "SHOE-0002", with_tty=False),
                                    USB_PARENT)
    assert "LINK 'shoe-scanner'" in output
    assert re.search(rf"70-shoectl\.rules:\d+ GROUP {GIDS['shoectl']}\b", output), output
    assert re.search(r"shoe-scanner -> /?(dev/)?bus/usb/001/002", listing), listing


def test_rules_name_groups_that_the_sysusers_file_creates() -> None:
    sysusers = (REPO / "systemd" / "sysusers.d" / "shoectl.conf").read_text()
    for group in set(re.findall(r'GROUP="([^"]+)"', RULES.read_text())):
        assert re.search(rf"^(g|u)\s+{group}\s", sysusers, re.MULTILINE), group
