"""AxMan, exactly: the dealer's final hand as a poker hand, with `KD` wild and suits counted.

Why the player's cards can be left out of the dealer's enumeration: every card position of
a round is exchangeable, and the dealer's draws follow a stopping rule on the dealer's own
cards, so a given dealer sequence d and player pair p have probability 1/falling(M, |d|+2)
whichever is dealt first. The enumeration therefore deals the dealer's hand from the full
shoe and then the player's two cards from what is left; only the number of `KD` left
matters for the player's multiplier.

The hand is enumerated in three layers, each exact:

1. values (what the drawing rule sees): every final multiset with its number of valid
   drawing orders (`controller.odds.dealer_finishes`);
2. ranks: the ten-value cards split among `T`, `J`, `Q`, `K` (not diamonds) and `KD`;
3. suits, which matter only for a flush among five or more cards: the suit assignments of
   a rank multiset are partitioned by which cards of the *top region* (cards ranked at or
   above the fifth highest, and any `KD`) share one suit with at least four others.
   Cards below the five highest never enter the poker hand, and with at most 13 cards no
   more than two suits can each hold five, so inclusion-exclusion over one suit and over
   two suits covers every assignment. Spades, hearts and clubs are interchangeable (only
   diamonds are special, through `KD`), so one of them is evaluated and counted three times.

Each class of the partition is classified once, on a representative hand, by the rules'
AxMan classifier (`controller.rules.axman`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import product
from math import comb, factorial, prod

from controller.odds.combinatorics import falling
from controller.odds.dealer_finishes import DealerHand, dealer_hands
from controller.odds.errors import OddsError
from controller.rules.axman import AXMAN_DECK_COUNTS
from controller.rules.cards import Card, Rank, Suit

Classify = Callable[[tuple[Card, ...]], str | None]
"""The dealer's final hand -> the AxMan line it pays (None: the wager loses)."""

_RANKS: tuple[Rank, ...] = (Rank.ACE, Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE, Rank.SIX,
                            Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK,
                            Rank.QUEEN, Rank.KING)
_KING = 12
"""Index of `K` (the kings other than `KD`) in the rank symbols; symbol 13 is `KD`."""
_KD = 13
_POKER = (14, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 13)
_SUITS = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_S, _H, _D = 0, 1, 2
"""Suit indices into `_SUITS`."""
_CARDS = tuple(tuple(Card(Rank.KING if i == _KD else _RANKS[i], suit) for suit in _SUITS)
               for i in range(14))

Shares = tuple[tuple[int, ...], ...]
"""Physical cards per rank symbol and suit index in the shoe."""


@dataclass(frozen=True, slots=True)
class AxManCounts:
    """Sequence counts per (line, player's `KD` count), each over falling(M, length).

    Attributes:
        counts: `(line or None, kings of diamonds in the player's two cards, length)` ->
            physical sequences of `length` cards (the dealer's hand, then the player's two).
        shoe_size: M, the cards in the shoe.
    """

    counts: dict[tuple[str | None, int, int], int]
    shoe_size: int

    def probability(self, line: str | None, kings: int) -> Fraction:
        """P(the dealer's hand pays `line` and the player holds `kings` `KD`)."""
        return sum(
            (Fraction(count, falling(self.shoe_size, length))
             for (name, held, length), count in self.counts.items()
             if name == line and held == kings),
            Fraction(0),
        )


def count_axman(decks: int, hits: dict[tuple[int, bool], bool], classify: Classify) -> AxManCounts:
    """Count every dealer hand and player `KD` holding of a fresh `decks`-deck shoe."""
    value_shoe = (4 * decks,) * 9 + (16 * decks,)
    pools = (4 * decks,) * 12 + (3 * decks, decks)
    shares = tuple(_suit_shares(i, decks) for i in range(14))
    counts: dict[tuple[str | None, int, int], int] = {}
    line_of = cache(classify)  # many rank and suit splits share a representative hand
    for hand in dealer_hands(value_shoe, hits):
        for symbols, orders in _rank_splits(hand):
            kd = symbols[_KD]
            for cards, ways in _suit_classes(symbols, pools, shares):
                _add_player(counts, line_of(cards), orders * ways, hand.size, kd, decks)
    return AxManCounts(counts, 52 * decks)


