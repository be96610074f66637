"""`make pi-check`: shoectl installed, booted and dealing on arm64, on an x86-64 machine.

A Debian arm64 root is made with debootstrap from Debian's own packages; its binaries run
under qemu-user (qemu-user-static, registered with binfmt_misc with the F flag, so
systemd-nspawn can start them in the container). Then, as on a Pi:

1. `systemd/install.sh` runs inside the arm64 root (not booted, as in an image being built):
   the venv from PyPI's aarch64 wheels (RPi.GPIO and phevaluator built from source there),
   the unit, udev rules, user, manifest, journal key;
2. `shoectl --version` (the cold import) and `shoectl vision read` over the dev photos;
3. `bench/pi.py` in the root and on this machine: per-frame vision time and card -> lamp
   time as multiples of a JPEG decode + resize and of a durable SQLite commit;
4. the root is booted with `systemd-nspawn -b` as `hil_tests/test_systemd_boot.py` boots the
   amd64 one: the service starts on the emulated rig (byte-level emulators on ptys), two
   blackjack rounds are dealt through the console's API and the emulated boards, the
   self-test runs, and the audit journal is verified here afterwards;
5. the image: a second copy of the root gets shoectl from the pi-gen stage that builds the
   SD-card image (systemd/pi/pi-gen/stage-shoectl, put by `build_image.sh --stage-only`;
   its packages by apt-get and its run script with pi-gen's `on_chroot` done by
   systemd-nspawn), which installs with `--image`: no secret in it. It is booted as a card
   flashed from the image boots for the first time: shoectl-firstboot.service makes the
   journal key and the kiosk token, shoectl-readonly-root.service makes the root read-only
   (/var writable), and a Texas Hold'em Bonus round is dealt through the console's API
   (emulated layout and camera; every card keyed), logged in with the token made at that
   first boot; the journal is verified here with the key made there.

It prints each step and its time, then the figures. The debootstrapped root is cached in
build/pi/ (keyed by what goes into it); pip's cache is kept there too, so a rerun skips the
download and the source builds.

    python systemd/pi/pi_check.py [--cards-dev DIR]   (default ../shared/cards-dev)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

SUITE = "bookworm"
ARCH = "arm64"
MIRROR = "http://deb.debian.org/debian"
# What a Pi running Raspberry Pi OS Lite (bookworm) has, plus the compiler pip needs for the
# two dependencies with no aarch64 wheel on PyPI (RPi.GPIO, phevaluator).
PACKAGES = ("systemd", "systemd-sysv", "dbus", "python3", "python3-venv", "python3-dev", "gcc",
            "g++", "libc6-dev", "libusb-1.0-0", "udev", "libpq5")
RECIPE = "1"  # bump when the way the root is made changes
BUILD = REPO / "build" / "pi"
BOOT_TIMEOUT_S = 1500
HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")


class CheckError(RuntimeError):
    """A step failed; the message says which and why, in one line."""


def say(text: str) -> None:
    """Print one line now (the steps are long: show progress as it goes)."""
    print(text, flush=True)


class Steps:
    """Runs the steps, timing each; prints one line per step."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}

    def run(self, name: str, action, *args):
        """Run one step, print its time and what it returned; return that."""
        start = time.monotonic()
        say(f"-- {name} ...")
        result = action(*args)
        self.times[name] = round(time.monotonic() - start, 1)
        say(f"   {name}: {self.times[name]:.1f} s" + (f"; {result}" if isinstance(result, str)
                                                     else ""))
        return result


# ---------------------------------------------------------------- what this machine needs


