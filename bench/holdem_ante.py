"""Texas Hold'em Bonus: the ante game's house edge by simulation, recorded for `shoectl odds`.

Plays `--hands` seeded deals from one 52-card deck under
`controller.odds.holdem_ante.ANTE_STRATEGY` (the same code `shoectl odds holdem-ante`'s
test replays), prints the edge per unit of ante with its 95% interval and the rate, and
with `--record` writes `controller/odds/holdem_ante.json`: the seed, the count of hands, the
count of hands ending at each net in antes, and the command that produced it.

    .venv/bin/python bench/holdem_ante.py --hands 10000000 --seed 14 --record
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path

# bench/controller.py would shadow the controller package: import from the repository root.
ROOT = Path(__file__).resolve().parents[1]
sys.path[0] = str(ROOT)

from controller.odds.holdem_ante import RECORD, AnteEstimate, simulate  # noqa: E402


def main() -> None:
    """Simulate, print the figures, and record them when asked."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=10_000_000)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--record", action="store_true",
                        help="write controller/odds/holdem_ante.json")
    args = parser.parse_args()
    start = time.perf_counter()
    counts = simulate(args.hands, args.seed)
    elapsed = time.perf_counter() - start
    estimate = AnteEstimate(args.hands, args.seed, dict(counts))
    low, high = estimate.interval
    print(f"hands {args.hands:,} seed {args.seed}: house edge {estimate.house_edge:.4%} "
          f"of the ante, 95% interval [{low:.4%}, {high:.4%}]; "
          f"{args.hands / elapsed:,.0f} hands/s ({elapsed:.0f} s)")
    if args.record:
        today = datetime.datetime.now(datetime.UTC).date().isoformat()
        record = {"hands": args.hands, "seed": args.seed,
                  "counts": {str(net): count for net, count in sorted(counts.items())},
                  "produced_by": f"bench/holdem_ante.py --hands {args.hands} "
                                 f"--seed {args.seed} --record, {today}"}
        (ROOT / "controller" / "odds" / RECORD).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
