"""`shoectl selftest` with the cross-check's camera configured (R2): it opens and gives a frame."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.appliance import selftest
from controller.cli import shoectl
from drivers.camera import FileCamera

TABLE = """
[table]
name = "BJ-CAM"

[devices.shoe]
kind = "emulated"
seed = 7

[devices.layout]
kind = "emulated"
lamps = { fault = 3 }
buttons = { no_more_bets = 4 }

[devices.sign]
kind = "emulated"
"""


def test_the_camera_is_checked_for_a_frame(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text(TABLE + '\n[devices.camera]\nkind = "emulated"\nwidth = 640\n'
                              'height = 480\n')
    code = shoectl.main(["selftest", "--operator", "CI rig", "--config", str(config),
                     "--state-dir", str(tmp_path / "state"), "--auto", "--unverified-software",
                                        "--timeout", "5"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "PASS  camera   frame: 640x480 (EMULATED)" in out


def test_a_camera_without_a_frame_fails_the_selftest(tmp_path: Path) -> None:
    camera = FileCamera("camera", tmp_path / "no-such-image.png")
    [check] = selftest.check_camera(camera)
    assert not check.passed
    assert check.line().startswith("FAIL  camera   frame: ")
    assert "no-such-image.png" in check.detail
