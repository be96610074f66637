"""`shoectl journal verify|export`: check and read the secured audit journal.

Both read a private copy of the journal's files and never change a byte of them.

Exit status: 0 the journal verifies (chain intact under the table's key, in step with its
anchor, critical state intact, meters reconcile); 1 it cannot be checked (no journal in the
directory, a file or the key cannot be read); 3 an integrity failure (damaged, forged,
truncated, replaced, a lost WAL, meters that do not reconcile): the verdict's lines say
what and where. `export` prints every readable record even then, and exits 3.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.journal import audit, keys, statedir
from controller.journal.errors import JournalError

EXIT_CANNOT_CHECK = 1
EXIT_INTEGRITY = 3


def add_key_option(parser: argparse.ArgumentParser) -> None:
    """Add `--key FILE`: the journal key to check with (default: where it is kept)."""
    parser.add_argument("--key", type=Path, default=None,
                        help=f"the journal key file (default: ${keys.KEY_ENV}, else "
                             f"{keys.APPLIANCE_KEY_FILE} for {statedir.DEFAULT_STATE_DIR}, "
                             f"else DIR{keys.KEY_SUFFIX} beside the state directory)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoectl journal",
                                     description="Verify or export the audit journal.")
    sub = parser.add_subparsers(dest="action", required=True)
    verify = sub.add_parser("verify", help="check the keyed chain and its anchor, reconcile "
                                           "the meters")
    statedir.add_state_dir_option(verify)
    add_key_option(verify)
    export = sub.add_parser("export", help="print every record")
    statedir.add_state_dir_option(export)
    add_key_option(export)
    export.add_argument("--jsonl", action="store_true", required=True,
                        help="one JSON object per line (the only format)")
    return parser


def main(argv: list[str]) -> int:
    """Run `shoectl journal ...`; exit 0 only when the journal verifies."""
    args = _parser().parse_args(argv)
    state_dir = statedir.resolve(args.state_dir)
    try:
        key = keys.load_key(args.key) if args.key is not None else None
        if args.action == "verify":
            report = audit.verify_state_dir(state_dir, key)
            out = sys.stdout if report.ok else sys.stderr
            for line in report.lines:
                out.write(line + "\n")
            return 0 if report.ok else EXIT_INTEGRITY
        return _export(state_dir, key)
    except JournalError as exc:
        sys.stderr.write(f"shoectl journal: {exc}\n")
        return EXIT_CANNOT_CHECK


def _export(state_dir: Path, key: keys.JournalKey | None) -> int:
    found, report = audit.export_entries(state_dir, key)
    for entry in found:
        sys.stdout.write(json.dumps(entry.as_json(), sort_keys=True) + "\n")
    if report.ok:
        return 0
    sys.stderr.write(f"shoectl journal: the journal does not verify: {report.lines[-1]}\n")
    return EXIT_INTEGRITY
