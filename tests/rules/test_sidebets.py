"""Every pay line of the fixed-odds side wagers (RULES.md "Blackjack side wagers", Spanish 21).

Each case cites the RULES.md line it implements; amounts are for a 5.00 (500 cent) wager.
"""

import pytest

from controller.rules.cards import Card, parse_cards
from controller.rules.paytables import Paytables
from controller.rules.sidebets import (
    Blazing7sLine,
    LuckyLadiesLine,
    Matches,
    PerfectPairsLine,
    Spanish21Bonus,
    blazing7s_line,
    is_super_bonus,
    lucky_ladies_line,
    match_the_dealer,
    perfect_pairs_line,
    spanish21_bonus,
)

PAYS = Paytables()


def two(codes: str) -> tuple[Card, Card]:
    first, second = parse_cards(codes)
    return first, second


# RULES.md:43-44 Perfect Pairs: perfect 25:1, coloured 12:1, mixed 6:1; no pair loses.
@pytest.mark.parametrize(("cards", "line", "winnings"), [
    ("QH QH", PerfectPairsLine.PERFECT, 12_500),
    ("7S 7S", PerfectPairsLine.PERFECT, 12_500),
    ("7S 7C", PerfectPairsLine.COLOURED, 6_000),
    ("2H 2D", PerfectPairsLine.COLOURED, 6_000),
    ("KH KS", PerfectPairsLine.MIXED, 3_000),
    ("AD AC", PerfectPairsLine.MIXED, 3_000),
    ("KH TH", None, 0),          # same value, different rank: not a pair here
    ("9C 8C", None, 0),
])
def test_perfect_pairs_lines(cards: str, line: PerfectPairsLine | None, winnings: int) -> None:
    assert perfect_pairs_line(*two(cards)) == line
    if line:
        assert PAYS.perfect_pairs.odds(line).winnings(500) == winnings


# RULES.md:45-48 Lucky Ladies: first two cards total 20; exclusive lines, best one pays.
@pytest.mark.parametrize(("cards", "dealer_bj", "line", "winnings"), [
    ("QH QH", True, LuckyLadiesLine.QUEEN_HEARTS_PAIR_DEALER_BLACKJACK, 500_000),
    ("QH QH", False, LuckyLadiesLine.QUEEN_HEARTS_PAIR, 100_000),
    ("KS KS", False, LuckyLadiesLine.MATCHED_20, 12_500),
    ("QD QD", True, LuckyLadiesLine.MATCHED_20, 12_500),   # dealer BJ only lifts QH QH
    ("TC TC", False, LuckyLadiesLine.MATCHED_20, 12_500),
    ("KH QH", False, LuckyLadiesLine.SUITED_20, 5_000),
    ("AS 9S", False, LuckyLadiesLine.SUITED_20, 5_000),    # A+9 included
    ("QH QD", False, LuckyLadiesLine.ANY_20, 2_000),
    ("AC 9D", False, LuckyLadiesLine.ANY_20, 2_000),
    ("TS 9S", False, None, 0),
    ("AS KS", True, None, 0),
])
def test_lucky_ladies_lines(cards: str, dealer_bj: bool, line: LuckyLadiesLine | None,
                            winnings: int) -> None:
    assert lucky_ladies_line(*two(cards), dealer_blackjack=dealer_bj) == line
    if line:
        assert PAYS.lucky_ladies.odds(line).winnings(500) == winnings


# RULES.md:49-51 and decision 104 "Match the Dealer": per match, keyed by deck count, summed
# over both cards.
@pytest.mark.parametrize(("decks", "unsuited", "suited"), [
    (8, 3, 14), (6, 4, 11), (5, 3, 15), (4, 4, 12), (2, 4, 19)])
def test_match_the_dealer_blackjack_tables(decks: int, unsuited: int, suited: int) -> None:
    pays = PAYS.match_the_dealer.for_decks(decks)
    up = Card.parse("7H")
    assert match_the_dealer(*two("7C 2S"), up) == Matches(0, 1)
    assert pays.winnings(Matches(0, 1), 500) == unsuited * 500
    assert match_the_dealer(*two("7H 2S"), up) == Matches(1, 0)
    assert pays.winnings(Matches(1, 0), 500) == suited * 500
    assert pays.winnings(match_the_dealer(*two("7H 7D"), up), 500) == (suited + unsuited) * 500
    assert pays.winnings(match_the_dealer(*two("7H 7H"), up), 500) == 2 * suited * 500
    assert pays.winnings(match_the_dealer(*two("7S 7D"), up), 500) == 2 * unsuited * 500
    assert not match_the_dealer(*two("8H 6H"), up).any


