"""A real systemd boots the installed appliance in a container and restarts a wedged loop.

The Debian root is made once with debootstrap and cached outside the repository (keyed by
what goes into it: suite, variant, packages, recipe version), under
`$SHOECTL_NSPAWN_CACHE`, else `$XDG_CACHE_HOME/shoectl/nspawn`, else `~/.cache/shoectl/nspawn`.
Each run copies it, installs the project into the copy with `shoectl install --root`
(venv, manifest, unit, udev rules, system user), adds emulated devices and a test-only
drop-in (short watchdog, the wedge signal armed), and boots it with `systemd-nspawn -b`.
A probe unit inside the container checks READY, wedges the main loop with the test
signal, waits for systemd's watchdog to kill and restart the service, checks it is READY
again, stops it in order and powers the container off. The host then verifies the audit
journal the two runs wrote and that the meters survived the restart.

The journal is seeded before the boot by five simulated rounds on the host (under the key
the installer made in the container), a 10% and a 100% Blazing 7's hit among them, so the
meters the service resumes are not those of a fresh table: a start that lost or reset them,
or replayed a hit wrongly, shows against the sum of the journal's records.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.appliance import integrity
from controller.cli import install_command
from controller.journal import audit, keys
from controller.journal.store import JournalStore
from controller.rules.money import format_cents
from controller.web.accounts import token_digest

REPO = Path(__file__).resolve().parents[1]
SUITE = "bookworm"
PACKAGES = ("systemd", "systemd-sysv", "dbus", "python3", "libusb-1.0-0", "udev")
RECIPE = "1"  # bump when the way the root is made changes
WATCHDOG_S = 5
BOOT_TIMEOUT_S = 300
HOST_PYTHON = "/usr/bin/python3"

pytestmark = pytest.mark.timeout(1800)


# ---------------------------------------------------------------- capability checks


def _cannot_run() -> str | None:
    """Why this machine cannot boot a container (None when it can)."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return "booting systemd in systemd-nspawn needs root on Linux"
    for tool, package in (("systemd-nspawn", "systemd-container"), ("debootstrap", "debootstrap")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian package {package}; run .ci/sysdeps)"
    if not Path(HOST_PYTHON).exists():
        return f"{HOST_PYTHON} is missing: the staged venv is built with the system Python"
    return None


def _nspawn_refuses(root: Path) -> str | None:
    """Run one command in the container (no boot): does nspawn work on this machine?"""
    done = subprocess.run(
        ["systemd-nspawn", "--quiet", "--keep-unit", "--register=no", "--private-network",
         f"--directory={root}", "/bin/true"],
        capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL,
    )
    if done.returncode == 0:
        return None
    return f"systemd-nspawn cannot start a container here: {done.stderr.strip()[-300:]}"


