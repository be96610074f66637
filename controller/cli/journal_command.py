"""`shoectl journal verify|export`: check and read the secured audit journal."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.journal import audit, statedir
from controller.journal.store import JournalError, open_existing


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoectl journal",
                                     description="Verify or export the audit journal.")
    sub = parser.add_subparsers(dest="action", required=True)
    verify = sub.add_parser("verify", help="check the hash chain and reconcile the meters")
    statedir.add_state_dir_option(verify)
    export = sub.add_parser("export", help="print every record")
    statedir.add_state_dir_option(export)
    export.add_argument("--jsonl", action="store_true", required=True,
                        help="one JSON object per line (the only format)")
    return parser


def main(argv: list[str]) -> int:
    """Run `shoectl journal ...`; exit 0 only when the journal verifies."""
    args = _parser().parse_args(argv)
    state_dir = statedir.resolve(args.state_dir)
    try:
        if args.action == "verify":
            report = audit.verify_state_dir(state_dir)
            out = sys.stdout if report.ok else sys.stderr
            for line in report.lines:
                out.write(line + "\n")
            return 0 if report.ok else 1
        return _export(state_dir)
    except JournalError as exc:
        sys.stderr.write(f"shoectl journal: {exc}\n")
        return 1


def _export(state_dir: Path) -> int:
    with open_existing(state_dir) as store:
        for entry in store.entries():
            sys.stdout.write(json.dumps(entry.as_json(), sort_keys=True) + "\n")
    return 0
