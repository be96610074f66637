"""`shoectl progressive serve|show|verify`: the linked progressive's controller.

Exit status: serve 0 after SIGTERM/SIGINT, 1 unusable configuration or state directory;
show 0 shown, 1 no journal or unreadable, 3 the journal does not verify; verify 0 intact and
reconciled, 1 no journal or unreadable, 3 not intact or not reconciled (the last line says
what).
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
from controller.floor import authority, settings
from controller.journal.errors import JournalError, JournalTrustError
from controller.journal.store import journal_present


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
        return _verify(args.state_dir)
    except JournalTrustError as exc:
        sys.stderr.write(f"shoectl progressive: the journal does not verify: {exc}\n")
        return EXIT_INTEGRITY
    except (JournalError, settings.FloorConfigError) as exc:
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


def _verify(state_dir: Path) -> int:
    report = floor_audit.verify(state_dir)
    for line in report.lines:
        sys.stdout.write(line + "\n")
    return 0 if report.ok else EXIT_INTEGRITY
