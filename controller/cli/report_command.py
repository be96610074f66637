"""`shoectl report shift|advantage`: what a table's journal tells the pit and surveillance.

`shift --from T --to T` prints the table's figures over that window
(`controller.analysis.shift`; definitions in docs/reference/metrics.md): one `key: value`
line each, `--json` one object, `--csv` `metric,value` rows. `advantage` prints the seats
whose main wager followed the Hi-Lo count (`controller.analysis.advantage`), one line each
(`--json`: one object a line): surveillance's, never the pit's. Only the blackjack family's
rounds count (a baccarat or roulette journal gives no alert).

Times are ISO 8601 (`2026-12-06`, `2026-12-06T18:00`, with or without an offset; none is
UTC). The journal is read only when it verifies. Exit status: 0 printed; 1 no journal or a
key that cannot be read; 2 a bad option; 3 the journal does not verify.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from controller.analysis.journal_feed import JournalFeed
from controller.analysis.shift import Row, shift_figures
from controller.cli.journal_command import EXIT_INTEGRITY, add_key_option
from controller.journal import audit, keys, statedir
from controller.journal.chain import Entry
from controller.journal.errors import JournalError
from controller.rules.options import BLACKJACK_RULES


def _moment(text: str) -> datetime:
    """An ISO 8601 date or time; UTC when it names no offset."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is no ISO 8601 time (e.g. 2026-12-06T18:00)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="shoectl report",
        description="What a table's journal tells the pit (shift) and surveillance "
                    "(advantage).")
    sub = parser.add_subparsers(dest="action", required=True)
    shift = sub.add_parser("shift", help="a shift's figures: pace, time lost, play, money")
    shift.add_argument("--from", dest="start", type=_moment, metavar="T",
                       help="the window's start (ISO 8601; default: the journal's first record)")
    shift.add_argument("--to", dest="end", type=_moment, metavar="T",
                       help="the window's end, not included (default: its last record)")
    shape = shift.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print one JSON object")
    shape.add_argument("--csv", action="store_true", help="print metric,value rows")
    advantage = sub.add_parser("advantage",
                               help="seats whose wager followed the count (surveillance)")
    advantage.add_argument("--json", action="store_true", help="one JSON object an alert")
    for command in (shift, advantage):
        statedir.add_state_dir_option(command)
        add_key_option(command)
    return parser


def main(argv: list[str]) -> int:
    """Run `shoectl report ...`."""
    args = _parser().parse_args(argv)
    if args.action == "shift" and args.start and args.end and args.end <= args.start:
        sys.stderr.write("shoectl report: --to must come after --from\n")
        return 2
    try:
        journal_key = keys.load_key(args.key) if args.key is not None else None
        entries, verdict = audit.export_entries(statedir.resolve(args.state_dir), journal_key)
    except JournalError as exc:
        sys.stderr.write(f"shoectl report: {exc}\n")
        return 1
    if not verdict.ok:
        sys.stderr.write("shoectl report: the journal does not verify: "
                         f"{'; '.join(verdict.lines)}\n")
        return EXIT_INTEGRITY
    if args.action == "shift":
        return _shift(args, entries)
    return _advantage(args, entries)


def _shift(args: argparse.Namespace, entries: list[Entry]) -> int:
    rows = (Row(datetime.fromisoformat(entry.wall), entry.kind, entry.data) for entry in entries)
    figures = shift_figures(rows, args.start, args.end).as_record()
    if args.json:
        sys.stdout.write(json.dumps(figures) + "\n")
        return 0
    flat = dict(_flatten("", figures))
    if args.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(["metric", "value"])
        writer.writerows(flat.items())
        return 0
    for key, value in flat.items():
        sys.stdout.write(f"{key}: {'-' if value is None else value}\n")
    return 0


def _flatten(prefix: str, value: object) -> list[tuple[str, object]]:
    """Nested figures as dotted keys: `wagers.main.hold`."""
    if isinstance(value, dict):
        found: list[tuple[str, object]] = []
        for key, inner in value.items():
            found.extend(_flatten(f"{prefix}.{key}" if prefix else str(key), inner))
        return found
    return [(prefix, value)]


def _advantage(args: argparse.Namespace, entries: list[Entry]) -> int:
    feed = JournalFeed(Path(statedir.resolve(args.state_dir)).name, BLACKJACK_RULES)
    for entry in entries:
        for alert in feed.take(entry.kind, entry.data):
            record = alert.as_record()
            if args.json:
                sys.stdout.write(json.dumps(record) + "\n")
            else:
                sys.stdout.write(
                    f"seat {alert.seat}: wager follows the count, rho {alert.value:.2f} "
                    f"over {alert.wagers} wagers, p {alert.p_value:.1e}, rounds "
                    f"{alert.first_round}-{alert.last_round}; evidence rounds "
                    f"{', '.join(map(str, alert.evidence_rounds))}\n")
    return 0
