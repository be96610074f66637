"""The dealer's hand by composition: every way the dealer can finish, counted exactly.

The dealer's drawing depends only on card values (`A` = 1 or 11, `2`-`9`, ten-value = 10),
so the dealer's hands are enumerated over the ten value classes. Each final hand is kept as
a multiset of values with the number of valid drawing orders that produce it (the order
matters for when the dealer stops, not for the probability of a given ordered sequence,
which depends on the multiset alone).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from math import prod

from controller.odds.combinatorics import falling

VALUES = tuple(range(1, 11))
"""The dealer's value classes: 1 (ace) to 10 (ten-value)."""

DealerHits = Callable[[int, bool], bool]
"""Whether the dealer draws on a hand of this hard total (aces as 1) and ace presence."""


@dataclass(frozen=True, slots=True)
class DealerHand:
    """A final dealer hand as a multiset of values.

    Attributes:
        counts: cards of each value, index 0 for aces to 9 for ten-value cards.
        orderings: the number of drawing orders that end in exactly this multiset.
    """

    counts: tuple[int, ...]
    orderings: int

    @property
    def size(self) -> int:
        """Cards in the hand."""
        return sum(self.counts)

    @property
    def total(self) -> int:
        """The blackjack total, counting one ace as 11 where that does not bust."""
        hard = sum(value * count for value, count in zip(VALUES, self.counts, strict=True))
        return hard + 10 if self.counts[0] and hard + 10 <= 21 else hard


def hit_table(dealer_hits: DealerHits) -> dict[tuple[int, bool], bool]:
    """Tabulate a drawing rule over every hard total the dealer can hold before standing."""
    return {(hard, ace): dealer_hits(hard, ace) for hard in range(2, 27) for ace in (False, True)}


def dealer_hands(
    shoe: tuple[int, ...],
    hits: Mapping[tuple[int, bool], bool],
    start: tuple[int, ...] = (),
) -> list[DealerHand]:
    """Every final dealer hand drawn from `shoe` (cards per value class, aces first).

    Args:
        shoe: cards of each value left in the shoe, index 0 = aces, 9 = ten-value.
        hits: the drawing rule tabulated by `hit_table`.
        start: values the dealer already holds (the up card); they are counted in the
            returned multisets but not drawn from `shoe`.

    Returns:
        The final hands; `orderings` counts the orders of the *drawn* cards only.
    """
    counts = [0] * 10
    for value in start:
        counts[value - 1] += 1
    found: dict[tuple[int, ...], int] = {}
    left = list(shoe)

    def draw(hard: int, ace: bool, size: int) -> None:
        if size >= 2 and (hard > 21 or not hits[(hard, ace)]):
            key = tuple(counts)
            found[key] = found.get(key, 0) + 1
            return
        for index in range(10):
            if left[index]:
                left[index] -= 1
                counts[index] += 1
                draw(hard + index + 1, ace or index == 0, size + 1)
                counts[index] -= 1
                left[index] += 1

    draw(sum(start), 1 in start, len(start))
    return [DealerHand(key, number) for key, number in found.items()]


def sequence_count(shoe: tuple[int, ...], drawn: tuple[int, ...]) -> int:
    """Physical ordered sequences of one given value order with these counts per value."""
    return prod(falling(have, take) for have, take in zip(shoe, drawn, strict=True))
