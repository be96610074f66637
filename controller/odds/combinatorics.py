"""Counting helpers: falling factorials, multiset orderings and deals by composition.

A deal draws `K` cards in order from a shoe of `M` physical cards, so there are
`falling(M, K)` equally likely ordered sequences. Cards that a wager cannot tell apart are
grouped into a `CardClass`; a deal is then enumerated once per composition (which classes
each group of positions holds, as a multiset) and weighted by the number of physical
sequences that produce it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import factorial, prod

from controller.rules.cards import Card


def falling(n: int, k: int) -> int:
    """The falling factorial n (n-1) ... (n-k+1): ordered draws of k from n (0 when k > n)."""
    if k > n:
        return 0
    return prod(range(n - k + 1, n + 1))


def orderings(counts: Sequence[int]) -> int:
    """Distinct orderings of a multiset with these multiplicities (the multinomial)."""
    return factorial(sum(counts)) // prod(factorial(c) for c in counts)


@dataclass(frozen=True, slots=True)
class CardClass:
    """Cards a wager cannot tell apart, counted together.

    Attributes:
        copies: physical cards of this class in the shoe.
        representatives: distinct cards that stand for the class when a classifier needs
            concrete cards; the i-th card of the class in a deal is shown as the i-th
            representative (a class of one card type repeats that card).
    """

    copies: int
    representatives: tuple[Card, ...]

    def shown(self, occurrence: int) -> Card:
        """The card shown for the `occurrence`-th card (from 0) of this class in a deal."""
        return self.representatives[min(occurrence, len(self.representatives) - 1)]


@dataclass(frozen=True, slots=True)
class Deal:
    """One composition of a deal: class indices per group of positions, and its weight.

    Attributes:
        groups: for each group of positions (e.g. the player's two cards, the dealer's up
            card), the sorted class indices it holds.
        weight: the number of physical ordered card sequences with this composition.
    """

    groups: tuple[tuple[int, ...], ...]
    weight: int

    def cards(self, classes: Sequence[CardClass]) -> tuple[tuple[Card, ...], ...]:
        """The deal as concrete representative cards, group by group."""
        seen: dict[int, int] = {}
        shown: list[tuple[Card, ...]] = []
        for group in self.groups:
            cards: list[Card] = []
            for index in group:
                occurrence = seen.get(index, 0)
                seen[index] = occurrence + 1
                cards.append(classes[index].shown(occurrence))
            shown.append(tuple(cards))
        return tuple(shown)


def deals(classes: Sequence[CardClass], group_sizes: Sequence[int]) -> Iterator[Deal]:
    """Every composition of a deal into groups of the given sizes, with positive weight.

    Within a group the order of the cards does not matter (the group is a multiset); the
    weights of all the deals yielded sum to `falling(total copies, sum(group_sizes))`.
    """
    yield from _deals(classes, tuple(group_sizes), (), {})


def _deals(
    classes: Sequence[CardClass],
    sizes: tuple[int, ...],
    done: tuple[tuple[int, ...], ...],
    used: dict[int, int],
) -> Iterator[Deal]:
    if not sizes:
        weight = prod(falling(classes[i].copies, k) for i, k in used.items())
        weight *= prod(orderings(_multiplicities(group)) for group in done)
        if weight:
            yield Deal(done, weight)
        return
    for group in combinations_with_replacement(range(len(classes)), sizes[0]):
        now = dict(used)
        for index in group:
            now[index] = now.get(index, 0) + 1
        if all(now[i] <= classes[i].copies for i in group):
            yield from _deals(classes, sizes[1:], (*done, group), now)


def _multiplicities(group: tuple[int, ...]) -> list[int]:
    counts: dict[int, int] = {}
    for index in group:
        counts[index] = counts.get(index, 0) + 1
    return list(counts.values())
