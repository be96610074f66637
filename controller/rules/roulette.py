"""Roulette: the wheel, the layout's bets and their settlement, over integer cents.

A pocket is named as the wheel and the console write it: `"0"`, `"00"` (double zero only) or
`"1"`..`"36"`, always a string (`int("00")` would merge 0 and 00). The layout is the usual one:
numbers 1-36 in twelve rows of three (row 1 is 1 2 3), columns 1-3 from the zero end (column 1
is 1, 4, ... 34), the zero (and double zero) above row 1.

Every bet is a *spot*: the set of pockets it covers. A wager names its bet and, for the inside
bets, the numbers it covers (a split `["17", "20"]`, a corner `["1", "2", "4", "5"]`, in any
order); a column or a dozen names which one (1-3); the even-money bets need neither. `spot_for`
refuses any spot the layout does not have, naming it. Settlement (`settle_spin`) pays a wager
whose spot holds the winning number at its odds (`Odds.winnings`, rounded down; the pays are
whole numbers to 1, so nothing is rounded) and takes every other: 0 and 00 lose every outside
bet (RULES.md, "Roulette"). The losing wagers are cleared before the winners are paid: the
settlement lists both, in that order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from controller.rules.errors import RulesError
from controller.rules.money import Odds
from controller.rules.reader import SectionReader

NUMBERS: Final = tuple(str(n) for n in range(1, 37))
"""The numbered pockets 1-36, in layout order."""
RED: Final = frozenset(str(n) for n in (1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30,
                                         32, 34, 36))
"""The red numbers; the other numbers are black, 0 and 00 green."""


class Wheel(StrEnum):
    """The wheel and its layout: double zero (38 pockets) or single zero (37)."""

    DOUBLE = "double"
    SINGLE = "single"

    @property
    def pockets(self) -> tuple[str, ...]:
        """Every pocket, zeros first: `("0", "00", "1", ... "36")` on a double-zero wheel."""
        zeros = ("0", "00") if self is Wheel.DOUBLE else ("0",)
        return (*zeros, *NUMBERS)

    @property
    def label(self) -> str:
        """`double-zero wheel (38 pockets)`."""
        name = "double-zero" if self is Wheel.DOUBLE else "single-zero"
        return f"{name} wheel ({len(self.pockets)} pockets)"


class RouletteBet(StrEnum):
    """Every bet of the layout (the seed's table)."""

    STRAIGHT = "straight"
    SPLIT = "split"
    STREET = "street"
    CORNER = "corner"
    FIVE_NUMBER = "five-number"
    SIX_LINE = "six-line"
    COLUMN = "column"
    DOZEN = "dozen"
    RED = "red"
    BLACK = "black"
    ODD = "odd"
    EVEN = "even"
    LOW = "low"
    HIGH = "high"

    @property
    def key(self) -> str:
        """The pay table key: `five_number`, `six_line`, `straight`..."""
        return self.value.replace("-", "_")

    @property
    def inside(self) -> bool:
        """True for the bets that name the numbers they cover."""
        return self in _INSIDE


_INSIDE: Final = frozenset({RouletteBet.STRAIGHT, RouletteBet.SPLIT, RouletteBet.STREET,
                            RouletteBet.CORNER, RouletteBet.SIX_LINE})
_CHOSEN: Final = frozenset({RouletteBet.COLUMN, RouletteBet.DOZEN})
"""Bets that name which of three they are."""


@dataclass(frozen=True, slots=True)
class RoulettePays:
    """`[paytables.roulette]`: the odds to 1 of every bet (the seed's table by default)."""

    straight: Odds = Odds(35)
    split: Odds = Odds(17)
    street: Odds = Odds(11)
    corner: Odds = Odds(8)
    five_number: Odds = Odds(6)
    six_line: Odds = Odds(5)
    column: Odds = Odds(2)
    dozen: Odds = Odds(2)
    red: Odds = Odds(1)
    black: Odds = Odds(1)
    odd: Odds = Odds(1)
    even: Odds = Odds(1)
    low: Odds = Odds(1)
    high: Odds = Odds(1)

    def odds(self, bet: RouletteBet) -> Odds:
        """The odds `bet` pays."""
        odds: Odds = getattr(self, bet.key)
        return odds


def pocket(text: str, wheel: Wheel) -> str:
    """A pocket of `wheel` as written (`"0"`, `"00"`, `"1"`..`"36"`).

    Raises:
        RulesError: Not a pocket of this wheel (`"07"`, `"37"`, `"00"` on a single zero).
    """
    if text not in wheel.pockets:
        extra = " (a single-zero wheel has no 00)" if text == "00" else ""
        raise RulesError(f"{text!r} is not a pocket of the {wheel.label}{extra}")
    return text


def colour(number: str) -> str:
    """`red`, `black` or `green` (0 and 00)."""
    if number in ("0", "00"):
        return "green"
    return "red" if number in RED else "black"


def _row(first: int) -> frozenset[str]:
    return frozenset(str(n) for n in range(first, first + 3))


def _numbers(*values: int | str) -> frozenset[str]:
    return frozenset(str(v) for v in values)


def _splits(wheel: Wheel) -> list[frozenset[str]]:
    across = [_numbers(n, n + 1) for n in range(1, 37) if n % 3 != 0]
    down = [_numbers(n, n + 3) for n in range(1, 34)]
    zeros = ([_numbers(0, 1), _numbers(0, 2), _numbers("00", 2), _numbers("00", 3),
              _numbers(0, "00")] if wheel is Wheel.DOUBLE
             else [_numbers(0, 1), _numbers(0, 2), _numbers(0, 3)])
    return [*zeros, *across, *down]


def _streets(wheel: Wheel) -> list[frozenset[str]]:
    trios = ([_numbers(0, 1, 2), _numbers(0, "00", 2), _numbers("00", 2, 3)]
             if wheel is Wheel.DOUBLE else [_numbers(0, 1, 2), _numbers(0, 2, 3)])
    return [*trios, *(_row(first) for first in range(1, 37, 3))]


def _corners(wheel: Wheel) -> list[frozenset[str]]:
    squares = [_numbers(n, n + 1, n + 3, n + 4) for n in range(1, 33) if n % 3 != 0]
    return ([_numbers(0, 1, 2, 3)] if wheel is Wheel.SINGLE else []) + squares


def _even_money(bet: RouletteBet) -> frozenset[str]:
    numbers = range(1, 37)
    chosen = {RouletteBet.RED: [n for n in numbers if str(n) in RED],
              RouletteBet.BLACK: [n for n in numbers if str(n) not in RED],
              RouletteBet.ODD: [n for n in numbers if n % 2 == 1],
              RouletteBet.EVEN: [n for n in numbers if n % 2 == 0],
              RouletteBet.LOW: [n for n in numbers if n <= 18],
              RouletteBet.HIGH: [n for n in numbers if n >= 19]}[bet]
    return frozenset(str(n) for n in chosen)


def column(which: int) -> frozenset[str]:
    """Column 1, 2 or 3 (column 1 holds 1, 4, ... 34)."""
    return frozenset(str(n) for n in range(which, 37, 3))


def dozen(which: int) -> frozenset[str]:
    """Dozen 1 (1-12), 2 (13-24) or 3 (25-36)."""
    return frozenset(str(n) for n in range(12 * which - 11, 12 * which + 1))


def spots(bet: RouletteBet, wheel: Wheel) -> tuple[frozenset[str], ...]:
    """Every spot of `bet` on the layout of `wheel` (none: the wheel has no such bet)."""
    found: list[frozenset[str]]
    if bet is RouletteBet.STRAIGHT:
        found = [frozenset({p}) for p in wheel.pockets]
    elif bet is RouletteBet.SPLIT:
        found = _splits(wheel)
    elif bet is RouletteBet.STREET:
        found = _streets(wheel)
    elif bet is RouletteBet.CORNER:
        found = _corners(wheel)
    elif bet is RouletteBet.FIVE_NUMBER:
        found = [_numbers(0, "00", 1, 2, 3)] if wheel is Wheel.DOUBLE else []
    elif bet is RouletteBet.SIX_LINE:
        found = [_row(first) | _row(first + 3) for first in range(1, 32, 3)]
    elif bet is RouletteBet.COLUMN:
        found = [column(which) for which in (1, 2, 3)]
    elif bet is RouletteBet.DOZEN:
        found = [dozen(which) for which in (1, 2, 3)]
    else:
        found = [_even_money(bet)]
    return tuple(found)


def covered(bet: RouletteBet) -> int:
    """How many pockets one spot of `bet` covers (the same for every spot of a bet)."""
    return _COVERS[bet]


_COVERS: Final = {RouletteBet.STRAIGHT: 1, RouletteBet.SPLIT: 2, RouletteBet.STREET: 3,
                  RouletteBet.CORNER: 4, RouletteBet.FIVE_NUMBER: 5, RouletteBet.SIX_LINE: 6,
                  RouletteBet.COLUMN: 12, RouletteBet.DOZEN: 12, RouletteBet.RED: 18,
                  RouletteBet.BLACK: 18, RouletteBet.ODD: 18, RouletteBet.EVEN: 18,
                  RouletteBet.LOW: 18, RouletteBet.HIGH: 18}


def in_wheel_order(numbers: Iterable[str]) -> tuple[str, ...]:
    """`numbers` sorted as the layout lists them: 0, 00, then 1-36."""
    order = {p: i for i, p in enumerate(Wheel.DOUBLE.pockets)}
    return tuple(sorted(numbers, key=lambda p: order.get(p, len(order))))


def spot_for(bet: str, wheel: Wheel, numbers: Sequence[str] = (),
             which: int | None = None) -> frozenset[str]:
    """The spot a wager names: `bet` with its numbers (inside bets) or `which` (1-3).

    Raises:
        RulesError: An unknown bet, numbers or `which` where the bet takes none, or a spot the
            layout of `wheel` does not have (named).
    """
    try:
        kind = RouletteBet(bet)
    except ValueError:
        known = ", ".join(b.value for b in RouletteBet)
        raise RulesError(f"unknown roulette bet {bet!r} (bets: {known})") from None
    if kind in _CHOSEN:
        return _chosen_spot(kind, numbers, which)
    if which is not None:
        raise RulesError(f"{kind}: `which` is only for a column or a dozen")
    if kind not in _INSIDE:
        return _fixed_spot(kind, wheel, numbers)
    wanted = frozenset(pocket(str(n), wheel) for n in numbers)
    if len(wanted) != len(numbers) or wanted not in spots(kind, wheel):
        shown = "-".join(numbers) or "no numbers"
        raise RulesError(f"{kind} {shown}: no such spot on the {wheel.label} layout (a "
                         f"{kind} covers {covered(kind)} adjacent numbers)")
    return wanted


def _chosen_spot(kind: RouletteBet, numbers: Sequence[str], which: int | None) -> frozenset[str]:
    if numbers:
        raise RulesError(f"{kind}: name it with `which` (1, 2 or 3), not with numbers")
    if which not in (1, 2, 3):
        raise RulesError(f"{kind}: `which` must be 1, 2 or 3, got {which!r}")
    return column(which) if kind is RouletteBet.COLUMN else dozen(which)


def _fixed_spot(kind: RouletteBet, wheel: Wheel, numbers: Sequence[str]) -> frozenset[str]:
    """The one spot of the five-number and the even-money bets (numbers, if given, must be it)."""
    found = spots(kind, wheel)
    if not found:
        raise RulesError(f"{kind}: the {wheel.label} has no such bet (the five-number bet is "
                         "0-00-1-2-3, on a double-zero wheel only)")
    if numbers and frozenset(numbers) != found[0]:
        raise RulesError(f"{kind} covers {'-'.join(in_wheel_order(found[0]))}, not "
                         f"{'-'.join(numbers)}; give no numbers")
    return found[0]


@dataclass(frozen=True, slots=True)
class RouletteWager:
    """One wager on the layout.

    Attributes:
        seat: The player's seat (each player's chips have their own colour).
        bet: The bet.
        spot: The pockets it covers.
        cents: The amount wagered.
    """

    seat: int
    bet: RouletteBet
    spot: frozenset[str]
    cents: int

    def __post_init__(self) -> None:
        if self.cents <= 0:
            raise RulesError(f"seat {self.seat} {self.bet}: a wager is at least 1 cent, "
                             f"got {self.cents}")

    @property
    def numbers(self) -> tuple[str, ...]:
        """The covered pockets, in layout order."""
        return in_wheel_order(self.spot)

    def describe(self) -> str:
        """`split 17-20`, `column 2`, `red`: how the dealer names the wager."""
        if self.bet in _INSIDE:
            return f"{self.bet} {'-'.join(self.numbers)}"
        if self.bet is RouletteBet.COLUMN:
            return f"column {int(min(self.spot, key=int))}"
        if self.bet is RouletteBet.DOZEN:
            return f"dozen {(int(min(self.spot, key=int)) + 11) // 12}"
        return str(self.bet)


@dataclass(frozen=True, slots=True)
class WagerResult:
    """A settled wager: won or lost, and its net (what it pays, or minus the wager)."""

    wager: RouletteWager
    won: bool
    net: int


@dataclass(frozen=True, slots=True)
class SpinSettlement:
    """The settlement of one spin: the losers (cleared first), then the winners (paid)."""

    number: str
    losers: tuple[WagerResult, ...]
    winners: tuple[WagerResult, ...]

    @property
    def net(self) -> int:
        """The players' net over every wager (the house's is its negative)."""
        return sum(r.net for r in (*self.losers, *self.winners))


def settle_spin(wagers: Iterable[RouletteWager], number: str, wheel: Wheel,
                pays: RoulettePays) -> SpinSettlement:
    """Settle every wager on `number`: a spot holding it pays its odds, every other loses.

    Raises:
        RulesError: `number` is not a pocket of `wheel`.
    """
    pocket(number, wheel)
    losers, winners = [], []
    for wager in wagers:
        if number in wager.spot:
            winners.append(WagerResult(wager, True, pays.odds(wager.bet).winnings(wager.cents)))
        else:
            losers.append(WagerResult(wager, False, -wager.cents))
    return SpinSettlement(number, tuple(losers), tuple(winners))


MAX_HISTORY: Final = 5000
"""The most spins the board and the bias monitor may look back over (kept in the critical
state, so a restart resumes the same history)."""


@dataclass(frozen=True, slots=True)
class RouletteRules:
    """`[rules.roulette]`: the wheel, and the windows of the result board and bias monitor.

    Attributes:
        wheel: `double` (0, 00, 1-36) or `single` (0, 1-36); the layout follows it.
        board_spins: The result board's percentages and hot and cold numbers are over the
            last this many spins (void spins are no spins).
        bias_spins: The wheel-bias monitor's chi-square is over the last this many spins.
    """

    wheel: Wheel = Wheel.DOUBLE
    board_spins: int = 100
    bias_spins: int = 1000

    @property
    def history(self) -> int:
        """How many results the table keeps: the longer of the two windows."""
        return max(self.board_spins, self.bias_spins)


def roulette_rules_from_mapping(data: object) -> RouletteRules:
    """Validate `[rules.roulette]`.

    Raises:
        ConfigError: An unknown key, a wheel that is neither `double` nor `single`, or a
            window outside its range (naming the key).
    """
    reader = SectionReader("rules.roulette", data)
    defaults = RouletteRules()
    wheel = Wheel(reader.text("wheel", defaults.wheel.value, [w.value for w in Wheel]))
    least = 5 * len(wheel.pockets)  # the chi-square wants 5 expected hits a pocket
    rules = RouletteRules(
        wheel=wheel,
        board_spins=reader.integer("board_spins", defaults.board_spins, minimum=20,
                                   maximum=MAX_HISTORY),
        bias_spins=reader.integer("bias_spins", defaults.bias_spins, minimum=least,
                                  maximum=MAX_HISTORY))
    reader.finish()
    return rules
