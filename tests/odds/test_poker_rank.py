"""The project's seven-card ranking (phevaluator behind `best_hand`) against treys.

treys is an independent implementation of the same 7,462 equivalence classes (Cactus Kev's
numbering), so on every hand the project's strength must be 7463 minus treys' rank and the
category must be treys' class. `bench/holdem_rank_agreement.py` runs the same check over a
million hands.
"""

from __future__ import annotations

import random

import pytest
from treys import Card as TreysCard
from treys import Evaluator

from controller.odds.poker_rank import WORST_RANK, best_hand
from controller.rules.cards import Card, deck, parse_cards
from controller.rules.holdem import PokerCategory

TREYS_CLASS = {0: PokerCategory.STRAIGHT_FLUSH, 1: PokerCategory.STRAIGHT_FLUSH,
               2: PokerCategory.FOUR_OF_A_KIND, 3: PokerCategory.FULL_HOUSE,
               4: PokerCategory.FLUSH, 5: PokerCategory.STRAIGHT,
               6: PokerCategory.THREE_OF_A_KIND, 7: PokerCategory.TWO_PAIR,
               8: PokerCategory.PAIR, 9: PokerCategory.HIGH_CARD}
EVALUATOR = Evaluator()


def treys_rank(cards: list[Card]) -> tuple[int, PokerCategory]:
    ids = [TreysCard.new(f"{card.rank.value}{card.suit.value.lower()}") for card in cards]
    rank = EVALUATOR.evaluate(ids[:2], ids[2:])
    return rank, TREYS_CLASS[EVALUATOR.get_rank_class(rank)]


def test_agrees_with_treys_on_50000_seeded_seven_card_hands() -> None:
    rng = random.Random(20240614)
    cards = list(deck())
    categories = set()
    for _ in range(50_000):
        hand = rng.sample(cards, 7)
        rank, category = treys_rank(hand)
        ours = best_hand(hand)
        assert (ours.strength, ours.category) == (WORST_RANK + 1 - rank, category), hand
        categories.add(category)
    assert categories == set(PokerCategory)


@pytest.mark.parametrize(("codes", "category"), [
    ("AS KS QS JS TS 2C 3D", PokerCategory.STRAIGHT_FLUSH),
    ("5H 4H 3H 2H AH KC KD", PokerCategory.STRAIGHT_FLUSH),
    ("AS 2D 3C 4H 5S KD QC", PokerCategory.STRAIGHT),
    ("7C 7D 7H KS KD 2C 2D", PokerCategory.FULL_HOUSE),
    ("AS AD 2C 2D 3C 3D 9H", PokerCategory.TWO_PAIR),
    ("AS KD 9C 7H 5S 3D 2C", PokerCategory.HIGH_CARD),
])
def test_named_hands(codes: str, category: PokerCategory) -> None:
    assert best_hand(parse_cards(codes)).category is category


def test_wheel_is_the_lowest_straight_and_kicker_counts() -> None:
    wheel = best_hand(parse_cards("AS 2D 3C 4H 5S KD QC"))
    six_high = best_hand(parse_cards("6S 2D 3C 4H 5S KD QC"))
    assert wheel < six_high
    assert best_hand(parse_cards("AS AD KC 7H 5S 3D 2C")) > best_hand(
        parse_cards("AS AD QC 7H 5S 3D 2C"))


@pytest.mark.parametrize("codes", ["AS KS QS JS", "AS KS QS JS TS 9S 8S 7S", "AS AS KD QC JH"])
def test_refuses_a_hand_that_is_no_hand(codes: str) -> None:
    with pytest.raises(ValueError, match="five to seven distinct cards"):
        best_hand(parse_cards(codes))
