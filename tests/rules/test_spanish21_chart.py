"""The Spanish 21 charts against the best move, by expected value over a 48-card deck."""

import re
from functools import cache

import pytest

from controller.rules import strategy
from controller.rules.strategy import SPANISH21_RESCUE

from .spanish21_ev import BUST, cell_losses, dealer_distribution, overall_ev, rescue_cells

DEALERS = [pytest.param(False, id="S17"), pytest.param(True, id="H17")]
# The strategy module's docstring quotes the charts' returns and their gap to optimal play.
DOCSTRING = re.compile(
    r"(-\d+\.\d\d)% \(S17\) and (-\d+\.\d\d)% \(H17\), within (\d\.\d+) points")


@pytest.mark.parametrize("h17", DEALERS)
def test_no_chart_cell_loses_more_than_half_a_cent(h17: bool) -> None:
    rows = cell_losses(h17)
    assert len(rows) == 33 * 10  # hard 5-19, soft 13-20, ten pairs; every up card
    assert min(row.loss for row in rows) >= -1e-12
    worst = [row for row in rows if row.loss > 0.005]
    assert worst == []


@pytest.mark.parametrize(("h17", "chart_percent"), [(False, -0.90), (True, -1.32)])
def test_chart_return_is_within_a_tenth_of_a_point_of_optimal(h17: bool,
                                                              chart_percent: float) -> None:
    chart, optimal = overall_ev(h17, chart=True), overall_ev(h17, chart=False)
    assert 0 < optimal - chart < 0.001
    assert round(100 * chart, 2) == chart_percent


def test_strategy_docstring_quotes_the_computed_returns() -> None:
    match = DOCSTRING.search(" ".join((strategy.__doc__ or "").split()))
    assert match is not None
    s17, h17, within = (float(group) for group in match.groups())
    assert round(100 * overall_ev(False, chart=True), 2) == s17
    assert round(100 * overall_ev(True, chart=True), 2) == h17
    for dealer_h17 in (False, True):
        gap = overall_ev(dealer_h17, chart=False) - overall_ev(dealer_h17, chart=True)
        assert round(100 * gap, 2) <= within


@pytest.mark.parametrize("h17", DEALERS)
def test_rescue_cells_are_where_standing_is_worth_less_than_the_rescue(h17: bool) -> None:
    assert rescue_cells(h17) == SPANISH21_RESCUE


@cache
def _brute_force_dealer_bust(hard: int, ace: bool) -> float:
    """Dealer bust chance from a hand, S17, drawing from 12 equally likely ranks A-9 J Q K."""
    soft_total = hard + 10 if ace and hard + 10 <= 21 else hard
    if hard > 21:
        return 1.0
    if soft_total >= 17:
        return 0.0
    ranks = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10]
    return sum(_brute_force_dealer_bust(hard + r, ace or r == 1) for r in ranks) / len(ranks)


def test_dealer_six_bust_matches_a_separate_recursion() -> None:
    bust = dealer_distribution(6, h17=False)[BUST]
    assert bust == pytest.approx(_brute_force_dealer_bust(6, ace=False), abs=1e-12)
    assert bust == pytest.approx(0.3838, abs=5e-5)
    assert sum(dealer_distribution(6, h17=False).values()) == pytest.approx(1.0, abs=1e-12)


def test_optimal_s17_return_is_pinned() -> None:
    assert 100 * overall_ev(False, chart=False) == pytest.approx(-0.852, abs=0.001)
    assert 100 * overall_ev(True, chart=False) == pytest.approx(-1.264, abs=0.001)
