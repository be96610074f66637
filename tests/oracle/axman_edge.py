"""The AxMan house edge, exactly, by a second reading: the oracle's classifier over the cards.

Shares no code with `controller`: the dealer's drawing rule and the poker reading are the
oracle dealer's (`tests/oracle/dealer.py`); the counting is here. The model is the par
sheet's: the dealer's hand is dealt from a full shoe (S17), then the player's two cards from
what is left, and one `KD` among them doubles a win, two multiply it by 5.

1. Values: every drawing order the dealer can follow, grouped by the multiset of values it
   ends with (the order's probability depends only on that multiset).
2. Ranks: the ten-value cards of a multiset split among `T`, `J`, `Q`, `K` (not diamonds) and
   `KD` in every way, each weighted by its multinomial.
3. Suits: a hand pays a flush or straight flush only if five cards of one suit lie among its
   top cards (every non-`KD` card at or above the fifth highest non-`KD` rank, and every
   `KD`, a diamond). The suit splits of those cards in which a suit reaches five are
   enumerated rank by rank (hypergeometric weights); every other split reads as the hand with
   its suits spread, and takes the rest of the probability.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from itertools import product
from math import comb, factorial, prod

from tests.oracle.dealer import _dealer_draws, _five_highest, axman_odds

VALUES = "A23456789T"
SUITS = "SHDC"
# Symbols of a dealer's card: A..9 by value, then T, J, Q, K (spades, hearts, clubs), KD.
TEN_SYMBOLS = ("T", "J", "Q", "K", "KD")
MULTIPLIER = (1, 2, 5)


def falling(n: int, k: int) -> int:
    """n (n-1) ... (n-k+1)."""
    return prod(range(n - k + 1, n + 1))


def drawing_orders(h17: bool = False) -> Counter[tuple[str, ...]]:
    """Final value multisets (sorted) -> the number of drawing orders that end in each."""
    found: Counter[tuple[str, ...]] = Counter()

    def deal(cards: list[str]) -> None:
        if len(cards) >= 2 and not _dealer_draws(cards, h17):
            found[tuple(sorted(cards))] += 1
            return
        for value in VALUES:
            deal([*cards, value])

    deal([])
    return found


def shoe_count(symbol: str, decks: int) -> int:
    """Physical cards of `symbol` in the shoe."""
    return {"K": 3 * decks, "KD": decks}.get(symbol, 4 * decks)


def suits_of(symbol: str) -> str:
    """The suits a card of `symbol` can have."""
    return {"K": "SHC", "KD": "D"}.get(symbol, SUITS)


def rank_hands(values: tuple[str, ...]) -> Iterator[tuple[Counter[str], int]]:
    """Each split of the ten-value cards into symbols, with its number of orderings."""
    base = Counter(v for v in values if v != "T")
    tens = len(values) - sum(base.values())
    for split in product(range(tens + 1), repeat=5):
        if sum(split) != tens:
            continue
        hand = base + Counter({s: k for s, k in zip(TEN_SYMBOLS, split, strict=True) if k})
        yield hand, factorial(tens) // prod(factorial(k) for k in split)


POKER = {r: i for i, r in enumerate("23456789TJQKA", start=2)}


def top_region(hand: Counter[str]) -> Counter[str]:
    """The cards whose suits can make a flush: see the module docstring, point 3."""
    ranked = sorted((POKER[s[0]] for s, k in hand.items() if s != "KD" for _ in range(k)),
                    reverse=True)
    cut = ranked[4] if len(ranked) >= 5 else 0
    return Counter({s: k for s, k in hand.items() if s == "KD" or POKER[s[0]] >= cut})


def spread(hand: Counter[str]) -> list[str]:
    """The hand as cards, suits dealt round so that no suit holds five of its top cards."""
    cards, turn = ["KD"] * hand["KD"], 0
    for symbol, count in sorted(hand.items()):
        if symbol == "KD":
            continue
        for _ in range(count):
            allowed = suits_of(symbol)
            while SUITS[turn % 4] not in allowed:
                turn += 1
            cards.append(symbol[0] + SUITS[turn % 4])
            turn += 1
    return cards


SuitSplit = tuple[tuple[int, ...], tuple[str, ...], int]
"""Cards per suit (S, H, D, C), the cards, and the ways the shoe holds them."""


@cache
def suit_splits(symbol: str, count: int, decks: int) -> tuple[SuitSplit, ...]:
    """Every way `count` cards of `symbol` fall into suits: (per suit of SHDC, cards, ways)."""
    allowed = suits_of(symbol)
    found = []
    for split in product(range(count + 1), repeat=len(allowed)):
        if sum(split) == count:
            suits = dict(zip(allowed, split, strict=True))
            found.append((tuple(suits.get(suit, 0) for suit in SUITS),
                          tuple(symbol[0] + suit for suit, k in suits.items() for _ in range(k)),
                          prod(comb(decks, k) for k in split)))
    return tuple(found)


def flush_splits(hand: Counter[str], decks: int) -> tuple[list[tuple[list[str], int]], int]:
    """Suit splits of the top cards in which one suit holds five: (cards, ways), and the ways
    of every split (the denominator)."""
    region = top_region(hand)
    rest = [s[0] + suits_of(s)[0] for s, k in (hand - region).items() for _ in range(k)]
    options = [suit_splits(symbol, count, decks) for symbol, count in sorted(region.items())]
    left = [sum(region.values())]
    for count in sorted(region.items()):
        left.append(left[-1] - count[1])
    found: list[tuple[list[str], int]] = []

    def walk(i: int, per_suit: tuple[int, ...], cards: tuple[str, ...], ways: int) -> None:
        if max(per_suit) + left[i] < 5:
            return
        if i == len(options):
            if max(per_suit) >= 5:
                found.append(([*cards, *rest], ways))
            return
        for adds, more, more_ways in options[i]:
            walk(i + 1, (per_suit[0] + adds[0], per_suit[1] + adds[1], per_suit[2] + adds[2],
                         per_suit[3] + adds[3]), cards + more, ways * more_ways)

    walk(0, (0, 0, 0, 0), (), 1)
    return found, prod(comb(len(suits_of(s)) * decks, k) for s, k in region.items())


def flush_pay(cards: list[str]) -> int:
    """The best flush reading of a hand (1000 straight flush, 200 flush, 0 none).

    Only the lines that need one suit; every other reading depends on ranks alone.
    """
    best = 0
    for five in _five_highest(cards):
        if len({card[1] for card in five}) > 1:
            continue
        fixed = [POKER[card[0]] for card in five if card != "KD"]
        straight = len(set(fixed)) == len(fixed) and any(
            all(rank in window for rank in fixed)
            for window in [set(range(low, low + 5)) for low in range(2, 11)] + [WHEEL])
        best = max(best, 1000 if straight else 200)
    return best


WHEEL = {14, 2, 3, 4, 5}


def hand_value(hand: Counter[str], decks: int) -> tuple[Fraction, Fraction]:
    """The dealer's hand: (expected odds to 1 when it wins, probability that it loses)."""
    spread_cards = spread(hand)
    assert max(Counter(card[1] for card in spread_cards).values()) < 5
    plain = axman_odds(spread_cards)  # every reading that needs no suit
    if len(spread_cards) < 5:
        return Fraction(plain), Fraction(0 if plain else 1)
    splits, every = flush_splits(hand, decks)
    wins, losing = (every - sum(ways for _, ways in splits)) * plain, 0
    for cards, ways in splits:
        odds = max(plain, flush_pay(cards))
        wins += ways * odds
        losing += ways * (odds == 0)
    if not plain:
        losing += every - sum(ways for _, ways in splits)
    return Fraction(wins, every), Fraction(losing, every)


def axman_house_edge(decks: int, h17: bool = False) -> Fraction:
    """The house edge of AxMan on a `decks`-deck shoe, exactly."""
    shoe = 52 * decks
    player = Fraction(0)
    for values, orders in drawing_orders(h17).items():
        length = len(values)
        for hand, ten_orders in rank_hands(values):
            sequences = orders * ten_orders * prod(falling(shoe_count(s, decks), k)
                                                   for s, k in hand.items())
            chance = Fraction(sequences, falling(shoe, length))
            if chance == 0:
                continue
            wins, loses = hand_value(hand, decks)
            left, kings = shoe - length, decks - hand["KD"]
            pairs = left * (left - 1)
            two = Fraction(kings * (kings - 1), pairs)
            one = Fraction(2 * kings * (left - kings), pairs)
            multiplier = (1 - one - two) + MULTIPLIER[1] * one + MULTIPLIER[2] * two
            player += chance * (wins * multiplier - loses)
    return -player