def missing() -> str | None:
    """One line saying what this machine lacks for the check (None when nothing)."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return "pi-check needs root on Linux (debootstrap and systemd-nspawn)"
    for tool, package in (("debootstrap", "debootstrap"), ("systemd-nspawn", "systemd-container")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian package {package}; run .ci/sysdeps)"
    if os.uname().machine == "aarch64":
        return None  # the Pi's own architecture: nothing to emulate
    if shutil.which("qemu-aarch64-static") is None:
        return "no qemu-aarch64-static (Debian package qemu-user-static; run .ci/sysdeps)"
    handler = Path("/proc/sys/fs/binfmt_misc/qemu-aarch64")
    if not handler.exists():
        return ("binfmt handler qemu-aarch64 not registered (install binfmt-support, or "
                "`update-binfmts --enable qemu-aarch64`)")
    text = handler.read_text()
    if not text.startswith("enabled"):
        return "binfmt handler qemu-aarch64 is disabled (`update-binfmts --enable qemu-aarch64`)"
    flags = next((line.split(":", 1)[1].strip() for line in text.splitlines()
                  if line.startswith("flags:")), "")
    if "F" not in flags:
        return (f"binfmt handler qemu-aarch64 lacks the F flag (flags: {flags or 'none'}): "
                "systemd-nspawn cannot find the interpreter inside the container; "
                "reinstall qemu-user-static from Debian bookworm or later")
    return None


# ---------------------------------------------------------------- the arm64 root


def _debootstrapped(suite: str, packages: tuple[str, ...]) -> tuple[Path, bool]:
    """A minbase arm64 root of `suite` with `packages`, made unless cached; (root, made now).

    Cached in build/pi/ under a name keyed by everything that goes into it; older roots of
    the same suite are removed when a new one is made (they would only fill the disk).
    """
    recipe = json.dumps([RECIPE, suite, ARCH, "minbase", sorted(packages)])
    ready = BUILD / f"{suite}-{ARCH}-{hashlib.sha256(recipe.encode()).hexdigest()[:12]}"
    if (ready / "etc/os-release").exists():
        return ready, False
    BUILD.mkdir(parents=True, exist_ok=True)
    partial = ready.with_name(ready.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    done = subprocess.run(
        ["debootstrap", f"--arch={ARCH}", "--variant=minbase", f"--include={','.join(packages)}",
         suite, str(partial), MIRROR], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        raise CheckError(f"debootstrap {suite} failed: {' | '.join(tail)}")
    partial.rename(ready)
    for stale in BUILD.glob(f"{suite}-{ARCH}-*"):
        if stale.is_dir() and stale != ready:
            shutil.rmtree(stale, ignore_errors=True)
    return ready, True


def bookworm_root() -> Path:
    """The arm64 root the checks copy (bookworm, PACKAGES)."""
    return _debootstrapped(SUITE, PACKAGES)[0]


def cached_root() -> str:
    """Make the arm64 root with debootstrap unless it is cached."""
    root, made = _debootstrapped(SUITE, PACKAGES)
    return f"{'made' if made else 'cached'} {root.relative_to(REPO)}"


def fresh_copy(run: Path) -> str:
    """A fresh copy of the cached root for this run (the cache stays pristine)."""
    shutil.rmtree(run, ignore_errors=True)
    run.mkdir(parents=True)
    subprocess.run(["cp", "-a", "--reflink=auto", str(bookworm_root()), str(run / "root")],
                   check=True)
    (run / "results").mkdir()
    return f"{run.relative_to(REPO)}/root"


def nspawn(root: Path, command: list[str], *, binds: dict[Path, str] | None = None,
           read_only: dict[Path, str] | None = None, step: str,
           timeout: int = 3600) -> str:
    """Run one command in the (unbooted) root; its stdout, or CheckError naming the step."""
    args = ["systemd-nspawn", "--quiet", "--keep-unit", "--register=no", f"--directory={root}"]
    args += [f"--bind={host}:{inside}" for host, inside in (binds or {}).items()]
    args += [f"--bind-ro={host}:{inside}" for host, inside in (read_only or {}).items()]
    done = subprocess.run([*args, *command], capture_output=True, text=True, check=False,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-4:]
        raise CheckError(f"{step} failed (exit {done.returncode}): {' | '.join(tail)}")
    return done.stdout


# ---------------------------------------------------------------- the steps in the root


def install(root: Path) -> str:
    """`systemd/install.sh` inside the root, as on a Pi; the installed size."""
    cache = BUILD / "pip-cache"
    cache.mkdir(parents=True, exist_ok=True)
    read_only = {REPO: "/src"}
    command = ["/bin/sh", "/src/systemd/install.sh"]
    if HOST_CA.is_file():  # pip trusts what this machine trusts (a site's TLS proxy, say)
        read_only[HOST_CA] = "/etc/ssl/host-ca.crt"
        command = ["/usr/bin/env", "PIP_CERT=/etc/ssl/host-ca.crt", *command]
    out = nspawn(root, command, binds={cache: "/root/.cache/pip"}, read_only=read_only,
                 step="shoectl install")
    signature = next((line for line in out.splitlines() if "signature" in line), "")
    size = subprocess.run(["du", "-sb", str(root / "opt/shoectl")], capture_output=True,
                          text=True, check=True).stdout.split()[0]
    return f"{int(size) / 2**20:.0f} MiB in /opt/shoectl; {signature}"


def version(root: Path) -> str:
    """`shoectl --version` in the root: the installed command starts."""
    return nspawn(root, ["/usr/local/bin/shoectl", "--version"], step="shoectl --version").strip()


def vision_read(root: Path, cards: Path) -> str:
    """`shoectl vision read` over every dev photo in the root, scored against labels.csv."""
    out = nspawn(root, ["/bin/sh", "-c", "exec shoectl vision read --json /cards/images/*.jpg"],
                 read_only={cards: "/cards"}, step="shoectl vision read")
    labels = {}
    for line in (cards / "labels.csv").read_text().splitlines()[1:]:
        name, rank, suit = line.split(",")[:3]
        labels[Path(name).name] = rank + suit
    right = wrong = unsure = 0
    # nspawn hands the command's stderr on with its stdout: warnings are counted, not read.
    lines = [line for line in out.splitlines() if line.strip()]
    warnings = [line for line in lines if not line.startswith("{")]
    for line in lines:
        if line in warnings:
            continue
        try:
            reading = json.loads(line)
        except json.JSONDecodeError:
            raise CheckError(f"shoectl vision read printed a line that is not JSON: "
                             f"{line[:120]!r}") from None
        found = [card["card"] for card in reading.get("cards", [])]
        want = labels[Path(reading["file"]).name]
        if want in found:
            right += 1
        elif any(found):
            wrong += 1
        else:
            unsure += 1
    total = right + wrong + unsure
    if total != len(labels):
        raise CheckError(f"shoectl vision read answered {total} of {len(labels)} photos")
    warned = (f"; {len(warnings)} lines of warnings, first: {warnings[0].strip()[:160]}"
              if warnings else "")
    return f"{total} photos: {right} right, {unsure} unsure or no card, {wrong} wrong{warned}"


def figures(root: Path | None, cards: Path) -> dict[str, float]:
    """`bench/pi.py --json` in the root (None: on this machine)."""
    command = ["bench/pi.py", "--json", "--frames", "20", "--cards", "30"]
    if root is None:
        done = subprocess.run([sys.executable, *command, "--photos", str(cards)], cwd=REPO,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise CheckError(f"bench/pi.py on this machine failed: {done.stderr[-300:]}")
        out = done.stdout
    else:
        out = nspawn(root, ["/opt/shoectl/venv/bin/python", f"/src/{command[0]}", *command[1:],
                            "--photos", "/cards"], read_only={REPO: "/src", cards: "/cards"},
                     step="bench/pi.py in the arm64 root")
    return json.loads(out.strip().splitlines()[-1])


# ---------------------------------------------------------------- the boot


PROBE = r"""#!/bin/bash
# pi-check: runs inside the booted arm64 root once shoectl.service has started (or failed).
out=/results
exec 2>> "$out/probe.err"
value() { systemctl show shoectl.service -p "$1" --value; }
play() { echo "$2" > "/run/shoectl-emu/$1/in"; }
table() { /usr/local/sbin/shoectl-rig-table "$1"; }
round() {
    table "place your bets" && play layout "chip 3" && play layout "chip 1" &&
        table "seats in play 1" && play shoe "draw 4" && table "decides" &&
        play shoe "draw 1" && /usr/local/sbin/shoectl-rig-meter-hits "$1" &&
        play layout "unchip 1" && play layout "unchip 3"
}
date +%s.%N > "$out/probe_started"
systemctl show shoectl.service -p ActiveState -p SubState -p NRestarts > "$out/ready.txt"
table "place your bets" && play shoe load
round 3 && date +%s.%N > "$out/round1"
round 4 && date +%s.%N > "$out/round2"
pid=$(value MainPID)
grep -E '^(VmRSS|VmHWM)' "/proc/$pid/status" > "$out/memory.txt"
systemctl stop shoectl.service
value Result > "$out/stopped.txt"
yes y | shoectl selftest --operator "pi-check" --timeout 1 > "$out/selftest.out" 2>&1
echo $? > "$out/selftest_rc"
journalctl --no-pager -o short-monotonic > "$out/journal.txt"
systemctl poweroff
"""

def prepare_boot(root: Path, results: Path) -> str:
    """The boot test's rig (emulators, console token, drop-in) and this check's probe."""
    from hil_tests import image_rig
    from hil_tests import test_systemd_boot as rig

    rig._write(root / "etc/shoectl/config.toml", rig.RIG_CONFIG, 0o640)
    rig._write(root / "usr/local/sbin/shoectl-rig-emulator", rig.EMULATOR_SCRIPT, 0o755)
    rig._write(root / "usr/local/sbin/shoectl-rig-wait", rig.WAIT_SCRIPT, 0o755)
    rig._write(root / "usr/local/sbin/shoectl-rig-table",
               rig.TABLE_WAIT_SCRIPT.replace("RIG_KIOSK_TOKEN", rig.RIG_KIOSK_TOKEN)
               .replace("time.monotonic() + 120", "time.monotonic() + 600"), 0o755)
    rig._write(root / "etc/shoectl/config.credentials.json", json.dumps(
        {"users": {}, "tokens": {"kiosk": rig.token_digest(rig.RIG_KIOSK_TOKEN)}}), 0o644)
    rig._write(root / "usr/local/sbin/shoectl-rig-meter-hits",
               rig.METER_WAIT_SCRIPT.replace("seq 1 300", "seq 1 1500"), 0o755)
    rig._write(root / "etc/shoectl-rig/shoe.txt", " ".join(rig.LIVE_SHOE) + "\n")
    rig._write(root / "etc/systemd/system/shoectl-emulator@.service", rig.EMULATOR_UNIT)
    rig._write(root / rig.WEDGE_PATH.lstrip("/") / "sitecustomize.py", rig.WEDGE_SITECUSTOMIZE)
    # Emulation is ~10x slower than a Pi: the watchdog is the unit's own, not the test's 5 s.
    drop_in = rig.DROP_IN.replace(f"WatchdogSec={rig.WATCHDOG_S}\n", "WatchdogSec=120\n")
    rig._write(root / "etc/systemd/system/shoectl.service.d/test-rig.conf", drop_in)
    image_rig.install_probe(root, PROBE)
    (root / "etc/hostname").write_text("shoectl-pi-check\n")
    rig.seed_journal(root)  # five rounds dealt here (x86-64) under the root's journal key
    return "rig, probe and a seeded journal written"


def boot(root: Path, results: Path) -> str:
    """Boot the root until the probe powers it off."""
    done = subprocess.run(
        ["systemd-nspawn", "--quiet", "--keep-unit", "--register=no", "--private-network",
         f"--directory={root}", f"--bind={results}:/results", "--boot"],
        capture_output=True, text=True, timeout=BOOT_TIMEOUT_S, check=False,
        stdin=subprocess.DEVNULL)
    if not (results / "journal.txt").exists():
        raise CheckError(f"the probe did not finish (nspawn exit {done.returncode}): "
                          f"{(done.stdout + done.stderr).strip()[-300:]}")
    return f"nspawn exit {done.returncode}"


def verify_boot(root: Path, results: Path) -> str:
    """What the boot left: rounds dealt, the journal intact, the self-test's lines."""
    from controller.journal import audit, keys

    problems = (results / "probe.err").read_text() if (results / "probe.err").exists() else ""
    ready = (results / "ready.txt").read_text().split()
    if "ActiveState=active" not in ready:
        raise CheckError(f"shoectl.service did not start: {' '.join(ready)}; {problems[-300:]}")
    for name in ("round1", "round2"):
        if not (results / name).exists():
            raise CheckError(f"blackjack {name} was not dealt: {problems.strip()[-300:]}")
    key = keys.load_key(root / "etc/shoectl/journal.key")
    report = audit.verify_state_dir(root / "var/lib/shoectl", key)
    if not report.ok:
        raise CheckError(f"the audit journal does not verify: {report.lines[:2]}")
    meters = audit.stored_meters(root / "var/lib/shoectl", key)
    selftest = (results / "selftest.out").read_text()
    passed = [line for line in selftest.splitlines() if line.startswith("PASS")]
    failed = [line for line in selftest.splitlines() if line.startswith("FAIL")]
    for want in ("PASS  software manifest: ", "PASS  journal  chain: chain intact",
                 "PASS  shoe     handshake", "PASS  layout   lamp fault"):
        if want not in selftest:
            raise CheckError(f"self-test lacks {want.strip()!r}: {selftest[-300:]}")
    memory = " ".join((results / "memory.txt").read_text().split())
    dealt = float((results / "round2").read_text()) - float((results / "probe_started")
                                                            .read_text())
    return (f"service active, 2 blackjack rounds dealt through the console in {dealt:.0f} s, "
            f"journal verified ({report.records} records, meter hits "
            f"{meters.hits if meters else '?'}); self-test: {len(passed)} PASS, "
            f"{len(failed)} FAIL ({'; '.join(f.split(':')[0] for f in failed)}); "
            f"shoectl run under qemu: {memory}")


