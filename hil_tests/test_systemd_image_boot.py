"""A card flashed from the SD-card image, booting for the first time (amd64, systemd-nspawn).

`shoectl install --image` into a copy of the boot test's Debian root (no secret in it), a
hold'em table on emulated devices, then `systemd-nspawn -b`: shoectl-firstboot.service
makes the journal key and kiosk token, shoectl-readonly-root.service seals the root, and a
probe deals one round through the console with the token the first boot made
(`hil_tests/image_rig.py`). `make pi-check` boots the same rig on arm64 from the pi-gen stage.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import install_command
from controller.journal import keys
from hil_tests import image_rig
from hil_tests import test_systemd_boot as boot_test

pytestmark = pytest.mark.timeout(1800)
SECRETS = ("journal.key", "kiosk.token", "config.credentials.json")


@pytest.fixture(scope="module")
def first_boot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    why = boot_test._cannot_run()
    if why:
        pytest.skip(why)
    cached, _ = boot_test.cached_debian_root()
    refused = boot_test._nspawn_refuses(cached)
    if refused:
        pytest.skip(refused)
    minor = boot_test._host_python_minor()
    if not (cached / f"usr/lib/python3.{minor}").is_dir():
        pytest.skip(f"{boot_test.HOST_PYTHON} is 3.{minor}, the root has another Python")
    work = tmp_path_factory.mktemp("image")
    root, results = work / "root", work / "results"
    subprocess.run(["cp", "-a", "--reflink=auto", str(cached), str(root)], check=True)
    assert install_command.main(["--root", str(root), "--source", str(boot_test.REPO),
                                 "--python", boot_test.HOST_PYTHON, "--image"]) == 0
    in_image = [name for name in SECRETS if (root / "etc/shoectl" / name).exists()]
    image_rig.prepare_image_boot(root, results, watchdog_s=30)
    started = time.monotonic()
    done = boot_test.boot(root, results)
    if not (results / "journal.txt").exists():
        pytest.fail(f"the probe did not finish (nspawn exit {done.returncode}):\n"
                    f"{(done.stdout + done.stderr)[-4000:]}")
    yield {"root": root, "results": results, "in_image": in_image,
           "boot_s": time.monotonic() - started}
    shutil.rmtree(root, ignore_errors=True)


def _read(first_boot: dict[str, object], name: str) -> str:
    results = first_boot["results"]
    assert isinstance(results, Path)
    path = results / name
    return path.read_text().strip() if path.exists() else f"(no {name})"


def test_the_image_held_no_secret_and_the_first_boot_made_them(first_boot) -> None:
    assert first_boot["in_image"] == []
    root = first_boot["root"]
    assert isinstance(root, Path)
    assert keys.load_key(root / "etc/shoectl/journal.key")
    assert (root / "etc/shoectl/kiosk.token").read_text().strip()
    assert set(_read(first_boot, "firstboot.txt").split()) == {"ActiveState=active",
                                                              "Result=success"}


def test_the_root_is_read_only_once_booted_and_var_is_not(first_boot) -> None:
    assert set(_read(first_boot, "seal.txt").split()) == {"ActiveState=active", "Result=success"}
    assert set(_read(first_boot, "binds.txt").split()) == {"ActiveState=active", "Result=success"}
    assert "ro" in _read(first_boot, "root_options.txt").split(",")
    assert "rw" in _read(first_boot, "var_options.txt").split(",")
    assert "Read-only file system" in _read(first_boot, "etc_write.txt")
    assert _read(first_boot, "var_write.txt") == "ok"
    root = first_boot["root"]
    assert isinstance(root, Path)
    assert not (root / "etc/shoectl/written-after-the-seal").exists()


def test_a_holdem_round_is_dealt_with_the_first_boots_token_and_journalled(first_boot) -> None:
    assert "ActiveState=active" in _read(first_boot, "ready.txt").split()
    assert _read(first_boot, "holdem_rc") == "0", _read(first_boot, "probe.err")
    last = json.loads(_read(first_boot, "holdem.json"))
    assert last["board"] == ["AS", "KD", "7C", "2H", "9S"]
    assert last["seats"]["1"]["net"] > 0  # trip aces beat the dealer's queens
    root, results = first_boot["root"], first_boot["results"]
    assert isinstance(root, Path)
    assert isinstance(results, Path)
    said = image_rig.verify_image_boot(root, results)
    assert "journal verified with the first boot's key" in said
