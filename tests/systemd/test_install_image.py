"""`shoectl install --image` and `--first-boot`: no secret in an image; each card makes its own.

The venv is a small stand-in (`--no-venv`): what is checked here is what the image flag
changes (the secrets, the units enabled, the manifest). The real venv, the first boot and
the read-only root are exercised booted, on arm64, by `make pi-check` (docs/pi.md).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

import pytest

from controller.appliance import installer, integrity
from controller.cli import install_command
from controller.journal import keys
from controller.web.accounts import Accounts, credentials_path

REPO = Path(__file__).resolve().parents[2]
MISSING = [tool for tool in ("systemd-sysusers", "systemctl") if shutil.which(tool) is None]
SECRETS = ("etc/shoectl/journal.key", "etc/shoectl/kiosk.token",
           "etc/shoectl/config.credentials.json")


def _image_root(tmp_path: Path) -> Path:
    """A root being built: /etc with its users, a stand-in venv."""
    root = tmp_path / "image"
    (root / "etc").mkdir(parents=True)
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    (root / "etc/group").write_text("root:x:0:\ndialout:x:20:\nvideo:x:44:\n")
    venv = root / "opt/shoectl/venv/bin"
    venv.mkdir(parents=True)
    (venv / "python").write_text("#!/bin/sh\n")
    return root


def _install(root: Path, *extra: str) -> int:
    args = ["--root", str(root), "--source", str(REPO), "--no-venv", "--image", *extra]
    if MISSING:
        args.append("--no-activate")
    return install_command.main(args)


def test_an_image_carries_no_secret_and_its_manifest_verifies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _image_root(tmp_path)
    assert _install(root) == 0
    out = capsys.readouterr().out
    assert "each card makes its journal key and kiosk token at its first boot" in out
    for secret in SECRETS:
        assert not (root / secret).exists(), secret
    assert (root / "etc/shoectl/config.toml").is_file()
    manifest = root / "opt/shoectl/manifest.sha256"
    text = manifest.read_text()
    for unit in (installer.FIRSTBOOT_UNIT_PATH, installer.READONLY_UNIT_PATH,
                 installer.WRITABLE_UNIT_PATH):
        assert f"  {unit}\n" in text, unit  # the units are part of the signed software
    assert integrity.verify_manifest(manifest, root).ok


@pytest.mark.skipif(bool(MISSING), reason=f"not installed: {', '.join(MISSING)}")
def test_an_image_enables_the_first_boot_and_the_read_only_root(tmp_path: Path) -> None:
    root = _image_root(tmp_path)
    assert _install(root) == 0
    wants = root / "etc/systemd/system/multi-user.target.wants"
    for unit in ("shoectl.service", "shoectl-firstboot.service",
                 "shoectl-readonly-root.service"):
        assert (wants / unit).is_symlink(), unit
    assert (root / "etc/systemd/system/sysinit.target.wants/shoectl-writable-dirs.service"
            ).is_symlink()
    assert not (wants / "shoectl-kiosk.service").exists()
    plain = _image_root(tmp_path / "plain")
    assert install_command.main(["--root", str(plain), "--source", str(REPO),
                                 "--no-venv"]) == 0
    plain_wants = plain / "etc/systemd/system/multi-user.target.wants"
    assert (plain_wants / "shoectl.service").is_symlink()
    assert not (plain_wants / "shoectl-firstboot.service").exists()  # a Pi installed in place
    assert not (plain_wants / "shoectl-readonly-root.service").exists()


@pytest.mark.parametrize("secret", SECRETS)
def test_an_image_with_a_secret_in_it_is_refused_naming_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], secret: str) -> None:
    root = _image_root(tmp_path)
    (root / secret).parent.mkdir(parents=True, exist_ok=True)
    (root / secret).write_text("x\n")
    assert _install(root) == 1
    assert not (root / "opt/shoectl/manifest.sha256").exists()  # refused before it began
    err = capsys.readouterr().err
    assert err == (f"shoectl install: --image: {root / secret} exists; an image carries no "
                   "secret (each card makes its own at first boot): remove it and install "
                   "again\n")


def test_the_first_boot_makes_the_cards_secrets_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _image_root(tmp_path)
    assert _install(root) == 0
    first = ["--root", str(root), "--first-boot"]
    assert install_command.main(first) == 0
    out = capsys.readouterr().out
    assert "journal key" in out
    assert "kiosk token" in out
    key_file = root / "etc/shoectl/journal.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o400
    key = keys.load_key(key_file)
    token = (root / "etc/shoectl/kiosk.token").read_text().strip()
    principal = Accounts(credentials_path(root / "etc/shoectl/config.toml")).token(token)
    assert principal is not None
    assert principal.role == "kiosk"
    assert install_command.main(first) == 0  # a second run (a key already there) keeps both
    assert "keeping the existing journal key" in capsys.readouterr().out
    assert keys.load_key(key_file).secret == key.secret
    assert (root / "etc/shoectl/kiosk.token").read_text().strip() == token
    assert integrity.verify_manifest(root / "opt/shoectl/manifest.sha256", root).ok


def test_two_cards_from_one_image_get_different_secrets(tmp_path: Path) -> None:
    image = _image_root(tmp_path)
    assert _install(image) == 0
    secrets = []
    for card in ("card1", "card2"):
        root = tmp_path / card
        shutil.copytree(image, root, symlinks=True)
        assert install_command.main(["--root", str(root), "--first-boot"]) == 0
        secrets.append((keys.load_key(root / "etc/shoectl/journal.key").secret,
                        (root / "etc/shoectl/kiosk.token").read_text()))
    assert secrets[0][0] != secrets[1][0]
    assert secrets[0][1] != secrets[1][1]


def test_a_first_boot_that_cannot_make_a_secret_says_which_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _image_root(tmp_path)
    assert _install(root) == 0
    credentials = root / "etc/shoectl/config.credentials.json"
    credentials.write_text("{not json\n")  # what a card's bad sector or a hand edit leaves
    assert install_command.main(["--root", str(root), "--first-boot"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("shoectl install --first-boot: kiosk token: ")
    assert str(credentials) in err
    assert err.count("\n") == 1


def _unit(name: str) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for line in (REPO / "systemd" / name).read_text().splitlines():
        match = re.match(r"^(\w+)=(.*)$", line)
        if match:
            values.setdefault(match.group(1), []).append(match.group(2))
    return values


def test_the_first_boot_runs_before_the_seal_and_the_service_and_only_without_a_key() -> None:
    first, seal, service = (_unit(name) for name in (
        "shoectl-firstboot.service", "shoectl-readonly-root.service", "shoectl.service"))
    key_path = next(v.split("=", 1)[1] for v in service["Environment"]
                    if v.startswith("SHOECTL_JOURNAL_KEY="))
    assert first["ConditionPathExists"] == [f"!{key_path}"]
    before = " ".join(first["Before"]).split()
    assert {"shoectl-readonly-root.service", "shoectl.service",
            "shoectl-kiosk.service"} <= set(before)
    assert "shoectl-firstboot.service" in " ".join(seal["After"]).split()
    assert "shoectl.service" in " ".join(seal["Before"]).split()
    assert first["ExecStart"] == [
        "/opt/shoectl/venv/bin/shoectl install --first-boot --config-dir /etc/shoectl"]


def test_the_seal_keeps_the_journal_writable_and_binds_before_the_log_moves_to_var() -> None:
    seal, binds, service = (_unit(name) for name in (
        "shoectl-readonly-root.service", "shoectl-writable-dirs.service", "shoectl.service"))
    assert seal["ExecStart"] == ["/usr/bin/mount -o remount,bind,ro /"]
    assert seal["Requires"] == ["shoectl-writable-dirs.service"]
    assert "shoectl-writable-dirs.service" in " ".join(seal["After"]).split()
    script = binds["ExecStart"][0]
    writable = re.search(r"for dir in ([^;]+);", script)
    assert writable is not None
    dirs = writable.group(1).split()
    state = f"/var/lib/{service['StateDirectory'][0]}"
    assert any(state.startswith(path + "/") for path in dirs)
    assert "/var" in dirs  # the system log (/var/log/journal) too
    # Bound before journald opens /var/log/journal through the root's mount point (an open
    # writer there makes the seal's remount fail: "mount point is busy").
    assert binds["DefaultDependencies"] == ["no"]
    assert "systemd-journal-flush.service" in " ".join(binds["Before"]).split()
    assert binds["WantedBy"] == ["sysinit.target"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed (Debian package systemd)")
def test_systemd_analyze_verify_is_silent_on_the_image_units(tmp_path: Path) -> None:
    import subprocess

    prefix = tmp_path / "opt/shoectl"
    binary = prefix / "venv/bin/shoectl"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\nexit 0\n")
    binary.chmod(0o755)
    units = []
    for name in ("shoectl-firstboot.service", "shoectl-writable-dirs.service",
                 "shoectl-readonly-root.service"):
        unit = tmp_path / name
        unit.write_text(installer.render_unit((REPO / "systemd" / name).read_text(),
                                              str(prefix), str(tmp_path / "etc/shoectl")))
        units.append(str(unit))
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", *units],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          check=False)
    # Units these name in After=/Before= that a Raspberry Pi OS image has (and the
    # installer's own shoectl.service, shoectl-kiosk.service) are not what is checked here.
    noise = [line for line in done.stderr.splitlines()
             if "regenerate_ssh_host_keys" not in line and "shoectl-kiosk" not in line]
    assert done.returncode == 0, done.stderr
    assert noise == [], done.stderr
    assert done.stdout == ""


def test_the_copied_checkout_keeps_vision_build_and_leaves_out_debris(tmp_path: Path) -> None:
    """`build` at the top is build output; `vision/build` is a package the emulated camera
    imports (an installed table with an emulated camera crashed without it). Importing
    lgpio leaves a named pipe (.lgd-nfy0) in the working folder; copying one fails."""
    source = tmp_path / "checkout"
    for name in ("pyproject.toml", "vision/build/synth.py", "build/lib/x.py", ".venv/bin/x",
                 "vision/__pycache__/a.pyc", "x.egg-info/PKG-INFO"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text("x\n")
    os.mkfifo(source / ".lgd-nfy0")
    copy = tmp_path / "copy"
    shutil.copytree(source, copy, ignore=installer.source_ignore(source))
    copied = sorted(str(path.relative_to(copy)) for path in copy.rglob("*") if path.is_file())
    assert copied == ["pyproject.toml", "vision/build/synth.py"]