# ---------------------------------------------------------------- the image's first boot

STAGE = "stage-shoectl"


def _on_chroot(root: Path) -> str:
    """pi-gen's `on_chroot` (a shell read from stdin, run in the root), by systemd-nspawn."""
    cache = BUILD / "pip-cache"
    cache.mkdir(parents=True, exist_ok=True)
    binds = f"--bind={cache}:/root/.cache/pip"
    if HOST_CA.is_file():
        binds += f" --bind-ro={HOST_CA}:/etc/ssl/host-ca.crt --setenv=PIP_CERT=/etc/ssl/host-ca.crt"
    return (f"on_chroot() {{ systemd-nspawn --quiet --keep-unit --register=no --console=pipe "
            f"--directory={root} {binds} /bin/bash -e; }}")


def image_install(root: Path, run: Path) -> str:
    """The pi-gen stage, run as pi-gen runs it: its packages, then its run script."""
    stages = run / "pi-gen"
    shutil.rmtree(stages, ignore_errors=True)
    subprocess.run([str(REPO / "systemd/pi/build_image.sh"), "--stage-only", str(stages)],
                   check=True, capture_output=True)
    steps = stages / STAGE / "00-shoectl"
    packages = (steps / "00-packages").read_text().split()
    nspawn(root, ["apt-get", "install", "-y", "--no-install-recommends", *packages],
           step="the stage's packages (apt-get)")
    done = subprocess.run(["/bin/bash", "-e", "-c", f"{_on_chroot(root)}; export -f on_chroot; "
                           "./01-run.sh"], cwd=steps, env={**os.environ, "ROOTFS_DIR": str(root)},
                          capture_output=True, text=True, check=False, timeout=3600)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-4:]
        raise CheckError(f"the stage's 01-run.sh failed (exit {done.returncode}): "
                         f"{' | '.join(tail)}")
    signature = next((line for line in done.stdout.splitlines() if "signature" in line), "")
    secrets = [name for name in ("journal.key", "kiosk.token", "config.credentials.json")
               if (root / "etc/shoectl" / name).exists()]
    if secrets:
        raise CheckError(f"the image carries secrets: {', '.join(secrets)} in /etc/shoectl")
    if (root / "usr/src/shoectl-src").exists():
        raise CheckError("the stage left its source in the image (/usr/src/shoectl-src)")
    return f"no secret in the image; {signature}"


