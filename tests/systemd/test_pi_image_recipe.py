"""The SD-card image recipe: `systemd/pi/build_image.sh` and its pi-gen stage.

pi-gen itself (and Raspberry Pi OS's packages) cannot be reached from here; what is checked
is what this project writes: the stage put with the checkout's files, the build refusing
what would make a bad image, and the stage's run script doing what pi-gen would have it do,
with pi-gen's `on_chroot` replaced by a recorder. `make pi-check` runs the same stage in an
arm64 root with `on_chroot` done by systemd-nspawn, and boots the result.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "systemd/pi/build_image.sh"
STAGE = "stage-shoectl"


def _run(*args: str, env: dict[str, str] | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BUILD), *args], capture_output=True, text=True, timeout=300,
                          check=False, env=env, cwd=cwd)


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    into = tmp_path_factory.mktemp("pi-gen")
    done = _run("--stage-only", str(into))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(into / STAGE)
    return into / STAGE


def test_the_stage_carries_the_checkouts_files_and_nothing_git_ignores(staged: Path) -> None:
    source = staged / "00-shoectl/files/shoectl-src"
    for name in ("pyproject.toml", "systemd/install.sh", "systemd/shoectl-firstboot.service",
                 "controller/cli/install_command.py"):
        assert (source / name).is_file(), name
    assert (source / "systemd/install.sh").read_bytes() == (
        REPO / "systemd/install.sh").read_bytes()
    for ignored in (".venv", ".git", "build"):
        assert not (source / ignored).exists(), ignored
    assert not list(source.rglob("__pycache__"))
    assert (staged / "prerun.sh").stat().st_mode & 0o111
    assert (staged / "00-shoectl/01-run.sh").stat().st_mode & 0o111
    assert "IMG_SUFFIX=" in (staged / "EXPORT_IMAGE").read_text()


def test_the_stages_packages_are_what_the_install_needs(staged: Path) -> None:
    packages = (staged / "00-shoectl/00-packages").read_text().split()
    for needed in ("python3-venv", "python3-dev", "gcc", "libusb-1.0-0", "libpq5"):
        assert needed in packages, needed


def _chroot_recorder(tmp_path: Path) -> tuple[Path, str]:
    """A root folder and an `on_chroot` that records each script it is given."""
    root = tmp_path / "rootfs"
    (root / "usr/src").mkdir(parents=True)
    log = tmp_path / "chroot.log"
    # The recorder also checks what the script will find in the root at that moment.
    function = (f'on_chroot() {{ {{ echo "--- source there: '
                f'$(test -f {root}/usr/src/shoectl-src/systemd/install.sh && echo yes)"; '
                f'cat; }} >> {log}; }}')
    return root, function


@pytest.mark.parametrize("kiosk", ["0", "1"])
def test_the_stage_installs_an_image_and_leaves_no_source(
        staged: Path, tmp_path: Path, kiosk: str) -> None:
    root, on_chroot = _chroot_recorder(tmp_path)
    done = subprocess.run(
        ["/bin/bash", "-e", "-c", f"{on_chroot}; export -f on_chroot; ./01-run.sh"],
        cwd=staged / "00-shoectl", capture_output=True, text=True, timeout=120, check=False,
        env={"PATH": "/usr/bin:/bin", "ROOTFS_DIR": str(root), "SHOECTL_KIOSK": kiosk})
    assert done.returncode == 0, done.stderr
    scripts = (tmp_path / "chroot.log").read_text().split("--- source there: ")[1:]
    install = scripts[-1]
    assert install.startswith("yes\n")  # the checkout is in the root while it installs
    command = install.splitlines()[1].split()
    assert command[:2] == ["/usr/src/shoectl-src/systemd/install.sh", "--image"]
    assert ("--kiosk" in command) == (kiosk == "1")
    if kiosk == "1":
        assert len(scripts) == 2
        assert scripts[0].splitlines()[1].split()[-2:] == ["cage", "chromium"]
    else:
        assert len(scripts) == 1
    assert not (root / "usr/src/shoectl-src").exists()  # no source left in the image


def _pi_gen_and_key(tmp_path: Path) -> tuple[Path, Path]:
    """A stand-in pi-gen checkout (its build.sh says how it was run) and a public key."""
    pi_gen = tmp_path / "pi-gen"
    (pi_gen / "stage2").mkdir(parents=True)
    (pi_gen / "build.sh").write_text('#!/bin/sh\necho "built with $*"\n')
    (pi_gen / "build.sh").chmod(0o755)
    key = tmp_path / "id.pub"
    key.write_text("ssh-ed25519 AAAAC3Nza engineer@bench\n")
    return pi_gen, key


def test_a_build_without_pi_gen_or_with_a_bad_key_is_refused_in_one_line(
        tmp_path: Path) -> None:
    pi_gen, key = _pi_gen_and_key(tmp_path)
    done = _run("--pi-gen", str(tmp_path), "--ssh-key", str(key))
    assert done.returncode == 2
    assert done.stderr == (f"build_image.sh: {tmp_path} is not a pi-gen checkout (no build.sh, "
                           "no stage2)\n")
    private = tmp_path / "id"
    private.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    done = _run("--pi-gen", str(pi_gen), "--ssh-key", str(private))
    assert done.returncode == 2
    assert done.stderr == (f"build_image.sh: {private} is not an SSH public key (ssh-ed25519 "
                           "... or ssh-rsa ...)\n")
    done = _run("--pi-gen", str(pi_gen))
    assert done.returncode == 2
    assert done.stderr.startswith("usage: ")
    done = _run("--frobnicate")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == "build_image.sh: unknown option --frobnicate"


def test_a_build_writes_pi_gens_config_with_the_stage_and_no_known_password(
        tmp_path: Path) -> None:
    pi_gen, key = _pi_gen_and_key(tmp_path)
    if os.geteuid() != 0:
        done = _run("--pi-gen", str(pi_gen), "--ssh-key", str(key))
        assert (done.returncode, done.stderr) == (
            2, "build_image.sh: run as root (pi-gen mounts and chroots)\n")
        return
    runs = []
    for _ in range(2):
        done = _run("--pi-gen", str(pi_gen), "--ssh-key", str(key), "--kiosk")
        assert done.returncode == 0, done.stderr
        assert done.stdout == "built with -c config-shoectl\n"
        runs.append((pi_gen / "config-shoectl").read_text())
    config = dict(line.split("=", 1) for line in runs[0].splitlines()
                  if "=" in line and not line.startswith("export"))
    assert config["STAGE_LIST"] == '"stage0 stage1 stage2 stage-shoectl"'
    assert config["PUBKEY_SSH_FIRST_USER"] == "'ssh-ed25519 AAAAC3Nza engineer@bench'"
    assert config["PUBKEY_ONLY_SSH"] == "1"
    assert config["DISABLE_FIRST_BOOT_USER_RENAME"] == "1"
    assert "export SHOECTL_KIOSK=1" in runs[0]
    passwords = [dict(line.split("=", 1) for line in run.splitlines() if "=" in line)
                 ["FIRST_USER_PASS"] for run in runs]
    assert passwords[0] != passwords[1]  # made at random for each build, never printed
    assert len(passwords[0]) >= 30
    assert (pi_gen / "stage2/SKIP_IMAGES").exists()
    assert (pi_gen / STAGE / "00-shoectl/files/shoectl-src/pyproject.toml").is_file()
