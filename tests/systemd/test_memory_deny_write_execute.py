"""The unit sets MemoryDenyWriteExecute=yes: the whole stack must run with no writable and
executable memory. The kernel's own per-process switch for the same policy (PR_SET_MDWE,
Linux 6.3+) is set before `shoectl simulate --camera` starts, so OpenCV, numpy, the
recogniser, pyserial over ptys, SQLite and ctypes all load and run under it."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / "shoectl.service"
PR_SET_MDWE = 65
PR_MDWE_REFUSE_EXEC_GAIN = 1

# Runs in the child: switch the policy on (inherited across exec), prove it is on, then
# become the command.
_LAUNCHER = f"""
PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = {PR_SET_MDWE}, {PR_MDWE_REFUSE_EXEC_GAIN}
import ctypes, mmap, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
    sys.exit(f"prctl(PR_SET_MDWE) failed: errno {{ctypes.get_errno()}}")
try:
    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
except PermissionError:
    pass
else:
    sys.exit("a writable and executable mapping was allowed: the policy is not on")
os.execv(sys.argv[1], sys.argv[1:])
"""


def _kernel_has_mdwe() -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    # PR_GET_MDWE (66) answers on kernels that know the policy; older ones say EINVAL.
    return libc.prctl(66, 0, 0, 0, 0) >= 0


def test_the_unit_denies_writable_executable_memory() -> None:
    assert "\nMemoryDenyWriteExecute=yes\n" in UNIT.read_text()


@pytest.mark.skipif(not _kernel_has_mdwe(),
                    reason="the kernel has no PR_SET_MDWE (Linux 6.3 or later needed)")
def test_a_table_with_the_camera_runs_with_no_writable_executable_memory(
        tmp_path: Path) -> None:
    shoectl = Path(sys.executable).with_name("shoectl")
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, str(shoectl), "simulate", "--camera", "--rounds", "1",
         "--seats", "2", "--state-dir", str(tmp_path / "state")],
        capture_output=True, text=True, timeout=240, check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 0, done.stderr
    assert "rounds 1" in done.stdout + done.stderr
    assert "faults 0" in done.stdout + done.stderr
