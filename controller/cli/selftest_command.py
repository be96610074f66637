"""`shoectl selftest`: the start-of-day self-test (R2), journalled (`controller.appliance`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.appliance.selftest import JOURNAL_KIND, record_result
from controller.appliance.selftest_table import (
    DEFAULT_CONFIG,
    SelftestError,
    drop_root,
    refuse_if_service_active,
    run_configured,
)
from controller.journal import statedir
from controller.journal.store import JournalError
from controller.rules.errors import ConfigError
from drivers.errors import DeviceConfigError, DriverError

MAX_TIMEOUT_S = 600.0
"""The longest `--timeout`: ten minutes for one answer or input."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="shoectl selftest",
        description="Start-of-day self-test (R2): software, journal, shoe, every lamp, sensor, "
                    "button and key switch, and the sign. The result is journalled.")
    parser.add_argument("--operator", required=True, help="who runs the test (journalled)")
    parser.add_argument("--config", type=Path, default=Path(DEFAULT_CONFIG),
                        help=f"table configuration (default {DEFAULT_CONFIG})")
    statedir.add_state_dir_option(parser)
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="seconds to wait for each answer or input (default 30)")
    parser.add_argument("--auto", action="store_true",
                        help="emulated rigs: stimulate the emulators instead of prompting "
                             "(implies --allow-emulated)")
    parser.add_argument("--allow-emulated", action="store_true",
                        help="accept emulated device kinds in the configuration")
    parser.add_argument("--unverified-software", action="store_true",
                        help="a development tree: no software manifest to check (R16); the "
                             "result says UNVERIFIED")
    return parser


def main(argv: list[str]) -> int:
    """Entry point of `shoectl selftest`; 0 only when every check passed."""
    args = _parser().parse_args(argv)
    if not args.operator.strip():
        sys.stderr.write("shoectl selftest: --operator must name who runs the test\n")
        return 2
    if not 0 < args.timeout <= MAX_TIMEOUT_S:
        sys.stderr.write(f"shoectl selftest: --timeout: 0 < SECONDS <= {MAX_TIMEOUT_S:g}, got "
                         f"{args.timeout}\n")
        return 2
    state_dir = statedir.resolve(args.state_dir)
    try:
        refuse_if_service_active()
        drop_root(state_dir)
        report = run_configured(args.config, state_dir, operator=args.operator,
                                timeout_s=args.timeout, auto=args.auto,
                                allow_emulated=args.allow_emulated,
                                unverified_software=args.unverified_software)
        seq = record_result(state_dir, report)
    except (SelftestError, ConfigError, DeviceConfigError, DriverError, JournalError,
            OSError) as exc:
        sys.stderr.write(f"shoectl selftest: {exc}\n")
        return 2
    out = sys.stdout if report.passed else sys.stderr
    for line in report.lines():
        out.write(line + "\n")
    out.write(f"recorded in the audit journal as record {seq} ({JOURNAL_KIND})\n")
    return 0 if report.passed else 1
