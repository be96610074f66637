"""`shoectl install --root DIR`: a full installation into a scratch root, checked file by file."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from controller.appliance import installer, integrity
from controller.cli import install_command

REPO = Path(__file__).resolve().parents[2]
MISSING = [tool for tool in ("systemd-sysusers", "systemctl") if shutil.which(tool) is None]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real installation (venv, project, files, manifest, offline activation)."""
    root = tmp_path_factory.mktemp("root")
    (root / "etc").mkdir()
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    (root / "etc/group").write_text("root:x:0:\ndialout:x:20:\nvideo:x:44:\n")
    args = ["--root", str(root), "--source", str(REPO)]
    if MISSING:
        args.append("--no-activate")
    assert install_command.main(args) == 0
    return root


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.mark.parametrize(
    ("target", "mode", "source"),
    [
        ("etc/udev/rules.d/70-shoectl.rules", 0o644, "systemd/udev/70-shoectl.rules"),
        ("etc/sysusers.d/shoectl.conf", 0o644, "systemd/sysusers.d/shoectl.conf"),
        ("etc/systemd/system.conf.d/shoectl-watchdog.conf", 0o644,
         "systemd/system.conf.d/shoectl-watchdog.conf"),
        ("etc/shoectl/config.toml", 0o640, "systemd/config.toml.template"),
        ("opt/shoectl/config.toml.template", 0o644, "systemd/config.toml.template"),
        ("opt/shoectl/README.md", 0o644, "README.md"),
    ],
)
def test_files_are_installed_with_their_modes(root: Path, target, mode, source) -> None:
    assert (root / target).read_bytes() == (REPO / source).read_bytes()
    assert _mode(root / target) == mode


def test_unit_is_installed_with_its_paths_filled_in(root: Path) -> None:
    unit = (root / "etc/systemd/system/shoectl.service").read_text()
    assert unit == (REPO / "systemd/shoectl.service").read_text()  # default prefix: unchanged
    assert "ExecStart=/opt/shoectl/venv/bin/shoectl run --config /etc/shoectl/config.toml" in unit
    assert "Storage=persistent" in (root / "etc/systemd/journald.conf.d/shoectl.conf").read_text()


def test_render_unit_fills_in_another_prefix() -> None:
    text = installer.render_unit((REPO / "systemd/shoectl.service").read_text(), "/srv/tc",
                               "/etc/tc")
    assert "ExecStart=/srv/tc/venv/bin/shoectl run --config /etc/tc/config.toml" in text
    assert "SHOECTL_MANIFEST=/srv/tc/manifest.sha256" in text
    assert "/opt/shoectl" not in text