UNITS = ("shoectl.service", "shoectl-kiosk.service", "shoectl-firstboot.service",
         "shoectl-writable-dirs.service", "shoectl-readonly-root.service")


def verify_units(root: Path) -> str:
    """`systemd-analyze verify` of the installed units by the arm64 root's own systemd."""
    # What systemd-analyze says comes on stdout (2>&1 inside); nspawn's own notices on
    # stderr are not findings.
    done = subprocess.run(
        ["systemd-nspawn", "--quiet", "--keep-unit", "--register=no", f"--directory={root}",
         "--setenv=SYSTEMD_COLORS=0", "/bin/sh", "-c",
         'systemd-analyze verify --man=no "$@" 2>&1', "verify",
         *(f"/etc/systemd/system/{u}" for u in UNITS)],
        capture_output=True, text=True, check=False, timeout=900, stdin=subprocess.DEVNULL)
    # Units named in After=/Before= that a Raspberry Pi OS image has and this root has not
    # (regenerate_ssh_host_keys) are not what is checked.
    said = [line for line in done.stdout.splitlines()
            if line.strip() and "regenerate_ssh_host_keys" not in line]
    if done.returncode != 0 or said:
        raise CheckError(f"systemd-analyze verify on arm64 (exit {done.returncode}): "
                         f"{' | '.join(said[:4])}")
    version = nspawn(root, ["systemctl", "--version"], step="systemctl --version")
    return f"{len(UNITS)} units verified silent by {version.splitlines()[0].strip()}"


