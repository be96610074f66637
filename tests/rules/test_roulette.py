"""Roulette settlement: every bet of the layout, on every number, both wheels, integer cents.

The layout is checked against this test's own drawing of it (rows and columns, the zeros
above row 1), not against the rules' code; the pays against the seed's table; the house edge
of every spot against the exact fraction the customer gave (5.26% on double zero, 7.89% for
the five-number bet, 2.70% on single zero), by settling a wager on each pocket in turn.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.errors import RulesError
from controller.rules.money import Odds
from controller.rules.roulette import (
    RED,
    RouletteBet,
    RoulettePays,
    RouletteWager,
    Wheel,
    colour,
    covered,
    settle_spin,
    spot_for,
    spots,
)

SEED_PAYS = {"straight": 35, "split": 17, "street": 11, "corner": 8, "five-number": 6,
             "six-line": 5, "column": 2, "dozen": 2, "red": 1, "black": 1, "odd": 1, "even": 1,
             "low": 1, "high": 1}
"""The seed's table (RULES.md, "Roulette")."""

SEED_RED = {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36}


def cell(n: int) -> tuple[int, int]:
    """Row 0-11 from the zero end, column 0-2 (1 2 3 is row 0)."""
    return (n - 1) // 3, (n - 1) % 3


ZERO_NEIGHBOURS = {
    Wheel.DOUBLE: {"0": {"1", "2", "00"}, "00": {"2", "3", "0"}},
    Wheel.SINGLE: {"0": {"1", "2", "3"}},
}
"""Which numbers touch the zeros on each layout (the zeros sit above row 1)."""


def adjacent(a: str, b: str, wheel: Wheel) -> bool:
    zeros = ZERO_NEIGHBOURS[wheel]
    if a in zeros or b in zeros:
        return b in zeros.get(a, set()) or a in zeros.get(b, set())
    (ra, ca), (rb, cb) = cell(int(a)), cell(int(b))
    return abs(ra - rb) + abs(ca - cb) == 1


def expected_splits(wheel: Wheel) -> set[frozenset[str]]:
    return {frozenset(p) for p in combinations(wheel.pockets, 2) if adjacent(*p, wheel)}


def expected_rows() -> list[frozenset[str]]:
    return [frozenset(str(n) for n in range(1, 37) if cell(n)[0] == row) for row in range(12)]


def test_the_layout_has_every_split_and_no_other() -> None:
    for wheel in Wheel:
        assert set(spots(RouletteBet.SPLIT, wheel)) == expected_splits(wheel)
    assert len(spots(RouletteBet.SPLIT, Wheel.DOUBLE)) == 24 + 33 + 5


def test_streets_six_lines_and_corners_follow_the_rows() -> None:
    rows = expected_rows()
    trios = {Wheel.DOUBLE: [{"0", "1", "2"}, {"0", "00", "2"}, {"00", "2", "3"}],
             Wheel.SINGLE: [{"0", "1", "2"}, {"0", "2", "3"}]}
    for wheel in Wheel:
        assert set(spots(RouletteBet.STREET, wheel)) == set(rows) | {frozenset(t)
                                                                    for t in trios[wheel]}
        assert set(spots(RouletteBet.SIX_LINE, wheel)) == {a | b for a, b in pairwise(rows)}
        squares = {frozenset(str(n) for n in range(1, 37)
                             if cell(n) in {(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)})
                   for r in range(11) for c in range(2)}
        first_four = {frozenset({"0", "1", "2", "3"})} if wheel is Wheel.SINGLE else set()
        assert set(spots(RouletteBet.CORNER, wheel)) == squares | first_four
    assert len(spots(RouletteBet.CORNER, Wheel.DOUBLE)) == 22


def test_outside_bets_cover_their_numbers_and_never_a_zero() -> None:
    columns = [frozenset(str(n) for n in range(1, 37) if cell(n)[1] == c) for c in range(3)]
    dozens = [frozenset(str(n) for n in range(12 * d + 1, 12 * d + 13)) for d in range(3)]
    expected = {
        RouletteBet.COLUMN: columns, RouletteBet.DOZEN: dozens,
        RouletteBet.RED: [frozenset(str(n) for n in SEED_RED)],
        RouletteBet.BLACK: [frozenset(str(n) for n in range(1, 37) if n not in SEED_RED)],
        RouletteBet.ODD: [frozenset(str(n) for n in range(1, 37, 2))],
        RouletteBet.EVEN: [frozenset(str(n) for n in range(2, 37, 2))],
        RouletteBet.LOW: [frozenset(str(n) for n in range(1, 19))],
        RouletteBet.HIGH: [frozenset(str(n) for n in range(19, 37))],
    }
    for wheel in Wheel:
        for bet, found in expected.items():
            assert list(spots(bet, wheel)) == found, bet
    assert frozenset(str(n) for n in SEED_RED) == RED
    assert spots(RouletteBet.FIVE_NUMBER, Wheel.DOUBLE) == (frozenset({"0", "00", "1", "2",
                                                                        "3"}),)
    assert spots(RouletteBet.FIVE_NUMBER, Wheel.SINGLE) == ()


def test_the_pays_are_the_seeds_table() -> None:
    pays = RoulettePays()
    assert {bet.value: pays.odds(bet) for bet in RouletteBet} == {
        name: Odds(win) for name, win in SEED_PAYS.items()}


