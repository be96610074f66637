"""`shoectl simulate --tables T --broker --json`: linked tables against one controller.

Every round is printed once per table with its `"table"`; the controller's `progressive_in`
is exactly the Blazing 7's wagers the printed rounds took, and its journal verifies.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TIMEOUT_S = 300  # a hang guard only


def _shoectl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *args], capture_output=True,
                          text=True, check=False, timeout=TIMEOUT_S)


def test_three_linked_tables_feed_one_meter_exactly(tmp_path: Path) -> None:
    state = tmp_path / "controller"
    done = _shoectl("simulate", "--tables", "3", "--rounds", "4", "--seed", "11", "--broker",
                    "--bets", "main=1000,blazing7s=500", "--json", "--state-dir", str(state))
    assert done.returncode == 0, done.stderr
    rounds = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted((r["table"], r["round"]) for r in rounds) == [
        (t, n) for t in ("T1", "T2", "T3") for n in (1, 2, 3, 4)]
    wagers = sum("blazing7s" in s["side_bets"] for r in rounds for s in r["seats"])
    assert wagers > 0  # taken only while the link was up: all of them on a quiet run
    shown = _shoectl("progressive", "show", "--state-dir", str(state), "--json")
    assert json.loads(shown.stdout) == {"meter": 1_000_000 + 100 * wagers, "hits": 0,
                                        "cumulative_paid": 0, "progressive_in": wagers}
    assert _shoectl("progressive", "verify", "--state-dir", str(state)).returncode == 0


def test_tables_need_exactly_one_broker(tmp_path: Path) -> None:
    done = _shoectl("simulate", "--tables", "2", "--json")
    assert done.returncode == 2
    assert done.stderr == ("shoectl simulate: --tables needs exactly one of --link URL and "
                           "--broker\n")
