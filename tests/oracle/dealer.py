"""An independent oracle dealer: RULES.md + docs/decisions/, written without the product's rules.

It deals stacked shoes for the `--strategy stand` policy (no insurance, no even money, no
surrender, every hand stands on its first two cards) and produces the JSON round of decision 107
records. Test code only: it exists so the differential tests can compare the product's
reference dealer and `shoectl simulate --shoe-file` against a second reading of the rules.

Readings chosen where RULES.md leaves room (README.md in this folder lists them all):
- AxMan, six or more dealer cards: "five highest by rank" sorts `KD` as a king (its printed
  rank), ace high; among cards tied at the cut every choice is tried and the best pay counts.
- Lucky Ladies "20" counts an ace as 11 (`A`+`9` is the rules' own example of a suited 20).
- Blazing 7's colour line: three 7s all red or all black that are not a 100%/10% line.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

RANKS = "A23456789TJQK"
TEN_VALUE = frozenset("TJQK")
RED = frozenset("HD")
POKER_RANK = {r: i for i, r in enumerate("23456789TJQKA", start=2)}

# RULES.md "Match the Dealer" + decision 104: per-match (unsuited, suited) by deck count.
MATCH_TABLES = {
    "blackjack": {8: (3, 14), 6: (4, 11), 5: (3, 15), 4: (4, 12), 2: (4, 19)},
    "spanish21": dict.fromkeys((1, 2, 4, 5, 6, 8), (3, 12)),  # no deck count posted
}
PERFECT_PAIRS = {"perfect": 25, "coloured": 12, "mixed": 6}
LUCKY_LADIES = {"qh_pair_dealer_bj": 1000, "qh_pair": 200, "matched": 25, "suited": 10,
                "any": 4}
BLAZING_FOR_ONE = {"same_colour": 500, "three": 200, "two": 25, "one": 2}
AXMAN = {"straight_flush": 1000, "five_kind": 500, "flush": 200, "straight": 100,
         "four_kind": 50, "full_house": 30, "three_kind": 20, "two_pair": 12, "jacks": 5}
DRAGON_MARGIN = {9: 30, 8: 10, 7: 6, 6: 4, 5: 2, 4: 1}
BLAZING_WAGER = 500


class OutOfCardsError(Exception):
    """The stacked shoe ran out in the middle of a round (the round is void)."""


class NoPaytableError(ValueError):
    """A side wager with no pay table for this game and deck count."""


def rank(card: str) -> str:
    """`"QH"` -> `"Q"`."""
    return card[0]


def suit(card: str) -> str:
    """`"QH"` -> `"H"`."""
    return card[1]


def card_points(card: str) -> int:
    """Blackjack points with an ace as 1."""
    r = rank(card)
    return 1 if r == "A" else 10 if r in TEN_VALUE else int(r)


def total(cards: Sequence[str]) -> tuple[int, bool]:
    """Best blackjack total and whether it is soft (an ace counted 11)."""
    hard = sum(card_points(c) for c in cards)
    if any(rank(c) == "A" for c in cards) and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def is_blackjack(cards: Sequence[str]) -> bool:
    """Ace plus ten-value as the two cards of an unsplit hand."""
    return len(cards) == 2 and sorted(card_points(c) for c in cards) == [1, 10]


# ----------------------------------------------------------------------------- side wagers
def perfect_pairs(first_two: Sequence[str]) -> int:
    """Odds to 1 (0 = loses)."""
    a, b = first_two
    if rank(a) != rank(b):
        return 0
    if suit(a) == suit(b):
        return PERFECT_PAIRS["perfect"]
    if (suit(a) in RED) == (suit(b) in RED):
        return PERFECT_PAIRS["coloured"]
    return PERFECT_PAIRS["mixed"]


def lucky_ladies(first_two: Sequence[str], dealer_blackjack: bool) -> int:
    """Odds to 1 (0 = loses); an ace counts 11 toward the 20."""
    a, b = first_two
    if total(first_two)[0] != 20:
        return 0
    if a == b == "QH":
        return LUCKY_LADIES["qh_pair_dealer_bj" if dealer_blackjack else "qh_pair"]
    if a == b:
        return LUCKY_LADIES["matched"]
    if suit(a) == suit(b):
        return LUCKY_LADIES["suited"]
    return LUCKY_LADIES["any"]


def match_the_dealer(first_two: Sequence[str], up: str, game: str, decks: int) -> int:
    """Odds to 1 summed over both cards (0 = loses)."""
    table = MATCH_TABLES[game].get(decks)
    if table is None:
        raise NoPaytableError(f"match-the-dealer: no table for {game} with {decks} decks")
    unsuited, suited = table
    return sum(suited if c == up else unsuited for c in first_two if rank(c) == rank(up))


def blazing_line(first_two: Sequence[str], up: str) -> str | None:
    """The best Blazing 7's line: "100%", "10%", a for-1 key, or None."""
    sevens = [c for c in first_two if rank(c) == "7"]
    if len(sevens) == 2 and rank(up) == "7":
        three = [*first_two, up]
        suits = {suit(c) for c in three}
        if suits == {"D"}:
            return "100%"
        if len(suits) == 1:
            return "10%"
        if len({s in RED for s in suits}) == 1:
            return "same_colour"
        return "three"
    return {2: "two", 1: "one"}.get(len(sevens))


