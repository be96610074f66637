"""`shoectl simulate`: the whole controller dealing rounds on its own, with bot players.

The table runtime (procedure, journal, meters, public outputs) runs on its event loop; an
auto-dealer pulls the next card from a shuffled (or scripted, `--shoe-file`) shoe whenever
the procedure says a card is due, and bot players press the decision buttons (basic strategy
or always stand). Every completed round is printed: a table line, or with `--json` one JSON
object per round and nothing else on stdout. A summary goes to stderr with `--json`. On a
terminal (without `--json`) the table is shown live instead (`controller.tableview`): seats,
hands, wagers, the dealer's hand with the hole card face down, the meter, lamps and shoe,
redrawn in place and paced by `--pace` so that a person can follow it.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from controller import tablesim, tableview
from controller.app import TableApp, model_factory
from controller.journal import JournalStore
from controller.loop import EventLoop
from controller.procedure_base import HOLD_STATES
from controller.rules.axman import AXMAN_DECK_COUNTS
from controller.rules.cards import ALLOWED_DECK_COUNTS, Card, CardError, Rank, shoe
from controller.rules.errors import ConfigError
from controller.rules.hands import Game
from controller.rules.meter import ProgressiveSettings
from controller.rules.money import format_cents
from controller.rules.options import GameConfig, check_consistency
from controller.rules.strategy import BasicStrategyPolicy, PlayerPolicy, StandPolicy
from controller.runtime import ControllerEvent, RecordingOutputs, TableRuntime, config_digest
from controller.tableconfig import load_default_table
from controller.tablemodel import Setup, TableModel
from drivers import events as ev

DEFAULT_ROUNDS = 100
MAX_PACE = 10.0
DEFAULT_BETS = {
    "blackjack": "main=1000,perfect-pairs=100,lucky-ladies=100,match-the-dealer=100,"
                 "blazing7s=500,axman=100",
    "spanish21": "main=1000,match-the-dealer=100",
    "baccarat": "banker=1000,tie=100,dragon-banker=100",
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="shoectl simulate",
                                description="Deal rounds through the whole controller with "
                                            "an auto-dealer and bot players.")
    p.add_argument("--game", choices=["blackjack", "spanish21", "baccarat"],
                   default="blackjack")
    p.add_argument("--decks", type=int, default=None, help="decks in the shoe")
    p.add_argument("--seats", type=int, default=5, help="seats playing (1..table seats)")
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--state-dir", type=Path, default=None,
                   help="journal directory (default: a temporary one)")
    p.add_argument("--strategy", choices=["basic", "stand"], default="basic")
    p.add_argument("--bets", default=None, help="wagers per seat, e.g. main=1000,blazing7s=500")
    p.add_argument("--meter-start", type=int, default=None, help="meter at start (cents)")
    p.add_argument("--meter-reset", type=int, default=None, help="reset amount (cents)")
    p.add_argument("--meter-increment", type=int, default=None, help="per wager (cents)")
    p.add_argument("--shoe-file", type=Path, default=None,
                   help="deal exactly these cards (one code a line), no burn, no cut card")
    p.add_argument("--json", action="store_true", help="one JSON object per round on stdout")
    p.add_argument("--in-process", action="store_true",
                   help="skip the devices: feed the controller's loop directly (faster)")
    p.add_argument("--camera", action="store_true",
                   help="add the emulated overhead camera and cross-check every card with "
                        "the recogniser (several times slower)")
    p.add_argument("--pace", type=float, default=tableview.DEFAULT_PACE, metavar="SECONDS",
                   help="on a terminal, the live table view deals at most one card every "
                        f"SECONDS (default {tableview.DEFAULT_PACE}; 0: full speed)")
    return p


@dataclass
class Options:
    """Validated simulate options."""

    config: GameConfig
    seats: int
    rounds: int
    seed: int
    bets: dict[str, int]
    policy: PlayerPolicy
    scripted: list[str] | None
    meter_start: int | None
    as_json: bool
    state_dir: Path | None
    in_process: bool = False
    notes: list[str] = field(default_factory=list)
    camera: bool = False
    pace: float = tableview.DEFAULT_PACE


def parse_bets(text: str) -> dict[str, int]:
    """`main=1000,blazing7s=500` -> {"main": 1000, "blazing7s": 500}.

    Raises:
        ConfigError: a part is not NAME=CENTS.
    """
    bets: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = part.partition("=")
        if not eq or not value.strip().isdigit():
            raise ConfigError(f"--bets: {part!r} is not NAME=CENTS")
        bets[name.strip()] = int(value)
    return bets


def read_shoe_file(path: Path) -> list[str]:
    """The cards of a scripted shoe, one code a line (blank lines and # comments skipped).

    Raises:
        ConfigError: unreadable file or a line that is no card (naming the line).
    """
    return [card for _, card in read_shoe_lines(path)]


def read_shoe_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, card code) of each card of a scripted shoe file.

    Raises:
        ConfigError: unreadable file, or a line that is no card (naming file, line, text).
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise ConfigError(f"--shoe-file {path}: {why}") from exc
    cards = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            cards.append((number, str(Card.parse(text))))
        except CardError as exc:
            raise ConfigError(f"--shoe-file {path} line {number}: {text!r} is not a card "
                              f"({exc})") from exc
    return cards


def check_shoe_cards(path: Path, cards: list[tuple[int, str]], decks: int,
                     spanish: bool) -> None:
    """Refuse, before anything is dealt, a card the configured shoe cannot hold (R9).

    Raises:
        ConfigError: naming the file, the line and the card: a ten in a Spanish 21 shoe, or
            one copy more than the shoe's decks hold.
    """
    counts: dict[str, int] = {}
    for number, card in cards:
        if spanish and Card.parse(card).rank is Rank.TEN:
            raise ConfigError(f"--shoe-file {path} line {number}: {card} cannot be in a "
                              "Spanish 21 shoe (its 48-card decks have no tens)")
        counts[card] = counts.get(card, 0) + 1
        if counts[card] > decks:
            raise ConfigError(f"--shoe-file {path} line {number}: {card} is copy "
                              f"{counts[card]} of {card}, but a {decks}-deck shoe holds "
                              f"{decks}")


def build_options(args: argparse.Namespace) -> Options:
    """Turn parsed arguments into a table configuration and a run plan.

    Raises:
        ConfigError: an option the table cannot take.
    """
    base = load_default_table().game
    game = Game(args.game)
    decks = _checked_decks(args, game, base.table.decks)
    wanted = parse_bets(args.bets or DEFAULT_BETS[args.game])
    config = _game_config(base, args, game, decks, wanted)
    bets, notes = _offered_bets(wanted, config)
    policy: PlayerPolicy = StandPolicy() if args.strategy == "stand" else BasicStrategyPolicy()
    scripted = _scripted_shoe(args.shoe_file, decks, game) if args.shoe_file else None
    return Options(config, args.seats, args.rounds, args.seed, bets, policy, scripted,
                   args.meter_start, args.json, args.state_dir, args.in_process, notes,
                   args.camera, args.pace)


def _checked_decks(args: argparse.Namespace, game: Game, default_decks: int) -> int:
    """Refuse seats, decks, pace or a camera the simulated table cannot have; the decks."""
    if not 1 <= args.seats <= 9:
        raise ConfigError(f"--seats: 1..9, got {args.seats}")
    decks: int = args.decks or (8 if game is Game.BACCARAT else default_decks)
    if decks not in ALLOWED_DECK_COUNTS:
        raise ConfigError(f"--decks: a shoe holds 1, 2, 4, 5, 6 or 8 decks, not {decks}")
    if args.camera and args.in_process:
        raise ConfigError("--camera: the camera is a device; it cannot run with --in-process")
    if not 0 <= args.pace <= MAX_PACE:
        raise ConfigError(f"--pace: 0..{MAX_PACE} seconds a card, got {args.pace}")
    return decks


def _game_config(base: GameConfig, args: argparse.Namespace, game: Game, decks: int,
                 wanted: dict[str, int]) -> GameConfig:
    """The shipped table set to the game, decks, seats, side wagers and meter asked for."""
    side_bets = {Game.BLACKJACK: base.table.side_bets, Game.SPANISH21: ("match-the-dealer",),
                 Game.BACCARAT: ("dragon-bonus",)}[game]
    if decks not in AXMAN_DECK_COUNTS:
        side_bets = tuple(b for b in side_bets if b != "axman")
    if game is not Game.BACCARAT:  # the table offers the side wagers the bots make
        side_bets = tuple(b for b in side_bets if b in wanted)
    table = replace(base.table, game=game, decks=decks, side_bets=side_bets,
                    seats=max(base.table.seats, args.seats))
    config = replace(base, table=table, progressive=_progressive(base.progressive, args))
    check_consistency(config)  # e.g. no Match the Dealer pay table for this deck count
    return config


def _scripted_shoe(path: Path, decks: int, game: Game) -> list[str]:
    """The cards of `--shoe-file`, each one the configured shoe can hold."""
    lines = read_shoe_lines(path)
    check_shoe_cards(path, lines, decks, game is Game.SPANISH21)
    return [card for _, card in lines]


def _progressive(base: ProgressiveSettings, args: argparse.Namespace) -> ProgressiveSettings:
    settings = replace(base, reset=base.reset if args.meter_reset is None else args.meter_reset,
                       increment=base.increment if args.meter_increment is None
                       else args.meter_increment)
    if settings.limit and settings.limit < settings.reset:
        raise ConfigError("--meter-reset: above the configured limit")
    return settings


def _offered_bets(bets: dict[str, int], config: GameConfig) -> tuple[dict[str, int], list[str]]:
    game = config.table.game
    if game is Game.BACCARAT:
        return bets, []
    offered = set(config.table.side_bets) | {"main"}
    kept = {k: v for k, v in bets.items() if k in offered}
    notes = [f"{name} is not offered at {game.value} with {config.table.decks} decks; ignored"
             for name in bets if name not in offered]
    if "main" not in kept:
        raise ConfigError("--bets: a main wager (main=CENTS) is needed")
    if "blazing7s" in kept and kept["blazing7s"] != config.paytables.blazing7s.wager:
        raise ConfigError(f"--bets: blazing7s is a fixed {config.paytables.blazing7s.wager}")
    return kept, notes


class ShoeSource:
    """The auto-dealer's shoe: shuffled decks with a burn and a cut card, or a scripted list.

    Card identities stay inside the controller's secure path (journal); they are never
    printed except in the round results after settlement.
    """

    def __init__(self, options: Options) -> None:
        self.scripted = options.scripted is not None
        self.seed = options.seed
        self.shuffles = 0
        self.table = options.config.table
        self.game = self.table.game
        self.decks = self.table.decks
        self.cut_after = 0
        self.cards: list[str] = list(options.scripted or [])
        self.count = 0
        self.cut_out = False

    def shuffle(self) -> None:
        """A freshly shuffled shoe (scripted shoes are dealt as listed)."""
        if self.scripted:
            return
        self.shuffles += 1
        self.count = 0
        self.cards = [str(c) for c in shoe(self.decks, spanish=self.game is Game.SPANISH21)]
        random.Random(tablesim.shuffle_seed(self.seed, self.shuffles)).shuffle(self.cards)
        self.cut_out = False
        self.cut_after = tablesim.cut_card_after(self.table, len(self.cards))

    def resume(self, seen: dict[str, int]) -> None:
        """A shoe for a restart mid-shoe: shuffled, less the cards already dealt from it."""
        self.shuffle()
        for code, count in seen.items():
            for _ in range(count):
                if code in self.cards:
                    self.cards.remove(code)

    def draw(self) -> str | None:
        """The next card, or None when the shoe is empty."""
        if not self.cards:
            return None
        self.count += 1
        return self.cards.pop(0)

    def cut_card_due(self, dealt_from_shoe: int) -> bool:
        """True once when the cut card comes out."""
        if self.scripted or self.cut_out or dealt_from_shoe < self.cut_after:
            return False
        self.cut_out = True
        return True


class Simulation:
    """Auto-dealer and bots around a `TableRuntime` on its event loop."""

    def __init__(self, options: Options, runtime: TableRuntime) -> None:
        self.options = options
        self.runtime = runtime
        self.loop = EventLoop(runtime.handle)
        self.source = ShoeSource(options)
        self.dealt_in_shoe = 0
        self.reported = 0
        self.finished = False
        self.faults = 0
        self.cards = 0
        self.watch: Callable[[], None] | None = None  # after every action: the live view
        if self.model.state != "shoe_loading":
            self.source.resume(self.model.shoe.seen)  # restarted mid-shoe
            self.source.count = self.model.shoe.last_card_no
            self.dealt_in_shoe = self.model.shoe.cards_out
            self.source.cut_out = self.model.shoe.cut_seen

    @property
    def model(self) -> TableModel:
        """The procedure model (read on the loop thread only)."""
        return self.runtime.model

    def run(self) -> Iterator[dict[str, Any]]:
        """Deal until the rounds are done or a scripted shoe runs out; yield each result."""
        while not self.finished:
            self.loop.run_until_idle()
            if self.watch is not None:
                self.watch()
            yield from self._new_results()
            if self.reported >= self.options.rounds:
                return
            event = self.next_action()
            if event is None:
                return
            self.loop.post(event)

    def void_unfinished(self) -> None:
        """The shoe ran out with a round in play: the supervisor voids it (key, R9)."""
        if not self.model.round_in_play():
            return
        now = time.monotonic()
        for event in (ev.KeySwitchTurned("layout", "supervisor", now),
                      ControllerEvent("void_round", {"reason": tablesim.VOID_REASON}),
                      ev.KeySwitchTurned("layout", "normal", now)):
            self.loop.post(event)
        self.loop.run_until_idle()

    def _new_results(self) -> Iterator[dict[str, Any]]:
        while self.reported < len(self.model.results) and self.reported < self.options.rounds:
            yield self.model.results[self.reported]
            self.reported += 1

    def next_action(self) -> object | None:
        """What the dealer or a player does next, given the public state of the table."""
        state = self.model.state
        if state in HOLD_STATES:
            self.faults += 1
            return None
        if state == "shoe_loading":
            self.source.shuffle()
            self.dealt_in_shoe = 0
            return ControllerEvent("shuffle_done", {})
        if state == "betting":
            return self._betting()
        if state == "round_over":
            return ControllerEvent("clear_round", {})
        if state == "burn" or self.model.card_due_to() is not None:
            return self._draw()
        button = tablesim.bot_move(self.model, self.options.policy)
        return None if button is None else ControllerEvent(button, {})

    def _draw(self) -> object | None:
        if self.source.cut_card_due(self.dealt_in_shoe):
            return ev.ShoeFault("shoe", ev.ShoeFaultKind.CUT_CARD, self.source.count, True,
                                time.monotonic())
        code = self.source.draw()
        if code is None:
            self.finished = True
            return None
        self.dealt_in_shoe += 1
        self.cards += 1
        return ev.CardDrawn("shoe", self.source.count, code, 100, time.monotonic())

    def _betting(self) -> object:
        model = self.model
        for seat in range(1, self.options.seats + 1):
            for bet, cents in self.options.bets.items():
                placed = model.pending_wagers.get(seat, {}).get(bet)
                sensed = model.sensors.get(f"seat{seat}.{bet}")
                if bet == "blazing7s" and not sensed:
                    return ev.BetSensorChanged("layout", f"seat{seat}.blazing7s", True,
                                               time.monotonic())
                if bet != "blazing7s" and placed is None:
                    return ControllerEvent("wager", {"seat": seat, "bet": bet, "cents": cents})
        return ControllerEvent("no_more_bets", {})


def _runtime(options: Options, state_dir: Path) -> TableRuntime:
    setup = Setup(options.config, burn=options.scripted is None)
    journal = JournalStore(state_dir, clock=time.monotonic)
    digest = config_digest({"game": options.config.table.game.value, "seed": options.seed})
    return TableRuntime(setup, journal, RecordingOutputs(),
                        model_factory(options.config.table.game), digest,
                        meter_start=options.meter_start)


def _line(record: dict[str, Any]) -> str:
    nets = tableview.players_net(record)
    if "banker" in record:
        return (f"coup {record['round']:>4}  P {' '.join(record['player']):<9} "
                f"B {' '.join(record['banker']):<9} {record['result']:<6} "
                f"table net {format_cents(nets):>10}")
    return (f"round {record['round']:>4}  dealer {' '.join(record['dealer']):<15} "
            f"players net {format_cents(nets):>10}  meter {format_cents(record['meter'])}")


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
    with tempfile.TemporaryDirectory(prefix="shoectl-sim-") as tmp:
        state_dir = options.state_dir or Path(tmp)
        if options.in_process:
            runtime = _runtime(options, state_dir)
            sim = Simulation(options, runtime)
            return _run(options, runtime, sim, sim.loop)
        return _run_on_devices(options, state_dir, Path(tmp))


def _run_on_devices(options: Options, state_dir: Path, workdir: Path) -> int:
    table = options.config.table
    rig = tablesim.RigSpec(options.seats, options.seed, options.scripted, options.camera,
                           options.meter_start)
    app = tablesim.start_rig_app("simulate", options.config, rig, state_dir=state_dir,
                                 ports=workdir / "ports",
                                 extra={"game": table.game.value, "seed": options.seed})
    try:
        runtime = app.runtime
        assert runtime is not None
        plan = tablesim.Plan(options.seats, options.rounds, options.bets, options.policy,
                             options.seed, scripted=options.scripted is not None,
                             camera=options.camera)
        sim = tablesim.PtySimulation(app, plan)
        return _run(options, runtime, sim, app.loop, app)
    finally:
        app.devices.close()


class _Runner(Protocol):
    faults: int
    cards: int
    watch: Callable[[], None] | None

    def run(self) -> Iterator[dict[str, Any]]: ...

    def void_unfinished(self) -> None: ...


@dataclass
class _Tally:
    """What the rounds reported so far add up to."""

    rounds: int = 0
    hands: int = 0
    house: int = 0

    def add(self, record: dict[str, Any]) -> None:
        """Count one settled round record."""
        seats = record["seats"]
        self.rounds += 1
        self.house -= tableview.players_net(record)
        self.hands += len(seats) if "banker" in record else sum(len(s["hands"]) for s in seats)


def _run(options: Options, runtime: TableRuntime, sim: _Runner, loop: EventLoop,
         app: TableApp | None = None) -> int:
    started = time.monotonic()
    tally = _Tally()
    out = sys.stdout
    view = _live_view(options, runtime, sim, loop)
    try:
        for record in sim.run():
            tally.add(record)
            if options.as_json:
                out.write(json.dumps(record) + "\n")
            elif view is None:
                out.write(_line(record) + "\n")
            out.flush()
        sim.void_unfinished()
    finally:
        if view is not None:
            view.close()
    camera = _camera_summary(app)
    _close(runtime, app)
    elapsed = max(time.monotonic() - started, 1e-9)
    meters = runtime.model.meters
    summary = (f"rounds {tally.rounds}  hands {tally.hands}  "
               f"house win {format_cents(tally.house)}  "
               f"meter {format_cents(meters.amount)}  hits {meters.hits}  "
               f"void {len(runtime.model.voided)}  faults {sim.faults}{camera}  "
               f"cards/s {sim.cards / elapsed:.0f}\n")
    (sys.stderr if options.as_json else out).write(summary)
    return 0 if sim.faults == 0 else 1


def _close(runtime: TableRuntime, app: TableApp | None) -> None:
    """Record the power-off and close the journal (and the devices, on the device path)."""
    if app is not None:
        app.close("simulation finished")
    else:
        runtime.shutdown("simulation finished")
        runtime.journal.close()


def _live_view(options: Options, runtime: TableRuntime, sim: _Runner,
               loop: EventLoop) -> tableview.LiveView | None:
    """On a terminal (and without --json), the live table view, watching every action."""
    if options.as_json or not sys.stdout.isatty():
        return None
    view = tableview.LiveView(runtime, sys.stdout, shoe_layout(options), pace=options.pace,
                              wait=lambda seconds: _idle(loop, seconds))
    sim.watch = view.after_step
    return view


def _idle(loop: EventLoop, seconds: float) -> None:
    """Wait while the loop goes on handling device events (links, heartbeats)."""
    loop.run_until(lambda: False, seconds)


def shoe_layout(options: Options) -> tableview.ShoeLayout:
    """The simulated shoe's size and cut card, as the dealer loads it."""
    if options.scripted is not None:
        return tableview.ShoeLayout(len(options.scripted), None)
    table = options.config.table
    size = table.decks * (48 if table.game is Game.SPANISH21 else 52)
    return tableview.ShoeLayout(size, tablesim.cut_card_after(table, size))


def _camera_summary(app: TableApp | None) -> str:
    if app is None or app.camera is None:
        return ""
    check = app.camera.crosscheck
    return f"  camera-checked {check.checked}" + ("  CAMERA DOWN" if check.down else "")
