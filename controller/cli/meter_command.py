"""`shoectl meter show|history`: read the progressive meters from the critical state.

`shoectl meter show --station N` shows a community table's station N instead: its credits
and its meters (credits in, credits out, wagered, won, games played), reconciled with the
journal's station records; a difference is named and the exit status is 3.

The meters are shown only from a journal that verifies (read from a private copy, as
`shoectl journal verify` does). Exit status: 0 shown; 1 nothing to show or the journal
cannot be read; 3 the journal does not verify (the verdict's line is printed instead).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

from controller.cli.journal_command import EXIT_INTEGRITY, add_key_option
from controller.journal import audit, keys, statedir
from controller.journal.errors import JournalError, JournalKeyError, JournalTrustError
from controller.journal.keys import JournalKey
from controller.rules.money import format_cents

T = TypeVar("T")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="shoectl meter",
        description="Show the Blazing 7's progressive meters, or a community table's station "
                    "credits and meters (show --station N).")
    sub = parser.add_subparsers(dest="action", required=True)
    for name, text in (("show", "current meters"), ("history", "the last 25 hits")):
        cmd = sub.add_parser(name, help=text)
        statedir.add_state_dir_option(cmd)
        add_key_option(cmd)
        cmd.add_argument("--json", action="store_true", help="print JSON")
        if name == "show":
            cmd.add_argument("--station", type=int, metavar="N",
                             help="a community table's station N: credits and meters")
    return parser


def main(argv: list[str]) -> int:
    """Run `shoectl meter ...`."""
    args = _parser().parse_args(argv)
    if getattr(args, "station", None) is not None:
        return _station(args)
    loaded = _from_journal(args, audit.stored_meters)
    if isinstance(loaded, _Refused):
        return loaded.status
    meters = loaded
    if meters is None:
        sys.stderr.write("shoectl meter: no progressive meters recorded yet\n")
        return 1
    if args.action == "show":
        summary = meters.summary()
        if args.json:
            sys.stdout.write(json.dumps(summary) + "\n")
        else:
            for key, value in summary.items():
                shown = format_cents(value) if key in _MONEY and isinstance(value, int) else value
                sys.stdout.write(f"{key:>16}: {shown}\n")
        return 0
    hits = [{**asdict(h), "kind": h.kind.value} for h in meters.history]
    if args.json:
        sys.stdout.write(json.dumps(hits) + "\n")
    else:
        sys.stdout.write("round  seat  kind   paid        meter before\n")
        for h in hits:
            paid, before = format_cents(h["paid"]), format_cents(h["meter_before"])
            sys.stdout.write(f"{h['round']:>5}  {h['seat']:>4}  {h['kind']:<5}  "
                             f"{paid:>10}  {before:>12}\n")
    return 0


def _station(args: argparse.Namespace) -> int:
    """`meter show --station N`: the station's credits and meters, reconciled."""
    loaded = _from_journal(args, audit.stored_stations)
    if isinstance(loaded, _Refused):
        return loaded.status
    kept, problems = loaded
    station = args.station
    if station not in kept:
        sys.stderr.write(f"shoectl meter: station {station}: no credits or meters recorded "
                         f"(stations with meters: {', '.join(map(str, kept)) or 'none'})\n")
        return 1
    row = {"station": station, **kept[station], "reconciled": not problems}
    if args.json:
        sys.stdout.write(json.dumps(row) + "\n")
    else:
        for key, value in row.items():
            shown = (format_cents(value) if key not in ("station", "games_played", "reconciled")
                     and isinstance(value, int) and not isinstance(value, bool) else value)
            sys.stdout.write(f"{key:>16}: {shown}\n")
    for problem in problems:
        sys.stderr.write(f"shoectl meter: {problem}\n")
    return EXIT_INTEGRITY if problems else 0



@dataclass(frozen=True)
class _Refused:
    """The journal could not be read: the one line is written, `status` is the exit status."""

    status: int


def _from_journal(args: argparse.Namespace,
                  read: Callable[[Path, JournalKey | None], T]) -> T | _Refused:
    """`read(state_dir, key)` on the journal the arguments name, or one line on stderr."""
    try:
        journal_key = keys.load_key(args.key) if args.key is not None else None
        return read(statedir.resolve(args.state_dir), journal_key)
    except JournalKeyError as exc:
        sys.stderr.write(f"shoectl meter: {exc}\n")
        return _Refused(1)
    except JournalTrustError as exc:
        sys.stderr.write(f"shoectl meter: the journal does not verify: {exc}\n")
        return _Refused(EXIT_INTEGRITY)
    except JournalError as exc:
        sys.stderr.write(f"shoectl meter: {exc}\n")
        return _Refused(1)

_MONEY = frozenset({"meter", "cumulative_paid", "attendant_paid", "reserve", "overflow", "reset",
                    "increment", "limit"})
