"""Hand values, dealing order, peek eligibility and the dealer's drawing rule."""

import pytest

from controller.rules.cards import Card, Rank, Suit, parse_cards
from controller.rules.hands import (
    DEALER,
    Game,
    Position,
    dealer_must_draw,
    hand_value,
    initial_deal_order,
    is_pair,
    peek_eligible,
)


# RULES.md:11-12 values: 2-9 face, T J Q K 10, A 11 or 1.
@pytest.mark.parametrize(("cards", "total", "soft"), [
    ("AS KD", 21, True),
    ("AS AH", 12, True),
    ("AS AH 9C", 21, True),
    ("AS 6H KD", 17, False),
    ("AS 6H", 17, True),
    ("KD QS 5H", 25, False),
    ("AS AH AD AC", 14, True),
    ("AS 5H 5C", 21, True),
    ("5H 6D", 11, False),
    ("AS AH AD AC 7S KD", 21, False),
])
def test_hand_values(cards: str, total: int, soft: bool) -> None:
    value = hand_value(parse_cards(cards))
    assert (value.total, value.soft) == (total, soft)


# RULES.md:32 "two cards of the same value (K+T is a pair)".
@pytest.mark.parametrize(("cards", "pair"), [
    ("KS TD", True), ("QH JH", True), ("8S 8D", True), ("AS AD", True), ("KS 9S", False)])
def test_pairs_are_by_value(cards: str, pair: bool) -> None:
    assert is_pair(parse_cards(cards)) is pair


# RULES.md:15-16 / R7: each seat up from the dealer's left, dealer up, again, dealer hole.
def test_initial_deal_order() -> None:
    assert initial_deal_order([5, 1, 3]) == (
        Position(1), Position(3), Position(5), Position(DEALER),
        Position(1), Position(3), Position(5), Position(DEALER, hole=True))


# R4: blackjack peeks under A or ten-value; Spanish 21 under A J Q K (no tens in the deck).
@pytest.mark.parametrize("rank", list(Rank))
def test_peek_eligibility(rank: Rank) -> None:
    card = Card(rank, Suit.SPADES)
    assert peek_eligible(Game.BLACKJACK, card) is (rank is Rank.ACE or rank.is_ten_value)
    assert peek_eligible(Game.SPANISH21, card) is (rank in (Rank.ACE, Rank.JACK, Rank.QUEEN,
                                                            Rank.KING))
    assert not peek_eligible(Game.BACCARAT, card)


# RULES.md:18 draw to 16, stand on all 17s; H17 option.
@pytest.mark.parametrize(("cards", "s17", "h17"), [
    ("TS 6H", True, True),
    ("TS 7H", False, False),
    ("AS 6H", False, True),
    ("AS 5H AD", False, True),
    ("AS 6H KD", False, False),
    ("AS 7H", False, False),
    ("5S 5H 2C", True, True),
])
def test_dealer_draws(cards: str, s17: bool, h17: bool) -> None:
    assert dealer_must_draw(parse_cards(cards), hits_soft_17=False) is s17
    assert dealer_must_draw(parse_cards(cards), hits_soft_17=True) is h17
