"""`shoectl bridge console URL`: the bridge console with the table's message catalogue.

The generic console is `firmware_bridge.console`; this only supplies
`drivers/catalogue.toml` as the default catalogue, so
`shoectl bridge console /dev/ttyUSB0 --send get_sign_state` works as it is.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Final

from firmware_bridge import console

CATALOGUE: Final = Path(__file__).with_name("catalogue.toml")


def main(argv: list[str]) -> int:
    """Run `shoectl bridge SUBCOMMAND ...`; the only subcommand is `console`."""
    parser = argparse.ArgumentParser(
        prog="shoectl bridge", description="Talk to the table's boards over firmware_bridge."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    commands.add_parser("console", add_help=False,
                        help="show a board's decoded traffic live; send it messages")
    parser.parse_args(argv[:1])  # only `console` exists; its options are the console's
    return console.main(argv[1:], default_catalogue=CATALOGUE, prog="shoectl bridge console")
