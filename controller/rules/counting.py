"""Card counting as a player does it: the Hi-Lo count, the bet spread and the index plays.

Pure functions over cards. The simulation's counting bot plays by them, and the
advantage-play analysis measures a seat's play against them: both must agree on what a
counter knows, which is only the cards exposed since the shuffle (the burn card and the
hole card, until it is turned over, are out of the shoe but unseen).

Hi-Lo: 2-6 count +1, 7-9 count 0, tens and aces -1. The true count is the running count
divided by the decks not yet out of the shoe (at least half a deck, as a counter who
estimates the discard tray by the half deck would).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from controller.rules.blackjack import Action, Decision
from controller.rules.cards import Card, Rank
from controller.rules.hands import hand_value
from controller.rules.options import BlackjackRules
from controller.rules.strategy import (
    NO_INSURANCE,
    InsuranceChoice,
    Situation,
    basic_strategy,
    up_label,
)

CARDS_PER_DECK: Final = 52
INSURANCE_INDEX: Final = 3
"""Insurance pays 2:1 and wins when the hole card is a ten: worth taking from a true count
of +3 on a multi-deck shoe (the first of the common index plays)."""


def hilo_tag(card: Card) -> int:
    """A card's Hi-Lo tag: +1 for 2-6, 0 for 7-9, -1 for tens and aces."""
    if card.rank is Rank.ACE or card.rank.is_ten_value:
        return -1
    return 1 if card.rank.points <= 6 else 0


@dataclass(frozen=True, slots=True)
class ShoeCount:
    """What a counter knows of a shoe: its decks, the cards out, the running count."""

    decks: int
    out: int = 0
    running: int = 0

    def exposed(self, card: Card) -> ShoeCount:
        """A card seen leaving the shoe: it counts."""
        return replace(self, out=self.out + 1, running=self.running + hilo_tag(card))

    def unseen(self) -> ShoeCount:
        """A card out of the shoe face down (the burn card, the hole card): not counted yet."""
        return replace(self, out=self.out + 1)

    def turned(self, card: Card) -> ShoeCount:
        """A card already out, turned face up (the hole card): it counts now."""
        return replace(self, running=self.running + hilo_tag(card))

    @property
    def decks_remaining(self) -> float:
        """Decks still in the shoe, at least half a deck."""
        return max((self.decks * CARDS_PER_DECK - self.out) / CARDS_PER_DECK, 0.5)

    @property
    def true_count(self) -> float:
        """The running count per deck remaining."""
        return self.running / self.decks_remaining


def spread_units(true_count: float, top: int = 8) -> int:
    """A counter's wager in units: 1 up to a true count of +1, `top` from +5, a ramp between.

    The ramp from +2 to +4 is linear in the floored true count (1-8: 2, 4, 6 units).
    """
    if top < 1:
        raise ValueError(f"a spread needs at least 1 unit at the top, got {top}")
    level = math.floor(true_count)
    if level <= 1:
        return 1
    if level >= 5:
        return top
    return 1 + (top - 1) * (level - 1) // 4


@dataclass(frozen=True, slots=True)
class IndexPlay:
    """A departure from basic strategy at a true count.

    `action` at or above `index` (`above=True`), or at or below it (`above=False`).
    """

    total: int
    up: str
    action: Action
    index: int
    above: bool = True

    def applies(self, true_count: float) -> bool:
        """True when the count calls for the departure."""
        level = math.floor(true_count) if self.above else math.ceil(true_count)
        return level >= self.index if self.above else level <= self.index


INDEX_PLAYS: Final = (
    IndexPlay(16, "T", Action.STAND, 0), IndexPlay(15, "T", Action.STAND, 4),
    IndexPlay(10, "T", Action.DOUBLE, 4), IndexPlay(12, "3", Action.STAND, 2),
    IndexPlay(12, "2", Action.STAND, 3), IndexPlay(11, "A", Action.DOUBLE, 1),
    IndexPlay(9, "2", Action.DOUBLE, 1), IndexPlay(10, "A", Action.DOUBLE, 4),
    IndexPlay(9, "7", Action.DOUBLE, 3), IndexPlay(16, "9", Action.STAND, 5),
    IndexPlay(13, "2", Action.HIT, -1, above=False),
    IndexPlay(12, "4", Action.HIT, 0, above=False),
    IndexPlay(12, "5", Action.HIT, -2, above=False),
    IndexPlay(12, "6", Action.HIT, -1, above=False),
    IndexPlay(13, "3", Action.HIT, -2, above=False),
)
"""The common hard-total index plays of multi-deck Hi-Lo (the "Illustrious 18" less
insurance, which is `INSURANCE_INDEX`, and the pair splits)."""


def index_play(cards: tuple[Card, ...], up_card: Card, legal: frozenset[Action],
               true_count: float) -> Action | None:
    """The count's departure for this hard hand, when the count calls for one it allows."""
    value = hand_value(cards)
    if value.soft:
        return None
    up = up_label(up_card)
    for play in INDEX_PLAYS:
        if play.total == value.total and play.up == up and play.action in legal:
            if play.action is Action.DOUBLE and len(cards) != 2:
                continue
            return play.action if play.applies(true_count) else None
    return None


def count_favours(cards: tuple[Card, ...], up_card: Card, legal: frozenset[Action],
                  rules: BlackjackRules, true_count: float) -> tuple[Action, Action]:
    """(basic strategy's action, the counter's action) for this hand at this count."""
    basic = basic_strategy(cards, up_card, legal, rules).action
    departure = index_play(cards, up_card, legal, true_count)
    return basic, departure if departure is not None else basic


class CountingPolicy:
    """A Hi-Lo counter's play: insurance from +3, the index plays, else basic strategy.

    `count` is asked for the true count at each decision, so the caller keeps it current
    with every card the counter has seen.
    """

    def __init__(self, count: Callable[[], ShoeCount]) -> None:
        self._count = count

    def insurance(self, seat: int, cards: tuple[Card, ...], up_card: Card,
                  wager: int) -> InsuranceChoice:
        """Half the wager when the true count is +3 or more, else none."""
        if math.floor(self._count().true_count) >= INSURANCE_INDEX and wager >= 2:
            return InsuranceChoice(amount=wager // 2)
        return NO_INSURANCE

    def decide(self, situation: Situation) -> Decision:
        """The index play the count calls for, else basic strategy."""
        _, action = count_favours(situation.cards, situation.up_card, situation.legal,
                                  situation.rules, self._count().true_count)
        return Decision(action)


class ShoeCountSource:
    """A mutable holder of the current `ShoeCount`, called for its value."""

    def __init__(self, decks: int) -> None:
        self.count = ShoeCount(decks)

    def __call__(self) -> ShoeCount:
        """The count now."""
        return self.count
