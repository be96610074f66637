"""`shoectl console hash-password`: the `[console] pit_credential` value for a password.

The password is read from standard input (one line; a terminal does not echo it), so it
appears in no process list or shell history; the credential printed is a salted scrypt hash.
"""

from __future__ import annotations

import argparse
import getpass
import sys

from controller.web.credentials import hash_password

MIN_PASSWORD = 8


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoectl console",
                                     description="Tools for the dealer console and pit view.")
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("hash-password", help="print the pit_credential value for a password "
                                         "read from standard input")
    return parser


def main(argv: list[str]) -> int:
    """Run `shoectl console`."""
    _parser().parse_args(argv)
    if sys.stdin.isatty():
        password = getpass.getpass("pit view password: ")
    else:
        password = sys.stdin.readline().rstrip("\n")
    if len(password) < MIN_PASSWORD:
        sys.stderr.write(f"shoectl console: the password needs at least {MIN_PASSWORD} "
                         "characters\n")
        return 2
    sys.stdout.write(hash_password(password) + "\n")
    return 0