def _suit_shares(index: int, decks: int) -> tuple[int, ...]:
    """Physical cards of rank symbol `index` in each suit (KD: diamonds; K: not diamonds)."""
    if index == _KD:
        return (0, 0, decks, 0)
    if index == _KING:
        return (decks, decks, 0, decks)
    return (decks,) * 4


def _add_player(counts: dict[tuple[str | None, int, int], int], line: str | None,
                weight: int, size: int, kd_in_hand: int, decks: int) -> None:
    """Deal the player's two cards from what the dealer left; split by `KD` held."""
    left = 52 * decks - size
    kings = decks - kd_in_hand
    ways = (falling(left - kings, 2), 2 * kings * (left - kings), falling(kings, 2))
    for held, number in enumerate(ways):
        if number:
            key = (line, held, size + 2)
            counts[key] = counts.get(key, 0) + weight * number


def _rank_splits(hand: DealerHand) -> Iterator[tuple[tuple[int, ...], int]]:
    """Split the hand's ten-value cards among T, J, Q, K and KD.

    Yields:
        (cards per rank symbol, valid drawing orders of that rank multiset).
    """
    tens = hand.counts[9]
    for split in product(range(tens + 1), repeat=5):
        if sum(split) != tens:
            continue
        orders = hand.orderings * factorial(tens) // prod(factorial(k) for k in split)
        yield (*hand.counts[:9], *split), orders


def _suit_classes(symbols: tuple[int, ...], pools: tuple[int, ...],
                  shares: Shares) -> Iterator[tuple[tuple[Card, ...], int]]:
    """Partition the suit assignments of a rank multiset into classes of equal payout.

    Yields:
        (a representative hand, the number of ordered physical card choices in the class).
        The numbers sum to the product over ranks of falling(pool, count).
    """
    everything = prod(falling(pool, count) for pool, count in zip(pools, symbols, strict=True))
    if sum(symbols) < 5:
        yield _representative(symbols, {}, shares), everything
        return
    top = _top_region(symbols)
    spades = {p: _single_ways(symbols, pools, shares, top, _S, p)
              for p in _patterns(symbols, shares, top, _S)}
    diamonds = {p: _single_ways(symbols, pools, shares, top, _D, p)
                for p in _patterns(symbols, shares, top, _D)}
    # Two suits of five or more: S-H stands for S-H, S-C and H-C; S-D for S-D, H-D, C-D.
    black_red = {pq: _double_ways(symbols, pools, shares, top, (_S, _H), pq)
                 for pq in _pattern_pairs(symbols, shares, top, (_S, _H))}
    with_d = {pq: _double_ways(symbols, pools, shares, top, (_S, _D), pq)
              for pq in _pattern_pairs(symbols, shares, top, (_S, _D))}
    rest = (everything - 3 * sum(spades.values()) - sum(diamonds.values())
            + 3 * sum(black_red.values()) + 3 * sum(with_d.values()))
    if rest:
        yield _representative(symbols, {}, shares), rest
    for p, ways in spades.items():
        own = ways - 2 * sum(w for (a, _), w in black_red.items() if a == p)
        own -= sum(w for (a, _), w in with_d.items() if a == p)
        if own:
            yield _representative(symbols, {_S: p}, shares), 3 * own
    for p, ways in diamonds.items():
        own = ways - 3 * sum(w for (_, b), w in with_d.items() if b == p)
        if own:
            yield _representative(symbols, {_D: p}, shares), own
    for (a, b), ways in black_red.items():
        yield _representative(symbols, {_S: a, _H: b}, shares), 3 * ways
    for (a, b), ways in with_d.items():
        yield _representative(symbols, {_S: a, _D: b}, shares), 3 * ways


def _top_region(symbols: tuple[int, ...]) -> tuple[bool, ...]:
    """Which rank symbols can reach the five highest cards (a `KD` always can).

    The cut is taken both with `KD` as the king it is printed as and without it, and the
    lower one used, so the region holds every card any reading could pick.
    """
    ranks = sorted((_POKER[i] for i, n in enumerate(symbols) for _ in range(n)), reverse=True)
    plain = sorted((_POKER[i] for i, n in enumerate(symbols[:_KD]) for _ in range(n)),
                   reverse=True)
    cut = min(ranks[4] if len(ranks) > 5 else 0, plain[4] if len(plain) > 5 else 0)
    return tuple(i == _KD or (n > 0 and _POKER[i] >= cut) for i, n in enumerate(symbols))


