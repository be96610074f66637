"""Hand values, the initial dealing order and peek eligibility (R4, R7).

Blackjack values: `2`-`9` face, `T J Q K` 10, `A` 11 or 1. A hand's value is the highest
total that does not exceed 21 (or the lowest total when every total busts); it is soft
when an ace still counts 11.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from controller.rules.cards import Card, Rank


class Game(StrEnum):
    """The games a table deals: from a shoe, on a wheel (roulette), or by hand (holdem)."""

    BLACKJACK = "blackjack"
    SPANISH21 = "spanish21"
    COMMUNITY = "community"
    BACCARAT = "baccarat"
    ROULETTE = "roulette"
    HOLDEM = "holdem"


@dataclass(frozen=True, slots=True)
class HandValue:
    """A blackjack total and whether an ace in it still counts 11."""

    total: int
    soft: bool

    @property
    def busted(self) -> bool:
        """True over 21."""
        return self.total > 21


def hand_value(cards: Sequence[Card]) -> HandValue:
    """The best blackjack value of `cards`: the highest total that does not bust."""
    hard = sum(card.rank.points for card in cards)
    if any(card.rank is Rank.ACE for card in cards) and hard + 10 <= 21:
        return HandValue(hard + 10, soft=True)
    return HandValue(hard, soft=False)


def is_two_card_21(cards: Sequence[Card]) -> bool:
    """An ace and a ten-value card, exactly two cards (a blackjack unless the hand was split)."""
    return len(cards) == 2 and hand_value(cards).total == 21


def is_pair(cards: Sequence[Card]) -> bool:
    """Two cards of the same blackjack value (`K`+`T` is a pair): splittable."""
    return len(cards) == 2 and cards[0].rank.points == cards[1].rank.points


@dataclass(frozen=True, slots=True)
class Position:
    """Where the next card goes: a seat's hand, or the dealer (`seat == DEALER`)."""

    seat: int
    hand: int = 0
    hole: bool = False

    @property
    def is_dealer(self) -> bool:
        """True for the dealer's hand."""
        return self.seat == DEALER


DEALER: Final = 0
"""The seat number used for the dealer in a `Position`."""


def initial_deal_order(seats: Sequence[int]) -> tuple[Position, ...]:
    """The initial deal (R7): seats from the dealer's left, dealer up; again; dealer hole.

    Args:
        seats: the seat numbers holding a wager, in any order (seat 1 is dealt first).
    """
    ordered = sorted(seats)
    first = tuple(Position(seat) for seat in ordered)
    return (*first, Position(DEALER), *first, Position(DEALER, hole=True))


_PEEK_RANKS: Final[dict[Game, frozenset[Rank]]] = {
    Game.BLACKJACK: frozenset({Rank.ACE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING}),
    Game.COMMUNITY: frozenset({Rank.ACE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING}),
    Game.SPANISH21: frozenset({Rank.ACE, Rank.JACK, Rank.QUEEN, Rank.KING}),
}


def peek_eligible(game: Game, up_card: Card) -> bool:
    """R4: whether the dealer checks the hole card for blackjack under `up_card`."""
    return up_card.rank in _PEEK_RANKS.get(game, frozenset())


def dealer_must_draw(cards: Sequence[Card], *, hits_soft_17: bool) -> bool:
    """The dealer draws to 16 and stands on 17 (hits a soft 17 when `hits_soft_17`)."""
    value = hand_value(cards)
    if value.total < 17:
        return True
    return hits_soft_17 and value.total == 17 and value.soft