# RULES.md:89-90 Spanish 21 Match the Dealer: 3, 12, 6, 24, 15 to 1, no deck count named,
# so the same at every deck count a shoe holds.
@pytest.mark.parametrize("decks", [1, 2, 4, 5, 6, 8])
@pytest.mark.parametrize(("cards", "odds"), [
    ("7C 2S", 3), ("7H 2S", 12), ("7C 7S", 6), ("7H 7H", 24), ("7H 7D", 15), ("8H 2H", 0)])
def test_match_the_dealer_spanish21_posted_table(decks: int, cards: str, odds: int) -> None:
    pays = PAYS.match_the_dealer_spanish21.for_decks(decks)
    assert pays.winnings(match_the_dealer(*two(cards), Card.parse("7H")), 100) == odds * 100


# RULES.md:52-56 Blazing 7's: first two cards + dealer up card; best line only.
@pytest.mark.parametrize(("cards", "up", "line"), [
    ("7D 7D", "7D", Blazing7sLine.THREE_7D),
    ("7C 7C", "7C", Blazing7sLine.THREE_SUITED_7S),
    ("7S 7S", "7S", Blazing7sLine.THREE_SUITED_7S),
    ("7H 7H", "7H", Blazing7sLine.THREE_SUITED_7S),
    ("7D 7H", "7D", Blazing7sLine.THREE_SAME_COLOUR_7S),
    ("7S 7C", "7S", Blazing7sLine.THREE_SAME_COLOUR_7S),
    ("7S 7H", "7D", Blazing7sLine.THREE_7S),
    ("7S 7H", "8D", Blazing7sLine.TWO_7S),
    ("7S 2H", "7D", Blazing7sLine.ONE_7),
    ("2S 7H", "KD", Blazing7sLine.ONE_7),
    ("2S 3H", "7D", None),
])
def test_blazing7s_lines(cards: str, up: str, line: Blazing7sLine | None) -> None:
    assert blazing7s_line(*two(cards), Card.parse(up)) == line


def test_blazing7s_default_pays() -> None:
    pays = PAYS.blazing7s
    assert [str(pays.pay(line)) for line in Blazing7sLine] == [
        "100%", "10%", "500 for 1", "200 for 1", "25 for 1", "2 for 1"]
    assert pays.wager == 500


# RULES.md:82-84 Spanish 21 bonus 21s and 6-7-8 / 7-7-7.
@pytest.mark.parametrize(("cards", "line", "winnings_on_10"), [
    ("2S 3H 4D 5C 7S", Spanish21Bonus.FIVE_CARD_21, 1500),
    ("2S 3H 4D 5C 2C 5D", Spanish21Bonus.SIX_CARD_21, 2000),
    ("AS 2H 3D 4C 2C 3D 6S", Spanish21Bonus.SEVEN_CARD_21, 3000),
    ("AS AH 2D 2C AC 3D 4S 7S", Spanish21Bonus.SEVEN_CARD_21, 3000),
    ("6H 7S 8D", Spanish21Bonus.MIXED_678, 1500),
    ("8D 6D 7D", Spanish21Bonus.SUITED_678, 2000),
    ("6S 7S 8S", Spanish21Bonus.SPADES_678, 3000),
    ("7H 7S 7D", Spanish21Bonus.MIXED_777, 1500),
    ("7H 7H 7H", Spanish21Bonus.SUITED_777, 2000),
    ("7S 7S 7S", Spanish21Bonus.SPADES_777, 3000),
    ("5S 8H 8D", None, 0),
    ("AS KD", None, 0),
    ("KS 9H 2C", None, 0),
    ("2S 3H 4D 5C 6S", None, 0),   # five cards, 20
])
def test_spanish21_bonus_lines(cards: str, line: Spanish21Bonus | None,
                               winnings_on_10: int) -> None:
    assert spanish21_bonus(parse_cards(cards)) == line
    if line:
        assert PAYS.spanish21_bonus.odds(line).winnings(1000) == winnings_on_10


# RULES.md:84-87 super bonus: three 7s of one suit against a dealer 7 up, 1,000 / 5,000.
def test_super_bonus_cards_and_awards() -> None:
    assert is_super_bonus(parse_cards("7D 7D 7D"), Card.parse("7C"))
    assert not is_super_bonus(parse_cards("7D 7D 7H"), Card.parse("7C"))
    assert not is_super_bonus(parse_cards("7D 7D 7D"), Card.parse("8D"))
    pays = PAYS.spanish21_bonus
    assert [pays.super_bonus_award(w) for w in (499, 500, 2499, 2500, 100_000)] == [
        0, 100_000, 100_000, 500_000, 500_000]
    assert pays.envy == 5_000