def axman_odds(dealer: Sequence[str]) -> int:
    """Odds to 1 on the dealer's final hand (0 = loses), KD wild, best reading."""
    return max(_axman_hand_odds(h) for h in _five_highest(dealer))


def _five_highest(dealer: Sequence[str]) -> Iterable[tuple[str, ...]]:
    if len(dealer) <= 5:
        return [tuple(dealer)]
    ordered = sorted(dealer, key=lambda c: POKER_RANK[rank(c)], reverse=True)
    cut = POKER_RANK[rank(ordered[4])]
    above = [c for c in ordered if POKER_RANK[rank(c)] > cut]
    at_cut = [c for c in ordered if POKER_RANK[rank(c)] == cut]
    return [tuple(above) + extra for extra in itertools.combinations(at_cut, 5 - len(above))]


def _axman_hand_odds(cards: Sequence[str]) -> int:
    fixed = [c for c in cards if c != "KD"]
    wilds = len(cards) - len(fixed)
    best = 0
    for assigned in itertools.product("23456789TJQKA", repeat=wilds):
        ranks = [POKER_RANK[rank(c)] for c in fixed] + [POKER_RANK[r] for r in assigned]
        suits = [suit(c) for c in fixed] + ["D"] * wilds
        best = max(best, _poker_odds(ranks, suits))
    return best


def _poker_odds(ranks: list[int], suits: list[str]) -> int:
    counts = sorted(Counter(ranks).values(), reverse=True)
    pairs = [r for r, n in Counter(ranks).items() if n >= 2]
    found = []
    if len(ranks) == 5:
        flush = len(set(suits)) == 1
        distinct = sorted(set(ranks))
        straight = len(distinct) == 5 and (distinct[4] - distinct[0] == 4
                                           or distinct == [2, 3, 4, 5, 14])
        found += [straight and flush and "straight_flush", counts[0] == 5 and "five_kind",
                  flush and "flush", straight and "straight",
                  counts[:2] == [3, 2] and "full_house"]
    found += [counts[0] >= 4 and "four_kind", counts[0] >= 3 and "three_kind",
              len(pairs) >= 2 and "two_pair", any(r >= 11 for r in pairs) and "jacks"]
    return max([AXMAN[f] for f in found if f] or [0])


# ----------------------------------------------------------------------------- blackjack
@dataclass
class Seat:
    """One seat's wagers: main and side wagers in cents."""

    seat: int
    main: int
    side: dict[str, int] = field(default_factory=dict)


@dataclass
class Table:
    """What the oracle needs to know about the table."""

    game: str = "blackjack"  # or "spanish21"
    decks: int = 6
    h17: bool = False
    meter: int = 1_000_000
    meter_reset: int = 1_000_000
    meter_increment: int = 100


def _peeks(up: str, game: str) -> bool:
    if game == "spanish21":
        return rank(up) in "AJQK"
    return rank(up) == "A" or rank(up) in TEN_VALUE


