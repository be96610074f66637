"""Software self-authentication (R16): manifest generation and the start-of-service check."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from controller.appliance import integrity


@pytest.fixture
def staged(tmp_path: Path) -> tuple[Path, Path]:
    """A staging root with an installed package tree and a unit; returns (root, manifest)."""
    root = tmp_path / "root"
    package = root / "opt/shoectl/venv/lib/python3.11/site-packages/controller"
    (package / "__pycache__").mkdir(parents=True)
    (package / "app.py").write_text("print('table')\n")
    (package / "__pycache__/app.cpython-311.pyc").write_bytes(b"\x00\x01compiled")
    unit = root / "etc/systemd/system/shoectl.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\n")
    text = integrity.build_manifest(
        ["/opt/shoectl/venv/lib/python3.11/site-packages/controller"],
        ["/etc/systemd/system/shoectl.service"], root=root,
    )
    manifest = tmp_path / "manifest.sha256"
    manifest.write_text(text)
    return root, manifest


def test_manifest_lists_every_file_with_its_sha256(staged) -> None:
    _root, manifest = staged
    lines = manifest.read_text().splitlines()
    assert lines[0] == integrity.HEADER
    app = "/opt/shoectl/venv/lib/python3.11/site-packages/controller/app.py"
    expected = hashlib.sha256(b"print('table')\n").hexdigest()
    assert f"{expected}  {app}" in lines
    assert sum(1 for line in lines if not line.startswith("#")) == 3


def test_intact_installation_verifies(staged) -> None:
    root, manifest = staged
    report = integrity.verify_manifest(manifest, root)
    assert report.ok
    assert report.files == 3
    assert report.signature == hashlib.sha256(manifest.read_bytes()).hexdigest()


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="coreutils sha256sum not installed")
def test_manifest_is_checkable_with_sha256sum(tmp_path: Path) -> None:
    target = tmp_path / "tool.py"
    target.write_text("x = 1\n")
    manifest = tmp_path / "m.sha256"
    manifest.write_text(integrity.build_manifest([], [str(target)]))
    done = subprocess.run(["sha256sum", "-c", "--strict", str(manifest)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert f"{target}: OK" in done.stdout


@pytest.mark.parametrize(
    ("tamper", "problem"),
    [
        (lambda pkg: (pkg / "app.py").write_text("print('rigged')\n"), "changed: "),
        (lambda pkg: (pkg / "app.py").unlink(), "missing: "),
        (lambda pkg: (pkg / "evil.py").write_text("import os\n"), "unexpected: "),
        (lambda pkg: (pkg / "__pycache__/app.cpython-311.pyc").write_bytes(b"x"), "changed: "),
    ],
)
def test_tampering_is_named(staged, tamper, problem) -> None:
    root, manifest = staged
    tamper(root / "opt/shoectl/venv/lib/python3.11/site-packages/controller")
    report = integrity.verify_manifest(manifest, root)
    assert not report.ok
    assert report.problems[0].startswith(problem)
    assert "/opt/shoectl/venv/lib/python3.11/site-packages/controller/" in report.problems[0]


def test_tampered_manifest_or_none_is_a_problem(staged, tmp_path: Path) -> None:
    root, manifest = staged
    manifest.write_text(manifest.read_text().replace(integrity.HEADER, "# other"))
    assert "not a shoectl manifest" in integrity.verify_manifest(manifest, root).problems[0]
    assert "manifest unusable" in integrity.verify_manifest(tmp_path / "none", root).problems[0]
    manifest.write_text(integrity.HEADER + "\nabc  /x\n")
    assert "line 2: malformed entry" in integrity.verify_manifest(manifest, root).problems[0]


def test_building_a_manifest_of_missing_files_is_refused(tmp_path: Path) -> None:
    with pytest.raises(integrity.IntegrityError, match="/opt/none does not exist"):
        integrity.build_manifest(["/opt/none"], root=tmp_path)
    with pytest.raises(integrity.IntegrityError, match="/etc/none does not exist"):
        integrity.build_manifest([], ["/etc/none"], root=tmp_path)


class Recorded:
    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        self.records.append((kind, data))


def _manifest_of_real_file(tmp_path: Path) -> tuple[Path, Path]:
    target = tmp_path / "controller.py"
    target.write_text("pass\n")
    manifest = tmp_path / "manifest.sha256"
    manifest.write_text(integrity.build_manifest([], [str(target)]))
    return target, manifest


def test_start_check_records_the_signature(tmp_path: Path) -> None:
    _, manifest = _manifest_of_real_file(tmp_path)
    recorded = Recorded()
    report = integrity.authenticate_at_start(
        recorded, required=True, environ={"SHOECTL_MANIFEST": str(manifest)})
    assert report is not None
    assert report.ok
    [(kind, data)] = recorded.records
    assert kind == "system:software-verified"
    assert data["signature"] == report.signature
    assert data["severity"] == "info"


def test_start_check_refuses_a_mismatch_and_records_it_as_critical(tmp_path: Path) -> None:
    target, manifest = _manifest_of_real_file(tmp_path)
    target.write_text("rigged = True\n")
    recorded = Recorded()
    with pytest.raises(integrity.IntegrityError, match=r"changed: .*controller\.py"):
        integrity.authenticate_at_start(
            recorded, required=False, environ={"SHOECTL_MANIFEST": str(manifest)})
    [(kind, data)] = recorded.records
    assert kind == "system:software-mismatch"
    assert data["severity"] == "critical"
    assert data["problems"] == [f"changed: {target}"]


def test_no_manifest_is_refused_on_a_real_table_and_noted_on_an_emulated_rig() -> None:
    recorded = Recorded()
    with pytest.raises(integrity.IntegrityError, match="SHOECTL_MANIFEST is not set"):
        integrity.authenticate_at_start(recorded, required=True, environ={})
    assert recorded.records[-1][0] == "system:software-mismatch"
    assert integrity.authenticate_at_start(recorded, required=False, environ={}) is None
    assert recorded.records[-1] == (
        "system:software-unverified", {"severity": "warning", "reason": "SHOECTL_MANIFEST not set"})