@pytest.mark.parametrize("wheel", list(Wheel))
@pytest.mark.parametrize("bet", list(RouletteBet))
def test_every_spot_settles_on_every_number(wheel: Wheel, bet: RouletteBet) -> None:
    pays = RoulettePays()
    for spot in spots(bet, wheel):
        wager = RouletteWager(1, bet, spot, 1000)
        for number in wheel.pockets:
            result = settle_spin([wager], number, wheel, pays)
            expected = 1000 * SEED_PAYS[bet.value] if number in spot else -1000
            assert result.net == expected, (bet, sorted(spot), number)
            assert len(result.winners) == (number in spot)
            if number in ("0", "00") and not bet.inside and bet is not RouletteBet.FIVE_NUMBER:
                assert result.winners == ()  # 0 and 00 lose every outside bet


@pytest.mark.parametrize("wheel", list(Wheel))
@pytest.mark.parametrize("bet", list(RouletteBet))
def test_the_house_edge_of_every_spot_is_the_customers_fraction(wheel: Wheel,
                                                                bet: RouletteBet) -> None:
    """The edge of one spin, from settling a 1-cent-per-unit wager on every pocket."""
    expected = (Fraction(3, 38) if bet is RouletteBet.FIVE_NUMBER else Fraction(2, 38)
                ) if wheel is Wheel.DOUBLE else Fraction(1, 37)
    pockets = wheel.pockets
    for spot in spots(bet, wheel):
        assert len(spot) == covered(bet)
        wager = RouletteWager(1, bet, spot, 100)
        total = sum(settle_spin([wager], n, wheel, RoulettePays()).net for n in pockets)
        assert -Fraction(total, 100 * len(pockets)) == expected
    assert round(float(expected) * 100, 2) in (5.26, 7.89, 2.70)


@given(st.lists(st.tuples(st.sampled_from(list(RouletteBet)), st.integers(0, 100),
                          st.integers(1, 10_000_00)), min_size=1, max_size=20),
       st.sampled_from(list(Wheel)), st.integers(0, 37))
def test_losers_come_before_winners_and_every_wager_is_settled_once(
        picks: list[tuple[RouletteBet, int, int]], wheel: Wheel, pick: int) -> None:
    wagers = []
    for seat, (bet, index, cents) in enumerate(picks, 1):
        choices = spots(bet, wheel)
        if choices:
            wagers.append(RouletteWager(seat, bet, choices[index % len(choices)], cents))
    number = wheel.pockets[pick % len(wheel.pockets)]
    settled = settle_spin(wagers, number, wheel, RoulettePays())
    assert sorted(r.wager.seat for r in (*settled.losers, *settled.winners)) == [
        w.seat for w in wagers]
    assert all(not r.won and r.net == -r.wager.cents for r in settled.losers)
    assert all(r.won and r.net == r.wager.cents * SEED_PAYS[r.wager.bet.value]
               for r in settled.winners)
    assert all(isinstance(r.net, int) for r in (*settled.losers, *settled.winners))


def test_a_pay_table_of_the_casinos_own_changes_what_is_paid() -> None:
    pays = RoulettePays(straight=Odds(30))
    spot = spot_for("straight", Wheel.DOUBLE, ["17"])
    result = settle_spin([RouletteWager(2, RouletteBet.STRAIGHT, spot, 500)], "17", Wheel.DOUBLE,
                         pays)
    assert result.net == 15000


@pytest.mark.parametrize(("bet", "numbers", "which", "wheel", "message"), [
    ("trio", [], None, Wheel.DOUBLE, "unknown roulette bet 'trio'"),
    ("split", ["17", "19"], None, Wheel.DOUBLE, "split 17-19: no such spot"),
    ("split", ["17", "17"], None, Wheel.DOUBLE, "split 17-17: no such spot"),
    ("split", ["3", "4"], None, Wheel.DOUBLE, "split 3-4: no such spot"),
    ("straight", ["00"], None, Wheel.SINGLE, "a single-zero wheel has no 00"),
    ("straight", ["07"], None, Wheel.DOUBLE, "'07' is not a pocket"),
    ("straight", ["37"], None, Wheel.DOUBLE, "'37' is not a pocket"),
    ("corner", ["0", "1", "2", "3"], None, Wheel.DOUBLE, "corner 0-1-2-3: no such spot"),
    ("five-number", [], None, Wheel.SINGLE, "has no such bet"),
    ("red", ["1"], None, Wheel.DOUBLE, "red covers 1-3-5"),
    ("column", ["1"], None, Wheel.DOUBLE, "name it with `which`"),
    ("dozen", [], 4, Wheel.DOUBLE, "`which` must be 1, 2 or 3, got 4"),
    ("straight", ["5"], 2, Wheel.DOUBLE, "`which` is only for a column or a dozen"),
])
def test_a_spot_the_layout_does_not_have_is_refused_naming_it(
        bet: str, numbers: list[str], which: int | None, wheel: Wheel, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        spot_for(bet, wheel, numbers, which)


def test_spots_are_named_the_way_the_dealer_says_them() -> None:
    named = {RouletteWager(1, RouletteBet(b), spot_for(b, Wheel.DOUBLE, n, w), 100).describe()
             for b, n, w in [("split", ["20", "17"], None), ("column", [], 2),
                             ("dozen", [], 3), ("red", [], None),
                             ("five-number", [], None)]}
    assert named == {"split 17-20", "column 2", "dozen 3", "red", "five-number"}


def test_no_wager_of_nothing_and_no_number_outside_the_wheel() -> None:
    with pytest.raises(RulesError, match="a wager is at least 1 cent"):
        RouletteWager(1, RouletteBet.RED, spots(RouletteBet.RED, Wheel.DOUBLE)[0], 0)
    with pytest.raises(RulesError, match="'00' is not a pocket"):
        settle_spin([], "00", Wheel.SINGLE, RoulettePays())
    assert [colour(n) for n in ("0", "00", "1", "2")] == ["green", "green", "red", "black"]
