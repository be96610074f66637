"""`shoectl floor certs|serve|verify|export`: the floor's tools.

* `certs DIR --tables N --group G`: a test CA and certificates for a linked floor:
  `ca.pem`/`ca.key`, `broker.pem`/`.key`, `progressive-G.pem`/`.key` (the group's controller),
  `floor.pem`/`.key`, one `T1.pem`/`.key` ... `TN.pem`/`.key` per table (or the names of
  `--names`), the broker's ACL `acl` (every group so far, `groups.json`) and `mosquitto.conf`
  (a TLS listener on `--port` requiring a client certificate; the certificate's name is the
  user and the client id). Run again on DIR with another group: the same CA, one more group.
* `serve --config FILE`: the floor process: every table's journal into the floor store, and
  with `[view]` the floor's pit view (one page for every table).
* `verify --table NAME --config FILE [--state-dir DIR] [--key FILE]`: the floor's copy of the
  table on its own, and, with `--state-dir`, against the table's journal.
* `export --table NAME --config FILE`: the floor's copy, one JSON row per line.

Exit status: certs 0 written, 1 a name or the directory unusable; serve 0 after
SIGTERM/SIGINT, 1 an unusable configuration or store, 2 a plain `mqtt://` broker off the
machine; verify 0 they agree (and the copy
links up), 1 cannot check (configuration, store, key), 3 they disagree (the last line names
the first seq); export 0, 1 cannot read.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import signal
import sys
import threading
from pathlib import Path

from controller.cli.journal_command import EXIT_CANNOT_CHECK, EXIT_INTEGRITY, add_key_option
from controller.floor import floor_verify, receiver
from controller.floor.certs import broker_config, make_floor_certs
from controller.floor.floor_settings import FloorSettings, load_floor
from controller.floor.floor_store import FloorStore, FloorStoreError
from controller.floor.floor_view import FloorView
from controller.floor.protocol import FloorProtocolError, check_name
from controller.floor.settings import FloorConfigError, PlainLinkError
from controller.floor.surveillance import SurveillanceWatch
from controller.journal import audit, keys
from controller.journal.chain import Entry
from controller.journal.errors import JournalError
from controller.journal.readonly import journal_present
from controller.rules.errors import ConfigError
from controller.web.accounts import Accounts, credentials_path
from controller.web.floor_web import floor_app
from controller.web.server import WebServer, WebServerError

EXIT_PLAIN_LINK = 2
"""A plain `mqtt://` broker off the machine: refused at start-up."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoectl floor", description="The floor's tools.")
    sub = parser.add_subparsers(dest="action", required=True)
    certs = sub.add_parser("certs", help="a test CA and a certificate per table")
    certs.add_argument("dir", type=Path)
    certs.add_argument("--tables", type=int, default=3, help="tables T1..TN (default 3)")
    certs.add_argument("--names", default="", help="table names instead: T1,T2,...")
    certs.add_argument("--group", default="bank-a",
                       help="the tables' link group (default bank-a); run again with another "
                            "group to add it under the same CA")
    certs.add_argument("--port", type=int, default=8883, help="the broker's TLS port")
    serve = sub.add_parser("serve", help="keep every table's journal in the floor store")
    serve.add_argument("--config", type=Path, required=True, help="[link] and [store]")
    verify = sub.add_parser("verify", help="a table's journal against the floor's copy")
    verify.add_argument("--table", required=True)
    verify.add_argument("--config", type=Path, required=True, help="the floor's file")
    verify.add_argument("--state-dir", type=Path, default=None,
                        help="the table's state directory (without it: the floor's copy alone)")
    add_key_option(verify)
    export = sub.add_parser("export", help="the floor's copy of a table, one JSON row a line")
    export.add_argument("--table", required=True)
    export.add_argument("--config", type=Path, required=True, help="the floor's file")
    return parser


