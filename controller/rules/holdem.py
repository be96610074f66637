"""Texas Hold'em Bonus Poker (seed 003, rules 1-11): dealing order and settlement, in cents.

A hand's strength comes from the seven-card evaluator (`controller.odds.poker_rank`); these
rules only compare strengths and read the category, so they stay pure.

* Deal: two cards to each seat and the dealer, one at a time, clockwise from the dealer's
  left (seat 1 first); with a dealer button, from the seat left of the button, the button's
  seat last among the players, the dealer in its place between the highest seat and seat 1.
* Wagers: ante, optional bonus; then a flop bet equal to the ante or a fold (the fold loses
  ante and bonus); turn and river bets, each 0 (check) or equal to the ante.
* Bonus: on the player's two cards by the posted table, whatever the showdown; a fold
  forfeits it unpaid (rule 4).
* Showdown: a player win pays flop, turn and river bets 1:1 and the ante 1:1 on a straight or
  better, else the ante pushes; a dealer win takes every wager; a tie pushes every wager
  (the seed is silent on ties: decision 134).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from controller.rules.errors import RulesError
from controller.rules.money import Odds

DEALER_SPOT: Final = 0
"""The dealer's place in a dealing order."""


class PokerCategory(IntEnum):
    """A five-card poker hand's category, weakest first (a royal flush is a straight flush)."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


@dataclass(frozen=True, slots=True, order=True)
class PokerHand:
    """The best five of seven cards: `strength` orders every hand (higher is stronger)."""

    strength: int
    category: PokerCategory


@dataclass(frozen=True, slots=True)
class HoldemWagers:
    """One seat's wagers in cents: `flop == 0` is a fold; `turn`, `river` 0 are checks."""

    ante: int
    bonus: int = 0
    flop: int = 0
    turn: int = 0
    river: int = 0

    def __post_init__(self) -> None:
        if self.ante <= 0 or self.bonus < 0:
            raise RulesError(f"hold'em: an ante above 0 and a bonus of 0 or more, "
                            f"not ante {self.ante}, bonus {self.bonus}")
        for name in ("flop", "turn", "river"):
            if getattr(self, name) not in (0, self.ante):
                raise RulesError(f"hold'em: the {name} bet is 0 or the ante ({self.ante}), "
                                f"not {getattr(self, name)}")
        if self.flop == 0 and (self.turn or self.river):
            raise RulesError("hold'em: a folded seat makes no turn or river bet")

    @property
    def folded(self) -> bool:
        """True when the seat declined the flop bet."""
        return self.flop == 0


@dataclass(frozen=True, slots=True)
class HoldemNets:
    """Each wager's net in cents (positive won, negative lost, 0 pushed or not made)."""

    ante: int
    bonus: int
    flop: int
    turn: int
    river: int

    @property
    def total(self) -> int:
        """The seat's net over every wager."""
        return self.ante + self.bonus + self.flop + self.turn + self.river


def settle_fold(wagers: HoldemWagers) -> HoldemNets:
    """A fold: the dealer collects the ante and the bonus (rule 4)."""
    return HoldemNets(-wagers.ante, -wagers.bonus, 0, 0, 0)


def settle_bonus(bonus: int, odds: Odds | None) -> int:
    """The bonus wager's net: its line's odds, or lost when the hole cards make no line."""
    return -bonus if odds is None else odds.winnings(bonus)


def settle_showdown(wagers: HoldemWagers, player: PokerHand, dealer: PokerHand,
                    bonus_odds: Odds | None) -> HoldemNets:
    """A seat that stayed in: the bonus by the table, then the showdown (rule 11)."""
    if wagers.folded:
        raise RulesError("hold'em: a folded seat has no showdown")
    bonus = settle_bonus(wagers.bonus, bonus_odds)
    if player.strength == dealer.strength:
        return HoldemNets(0, bonus, 0, 0, 0)
    if player.strength < dealer.strength:
        return HoldemNets(-wagers.ante, bonus, -wagers.flop, -wagers.turn, -wagers.river)
    ante = wagers.ante if player.category >= PokerCategory.STRAIGHT else 0
    return HoldemNets(ante, bonus, wagers.flop, wagers.turn, wagers.river)


def deal_order(seats: Sequence[int], button: int | None = None) -> tuple[int, ...]:
    """Who gets each of the initial cards: two rounds over the seats and the dealer (0).

    Args:
        seats: the seat numbers holding an ante (numbered from the dealer's left).
        button: the seat holding the dealer button, or None (seat 1 is dealt first).

    Raises:
        RulesError: no seat, or a button on a seat that holds no ante.
    """
    ordered = sorted(set(seats))
    if not ordered:
        raise RulesError("hold'em: no seat holds an ante")
    circle = (*ordered, DEALER_SPOT)
    if button is not None:
        if button not in ordered:
            raise RulesError(f"hold'em: the button is on seat {button}, which holds no ante")
        start = circle.index(button) + 1
        circle = circle[start:] + circle[:start]
    return circle + circle


def showdown_order(seats: Sequence[int]) -> tuple[int, ...]:
    """The order the dealer exposes the players' hands: from the dealer's right (rule 11)."""
    return tuple(sorted(set(seats), reverse=True))
