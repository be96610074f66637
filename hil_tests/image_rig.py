"""A card's first boot from the SD-card image, in a container: secrets made, root sealed, a deal.

The root has shoectl installed with `shoectl install --image` (by the pi-gen stage in
`make pi-check`, by the installer in `test_systemd_image_boot.py`): no journal key, no
kiosk token. It is configured as a Texas Hold'em Bonus table on emulated devices (the
layout and the overhead camera in the service, as `docs/examples/holdem-table.toml`) and
booted with `systemd-nspawn -b`. A probe unit records what a card's first boot left (the
first-boot and read-only units' results, the root's and /var's mount options, a write to
/etc refused) and deals one hold'em round through the console's HTTP API, logged in with
the kiosk token the first boot made, every card keyed at the console.
"""

from __future__ import annotations

import json
from pathlib import Path

from controller.journal import audit, keys

REPO = Path(__file__).resolve().parents[1]


class ImageBootError(RuntimeError):
    """What the first boot should have left and did not, in one line."""


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


PROBE_UNIT = """\
[Unit]
Description=shoectl boot probe
Wants=shoectl.service
After=shoectl.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/shoectl-probe

[Install]
WantedBy=multi-user.target
"""


HOLDEM_DROP_IN = """\
# Test only: the hold'em table's layout and camera are emulated, in the service.
[Service]
ExecStart=
ExecStart=/opt/shoectl/venv/bin/shoectl run --config /etc/shoectl/config.toml --allow-emulated
WatchdogSec=120
TimeoutStartSec=600
"""

# One hold'em round through the console's API with the kiosk's token made at this first boot
# (the table's cards keyed at the console, as when the camera does not see them).
HOLDEM_ROUND = r"""#!/opt/shoectl/venv/bin/python
import json, sys, time, urllib.error, urllib.request
token = open("/etc/shoectl/kiosk.token").read().strip()
def call(method, path, body=None):
    asking = urllib.request.Request(
        "http://127.0.0.1:8420" + path, method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(asking, timeout=60) as answer:
        return json.load(answer)
deadline, table = time.monotonic() + 900, None
while time.monotonic() < deadline:
    try:
        table = call("GET", "/api/table")
        break
    except (OSError, ValueError):
        time.sleep(1)
if table is None or table.get("phase") != "shuffling":
    sys.exit(f"the hold'em table never asked for the shuffle: {table and table.get('phase')}")
steps = [dict(command="shuffle_done"), dict(command="wager", seat=1, bet="ante", cents=1000),
         dict(command="wager", seat=1, bet="bonus", cents=500), dict(command="no_more_bets"),
         dict(command="hole_cards_dealt"), dict(command="bet", seat=1),
         dict(command="key_card", card="AS"), dict(command="key_card", card="KD"),
         dict(command="key_card", card="7C"), dict(command="bet", seat=1),
         dict(command="key_card", card="2H"), dict(command="check", seat=1),
         dict(command="key_card", card="9S"), dict(command="key_card", card="QH"),
         dict(command="key_card", card="QS"), dict(command="key_card", card="AH"),
         dict(command="key_card", card="AC")]
for step in steps:
    try:
        shown = call("POST", "/api/command", step)
    except urllib.error.HTTPError as refused:
        sys.exit(f"{step} refused: {refused.code} {refused.read()[:200]!r}")
print(json.dumps(shown["last_round"]))
"""

IMAGE_PROBE = r"""#!/bin/bash
# Runs inside the booted image root once shoectl.service has started (or failed).
out=/results
exec 2>> "$out/probe.err"
findmnt -no OPTIONS / > "$out/root_options.txt"
findmnt -no OPTIONS /var > "$out/var_options.txt"
if touch /etc/shoectl/written-after-the-seal 2> "$out/etc_write.txt"; then
    echo "written" >> "$out/etc_write.txt"
fi
touch /var/lib/shoectl/../shoectl-var-write && echo ok > "$out/var_write.txt"
systemctl show shoectl-firstboot.service -p ActiveState -p Result > "$out/firstboot.txt"
systemctl show shoectl-readonly-root.service -p ActiveState -p Result > "$out/seal.txt"
systemctl show shoectl.service -p ActiveState -p SubState -p NRestarts > "$out/ready.txt"
systemctl show shoectl-writable-dirs.service -p ActiveState -p Result > "$out/binds.txt"
date +%s.%N > "$out/probe_started"
if [ "$(systemctl show shoectl.service -p ActiveState --value)" = active ]; then
    /usr/local/sbin/shoectl-holdem-round > "$out/holdem.json"
    echo $? > "$out/holdem_rc"
else
    echo "shoectl.service is not active: no round dealt" > "$out/holdem_rc"
fi
date +%s.%N > "$out/holdem_done"
pid=$(systemctl show shoectl.service -p MainPID --value)
grep -E '^(VmRSS|VmHWM)' "/proc/$pid/status" > "$out/memory.txt"
systemctl stop shoectl.service
journalctl --no-pager -o short-monotonic > "$out/journal.txt"
systemctl poweroff
"""


