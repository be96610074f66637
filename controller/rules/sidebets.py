"""Which line of each side wager a deal hits (classifiers only; pays live in `paytables`).

Every function is pure and takes the cards the wager is settled on. The same functions serve
settlement, the par sheets and the controller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from controller.rules.cards import Card, Rank, Suit
from controller.rules.hands import hand_value


class SideBet(StrEnum):
    """Side wagers and extra awards, named as in the simulate JSON."""

    PERFECT_PAIRS = "perfect-pairs"
    LUCKY_LADIES = "lucky-ladies"
    MATCH_THE_DEALER = "match-the-dealer"
    BLAZING7S = "blazing7s"
    AXMAN = "axman"
    INSURANCE = "insurance"
    SUPER_BONUS = "super-bonus"
    ENVY = "envy"


class PerfectPairsLine(StrEnum):
    """Perfect Pairs lines (first two cards)."""

    PERFECT = "perfect_pair"
    COLOURED = "coloured_pair"
    MIXED = "mixed_pair"


def perfect_pairs_line(first: Card, second: Card) -> PerfectPairsLine | None:
    """Same rank and suit: perfect; same rank, one colour: coloured; red and black: mixed."""
    if first.rank is not second.rank:
        return None
    if first.suit is second.suit:
        return PerfectPairsLine.PERFECT
    if first.suit.is_red == second.suit.is_red:
        return PerfectPairsLine.COLOURED
    return PerfectPairsLine.MIXED


class LuckyLadiesLine(StrEnum):
    """Lucky Ladies lines (first two cards total 20); exclusive, the best one pays."""

    QUEEN_HEARTS_PAIR_DEALER_BLACKJACK = "queen_hearts_pair_dealer_blackjack"
    QUEEN_HEARTS_PAIR = "queen_hearts_pair"
    MATCHED_20 = "matched_20"
    SUITED_20 = "suited_20"
    ANY_20 = "any_20"


_QH = Card(Rank.QUEEN, Suit.HEARTS)


def lucky_ladies_line(first: Card, second: Card, *,
                      dealer_blackjack: bool) -> LuckyLadiesLine | None:
    """The Lucky Ladies line; settled only once the dealer's blackjack is known."""
    if hand_value((first, second)).total != 20:
        return None
    if first == second == _QH:
        if dealer_blackjack:
            return LuckyLadiesLine.QUEEN_HEARTS_PAIR_DEALER_BLACKJACK
        return LuckyLadiesLine.QUEEN_HEARTS_PAIR
    if first == second:
        return LuckyLadiesLine.MATCHED_20
    if first.suit is second.suit:
        return LuckyLadiesLine.SUITED_20
    return LuckyLadiesLine.ANY_20


@dataclass(frozen=True, slots=True)
class Matches:
    """Match the Dealer: how many of the player's two cards match the up card's rank."""

    suited: int
    unsuited: int

    @property
    def any(self) -> bool:
        """True when at least one card matches."""
        return self.suited + self.unsuited > 0


def match_the_dealer(first: Card, second: Card, up_card: Card) -> Matches:
    """Count suited (same rank and suit) and unsuited (same rank only) matches."""
    suited = unsuited = 0
    for card in (first, second):
        if card.rank is up_card.rank:
            if card.suit is up_card.suit:
                suited += 1
            else:
                unsuited += 1
    return Matches(suited, unsuited)


class Blazing7sLine(StrEnum):
    """Blazing 7's lines (player's first two cards and the dealer's up card); best only."""

    THREE_7D = "three_7d"
    THREE_SUITED_7S = "three_suited_7s"
    THREE_SAME_COLOUR_7S = "three_same_colour_7s"
    THREE_7S = "three_7s"
    TWO_7S = "two_7s"
    ONE_7 = "one_7"


def blazing7s_line(first: Card, second: Card, up_card: Card) -> Blazing7sLine | None:
    """The best Blazing 7's line, or None."""
    sevens = [card for card in (first, second) if card.rank is Rank.SEVEN]
    if len(sevens) == 2 and up_card.rank is Rank.SEVEN:
        return _three_sevens_line((first.suit, second.suit, up_card.suit))
    if len(sevens) == 2:
        return Blazing7sLine.TWO_7S
    if len(sevens) == 1:
        return Blazing7sLine.ONE_7
    return None


def _three_sevens_line(suits: tuple[Suit, Suit, Suit]) -> Blazing7sLine:
    if len(set(suits)) == 1:
        if suits[0] is Suit.DIAMONDS:
            return Blazing7sLine.THREE_7D
        return Blazing7sLine.THREE_SUITED_7S
    if len({suit.is_red for suit in suits}) == 1:
        return Blazing7sLine.THREE_SAME_COLOUR_7S
    return Blazing7sLine.THREE_7S


class Spanish21Bonus(StrEnum):
    """Spanish 21 bonus 21s (unsplit, undoubled hands)."""

    FIVE_CARD_21 = "five_card_21"
    SIX_CARD_21 = "six_card_21"
    SEVEN_CARD_21 = "seven_card_21"
    MIXED_678 = "mixed_678"
    SUITED_678 = "suited_678"
    SPADES_678 = "spades_678"
    MIXED_777 = "mixed_777"
    SUITED_777 = "suited_777"
    SPADES_777 = "spades_777"


_678 = (Rank.SIX, Rank.SEVEN, Rank.EIGHT)
_777 = (Rank.SEVEN, Rank.SEVEN, Rank.SEVEN)


def spanish21_bonus(cards: Sequence[Card]) -> Spanish21Bonus | None:
    """The bonus line a Spanish 21 hand of 21 hits, judged on the cards alone."""
    if hand_value(cards).total != 21:
        return None
    if len(cards) >= 7:
        return Spanish21Bonus.SEVEN_CARD_21
    if len(cards) == 6:
        return Spanish21Bonus.SIX_CARD_21
    if len(cards) == 5:
        return Spanish21Bonus.FIVE_CARD_21
    if len(cards) != 3:
        return None
    ranks = tuple(sorted((card.rank for card in cards), key=lambda r: r.points))
    if ranks not in (_678, _777):
        return None
    return Spanish21Bonus(f"{_suit_grade(cards)}_{'678' if ranks == _678 else '777'}")


def _suit_grade(cards: Sequence[Card]) -> str:
    suits = {card.suit for card in cards}
    if suits == {Suit.SPADES}:
        return "spades"
    return "suited" if len(suits) == 1 else "mixed"


def is_super_bonus(cards: Sequence[Card], up_card: Card) -> bool:
    """Spanish 21 super bonus cards: three 7s of one suit against a dealer 7 up."""
    return (
        len(cards) == 3
        and up_card.rank is Rank.SEVEN
        and all(card.rank is Rank.SEVEN for card in cards)
        and len({card.suit for card in cards}) == 1
    )
