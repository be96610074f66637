"""The service unit: `systemd-analyze verify` must be silent and the exposure at most 2.0."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from controller.appliance.installer import render_unit

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / "shoectl.service"
MAX_EXPOSURE = 2.0

pytestmark = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None,
    reason="systemd-analyze is not installed (Debian package systemd; run .ci/sysdeps)",
)


def _rendered(tmp_path: Path) -> Path:
    """The unit as the installer writes it for a prefix under tmp_path, with a stub binary."""
    prefix = tmp_path / "opt" / "shoectl"
    binary = prefix / "venv" / "bin" / "shoectl"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\nexit 0\n")
    binary.chmod(0o755)
    unit = tmp_path / "shoectl.service"
    unit.write_text(render_unit(UNIT.read_text(), str(prefix), str(tmp_path / "etc" / "shoectl")))
    return unit


def _analyze(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["systemd-analyze", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, check=False)


def test_verify_is_clean(tmp_path: Path) -> None:
    unit = _rendered(tmp_path)
    done = _analyze("verify", "--man=no", str(unit), cwd=tmp_path)
    # An unknown key or a bad value is only a warning with exit 0: any output fails.
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    assert done.stdout == "", done.stdout


def test_verify_catches_a_bad_key(tmp_path: Path) -> None:
    unit = _rendered(tmp_path)
    unit.write_text(unit.read_text().replace("NoNewPrivileges=yes", "NoNewPrivilege=yes"))
    done = _analyze("verify", "--man=no", str(unit), cwd=tmp_path)
    assert "NoNewPrivilege" in done.stderr


def test_exposure_is_at_most_two(tmp_path: Path) -> None:
    unit = _rendered(tmp_path)
    done = _analyze("security", "--offline=yes", f"--threshold={int(MAX_EXPOSURE * 10)}",
                    "--no-pager", str(unit), cwd=tmp_path)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d)", done.stdout + done.stderr)
    assert found, done.stdout + done.stderr
    assert float(found.group(1)) <= MAX_EXPOSURE, done.stdout
    assert done.returncode == 0, done.stderr


def test_unit_is_the_appliance_the_issue_asks_for() -> None:
    text = UNIT.read_text()
    keys: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            keys.setdefault(key.strip(), []).append(value.strip())
    assert keys["Type"] == ["notify"]
    assert keys["Restart"] == ["on-failure"]
    assert keys["WatchdogSec"]
    assert keys["User"] == ["shoectl"]
    assert keys["SupplementaryGroups"] == ["dialout gpio video"]
    assert keys["ProtectSystem"] == ["strict"]
    assert keys["StateDirectory"] == ["shoectl"]
    assert keys["ConfigurationDirectory"] == ["shoectl"]
    assert keys["NoNewPrivileges"] == ["yes"]
    assert int(keys["LimitNOFILE"][0]) >= 4096  # the console's caps, not the descriptors
    assert "PrivateDevices" not in keys
    allowed = " ".join(keys["DeviceAllow"])
    for device in ("ttyUSB", "ttyACM", "usb_device", "gpiochip", "video4linux"):
        assert f"char-{device} rw" in allowed
    assert keys["ExecStart"][0].startswith("/opt/shoectl/venv/bin/shoectl run --config ")
    assert "SHOECTL_MANIFEST=/opt/shoectl/manifest.sha256" in keys["Environment"][0]
