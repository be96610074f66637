"""`shoectl odds BET`: the par sheet of a wager, computed exactly.

    shoectl odds BET [--decks N] [--paytable FILE] [--soft17 stand|hit] [--meter UNITS] [--json]
    shoectl odds roulette-NAME [--wheel double|single] [--paytable FILE] [--json]

Prints a table by default. With `--json`, prints one JSON object:
`{"bet", "decks", "lines": [{"name", "pays", "probability", "exact"}], "house_edge", ...}`
where the lines (the losing line included) sum to exactly 1, `exact` is the probability as
`numerator/denominator`, and `house_edge` is the house's expected gain per unit wagered
(0.0611 = 6.11%), or null where a house edge means nothing (dealer outcomes, card patterns).
A roulette sheet is the same object with `"decks": null` (no shoe), plus `wheel`
(`double`|`single`), `pockets` (38|37), `covers` (the pockets one spot of the bet covers) and
`win_exact`; its `method` names the exact count of pockets.
"""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from controller.odds.errors import OddsError
from controller.odds.paytable_file import apply_paytable, read_toml
from controller.odds.registry import BETS, Settings
from controller.rules.errors import ConfigError
from controller.rules.limits import SIGN_MAX_CENTS
from controller.rules.roulette import Wheel

log = logging.getLogger(__name__)


def build_parser() -> argparse.ArgumentParser:
    """The `shoectl odds` argument parser."""
    parser = argparse.ArgumentParser(
        prog="shoectl odds",
        description="Par sheet of a wager: the probability of every pay line and the house "
                    "edge, by exact enumeration of a shoe dealt without replacement (holdem-ante: "
                    "by a recorded simulation, with its 95% interval).",
        epilog="wagers:\n" + "\n".join(f"  {b.name:<28} {b.summary}" for b in BETS.values()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("bet", choices=list(BETS), metavar="BET", help="the wager (see below)")
    parser.add_argument("--decks", type=int, metavar="N",
                        help="decks in the shoe (default: the wager's usual count)")
    parser.add_argument("--paytable", type=Path, metavar="FILE",
                        help="TOML pay table, as the table file's [paytables.<bet>] section")
    parser.add_argument("--soft17", choices=("stand", "hit"),
                        help="dealer stands on (default) or hits soft 17: dealer-outcomes, axman")
    parser.add_argument("--meter", type=_units, metavar="UNITS",
                        help="Blazing 7's meter in units of its fixed wager (2000 = 2000 x 5.00;"
                             " default: the progressive reset amount)")
    parser.add_argument("--wheel", choices=[w.value for w in Wheel],
                        help="roulette wheel: double zero (38 pockets, the default) or single "
                             "zero (37): roulette-* only")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _units(text: str) -> Fraction:
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError) as err:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from err
    if value <= 0:
        raise argparse.ArgumentTypeError(f"the meter must be positive, got {text}")
    return value


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Validate the options against the wager and build its settings.

    Raises:
        OddsError: an option the wager does not take, or a deck count it is not dealt with.
        ConfigError: a pay table the rules' validators refuse.
    """
    bet = BETS[args.bet]
    for option in ("soft17", "meter", "wheel"):
        if getattr(args, option) is not None and option not in bet.options:
            takers = ("the roulette-* bets" if option == "wheel" else
                      ", ".join(b.name for b in BETS.values() if option in b.options))
            raise OddsError(f"--{option} applies only to {takers}, not to {bet.name}")
    if not bet.decks:
        if args.decks is not None:
            raise OddsError(f"--decks: {bet.name} is not dealt from a shoe (give --wheel)")
        return _roulette_settings(args)
    decks = bet.usual_decks[0] if args.decks is None else args.decks
    bet.check_decks(decks)
    settings = Settings(decks=decks, hits_soft_17=args.soft17 == "hit")
    if args.paytable is not None:
        settings = apply_paytable(bet, settings, read_toml(args.paytable), str(args.paytable))
    if args.meter is not None:
        highest = Fraction(SIGN_MAX_CENTS, settings.paytables.blazing7s.wager)
        if args.meter > highest:
            raise OddsError(f"--meter: at most {float(highest):,.2f} units of the "
                            f"{settings.paytables.blazing7s.wager}-cent wager (the sign shows "
                            f"at most {SIGN_MAX_CENTS} cents), got {float(args.meter):g}")
        settings = replace(settings, meter=args.meter)
    return settings


def _roulette_settings(args: argparse.Namespace) -> Settings:
    """A roulette bet's settings: the wheel, and the pay table of `--paytable`."""
    settings = Settings(decks=0, wheel=Wheel(args.wheel or Wheel.DOUBLE.value))
    if args.paytable is not None:
        tables = apply_paytable(BETS[args.bet], settings, read_toml(args.paytable),
                                str(args.paytable))
        settings = replace(settings, paytables=tables.paytables)
    return settings


def main(argv: list[str]) -> int:
    """Print the par sheet of one wager; 2 on a bad option or pay table."""
    args = build_parser().parse_args(argv)
    try:
        settings = settings_from_args(args)
        sheet = BETS[args.bet].build(settings)
    except (OddsError, ConfigError) as err:
        sys.stderr.write(f"shoectl odds: {err}\n")
        return 2
    log.debug("par sheet %s at %d decks computed", args.bet, settings.decks)
    sys.stdout.write((sheet.to_json_text() if args.json else sheet.to_table()) + "\n")
    return 0
