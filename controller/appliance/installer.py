"""The installer behind `shoectl install`: a Raspberry Pi (or any systemd machine) as an appliance.

Run as root from a source checkout (`sudo systemd/install.sh`, which calls this module with
the system Python before any virtual environment exists, or `shoectl install` from a
development environment). The steps:

1. a virtual environment at PREFIX/venv with the project installed from the checkout (on
   arm64 also rpi-lgpio and lgpio in PREFIX/venv/lib/pi5-gpio, which the GPIO driver uses
   on a Pi 5), byte-compiled with hash-checked .pyc files (nothing is rewritten at run time);
2. the systemd units (paths filled in), the udev rules, the sysusers.d file, a journald
   drop-in that keeps logs across power loss and a system drop-in that arms the hardware
   watchdog;
3. /etc/shoectl/config.toml from the commented template, only if there is none yet (an
   existing configuration is never overwritten; the template is kept beside the venv);
4. the SHA-256 manifest of everything above (R16), checked by the service at every start;
5. activation: the system user and groups (systemd-sysusers), `systemctl enable`, a udev
   reload;
6. the audit journal's key, CONFIG_DIR/journal.key, only if there is none yet (a journal
   written under a key can only be checked with that key, so it is never replaced): 32
   random bytes, owned by the service user, mode 0400, in the root-owned configuration
   directory, which the service cannot write (ProtectSystem=strict).
7. the kiosk's token (`shoectl console token kiosk`): its digest in the credentials file
   beside the configuration (made now if missing: mode 0600, the service user's), the token
   in CONFIG_DIR/kiosk.token, root's alone (mode 0600), where the kiosk unit's
   `LoadCredential=` has systemd read it. A token already there that the credentials file
   still holds is kept; a new one is made only when the kiosk has none, or when asked
   (`--renew-kiosk-token`, which ends the old token's sessions). A kiosk.token the
   credentials no longer hold (the token was made again by hand) is left alone and said.

With `--image` (an SD-card image flashed onto many cards) steps 6 and 7 are left to each
card's first boot (shoectl-firstboot.service runs `shoectl install --first-boot`), and
shoectl-writable-dirs.service and shoectl-readonly-root.service are enabled: once booted,
the root is read-only but for /var, /home and /tmp (docs/pi.md).

With `--root DIR` everything is written under DIR instead (a scratch root for tests, or an
image being built for the same architecture) and activation is done offline
(`systemd-sysusers --root`, `systemctl --root enable`) where DIR has an /etc.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.appliance import integrity
from controller.journal import keys
from controller.journal.errors import JournalKeyError
from drivers import raspberry_pi

_log = logging.getLogger(__name__)

DEFAULT_PREFIX: Final = "/opt/shoectl"
DEFAULT_CONFIG_DIR: Final = "/etc/shoectl"
UNIT_PATH: Final = "/etc/systemd/system/shoectl.service"
KIOSK_UNIT_PATH: Final = "/etc/systemd/system/shoectl-kiosk.service"
FIRSTBOOT_UNIT_PATH: Final = "/etc/systemd/system/shoectl-firstboot.service"
READONLY_UNIT_PATH: Final = "/etc/systemd/system/shoectl-readonly-root.service"
WRITABLE_UNIT_PATH: Final = "/etc/systemd/system/shoectl-writable-dirs.service"
UDEV_PATH: Final = "/etc/udev/rules.d/70-shoectl.rules"
SYSUSERS_PATH: Final = "/etc/sysusers.d/shoectl.conf"
JOURNALD_PATH: Final = "/etc/systemd/journald.conf.d/shoectl.conf"
WATCHDOG_PATH: Final = "/etc/systemd/system.conf.d/shoectl-watchdog.conf"
COMMAND_LINK: Final = "/usr/local/bin/shoectl"
SERVICE_GROUP: Final = "shoectl"
SERVICE_USER: Final = "shoectl"
KEY_NAME: Final = "journal.key"
KIOSK_TOKEN_NAME: Final = "kiosk.token"
"""The kiosk's token, beside the configuration (the kiosk unit's `LoadCredential=`)."""
_SOURCE_TOP_SKIP: Final = frozenset({".venv", ".git", "build", "dist"})
"""Left out of the copied checkout at its top only: `vision/build` is a package."""
_SOURCE_SKIP: Final = ("__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
                       ".hypothesis", "*.egg-info",
                       ".lgd-nfy*")  # lgpio leaves its notification pipes in the cwd
_ARM64_MACHINES: Final = frozenset({"aarch64", "arm64"})
_JOURNALD_DROP_IN: Final = """\
# shoectl: keep the system journal on disk, so operational logs survive a power loss (R14).
# The secured audit journal is separate (/var/lib/shoectl); this is the service's log.
[Journal]
Storage=persistent
SystemMaxUse=200M
"""


class InstallError(RuntimeError):
    """An installation step failed; the message names the step and the path."""


@dataclass(frozen=True, slots=True)
class InstallPaths:
    """Where everything goes: target paths, and the root they are written under.

    Attributes:
        root: The file system being installed into (`/`, or a staging directory).
        prefix: Target path of the installation (the venv lives in PREFIX/venv).
        config_dir: Target path of the configuration directory.
        source: The source checkout (holds pyproject.toml and systemd/).
    """

    root: Path
    prefix: str
    config_dir: str
    source: Path

    def on_disk(self, target: str) -> Path:
        """Where a target path is written now (under the staging root)."""
        return self.root / target.lstrip("/")

    @property
    def venv(self) -> str:
        """Target path of the virtual environment."""
        return f"{self.prefix}/venv"

    @property
    def manifest(self) -> str:
        """Target path of the software manifest."""
        return f"{self.prefix}/manifest.sha256"

    @property
    def staged(self) -> bool:
        """True when installing under a root other than the running system's."""
        return self.root.resolve() != Path("/")


