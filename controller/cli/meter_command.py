"""`shoectl meter show|history`: read the progressive meters from the critical state.

The meters are shown only from a journal that verifies (read from a private copy, as
`shoectl journal verify` does). Exit status: 0 shown; 1 nothing to show or the journal
cannot be read; 3 the journal does not verify (the verdict's line is printed instead).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from controller.cli.journal_command import EXIT_INTEGRITY, add_key_option
from controller.journal import audit, keys, statedir
from controller.journal.errors import JournalError, JournalKeyError, JournalTrustError
from controller.rules.money import format_cents


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoectl meter",
                                     description="Show the Blazing 7's progressive meters.")
    sub = parser.add_subparsers(dest="action", required=True)
    for name, text in (("show", "current meters"), ("history", "the last 25 hits")):
        cmd = sub.add_parser(name, help=text)
        statedir.add_state_dir_option(cmd)
        add_key_option(cmd)
        cmd.add_argument("--json", action="store_true", help="print JSON")
    return parser


def main(argv: list[str]) -> int:
    """Run `shoectl meter ...`."""
    args = _parser().parse_args(argv)
    try:
        journal_key = keys.load_key(args.key) if args.key is not None else None
        meters = audit.stored_meters(statedir.resolve(args.state_dir), journal_key)
    except JournalKeyError as exc:
        sys.stderr.write(f"shoectl meter: {exc}\n")
        return 1
    except JournalTrustError as exc:
        sys.stderr.write(f"shoectl meter: the journal does not verify: {exc}\n")
        return EXIT_INTEGRITY
    except JournalError as exc:
        sys.stderr.write(f"shoectl meter: {exc}\n")
        return 1
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


_MONEY = frozenset({"meter", "cumulative_paid", "attendant_paid", "reserve", "overflow", "reset",
                    "increment", "limit"})
