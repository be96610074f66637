"""Seven-card poker evaluators measured on the same seeded random hands.

Times `phevaluator` (C extension, perfect hash), `treys` (pure Python, lookup tables) and
`pokerkit` (pure Python, hand objects) on the same random seven-card hands from one 52-card
deck, and checks that they order every pair of consecutive hands alike. Prints hands per
second for each.

    .venv/bin/python bench/holdem_evaluators.py --hands 100000 --seed 1
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

from phevaluator.evaluator import evaluate_7cards
from pokerkit import Card as KitCard
from pokerkit import StandardHighHand
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

RANKS = "23456789TJQKA"
SUITS = "cdhs"
CODES = [rank + suit for rank in RANKS for suit in SUITS]  # phevaluator's id order


def hands(count: int, seed: int) -> list[list[int]]:
    """`count` random seven-card hands as phevaluator ids 0-51."""
    rng = random.Random(seed)
    return [rng.sample(range(52), 7) for _ in range(count)]


def timed(name: str, strength: Callable[[Sequence[int]], int],
          deals: list[list[int]]) -> list[int]:
    """Each hand's strength (smaller is stronger), printing the rate."""
    start = time.perf_counter()
    out = [strength(hand) for hand in deals]
    elapsed = time.perf_counter() - start
    print(f"{name:12s} {len(deals) / elapsed:12,.0f} hands/s ({elapsed:.2f} s)")
    return out


def main() -> None:
    """Measure the three evaluators."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    deals = hands(args.hands, args.seed)
    ph = timed("phevaluator", lambda h: evaluate_7cards(*h), deals)
    treys_ids = [TreysCard.new(code) for code in CODES]
    evaluator = TreysEvaluator()
    tr = timed("treys", lambda h: evaluator.evaluate([treys_ids[h[0]], treys_ids[h[1]]],
                                                     [treys_ids[c] for c in h[2:]]), deals)
    kit_cards = [next(iter(KitCard.parse(code))) for code in CODES]
    kit = timed("pokerkit", lambda h: -StandardHighHand.from_game(
        [kit_cards[c] for c in h]).entry.index, deals[: max(1, args.hands // 10)])
    for name, other in (("treys", tr), ("pokerkit", kit)):
        agree = all((a < b) == (c < d) and (a == b) == (c == d)
                    for a, b, c, d in zip(ph, ph[1:], other, other[1:], strict=False))
        print(f"phevaluator and {name} order consecutive hands alike: {agree}")


if __name__ == "__main__":
    main()
