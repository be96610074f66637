"""`shoectl emulate shoe|layout|sign|wheel`: run one byte-level emulator as its own process.

The emulator opens a pseudo-terminal, prints the path to open (a stable symlink) as its
first line of output, and keeps running until it is stopped (Ctrl-C, SIGTERM, or `quit`).
It is paired with the key in `--key-file` (created, mode 0600, when the file does not exist;
by default `<link dir>/<name>.key`), or has no key with `--no-key`. Point a running
controller at it with `kind = "serial"`, `url = "<that path>"`, `key_file = "<the key
file>"` (or `auth = "none"` for `--no-key`) and `firmware = ["emulated-1.0"]`. Commands typed
on standard input drive it (one per line; `help` lists them, drivers/DEVICES.md explains
each), e.g. `draw 5`, `jam`, `unplug`, `replug`, `silent`, `chip 3`, `press 0`,
`key supervisor`.
With `--config TABLE_FILE` the layout board knows the table's names for its channels
(`[devices.layout]` lamps, bet_sensors, buttons): `lamps` lists every configured lamp by
name, and `chip`, `unchip` and `press` take a name (`chip seat2.main`) as well as a number.
The roulette wheel is not a board: `shoectl emulate wheel` (`drivers/emulated/wheel_cli.py`)
sends its ASCII result feed.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import tempfile
import threading
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from drivers.config import LayoutConfig, parse_device
from drivers.emulated import wheel_cli
from drivers.emulated.board import FIRMWARE_VERSION, BoardEmulator
from drivers.emulated.layout import LAMPS, LayoutEmulator
from drivers.emulated.shoe import ShoeEmulator
from drivers.emulated.shoe_file import ShoeFileError, shoe_file_cards
from drivers.emulated.shoe_model import (
    PENETRATION_PERCENT,
    ShoeContents,
    ShoeModelError,
    ShoePlan,
)
from drivers.emulated.sign import SignEmulator
from drivers.emulated.stdin_commands import Command, read_commands
from drivers.errors import DeviceConfigError
from firmware_bridge import DeviceIdentity, KeyFileError, PairingKey, read_key_file, write_key_file

_LOG = logging.getLogger(__name__)
MAX_DEAL_EVERY = 60.0
MAX_FIRMWARE_LENGTH = 32
"""The protocol's `identify_response.firmware_version` holds at most 32 printable ASCII."""


class EmulateUsageError(ValueError):
    """An option of `shoectl emulate` out of range or naming no usable path (exit 2)."""


def check_arguments(args: argparse.Namespace) -> None:
    """Refuse, before any file or port is made, an option the emulator cannot take.

    Sets `args.penetration` to the whole percent it names.

    Raises:
        EmulateUsageError: naming the option and the range it takes.
    """
    if args.link_dir is not None and not args.link_dir.is_dir():
        raise EmulateUsageError(f"--link-dir {args.link_dir}: no such directory")
    if args.name is not None and (not args.name or "/" in args.name or args.name in (".", "..")):
        raise EmulateUsageError(f"--name {args.name!r}: a file name, without '/'")
    firmware = args.firmware
    if not 1 <= len(firmware) <= MAX_FIRMWARE_LENGTH or not all(
            " " <= char <= "~" for char in firmware):
        raise EmulateUsageError(f"--firmware: 1..{MAX_FIRMWARE_LENGTH} printable ASCII "
                                f"characters, got {firmware!r}")
    if args.deal_every is not None and not 0 < args.deal_every <= MAX_DEAL_EVERY:
        raise EmulateUsageError(f"--deal-every: 0 < SECONDS <= {MAX_DEAL_EVERY:g}, got "
                                f"{args.deal_every}")
    args.penetration = _percent(args.penetration)


