"""`shoectl simulate --game roulette`: the roulette table through the wheel emulator over a pty.

The table runs as under `shoectl run`: the real wheel driver reads the wheel emulator's bytes
(seeded games with their hard cases, or `--wheel-replay FILE`, a recording of a real wheel)
from a pseudo-terminal, the layout board's emulator shows the no-more-bets lamp, the
procedure and the journal do the rest. The wheel's bytes go out one step at a time (a run of
status repeats, or one other line); after each step the table handles what the driver made
of it, and the dealer and the bot players act through the console's commands (`source:
"bot"`): wagers while betting is open, the marker on the winning number, the losing bets
cleared, the winners paid. So the run is the same for a seed on a busy machine as on an idle
one.

With `--json` every wheel game the table saw decided or voided is one line on stdout:
`{"spin": n, "game": wheel_game_number, "number": "00" | "0" | "1".."36" | null,
"void": bool, "warnings": [...]}` (`number` is null exactly when `void` is true); a summary
goes to stderr. Without it, a line a spin (paced by `--pace` on a terminal).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

from controller.procedure.core.model import HOLD_STATES
from controller.procedure.families import model_as
from controller.procedure.roulette import RO, RouletteModel
from controller.rules import roulette as ro
from controller.rules.money import format_cents
from controller.rules.options import GameConfig
from controller.service.app import TableApp, build_app
from controller.service.tableconfig import TableFile
from controller.sim.bots import BotHands
from controller.sim.games.base import Driver, RoundRecords, SimulationStoppedError
from controller.sim.options import ROULETTE_PICKS, Options
from drivers.registry import BuildOptions

STEP_TIMEOUT_S: Final = 30.0
"""How long one of the wheel's steps may take to reach the table (a busy machine)."""
RIG_LAMPS: Final = {"fault": 0, "no_more_bets": 1}


class RouletteSimulationError(SimulationStoppedError):
    """The simulated table stopped answering (the wheel's bytes never arrived)."""


def rig_devices(config: GameConfig, seed: int, spins: int,
                replay: Path | None) -> dict[str, Any]:
    """The `[devices]` of the simulated roulette table: the emulated wheel and layout board."""
    wheel: dict[str, Any] = {"kind": "emulated", "pace_ms": 0, "timeout_ms": 60_000}
    if replay is not None:
        wheel["replay"] = str(replay)
    else:
        wheel.update(seed=seed, spins=spins, faults=True,
                     pockets=len(config.roulette.wheel.pockets))
    return {"wheel": wheel, "layout": {"kind": "emulated", "lamps": dict(RIG_LAMPS)}}


def start_roulette_app(options: Options, state_dir: Path, ports: Path) -> TableApp:
    """Build and start the roulette table on the emulated rig (the caller closes it)."""
    devices = rig_devices(options.config, options.seed, options.spins, options.wheel_replay)
    ports.mkdir(parents=True, exist_ok=True)
    document = {"devices": devices, "game": "roulette", "seed": options.seed}
    app = build_app(TableFile("simulate", options.config, document), allow_emulated=True,
                    state_dir=state_dir, devices=devices, options=BuildOptions(workdir=ports))
    try:
        app.start()
    except BaseException:
        app.devices.close()
        raise
    return app


def wager_command(rng: random.Random, wheel: ro.Wheel, seat: int, bet: str,
                  cents: int) -> dict[str, Any]:
    """A bot's wager as the console command: a spot of `bet` of the bot's choosing."""
    kind = ro.RouletteBet(bet)
    choices = ro.spots(kind, wheel)
    index = rng.randrange(len(choices))
    command: dict[str, Any] = {"command": "wager", "seat": seat, "bet": bet, "cents": cents}
    if kind.inside:
        command["numbers"] = list(ro.in_wheel_order(choices[index]))
    elif kind in (ro.RouletteBet.COLUMN, ro.RouletteBet.DOZEN):
        command["which"] = index + 1
    return command


