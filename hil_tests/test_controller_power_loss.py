"""Power loss at any instant: `shoectl simulate` (the whole table over ptys) is SIGKILLed at
many points; after each kill a restart returns to exactly the stored state, and the journal
verifies with the meters reconciling (nothing lost, nothing counted twice; R14)."""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.cli import simulate_command
from controller.journal import audit
from controller.journal.store import JournalStore
from controller.procedure import meter_books
from controller.procedure.blackjack_model import BlackjackModel
from controller.procedure.table_model import Setup
from controller.service.runtime import RecordingOutputs, TableRuntime

pytestmark = pytest.mark.needs("shoe", "layout", "sign", "emulated")
KILLS = 10


def config():
    return simulate_command.parse_options([]).config


def start(state_dir: Path, seed: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "controller", "simulate", "--rounds", "100000",
               "--seed", str(seed), "--state-dir", str(state_dir), "--json"]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=Path(__file__).resolve().parents[2])


def journalled_power_ons(state_dir: Path) -> int:
    """The power:on records the journal holds (0 while it does not exist yet)."""
    if not (state_dir / "journal.sqlite3").exists():
        return 0
    store = JournalStore(state_dir, clock=time.monotonic)
    try:
        return len(list(store.entries(["power:on"])))
    finally:
        store.close()


def wait_for_power_on(state_dir: Path, before: int, process: subprocess.Popen[bytes]) -> None:
    """Until the run has powered on (however long a busy machine takes to start it)."""
    deadline = time.monotonic() + 120
    while journalled_power_ons(state_dir) <= before:
        assert process.poll() is None, "the simulation stopped before it powered on"
        assert time.monotonic() < deadline, "the simulation never powered on"
        time.sleep(0.05)


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
        before = journalled_power_ons(tmp_path)
        process = start(tmp_path, seed=kill)
        wait_for_power_on(tmp_path, before, process)  # kill points in the run, not its start
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