def _host_python_minor() -> str:
    done = subprocess.run([HOST_PYTHON, "-c", "import sys; print(sys.version_info[1])"],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


# ---------------------------------------------------------------- the cached Debian root


def cache_root() -> Path:
    """Where cached container roots live (outside the repository)."""
    explicit = os.environ.get("SHOECTL_NSPAWN_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "shoectl" / "nspawn"


def cache_key() -> str:
    """Hash of everything that goes into the root."""
    arch = os.uname().machine
    recipe = json.dumps([RECIPE, SUITE, "minbase", sorted(PACKAGES), arch])
    return f"{SUITE}-{arch}-{hashlib.sha256(recipe.encode()).hexdigest()[:16]}"


def cached_debian_root() -> tuple[Path, float]:
    """The cached root, built on first use; returns it and the seconds spent building."""
    cache = cache_root()
    cache.mkdir(parents=True, exist_ok=True)
    ready = cache / cache_key()
    with (cache / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time, across processes
        if (ready / "etc" / "os-release").exists():
            return ready, 0.0
        started = time.monotonic()
        partial = cache / (cache_key() + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        done = subprocess.run(
            ["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE,
             str(partial)],
            capture_output=True, text=True, timeout=1500, check=False,
        )
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            pytest.fail(f"debootstrap failed: {(done.stdout + done.stderr)[-2000:]}")
        partial.rename(ready)
        for stale in cache.iterdir():  # older recipes would only fill the disk
            if stale.is_dir() and stale != ready:
                shutil.rmtree(stale, ignore_errors=True)
        return ready, time.monotonic() - started


# ---------------------------------------------------------------- what goes into the container

EMULATORS = ("shoe", "layout", "sign")

RIG_CONFIG = """\
# Test rig: real serial drivers against byte-level emulators on ptys in the container.
[table]
name = "NSPAWN-01"

[devices.shoe]
kind = "serial"
url = "/run/shoectl-emu/shoe/port"
key_file = "/run/shoectl-emu/shoe/port.key"
firmware = ["emulated-1.0"]

[devices.layout]
kind = "serial"
url = "/run/shoectl-emu/layout/port"
key_file = "/run/shoectl-emu/layout/port.key"
firmware = ["emulated-1.0"]
bet_sensors = { "seat1.blazing7s" = 1, "seat2.blazing7s" = 2, "seat1.main" = 3 }
buttons = { no_more_bets = 10, shuffle_done = 11, new_shoe = 12 }

[devices.layout.lamps]
"seat1.blazing7s" = 1
"seat2.blazing7s" = 2
blackjack = 8
no_more_bets = 9
fault = 10
shuffle = 11

[devices.sign]
kind = "serial"
url = "/run/shoectl-emu/sign/port"
key_file = "/run/shoectl-emu/sign/port.key"
firmware = ["emulated-1.0"]
"""

# One emulator per board, as the service's user (so it may open the pty), commands
# readable from a FIFO the probe can write to. Each pairs itself with a fresh key in
# <dir>/port.key (mode 0600, the service's user), the key_file the configuration names.
EMULATOR_SCRIPT = """\
#!/bin/sh
set -eu
dir=/run/shoectl-emu/$1
rm -f "$dir/in" && mkfifo "$dir/in"
extra=""
[ "$1" = shoe ] && extra="--shoe-file /etc/shoectl-rig/shoe.txt"
exec /opt/shoectl/venv/bin/shoectl emulate "$1" --link-dir "$dir" --name port $extra <> "$dir/in"
"""

# The shoe the probe loads between the two starts, while the seeded table has betting open
# (a shoe loaded mid-shoe is journalled and numbers its cards from 1 again; no burn): one
# seat's round before the wedge (three 7s of clubs: a 10% hit) and one after the restart
# (three 7D: a 100% hit). Each: the seat's first card, the dealer's up card, the seat's
# second card, the hole card, then a king the seat hits into a bust (no dealer draw: every
# hand is busted). Small cards follow so the shoe never runs dry.
LIVE_ROUND_CLUBS = ("7C", "7C", "7C", "9S", "KS")
LIVE_ROUND_DIAMONDS = ("7D", "7D", "7D", "9S", "KS")
LIVE_SHOE = (*LIVE_ROUND_CLUBS, *LIVE_ROUND_DIAMONDS, *("2S", "3H", "4D", "5C") * 10)

# Waits, inside the container, until the dealer console's prompt contains the given text.
RIG_KIOSK_TOKEN = "rig-kiosk-token-".ljust(43, "k")
TABLE_WAIT_SCRIPT = """\
#!/opt/shoectl/venv/bin/python
import json, sys, time, urllib.request
want, deadline, prompt = sys.argv[1], time.monotonic() + 120, ""
while time.monotonic() < deadline:
    try:
        asking = urllib.request.Request("http://127.0.0.1:8420/api/table", headers={
            "Authorization": "Bearer RIG_KIOSK_TOKEN"})
        with urllib.request.urlopen(asking, timeout=5) as answer:
            prompt = json.load(answer).get("prompt") or ""
    except OSError as exc:
        prompt = f"(no answer: {exc})"
    if want in prompt:
        sys.exit(0)
    time.sleep(0.2)
sys.exit(f"table never asked for {want!r}; last prompt: {prompt!r}")
"""

# Waits until the meters show `hits` hits (the round's hit is journalled and stored).
METER_WAIT_SCRIPT = r"""#!/bin/sh
for _ in $(seq 1 300); do
    runuser -u shoectl -- /opt/shoectl/venv/bin/shoectl meter show --json \
        --state-dir /var/lib/shoectl 2>/dev/null | grep -q "\"hits\": $1," && exit 0
    sleep 0.2
done
echo "the meters never showed $1 hits" >&2
exit 1
"""

WAIT_SCRIPT = """\
#!/bin/sh
for _ in $(seq 1 300); do [ -e "/run/shoectl-emu/$1/port" ] && exit 0; sleep 0.1; done
echo "emulator $1 made no port" >&2
exit 1
"""

EMULATOR_UNIT = """\
[Unit]
Description=shoectl test rig: emulated %i board
Before=shoectl.service

[Service]
User=shoectl
RuntimeDirectory=shoectl-emu/%i
ExecStart=/usr/local/sbin/shoectl-rig-emulator %i
ExecStartPost=/usr/local/sbin/shoectl-rig-wait %i
"""

# Fault injection without a hook in the product: the rig's sitecustomize arms the
# "wedge the main loop" signal in the service's interpreter before `shoectl run` starts.
WEDGE_SITECUSTOMIZE = """\
# Test rig only: SIGUSR2 blocks the service's main (loop) thread for good, so the loop stops
# pinging the watchdog and systemd must kill and restart the service.
import logging
import signal
import threading


def _wedge(signum, frame):
    logging.getLogger("shoectl.test-rig").critical("test wedge: the main loop is blocked")
    threading.Event().wait()


signal.signal(signal.SIGUSR2, _wedge)
"""
WEDGE_PATH = "/usr/local/lib/shoectl-test-rig"

_EMULATOR_UNITS = " ".join(f"shoectl-emulator@{board}.service" for board in EMULATORS)

DROP_IN = f"""\
# Test rig only: emulated boards, a short watchdog, the wedge signal armed.
[Unit]
Wants={_EMULATOR_UNITS}
After={_EMULATOR_UNITS}

[Service]
ExecStart=
ExecStart=/opt/shoectl/venv/bin/shoectl run --config /etc/shoectl/config.toml --allow-emulated
WatchdogSec={WATCHDOG_S}
Environment=PYTHONPATH={WEDGE_PATH}
DeviceAllow=char-pts rw
"""

PROBE = r"""#!/bin/bash
# Runs inside the container once shoectl.service has started (or failed).
out=/results
show() {
    systemctl show shoectl.service -p ActiveState -p SubState -p Result -p NRestarts \
        -p MainPID -p StatusText -p ExecMainStartTimestampMonotonic \
        -p ActiveEnterTimestampMonotonic -p WatchdogTimestampMonotonic -p ExecMainStatus \
        > "$out/$1.txt"
}
value() { systemctl show shoectl.service -p "$1" --value; }
meters() {
    runuser -u shoectl -- /opt/shoectl/venv/bin/shoectl meter show --json \
        --state-dir /var/lib/shoectl > "$out/meters_$1.json" 2> "$out/meters_$1.err"
}
play() { echo "$2" > "/run/shoectl-emu/$1/in"; }
table() { /usr/local/sbin/shoectl-rig-table "$1" 2>> "$out/play.err"; }
# One seat's round with a Blazing 7's wager: chips on, four cards, a hit to bust. $1: the
# seeded and played hits the meters show once it is settled.
round() {
    table "place your bets" && play layout "chip 3" && play layout "chip 1" &&
        table "seats in play 1" && play shoe "draw 4" && table "decides" &&
        play shoe "draw 1" && /usr/local/sbin/shoectl-rig-meter-hits "$1" 2>> "$out/play.err" &&
        play layout "unchip 1" && play layout "unchip 3"
}
show ready
systemctl show -p RuntimeWatchdogUSec -p RebootWatchdogUSec > "$out/manager.txt"
table "place your bets" && play shoe load
round 3 && echo played > "$out/played_before"
sleep $((WATCHDOG * 2))
show steady
meters before
systemctl kill --kill-whom=main --signal=SIGUSR2 shoectl.service
date +%s.%N > "$out/wedged_at"
for _ in $(seq 1 120); do
    if [ "$(value NRestarts)" -ge 1 ] && [ "$(value ActiveState)" = active ]; then break; fi
    sleep 0.5
done
date +%s.%N > "$out/restarted_at"
show restarted
sleep $((WATCHDOG * 2))
show recovered
round 4 && echo played > "$out/played_after"
meters after
systemctl stop shoectl.service
show stopped
# Start of day (R2), run by root as the floorperson would: it drops to the service's user.
# Every question is answered yes; nobody touches a sensor or button, so those time out.
yes y | shoectl selftest --operator "nspawn probe" --timeout 1 > "$out/selftest.out" 2>&1
echo $? > "$out/selftest_rc"
find /var/lib/shoectl -newer "$out/stopped.txt" -printf '%u %p\n' > "$out/selftest_files"
# R16: one changed byte in the installed software and the service must refuse to start.
tampered=$(ls /opt/shoectl/venv/lib/python3*/site-packages/controller/rules/money.py)
echo "$tampered" > "$out/tampered_file"
echo "# tampered" >> "$tampered"
systemctl start shoectl.service
echo $? > "$out/tampered_start_rc"
sleep 1
show tampered
systemctl stop shoectl.service
journalctl --no-pager -o short-monotonic > "$out/journal.txt"
systemctl poweroff
"""

PROBE_UNIT = """\
[Unit]
Description=shoectl boot-test probe
Wants=shoectl.service
After=shoectl.service

[Service]
Type=oneshot
Environment=WATCHDOG={watchdog}
ExecStart=/usr/local/sbin/shoectl-probe

[Install]
WantedBy=multi-user.target
"""


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


def prepare_container(root: Path, results: Path) -> None:
    """Install the project into the container root and add the test rig's files."""
    assert install_command.main(["--root", str(root), "--source", str(REPO),
                         "--python", HOST_PYTHON]) == 0
    _write(root / "etc/shoectl/config.toml", RIG_CONFIG, 0o640)
    _write(root / "usr/local/sbin/shoectl-rig-emulator", EMULATOR_SCRIPT, 0o755)
    _write(root / "usr/local/sbin/shoectl-rig-wait", WAIT_SCRIPT, 0o755)
    _write(root / "usr/local/sbin/shoectl-rig-table",
           TABLE_WAIT_SCRIPT.replace("RIG_KIOSK_TOKEN", RIG_KIOSK_TOKEN), 0o755)
    # The console's credentials (the kiosk's token), readable by the service's user, whose
    # uid the container makes only when it boots.
    _write(root / "etc/shoectl/config.credentials.json", json.dumps(
        {"users": {}, "tokens": {"kiosk": token_digest(RIG_KIOSK_TOKEN)}}), 0o644)
    _write(root / "usr/local/sbin/shoectl-rig-meter-hits", METER_WAIT_SCRIPT, 0o755)
    _write(root / "etc/shoectl-rig/shoe.txt", " ".join(LIVE_SHOE) + "\n")
    _write(root / "etc/systemd/system/shoectl-emulator@.service", EMULATOR_UNIT)
    _write(root / WEDGE_PATH.lstrip("/") / "sitecustomize.py", WEDGE_SITECUSTOMIZE)
    _write(root / "etc/systemd/system/shoectl.service.d/test-rig.conf", DROP_IN)
    _write(root / "usr/local/sbin/shoectl-probe", PROBE, 0o755)
    _write(root / "etc/systemd/system/shoectl-probe.service",
           PROBE_UNIT.format(watchdog=WATCHDOG_S))
    wants = root / "etc/systemd/system/multi-user.target.wants"
    (wants / "shoectl-probe.service").symlink_to("/etc/systemd/system/shoectl-probe.service")
    (root / "etc/hostname").write_text("shoectl-test\n")
    results.mkdir()
    seed_journal(root)


def journal_key(root: Path) -> keys.JournalKey:
    """The key the installer made in the container (readable by root on the host)."""
    return keys.load_key(root / "etc/shoectl/journal.key")


# One seat standing on its first two cards, five rounds dealt exactly (no burn, no cut card:
# the player's first card, the dealer's up card, the player's second, the hole, the dealer's
# draws): a plain round, three suited 7s of clubs (a 10% hit), a plain round, three 7D (a 100%
# hit), a plain round. Every round takes a Blazing 7's wager.
PLAIN_ROUND = ("2S", "3S", "4S", "5S", "KS")  # dealer 8, then a king: 18
SEED_SHOE = (*PLAIN_ROUND, "7C", "7C", "7C", "9S", "TS", *PLAIN_ROUND,
             "7D", "7D", "7D", "9S", "TS", *PLAIN_ROUND)
SEED_ROUNDS = 5


def seed_journal(root: Path) -> None:
    """The seeded rounds into the container's state directory, under its key."""
    state = root / "var/lib/shoectl"
    shoe = root.parent / "seed-shoe.txt"
    shoe.write_text("\n".join(SEED_SHOE) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "controller", "simulate", "--in-process", "--rounds",
         str(SEED_ROUNDS), "--seats", "1", "--strategy", "stand", "--shoe-file", str(shoe),
         "--state-dir", str(state), "--json"], cwd=REPO, capture_output=True,
        text=True, check=False,
        env={**os.environ, keys.KEY_ENV: str(root / "etc/shoectl/journal.key")})
    assert done.returncode == 0, done.stderr[-2000:]


def summed_meters(records: list[tuple[str, dict]]) -> dict[str, int]:
    """The meters as the journal's records add up, by the rules' own arithmetic (RULES.md,
    "Progressive meter"): each accepted wager adds the increment; a 100% hit pays the meter
    and resets it; a 10% hit pays a tenth rounded down to the cent and lowers it by that.

    Only the amounts each record was *asked* to move are used (who hit, which share, which
    seat contributed), never the amounts it says the meter held.
    """
    meter = hits = paid = wagers = 0
    reset = increment = 0
    for kind, data in records:
        if kind == "meter:init":
            meter, reset, increment = data["amount"], data["params"]["reset"], \
                data["params"]["increment"]
        elif kind == "meter:contribution":
            meter, wagers = meter + increment, wagers + 1
        elif kind == "meter:hit":
            full = data["kind"] == "100%"
            award = meter if full else meter // 10
            assert data["paid"] == award, data
            meter = reset if full else meter - award
            hits, paid = hits + 1, paid + award
        else:
            assert not kind.startswith("meter:"), kind  # no correction, void or new params
    return {"meter": meter, "hits": hits, "cumulative_paid": paid, "progressive_in": wagers}


def boot(root: Path, results: Path) -> subprocess.CompletedProcess[str]:
    """Boot the container until the probe powers it off."""
    return subprocess.run(
        ["systemd-nspawn", "--quiet", "--keep-unit", "--register=no", "--private-network",
         f"--directory={root}", f"--bind={results}:/results", "--boot"],
        capture_output=True, text=True, timeout=BOOT_TIMEOUT_S, check=False,
        stdin=subprocess.DEVNULL,
    )


def _properties(results: Path, name: str) -> dict[str, str]:
    text = (results / f"{name}.txt").read_text()
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


# ---------------------------------------------------------------- the test


@pytest.fixture(scope="module")
def booted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    why = _cannot_run()
    if why:
        pytest.skip(why)
    cached, build_s = cached_debian_root()
    refused = _nspawn_refuses(cached)
    if refused:
        pytest.skip(refused)
    minor = _host_python_minor()
    if not (cached / f"usr/lib/python3.{minor}").is_dir():
        pytest.skip(f"{HOST_PYTHON} is 3.{minor}, the {SUITE} root has another Python: "
                    "a venv built here would not run there")
    work = tmp_path_factory.mktemp("nspawn")
    root, results = work / "root", work / "results"
    started = time.monotonic()
    subprocess.run(["cp", "-a", "--reflink=auto", str(cached), str(root)], check=True)
    prepare_container(root, results)
    seeded = audit.stored_meters(root / "var/lib/shoectl", journal_key(root))
    seeded_records = audit.verify_state_dir(root / "var/lib/shoectl", journal_key(root)).records
    prepared = time.monotonic()
    done = boot(root, results)
    finished = time.monotonic()
    timings = {"debootstrap_s": round(build_s, 1), "copy_install_s": round(prepared - started, 1),
               "boot_to_poweroff_s": round(finished - prepared, 1)}
    sys.stderr.write(f"\nnspawn boot test timings: {json.dumps(timings)}\n")
    journal = results / "journal.txt"
    if not journal.exists():
        pytest.fail(f"the probe did not finish (nspawn exit {done.returncode}):\n"
                    f"{(done.stdout + done.stderr)[-4000:]}")
    yield {"root": root, "results": results, "journal": journal.read_text(),
           "nspawn": done, "timings": timings, "seeded": seeded,
           "seeded_records": seeded_records}
    shutil.rmtree(root, ignore_errors=True)  # ~600 MB; the results stay for inspection


def test_service_becomes_ready(booted) -> None:
    ready = _properties(booted["results"], "ready")
    assert ready["ActiveState"] == "active", ready
    assert ready["SubState"] == "running"
    assert ready["NRestarts"] == "0"


def test_pid1_reads_the_hardware_watchdog_drop_in(booted) -> None:
    manager = _properties(booted["results"], "manager")
    assert manager["RuntimeWatchdogUSec"] == "14s"
    assert manager["RebootWatchdogUSec"] == "2min"


def test_healthy_loop_keeps_the_watchdog_fed(booted) -> None:
    ready = _properties(booted["results"], "ready")
    steady = _properties(booted["results"], "steady")
    assert steady["ActiveState"] == "active"
    assert steady["MainPID"] == ready["MainPID"]
    assert int(steady["WatchdogTimestampMonotonic"]) > int(ready["WatchdogTimestampMonotonic"])


def test_wedged_loop_is_killed_by_the_watchdog_and_restarted(booted) -> None:
    steady = _properties(booted["results"], "steady")
    restarted = _properties(booted["results"], "restarted")
    assert restarted["ActiveState"] == "active", restarted
    assert restarted["NRestarts"] == "1"
    assert restarted["MainPID"] != steady["MainPID"]
    journal = booted["journal"]
    assert f"Watchdog timeout (limit {WATCHDOG_S}s)!" in journal
    assert "Killing process" in journal
    assert "SIGABRT" in journal
    assert "Failed with result 'watchdog'" in journal


def test_service_recovers_and_stops_in_order(booted) -> None:
    recovered = _properties(booted["results"], "recovered")
    restarted = _properties(booted["results"], "restarted")
    assert recovered["ActiveState"] == "active"
    assert recovered["MainPID"] == restarted["MainPID"]
    assert recovered["NRestarts"] == "1"
    stopped = _properties(booted["results"], "stopped")
    assert stopped["ActiveState"] == "inactive"
    assert stopped["Result"] == "success"


def _journal_records(root: Path) -> list[tuple[str, dict[str, object]]]:
    store = JournalStore(root / "var/lib/shoectl", clock=time.monotonic, key=journal_key(root))
    try:
        return [(entry.kind, entry.data) for entry in store.entries()]
    finally:
        store.close()


def test_audit_journal_verifies_after_the_restart(booted) -> None:
    report = audit.verify_state_dir(booted["root"] / "var/lib/shoectl",
                                    journal_key(booted["root"]))
    assert report.ok, report.lines


def test_meters_survive_the_restart_with_rounds_played_either_side(booted) -> None:
    results = booted["results"]
    assert (results / "meters_before.err").read_text() == ""
    assert (results / "played_before").exists(), (results / "play.err").read_text()
    assert (results / "played_after").exists(), (results / "play.err").read_text()
    before = json.loads((results / "meters_before.json").read_text())
    after = json.loads((results / "meters_after.json").read_text())
    seeded = booted["seeded"]
    assert seeded is not None
    assert seeded.hits == 2  # a 10% and a 100% hit: not a fresh table's meters
    records = _journal_records(booted["root"])
    starts = [i for i, (kind, _) in enumerate(records)
              if kind == "power:on" and i >= booted["seeded_records"]]
    # Worked by hand from RULES.md: the seeded rounds leave 1,000,100 after paying 100,020
    # (a tenth of 1,000,200) and 900,380 (all of it); the round before the wedge adds 100 and
    # pays a tenth of 1,000,200; the round after the restart adds 100 and pays all 900,280.
    assert summed_meters(records[:starts[1]]) == {
        "meter": 900_180, "hits": 3, "cumulative_paid": 1_100_420, "progressive_in": 6}
    assert summed_meters(records) == {
        "meter": 1_000_000, "hits": 4, "cumulative_paid": 2_000_700, "progressive_in": 7}
    assert {key: before[key] for key in ("meter", "hits", "cumulative_paid", "progressive_in")} \
        == summed_meters(records[:starts[1]])  # what the first start's records add up to
    assert {key: after[key] for key in ("meter", "hits", "cumulative_paid", "progressive_in")} \
        == summed_meters(records)  # the restart resumed them, and played on from there
    stored = audit.stored_meters(booted["root"] / "var/lib/shoectl", journal_key(booted["root"]))
    assert stored is not None
    assert stored.summary() == after  # and still so after the orderly stop


def _until_tampering(booted) -> list[tuple[str, dict]]:
    """The service's records (after the seeded ones) up to the orderly stop that precedes the
    tampering step."""
    records = _journal_records(booted["root"])[booted["seeded_records"]:]
    kinds = [kind for kind, _ in records]
    return records[:kinds.index("power:off") + 1] if "power:off" in kinds else records


def test_power_on_and_off_are_journalled_around_the_crash(booted) -> None:
    power = [(kind, data) for kind, data in _until_tampering(booted)
             if kind.startswith("power:")]
    assert [kind for kind, _ in power] == ["power:on", "power:on", "power:off"]
    assert power[0][1]["first_start"] is False  # the seeded journal's table, resumed
    assert power[0][1]["clean_shutdown"] is True  # the seeding ended with power:off
    assert power[1][1]["first_start"] is False
    assert power[1][1]["clean_shutdown"] is False  # killed by the watchdog, no power:off


def test_software_was_authenticated_at_each_start(booted) -> None:
    manifest = booted["root"] / "opt/shoectl/manifest.sha256"
    signature = hashlib.sha256(manifest.read_bytes()).hexdigest()
    verified = [data for kind, data in _until_tampering(booted)
                if kind == integrity.KIND_VERIFIED]
    assert len(verified) == 2  # the first start and the restart after the watchdog
    assert all(data["signature"] == signature for data in verified)


def test_tampered_software_refuses_to_start_and_is_journalled_critical(booted) -> None:
    results = booted["results"]
    tampered = (results / "tampered_file").read_text().strip()
    assert int((results / "tampered_start_rc").read_text()) != 0
    state = _properties(results, "tampered")
    assert state["ActiveState"] != "active", state
    assert state["ExecMainStatus"] != "0", state
    mismatches = [data for kind, data in _journal_records(booted["root"])
                  if kind == integrity.KIND_MISMATCH]
    assert mismatches, "no system:software-mismatch record"
    assert mismatches[0]["severity"] == "critical"
    assert mismatches[0]["problems"] == [f"changed: {tampered}"]
    assert f"software mismatch: changed: {tampered}" in booted["journal"]


def test_selftest_as_root_names_the_untouched_layout_and_keeps_the_journal_the_services(
        booted) -> None:
    results = booted["results"]
    out = (results / "selftest.out").read_text()
    assert (results / "selftest_rc").read_text().strip() == "1", out
    shown = format_cents(json.loads((results / "meters_after.json").read_text())["meter"])
    for line in ("PASS  software manifest: ", "PASS  journal  chain: chain intact",
                 "PASS  shoe     handshake", "PASS  layout   lamp fault",
                 "FAIL  layout   sensor seat1.blazing7s (place_chip): no signal within 1 s",
                 f"PASS  sign     shows ${shown}", "self-test FAILED: layout"):
        assert line in out, out
    owners = (results / "selftest_files").read_text().split()
    assert owners, "the self-test wrote nothing to the state directory"
    assert set(owners[0::2]) == {"shoectl"}, owners
    [result] = [data for kind, data in _journal_records(booted["root"])
                if kind == "selftest:result"]
    assert result["operator"] == "nspawn probe"
    assert result["failed_devices"] == ["layout"]