def render_unit(text: str, prefix: str, config_dir: str) -> str:
    """Fill the unit's absolute paths in for an installation at `prefix`."""
    return text.replace(DEFAULT_PREFIX, prefix).replace(DEFAULT_CONFIG_DIR, config_dir)


def _run(step: str, command: Sequence[str]) -> None:
    _log.info("%s: %s", step, " ".join(command))
    done = subprocess.run(list(command), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise InstallError(f"{step} failed ({' '.join(command[:3])}...): {' | '.join(detail)}")


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)


def systemd_booted(run_dir: Path = Path("/run/systemd/system")) -> bool:
    """True when systemd is the running init (sd_booted(3)'s test).

    False in a chroot or an unbooted container, where an image or a root is being prepared:
    there is no manager to reload and no udev daemon; both read the new files at boot.
    """
    return run_dir.is_dir()


def venv_machine(venv: Path) -> str:
    """The machine the venv's own interpreter runs as (`aarch64`, `x86_64`).

    Asked of the venv's Python, not of this process: an image for a Pi may be built on
    another machine, its arm64 interpreter run through qemu-user.
    """
    python = venv / "bin/python"
    done = subprocess.run([str(python), "-c", "import platform; print(platform.machine())"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        raise InstallError(f"{python} cannot say its machine: {' | '.join(detail)}")
    return done.stdout.strip()


def install_pi5_gpio(venv: Path) -> None:
    """Put rpi-lgpio and lgpio in the venv's side folder, beside RPi.GPIO in site-packages.

    The GPIO driver imports RPi.GPIO from that folder on a Pi 5 and from site-packages on
    any other board, so the same installation (and manifest) serves both (decision 092).
    """
    folder = raspberry_pi.pi5_gpio_folder(venv)
    _run("pip install rpi-lgpio", [str(venv / "bin/python"), "-m", "pip", "install", "--quiet",
                                   "--disable-pip-version-check", "--no-warn-script-location",
                                   "--target", str(folder), raspberry_pi.PI5_GPIO_REQUIREMENT])


def source_ignore(source: Path) -> Callable[[str, list[str]], set[str]]:
    """What `shutil.copytree` leaves out of a copy of the checkout `source`.

    Caches and build debris anywhere; the venv, git, build output at the top alone.
    """
    anywhere = shutil.ignore_patterns(*_SOURCE_SKIP)
    top = source.resolve()

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = set(anywhere(directory, names))
        if Path(directory).resolve() == top:
            skipped |= _SOURCE_TOP_SKIP & set(names)
        return skipped

    return ignore


def build_venv(layout: InstallPaths, python: str) -> None:
    """Create PREFIX/venv and install the project (a copy of the checkout) into it.

    On arm64 the Pi 5's GPIO library goes in too (`install_pi5_gpio`), before everything is
    byte-compiled and, later, hashed into the manifest.
    """
    venv = layout.on_disk(layout.venv)
    _run("venv", [python, "-m", "venv", "--clear", str(venv)])
    with tempfile.TemporaryDirectory(prefix="shoectl-src-") as scratch:
        # pip builds in the source tree; a copy keeps the checkout untouched.
        copy = Path(scratch) / "src"
        shutil.copytree(layout.source, copy, ignore=source_ignore(layout.source))
        _run("pip install", [str(venv / "bin/python"), "-m", "pip", "install", "--quiet",
                             "--disable-pip-version-check", "--no-warn-script-location",
                             str(copy)])
    if venv_machine(venv) in _ARM64_MACHINES:
        install_pi5_gpio(venv)
    if layout.staged:
        _relocate_scripts(venv, layout.venv)
    _run("byte-compile", [str(venv / "bin/python"), "-m", "compileall", "-q", "-f",
                          "--invalidation-mode", "checked-hash", str(venv / "lib")])


def _relocate_scripts(venv: Path, target_venv: str) -> None:
    """Point the venv's scripts at the target path (a venv records its own location)."""
    staged = str(venv)
    for script in (venv / "bin").iterdir():
        if script.is_symlink() or not script.is_file():
            continue
        data = script.read_bytes()
        if staged.encode() in data:
            script.write_bytes(data.replace(staged.encode(), target_venv.encode()))


def install_system_files(layout: InstallPaths) -> list[str]:
    """Install the unit and the system drop-ins; return their target paths.

    The drop-ins: udev rules, sysusers, journald (persistent logs), the hardware watchdog.
    """
    systemd = layout.source / "systemd"
    unit = render_unit((systemd / "shoectl.service").read_text(encoding="utf-8"),
                       layout.prefix, layout.config_dir)
    files = {
        UNIT_PATH: unit,
        KIOSK_UNIT_PATH: render_unit(
            (systemd / "shoectl-kiosk.service").read_text(encoding="utf-8"),
            layout.prefix, layout.config_dir),
        FIRSTBOOT_UNIT_PATH: render_unit(
            (systemd / "shoectl-firstboot.service").read_text(encoding="utf-8"),
            layout.prefix, layout.config_dir),
        READONLY_UNIT_PATH:
            (systemd / "shoectl-readonly-root.service").read_text(encoding="utf-8"),
        WRITABLE_UNIT_PATH:
            (systemd / "shoectl-writable-dirs.service").read_text(encoding="utf-8"),
        UDEV_PATH: (systemd / "udev/70-shoectl.rules").read_text(encoding="utf-8"),
        SYSUSERS_PATH: (systemd / "sysusers.d/shoectl.conf").read_text(encoding="utf-8"),
        JOURNALD_PATH: _JOURNALD_DROP_IN,
        WATCHDOG_PATH:
            (systemd / "system.conf.d/shoectl-watchdog.conf").read_text(encoding="utf-8"),
        f"{layout.prefix}/README.md": (layout.source / "README.md").read_text(encoding="utf-8"),
        f"{layout.prefix}/config.toml.template":
            (systemd / "config.toml.template").read_text(encoding="utf-8"),
    }
    for target, text in files.items():
        _write(layout.on_disk(target), text)
    _link_command(layout)
    return sorted([*files, COMMAND_LINK])


def _link_command(layout: InstallPaths) -> None:
    """Put `shoectl` on root's PATH (for `shoectl selftest`, `shoectl journal verify`)."""
    link = layout.on_disk(COMMAND_LINK)
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(f"{layout.venv}/bin/shoectl")


def install_config(layout: InstallPaths) -> bool:
    """Write config.toml from the template unless one exists; return True if written."""
    config = layout.on_disk(f"{layout.config_dir}/config.toml")
    if config.exists():
        _log.info("keeping the existing %s", config)
        return False
    template = (layout.source / "systemd/config.toml.template").read_text(encoding="utf-8")
    _write(config, template, 0o640)
    config.parent.chmod(0o755)
    return True


def write_manifest(layout: InstallPaths, files: Sequence[str]) -> str:
    """Write PREFIX/manifest.sha256 (read-only); return the software signature."""
    text = integrity.build_manifest([layout.venv], files, root=layout.root)
    path = layout.on_disk(layout.manifest)
    _write(path, text, 0o444)
    report = integrity.verify_manifest(path, layout.root)
    if not report.ok:
        raise InstallError(f"manifest {path} does not verify: {report.problems[0]}")
    return report.signature


def activate(layout: InstallPaths, *, kiosk: bool = False, image: bool = False) -> list[str]:
    """Create the users and groups, enable the units, reload udev; return what was done.

    The console kiosk is enabled only when asked for (`kiosk`): a table without a
    touchscreen, or without cage and Chromium, has no use for it. An image (`image`) also
    gets the first-boot unit (its secrets are made on each card) and the read-only root.
    """
    done: list[str] = []
    root_args = [f"--root={layout.root}"] if layout.staged else []
    if layout.staged and not layout.on_disk("/etc/passwd").exists():
        return ["activation skipped: the staging root has no /etc/passwd"]
    _run("sysusers", ["systemd-sysusers", *root_args, str(layout.on_disk(SYSUSERS_PATH))])
    done.append("system user shoectl and its groups")
    _group_config(layout)
    _run("enable", ["systemctl", *root_args, "enable", "shoectl.service"])
    done.append("shoectl.service enabled")
    if kiosk:
        _run("enable", ["systemctl", *root_args, "enable", "shoectl-kiosk.service"])
        done.append("shoectl-kiosk.service enabled (the console on the touchscreen)")
    if image:
        _run("enable", ["systemctl", *root_args, "enable", "shoectl-firstboot.service",
                        "shoectl-writable-dirs.service", "shoectl-readonly-root.service"])
        done.append("shoectl-firstboot.service enabled (the journal key and the kiosk token "
                    "are made at the card's first boot)")
        done.append("shoectl-readonly-root.service enabled (the root is read-only once booted; "
                    "/var, /home and /tmp stay writable)")
    if not layout.staged and not systemd_booted():
        done.append("systemd is not running here (a chroot, an image being built): "
                    "systemd and udev read the new files at the next boot")
    elif not layout.staged:
        _run("reload", ["systemctl", "daemon-reload"])
        _run("udev", ["udevadm", "control", "--reload"])
        _run("udev", ["udevadm", "trigger", "--subsystem-match=tty", "--subsystem-match=usb",
                      "--subsystem-match=gpio"])
        done.append("systemd and udev reloaded")
    return done


def _group_config(layout: InstallPaths) -> None:
    """Let the service's group read the configuration (it may hold serial numbers)."""
    config = layout.on_disk(f"{layout.config_dir}/config.toml")
    gid = _group_id(layout.on_disk("/etc/group"), SERVICE_GROUP)
    if gid is not None and config.exists() and os.geteuid() == 0:
        os.chown(config, 0, gid)


def _group_id(group_file: Path, name: str) -> int | None:
    for line in group_file.read_text(encoding="utf-8").splitlines():
        fields = line.split(":")
        if len(fields) >= 3 and fields[0] == name and fields[2].isdigit():
            return int(fields[2])
    return None


def _user_ids(passwd_file: Path, name: str) -> tuple[int, int] | None:
    try:
        lines = passwd_file.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return None
    for line in lines:
        fields = line.split(":")
        if len(fields) >= 4 and fields[0] == name and fields[2].isdigit() and fields[3].isdigit():
            return int(fields[2]), int(fields[3])
    return None


def install_journal_key(layout: InstallPaths) -> str:
    """Make CONFIG_DIR/journal.key unless one exists; return what was done.

    Raises:
        InstallError: the key cannot be made.
    """
    path = layout.on_disk(f"{layout.config_dir}/{KEY_NAME}")
    if path.exists() or path.is_symlink():
        return f"keeping the existing journal key {path}"
    owner = _user_ids(layout.on_disk("/etc/passwd"), SERVICE_USER)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        keys.create_key(path, owner if owner is not None and os.geteuid() == 0 else None)
    except JournalKeyError as exc:
        raise InstallError(str(exc)) from None
    if owner is None:
        return (f"journal key {path} made, owned by root: once the user {SERVICE_USER} "
                f"exists, `chown {SERVICE_USER}: {layout.config_dir}/{KEY_NAME}`")
    return f"journal key {path} made for the user {SERVICE_USER} (mode 0400)"


@dataclass(frozen=True, slots=True)
class KioskTokens:
    """The credentials file's hold on the kiosk's token (`controller.web.accounts`).

    Attributes:
        issue: Make a new kiosk token for the table configured by a path; the owner
            (uid, gid) the credentials file gets if it is made now; returns the token.
        holds: Whether a token is the kiosk's current one.
        exists: Whether the kiosk has a token at all.
    """

    issue: Callable[[Path, tuple[int, int] | None], str]
    holds: Callable[[Path, str], bool]
    exists: Callable[[Path], bool]


def install_kiosk_token(layout: InstallPaths, tokens: KioskTokens, *, renew: bool = False
                        ) -> str:
    """Give the kiosk a token unless it has a working one; return what was done.

    Raises:
        InstallError: The credentials file cannot be read or written.
    """
    config = layout.on_disk(f"{layout.config_dir}/config.toml")
    path = layout.on_disk(f"{layout.config_dir}/{KIOSK_TOKEN_NAME}")
    try:
        kept = path.read_text(encoding="utf-8").strip() if path.exists() else ""
        if not renew and kept and tokens.holds(config, kept):
            _secure_token_file(path)
            return f"keeping the kiosk's token {path}"
        if not renew and tokens.exists(config):
            return (f"the kiosk's token in the credentials beside {config} is not in {path}: "
                    "the kiosk will not log in; `shoectl install --renew-kiosk-token` makes "
                    "a new one (the old one stops working)")
        owner = _user_ids(layout.on_disk("/etc/passwd"), SERVICE_USER)
        token = tokens.issue(config, owner if os.geteuid() == 0 else None)
    except (ValueError, OSError) as exc:  # ConfigError is a ValueError
        raise InstallError(f"kiosk token: {exc}") from None
    _write_secret(path, token + "\n")
    made = f"kiosk token {path} made (mode 0600, root's; the kiosk unit reads it)"
    if owner is None:
        made += (f"; once the user {SERVICE_USER} exists, `chown {SERVICE_USER}: "
                 f"{layout.config_dir}/{config.stem}.credentials.json` (the service reads it)")
    return made


def _write_secret(path: Path, text: str) -> None:
    """Replace `path` atomically with `text`, mode 0600, the installer's own (root's)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), 0o600)
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _secure_token_file(path: Path) -> None:
    """A kept token file made readable by others (by hand) is made root's alone again."""
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)
        _log.warning("%s was readable by others: mode 0600 now", path)


def install(layout: InstallPaths, *, python: str, make_venv: bool, activate_units: bool,
            kiosk: bool = False, kiosk_tokens: KioskTokens | None = None,
            renew_kiosk_token: bool = False, image: bool = False) -> str:
    """Run every step; return the software signature (the manifest's SHA-256).

    `kiosk_tokens` gives the kiosk its token (step 7; None: that step is left out). An
    image (`image`) carries no secret: steps 6 and 7 are left to the card's first boot
    (`first_boot`, run by shoectl-firstboot.service), and any key or token already in the
    root being built is refused, since every card flashed from it would share it.
    """
    if not (layout.source / "pyproject.toml").is_file():
        raise InstallError(f"{layout.source} is not a shoectl source checkout (no pyproject.toml)")
    if image:  # before the long steps: a refused image is left as it was
        _refuse_secrets_in_image(layout)
    if make_venv:
        build_venv(layout, python)
    elif not layout.on_disk(layout.venv).is_dir():
        raise InstallError(f"--no-venv: {layout.on_disk(layout.venv)} does not exist")
    files = install_system_files(layout)
    install_config(layout)
    signature = write_manifest(layout, files)
    if activate_units:
        for line in activate(layout, kiosk=kiosk, image=image):
            _log.info("%s", line)
    if image:
        return signature
    _log.info("%s", install_journal_key(layout))
    if kiosk_tokens is not None:
        _log.info("%s", install_kiosk_token(layout, kiosk_tokens, renew=renew_kiosk_token))
    return signature


def _refuse_secrets_in_image(layout: InstallPaths) -> None:
    """An image must not carry a journal key or a kiosk token: every card would share it."""
    for name in (KEY_NAME, KIOSK_TOKEN_NAME, "config.credentials.json"):
        path = layout.on_disk(f"{layout.config_dir}/{name}")
        if path.exists() or path.is_symlink():
            raise InstallError(f"--image: {path} exists; an image carries no secret (each "
                               "card makes its own at first boot): remove it and install again")


def first_boot(layout: InstallPaths, kiosk_tokens: KioskTokens | None) -> list[str]:
    """Make this card's secrets: the journal key, then the kiosk's token; return what was done.

    Run by shoectl-firstboot.service on a card flashed from an image, while the root is
    still writable. Either secret already there is kept, so a second run changes nothing.

    Raises:
        InstallError: A secret cannot be made (the message names the file).
    """
    done = [install_journal_key(layout)]
    if kiosk_tokens is not None:
        done.append(install_kiosk_token(layout, kiosk_tokens))
    return done
