"""The simulation driver of the shoe games: blackjack (and Spanish 21) and baccarat.

The table runtime (procedure, journal, meters, public outputs) runs on its event loop; an
auto-dealer pulls the next card from a shuffled (or scripted, `--shoe-file`) shoe whenever
the procedure says a card is due, and bot players press the decision buttons (basic strategy
or always stand). Every completed round is printed: a table line, or with `--json` one JSON
object per round and nothing else on stdout. A summary goes to stderr with `--json`. On a
terminal (without `--json`) the table is shown live instead (`controller.sim.table_view`): seats,
hands, wagers, the dealer's hand with the hole card face down, the meter, lamps and shoe,
redrawn in place and paced by `--pace` so that a person can follow it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from controller.rules.hands import Game
from controller.rules.money import format_cents
from controller.service.app import TableApp
from controller.service.loop import EventLoop
from controller.service.runtime import TableRuntime
from controller.sim import rig, table_view
from controller.sim.games.base import Driver, RoundRecords
from controller.sim.in_process import Simulation, make_runtime
from controller.sim.options import Options


def _line(record: dict[str, Any]) -> str:
    nets = table_view.players_net(record)
    if "banker" in record:
        return (f"coup {record['round']:>4}  P {' '.join(record['player']):<9} "
                f"B {' '.join(record['banker']):<9} {record['result']:<6} "
                f"table net {format_cents(nets):>10}")
    return (f"round {record['round']:>4}  dealer {' '.join(record['dealer']):<15} "
            f"players net {format_cents(nets):>10}  meter {format_cents(record['meter'])}")


def run(options: Options) -> int:
    """Deal the planned rounds (on the emulated devices, or in-process); the exit status.

    Results go to stdout (one JSON object a round with `--json`, else a line a round or the
    live view on a terminal); the summary to stderr with `--json`, else to stdout.
    """
    return ShoeTableDriver(options).run()


class _Runner(Protocol):
    cards: int
    watch: Callable[[], None] | None

    def run(self) -> Iterator[dict[str, Any]]: ...

    def void_unfinished(self) -> None: ...

    @property
    def faults(self) -> int: ...


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
        self.house -= table_view.players_net(record)
        self.hands += len(seats) if "banker" in record else sum(len(s["hands"]) for s in seats)


@dataclass
class _Table:
    """The started table: its runtime, the auto-dealer, the loop (and the app on devices)."""

    runtime: TableRuntime
    sim: _Runner
    loop: EventLoop
    app: TableApp | None = None


class ShoeTableDriver(Driver):
    """Blackjack, Spanish 21 and baccarat: on the emulated devices, or in-process."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.tally = _Tally()
        self.view: table_view.LiveView | None = None
        self._table: _Table | None = None

    @property
    def table(self) -> _Table:
        """The started table."""
        assert self._table is not None, "the table is not started"
        return self._table

    def start(self, state_dir: Path, workdir: Path) -> None:
        """The in-process table, or the table on the emulated rig's ptys under `workdir`."""
        options = self.options
        if options.in_process:
            runtime = make_runtime(options, state_dir)
            sim = Simulation(options, runtime)
            self._table = _Table(runtime, sim, sim.loop)
            return
        spec = rig.RigSpec(options.seats, options.seed, options.scripted, options.camera,
                           options.meter_start)
        app = rig.start_rig_app("simulate", options.config, spec, state_dir=state_dir,
                                ports=workdir / "ports",
                                extra={"game": options.config.table.game.value,
                                       "seed": options.seed})
        try:
            assert app.runtime is not None
            plan = rig.RigPlan(options.seats, options.rounds, options.bets, options.policy,
                               options.seed, scripted=options.scripted is not None,
                               camera=options.camera)
            self._table = _Table(app.runtime, rig.PtySimulation(app, plan), app.loop, app)
        except BaseException:
            app.devices.close()
            raise

    def rounds(self) -> RoundRecords:
        """Each round the auto-dealer and the bots settle; a round the shoe left, voided."""
        table = self.table
        self.view = _live_view(self.options, table.runtime, table.sim, table.loop)
        try:
            for record in table.sim.run():
                self.tally.add(record)
                yield record
            table.sim.void_unfinished()
        finally:
            if self.view is not None:
                self.view.close()

    def line(self, record: dict[str, Any]) -> str | None:
        """The round's line, or nothing while the live view shows the table."""
        return None if self.view is not None else _line(record)

    def summary(self, elapsed: float) -> str:
        """Rounds, hands, the house's win, the meter, voids, faults and cards a second."""
        table, tally = self.table, self.tally
        meters = table.runtime.model.progressive.meters
        return (f"rounds {tally.rounds}  hands {tally.hands}  "
                f"house win {format_cents(tally.house)}  "
                f"meter {format_cents(meters.amount)}  hits {meters.hits}  "
                f"void {len(table.runtime.model.voided)}  faults {table.sim.faults}"
                f"{_camera_summary(table.app)}  cards/s {table.sim.cards / elapsed:.0f}")

    @property
    def failed(self) -> bool:
        """A hold met, or a command the table refused the bots."""
        return self.table.sim.faults != 0

    def close(self, reason: str) -> None:
        """Record the power-off and close the journal (and the devices, on the device path)."""
        table = self.table
        if table.app is None:
            table.runtime.shutdown(reason)
            table.runtime.journal.close()
            return
        try:
            table.app.close(reason)
        finally:
            table.app.devices.close()


def _live_view(options: Options, runtime: TableRuntime, sim: _Runner,
               loop: EventLoop) -> table_view.LiveView | None:
    """On a terminal (and without --json), the live table view, watching every action."""
    if options.as_json or not sys.stdout.isatty():
        return None
    # The view lingers on each settled round; the auto-dealer then clears it, as a dealer
    # pressing CLEAR would, instead of the table returning to betting at once.
    runtime.return_to_betting = False
    view = table_view.LiveView(runtime, sys.stdout, shoe_layout(options), pace=options.pace,
                              wait=lambda seconds: _idle(loop, seconds))
    sim.watch = view.after_step
    return view


def _idle(loop: EventLoop, seconds: float) -> None:
    """Wait while the loop goes on handling device events (links, heartbeats)."""
    loop.run_until(lambda: False, seconds)


def shoe_layout(options: Options) -> table_view.ShoeLayout:
    """The simulated shoe's size and cut card, as the dealer loads it."""
    if options.scripted is not None:
        return table_view.ShoeLayout(len(options.scripted), None)
    table = options.config.table
    size = table.decks * (48 if table.game is Game.SPANISH21 else 52)
    return table_view.ShoeLayout(size, rig.cut_card_after(table, size))


def _camera_summary(app: TableApp | None) -> str:
    if app is None or app.camera is None:
        return ""
    check = app.camera.crosscheck
    return f"  camera-checked {check.checked}" + ("  CAMERA DOWN" if check.down else "")
