"""Run the real `shoectl simulate --shoe-file ... --strategy stand --json` as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class SimulateRun:
    """What one `shoectl simulate` run printed."""

    records: list[dict[str, Any]]
    stderr: str
    returncode: int


def bets_argument(bets: dict[str, int]) -> str:
    """`{"main": 1000, "axman": 100}` -> `main=1000,axman=100`."""
    return ",".join(f"{name}={cents}" for name, cents in bets.items())


def run_simulate(workdir: Path, game: str, shoe: list[str], *, seats: int, bets: dict[str, int],
                 decks: int | None = None, meter: tuple[int, int, int] | None = None,
                 in_process: bool = False) -> SimulateRun:
    """`shoectl simulate` on `shoe` with `seats` seats 1..K all wagering `bets`.

    Args:
        workdir: where the shoe file is written.
        game: blackjack, spanish21 or baccarat.
        shoe: the stacked shoe, in dealing order.
        seats: how many seats play.
        bets: every seat's wagers (`main` and side wagers; baccarat wager names).
        decks: `--decks`.
        meter: (start, reset, increment) for the Blazing 7's meter.
        in_process: pass `--in-process` (no emulated devices).
    """
    path = workdir / f"shoe-{game}-{len(shoe)}.txt"
    path.write_text("# stacked shoe, dealing order\n" + "\n".join(shoe) + "\n", encoding="utf-8")
    argv = [sys.executable, "-m", "controller", "simulate", "--game", game,
            "--shoe-file", str(path), "--strategy", "stand", "--json", "--rounds", "10000",
            "--seats", str(seats), "--bets", bets_argument(bets)]
    if decks is not None:
        argv += ["--decks", str(decks)]
    if meter is not None:
        start, reset, increment = meter
        argv += ["--meter-start", str(start), "--meter-reset", str(reset),
                 "--meter-increment", str(increment)]
    if in_process:
        argv.append("--in-process")
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=180,
                          check=False)
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return SimulateRun(records, done.stderr, done.returncode)