def _percent(text: str) -> int:
    """`--penetration`'s whole percent, 10..95 (a fraction such as 0.75 is refused)."""
    low, high = PENETRATION_PERCENT
    try:
        value = int(text)
    except ValueError:
        raise EmulateUsageError(f"--penetration: a whole percent {low}..{high} (75 for three "
                                f"quarters of the shoe), got {text!r}") from None
    if not low <= value <= high:
        raise EmulateUsageError(f"--penetration: a whole percent {low}..{high} of the shoe "
                                f"dealt before the cut card, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser."""
    parser = argparse.ArgumentParser(prog="shoectl emulate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("board", choices=("shoe", "layout", "sign", "wheel"))
    parser.add_argument("--link-dir", type=Path, default=None,
                        help="directory for the port's symlink (default: a new temporary one)")
    parser.add_argument("--name", default=None, help="symlink name (default: the board)")
    parser.add_argument("--firmware", default=FIRMWARE_VERSION, help="firmware version to report")
    parser.add_argument("--wrong-catalogue", action="store_true",
                        help="report a wrong catalogue hash (the host must refuse the board)")
    parser.add_argument("--config", type=Path, default=None, metavar="TABLE_FILE",
                        help="layout: name the channels as the table file's [devices.layout]")
    keys = parser.add_mutually_exclusive_group()
    keys.add_argument("--key-file", type=Path, default=None,
                      help="the pairing key file (64 hex digits), created if missing "
                           "(default: <link dir>/<name>.key)")
    keys.add_argument("--no-key", action="store_true",
                      help="a board without a pairing key (the host needs auth = \"none\")")
    shoe = parser.add_argument_group("shoe")
    shoe.add_argument("--decks", type=int, default=6, help="decks in the shoe (1..8)")
    shoe.add_argument("--deck", choices=("standard", "spanish"), default="standard")
    shoe.add_argument("--seed", type=int, default=None)
    shoe.add_argument("--penetration", default="75", metavar="PERCENT",
                      help="percent of the shoe dealt before the cut card (10..95, default 75; "
                           "the unit of [table] penetration)")
    shoe.add_argument("--cut-card-from-end", type=int, default=None, metavar="CARDS",
                      help="cards behind the cut card (instead of --penetration)")
    shoe.add_argument("--shoe-file", type=Path, default=None,
                      help="exactly these cards, no cut card (the shoe file format of "
                           "drivers/DEVICES.md: codes separated by whitespace, # comments)")
    shoe.add_argument("--deal-every", type=float, default=None, metavar="SECONDS",
                      help=f"draw a card every SECONDS by itself (0 < SECONDS <= "
                           f"{MAX_DEAL_EVERY:g})")
    wheel_cli.add_arguments(parser)
    return parser


def main(argv: list[str]) -> int:
    """Run the emulator until stopped."""
    args = build_parser().parse_args(argv)
    try:
        check_arguments(args)
    except EmulateUsageError as exc:
        sys.stderr.write(f"shoectl emulate: {exc}\n")
        return 2
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.board == "wheel":
        stop_wheel = threading.Event()
        _install_signals(stop_wheel)
        return wheel_cli.run(args, stop_wheel)
    try:
        names = ChannelNames.from_table_file(args.config) if args.config else ChannelNames()
        emulator = _build(args)
    except OSError as exc:
        sys.stderr.write(f"shoectl emulate: {exc.filename}: {exc.strerror or exc}\n")
        return 2
    except (ShoeModelError, DeviceConfigError, KeyFileError) as exc:
        sys.stderr.write(f"shoectl emulate: {exc}\n")
        return 2
    stop = threading.Event()
    with emulator:
        sys.stdout.write(f"{emulator.path}\n")
        sys.stdout.flush()
        _LOG.info("EMULATED %s board on %s (pty %s)", args.board, emulator.path,
                  emulator.tty_path)
        _install_signals(stop)
        commands = _commands(emulator, names)
        if args.deal_every and isinstance(emulator, ShoeEmulator):
            _deal_periodically(emulator, args.deal_every, stop)
        threading.Thread(target=read_commands, args=(commands, stop), daemon=True).start()
        stop.wait()
    return 0


def _build(args: argparse.Namespace) -> BoardEmulator:
    contents = _contents(args) if args.board == "shoe" else None  # refused before any file
    link_dir = args.link_dir or Path(tempfile.mkdtemp(prefix="shoectl-emulate-"))
    name = args.name or args.board
    identity = DeviceIdentity(args.firmware,
                              catalogue_hash=bytes(32) if args.wrong_catalogue else None)
    pairing = None if args.no_key else _pairing(args.key_file or link_dir / f"{name}.key")
    options: dict[str, Any] = {"link_dir": link_dir, "name": name, "identity": identity,
                               "pairing": pairing}
    if args.board == "layout":
        return LayoutEmulator(**options)
    if args.board == "sign":
        return SignEmulator(**options)
    assert contents is not None
    return ShoeEmulator(contents, **options)


def _pairing(path: Path) -> PairingKey:
    """The key in `path`, or a fresh one written there when the file does not exist."""
    if not path.exists():
        write_key_file(path, PairingKey.generate())
    key = read_key_file(path)
    _LOG.info("paired: key %s in %s", key.key_id, path)
    return key


def _contents(args: argparse.Namespace) -> ShoeContents:
    if args.shoe_file is not None:
        try:
            return ShoeContents.scripted(card.code for card in shoe_file_cards(args.shoe_file))
        except ShoeFileError as exc:
            raise ShoeFileError(f"--shoe-file {exc}") from exc
    return ShoeContents.shuffled(ShoePlan(args.decks, args.deck, args.seed, args.penetration,
                                          args.cut_card_from_end))


def _install_signals(stop: threading.Event) -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def _deal_periodically(shoe: ShoeEmulator, seconds: float, stop: threading.Event) -> None:
    def deal() -> None:
        while not stop.wait(seconds):
            if shoe.draw() is None:
                _LOG.info("the shoe is empty")
                return

    threading.Thread(target=deal, name="auto-dealer", daemon=True).start()


def _commands(emulator: BoardEmulator, names: ChannelNames) -> dict[str, Command]:
    commands: dict[str, Command] = {
        "unplug": lambda words: _done(emulator.unplug),
        "restart": lambda words: _done(emulator.restart),
        "replug": lambda words: _done(emulator.replug),
        "silent": lambda words: _done(emulator.faults.go_silent),
        "resume": lambda words: _done(emulator.faults.resume),
        "corrupt": lambda words: _done(lambda: emulator.faults.corrupt_next(_count(words))),
        "drop": lambda words: _done(lambda: emulator.faults.drop_next(_count(words))),
        "duplicate": lambda words: _done(lambda: emulator.faults.duplicate_next(_count(words))),
        "garbage": lambda words: _done(lambda: emulator.send_garbage(b"\x13\x37garbage\x00")),
        "stats": lambda words: str(emulator.stats()),
    }
    if isinstance(emulator, ShoeEmulator):
        commands.update(_shoe_commands(emulator))
    elif isinstance(emulator, LayoutEmulator):
        commands.update(_layout_commands(emulator, names))
    elif isinstance(emulator, SignEmulator):
        commands["show"] = lambda words: " ".join(map(str, emulator.display()))
    commands["help"] = lambda words: "commands: " + " ".join(sorted(commands)) + " quit"
    return commands


def _shoe_commands(shoe: ShoeEmulator) -> dict[str, Command]:
    def draw(words: list[str]) -> str:
        drawn = [shoe.draw() for _ in range(_count(words))]
        return f"{len([card for card in drawn if card])} drawn, {shoe.contents.remaining} left"

    return {
        "draw": draw,
        "load": lambda words: _done(shoe.load),
        "unreadable": lambda words: _done(shoe.unreadable_next),
        "face-up": lambda words: _done(shoe.face_up_next),
        "jam": lambda words: _done(shoe.jam),
        "clear-jam": lambda words: _done(shoe.clear_jam),
        "lid-open": lambda words: _done(shoe.open_lid),
        "lid-close": lambda words: _done(shoe.close_lid),
    }


@dataclass(frozen=True)
class ChannelNames:
    """The table's names for the layout board's channels (empty: numbers only)."""

    lamps: dict[str, int] = field(default_factory=dict)
    sensors: dict[str, int] = field(default_factory=dict)
    buttons: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_table_file(cls, path: Path) -> ChannelNames:
        """The names of a table file's `[devices.layout]`.

        Raises:
            OSError: The file cannot be read.
            DeviceConfigError: No usable `[devices.layout]` (naming the key).
        """
        try:
            document = tomllib.loads(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError as exc:
            raise DeviceConfigError("layout", "config",
                                    f"{path}: not UTF-8 text (byte {exc.start})") from None
        except tomllib.TOMLDecodeError as exc:
            raise DeviceConfigError("layout", "config", f"{path}: not TOML ({exc})") from None
        except RecursionError:
            raise DeviceConfigError("layout", "config", f"{path}: not TOML (arrays or tables "
                                    "nested too deep to read)") from None
        devices = document.get("devices")
        raw = devices.get("layout") if isinstance(devices, dict) else None
        if not isinstance(raw, dict):
            raise DeviceConfigError("layout", "config", f"{path} has no [devices.layout]")
        layout = parse_device("layout", raw, allow_emulated=True)
        assert isinstance(layout, LayoutConfig)
        return cls(dict(layout.lamps), dict(layout.bet_sensors), dict(layout.buttons))

    def channel(self, table: dict[str, int], words: list[str]) -> int:
        """The channel a command names: a number, or one of the table's names."""
        if words and words[0] in table:
            return table[words[0]]
        return _count(words)


def _layout_commands(layout: LayoutEmulator, names: ChannelNames) -> dict[str, Command]:
    def lamps(words: list[str]) -> str:
        # Named lamps always; without names, channels 0-7 always; any other channel when lit.
        always = names.lamps or {str(n): n for n in range(8)}
        named = [f"{name}:{layout.shown(number)}" for name, number in always.items()]
        others = [f"{n}:{layout.shown(n)}" for n in range(LAMPS)
                  if n not in always.values() and layout.shown(n) != "off"]
        return " ".join(named + others)

    return {
        "chip": lambda words: _done(lambda: layout.place_chip(
            names.channel(names.sensors, words))),
        "unchip": lambda words: _done(lambda: layout.remove_chip(
            names.channel(names.sensors, words))),
        "press": lambda words: _done(lambda: layout.click(names.channel(names.buttons, words))),
        "key": lambda words: _done(lambda: layout.turn_key(words[0] if words else "normal")),
        "lamps": lamps,
    }


def _count(words: list[str]) -> int:
    return int(words[0]) if words and words[0].isdigit() else 1


def _done(action: Callable[[], object]) -> str:
    action()
    return "ok"
