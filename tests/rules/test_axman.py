"""AxMan (seed 002, 58 Pa. Code 633c.12; RULES.md "AxMan"): the dealer's final hand as poker."""

import pytest

from controller.rules.axman import AxManLine, axman_lines, five_highest, kings_of_diamonds
from controller.rules.cards import parse_cards
from controller.rules.paytables import AxManPays

PAYS = AxManPays()


def best(codes: str) -> AxManLine | None:
    return PAYS.best(axman_lines(parse_cards(codes)))


# 633c.12(k) pay table, each line with its RULES.md odds; (h) five or more cards: every line.
@pytest.mark.parametrize(("cards", "line", "odds"), [
    ("2H 3H 4H 5H 6H", AxManLine.STRAIGHT_FLUSH, 1000),
    ("4S 4H 4D 4C 4S", AxManLine.FIVE_OF_A_KIND, 500),     # 6/8 decks: no wild needed
    ("2C 5C 9C 3C 2C", AxManLine.FLUSH, 200),
    ("2S 3H 4D 5C 6S", AxManLine.STRAIGHT, 100),
    ("AS 2H 3D 4C 5S", AxManLine.STRAIGHT, 100),            # ace low
    ("TS JH QD KC AS", AxManLine.STRAIGHT, 100),            # ace high
    ("3S 3H 3D 3C 9S", AxManLine.FOUR_OF_A_KIND, 50),
    ("3S 3H 3D 9C 9S", AxManLine.FULL_HOUSE, 30),
    ("3S 3H 3D 9C 2S", AxManLine.THREE_OF_A_KIND, 20),
    ("3S 3H 9D 9C 2S", AxManLine.TWO_PAIR, 12),
    ("JS JH 9D 2C 3S", AxManLine.JACKS_OR_BETTER, 5),
    ("AS AH 2D 3C 4S", AxManLine.JACKS_OR_BETTER, 5),       # not a straight: pair of aces
    ("TS TH 2D 3C 4S", None, 0),                            # tens are not jacks or better
    ("QS KH AD 2C 3S", None, 0),                            # no wrap-around straight
])
def test_five_card_lines(cards: str, line: AxManLine | None, odds: int) -> None:
    assert best(cards) == line
    if line:
        assert PAYS.odds(line).win == odds


# 633c.12(g) and RULES.md:61-62: fewer than five cards, only JoB pair, two pair, trips, quads.
@pytest.mark.parametrize(("cards", "line"), [
    ("QS QH", AxManLine.JACKS_OR_BETTER),
    ("5S 5H 7D", None),
    ("5S 5H 5D", AxManLine.THREE_OF_A_KIND),
    ("4S 4H 4D 4C", AxManLine.FOUR_OF_A_KIND),
    ("2S 2H 3D 3C", AxManLine.TWO_PAIR),
    ("2S 3H 4D 5C", None),                                  # no straight with four cards
    ("2H 5H 9H 4H", None),                                  # no flush with four cards
    ("AS 6D", None),
])
def test_fewer_than_five_cards(cards: str, line: AxManLine | None) -> None:
    assert best(cards) == line


# 633c.12(j), RULES.md:59-61: KD wild for any rank, stays a diamond; best-paying reading.
@pytest.mark.parametrize(("cards", "line"), [
    ("KD AS", AxManLine.JACKS_OR_BETTER),                   # KD reads as an ace
    ("KD 5S 5H", AxManLine.THREE_OF_A_KIND),
    ("KD 5S 5H 5C", AxManLine.FOUR_OF_A_KIND),
    ("KD 5S 5H 5C 5D", AxManLine.FIVE_OF_A_KIND),
    ("KD 2S 3H 4C 6D", AxManLine.STRAIGHT),                 # KD as a 5
    ("KD 2D 3D 4D 6D", AxManLine.STRAIGHT_FLUSH),           # stays a diamond
    ("KD 2H 3H 4H 6H", AxManLine.STRAIGHT),                 # not a flush: KD is a diamond
    ("KD 2D 9D 4D 6D", AxManLine.FLUSH),
    ("KD 9S 9H 4C 4D", AxManLine.FULL_HOUSE),
])
def test_king_of_diamonds_is_wild(cards: str, line: AxManLine) -> None:
    assert best(cards) == line


def test_king_of_diamonds_pairing_a_low_card_is_no_win() -> None:
    # KD as a 5 makes a pair of fives, not jacks or better; any other reading, no pair.
    assert best("KD 5S") is None


# 633c.12(f) and RULES.md:57-59: six or more cards, the five highest; bust card included;
# ties at the cut resolved best for the player.
def test_six_cards_use_the_five_highest() -> None:
    # 2 3 4 5 6 + K (bust): five highest are K 6 5 4 3 - no straight; 2-6 is not chosen.
    assert best("2S 3H 4D 5C 6S KH") is None
    # A A 2 2 3 3: five highest A A 3 3 2 -> two pair
    assert best("2S 2H 3D 3C AS AH") == AxManLine.TWO_PAIR


def test_ties_at_the_cut_choose_best_for_player() -> None:
    # Five highest of 9S 8H 7D 6C 5S 5D: the cut falls on the two fives, one of each
    # suit; either choice gives a straight.
    cards = parse_cards("9S 8H 7D 6C 5S 5D")
    assert len(five_highest(cards)) == 2
    assert best("9S 8H 7D 6C 5S 5D") == AxManLine.STRAIGHT
    # Flush only with the right 4 at the cut: 4H is chosen over 4S.
    assert best("KH QH 9H 6H 4S 4H") == AxManLine.FLUSH
    assert best("KH QH 9H 6H 4S 4C") is None


def test_bust_card_counts() -> None:
    # Dealer 6 6 then draws 6 -> 18? use a bust: 6 6 (12) + 4 (16) + 6 (22): three sixes.
    assert best("6S 6H 4D 6C") == AxManLine.THREE_OF_A_KIND


def test_player_kings_of_diamonds_multiply() -> None:
    first, second = parse_cards("KD KD")
    assert kings_of_diamonds(first, second) == 2
    assert PAYS.multiplier(2) == 5
    first, second = parse_cards("KD QS")
    assert kings_of_diamonds(first, second) == 1
    assert PAYS.multiplier(1) == 2
    assert PAYS.multiplier(0) == 1
