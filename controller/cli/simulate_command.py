"""`shoectl simulate`: deal rounds through the whole table, emulated, with bots.

Exit status: 0 every round dealt without a fault; 1 a fault held the table, or the journal
failed (a full disk, an unwritable state directory), named in one line; 2 an option or a
shoe file refused, named in one line; 130 Ctrl-C: the round in play is finished and
settled, the power-off journalled and the journal closed, then one line says so (a second
Ctrl-C stops at once).
"""

from __future__ import annotations

import argparse
import functools
import logging
import signal
import sys
from pathlib import Path
from types import FrameType

from controller.journal.errors import JournalError
from controller.rules.errors import ConfigError
from controller.sim import simulation
from controller.sim.games.base import EXIT_INTERRUPTED
from controller.sim.options import DEFAULT_ROUNDS, Options, build_options
from controller.sim.table_view import DEFAULT_PACE


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="shoectl simulate",
                                description="Deal rounds through the whole controller with "
                                            "an auto-dealer and bot players.")
    p.add_argument("--game", choices=["blackjack", "spanish21", "baccarat", "roulette",
                                       "community", "holdem"],
                   default="blackjack", help="the game the table deals (default blackjack)")
    p.add_argument("--decks", type=int, default=None, help="decks in the shoe")
    p.add_argument("--seats", type=int, default=5, help="seats playing (1..table seats)")
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                   help=f"rounds to deal (default {DEFAULT_ROUNDS})")
    p.add_argument("--seed", type=int, default=1,
                   help="seeds the shuffle and the bots: the same seed deals the same rounds")
    p.add_argument("--state-dir", type=Path, default=None,
                   help="journal directory (default: a temporary one)")
    p.add_argument("--strategy", default="basic", metavar="S[,S...]",
                   help="the bot players: basic (basic strategy, the posted wager), stand, "
                        "counter (a Hi-Lo counter: the wager by --spread, insurance from +3, "
                        "the index plays) or random (1-8 times the posted wager); one for "
                        "every seat, or one a seat (counter,basic,random)")
    p.add_argument("--spread", default=None, metavar="LOW-HIGH",
                   help="a counter's wager in units of the posted main wager: LOW up to a true "
                        "count of +1, HIGH from +5 (default 1-8)")
    p.add_argument("--bets", default=None, help="wagers per seat, e.g. main=1000,blazing7s=500")
    p.add_argument("--meter-start", type=int, default=None, help="meter at start (cents)")
    p.add_argument("--meter-reset", type=int, default=None, help="reset amount (cents)")
    p.add_argument("--meter-increment", type=int, default=None, help="per wager (cents)")
    p.add_argument("--shoe-file", type=Path, default=None,
                   help="deal exactly these cards (codes separated by spaces or lines), no "
                        "burn, no cut card")
    p.add_argument("--json", action="store_true", help="one JSON object per round on stdout")
    p.add_argument("--stations", type=int, default=None, metavar="K",
                   help="community: player stations played by bots (default 3)")
    roulette = p.add_argument_group("roulette")
    roulette.add_argument("--spins", type=int, default=None, metavar="N",
                          help="wheel games to play through the wheel emulator (default "
                               f"{DEFAULT_ROUNDS}; with --wheel-replay: the whole recording)")
    roulette.add_argument("--wheel", choices=["double", "single"], default=None,
                          help="double zero (38 pockets, the default) or single zero (37)")
    roulette.add_argument("--wheel-replay", type=Path, default=None, metavar="FILE",
                          help="read a recorded byte stream of a real wheel through the real "
                               "driver instead of the emulator's games")
    floor = p.add_argument_group("linked tables (docs/floor-protocol.md)")
    floor.add_argument("--tables", type=int, default=0, metavar="T",
                       help="deal T linked tables (in-process, one thread each)")
    floor.add_argument("--link", default=None, metavar="URL",
                       help="the broker of the linked tables: mqtt://HOST:PORT")
    floor.add_argument("--broker", action="store_true",
                       help="start a private Mosquitto on loopback for the run")
    p.add_argument("--in-process", action="store_true",
                   help="skip the devices: feed the controller's loop directly (faster)")
    p.add_argument("--camera", action="store_true",
                   help="add the emulated overhead camera and cross-check every card with "
                        "the recogniser (several times slower)")
    p.add_argument("--pace", type=float, default=DEFAULT_PACE, metavar="SECONDS",
                   help="on a terminal, the live table view deals at most one card every "
                        f"SECONDS (default {DEFAULT_PACE}; 0: full speed)")
    return p


def parse_options(argv: list[str]) -> Options:
    """The validated run plan of a `shoectl simulate` command line.

    Raises:
        ConfigError: An option the simulated table cannot take, named.
    """
    return build_options(_parser().parse_args(argv))


def main(argv: list[str]) -> int:
    """Run `shoectl simulate`."""
    args = _parser().parse_args(argv)
    try:
        options = build_options(args)
    except ConfigError as exc:
        sys.stderr.write(f"shoectl simulate: {exc}\n")
        return 2
    for note in options.notes:
        sys.stderr.write(f"shoectl simulate: {note}\n")
    logging.basicConfig(stream=sys.stderr, level=logging.ERROR,
                        format="%(levelname)s %(name)s: %(message)s")
    if args.tables or args.link or args.broker:
        return _linked(options, args)
    previous = signal.signal(signal.SIGINT, functools.partial(_interrupted, options))
    try:
        return simulation.run(options)
    except JournalError as exc:
        sys.stderr.write(f"shoectl simulate: {exc}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("shoectl simulate: interrupted twice: stopped at once (the journal "
                         "keeps every committed record; `shoectl journal verify` checks it)\n")
        return EXIT_INTERRUPTED
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupted(options: Options, signum: int, frame: FrameType | None) -> None:
    """The first Ctrl-C: stop after the round in play; a second one stops at once."""
    options.stop.set()
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _linked(options: Options, args: argparse.Namespace) -> int:
    """`--tables T` with `--link URL` or `--broker`: blackjack tables linked over MQTT."""
    from controller.sim import floor_sim

    problem = ""
    if not 1 <= args.tables <= 200:
        problem = f"--tables: must be 1..200, got {args.tables}"
    elif bool(args.link) == args.broker:
        problem = "--tables needs exactly one of --link URL and --broker"
    elif options.config.table.game.value != "blackjack":
        problem = "--tables: linked tables deal blackjack (the Blazing 7's progressive)"
    if problem:
        sys.stderr.write(f"shoectl simulate: {problem}\n")
        return 2
    try:
        return floor_sim.run_floor(options, args.tables, args.link)
    except ConfigError as exc:  # a plain mqtt:// --link off the machine
        sys.stderr.write(f"shoectl simulate: {exc}\n")
        return 2
    except (JournalError, RuntimeError, ValueError) as exc:
        sys.stderr.write(f"shoectl simulate: {exc}\n")
        return 1