def prepare_image_boot(root: Path, results: Path) -> str:
    """The first boot's rig (`hil_tests/image_rig.py`): a hold'em table and its probe."""
    from hil_tests import image_rig

    return image_rig.prepare_image_boot(root, results)


def verify_image_boot(root: Path, results: Path) -> str:
    """What the first boot left (`hil_tests/image_rig.py`)."""
    from hil_tests import image_rig

    try:
        return image_rig.verify_image_boot(root, results)
    except image_rig.ImageBootError as failure:
        raise CheckError(str(failure)) from None


GPIO_PROBE = """
import json, logging, os, sys
os.chdir("/root")  # lgpio's pipes must go to LG_WD (the loader sets it), not here
from pathlib import Path
from drivers import gpio
from drivers.errors import DriverError
try:
    module = gpio.load_rpi_gpio("layout", Path(sys.argv[1]))
    said = "loaded " + module.__file__
except DriverError as refused:
    said = str(refused)
found = {name: getattr(sys.modules.get(name), "__file__", None) for name in ("RPi", "lgpio")}
print(json.dumps({"said": said, "modules": found}))
"""


def gpio_libraries(root: Path) -> str:
    """The GPIO driver's loader in the root, told it is on a Pi 5 and on a Pi 4.

    Off a Pi each library refuses to start ("can only be run on a Raspberry Pi"), but by
    then the loader has chosen it and its aarch64 extension has loaded: rpi-lgpio and lgpio
    from `venv/lib/pi5-gpio` for a Pi 5, RPi.GPIO from site-packages for a Pi 4.
    """
    seen = {}
    for board, model in (("pi5", "Raspberry Pi 5 Model B Rev 1.0"),
                         ("pi4", "Raspberry Pi 4 Model B Rev 1.5")):
        model_file = root / f"root/{board}-model"  # not /tmp: nspawn mounts a tmpfs there
        model_file.write_bytes(model.encode() + b"\0")
        try:
            out = nspawn(root, ["/opt/shoectl/venv/bin/python", "-c", GPIO_PROBE,
                                f"/root/{board}-model"], step=f"the GPIO loader ({board})")
        finally:
            model_file.unlink(missing_ok=True)
            left = [pipe.name for pipe in (root / "root").glob(".lgd-nfy*")]
            for pipe in (root / "root").glob(".lgd-nfy*"):
                pipe.unlink()
        if left:
            raise CheckError(f"lgpio left {', '.join(left)} in the working folder (/root), "
                             "not in LG_WD")
        seen[board] = json.loads(out.strip().splitlines()[-1])
    side = "/opt/shoectl/venv/lib/pi5-gpio/"
    pi5, pi4 = seen["pi5"], seen["pi4"]
    if not (str(pi5["modules"]["lgpio"]).startswith(side)
            and str(pi5["modules"]["RPi"]).startswith(side) and "pi5-gpio" in pi5["said"]):
        raise CheckError(f"on a Pi 5 the loader did not take rpi-lgpio from {side}: {pi5}")
    if pi4["modules"]["lgpio"] is not None or str(pi4["modules"]["RPi"]).startswith(side):
        raise CheckError(f"on a Pi 4 the loader did not take RPi.GPIO from site-packages: {pi4}")
    return (f"Pi 5: rpi-lgpio and lgpio (aarch64) from {side}, its pipes not in the working "
            f"folder; Pi 4: RPi.GPIO from site-packages; off a Pi each then says: "
            f"{pi5['said'].split(': ')[-1]}")


