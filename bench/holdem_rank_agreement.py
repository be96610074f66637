"""The project's seven-card ranking against treys over many seeded random hands.

Deals `--hands` random seven-card hands from one 52-card deck (seeded), ranks each with
`controller.odds.poker_rank.best_hand` (phevaluator) and with treys, and counts the hands
where strength or category differ. Prints the count of hands, of disagreements and the rate.

    .venv/bin/python bench/holdem_rank_agreement.py --hands 1000000 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from treys import Card as TreysCard
from treys import Evaluator

# bench/controller.py would shadow the controller package: import from the repository root.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from controller.odds.poker_rank import WORST_RANK, best_hand  # noqa: E402
from controller.rules.cards import deck  # noqa: E402
from controller.rules.holdem import PokerCategory  # noqa: E402

TREYS_CLASS = {0: PokerCategory.STRAIGHT_FLUSH, 1: PokerCategory.STRAIGHT_FLUSH,
               2: PokerCategory.FOUR_OF_A_KIND, 3: PokerCategory.FULL_HOUSE,
               4: PokerCategory.FLUSH, 5: PokerCategory.STRAIGHT,
               6: PokerCategory.THREE_OF_A_KIND, 7: PokerCategory.TWO_PAIR,
               8: PokerCategory.PAIR, 9: PokerCategory.HIGH_CARD}


def main() -> None:
    """Compare the two rankings and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cards = list(deck())
    treys_ids = {card: TreysCard.new(f"{card.rank.value}{card.suit.value.lower()}")
                 for card in cards}
    evaluator = Evaluator()
    rng = random.Random(args.seed)
    differ = 0
    start = time.perf_counter()
    for _ in range(args.hands):
        hand = rng.sample(cards, 7)
        ids = [treys_ids[card] for card in hand]
        rank = evaluator.evaluate(ids[:2], ids[2:])
        ours = best_hand(hand)
        if (ours.strength, ours.category) != (WORST_RANK + 1 - rank,
                                              TREYS_CLASS[evaluator.get_rank_class(rank)]):
            differ += 1
    elapsed = time.perf_counter() - start
    print(f"hands {args.hands:,} seed {args.seed}: {differ} disagree "
          f"({differ / args.hands:.6%}) in {elapsed:.1f} s")


if __name__ == "__main__":
    main()
