"""Texas Hold'em Bonus: the computation behind the ante game's strategy tables.

`controller/odds/holdem_strategy.py` states the strategy as data; this prints the figures
its tables rest on, from seeded random deals (phevaluator ranks every hand):

* `--streets N`: N deals; at the flop and at the turn each seat's bet of one ante is worth
  P(win) - P(lose) against the dealer's unseen cards (the dealer always plays, a bet changes
  no other wager), estimated from `--samples` completions of each deal. Deals are grouped
  by their `features`: the mean worth of each group, how often it is positive, and whether
  the tables bet it. A group worth more than nothing should bet, one worth less check.
  Last, the gain an oracle would have over the tables: the bet of each deal decided by its
  estimated worth instead, scored by the deal's own showdown (independent of the
  estimate): what finer features than these could still win.
* `--vegas N`: N deals played under the seed's rules and again under Las Vegas rules (the
  pre-flop bet twice the ante, the hands whose playing on is then worth less than the fold
  folding): the change in the house edge, on the same deals (the published 2.04% is for
  those rules).
* `--preflop N`: for each of the 169 starting hands, the mean net (in antes) of playing on
  under the flop and turn tables over N deals. A fold loses the ante (-1): a hand whose
  playing on is worth less than -1 should fold. The worst ten are printed.

    .venv/bin/python bench/holdem_ante_derive.py --streets 20000 --samples 300 --preflop 3000 \
        --vegas 1000000 --seed 5
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from pathlib import Path

# bench/controller.py would shadow the controller package: import from the repository root.
ROOT = Path(__file__).resolve().parents[1]
sys.path[0] = str(ROOT)

from phevaluator.evaluator import evaluate_7cards  # noqa: E402

from controller.odds.holdem_strategy import (  # noqa: E402
    BET_AFTER_FLOP,
    BET_AFTER_TURN,
    Feature,
    bets,
    features,
)

_RANKS = "23456789TJQKA"
_STRAIGHT_OR_BETTER = 1609


def worth(hole: list[int], board: list[int], rng: random.Random, samples: int) -> float:
    """P(win) - P(lose) of the seat's hand over `board`, the rest dealt at random."""
    known = set(hole) | set(board)
    rest = [card for card in range(52) if card not in known]
    need = 2 + 5 - len(board)
    score = 0
    for _ in range(samples):
        drawn = rng.sample(rest, need)
        full = board + drawn[2:]
        mine, theirs = evaluate_7cards(*hole, *full), evaluate_7cards(*drawn[:2], *full)
        score += (mine < theirs) - (mine > theirs)
    return score / samples


def streets(deals: int, samples: int, rng: random.Random) -> None:
    """The mean worth of a bet per feature group, after the flop and after the turn."""
    for name, shown, table in (("after the flop", 3, BET_AFTER_FLOP),
                               ("after the turn", 4, BET_AFTER_TURN)):
        groups: dict[frozenset[Feature], list[float]] = defaultdict(list)
        gain = 0
        for _ in range(deals):
            cards = rng.sample(range(52), 2 + shown + 2 + 5 - shown)
            hole, board = cards[:2], cards[2:2 + shown]
            value = worth(hole, board, rng, samples)
            groups[features(hole, board)].append(value)
            dealer, full = cards[2 + shown:4 + shown], board + cards[4 + shown:]
            mine, theirs = evaluate_7cards(*hole, *full), evaluate_7cards(*dealer, *full)
            gain += ((value > 0) - bets(hole, board)) * ((mine < theirs) - (mine > theirs))
        print(f"{name}: {deals:,} deals, {samples} completions each")
        for found, values in sorted(groups.items(), key=lambda item: -len(item[1])):
            mean = sum(values) / len(values)
            positive = sum(value > 0 for value in values) / len(values)
            bet = "bet" if any(rule <= found for rule in table) else "check"
            label = " + ".join(sorted(f.name for f in found)) or "(none)"
            print(f"  {label:<55} {len(values):>7,} deals  worth {mean:+.3f}  "
                  f"positive {positive:.0%}  table: {bet}")
        print(f"  an oracle's gain over the table: {gain / deals:+.4f} antes a hand")


