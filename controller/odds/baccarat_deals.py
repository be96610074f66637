"""Midi Baccarat by composition: every deal counted by value class, never card by card.

Baccarat values are `A`=1, `2`-`9` face, `T J Q K` = 0, so the shoe is ten value classes
(the four 0-valued ranks merged: 16 cards a deck, the others 4). The deal is enumerated as
the player's two-card multiset, the banker's two-card multiset, then the third cards the
drawing rules call for, each weighted by the number of physical card sequences that give
it. Counts of 4- and 5-card deals are scaled to 6-card sequences so every deal shares the
denominator `falling(M, 6)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from controller.odds.combinatorics import falling

PlayerDraws = Callable[[int], bool]
"""Whether the player draws on this two-card total (no natural on either side)."""

BankerDraws = Callable[[int, int | None], bool]
"""Whether the banker draws on this two-card total, given the player's third card's value
(None when the player stood); only asked when neither hand is a natural."""


@dataclass(frozen=True, slots=True, order=True)
class CoupOutcome:
    """How one deal ends, as far as any baccarat wager can tell.

    Attributes:
        player: the player's final total (0-9).
        banker: the banker's final total (0-9).
        player_natural: the player's first two cards total 8 or 9.
        banker_natural: the banker's first two cards total 8 or 9.
    """

    player: int
    banker: int
    player_natural: bool
    banker_natural: bool


@dataclass(frozen=True, slots=True)
class CoupCounts:
    """Every way a deal can end, counted in 6-card sequences out of `total`.

    Attributes:
        counts: physical 6-card sequences (out of the shoe) ending in each coup.
        total: `falling(M, 6)` for the shoe's M cards.
        examples: for each coup, the value sequence of one deal that ends in it, as
            (player's cards, banker's cards) in baccarat values.
    """

    counts: dict[CoupOutcome, int]
    total: int
    examples: dict[CoupOutcome, tuple[tuple[int, ...], tuple[int, ...]]]


def value_counts(decks: int) -> tuple[int, ...]:
    """Cards of each baccarat value (0-9) in a shoe of standard decks."""
    return (16 * decks, *([4 * decks] * 9))


def count_coups(decks: int, player_draws: PlayerDraws, banker_draws: BankerDraws) -> CoupCounts:
    """Count every deal of a fresh `decks`-deck shoe by how it ends."""
    return count_coups_in(value_counts(decks), player_draws, banker_draws)


def count_coups_in(shoe: tuple[int, ...], player_draws: PlayerDraws,
                   banker_draws: BankerDraws) -> CoupCounts:
    """Count every deal of a shoe given as cards per baccarat value (0-9) by how it ends.

    The drawing rules are taken as functions and tabulated once, so the enumeration itself
    only looks them up.
    """
    player_table = tuple(player_draws(total) for total in range(10))
    banker_table = {
        (total, third): banker_draws(total, third)
        for total in range(10)
        for third in (None, *range(10))
    }
    return _count(shoe, player_table, banker_table)


def _count(
    start: tuple[int, ...],
    player_table: tuple[bool, ...],
    banker_table: dict[tuple[int, int | None], bool],
) -> CoupCounts:
    shoe = list(start)
    size = sum(shoe)
    scale4, scale5 = falling(size - 4, 2), size - 5
    counts: dict[CoupOutcome, int] = {}
    examples: dict[CoupOutcome, tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def add(coup: CoupOutcome, weight: int, cards: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
        counts[coup] = counts.get(coup, 0) + weight
        examples.setdefault(coup, cards)

    for (p1, p2), (b1, b2), weight in _initial_pairs(tuple(shoe)):
        for card in (p1, p2, b1, b2):
            shoe[card] -= 1
        _finish(shoe, (p1, p2), (b1, b2), weight, (scale4, scale5),
                player_table, banker_table, add)
        for card in (p1, p2, b1, b2):
            shoe[card] += 1
    return CoupCounts(counts, falling(size, 6), examples)


def _initial_pairs(
    shoe: tuple[int, ...],
) -> tuple[tuple[tuple[int, int], tuple[int, int], int], ...]:
    """The player's and banker's two-card multisets with their ordered-sequence weights."""
    pairs = [(a, b) for a in range(10) for b in range(a, 10)]
    out = []
    for player in pairs:
        for banker in pairs:
            left = list(shoe)
            weight = 1
            for card in (*player, *banker):
                weight *= left[card]
                left[card] -= 1
            weight *= (2 if player[0] != player[1] else 1) * (2 if banker[0] != banker[1] else 1)
            if weight > 0:
                out.append((player, banker, weight))
    return tuple(out)


def _finish(
    shoe: list[int],
    player: tuple[int, int],
    banker: tuple[int, int],
    weight: int,
    scales: tuple[int, int],
    player_table: tuple[bool, ...],
    banker_table: dict[tuple[int, int | None], bool],
    add: Callable[[CoupOutcome, int, tuple[tuple[int, ...], tuple[int, ...]]], None],
) -> None:
    """Deal the third cards (if any) and record every ending, weighted."""
    p_total, b_total = sum(player) % 10, sum(banker) % 10
    p_nat, b_nat = p_total >= 8, b_total >= 8
    if p_nat or b_nat:
        add(CoupOutcome(p_total, b_total, p_nat, b_nat), weight * scales[0], (player, banker))
        return
    if not player_table[p_total]:
        if banker_table[(b_total, None)]:
            for third, left in enumerate(shoe):
                if left:
                    add(CoupOutcome(p_total, (b_total + third) % 10, False, False),
                        weight * left * scales[1], (player, (*banker, third)))
        else:
            add(CoupOutcome(p_total, b_total, False, False), weight * scales[0], (player, banker))
        return
    for p3, left_p in enumerate(shoe):
        if not left_p:
            continue
        p_final = (p_total + p3) % 10
        if not banker_table[(b_total, p3)]:
            add(CoupOutcome(p_final, b_total, False, False), weight * left_p * scales[1],
                ((*player, p3), banker))
            continue
        shoe[p3] -= 1
        for b3, left_b in enumerate(shoe):
            if left_b:
                add(CoupOutcome(p_final, (b_total + b3) % 10, False, False),
                    weight * left_p * left_b, ((*player, p3), (*banker, b3)))
        shoe[p3] += 1
