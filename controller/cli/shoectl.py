"""The `shoectl` command: dispatches `shoectl COMMAND ...` to the module that owns COMMAND.

Each command module exposes `main(argv: list[str]) -> int` and builds its own parser, so
a command imports only what it needs (OpenCV, for one, is slow to import).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
from typing import Final, Protocol, cast

COMMANDS: Final[dict[str, tuple[str, str]]] = {
    "bridge": ("controller.cli.bridge_command",
               "bridge console|pair|stats: a board's traffic live; pair a board; the frames "
               "each board's line refused"),
    "console": ("controller.cli.console_command",
                "the console's users and device tokens: user add|list|remove, token"),
    "diagram": ("controller.cli.diagram_command",
                "draw a game's procedure state machine (mermaid/svg/png)"),
    "emulate": ("drivers.emulated.cli", "run a byte-level shoe, layout or sign emulator on a pty"),
    "floor": ("controller.cli.floor_command",
              "the floor's tools: certs (a test CA), serve (the journals' store and the "
              "floor's pit view), verify and export a table's journal on the floor"),
    "install": ("controller.cli.install_command",
                "install as a systemd service: venv, unit, udev, manifest"),
    "journal": ("controller.cli.journal_command", "verify or export the secured audit journal"),
    "meter": ("controller.cli.meter_command",
              "show the progressive meters and the last 25 hits, or a station's meters"),
    "odds": ("controller.cli.odds_command",
             "par sheet of a wager: line probabilities, house edge"),
    "selftest": ("controller.cli.selftest_command",
                 "start-of-day self-test of every device (R2), journalled"),
    "progressive": ("controller.cli.progressive_command",
                    "the linked progressive's controller: serve, show, verify"),
    "report": ("controller.cli.report_command",
               "a shift's figures for the pit; advantage-play alerts for surveillance"),
    "run": ("controller.cli.run_command", "run the table service on its configured devices"),
    "simulate": ("controller.cli.simulate_command",
                 "deal rounds through the whole table, emulated, with bots"),
    "vision": ("vision.cli", "enrol a deck from labelled photos; read the cards in images"),
}


class _CommandModule(Protocol):
    def main(self, argv: list[str]) -> int: ...


def version() -> str:
    """The installed distribution's version ("unknown" outside an installed tree)."""
    try:
        return importlib.metadata.version("shoectl")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def usage() -> str:
    """Return the top-level help text listing every command."""
    width = max((len(name) for name in COMMANDS), default=0)
    lines = ["usage: shoectl COMMAND [ARGS...] | shoectl --version", "", "commands:"]
    lines += [f"  {name:<{width}}  {summary}" for name, (_, summary) in sorted(COMMANDS.items())]
    lines += ["", "Run `shoectl COMMAND --help` for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run one `shoectl` command and return its exit status."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--version"]:
        sys.stdout.write(f"shoectl {version()}\n")
        return 0
    if not args or args[0] in {"-h", "--help", "help"}:
        sys.stdout.write(usage() + "\n")
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        sys.stderr.write(f"shoectl: unknown command {name!r}\n\n{usage()}\n")
        return 2
    module = cast(_CommandModule, importlib.import_module(COMMANDS[name][0]))
    return module.main(rest)


if __name__ == "__main__":
    sys.exit(main())
