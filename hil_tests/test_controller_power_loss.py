"""Power loss at any instant (R14).

A killed process: `shoectl simulate` (the whole table over ptys) is SIGKILLed at many points;
after each kill a restart returns to exactly the stored state, and the journal verifies with
the meters reconciling (nothing lost, nothing counted twice). A kill leaves the page cache to
finish the writes, so it cannot tell a journal that waits for the storage from one that
does not: the power cuts below can.

A power cut: the state directory is on a FUSE file system (`tests/support/powercut_fs.py`)
that, at the cut, keeps only what was fsynced. The table deals over ptys
(`tests/support/powercut_table.py`) and reports every card its shoe's board was told is
handled (from then on only the journal has it); the power is cut at a random change to
the files, the table killed, and the restart on what storage kept must open the journal
without an alarm and hold every handled card. The same cuts on a journal with SQLite's
`synchronous=OFF` lose cards or are refused at restart: the test can fail.
"""

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.cli import simulate_command
from controller.journal import audit, keys
from controller.journal.store import JournalError, JournalStore
from controller.procedure.blackjack import BlackjackModel
from controller.procedure.shared import meter_books
from controller.procedure.shared.setup import Setup
from controller.service.runtime import RecordingOutputs, TableRuntime

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")
KILLS = 10
CUTS = 50
REPO = Path(__file__).resolve().parents[1]


def config():
    return simulate_command.parse_options([]).config


def start(state_dir: Path, seed: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "controller", "simulate", "--rounds", "100000",
               "--seed", str(seed), "--state-dir", str(state_dir), "--json"]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=REPO)


def table_started(state_dir: Path, process: subprocess.Popen[bytes]) -> None:
    """Wait until the run has journalled its power-on (a WAL with frames in it), so that
    each kill lands while the table deals, however slow this machine is to start Python."""
    wal = state_dir / "journal.sqlite3-wal"
    for _ in range(1200):
        if wal.exists() and wal.stat().st_size > 32 * 1024:
            return
        assert process.poll() is None, "the simulation stopped before it dealt"
        time.sleep(0.05)
    pytest.fail("the simulation journalled nothing within 60 s")


def restart_matches_the_stored_state(state_dir: Path, killed: bool) -> str:
    store = JournalStore(state_dir, clock=time.monotonic)
    critical = store.load_critical()
    assert critical is not None
    runtime = TableRuntime(Setup(config(), burn=True), store, RecordingOutputs(),
                           BlackjackModel, critical["config_hash"])
    assert runtime.model.snapshot() == critical["procedure"]
    assert runtime.model.progressive.meters.to_json() == critical["meters"]
    power_on = list(store.entries(["power:on"]))[-1]
    assert power_on.data["clean_shutdown"] is not killed
    assert runtime.shown is not None  # public outputs re-asserted
    state = runtime.model.state
    store.close()
    return state


def test_sigkill_at_many_points_loses_nothing(tmp_path: Path) -> None:
    rng = random.Random(11)
    states = []
    kills = 0
    for kill in range(KILLS):
        process = start(tmp_path, seed=kill)
        table_started(tmp_path, process)
        time.sleep(rng.uniform(0.0, 1.2))
        os.kill(process.pid, signal.SIGKILL)
        killed = process.wait() == -signal.SIGKILL
        kills += killed
        states.append(restart_matches_the_stored_state(tmp_path, killed))
    report = audit.verify_state_dir(tmp_path)
    assert report.ok, report.lines
    store = JournalStore(tmp_path, clock=time.monotonic)
    contributions = len(list(store.entries(["meter:contribution"])))
    hits = len(list(store.entries(["meter:hit"])))
    power_ons = len(list(store.entries(["power:on"])))
    critical = store.load_critical()
    store.close()
    meters = meter_books.Meters.from_json(critical["meters"])
    assert meters.progressive_in == contributions > 0
    assert meters.hits == hits
    assert power_ons == 2 * KILLS  # one by each run, one by each check
    assert len(set(states)) > 1, states
    assert kills >= KILLS - 1


# ---------------------------------------------------------------- power cuts on FUSE


@dataclass(frozen=True)
class Cut:
    """One power cut: the cards handled before it, those the restart does not hold."""

    handled: int
    lost: int
    refused: str  # the restart's refusal ("" when the journal opened)
    records: int


