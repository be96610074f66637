"""AxMan: the suit partition against every suit assignment, and the whole sheet's exactness."""

import json
from collections import Counter
from fractions import Fraction
from itertools import product
from math import factorial, prod

import pytest

from controller.cli.odds_command import main
from controller.odds import axman_exact as engine
from controller.odds.combinatorics import falling
from controller.rules.axman import axman_lines
from controller.rules.cards import Card
from controller.rules.paytables import AxManPays
from tests.oracle.axman_edge import axman_house_edge

PAYS = AxManPays()


def classify(cards: tuple[Card, ...]) -> str | None:
    best = PAYS.best(axman_lines(cards))
    return None if best is None else best.value


def symbols_of(**counts: int) -> tuple[int, ...]:
    """Rank symbols A,2..9,T,J,Q,K (not KD),KD from keyword counts like r2=3, KD=1."""
    names = ["A", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "T", "J", "Q", "K", "KD"]
    return tuple(counts.get(name, 0) for name in names)


def every_assignment(symbols: tuple[int, ...], decks: int) -> Counter[str | None]:
    """Brute force: every split of each rank's cards among the suits, weighted exactly."""
    shares = [engine._suit_shares(i, decks) for i in range(14)]
    per_rank = []
    for i, count in enumerate(symbols):
        options = []
        for split in product(range(count + 1), repeat=4):
            if sum(split) == count and all(k <= s for k, s in zip(split, shares[i], strict=True)):
                ways = factorial(count) // prod(factorial(k) for k in split)
                ways *= prod(falling(s, k) for s, k in zip(shares[i], split, strict=True))
                options.append((split, ways))
        per_rank.append(options)
    totals: Counter[str | None] = Counter()
    for choice in product(*per_rank):
        cards: list[Card] = []
        for i, (split, _) in enumerate(choice):
            for suit_index, k in enumerate(split):
                cards += [engine._CARDS[i][suit_index]] * k
        totals[classify(tuple(cards))] += prod(ways for _, ways in choice)
    return totals


HANDS = [
    symbols_of(A=1, r2=1, r3=1, r4=1, r5=1),          # wheel: straight and flush readings
    symbols_of(r2=1, r3=1, r4=1, r5=1, r9=1, KD=1),   # KD wild among six cards
    symbols_of(A=2, K=2, Q=1, r2=2),                  # ties at the cut
    symbols_of(A=1, r2=1, r3=1, r4=1, r5=1, r6=1, r7=1, KD=1),
    symbols_of(r9=2, r8=2, r7=1, KD=2),               # two KD
    symbols_of(r2=10),                                # two suits can each hold five
    symbols_of(r3=2, r4=1),                           # fewer than five: suits never matter
]


@pytest.mark.parametrize("decks", [6, 8])
@pytest.mark.parametrize("symbols", HANDS)
def test_suit_classes_partition_equals_every_suit_assignment(symbols: tuple[int, ...],
                                                             decks: int) -> None:
    pools = (4 * decks,) * 12 + (3 * decks, decks)
    shares = tuple(engine._suit_shares(i, decks) for i in range(14))
    partitioned: Counter[str | None] = Counter()
    for cards, ways in engine._suit_classes(symbols, pools, shares):
        assert ways > 0
        partitioned[classify(cards)] += ways
    assert partitioned == every_assignment(symbols, decks)


def test_top_region_keeps_the_cut_rank_and_every_kd() -> None:
    region = engine._top_region(symbols_of(A=2, K=2, Q=1, r2=2, KD=1))
    assert [i for i, kept in enumerate(region) if kept] == [0, 11, 12, 13]


def test_axman_sheet_is_exact_and_priced_with_the_kd_multiplier(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["axman", "--decks", "6", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["estimate"] is False
    assert data["soft17"] == "stand"
    assert sum(Fraction(line["exact"]) for line in data["lines"]) == 1
    pays = {line["name"]: line["pays"] for line in data["lines"]}
    assert pays["straight flush"] == "1000:1"
    assert pays["straight flush, one KD in player's two cards"] == "2000:1"
    assert pays["jacks or better, two KD in player's two cards"] == "25:1"
    # The whole sheet against a second, exact count over the cards that shares no code with
    # controller/ (tests/oracle/axman_edge.py): 923651030491742346699189/5520252336004021922906600
    # = 16.732%.
    assert Fraction(data["house_edge_exact"]) == axman_house_edge(6)


def test_kd_multiplier_chances_follow_the_cards_the_dealer_left() -> None:
    counts: dict[tuple[str | None, int, int], int] = {}
    engine._add_player(counts, "flush", 1, 5, 1, 6)  # dealer holds one of the six KD
    left, kings = 312 - 5, 5
    assert counts[("flush", 2, 7)] == kings * (kings - 1)
    assert counts[("flush", 1, 7)] == 2 * kings * (left - kings)
    assert sum(v for (_, _, _), v in counts.items()) == falling(left, 2)