def _dealer_draws(cards: Sequence[str], h17: bool) -> bool:
    points, soft = total(cards)
    return points < 17 or (h17 and soft and points == 17)


def play_blackjack(table: Table, seats: Sequence[Seat], cards: Iterator[str],
                   number: int) -> dict[str, Any]:
    """Deal and settle one round; the table's meter is updated in place.

    Raises:
        OutOfCardsError: the shoe ran out (the round is void; the meter is left as it was).
    """
    meter_before = table.meter

    def draw() -> str:
        try:
            return next(cards)
        except StopIteration:
            table.meter = meter_before
            raise OutOfCardsError from None

    seats = sorted(seats, key=lambda s: s.seat)
    table.meter += table.meter_increment * sum("blazing7s" in s.side for s in seats)
    hands: dict[int, list[str]] = {s.seat: [draw()] for s in seats}
    up = draw()
    for s in seats:
        hands[s.seat].append(draw())
    dealer = [up, draw()]
    peeked = _peeks(up, table.game)
    dealer_bj = is_blackjack(dealer)
    if not dealer_bj:
        everyone_bj = all(is_blackjack(h) for h in hands.values())
        axman_on = any("axman" in s.side for s in seats)
        if not everyone_bj or axman_on:
            while _dealer_draws(dealer, table.h17):
                dealer.append(draw())
    records = {s.seat: _settle_seat(table, s, hands[s.seat], dealer, dealer_bj) for s in seats}
    _settle_blazing(table, seats, hands, up, records)
    return {"round": number, "dealer": dealer, "peeked": peeked,
            "dealer_blackjack": dealer_bj, "meter": table.meter,
            "seats": [records[s.seat] for s in seats]}


def main_net(table: Table, wager: int, hand: Sequence[str], dealer: Sequence[str]) -> int:
    """Net of a two-card standing hand."""
    player_bj, dealer_bj = is_blackjack(hand), is_blackjack(dealer)
    if player_bj and (table.game == "spanish21" or not dealer_bj):
        return wager * 3 // 2
    if player_bj or dealer_bj:
        return 0 if player_bj else -wager
    mine, theirs = total(hand)[0], total(dealer)[0]
    if theirs > 21 or mine > theirs:
        return wager
    return 0 if mine == theirs else -wager


def _settle_seat(table: Table, s: Seat, hand: list[str], dealer: list[str],
                 dealer_bj: bool) -> dict[str, Any]:
    up = dealer[0]
    side: dict[str, int] = {}
    for name, wager in s.side.items():
        if name == "perfect-pairs":
            odds = perfect_pairs(hand)
        elif name == "lucky-ladies":
            odds = lucky_ladies(hand, dealer_bj)
        elif name == "match-the-dealer":
            odds = match_the_dealer(hand, up, table.game, table.decks)
        elif name == "axman":
            kings = hand.count("KD")
            odds = axman_odds(dealer) * {0: 1, 1: 2, 2: 5}[kings]
        else:
            continue  # blazing7s: settled seat by seat in _settle_blazing
        side[name] = odds * wager if odds else -wager
    return {"seat": s.seat, "hands": [{"cards": list(hand),
                                       "net": main_net(table, s.main, hand, dealer)}],
            "side_bets": side}


def _settle_blazing(table: Table, seats: Sequence[Seat], hands: dict[int, list[str]],
                    up: str, records: dict[int, dict[str, Any]]) -> None:
    """Counter-clockwise: the highest seat number first (decision 105 "Meter")."""
    for s in sorted(seats, key=lambda s: s.seat, reverse=True):
        if "blazing7s" not in s.side:
            continue
        line = blazing_line(hands[s.seat], up)
        if line == "100%":
            paid = table.meter
            table.meter = table.meter_reset
        elif line == "10%":
            paid = table.meter // 10
            table.meter -= paid
        elif line is None:
            paid = 0
        else:
            paid = BLAZING_FOR_ONE[line] * BLAZING_WAGER
        records[s.seat]["side_bets"]["blazing7s"] = paid - BLAZING_WAGER


