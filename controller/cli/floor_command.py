"""`shoectl floor certs DIR --tables N`: a test CA and certificates for a linked floor.

Writes `ca.pem`/`ca.key`, `broker.pem`/`.key`, `progressive.pem`/`.key`, one
`T1.pem`/`.key` ... `TN.pem`/`.key` per table (or the names of `--names`), the broker's ACL
`acl` and `mosquitto.conf` (a TLS listener on `--port` requiring a client certificate).
Exit status: 0 written; 1 a name or the directory unusable (one line says which).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.floor.certs import broker_config, make_floor_certs
from controller.floor.protocol import FloorProtocolError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoectl floor", description="The floor's tools.")
    sub = parser.add_subparsers(dest="action", required=True)
    certs = sub.add_parser("certs", help="a test CA and a certificate per table")
    certs.add_argument("dir", type=Path)
    certs.add_argument("--tables", type=int, default=3, help="tables T1..TN (default 3)")
    certs.add_argument("--names", default="", help="table names instead: T1,T2,...")
    certs.add_argument("--port", type=int, default=8883, help="the broker's TLS port")
    return parser


def main(argv: list[str]) -> int:
    """Run `shoectl floor ...`."""
    args = _parser().parse_args(argv)
    if not 1 <= args.tables <= 1000:
        sys.stderr.write(f"shoectl floor: --tables: must be 1..1000, got {args.tables}\n")
        return 1
    names = ([n for n in args.names.split(",") if n] if args.names
             else [f"T{n}" for n in range(1, args.tables + 1)])
    try:
        issued = make_floor_certs(args.dir, names)
        (args.dir / "mosquitto.conf").write_text(broker_config(args.dir.absolute(), args.port),
                                                 encoding="utf-8")
    except FloorProtocolError as exc:
        sys.stderr.write(f"shoectl floor: --names: {exc}\n")
        return 1
    except OSError as exc:
        sys.stderr.write(f"shoectl floor: {args.dir}: {exc}\n")
        return 1
    for pair in issued:
        sys.stdout.write(f"{pair.cert}\n")
    return 0