def test_venv_scripts_point_at_the_target_path_and_run(root: Path) -> None:
    script = root / "opt/shoectl/venv/bin/shoectl"
    first = script.read_text().splitlines()[0]
    assert first == "#!/opt/shoectl/venv/bin/python"
    python = root / "opt/shoectl/venv/bin/python"
    done = subprocess.run([str(python), "-c",
                           "import controller.cli.shoectl, drivers, firmware_bridge, "
                           "controller.camera.emulated, vision.build.synth"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_command_is_linked_onto_the_path(root: Path) -> None:
    link = root / "usr/local/bin/shoectl"
    assert os.readlink(link) == "/opt/shoectl/venv/bin/shoectl"
    assert f"# link {installer.COMMAND_LINK} -> /opt/shoectl/venv/bin/shoectl" in (
        root / "opt/shoectl/manifest.sha256").read_text()


def test_installed_package_is_a_copy_not_the_checkout(root: Path) -> None:
    site = next((root / "opt/shoectl/venv/lib").glob("python3*/site-packages"))
    assert (site / "controller/appliance/integrity.py").read_bytes() == (
        REPO / "controller/appliance/integrity.py").read_bytes()
    assert not list(site.glob("__editable__*"))
    assert list((site / "controller/appliance/__pycache__").glob("integrity.*.pyc"))


def test_manifest_covers_the_venv_and_the_system_files_and_verifies(root: Path) -> None:
    manifest = root / "opt/shoectl/manifest.sha256"
    assert _mode(manifest) == 0o444
    text = manifest.read_text()
    assert "# tree /opt/shoectl/venv\n" in text
    for target in (installer.UNIT_PATH, installer.UDEV_PATH, installer.SYSUSERS_PATH,
                   installer.JOURNALD_PATH, "/opt/shoectl/venv/bin/shoectl"):
        assert f"  {target}\n" in text, target
    assert "  /etc/shoectl/config.toml" not in text  # configuration is checked, not hashed
    report = integrity.verify_manifest(manifest, root)
    assert report.ok, report.problems[:5]
    assert report.files > 100


@pytest.mark.skipif(bool(MISSING), reason=f"not installed: {', '.join(MISSING)}")
def test_offline_activation_creates_the_user_and_enables_the_unit(root: Path) -> None:
    passwd = (root / "etc/passwd").read_text()
    assert "\nshoectl:x:" in passwd
    groups = {line.split(":")[0]: line.split(":") for line in
              (root / "etc/group").read_text().splitlines()}
    for group in ("dialout", "gpio", "video"):
        assert "shoectl" in groups[group][3].split(","), group
    assert "shoectl" in groups
    config = root / "etc/shoectl/config.toml"
    if os.geteuid() == 0:
        assert config.stat().st_gid == int(groups["shoectl"][2])
    wants = root / "etc/systemd/system/multi-user.target.wants/shoectl.service"
    assert wants.is_symlink()


def test_reinstall_keeps_the_configuration_and_renews_the_manifest(root: Path) -> None:
    config = root / "etc/shoectl/config.toml"
    config.write_text(config.read_text() + "# edited by the casino engineer\n")
    assert install_command.main(["--root", str(root), "--source", str(REPO), "--no-venv",
                         "--no-activate"]) == 0
    assert config.read_text().endswith("# edited by the casino engineer\n")
    assert integrity.verify_manifest(root / "opt/shoectl/manifest.sha256", root).ok


def test_install_refuses_a_directory_that_is_no_checkout(tmp_path: Path, capsys) -> None:
    assert install_command.main(["--root", str(tmp_path), "--source", str(tmp_path)]) == 1
    assert "is not a shoectl source checkout" in capsys.readouterr().err


def test_install_sh_runs_the_installer_with_the_system_python() -> None:
    done = subprocess.run([str(REPO / "systemd/install.sh"), "--help"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "usage: shoectl install" in done.stdout
    assert "--root ROOT" in done.stdout


def test_config_template_is_a_valid_real_table() -> None:
    from controller.service.tableconfig import load_table_file
    from drivers.config import parse_devices

    table = load_table_file(REPO / "systemd/config.toml.template")
    devices = parse_devices(table.document["devices"], allow_emulated=False)
    assert devices.emulated == ()
    assert devices.shoe is not None
    assert devices.shoe.port.url == "/dev/shoe-scanner"  # the udev rules' names
    assert devices.layout is not None
    assert devices.layout.port.url == "/dev/table-board"
    assert devices.sign is not None
    assert devices.sign.port.url == "/dev/jackpot-sign"


# A stand-in for the Python that makes the venv (and, by a link, the venv's own): it records
# each call, makes the venv's folders, says the machine it is asked to be, and leaves what
# rpi-lgpio's and lgpio's wheels would in a `pip install --target` folder.
FAKE_PYTHON = """#!/bin/sh
echo "$0 $*" >> "$FAKE_PYTHON_LOG"
if [ "$1 $2" = "-m venv" ]; then
    mkdir -p "$4/bin" "$4/lib/python3.11/site-packages/RPi/GPIO"
    : > "$4/lib/python3.11/site-packages/RPi/GPIO/__init__.py"
    ln -s "$FAKE_PYTHON" "$4/bin/python"
elif [ "$1" = "-c" ]; then
    echo "$FAKE_MACHINE"
fi
target=
for arg in "$@"; do
    if [ "$previous" = "--target" ]; then target=$arg; fi
    previous=$arg
done
if [ -n "$target" ]; then
    mkdir -p "$target/RPi/GPIO"
    : > "$target/RPi/__init__.py"
    echo "import lgpio" > "$target/RPi/GPIO/__init__.py"
    echo "VERSION = '0.2.2.0'" > "$target/lgpio.py"
fi
"""


@pytest.mark.parametrize(("machine", "side_install"), [
    ("aarch64", True),
    ("x86_64", False),
])
def test_arm64_venvs_get_rpi_lgpio_beside_rpi_gpio_before_compiling_and_hashing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, machine: str, side_install: bool
        ) -> None:
    fake = tmp_path / "python3"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    calls = tmp_path / "calls"
    monkeypatch.setenv("FAKE_PYTHON", str(fake))
    monkeypatch.setenv("FAKE_PYTHON_LOG", str(calls))
    monkeypatch.setenv("FAKE_MACHINE", machine)
    source = tmp_path / "checkout"
    source.mkdir()
    (source / "pyproject.toml").write_text("[project]\nname = 'shoectl'\n")
    layout = installer.InstallPaths(tmp_path / "root", "/opt/shoectl", "/etc/shoectl", source)
    installer.build_venv(layout, str(fake))

    venv = tmp_path / "root/opt/shoectl/venv"
    pip = f"{venv}/bin/python -m pip install --quiet --disable-pip-version-check " \
          "--no-warn-script-location"
    steps = calls.read_text().splitlines()
    assert steps[0] == f"{fake} -m venv --clear {venv}"
    assert steps[1].startswith(f"{pip} /")  # the project, from a copy of the checkout
    assert steps[2] == f"{venv}/bin/python -c import platform; print(platform.machine())"
    side = [f"{pip} --target {venv}/lib/pi5-gpio rpi-lgpio>=0.6,<1"] if side_install else []
    assert steps[3:] == [*side, f"{venv}/bin/python -m compileall -q -f --invalidation-mode "
                                f"checked-hash {venv}/lib"]

    installer.write_manifest(layout, [])
    manifest = (tmp_path / "root/opt/shoectl/manifest.sha256").read_text()
    assert "  /opt/shoectl/venv/lib/python3.11/site-packages/RPi/GPIO/__init__.py\n" in manifest
    for target in ("lib/pi5-gpio/RPi/GPIO/__init__.py", "lib/pi5-gpio/lgpio.py"):
        assert (f"  /opt/shoectl/venv/{target}\n" in manifest) is side_install, target


def test_systemd_counts_as_running_only_where_its_runtime_folder_is(tmp_path: Path) -> None:
    # A chroot or an unbooted container (an image being built) has no /run/systemd/system:
    # the installer must not ask a manager that is not there to reload.
    assert installer.systemd_booted(tmp_path / "run/systemd/system") is False
    (tmp_path / "run/systemd/system").mkdir(parents=True)
    assert installer.systemd_booted(tmp_path / "run/systemd/system") is True


def test_the_journal_key_is_made_once_for_the_service_user_alone(root: Path) -> None:
    from controller.journal import keys

    key_file = root / "etc/shoectl/journal.key"
    assert _mode(key_file) == 0o400
    assert _mode(key_file.parent) == 0o755
    assert key_file.parent.stat().st_uid == 0
    passwd = (root / "etc/passwd").read_text()
    if "\nshoectl:x:" in passwd and os.geteuid() == 0:
        uid = int(passwd.split("\nshoectl:x:")[1].split(":")[0])
        assert key_file.stat().st_uid == uid
    key = keys.load_key(key_file)
    assert key.secret.hex() not in (root / "opt/shoectl/manifest.sha256").read_text()
    assert "  /etc/shoectl/journal.key" not in (root / "opt/shoectl/manifest.sha256").read_text()
    assert install_command.main(["--root", str(root), "--source", str(REPO), "--no-venv",
                                 "--no-activate"]) == 0
    assert keys.load_key(key_file).secret == key.secret  # a reinstall never replaces it
    unit = (root / "etc/systemd/system/shoectl.service").read_text()
    assert "Environment=SHOECTL_JOURNAL_KEY=/etc/shoectl/journal.key\n" in unit
    assert "RestartPreventExitStatus=2 3 4\n" in unit


def _kiosk_token(root: Path) -> str:
    return (root / "etc/shoectl/kiosk.token").read_text().strip()


def test_the_kiosk_gets_a_token_the_table_knows_readable_by_root_alone(root: Path) -> None:
    from controller.web.accounts import Accounts, credentials_path

    token_file = root / "etc/shoectl/kiosk.token"
    assert _mode(token_file) == 0o600
    assert token_file.stat().st_uid == os.geteuid()  # root's on a real install
    credentials = credentials_path(root / "etc/shoectl/config.toml")
    assert _mode(credentials) == 0o600
    passwd = (root / "etc/passwd").read_text()
    if "\nshoectl:x:" in passwd and os.geteuid() == 0:  # the service reads its credentials
        uid = int(passwd.split("\nshoectl:x:")[1].split(":")[0])
        assert credentials.stat().st_uid == uid
    token = _kiosk_token(root)
    principal = Accounts(credentials).token(token)
    assert principal is not None
    assert principal.role == "kiosk"
    unit = (root / "etc/systemd/system/shoectl-kiosk.service").read_text()
    assert f"LoadCredential=kiosk-token:/etc/shoectl/{installer.KIOSK_TOKEN_NAME}\n" in unit
    manifest = (root / "opt/shoectl/manifest.sha256").read_text()
    assert token not in manifest
    assert "kiosk.token" not in manifest


def test_a_reinstall_keeps_a_working_kiosk_token_and_renews_it_only_when_asked(
        root: Path) -> None:
    from controller.web.accounts import Accounts, credentials_path

    accounts = Accounts(credentials_path(root / "etc/shoectl/config.toml"))
    again = ["--root", str(root), "--source", str(REPO), "--no-venv", "--no-activate"]
    first = _kiosk_token(root)
    assert install_command.main(again) == 0
    assert _kiosk_token(root) == first
    assert accounts.token(first) is not None  # still working
    assert install_command.main([*again, "--renew-kiosk-token"]) == 0
    renewed = _kiosk_token(root)
    assert renewed != first
    assert accounts.token(first) is None
    assert accounts.token(renewed) is not None
    assert _mode(root / "etc/shoectl/kiosk.token") == 0o600


def test_a_kiosk_token_replaced_by_hand_is_left_alone_and_said(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from controller.cli import console_command
    from controller.web.accounts import Accounts, credentials_path

    (tmp_path / "opt/shoectl/venv").mkdir(parents=True)
    args = ["--root", str(tmp_path), "--source", str(REPO), "--no-venv", "--no-activate"]
    assert install_command.main(args) == 0
    config = tmp_path / "etc/shoectl/config.toml"
    assert console_command.main(["token", "kiosk", "--config", str(config)]) == 0
    by_hand = Accounts(credentials_path(config))
    stale = _kiosk_token(tmp_path)
    assert by_hand.token(stale) is None
    caplog.set_level("INFO")
    assert install_command.main(args) == 0
    assert _kiosk_token(tmp_path) == stale  # not replaced: the hand-made token keeps working
    assert "the kiosk will not log in; `shoectl install --renew-kiosk-token`" in caplog.text
    assert install_command.main([*args, "--renew-kiosk-token"]) == 0
    assert by_hand.token(_kiosk_token(tmp_path)) is not None


def test_a_kiosk_token_file_opened_to_others_is_closed_again(tmp_path: Path) -> None:
    (tmp_path / "opt/shoectl/venv").mkdir(parents=True)
    args = ["--root", str(tmp_path), "--source", str(REPO), "--no-venv", "--no-activate"]
    assert install_command.main(args) == 0
    token_file = tmp_path / "etc/shoectl/kiosk.token"
    token_file.chmod(0o644)
    assert install_command.main(args) == 0
    assert _mode(token_file) == 0o600


def test_a_broken_credentials_file_stops_the_install_saying_where(tmp_path: Path,
                                                                  capsys) -> None:
    (tmp_path / "opt/shoectl/venv").mkdir(parents=True)
    (tmp_path / "etc/shoectl").mkdir(parents=True)
    (tmp_path / "etc/shoectl/config.credentials.json").write_text("{not json")
    args = ["--root", str(tmp_path), "--source", str(REPO), "--no-venv", "--no-activate"]
    assert install_command.main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("shoectl install: kiosk token: ")
    assert "config.credentials.json: not a credentials file" in err
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "etc/shoectl/kiosk.token").exists()