# ---------------------------------------------------------------- trixie

TRIXIE = "trixie"
TRIXIE_PACKAGES = ("systemd", "udev")


def trixie_root() -> Path:
    """A minimal Debian trixie arm64 root (systemd and udev), cached beside bookworm's."""
    return _debootstrapped(TRIXIE, TRIXIE_PACKAGES)[0]


def verify_on_trixie(installed: Path) -> str:
    """The installed units and udev rules, verified by trixie's systemd and udevadm.

    Raspberry Pi OS follows Debian: bookworm's systemd (252) verifies the units in the
    image root; trixie's (257) verifies them again and has `udevadm verify` for the rules.
    """
    root = trixie_root()
    placed = [root / "etc/systemd/system" / unit for unit in UNITS]
    rules = root / "etc/udev/rules.d/70-shoectl.rules"
    stub = root / "opt/shoectl/venv/bin/shoectl"  # ExecStart= must name an executable
    for unit, there in zip(UNITS, placed, strict=True):
        shutil.copy(installed / "etc/systemd/system" / unit, there)
    rules.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(installed / "etc/udev/rules.d/70-shoectl.rules", rules)
    stub.parent.mkdir(parents=True, exist_ok=True)
    stub.write_text("#!/bin/sh\nexit 0\n")
    stub.chmod(0o755)
    try:
        done = subprocess.run(
            ["systemd-nspawn", "--quiet", "--keep-unit", "--register=no",
             f"--directory={root}", "--setenv=SYSTEMD_COLORS=0", "/bin/sh", "-c",
             'systemd-analyze verify --man=no "$@" 2>&1; echo "units: $?"; '
             "udevadm verify --resolve-names=never /etc/udev/rules.d/70-shoectl.rules 2>&1; "
             'echo "rules: $?"; systemctl --version | head -n 1', "verify",
             *(f"/etc/systemd/system/{unit}" for unit in UNITS)],
            capture_output=True, text=True, check=False, timeout=900, stdin=subprocess.DEVNULL)
    finally:  # the cached root stays as debootstrap made it
        for path in (*placed, rules):
            path.unlink(missing_ok=True)
        shutil.rmtree(root / "opt/shoectl", ignore_errors=True)
    lines = [line for line in done.stdout.splitlines() if line.strip()]  # stderr: nspawn's
    # What is not a finding: the exit statuses and version echoed, udevadm's tally, units
    # a Raspberry Pi OS image has and this root has not.
    tally = ("units: ", "rules: ", "systemd ", "1 udev rules files have been checked.",
             "Success: 1", "Fail: 0")
    said = [line for line in lines if "regenerate_ssh_host_keys" not in line
            and not " ".join(line.split()).startswith(tally)]
    if "units: 0" not in lines or "rules: 0" not in lines or said:
        raise CheckError(f"on {TRIXIE}: {' | '.join(said[:4] or lines[-4:])}")
    version = next((line for line in lines if line.startswith("systemd ")), "systemd ?")
    return f"{len(UNITS)} units and the udev rules verified silent by {TRIXIE}'s {version}"


