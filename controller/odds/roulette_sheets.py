"""Roulette par sheets: one spin of a fair wheel, by exact count of the pockets.

Each bet's sheet has two lines: the spot holds the winning number (the bet's pockets out of
the wheel's, paid at the pay table's odds) or it does not (the wager is lost; 0 and 00 lose
every outside bet). The house edge is exact: on a double-zero wheel 2/38 = 1/19 (5.26%) for
every bet but the five-number bet, 1 - 5 x 7/38 = 3/38 (7.89%); on a single-zero wheel 1/37
(2.70%). The sheet is the same for every spot of a bet: all of them cover as many pockets.
"""

from __future__ import annotations

from fractions import Fraction

from controller.odds.parsheet import LOSES, ParLine, ParSheet, exact_text, odds_payout
from controller.rules.roulette import RouletteBet, RoulettePays, Wheel, covered, spots

METHOD = "exact count of pockets (fractions.Fraction): one spin of a fair wheel"


def roulette_sheet(bet: RouletteBet, wheel: Wheel, pays: RoulettePays) -> ParSheet:
    """The par sheet of `bet` on `wheel` at the pay table's odds.

    Raises:
        ValueError: `wheel` has no such bet (the five-number bet on a single-zero wheel); the
            caller names the option.
    """
    if not spots(bet, wheel):
        raise ValueError(f"the {wheel.label} has no {bet} bet")
    pockets = len(wheel.pockets)
    hits = covered(bet)
    win = Fraction(hits, pockets)
    odds = pays.odds(bet)
    lines = (ParLine(f"win ({hits} of {pockets} pockets)", odds_payout(odds), win),
             ParLine("loses", LOSES, 1 - win))
    return ParSheet(
        bet=f"roulette-{bet}", decks=None, lines=lines, setting=wheel.label,
        extras={"wheel": wheel.value, "pockets": pockets, "covers": hits,
                "method": METHOD, "win_exact": exact_text(win)},
        notes=(_note(bet, wheel),),
    )


def _note(bet: RouletteBet, wheel: Wheel) -> str:
    zeros = "0 and 00 lose" if wheel is Wheel.DOUBLE else "0 loses"
    if bet.inside or bet is RouletteBet.FIVE_NUMBER:
        many = covered(bet)
        return (f"every spot of a {bet} bet covers {many} pocket{'s' if many > 1 else ''}: "
                "one sheet for all")
    return f"{zeros} every outside bet"
