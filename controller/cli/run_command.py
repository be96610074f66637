"""`shoectl run --config FILE [--allow-emulated] [--unverified-software]`: the table service.

Builds the table from its file (composition root `controller.service.app`), starts the dealer's
console (and the pit view) as `[console]` says, authenticates the software (R16), starts the
devices, recovers the table from its journal and runs the loop until SIGTERM or SIGINT, then
records the power-off. Emulated device kinds are refused unless `--allow-emulated` is given.
A linked table (`[progressive] link`) runs live: its meter is the link group's, its hits are
settled with the progressive controller's answers (docs/floor-protocol.md).
A missing software manifest is refused unless `--unverified-software` is given (a development
tree has none): the run is then journalled `system:software-unverified` and every status line
says UNVERIFIED. The two flags are independent: `--allow-emulated` never waives the software
check, and a manifest that is configured and does not match is always refused.

Exit status: 0 after an orderly stop; 1 a device or the journal failed (a full disk, an
unwritable state directory), at start-up or while the table ran; 2 the configuration was
refused; 3 the software failed its self-authentication; 4 the journal failed its start-up
check (damaged, forged, truncated, replaced, a lost WAL, or its key missing or unusable),
before any device starts and before power:on; 5 the table stopped on an internal error (an
exception that escaped the event loop, or the event queue at its bound). On 1 and 5 while
the table ran, every output was driven safe first (lamps off but the fault lamp, the
progressive closed, the boards in failsafe) and the crash journalled as `system:crash` when
the journal still took it (never as an orderly `power:off`, so the next start records
`clean_shutdown: false, after_crash: true`). The systemd unit does not restart on 2, 3 or 4
(`RestartPreventExitStatus=2 3 4`): a restart cannot fix any of them. It does restart on 1
and 5: the table resumes from the journal, and a crash that comes back at every start stops
after 5 starts in 2 minutes (`StartLimitBurst`).
"""

from __future__ import annotations

import argparse
import functools
import logging
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from controller.appliance import integrity, sdnotify
from controller.appliance.integrity import IntegrityError
from controller.console.prompts import prompt
from controller.journal import statedir
from controller.journal.errors import JournalError, JournalTrustError
from controller.rules.errors import ConfigError
from controller.rules.hands import Game
from controller.service.app import TableApp, build_app
from controller.service.crash import TableCrashError
from controller.service.hosting import Hosting
from controller.service.runtime import TableRuntime
from controller.service.tableconfig import TableFile, load_table_file
from controller.web.accounts import Accounts, credentials_path
from controller.web.server import WebServerError
from controller.web.settings import console_settings_from_mapping
from controller.web.table_web import TableWeb, start_web
from drivers.errors import DriverError

_LOG = logging.getLogger(__name__)
_OPLOG = logging.getLogger("shoectl.table")

EXIT_DEVICE = 1
EXIT_CONFIG = 2
EXIT_INTEGRITY = 3
EXIT_JOURNAL = 4
EXIT_CRASH = 5
_LIBRARY_LOGGERS = ("transitions", "uvicorn", "uvicorn.error")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoectl run", description="Run the table service.")
    parser.add_argument("--config", type=Path, required=True, help="the table file (TOML)")
    parser.add_argument("--allow-emulated", action="store_true",
                        help="accept emulated device kinds (never on a live table)")
    parser.add_argument("--unverified-software", action="store_true",
                        help="run from a development tree without the software manifest "
                             "check (R16): journalled as unverified, UNVERIFIED in every "
                             "status line (never on a live table)")
    statedir.add_state_dir_option(parser)
    return parser


