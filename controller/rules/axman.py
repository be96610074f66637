"""AxMan: the dealer's final blackjack hand read as a poker hand (58 Pa. Code 633c.12).

* The hand includes a bust card. Six or more cards: its five highest by rank (ace high);
  where cards tie at the cut, every choice is considered and the best for the player counts.
  For the cut the `KD` counts as the king it is printed as.
* `KD` is wild: it may stand for any rank and stays a diamond; the best-paying reading counts.
* Fewer than five cards: only jacks-or-better pair, two pair, three and four of a kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from enum import StrEnum
from itertools import combinations, product
from typing import Final

from controller.rules.cards import Card, Rank, Suit

KING_OF_DIAMONDS: Final = Card(Rank.KING, Suit.DIAMONDS)

AXMAN_DECK_COUNTS: Final = (6, 8)
"""The shoes AxMan may be offered with: six or eight decks (633c.12(a))."""


class AxManLine(StrEnum):
    """AxMan pay lines, keyed as in `[paytables.axman]`."""

    STRAIGHT_FLUSH = "straight_flush"
    FIVE_OF_A_KIND = "five_of_a_kind"
    FLUSH = "flush"
    STRAIGHT = "straight"
    FOUR_OF_A_KIND = "four_of_a_kind"
    FULL_HOUSE = "full_house"
    THREE_OF_A_KIND = "three_of_a_kind"
    TWO_PAIR = "two_pair"
    JACKS_OR_BETTER = "jacks_or_better"


_HIGH: Final[dict[Rank, int]] = {
    rank: (14 if rank is Rank.ACE else 10 if rank is Rank.TEN else 11 if rank is Rank.JACK
           else 12 if rank is Rank.QUEEN else 13 if rank is Rank.KING else int(rank.value))
    for rank in Rank
}
_ALL_VALUES: Final = tuple(range(2, 15))
_WHEEL: Final = frozenset({14, 2, 3, 4, 5})

Reading = tuple[tuple[int, Suit], ...]


def axman_lines(dealer_cards: Sequence[Card]) -> frozenset[AxManLine]:
    """Every AxMan line the dealer's final hand qualifies for under some allowed reading."""
    lines: set[AxManLine] = set()
    full = len(dealer_cards) >= 5
    for hand in five_highest(dealer_cards):
        for reading in _readings(hand):
            lines |= _lines_of(reading, full=full)
    return frozenset(lines)


def five_highest(cards: Sequence[Card]) -> list[tuple[Card, ...]]:
    """The candidate poker hands: all cards (five or fewer), else each choice of five highest."""
    if len(cards) <= 5:
        return [tuple(cards)]
    ordered = sorted(cards, key=lambda c: _HIGH[c.rank], reverse=True)
    cut = _HIGH[ordered[4].rank]
    above = tuple(c for c in ordered if _HIGH[c.rank] > cut)
    tied = [c for c in ordered if _HIGH[c.rank] == cut]
    choices = {tuple(sorted(pick, key=str)) for pick in combinations(tied, 5 - len(above))}
    return [above + pick for pick in sorted(choices, key=lambda p: [str(c) for c in p])]


def _readings(hand: Sequence[Card]) -> Iterator[Reading]:
    fixed = [(_HIGH[c.rank], c.suit) for c in hand if c != KING_OF_DIAMONDS]
    wild = len(hand) - len(fixed)
    for values in product(_ALL_VALUES, repeat=wild):
        yield (*fixed, *((value, Suit.DIAMONDS) for value in values))


def _lines_of(reading: Reading, *, full: bool) -> set[AxManLine]:
    by_value = Counter(value for value, _ in reading)
    counts = sorted(by_value.values(), reverse=True)
    lines: set[AxManLine] = set()
    if counts[0] >= 4:
        lines.add(AxManLine.FOUR_OF_A_KIND)
    if counts[0] >= 3:
        lines.add(AxManLine.THREE_OF_A_KIND)
    if len(counts) > 1 and counts[1] >= 2:
        lines.add(AxManLine.TWO_PAIR)
    if any(n >= 2 and value >= 11 for value, n in by_value.items()):
        lines.add(AxManLine.JACKS_OR_BETTER)
    if full:
        lines |= _five_card_lines(reading, counts)
    return lines


def _five_card_lines(reading: Reading, counts: list[int]) -> set[AxManLine]:
    lines: set[AxManLine] = set()
    values = {value for value, _ in reading}
    flush = len({suit for _, suit in reading}) == 1
    straight = len(values) == 5 and (max(values) - min(values) == 4 or values == _WHEEL)
    if counts[0] == 5:
        lines.add(AxManLine.FIVE_OF_A_KIND)
    if counts[:2] == [3, 2]:
        lines.add(AxManLine.FULL_HOUSE)
    if flush:
        lines.add(AxManLine.FLUSH)
    if straight:
        lines.add(AxManLine.STRAIGHT)
    if flush and straight:
        lines.add(AxManLine.STRAIGHT_FLUSH)
    return lines


def kings_of_diamonds(first: Card, second: Card) -> int:
    """How many `KD` the player's first two cards hold (0, 1 or 2): the AxMan multiplier key."""
    return (first == KING_OF_DIAMONDS) + (second == KING_OF_DIAMONDS)
