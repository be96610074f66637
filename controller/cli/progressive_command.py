"""`shoectl progressive serve|show|verify`: the linked progressive's controller.

Exit status: serve 0 after SIGTERM/SIGINT, 1 unusable configuration or state directory, 2 a
plain `mqtt://` broker off the machine;
show 0 shown, 1 no journal or unreadable, 3 the journal does not verify; verify 0 intact and
reconciled, 1 no journal or unreadable (or, with `--floor`, an unusable floor file or store),
3 not intact or not reconciled, or with `--floor` a contribution, hit or void with no round of
the table's journal behind it (the last line says what).
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from pathlib import Path

from controller.cli.journal_command import EXIT_INTEGRITY
from controller.floor import audit as floor_audit
from controller.floor import authority, reconcile, settings
from controller.floor.floor_settings import load_floor
from controller.floor.floor_store import FloorStore, FloorStoreError
from controller.journal import audit
from controller.journal.errors import JournalError, JournalTrustError
from controller.journal.store import journal_present

EXIT_PLAIN_LINK = 2
"""A plain `mqtt://` broker off the machine: refused at start-up."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoectl progressive",
                                     description="The linked progressive's controller.")
    sub = parser.add_subparsers(dest="action", required=True)
    serve = sub.add_parser("serve", help="be the one authority of a link group's meter")
    serve.add_argument("--config", type=Path, required=True, help="[link] and [progressive]")
    serve.add_argument("--state-dir", type=Path, required=True, help="the controller's journal")
    show = sub.add_parser("show", help="the linked meter")
    show.add_argument("--state-dir", type=Path, required=True)
    show.add_argument("--json", action="store_true", help="print JSON")
    verify = sub.add_parser("verify", help="the journal is intact and the meter reconciles")
    verify.add_argument("--state-dir", type=Path, required=True)
    verify.add_argument("--floor", type=Path, default=None, metavar="FLOOR_CONFIG",
                        help="also check every contribution, hit and void applied against the "
                             "floor's copy of each table's journal (the floor's file)")
    return parser


def main(argv: list[str]) -> int:
    """Run `shoectl progressive ...`."""
    args = _parser().parse_args(argv)
    try:
        if args.action == "serve":
            return _serve(args.config, args.state_dir)
        if not journal_present(args.state_dir):
            sys.stderr.write(f"shoectl progressive: no controller journal in {args.state_dir}\n")
            return 1
        if args.action == "show":
            return _show(args.state_dir, args.json)
        return _verify(args.state_dir, args.floor)
    except JournalTrustError as exc:
        sys.stderr.write(f"shoectl progressive: the journal does not verify: {exc}\n")
        return EXIT_INTEGRITY
    except settings.PlainLinkError as exc:
        sys.stderr.write(f"shoectl progressive: {exc}\n")
        return EXIT_PLAIN_LINK
    except (JournalError, settings.FloorConfigError, FloorStoreError) as exc:
        sys.stderr.write(f"shoectl progressive: {exc}\n")
        return 1


def _serve(config: Path, state_dir: Path) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    loaded = settings.load(config)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    authority.serve(loaded, state_dir, stop)
    return 0


def _show(state_dir: Path, as_json: bool) -> int:
    figures = floor_audit.summary(state_dir)
    if as_json:
        sys.stdout.write(json.dumps(figures) + "\n")
    else:
        for key, value in figures.items():
            sys.stdout.write(f"{key:>16}: {value}\n")
    return 0


def _verify(state_dir: Path, floor_config: Path | None) -> int:
    report = floor_audit.verify(state_dir)
    for line in report.lines:
        sys.stdout.write(line + "\n")
    if not report.ok:
        return EXIT_INTEGRITY
    if floor_config is None:
        return 0
    store = FloorStore(load_floor(floor_config).store)
    try:
        applied, _ = audit.export_entries(state_dir)
        problem, checked = reconcile.first_disagreement(applied, store.entries)
    finally:
        store.close()
    if problem:
        sys.stdout.write(problem + "\n")
        return EXIT_INTEGRITY
    sys.stdout.write(f"{checked} contributions, hits and voids applied, each on a round the "
                     "table's journal on the floor holds\n")
    return 0
