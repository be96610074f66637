"""`shoectl emulate wheel`: the roulette wheel's result feed on a pty, as its own process.

It prints the port's path (a stable symlink) as its first line, then sends what a Cammegh
SlingShot sends on its port 1 (`drivers/WHEEL.md`): seeded games, hard ones among them, one
line every `--pace` seconds (0.5, the wheel's status period), or with `--replay FILE` a
recorded byte stream of a real wheel, byte for byte. Point a table at it with
`[devices.wheel] kind = "serial"`, `url = "<that path>"`. Commands on standard input (`help`
lists them): `step` (with `--pace 0`: the next run of lines), `garbage`, `unplug`, `replug`,
`stats`, `quit`.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from drivers.config import WheelEmulation
from drivers.emulated.stdin_commands import Command, read_commands
from drivers.emulated.wheel import WheelEmulator

_LOG = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The wheel's options of `shoectl emulate`."""
    wheel = parser.add_argument_group("wheel")
    wheel.add_argument("--replay", type=Path, default=None, metavar="FILE",
                       help="put this recorded byte stream of a real wheel on the pty")
    wheel.add_argument("--pace", type=float, default=0.5, metavar="SECONDS",
                       help="one line every SECONDS (default 0.5, the wheel's status period; "
                            "0: only the `step` command sends)")
    wheel.add_argument("--pockets", type=int, choices=(37, 38), default=38,
                       help="38 (double zero, the default) or 37 (single zero)")
    wheel.add_argument("--spins", type=int, default=0,
                       help="games to play, then the table closes (default 0: no end)")
    wheel.add_argument("--nmb-lines", type=int, default=50,
                       help="no-more-bets status lines a game (default 50)")
    wheel.add_argument("--bets-lines", type=int, default=3,
                       help="place-your-bets status lines a game before the launch (default "
                            "3; 60 at the 0.5 s pace is a 30 s betting window)")
    wheel.add_argument("--launch", choices=("wheel", "host"), default="wheel",
                       help="wheel: it launches each game itself (arcade, the default); host: "
                            "each game waits in place your bets for the host's *u 1 "
                            "(user-start mode)")
    wheel.add_argument("--no-faults", action="store_true",
                       help="clean games only (no warnings, voids, dropped or garbled lines)")


def emulation(args: argparse.Namespace) -> WheelEmulation:
    """The emulated wheel the arguments ask for.

    Raises:
        ValueError: An option out of range, named.
    """
    if args.pace < 0 or args.pace > 10:
        raise ValueError(f"--pace: 0..10 seconds, got {args.pace}")
    if args.spins < 0 or not 1 <= args.nmb_lines <= 500:
        raise ValueError("--spins must be >= 0 and --nmb-lines 1..500")
    if not 1 <= args.bets_lines <= 1000:
        raise ValueError(f"--bets-lines: 1..1000, got {args.bets_lines}")
    if args.replay is not None and not args.replay.is_file():
        raise ValueError(f"--replay {args.replay}: no such file")
    return WheelEmulation(seed=args.seed, pockets=args.pockets, pace_ms=round(args.pace * 1000),
                          faults=not args.no_faults, nmb_lines=args.nmb_lines,
                          bets_lines=args.bets_lines,
                          spins=args.spins, replay=args.replay)


def run(args: argparse.Namespace, stop: threading.Event) -> int:
    """Serve the wheel until `stop` is set (signals, `quit`); 2 on a bad option or file."""
    try:
        link_dir = args.link_dir or Path(tempfile.mkdtemp(prefix="shoectl-emulate-"))
        emulator = WheelEmulator.from_config(emulation(args), link_dir=link_dir,
                                             name=args.name or "wheel",
                                             launch_by_host=args.launch == "host")
    except (ValueError, OSError) as exc:
        sys.stderr.write(f"shoectl emulate: {exc}\n")
        return 2
    with emulator:
        sys.stdout.write(f"{emulator.path}\n")
        sys.stdout.flush()
        source = f"replay of {args.replay}" if args.replay else f"seed {args.seed}"
        _LOG.info("EMULATED roulette wheel on %s (pty %s), %s", emulator.path,
                  emulator.tty_path, source)
        commands = wheel_commands(emulator)
        threading.Thread(target=read_commands, args=(commands, stop), daemon=True).start()
        stop.wait()
    return 0


def wheel_commands(emulator: WheelEmulator) -> dict[str, Command]:
    """The stdin commands of the wheel emulator."""
    def step(words: list[str]) -> str:
        count = int(words[0]) if words and words[0].isdigit() else 1
        sent = sum(emulator.send_step() for _ in range(count))
        return f"{sent} steps sent" + ("; the stream is finished" if emulator.finished else "")

    commands: dict[str, Command] = {
        "step": step,
        "garbage": lambda words: _done(lambda: emulator.send_raw(b"*X;4;0*X;;\r\n")),
        "unplug": lambda words: _done(emulator.unplug),
        "replug": lambda words: _done(emulator.replug),
        "stats": lambda words: str(emulator.stats()),
    }
    commands["help"] = lambda words: "commands: " + " ".join(sorted(commands)) + " quit"
    return commands


def _done(action: Callable[[], object]) -> str:
    action()
    return "ok"
