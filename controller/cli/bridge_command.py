"""`shoectl bridge`: the boards' tools; `stats` here, `console` and `pair` in `drivers.console`.

    shoectl bridge stats [--state-dir DIR] [--key FILE] [--json]

prints, for every board line that ever refused a frame, what the table's journal holds of
it: the frames refused by each check (`bad_mac`, `replayed`, `counter_error`,
`auth_mismatch`, `crc`: PROTOCOL.md 4.4 and 3.6), summed over every `link:bad_frames` burst
record, the number of bursts and when the last one ended. From a journal that verifies only
(read from a private copy, as `shoectl journal verify` does), so it also works while the
table runs. Exit status: 0 printed (also when nothing was ever refused); 1 the journal
cannot be read; 3 it does not verify.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.cli.journal_command import EXIT_INTEGRITY, add_key_option
from controller.journal import audit, keys, statedir
from controller.journal.errors import JournalError, JournalKeyError, JournalTrustError
from drivers import console
from drivers.board import FrameFaults

KIND = "link:bad_frames"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="shoectl bridge stats",
        description="The frames each board's line refused, as the table's journal holds them.")
    statedir.add_state_dir_option(parser)
    add_key_option(parser)
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object: {device: {frames, bursts, last}}")
    return parser


def main(argv: list[str]) -> int:
    """Run `shoectl bridge SUBCOMMAND ...` (`stats` here, the others in drivers.console)."""
    if argv[:1] != ["stats"]:
        return console.main(argv)
    args = _parser().parse_args(argv[1:])
    try:
        key = keys.load_key(args.key) if args.key is not None else None
        records = audit.stored_records(statedir.resolve(args.state_dir), (KIND,), key)
    except JournalKeyError as exc:
        sys.stderr.write(f"shoectl bridge stats: {exc}\n")
        return 1
    except JournalTrustError as exc:
        sys.stderr.write(f"shoectl bridge stats: the journal does not verify: {exc}\n")
        return EXIT_INTEGRITY
    except JournalError as exc:
        sys.stderr.write(f"shoectl bridge stats: {exc}\n")
        return 1
    lines = summarise([(entry.wall, entry.data) for entry in records])
    if args.json:
        sys.stdout.write(json.dumps(lines) + "\n")
    elif not lines:
        sys.stdout.write("no board's line has refused a frame (no link:bad_frames record)\n")
    for device, line in lines.items() if not args.json else ():
        frames = FrameFaults(**line["frames"])
        sys.stdout.write(f"{device}: {frames.total} frames refused in {line['bursts']} "
                         f"burst{'s' if line['bursts'] != 1 else ''} (the last ended "
                         f"{line['last']}): {frames.line()}\n")
    return 0


def summarise(records: list[tuple[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Per device: the frames of every burst summed, the bursts, when the last ended."""
    found: dict[str, dict[str, Any]] = {}
    for wall, data in records:
        device = str(data["device"])
        frames = FrameFaults(**{k: int(v) for k, v in data["frames"].items()
                                if k in FrameFaults.KINDS})
        line = found.setdefault(device, {"frames": FrameFaults(), "bursts": 0, "last": ""})
        line["frames"] += frames
        line["bursts"] += 1
        line["last"] = wall
    return {device: {**line, "frames": line["frames"].as_dict()}
            for device, line in sorted(found.items())}