def journal_dir(table: TableFile, option: Path | None) -> Path:
    """The state directory: the option, else `[journal] state_dir`, else the default.

    A relative `state_dir` lies in the table file's folder, not the working folder.

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
    if not configured.strip():
        raise ConfigError("[journal] state_dir: expected a path, got an empty string")
    return table.base / configured


def main(argv: list[str]) -> int:
    """Run the service; exit 0 after an orderly stop."""
    args = _parser().parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")
    for noisy in _LIBRARY_LOGGERS:  # their INFO lines say nothing an operator can act on
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        table = load_table_file(args.config)  # its errors name the file
    except ConfigError as exc:
        sys.stderr.write(f"shoectl run: {exc}\n")
        return EXIT_CONFIG
    try:
        settings = console_settings_from_mapping(table.document.get("console"))
        credentials = credentials_path(args.config)
        Accounts(credentials)  # a broken file is refused here, before anything starts
        state_dir = journal_dir(table, args.state_dir)
        app = build_app(table, allow_emulated=args.allow_emulated, state_dir=state_dir,
                        hosting=appliance_hosting(require_authentic=not args.unverified_software))
    except (ConfigError, DriverError) as exc:
        sys.stderr.write(f"shoectl run: {args.config}: {exc}\n")
        return EXIT_CONFIG
    if app.devices.emulated:
        _LOG.warning("EMULATED devices: %s", ", ".join(app.devices.emulated))
    try:
        web = start_web(settings, app.loop.post, stations=station_count(table),
                        credentials=credentials, state_dir=state_dir)
    except WebServerError as exc:
        sys.stderr.write(f"shoectl run: {exc}\n")
        app.devices.close()
        return EXIT_DEVICE
    try:
        return _serve(app, web)
    finally:
        web.stop()


def station_count(table: TableFile) -> int:
    """The player stations a community table serves pages for (0 at any other game)."""
    game = table.game
    return game.community.stations if game.table.game is Game.COMMUNITY else 0


class NextStepLog:
    """Says in the operational log what the dealer must do next, each time it changes."""

    def __init__(self) -> None:
        self._said = ""

    def __call__(self, runtime: TableRuntime) -> None:
        """Runtime watcher (loop thread): one INFO line per new prompt (public words only)."""
        now = prompt(runtime.model)
        if now != self._said:
            self._said = now
            _OPLOG.info("next: %s", now)


def appliance_hosting(*, require_authentic: bool) -> Hosting:
    """The appliance around the service: the manifest check (R16), sd_notify, the watchdog."""
    notifier = sdnotify.Notifier.from_environment()
    return Hosting(
        authenticate=functools.partial(integrity.authenticate_at_start,
                                       required=require_authentic),
        manager=notifier, watchdog=sdnotify.LoopWatchdog.from_environment(notifier))


def _serve(app: TableApp, web: TableWeb) -> int:
    def stop(signum: int, _frame: FrameType | None) -> None:
        _LOG.info("signal %d: stopping", signum)
        app.loop.stop()  # asked during the start, the loop returns as soon as it runs

    # Before the start, so a stop asked while the devices start still closes them (and
    # removes what their emulators wrote) rather than killing the process.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        runtime = app.start()
    except IntegrityError as exc:
        # Checked before any device starts and before power:on (R16); not retried.
        sys.stderr.write(f"shoectl run: software integrity refused: {exc}\n")
        app.close("software integrity refused")
        return EXIT_INTEGRITY
    except JournalTrustError as exc:
        # The journal is left as it was found: no record is added to a journal that does
        # not verify. The line reaches the system log (stderr under systemd).
        sys.stderr.write(f"shoectl run: journal refused: {exc}\n")
        app.close("journal refused")
        return EXIT_JOURNAL
    except (DriverError, JournalError) as exc:
        sys.stderr.write(f"shoectl run: cannot start: {exc}\n")
        app.close("start-up refused")
        return EXIT_DEVICE

    web.attach(runtime)  # the loop runs on this thread and has not started yet
    runtime.watchers.append(NextStepLog())
    status = 0
    try:
        app.run_forever()
    except TableCrashError as exc:
        sys.stderr.write(f"shoectl run: {exc}\n")
        status = EXIT_DEVICE if exc.journal_failed else EXIT_CRASH
    finally:
        app.close("table crashed" if app.crashed else "service stopped")
    return status
