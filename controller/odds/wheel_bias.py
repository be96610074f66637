"""The wheel's record: the result board's figures and the wheel-bias monitor, from its numbers.

Pure functions over the decided numbers (void games are no results). The board's percentages
are whole numbers rounded down, over the window given; 0 and 00 are green and in no other
group. The bias monitor is Pearson's goodness-of-fit test against a fair wheel: N spins over
k pockets, O_i hits each, E = N/k, chi-square = sum (O_i - E)^2 / E (computed exactly, as a
fraction), k - 1 degrees of freedom. Its p-value is the chi-square distribution's upper tail,
computed in closed form (no numerical library): for an even number of degrees of freedom
2m, Q = e^(-y) * sum_{i<m} y^i / i!; for an odd number 2m + 1,
Q = erfc(sqrt(y)) + e^(-y) * sum_{i<m} y^(i+1/2) / Gamma(i + 3/2), with y = chi-square / 2;
the terms are summed in logarithms, so a large statistic underflows to 0 rather than
overflowing. The test rests on at least 5 expected hits a pocket (N >= 5k); below that the
report says so (`enough` false).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from controller.rules.roulette import NUMBERS, RED, Wheel, colour

LAST_SHOWN: Final = 20
"""The numbers the board shows, newest first."""
HOT_COLD: Final = 4
"""Hot and cold numbers shown, each."""
MIN_EXPECTED: Final = 5
"""Expected hits a pocket the chi-square test needs."""


def chi_square(counts: Sequence[int]) -> Fraction:
    """Pearson's statistic of `counts` (hits per pocket) against equal chances, exactly.

    Raises:
        ValueError: No pockets, or no spins.
    """
    spins, pockets = sum(counts), len(counts)
    if not pockets or not spins:
        raise ValueError("the chi-square needs pockets and spins")
    expected = Fraction(spins, pockets)
    return sum((Fraction(count) - expected) ** 2 / expected for count in counts) or Fraction(0)


def chi_square_upper_tail(statistic: float, degrees: int) -> float:
    """P(X >= statistic) for X chi-square distributed with `degrees` degrees of freedom.

    Raises:
        ValueError: `degrees` below 1 or a negative statistic.
    """
    if degrees < 1 or statistic < 0:
        raise ValueError(f"chi-square tail of {statistic} with {degrees} degrees of freedom")
    if statistic == 0:
        return 1.0
    y = statistic / 2
    half, odd = divmod(degrees, 2)
    log_y = math.log(y)
    if odd:
        terms = (-y + (i + 0.5) * log_y - math.lgamma(i + 1.5) for i in range(half))
        tail = math.erfc(math.sqrt(y)) + sum(math.exp(t) for t in terms)
    else:
        terms = (-y + i * log_y - math.lgamma(i + 1) for i in range(half))
        tail = sum(math.exp(t) for t in terms)
    return min(1.0, max(0.0, tail))


@dataclass(frozen=True, slots=True)
class BiasReport:
    """The wheel-bias monitor over the last `spins` spins.

    Attributes:
        spins: The decided spins the test rests on.
        window: The most spins it looks back over (`[rules.roulette] bias_spins`).
        pockets: The wheel's pockets (k).
        degrees: k - 1.
        chi_square: The statistic (None with no spins).
        chi_square_exact: The same as `numerator/denominator`.
        p_value: The chance a fair wheel gives a statistic this large or larger.
        enough: At least 5 expected hits a pocket (N >= 5k).
        needed: The spins `enough` needs.
        extreme: The pocket furthest from its expected count, and its z score.
    """

    spins: int
    window: int
    pockets: int
    degrees: int
    chi_square: float | None
    chi_square_exact: str | None
    p_value: float | None
    enough: bool
    needed: int
    extreme: tuple[str, float] | None


def bias_report(numbers: Sequence[str], wheel: Wheel, window: int) -> BiasReport:
    """The chi-square test of the last `window` of `numbers` against a fair `wheel`."""
    recent = list(numbers)[-window:] if window else []
    pockets = wheel.pockets
    needed = MIN_EXPECTED * len(pockets)
    if not recent:
        return BiasReport(0, window, len(pockets), len(pockets) - 1, None, None, None, False,
                          needed, None)
    seen = Counter(recent)
    counts = [seen.get(p, 0) for p in pockets]
    statistic = chi_square(counts)
    spins, share = len(recent), Fraction(1, len(pockets))
    spread = math.sqrt(spins * share * (1 - share))
    scores = [(p, (seen.get(p, 0) - spins * share) / spread) for p in pockets]
    extreme = max(scores, key=lambda item: (abs(item[1]), -pockets.index(item[0])))
    return BiasReport(spins, window, len(pockets), len(pockets) - 1, float(statistic),
                      f"{statistic.numerator}/{statistic.denominator}",
                      chi_square_upper_tail(float(statistic), len(pockets) - 1),
                      spins >= needed, needed, (extreme[0], round(float(extreme[1]), 3)))


_GROUPS: Final = {
    "red": RED, "black": frozenset(NUMBERS) - RED, "green": frozenset({"0", "00"}),
    "odd": frozenset(n for n in NUMBERS if int(n) % 2), "even": frozenset(
        n for n in NUMBERS if not int(n) % 2),
    "low": frozenset(n for n in NUMBERS if int(n) <= 18),
    "high": frozenset(n for n in NUMBERS if int(n) >= 19),
    "dozen1": frozenset(n for n in NUMBERS if int(n) <= 12),
    "dozen2": frozenset(n for n in NUMBERS if 13 <= int(n) <= 24),
    "dozen3": frozenset(n for n in NUMBERS if int(n) >= 25),
}
"""The board's groups; 0 and 00 are green and in no other."""


@dataclass(frozen=True, slots=True)
class BoardFigures:
    """The result board's figures over the last `spins` spins.

    Attributes:
        last: The last 20 numbers, newest first, each with its colour.
        spins: The spins the percentages and hot and cold numbers are over.
        window: The most spins they look back over (`[rules.roulette] board_spins`).
        percent: Each group's share, a whole percent rounded down.
        counts: Each group's hits.
        hot: The 4 most frequent numbers with their hits (ties: the lower pocket first).
        cold: The 4 least frequent, the never seen included.
    """

    last: tuple[tuple[str, str], ...]
    spins: int
    window: int
    percent: dict[str, int]
    counts: dict[str, int]
    hot: tuple[tuple[str, int], ...]
    cold: tuple[tuple[str, int], ...]


def board_figures(numbers: Sequence[str], wheel: Wheel, window: int) -> BoardFigures:
    """The board's figures from the decided numbers, oldest first."""
    recent = list(numbers)[-window:]
    last = tuple((n, colour(n)) for n in reversed(list(numbers)[-LAST_SHOWN:]))
    counts = {name: sum(1 for n in recent if n in group) for name, group in _GROUPS.items()}
    spins = len(recent)
    percent = {name: (100 * count // spins if spins else 0) for name, count in counts.items()}
    seen = Counter(recent)
    order = {p: i for i, p in enumerate(wheel.pockets)}
    ranked = sorted(wheel.pockets, key=lambda p: (-seen.get(p, 0), order[p]))
    hot = tuple((p, seen[p]) for p in ranked if seen.get(p, 0))[:HOT_COLD]
    cold_rank = sorted(wheel.pockets, key=lambda p: (seen.get(p, 0), order[p]))
    cold = tuple((p, seen.get(p, 0)) for p in cold_rank)[:HOT_COLD] if spins else ()
    return BoardFigures(last, spins, window, percent, counts, hot, cold)
