"""Replay one shoe file through the oracle and `shoectl simulate`; show the first difference.

    python -m tests.oracle.compare --game blackjack --shoe-file SHOE --seats 3 --decks 6 \\
        --bets main=1000,blazing7s=500 [--meter-start C --meter-reset C --meter-increment C]

Takes the `shoectl simulate` options the customer uses (`--strategy stand --json` implied).
`--oracle-only` prints the oracle's records (one JSON object a line) and runs nothing else.
Exit status: 0 identical, 1 a difference (printed), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from controller.sim.options import parse_bets, read_shoe_file

from .dealer import Seat, Table, play_baccarat_shoe, play_blackjack_shoe
from .simulate_runner import run_simulate

DEFAULT_METER = (1_000_000, 1_000_000, 100)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tests.oracle.compare")
    p.add_argument("--game", choices=["blackjack", "spanish21", "baccarat"], required=True)
    p.add_argument("--shoe-file", type=Path, required=True)
    p.add_argument("--seats", type=int, default=1)
    p.add_argument("--decks", type=int, default=None)
    p.add_argument("--bets", required=True)
    p.add_argument("--meter-start", type=int, default=None)
    p.add_argument("--meter-reset", type=int, default=None)
    p.add_argument("--meter-increment", type=int, default=None)
    p.add_argument("--in-process", action="store_true")
    p.add_argument("--oracle-only", action="store_true")
    return p


def meter_options(args: argparse.Namespace) -> tuple[int, int, int]:
    """(start, reset, increment) of the Blazing 7's meter, defaults filled in."""
    given = (args.meter_start, args.meter_reset, args.meter_increment)
    start, reset, increment = (default if value is None else value
                               for value, default in zip(given, DEFAULT_METER, strict=True))
    return start, reset, increment


def oracle_records(args: argparse.Namespace, cards: list[str]) -> list[dict[str, Any]]:
    """What the oracle deals from `cards` with the simulate options `args`."""
    bets = parse_bets(args.bets)
    if args.game == "baccarat":
        return play_baccarat_shoe(dict.fromkeys(range(1, args.seats + 1), bets), cards)
    table = Table(args.game, args.decks or 6, False, *meter_options(args))
    side = {name: cents for name, cents in bets.items() if name != "main"}
    seats = [Seat(n, bets["main"], side) for n in range(1, args.seats + 1)]
    return play_blackjack_shoe(table, seats, cards)


def main(argv: list[str]) -> int:
    """Run the comparison."""
    args = _parser().parse_args(argv)
    cards = read_shoe_file(args.shoe_file)
    expected = oracle_records(args, cards)
    if args.oracle_only:
        sys.stdout.writelines(json.dumps(record) + "\n" for record in expected)
        return 0
    meter = None if args.game == "baccarat" else meter_options(args)
    with tempfile.TemporaryDirectory() as tmp:
        run = run_simulate(Path(tmp), args.game, cards, seats=args.seats,
                           bets=parse_bets(args.bets), decks=args.decks, meter=meter,
                           in_process=args.in_process)
    for number, (got, want) in enumerate(zip(run.records, expected, strict=False), start=1):
        if got != want:
            print(f"round {number} differs\n  simulate {json.dumps(got)}\n  oracle   "
                  f"{json.dumps(want)}")
            return 1
    if len(run.records) != len(expected) or run.returncode:
        print(f"simulate printed {len(run.records)} rounds (exit {run.returncode}), "
              f"the oracle {len(expected)}\n{run.stderr}")
        return 1
    print(f"identical: {len(expected)} rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
