"""`shoectl console`: the console's users and device tokens, and the pit's legacy credential.

    shoectl console user add NAME --role dealer|supervisor|attendant|surveillance --config FILE
    shoectl console user list --config FILE
    shoectl console user remove NAME --config FILE
    shoectl console token kiosk|board --config FILE
    shoectl console token station N --config FILE
    shoectl console hash-password            # the deprecated `[console] pit_credential`
    shoectl console kiosk [--console URL] [--credential NAME] -- BROWSER... {url} ...

Users and tokens live in the credentials file beside the configuration
(`controller.web.accounts`). A password is read twice, from the terminal (not echoed) or as
two lines of standard input, so it appears in no process list or shell history. A token is
printed once, on one line (the file keeps only its digest); making it again replaces the
old one. `kiosk` is the kiosk unit's launcher (`controller.web.kiosk`): the token from
systemd's credentials, a one-time login code in the browser's address. Exit 0 done, 2
refused (the reason on one line).
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from controller.rules.errors import ConfigError
from controller.web.accounts import (
    NAME_PATTERN,
    ROLES,
    credentials_path,
    issue_token,
    read_file,
    write_file,
)
from controller.web.credentials import hash_password
from controller.web.kiosk import (
    DEFAULT_CONSOLE,
    DEFAULT_CREDENTIAL,
    URL_FIELD,
    WAIT_S,
    KioskError,
    launch,
)

MIN_PASSWORD = 8
MAX_STATION = 200


class RefusedError(Exception):
    """The command cannot be carried out (one line, said on standard error)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoectl console",
                                     description="The console's users and device tokens.")
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("hash-password", help="print a pit_credential value (deprecated: use "
                                         "`shoectl console user add`)")
    user = sub.add_parser("user", help="add, list or remove a person's credential")
    user_sub = user.add_subparsers(dest="user_action", required=True)
    add = user_sub.add_parser("add", help="add a user (or change their role and password)")
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=ROLES)
    listing = user_sub.add_parser("list", help="the users and their roles")
    remove = user_sub.add_parser("remove", help="remove a user")
    remove.add_argument("name")
    token = sub.add_parser("token", help="make a device's token (printed once)")
    token.add_argument("device", choices=("kiosk", "board", "station"))
    token.add_argument("station", nargs="?", type=int, help="the station's number")
    kiosk = sub.add_parser("kiosk", help="open the console in a browser, logged in with "
                                         "the kiosk's token from systemd's credentials")
    kiosk.add_argument("--console", default=DEFAULT_CONSOLE, help="the console's address")
    kiosk.add_argument("--credential", default=DEFAULT_CREDENTIAL,
                       help="the token's name in $CREDENTIALS_DIRECTORY")
    kiosk.add_argument("--wait", type=float, default=WAIT_S,
                       help="seconds to wait for the console to answer")
    kiosk.add_argument("browser", nargs=argparse.REMAINDER,
                       help=f"-- then the browser's command; {URL_FIELD} is the page")
    for command in (add, listing, remove, token):
        command.add_argument("--config", type=Path, required=True,
                             help="the table file (TOML); the credentials sit beside it")
    return parser


def main(argv: list[str]) -> int:
    """Run `shoectl console`."""
    args = _parser().parse_args(argv)
    try:
        if args.action == "hash-password":
            sys.stdout.write(hash_password(_password(twice=False)) + "\n")
        elif args.action == "user":
            _user(args)
        elif args.action == "kiosk":
            browser = args.browser[1:] if args.browser[:1] == ["--"] else args.browser
            launch(browser, args.console, args.credential, args.wait)
        else:
            sys.stdout.write(_token(args) + "\n")
    except (RefusedError, ConfigError, KioskError) as exc:
        sys.stderr.write(f"shoectl console: {exc}\n")
        return 2
    return 0


def _password(*, twice: bool) -> str:
    if sys.stdin.isatty():
        first = getpass.getpass("password: ")
        again = getpass.getpass("again: ") if twice else first
    else:
        first = sys.stdin.readline().rstrip("\n")
        again = sys.stdin.readline().rstrip("\n") if twice else first
    if len(first) < MIN_PASSWORD:
        raise RefusedError(f"the password needs at least {MIN_PASSWORD} characters")
    if first != again:
        raise RefusedError("the two passwords differ")
    return first


def _user(args: argparse.Namespace) -> None:
    path = credentials_path(args.config)
    data = read_file(path)
    if args.user_action == "list":
        for name, entry in sorted(data["users"].items()):
            sys.stdout.write(f"{name} {entry['role']}\n")
        return
    if not NAME_PATTERN.fullmatch(args.name):
        raise RefusedError(f"user {args.name!r}: a name is 1-32 letters, digits, '.', '_' or '-'")
    if args.user_action == "remove":
        if data["users"].pop(args.name, None) is None:
            raise RefusedError(f"no user {args.name!r} in {path}")
    else:
        data["users"][args.name] = {"role": args.role,
                                    "credential": hash_password(_password(twice=True))}
    write_file(path, data)


def _token(args: argparse.Namespace) -> str:
    if args.device == "station":
        if args.station is None or not 1 <= args.station <= MAX_STATION:
            raise RefusedError(f"token station N: N is the station's number, 1 to {MAX_STATION}")
    elif args.station is not None:
        raise RefusedError(f"token {args.device}: takes no number")
    return issue_token(args.config, args.device, args.station or 0)
