"""The result board's figures and the wheel-bias monitor, from the decided numbers.

The chi-square p-value is computed in closed form (no numerical library); it is checked here
against the published critical values (df 36: 51.00 at 5%, 58.62 at 1%; df 37: 52.19, 59.89)
and against this test's own numerical integration of the chi-square density.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.odds.wheel_bias import (
    bias_report,
    board_figures,
    chi_square,
    chi_square_upper_tail,
)
from controller.rules.roulette import Wheel


def integrated_tail(x: float, degrees: int, steps: int = 20_000) -> float:
    """The density integrated from x to x + 600 by Simpson's rule (the test's own tail)."""
    k = degrees / 2
    log_norm = -k * math.log(2) - math.lgamma(k)

    def density(t: float) -> float:
        return math.exp(log_norm + (k - 1) * math.log(t) - t / 2)

    h = 600 / steps
    total = density(x) + density(x + 600) + sum((4 if i % 2 else 2) * density(x + i * h)
                                                for i in range(1, steps))
    return total * h / 3


@pytest.mark.parametrize(("x", "degrees", "tail"), [
    (51.00, 36, 0.05), (58.62, 36, 0.01), (52.19, 37, 0.05), (59.89, 37, 0.01),
    (3.841, 1, 0.05), (5.991, 2, 0.05), (7.815, 3, 0.05),
])
def test_the_critical_values_of_the_tables(x: float, degrees: int, tail: float) -> None:
    assert chi_square_upper_tail(x, degrees) == pytest.approx(tail, abs=2e-4)


@given(st.floats(0.5, 120.0), st.integers(3, 40))
def test_the_closed_form_is_the_integrated_density(x: float, degrees: int) -> None:
    assert chi_square_upper_tail(x, degrees) == pytest.approx(integrated_tail(x, degrees),
                                                              abs=1e-6)


def test_huge_statistics_underflow_to_zero_and_none_is_certain() -> None:
    assert chi_square_upper_tail(5000.0, 37) == 0.0
    assert chi_square_upper_tail(0.0, 37) == 1.0
    with pytest.raises(ValueError, match="degrees of freedom"):
        chi_square_upper_tail(1.0, 0)


def test_the_statistic_is_exact() -> None:
    counts = [3, 1, 0, 4]  # E = 2
    assert chi_square(counts) == Fraction(1 + 1 + 4 + 4, 2)
    assert chi_square([5] * 38) == 0
    with pytest.raises(ValueError, match="needs pockets and spins"):
        chi_square([0, 0])


def test_the_monitor_rests_on_the_window_and_says_when_it_is_not_enough() -> None:
    wheel = Wheel.DOUBLE
    fair = [wheel.pockets[n % 38] for n in range(380)]
    report = bias_report(["17"] * 100 + fair, wheel, 380)
    assert (report.spins, report.window, report.degrees, report.needed) == (380, 380, 37, 190)
    assert report.chi_square == 0.0  # the 100 older 17s are outside the window
    assert report.p_value == 1.0
    assert report.enough
    biased = bias_report(["17"] * 40 + fair[:140], wheel, 1000)
    assert biased.spins == 180
    assert not biased.enough  # 180 < 5 x 38
    assert biased.p_value is not None
    assert biased.p_value < 1e-10
    assert biased.extreme is not None
    assert biased.extreme[0] == "17"
    assert biased.extreme[1] > 3.2  # beyond the Bonferroni bound of the reference
    assert bias_report([], Wheel.SINGLE, 1000).p_value is None


def test_the_board_figures_round_down_and_leave_green_out_of_every_group() -> None:
    numbers = ["0", "00", "1", "2", "3", "19", "36"]
    figures = board_figures(numbers, Wheel.DOUBLE, 100)
    assert figures.last[0] == ("36", "red")
    assert [n for n, _ in figures.last] == list(reversed(numbers))
    assert figures.counts == {"red": 4, "black": 1, "green": 2, "odd": 3, "even": 2, "low": 3,
                              "high": 2, "dozen1": 3, "dozen2": 1, "dozen3": 1}
    assert figures.percent["red"] == 57  # 4/7 = 57.14...
    assert figures.percent["green"] == 28  # 2/7 = 28.57...: down, not to the nearest
    assert figures.hot[:2] == (("0", 1), ("00", 1))  # ties: the lower pocket first
    assert figures.cold[0] == ("4", 0)


def test_the_board_looks_back_only_over_its_window_and_shows_20() -> None:
    numbers = [str(n % 36 + 1) for n in range(150)]
    figures = board_figures(numbers, Wheel.SINGLE, 100)
    assert figures.spins == 100
    assert len(figures.last) == 20
    assert sum(h for _, h in figures.hot) == 12  # 100 spins over 36 numbers: 3, 3, 3, 3
    assert board_figures([], Wheel.SINGLE, 100).percent["red"] == 0
