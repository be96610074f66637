"""The best five of five to seven cards, by the maintained `phevaluator` library.

`phevaluator` (a perfect-hash evaluator in C) ranks every five-card hand 1 (a royal flush)
to 7462 (7-5-4-3-2 offsuit); `best_hand` turns that into the rules' `PokerHand` (higher
`strength` is stronger) with its category. Decision 133 says why this library.
AxMan keeps its own reading (`controller.rules.axman`): its wild king is no standard hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from phevaluator.evaluator import evaluate_5cards, evaluate_6cards, evaluate_7cards

from controller.rules.cards import Card, Rank, Suit
from controller.rules.holdem import PokerCategory, PokerHand

WORST_RANK: Final = 7462
"""phevaluator's rank of the weakest five-card hand."""

_RANK_ORDER: Final = "23456789TJQKA"
_SUIT_ORDER: Final = "CDHS"

CARD_IDS: Final[dict[Card, int]] = {
    Card(Rank(rank), Suit(suit)): index * 4 + _SUIT_ORDER.index(suit)
    for index, rank in enumerate(_RANK_ORDER) for suit in _SUIT_ORDER
}
"""Each card's phevaluator id: rank 0 (deuce) to 12 (ace) times 4, plus the suit C D H S."""

_CATEGORY_FLOORS: Final = (  # the weakest rank (largest number) of each category
    (10, PokerCategory.STRAIGHT_FLUSH), (166, PokerCategory.FOUR_OF_A_KIND),
    (322, PokerCategory.FULL_HOUSE), (1599, PokerCategory.FLUSH),
    (1609, PokerCategory.STRAIGHT), (2467, PokerCategory.THREE_OF_A_KIND),
    (3325, PokerCategory.TWO_PAIR), (6185, PokerCategory.PAIR),
    (WORST_RANK, PokerCategory.HIGH_CARD),
)

_EVALUATORS: Final = {5: evaluate_5cards, 6: evaluate_6cards, 7: evaluate_7cards}


def category_of(rank: int) -> PokerCategory:
    """The category of a phevaluator rank (1 best, 7462 worst)."""
    for floor, category in _CATEGORY_FLOORS:
        if rank <= floor:
            return category
    raise ValueError(f"phevaluator rank {rank} is outside 1-{WORST_RANK}")


def rank_ids(ids: Sequence[int]) -> int:
    """The phevaluator rank of five to seven card ids (no checks: the fast path)."""
    rank: int = _EVALUATORS[len(ids)](*ids)
    return rank


def best_hand(cards: Sequence[Card]) -> PokerHand:
    """The best five-card hand among five to seven distinct cards.

    Raises:
        ValueError: fewer than five or more than seven cards, or a card given twice.
    """
    if not 5 <= len(cards) <= 7 or len(set(cards)) != len(cards):
        raise ValueError(f"a poker hand is five to seven distinct cards, not "
                         f"{' '.join(map(str, cards))}")
    rank = rank_ids([CARD_IDS[card] for card in cards])
    return PokerHand(WORST_RANK + 1 - rank, category_of(rank))
