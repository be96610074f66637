"""`shoectl install`: install shoectl as a systemd service (`controller.appliance.installer`)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Final

from controller.appliance import integrity
from controller.appliance.installer import (
    DEFAULT_CONFIG_DIR,
    DEFAULT_PREFIX,
    InstallError,
    InstallPaths,
    KioskTokens,
    first_boot,
    install,
)
from controller.web import accounts

SOURCE_CHECKOUT: Final = Path(__file__).resolve().parents[2]
"""The checkout this command runs from (the default `--source`)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="shoectl install",
        description="Install shoectl as a systemd service: venv, unit, udev rules, system user, "
                    "configuration template and the software manifest (R16).")
    parser.add_argument("--root", type=Path, default=Path("/"),
                        help="install under this directory instead of / (tests, images)")
    parser.add_argument("--prefix", default=DEFAULT_PREFIX, help="target install path")
    parser.add_argument("--config-dir", default=DEFAULT_CONFIG_DIR, help="target config path")
    parser.add_argument("--source", type=Path, default=SOURCE_CHECKOUT,
                        help="source checkout to install (default: this one)")
    parser.add_argument("--python", default="/usr/bin/python3", help="interpreter for the venv")
    parser.add_argument("--no-venv", action="store_true",
                        help="keep the existing PREFIX/venv (refresh files and manifest only)")
    parser.add_argument("--no-activate", action="store_true",
                        help="do not create users, enable the unit or reload udev")
    parser.add_argument("--kiosk", action="store_true",
                        help="also enable shoectl-kiosk.service: the dealer console full "
                             "screen on the touchscreen (needs cage and chromium)")
    parser.add_argument("--image", action="store_true",
                        help="install into an SD-card image: no journal key or kiosk token "
                             "(each card makes its own at first boot: "
                             "shoectl-firstboot.service), and the root read-only once booted "
                             "(shoectl-readonly-root.service)")
    parser.add_argument("--first-boot", action="store_true",
                        help="make this card's journal key and kiosk token if missing, and "
                             "nothing else (run by shoectl-firstboot.service)")
    parser.add_argument("--renew-kiosk-token", action="store_true",
                        help="make the kiosk a new token even if it has a working one (the "
                             "old one stops working)")
    return parser


KIOSK_TOKENS: Final = KioskTokens(
    issue=lambda config, owner: accounts.issue_token(config, "kiosk", owner=owner),
    holds=lambda config, token: accounts.holds_token(config, "kiosk", token),
    exists=lambda config: accounts.has_token(config, "kiosk"))
"""The kiosk's token in the credentials file beside the configuration."""


def main(argv: list[str]) -> int:
    """Entry point of `shoectl install`."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="shoectl install: %(message)s")
    if args.root.resolve() == Path("/") and os.geteuid() != 0:
        sys.stderr.write("shoectl install: run as root (or give --root DIR)\n")
        return 2
    layout = InstallPaths(args.root.resolve(), args.prefix.rstrip("/"), args.config_dir.rstrip("/"),
                    args.source.resolve())
    if args.first_boot:
        return _first_boot(layout)
    try:
        signature = install(layout, python=args.python, make_venv=not args.no_venv,
                            activate_units=not args.no_activate, kiosk=args.kiosk,
                            kiosk_tokens=KIOSK_TOKENS, renew_kiosk_token=args.renew_kiosk_token,
                            image=args.image)
    except (InstallError, integrity.IntegrityError, OSError) as exc:
        sys.stderr.write(f"shoectl install: {exc}\n")
        return 1
    if args.image:
        sys.stdout.write(
            f"installed shoectl at {layout.on_disk(layout.prefix)} for an image\n"
            f"software signature (SHA-256 of {layout.manifest}): {signature}\n"
            f"each card makes its journal key and kiosk token at its first boot\n")
        return 0
    sys.stdout.write(
        f"installed shoectl at {layout.on_disk(layout.prefix)}\n"
        f"software signature (SHA-256 of {layout.manifest}): {signature}\n"
        f"next: edit {layout.config_dir}/config.toml, then `systemctl start shoectl` and "
        f"`shoectl selftest --operator NAME`\n"
    )
    return 0


def _first_boot(layout: InstallPaths) -> int:
    """`--first-boot`: this card's secrets, one line each; 1 with one line when one fails."""
    try:
        for line in first_boot(layout, KIOSK_TOKENS):
            sys.stdout.write(f"{line}\n")
    except InstallError as exc:
        sys.stderr.write(f"shoectl install --first-boot: {exc}\n")
        return 1
    return 0
