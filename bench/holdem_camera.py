"""Texas Hold'em Bonus on the emulated rig: how the camera reads the cards, by profile.

Deals `--rounds` rounds for each seed of `--seeds` through the whole table (`shoectl
simulate --game holdem`: the emulated overhead camera, the real recogniser, the card
reader), once per profile given, and prints for each: the cards the camera read, the cards
the dealer keyed (of them, the areas whose frames disagreed: decision 168), the cards taken
wrong (not the card lying there), the holds (a card seen twice), the frames asked for per
card and the rounds dealt a second. A run that meets a hold stops there (as the
simulation does); the next seed goes on.

    .venv/bin/python bench/holdem_camera.py --profile "" --profile candidate.npz \\
        --seeds 1-4 --rounds 10
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

# bench/controller.py would shadow the controller package: import from the repository root.
ROOT = Path(__file__).resolve().parents[1]
sys.path[0] = str(ROOT)

from controller.cli.simulate_command import parse_options  # noqa: E402
from controller.sim.games.holdem import HoldemSimulation, start_holdem_app  # noqa: E402


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def _one_run(seed: int, rounds: int, seats: int,
             vision: dict[str, object]) -> tuple[int, int, int, int, int, int, int, float]:
    """(read, keyed, disagreed, wrong, holds, frames, rounds, seconds) of one seeded run."""
    options = parse_options(["--game", "holdem", "--seats", str(seats), "--rounds",
                             str(rounds), "--seed", str(seed), "--json"])
    with tempfile.TemporaryDirectory(prefix="holdem-camera-") as tmp:
        app = start_holdem_app(options, Path(tmp) / "state", Path(tmp) / "ports", vision)
        try:
            sim = HoldemSimulation(app, options)
            started, dealt = time.perf_counter(), 0
            for _record in sim.run():
                dealt += 1
            seconds = time.perf_counter() - started
            reader = app.camera.crosscheck if app.camera is not None else None
            return (getattr(reader, "checked", 0), sim.keyed, getattr(reader, "disagreed", 0),
                    sim.wrong, sim.holds, getattr(reader, "frames_asked", 0), dealt, seconds)
        finally:
            app.close("bench finished")


def main() -> None:
    """Run every profile and rule over the seeds; print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", action="append", default=None,
                        help="a profile file, or \"\" for the shipped generic profile")
    parser.add_argument("--seeds", default="1-4", help="a seed or a range, 1-4")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seats", type=int, default=6)
    args = parser.parse_args()
    print(f"seeds {args.seeds}, {args.rounds} rounds each, {args.seats} seats")
    for profile in args.profile or [""]:
        totals: list[float] = [0] * 8
        for seed in _seeds(args.seeds):
            run = _one_run(seed, args.rounds, args.seats, {"profile": profile})
            totals = [a + b for a, b in zip(totals, run, strict=True)]
        read, keyed, disagreed, wrong, holds, frames, dealt, seconds = totals
        cards = max(read + keyed, 1)
        print(f"profile {profile or 'generic':<28}: read {read:.0f} ({100 * read / cards:.1f}%)  "
              f"keyed {keyed:.0f} (disagreed {disagreed:.0f})  wrong {wrong:.0f}  "
              f"holds {holds:.0f}  frames/card {frames / cards:.2f}  "
              f"rounds/s {dealt / max(seconds, 1e-9):.2f}", flush=True)


if __name__ == "__main__":
    main()
