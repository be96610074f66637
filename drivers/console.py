"""`shoectl bridge console|pair`: talk to the table's boards, and pair them with this Pi.

`console` is the generic `firmware_bridge.console` with `drivers/catalogue.toml` as the
default catalogue, so `shoectl bridge console /dev/ttyUSB0 --key-file
/etc/shoectl/keys/sign.key --send get_sign_state` works as it is. The console opens the port
exclusively: while the table (or anything else) holds it, the console is refused.

`pair ROLE` draws a fresh pairing key for the board of `[devices.ROLE]` and writes it where
the board's section expects it by default (`/etc/shoectl/keys/ROLE.key`, or `--key-dir`),
readable by root and the `shoectl` group only; it never replaces an existing key. It prints
the key id and the key (64 hex digits) once, for the board maker's programming tool, which
writes it into the board (PROTOCOL.md, "Pairing keys and auth modes").
"""

from __future__ import annotations

import argparse
import grp
import sys
from pathlib import Path
from typing import Final, TextIO

from drivers.config import KEY_DIR, Role
from firmware_bridge import KeyFileError, PairingKey, console, write_key_file

CATALOGUE: Final = Path(__file__).with_name("catalogue.toml")
SERVICE_GROUP: Final = "shoectl"
BOARD_ROLES: Final = (Role.SHOE.value, Role.LAYOUT.value, Role.SIGN.value)


def main(argv: list[str], out: TextIO | None = None) -> int:
    """Run `shoectl bridge SUBCOMMAND ...`: `console` or `pair` (`stats`: the controller's)."""
    parser = argparse.ArgumentParser(
        prog="shoectl bridge", description="Talk to the table's boards over firmware_bridge.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    commands.add_parser("console", add_help=False,
                        help="show a board's decoded traffic live; send it messages")
    pair = commands.add_parser("pair", help="draw a board's pairing key and write its key file")
    pair.add_argument("role", choices=BOARD_ROLES, help="the board's device section")
    pair.add_argument("--key-dir", type=Path, default=KEY_DIR,
                      help=f"where the key file goes (default {KEY_DIR})")
    commands.add_parser("stats", add_help=False,
                        help="the frames each board's line refused, from the table's journal "
                             "(shoectl bridge stats --help)")
    if argv[:1] == ["console"]:  # the console parses its own options
        return console.main(argv[1:], default_catalogue=CATALOGUE, prog="shoectl bridge console")
    args = parser.parse_args(argv)
    if args.command == "stats":  # read from the table's journal: `shoectl bridge stats`
        parser.error("stats reads the table's journal: run it as `shoectl bridge stats`")
    return pair_board(args.role, args.key_dir, out or sys.stdout)


def pair_board(role: str, key_dir: Path, out: TextIO) -> int:
    """Write a fresh key for `role` into `key_dir`; print its id and value. 0, or 1 on error."""
    path = key_dir / f"{role}.key"
    key = PairingKey.generate()
    try:
        write_key_file(path, key, group=_service_group())
    except KeyFileError as error:
        out.write(f"shoectl bridge pair: {error}\n")
        return 1
    out.write(f"{path}: pairing key {key.key_id} for [devices.{role}]\n"
              f"write this key into the {role} board with its programming tool, then keep "
              f"it nowhere else:\n{key.secret.hex()}\n")
    return 0


def _service_group() -> int | None:
    """The service's group id (it must read the key), when the group exists."""
    try:
        return grp.getgrnam(SERVICE_GROUP).gr_gid
    except KeyError:
        return None