def play_blackjack_shoe(table: Table, seats: Sequence[Seat],
                        shoe: Sequence[str]) -> list[dict[str, Any]]:
    """Every complete round a stacked shoe deals; the round that runs out is void."""
    cards = iter(shoe)
    records: list[dict[str, Any]] = []
    while True:
        try:
            records.append(play_blackjack(table, seats, cards, len(records) + 1))
        except OutOfCardsError:
            return records


# ----------------------------------------------------------------------------- baccarat
def bac_total(cards: Sequence[str]) -> int:
    """Baccarat points: A 1, 2-9 face, ten-value 0, mod 10."""
    return sum(0 if rank(c) in TEN_VALUE else card_points(c) for c in cards) % 10


def _banker_draws(banker: int, player_third: str | None) -> bool:
    if player_third is None:
        return banker <= 5
    third = bac_total([player_third])
    return (banker <= 2 or (banker == 3 and third != 8) or (banker == 4 and 2 <= third <= 7)
            or (banker == 5 and 4 <= third <= 7) or (banker == 6 and third in (6, 7)))


def deal_baccarat(cards: Iterator[str]) -> tuple[list[str], list[str]]:
    """Player and Banker hands per the third-card table.

    Raises:
        OutOfCardsError: the shoe ran out.
    """

    def draw() -> str:
        try:
            return next(cards)
        except StopIteration:
            raise OutOfCardsError from None

    first = [draw() for _ in range(4)]
    player, banker = [first[0], first[2]], [first[1], first[3]]
    if bac_total(player) >= 8 or bac_total(banker) >= 8:
        return player, banker
    player_third = None
    if bac_total(player) <= 5:
        player_third = draw()
        player.append(player_third)
    if _banker_draws(bac_total(banker), player_third):
        banker.append(draw())
    return player, banker


def _dragon(side: str, player: list[str], banker: list[str]) -> int:
    """Dragon Bonus odds to 1 on `side` ("player"/"banker"); 0 push; -1 loses."""
    mine, theirs = (player, banker) if side == "player" else (banker, player)
    natural = len(mine) == 2 and bac_total(mine) >= 8
    margin = bac_total(mine) - bac_total(theirs)
    if natural and margin > 0:
        return 1
    if natural and margin == 0 and len(theirs) == 2:
        return 0
    if margin >= 4 and not natural:
        return DRAGON_MARGIN[margin]
    return -1


def settle_baccarat(bets: dict[str, int], player: list[str], banker: list[str]) -> dict[str, int]:
    """Net per wager name (banker, player, tie, dragon-banker, dragon-player)."""
    p, b = bac_total(player), bac_total(banker)
    result = "tie" if p == b else "player" if p > b else "banker"
    nets = {}
    for name, wager in bets.items():
        if name == "tie":
            nets[name] = 8 * wager if result == "tie" else -wager
        elif name in ("banker", "player"):
            if result == "tie":
                nets[name] = 0
            elif result != name:
                nets[name] = -wager
            else:
                commission = -(-wager * 5 // 100) if name == "banker" else 0
                nets[name] = wager - commission
        else:
            odds = _dragon(name.removeprefix("dragon-"), player, banker)
            nets[name] = odds * wager if odds >= 0 else -wager
    return nets


def play_baccarat(seats: dict[int, dict[str, int]], cards: Iterator[str],
                  number: int) -> dict[str, Any]:
    """One coup as a decision 107 record.

    Raises:
        OutOfCardsError: the shoe ran out.
    """
    player, banker = deal_baccarat(cards)
    p, b = bac_total(player), bac_total(banker)
    result = "tie" if p == b else "player" if p > b else "banker"
    return {"round": number, "player": player, "banker": banker, "result": result,
            "seats": [{"seat": n, "bets": settle_baccarat(bets, player, banker)}
                      for n, bets in sorted(seats.items())]}


def play_baccarat_shoe(seats: dict[int, dict[str, int]],
                       shoe: Sequence[str]) -> list[dict[str, Any]]:
    """Every complete coup a stacked shoe deals."""
    cards = iter(shoe)
    records: list[dict[str, Any]] = []
    while True:
        try:
            records.append(play_baccarat(seats, cards, len(records) + 1))
        except OutOfCardsError:
            return records