def main(argv: list[str]) -> int:
    """Run `shoectl floor ...`."""
    args = _parser().parse_args(argv)
    if args.action == "certs":
        return _certs(args)
    try:
        settings = load_floor(args.config)
    except PlainLinkError as exc:
        sys.stderr.write(f"shoectl floor: {exc}\n")
        return EXIT_PLAIN_LINK
    except FloorConfigError as exc:
        sys.stderr.write(f"shoectl floor: {exc}\n")
        return EXIT_CANNOT_CHECK
    try:
        if args.action == "serve":
            return _serve(settings, args.config)
        table = check_name("table", args.table)
        if args.action == "export":
            return _export(settings, table)
        return _verify(settings, table, args.state_dir, args.key)
    except (FloorConfigError, FloorStoreError, JournalError) as exc:
        sys.stderr.write(f"shoectl floor: {exc}\n")
        return EXIT_CANNOT_CHECK
    except FloorProtocolError as exc:
        sys.stderr.write(f"shoectl floor: --table: {exc}\n")
        return EXIT_CANNOT_CHECK


def _certs(args: argparse.Namespace) -> int:
    if not 1 <= args.tables <= 1000:
        sys.stderr.write(f"shoectl floor: --tables: must be 1..1000, got {args.tables}\n")
        return 1
    names = ([n for n in args.names.split(",") if n] if args.names
             else [f"T{n}" for n in range(1, args.tables + 1)])
    try:
        issued = make_floor_certs(args.dir, names, args.group)
        (args.dir / "mosquitto.conf").write_text(broker_config(args.dir.absolute(), args.port),
                                                 encoding="utf-8")
    except FloorProtocolError as exc:
        sys.stderr.write(f"shoectl floor: certs: {exc}\n")
        return 1
    except OSError as exc:
        sys.stderr.write(f"shoectl floor: {args.dir}: {exc}\n")
        return 1
    for pair in issued:
        sys.stdout.write(f"{pair.cert}\n")
    return 0


def _serve(settings: FloorSettings, config: Path) -> int:
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(line_buffering=True)  # each log line reaches the journal at once
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    view, surveillance, server = FloorView(), SurveillanceWatch(), None
    if settings.view is not None:
        try:
            users = credentials_path(config)
            accounts = Accounts(users if users.exists() else None)
            server = WebServer(floor_app(view, settings.view.user, settings.view.credential,
                                         accounts=accounts, alerts=surveillance.alerts),
                               settings.view.listen, "floor view")
        except (ConfigError, WebServerError) as exc:
            sys.stderr.write(f"shoectl floor: {exc}\n")
            return EXIT_CANNOT_CHECK
        server.start()
    try:
        receiver.serve(settings, stop, view, surveillance)
    finally:
        if server is not None:
            server.stop()
    return 0


def _export(settings: FloorSettings, table: str) -> int:
    store = FloorStore(settings.store)
    try:
        for entry in store.entries(table):
            sys.stdout.write(json.dumps(entry.as_json(), sort_keys=True) + "\n")
    finally:
        store.close()
    return 0


def _verify(settings: FloorSettings, table: str, state_dir: Path | None,
            key_file: Path | None) -> int:
    store = FloorStore(settings.store)
    try:
        copy = store.copy(table)
        held = list(store.entries(table))
    finally:
        store.close()
    verdict = floor_verify.verify_copy(copy, held)
    lines, ok = list(verdict.lines), verdict.ok
    if ok and state_dir is not None:
        line = _against_local(state_dir, key_file, held, copy.tip.records)
        lines.append(line or f"table {table}'s journal in {state_dir} agrees with the floor's "
                             f"copy: {len(held)} records")
        ok = not line
    for text in lines:
        sys.stdout.write(text + "\n")
    return 0 if ok else EXIT_INTEGRITY


def _against_local(state_dir: Path, key_file: Path | None, held: list[Entry],
                   records: int) -> str:
    """"" when the table's journal in `state_dir` agrees with the floor's rows, else why."""
    if not journal_present(state_dir):
        return (f"no journal in {state_dir} (its SD card lost?): the floor holds seq "
                f"1-{records} of it; `shoectl floor export` gives them")
    key = keys.load_key(key_file) if key_file is not None else None
    local, report = audit.export_entries(state_dir, key)
    problem = floor_verify.first_disagreement(local, held)
    if problem:
        return problem
    if not report.ok:
        return f"the local journal agrees with the floor but does not verify: {report.lines[-1]}"
    return ""