def install_probe(root: Path, probe: str) -> None:
    """The probe script and the oneshot unit that runs it once shoectl.service is up."""
    _write(root / "usr/local/sbin/shoectl-probe", probe, 0o755)
    _write(root / "etc/systemd/system/shoectl-probe.service", PROBE_UNIT)
    wants = root / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir(parents=True, exist_ok=True)
    (wants / "shoectl-probe.service").symlink_to("/etc/systemd/system/shoectl-probe.service")


def prepare_image_boot(root: Path, results: Path, *, watchdog_s: int = 120) -> str:
    """The hold'em table's configuration, the emulated devices' drop-in and the probe."""
    config = root / "etc/shoectl/config.toml"
    config.write_text((REPO / "docs/examples/holdem-table.toml").read_text(encoding="utf-8"),
                      encoding="utf-8")  # in place: the installer's mode and group stay
    _write(root / "etc/systemd/system/shoectl.service.d/image-rig.conf",
           HOLDEM_DROP_IN.replace("WatchdogSec=120", f"WatchdogSec={watchdog_s}"))
    _write(root / "usr/local/sbin/shoectl-holdem-round", HOLDEM_ROUND, 0o755)
    install_probe(root, IMAGE_PROBE)
    (root / "etc/hostname").write_text("shoectl-pi-image\n")
    results.mkdir(parents=True, exist_ok=True)
    return "hold'em configuration (emulated layout and camera) and probe written"


def verify_image_boot(root: Path, results: Path) -> str:
    """What the first boot left: secrets made, the root sealed, a hold'em round journalled.

    Returns one line saying what was seen; raises ImageBootError naming what was not.
    """
    def read(name: str) -> str:
        path = results / name
        return path.read_text().strip() if path.exists() else f"(no {name})"

    problems = read("probe.err")
    for name, want in (("firstboot.txt", "Result=success"), ("binds.txt", "Result=success"),
                       ("seal.txt", "Result=success"),
                       ("ready.txt", "ActiveState=active")):
        if want not in read(name).split():
            raise ImageBootError(f"{name}: {' '.join(read(name).split())}; {problems[-300:]}")
    if "ro" not in read("root_options.txt").split(","):
        raise ImageBootError(f"the root is not read-only after the first boot: "
                             f"{read('root_options.txt')}")
    if "rw" not in read("var_options.txt").split(",") or read("var_write.txt") != "ok":
        raise ImageBootError(f"/var is not writable: {read('var_options.txt')}")
    if "Read-only file system" not in read("etc_write.txt"):
        raise ImageBootError(f"/etc took a write after the seal: {read('etc_write.txt')}")
    if read("holdem_rc") != "0":
        raise ImageBootError(f"the hold'em round failed ({read('holdem_rc')}): "
                             f"{problems[-400:]}")
    last = json.loads(read("holdem.json"))
    if last["board"] != ["AS", "KD", "7C", "2H", "9S"] or last["dealer"] != ["QH", "QS"]:
        raise ImageBootError(f"the hold'em round settled another board: {last}")
    net = last["seats"]["1"]["net"]
    key = keys.load_key(root / "etc/shoectl/journal.key")
    report = audit.verify_state_dir(root / "var/lib/shoectl", key)
    if not report.ok:
        raise ImageBootError(f"the audit journal does not verify: {report.lines[:2]}")
    dealt = float(read("holdem_done")) - float(read("probe_started"))
    memory = " ".join(read("memory.txt").split())
    return (f"first boot made the journal key and kiosk token; root read-only, /var "
            f"writable; 1 hold'em round dealt through the console in {dealt:.0f} s (seat 1 "
            f"net {net / 100:+.2f}); journal verified with the first boot's key "
            f"({report.records} records); shoectl run: {memory}")