def _mounted(mountpoint: Path, fs: subprocess.Popen[bytes]) -> None:
    for _ in range(600):
        if os.path.ismount(mountpoint):
            return
        if fs.poll() is not None:
            pytest.fail(f"the power-cut file system did not mount: {fs.stderr.read()!r}")
        time.sleep(0.05)
    pytest.fail("the power-cut file system did not mount within 30 s")


def _collect(stream, lines: list[str]) -> None:
    lines.extend(raw.decode() for raw in stream)


def cut_once(work: Path, cut_after: int, seed: int, *extra: str) -> Cut:
    """Deal until the power is cut at the `cut_after`-th change, then restart on storage."""
    disk, mountpoint, done = work / "disk", work / "mnt", work / "cut-done"
    mountpoint.mkdir(exist_ok=True)
    done.unlink(missing_ok=True)
    fs = subprocess.Popen([sys.executable, "-m", "tests.support.powercut_fs", str(disk),
                           str(mountpoint), "--cut-after", str(cut_after), "--done", str(done)],
                          cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _mounted(mountpoint, fs)
        table = subprocess.Popen([sys.executable, "-m", "tests.support.powercut_table",
                                  str(mountpoint / "state"), str(seed), *extra], cwd=REPO,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        lines: list[str] = []
        reader = threading.Thread(target=_collect, args=(table.stdout, lines), daemon=True)
        reader.start()
        for _ in range(2400):  # the cut comes at a count of changes, not at a time
            if done.exists() or table.poll() is not None:
                break
            time.sleep(0.05)
        table.kill()
        table.wait()
        reader.join(10)
        errors = table.stderr.read()
        table.stdout.close()
        table.stderr.close()
        if not done.exists():
            pytest.fail(f"the table stopped before the cut: {errors[-2000:]!r}")
    finally:
        subprocess.run(["fusermount3", "-u", "-z", str(mountpoint)], check=False,
                       capture_output=True)
        fs.wait(30)
        fs.stderr.close()
    handled = [int(line.split()[1]) for line in lines if line.startswith("handled ")]
    try:
        store = JournalStore(disk / "state", clock=time.monotonic)
    except JournalError as exc:
        return Cut(len(handled), len(handled), str(exc), 0)
    records = store.records
    store.close()
    if records:  # power:on is the first record: a cut before it leaves an empty journal
        restart_matches_the_stored_state(disk / "state", killed=True)
    return Cut(len(handled), sum(seq > records for seq in handled), "", records)


@pytest.fixture
def powercut_rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if shutil.which("fusermount3") is None or not Path("/dev/fuse").exists():
        pytest.fail("the power-cut rig needs FUSE: /dev/fuse and fusermount3 (Debian fuse3, "
                    "installed by .ci/sysdeps)")
    key = keys.create_key(tmp_path / "table.key")  # off the cut disk, as on the appliance
    monkeypatch.setenv(keys.KEY_ENV, str(key.path))
    (tmp_path / "disk").mkdir()
    return tmp_path


def test_power_cuts_at_random_points_lose_no_handled_card(powercut_rig: Path) -> None:
    rng = random.Random(29)
    cuts = [cut_once(powercut_rig, rng.randint(40, 4000), seed) for seed in range(CUTS)]
    refused = [c.refused for c in cuts if c.refused]
    assert refused == [], refused[:3]  # no false alarm after any cut
    handled = sum(c.handled for c in cuts)
    lost = sum(c.lost for c in cuts)
    sys.stderr.write(f"\npower cuts: {CUTS}, cards handled before them: {handled}, "
                     f"lost: {lost}, records at the end: {cuts[-1].records}\n")
    assert lost == 0
    assert handled > CUTS  # the cuts came while cards were being dealt
    report = audit.verify_state_dir(powercut_rig / "disk" / "state")
    assert report.ok, report.lines


def test_the_cuts_catch_a_journal_that_does_not_wait_for_storage(powercut_rig: Path) -> None:
    """The mutation: SQLite's synchronous=OFF. Each cut on a fresh disk."""
    rng = random.Random(31)
    caught = 0
    for seed in range(3):
        shutil.rmtree(powercut_rig / "disk")
        (powercut_rig / "disk").mkdir()
        cut = cut_once(powercut_rig, rng.randint(600, 1400), seed, "--sqlite-sync-off")
        sys.stderr.write(f"\nsynchronous=OFF, cut {seed + 1}: {cut.handled} cards handled, "
                         f"{cut.lost} lost; restart: {cut.refused or 'opened'}\n")
        caught += bool(cut.lost or cut.refused)
    assert caught == 3