def preflop_values(deals: int, rng: random.Random, flop_bet: int = 1) -> list[tuple[float, str]]:
    """Each starting hand's mean net played on (antes), worst first; `flop_bet` in antes."""
    figures = []
    for high in range(13):
        for low in range(high + 1):
            for suited in (False, True) if high != low else (False,):
                hole = [high * 4, low * 4 + (0 if suited else 1)]
                rest = [card for card in range(52) if card not in hole]
                total = 0
                for _ in range(deals):
                    drawn = rng.sample(rest, 7)
                    dealer, board = drawn[:2], drawn[2:]
                    extra = flop_bet + bets(hole, board[:3]) + bets(hole, board[:4])
                    mine = evaluate_7cards(*hole, *board)
                    theirs = evaluate_7cards(*dealer, *board)
                    if mine < theirs:
                        total += extra + (mine <= _STRAIGHT_OR_BETTER)
                    elif mine > theirs:
                        total -= 1 + extra
                code = f"{_RANKS[high]}{_RANKS[low]}{'s' if suited else 'o' * (high != low)}"
                figures.append((total / deals, code))
    return sorted(figures)


def preflop(deals: int, rng: random.Random) -> None:
    """The mean net of playing each starting hand on, against the fold's -1."""
    figures = preflop_values(deals, rng)
    print(f"pre-flop: {deals:,} deals a hand; playing on is worth (in antes), worst first:")
    for value, code in figures[:10]:
        print(f"  {code:<4} {value:+.3f}  {'fold' if value < -1 else 'bet'} (a fold: -1)")
    print(f"  hands worth less than a fold: {sum(value < -1 for value, _ in figures)}")


def _net(outcome: int, straight: bool, flop_bet: int, later: int) -> int:
    """One hand's net in antes: `later` is how many of the turn and river bets were made."""
    if outcome > 0:
        return int(straight) + flop_bet + later
    return -(1 + flop_bet + later) if outcome < 0 else 0


def vegas(deals: int, rng: random.Random) -> None:
    """The same deals under the seed's flop bet (one ante) and Las Vegas rules' (two)."""
    folds = {code for value, code in preflop_values(2000, rng, flop_bet=2) if value < -1}
    difference = 0
    for _ in range(deals):
        cards = rng.sample(range(52), 9)
        hole, dealer, board = cards[:2], cards[2:4], cards[4:]
        high, low = sorted((hole[0] >> 2, hole[1] >> 2), reverse=True)
        suited = hole[0] & 3 == hole[1] & 3
        code = f"{_RANKS[high]}{_RANKS[low]}{'s' if suited else 'o' * (high != low)}"
        mine, theirs = evaluate_7cards(*hole, *board), evaluate_7cards(*dealer, *board)
        outcome = (mine < theirs) - (mine > theirs)
        later = bets(hole, board[:3]) + bets(hole, board[:4])
        straight = mine <= _STRAIGHT_OR_BETTER
        seed = _net(outcome, straight, 1, later)
        las_vegas = -1 if code in folds else _net(outcome, straight, 2, later)
        difference += seed - las_vegas
    print(f"Las Vegas rules (flop bet twice the ante, the same later tables; pre-flop folds "
          f"{' '.join(sorted(folds))}): the house edge moves by {difference / deals:+.4%} "
          f"of the ante from the seed's, on the same {deals:,} deals")


def main() -> None:
    """Print the figures asked for."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--streets", type=int, default=0, help="deals for the flop and turn")
    parser.add_argument("--samples", type=int, default=300, help="completions per deal")
    parser.add_argument("--preflop", type=int, default=0, help="deals per starting hand")
    parser.add_argument("--vegas", type=int, default=0,
                        help="deals to compare with Las Vegas rules (a flop bet of 2 antes)")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    if args.streets:
        streets(args.streets, args.samples, rng)
    if args.preflop:
        preflop(args.preflop, rng)
    if args.vegas:
        vegas(args.vegas, rng)


if __name__ == "__main__":
    main()