class RouletteSimulation:
    """The wheel's steps, and the dealer's and the bots' actions in between.

    Args:
        app: The started table.
        options: The run plan (seats, bets, seed, spins).
        pace: The least time between two of the wheel's steps (0: full speed).
    """

    def __init__(self, app: TableApp, options: Options, pace: float = 0.0) -> None:
        assert app.runtime is not None
        self.app = app
        self.runtime = app.runtime
        self.options = options
        self.pace = pace
        self.wheel = app.devices.wheel
        self.emulator = app.devices.emulators["wheel"]
        self.rng = random.Random(options.seed)
        self.hands = BotHands()
        self.bet_round = -1
        self.reported = 0
        self.holds = 0
        self.steps = 0
        self.wagers = 0

    @property
    def model(self) -> RouletteModel:
        """The procedure model (this thread runs the loop)."""
        return model_as(self.runtime.model, RouletteModel)

    @property
    def faults(self) -> int:
        """Holds met and commands the table refused."""
        return self.holds + len(self.hands.refused)

    def run(self) -> Iterator[dict[str, Any]]:
        """Send the wheel's steps until the games are played; yield each spin as it ends."""
        wanted = self.options.spins
        while not wanted or self.reported < wanted:
            if not self._step():
                break
            if self.model.state in HOLD_STATES:
                self.holds += 1
                break
            self._act()
            log = self.model.spin_log
            while self.reported < len(log) and (not wanted or self.reported < wanted):
                self.reported += 1
                yield {"spin": self.reported, **log[self.reported - 1]}

    def _step(self) -> bool:
        started = time.monotonic()
        if not self.emulator.send_step():
            return False
        self.steps += 1
        target = self.emulator.sent
        wheel = self.wheel
        assert wheel is not None
        if not wheel.wait_handled(target, STEP_TIMEOUT_S):
            raise RouletteSimulationError(f"the wheel's bytes did not reach the table within "
                                          f"{STEP_TIMEOUT_S} s (state {self.model.state})")
        self.app.loop.run_until_idle()
        rest = self.pace - (time.monotonic() - started)
        if rest > 0:
            self.app.loop.run_until(lambda: False, rest)
        return True

    def _act(self) -> None:
        """The dealer and the bots do what the table waits for, until it waits on the wheel."""
        for _ in range(8):
            action = self._action()
            if action is None:
                return
            action()

    def _action(self) -> Callable[[], None] | None:
        model = self.model
        state = model.state
        if state == RO.BETTING and self.bet_round != model.round.number:
            return self._bet
        if state == RO.MARKER:
            return lambda: self._command({"command": "marker", "number": model.spin.number})
        if state == RO.CLEARING:
            return lambda: self._command({"command": "losers_cleared"})
        if state == RO.PAYING:
            return lambda: self._command({"command": "winners_paid"})
        return None

    def _bet(self) -> None:
        model = self.model
        self.bet_round = model.round.number
        names = list(self.options.bets)
        for seat in range(1, self.options.seats + 1):
            for bet in self.rng.sample(names, min(ROULETTE_PICKS, len(names))):
                self._command(wager_command(self.rng, model.wheel, seat, bet,
                                            self.options.bets[bet]))
                self.wagers += 1

    def _command(self, command: dict[str, Any]) -> None:
        before = self.runtime.handled_kinds.get("RuntimeCall", 0)
        self.app.loop.post(self.hands.call(command))
        if not self.app.loop.run_until(
                lambda: self.runtime.handled_kinds.get("RuntimeCall", 0) > before,
                STEP_TIMEOUT_S):
            raise RouletteSimulationError(f"the console command {command['command']} was "
                                          "not carried out")
        self.app.loop.run_until_idle()


def run(options: Options) -> int:
    """Play the spins and print them; the exit status.

    0: no hold, nothing refused; 1: a hold, a refused command, or the wheel's bytes stopped
    reaching the table; 2: a device could not be built or started (named, one line).
    """
    return RouletteDriver(options).run()


class RouletteDriver(Driver):
    """The roulette table on the emulated wheel (or a recording) and layout board."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.voids = 0
        self._sim: RouletteSimulation | None = None

    @property
    def sim(self) -> RouletteSimulation:
        """The wheel's steps and the bots of the started table."""
        assert self._sim is not None, "the table is not started"
        return self._sim

    def start(self, state_dir: Path, workdir: Path) -> None:
        """The table on the emulated rig, their ptys under `workdir`; paced when live."""
        app = start_roulette_app(self.options, state_dir, workdir / "ports")
        try:
            live = not self.options.as_json and sys.stdout.isatty()
            self._sim = RouletteSimulation(app, self.options,
                                           self.options.pace if live else 0.0)
        except BaseException:
            app.close("simulation not started")
            raise

    def rounds(self) -> RoundRecords:
        """Each wheel game the table saw decided or voided."""
        for record in self.sim.run():
            self.voids += record["void"]
            yield record

    def line(self, record: dict[str, Any]) -> str:
        """The spin's line (`spin_line`)."""
        return spin_line(record)

    def summary(self, elapsed: float) -> str:
        """Spins, voids, rounds settled, wagers, the house's win, faults and wheel steps."""
        sim = self.sim
        model = sim.model
        house = -sum(sum(w["net"] for s in r["seats"] for w in s["wagers"])
                     for r in model.results)
        return (f"spins {sim.reported}  void {self.voids}  settled {len(model.results)}  "
                f"wagers {sim.wagers}  house win {format_cents(house)}  faults {sim.faults}  "
                f"wheel steps {sim.steps}  spins/s {sim.reported / elapsed:.1f}")

    def notes(self) -> list[str]:
        """The first five commands the table refused, with its reasons."""
        return [f"refused {command}: {reply.body.get('error')}"
                for command, reply in self.sim.hands.refused[:5]]

    @property
    def failed(self) -> bool:
        """A hold met, or a command the table refused."""
        return self.sim.faults != 0

    def close(self, reason: str) -> None:
        """Record the power-off; close the journal and the devices."""
        self.sim.app.close(reason)


def spin_line(record: dict[str, Any]) -> str:
    """One spin for a person: `spin   12  game 031  17 black  [warnings]`."""
    number = record["number"]
    shown = "NO SPIN (void)" if record["void"] else f"{number:>2} {ro.colour(number)}"
    warnings = f"  warnings: {', '.join(record['warnings'])}" if record["warnings"] else ""
    return f"spin {record['spin']:>4}  game {record['game']:03d}  {shown}{warnings}"
