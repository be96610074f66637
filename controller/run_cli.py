"""`shoectl run --config FILE [--allow-emulated]`: the table service.

Builds the table from its file (composition root `controller.app`), starts the devices,
recovers the table from its journal and runs the loop until SIGTERM or SIGINT, then records
the power-off. Emulated device kinds are refused unless `--allow-emulated` is given; with
it, the software check is recorded as unverified instead of refusing to start.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from controller import statedir
from controller.app import TableApp, build_app
from controller.integrity import IntegrityError
from controller.journal import JournalError
from controller.rules.errors import ConfigError
from controller.tableconfig import TableFile, load_table_file
from drivers.errors import DriverError

_LOG = logging.getLogger(__name__)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoectl run", description="Run the table service.")
    parser.add_argument("--config", type=Path, required=True, help="the table file (TOML)")
    parser.add_argument("--allow-emulated", action="store_true",
                        help="accept emulated device kinds (never on a live table)")
    statedir.add_state_dir_option(parser)
    return parser


def journal_dir(table: TableFile, option: Path | None) -> Path:
    """The state directory: the option, else `[journal] state_dir`, else the default.

    Raises:
        ConfigError: `[journal]` has an unknown key or a non-string state_dir.
    """
    section: Any = table.document.get("journal", {})
    if not isinstance(section, dict):
        raise ConfigError("[journal]: expected a table of keys")
    unknown = sorted(set(section) - {"state_dir"})
    if unknown:
        raise ConfigError(f"[journal] {unknown[0]}: unknown key (known keys: state_dir)")
    configured = section.get("state_dir")
    if configured is not None and not isinstance(configured, str):
        raise ConfigError("[journal] state_dir: expected a path string")
    if option is not None or configured is None:
        return statedir.resolve(option)
    return Path(configured)


def main(argv: list[str]) -> int:
    """Run the service; exit 0 after an orderly stop."""
    args = _parser().parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        table = load_table_file(args.config)
        app = build_app(table, allow_emulated=args.allow_emulated,
                        state_dir=journal_dir(table, args.state_dir))
    except (ConfigError, DriverError) as exc:
        sys.stderr.write(f"shoectl run: {exc}\n")
        return 2
    if app.devices.emulated:
        _LOG.warning("EMULATED devices: %s", ", ".join(app.devices.emulated))
    return _serve(app, require_authentic=not args.allow_emulated)


def _serve(app: TableApp, *, require_authentic: bool) -> int:
    try:
        app.start(require_authentic=require_authentic)
    except (DriverError, IntegrityError, JournalError) as exc:
        sys.stderr.write(f"shoectl run: cannot start: {exc}\n")
        app.close("start-up refused")
        return 1

    def stop(signum: int, _frame: FrameType | None) -> None:
        _LOG.info("signal %d: stopping", signum)
        app.loop.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        app.run_forever()
    finally:
        app.close("service stopped")
    return 0
