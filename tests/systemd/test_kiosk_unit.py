"""The console kiosk unit: valid for systemd, pointed at the console, enabled only when asked."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from controller.cli import install_command
from controller.web.settings import DEFAULT_LISTEN

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / "shoectl-kiosk.service"
KIOSK_TOOLS = ("/usr/bin/cage", "/usr/bin/chromium", "/opt/shoectl/venv/bin/shoectl")
"""On a build machine the kiosk's programs may be missing; verify may say only that."""


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed (Debian package systemd)")
def test_verify_has_nothing_to_say_but_missing_kiosk_programs(tmp_path: Path) -> None:
    unit = tmp_path / "shoectl-kiosk.service"
    unit.write_text(UNIT.read_text())
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          check=False)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    unexpected = [line for line in lines if not any(
        tool in line and "not executable" in line for tool in KIOSK_TOOLS)]
    assert unexpected == [], lines


def test_the_kiosk_shows_the_console_where_it_listens_by_default() -> None:
    text = UNIT.read_text()
    assert f"shoectl console kiosk --console http://{DEFAULT_LISTEN}/ --" in text
    assert "--app={url}" in text
    assert "User=shoectl-kiosk" in text
    assert "--disable-background-networking" in text  # a table does not call home


MISSING = [tool for tool in ("systemd-sysusers", "systemctl") if shutil.which(tool) is None]


@pytest.mark.skipif(bool(MISSING), reason=f"missing {MISSING} (Debian package systemd)")
@pytest.mark.parametrize("kiosk", [False, True])
def test_the_installer_enables_the_kiosk_only_when_asked(tmp_path: Path, kiosk: bool) -> None:
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    (tmp_path / "etc/group").write_text("root:x:0:\ndialout:x:20:\nvideo:x:44:\n")
    venv = tmp_path / "opt/shoectl/venv"
    venv.mkdir(parents=True)
    args = ["--root", str(tmp_path), "--source", str(REPO), "--no-venv"]
    assert install_command.main([*args, *(["--kiosk"] if kiosk else [])]) == 0
    assert (tmp_path / "etc/systemd/system/shoectl-kiosk.service").is_file()
    wanted = tmp_path / "etc/systemd/system/graphical.target.wants/shoectl-kiosk.service"
    assert wanted.is_symlink() is kiosk
    assert "shoectl-kiosk:" in (tmp_path / "etc/passwd").read_text()


MAX_EXPOSURE = 6.0


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed (Debian package systemd)")
def test_the_kiosk_is_sandboxed(tmp_path: Path) -> None:
    unit = tmp_path / "shoectl-kiosk.service"
    unit.write_text(UNIT.read_text())
    done = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager",
                           str(unit)], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, check=False)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d)", done.stdout + done.stderr)
    assert found, done.stdout + done.stderr
    assert float(found.group(1)) <= MAX_EXPOSURE, done.stdout


def exec_start(text: str) -> list[str]:
    """The unit's ExecStart, split into its words as systemd does (no shell here)."""
    line = text.split("\nExecStart=", 1)[1].split("\n\n", 1)[0].split("\n#", 1)[0]
    return shlex.split(line.replace("\\\n", " "))


def test_the_kiosk_logs_in_through_its_launcher_never_with_its_token_in_argv() -> None:
    text = UNIT.read_text()
    assert "LoadCredential=kiosk-token:/etc/shoectl/kiosk.token" in text
    argv = exec_start(text)
    assert argv[:4] == ["/opt/shoectl/venv/bin/shoectl", "console", "kiosk", "--console"]
    browser = argv[argv.index("--") + 1:]
    assert browser[:4] == ["/usr/bin/cage", "-s", "--", "/usr/bin/chromium"]
    assert "--app={url}" in browser  # the launcher puts the one-time code there
    assert not [word for word in argv if "%d" in word or "$" in word or "token" in word]
    assert "ExecStart=/bin/sh" not in text  # no shell reading the credential into a command line
    assert "IPAddressAllow=localhost" in text  # the console on loopback, nothing else