def _patterns(symbols: tuple[int, ...], shares: Shares, top: tuple[bool, ...],
              suit: int) -> Iterator[tuple[int, ...]]:
    """Per-symbol counts of `suit` among the top region's cards, five or more in all."""
    ranges = []
    for i, count in enumerate(symbols):
        if not top[i] or not shares[i][suit]:
            ranges.append(range(1))
        elif i == _KD:
            ranges.append(range(count, count + 1))
        else:
            ranges.append(range(min(count, shares[i][suit]) + 1))
    for pattern in product(*ranges):
        if sum(pattern) >= 5:
            yield pattern


def _pattern_pairs(symbols: tuple[int, ...], shares: Shares, top: tuple[bool, ...],
                   pair: tuple[int, int]) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Two suits each holding five or more top-region cards (needs ten such cards)."""
    if sum(n for n, t in zip(symbols, top, strict=True) if t) < 10:
        return
    for first in _patterns(symbols, shares, top, pair[0]):
        for second in _patterns(symbols, shares, top, pair[1]):
            if all(a + b <= n for a, b, n in zip(first, second, symbols, strict=True)):
                yield first, second


def _single_ways(symbols: tuple[int, ...], pools: tuple[int, ...], shares: Shares,
                 top: tuple[bool, ...], suit: int, pattern: tuple[int, ...]) -> int:
    """Ordered physical choices of every card with `suit` holding exactly `pattern` on top."""
    ways = 1
    for i, (count, pool) in enumerate(zip(symbols, pools, strict=True)):
        if not top[i]:
            ways *= falling(pool, count)
            continue
        share, k = shares[i][suit], pattern[i]
        ways *= comb(count, k) * falling(share, k) * falling(pool - share, count - k)
    return ways


def _double_ways(symbols: tuple[int, ...], pools: tuple[int, ...], shares: Shares,
                 top: tuple[bool, ...], pair: tuple[int, int],
                 patterns: tuple[tuple[int, ...], tuple[int, ...]]) -> int:
    """As `_single_ways`, with two suits each holding exactly their pattern on top."""
    ways = 1
    for i, (count, pool) in enumerate(zip(symbols, pools, strict=True)):
        if not top[i]:
            ways *= falling(pool, count)
            continue
        a, b = patterns[0][i], patterns[1][i]
        share_a, share_b = shares[i][pair[0]], shares[i][pair[1]]
        ways *= (factorial(count) // (factorial(a) * factorial(b) * factorial(count - a - b))
                 * falling(share_a, a) * falling(share_b, b)
                 * falling(pool - share_a - share_b, count - a - b))
    return ways


def _representative(symbols: tuple[int, ...], fixed: dict[int, tuple[int, ...]],
                    shares: Shares) -> tuple[Card, ...]:
    """A concrete hand: `fixed` suits hold their patterns.

    Every other card is spread over the other suits so that none of them holds five.
    """
    load = [0, 0, 0, 0]
    cards: list[Card] = []
    free = [s for s in range(4) if s not in fixed]
    for i, count in enumerate(symbols):
        if not count:
            continue
        used = [0, 0, 0, 0]
        for suit, pattern in fixed.items():
            used[suit] = pattern[i]
        share = shares[i]
        for _ in range(count - sum(used)):
            open_suits = [s for s in free if used[s] < share[s]]
            choice = min(open_suits, key=lambda s: load[s] + used[s])
            used[choice] += 1
        for suit in range(4):
            load[suit] += used[suit]
            cards += [_CARDS[i][suit]] * used[suit]
    if any(load[s] >= 5 for s in free):
        raise OddsError(f"no representative without a stray flush for {cards}")
    return tuple(cards)


def check_decks(decks: int) -> None:
    """AxMan is offered only on 6- or 8-deck tables (58 Pa. Code 633c.12(a)).

    Raises:
        OddsError: any other deck count.
    """
    if decks not in AXMAN_DECK_COUNTS:
        raise OddsError(f"--decks {decks}: AxMan is offered only with 6 or 8 decks "
                        "(58 Pa. Code 633c.12(a))")