# ---------------------------------------------------------------- main


def main() -> int:
    """Run every step; 0 when all passed, 1 when one failed, 2 when this machine cannot."""
    parser = argparse.ArgumentParser(description="shoectl installed, booted and dealing on arm64")
    parser.add_argument("--cards-dev", type=Path, default=REPO.parent / "shared" / "cards-dev",
                        help="the dev photos (default: ../shared/cards-dev beside the repo)")
    parser.add_argument("--no-boot", action="store_true", help="stop before the boots")
    parser.add_argument("--image-only", action="store_true",
                        help="only the image's install and first boot (not the first root)")
    args = parser.parse_args()
    why = missing()
    if why:
        say(f"pi-check: {why}")
        return 2
    cards = args.cards_dev.resolve()
    if not (cards / "labels.csv").is_file():
        say(f"pi-check: no dev photos at {cards} (labels.csv missing; give CARDS_DEV=DIR)")
        return 2
    steps = Steps()
    run = BUILD / "run"
    root, results = run / "root", run / "results"
    image = BUILD / "image"
    arm = host = None
    try:
        steps.run("debootstrap arm64 root", cached_root)
        if not args.image_only:
            steps.run("copy the root", fresh_copy, run)
            steps.run("shoectl install (in the arm64 root)", install, root)
            steps.run("shoectl --version (cold start)", version, root)
            steps.run("shoectl vision read, dev photos", vision_read, root, cards)
            arm = steps.run("figures on arm64 (bench/pi.py)", figures, root, cards)
            host = steps.run(f"figures on {os.uname().machine} (bench/pi.py)", figures, None,
                             cards)
            if not args.no_boot:
                steps.run("prepare the boot", prepare_boot, root, results)
                steps.run("boot, deal, self-test, power off", boot, root, results)
                steps.run("verify what the boot left", verify_boot, root, results)
        steps.run("copy the root for the image", fresh_copy, image)
        steps.run("image: the pi-gen stage (shoectl install --image)", image_install,
                  image / "root", image)
        steps.run("image: the units, by the root's systemd", verify_units, image / "root")
        steps.run("image: the GPIO library for a Pi 5 and a Pi 4", gpio_libraries,
                  image / "root")
        steps.run(f"{TRIXIE}: the units and udev rules", verify_on_trixie, image / "root")
        if not args.no_boot:
            steps.run("image: prepare its first boot", prepare_image_boot, image / "root",
                      image / "results")
            steps.run("image: first boot, hold'em round, power off", boot, image / "root",
                      image / "results")
            steps.run("image: verify what the first boot left", verify_image_boot,
                      image / "root", image / "results")
    except (CheckError, subprocess.TimeoutExpired) as failure:
        say(f"pi-check FAILED: {failure}")
        return 1
    say("\nstep times (s): " + json.dumps(steps.times))
    for label, figure in ((("arm64 (qemu)", arm), (host["machine"], host))
                          if arm is not None and host is not None else ()):
        say(f"{label:>13}: vision {figure['vision_frame_ms']} ms/frame = "
            f"{figure['vision_per_decode']} x JPEG decode+resize ({figure['jpeg_decode_resize_ms']}"
            f" ms); card->lamp {figure['card_to_lamp_ms']} ms = {figure['lamp_per_commit']} x "
            f"durable SQLite commit ({figure['sqlite_commit_ms']} ms); peak RSS "
            f"{figure['peak_rss_mib']} MiB")
    say("pi-check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
